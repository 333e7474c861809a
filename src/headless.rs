//! `rillet run`: a headless run of a scene that writes probe time series as CSV.
//!
//! Every `--every` steps the particle state is read back and the probes of
//! [`crate::probes`] are measured: time, surge front, water height at the gauges,
//! density errors, kinetic / potential / elastic energy, momentum, wall clamps, non-finite and
//! escaped particles. Output folder:
//!
//! - `probes.csv`: one row per probe (header in the first line), written as the run goes;
//! - `profile.csv`: the vertical profile (density and pressure — Tait, or DFSPH's solved one — per layer of one spacing),
//!   averaged over the probes of the last `--profile-fraction` of the run;
//! - `run.json`: what ran (scene, resolution, solver, dt, speed of sound, adapter, timing),
//!   written at the start (outcome `running`) and at the end (with the simulated time reached and
//!   the dt seen);
//! - `leaks.csv` (scenes with solids): each fluid particle found inside a solid at a probe — step,
//!   time, id, position, velocity, density — at most [`LEAK_ROWS`] a probe; only the header when
//!   none leaked;
//! - `particles/`: the exported frames (`--export`, [`crate::export`]);
//! - `checkpoint.bin`: the state to resume from (`--checkpoint-every`, an interruption;
//!   [`crate::checkpoint`]).

use crate::checkpoint::Checkpoint;
use crate::files::write_whole;
use crate::gpu::Gpu;
use crate::health::{GuardTotals, Health};
use crate::probes::{self as probe, ProbeRow, ProbeSetup, Profile, ProfileBin};
use crate::progress::Progress;
use crate::scene::Scene;
use crate::scene::setup;
use crate::signals::stop_requested;
use crate::sim::InitialState;
use crate::sim::Sim;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Scene file (RON); not with --resume, which reads it from the run folder.
    #[arg(required_unless_present = "resume")]
    pub scene: Option<PathBuf>,
    /// Steps to run (the run's total; default 1000, or the resumed run's).
    #[arg(long)]
    pub steps: Option<u64>,
    /// Output folder for probes.csv, profile.csv and run.json (created if missing).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Probe every this many steps (0 = the scene's probes.every, or about 500 probes over the
    /// run).
    #[arg(long, default_value_t = 0)]
    pub every: u64,
    /// x positions (m) of water-height gauges, comma separated (after the scene's
    /// probes.gauges; its point gauges are recorded too).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub gauges: Vec<f32>,
    /// Initial velocity of a fluid block, `BLOCK:VX,VY,VZ` (block index in the scene's `fluid`
    /// list, m/s); repeat for several blocks. Blocks not named start at rest.
    #[arg(long = "velocity", value_parser = parse_velocity)]
    pub velocities: Vec<(usize, [f32; 3])>,
    /// Fraction of the run at its end over which profile.csv is averaged (0 = the last probe).
    #[arg(long, default_value_t = 0.1)]
    pub profile_fraction: f64,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Export particle frames into OUT/particles/ in these formats: vtk (.vtu per frame and
    /// particles.pvd), ply (binary PLY per frame).
    #[arg(long, value_delimiter = ',')]
    pub export: Vec<crate::export::Format>,
    /// Export every this many steps (0 = at every probe).
    #[arg(long, default_value_t = 0)]
    pub export_every: u64,
    /// Export the boundary (wall) particles too (kind = 1).
    #[arg(long)]
    pub export_boundary: bool,
    /// Keep OUT/checkpoint.bin current every this many steps (0 = only when interrupted).
    #[arg(long, default_value_t = 0)]
    pub checkpoint_every: u64,
    /// Continue the run in this folder from its checkpoint.bin, with its scene (the file it was
    /// run with) and settings, up to --steps (appending to probes.csv and the export series).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["scene", "out", "every", "gauges", "velocities", "export", "export_every", "export_boundary", "checkpoint_every", "profile_fraction", "overwrite"])]
    pub resume: Option<PathBuf>,
    /// Clear the files of an earlier run in --out first (probes.csv, profile.csv, run.json,
    /// leaks.csv, checkpoint.bin, particles/); without it a folder holding a run is refused.
    #[arg(long)]
    pub overwrite: bool,
}

/// The lock file of a run folder, held (an exclusive lock) while a run writes into it.
pub const LOCK_FILE: &str = "rillet.lock";

/// Locks a run folder (creating it) for this process, or refuses it when another run holds it.
/// The lock lasts while the returned file is open.
pub fn lock_run_folder(dir: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "{} is in use: another rillet run is writing into it (it holds {}); wait for it to end, or choose another folder",
            dir.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
    }
}

/// What a run writes into its folder.
const RUN_FILES: [&str; 6] = ["run.json", "probes.csv", "profile.csv", LEAKS_FILE, crate::checkpoint::FILE, EXPORT_FOLDER];

/// A fresh run's folder: refused when it holds an earlier run's files, unless `overwrite`, which
/// removes them first (only those: anything else in the folder stays).
fn clear_or_refuse(dir: &Path, overwrite: bool) -> anyhow::Result<()> {
    let found: Vec<&str> = RUN_FILES.into_iter().filter(|f| dir.join(f).exists()).collect();
    if found.is_empty() {
        return Ok(());
    }
    if !overwrite {
        let what = std::fs::read_to_string(dir.join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<RunMeta>(&t).ok())
            .map(|m| format!(" (a run of {}, {} of {} steps, {})", m.scene, m.steps_done, m.steps, m.outcome))
            .unwrap_or_default();
        anyhow::bail!(
            "{} holds an earlier run{what}: {}. Continue it with `rillet run --resume {}`, choose another --out, or add --overwrite to clear those files first",
            dir.display(),
            found.join(", "),
            dir.display()
        );
    }
    for f in found {
        let path = dir.join(f);
        let removed = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.with_context(|| format!("--overwrite: cannot remove {}", path.display()))?;
    }
    Ok(())
}

/// `2:1.5,0,-0.5` → (2, [1.5, 0, -0.5]).
pub fn parse_velocity(s: &str) -> Result<(usize, [f32; 3]), String> {
    let bad = || format!("`{s}` is not BLOCK:VX,VY,VZ (e.g. 0:1.5,0,0)");
    let (block, v) = s.split_once(':').ok_or_else(bad)?;
    let block = block.trim().parse().map_err(|_| bad())?;
    let v: Vec<f32> = v.split(',').map(|c| c.trim().parse::<f32>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok((block, [x, y, z])),
        _ => Err(bad()),
    }
}

