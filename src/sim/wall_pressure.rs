//! sph.wall_pressure — the pressure of each boundary particle from the fluid around it (Adami
//! et al. 2012), stored as a density (`shaders/wall_pressure.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`]; with `no_slip`
/// the wall particles also take the fluid's extrapolated velocity (an override constant: free
/// slip does not pay for it).
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, no_slip: bool) -> Result<Kernel, KernelError> {
    let r = if rows { 1.0 } else { 0.0 };
    let ns = if no_slip { 1.0 } else { 0.0 };
    Kernel::new(
        device,
        &shader::WALL_PRESSURE,
        cfg,
        &[&[("USE_SORTED", 0.0), ("ROWS", r), ("NO_SLIP", ns)], &[("USE_SORTED", 1.0), ("ROWS", r), ("NO_SLIP", ns)]],
    )
}
