//! Physical validation: the probes a headless run records ([`crate::probes`]), the analytical and
//! experimental references ([`reference`](mod@reference)), the validation cases with their bounds ([`cases`]),
//! the figures ([`plot`]), and `rillet validate`, which runs the cases and writes the report.
//! `docs/VALIDATION.md` shows the results.

pub mod cases;
pub(crate) mod plot;
pub(crate) mod reference;

use crate::gpu::Gpu;
use crate::headless::{self, RunResult};
use crate::scene::Scene;
use anyhow::Context;
use cases::{Case, CaseReport, Resolution};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    /// Cases to run (default: all).
    #[arg(long = "case", value_enum, value_delimiter = ',')]
    pub cases: Vec<Case>,
    /// Full resolution (the runs behind docs/VALIDATION.md; for a real GPU) instead of the coarse CI one.
    #[arg(long)]
    pub full: bool,
    /// Output folder: one folder per run (probes.csv, profile.csv, run.json), the PNGs and report.md.
    #[arg(long, default_value = "validation")]
    pub out: PathBuf,
    /// Do not run: re-evaluate and re-plot the run folders already in --out.
    #[arg(long)]
    pub replot: bool,
    /// Plot a `rillet run` of scenes/studies/spheric_test2_1m.ron (or scenes/spheric_test2.ron)
    /// from its folder: gauges H2 and H4 against the measured heights, into OUT/spheric_test2.png
    /// (runs no case).
    #[arg(long, value_name = "RUN_DIR")]
    pub spheric: Option<PathBuf>,
}

/// Runs (or, with `replot`, re-reads) the runs of `cases` and evaluates them; writes the PNGs and
/// `report.md` into `out`.
pub fn validate(
    gpu: Option<&Gpu>,
    cases: &[Case],
    res: Resolution,
    out: &Path,
    replot: bool,
    progress: bool,
) -> anyhow::Result<Vec<CaseReport>> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut runs: BTreeMap<String, RunResult> = BTreeMap::new();
    for case in cases {
        for &folder in case.runs() {
            if runs.contains_key(folder) {
                continue;
            }
            let dir = out.join(folder);
            let result = if replot {
                headless::read_run(&dir)?
            } else {
                let spec = cases::run_spec(folder, res);
                let scene = Scene::parse(spec.scene_text, spec.scene_path)?;
                let gpu = gpu.context("running the cases needs a GPU")?;
                let mut cfg = spec.config.clone();
                cfg.progress = progress;
                let r = headless::run_scene(gpu, &scene, spec.scene_path, &cfg, Some(&dir), headless::Start::Fresh)?;
                if let Some(stopped) = r.stopped {
                    return Err(stopped.into());
                }
                r
            };
            runs.insert(folder.to_string(), result);
        }
    }
    let mut reports = Vec::new();
    let mut md = String::from("# Rillet validation report\n\n");
    for &case in cases {
        let r = cases::evaluate(case, &runs, out)?;
        md.push_str(&format!("## {}\n\n{}\n", case.title(), r.markdown));
        reports.push(r);
    }
    std::fs::write(out.join("report.md"), md)?;
    Ok(reports)
}

pub fn run(args: ValidateArgs) -> anyhow::Result<()> {
    // its cases write as they go: a signal stops them between batches from the start
    crate::signals::loaded();
    if let Some(dir) = &args.spheric {
        let path = spheric_figure(dir, &args.out)?;
        println!("{}", path.display());
        return Ok(());
    }
    let cases = if args.cases.is_empty() { Case::ALL.to_vec() } else { args.cases.clone() };
    let res = if args.full { Resolution::Full } else { Resolution::Ci };
    let gpu = if args.replot { None } else { Some(Gpu::headless()?) };
    let reports = validate(gpu.as_ref(), &cases, res, &args.out, args.replot, true)?;
    let mut failed = 0;
    for r in &reports {
        for c in &r.checks {
            println!("{:<13} {:<4} {}: {} (bound {})", r.case.name(), if c.pass { "pass" } else { "FAIL" }, c.what, c.measured, c.bound);
            failed += usize::from(!c.pass);
        }
    }
    println!("report: {}", args.out.join("report.md").display());
    anyhow::ensure!(failed == 0, "{failed} validation checks failed (see {})", args.out.join("report.md").display());
    Ok(())
}