/// What to run and record.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub steps: u64,
    /// Probe interval in steps (at least 1).
    pub every: u64,
    pub gauges: Vec<f32>,
    /// (x, z) of point gauges (from the scene's probes).
    pub point_gauges: Vec<[f32; 2]>,
    pub velocities: Vec<(usize, [f32; 3])>,
    /// Fraction of the run at its end over which the profile is averaged.
    pub profile_fraction: f64,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Particle export formats (none: no export).
    pub export: Vec<crate::export::Format>,
    /// Export interval in steps (at least 1).
    pub export_every: u64,
    /// Export boundary particles too.
    pub export_boundary: bool,
    /// Checkpoint interval in steps (0 = only when interrupted).
    pub checkpoint_every: u64,
    /// The scene file's absolute path, for run.json (`None`: the scene label's, resolved from
    /// the working directory; a resume passes the path it read the scene from, whatever the
    /// working directory is now).
    pub scene_file: Option<String>,
}

impl RunConfig {
    pub fn new(steps: u64) -> Self {
        Self {
            steps,
            every: auto_every(steps),
            gauges: vec![],
            point_gauges: vec![],
            velocities: vec![],
            profile_fraction: 0.1,
            progress: false,
            export: vec![],
            export_every: 1,
            export_boundary: false,
            checkpoint_every: 0,
            scene_file: None,
        }
    }
}

/// About 500 probes per run.
pub fn auto_every(steps: u64) -> u64 {
    steps.div_ceil(500).max(1)
}

/// Fluid in and out of a run (run.json).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowTotals {
    pub fluid_particles: u64,
    pub outflow: u64,
    pub emitted: u64,
    pub starved: u64,
}

/// What ran: written as run.json.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunMeta {
    /// The scene as given on the command line.
    pub scene: String,
    /// The scene's absolute path (what `--resume` reads).
    #[serde(default)]
    pub scene_file: String,
    pub name: String,
    pub adapter: String,
    pub rillet_version: String,
    /// UTC date the run finished, YYYY-MM-DD.
    pub date: String,
    /// Fluid particles at the start.
    pub fluid_particles: u32,
    pub boundary_particles: u32,
    /// Room for fluid particles: the fluid at the start and the free slots the emitters fill.
    #[serde(default)]
    pub fluid_slots: u32,
    /// At the last probe: fluid particles, and the outflow, emitted and starved totals.
    #[serde(default)]
    pub flow: Option<FlowTotals>,
    pub spacing: f32,
    pub h: f32,
    /// The scene's dt (s): every step's when the time step is fixed, the first step's when it is
    /// adaptive.
    pub dt: f32,
    /// The pressure solver: "WCSPH" or "DFSPH".
    #[serde(default = "default_solver")]
    pub solver: String,
    /// "fixed" or "adaptive".
    #[serde(default = "default_time_step")]
    pub time_step: String,
    pub sound_speed: f32,
    pub stiffness: f32,
    pub rest_density: f32,
    pub viscosity: f32,
    pub wall_viscosity: f32,
    pub gravity: [f32; 3],
    pub domain_min: [f32; 3],
    pub domain_max: [f32; 3],
    pub fluid_blocks: Vec<([f32; 3], [f32; 3])>,
    pub velocities: Vec<(usize, [f32; 3])>,
    pub gauges: Vec<f32>,
    #[serde(default)]
    pub point_gauges: Vec<[f32; 2]>,
    pub steps: u64,
    pub every: u64,
    /// Fraction of the run at its end over which profile.csv is averaged.
    #[serde(default = "default_profile_fraction")]
    pub profile_fraction: f64,
    pub profile_snapshots: u32,
    /// Mean free-surface height above the floor over the profile snapshots (m; see
    /// [`probe::surface_height`]).
    #[serde(default)]
    pub surface_height: f64,
    /// Wall-clock seconds of the whole run (steps and probes).
    pub wall_seconds: f64,
    /// Wall-clock milliseconds per step, probes included.
    pub ms_per_step: f64,
    /// Wall-clock seconds spent stepping: from each batch's first submit to the GPU's end of
    /// the last (probes, exports and checkpoints excluded).
    #[serde(default)]
    pub stepping_seconds: f64,
    /// Wall-clock milliseconds per step of `stepping_seconds`: the pace of the step loop itself,
    /// comparable to `rillet bench`'s GPU time per step.
    #[serde(default)]
    pub stepping_ms_per_step: f64,
    /// How the run ended: "completed", or why it stopped early (a blow-up, an interruption).
    #[serde(default = "completed")]
    pub outcome: String,
    /// Steps actually run (fewer than `steps` when the run stopped early).
    #[serde(default)]
    pub steps_done: u64,
    /// Warnings said during the run (each kind once).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The particle export, when there was one: formats, interval, what was written.
    #[serde(default)]
    pub export: Option<ExportMeta>,
    /// Checkpoint interval (0 = only when interrupted).
    #[serde(default)]
    pub checkpoint_every: u64,
    /// The step this run was resumed from, if it was.
    #[serde(default)]
    pub resumed_from: Option<u64>,
    /// Simulated seconds reached (at the start: where the run starts).
    #[serde(default)]
    pub sim_time: f64,
    /// The steps' dt over the probe rows (s): smallest, largest and mean (0 before the end, and
    /// in files older than these fields).
    #[serde(default)]
    pub dt_min_seen: f64,
    #[serde(default)]
    pub dt_max_seen: f64,
    #[serde(default)]
    pub dt_mean: f64,
    /// DFSPH: the most pressure-solve iterations of a step over the probe rows (0 for WCSPH).
    #[serde(default)]
    pub max_pressure_iterations_seen: u32,
}

/// The dt statistics of run.json over probe rows: (smallest, largest, mean); rows without a dt
/// (written before the column existed) are left out.
pub fn dt_seen(rows: &[ProbeRow]) -> (f64, f64, f64) {
    let dts: Vec<f64> = rows.iter().map(|r| r.dt).filter(|&dt| dt > 0.0).collect();
    if dts.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let min = dts.iter().copied().fold(f64::INFINITY, f64::min);
    let max = dts.iter().copied().fold(0.0, f64::max);
    (min, max, dts.iter().sum::<f64>() / dts.len() as f64)
}

/// What a run exported (run.json).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ExportMeta {
    pub formats: Vec<crate::export::Format>,
    pub every: u64,
    pub boundary: bool,
    /// Folder of the frames, relative to the run folder.
    pub folder: String,
    #[serde(flatten)]
    pub stats: crate::export::ExportStats,
}

fn completed() -> String {
    COMPLETED.to_string()
}

fn default_profile_fraction() -> f64 {
    0.1
}

