//! The simulation side of a frame, without a window: records the frame's steps, and every 60th
//! frame the copy of the diagnostics words (every 10th the per-pass timestamps) into staging
//! buffers that are mapped asynchronously. [`Driver::poll`] takes what has arrived without ever
//! waiting on the GPU. Used by the window loop and, headless, by the tests.

use crate::health::{Finding, GuardDelta, GuardTotals, Health};
use crate::scene::limits;
use crate::sim::Sim;
use crate::sim::params::Diagnostics;
use crate::sim::profiler::{Profile, ProfileBatch};
use crate::sim::readback::{self, Readback};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Steps within a frame at which something wants the simulation's state (the particle
/// recorder: a frame every K steps, on the steps that are multiples of K).
pub(crate) trait StepStops {
    /// The next step (absolute) to stop at, if any; at most one stop is asked at a time.
    fn due(&self) -> Option<u64>;
    /// The simulation stands at `due()`: record what is wanted of it. Must move `due()` on
    /// (past the current step, or to None).
    fn at(&mut self, encoder: &mut wgpu::CommandEncoder, sim: &Sim);
}

struct NoStops;

impl StepStops for NoStops {
    fn due(&self) -> Option<u64> {
        None
    }
    fn at(&mut self, _: &mut wgpu::CommandEncoder, _: &Sim) {}
}

/// Frames between two diagnostics readbacks.
pub const DIAGNOSTICS_EVERY: u64 = 60;
/// Frames between two timestamp readbacks.
pub(crate) const TIMESTAMPS_EVERY: u64 = 10;
/// How long the diagnostics history keeps samples.
pub(crate) const HISTORY: Duration = Duration::from_secs(300);

/// Diagnostics words as they were at the end of one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct DiagSample {
    /// Frame (1-based) whose steps produced the words.
    pub frame: u64,
    /// Steps completed by the end of that frame.
    pub step: u64,
    /// Simulated time after those steps, s ([`Sim::time_at`]: the GPU clock for an adaptive dt).
    pub time: f64,
    pub diag: Diagnostics,
    /// Cell capacity in force for that frame.
    pub capacity: u32,
    /// Whether the grid diagnostics were compiled in for that frame.
    pub grid_diagnostics: bool,
    /// Wall time of the frame since the driver started.
    pub at: Duration,
    /// The guard counters since this simulation started, without wrapping.
    pub wall_clamps_total: u64,
    pub non_finite_total: u64,
    /// What changed since the previous sample (per-step clamps: `delta.clamps_per_step()`).
    pub delta: GuardDelta,
    /// A blow-up these counters show ([`crate::health`]), if any.
    pub finding: Option<Finding>,
}

/// Tag of a diagnostics readback.
#[derive(Clone, Copy, Debug)]
struct DiagTag {
    frame: u64,
    step: u64,
    capacity: u32,
    grid_diagnostics: bool,
    at: Duration,
    generation: u64,
}

/// Per-pass GPU times of one frame.
#[derive(Clone, Debug)]
pub struct ProfileSample {
    pub frame: u64,
    pub profile: Profile,
}

pub struct Driver {
    sim: Sim,
    /// Frames recorded so far.
    frame: u64,
    /// Bumped when the simulation is replaced: readbacks of an older one are dropped.
    generation: u64,
    diag: Readback<DiagTag>,
    timestamps: Option<Readback<(u64, u64, ProfileBatch)>>,
    start: Instant,
    pub latest: Option<DiagSample>,
    pub history: VecDeque<DiagSample>,
    pub profile: Option<ProfileSample>,
    /// The current simulation's guard counters, accumulated.
    guards: GuardTotals,
    health: Health,
    /// Steps recorded by this driver, over every simulation it ran (resets and reloads too).
    pub steps_total: u64,
    /// The frame the current simulation replaced the previous one (0: the first one).
    replaced_at: u64,
    /// With moving solids: their states copied out every frame, and the latest that arrived
    /// (where floating bodies are drawn).
    bodies: Option<Readback<u64>>,
    pub body_states: Vec<crate::sim::motion::BodyState>,
    /// For the bodies' staging buffers of a simulation that replaces this one.
    device: wgpu::Device,
}

