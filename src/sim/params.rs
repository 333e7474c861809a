//! The simulation's uniform parameters, shared by every pass and by the CPU twin.
//!
//! Kept in sync with `struct SimParams` in `shaders/common.wgsl`; `tests/shaders.rs` checks the
//! size and every member offset against what naga reports for the WGSL struct.

use bytemuck::{Pod, Zeroable};

/// Uniform block of one simulation. All lengths in metres, times in seconds, SI units.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SimParams {
    /// Lower corner of the fluid domain (the inner faces of the walls).
    pub domain_min: [f32; 3],
    /// Particles in the state buffers: fluid first at creation, boundary after (order changes
    /// with reorders; a particle is boundary when its `pos_mass.w` is negative).
    pub n_particles: u32,
    /// Upper corner of the fluid domain.
    pub domain_max: [f32; 3],
    /// Fluid particles (the ones that move).
    pub n_fluid: u32,
    /// Gravity acceleration.
    pub gravity: [f32; 3],
    /// Time step.
    pub dt: f32,
    /// World position of the corner of cell (0, 0, 0).
    pub grid_origin: [f32; 3],
    /// 1 / cell size.
    pub inv_cell_size: f32,
    /// Cells per axis.
    pub grid_dims: [u32; 3],
    /// Length of the cell index range (padded for Morton order).
    pub num_cells: u32,
    /// Support radius of the kernel (2 particle spacings).
    pub h: f32,
    /// Rest density ρ0.
    pub rest_density: f32,
    /// Tait stiffness B = ρ0 c² / γ ([`crate::physics::TAIT_GAMMA`]).
    pub stiffness: f32,
    /// Speed of sound c.
    pub sound_speed: f32,
    /// Monaghan artificial viscosity α between fluid particles.
    pub viscosity: f32,
    /// Monaghan artificial viscosity α between fluid and boundary particles.
    pub wall_viscosity: f32,
    /// Cubic spline normalisation 8 / (π h³).
    pub kernel_norm: f32,
    /// Neighbour search range in cells, r = ceil(h / cell size).
    pub search_range: u32,
    /// Per-cell occupancy above which a cell counts as overflowing.
    pub capacity: u32,
    /// Open faces of the domain, a bit each ([`open_face_bit`]): a fluid particle that crosses
    /// one leaves the simulation (its slot is freed) instead of being clamped onto it.
    pub open_faces: u32,
    /// The pressure solver: [`SOLVER_WCSPH`] or [`SOLVER_DFSPH`].
    pub solver: u32,
    /// 1: the step chooses dt (sim.time_step, from `cfl`, the force condition, `dt_min` and
    /// `dt_max`); 0: `dt` is fixed.
    pub adaptive: u32,
    /// Bounds of an adaptive dt (the viscous condition already folded into `dt_max`).
    pub dt_min: f32,
    pub dt_max: f32,
    /// CFL number of an adaptive dt: WCSPH dt·(c + |v|max)/h ≤ cfl, DFSPH dt·|v|max/spacing ≤ cfl.
    pub cfl: f32,
    /// DFSPH: the pressure solve stops when the mean predicted compression (ρ* − ρ0)/ρ0 over
    /// fluid is at most this.
    pub density_tolerance: f32,
    /// DFSPH: the divergence solve stops when the mean dt·(Dρ/Dt)/ρ0 over fluid is at most this.
    pub divergence_tolerance: f32,
    /// DFSPH: most velocity updates per solve.
    pub max_iterations: u32,
    /// No-slip walls: kinematic viscosity ν (m²/s) of the laminar fluid–wall friction; 0 = free
    /// slip (wall particles at rest).
    pub no_slip_viscosity: f32,
    /// Derived (set by [`SimParams::derive`] before every upload): 1 / h.
    pub inv_h: f32,
    /// Derived: h².
    pub h2: f32,
    /// Derived: 1 / ρ0.
    pub inv_rest_density: f32,
    /// Derived: 2 h c, the artificial viscosity's prefactor without α and 1 / (ρ_i + ρ_j).
    pub viscosity_scale: f32,
    /// Derived: the cubic spline gradient's factor kernel_norm · 6 / h².
    pub grad_scale: f32,
    /// Monaghan artificial viscosity α on the normal component of the approach to wall
    /// particles, along each wall particle's normal (docs/PHYSICS.md, "Walls"); 0 = none.
    pub wall_approach_viscosity: f32,
    pub _pad: [u32; 3],
}

