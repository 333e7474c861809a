//! sph.wall_pressure — the pressure of each boundary particle from the fluid around it (Adami
//! et al. 2012), stored as a density (`shaders/wall_pressure.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`].
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool) -> Result<Kernel, KernelError> {
    shader::neighbour_kernel(device, &shader::WALL_PRESSURE, cfg, rows)
}