/// The SPHERIC Test 2 measured heights shipped in the repository: (t, H2, H4).
pub(crate) const SPHERIC_MEASURED: &str = include_str!("../../docs/validation/spheric_test2_measured.csv");

/// Parses [`SPHERIC_MEASURED`].
pub(crate) fn spheric_measured() -> Vec<(f64, f64, f64)> {
    SPHERIC_MEASURED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("t_s"))
        .filter_map(|l| {
            let v: Vec<f64> = l.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            (v.len() == 3).then(|| (v[0], v[1], v[2]))
        })
        .collect()
}

/// The SPHERIC Test 2 measured pressures shipped in the repository: (t, P1–P8 in Pa).
pub(crate) const SPHERIC_PRESSURE_MEASURED: &str = include_str!("../../docs/validation/spheric_test2_pressure_measured.csv");

/// Parses [`SPHERIC_PRESSURE_MEASURED`].
pub(crate) fn spheric_pressure_measured() -> Vec<(f64, [f64; 8])> {
    SPHERIC_PRESSURE_MEASURED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("t_s"))
        .filter_map(|l| {
            let v: Vec<f64> = l.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            (v.len() == 9).then(|| (v[0], std::array::from_fn(|k| v[k + 1])))
        })
        .collect()
}

/// One sensor of a run against the measurement: the peaks (Pa, s), the means over
/// [`SPHERIC_MEAN_WINDOW`] and the rms difference over the run's rows from 0.3 s (the measurement
/// interpolated linearly to each row's time).
#[derive(Clone, Debug)]
pub(crate) struct SensorComparison {
    pub name: String,
    pub peak: (f64, f64),
    pub peak_measured: (f64, f64),
    pub mean: f64,
    pub mean_measured: f64,
    pub rms: f64,
}

/// The window of the sensors' means (s): after the first impact, while the water runs up and
/// over the obstacle.
pub(crate) const SPHERIC_MEAN_WINDOW: (f64, f64) = (0.5, 1.5);

/// Linear interpolation of `series` (sorted by time) at `t`.
fn interpolate(series: &[(f64, f64)], t: f64) -> Option<f64> {
    let k = series.partition_point(|p| p.0 < t);
    if k == 0 || k == series.len() {
        return None;
    }
    let (a, b) = (series[k - 1], series[k]);
    Some(a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0).max(1e-12))
}

/// Compares `ours` with `measured` (both (t, p) sorted by time), up to the end of `ours`.
pub(crate) fn compare_sensor(name: &str, ours: &[(f64, f64)], measured: &[(f64, f64)]) -> SensorComparison {
    let t_end = ours.last().map_or(0.0, |p| p.0);
    let peak =
        |s: &[(f64, f64)]| s.iter().filter(|p| p.0 <= t_end).fold((f64::NEG_INFINITY, 0.0), |a, p| if p.1 > a.0 { (p.1, p.0) } else { a });
    let mean = |s: &[(f64, f64)]| {
        let w: Vec<f64> = s.iter().filter(|p| p.0 >= SPHERIC_MEAN_WINDOW.0 && p.0 <= SPHERIC_MEAN_WINDOW.1).map(|p| p.1).collect();
        w.iter().sum::<f64>() / w.len().max(1) as f64
    };
    let diffs: Vec<f64> = ours.iter().filter(|p| p.0 >= 0.3).filter_map(|p| interpolate(measured, p.0).map(|m| p.1 - m)).collect();
    let rms = (diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len().max(1) as f64).sqrt();
    SensorComparison {
        name: name.to_string(),
        peak: peak(ours),
        peak_measured: peak(measured),
        mean: mean(ours),
        mean_measured: mean(measured),
        rms,
    }
}

