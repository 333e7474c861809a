//! `rillet run`: a headless run of a scene that writes probe time series as CSV.
//!
//! Every `--every` steps the particle state is read back and the probes of
//! [`crate::probes`] are measured: time, surge front, water height at the gauges,
//! density errors, kinetic / potential / elastic energy, momentum, wall clamps, non-finite and
//! escaped particles. Output folder:
//!
//! - `probes.csv`: one row per probe (header in the first line), written as the run goes;
//! - `profile.csv`: the vertical profile (density and Tait pressure per layer of one spacing),
//!   averaged over the probes of the last `--profile-fraction` of the run;
//! - `run.json`: what ran (scene, resolution, dt, speed of sound, adapter, timing).

use crate::gpu::Gpu;
use crate::health::{GuardTotals, Health};
use crate::probes::{self as probe, ProbeRow, ProbeSetup, Profile, ProfileBin};
use crate::scene::Scene;
use crate::scene::setup;
use crate::signals::{stop_on_signals, stop_requested};
use crate::sim::InitialState;
use crate::sim::Sim;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Scene file (RON).
    pub scene: PathBuf,
    /// Steps to run.
    #[arg(long, default_value_t = 1000)]
    pub steps: u64,
    /// Output folder for probes.csv, profile.csv and run.json (created if missing).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// Probe every this many steps (0 = about 500 probes over the run).
    #[arg(long, default_value_t = 0)]
    pub every: u64,
    /// x positions (m) of water-height gauges, comma separated.
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
}

impl RunConfig {
    pub fn new(steps: u64) -> Self {
        Self {
            steps,
            every: auto_every(steps),
            gauges: vec![],
            velocities: vec![],
            profile_fraction: 0.1,
            progress: false,
            export: vec![],
            export_every: 1,
            export_boundary: false,
        }
    }
}

/// About 500 probes per run.
pub fn auto_every(steps: u64) -> u64 {
    steps.div_ceil(500).max(1)
}

/// What ran: written as run.json.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunMeta {
    pub scene: String,
    pub name: String,
    pub adapter: String,
    pub rillet_version: String,
    /// UTC date the run finished, YYYY-MM-DD.
    pub date: String,
    pub fluid_particles: u32,
    pub boundary_particles: u32,
    pub spacing: f32,
    pub h: f32,
    pub dt: f32,
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
    pub steps: u64,
    pub every: u64,
    pub profile_snapshots: u32,
    /// Mean free-surface height above the floor over the profile snapshots (m; see
    /// [`probe::surface_height`]).
    #[serde(default)]
    pub surface_height: f64,
    /// Wall-clock seconds of the whole run (steps and probes).
    pub wall_seconds: f64,
    /// Wall-clock milliseconds per step, probes included.
    pub ms_per_step: f64,
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

/// The folder of the exported frames inside a run folder.
pub const EXPORT_FOLDER: &str = "particles";

/// [`RunMeta::outcome`] of a run that did all its steps.
pub const COMPLETED: &str = "completed";

/// A run that stopped before its last step: the files written so far are complete and valid.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Stopped {
    /// The health checks saw a blow-up ([`crate::health`]).
    #[error("{finding}; the run stopped, {out} holds the probes up to it")]
    BlowUp { finding: crate::health::Finding, out: String },
    /// SIGINT or SIGTERM.
    #[error("interrupted at step {step}; the run stopped, {out} holds the probes up to it")]
    Interrupted { step: u64, out: String },
}

