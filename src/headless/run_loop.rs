//! The run itself: a [`RunLoop`] steps the simulation between the steps where something is due
//! ([`Schedule`]), and at each of them reads the particle state back once and hands it to the
//! outputs that are due — export, probe row (with the leak log, the profile and the health
//! checks), checkpoint — in that order.
//!
//! The loop, as a schedule of stops:
//!
//! 1. at a stop (the first is the start, or the resumed checkpoint's step): read back; unless
//!    this step's outputs were written already (a resumed run's first step), export, probe and
//!    checkpoint what is due; an interruption (SIGINT, SIGTERM) makes every output due and a
//!    checkpoint of any step;
//! 2. end after the last step, a blow-up or an interruption;
//! 3. else step to the next stop, batches of at most [`BATCH`] steps submitted one ahead
//!    ([`crate::ahead::OneAhead`]), and go to 1.

use super::outputs::{Outputs, leaked};
use super::settings::{Outcome, ProbeMode, RunSettings, TimeStep};
use super::{FlowTotals, RunMeta, RunResult, Stopped, dt_seen, utc_date};
use crate::checkpoint::Checkpoint;
use crate::gpu::Gpu;
use crate::health::{GuardDelta, GuardTotals, Health};
use crate::probes::{ProbeRow, ProbeSetup, Profile};
use crate::progress::Progress;
use crate::scene::Scene;
use crate::signals::stop_requested;
use crate::sim::instruments::Particles;
use crate::sim::motion::BodyState;
use crate::sim::params::{Diagnostics, SimParams};
use crate::sim::{InitialState, Sim};
use anyhow::Context;
use std::path::Path;
use std::time::{Duration, Instant};

/// Steps per submit at most.
pub(crate) const BATCH: u64 = 100;

/// The first batch after a wait for the GPU's clock (an adaptive dt's `--export-fps`).
const REFILL: u32 = 8;

/// Where a run starts.
pub enum Start {
    /// From the scene's initial state, with new files.
    Fresh,
    /// From a checkpoint, keeping the files' rows up to it; `scene_file` is the absolute path the
    /// scene was read from (run.json keeps it, whatever the working directory is now).
    Resume { checkpoint: Box<Checkpoint>, scene_file: String },
}

impl Start {
    fn checkpoint(&self) -> Option<&Checkpoint> {
        match self {
            Start::Fresh => None,
            Start::Resume { checkpoint, .. } => Some(checkpoint),
        }
    }
}

/// The steps at which each output is due.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Schedule {
    /// The run's last step.
    pub steps: u64,
    /// A probe row every this many steps (at least 1).
    pub probe_every: u64,
    /// An exported frame every this many steps (None: no export).
    pub export_every: Option<u64>,
    /// Instead, the frames of `--export-fps` with a fixed dt: at the steps nearest them.
    pub export_frames: Option<super::settings::FrameSteps>,
    /// Instead, the frames per simulated second of `--export-fps` with an adaptive dt: the
    /// steps land on the frame times (sim.time_step), the run stops at each ([`FrameClock`]).
    pub export_fps: Option<f64>,
    /// A checkpoint every this many steps (None: only when interrupted).
    pub checkpoint_every: Option<u64>,
    /// The probes from this step on add to the profile.
    pub profile_from: u64,
}

impl Schedule {
    /// The schedule of `s` for a fixed `dt` (s; the frames of `--export-fps` need it).
    /// `dt`: None for an adaptive one.
    pub(crate) fn new(s: &RunSettings, dt: Option<f64>) -> Self {
        let steps = s.steps;
        let fps = s.export.as_ref().and_then(|e| e.fps);
        Self {
            steps,
            probe_every: s.every.max(1),
            export_every: s.export.as_ref().filter(|e| e.fps.is_none()).map(|e| e.every.max(1)),
            export_frames: fps.zip(dt).map(|(f, dt)| super::settings::FrameSteps::new(f, dt)),
            export_fps: fps.filter(|_| dt.is_none()),
            checkpoint_every: (s.checkpoint_every > 0).then_some(s.checkpoint_every),
            profile_from: steps - ((steps as f64 * s.profile_fraction) as u64).min(steps),
        }
    }

    fn every(step: u64, k: u64) -> bool {
        step.is_multiple_of(k)
    }

    /// A probe row at `step` (every probe interval, the last step, an interruption).
    pub(crate) fn probe_due(&self, step: u64, interrupted: bool) -> bool {
        Self::every(step, self.probe_every) || step == self.steps || interrupted
    }

