//! grid.sort_cells — ranks every particle within its cell by particle id
//! (`shaders/sort_cells.wgsl`); grid.scatter then runs again, so each cell's slots are in id
//! order and the neighbour loops sum in the same order on every run: with it the step is
//! deterministic (`SimOptions::deterministic`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variant 0, and [`WITH_FREE_RANKS`]: it also flags the ids of the free slots for
/// grid.rank_free (a simulation with emitters).
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::SORT_CELLS, cfg, &[&[("FREE_RANKS", 0.0)], &[("FREE_RANKS", 1.0)]])
}

pub const WITH_FREE_RANKS: usize = 1;

/// grid.rank_free — ranks the free slots by id (`shaders/rank_free.wgsl`).
pub fn rank_free(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::RANK_FREE, cfg, &[&[]])
}
