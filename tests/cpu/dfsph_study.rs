//! A study, not a check: the DFSPH pressure solve's iterations on the CPU twin with a heavy-ball
//! momentum added to its projected Jacobi iteration (the scene's `dfsph.momentum`, β), on the
//! coarse DFSPH column at rest and a coarse DFSPH dam break; prints a table (docs/VALIDATION.md,
//! "DFSPH"). `cargo test --release --test cpu dfsph_study:: -- --ignored --nocapture` (about two
//! minutes on two cores).

use rillet::reference::RefSim;
use rillet::scene::{Scene, Solver, TimeStep, setup};

/// Mean and largest pressure iterations over the steps from `from` on, the largest mean
/// density error a solve left, the fluid's kinetic energy at the end, the steps done and the
/// simulated time.
fn run(scene: &Scene, beta: f32, steps: u64, from: u64) -> (f64, u32, f64, f64, u64, f64) {
    let mut scene = scene.clone();
    scene.physics.dfsph.momentum = beta;
    let state = setup::build(&scene);
    let mut sim = RefSim::new(&state);
    let (mut sum, mut n, mut most, mut worst) = (0.0, 0u32, 0u32, 0.0f64);
    for step in 0..steps {
        sim.step();
        if !sim.vel_rho.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            return (f64::NAN, 0, f64::NAN, f64::NAN, step, sim.time);
        }
        if step >= from {
            sum += sim.last.pressure_iterations as f64;
            n += 1;
            most = most.max(sim.last.pressure_iterations);
            worst = worst.max(sim.last.solver_error);
        }
    }
    (sum / n.max(1) as f64, most, worst, sim.kinetic_energy(), steps, sim.time)
}

/// The coarse DFSPH column at rest (`hydrostatic_dfsph_ci.ron`) and the DFSPH dam break at
/// 0.04 m with the realtime benchmark's adaptive dt and the column's solver settings.
fn coarse_cases() -> (Scene, Scene) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let column = Scene::load(&root.join("scenes/validation/hydrostatic_dfsph_ci.ron")).unwrap();
    let mut dam = Scene::load(&root.join("scenes/dam_break_dfsph.ron")).unwrap();
    dam.physics.spacing = 0.04;
    dam.physics.dt = 4e-4;
    dam.physics.time_step = TimeStep::Adaptive { min: 1e-5, max: 5e-3, cfl: 0.4 };
    dam.physics.dfsph = column.physics.dfsph;
    assert_eq!(dam.physics.solver, Solver::Dfsph);
    (column, dam)
}

#[test]
#[ignore = "a study: prints the pressure iterations with and without momentum; run with --ignored --nocapture"]
fn momentum_in_the_pressure_solve() {
    let (column, dam) = coarse_cases();
    println!(
        "case, beta: pressure iterations mean / max, worst mean density error left, kinetic energy at the end (J), steps, simulated s"
    );
    for (name, scene, steps, from) in [("column at rest, dt 1 ms", &column, 1500u64, 100u64), ("dam break, adaptive", &dam, 300, 0)] {
        for beta in [0.0, 0.3, 0.5] {
            let (mean, most, worst, ke, done, t) = run(scene, beta, steps, from);
            println!("{name}, {beta}: {mean:.2} / {most}, {:.4} %, {ke:.4} J, {done} steps, {t:.3} s", 100.0 * worst);
        }
    }
}

/// Fluid particles more than h below the column's top `top`, with their |ρ − ρ0| / ρ0.
fn below_h(sim: &RefSim, top: f64) -> impl Iterator<Item = (usize, f64)> + '_ {
    let h = sim.params.h as f64;
    let rho0 = sim.params.rest_density as f64;
    (0..sim.pos_mass.len())
        .filter(move |&i| sim.pos_mass[i][3] > 0.0 && sim.pos_mass[i][1] < top - h)
        .map(move |i| (i, ((sim.vel_rho[i][3] - rho0) / rho0).abs()))
}

/// The pressure solve on the coarse column (20 layers), a slab 50 layers deep and the coarse dam
/// break: iterations, kinetic energy, the largest density error more than h below the top over
/// the second half (docs/VALIDATION.md, "DFSPH", conjugate gradients). With
/// `docs/studies/dfsph_cg_twin_study.patch` applied, `RS_*` variables choose the twin's
/// variants; `RS_CASES` (column,slab,dam), `RS_TOL` (the density tolerance) and `RS_WORST`
/// (print the column's worst particles) work without it. `cargo test --release --test cpu
/// dfsph_study::solve_variants -- --ignored --nocapture` (about ten minutes on two cores).
#[test]
#[ignore = "a study: the solve's variants; run with --ignored --nocapture"]
fn solve_variants() {
    let (column, dam) = coarse_cases();
    // a slab 50 layers deep: 0.5 × 1.0 × 0.1 m at 0.02 m
    let mut slab = column.clone();
    slab.physics.spacing = 0.02;
    slab.domain.max = [0.5, 1.2, 0.1];
    slab.fluid[0].min = Some([0.0; 3]);
    slab.fluid[0].max = Some([0.5, 1.0, 0.1]);
    slab.probes = Default::default();
    let tol: Option<f32> = std::env::var("RS_TOL").ok().and_then(|v| v.parse().ok());
    let which = std::env::var("RS_CASES").unwrap_or("column,slab,dam".into());
    for (name, scene, steps, from) in [("column", &column, 1500u64, 100u64), ("slab", &slab, 1000, 100), ("dam", &dam, 300, 0)] {
        if !which.contains(name) {
            continue;
        }
        // the columns' top, where the density check applies (none for the dam break)
        let top = (name != "dam").then(|| scene.fluid[0].max.unwrap()[1] as f64);
        let mut scene = scene.clone();
        if let Some(t) = tol {
            scene.physics.dfsph.tolerance = t;
        }
        let state = setup::build(&scene);
        let mut sim = RefSim::new(&state);
        let (mut sum, mut n, mut most, mut worst_rho) = (0.0, 0u32, 0u32, 0.0f64);
        let mut ke_peak = 0.0f64;
        for step in 0..steps {
            sim.step();
            ke_peak = ke_peak.max(sim.kinetic_energy());
            if step >= from {
                sum += sim.last.pressure_iterations as f64;
                n += 1;
                most = most.max(sim.last.pressure_iterations);
                if let Some(top) = top.filter(|_| step >= steps / 2) {
                    worst_rho = below_h(&sim, top).map(|(_, e)| e).fold(worst_rho, f64::max);
                }
            }
        }
        if let Some(top) = top.filter(|_| std::env::var("RS_WORST").is_ok()) {
            let mut v: Vec<(usize, f64)> = below_h(&sim, top).collect();
            v.sort_by(|a, b| b.1.total_cmp(&a.1));
            for &(i, _) in v.iter().take(6) {
                println!(
                    "  worst: x {:.3} {:.3} {:.3} rho {:.2} kappa_total {:.4e}",
                    sim.pos_mass[i][0], sim.pos_mass[i][1], sim.pos_mass[i][2], sim.vel_rho[i][3], sim.kappa_total[i]
                );
            }
        }
        println!(
            "{name}: iterations {:.2} / {most}, KE end {:.4} J (peak {:.4}), max density error below h 2nd half {} %, clamps {}, sim {:.3} s",
            sum / n.max(1) as f64,
            sim.kinetic_energy(),
            ke_peak,
            if top.is_some() { format!("{:.3}", 100.0 * worst_rho) } else { "—".into() },
            sim.wall_clamps,
            sim.time
        );
    }
}
