//! Neighbour probe — a test instrument, not part of the step: the same neighbour loop as
//! sph.density and sph.force, recording per particle the count and checksums of the ids it
//! finds within h (`shaders/neighbour_probe.wgsl`). Tests compare it with the all-pairs oracle.

use crate::sim::shader::{self, KernelConfig, KernelError, Pass, Walk};

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Result<Pass<Walk>, KernelError> {
    Pass::new(device, &shader::NEIGHBOUR_PROBE, cfg, &[("ROWS", shader::flag(rows))])
}
