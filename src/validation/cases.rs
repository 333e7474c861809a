//! The validation cases: which scenes run how long, and the checks with their bounds.
//!
//! A case is evaluated from run folders (probes.csv, profile.csv, run.json), so results can be
//! re-evaluated and re-plotted without a GPU (`rillet validate --replot`).

use super::plot;
use super::reference::{self, MARTIN_MOYCE_FIG3, MARTIN_MOYCE_HEIGHT, MARTIN_MOYCE_TABLE};
use crate::headless::{RunConfig, RunResult};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Case {
    Hydrostatic,
    /// The hydrostatic column with DFSPH (docs/VALIDATION.md, "DFSPH").
    HydrostaticDfsph,
    DamBreak,
    Conservation,
}

impl Case {
    pub(crate) const ALL: [Case; 4] = [Case::Hydrostatic, Case::HydrostaticDfsph, Case::DamBreak, Case::Conservation];

    pub fn name(self) -> &'static str {
        match self {
            Case::Hydrostatic => "hydrostatic",
            Case::HydrostaticDfsph => "hydrostatic-dfsph",
            Case::DamBreak => "dam-break",
            Case::Conservation => "conservation",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Case::Hydrostatic => "Hydrostatic column at rest",
            Case::HydrostaticDfsph => "Hydrostatic column at rest, DFSPH",
            Case::DamBreak => "Dam break (Martin & Moyce 1952, n² = 2)",
            Case::Conservation => "Conservation: momentum without gravity, energy with gravity and walls",
        }
    }

    /// The runs the case reads, by folder name.
    pub(crate) fn runs(self) -> &'static [&'static str] {
        match self {
            Case::Hydrostatic => &["hydrostatic"],
            Case::HydrostaticDfsph => &["hydrostatic_dfsph"],
            Case::DamBreak => &["dam_break"],
            Case::Conservation => &["blob", "dam_break"],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Coarse: what CI runs on lavapipe.
    Ci,
    /// The runs behind docs/VALIDATION.md (GPU machine).
    Full,
}

/// One scene run of a case.
#[derive(Clone, Debug)]
pub(crate) struct RunSpec {
    /// Scene path relative to the repository root (for messages and run.json).
    pub scene_path: &'static str,
    /// The scene text, embedded so the binary runs anywhere.
    pub scene_text: &'static str,
    pub config: RunConfig,
}

macro_rules! scene {
    ($file:literal) => {
        (concat!("scenes/validation/", $file), include_str!(concat!("../../scenes/validation/", $file)))
    };
}

/// Initial velocities of the two blobs (m/s).
pub(crate) const BLOB_VELOCITIES: [(usize, [f32; 3]); 2] = [(0, [1.0, 0.0, 0.0]), (1, [-0.5, 0.25, 0.0])];

/// The run of `folder` at `res`.
pub(crate) fn run_spec(folder: &str, res: Resolution) -> RunSpec {
    let ci = res == Resolution::Ci;
    let (_, (scene_path, scene_text), steps, every, gauges, velocities): (&'static str, _, u64, u64, Vec<f32>, Vec<_>) = match folder {
        "hydrostatic" => {
            let scene = if ci { scene!("hydrostatic_ci.ron") } else { scene!("hydrostatic.ron") };
            ("hydrostatic", scene, if ci { 10_000 } else { 30_000 }, if ci { 100 } else { 250 }, vec![0.25], vec![])
        }
        "hydrostatic_dfsph" => {
            let scene = if ci { scene!("hydrostatic_dfsph_ci.ron") } else { scene!("hydrostatic_dfsph.ron") };
            ("hydrostatic_dfsph", scene, 10_000, if ci { 100 } else { 40 }, vec![0.25], vec![])
        }
        "dam_break" => {
            let scene = if ci { scene!("dam_break_ci.ron") } else { scene!("dam_break.ron") };
            // gauges: at the back wall (Martin & Moyce's residual height) and at 2a, 4a
            ("dam_break", scene, if ci { 2_000 } else { 20_000 }, if ci { 10 } else { 100 }, vec![0.0, 0.1143, 0.2286], vec![])
        }
        "blob" => {
            let scene = if ci { scene!("blob_ci.ron") } else { scene!("blob.ron") };
            ("blob", scene, if ci { 1_000 } else { 2_000 }, if ci { 10 } else { 20 }, vec![], BLOB_VELOCITIES.to_vec())
        }
        other => panic!("no validation run named {other}"),
    };
    RunSpec { scene_path, scene_text, config: RunConfig { every, gauges, velocities, ..RunConfig::new(steps) } }
}

/// One bound checked.
#[derive(Clone, Debug)]
pub struct Check {
    pub what: String,
    pub measured: String,
    pub bound: String,
    pub pass: bool,
}

fn check(what: &str, measured: String, bound: &str, pass: bool) -> Check {
    Check { what: what.to_string(), measured, bound: bound.to_string(), pass }
}

/// A case's result: the checks, the markdown section and the plot written.
#[derive(Clone, Debug)]
pub struct CaseReport {
    pub case: Case,
    pub checks: Vec<Check>,
    pub markdown: String,
}

impl CaseReport {
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.pass)
    }
    pub fn failures(&self) -> Vec<String> {
        self.checks.iter().filter(|c| !c.pass).map(|c| format!("{}: {} (bound {})", c.what, c.measured, c.bound)).collect()
    }
}

