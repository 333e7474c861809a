//! sph.integrate — symplectic Euler with the domain guard and the non-finite guard
//! (`shaders/integrate.wgsl`).

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, pos_mass, vel_rho, acc, diag.
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Kernel {
    let slots = [(0, Uniform), (4, ReadWrite), (5, ReadWrite), (6, Read), (7, ReadWrite)];
    Kernel::new(device, &shader::INTEGRATE, &slots, cfg, &[&[]])
}
