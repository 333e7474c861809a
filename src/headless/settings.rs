//! What a run is asked to do: the command line ([`RunArgs`]), the settings ([`RunSettings`]: the
//! one type the command line, a resume and the validation cases fill, stored in run.json) and
//! the words of run.json that are enums in the code ([`Outcome`], [`TimeStep`]).

use crate::scene::Scene;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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
    /// Where probe rows are measured: gpu (reductions on the GPU, a few small reads) or cpu
    /// (the CPU twin, on a copy of every particle: slower, for checking and comparison).
    #[arg(long, value_enum, default_value = "gpu")]
    pub probes: ProbeMode,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Export particle frames into OUT/particles/ in these formats: vtk (.vtu per frame and
    /// particles.pvd), vtk-zlib (the same, compressed), ply (binary PLY per frame), surface (a
    /// surface mesh of the fluid per frame, surface-SSSSSSSS.obj: splashsurf's reconstruction).
    #[arg(long, value_delimiter = ',')]
    pub export: Vec<crate::export::Format>,
    /// --export surface: marching-cubes cell edge in particle radii (half spacings), in
    /// [0.1, 4]: smaller is finer and slower.
    #[arg(long, default_value_t = 0.5, requires = "export")]
    pub surface_cube: f32,
    /// --export surface: the surface where the fluid's SPH density is this fraction of ρ0, in
    /// [0.1, 1].
    #[arg(long, default_value_t = 0.6, requires = "export")]
    pub surface_threshold: f32,
    /// Export every this many steps (0 = at every probe).
    #[arg(long, default_value_t = 0)]
    pub export_every: u64,
    /// Export F frames per simulated second instead: frame k at the step nearest k/F s (exact
    /// when 1/F is a whole number of steps), its time the step's. Needs a fixed dt.
    #[arg(long, value_name = "F", conflicts_with = "export_every", requires = "export")]
    pub export_fps: Option<f64>,
    /// The exported files' up axis: y (the scene's own) or z (Blender, Houdini): x, −z, y.
    #[arg(long, value_enum, default_value = "y", requires = "export")]
    pub export_up: crate::export::Up,
    /// Export the boundary (wall and solid) particles too, as a series of their own
    /// (boundary-SSSSSSSS, boundary.pvd; every frame when solids move, else the first).
    #[arg(long)]
    pub export_boundary: bool,
    /// Keep OUT/checkpoint.bin current every this many steps (0 = only when interrupted).
    #[arg(long, default_value_t = 0)]
    pub checkpoint_every: u64,
    /// Continue the run in this folder from its checkpoint.bin, with its scene (the file it was
    /// run with) and settings, up to --steps (appending to probes.csv and the export series).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["scene", "out", "every", "gauges", "velocities", "export", "export_every", "export_fps", "export_up", "export_boundary", "surface_cube", "surface_threshold", "checkpoint_every", "profile_fraction", "probes", "overwrite"])]
    pub resume: Option<PathBuf>,
    /// Clear the files of an earlier run in --out first (probes.csv, profile.csv, run.json,
    /// leaks.csv, checkpoint.bin, particles/); without it a folder holding a run is refused.
    #[arg(long)]
    pub overwrite: bool,
}

/// Steps of a run without `--steps`.
pub const DEFAULT_STEPS: u64 = 1000;

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

/// What to run and record. Stored in run.json (its fields at the top level, as run.json always
/// held them; the export settings inside run.json's `export`, see [`super::ExportMeta`]), and
/// read back from there by a resume.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSettings {
    /// The run's total steps.
    pub steps: u64,
    /// Probe interval in steps (at least 1).
    pub every: u64,
    /// x positions (m) of the water-height gauges.
    pub gauges: Vec<f32>,
    /// (x, z) of point gauges (from the scene's probes).
    #[serde(default)]
    pub point_gauges: Vec<[f32; 2]>,
    /// (x, z) of free-surface gauges (from the scene's probes).
    #[serde(default)]
    pub surface_gauges: Vec<[f32; 2]>,
    /// Initial velocities of whole fluid blocks: (block, m/s).
    pub velocities: Vec<(usize, [f32; 3])>,
    /// Fraction of the run at its end over which profile.csv is averaged.
    #[serde(default = "default_profile_fraction")]
    pub profile_fraction: f64,
    /// Checkpoint interval in steps (0 = only when interrupted).
    #[serde(default)]
    pub checkpoint_every: u64,
    /// Where probe rows are measured (`--probes`).
    #[serde(default)]
    pub probes: ProbeMode,
    /// The particle export (None: none); in run.json under `export`.
    #[serde(skip)]
    pub export: Option<ExportSettings>,
    /// Draw a progress bar on stderr (how this process shows the run, not part of it).
    #[serde(skip)]
    pub progress: bool,
}

/// Where a run measures its probe rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProbeMode {
    /// On the GPU ([`crate::probes::measure_gpu`]).
    #[default]
    Gpu,
    /// On the CPU, from a copy of every particle ([`crate::probes::measure`], the GPU's twin).
    Cpu,
}

