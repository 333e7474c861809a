//! Neighbour probe — a test instrument, not part of the step: the same neighbour loop as
//! sph.density and sph.force, recording per particle the count and checksums of the ids it
//! finds within h (`shaders/neighbour_probe.wgsl`). Tests compare it with the all-pairs oracle.

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, cell_lut, cell_start, sorted, pos_mass, id, probe output.
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Kernel {
    let slots = [(0, Uniform), (1, Read), (2, Read), (3, Read), (4, Read), (5, Read), (6, ReadWrite)];
    shader::neighbour_kernel(device, &shader::NEIGHBOUR_PROBE, &slots, cfg, rows)
}
