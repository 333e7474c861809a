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
    /// Reduce the step's largest move into grid.keep's words (the lists kept between grid
    /// builds, WCSPH only).
    pub moves: bool,
}

impl Variant for Integrate {
    const ALL: &'static [Self] = &[
        Integrate { inlets: false, kick: true, moves: false },
        Integrate { inlets: true, kick: true, moves: false },
        Integrate { inlets: false, kick: false, moves: false },
        Integrate { inlets: true, kick: false, moves: false },
        Integrate { inlets: false, kick: true, moves: true },
    ];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("INLETS", shader::flag(self.inlets)), ("KICK", shader::flag(self.kick)), ("MOVES", shader::flag(self.moves))]
    }
}

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Integrate>, KernelError> {
    Pass::new(device, &shader::INTEGRATE, cfg, &[])
}
