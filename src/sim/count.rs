//! grid.count — cell and rank per particle (`shaders/count.wgsl`), with the grid diagnostics
//! (max per cell, overflows over capacity) compiled in or out through the `DIAGNOSTICS` override.

use super::shader::{self, KernelConfig, KernelError, Pass};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, diagnostics: bool) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::COUNT, cfg, &[("DIAGNOSTICS", shader::flag(diagnostics))])
}
