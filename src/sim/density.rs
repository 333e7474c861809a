//! sph.density — density of every fluid particle over the shared neighbour loop
//! (`shaders/density.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, cell_lut, cell_start, sorted, pos_mass, vel_rho.
/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`].
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Kernel {
    let slots = [(0, Uniform), (1, Read), (2, Read), (3, Read), (4, Read), (5, ReadWrite)];
    shader::neighbour_kernel(device, &shader::DENSITY, &slots, cfg, rows)
}