impl Driver {
    /// Wraps `sim`; with `timestamps` (the adapter has TIMESTAMP_QUERY) per-pass times are
    /// measured on every 10th frame.
    pub fn new(device: &wgpu::Device, mut sim: Sim, timestamps: bool) -> Self {
        let diag = Readback::new(device, "app.readback.diagnostics", std::mem::size_of::<Diagnostics>() as u64, 3);
        let timestamps = timestamps.then(|| {
            sim.enable_profiling(limits::SUBSTEPS.max);
            Readback::new(device, "app.readback.timestamps", sim.profile_bytes(), 3)
        });
        let health = Health::new(sim.params());
        let bodies = (sim.bodies_bytes() > 0).then(|| Readback::new(device, "app.readback.bodies", sim.bodies_bytes(), 3));
        Self {
            bodies,
            body_states: Vec::new(),
            device: device.clone(),
            health,
            guards: GuardTotals::default(),
            steps_total: 0,
            sim,
            frame: 0,
            generation: 0,
            diag,
            timestamps,
            start: Instant::now(),
            latest: None,
            history: VecDeque::new(),
            profile: None,
            replaced_at: 0,
        }
    }

    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    pub fn sim_mut(&mut self) -> &mut Sim {
        &mut self.sim
    }

    /// Replaces the simulation (reset, scene reload); frame numbers go on, the history is kept
    /// and readbacks still in flight for the old one are dropped when they arrive.
    pub fn replace_sim(&mut self, mut sim: Sim) {
        if self.timestamps.is_some() {
            sim.enable_profiling(limits::SUBSTEPS.max);
        }
        self.health = Health::new(sim.params());
        self.guards = GuardTotals::default();
        // its own bodies' staging buffers (another scene has other bodies, or none)
        self.bodies = (sim.bodies_bytes() > 0).then(|| Readback::new(&self.device, "app.readback.bodies", sim.bodies_bytes(), 3));
        self.body_states.clear();
        self.sim = sim;
        self.generation += 1;
        self.profile = None;
        self.replaced_at = self.frame;
    }

    /// The latest diagnostics sample of the running simulation (None until its first readback:
    /// [`Driver::latest`] may still be the one a reset or reload replaced).
    pub fn current(&self) -> Option<&DiagSample> {
        self.latest.as_ref().filter(|s| s.frame > self.replaced_at)
    }

    /// Simulated time and the step it is of: now for a fixed dt (`step · dt`); for an adaptive dt
    /// the GPU clock as of the running simulation's last readback, None before its first one.
    pub fn sim_time(&self) -> Option<(f64, u64)> {
        let steps = self.sim.steps();
        if !self.sim.is_adaptive() || steps == 0 {
            return Some((self.sim.time_at(steps, &Diagnostics::default()), steps));
        }
        self.current().map(|s| (s.time, s.step))
    }

    /// Frames recorded so far (the number of the last one).
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Readbacks still in flight.
    pub fn in_flight(&self) -> usize {
        self.diag.in_flight() + self.timestamps.as_ref().map_or(0, |t| t.in_flight())
    }

