//! grid.count — cell and rank per particle (`shaders/count.wgsl`), with the grid diagnostics
//! (max per cell, overflows over capacity) compiled in or out through the `DIAGNOSTICS` override.

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, cell_lut, pos_mass, counts, cell_of, rank, diag.
pub fn new(device: &wgpu::Device, cfg: KernelConfig, diagnostics: bool) -> Kernel {
    let slots = [(0, Uniform), (1, Read), (4, Read), (5, ReadWrite), (6, ReadWrite), (7, ReadWrite), (8, ReadWrite)];
    let diag = if diagnostics { 1.0 } else { 0.0 };
    Kernel::new(device, &shader::COUNT, &slots, cfg, &[&[("DIAGNOSTICS", diag)]])
}
