//! sim.time_step — the step's dt (fixed, or adaptive from its own speeds and forces), its
//! simulated time and its measurements (fastest particle, mean compression), on the GPU with
//! no CPU wait (`shaders/time_step.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variant [`REDUCE`] (one invocation per slot) and [`FINISH`] (one invocation).
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::TIME_STEP, cfg, &[&[("FINISH", 0.0)], &[("FINISH", 1.0)]])
}

pub const REDUCE: usize = 0;
pub const FINISH: usize = 1;

/// Bytes of the reduction's scratch words (`reduce` in the shader).
pub const REDUCE_BYTES: u64 = 32;
