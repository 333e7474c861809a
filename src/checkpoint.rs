//! Checkpoints: everything a run needs to continue — particle state by id, step, time, the guard
//! counters — in one binary file with a format version, the scene's content hash and a checksum
//! in its header. Written aside and renamed, so `checkpoint.bin` is always a whole one.
//!
//! Layout (little endian): `RILLETCK` · version u32 · header bytes u32 · scene hash u64 · step
//! u64 · time f64 · particles u32 · fluid u32 · wall clamps u64 · non-finite u64 · outflow u64 ·
//! emitted u64 · starved u64 · the last step's dt f32 · its solver error f32 · the GPU clock
//! (time, time_lo) 2 × f32 · warm-start entries u32 (0, or the particle count for DFSPH) ·
//! moving solids u32 · payload bytes u64 · checksum u64 · payload: `pos_mass` (16 B each),
//! `vel_rho` (16 B each), then for DFSPH the solves' totals `warm_pressure` and
//! `warm_divergence` (4 B each), all in id order, then each moving solid's state
//! ([`crate::sim::motion::BodyState`], 256 B: a floating body's pose and rates). The step state (dt, solver error, clock, warm start) is what the
//! next step reads besides the particles: an adaptive dt grows from the last one and halves
//! after an unconverged solve, and DFSPH starts its solves from the last totals, so a resume
//! continues exactly where the run was. The checksum (FNV-1a) covers every byte after the magic but its own: the header's
//! fields (step, time, counters) as well as the payload.

use crate::sim::Particles;
use anyhow::Context as _;
use std::path::Path;

pub(crate) const MAGIC: &[u8; 8] = b"RILLETCK";
pub(crate) const VERSION: u32 = 3;
/// The checkpoint's name in a run folder.
pub(crate) const FILE: &str = "checkpoint.bin";
const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8 + 8 + 24 + 16 + 4 + 4 + 8 + 8;

/// A run's state at a step.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub scene_hash: u64,
    pub step: u64,
    pub time: f64,
    pub n_fluid: u32,
    pub wall_clamps: u64,
    pub non_finite: u64,
    /// Fluid particles that left through open faces, that the emitters created, and that they
    /// could not create for want of room, since the run's start.
    pub flow: [u64; 3],
    /// By id: fluid first, as the scene's setup made them.
    pub pos_mass: Vec<[f32; 4]>,
    pub vel_rho: Vec<[f32; 4]>,
    /// What the next step reads besides the particles (`None`: start as a fresh run does).
    pub step_state: Option<StepState>,
}

pub use crate::sim::StepState;

/// Why a checkpoint was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckpointError {
    #[error("{file}: not a checkpoint of this program (no RILLETCK header)")]
    NotACheckpoint { file: String },
    #[error("{file}: checkpoint format version {found}, this program reads version {VERSION}")]
    Version { file: String, found: u32 },
    #[error("{file}: the checkpoint is damaged (its checksum or length does not match)")]
    Damaged { file: String },
    #[error(
        "{file}: the checkpoint is of another scene (its content hash differs from {scene}'s): resume it with the scene it was written with"
    )]
    OtherScene { file: String, scene: String },
}