    /// An exported frame at `step` (as a probe row, at the export's interval); `on_frame`: the
    /// clock is on a frame time of an adaptive dt's `--export-fps`.
    pub(crate) fn export_due(&self, step: u64, interrupted: bool, on_frame: bool) -> bool {
        let frame = self.export_frames.is_some_and(|f| f.is_frame(step)) || on_frame;
        let exporting = self.export_every.is_some() || self.export_frames.is_some() || self.export_fps.is_some();
        exporting && (frame || self.export_every.is_some_and(|k| Self::every(step, k)) || step == self.steps || interrupted)
    }

    /// A checkpoint at `step` by the interval (an interruption writes one whatever the step).
    pub(crate) fn checkpoint_due(&self, step: u64) -> bool {
        self.checkpoint_every.is_some_and(|k| Self::every(step, k))
    }

    /// Whether the probe at `step` adds to the profile.
    pub(crate) fn profile_due(&self, step: u64) -> bool {
        step >= self.profile_from || step == self.steps
    }

    /// The next step after `step` where something is due.
    pub(crate) fn next_stop(&self, step: u64) -> u64 {
        let next = |k: u64| (step / k + 1) * k;
        let frame = self.export_frames.map_or(self.steps, |f| f.next_after(step));
        [Some(self.probe_every), self.export_every, self.checkpoint_every]
            .into_iter()
            .flatten()
            .map(next)
            .fold(self.steps.min(frame), u64::min)
    }
}

/// The frames of `--export-fps F` with an adaptive dt: frame k at k/F s. The GPU's clock lands
/// on each (sim.time_step, from `SimParams::frame_time`); the run steps towards it in batches
/// short enough not to pass it, reading the clock after each.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameClock {
    fps: f64,
    /// The next frame.
    next: u64,
    /// Half the least dt: a clock this close before a frame is on it (sim.time_step takes no
    /// sliver of a step to land on it).
    tolerance: f64,
}

impl FrameClock {
    /// The frames after a start at `time` (the first one on or after it), `dt_min` the least dt.
    pub(crate) fn new(fps: f64, time: f64, dt_min: f64) -> Self {
        let mut c = Self { fps, next: ((time * fps).floor().max(1.0) - 1.0) as u64, tolerance: 0.5 * dt_min };
        while (c.target() as f64) < time - c.tolerance {
            c.next += 1;
        }
        c
    }

    /// The next frame's time as the GPU's clock reads it.
    pub(crate) fn target(&self) -> f32 {
        (self.next as f64 / self.fps) as f32
    }

    /// Its time, s (from f64: what the export writes).
    pub(crate) fn time(&self) -> f64 {
        self.next as f64 / self.fps
    }

    /// Whether a clock reading `clock` is on the next frame (or past it).
    pub(crate) fn reached(&self, clock: f64) -> bool {
        clock >= self.target() as f64 - self.tolerance
    }

    /// Steps that cannot pass the next frame from `clock`, the last step's being `last_dt`:
    /// each step's dt is at most DT_GROWTH times the last, at most `dt_max` and at least
    /// `dt_min` (sim.time_step's bounds); at least 1 (the step that would pass it lands on it).
    pub(crate) fn safe_steps(&self, clock: f64, last_dt: f64, dt_min: f64, dt_max: f64) -> u64 {
        let mut left = (self.target() as f64 - clock) * (1.0 - 1e-4);
        let (mut dt, mut n) = (last_dt, 0u64);
        loop {
            dt = (dt * crate::physics::DT_GROWTH).min(dt_max).max(dt_min);
            // a step within two of the frame may be halved towards it: count it as a full one
            if 2.0 * dt > left || n >= 1 << 20 {
                return n.max(1);
            }
            left -= dt;
            n += 1;
        }
    }
}

/// The run's health as the probes see it: the guard counters, the fluid in and out, the health
/// checks and the warnings said (each kind once).
struct Watch {
    health: Health,
    guards: GuardTotals,
    /// Outflow, emitted, starved before this run's simulation (a resumed run's so far).
    flow0: [u64; 3],
    warnings: Vec<String>,
    starved_warned: bool,
}

impl Watch {
    fn new(params: &SimParams, start: &Start) -> Self {
        let (guards, flow0) = match start.checkpoint() {
            None => (GuardTotals::default(), [0; 3]),
            Some(c) => (GuardTotals::starting_at(c.wall_clamps, c.non_finite, c.step), c.flow),
        };
        Self { health: Health::new(params), guards, flow0, warnings: vec![], starved_warned: false }
    }

    /// Outflow, emitted, starved since the run's first start.
    fn flow(&self, d: &Diagnostics) -> [u64; 3] {
        let f = self.flow0;
        [f[0] + d.outflow as u64, f[1] + d.emitted as u64, f[2] + d.starved as u64]
    }
}

