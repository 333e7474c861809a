//! grid.sort_cells — ranks every particle within its cell by particle id
//! (`shaders/sort_cells.wgsl`); grid.scatter then runs again, so each cell's slots are in id
//! order and the neighbour loops sum in the same order on every run: with it the step is
//! deterministic (`SimOptions::deterministic`).

use super::shader::{self, KernelConfig, KernelError, Pass, Single, Variant};

/// Whether the pass also flags the ids of the free slots for grid.rank_free (a simulation with
/// emitters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ranks {
    Particles,
    WithFree,
}

impl Variant for Ranks {
    const ALL: &'static [Self] = &[Ranks::Particles, Ranks::WithFree];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("FREE_RANKS", shader::flag(self == Ranks::WithFree))]
    }
}

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Ranks>, KernelError> {
    Pass::new(device, &shader::SORT_CELLS, cfg, &[])
}

/// grid.rank_free — ranks the free slots by id (`shaders/rank_free.wgsl`).
pub(crate) fn rank_free(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Single>, KernelError> {
    Pass::new(device, &shader::RANK_FREE, cfg, &[])
}