/// Evaluates `case` from its runs; writes `<case>.png` into `out`.
pub(crate) fn evaluate(case: Case, runs: &BTreeMap<String, RunResult>, out: &Path) -> anyhow::Result<CaseReport> {
    let get = |name: &str| runs.get(name).ok_or_else(|| anyhow::anyhow!("{}: run `{name}` is missing", case.name()));
    match case {
        Case::Hydrostatic => hydrostatic(get("hydrostatic")?, out, case),
        Case::HydrostaticDfsph => hydrostatic(get("hydrostatic_dfsph")?, out, case),
        Case::DamBreak => dam_break(get("dam_break")?, out),
        Case::Conservation => conservation(get("blob")?, get("dam_break")?, out),
    }
}

/// The line every case section starts with: what ran, where.
pub(crate) fn run_line(r: &RunResult) -> String {
    let m = &r.meta;
    format!(
        "`{}`: {} fluid + {} boundary particles, spacing {} m (h = {} m), dt = {} s, speed of sound c = {:.2} m/s (B = {:.4e} Pa), α = {}, {} steps ({:.4} s simulated), probes every {} steps; {} on {}, {:.1} s wall ({:.2} ms/step), rillet {}.",
        m.scene,
        m.fluid_particles,
        m.boundary_particles,
        m.spacing,
        m.h,
        m.dt,
        m.sound_speed,
        m.stiffness,
        m.viscosity,
        m.steps,
        m.steps as f64 * m.dt as f64,
        m.every,
        m.date,
        m.adapter,
        m.wall_seconds,
        m.ms_per_step,
        m.rillet_version
    )
}

fn checks_table(checks: &[Check]) -> String {
    let mut s = String::from("| check | measured | bound | result |\n|---|---|---|---|\n");
    for c in checks {
        let _ = writeln!(s, "| {} | {} | {} | {} |", c.what, c.measured, c.bound, if c.pass { "pass" } else { "**FAIL**" });
    }
    s
}

fn g_of(r: &RunResult) -> f64 {
    let g = r.meta.gravity;
    ((g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) as f64).sqrt()
}

// ----- hydrostatic column -----

/// Bounds of the hydrostatic case.
pub(crate) const HYDRO_DENSITY_BOUND: f64 = 0.01;
pub(crate) const HYDRO_PRESSURE_BOUND: f64 = 0.02;
/// Mean kinetic energy of the last tenth of the run, as a fraction of the largest seen.
pub(crate) const HYDRO_KE_BOUND: f64 = 0.1;
pub(crate) const HYDRO_MIN_STEPS: u64 = 10_000;