/// A run of a scene, from its start to its end.
pub(crate) struct RunLoop<'a> {
    gpu: &'a Gpu,
    scene: &'a Scene,
    /// The scene's name (or its file's), for messages.
    label: String,
    settings: &'a RunSettings,
    schedule: Schedule,
    sim: Sim,
    params: SimParams,
    setup: ProbeSetup,
    solids: crate::scene::bodies::SolidMask,
    /// The scene index of each moving solid, in body order (bodies.csv's `solid`).
    moving_solids: Vec<usize>,
    /// Each moving solid's index, motion and keyframes (the exported frames' transforms).
    motions: crate::sim::motion::Motions,
    /// The scene's content hash, for the checkpoints.
    hash: u64,
    outputs: Outputs,
    watch: Watch,
    rows: Vec<ProbeRow>,
    /// The sensors' rows this process read (a resumed run's earlier ones are in the file).
    sensor_rows: Vec<crate::sim::sensors::SensorRow>,
    profile: Profile,
    bar: Progress,
    /// Where this process started (a resumed run's checkpoint step).
    resumed: Option<u64>,
    step: u64,
    /// The last step whose rows, frames and checkpoint are written (a second pass at the same
    /// step — a signal that came after the check — writes nothing twice).
    written: Option<u64>,
    stopped: Option<Stopped>,
    /// Simulated time at `step`.
    sim_time: f64,
    /// Wall time spent stepping.
    stepping: Duration,
    /// Wall time spent on probe rows ([`RunMeta::probe_seconds`](super::RunMeta)), and the rows
    /// this run measured.
    probing: Duration,
    probe_rows: u64,
    /// An adaptive dt's `--export-fps`: the next frame, and whether the clock is on it.
    frames: Option<FrameClock>,
    on_frame: bool,
}

/// Runs `scene` for `cfg.steps` steps, probing every `cfg.every`; with `out`, writes
/// probes.csv (as it goes), profile.csv and run.json there.
pub fn run_scene(
    gpu: &Gpu,
    scene: &Scene,
    scene_label: &str,
    cfg: &RunSettings,
    out: Option<&Path>,
    start: Start,
) -> anyhow::Result<RunResult> {
    let (run, meta) = RunLoop::new(gpu, scene, scene_label, cfg, out, start)?;
    run.run(meta)
}

/// The initial state of `scene` with the blocks' velocities, or the checkpoint's state.
fn initial_state(gpu: &Gpu, scene: &Scene, scene_label: &str, cfg: &RunSettings, start: &Start) -> anyhow::Result<InitialState> {
    let mut state =
        crate::scene::setup::build_checked(scene, gpu).with_context(|| format!("{scene_label}: the scene does not fit this device"))?;
    crate::scene::blocks::set_block_velocities(scene, &mut state, &cfg.velocities)?;
    if let Some(c) = start.checkpoint() {
        anyhow::ensure!(
            c.pos_mass.len() == state.pos_mass.len() && c.n_fluid == state.n_fluid,
            "{scene_label}: the checkpoint holds {} particles ({} fluid), the scene {} ({} fluid)",
            c.pos_mass.len(),
            c.n_fluid,
            state.pos_mass.len(),
            state.n_fluid
        );
        state.pos_mass.clone_from(&c.pos_mass);
        state.vel_rho.clone_from(&c.vel_rho);
        state.step = c.step;
        state.time = c.time;
    }
    Ok(state)
}

/// The scene's content hash over its file and meshes ([`crate::scene::hash::scene_hash`]); a
/// scene given as text whose file is not at hand (the validation cases embed theirs) gets the
/// hash over the scene as parsed, which a resume accepts too.
fn content_hash(scene_file: &str, scene: &Scene) -> u64 {
    crate::scene::hash::scene_hash(Path::new(scene_file), scene).unwrap_or_else(|_| crate::scene::hash::legacy_scene_hash(scene))
}

