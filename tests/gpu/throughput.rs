//! Throughput of the step, variant by variant, on the adapter this machine has. Ignored by
//! default (it measures, it does not check); run it with
//!
//!     cargo test --release --test gpu throughput:: -- --ignored --nocapture
//!
//! It prints one table: each row changes one choice against the defaults (reorder interval, cell
//! order, cell size, diagnostics, workgroup size, shader bounds checks, deterministic cells, the
//! neighbour lists kept between grid builds, and
//! the scene's no-slip walls, adaptive dt and DFSPH solver; the neighbour lists over two
//! bindings), then the all-pairs
//! O(N²) density against the grid's at a small count. Particle count: 4M on a GPU, 30k on a CPU
//! adapter (lavapipe); `RILLET_THROUGHPUT_PARTICLES=1m` overrides it.

use crate::common;

use rillet::bench::{self, BenchConfig};
use rillet::sim::SimOptions;
use rillet::sim::layout::CellOrder;

#[test]
#[ignore = "measures throughput; run with --ignored --nocapture"]
fn throughput() {
    let gpu = common::gpu();
    let cpu_adapter = gpu.info.device_type == wgpu::DeviceType::Cpu;
    let count = std::env::var("RILLET_THROUGHPUT_PARTICLES").unwrap_or_else(|_| if cpu_adapter { "30k" } else { "4m" }.into());
    let n = bench::parse_count(&count).expect("RILLET_THROUGHPUT_PARTICLES");
    let scene = bench::bench_scene(n);
    let base = rillet::scene::setup::sim_options(&scene);
    let cfg = if cpu_adapter {
        BenchConfig { warmup: 3, steps: 10, batch: 5, split_lists: false }
    } else {
        BenchConfig { warmup: 50, steps: 200, batch: 50, split_lists: false }
    };
    // (name, scene, options): most rows change one option; the last ones change the scene's
    // physics (the step's variants: deterministic cells, no-slip walls, an adaptive dt, DFSPH)
    let mut variants = vec![("defaults".to_string(), base.clone())];
    // with the lists kept (the default skin) every build reorders: the interval applies to
    // lists built every step
    variants.push(("lists built every step (skin 0)".into(), SimOptions { list_skin: 0.0, ..base.clone() }));
    for r in [8, 0] {
        variants.push((format!("skin 0, reorder every {r}"), SimOptions { reorder_interval: r, list_skin: 0.0, ..base.clone() }));
    }
    variants.push(("Morton order".into(), SimOptions { order: CellOrder::Morton, ..base.clone() }));
    variants.push(("cell size h".into(), SimOptions { cell_size: 1.0, ..base.clone() }));
    variants.push(("cell size h, Morton".into(), SimOptions { cell_size: 1.0, order: CellOrder::Morton, ..base.clone() }));
    variants.push(("diagnostics off".into(), SimOptions { diagnostics: false, ..base.clone() }));
    for wg in [64, 128] {
        variants.push((format!("workgroup {wg}"), SimOptions { workgroup_size: wg, ..base.clone() }));
    }
    variants.push(("shader bounds checks".into(), SimOptions { shader_checks: true, ..base.clone() }));
    variants.push(("deterministic cells".into(), SimOptions { deterministic: true, ..base.clone() }));
    // the neighbour lists kept between grid builds (grid.list_skin, 0.1 h by default) with cells
    // of (1 + skin) h / 2, and a skin twice as large
    for (skin, cell_size) in [(0.1, 0.55), (0.2, 0.5)] {
        variants.push((format!("list skin {skin} h, cells {cell_size} h"), SimOptions { list_skin: skin, cell_size, ..base.clone() }));
    }
    let mut variants: Vec<(String, rillet::scene::Scene, SimOptions)> = variants.into_iter().map(|(n, o)| (n, scene.clone(), o)).collect();
    let mut no_slip = scene.clone();
    no_slip.physics.no_slip_viscosity = 1e-6;
    variants.push(("no-slip walls".into(), no_slip, base.clone()));
    let adaptive = bench::Realtime::WcsphAdaptive.apply(&scene, None);
    variants.push(("adaptive dt".into(), adaptive, base.clone()));
    let mut dfsph = scene.clone();
    dfsph.physics.solver = rillet::scene::Solver::Dfsph;
    variants.push(("DFSPH".into(), dfsph, base.clone()));

    eprintln!("adapter: {}; {count} particles; defaults: {}", gpu.describe(), bench::variant_name(&base));
    let mut results = Vec::new();
    for (name, scene, options) in variants {
        let label = format!("{count} {name}");
        let r = bench::run(gpu, &scene, options, &cfg, &label, bench::progress_line(&label)).expect("benchmark run");
        assert!(r.particle_steps_per_s > 0.0);
        results.push(r);
    }
    // the neighbour lists over two bindings (where one cannot hold them: 16M on the H200)
    let label = format!("{count} lists in two bindings");
    let split = BenchConfig { split_lists: true, ..cfg };
    let r = bench::run(gpu, &scene, base.clone(), &split, &label, bench::progress_line(&label)).expect("benchmark run");
    results.push(r);
    println!("{}", bench::table(&results));

    let small = bench::bench_scene(if cpu_adapter { 4_000 } else { 64_000 });
    match bench::all_pairs(gpu, &small, rillet::scene::setup::sim_options(&small), 3) {
        Ok(b) => println!(
            "all pairs, {} particles: density {:.3} ms without a grid, {:.3} ms with it ({:.0}x)",
            b.particles,
            b.all_pairs_density_ms,
            b.grid_density_ms,
            b.all_pairs_density_ms / b.grid_density_ms
        ),
        Err(e) => println!("all pairs: {e}"),
    }
}
