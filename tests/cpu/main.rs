//! The tests that need no GPU (the import layers, the shipped assets and scenes, the CPU twin's
//! reference scenes), in one binary. Run one file's tests by its module name, e.g.
//! `cargo test --release --test cpu architecture::`.

mod architecture;
mod assets;
mod dfsph_study;
mod reference_scenes;
mod scenes;
mod wave_study;
