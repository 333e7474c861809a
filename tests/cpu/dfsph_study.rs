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

#[test]
#[ignore = "a study: prints the pressure iterations with and without momentum; run with --ignored --nocapture"]
fn momentum_in_the_pressure_solve() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let column = Scene::load(&root.join("scenes/validation/hydrostatic_dfsph_ci.ron")).unwrap();
    let mut dam = Scene::load(&root.join("scenes/dam_break_dfsph.ron")).unwrap();
    dam.physics.spacing = 0.04;
    dam.physics.dt = 4e-4;
    dam.physics.time_step = TimeStep::Adaptive { min: 1e-5, max: 5e-3, cfl: 0.4 };
    dam.physics.dfsph = column.physics.dfsph;
    assert_eq!(dam.physics.solver, Solver::Dfsph);
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