/// The hydrostatic checks of `r`, a run of [`Case::Hydrostatic`] or [`Case::HydrostaticDfsph`]
/// (the same geometry and bounds; the figure is named after the run).
fn hydrostatic(r: &RunResult, out: &Path, case: Case) -> anyhow::Result<CaseReport> {
    let m = &r.meta;
    let rho0 = m.rest_density as f64;
    let g = g_of(r);
    let block = m.fluid_blocks.first().ok_or_else(|| anyhow::anyhow!("hydrostatic: no fluid block"))?;
    // H: the height of the water's weight, mass / (ρ0 · floor area), which is the initial height
    // (the column fills the floor): the pressure at the floor is its weight per area whatever the
    // shape of the surface layer, and the column's compression (≈ g·H²/(2c²)) changes the weight
    // above a layer by less than 0.3 %.
    let surface = (block.1[1] - m.domain_min[1]) as f64;
    let t_end = r.rows.last().map(|x| x.time).unwrap_or(0.0);
    let settled: Vec<_> = r.rows.iter().filter(|x| x.time >= 0.5 * t_end).collect();
    let dens_int = settled.iter().map(|x| x.max_density_error_interior).fold(0.0, f64::max);
    let dens_all = settled.iter().map(|x| x.max_density_error).fold(0.0, f64::max);
    let n = r.rows.len();
    let tail = &r.rows[n - (n / 10).max(1)..];
    let ke_tail = tail.iter().map(|x| x.kinetic).sum::<f64>() / tail.len() as f64;
    let (ke_max_i, ke_max) = r.rows.iter().enumerate().map(|(i, x)| (i, x.kinetic)).fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    let last = r.rows.last().ok_or_else(|| anyhow::anyhow!("hydrostatic: no probes"))?;

    // pressure profile: bins entirely deeper than h below the surface
    let p_bottom = rho0 * g * surface;
    let mut rows = Vec::new();
    let (mut worst_rel, mut worst_abs) = (0.0f64, 0.0f64);
    for b in r.profile.iter().filter(|b| b.count > 0) {
        let p_ref = reference::hydrostatic_pressure(rho0, g, surface, b.mean_y);
        let interior = b.interior == b.count;
        let rel = if p_ref > 0.0 { (b.mean_pressure - p_ref).abs() / p_ref } else { f64::INFINITY };
        if interior {
            worst_rel = worst_rel.max(rel);
            worst_abs = worst_abs.max((b.mean_pressure - p_ref).abs() / p_bottom);
        }
        rows.push((b.clone(), p_ref, rel, interior));
    }
    let checks = vec![
        check(
            "max density error, particles deeper than h below the surface, second half of the run",
            format!("{:.3} %", 100.0 * dens_int),
            "≤ 1 %",
            dens_int <= HYDRO_DENSITY_BOUND,
        ),
        check(
            "mean pressure per layer vs ρ0·g·(H − y), layers deeper than h: largest abs. difference / ρ0·g·H",
            format!("{:.2} % (relative to the local ρ0·g·(H − y): {:.2} %)", 100.0 * worst_abs, 100.0 * worst_rel),
            "≤ 2 %",
            worst_abs <= HYDRO_PRESSURE_BOUND,
        ),
        check(
            "kinetic energy decaying: mean of the last tenth / largest",
            format!(
                "{:.3} J / {:.3} J (t = {:.2} s) = {:.3}",
                ke_tail,
                ke_max,
                r.rows[ke_max_i].time,
                if ke_max > 0.0 { ke_tail / ke_max } else { 0.0 }
            ),
            "≤ 0.1",
            ke_max == 0.0 || ke_tail <= HYDRO_KE_BOUND * ke_max,
        ),
        check(
            "particles escaped: outside the domain / non-finite / clamped by the domain guard",
            format!("{} / {} / {}", last.outside, last.non_finite, last.wall_clamps),
            "0 / 0 / 0",
            r.rows.iter().all(|x| x.outside == 0) && last.non_finite == 0 && last.wall_clamps == 0,
        ),
        check("steps", format!("{}", m.steps), "≥ 10 000", m.steps >= HYDRO_MIN_STEPS),
    ];
    let mut checks = checks;
    let sensors = sensor_means(r, surface, rho0 * g);
    let deep: Vec<_> = sensors.iter().filter(|s| s.depth >= m.h as f64).collect();
    if !deep.is_empty() {
        let worst = deep.iter().map(|s| s.rel()).fold(0.0, f64::max);
        let name = deep.iter().find(|s| s.rel() == worst).map_or("", |s| s.name.as_str());
        checks.push(check(
            "pressure sensors deeper than h, mean of the second half vs ρ0·g·(H − y): largest difference / the local ρ0·g·(H − y)",
            format!("{:.2} % ({name})", 100.0 * worst),
            "≤ 2 %",
            worst <= HYDRO_PRESSURE_BOUND,
        ));
    }

    let mut md = String::new();
    let _ = writeln!(md, "{}\n", run_line(r));
    let _ = writeln!(
        md,
        "H = {surface:.4} m: the height of the water's weight, mass / (ρ0 · floor area) = the initial column height; the settled free surface (mean over the h × h columns of the highest particle centre + s/2, last {} probes) lies at {:.4} m. Density error over all particles (surface included), second half: max {:.2} %. Pressure: {}, averaged per layer of one spacing over the same probes.\n",
        m.profile_snapshots,
        m.surface_height,
        100.0 * dens_all,
        match m.solver {
            crate::scene::Solver::Dfsph => "the one the DFSPH solves applied in the step, `ρ² (K_pressure/dt² + K_divergence/dt)`",
            crate::scene::Solver::Wcsph => "Tait `p = B((ρ/ρ0)^7 − 1)`, negative clamped",
        }
    );
    md.push_str(&checks_table(&checks));
    md.push_str("\n| layer y (m) | particles | ρ/ρ0 − 1 (mean) | p Rillet (Pa) | ρ0·g·(H − y) (Pa) | difference | deeper than h |\n|---|---|---|---|---|---|---|\n");
    let stride = (rows.len() / 12).max(1);
    for (i, (b, p_ref, rel, interior)) in rows.iter().enumerate() {
        if i % stride == 0 || i + 1 == rows.len() {
            let _ = writeln!(
                md,
                "| {:.3} | {} | {:+.3} % | {:.0} | {:.0} | {} | {} |",
                b.mean_y,
                b.count / m.profile_snapshots.max(1) as u64,
                100.0 * (b.mean_density / rho0 - 1.0),
                b.mean_pressure,
                p_ref,
                if rel.is_finite() { format!("{:+.2} %", 100.0 * (b.mean_pressure - p_ref) / p_ref) } else { "—".into() },
                if *interior { "yes" } else { "no" }
            );
        }
    }
    if !sensors.is_empty() {
        md.push_str("\nPressure sensors (`sensors.csv`; Shepard-corrected interpolation of the fluid's pressure, docs/PHYSICS.md \"Sensors\"), mean over the second half of the run:\n\n| sensor | at (m) | depth H − y (m) | fill | p measured (Pa) | ρ0·g·(H − y) (Pa) | difference |\n|---|---|---|---|---|---|---|\n");
        for s in &sensors {
            let _ = writeln!(
                md,
                "| {} | ({}, {}, {}) | {:.3} | {:.3} | {:.1} | {:.1} | {:+.2} % |",
                s.name,
                s.at[0],
                s.at[1],
                s.at[2],
                s.depth,
                s.fill,
                s.mean,
                s.expected,
                100.0 * (s.mean - s.expected) / s.expected
            );
        }
    }
    let name = case.runs()[0];
    let png = out.join(format!("{name}.png"));
    plot::hydrostatic(&png, r, surface, &rows.iter().map(|(b, p, _, int)| (b.mean_y, b.mean_pressure, *p, *int)).collect::<Vec<_>>())?;
    let _ = writeln!(md, "\n![hydrostatic column]({name}.png)");
    Ok(CaseReport { case, checks, markdown: md })
}

