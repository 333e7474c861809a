//! Rillet: weakly compressible SPH on the GPU with wgpu.
//!
//! The simulation step lives in [`sim`] (one module per GPU pass), its CPU twin in
//! [`reference`](mod@reference), scenes (schema, validation, initial state) in [`scene`].

// The code's documentation is built with its private items (`cargo doc --document-private-items`,
// as CI builds it), so a link from a public item to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

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