/// The settings under their former name (the validation cases build them as `RunConfig`).
pub type RunConfig = RunSettings;

/// The particle export of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExportSettings {
    pub formats: Vec<crate::export::Format>,
    /// Export interval in steps (at least 1).
    pub every: u64,
    /// Export boundary particles too.
    pub boundary: bool,
    /// Frames per simulated second instead of `every` (`--export-fps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fps: Option<f64>,
    /// The files' up axis (`--export-up`).
    #[serde(default)]
    pub up: crate::export::Up,
    /// `--surface-cube` and `--surface-threshold` (surface meshes).
    #[serde(default = "default_surface_cube")]
    pub surface_cube: f32,
    #[serde(default = "default_surface_threshold")]
    pub surface_threshold: f32,
}

/// The surface meshes' parameters of a run: the scene's (its spacing and rest density), with
/// `--surface-cube` and `--surface-threshold` where it exports.
pub(crate) fn surface_params(export: Option<&ExportSettings>, spacing: f32, rest_density: f32) -> crate::export::SurfaceParams {
    let scene = crate::export::SurfaceParams::new(spacing, rest_density);
    match export {
        Some(e) => crate::export::SurfaceParams { cube: e.surface_cube, threshold: e.surface_threshold, ..scene },
        None => scene,
    }
}

fn default_surface_cube() -> f32 {
    0.5
}

fn default_surface_threshold() -> f32 {
    0.6
}

/// `--surface-cube` and `--surface-threshold` in their ranges.
pub fn check_surface(cube: f32, threshold: f32) -> anyhow::Result<()> {
    anyhow::ensure!(
        (0.1..=4.0).contains(&cube),
        "--surface-cube {cube} is out of range: allowed [0.1, 4] particle radii (the marching-cubes cell edge)"
    );
    anyhow::ensure!(
        (0.1..=1.0).contains(&threshold),
        "--surface-threshold {threshold} is out of range: allowed [0.1, 1] (the surface's density, in units of the rest density)"
    );
    Ok(())
}

/// The steps of the frames `fps` frames per simulated second make with a fixed `dt`: frame k at
/// the step nearest k/fps s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct FrameSteps {
    /// Steps per frame, 1/(fps·dt) (more than 1).
    per_frame: f64,
}

impl FrameSteps {
    pub(crate) fn new(fps: f64, dt: f64) -> Self {
        Self { per_frame: 1.0 / (fps * dt) }
    }

    fn step_of(&self, k: u64) -> u64 {
        (k as f64 * self.per_frame).round() as u64
    }

    /// Whether a frame falls on `step`.
    pub(crate) fn is_frame(&self, step: u64) -> bool {
        self.step_of((step as f64 / self.per_frame).round() as u64) == step
    }

    /// The first frame step after `step`.
    pub(crate) fn next_after(&self, step: u64) -> u64 {
        let mut k = (step as f64 / self.per_frame).floor() as u64;
        while self.step_of(k) <= step {
            k += 1;
        }
        self.step_of(k)
    }
}

/// `--export-fps F` against the scene: F in (0, 10000] and, with a fixed dt, below one frame a
/// step (an adaptive dt lands its steps on the frames).
pub fn check_export_fps(scene: &Scene, fps: Option<f64>) -> anyhow::Result<()> {
    let Some(f) = fps else { return Ok(()) };
    anyhow::ensure!(
        f.is_finite() && f > 0.0 && f <= 10_000.0,
        "--export-fps {f} is out of range: allowed (0, 10000] frames per simulated second"
    );
    if !matches!(scene.physics.time_step, crate::scene::TimeStep::Fixed) {
        return Ok(());
    }
    let dt = crate::physics::decimal(scene.physics.dt);
    anyhow::ensure!(
        f * dt < 1.0,
        "--export-fps {f} is out of range: allowed below one frame a step, 1/dt = {} frames per second (dt = {dt} s)",
        1.0 / dt
    );
    Ok(())
}

fn default_profile_fraction() -> f64 {
    0.1
}

impl RunSettings {
    pub(crate) fn new(steps: u64) -> Self {
        Self {
            steps,
            every: auto_every(steps),
            gauges: vec![],
            point_gauges: vec![],
            surface_gauges: vec![],
            velocities: vec![],
            profile_fraction: 0.1,
            checkpoint_every: 0,
            probes: ProbeMode::Gpu,
            export: None,
            progress: false,
        }
    }

