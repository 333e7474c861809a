//! `rillet bench`: the benchmark case of the design at given particle counts. Warms up, then
//! times steps with GPU timestamps around every pass and reports per-pass milliseconds and
//! particle-steps per second (fluid particles × steps / GPU seconds).

use crate::gpu::Gpu;
use crate::scene::setup;
use crate::scene::{Aabb, Scene};
use crate::sim::layout::CellOrder;
use crate::sim::profiler::{PASSES, Profile};
use crate::sim::shader;
use crate::sim::{Sim, SimOptions};
use std::io::Write;
use std::time::Instant;

/// The shared benchmark case (1M particles); other counts scale its geometry.
pub(crate) const BENCH_SCENE: &str = include_str!("../scenes/bench_1m.ron");

/// Parses "250k", "1m", "4M", "1500000".
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mul) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1e3),
        Some('m') => (&t[..t.len() - 1], 1e6),
        _ => (&t[..], 1.0),
    };
    let v: f64 = num.parse().map_err(|_| format!("`{s}` is not a particle count (examples: 250k, 1m, 4m, 1500000)"))?;
    let n = v * mul;
    if !(1.0..=1e9).contains(&n) || n.fract() != 0.0 {
        return Err(format!("`{s}` is out of range: allowed a whole number of particles in [1, 1e9]"));
    }
    Ok((v * mul).round() as u64)
}

/// The benchmark case for about `n` fluid particles: docs/DESIGN.md's 1M (2×2×2 block in a
/// 6×3×2.2 box) and 4M (4×2×4 block in 8×3×4.2) cases, exactly; other counts scale the 1M
/// geometry (below 4M) or widen the 4M one (above).
pub fn bench_scene(n: u64) -> Scene {
    let mut scene = Scene::parse(BENCH_SCENE, "scenes/bench_1m.ron").expect("embedded benchmark scene is valid");
    let s = scene.physics.spacing;
    let snap = |x: f64| ((x / s as f64).round().max(1.0) as f32) * s;
    let (block, domain) = if n < 4_000_000 {
        let k = (n as f64 / 1e6).cbrt();
        let b = snap(2.0 * k);
        (([b, b, b]), [3.0 * b, 1.5 * b, 1.1 * b])
    } else {
        let k = (n as f64 / 4e6).sqrt();
        let b = snap(4.0 * k);
        ([b, 2.0, b], [2.0 * b, 3.0, b + 0.2])
    };
    scene.name = format!("benchmark, {} fluid particles requested", n);
    scene.domain = Aabb { min: [0.0; 3], max: domain };
    scene.fluid = vec![crate::scene::Fluid::from_block(Aabb { min: [0.0; 3], max: block })];
    scene
}

/// Bytes a streaming pass moves per step (reads + writes), from its memory pattern: None for
/// the neighbour loops, whose reads are served mostly by caches.
pub(crate) fn pass_bytes(pass: &str, fluid: u64, boundary: u64, cells: u64) -> Option<u64> {
    let n = fluid + boundary;
    let bytes = [
        // read pos_mass, write cell_of and rank (the counter atomics not counted)
        (shader::COUNT, n * (16 + 4 + 4)),
        // level 0 dominates: reduce reads the counts, down reads them again and writes cell_start
        (shader::SCAN, cells * 12),
        // read cell_of, rank and cell_start[cell], write sorted
        (shader::SCATTER, n * 16),
        // read sorted, gather pos_mass, vel_rho, id, write them
        (shader::REORDER, n * (4 + 2 * (16 + 16 + 4))),
        // fluid: read pos_mass, vel_rho, acc, write pos_mass, vel_rho; boundary: read pos_mass
        (shader::INTEGRATE, fluid * 80 + boundary * 16),
    ];
    bytes.iter().find(|(src, _)| src.label == pass).map(|p| p.1)
}

/// The streaming passes, whose bandwidth the benchmark reports.
pub(crate) const STREAMING: [shader::ShaderSource; 5] = [shader::COUNT, shader::SCAN, shader::SCATTER, shader::REORDER, shader::INTEGRATE];

