//! grid.scatter — `sorted[cell_start[cell_of[i]] + rank[i]] = i` (`shaders/scatter.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::SCATTER, cfg, &[&[]])
}
