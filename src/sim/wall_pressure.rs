//! sph.wall_pressure — the pressure of each boundary particle from the fluid around it (Adami
//! et al. 2012), stored as a density (`shaders/wall_pressure.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, KernelConfig, KernelError, Pass, Walk};

/// With `no_slip` the wall particles also take the fluid's extrapolated velocity (an override
/// constant: free slip does not pay for it).
pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, no_slip: bool) -> Result<Pass<Walk>, KernelError> {
    Pass::new(device, &shader::WALL_PRESSURE, cfg, &[("ROWS", shader::flag(rows)), ("NO_SLIP", shader::flag(no_slip))])
}
