//! sph.force — pressure, viscosity, boundary and gravity into an acceleration
//! (`shaders/force.wgsl` + `shaders/neighbours.wgsl`).

use super::shader::{Kernel, KernelConfig, KernelError};

/// What the pass computes, fixed when the pipelines are built (override constants, so a scene
/// pays only for the terms it uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// WCSPH: the Tait pressure, viscosity and gravity.
    Pressure,
    /// WCSPH with no-slip walls: and the laminar friction against wall particles.
    PressureNoSlip,
    /// DFSPH (which solves for the pressure): viscosity, gravity and the walls' hydrostatic
    /// support.
    ViscousOnly,
}

/// Variants: [`super::DIRECT`] (after a reorder) and [`super::THROUGH_SORTED`], in `mode`.
/// With `approach`, the walls' approach viscosity (`params.wall_approach_viscosity` > 0).
pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, mode: Mode, lists: bool, approach: bool) -> Result<Kernel, KernelError> {
    let pressure = if mode == Mode::ViscousOnly { 0.0 } else { 1.0 };
    let no_slip = if mode == Mode::PressureNoSlip { 1.0 } else { 0.0 };
    let mut constants = vec![("PRESSURE", pressure), ("NO_SLIP", no_slip), ("WALL_APPROACH", if approach { 1.0 } else { 0.0 })];
    constants.extend(super::list_constants(lists));
    super::shader::neighbour_kernel_with(device, &super::shader::FORCE, cfg, rows, &constants)
}