/// A pressure sensor's mean over the second half of a hydrostatic run, against ρ0·g·(H − y).
pub(crate) struct SensorMean {
    pub name: String,
    pub at: [f32; 3],
    pub depth: f64,
    pub fill: f64,
    pub mean: f64,
    pub expected: f64,
}

impl SensorMean {
    /// |measured − expected| / expected.
    fn rel(&self) -> f64 {
        if self.expected > 0.0 { (self.mean - self.expected).abs() / self.expected } else { f64::INFINITY }
    }
}

/// Each sensor of `r` (wet ones only: a sensor above the water has nothing to compare), its mean
/// over the rows of the second half of the run, against `rho_g`·(H − y).
fn sensor_means(r: &RunResult, surface: f64, rho_g: f64) -> Vec<SensorMean> {
    let t_end = r.sensors.last().map_or(0.0, |x| x.time);
    let late: Vec<_> = r.sensors.iter().filter(|x| x.time >= 0.5 * t_end).collect();
    if late.is_empty() {
        return vec![];
    }
    let y0 = r.meta.domain_min[1] as f64;
    r.meta
        .sensors
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let mean = |f: &dyn Fn(&crate::sim::sensors::SensorValue) -> f32| {
                late.iter().map(|x| f(&x.values[k]) as f64).sum::<f64>() / late.len() as f64
            };
            let depth = surface - (s.at[1] as f64 - y0);
            SensorMean {
                name: s.name.clone(),
                at: s.at,
                depth,
                fill: mean(&|v| v.fill),
                mean: mean(&|v| v.pressure),
                expected: rho_g * depth,
            }
        })
        .filter(|s| s.depth > 0.0)
        .collect()
}

