//! sph.force — pressure, viscosity, boundary and gravity into an acceleration
//! (`shaders/force.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{self, KernelConfig, KernelError, Pass, Walk};

/// What the pass computes, fixed when the pipelines are built (override constants, so a scene
/// pays only for the terms it uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// WCSPH: the Tait pressure, viscosity and gravity.
    Pressure,
    /// WCSPH with no-slip walls: and the laminar friction against wall particles.
    PressureNoSlip,
    /// DFSPH (which solves for the pressure): viscosity, gravity and the walls' hydrostatic
    /// support.
    ViscousOnly,
}

/// The pass in `mode`; with `approach`, the walls' approach viscosity
/// (`params.wall_approach_viscosity` > 0), relative to each wall particle's velocity with
/// `moving` (a scene with moving solids); `rows` and `lists` as for sph.density.
pub(crate) fn new(
    device: &wgpu::Device,
    cfg: KernelConfig,
    rows: bool,
    mode: Mode,
    lists: super::ListLayout,
    approach: bool,
    moving: bool,
) -> Result<Pass<Walk>, KernelError> {
    let [on, split] = lists.constants();
    let constants = [
        ("ROWS", shader::flag(rows)),
        ("PRESSURE", shader::flag(mode != Mode::ViscousOnly)),
        ("NO_SLIP", shader::flag(mode == Mode::PressureNoSlip)),
        ("WALL_APPROACH", shader::flag(approach)),
        ("MOVING", shader::flag(moving)),
        on,
        split,
    ];
    Pass::new(device, &shader::FORCE, cfg, &constants)
}