/// The solver of a run.json written before the field (WCSPH was the only one).
fn default_solver() -> String {
    "WCSPH".to_string()
}

/// The time step of a run.json written before the field (it was always fixed).
fn default_time_step() -> String {
    "fixed".to_string()
}

/// [`RunMeta::outcome`] while the run goes on (and of a run that died without a word).
pub const RUNNING: &str = "running";

/// The folder of the exported frames inside a run folder.
pub const EXPORT_FOLDER: &str = "particles";

/// [`RunMeta::outcome`] of a run that did all its steps.
pub const COMPLETED: &str = "completed";

pub use crate::health::Stopped;

/// A finished (or re-read) run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub meta: RunMeta,
    pub rows: Vec<ProbeRow>,
    pub profile: Vec<ProfileBin>,
    /// Why the run stopped early (None when it completed).
    pub stopped: Option<Stopped>,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.resume {
        let _lock = lock_run_folder(dir)?;
        let (scene, label, cfg, start) = resume_from(dir, args.steps, args.quiet)?;
        let gpu = Gpu::headless()?;
        let r = run_scene(&gpu, &scene, &label, &cfg, Some(dir), start)?;
        return finish_run(r, dir, &scene);
    }
    let scene_path = args.scene.clone().expect("clap requires SCENE without --resume");
    let scene = Scene::load(&scene_path)?;
    check_gauges(&scene, &args.gauges)?;
    let _lock = lock_run_folder(&args.out)?;
    clear_or_refuse(&args.out, args.overwrite)?;
    let gpu = Gpu::headless()?;
    let steps = args.steps.unwrap_or(DEFAULT_STEPS);
    // the scene's probes, then the flags' gauges
    let mut gauges = scene.probes.gauges.clone();
    for g in &args.gauges {
        // a flag repeating a scene's gauge would write the same column twice
        if !gauges.contains(g) {
            gauges.push(*g);
        }
    }
    let every = match (args.every, scene.probes.every) {
        (0, 0) => auto_every(steps),
        (0, e) => e,
        (e, _) => e,
    };
    let cfg = RunConfig {
        steps,
        every,
        gauges,
        point_gauges: scene.probes.point_gauges.clone(),
        velocities: args.velocities,
        profile_fraction: args.profile_fraction.clamp(0.0, 1.0),
        progress: !args.quiet,
        export: args.export,
        export_every: args.export_every,
        export_boundary: args.export_boundary,
        checkpoint_every: args.checkpoint_every,
        scene_file: None,
    };
    let cfg = RunConfig { export_every: if cfg.export_every == 0 { cfg.every } else { cfg.export_every }, ..cfg };
    let r = run_scene(&gpu, &scene, &scene_path.display().to_string(), &cfg, Some(&args.out), Start::Fresh)?;
    finish_run(r, &args.out, &scene)
}

/// Steps of a run without `--steps`.
pub const DEFAULT_STEPS: u64 = 1000;

/// Where a run starts.
pub enum Start {
    /// From the scene's initial state, with new files.
    Fresh,
    /// From a checkpoint, keeping the files' rows up to it.
    Resume(Checkpoint),
}

/// The content hash a checkpoint carries: FNV-1a of the scene as RON.
pub fn scene_hash(scene: &Scene) -> u64 {
    let mut bytes = ron::to_string(scene).unwrap_or_default().into_bytes();
    // the meshes the scene names, as they were read (a mesh edited between a run and its resume
    // is another scene)
    for mesh in scene.meshes.fluid.iter().chain(&scene.meshes.solids).flatten() {
        for v in &mesh.vertices {
            bytes.extend(v.to_array().iter().flat_map(|c| c.to_le_bytes()));
        }
        bytes.extend(mesh.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()));
    }
    crate::checkpoint::fnv1a(&bytes)
}

/// Reads a run folder to resume: its run.json (scene, settings), the scene (its hash must be
/// the checkpoint's) and the checkpoint.
fn resume_from(dir: &Path, steps: Option<u64>, quiet: bool) -> anyhow::Result<(Scene, String, RunConfig, Start)> {
    let meta_path = dir.join("run.json");
    let text = std::fs::read_to_string(&meta_path)
        .with_context(|| format!("cannot read {} (is {} a run folder?)", meta_path.display(), dir.display()))?;
    let meta: RunMeta = serde_json::from_str(&text).with_context(|| format!("{}: not a run.json of this program", meta_path.display()))?;
    let scene_path = if meta.scene_file.is_empty() { meta.scene.clone() } else { meta.scene_file.clone() };
    let scene = Scene::load(Path::new(&scene_path))?;
    let checkpoint = Checkpoint::load(&dir.join(crate::checkpoint::FILE))?;
    if meta.outcome != COMPLETED && meta.outcome != RUNNING && !meta.outcome.starts_with("interrupted") {
        eprintln!("note: the run ended with: {}; resuming from its last checkpoint, at step {}", meta.outcome, checkpoint.step);
    }
    if checkpoint.scene_hash != scene_hash(&scene) {
        return Err(crate::checkpoint::CheckpointError::OtherScene {
            file: dir.join(crate::checkpoint::FILE).display().to_string(),
            scene: meta.scene.clone(),
        }
        .into());
    }
    let steps = steps.unwrap_or(meta.steps);
    anyhow::ensure!(
        steps >= checkpoint.step,
        "--steps {steps}: the checkpoint is at step {} already (allowed: {} or more)",
        checkpoint.step,
        checkpoint.step
    );
    let cfg = RunConfig {
        steps,
        every: meta.every,
        gauges: meta.gauges.clone(),
        point_gauges: meta.point_gauges.clone(),
        velocities: meta.velocities.clone(),
        profile_fraction: meta.profile_fraction,
        progress: !quiet,
        export: meta.export.as_ref().map_or_else(Vec::new, |e| e.formats.clone()),
        export_every: meta.export.as_ref().map_or(1, |e| e.every),
        export_boundary: meta.export.as_ref().is_some_and(|e| e.boundary),
        checkpoint_every: meta.checkpoint_every,
        scene_file: Some(std::fs::canonicalize(&scene_path).map_or(scene_path, |p| p.display().to_string())),
    };
    Ok((scene, meta.scene, cfg, Start::Resume(checkpoint)))
}

