//! Rillet: weakly compressible SPH on the GPU with wgpu.
//!
//! The simulation step lives in [`sim`] (one module per GPU pass), its CPU twin in
//! [`reference`], scenes in [`scene`] and their initial particle state in [`setup`].

pub mod app;
pub mod bench;
pub mod gpu;
pub mod headless;
pub mod reference;
pub mod render;
pub mod scene;
pub mod setup;
pub mod sim;
pub mod validation;
