//! reorder — gather of all per-particle state from one buffer set into the other, in cell order
//! (`shaders/reorder.wgsl`). It binds `src_*` as the current set and `dst_*` as the other (the
//! simulation's table for each current set names both).

use super::shader::{self, KernelConfig, KernelError, Pass};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<super::keep::Gather>, KernelError> {
    Pass::new(device, &shader::REORDER, cfg, &[])
}