    /// Records the next frame's `steps` steps (at most [`limits::SUBSTEPS`]'s maximum; the profiler has room for that many) and, on its frames,
    /// the readback copies. Call [`Driver::submitted`] after submitting `encoder`.
    pub fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32) {
        self.record_frame_stopping(encoder, steps, &mut NoStops);
    }

    /// [`Driver::record_frame`], with the frame's steps split where `stops` asks: whenever the
    /// simulation stands at `stops.due()`, `stops.at` records into the same encoder (a copy of
    /// the state of exactly that step), then the steps go on.
    pub(crate) fn record_frame_stopping(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32, stops: &mut dyn StepStops) {
        self.frame += 1;
        let frame = self.frame;
        let steps = steps.min(limits::SUBSTEPS.max);
        let mut left = steps;
        loop {
            let now = self.sim.steps();
            if stops.due() == Some(now) {
                stops.at(encoder, &self.sim);
            }
            if left == 0 {
                break;
            }
            let chunk = stops.due().filter(|&d| d > now).map_or(left, |d| (d - now).min(left as u64) as u32);
            self.sim.record_steps(encoder, chunk);
            left -= chunk;
        }
        self.steps_total += steps as u64;
        if frame.is_multiple_of(DIAGNOSTICS_EVERY) {
            let tag = DiagTag {
                frame,
                step: self.sim.steps(),
                capacity: self.sim.options().capacity,
                grid_diagnostics: self.sim.options().diagnostics,
                at: self.start.elapsed(),
                generation: self.generation,
            };
            match self.diag.reserve(tag) {
                Some(dst) => self.sim.record_diagnostics_copy(encoder, dst, 0),
                None => log::warn!("frame {frame}: all diagnostics staging buffers are still in flight; skipping this readback"),
            }
        }
        if let Some(b) = &mut self.bodies
            && let Some(dst) = b.reserve(self.generation)
        {
            self.sim.record_bodies_copy(encoder, dst, 0);
        }
        let sim = &mut self.sim;
        if let Some(ts) = &mut self.timestamps {
            if frame.is_multiple_of(TIMESTAMPS_EVERY) && steps > 0 {
                let generation = self.generation;
                ts.record_with(|dst| sim.record_profile_copy(encoder, dst, 0).map(|batch| (frame, generation, batch)));
            }
            // whatever was not copied out (other frames, or no staging buffer free) is dropped,
            // so each frame starts with an empty query set
            sim.reset_profile();
        }
    }

    /// Asks for the mappings of this frame's copies; call right after the submit.
    pub fn submitted(&mut self) {
        self.diag.submitted();
        if let Some(b) = &mut self.bodies {
            b.submitted();
        }
        if let Some(ts) = &mut self.timestamps {
            ts.submitted();
        }
    }

    /// Takes the readbacks that have completed, without waiting; returns the diagnostics
    /// samples that arrived (oldest first). Polls the device (non-blocking).
    pub fn poll(&mut self, device: &wgpu::Device) -> Vec<DiagSample> {
        if let Err(e) = device.poll(wgpu::PollType::Poll) {
            log::warn!("device poll: {e}");
        }
        let mut arrived = Vec::new();
        if let Some(b) = &mut self.bodies {
            for (generation, bytes) in b.take_ready() {
                let n = self.sim.bodies_bytes() as usize;
                if generation == self.generation && bytes.len() >= n {
                    self.body_states = bytemuck::pod_collect_to_vec(&bytes[..n]);
                }
            }
        }
        for (tag, bytes) in self.diag.take_ready() {
            if tag.generation != self.generation {
                continue;
            }
            let diag = readback::diagnostics_from(&bytes);
            let delta = self.guards.update(&diag, tag.step);
            // readbacks of an older simulation were dropped above: this one's clock
            let time = self.sim.time_at(tag.step, &diag);
            let sample = DiagSample {
                frame: tag.frame,
                step: tag.step,
                time,
                diag,
                capacity: tag.capacity,
                grid_diagnostics: tag.grid_diagnostics,
                at: tag.at,
                wall_clamps_total: self.guards.wall_clamps,
                non_finite_total: self.guards.non_finite,
                delta,
                finding: self.health.check_guards(
                    &delta,
                    (self.sim.params().n_fluid as u64 + diag.emitted as u64).saturating_sub(diag.outflow as u64),
                    tag.step,
                    time,
                ),
            };
            self.history.push_back(sample.clone());
            self.latest = Some(sample.clone());
            arrived.push(sample);
        }
        while let Some(first) = self.history.front() {
            let newest = self.history.back().map_or(Duration::ZERO, |s| s.at);
            if newest.saturating_sub(first.at) > HISTORY {
                self.history.pop_front();
            } else {
                break;
            }
        }
        if let Some(ts) = &mut self.timestamps {
            for ((frame, generation, batch), bytes) in ts.take_ready() {
                if generation == self.generation {
                    let ticks = readback::ticks_from(&bytes[..batch.bytes().min(bytes.len() as u64) as usize]);
                    self.profile = Some(ProfileSample { frame, profile: batch.profile(&ticks) });
                }
            }
        }
        arrived
    }
}
