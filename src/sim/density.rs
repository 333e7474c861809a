//! sph.density — density of every fluid particle over the shared neighbour loop
//! (`shaders/density.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`].
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Result<Kernel, KernelError> {
    shader::neighbour_kernel(device, &shader::DENSITY, cfg, rows)
}