pub use crate::sim::instruments::copy_bandwidth;

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchResult {
    pub variant: String,
    pub fluid_particles: u32,
    pub boundary_particles: u32,
    /// Length of the cell index range.
    pub cells: u32,
    /// Where the step kept its neighbour lists: "one binding", "two bindings" or "none".
    pub lists: &'static str,
    pub reorder_interval: u32,
    pub steps: u64,
    /// Mean GPU milliseconds per step of each pass the step recorded (in step order); reorder
    /// averaged over all steps.
    pub pass_ms: Vec<(String, f64)>,
    /// Mean GPU milliseconds of a whole step (first pass begin to last pass end).
    pub step_ms: f64,
    /// Fluid particles × steps / GPU seconds.
    pub particle_steps_per_s: f64,
    /// Wall-clock milliseconds per step over the timed batches (submit to completion).
    pub wall_ms: f64,
    /// Timed steps that built the grid and the neighbour lists (all of them unless the lists
    /// are kept between builds: a list skin).
    pub built_steps: u64,
    /// Of those, builds because a list of the build before overflowed.
    pub overflow_builds: u64,
}

#[derive(Clone, Copy, Debug)]
pub struct BenchConfig {
    pub warmup: u32,
    pub steps: u32,
    /// Steps per submit (and per timestamp read).
    pub batch: u32,
    /// The neighbour lists over two bindings even where one holds them
    /// ([`crate::sim::ListLayout::Split`]).
    pub split_lists: bool,
}

/// Runs one benchmark. `progress` receives (done, total) steps.
pub fn run(
    gpu: &Gpu,
    scene: &Scene,
    options: SimOptions,
    cfg: &BenchConfig,
    variant: &str,
    mut progress: impl FnMut(u32, u32),
) -> anyhow::Result<BenchResult> {
    let state = setup::build_checked(scene, gpu)?;
    let mut sim = Sim::with_lists(gpu, &state, options, cfg.split_lists)?;
    let total = cfg.warmup + cfg.steps;
    let mut done = 0;
    while done < cfg.warmup {
        let k = cfg.batch.min(cfg.warmup - done);
        sim.run(k);
        wait(gpu);
        done += k;
        progress(done, total);
    }
    let timestamps = gpu.has_timestamps();
    if timestamps {
        sim.enable_profiling(cfg.batch);
    }
    let mut profile = Profile::default();
    let mut wall = 0.0;
    let mut timed = 0;
    let keep_before = sim.keep_words()?;
    while timed < cfg.steps {
        let k = cfg.batch.min(cfg.steps - timed);
        let mut enc = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench") });
        sim.record_steps(&mut enc, k);
        sim.resolve_profile(&mut enc);
        let t0 = Instant::now();
        gpu.queue.submit([enc.finish()]);
        wait(gpu);
        wall += t0.elapsed().as_secs_f64();
        if let Some(p) = sim.read_profile()? {
            anyhow::ensure!(p.dropped == 0, "timestamp query set too small");
            for (label, ns) in p.pass_ns {
                *profile.pass_ns.entry(label).or_default() += ns;
            }
            profile.step_ns += p.step_ns;
            profile.steps += p.steps;
        }
        timed += k;
        done += k;
        progress(done, total);
    }
    let d = sim.read_diagnostics()?;
    anyhow::ensure!(d.non_finite == 0, "{} particles went non-finite during the benchmark", d.non_finite);
    let steps = cfg.steps as u64;
    let keep_after = sim.keep_words()?;
    let timed_count = |word: u32| (keep_after[word as usize] - keep_before[word as usize]) as u64;
    let built_steps = if sim.keeps_lists() { timed_count(crate::sim::keep::BUILDS) } else { steps };
    let overflow_builds = timed_count(crate::sim::keep::OVERFLOWED);
    let wall_ms = wall * 1e3 / steps as f64;
    let step_ms = if timestamps { profile.step_ms() } else { wall_ms };
    let pass_ms = if timestamps {
        // the passes the step recorded (a WCSPH step has no DFSPH passes, a fixed dt no
        // sim.time_step on most steps but still some)
        PASSES.iter().filter_map(|&l| profile.pass_ns.get(l).map(|ns| (l.to_string(), ns / steps as f64 * 1e-6))).collect()
    } else {
        Vec::new()
    };
    Ok(BenchResult {
        variant: variant.to_string(),
        fluid_particles: state.n_fluid,
        boundary_particles: state.n_boundary(),
        cells: sim.grid().num_cells,
        lists: match sim.list_layout() {
            crate::sim::ListLayout::One => "one binding",
            crate::sim::ListLayout::Split => "two bindings",
            crate::sim::ListLayout::Off => "none",
        },
        // with the lists kept every step reorders or copies the particles
        reorder_interval: if sim.keeps_lists() { 1 } else { sim.options().reorder_interval },
        steps,
        pass_ms,
        step_ms,
        particle_steps_per_s: state.n_fluid as f64 / (step_ms * 1e-3),
        wall_ms,
        built_steps,
        overflow_builds,
    })
}