impl Stopped {
    /// The process exit code: 3 for a blow-up, 130 for an interruption.
    pub fn exit_code(&self) -> u8 {
        match self {
            Stopped::BlowUp { .. } => 3,
            Stopped::Interrupted { .. } => 130,
        }
    }
}

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
    let scene = Scene::load(&args.scene)?;
    check_gauges(&scene, &args.gauges)?;
    let gpu = Gpu::headless()?;
    let cfg = RunConfig {
        steps: args.steps,
        every: if args.every == 0 { auto_every(args.steps) } else { args.every },
        gauges: args.gauges,
        velocities: args.velocities,
        profile_fraction: args.profile_fraction.clamp(0.0, 1.0),
        progress: !args.quiet,
        export: args.export,
        export_every: args.export_every,
        export_boundary: args.export_boundary,
    };
    let cfg = RunConfig { export_every: if cfg.export_every == 0 { cfg.every } else { cfg.export_every }, ..cfg };
    stop_on_signals();
    let r = run_scene(&gpu, &scene, &args.scene.display().to_string(), &cfg, Some(&args.out))?;
    let last = r.rows.last().context("no probe was recorded")?;
    eprintln!(
        "{}: {} ({} of {} steps, {:.4} s simulated) in {:.1} s ({:.2} ms/step) on {}; front {:.4} m, density error max {:.3} % (bulk {:.3} %, compression {:.3} %), spray {}, max speed {:.3} m/s (Mach {:.3}), wall clamps {} ({:.2} per step lately), outside {}, non-finite {}, cells up to {} (capacity {}, {} over)",
        args.out.display(),
        if r.stopped.is_some() { "stopped early" } else { COMPLETED },
        r.meta.steps_done,
        r.meta.steps,
        last.time,
        r.meta.wall_seconds,
        r.meta.ms_per_step,
        r.meta.adapter,
        last.front,
        100.0 * last.max_density_error,
        100.0 * last.max_density_error_bulk,
        100.0 * last.max_compression,
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

/// Index ranges of the fluid particles of each block (fluid is created block by block).
pub fn block_ranges(scene: &Scene) -> Vec<std::ops::Range<usize>> {
    let s = scene.physics.spacing;
    let mut start = 0;
    scene
        .fluid
        .iter()
        .map(|b| {
            let n: usize = (0..3).map(|a| crate::scene::lattice::lattice_count(b.min[a], b.max[a], s) as usize).product();
            start += n;
            start - n..start
        })
        .collect()
}

/// Sets the initial velocity of whole fluid blocks.
pub fn set_block_velocities(scene: &Scene, state: &mut InitialState, velocities: &[(usize, [f32; 3])]) -> anyhow::Result<()> {
    let ranges = block_ranges(scene);
    for &(block, v) in velocities {
        let range = ranges
            .get(block)
            .with_context(|| format!("--velocity {block}:…: the scene has {} fluid blocks (0..{})", ranges.len(), ranges.len()))?;
        for i in range.clone() {
            state.vel_rho[i][..3].copy_from_slice(&v);
        }
    }
    Ok(())
}

/// Runs `scene` for `cfg.steps` steps, probing every `cfg.every`; with `out`, writes
/// probes.csv (as it goes), profile.csv and run.json there.
pub fn run_scene(gpu: &Gpu, scene: &Scene, scene_label: &str, cfg: &RunConfig, out: Option<&Path>) -> anyhow::Result<RunResult> {
    let mut state = setup::build_checked(scene, gpu).with_context(|| format!("{scene_label}: the scene does not fit this device"))?;
    set_block_velocities(scene, &mut state, &cfg.velocities)?;
    let mut sim = Sim::new(gpu, &state, crate::scene::setup::sim_options(scene))
        .with_context(|| format!("{scene_label}: the scene does not fit this device"))?;
    let params = *sim.params();
    let setup = ProbeSetup::new(&params, scene.physics.spacing, &cfg.gauges);
    let every = cfg.every.max(1);
    let dt = params.dt as f64;

    let mut csv = match out {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let mut w = CsvFile::create(&dir.join("probes.csv"))?;
            w.line(&ProbeRow::header(&setup.gauges))?;
            Some(w)
        }
        None => None,
    };

    let label = if scene.name.is_empty() { scene_label.to_string() } else { scene.name.clone() };
    if cfg.progress {
        eprintln!(
            "{label}: {} fluid + {} boundary particles, spacing {} m, dt {} s, c {:.2} m/s, {} steps on {}",
            state.n_fluid,
            state.n_boundary(),
            scene.physics.spacing,
            params.dt,
            params.sound_speed,
            cfg.steps,
            gpu.describe()
        );
    }
    let mut warnings = Vec::new();
    let cfl = params.dt as f64 * params.sound_speed as f64 / params.h as f64;
    if cfl > crate::scene::limits::CFL_RECOMMENDED {
        let w = format!(
            "warning: CFL dt·c/h = {cfl:.3} is above the recommended {} (c = {:.2} m/s): the step may be unstable",
            crate::scene::limits::CFL_RECOMMENDED,
            params.sound_speed
        );
        eprintln!("{label}: {w}");
        warnings.push(w);
    }
    let mut bar = Progress::new(&label, cfg.steps, cfg.progress);
    let profile_from = cfg.steps - ((cfg.steps as f64 * cfg.profile_fraction) as u64).min(cfg.steps);
    let mut profile = Profile::new(&setup);
    let mut rows = Vec::new();
    let mut guards = GuardTotals::default();
    let mut health = Health::new(params.n_fluid, params.sound_speed);
    let mut stopped: Option<Stopped> = None;
    let out_name = out.map_or_else(|| "no folder".to_string(), |d| d.display().to_string());
    let t0 = Instant::now();
    let mut step = 0u64;
    let mut exporter = match (out, cfg.export.is_empty()) {
        (Some(dir), false) => Some(crate::export::Exporter::start(&dir.join(EXPORT_FOLDER), &cfg.export, vec![])?),
        _ => None,
    };
    let export_every = cfg.export_every.max(1);
    let next = |s: u64, k: u64| (s / k + 1) * k;
    loop {
        let p = sim.read_particles();
        let time = step as f64 * dt;
        let interrupted = stop_requested();
        if let Some(e) = exporter.as_mut()
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
        if step.is_multiple_of(every) || step == cfg.steps || interrupted {
            let d = sim.read_diagnostics();
            let mut row = probe::measure(&setup, &p, step, time);
            let delta = guards.update(&d, step);
            row.wall_clamps = guards.wall_clamps;
            row.non_finite = guards.non_finite;
            row.wall_clamps_per_step = delta.clamps_per_step();
            row.max_per_cell = d.max_per_cell;
            row.overflows = d.overflows;
            if let Some(w) = csv.as_mut() {
                w.line(&row.csv())?;
            }
            if step >= profile_from || step == cfg.steps {
                profile.add(&p);
            }
            let finding = health.check_guards(&delta, step, time).or_else(|| health.check_row(&row));
            rows.push(row);
            match finding {
                Some(f) if f.blow_up => {
                    bar.clear();
                    stopped = Some(Stopped::BlowUp { finding: f, out: out_name.clone() });
                }
                Some(f) => {
                    bar.clear();
                    eprintln!("{label}: {f}");
                    warnings.push(f.to_string());
                }
                None => {}
            }
        }
        if stopped.is_none() && interrupted {
            stopped = Some(Stopped::Interrupted { step, out: out_name.clone() });
        }
        if step >= cfg.steps || stopped.is_some() {
            break;
        }
        let mut target = next(step, every).min(cfg.steps);
        if exporter.is_some() {
            target = target.min(next(step, export_every));
        }
        while step < target && !stop_requested() {
            // at most 100 steps per submit, and wait for each so the progress bar tells the truth
            let k = (target - step).min(100) as u32;
            sim.run(k);
            gpu.device.poll(wgpu::PollType::wait_indefinitely()).context("GPU wait")?;
            step += k as u64;
            bar.update(step, step as f64 * dt);
        }
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
    let meta = RunMeta {
        scene: scene_label.to_string(),
        name: scene.name.clone(),
        adapter: gpu.describe(),
        rillet_version: env!("CARGO_PKG_VERSION").to_string(),
        date: utc_date(),
        fluid_particles: state.n_fluid,
        boundary_particles: state.n_boundary(),
        spacing: scene.physics.spacing,
        h: params.h,
        dt: params.dt,
        sound_speed: params.sound_speed,
        stiffness: params.stiffness,
        rest_density: params.rest_density,
        viscosity: params.viscosity,
        wall_viscosity: params.wall_viscosity,
        gravity: params.gravity,
        domain_min: params.domain_min,
        domain_max: params.domain_max,
        fluid_blocks: scene.fluid.iter().map(|b| (b.min, b.max)).collect(),
        velocities: cfg.velocities.clone(),
        gauges: cfg.gauges.clone(),
        steps: cfg.steps,
        every,
        profile_snapshots: profile.snapshots,
        surface_height: profile.surface(),
        wall_seconds: wall,
        ms_per_step: wall * 1e3 / step.max(1) as f64,
        outcome: stopped.as_ref().map_or_else(completed, |s| s.to_string()),
        steps_done: step,
        warnings,
        export,
    };
    let result = RunResult { meta, rows, profile: profile.bins(), stopped };
    if let Some(dir) = out {
        write_profile(&dir.join("profile.csv"), &result.profile)?;
        write_atomic(&dir.join("run.json"), serde_json::to_string_pretty(&result.meta)?.as_bytes())?;
    }
    Ok(result)
}

/// A CSV file written line by line: a line is written whole or not at all (on an error — a full
/// disk — the file is cut back to its last complete line), and every error names the file.
struct CsvFile {
    file: std::fs::File,
    path: PathBuf,
    good: u64,
}

impl CsvFile {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Self { file, path: path.to_path_buf(), good: 0 })
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

/// Writes `path` through a temporary file and a rename: the file is either the old one or the
/// new one in full, never cut short.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("{}.tmp", path.extension().and_then(|e| e.to_str()).unwrap_or("")));
    let result = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

fn write_profile(path: &Path, bins: &[ProfileBin]) -> anyhow::Result<()> {
    let mut s = String::from(probe::PROFILE_HEADER);
    s.push('\n');
    for b in bins {
        s.push_str(&b.csv());
        s.push('\n');
    }
    write_atomic(path, s.as_bytes())
}

/// Reads back a run folder written by [`run_scene`].
pub fn read_run(dir: &Path) -> anyhow::Result<RunResult> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let meta: RunMeta = serde_json::from_str(&read("run.json")?).with_context(|| format!("{}: bad run.json", dir.display()))?;
    let n_gauges = meta.gauges.len();
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

/// A progress bar on stderr: redrawn in place on a terminal, one line per 10 % otherwise.
pub struct Progress {
    label: String,
    total: u64,
    start: Instant,
    tty: bool,
    on: bool,
    last_decile: u64,
    last_draw: Option<Instant>,
}

impl Progress {
    pub fn new(label: &str, total: u64, on: bool) -> Self {
        Self {
            label: label.to_string(),
            total,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            on,
            last_decile: 0,
            last_draw: None,
        }
    }

    pub fn update(&mut self, done: u64, sim_time: f64) {
        if !self.on || self.total == 0 {
            return;
        }
        let frac = done as f64 / self.total as f64;
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = if done > 0 { elapsed * (self.total - done) as f64 / done as f64 } else { 0.0 };
        if self.tty {
            if self.last_draw.is_some_and(|t| t.elapsed().as_millis() < 100) && done < self.total {
                return;
            }
            self.last_draw = Some(Instant::now());
            let width = 30;
            let filled = ((frac * width as f64) as usize).min(width);
            eprint!(
                "\r{} [{}{}] {:5.1}% step {}/{} t={:.4} s, {:.0} s left   ",
                self.label,
                "#".repeat(filled),
                "-".repeat(width - filled),
                100.0 * frac,
                done,
                self.total,
                sim_time,
                eta
            );
            let _ = std::io::stderr().flush();
        } else {
            let decile = (frac * 10.0).floor() as u64;
            if decile > self.last_decile {
                self.last_decile = decile;
                eprintln!(
                    "{}: {:3.0}% step {}/{} t={:.4} s, {:.0} s elapsed, {:.0} s left",
                    self.label,
                    100.0 * frac,
                    done,
                    self.total,
                    sim_time,
                    elapsed,
                    eta
                );
            }
        }
    }

    pub fn finish(&mut self) {
        self.clear();
    }

    /// Ends the bar's line (on a terminal) so that a message can follow; the bar redraws below.
    pub fn clear(&mut self) {
        if self.on && self.tty && self.last_draw.take().is_some() {
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn block_ranges_follow_the_lattice() {
        let scene = Scene::default_scene();
        let r = block_ranges(&scene);
        assert_eq!(r, vec![0..22_500]);
    }
}
