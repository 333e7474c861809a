//! All-pairs density — a baseline instrument, not part of the step: the density sum over every
//! particle pair with no grid (`shaders/all_pairs.wgsl`), to show what the grid buys. The
//! benchmark times it; a test checks it against the CPU twin.

use crate::sim::shader::{self, KernelConfig, KernelError, Pass};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::ALL_PAIRS, cfg, &[])
}
