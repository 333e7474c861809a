//! sph.integrate — symplectic Euler with the domain guard and the non-finite guard
//! (`shaders/integrate.wgsl`).

use super::shader::{self, KernelConfig, KernelError, Pass, Variant};

/// The pass's variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Integrate {
    /// Hold fluid in the emitters' inlet zones at their velocity (a simulation with emitters).
    pub inlets: bool,
    /// Kick the velocity with the acceleration (WCSPH); DFSPH's velocity is final: positions
    /// only.
    pub kick: bool,
}

impl Variant for Integrate {
    const ALL: &'static [Self] = &[
        Integrate { inlets: false, kick: true },
        Integrate { inlets: true, kick: true },
        Integrate { inlets: false, kick: false },
        Integrate { inlets: true, kick: false },
    ];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("INLETS", shader::flag(self.inlets)), ("KICK", shader::flag(self.kick))]
    }
}

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Integrate>, KernelError> {
    Pass::new(device, &shader::INTEGRATE, cfg, &[])
}