impl<'a> RunLoop<'a> {
    /// Sets the run up: the state, the simulation, the files (run.json written with outcome
    /// `running`, so that a run that dies still has what a resume needs). Returns the loop and
    /// run.json as written.
    pub(crate) fn new(
        gpu: &'a Gpu,
        scene: &'a Scene,
        scene_label: &str,
        cfg: &'a RunSettings,
        out: Option<&Path>,
        start: Start,
    ) -> anyhow::Result<(Self, RunMeta)> {
        let state = initial_state(gpu, scene, scene_label, cfg, &start)?;
        let sim = Sim::new(gpu, &state, crate::scene::setup::sim_options(scene)).map_err(|e| e.for_scene(scene_label))?;
        if let Some(Checkpoint { step_state: Some(s), .. }) = start.checkpoint() {
            sim.restore_step_state(s).map_err(|e| anyhow::anyhow!("{scene_label}: {e}"))?;
        }
        let params = *sim.params();
        let setup = ProbeSetup::new(&params, scene.physics.spacing, &cfg.gauges)
            .with_point_gauges(&cfg.point_gauges)
            .with_surface_gauges(&cfg.surface_gauges);
        let solids = crate::scene::bodies::SolidMask::new(scene);
        let resumed = start.checkpoint().map(|c| c.step);
        let (outputs, rows) = Outputs::open(
            out,
            &setup.gauge_names(),
            !scene.solids.is_empty(),
            scene.solids.iter().any(|s| s.moves()),
            &scene.sensor_columns(),
            cfg.export.as_ref(),
            sim.objects().clone(),
            super::settings::surface_params(cfg.export.as_ref(), scene.physics.spacing, scene.physics.rest_density),
            resumed,
        )?;
        let label = if scene.name.is_empty() { scene_label.to_string() } else { scene.name.clone() };
        let scene_file = match &start {
            Start::Resume { scene_file, .. } => scene_file.clone(),
            Start::Fresh => std::fs::canonicalize(scene_label).map(|p| p.display().to_string()).unwrap_or_default(),
        };
        let hash = content_hash(if scene_file.is_empty() { scene_label } else { &scene_file }, scene);
        let mut run = Self {
            gpu,
            scene,
            bar: Progress::new(&label, cfg.steps, cfg.progress).starting_at(resumed.unwrap_or(0)),
            label,
            settings: cfg,
            schedule: Schedule::new(cfg, (!sim.is_adaptive()).then(|| sim.fixed_dt())),
            frames: cfg
                .export
                .as_ref()
                .and_then(|e| e.fps)
                .filter(|_| sim.is_adaptive())
                .map(|f| FrameClock::new(f, state.time, params.dt_min as f64)),
            on_frame: false,
            watch: Watch::new(&params, &start),
            profile: Profile::new(&setup),
            sim,
            params,
            setup,
            solids,
            moving_solids: (0..scene.solids.len()).filter(|&i| scene.solids[i].moves()).collect(),
            motions: if cfg.export.is_some() { scene.moving_motions() } else { vec![] },
            hash,
            outputs,
            rows,
            sensor_rows: Vec::new(),
            resumed,
            step: resumed.unwrap_or(0),
            written: resumed,
            stopped: None,
            sim_time: state.time,
            stepping: Duration::ZERO,
            probing: Duration::ZERO,
            probe_rows: 0,
        };
        if let Some(f) = run.frames {
            run.on_frame = f.reached(state.time);
            run.sim.set_frame_time(Some(f.target()));
        }
        run.introduce(&state);
        let meta = run.meta_at_start(scene_label, scene_file, &state);
        // loaded: from here a signal stops the run between batches, its files written
        crate::signals::loaded();
        run.outputs.meta(&meta)?;
        Ok((run, meta))
    }

    /// The line that says what runs (with a progress bar), and the CFL warning: dt·c/h bounds a
    /// WCSPH step of a fixed dt; an adaptive step keeps its own CFL number, and DFSPH carries no
    /// sound.
    fn introduce(&mut self, state: &InitialState) {
        let p = &self.params;
        if self.settings.progress {
            eprintln!(
                "{}: {} fluid + {} boundary particles, spacing {} m, {}, {}, c {:.2} m/s, {} steps on {}",
                self.label,
                state.n_fluid,
                state.n_boundary(),
                self.scene.physics.spacing,
                crate::scene::Solver::of(p.solver).name(),
                super::time_step_words(p),
                p.sound_speed,
                self.settings.steps,
                self.gpu.describe()
            );
        }
        let cfl = crate::physics::cfl(p.dt as f64, p.sound_speed as f64, p.h as f64);
        if !self.sim.is_dfsph() && !self.sim.is_adaptive() && cfl > crate::scene::limits::CFL_RECOMMENDED {
            let w = format!(
                "warning: CFL dt·c/h = {cfl:.3} is above the recommended {} (c = {:.2} m/s): the step may be unstable",
                crate::scene::limits::CFL_RECOMMENDED,
                p.sound_speed
            );
            eprintln!("{}: {w}", self.label);
            self.watch.warnings.push(w);
        }
    }

