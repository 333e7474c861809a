//! grid.scatter — `sorted[cell_start[cell_of[i]] + rank[i]] = i` (`shaders/scatter.wgsl`).

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, cell_start, sorted, cell_of, rank.
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Kernel {
    let slots = [(0, Uniform), (2, Read), (3, ReadWrite), (4, Read), (5, Read)];
    Kernel::new(device, &shader::SCATTER, &slots, cfg, &[&[]])
}
