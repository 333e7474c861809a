//! Rillet: weakly compressible SPH on the GPU with wgpu.
//!
//! The simulation step lives in [`sim`] (one module per GPU pass), its CPU twin in
//! [`reference`], scenes (schema, validation, initial state) in [`scene`].

pub mod ahead;
pub mod app;
pub mod bench;
pub mod cells;
pub mod checkpoint;
pub mod export;
pub mod files;
pub mod gpu;
pub mod headless;
pub mod health;
pub mod offscreen;
pub mod physics;
pub mod probes;
pub mod progress;
pub mod reference;
pub mod render;
pub mod scene;
pub mod signals;
pub mod sim;
pub mod validation;
pub mod wgsl;