/// The summary line of a finished run and its exit (an error when it stopped early).
fn finish_run(r: RunResult, out: &Path, scene: &Scene) -> anyhow::Result<()> {
    let last = r.rows.last().context("no probe was recorded")?;
    eprintln!(
        "{}: {} ({} of {} steps, {:.4} s simulated) in {:.1} s ({:.2} ms/step; stepping {:.2} ms/step) on {}; front {:.4} m, largest compression {:.3} %, density error in the bulk up to {:.3} % (up to {:.1} % at the free surface, where the kernel reaches past the water), spray {}, max speed {:.3} m/s (Mach {:.3}), wall clamps {} ({:.2} per step lately), outside {}, non-finite {}, cells up to {} (capacity {}, {} over)",
        out.display(),
        if r.stopped.is_some() { "stopped early" } else { COMPLETED },
        r.meta.steps_done,
        r.meta.steps,
        last.time,
        r.meta.wall_seconds,
        r.meta.ms_per_step,
        r.meta.stepping_ms_per_step,
        r.meta.adapter,
        last.front,
        100.0 * last.max_compression,
        100.0 * last.max_density_error_bulk,
        100.0 * last.max_density_error,
        last.spray,
        last.max_speed,
        last.max_speed / r.meta.sound_speed as f64,
        last.wall_clamps,
        last.wall_clamps_per_step,
        last.outside,
        last.non_finite,
        last.max_per_cell,
        scene.grid.capacity,
        last.overflows,
    );
    if r.meta.time_step != "fixed" || r.meta.solver != "WCSPH" {
        let m = &r.meta;
        let iterations = if m.solver == "DFSPH" {
            format!(", at most {} pressure iterations a step", m.max_pressure_iterations_seen)
        } else {
            String::new()
        };
        let dt = if m.time_step == "adaptive" {
            format!("adaptive dt: {:.3e} to {:.3e} s over the probes (mean {:.3e} s)", m.dt_min_seen, m.dt_max_seen, m.dt_mean)
        } else {
            format!("fixed dt {} s", m.dt)
        };
        eprintln!("{}, {dt}{iterations}", m.solver);
    }
    if !scene.solids.is_empty() {
        let most = r.rows.iter().map(|row| row.inside_solids).max().unwrap_or(0);
        let listed = if most > 0 { format!(" (each listed in {})", out.join(LEAKS_FILE).display()) } else { String::new() };
        eprintln!("fluid particles inside solids (leaks): {} now, at most {most} at any probe{listed}", last.inside_solids);
    }
    if !scene.emitters.is_empty() || !scene.walls.open.is_empty() {
        eprintln!(
            "fluid particles: {} now of {} slots; {} emitted, {} left through open faces, {} not emitted for want of room",
            last.fluid_particles, r.meta.fluid_slots, last.emitted, last.outflow, last.starved
        );
    }
    match r.stopped {
        Some(stopped) => Err(stopped.into()),
        None => Ok(()),
    }
}

/// Gauges must be finite and inside the domain along x.
pub fn check_gauges(scene: &Scene, gauges: &[f32]) -> anyhow::Result<()> {
    let (lo, hi) = (scene.domain.min[0], scene.domain.max[0]);
    for g in gauges {
        anyhow::ensure!(
            g.is_finite() && *g >= lo && *g <= hi,
            "--gauges: {g} is out of range: allowed [{lo}, {hi}] m (the domain along x)"
        );
    }
    Ok(())
}

/// Index ranges of the fluid particles of each fluid entry (fluid is created entry by entry).
pub fn block_ranges(scene: &Scene) -> Vec<std::ops::Range<usize>> {
    let s = scene.physics.spacing;
    let mut start = 0;
    (0..scene.fluid.len())
        .map(|i| {
            let n: usize = match scene.fluid[i].block() {
                Some(b) => (0..3).map(|a| crate::scene::lattice::lattice_count(b.min[a], b.max[a], s) as usize).product(),
                None => scene.mesh_fluid(i).len(),
            };
            start += n;
            start - n..start
        })
        .collect()
}

/// Sets the initial velocity of whole fluid blocks, held to the range a scene's `velocity` has
/// (below half the speed of sound).
pub fn set_block_velocities(scene: &Scene, state: &mut InitialState, velocities: &[(usize, [f32; 3])]) -> anyhow::Result<()> {
    let ranges = block_ranges(scene);
    let (c, _) = crate::scene::setup::resolve_pressure(scene);
    for &(block, v) in velocities {
        let range = ranges
            .get(block)
            .with_context(|| format!("--velocity {block}:…: the scene has {} fluid blocks (0..{})", ranges.len(), ranges.len()))?;
        let speed = glam::Vec3::from(v).as_dvec3().length();
        anyhow::ensure!(
            speed < 0.5 * c as f64,
            "--velocity {block}:{}: speed {} m/s out of range: allowed below half the speed of sound, {:.4} m/s (c = {c:.4} m/s), as a scene's fluid velocity",
            v.map(|x| if x.abs() < 1e6 { x.to_string() } else { format!("{x:e}") }).join(","),
            if speed < 1e6 { format!("{speed:.4}") } else { format!("{speed:.3e}") },
            0.5 * c
        );
        for i in range.clone() {
            state.vel_rho[i][..3].copy_from_slice(&v);
        }
    }
    Ok(())
}

