//! grid.scatter — `sorted[cell_start[cell_of[i]] + rank[i]] = i` (`shaders/scatter.wgsl`).

use super::shader::{self, KernelConfig, KernelError, Pass};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::SCATTER, cfg, &[])
}
