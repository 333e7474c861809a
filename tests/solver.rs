//! The adaptive time step and the DFSPH solver on the GPU against the f64 CPU twin.
//!
//! Tolerances (f32 GPU against f64 CPU, stated once here):
//! - the chosen dt and the clock: relative 1e-4 and 1e-5 (the fastest speed enters in f32);
//! - trajectories: |Δx| ≤ 2e-5 m and |Δv| ≤ 2e-3 m/s per particle up to 40 steps (as
//!   tests/gpu_sph.rs), density relative 1e-4;
//! - iteration counts of a converging solve: within one of the twin's at every step checked (the
//!   stopping test compares an f32 mean, summed in fixed point, with the tolerance).

mod common;

use common::{build, sim, small_drop};
use rillet::reference::RefSim;
use rillet::scene::{Scene, Solver, TimeStep};
use rillet::sim::layout::CellOrder;
use rillet::sim::{InitialState, Particles, Sim, SimOptions};

const TOL_X: f64 = 2e-5;
const TOL_V: f64 = 2e-3;

fn options(reorder_interval: u32) -> SimOptions {
    SimOptions { reorder_interval, workgroup_size: 64, order: CellOrder::Linear, ..SimOptions::default() }
}

fn drop_with(solver: Solver, time_step: TimeStep, dt: f32) -> Scene {
    let mut s = small_drop();
    s.physics.solver = solver;
    s.physics.time_step = time_step;
    s.physics.dt = dt;
    s.validate("small_drop.ron").expect("test scene is valid");
    s
}

/// Max position and velocity differences and the max relative density difference over fluid,
/// between a GPU state (by id) and the twin.
fn diff(gpu: &Particles, cpu: &RefSim) -> (f64, f64, f64) {
    let g = gpu.by_id();
    let (mut dx, mut dv, mut drho) = (0.0f64, 0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
        }
        if cpu.is_fluid(i) {
            drho = drho.max((g.vel_rho[i][3] as f64 - cpu.vel_rho[i][3]).abs() / cpu.vel_rho[i][3]);
        }
    }
    (dx, dv, drho)
}

/// Runs `steps` steps in submits of `chunk`.
fn run(s: &mut Sim, steps: u32, chunk: u32) {
    let mut done = 0;
    while done < steps {
        let n = chunk.min(steps - done);
        s.run(n);
        done += n;
    }
}

#[test]
fn adaptive_steps_choose_the_twins_dt_and_keep_its_clock_and_trajectories() {
    let adaptive = TimeStep::Adaptive { min: 1e-5, max: 2e-3, cfl: 0.4 };
    let state = build(&drop_with(Solver::Wcsph, adaptive, 4e-4));
    let mut cpu = RefSim::new(&state);
    let mut dts = Vec::new();
    for _ in 0..40 {
        cpu.step();
        dts.push(cpu.last.dt);
    }
    let (lo, hi) = dts.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &d| (lo.min(d), hi.max(d)));
    eprintln!("twin dt from {:.4e} to {:.4e} s, t = {:.5} s, fastest {:.3} m/s", lo, hi, cpu.time, cpu.last.max_speed);
    assert!((hi - lo) / hi > 0.005, "dt should follow the speeds in this scene ({lo:e}..{hi:e})");
    assert!(hi > 4e-4 * 1.2, "the adaptive dt should exceed the fixed 4e-4 s at rest ({hi:e})");

    for (interval, chunk) in [(1, 40), (4, 15)] {
        let mut s = sim(&state, options(interval));
        run(&mut s, 40, chunk);
        let d = s.read_diagnostics();
        let (dx, dv, drho) = diff(&s.read_particles(), &cpu);
        eprintln!(
            "reorder every {interval}, submits of {chunk}: dt {:e} (twin {:e}), t {} (twin {}), |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}",
            d.dt, cpu.last.dt, d.sim_time(), cpu.time
        );
        assert!((d.dt as f64 - cpu.last.dt).abs() <= 1e-4 * cpu.last.dt, "dt {} against the twin's {}", d.dt, cpu.last.dt);
        assert!((d.sim_time() - cpu.time).abs() <= 1e-5 * cpu.time, "clock {} against the twin's {}", d.sim_time(), cpu.time);
        assert!((s.time_at(40, &d) - cpu.time).abs() <= 1e-5 * cpu.time);
        assert!((d.max_speed as f64 - cpu.last.max_speed).abs() <= 1e-3 * cpu.last.max_speed + 1e-6);
        assert!((d.density_error as f64 - cpu.last.density_error).abs() <= 1e-3 * cpu.last.density_error + 1e-6);
        assert!(dx <= TOL_X && dv <= TOL_V && drho <= 1e-4, "|dx| {dx:e}, |dv| {dv:e}, density {drho:e}");
    }
}

