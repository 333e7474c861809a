//! grid.count — cell and rank per particle (`shaders/count.wgsl`), with the grid diagnostics
//! (max per cell, overflows over capacity) compiled in or out through the `DIAGNOSTICS` override.

use super::shader::{self, Kernel, KernelConfig, KernelError};

pub fn new(device: &wgpu::Device, cfg: KernelConfig, diagnostics: bool) -> Result<Kernel, KernelError> {
    let diag = if diagnostics { 1.0 } else { 0.0 };
    Kernel::new(device, &shader::COUNT, cfg, &[&[("DIAGNOSTICS", diag)]])
}