/// Runs `scene` for `cfg.steps` steps, probing every `cfg.every`; with `out`, writes
/// probes.csv (as it goes), profile.csv and run.json there.
pub fn run_scene(
    gpu: &Gpu,
    scene: &Scene,
    scene_label: &str,
    cfg: &RunConfig,
    out: Option<&Path>,
    start: Start,
) -> anyhow::Result<RunResult> {
    let mut state = setup::build_checked(scene, gpu).with_context(|| format!("{scene_label}: the scene does not fit this device"))?;
    set_block_velocities(scene, &mut state, &cfg.velocities)?;
    let resumed = match &start {
        Start::Fresh => None,
        Start::Resume(c) => {
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
            Some(c.step)
        }
    };
    let mut sim = Sim::new(gpu, &state, crate::scene::setup::sim_options(scene)).map_err(|e| e.for_scene(scene_label))?;
    if let Start::Resume(Checkpoint { step_state: Some(s), .. }) = &start {
        sim.restore_step_state(s).map_err(|e| anyhow::anyhow!("{scene_label}: {e}"))?;
    }
    let params = *sim.params();
    let setup = ProbeSetup::new(&params, scene.physics.spacing, &cfg.gauges).with_point_gauges(&cfg.point_gauges);
    let solids = crate::scene::bodies::SolidMask::new(scene);
    let every = cfg.every.max(1);
    let hash = scene_hash(scene);
    // simulated time after `step` steps: step·dt for a fixed dt; an adaptive dt's GPU clock
    // needs the diagnostics of that step
    let clock = |sim: &Sim, step: u64| -> anyhow::Result<f64> {
        let d = if sim.is_adaptive() { sim.read_diagnostics()? } else { Default::default() };
        Ok(sim.time_at(step, &d))
    };

    // probes.csv: a new file, or the resumed one cut back to the checkpoint's step
    let mut rows = Vec::new();
    let mut series = Vec::new();
    let mut csv = match out {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let path = dir.join("probes.csv");
            let mut kept = vec![ProbeRow::header(&setup.gauge_names())];
            if resumed.is_none() {
                // a checkpoint of an earlier run in this folder must not be resumed with this one's files
                let old = dir.join(crate::checkpoint::FILE);
                if old.exists() {
                    std::fs::remove_file(&old).with_context(|| format!("cannot remove {}", old.display()))?;
                }
            }
            if let Some(from) = resumed {
                let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
                let lines: Vec<&str> = text.lines().collect();
                for (k, line) in lines.iter().enumerate().skip(1) {
                    // a line cut short by a crash can only be the last one; a bad line before it
                    // is damage, and the rows after it would be lost with it
                    let Some(row) = ProbeRow::parse(line, setup.gauge_names().len()) else {
                        anyhow::ensure!(
                            k + 1 == lines.len(),
                            "{}: line {} is damaged (not a probe row of this run) and {} rows follow it: repair or remove that line, then resume",
                            path.display(),
                            k + 1,
                            lines.len() - k - 1
                        );
                        break;
                    };
                    if row.step <= from {
                        // written anew in this version's columns (a row of an older version gets
                        // the columns it lacked), so every row of the file has the header's width
                        kept.push(row.csv());
                        rows.push(row);
                    }
                }
                series = read_series(&dir.join(EXPORT_FOLDER).join("particles.pvd"), from);
            }
            write_whole(&path, format!("{}\n", kept.join("\n")).as_bytes())?;
            Some(CsvFile::append(&path)?)
        }
        None => None,
    };
    let mut leaks = match out {
        Some(dir) if !scene.solids.is_empty() => Some(leak_log(&dir.join(LEAKS_FILE), resumed)?),
        _ => None,
    };

    let label = if scene.name.is_empty() { scene_label.to_string() } else { scene.name.clone() };
    if cfg.progress {
        eprintln!(
            "{label}: {} fluid + {} boundary particles, spacing {} m, {}, {}, c {:.2} m/s, {} steps on {}",
            state.n_fluid,
            state.n_boundary(),
            scene.physics.spacing,
            crate::scene::Solver::of(sim.params().solver).name(),
            time_step_words(&params),
            params.sound_speed,
            cfg.steps,
            gpu.describe()
        );
    }
    let mut warnings = Vec::new();
    // dt·c/h bounds a WCSPH step of a fixed dt; an adaptive step keeps its own CFL number, and
    // DFSPH carries no sound
    let cfl = crate::physics::cfl(params.dt as f64, params.sound_speed as f64, params.h as f64);
    if !sim.is_dfsph() && !sim.is_adaptive() && cfl > crate::scene::limits::CFL_RECOMMENDED {
        let w = format!(
            "warning: CFL dt·c/h = {cfl:.3} is above the recommended {} (c = {:.2} m/s): the step may be unstable",
            crate::scene::limits::CFL_RECOMMENDED,
            params.sound_speed
        );
        eprintln!("{label}: {w}");
        warnings.push(w);
    }
    let mut bar = Progress::new(&label, cfg.steps, cfg.progress).starting_at(resumed.unwrap_or(0));
    let profile_from = cfg.steps - ((cfg.steps as f64 * cfg.profile_fraction) as u64).min(cfg.steps);
    let mut profile = Profile::new(&setup);
    let mut guards = match &start {
        Start::Fresh => GuardTotals::default(),
        Start::Resume(c) => GuardTotals::starting_at(c.wall_clamps, c.non_finite, c.step),
    };
    // outflow, emitted, starved before this run's simulation (a resumed run's so far)
    let flow0 = match &start {
        Start::Fresh => [0u64; 3],
        Start::Resume(c) => c.flow,
    };
    let flow =
        |d: &crate::sim::params::Diagnostics| [flow0[0] + d.outflow as u64, flow0[1] + d.emitted as u64, flow0[2] + d.starved as u64];
    let mut health = Health::new(&params);
    let mut starved_warned = false;
    let mut stopped: Option<Stopped> = None;
    let out_name = out.map_or_else(|| "no folder".to_string(), |d| d.display().to_string());
    // run.json from the start (outcome "running"): a run that dies still has what resume needs
    let meta_at_start = RunMeta {
        scene: scene_label.to_string(),
        scene_file: cfg
            .scene_file
            .clone()
            .unwrap_or_else(|| std::fs::canonicalize(scene_label).map(|p| p.display().to_string()).unwrap_or_default()),
        name: scene.name.clone(),
        adapter: gpu.describe(),
        rillet_version: env!("CARGO_PKG_VERSION").to_string(),
        date: utc_date(),
        fluid_particles: state.n_fluid,
        boundary_particles: state.n_boundary(),
        fluid_slots: state.n_particles() - state.n_boundary(),
        flow: None,
        spacing: scene.physics.spacing,
        h: params.h,
        dt: params.dt,
        solver: crate::scene::Solver::of(sim.params().solver).name().to_string(),
        time_step: if sim.is_adaptive() { "adaptive" } else { "fixed" }.to_string(),
        sound_speed: params.sound_speed,
        stiffness: params.stiffness,
        rest_density: params.rest_density,
        viscosity: params.viscosity,
        wall_viscosity: params.wall_viscosity,
        gravity: params.gravity,
        domain_min: params.domain_min,
        domain_max: params.domain_max,
        fluid_blocks: (0..scene.fluid.len())
            .map(|i| {
                let (lo, hi) = scene.fluid_shape(i).bounds();
                (lo.as_vec3().to_array(), hi.as_vec3().to_array())
            })
            .collect(),
        velocities: cfg.velocities.clone(),
        gauges: cfg.gauges.clone(),
        point_gauges: cfg.point_gauges.clone(),
        steps: cfg.steps,
        every,
        profile_fraction: cfg.profile_fraction,
        profile_snapshots: 0,
        surface_height: 0.0,
        wall_seconds: 0.0,
        ms_per_step: 0.0,
        stepping_seconds: 0.0,
        stepping_ms_per_step: 0.0,
        outcome: RUNNING.to_string(),
        steps_done: resumed.unwrap_or(0),
        warnings: vec![],
        export: None,
        checkpoint_every: cfg.checkpoint_every,
        resumed_from: resumed,
        sim_time: state.time,
        dt_min_seen: 0.0,
        dt_max_seen: 0.0,
        dt_mean: 0.0,
        max_pressure_iterations_seen: 0,
    };
    // loaded: from here a signal stops the run between batches, its files written
    crate::signals::loaded();
    if let Some(dir) = out {
        write_whole(&dir.join("run.json"), serde_json::to_string_pretty(&meta_at_start)?.as_bytes())?;
    }
    let t0 = Instant::now();
    let mut step = resumed.unwrap_or(0);
    // the last step whose rows, frames and checkpoint are written (a second pass at the same
    // step — a signal that came after the check — writes nothing twice)
    let mut done = resumed;
    let mut exporter = match (out, cfg.export.is_empty()) {
        (Some(dir), false) => Some(crate::export::Exporter::start(&dir.join(EXPORT_FOLDER), &cfg.export, series)?),
        _ => None,
    };
    let export_every = cfg.export_every.max(1);
    let next = |s: u64, k: u64| (s / k + 1) * k;
    let mut sim_time;
    let mut stepping = std::time::Duration::ZERO;
    loop {
        // the particles and the diagnostics of this very step (one copy): its time (the GPU
        // clock, for an adaptive dt), the probe row's counters and the checkpoint's
        let (p, d) = sim.read_state().with_context(|| format!("{scene_label}: step {step}"))?;
        let time = sim.time_at(step, &d);
        sim_time = time;
        let interrupted = stop_requested();
        // a resumed run has its first step's rows and frames already
        let fresh = done != Some(step);
        if let Some(e) = exporter.as_mut()
            && fresh
            && (step.is_multiple_of(export_every) || step == cfg.steps || interrupted)
        {
            let frame = crate::export::Frame::new(&p, step, time, params.rest_density, params.stiffness, cfg.export_boundary);
            if let Err(sent) = e.send(frame) {
                let writer = exporter.take().map(|e| e.finish());
                return Err(match writer {
                    Some(Err(e)) => e,
                    _ => sent,
                });
            }
        }
        if fresh && (step.is_multiple_of(every) || step == cfg.steps || interrupted) {
            let mut row = probe::measure(&setup, &p, step, time);
            let delta = guards.update(&d, step);
            row.wall_clamps = guards.wall_clamps;
            row.non_finite = guards.non_finite;
            row.wall_clamps_per_step = delta.clamps_per_step();
            row.max_per_cell = d.max_per_cell;
            row.overflows = d.overflows;
            [row.outflow, row.emitted, row.starved] = flow(&d);
            row.set_step_columns(&d);
            if !solids.is_empty() {
                let inside = leaked(&p, &solids);
                row.inside_solids = inside.len() as u32;
                if let Some(w) = leaks.as_mut() {
                    for line in inside.iter().take(LEAK_ROWS).map(|l| l.csv(step, time)) {
                        w.line(&line)?;
                    }
                }
            }
            if row.starved > 0 && !starved_warned {
                starved_warned = true;
                bar.clear();
                let w = format!(
                    "warning at step {step} (t = {time:.4} s): the emitters ran out of room, {} particles were not emitted (all {} fluid slots full): raise fluid_capacity in the scene",
                    row.starved,
                    sim.fluid_slots()
                );
                eprintln!("{label}: {w}");
                warnings.push(w);
            }
            if let Some(w) = csv.as_mut() {
                w.line(&row.csv())?;
            }
            if step >= profile_from || step == cfg.steps {
                profile.add(&p);
            }
            let finding = health.check_guards(&delta, row.fluid_particles, step, time).or_else(|| health.check_row(&row));
            rows.push(row);
            match finding {
                Some(f) if f.blow_up => {
                    bar.clear();
                    stopped = Some(Stopped::BlowUp { finding: f, out: out_name.clone(), kept: "probes" });
                }
                Some(f) => {
                    bar.clear();
                    eprintln!("{label}: {f}");
                    warnings.push(f.to_string());
                }
                None => {}
            }
        }
        // never a checkpoint of a state that blew up: the last good one stays
        let checkpoint_due = cfg.checkpoint_every > 0 && step.is_multiple_of(cfg.checkpoint_every);
        if let Some(dir) = out
            && stopped.is_none()
            && ((fresh && checkpoint_due) || interrupted)
        {
            // the guard counters up to this very step (the last probe row may be older)
            let (clamps, non_finite) = guards.peek(&d);
            let mut c = Checkpoint::new(&p, hash, step, time, params.n_fluid, clamps, non_finite);
            c.flow = flow(&d);
            c.step_state = Some(sim.step_state(&d)?);
            c.save(&dir.join(crate::checkpoint::FILE))?;
        }
        done = Some(step);
        if stopped.is_none() && interrupted {
            stopped = Some(Stopped::Interrupted { step, out: out_name.clone(), code: crate::signals::exit_code() });
        }
        if step >= cfg.steps || stopped.is_some() {
            break;
        }
        let mut target = next(step, every).min(cfg.steps);
        if exporter.is_some() {
            target = target.min(next(step, export_every));
        }
        if cfg.checkpoint_every > 0 {
            target = target.min(next(step, cfg.checkpoint_every));
        }
        // at most 100 steps per submit, and one submit ahead of the GPU: the CPU records the next
        // batch while the GPU runs the last (waiting for each batch left the GPU idle while the
        // CPU recorded: 1.65 ms of wall time per step against 0.86 ms of GPU time at 1M)
        let mut in_flight: Option<wgpu::SubmissionIndex> = None;
        let batch_start = Instant::now();
        while step < target && !stop_requested() {
            let k = (target - step).min(100) as u32;
            let submitted = sim.run(k);
            if let Some(last) = in_flight.replace(submitted) {
                gpu.device.poll(wgpu::PollType::Wait { submission_index: Some(last), timeout: None }).context("GPU wait")?;
            }
            step += k as u64;
            if cfg.progress {
                // (a batch behind at most; an adaptive clock reads the diagnostics, which waits)
                bar.update(step, clock(&sim, step)?);
            }
        }
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).context("GPU wait")?;
        stepping += batch_start.elapsed();
    }
    let export = match exporter {
        Some(e) => Some(ExportMeta {
            formats: cfg.export.clone(),
            every: export_every,
            boundary: cfg.export_boundary,
            folder: EXPORT_FOLDER.to_string(),
            stats: e.finish()?,
        }),
        None => None,
    };
    bar.finish();
    let wall = t0.elapsed().as_secs_f64();
    let (dt_min_seen, dt_max_seen, dt_mean) = dt_seen(&rows);
    let meta = RunMeta {
        profile_snapshots: profile.snapshots,
        surface_height: profile.surface(),
        wall_seconds: wall,
        ms_per_step: wall * 1e3 / (step - resumed.unwrap_or(0)).max(1) as f64,
        stepping_seconds: stepping.as_secs_f64(),
        stepping_ms_per_step: stepping.as_secs_f64() * 1e3 / (step - resumed.unwrap_or(0)).max(1) as f64,
        outcome: stopped.as_ref().map_or_else(completed, |s| s.to_string()),
        steps_done: step,
        warnings,
        export,
        flow: rows.last().map(|r| FlowTotals {
            fluid_particles: r.fluid_particles,
            outflow: r.outflow,
            emitted: r.emitted,
            starved: r.starved,
        }),
        sim_time,
        dt_min_seen,
        dt_max_seen,
        dt_mean,
        max_pressure_iterations_seen: rows.iter().map(|r| r.pressure_iterations).max().unwrap_or(0),
        ..meta_at_start
    };
    let result = RunResult { meta, rows, profile: profile.bins(), stopped };
    if let Some(dir) = out {
        write_profile(&dir.join("profile.csv"), &result.profile)?;
        write_whole(&dir.join("run.json"), serde_json::to_string_pretty(&result.meta)?.as_bytes())?;
    }
    Ok(result)
}

