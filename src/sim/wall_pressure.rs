//! sph.wall_pressure — the pressure of each boundary particle from the fluid around it (Adami
//! et al. 2012), stored as a density (`shaders/wall_pressure.wgsl` + `shaders/neighbours.wgsl`).

use super::keep::Reads;
use super::shader::{self, KernelConfig, KernelError, Pass};

/// With `no_slip` the wall particles also take the fluid's extrapolated velocity; with `moving`
/// (a scene with moving solids) each wall particle's own velocity and acceleration from
/// solids.move enter (override constants: a scene pays only for what it uses).
/// With `lists` (the neighbour lists kept between grid builds: a list skin) a building step lists
/// each marked wall particle's fluid, and a step that keeps the lists reads them.
pub(crate) fn new(
    device: &wgpu::Device,
    cfg: KernelConfig,
    rows: bool,
    no_slip: bool,
    moving: bool,
    lists: super::ListLayout,
) -> Result<Pass<Reads>, KernelError> {
    // the lists only where the simulation keeps them (the skin: the variants, [`Reads`])
    let [on, split] = lists.constants();
    let constants = [("ROWS", shader::flag(rows)), ("NO_SLIP", shader::flag(no_slip)), ("MOVING", shader::flag(moving)), on, split];
    Pass::new(device, &shader::WALL_PRESSURE, cfg, &constants)
}

/// solids.move: the boundary particles of moving solids to their pose at the start of the step
/// (`shaders/solids_move.wgsl`).
pub(crate) fn solids_move(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::SOLIDS_MOVE, cfg, &[])
}