fn wait(gpu: &Gpu) {
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("GPU wait");
}

/// Table of results: a row per pass the runs recorded, a column per run (numbered, the runs
/// listed above the table), then the step's GPU time, its wall time and the throughput.
/// A column of the table: its heading and how a result fills it.
type Column = (&'static str, fn(&BenchResult) -> String);

pub fn table(results: &[BenchResult]) -> String {
    let mut s = String::new();
    for (k, r) in results.iter().enumerate() {
        s.push_str(&format!(
            "[{}] {}: {} fluid + {} boundary particles, neighbour lists: {}\n",
            k + 1,
            r.variant,
            r.fluid_particles,
            r.boundary_particles,
            r.lists
        ));
    }
    let label_width = 22;
    s.push_str(&format!("{:<label_width$}", "ms per step"));
    for k in 0..results.len() {
        s.push_str(&format!(" {:>10}", format!("[{}]", k + 1)));
    }
    s.push('\n');
    let recorded = |label: &str| results.iter().any(|r| r.pass_ms.iter().any(|(l, _)| l == label));
    for label in PASSES.iter().filter(|l| recorded(l)) {
        s.push_str(&format!("{label:<label_width$}"));
        for r in results {
            match r.pass_ms.iter().find(|(l, _)| l == label) {
                Some((_, ms)) => s.push_str(&format!(" {ms:>10.3}")),
                None => s.push_str(&format!(" {:>10}", "-")),
            }
        }
        s.push('\n');
    }
    if results.iter().all(|r| r.pass_ms.is_empty()) {
        s.push_str("(per-pass times n/a: no timestamp queries on this adapter)\n");
    }
    let rows: [Column; 5] = [
        ("steps that built", |r| format!("{}/{}", r.built_steps, r.steps)),
        ("of them, overflows", |r| format!("{}", r.overflow_builds)),
        ("step (GPU)", |r| format!("{:.3}", r.step_ms)),
        ("step (wall)", |r| format!("{:.3}", r.wall_ms)),
        ("M particle-steps/s", |r| format!("{:.1}", r.particle_steps_per_s * 1e-6)),
    ];
    for (label, value) in rows {
        s.push_str(&format!("{label:<label_width$}"));
        for r in results {
            s.push_str(&format!(" {:>10}", value(r)));
        }
        s.push('\n');
    }
    s
}

/// Bytes moved and bandwidth of the streaming passes, against the copy kernel's bandwidth.
pub fn bandwidth_table(results: &[BenchResult], copy: Option<f64>) -> String {
    let mut s = String::new();
    match copy {
        Some(bw) => s.push_str(&format!("copy kernel: {:.0} GB/s (read + write); streaming passes in GB/s and % of it:\n", bw * 1e-9)),
        None => return "streaming-pass bandwidth: n/a (no timestamp queries)\n".into(),
    }
    let passes = STREAMING.map(|s| s.label);
    s.push_str(&format!("{:<36}", "variant"));
    for p in passes {
        s.push_str(&format!(" {:>16}", p));
    }
    s.push('\n');
    let bw = copy.unwrap_or(f64::NAN);
    for r in results {
        s.push_str(&format!("{:<36}", r.variant));
        for p in passes {
            let ms = r.pass_ms.iter().find(|(l, _)| l == p).map(|x| x.1).unwrap_or(0.0);
            let mut bytes = pass_bytes(p, r.fluid_particles as u64, r.boundary_particles as u64, r.cells as u64).unwrap_or(0) as f64;
            if p == shader::REORDER.label {
                // pass_ms is averaged over all steps; the reorder ran on one step in `interval`
                bytes /= r.reorder_interval.max(1) as f64;
            }
            if [shader::COUNT.label, shader::SCAN.label, shader::SCATTER.label].contains(&p) {
                // the grid is built on the steps that built only
                bytes *= r.built_steps as f64 / r.steps.max(1) as f64;
            }
            if ms > 0.0 {
                let gbs = bytes / (ms * 1e-3) * 1e-9;
                s.push_str(&format!(" {:>9.0} ({:>3.0}%)", gbs, gbs * 1e9 / bw * 100.0));
            } else {
                s.push_str(&format!(" {:>16}", "-"));
            }
        }
        s.push('\n');
    }
    s
}

/// A progress bar on stderr for [`run`]'s (done, total) steps ([`crate::progress::Progress`]).
pub fn progress_line(label: &str) -> impl FnMut(u32, u32) + '_ {
    let mut bar: Option<crate::progress::Progress> = None;
    move |done, total| {
        let b = bar.get_or_insert_with(|| crate::progress::Progress::new(label, total as u64, true));
        b.update(done as u64, f64::NAN);
        if done == total {
            b.finish();
        }
    }
}