/// A CSV file written line by line: a line is written whole or not at all (on an error — a full
/// disk — the file is cut back to its last complete line), and every error names the file.
/// The leak log of a run folder.
pub const LEAKS_FILE: &str = "leaks.csv";
/// At most this many rows of `leaks.csv` a probe (the count in probes.csv is complete).
pub const LEAK_ROWS: usize = 100;
const LEAKS_HEADER: &str = "step,time_s,id,x,y,z,vx,vy,vz,density";

/// A fluid particle inside a solid, as `leaks.csv` lists it.
struct Leak {
    id: u32,
    x: [f32; 3],
    v: [f32; 3],
    density: f32,
}

impl Leak {
    fn csv(&self, step: u64, time: f64) -> String {
        let [x, y, z] = self.x;
        let [vx, vy, vz] = self.v;
        format!("{step},{time:.7},{},{x:.6},{y:.6},{z:.6},{vx:.4},{vy:.4},{vz:.4},{:.2}", self.id, self.density)
    }
}

/// The fluid particles inside the solids (deeper than the mask's quarter spacing), in id order.
fn leaked(p: &crate::sim::instruments::Particles, solids: &crate::scene::bodies::SolidMask) -> Vec<Leak> {
    let mut inside: Vec<Leak> = p
        .pos_mass
        .iter()
        .zip(&p.vel_rho)
        .zip(&p.id)
        .filter(|((x, _), _)| x[3] > 0.0 && solids.contains(glam::DVec3::new(x[0] as f64, x[1] as f64, x[2] as f64)))
        .map(|((x, v), &id)| Leak { id, x: [x[0], x[1], x[2]], v: [v[0], v[1], v[2]], density: v[3] })
        .collect();
    inside.sort_by_key(|l| l.id);
    inside
}

