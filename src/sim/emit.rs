//! emit.plan and emit.write — fluid particles created on the GPU by the scene's emitters, into
//! free slots (`shaders/emit_plan.wgsl`, `shaders/emit.wgsl`), and the schedule they follow.
//!
//! **Free slots.** A slot whose `pos_mass.w` is 0 holds no particle: the scene reserves them
//! for its emitters, and a particle that leaves through an open face frees its own
//! (sph.integrate). grid.count bins every free slot into the extra cell `num_cells`, so the grid
//! build lists them after every particle; emit.plan reads how many there are, emit.write fills
//! them in that order. The number of particles never leaves the GPU within a step.
//!
//! **Schedule.** An emitter lays down a layer of its points (a lattice of the spacing on its
//! rectangle or disc) every `spacing / speed` seconds from its start to its end: in integers,
//! every `period` = spacing / (speed dt) steps in 16.16 fixed point, so the GPU, the CPU twin
//! and [`EmitterGpu::layers_in`] agree exactly. A layer due in a step is written at its end,
//! moved on along the direction by the time since it was due.

use super::scan::{ScanLevels, ScanPass};
use super::shader::{self, KernelConfig, KernelError, Pass, Walk};

/// The emitters' records and state, defined once in [`crate::wgsl::shared`] with the WGSL
/// declarations generated from them (the `emit_structs` module `shaders/emit_common.wgsl` imports).
pub use crate::wgsl::shared::{EmitState, EmitterGpu, MAX_EMITTERS};

/// One step in the fixed point of [`EmitterGpu::period`] and [`EmitState::phase`].
pub(crate) const PHASE_ONE: i64 = 65536;

impl EmitterGpu {
    /// Whether it emits (and holds its inlet zone) on step `step`.
    pub(crate) fn active(&self, step: u64) -> bool {
        step >= self.start_step as u64 && step < self.end_step as u64
    }

    /// Layers it has laid down in the steps `0 .. steps`: ⌈r · 65536 / period⌉ over the
    /// `r` steps of its window that have passed (layer k is due at k · period / 65536 steps
    /// after the start). Closed form of the GPU's step-by-step phase.
    pub(crate) fn layers_in(&self, steps: u64) -> u64 {
        let r = steps.min(self.end_step as u64).saturating_sub(self.start_step as u64);
        (r * PHASE_ONE as u64).div_ceil(self.period as u64)
    }

    /// The phase (time from the start of step `step` to the next layer, 1/65536 step) the GPU
    /// holds when it starts step `step` (a resumed run starts with it).
    pub(crate) fn phase_at(&self, step: u64) -> i32 {
        let start = self.start_step as u64;
        if step <= start || step >= self.end_step as u64 {
            return 0;
        }
        let r = step - start;
        (self.layers_in(step) as i64 * self.period as i64 - r as i64 * PHASE_ONE) as i32
    }
}

impl EmitState {
    /// The state at the start of step `step` (0 for a new run, the checkpoint's on a resume).
    pub(crate) fn at(emitters: &[EmitterGpu], step: u64) -> Self {
        assert!(emitters.len() <= MAX_EMITTERS, "at most {MAX_EMITTERS} emitters");
        let mut s = Self {
            step: step.min(u32::MAX as u64) as u32,
            n_emitters: emitters.len() as u32,
            _pad: [0; 2],
            phase: [0; MAX_EMITTERS],
            offset: [0; MAX_EMITTERS],
            count: [0; MAX_EMITTERS],
            late: [0.0; MAX_EMITTERS],
        };
        for (e, em) in emitters.iter().enumerate() {
            s.phase[e] = em.phase_at(step);
        }
        s
    }
}

/// The emitters of a simulation: their records, their points (`xyz`, `w` = the emitter's index
/// as bits), all layers' worth.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Emitters {
    pub emitters: Vec<EmitterGpu>,
    pub points: Vec<[f32; 4]>,
}

impl Emitters {
    pub(crate) fn is_empty(&self) -> bool {
        self.emitters.is_empty()
    }