/// Options named on the command line, applied over the scene's.
pub fn variant_name(o: &SimOptions) -> String {
    format!(
        "r{} {} c{:.2}h{} wg{}{}{}{}",
        o.reorder_interval,
        if o.order == CellOrder::Morton { "morton" } else { "linear" },
        o.cell_size,
        if o.diagnostics { " diag" } else { "" },
        o.workgroup_size,
        if o.shader_checks { " checked" } else { "" },
        if o.deterministic { " det" } else { "" },
        if o.list_skin > 0.0 { format!(" skin{:.2}", o.list_skin) } else { String::new() }
    )
}

/// The all-pairs density baseline against the grid at the same particle count.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AllPairsResult {
    pub particles: u32,
    /// GPU ms of one all-pairs density pass (O(N²), workgroup tiles, no grid).
    pub all_pairs_density_ms: f64,
    /// GPU ms of sph.density with the grid, and of the whole grid step (build, reorder, both
    /// neighbour passes, integration), from a run of `steps` steps.
    pub grid_density_ms: f64,
    pub grid_step_ms: f64,
}

pub fn all_pairs(gpu: &Gpu, scene: &Scene, options: SimOptions, repeats: u32) -> anyhow::Result<AllPairsResult> {
    anyhow::ensure!(gpu.has_timestamps(), "the all-pairs comparison needs timestamp queries");
    let state = setup::build_checked(scene, gpu)?;
    let sim = Sim::new(gpu, &state, options.clone())?;
    let (_, ms) = sim.all_pairs_density(repeats)?;
    let grid = run(gpu, scene, options, &BenchConfig { warmup: 5, steps: 20, batch: 10, split_lists: false }, "grid", |_, _| {})?;
    let density = grid.pass_ms.iter().find(|(l, _)| *l == shader::DENSITY.label).map(|p| p.1).unwrap_or(f64::NAN);
    Ok(AllPairsResult {
        particles: state.n_particles(),
        all_pairs_density_ms: ms.unwrap_or(f64::NAN),
        grid_density_ms: density,
        grid_step_ms: grid.step_ms,
    })
}

/// A solver and time-step setting of the realtime benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
pub enum Realtime {
    /// WCSPH at the benchmark case's fixed dt.
    WcsphFixed,
    /// WCSPH with an adaptive dt.
    WcsphAdaptive,
    /// DFSPH with an adaptive dt.
    DfsphAdaptive,
}

