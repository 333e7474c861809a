//! sph.integrate — symplectic Euler with the domain guard and the non-finite guard
//! (`shaders/integrate.wgsl`).

use super::shader::{self, Kernel, Slot::*};

/// Bindings, in `bind` order: params, pos_mass, vel_rho, acc, diag.
pub fn new(device: &wgpu::Device, wg_size: u32) -> Kernel {
    let slots = [(0, Uniform), (4, ReadWrite), (5, ReadWrite), (6, Read), (7, ReadWrite)];
    Kernel::new(device, &shader::INTEGRATE, &slots, wg_size, &[&[]])
}
