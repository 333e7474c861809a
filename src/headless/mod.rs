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
//! - `run.json`: what ran (scene, resolution, solver, dt, speed of sound, adapter, timing, the
//!   settings), written at the start (outcome `running`) and at the end (with the simulated time
//!   reached and the dt seen);
//! - `leaks.csv` (scenes with solids): each fluid particle found inside a solid at a probe — step,
//!   time, id, position, velocity, density — at most [`LEAK_ROWS`] a probe; only the header when
//!   none leaked;
//! - `particles/`: the exported frames (`--export`, [`crate::export`]);
//! - `checkpoint.bin`: the state to resume from (`--checkpoint-every`, an interruption;
//!   [`crate::checkpoint`]).
//!
//! The parts: [`settings`] (the command line, the settings, run.json's enums), [`run_loop`]
//! (the schedule and the loop), [`outputs`] (one place per file written as the run goes),
//! [`resume`] (run folders: locking, clearing, resuming, reading back) and [`summary`] (what is
//! said at the end).

pub(crate) mod outputs;
pub(crate) mod resume;
pub(crate) mod run_loop;
pub(crate) mod settings;
pub(crate) mod summary;

pub use crate::health::Stopped;
pub use outputs::{LEAK_ROWS, LEAKS_FILE};
pub use resume::{LOCK_FILE, lock_run_folder, read_run};
pub use run_loop::{Start, run_scene};
pub use settings::{
    COMPLETED, DEFAULT_STEPS, ExportSettings, Outcome, RUNNING, RunArgs, RunConfig, RunSettings, TimeStep, auto_every, check_gauges,
    parse_velocity,
};
pub use summary::time_step_words;

use crate::gpu::Gpu;
use crate::probes::{ProbeRow, ProfileBin};
use crate::scene::Scene;
use serde::{Deserialize, Serialize};

/// The folder of the exported frames inside a run folder.
pub(crate) const EXPORT_FOLDER: &str = "particles";

/// Fluid in and out of a run (run.json).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowTotals {
    pub fluid_particles: u64,
    pub outflow: u64,
    pub emitted: u64,
    pub starved: u64,
}

/// What ran: written as run.json. The settings ([`RunSettings`]) are its top-level fields
/// `steps`, `every`, `gauges`, `point_gauges`, `surface_gauges`, `velocities`, `profile_fraction`,
/// `checkpoint_every` (and read as `meta.gauges` through `Deref`), the export's inside `export`.
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
    /// The pressure solver: "WCSPH" or "DFSPH" (a run.json written before the field: WCSPH, the
    /// only one then).
    #[serde(default = "default_solver")]
    pub solver: crate::scene::Solver,
    /// "fixed" or "adaptive".
    #[serde(default)]
    pub time_step: TimeStep,
    pub sound_speed: f32,
    pub stiffness: f32,
    pub rest_density: f32,
    pub viscosity: f32,
    pub wall_viscosity: f32,
    pub gravity: [f32; 3],
    pub domain_min: [f32; 3],
    pub domain_max: [f32; 3],
    pub fluid_blocks: Vec<([f32; 3], [f32; 3])>,
    /// What the run was asked to do.
    #[serde(flatten)]
    pub settings: RunSettings,
    pub profile_snapshots: u32,
    /// Mean free-surface height above the floor over the profile snapshots (m; see
    /// [`crate::probes::surface_height`]).
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
    /// With the neighbour lists kept between grid builds (`grid.list_skin`): the steps that
    /// built the grid and those that kept the lists, since this process started.
    #[serde(default)]
    pub list_builds: Option<[u32; 2]>,
    /// Wall-clock seconds spent on the probe rows: their measures (on the GPU, or the CPU twin
    /// with `--probes cpu`) and the copies of the particles read for them alone (not those an
    /// export or a checkpoint read anyway).
    #[serde(default)]
    pub probe_seconds: f64,
    /// Wall-clock milliseconds per probe row of `probe_seconds`.
    #[serde(default)]
    pub probe_ms_per_row: f64,
    /// How the run ended: "completed", or why it stopped early (a blow-up, an interruption).
    #[serde(default = "completed")]
    pub outcome: Outcome,
    /// Steps actually run (fewer than `steps` when the run stopped early).
    #[serde(default)]
    pub steps_done: u64,
    /// Warnings said during the run (each kind once).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// The particle export, when there was one: formats, interval, what was written (written
    /// from the start, with the counts at 0, so that a run that dies keeps its export settings
    /// for a resume).
    #[serde(default)]
    pub export: Option<ExportMeta>,
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
    /// The scene's pressure sensors (`sensors.csv`'s columns, in order) and their rate in steps.
    #[serde(default)]
    pub sensors: Vec<crate::scene::PressureSensor>,
    #[serde(default)]
    pub sensor_every: u64,
    /// The scene's force sensors (`sensors.csv`'s columns after the pressure sensors').
    #[serde(default)]
    pub forces: Vec<crate::scene::ForceSensor>,
    /// The scene's flow sections (`sensors.csv`'s columns after the force sensors').
    #[serde(default)]
    pub flows: Vec<crate::scene::FlowSection>,
}

impl std::ops::Deref for RunMeta {
    type Target = RunSettings;
    fn deref(&self) -> &RunSettings {
        &self.settings
    }
}

