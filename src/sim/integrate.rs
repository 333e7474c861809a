//! sph.integrate — symplectic Euler with the domain guard and the non-finite guard
//! (`shaders/integrate.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(device, &shader::INTEGRATE, cfg, &[&[]])
}
