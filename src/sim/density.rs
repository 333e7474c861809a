//! sph.density — density of every fluid particle over the shared neighbour loop
//! (`shaders/density.wgsl` + `shaders/neighbours.wgsl`).

use super::keep::Reads;
use super::shader::{self, KernelConfig, KernelError, Pass};

/// With `lists` the pass also writes the neighbour lists sph.force reads
/// ([`super::NEIGHBOUR_LIST_MAX`]); `rows` reads a row of cells as one range (linear order);
/// `keeps`: the simulation keeps its lists between builds (`SKIN`, [`super::Sim::keeps_lists`]).
pub(crate) fn new(
    device: &wgpu::Device,
    cfg: KernelConfig,
    rows: bool,
    lists: super::ListLayout,
    keeps: bool,
) -> Result<Pass<Reads>, KernelError> {
    let [on, split] = lists.constants();
    Pass::new(device, &shader::DENSITY, cfg, &[("ROWS", shader::flag(rows)), on, split, ("SKIN", shader::flag(keeps))])
}
