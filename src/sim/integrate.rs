//! sph.integrate — symplectic Euler with the domain guard and the non-finite guard
//! (`shaders/integrate.wgsl`).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// Variant 0 without inlet zones, [`WITH_INLETS`] with (a simulation with emitters); plus
/// [`POSITIONS_ONLY`] for DFSPH (the velocity is final: no kick).
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Kernel, KernelError> {
    Kernel::new(
        device,
        &shader::INTEGRATE,
        cfg,
        &[&[("INLETS", 0.0), ("KICK", 1.0)], &[("INLETS", 1.0), ("KICK", 1.0)], &[("INLETS", 0.0), ("KICK", 0.0)], &[("INLETS", 1.0), ("KICK", 0.0)]],
    )
}

/// The variant that holds fluid in the emitters' inlet zones at their velocity.
pub const WITH_INLETS: usize = 1;
/// Added to the variant: positions only (DFSPH).
pub const POSITIONS_ONLY: usize = 2;
