//! sph.force — pressure, viscosity, boundary and gravity into an acceleration
//! (`shaders/force.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`].
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Result<Kernel, KernelError> {
    shader::neighbour_kernel(device, &shader::FORCE, cfg, rows)
}
