//! grid.sort_cells — ranks every particle within its cell by particle id
//! (`shaders/sort_cells.wgsl`); grid.scatter then runs again, so each cell's slots are in id
//! order and the neighbour loops sum in the same order on every run: with it the step is
//! deterministic (`SimOptions::deterministic`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::SORT_CELLS, cfg, &[&[]])
}
