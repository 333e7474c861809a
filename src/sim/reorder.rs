//! reorder — gather of all per-particle state from one buffer set into the other, in cell order
//! (`shaders/reorder.wgsl`). Its two bind groups (A→B, B→A) are built with the grid.

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, sorted, src pos_mass, src vel_rho, src id, dst pos_mass,
/// dst vel_rho, dst id.
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Kernel {
    let slots = [(0, Uniform), (3, Read), (4, Read), (5, Read), (6, Read), (7, ReadWrite), (8, ReadWrite), (9, ReadWrite)];
    Kernel::new(device, &shader::REORDER, &slots, cfg, &[&[]])
}
