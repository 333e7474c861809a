//! grid.count — cell and rank per particle (`shaders/count.wgsl`). The grid diagnostics (max per
//! cell, overflows over capacity) are taken by grid.scan's level 0 from the counts
//! (`src/sim/scan.rs`).

use super::shader::{self, KernelConfig, KernelError, Pass};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::COUNT, cfg, &[])
}