    /// run.json as written at the start: what runs, outcome `running`, no results yet.
    fn meta_at_start(&self, scene_label: &str, scene_file: String, state: &InitialState) -> RunMeta {
        let (p, scene) = (&self.params, self.scene);
        RunMeta {
            scene: scene_label.to_string(),
            scene_file,
            name: scene.name.clone(),
            adapter: self.gpu.describe(),
            rillet_version: env!("CARGO_PKG_VERSION").to_string(),
            date: utc_date(),
            fluid_particles: state.n_fluid,
            boundary_particles: state.n_boundary(),
            fluid_slots: state.n_particles() - state.n_boundary(),
            flow: None,
            spacing: scene.physics.spacing,
            h: p.h,
            dt: p.dt,
            solver: crate::scene::Solver::of(p.solver),
            time_step: if self.sim.is_adaptive() { TimeStep::Adaptive } else { TimeStep::Fixed },
            sound_speed: p.sound_speed,
            stiffness: p.stiffness,
            rest_density: p.rest_density,
            viscosity: p.viscosity,
            wall_viscosity: p.wall_viscosity,
            gravity: p.gravity,
            domain_min: p.domain_min,
            domain_max: p.domain_max,
            fluid_blocks: (0..scene.fluid.len())
                .map(|i| {
                    let (lo, hi) = scene.fluid_shape(i).bounds();
                    (lo.as_vec3().to_array(), hi.as_vec3().to_array())
                })
                .collect(),
            settings: RunSettings { every: self.schedule.probe_every, ..self.settings.clone() },
            profile_snapshots: 0,
            surface_height: 0.0,
            wall_seconds: 0.0,
            ms_per_step: 0.0,
            stepping_seconds: 0.0,
            stepping_ms_per_step: 0.0,
            list_builds: None,
            probe_seconds: 0.0,
            probe_ms_per_row: 0.0,
            outcome: Outcome::Running,
            steps_done: self.step,
            warnings: vec![],
            export: self.settings.export.clone().map(|settings| super::ExportMeta {
                settings,
                folder: super::EXPORT_FOLDER.to_string(),
                stats: Default::default(),
            }),
            resumed_from: self.resumed,
            sim_time: state.time,
            dt_min_seen: 0.0,
            dt_max_seen: 0.0,
            dt_mean: 0.0,
            max_pressure_iterations_seen: 0,
            sensors: scene.probes.sensors.clone(),
            sensor_every: scene.probes.sensor_every,
            forces: scene.probes.forces.clone(),
            flows: scene.probes.flows.clone(),
        }
    }

    /// Runs to the end (the last step, a blow-up, an interruption) and writes the closing files.
    pub(crate) fn run(mut self, meta_at_start: RunMeta) -> anyhow::Result<RunResult> {
        let t0 = Instant::now();
        while self.at_stop()? {
            let target = self.schedule.next_stop(self.step);
            self.advance(target)?;
        }
        // the last state's sensor row: no step follows to sample it
        self.sim.sample_sensors_now();
        self.flush_sensors()?;
        self.finish(meta_at_start, t0)
    }

    /// Reads the sensors' rows the GPU holds and appends them to sensors.csv.
    fn flush_sensors(&mut self) -> anyhow::Result<()> {
        let rows = self.sim.read_sensor_rows().with_context(|| format!("step {}: reading the sensors back", self.step))?;
        self.outputs.sensor_rows(&rows)?;
        self.sensor_rows.extend(rows);
        Ok(())
    }

    /// Step 1 of the loop: the outputs due at this step. False when the run ends here.
    fn at_stop(&mut self) -> anyhow::Result<bool> {
        let step = self.step;
        let interrupted = stop_requested();
        // a resumed run has its first step's rows and frames already
        let fresh = self.written != Some(step);
        let on_frame = std::mem::take(&mut self.on_frame);
        let export = fresh && self.schedule.export_due(step, interrupted, on_frame);
        let probe = fresh && self.schedule.probe_due(step, interrupted);
        let checkpoint = (fresh && self.schedule.checkpoint_due(step)) || interrupted;
        // a copy of every particle only where something needs one: a probe row alone is
        // measured on the GPU (the profile and the leak count still read the particles)
        let cpu_probes = self.settings.probes == ProbeMode::Cpu;
        let particles = export || checkpoint || (probe && (cpu_probes || self.schedule.profile_due(step) || !self.solids.is_empty()));
        // the diagnostics of this very step (with the particles in one copy): its time (the GPU
        // clock, for an adaptive dt), the probe row's counters and the checkpoint's
        let read = Instant::now();
        let (p, d, read_bodies) = if particles {
            let (p, d) = self.sim.read_state().with_context(|| format!("step {step}: reading the state back"))?;
            (Some(p), d, Vec::new())
        } else {
            let (d, bodies) =
                self.sim.read_diagnostics_and_bodies().with_context(|| format!("step {step}: reading the diagnostics back"))?;
            (None, d, bodies)
        };
        let read = read.elapsed();
        self.flush_sensors()?;
        let mut time = self.sim.time_at(step, &d);
        if on_frame && let Some(f) = &mut self.frames {
            // on frame k: its time from f64 (the clock reads it in f32), and the next one ahead
            time = f.time();
            f.next += 1;
            self.sim.set_frame_time(Some(f.target()));
        }
        self.sim_time = time;
        // the moving solids' states: copied with the particles, or alone
        let bodies = p.as_ref().map_or(&read_bodies[..], |p| &p.bodies[..]);
        if export {
            let p = p.as_ref().context("an exported frame reads the particles")?;
            self.outputs.export(p, step, time, &self.params)?;
            let poses = crate::sim::motion::poses_now(&self.motions, time, &p.bodies);
            self.outputs.transforms(step, time, &poses)?;
        }
        if probe {
            // the copy counts to the row when nothing else needed it
            let copy = if export || checkpoint { Duration::ZERO } else { read };
            let started = Instant::now();
            self.probe(p.as_ref(), bodies, &d, time)?;
            self.probing += copy + started.elapsed();
            self.probe_rows += 1;
        }
        // never a checkpoint of a state that blew up: the last good one stays
        if self.stopped.is_none() && checkpoint {
            let p = p.as_ref().context("a checkpoint reads the particles")?;
            self.checkpoint(p, &d, time)?;
        }
        self.written = Some(step);
        if self.stopped.is_none() && interrupted {
            self.stopped = Some(Stopped::Interrupted { step, out: self.outputs.folder_name(), code: crate::signals::exit_code() });
        }
        Ok(step < self.settings.steps && self.stopped.is_none())
    }