    /// Particles the emitters create in the steps `0 .. steps` when free slots never run out.
    pub fn particles_in(&self, steps: u64) -> u64 {
        self.emitters.iter().map(|e| e.layers_in(steps) * e.n_points as u64).sum()
    }
}

/// The emitters' records and state on the GPU (sph.integrate reads them for the inlet zones;
/// one unused record where there are no emitters, so its bindings always have a buffer), and
/// what a deterministic step ranks the free slots by id with: a flag per id, its exclusive scan
/// and the scan's levels (with emitters only; 16-byte placeholders otherwise).
pub(crate) struct EmitBuffers {
    pub emitters: wgpu::Buffer,
    pub state: wgpu::Buffer,
    pub free_flag: wgpu::Buffer,
    pub free_prefix: wgpu::Buffer,
    pub free_scan: Option<ScanLevels>,
}

impl EmitBuffers {
    /// For `n` slots.
    pub(crate) fn new(device: &wgpu::Device, scan: &ScanPass, e: &Emitters, step: u64, n: u32) -> Result<Self, KernelError> {
        let none = wgpu::BufferUsages::empty();
        let records = if e.is_empty() { vec![EmitterGpu::default()] } else { e.emitters.clone() };
        let ids = if e.is_empty() { 0 } else { n as u64 };
        let free_flag = shader::storage(device, "grid.free_flag", ids * 4);
        let free_prefix = shader::storage(device, "grid.free_prefix", (ids + 1) * 4);
        let free_scan = if e.is_empty() { None } else { Some(scan.levels(device, &free_flag, &free_prefix, n, None)?) };
        Ok(Self {
            emitters: shader::storage_init(device, "emit.emitters", bytemuck::cast_slice(&records), none),
            state: shader::storage_init(device, "emit.state", bytemuck::bytes_of(&EmitState::at(&e.emitters, step)), none),
            free_flag,
            free_prefix,
            free_scan,
        })
    }
}

crate::passes! {
    /// The emit passes of a simulation with emitters: emit.plan (how many free slots each
    /// emitter fills this step) and emit.write (the new particles).
    pub(crate) struct EmitPasses {
        plan: Pass,
        write: Pass<Walk>,
    }
}

impl EmitPasses {
    pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Self, KernelError> {
        Ok(Self { plan: Pass::new(device, &shader::EMIT_PLAN, cfg, &[])?, write: Pass::new(device, &shader::EMIT, cfg, &[])? })
    }
}

/// The emitters' points on the GPU, for a simulation with emitters.
pub(crate) struct EmitPoints {
    pub buffer: wgpu::Buffer,
    pub n: u32,
}

impl EmitPoints {
    pub(crate) fn new(device: &wgpu::Device, e: &Emitters) -> Self {
        Self {
            buffer: shader::storage_init(device, "emit.points", bytemuck::cast_slice(&e.points), wgpu::BufferUsages::empty()),
            n: e.points.len() as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emitter(start: u32, end: u32, period: u32) -> EmitterGpu {
        EmitterGpu { n_points: 3, start_step: start, end_step: end, period, ..Default::default() }
    }

    /// The closed form against the GPU's rule stepped one step at a time (emit_plan.wgsl).
    #[test]
    fn closed_form_matches_the_stepped_phase() {
        for em in [emitter(0, u32::MAX, 65536), emitter(5, 400, 65536 * 7 / 3), emitter(3, 90, 1_234_567), emitter(10, 11, 200_000)] {
            let mut phase: i64 = 0;
            let mut layers = 0u64;
            for step in 0..500u64 {
                assert_eq!(em.phase_at(step) as i64, if step < em.end_step as u64 { phase } else { 0 }, "{em:?} at {step}");
                assert_eq!(em.layers_in(step), layers, "{em:?} after {step} steps");
                if step >= em.start_step as u64 && step < em.end_step as u64 {
                    if phase < PHASE_ONE {
                        layers += 1;
                        phase += em.period as i64;
                    }
                    phase -= PHASE_ONE;
                }
            }
        }
    }
}
