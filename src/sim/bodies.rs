//! bodies.force and bodies.integrate — the force of the fluid and the contacts on every moving
//! solid, summed on the GPU, and floating bodies moved by it (`shaders/bodies_force.wgsl`,
//! `shaders/bodies_integrate.wgsl`; docs/PHYSICS.md, "Floating bodies").

use super::shader::{self, KernelConfig, KernelError, Pass, Walk};

/// bodies.force, with the no-slip friction and the walls' approach viscosity as sph.force has
/// them (their reactions).
pub(crate) fn force(
    device: &wgpu::Device,
    cfg: KernelConfig,
    rows: bool,
    no_slip: bool,
    approach: bool,
) -> Result<Pass<Walk>, KernelError> {
    let constants = [("ROWS", shader::flag(rows)), ("NO_SLIP", shader::flag(no_slip)), ("WALL_APPROACH", shader::flag(approach))];
    Pass::new(device, &shader::BODIES_FORCE, cfg, &constants)
}

/// bodies.integrate: one workgroup per moving solid.
pub(crate) fn integrate(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass, KernelError> {
    Pass::new(device, &shader::BODIES_INTEGRATE, cfg, &[])
}
