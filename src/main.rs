//! `rillet`: the command line.

use anyhow::Context;
use clap::{Parser, Subcommand};
use rillet::app::AppArgs;
use rillet::bench::{self, BenchConfig};
use rillet::gpu::Gpu;
use rillet::headless::RunArgs;
use rillet::scene::SceneError;
use rillet::sim::SimOptions;
use rillet::sim::layout::CellOrder;
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "rillet", version, about = "GPU fluid simulator: SPH (weakly compressible or divergence-free) on wgpu")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(flatten)]
    app: AppArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Benchmark the step on the design's benchmark case.
    Bench(Box<BenchArgs>),
    /// Run a scene headless and write probe time series (CSV).
    Run(RunArgs),
    /// Run the physical validation cases; write CSVs, plots and a report.
    Validate(rillet::validation::ValidateArgs),
    /// Run a scene and draw it offscreen (no window, no display): one PNG per frame.
    Render(rillet::offscreen::RenderArgs),
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Fluid particle counts, comma separated (e.g. 250k,1m,4m). Default: 1m, or 30k on a CPU
    /// adapter (lavapipe), where 1M particles take minutes.
    #[arg(long, value_delimiter = ',')]
    particles: Vec<String>,
    /// Warm-up steps (not timed).
    #[arg(long, default_value_t = 50)]
    warmup: u32,
    /// Timed steps.
    #[arg(long, default_value_t = 200)]
    steps: u32,
    /// Steps per submit.
    #[arg(long, default_value_t = 50)]
    batch: u32,
    /// Reorder intervals to run (step timings and realtime runs), comma separated (0 = never).
    /// Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    reorder: Vec<u32>,
    /// Cell orders to run. Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    order: Vec<CellOrder>,
    /// Cell sizes (multiples of h) to run (step timings and realtime runs). Default: the scene's.
    #[arg(long, value_delimiter = ',', value_parser = cell_size)]
    cell_size: Vec<f32>,
    /// Each cell ordered by particle id (a deterministic step). Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    deterministic: Vec<Switch>,
    /// Grid diagnostics compiled in. Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    diagnostics: Vec<Switch>,
    /// wgpu's runtime bounds checks in the shaders.
    #[arg(long, value_delimiter = ',', default_value = "off")]
    checks: Vec<Switch>,
    /// The neighbour lists over two bindings even where one holds them (as where one cannot:
    /// 16M particles on an H200).
    #[arg(long, value_delimiter = ',', default_value = "off")]
    split_lists: Vec<Switch>,
    /// Workgroup sizes to run. Default: 256.
    #[arg(long, value_delimiter = ',')]
    workgroup: Vec<u32>,
    /// List skins (in h) to run (step timings and realtime runs): the neighbour lists kept
    /// between grid builds until a particle may have moved half the skin (0 = built every
    /// step). Default: the scene's.
    #[arg(long, value_delimiter = ',', value_parser = list_skin)]
    skin: Vec<f32>,
    /// Also time the all-pairs O(N²) density (no grid) at these fluid counts (e.g. 30k),
    /// against the grid's density pass at the same count.
    #[arg(long, value_delimiter = ',')]
    all_pairs: Vec<String>,
    /// Print the results as JSON on stdout instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead of timing steps: run the benchmark dam break for its first `--sim-time` simulated
    /// seconds with these solver and time-step settings and report simulated seconds per wall
    /// second, with the density error and iterations reached (comma separated).
    #[arg(long, value_delimiter = ',')]
    realtime: Vec<bench::Realtime>,
    /// Simulated seconds of a realtime run.
    #[arg(long, default_value_t = 1.0)]
    sim_time: f64,
    /// DFSPH density tolerances of the realtime runs (comma separated). Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    tolerance: Vec<f32>,
    /// DFSPH momentum β of the realtime runs' solves (comma separated, 0–0.8). Default: the
    /// scene's (0).
    #[arg(long, value_delimiter = ',')]
    momentum: Vec<f32>,
    /// Pressure solvers of the step timings (comma separated: wcsph, dfsph; the benchmark case's
    /// fixed dt). Default: the scene's (WCSPH).
    #[arg(long, value_delimiter = ',')]
    solver: Vec<SolverArg>,
    /// The walls' approach viscosity in the step timings (comma separated: on, off; on is the
    /// scene's α_n, off 0). Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    wall_approach: Vec<Switch>,
    /// DFSPH's most iterations per solve (comma separated), for step timings and realtime runs.
    /// Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    max_iterations: Vec<u32>,
    /// Also write every step of the realtime runs (time, dt, fastest speed, density error,
    /// iterations) to this CSV file.
    #[arg(long)]
    step_log: Option<std::path::PathBuf>,
}

