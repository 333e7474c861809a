//! What a simulation starts from: the particle state and the physical constants, however they
//! were made (a scene's setup, a test's hand-built pair).

use super::params::SimParams;
use glam::Vec3;

/// Everything a simulation starts from.
#[derive(Clone, Debug)]
pub struct InitialState {
    /// Physical constants filled in; the grid fields (`grid_*`, `inv_cell_size`, `num_cells`,
    /// `search_range`) are set by whoever builds the grid.
    pub params: SimParams,
    /// `vec4(x, m)` for fluid, `vec4(x, −ψ)` for boundary; fluid first.
    pub pos_mass: Vec<[f32; 4]>,
    /// `vec4(v, ρ)`; ρ starts at ρ0.
    pub vel_rho: Vec<[f32; 4]>,
    pub n_fluid: u32,
    /// Box the grid must cover: the domain plus the wall layers, with half a spacing to spare.
    pub grid_lo: Vec3,
    pub grid_hi: Vec3,
}

impl InitialState {
    pub fn n_particles(&self) -> u32 {
        self.pos_mass.len() as u32
    }
    pub fn n_boundary(&self) -> u32 {
        self.n_particles() - self.n_fluid
    }
}