    /// A probe row: measured on the GPU (or the CPU, `--probes cpu`), completed with the GPU's counters, the leaks counted
    /// (and listed), written; added to the profile; checked for health (a blow-up stops the
    /// run). `p`: the particles, copied where the profile or the leak count is due.
    fn probe(&mut self, p: Option<&Particles>, bodies: &[BodyState], d: &Diagnostics, time: f64) -> anyhow::Result<()> {
        let step = self.step;
        let mut row = match (self.settings.probes, p) {
            (ProbeMode::Cpu, Some(p)) => crate::probes::measure(&self.setup, p, step, time),
            _ => crate::probes::measure_gpu(&mut self.sim, &self.setup, step, time)
                .with_context(|| format!("step {step}: measuring the probes on the GPU"))?,
        };
        let delta = self.watch.guards.update(d, step);
        self.fill_counters(&mut row, d, &delta);
        if let Some(p) = p
            && !self.solids.is_empty()
        {
            let inside = leaked(p, &self.solids, time);
            row.inside_solids = inside.len() as u32;
            self.outputs.leaks(&inside, step, time)?;
        }
        if !bodies.is_empty() {
            self.outputs.bodies(bodies, &self.moving_solids, step, time)?;
        }
        if row.starved > 0 && !self.watch.starved_warned {
            self.watch.starved_warned = true;
            self.warn(format!(
                "warning at step {step} (t = {time:.4} s): the emitters ran out of room, {} particles were not emitted (all {} fluid slots full): raise fluid_capacity in the scene",
                row.starved,
                self.sim.fluid_slots()
            ));
        }
        self.outputs.probe_row(&row)?;
        if let Some(p) = p
            && self.schedule.profile_due(step)
        {
            self.profile.add(p);
        }
        let finding = self.watch.health.check_guards(&delta, row.fluid_particles, step, time).or_else(|| self.watch.health.check_row(&row));
        self.rows.push(row);
        match finding {
            Some(f) if f.blow_up => {
                self.bar.finish();
                self.stopped = Some(Stopped::BlowUp { finding: f, out: self.outputs.folder_name(), kept: "probes" });
            }
            Some(f) => {
                self.bar.say(&format!("{}: {f}", self.label));
                self.watch.warnings.push(f.to_string());
            }
            None => {}
        }
        Ok(())
    }

    /// The columns of a probe row that come from the GPU's counters rather than the particles.
    fn fill_counters(&self, row: &mut ProbeRow, d: &Diagnostics, delta: &GuardDelta) {
        row.wall_clamps = self.watch.guards.wall_clamps;
        row.non_finite = self.watch.guards.non_finite;
        row.wall_clamps_per_step = delta.clamps_per_step();
        row.max_per_cell = d.max_per_cell;
        row.overflows = d.overflows;
        [row.outflow, row.emitted, row.starved] = self.watch.flow(d);
        row.set_step_columns(d);
    }

    /// A warning: said (below the bar) and kept for run.json.
    fn warn(&mut self, w: String) {
        self.bar.say(&format!("{}: {w}", self.label));
        self.watch.warnings.push(w);
    }

    /// The checkpoint of this step, with the guard counters up to this very step (the last probe
    /// row may be older).
    fn checkpoint(&self, p: &Particles, d: &Diagnostics, time: f64) -> anyhow::Result<()> {
        let (clamps, non_finite) = self.watch.guards.peek(d);
        let mut c = Checkpoint::new(p, self.hash, self.step, time, self.params.n_fluid, clamps, non_finite);
        c.flow = self.watch.flow(d);
        c.step_state = Some(self.sim.step_state(d, &p.bodies)?);
        self.outputs.checkpoint(&c)
    }

