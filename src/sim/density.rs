//! sph.density — density of every fluid particle over the shared neighbour loop
//! (`shaders/density.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`]; with `lists`
/// the pass also writes the neighbour lists sph.force reads ([`super::NEIGHBOUR_LIST_MAX`]).
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, lists: bool) -> Result<Kernel, KernelError> {
    shader::neighbour_kernel_with(device, &shader::DENSITY, cfg, rows, &super::list_constants(lists))
}