/// A DFSPH state with the tolerances set so that every solve runs `iterations` updates.
fn dfsph_fixed_iterations(iterations: u32) -> InitialState {
    let mut state = build(&drop_with(Solver::Dfsph, TimeStep::Fixed, 1e-3));
    state.params.density_tolerance = -1.0;
    state.params.divergence_tolerance = -1.0;
    state.params.max_iterations = iterations;
    state
}

#[test]
fn dfsph_steps_match_the_twin_pass_by_pass_across_reorders_and_submits() {
    let state = dfsph_fixed_iterations(3);
    let steps = 40;
    let mut cpu = RefSim::new(&state);
    for _ in 0..steps {
        cpu.step();
    }
    assert_eq!((cpu.last.pressure_iterations, cpu.last.divergence_iterations), (3, 3));
    let ke = cpu.kinetic_energy();
    assert!(ke > 0.0);
    let mut states = Vec::new();
    for (interval, chunk) in [(1, steps), (4, 7), (0, 13)] {
        let mut s = sim(&state, options(interval));
        run(&mut s, steps, chunk);
        let d = s.read_diagnostics();
        let p = s.read_particles();
        let (dx, dv, drho) = diff(&p, &cpu);
        eprintln!(
            "reorder every {interval}, submits of {chunk}: iterations {}/{} error {:.3e} (twin {:.3e}); |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}",
            d.pressure_iterations, d.divergence_iterations, d.solver_error, cpu.last.solver_error
        );
        assert_eq!((d.pressure_iterations, d.divergence_iterations), (3, 3));
        assert!(dx <= TOL_X && dv <= TOL_V && drho <= 1e-4, "|dx| {dx:e}, |dv| {dv:e}, density {drho:e}");
        assert!((d.solver_error as f64 - cpu.last.solver_error).abs() <= 1e-3 * cpu.last.solver_error + 1e-6);
        states.push(p);
    }
}

#[test]
fn dfsph_converges_on_the_gpu_as_the_twin_does_with_an_adaptive_step() {
    let adaptive = TimeStep::Adaptive { min: 1e-5, max: 4e-3, cfl: 0.4 };
    let state = build(&drop_with(Solver::Dfsph, adaptive, 1e-3));
    let tol = state.params.density_tolerance as f64;
    let max = state.params.max_iterations;
    let mut cpu = RefSim::new(&state);
    let mut s = sim(&state, options(1));
    let (mut most, mut compared) = (0u32, 0);
    // (beyond some 80 steps the splash has made f32 and f64 part ways: a solve then stops one
    // iteration apart)
    for step in 1..=70u64 {
        cpu.step();
        s.run(1);
        if step % 10 != 0 {
            continue;
        }
        let d = s.read_diagnostics();
        let c = cpu.last;
        eprintln!(
            "step {step}: t {:.4} s, dt {:.3e} s; pressure {} iterations (twin {}) error {:.2e} (twin {:.2e}); divergence {} (twin {}); compression {:.2e} (twin {:.2e})",
            d.sim_time(),
            d.dt,
            d.pressure_iterations,
            c.pressure_iterations,
            d.solver_error,
            c.solver_error,
            d.divergence_iterations,
            c.divergence_iterations,
            d.density_error,
            c.density_error
        );
        assert!(d.pressure_iterations < max && d.divergence_iterations < max, "the solves should converge");
        assert!(d.solver_error as f64 <= tol, "the pressure solve stopped above its tolerance");
        assert!(d.pressure_iterations.abs_diff(c.pressure_iterations) <= 1, "pressure iterations against the twin's");
        assert!(d.divergence_iterations.abs_diff(c.divergence_iterations) <= 1, "divergence iterations against the twin's");
        assert!((d.dt as f64 - c.dt).abs() <= 1e-3 * c.dt, "dt {} against the twin's {}", d.dt, c.dt);
        assert!(d.density_error < 0.01, "mean compression {} should stay below 1 %", d.density_error);
        let (dx, dv, _) = diff(&s.read_particles(), &cpu);
        eprintln!("    |dx| {dx:.2e} |dv| {dv:.2e}");
        if step <= 40 {
            // (the differences then grow some tenfold every ten steps in the splash)
            assert!(dx <= TOL_X && dv <= TOL_V, "|dx| {dx:e}, |dv| {dv:e}");
        }
        most = most.max(d.pressure_iterations);
        compared += 1;
    }
    assert_eq!(compared, 7);
    assert!(most >= 2, "the drop's impact should make the pressure solve iterate ({most})");
}
