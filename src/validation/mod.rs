//! Physical validation: the probes a headless run records ([`crate::probes`]), the analytical and
//! experimental references ([`reference`]), the validation cases with their bounds ([`cases`]),
//! the figures ([`plot`]), and `rillet validate`, which runs the cases and writes the report.
//! `docs/VALIDATION.md` shows the results.

pub mod cases;
pub mod plot;
pub mod reference;

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