/// FNV-1a, 64 bits: a checksum of the payload and a content hash of a scene.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_more(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a continued from `h` over `bytes`.
fn fnv1a_more(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Where the checksum lies in the header (its last 8 bytes).
const CHECKSUM_AT: usize = HEADER - 8;

/// The checksum of a checkpoint's bytes: everything after the magic but the checksum itself.
fn checksum(bytes: &[u8]) -> u64 {
    fnv1a_more(fnv1a(&bytes[MAGIC.len()..CHECKSUM_AT]), &bytes[HEADER..])
}

impl Checkpoint {
    /// The state of a readback (any slot order) at `step`.
    pub(crate) fn new(p: &Particles, scene_hash: u64, step: u64, time: f64, n_fluid: u32, wall_clamps: u64, non_finite: u64) -> Self {
        let by_id = p.by_id();
        Self {
            scene_hash,
            step,
            time,
            n_fluid,
            wall_clamps,
            non_finite,
            flow: [0; 3],
            pos_mass: by_id.pos_mass,
            vel_rho: by_id.vel_rho,
            step_state: None,
        }
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut payload: Vec<u8> = Vec::with_capacity(self.pos_mass.len() * 32);
        payload.extend_from_slice(bytemuck::cast_slice(&self.pos_mass));
        payload.extend_from_slice(bytemuck::cast_slice(&self.vel_rho));
        let warm = self.step_state.as_ref().and_then(|s| s.warm.as_ref());
        if let Some((p, d)) = warm {
            payload.extend_from_slice(bytemuck::cast_slice(p));
            payload.extend_from_slice(bytemuck::cast_slice(d));
        }
        let bodies = self.step_state.as_ref().map_or(&[][..], |s| &s.bodies[..]);
        payload.extend_from_slice(bytemuck::cast_slice(bodies));
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(HEADER as u32).to_le_bytes());
        out.extend_from_slice(&self.scene_hash.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.time.to_le_bytes());
        out.extend_from_slice(&(self.pos_mass.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.n_fluid.to_le_bytes());
        out.extend_from_slice(&self.wall_clamps.to_le_bytes());
        out.extend_from_slice(&self.non_finite.to_le_bytes());
        for f in self.flow {
            out.extend_from_slice(&f.to_le_bytes());
        }
        // no step state: NaN for the dt (a fresh start)
        let st = self.step_state.as_ref();
        for v in [
            st.map_or(f32::NAN, |s| s.last_dt),
            st.map_or(0.0, |s| s.solver_error),
            st.map_or(0.0, |s| s.clock[0]),
            st.map_or(0.0, |s| s.clock[1]),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(warm.map_or(0, |(p, _)| p.len()) as u32).to_le_bytes());
        out.extend_from_slice(&(bodies.len() as u32).to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&[0; 8]);
        debug_assert_eq!(out.len(), HEADER);
        out.extend_from_slice(&payload);
        let sum = checksum(&out);
        out[CHECKSUM_AT..HEADER].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a checkpoint; `file` names it in errors.
    pub(crate) fn from_bytes(bytes: &[u8], file: &str) -> Result<Self, CheckpointError> {
        let file = file.to_owned();
        if bytes.len() < 16 || &bytes[..8] != MAGIC {
            return Err(CheckpointError::NotACheckpoint { file });
        }
        let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(CheckpointError::Version { file, found: version });
        }
        if bytes.len() < HEADER || u32_at(12) as usize != HEADER {
            return Err(CheckpointError::Damaged { file });
        }
        let u64_at = |o: usize| u64::from_le_bytes(bytes[o..o + 8].try_into().expect("8 bytes"));
        let (scene_hash, step, time) = (u64_at(16), u64_at(24), f64::from_le_bytes(bytes[32..40].try_into().expect("8 bytes")));
        let (n, n_fluid) = (u32_at(40) as usize, u32_at(44));
        let (wall_clamps, non_finite) = (u64_at(48), u64_at(56));
        let flow = [u64_at(64), u64_at(72), u64_at(80)];
        let f32_at = |o: usize| f32::from_le_bytes(bytes[o..o + 4].try_into().expect("4 bytes"));
        let (last_dt, solver_error, clock) = (f32_at(88), f32_at(92), [f32_at(96), f32_at(100)]);
        let warm_n = u32_at(104) as usize;
        let n_bodies = u32_at(108) as usize;
        const BODY: usize = std::mem::size_of::<crate::sim::motion::BodyState>();
        let (len, sum) = (u64_at(112), u64_at(CHECKSUM_AT));
        let payload = &bytes[HEADER..];
        let expected = n as u64 * 32 + warm_n as u64 * 8 + (n_bodies * BODY) as u64;
        if checksum(bytes) != sum
            || payload.len() as u64 != len
            || len != expected
            || n_fluid as usize > n
            || !time.is_finite()
            || !(warm_n == 0 || warm_n == n)
        {
            return Err(CheckpointError::Damaged { file });
        }
        let (pos, rest) = payload.split_at(n * 16);
        let (vel, rest) = rest.split_at(n * 16);
        let (warm, bodies) = rest.split_at(warm_n * 8);
        let warm = (warm_n > 0).then(|| {
            let (p, d) = warm.split_at(warm_n * 4);
            (bytemuck::pod_collect_to_vec(p), bytemuck::pod_collect_to_vec(d))
        });
        let bodies = bytemuck::pod_collect_to_vec(bodies);
        let step_state = (!last_dt.is_nan()).then_some(StepState { last_dt, solver_error, clock, warm, bodies });
        Ok(Self {
            scene_hash,
            step,
            time,
            n_fluid,
            wall_clamps,
            non_finite,
            flow,
            pos_mass: bytemuck::pod_collect_to_vec(pos),
            vel_rho: bytemuck::pod_collect_to_vec(vel),
            step_state,
        })
    }

    /// Reads `path`.
    pub(crate) fn load(path: &Path) -> anyhow::Result<Self> {
        let bytes = crate::files::read_regular(path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Self::from_bytes(&bytes, &path.display().to_string())?)
    }

    /// Writes `path` aside and renames it.
    pub(crate) fn save(&self, path: &Path) -> anyhow::Result<()> {
        crate::files::write_whole(path, &self.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> Checkpoint {
        Checkpoint {
            scene_hash: 42,
            step: 100,
            time: 0.04,
            n_fluid: 1,
            wall_clamps: 7,
            non_finite: 0,
            flow: [3, 5, 1],
            pos_mass: vec![[1.0, 2.0, 3.0, 0.5], [4.0, 5.0, 6.0, -0.5]],
            vel_rho: vec![[0.1, 0.2, 0.3, 1000.0], [0.0, 0.0, 0.0, 1001.0]],
            step_state: Some(StepState {
                last_dt: 4e-4,
                solver_error: 2e-4,
                clock: [0.04, 1e-9],
                warm: Some((vec![1.0, 2.0], vec![3.0, 4.0])),
                bodies: vec![crate::sim::motion::BodyState { position: [0.1, 0.2, 0.3], mass: 2.0, ..Default::default() }],
            }),
        }
    }

    #[test]
    fn round_trip_and_every_refusal() {
        let c = checkpoint();
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes, "c.bin").unwrap(), c);
        // without a warm start, and without any step state
        for step_state in [Some(StepState { warm: None, ..c.step_state.clone().unwrap() }), None] {
            let c = Checkpoint { step_state, ..c.clone() };
            assert_eq!(Checkpoint::from_bytes(&c.to_bytes(), "c.bin").unwrap(), c);
        }
        let mut damaged = bytes.clone();
        *damaged.last_mut().unwrap() ^= 1;
        assert!(matches!(Checkpoint::from_bytes(&damaged, "c.bin"), Err(CheckpointError::Damaged { .. })));
        assert!(matches!(Checkpoint::from_bytes(&bytes[..bytes.len() - 4], "c.bin"), Err(CheckpointError::Damaged { .. })));
        let mut version = bytes.clone();
        version[8] = 9;
        let e = Checkpoint::from_bytes(&version, "c.bin").unwrap_err();
        assert_eq!(e.to_string(), "c.bin: checkpoint format version 9, this program reads version 3");
        // every field of the header is covered: the step, the time, each counter, the hash
        for at in [12, 16, 24, 32, 39, 40, 44, 48, 56, 64, 72, 80, 88, 92, 96, 100, 104, 108, 112, 120] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(matches!(Checkpoint::from_bytes(&flipped, "c.bin"), Err(CheckpointError::Damaged { .. })), "byte {at}");
        }
        assert!(matches!(Checkpoint::from_bytes(b"not a checkpoint at all", "c.bin"), Err(CheckpointError::NotACheckpoint { .. })));
    }
}
