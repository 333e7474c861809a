//! The CPU twin of the GPU step: an f64 oracle that implements docs/PHYSICS.md formula by
//! formula, for the GPU tests to compare against.
//!
//! - [`grid`]: the counting sort of step 1 ([`build_grid`], integer-exact: it bins the f32
//!   positions with [`GridLayout`](crate::sim::layout::GridLayout)'s own `cell_coord` /
//!   `cell_index`), the grid diagnostics, and neighbour search: [`all_pairs_neighbours`] is the
//!   O(N²) oracle, [`cell_list_neighbours`] the fast search that is tested equal to it.
//! - [`kernel`]: the cubic spline and the Tait equation of state.
//! - [`sph`]: [`RefSim`], density, forces and symplectic Euler with the non-finite and domain
//!   guards, the step's dt, state indexed by particle id (never reordered).
//! - [`bodies`]: the force on moving solids and floating bodies moved (bodies.force,
//!   bodies.integrate).
//! - [`dfsph`]: the DFSPH passes (density and factor, the divergence and pressure solves).
//! - [`sensors`]: the pressure sensors' interpolation (sim.sensors).
//!
//! Everything here is plain, single-threaded and allocation-light, and deliberately shares no code
//! with the GPU path beyond [`SimParams`](crate::sim::params::SimParams), `GridLayout` and the
//! initial state ([`InitialState`](crate::sim::InitialState), emitters' records included).

pub(crate) mod bodies;
pub(crate) mod dfsph;
pub(crate) mod grid;
pub(crate) mod kernel;
pub mod sensors;
pub(crate) mod sph;

pub use bodies::RefBody;
pub use grid::{
    RefGrid, all_pairs_neighbours, all_pairs_neighbours_f64, build_grid, build_grid_with_free, cell_list_neighbours, grid_diagnostics,
};
pub use kernel::{CubicKernel, tait_pressure};
pub use sph::{RefSim, StepRecord};