impl RunMeta {
    /// The settings the run was made with, its export's included (a resume continues with them).
    pub(crate) fn run_settings(&self) -> RunSettings {
        RunSettings { export: self.export.as_ref().map(|e| e.settings.clone()), ..self.settings.clone() }
    }
}

/// The dt statistics of run.json over probe rows: (smallest, largest, mean); rows without a dt
/// (written before the column existed) are left out.
pub(crate) fn dt_seen(rows: &[ProbeRow]) -> (f64, f64, f64) {
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
    /// `formats`, `every`, `boundary`.
    #[serde(flatten)]
    pub settings: ExportSettings,
    /// Folder of the frames, relative to the run folder.
    pub folder: String,
    #[serde(flatten)]
    pub stats: crate::export::ExportStats,
}

fn completed() -> Outcome {
    Outcome::Completed
}

/// The solver of a run.json written before the field (WCSPH was the only one).
fn default_solver() -> crate::scene::Solver {
    crate::scene::Solver::Wcsph
}

/// A finished (or re-read) run.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub meta: RunMeta,
    pub rows: Vec<ProbeRow>,
    /// The pressure sensors' rows (`sensors.csv`; empty without sensors).
    pub sensors: Vec<crate::sim::sensors::SensorRow>,
    pub profile: Vec<ProfileBin>,
    /// Why the run stopped early (None when it completed).
    pub stopped: Option<Stopped>,
}

/// `rillet run`: a fresh run of a scene, or (`--resume`) the continuation of one.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    if let Some(dir) = &args.resume {
        let _lock = lock_run_folder(dir)?;
        let resumed = resume::resume_from(dir, args.steps, args.quiet)?;
        let gpu = Gpu::headless()?;
        let r = run_scene(&gpu, &resumed.scene, &resumed.label, &resumed.settings, Some(dir), resumed.start)?;
        return summary::finish_run(r, dir, &resumed.scene);
    }
    let scene_path = args.scene.clone().expect("clap requires SCENE without --resume");
    let scene = Scene::load(&scene_path)?;
    check_gauges(&scene, &args.gauges)?;
    settings::check_export_fps(&scene, args.export_fps)?;
    crate::export::check_formats(&args.export)?;
    settings::check_surface(args.surface_cube, args.surface_threshold)?;
    let _lock = lock_run_folder(&args.out)?;
    resume::clear_or_refuse(&args.out, args.overwrite)?;
    let gpu = Gpu::headless()?;
    let settings = RunSettings::from_args(&args, &scene);
    let r = run_scene(&gpu, &scene, &scene_path.display().to_string(), &settings, Some(&args.out), Start::Fresh)?;
    summary::finish_run(r, &args.out, &scene)
}

/// Today's UTC date, YYYY-MM-DD.
pub(crate) fn utc_date() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!((meta.solver.name(), meta.time_step), ("WCSPH", TimeStep::Fixed));
        assert_eq!((meta.sim_time, meta.dt_mean, meta.max_pressure_iterations_seen), (0.0, 0.0, 0));
        assert_eq!((meta.outcome.clone(), meta.steps, meta.every, meta.profile_fraction), (Outcome::Completed, 100, 10, 0.1));
        let again: RunMeta = serde_json::from_str(&serde_json::to_string(&meta).unwrap()).unwrap();
        assert_eq!(again.solver.name(), "WCSPH");
        // the words on disk stay as they were
        let json: serde_json::Value = serde_json::to_value(&again).unwrap();
        assert_eq!(
            (json["solver"].as_str(), json["time_step"].as_str(), json["outcome"].as_str()),
            (Some("WCSPH"), Some("fixed"), Some("completed"))
        );
        assert_eq!((json["steps"].as_u64(), json["every"].as_u64()), (Some(100), Some(10)));
    }

    /// The export settings go to run.json's `export` and come back from there.
    #[test]
    fn the_export_settings_are_read_back() {
        let mut meta: RunMeta = serde_json::from_str(
            r#"{"scene": "s.ron", "name": "s", "adapter": "a", "rillet_version": "0.1.0", "date": "2024-01-01",
            "fluid_particles": 10, "boundary_particles": 5, "spacing": 0.02, "h": 0.04, "dt": 0.0004, "sound_speed": 30.0,
            "stiffness": 1.0e5, "rest_density": 1000.0, "viscosity": 0.1, "wall_viscosity": 0.0, "gravity": [0.0, -9.81, 0.0],
            "domain_min": [0.0, 0.0, 0.0], "domain_max": [1.0, 1.0, 1.0], "fluid_blocks": [], "velocities": [], "gauges": [],
            "steps": 100, "every": 10, "profile_snapshots": 1, "wall_seconds": 1.0, "ms_per_step": 10.0,
            "export": {"formats": ["Vtk"], "every": 20, "boundary": true, "folder": "particles", "frames": 6, "bytes": 100,
                       "write_seconds": 0.1, "waited_seconds": 0.0}}"#,
        )
        .unwrap();
        let export = meta.run_settings().export.unwrap();
        assert_eq!((export.every, export.boundary, export.formats.len()), (20, true, 1));
        meta.export = None;
        assert_eq!(meta.run_settings().export, None);
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
}
