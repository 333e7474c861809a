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
    Ok(path)
}