    /// The settings of a fresh run from the command line and its scene: the scene's gauges, then
    /// the flags' (a flag repeating a scene's gauge would write the same column twice); the
    /// probe interval from `--every`, else the scene's, else about 500 probes.
    pub(crate) fn from_args(args: &RunArgs, scene: &Scene) -> Self {
        let steps = args.steps.unwrap_or(DEFAULT_STEPS);
        let mut gauges = scene.probes.gauges.clone();
        for g in &args.gauges {
            if !gauges.contains(g) {
                gauges.push(*g);
            }
        }
        let every = match (args.every, scene.probes.every) {
            (0, 0) => auto_every(steps),
            (0, e) => e,
            (e, _) => e,
        };
        Self {
            steps,
            every,
            gauges,
            point_gauges: scene.probes.point_gauges.clone(),
            surface_gauges: scene.probes.surface_gauges.clone(),
            velocities: args.velocities.clone(),
            profile_fraction: args.profile_fraction.clamp(0.0, 1.0),
            checkpoint_every: args.checkpoint_every,
            probes: args.probes,
            export: (!args.export.is_empty()).then(|| ExportSettings {
                formats: args.export.clone(),
                every: if args.export_every == 0 { every } else { args.export_every },
                boundary: args.export_boundary,
                fps: args.export_fps,
                up: args.export_up,
                surface_cube: args.surface_cube,
                surface_threshold: args.surface_threshold,
            }),
            progress: !args.quiet,
        }
    }
}

/// About 500 probes per run.
pub fn auto_every(steps: u64) -> u64 {
    steps.div_ceil(500).max(1)
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

/// How a run ended, run.json's `outcome`: the words written there, read back into this.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Outcome {
    /// The run goes on (or died without a word).
    Running,
    /// It did all its steps.
    Completed,
    /// SIGINT or SIGTERM stopped it (the words of [`crate::health::Stopped::Interrupted`]).
    Interrupted(String),
    /// The health checks stopped it (a blow-up), in their words.
    Stopped(String),
}

/// [`Outcome::Running`] in run.json.
pub const RUNNING: &str = "running";
/// [`Outcome::Completed`] in run.json.
pub const COMPLETED: &str = "completed";

impl From<String> for Outcome {
    fn from(s: String) -> Self {
        match s.as_str() {
            RUNNING => Outcome::Running,
            COMPLETED => Outcome::Completed,
            _ if s.starts_with("interrupted") => Outcome::Interrupted(s),
            _ => Outcome::Stopped(s),
        }
    }
}

impl From<Outcome> for String {
    fn from(o: Outcome) -> Self {
        o.to_string()
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Running => RUNNING,
            Outcome::Completed => COMPLETED,
            Outcome::Interrupted(s) | Outcome::Stopped(s) => s,
        })
    }
}

impl From<&crate::health::Stopped> for Outcome {
    fn from(s: &crate::health::Stopped) -> Self {
        match s {
            crate::health::Stopped::Interrupted { .. } => Outcome::Interrupted(s.to_string()),
            crate::health::Stopped::BlowUp { .. } => Outcome::Stopped(s.to_string()),
        }
    }
}

/// run.json's `time_step`: "fixed" or "adaptive" (a run.json written before the field: fixed,
/// as every run's was).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeStep {
    #[default]
    Fixed,
    Adaptive,
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

    /// The settings of a fresh run: the scene's gauges then the flags' (none twice), the probe
    /// interval from --every, else the scene's, else about 500 probes; the export at the probe
    /// interval unless --export-every says otherwise; none without --export.
    #[test]
    fn settings_from_the_command_line_and_the_scene() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            run: RunArgs,
        }
        let args = |a: &[&str]| <Cli as clap::Parser>::try_parse_from(std::iter::once("rillet").chain(a.iter().copied())).unwrap().run;
        let scene = Scene::parse(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))], physics: (spacing: 0.02),
              probes: (gauges: [0.1], point_gauges: [(0.5, 0.5)], every: 7))",
            "s.ron",
        )
        .unwrap();
        let s = RunSettings::from_args(&args(&["s.ron", "--gauges", "0.3,0.1", "--export", "vtk", "--quiet"]), &scene);
        assert_eq!(
            (s.steps, s.every, s.gauges.clone(), s.point_gauges.clone(), s.progress),
            (DEFAULT_STEPS, 7, vec![0.1, 0.3], vec![[0.5, 0.5]], false)
        );
        assert_eq!(s.export.map(|e| (e.every, e.boundary)), Some((7, false)));
        let s = RunSettings::from_args(
            &args(&["s.ron", "--every", "3", "--export", "ply", "--export-every", "20", "--profile-fraction", "2"]),
            &scene,
        );
        assert_eq!((s.every, s.export.map(|e| e.every), s.profile_fraction, s.progress), (3, Some(20), 1.0, true));
        let bare = Scene::parse(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))], physics: (spacing: 0.02))",
            "b.ron",
        )
        .unwrap();
        let s = RunSettings::from_args(&args(&["b.ron", "--steps", "5000"]), &bare);
        assert_eq!((s.every, s.export), (10, None));
    }

    /// The outcome reads back as the words it was written with.
    #[test]
    fn outcomes_keep_their_words() {
        for (words, outcome) in [
            ("running", Outcome::Running),
            ("completed", Outcome::Completed),
            ("interrupted at step 5; …", Outcome::Interrupted("interrupted at step 5; …".into())),
            ("blow-up: …", Outcome::Stopped("blow-up: …".into())),
        ] {
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, serde_json::to_string(words).unwrap());
            assert_eq!(serde_json::from_str::<Outcome>(&json).unwrap(), outcome);
        }
    }
}