const _: () = assert!(std::mem::size_of::<SimParams>() == 192);

impl SimParams {
    /// Sets the derived members from the others. The neighbour loops read these from the
    /// uniform block instead of computing them per invocation: a value that comes from the
    /// uniform block is an operand of the instruction that uses it, while one the shader
    /// computes is held in a register for the whole loop.
    pub fn derive(&mut self) {
        self.inv_h = 1.0 / self.h;
        self.h2 = self.h * self.h;
        self.inv_rest_density = 1.0 / self.rest_density;
        self.viscosity_scale = 2.0 * self.h * self.sound_speed;
        self.grad_scale = self.kernel_norm * 6.0 / (self.h * self.h);
    }
}

pub use crate::physics::{SOLVER_DFSPH, SOLVER_WCSPH};
/// Byte offset of `SimParams::dt` (sim.time_step copies the chosen dt there).
pub const DT_OFFSET: u64 = std::mem::offset_of!(SimParams, dt) as u64;

/// Diagnostic words the GPU writes (`diag` buffer), in this order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Diagnostics {
    /// Largest cell occupancy seen by the last grid build (0 when diagnostics are compiled out).
    pub max_per_cell: u32,
    /// Particles that landed in a cell already holding `capacity` (last grid build).
    pub overflows: u32,
    /// Position clamps by the domain guard, cumulative since the simulation was created.
    pub wall_clamps: u32,
    /// Particles whose integrated state was not finite, cumulative (their step was discarded).
    pub non_finite: u32,
    /// Fluid particles that left through an open face, cumulative.
    pub outflow: u32,
    /// Fluid particles the emitters created, cumulative.
    pub emitted: u32,
    /// Particles the emitters could not create for want of free slots, cumulative.
    pub starved: u32,
    /// Free slots after the last step's emission (slots of no particle).
    pub free_slots: u32,
    /// The dt of the last step (written by sim.time_step every step; fixed or adaptive).
    pub dt: f32,
    /// Simulated time at the end of the last step, as a compensated f32 sum `time + time_lo`
    /// (sim.time_step adds each step's dt).
    pub time: f32,
    pub time_lo: f32,
    /// Fastest fluid particle at the last step's density pass, m/s.
    pub max_speed: f32,
    /// Mean compression `max(ρ − ρ0, 0)/ρ0` over fluid at the last step's density pass.
    pub density_error: f32,
    /// DFSPH: velocity updates of the last step's pressure and divergence solves.
    pub pressure_iterations: u32,
    pub divergence_iterations: u32,
    /// DFSPH: the mean predicted compression the last pressure solve reached.
    pub solver_error: f32,
}

impl Diagnostics {
    /// Simulated time at the end of the last step, s.
    pub fn sim_time(&self) -> f64 {
        self.time as f64 + self.time_lo as f64
    }
}

/// Number of [`Diagnostics`] words (the WGSL `diag` arrays' length).
pub const DIAG_WORDS: usize = std::mem::size_of::<Diagnostics>() / 4;

/// The bit of `SimParams::open_faces` for the face of `axis` (0 = x, 1 = y, 2 = z) on its `max`
/// side or its min side: min faces are bits 0–2, max faces bits 3–5.
pub const fn open_face_bit(axis: usize, max: bool) -> u32 {
    1 << (axis + if max { 3 } else { 0 })
}
