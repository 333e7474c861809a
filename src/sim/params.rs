//! The simulation's uniform parameters, shared by every pass and by the CPU twin.
//!
//! [`SimParams`] is defined once, in [`crate::wgsl::shared`], and its WGSL declaration generated
//! from that definition (the `sim_params` module `shaders/common.wgsl` imports); `tests/shaders.rs`
//! checks the generated layout against Rust's.

use bytemuck::{Pod, Zeroable};

pub use crate::wgsl::shared::SimParams;

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