/// The adaptive range of the realtime benchmark: dt in [1e-5, 5e-3] s, CFL 0.4.
pub(crate) const REALTIME_STEP: crate::scene::TimeStep = crate::scene::TimeStep::Adaptive { min: 1e-5, max: 5e-3, cfl: 0.4 };

impl Realtime {
    /// The benchmark scene with this setting (and, for DFSPH, the density tolerance).
    pub fn apply(self, scene: &Scene, tolerance: Option<f32>) -> Scene {
        let mut s = scene.clone();
        match self {
            Realtime::WcsphFixed => {}
            Realtime::WcsphAdaptive => s.physics.time_step = REALTIME_STEP,
            Realtime::DfsphAdaptive => {
                s.physics.time_step = REALTIME_STEP;
                s.physics.solver = crate::scene::Solver::Dfsph;
                if let Some(t) = tolerance {
                    s.physics.dfsph.tolerance = t;
                }
            }
        }
        s
    }
}

/// What a realtime run measured: simulated seconds per wall second over the first `sim_time`
/// simulated seconds, and the density error and iterations each step reached.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RealtimeResult {
    pub variant: String,
    pub fluid_particles: u32,
    pub steps: u64,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    /// Simulated seconds per wall second.
    pub realtime: f64,
    pub dt_min: f64,
    pub dt_mean: f64,
    pub dt_max: f64,
    /// Mean compression over the fluid (`Diagnostics::density_error`), averaged over the steps,
    /// and its largest value in any step.
    pub density_error_mean: f64,
    pub density_error_max: f64,
    /// DFSPH: pressure and divergence iterations per step, mean and most.
    pub pressure_iterations_mean: f64,
    pub pressure_iterations_max: u32,
    pub divergence_iterations_mean: f64,
    pub divergence_iterations_max: u32,
    pub wall_clamps: u32,
}