/// `leaks.csv`: a new file with its header, or a resumed run's cut back to the checkpoint's step.
fn leak_log(path: &Path, resumed: Option<u64>) -> anyhow::Result<CsvFile> {
    let mut kept = vec![LEAKS_HEADER.to_string()];
    if let Some(from) = resumed {
        // a run of an older version has no leak log: it starts anew
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines().skip(1) {
            let complete = line.split(',').count() == LEAKS_HEADER.split(',').count();
            match line.split(',').next().and_then(|s| s.parse::<u64>().ok()) {
                Some(step) if complete && step <= from => kept.push(line.to_string()),
                // a line cut short by a crash can only come after the checkpoint's rows
                _ => break,
            }
        }
    }
    write_whole(path, format!("{}\n", kept.join("\n")).as_bytes())?;
    CsvFile::append(path)
}

struct CsvFile {
    file: std::fs::File,
    path: PathBuf,
    good: u64,
}

impl CsvFile {
    /// Opens an existing file to add lines at its end.
    fn append(path: &Path) -> anyhow::Result<Self> {
        let file = std::fs::OpenOptions::new().append(true).open(path).with_context(|| format!("cannot write {}", path.display()))?;
        let good = file.metadata().with_context(|| format!("cannot read {}", path.display()))?.len();
        Ok(Self { file, path: path.to_path_buf(), good })
    }

    fn line(&mut self, text: &str) -> anyhow::Result<()> {
        let line = format!("{text}\n");
        if let Err(e) = self.file.write_all(line.as_bytes()).and_then(|()| self.file.flush()) {
            let _ = self.file.set_len(self.good);
            return Err(e).with_context(|| format!("cannot write {} (kept up to its last complete line)", self.path.display()));
        }
        self.good += line.len() as u64;
        Ok(())
    }
}

/// The `.pvd` entries of a resumed export up to step `to` (an entry's step is read from its file
/// name, `particles-SSSSSSSS.vtu`, its time from its `timestep`: an adaptive dt's times are no
/// multiple of the step); none when there is no collection.
fn read_series(pvd: &Path, to: u64) -> Vec<(f64, String)> {
    let Ok(text) = std::fs::read_to_string(pvd) else { return vec![] };
    text.lines()
        .filter_map(|l| {
            let file = l.split("file=\"").nth(1)?.split('"').next()?.to_string();
            let time: f64 = l.split("timestep=\"").nth(1)?.split('"').next()?.parse().ok()?;
            let step: u64 = file.strip_prefix("particles-")?.strip_suffix(".vtu")?.parse().ok()?;
            (step <= to).then_some((time, file))
        })
        .collect()
}

/// The time step in words: "dt adaptive in [min, max] s, cfl X" or "dt X s".
pub fn time_step_words(p: &crate::sim::params::SimParams) -> String {
    if p.adaptive != 0 { format!("dt adaptive in [{}, {}] s, cfl {}", p.dt_min, p.dt_max, p.cfl) } else { format!("dt {} s", p.dt) }
}

fn write_profile(path: &Path, bins: &[ProfileBin]) -> anyhow::Result<()> {
    let mut s = String::from(probe::PROFILE_HEADER);
    s.push('\n');
    for b in bins {
        s.push_str(&b.csv());
        s.push('\n');
    }
    write_whole(path, s.as_bytes())
}