    /// Step 3 of the loop: steps up to `target` (or an interruption), at most [`BATCH`] steps a
    /// submit, one submit ahead of the GPU.
    fn advance(&mut self, target: u64) -> anyhow::Result<()> {
        let mut ahead = crate::ahead::OneAhead::new();
        let started = Instant::now();
        // frames of an adaptive dt: the steps that cannot pass the next frame from the last
        // reading of the clock, and those submitted since (no wait while some are left)
        let (mut safe, mut since) = (0u64, 0u64);
        while self.step < target && !stop_requested() {
            if self.sim.sensor_room() == Some(0) {
                // the sensors' ring is full: read it (this waits for the GPU)
                ahead.drain(&self.gpu.device)?;
                self.flush_sensors()?;
            }
            let room = self.sim.sensor_room().unwrap_or(u64::MAX);
            let mut k = (target - self.step).min(BATCH).min(room) as u32;
            if let Some(f) = self.frames {
                if since >= safe {
                    // towards the next frame time: read the clock (waits for the GPU), stop on it
                    ahead.drain(&self.gpu.device)?;
                    let d = self.sim.read_diagnostics()?;
                    if f.reached(d.sim_time()) {
                        self.on_frame = true;
                        break;
                    }
                    let p = &self.params;
                    (safe, since) = (f.safe_steps(d.sim_time(), d.dt as f64, p.dt_min as f64, p.dt_max as f64), 0);
                }
                k = k.min((safe - since).min(u32::MAX as u64) as u32);
                if since == 0 {
                    // the GPU waits while this batch is recorded: a short one refills the
                    // pipeline, the next ones are recorded while it runs
                    k = k.min(REFILL);
                }
                since += k as u64;
            }
            ahead.submitted(&self.gpu.device, self.sim.run(k))?;
            self.step += k as u64;
            if self.settings.progress {
                // (a batch behind at most; an adaptive clock reads the diagnostics, which waits)
                let d = if self.sim.is_adaptive() { self.sim.read_diagnostics()? } else { Default::default() };
                self.bar.update(self.step, self.sim.time_at(self.step, &d));
            }
        }
        ahead.drain(&self.gpu.device)?;
        if let Some(f) = self.frames
            && !self.on_frame
        {
            // the last batch may have ended on the frame
            self.on_frame = f.reached(self.sim.read_diagnostics()?.sim_time());
        }
        self.stepping += started.elapsed();
        Ok(())
    }