/// Runs `scene` until `sim_time` simulated seconds, in submits of `batch` steps with one batch
/// always queued behind the one being read; every step's diagnostics are copied into a log that
/// is read per batch (no wait inside a batch). Wall time runs from the first submit to the
/// completion of the batch that reaches `sim_time`.
pub fn realtime(
    gpu: &Gpu,
    scene: &Scene,
    options: SimOptions,
    sim_time: f64,
    batch: u32,
    variant: &str,
    progress: bool,
    mut step_log: Option<&mut dyn Write>,
) -> anyhow::Result<RealtimeResult> {
    use crate::sim::params::Diagnostics;
    let state = setup::build_checked(scene, gpu)?;
    let mut sim = Sim::new(gpu, &state, options)?;
    let word = std::mem::size_of::<Diagnostics>() as u64;
    let logs: Vec<wgpu::Buffer> = (0..2)
        .map(|i| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("bench.realtime.log.{i}")),
                size: batch as u64 * word,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })
        .collect();
    let submit = |sim: &mut Sim, log: &wgpu::Buffer| {
        let mut enc = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench.realtime") });
        for k in 0..batch {
            sim.record_step(&mut enc);
            sim.record_diagnostics_copy(&mut enc, log, k as u64 * word);
        }
        gpu.queue.submit([enc.finish()])
    };
    let mut bar = crate::progress::Progress::new(variant, (sim_time * 1e3).ceil() as u64, progress).counting("ms simulated");
    let mut ahead = crate::ahead::OneAhead::new();
    let t0 = Instant::now();
    ahead.submitted(&gpu.device, submit(&mut sim, &logs[0]))?;
    let mut cur = 0;
    let mut steps = 0u64;
    let (mut dt_min, mut dt_max, mut err_sum, mut err_max) = (f64::MAX, 0.0f64, 0.0, 0.0f64);
    let (mut p_sum, mut p_max, mut d_sum, mut d_max) = (0u64, 0u32, 0u64, 0u32);
    let mut last = Diagnostics::default();
    let wall = loop {
        // queue the next batch, then read this one: waiting for it only, not for the next
        let next = submit(&mut sim, &logs[1 - cur]);
        let slice = logs[cur].slice(..);
        slice.map_async(wgpu::MapMode::Read, |r| r.expect("map the realtime log"));
        ahead.submitted(&gpu.device, next)?;
        let wall = t0.elapsed().as_secs_f64();
        {
            let bytes = slice.get_mapped_range().map_err(|e| anyhow::anyhow!("{variant}: cannot read the step log: {e}"))?;
            for d in bytemuck::cast_slice::<u8, Diagnostics>(&bytes) {
                steps += 1;
                let dt = d.dt as f64;
                dt_min = dt_min.min(dt);
                dt_max = dt_max.max(dt);
                err_sum += d.density_error as f64;
                err_max = err_max.max(d.density_error as f64);
                p_sum += d.pressure_iterations as u64;
                p_max = p_max.max(d.pressure_iterations);
                d_sum += d.divergence_iterations as u64;
                d_max = d_max.max(d.divergence_iterations);
                last = *d;
                if let Some(w) = step_log.as_mut() {
                    writeln!(
                        w,
                        "{variant},{steps},{},{},{},{},{},{},{},{}",
                        d.sim_time(),
                        d.dt,
                        d.max_speed,
                        d.density_error,
                        d.pressure_iterations,
                        d.divergence_iterations,
                        d.solver_error,
                        d.wall_clamps
                    )?;
                }
            }
        }
        logs[cur].unmap();
        anyhow::ensure!(last.non_finite == 0, "{variant}: {} particles went non-finite", last.non_finite);
        bar.update(((last.sim_time() * 1e3) as u64).min((sim_time * 1e3).ceil() as u64), last.sim_time());
        if last.sim_time() >= sim_time {
            break wall;
        }
        cur = 1 - cur;
    };
    ahead.drain(&gpu.device)?;
    bar.finish();
    let n = steps as f64;
    Ok(RealtimeResult {
        variant: variant.to_string(),
        fluid_particles: state.n_fluid,
        steps,
        sim_seconds: last.sim_time(),
        wall_seconds: wall,
        realtime: last.sim_time() / wall,
        dt_min,
        dt_mean: last.sim_time() / n,
        dt_max,
        density_error_mean: err_sum / n,
        density_error_max: err_max,
        pressure_iterations_mean: p_sum as f64 / n,
        pressure_iterations_max: p_max,
        divergence_iterations_mean: d_sum as f64 / n,
        divergence_iterations_max: d_max,
        wall_clamps: last.wall_clamps,
    })
}

/// Header of the per-step log of `rillet bench --realtime --step-log`.
pub const STEP_LOG_HEADER: &str =
    "variant,step,time_s,dt_s,max_speed_m_s,density_error,pressure_iterations,divergence_iterations,solver_error,wall_clamps";

/// Table of realtime results.
pub fn realtime_table(results: &[RealtimeResult]) -> String {
    let mut s = format!(
        "{:<34} {:>9} {:>7} {:>8} {:>8} {:>9} {:>20} {:>9} {:>9} {:>13} {:>13}\n",
        "variant",
        "fluid",
        "steps",
        "sim s",
        "wall s",
        "sim s/s",
        "dt min/mean/max ms",
        "ρ err %",
        "max %",
        "p-iter mean/max",
        "div mean/max"
    );
    for r in results {
        s.push_str(&format!(
            "{:<34} {:>9} {:>7} {:>8.3} {:>8.2} {:>9} {:>20} {:>9.3} {:>9.3} {:>13} {:>13}\n",
            r.variant,
            r.fluid_particles,
            r.steps,
            r.sim_seconds,
            r.wall_seconds,
            crate::progress::significant(r.realtime, 3),
            format!("{:.3}/{:.3}/{:.3}", r.dt_min * 1e3, r.dt_mean * 1e3, r.dt_max * 1e3),
            r.density_error_mean * 100.0,
            r.density_error_max * 100.0,
            format!("{:.1}/{}", r.pressure_iterations_mean, r.pressure_iterations_max),
            format!("{:.1}/{}", r.divergence_iterations_mean, r.divergence_iterations_max),
        ));
    }
    s
}
