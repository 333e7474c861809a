//! sph.density — density of every fluid particle over the shared neighbour loop
//! (`shaders/density.wgsl` + `shaders/neighbours.wgsl`).

use super::keep::Reads;
use super::shader::{self, KernelConfig, KernelError, Pass};

/// With `lists` the pass also writes the neighbour lists sph.force reads
/// ([`super::NEIGHBOUR_LIST_MAX`]); `rows` reads a row of cells as one range (linear order). The
/// variants ([`Reads`]) say whether the walk lists with a skin (`SKIN`) or reads the lists.
pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, lists: super::ListLayout) -> Result<Pass<Reads>, KernelError> {
    let [on, split] = lists.constants();
    Pass::new(device, &shader::DENSITY, cfg, &[("ROWS", shader::flag(rows)), on, split])
}
