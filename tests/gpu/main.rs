//! The tests that run on a GPU adapter (lavapipe on a machine without a GPU), in one binary:
//! one link instead of thirteen on a two-core machine. Run one file's tests by its module name,
//! e.g. `cargo test --release --test gpu sph::` or `cargo test --release --test gpu validation:: -- --ignored`.

#[path = "../common/mod.rs"]
mod common;

mod bodies;
mod export;
mod floating;
mod flow;
mod grid;
mod moving;
mod probes;
mod reliability;
mod scenes;
mod sensors;
mod shaders;
mod solver;
mod sph;
mod spheres;
mod surface;
mod throughput;
mod validation;
mod wall_study;