// ----- dam break -----

/// Times (Martin & Moyce's T) where CI checks the front, and the band around the experiment.
pub(crate) const DAM_CHECK_TIMES: [f64; 3] = [1.0, 2.0, 3.0];
pub(crate) const DAM_BAND: f64 = 0.15;

/// Points (x, y) of a curve.
pub(crate) type Series = Vec<(f64, f64)>;

/// (T, Z) of a run, (τ, H/(n²a)) of its first gauge, the column width a and n².
pub(crate) fn dam_series(r: &RunResult) -> (Series, Series, f64, f64) {
    let m = &r.meta;
    let g = g_of(r);
    let b = m.fluid_blocks[0];
    let a = (b.1[0] - b.0[0]) as f64;
    let n2 = (b.1[1] - b.0[1]) as f64 / a;
    let x0 = m.domain_min[0] as f64;
    let front = r.rows.iter().map(|x| (reference::mm_time(x.time, a, n2, g), (x.front - x0) / a)).collect();
    let height = r.rows.iter().filter(|x| !x.gauges.is_empty()).map(|x| (x.time * (g / a).sqrt(), x.gauges[0] / (n2 * a))).collect();
    (front, height, a, n2)
}

fn dam_break(r: &RunResult, out: &Path) -> anyhow::Result<CaseReport> {
    let (front, height, a, n2) = dam_series(r);
    let table: Vec<(f64, f64)> = MARTIN_MOYCE_TABLE.to_vec();
    let mut checks = Vec::new();
    for &t in &DAM_CHECK_TIMES {
        let z_exp = reference::interpolate(&table, t).expect("check time inside the table");
        match reference::interpolate(&front, t) {
            Some(z) => checks.push(check(
                &format!("front at T = {t}: Rillet vs experiment (table)"),
                format!("Z = {z:.3} vs {z_exp:.3} ({:+.1} %)", 100.0 * (z / z_exp - 1.0)),
                "within ±15 %",
                (z / z_exp - 1.0).abs() <= DAM_BAND,
            )),
            None => checks.push(check(&format!("front at T = {t}"), "not reached by the run".into(), "within ±15 %", false)),
        }
    }
    let slower = front.iter().filter(|(t, _)| *t >= 0.5).all(|&(t, z)| z < reference::ritter_z(t));
    checks.push(check(
        "front slower than Ritter's Z = 1 + 2T for T ≥ 0.5",
        if slower { "yes".into() } else { "no".into() },
        "always",
        slower,
    ));

    let mut md = String::new();
    let _ = writeln!(md, "{}\n", run_line(r));
    let _ = writeln!(
        md,
        "Column a = {a:.5} m wide, n² = {n2:.2} (height {:.4} m). T = n·t·sqrt(g/a), Z = front/a; the front is the right edge of the bulk (largest x of the particles connected to the column by bins of width h, plus half a spacing).\n",
        n2 * a
    );
    md.push_str(&checks_table(&checks));
    md.push_str("\n| T | Z experiment | source | Z Rillet | Rillet vs experiment | Z Ritter |\n|---|---|---|---|---|---|\n");
    let mut points: Vec<(f64, f64, &str)> = MARTIN_MOYCE_TABLE.iter().map(|&(t, z)| (t, z, "table")).collect();
    points.extend(MARTIN_MOYCE_FIG3.iter().filter(|p| p.0 > 3.4).map(|&(t, z)| (t, z, "Fig. 3")));
    let mut errs = Vec::new();
    for (t, z_exp, src) in points {
        let z = reference::interpolate(&front, t);
        if let Some(z) = z {
            errs.push((z / z_exp - 1.0).abs());
        }
        let _ = writeln!(
            md,
            "| {t:.2} | {z_exp:.2} | {src} | {} | {} | {:.2} |",
            z.map(|z| format!("{z:.3}")).unwrap_or("—".into()),
            z.map(|z| format!("{:+.1} %", 100.0 * (z / z_exp - 1.0))).unwrap_or("—".into()),
            reference::ritter_z(t)
        );
    }
    if !errs.is_empty() {
        let mean = errs.iter().sum::<f64>() / errs.len() as f64;
        let max = errs.iter().cloned().fold(0.0, f64::max);
        let _ = writeln!(
            md,
            "\nOver the {} experimental points reached: mean |Rillet/experiment − 1| = {:.1} %, largest {:.1} %.",
            errs.len(),
            100.0 * mean,
            100.0 * max
        );
    }
    md.push_str("\nResidual column height at the back wall (gauge over 0 ≤ x < h), H/(n²a) against τ = t·sqrt(g/a):\n\n| τ | H experiment | H Rillet |\n|---|---|---|\n");
    for &(tau, h_exp) in MARTIN_MOYCE_HEIGHT.iter() {
        let h = reference::interpolate(&height, tau);
        let _ = writeln!(md, "| {tau:.2} | {h_exp:.2} | {} |", h.map(|h| format!("{h:.3}")).unwrap_or("—".into()));
    }
    if let Some(last) = r.rows.last() {
        let _ = writeln!(
            md,
            "\nDomain guard at the end of the run: {} wall clamps (cumulative particle-steps put back onto a face), {} particles outside the domain, {} non-finite.",
            last.wall_clamps, last.outside, last.non_finite
        );
    }
    let png = out.join("dam_break.png");
    plot::dam_break(&png, &front, &height)?;
    let _ = writeln!(md, "\n![dam break](dam_break.png)");
    Ok(CaseReport { case: Case::DamBreak, checks, markdown: md })
}

