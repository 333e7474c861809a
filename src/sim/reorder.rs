//! reorder — gather of all per-particle state from one buffer set into the other, in cell order
//! (`shaders/reorder.wgsl`). Its two bind groups (A→B, B→A) are built with the grid.

use super::shader::{self, Kernel, KernelConfig, KernelError};

pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::REORDER, cfg, &[&[]])
}