    /// The closing files: the export finished, run.json with the results, profile.csv.
    /// `started`: when the run began; its wall time ends once the export's writer has written
    /// the last frame.
    fn finish(mut self, meta_at_start: RunMeta, started: Instant) -> anyhow::Result<RunResult> {
        let export = self.outputs.finish_export(self.settings.export.as_ref())?;
        self.bar.finish();
        let wall = started.elapsed().as_secs_f64();
        let stepped = (self.step - self.resumed.unwrap_or(0)).max(1) as f64;
        let (dt_min_seen, dt_max_seen, dt_mean) = dt_seen(&self.rows);
        let rows = std::mem::take(&mut self.rows);
        let sensors = std::mem::take(&mut self.sensor_rows);
        let meta = RunMeta {
            profile_snapshots: self.profile.snapshots,
            surface_height: self.profile.surface(),
            wall_seconds: wall,
            ms_per_step: wall * 1e3 / stepped,
            stepping_seconds: self.stepping.as_secs_f64(),
            stepping_ms_per_step: self.stepping.as_secs_f64() * 1e3 / stepped,
            list_builds: if self.sim.keeps_lists() { Some(self.sim.list_builds().map(|(b, k)| [b, k])?) } else { None },
            probe_seconds: self.probing.as_secs_f64(),
            probe_ms_per_row: self.probing.as_secs_f64() * 1e3 / self.probe_rows.max(1) as f64,
            outcome: self.stopped.as_ref().map_or(Outcome::Completed, Outcome::from),
            steps_done: self.step,
            warnings: std::mem::take(&mut self.watch.warnings),
            export,
            flow: rows.last().map(|r| FlowTotals {
                fluid_particles: r.fluid_particles,
                outflow: r.outflow,
                emitted: r.emitted,
                starved: r.starved,
            }),
            sim_time: self.sim_time,
            dt_min_seen,
            dt_max_seen,
            dt_mean,
            max_pressure_iterations_seen: rows.iter().map(|r| r.pressure_iterations).max().unwrap_or(0),
            ..meta_at_start
        };
        let result = RunResult { meta, rows, sensors, profile: self.profile.bins(), stopped: self.stopped };
        self.outputs.profile(&result.profile)?;
        self.outputs.meta(&result.meta)?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stops: every probe, export and checkpoint step, and the last; an interruption makes
    /// the probe and the export due at any step.
    #[test]
    fn the_schedule_stops_where_something_is_due() {
        let mut s = RunSettings::new(100);
        s.every = 30;
        s.checkpoint_every = 25;
        s.export = Some(super::super::ExportSettings {
            formats: vec![],
            every: 40,
            boundary: false,
            fps: None,
            up: crate::export::Up::Y,
            surface_cube: 0.5,
            surface_threshold: 0.6,
        });
        let sched = Schedule::new(&s, Some(0.001));
        let mut stops = vec![0];
        while *stops.last().unwrap() < 100 {
            stops.push(sched.next_stop(*stops.last().unwrap()));
        }
        assert_eq!(stops, [0, 25, 30, 40, 50, 60, 75, 80, 90, 100]);
        assert!(sched.probe_due(30, false) && !sched.probe_due(25, false) && sched.probe_due(25, true) && sched.probe_due(100, false));
        assert!(sched.export_due(80, false, false) && !sched.export_due(30, false, false) && sched.export_due(31, true, false));
        assert!(sched.checkpoint_due(75) && !sched.checkpoint_due(30));
        assert_eq!(sched.profile_from, 90);
        let quiet = Schedule::new(&RunSettings::new(100), Some(0.001));
        // 30 frames a second at dt 0.4 ms: a frame every 83⅓ steps, at the nearest step
        s.export.as_mut().unwrap().fps = Some(30.0);
        s.checkpoint_every = 0;
        s.every = 1000;
        s.steps = 260;
        let fps = Schedule::new(&s, Some(0.0004));
        let mut frames = vec![0];
        while *frames.last().unwrap() < 260 {
            frames.push(fps.next_stop(*frames.last().unwrap()));
        }
        assert_eq!(frames, [0, 83, 167, 250, 260]);
        assert!(fps.export_due(167, false, false) && !fps.export_due(166, false, false) && fps.export_due(260, false, false));
        assert!(!fps.export_due(40, false, false), "no frame at the every-40 interval with --export-fps");
        assert!(!quiet.export_due(0, true, false) && !quiet.checkpoint_due(0));
        // an adaptive dt: frames where the clock is on one, not by step
        let adaptive = Schedule::new(&s, None);
        assert_eq!(adaptive.next_stop(0), 260, "an adaptive dt's frames are no step stops");
        assert!(adaptive.export_due(7, false, true) && !adaptive.export_due(167, false, false) && adaptive.export_due(260, false, false));
    }

    #[test]
    fn frames_of_an_adaptive_dt_are_approached_without_passing_them() {
        // the first frame at or after the start; reached on its f32 time
        let c = FrameClock::new(30.0, 0.0, 1e-5);
        assert_eq!((c.next, c.time()), (0, 0.0));
        assert!(c.reached(0.0));
        let c = FrameClock::new(30.0, 0.05, 1e-5);
        assert_eq!(c.next, 2);
        assert!(!c.reached(0.0666) && c.reached((2.0f64 / 30.0) as f32 as f64));
        // a resumed run on frame 3 (its clock read f32(0.1)) has it next, reached
        let c = FrameClock::new(30.0, 0.1f32 as f64, 1e-5);
        assert!(c.next == 3 && c.reached(0.1f32 as f64));
        // a clock a hair before a frame (a checkpoint's f64 time against the f32 frame) is on it
        let c = FrameClock::new(30.0, 0.1 - 1e-9, 1e-5);
        assert!(c.next == 3 && c.reached(0.1 - 1e-9) && !c.reached(0.1 - 1e-5));
        // the safe batch: steps growing by DT_GROWTH from the last, within [dt_min, dt_max],
        // never reaching within two steps of the frame
        let c = FrameClock { fps: 10.0, next: 1, tolerance: 0.0 };
        for (clock, last, lo, hi) in
            [(0.0, 1e-3, 1e-5, 1e-3), (0.05, 1e-4, 1e-5, 2e-3), (0.0999, 1e-3, 1e-5, 1e-3), (0.0, 1e-6, 1e-3, 2e-3)]
        {
            let n = c.safe_steps(clock, last, lo, hi);
            let (mut t, mut dt) = (clock, last);
            for _ in 0..n {
                dt = (dt * crate::physics::DT_GROWTH).min(hi).max(lo);
                t += dt;
            }
            assert!(n == 1 || t + dt <= c.target() as f64, "{clock} {last}: {n} steps reach {t}");
            assert!(n >= 1);
        }
        assert_eq!(c.safe_steps(0.0, 1e-3, 1e-5, 1e-3), 98, "100 steps of 1 ms to the frame: all but the two before it");
    }
}