// ----- conservation -----

/// Largest drift of the total momentum, relative to its initial magnitude.
pub(crate) const MOMENTUM_BOUND: f64 = 1e-5;
/// Largest rise of the kinetic + potential energy above its running minimum, relative to the
/// initial potential energy, may reach the scale of the elastic energy the weakly compressible
/// fluid stores and gives back: a column of height H compressed by its own weight holds
/// E_el/E_pot ≈ g·H/(3c²), and the collapse starts from an uncompressed state, so its acoustic
/// transients exchange up to about g·H/c² (0.5 % for `Pressure::Auto`, c² = 200·g·H).
pub(crate) fn energy_bound(r: &RunResult) -> f64 {
    let g = g_of(r);
    let top = r.meta.fluid_blocks.iter().map(|b| b.1[1]).fold(f32::MIN, f32::max);
    let height = (top - r.meta.domain_min[1]) as f64;
    let c = r.meta.sound_speed as f64;
    g * height / (c * c)
}

/// Largest rise of a series above its running minimum.
pub(crate) fn largest_rise(series: impl IntoIterator<Item = f64>) -> f64 {
    let mut min = f64::INFINITY;
    let mut rise = 0.0f64;
    for e in series {
        min = min.min(e);
        rise = rise.max(e - min);
    }
    rise
}

