//! `rillet bench`: the benchmark case of the design at given particle counts. Warms up, then
//! times steps with GPU timestamps around every pass and reports per-pass milliseconds and
//! particle-steps per second (fluid particles × steps / GPU seconds).

use crate::gpu::Gpu;
use crate::scene::{Aabb, Scene};
use crate::setup;
use crate::sim::layout::CellOrder;
use crate::sim::profiler::{Profile, PASSES};
use crate::sim::{Sim, SimOptions};
use std::io::Write;
use std::time::Instant;

/// The shared benchmark case (1M particles); other counts scale its geometry.
pub const BENCH_SCENE: &str = include_str!("../scenes/bench_1m.ron");

/// Parses "250k", "1m", "4M", "1500000".
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mul) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1e3),
        Some('m') => (&t[..t.len() - 1], 1e6),
        _ => (&t[..], 1.0),
    };
    let v: f64 = num.parse().map_err(|_| format!("`{s}` is not a particle count (examples: 250k, 1m, 4m, 1500000)"))?;
    if !(v > 0.0) || v * mul > 1e9 {
        return Err(format!("`{s}`: particle count must be in (0, 1e9]"));
    }
    Ok((v * mul).round() as u64)
}

/// The benchmark case for about `n` fluid particles: DESIGN.md's 1M (2×2×2 block in a
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
    scene.fluid = vec![Aabb { min: [0.0; 3], max: block }];
    scene
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchResult {
    pub variant: String,
    pub fluid_particles: u32,
    pub boundary_particles: u32,
    pub steps: u64,
    /// Mean GPU milliseconds per step, per pass (in step order); reorder averaged over all steps.
    pub pass_ms: Vec<(String, f64)>,
    /// Mean GPU milliseconds of a whole step (first pass begin to last pass end).
    pub step_ms: f64,
    /// Fluid particles × steps / GPU seconds.
    pub particle_steps_per_s: f64,
    /// Wall-clock milliseconds per step over the timed batches (submit to completion).
    pub wall_ms: f64,
}

pub struct BenchConfig {
    pub warmup: u32,
    pub steps: u32,
    /// Steps per submit (and per timestamp read).
    pub batch: u32,
}

/// Runs one benchmark. `progress` receives (done, total) steps.
pub fn run(gpu: &Gpu, scene: &Scene, options: SimOptions, cfg: &BenchConfig, variant: &str, mut progress: impl FnMut(u32, u32)) -> anyhow::Result<BenchResult> {
    let state = setup::build(scene);
    let mut sim = Sim::new(gpu, &state, options)?;
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
    while timed < cfg.steps {
        let k = cfg.batch.min(cfg.steps - timed);
        let mut enc = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("bench") });
        sim.record_steps(&mut enc, k);
        sim.resolve_profile(&mut enc);
        let t0 = Instant::now();
        gpu.queue.submit([enc.finish()]);
        wait(gpu);
        wall += t0.elapsed().as_secs_f64();
        if let Some(p) = sim.read_profile() {
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
    let d = sim.read_diagnostics();
    anyhow::ensure!(d.non_finite == 0, "{} particles went non-finite during the benchmark", d.non_finite);
    let steps = cfg.steps as u64;
    let wall_ms = wall * 1e3 / steps as f64;
    let step_ms = if timestamps { profile.step_ms() } else { wall_ms };
    let pass_ms = if timestamps {
        PASSES.iter().map(|&l| (l.to_string(), profile.pass_ns.get(l).copied().unwrap_or(0.0) / steps as f64 * 1e-6)).collect()
    } else {
        Vec::new()
    };
    Ok(BenchResult {
        variant: variant.to_string(),
        fluid_particles: state.n_fluid,
        boundary_particles: state.n_boundary(),
        steps,
        pass_ms,
        step_ms,
        particle_steps_per_s: state.n_fluid as f64 / (step_ms * 1e-3),
        wall_ms,
    })
}

fn wait(gpu: &Gpu) {
    gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("GPU wait");
}

/// Table of results, one row per run.
pub fn table(results: &[BenchResult]) -> String {
    let mut s = String::new();
    let mut header = format!("{:<28} {:>10} {:>9}", "variant", "fluid", "boundary");
    for p in PASSES {
        header.push_str(&format!(" {:>13}", p));
    }
    header.push_str(&format!(" {:>9} {:>9} {:>11}\n", "step ms", "wall ms", "M p-steps/s"));
    s.push_str(&header);
    for r in results {
        s.push_str(&format!("{:<28} {:>10} {:>9}", r.variant, r.fluid_particles, r.boundary_particles));
        if r.pass_ms.is_empty() {
            for _ in PASSES {
                s.push_str(&format!(" {:>13}", "n/a"));
            }
        } else {
            for (_, ms) in &r.pass_ms {
                s.push_str(&format!(" {:>13.3}", ms));
            }
        }
        s.push_str(&format!(" {:>9.3} {:>9.3} {:>11.1}\n", r.step_ms, r.wall_ms, r.particle_steps_per_s * 1e-6));
    }
    s
}

/// A progress line on stderr, rewritten in place.
pub fn progress_line(label: &str) -> impl FnMut(u32, u32) + '_ {
    move |done, total| {
        eprint!("\r{label}: step {done}/{total}   ");
        if done == total {
            eprintln!();
        }
        let _ = std::io::stderr().flush();
    }
}

/// Options named on the command line, applied over the scene's.
pub fn variant_name(o: &SimOptions) -> String {
    format!(
        "r{} {} c{:.2}h{} wg{}{}",
        o.reorder_interval,
        if o.order == CellOrder::Morton { "morton" } else { "linear" },
        o.cell_size,
        if o.diagnostics { " diag" } else { "" },
        o.workgroup_size,
        if o.shader_checks { " checked" } else { "" }
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
    let state = setup::build(scene);
    let sim = Sim::new(gpu, &state, options.clone())?;
    let (_, ms) = sim.all_pairs_density(repeats);
    let grid = run(gpu, scene, options, &BenchConfig { warmup: 5, steps: 20, batch: 10 }, "grid", |_, _| {})?;
    let density = grid.pass_ms.iter().find(|(l, _)| l == "sph.density").map(|p| p.1).unwrap_or(f64::NAN);
    Ok(AllPairsResult { particles: state.n_particles(), all_pairs_density_ms: ms.unwrap_or(f64::NAN), grid_density_ms: density, grid_step_ms: grid.step_ms })
}