/// Pressure sensors P1–P8 of a run of the SPHERIC scene against the measurement: the figure
/// (P1, P3, P5, P7, as the published comparisons show them) and a table of every sensor. None
/// when the run has no sensors named P1–P8.
pub(crate) fn spheric_pressure_figure(r: &headless::RunResult, out: &Path) -> anyhow::Result<Option<(PathBuf, String)>> {
    let names: Vec<String> = (1..=8).map(|k| format!("P{k}")).collect();
    let Some(cols) = names.iter().map(|n| r.meta.sensors.iter().position(|s| &s.name == n)).collect::<Option<Vec<usize>>>() else {
        return Ok(None);
    };
    if r.sensors.is_empty() {
        return Ok(None);
    }
    let measured = spheric_pressure_measured();
    let series = |k: usize| -> (plot::Curve, plot::Curve) {
        (
            r.sensors.iter().map(|row| (row.time, row.values[cols[k]].pressure as f64)).collect(),
            measured.iter().map(|(t, p)| (*t, p[k])).collect(),
        )
    };
    let mut md = String::from(
        "| sensor | peak (kPa, at s) | measured peak (kPa, at s) | mean 0.5–1.5 s (kPa) | measured mean (kPa) | rms difference from 0.3 s (kPa) |\n|---|---|---|---|---|---|\n",
    );
    for (k, name) in names.iter().enumerate() {
        let (ours, meas) = series(k);
        let c = compare_sensor(name, &ours, &meas);
        md.push_str(&format!(
            "| {} | {:.2} at {:.3} | {:.2} at {:.3} | {:.2} | {:.2} | {:.2} |\n",
            c.name,
            c.peak.0 * 1e-3,
            c.peak.1,
            c.peak_measured.0 * 1e-3,
            c.peak_measured.1,
            c.mean * 1e-3,
            c.mean_measured * 1e-3,
            c.rms * 1e-3
        ));
    }
    let panels: Vec<_> = [0usize, 2, 4, 6]
        .iter()
        .map(|&k| {
            let (ours, meas) = series(k);
            let s = &r.meta.sensors[cols[k]];
            (format!("{}: pressure at ({}, {}, {}) m", names[k], s.at[0], s.at[1], s.at[2]), ours, meas)
        })
        .collect();
    let path = out.join("spheric_test2_pressure.png");
    let label = format!("Rillet, {} fluid particles, s = {} m", r.meta.fluid_particles, r.meta.spacing);
    plot::spheric_pressure(&path, &panels, &label)?;
    std::fs::write(out.join("spheric_test2_pressure.md"), &md).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(Some((path, md)))
}

/// Gauges H2 (x = 2.228 m) and H4 (x = 0.582 m) of a run of the SPHERIC scene against the
/// measurement; the run's point gauges must include them.
pub(crate) fn spheric_figure(run_dir: &Path, out: &Path) -> anyhow::Result<PathBuf> {
    let r = headless::read_run(run_dir)?;
    let find = |x: f32| {
        r.meta
            .point_gauges
            .iter()
            .position(|g| (g[0] - x).abs() < 1e-3 && (g[1] - 0.5).abs() < 1e-3)
            .map(|k| r.meta.gauges.len() + k)
            .with_context(|| format!("{}: no point gauge at x = {x}, z = 0.5 (the SPHERIC scene's H2 and H4)", run_dir.display()))
    };
    let (h2, h4) = (find(2.228)?, find(0.582)?);
    let ours: Vec<(f64, f64, f64)> = r.rows.iter().map(|row| (row.time, row.gauges[h2], row.gauges[h4])).collect();
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join("spheric_test2.png");
    let label = format!("Rillet, {} fluid particles, s = {} m", r.meta.fluid_particles, r.meta.spacing);
    plot::spheric(&path, &ours, &spheric_measured(), &label)?;
    if let Some((pressure, md)) = spheric_pressure_figure(&r, out)? {
        println!("{}\n{md}", pressure.display());
    }
    Ok(path)
}
