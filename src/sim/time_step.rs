//! sim.time_step — the step's dt (fixed, or adaptive from its own speeds and forces), its
//! simulated time and its measurements (fastest particle, mean compression), on the GPU with
//! no CPU wait (`shaders/time_step.wgsl`).

use super::shader::{self, KernelConfig, KernelError, Pass, Variant};

/// The pass's two dispatches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// One invocation per slot: the reduction over the particles.
    Reduce,
    /// One invocation: the dt and the clock from the reduction.
    Finish,
}

impl Variant for Part {
    const ALL: &'static [Self] = &[Part::Reduce, Part::Finish];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("FINISH", shader::flag(self == Part::Finish))]
    }
}

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Part>, KernelError> {
    Pass::new(device, &shader::TIME_STEP, cfg, &[])
}

/// Bytes of the reduction's scratch words (`reduce` in the shader).
pub(crate) const REDUCE_BYTES: u64 = 32;
