//! The simulation's uniform parameters, shared by every pass and by the CPU twin.
//!
//! [`SimParams`] is defined once, in [`crate::wgsl::shared`], and its WGSL declaration generated
//! from that definition (the `sim_params` module `shaders/common.wgsl` imports); `tests/shaders.rs`
//! checks the generated layout against Rust's.

pub use crate::wgsl::shared::SimParams;

impl SimParams {
    /// Sets the derived members from the others. The neighbour loops read these from the
    /// uniform block instead of computing them per invocation: a value that comes from the
    /// uniform block is an operand of the instruction that uses it, while one the shader
    /// computes is held in a register for the whole loop.
    pub(crate) fn derive(&mut self) {
        self.inv_h = 1.0 / self.h;
        self.h2 = self.h * self.h;
        self.inv_rest_density = 1.0 / self.rest_density;
        self.viscosity_scale = 2.0 * self.h * self.sound_speed;
        self.grad_scale = self.kernel_norm * 6.0 / (self.h * self.h);
    }
}

pub use crate::physics::{SOLVER_DFSPH, SOLVER_WCSPH};
/// Byte offset of `SimParams::dt` (sim.time_step copies the chosen dt there).
pub(crate) const DT_OFFSET: u64 = std::mem::offset_of!(SimParams, dt) as u64;

/// Diagnostic words the GPU writes (`diag` buffer), defined once in [`crate::wgsl::shared`]: the
/// shaders index `diag` with the word constants generated from it (`DIAG_DT`, …).
pub use crate::wgsl::shared::Diagnostics;

impl Diagnostics {
    /// Simulated time at the end of the last step, s.
    pub fn sim_time(&self) -> f64 {
        self.time as f64 + self.time_lo as f64
    }
}

/// The bit of `SimParams::open_faces` for the face of `axis` (0 = x, 1 = y, 2 = z) on its `max`
/// side or its min side: min faces are bits 0–2, max faces bits 3–5.
pub(crate) const fn open_face_bit(axis: usize, max: bool) -> u32 {
    1 << (axis + if max { 3 } else { 0 })
}
