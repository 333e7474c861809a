//! What a simulation starts from: the particle state and the physical constants, however they
//! were made (a scene's setup, a test's hand-built pair).

use super::emit::Emitters;
use super::motion::Kinematics;
use super::params::SimParams;
use glam::Vec3;

/// Everything a simulation starts from.
#[derive(Clone, Debug)]
pub struct InitialState {
    /// Physical constants filled in; the grid fields (`grid_*`, `inv_cell_size`, `num_cells`,
    /// `search_range`) are set by whoever builds the grid.
    pub params: SimParams,
    /// `vec4(x, m)` for fluid, `vec4(x, −ψ)` for boundary, `w = 0` for a free slot (room for
    /// the emitters); fluid first, then boundary, then free slots.
    pub pos_mass: Vec<[f32; 4]>,
    /// `vec4(v, ρ)`; ρ starts at ρ0.
    pub vel_rho: Vec<[f32; 4]>,
    pub n_fluid: u32,
    /// Box the grid must cover: the domain plus the wall layers, with half a spacing to spare.
    pub grid_lo: Vec3,
    pub grid_hi: Vec3,
    /// The scene's emitters (none: no emit passes).
    pub emitters: Emitters,
    /// The step this state is at (0, or a checkpoint's): the emitters' schedule counts from it.
    pub step: u64,
    /// The simulated time this state is at, s (0, or a checkpoint's): an adaptive step's clock
    /// starts from it.
    pub time: f64,
    /// The solids that move, and their boundary particles' rest positions (none: no
    /// solids.move pass).
    pub kinematics: Kinematics,
    /// Which object of the scene each particle id belongs to (the export's `object`).
    pub objects: super::objects::ObjectMap,
    /// The pressure sensors the simulation samples (none: no sensor pass).
    pub sensors: super::sensors::SensorSpec,
}

impl InitialState {
    pub fn n_particles(&self) -> u32 {
        self.pos_mass.len() as u32
    }
    /// Boundary particles (`w < 0`).
    pub fn n_boundary(&self) -> u32 {
        self.pos_mass.iter().filter(|p| p[3] < 0.0).count() as u32
    }
    /// Free slots (`w = 0`).
    pub fn n_free(&self) -> u32 {
        self.pos_mass.iter().filter(|p| p[3] == 0.0).count() as u32
    }
}