/// Reads back a run folder written by [`run_scene`].
pub fn read_run(dir: &Path) -> anyhow::Result<RunResult> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let meta: RunMeta = serde_json::from_str(&read("run.json")?).with_context(|| format!("{}: bad run.json", dir.display()))?;
    let n_gauges = meta.gauges.len() + meta.point_gauges.len();
    let rows = read("probes.csv")?
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| ProbeRow::parse(l, n_gauges).with_context(|| format!("{}/probes.csv: bad line {}", dir.display(), i + 2)))
        .collect::<anyhow::Result<_>>()?;
    let profile = read("profile.csv")?
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| ProfileBin::parse(l).with_context(|| format!("{}/profile.csv: bad line {}", dir.display(), i + 2)))
        .collect::<anyhow::Result<_>>()?;
    Ok(RunResult { meta, rows, profile, stopped: None })
}

/// Today's UTC date, YYYY-MM-DD (civil-from-days, H. Hinnant's algorithm).
pub fn utc_date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leak log lists the fluid particles inside a solid (and no free slot, no particle
    /// outside or only at the surface), in id order; a resumed run keeps its rows up to the
    /// checkpoint's step and drops a line cut short.
    #[test]
    fn leaks_are_listed_and_resumed() {
        let scene = Scene::parse(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))],
              solids: [Box(center: (0.6, 0.5, 0.5), size: (0.2, 0.2, 0.2))], physics: (spacing: 0.02))",
            "leaks.ron",
        )
        .unwrap();
        let solids = crate::scene::bodies::SolidMask::new(&scene);
        let at = |x: f32, w: f32| [x, 0.5, 0.5, w];
        let p = crate::sim::instruments::Particles {
            // deep inside; inside but a free slot; outside; at the face (within the quarter spacing)
            pos_mass: vec![at(0.6, 1.0), at(0.62, 0.0), at(0.3, 1.0), at(0.503, 1.0), at(0.55, 1.0)],
            vel_rho: vec![[1.0, 2.0, 3.0, 1001.0]; 5],
            id: vec![7, 1, 2, 3, 4],
            pressure: None,
        };
        let inside = leaked(&p, &solids);
        assert_eq!(inside.iter().map(|l| l.id).collect::<Vec<_>>(), [4, 7]);
        assert_eq!(inside[1].csv(10, 0.5), "10,0.5000000,7,0.600000,0.500000,0.500000,1.0000,2.0000,3.0000,1001.00");

        let dir = std::env::temp_dir().join(format!("rillet-leaks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(LEAKS_FILE);
        let mut log = leak_log(&path, None).unwrap();
        for step in [10, 20, 30] {
            log.line(&inside[0].csv(step, step as f64 * 0.05)).unwrap();
        }
        drop(log);
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + "40,2.0,4,0.5").unwrap();
        leak_log(&path, Some(20)).unwrap();
        let steps: Vec<String> =
            std::fs::read_to_string(&path).unwrap().lines().map(|l| l.split(',').next().unwrap().to_string()).collect();
        assert_eq!(steps, ["step", "10", "20"]);
        leak_log(&path, None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{LEAKS_HEADER}\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn velocity_argument() {
        assert_eq!(parse_velocity("1:0.5,-1,2"), Ok((1, [0.5, -1.0, 2.0])));
        assert!(parse_velocity("1:0.5,-1").is_err());
        assert!(parse_velocity("x:0,0,0").is_err());
        assert!(parse_velocity("0:nan,0,0").is_err());
    }

    #[test]
    fn date_format() {
        let d = utc_date();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
    }

    /// A run.json written before the solver and time-step fields reads as the WCSPH run with a
    /// fixed dt it was.
    #[test]
    fn an_older_run_json_reads_with_the_fields_it_lacked() {
        let old = r#"{"scene": "s.ron", "name": "s", "adapter": "a", "rillet_version": "0.1.0", "date": "2024-01-01",
            "fluid_particles": 10, "boundary_particles": 5, "spacing": 0.02, "h": 0.04, "dt": 0.0004, "sound_speed": 30.0,
            "stiffness": 1.0e5, "rest_density": 1000.0, "viscosity": 0.1, "wall_viscosity": 0.0, "gravity": [0.0, -9.81, 0.0],
            "domain_min": [0.0, 0.0, 0.0], "domain_max": [1.0, 1.0, 1.0], "fluid_blocks": [], "velocities": [], "gauges": [],
            "steps": 100, "every": 10, "profile_snapshots": 1, "wall_seconds": 1.0, "ms_per_step": 10.0}"#;
        let meta: RunMeta = serde_json::from_str(old).unwrap();
        assert_eq!((meta.solver.as_str(), meta.time_step.as_str()), ("WCSPH", "fixed"));
        assert_eq!((meta.sim_time, meta.dt_mean, meta.max_pressure_iterations_seen), (0.0, 0.0, 0));
        let again: RunMeta = serde_json::from_str(&serde_json::to_string(&meta).unwrap()).unwrap();
        assert_eq!(again.solver, "WCSPH");
    }

    /// The dt statistics leave out rows without a dt (older rows of a resumed run).
    #[test]
    fn dt_seen_over_the_rows_that_have_one() {
        let row = |dt| ProbeRow { dt, ..Default::default() };
        assert_eq!(dt_seen(&[]), (0.0, 0.0, 0.0));
        let (min, max, mean) = dt_seen(&[row(0.0), row(1e-4), row(3e-4)]);
        assert_eq!((min, max), (1e-4, 3e-4));
        assert!((mean - 2e-4).abs() < 1e-15, "{mean}");
    }

    /// A resumed export keeps its frames' times as written (an adaptive dt's are no multiple of
    /// the step), up to the checkpoint's step.
    #[test]
    fn the_export_series_keeps_its_times() {
        let dir = std::env::temp_dir().join(format!("rillet-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pvd = dir.join("particles.pvd");
        let frames = vec![
            (0.0, "particles-00000000.vtu".to_string()),
            (0.0123456789, "particles-00000050.vtu".to_string()),
            (0.031, "particles-00000100.vtu".to_string()),
        ];
        std::fs::write(&pvd, crate::export::pvd(&frames)).unwrap();
        assert_eq!(read_series(&pvd, 50), frames[..2]);
        assert_eq!(read_series(&dir.join("none.pvd"), 50), vec![]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn time_step_in_words() {
        let mut p = crate::sim::params::SimParams { dt: 4e-4, dt_min: 1e-5, dt_max: 1e-3, cfl: 0.4, ..Default::default() };
        assert_eq!(time_step_words(&p), "dt 0.0004 s");
        p.adaptive = 1;
        assert_eq!(time_step_words(&p), "dt adaptive in [0.00001, 0.001] s, cfl 0.4");
    }

    #[test]
    fn block_ranges_follow_the_lattice() {
        let scene = Scene::default_scene();
        let r = block_ranges(&scene);
        assert_eq!(r, vec![0..22_500]);
    }
}