/// A pressure solver named on the command line.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SolverArg {
    Wcsph,
    Dfsph,
}

/// A variant that is either compiled in or not.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Switch {
    On,
    Off,
}

impl From<bool> for Switch {
    fn from(on: bool) -> Self {
        if on { Switch::On } else { Switch::Off }
    }
}

/// A list skin within the scene's allowed range.
fn list_skin(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|e| format!("`{s}`: {e}"))?;
    let limit = rillet::scene::limits::LIST_SKIN;
    if limit.contains(v) { Ok(v) } else { Err(format!("{v} is out of range: allowed {}", limit.allowed())) }
}

/// A cell size within the scene's allowed range.
fn cell_size(s: &str) -> Result<f32, String> {
    let v: f32 = s.parse().map_err(|e| format!("`{s}`: {e}"))?;
    let limit = rillet::scene::limits::CELL_SIZE;
    if limit.contains(v) { Ok(v) } else { Err(format!("{v} is out of range: allowed {}", limit.allowed())) }
}

/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` (installed with lavapipe and
/// Mesa's GPU drivers) asks Wayland for the default GPU whenever an application enables
/// Wayland surfaces, which wgpu always does; where `XDG_RUNTIME_DIR` is unset or not a
/// directory (a root shell, a container, an SSH session) libwayland then prints
/// "error: XDG_RUNTIME_DIR is invalid or not set in the environment." twice before anything
/// of ours. No Wayland display can be reached there anyway, so the layer has nothing to pick
/// by: it is switched off the way its manifest offers (`NODEVICE_SELECT=1`), for this process
/// only, unless the user has set that variable either way. wgpu chooses the adapter itself.
fn quiet_device_select_layer() {
    let runtime_dir_ok = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if !runtime_dir_ok && std::env::var_os("NODEVICE_SELECT").is_none() {
        // SAFETY: called first thing in main, before any thread exists that could read the
        // environment at the same time
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var("NODEVICE_SELECT", "1");
        }
    }
}

fn main() -> ExitCode {
    quiet_device_select_layer();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn,rillet::load=info")).init();
    let cli = Cli::parse();
    // SIGINT / SIGTERM: the commands that write files stop the ordinary way, their files
    // written (a second signal ends the process at once); `bench` writes nothing and just ends
    if !matches!(cli.command, Some(Command::Bench(_))) {
        rillet::signals::stop_on_signals();
    }
    let result = match cli.command {
        Some(Command::Bench(args)) => run_bench(*args),
        Some(Command::Run(args)) => rillet::headless::run(args),
        Some(Command::Validate(args)) => rillet::validation::run(args),
        Some(Command::Render(args)) => {
            let overlay = args.panel.then(rillet::app::panel_frame::maker);
            rillet::offscreen::run(args, overlay)
        }
        None => rillet::app::run(cli.app),
    };
    match result {
        Ok(()) if rillet::signals::stop_requested() => {
            eprintln!("interrupted: stopped by a signal after writing what it had");
            ExitCode::from(rillet::signals::exit_code())
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(stopped) = e.downcast_ref::<rillet::headless::Stopped>() {
                eprintln!("error: {stopped}");
                return ExitCode::from(stopped.exit_code());
            }
            if let Some(se) = e.downcast_ref::<SceneError>() {
                eprintln!("error: {se}");
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

fn run_realtime(gpu: &Gpu, a: &BenchArgs) -> anyhow::Result<()> {
    anyhow::ensure!(a.sim_time > 0.0 && a.sim_time.is_finite(), "--sim-time {} is out of range: allowed (0, inf) s", a.sim_time);
    let limit = rillet::scene::limits::DFSPH_TOLERANCE;
    for &t in &a.tolerance {
        anyhow::ensure!(limit.contains(t), "--tolerance {t} is out of range: allowed {}", limit.allowed());
    }
    let tolerances: Vec<Option<f32>> = if a.tolerance.is_empty() { vec![None] } else { a.tolerance.iter().map(|&t| Some(t)).collect() };
    let limit = rillet::scene::limits::DFSPH_MOMENTUM;
    for &b in &a.momentum {
        anyhow::ensure!(limit.contains(b), "--momentum {b} is out of range: allowed {}", limit.allowed());
    }
    let momenta: Vec<Option<f32>> = if a.momentum.is_empty() { vec![None] } else { a.momentum.iter().map(|&b| Some(b)).collect() };
    let mut log = match &a.step_log {
        Some(path) => {
            let f = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
            let mut w = std::io::BufWriter::new(f);
            writeln!(w, "{}", bench::STEP_LOG_HEADER)?;
            Some(w)
        }
        None => None,
    };
    let mut results = Vec::new();
    for count in &a.particles {
        let n = bench::parse_count(count).map_err(anyhow::Error::msg)?;
        let base = bench::bench_scene(n);
        for &setting in &a.realtime {
            let dfsph = setting == bench::Realtime::DfsphAdaptive;
            let tols = if dfsph { tolerances.clone() } else { vec![None] };
            let caps: Vec<Option<u32>> =
                if dfsph && !a.max_iterations.is_empty() { a.max_iterations.iter().map(|&m| Some(m)).collect() } else { vec![None] };
            let betas = if dfsph { momenta.clone() } else { vec![None] };
            let mut combos = Vec::new();
            for &t in &tols {
                for &c in &caps {
                    combos.extend(betas.iter().map(|&b| (t, c, b)));
                }
            }
            for (tol, cap, beta) in combos {
                let mut scene = setting.apply(&base, tol);
                if let Some(m) = cap {
                    scene.physics.dfsph.max_iterations = m;
                }
                if let Some(b) = beta {
                    scene.physics.dfsph.momentum = b;
                }
                scene.validate("benchmark scene")?;
                let name = clap::ValueEnum::to_possible_value(&setting).map(|v| v.get_name().to_string()).unwrap_or_default();
                let mut variant = format!("{count} {name}");
                if let Some(t) = tol {
                    variant.push_str(&format!(" tol {t}"));
                }
                if let Some(m) = cap {
                    variant.push_str(&format!(" it {m}"));
                }
                if let Some(b) = beta {
                    variant.push_str(&format!(" β {b}"));
                }
                // the grid choices named on the command line (each list, or the scene's value)
                let d = rillet::scene::setup::sim_options(&scene);
                let skins = if a.skin.is_empty() { vec![d.list_skin] } else { a.skin.clone() };
                let cells = if a.cell_size.is_empty() { vec![d.cell_size] } else { a.cell_size.clone() };
                let reorders = if a.reorder.is_empty() { vec![d.reorder_interval] } else { a.reorder.clone() };
                for &list_skin in &skins {
                    for &cell_size in &cells {
                        for &reorder_interval in &reorders {
                            let options = SimOptions { list_skin, cell_size, reorder_interval, ..d.clone() };
                            let mut variant = variant.clone();
                            if options != d {
                                variant.push_str(&format!(" {}", bench::variant_name(&options)));
                            }
                            let w = log.as_mut().map(|w| w as &mut dyn std::io::Write);
                            results.push(bench::realtime(gpu, &scene, options, a.sim_time, a.batch.max(1), &variant, true, w)?);
                        }
                    }
                }
            }
        }
    }
    if let Some(mut w) = log {
        w.flush()?;
    }
    if a.json {
        let doc = serde_json::json!({ "adapter": gpu.describe(), "realtime": results });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("adapter: {}", gpu.describe());
        print!("{}", bench::realtime_table(&results));
    }
    Ok(())
}

fn run_bench(mut a: BenchArgs) -> anyhow::Result<()> {
    let gpu = Gpu::headless()?;
    eprintln!("adapter: {}", gpu.describe());
    if a.particles.is_empty() {
        let cpu = gpu.info.device_type == wgpu::DeviceType::Cpu;
        let n = if cpu { "30k" } else { "1m" };
        if cpu {
            eprintln!("note: a CPU adapter: benchmarking {n} fluid particles (--particles to choose)");
        }
        a.particles = vec![n.to_string()];
    }
    if !gpu.has_timestamps() {
        eprintln!("note: no timestamp queries on this adapter: per-pass times are n/a, step time is wall clock");
    }
    if !a.realtime.is_empty() {
        return run_realtime(&gpu, &a);
    }
    let cfg = BenchConfig { warmup: a.warmup, steps: a.steps.max(1), batch: a.batch.max(1), split_lists: false };
    let mut results = Vec::new();
    let mut scenes = Vec::new();
    for count in &a.particles {
        let n = bench::parse_count(count).map_err(anyhow::Error::msg)?;
        let base = bench::bench_scene(n);
        let solvers = if a.solver.is_empty() { vec![SolverArg::Wcsph] } else { a.solver.clone() };
        for solver in solvers {
            if solver == SolverArg::Wcsph {
                scenes.push((count.clone(), base.clone()));
                continue;
            }
            let caps = if a.max_iterations.is_empty() { vec![base.physics.dfsph.max_iterations] } else { a.max_iterations.clone() };
            for m in caps {
                let mut s = base.clone();
                s.physics.solver = rillet::scene::Solver::Dfsph;
                s.physics.dfsph.max_iterations = m;
                scenes.push((format!("{count} dfsph it {m}"), s));
            }
        }
    }
    if !a.wall_approach.is_empty() {
        scenes = scenes
            .into_iter()
            .flat_map(|(count, scene)| {
                a.wall_approach.iter().map(move |&w| {
                    let mut s = scene.clone();
                    if w == Switch::Off {
                        s.physics.wall_approach_viscosity = 0.0;
                    }
                    (format!("{count}{}", if w == Switch::Off { " no-approach" } else { "" }), s)
                })
            })
            .collect();
    }
    for (count, scene) in &scenes {
        let scene = scene.clone();
        // unset variant lists take the scene's (= the defaults') value
        let d = rillet::scene::setup::sim_options(&scene);
        fn or<T: Clone>(v: &[T], default: T) -> Vec<T> {
            if v.is_empty() { vec![default] } else { v.to_vec() }
        }
        let reorders = or(&a.reorder, d.reorder_interval);
        let orders = or(&a.order, d.order);
        let cell_sizes = or(&a.cell_size, d.cell_size);
        let diags = or(&a.diagnostics, Switch::from(d.diagnostics));
        let workgroups = or(&a.workgroup, d.workgroup_size);
        let dets = or(&a.deterministic, Switch::from(d.deterministic));
        let skins = or(&a.skin, d.list_skin);
        for &reorder_interval in &reorders {
            for &order in &orders {
                for &cell_size in &cell_sizes {
                    for &diag in &diags {
                        let diagnostics = diag == Switch::On;
                        for &workgroup_size in &workgroups {
                            for (&checks, &det) in a.checks.iter().flat_map(|c| dets.iter().map(move |d| (c, d))) {
                                let options = SimOptions {
                                    cell_size,
                                    reorder_interval,
                                    order,
                                    diagnostics,
                                    workgroup_size,
                                    shader_checks: checks == Switch::On,
                                    deterministic: det == Switch::On,
                                    ..rillet::scene::setup::sim_options(&scene)
                                };
                                for (&split, &list_skin) in a.split_lists.iter().flat_map(|s| skins.iter().map(move |k| (s, k))) {
                                    let options = SimOptions { list_skin, ..options.clone() };
                                    let cfg = BenchConfig { split_lists: split == Switch::On, ..cfg };
                                    let lists = if cfg.split_lists { " split" } else { "" };
                                    let variant = format!("{count} {}{lists}", bench::variant_name(&options));
                                    let r = bench::run(&gpu, &scene, options.clone(), &cfg, &variant, bench::progress_line(&variant))?;
                                    results.push(r);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let copy = bench::copy_bandwidth(&gpu)?;
    let mut baselines = Vec::new();
    for count in &a.all_pairs {
        let n = bench::parse_count(count).map_err(anyhow::Error::msg)?;
        let scene = bench::bench_scene(n);
        eprintln!("all-pairs baseline at {count}...");
        baselines.push(bench::all_pairs(&gpu, &scene, rillet::scene::setup::sim_options(&scene), 3)?);
    }
    if a.json {
        let doc = serde_json::json!({ "adapter": gpu.describe(), "copy_bytes_per_s": copy, "results": results, "all_pairs": baselines });
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        println!("adapter: {}", gpu.describe());
        print!("{}", bench::table(&results));
        print!("{}", bench::bandwidth_table(&results, copy));
        for b in &baselines {
            println!(
                "all pairs, {} particles (fluid + boundary): density {:.3} ms without a grid, {:.3} ms with it ({:.0}x); whole grid step {:.3} ms",
                b.particles,
                b.all_pairs_density_ms,
                b.grid_density_ms,
                b.all_pairs_density_ms / b.grid_density_ms,
                b.grid_step_ms
            );
        }
    }
    Ok(())
}
