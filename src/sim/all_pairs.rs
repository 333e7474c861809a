//! All-pairs density — a baseline instrument, not part of the step: the density sum over every
//! particle pair with no grid (`shaders/all_pairs.wgsl`), to show what the grid buys. The
//! benchmark times it; a test checks it against the CPU twin.

use super::shader::{self, Kernel, KernelConfig, Slot::*};

/// Bindings, in `bind` order: params, pos_mass, density output (one f32 per slot).
pub fn new(device: &wgpu::Device, cfg: KernelConfig) -> Kernel {
    let slots = [(0, Uniform), (4, Read), (5, ReadWrite)];
    Kernel::new(device, &shader::ALL_PAIRS, &slots, cfg, &[&[]])
}
