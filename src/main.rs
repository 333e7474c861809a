//! `rillet`: the command line.

use clap::{Parser, Subcommand};
use rillet::app::AppArgs;
use rillet::bench::{self, BenchConfig};
use rillet::gpu::Gpu;
use rillet::headless::RunArgs;
use rillet::scene::SceneError;
use rillet::sim::SimOptions;
use rillet::sim::layout::CellOrder;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "rillet", version, about = "GPU fluid simulator: weakly compressible SPH on wgpu")]
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
    Bench(BenchArgs),
    /// Run a scene headless and write probe time series (CSV).
    Run(RunArgs),
    /// Run the physical validation cases; write CSVs, plots and a report.
    Validate(rillet::validation::ValidateArgs),
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Fluid particle counts, comma separated (e.g. 250k,1m,4m).
    #[arg(long, default_value = "1m", value_delimiter = ',')]
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
    /// Reorder intervals to run, comma separated (0 = never). Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    reorder: Vec<u32>,
    /// Cell orders to run: morton, linear. Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    order: Vec<String>,
    /// Cell sizes (multiples of h) to run. Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    cell_size: Vec<f32>,
    /// Grid diagnostics compiled in: on, off. Default: the scene's.
    #[arg(long, value_delimiter = ',')]
    diagnostics: Vec<String>,
    /// wgpu's runtime bounds checks in the shaders: on, off.
    #[arg(long, value_delimiter = ',', default_value = "off")]
    checks: Vec<String>,
    /// Workgroup sizes to run. Default: 256.
    #[arg(long, value_delimiter = ',')]
    workgroup: Vec<u32>,
    /// Also time the all-pairs O(N²) density (no grid) at these fluid counts (e.g. 30k),
    /// against the grid's density pass at the same count.
    #[arg(long, value_delimiter = ',')]
    all_pairs: Vec<String>,
    /// Print the results as JSON on stdout instead of a table.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Bench(args)) => run_bench(args),
        Some(Command::Run(args)) => rillet::headless::run(args),
        Some(Command::Validate(args)) => rillet::validation::run(args),
        None => rillet::app::run(cli.app),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(se) = e.downcast_ref::<SceneError>() {
                eprintln!("error: {se}");
            } else {
                eprintln!("error: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

fn run_bench(a: BenchArgs) -> anyhow::Result<()> {
    let gpu = Gpu::headless()?;
    eprintln!("adapter: {}", gpu.describe());
    if !gpu.has_timestamps() {
        eprintln!("note: no timestamp queries on this adapter: per-pass times are n/a, step time is wall clock");
    }
    let cfg = BenchConfig { warmup: a.warmup, steps: a.steps.max(1), batch: a.batch.max(1) };
    let mut results = Vec::new();
    for count in &a.particles {
        let n = bench::parse_count(count).map_err(anyhow::Error::msg)?;
        let scene = bench::bench_scene(n);
        // unset variant lists take the scene's (= the defaults') value
        let d = rillet::scene::setup::sim_options(&scene);
        let pick = |v: &Vec<String>, dflt: &str| if v.is_empty() { vec![dflt.to_string()] } else { v.clone() };
        let reorders = if a.reorder.is_empty() { vec![d.reorder_interval] } else { a.reorder.clone() };
        let orders = pick(&a.order, if d.order == CellOrder::Morton { "morton" } else { "linear" });
        let cell_sizes = if a.cell_size.is_empty() { vec![d.cell_size] } else { a.cell_size.clone() };
        let diags = pick(&a.diagnostics, if d.diagnostics { "on" } else { "off" });
        let workgroups = if a.workgroup.is_empty() { vec![d.workgroup_size] } else { a.workgroup.clone() };
        for &reorder_interval in &reorders {
            for order in &orders {
                let order = match order.as_str() {
                    "morton" => CellOrder::Morton,
                    "linear" => CellOrder::Linear,
                    o => anyhow::bail!("--order: `{o}` is not a cell order (morton, linear)"),
                };
                for &cell_size in &cell_sizes {
                    for diag in &diags {
                        let diagnostics = match diag.as_str() {
                            "on" => true,
                            "off" => false,
                            d => anyhow::bail!("--diagnostics: `{d}` is not on or off"),
                        };
                        for &workgroup_size in &workgroups {
                            for checks in &a.checks {
                                let shader_checks = match checks.as_str() {
                                    "on" => true,
                                    "off" => false,
                                    c => anyhow::bail!("--checks: `{c}` is not on or off"),
                                };
                                let options = SimOptions {
                                    cell_size,
                                    reorder_interval,
                                    order,
                                    diagnostics,
                                    workgroup_size,
                                    shader_checks,
                                    ..rillet::scene::setup::sim_options(&scene)
                                };
                                let variant = format!("{count} {}", bench::variant_name(&options));
                                let r = bench::run(&gpu, &scene, options, &cfg, &variant, bench::progress_line(&variant))?;
                                results.push(r);
                            }
                        }
                    }
                }
            }
        }
    }
    let copy = bench::copy_bandwidth(&gpu);
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