fn conservation(blob: &RunResult, tank: &RunResult, out: &Path) -> anyhow::Result<CaseReport> {
    let p0 = blob.rows.first().map(|x| x.momentum).unwrap_or([0.0; 3]);
    let p0_norm = (p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]).sqrt();
    let drift: Vec<(f64, [f64; 3])> =
        blob.rows.iter().map(|x| (x.time, [0, 1, 2].map(|a| (x.momentum[a] - p0[a]) / p0_norm.max(1e-30)))).collect();
    let worst = drift.iter().map(|(_, d)| (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()).fold(0.0, f64::max);
    let h = blob.meta.h as f64;
    let min_wall = blob.rows.iter().map(|x| x.min_wall_distance).fold(f64::INFINITY, f64::min);
    let blast = blob.rows.last().ok_or_else(|| anyhow::anyhow!("blob: no probes"))?;
    let max_speed = blob.rows.iter().map(|x| x.max_speed).fold(0.0, f64::max);

    let pe0 = tank.rows.first().map(|x| x.potential).unwrap_or(0.0);
    let rise_mech = largest_rise(tank.rows.iter().map(|x| x.mechanical()));
    let rise_total = largest_rise(tank.rows.iter().map(|x| x.total()));
    let tlast = tank.rows.last().ok_or_else(|| anyhow::anyhow!("dam break: no probes"))?;
    let e_bound = energy_bound(tank);

    let checks = vec![
        check(
            "blobs: total momentum drift ‖P(t) − P(0)‖ / ‖P(0)‖, largest",
            format!("{worst:.2e} over {} steps", blob.meta.steps),
            "≤ 1e-5",
            worst <= MOMENTUM_BOUND,
        ),
        check("blobs: steps", format!("{}", blob.meta.steps), "≥ 1 000", blob.meta.steps >= 1000),
        check(
            "blobs: away from every wall (smallest fluid–wall distance; clamps)",
            format!("{min_wall:.3} m; {} clamps", blast.wall_clamps),
            &format!("> h = {h:.4} m; 0"),
            min_wall > h && blast.wall_clamps == 0 && blast.non_finite == 0,
        ),
        check(
            "dam break: largest rise of kinetic + potential energy, / initial potential energy",
            format!("{:.2e} ({:.3e} J of {:.4e} J)", rise_mech / pe0, rise_mech, pe0),
            &format!("≤ g·H/c² = {e_bound:.1e}"),
            rise_mech <= e_bound * pe0,
        ),
    ];
    let mut md = String::new();
    let _ = writeln!(md, "Momentum: {}\n", run_line(blob));
    let _ = writeln!(
        md,
        "Initial velocities: blob 0 (1, 0, 0) m/s, blob 1 (−0.5, 0.25, 0) m/s; P(0) = ({:.6}, {:.6}, {:.6}) kg·m/s, largest speed during the run {max_speed:.2} m/s.\n",
        p0[0], p0[1], p0[2]
    );
    let _ = writeln!(md, "Energy: {}\n", run_line(tank));
    let _ = writeln!(
        md,
        "Energy is measured from the domain floor. Kinetic + potential + elastic (Σ m·e(ρ), e = ∫p/ρ² dρ of the clamped Tait law: the energy the compressed fluid stores, which the pair forces exchange with the kinetic energy): largest rise {:.2e} of the initial potential energy. At the end of the run: kinetic {:.4e} J, potential {:.4e} J, elastic {:.4e} J (initial potential {:.4e} J).\n",
        rise_total / pe0,
        tlast.kinetic,
        tlast.potential,
        tlast.elastic,
        pe0
    );
    md.push_str(&checks_table(&checks));
    md.push_str("\n| t (s) | (P_x − P_x(0)) / ‖P(0)‖ | (P_y − P_y(0)) / ‖P(0)‖ | (P_z − P_z(0)) / ‖P(0)‖ |\n|---|---|---|---|\n");
    let stride = (drift.len() / 8).max(1);
    for (i, (t, d)) in drift.iter().enumerate() {
        if i % stride == 0 || i + 1 == drift.len() {
            let _ = writeln!(md, "| {t:.3} | {:+.2e} | {:+.2e} | {:+.2e} |", d[0], d[1], d[2]);
        }
    }
    let png = out.join("conservation.png");
    let energy: Vec<(f64, f64, f64)> = tank.rows.iter().map(|x| (x.time, x.mechanical() / pe0, x.total() / pe0)).collect();
    plot::conservation(&png, &drift, &energy)?;
    let _ = writeln!(md, "\n![conservation](conservation.png)");
    Ok(CaseReport { case: Case::Conservation, checks, markdown: md })
}
