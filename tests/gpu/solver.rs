//! The adaptive time step and the DFSPH solver on the GPU against the f64 CPU twin.
//!
//! Tolerances (f32 GPU against f64 CPU, stated once here):
//! - the chosen dt and the clock: relative 1e-4 and 1e-5 (the fastest speed enters in f32);
//! - WCSPH trajectories: |Δx| ≤ 2e-5 m and |Δv| ≤ 2e-3 m/s per particle after 40 steps (as
//!   tests/gpu_sph.rs), density relative 1e-4;
//! - DFSPH: three steps from one state |Δx| ≤ 1e-6 m, |Δv| ≤ 1e-3 m/s, density 1e-5, and each
//!   step from the GPU's own state the same, with the solver's pressure within 5e-3 of the
//!   largest for 99 % of the particles; an adaptive run from rest |Δx| ≤ 1e-4 m, |Δv| ≤ 1e-2 m/s
//!   for as long as the iteration counts agree (see TOL_RUN_X);
//! - iteration counts of a converging solve: within one of the twin's at every step checked (the
//!   stopping test compares an f32 mean, summed in fixed point, with the tolerance).

use crate::common;

use common::{build, sim, small_drop, snapshot};
use rillet::reference::RefSim;
use rillet::scene::{Scene, Solver, TimeStep};
use rillet::sim::layout::CellOrder;
use rillet::sim::{InitialState, Particles, Sim, SimOptions};

const TOL_X: f64 = 2e-5;
const TOL_V: f64 = 2e-3;
/// DFSPH, a few steps from one state.
const TOL_STEP_X: f64 = 1e-6;
const TOL_STEP_V: f64 = 1e-3;
/// DFSPH over many steps: looser, because the solver has switches that turn f32 rounding into
/// finite differences — a warm start only where a particle is compressed, the divergence solve
/// only for particles with 20 neighbours or more, a solve that stops at its tolerance
/// (docs/PHYSICS.md, "DFSPH").
const TOL_RUN_X: f64 = 1e-4;
const TOL_RUN_V: f64 = 1e-2;

fn options(reorder_interval: u32) -> SimOptions {
    SimOptions { reorder_interval, workgroup_size: 64, order: CellOrder::Linear, ..SimOptions::default() }
}

/// DFSPH (and the no-slip test's) runs in deterministic steps: its switches (see TOL_RUN_X) would otherwise turn the
/// run-to-run differences of the grid's atomics into different outcomes, and a comparison that
/// passes once could fail the next time.
fn dfsph_options(reorder_interval: u32) -> SimOptions {
    SimOptions { deterministic: true, ..options(reorder_interval) }
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

/// The GPU's DFSPH pressure (read back by id) against the twin's ρ_i² (K_pressure/dt² +
/// K_divergence/dt) over fluid particles: the twin's largest |p|, and the differences sorted
/// (largest last).
fn pressure_diffs(gpu: &Particles, cpu: &RefSim) -> (f64, Vec<f64>) {
    let g = gpu.by_id();
    let p = g.pressure.expect("a DFSPH readback carries the solver's pressure");
    let dt = cpu.params.dt as f64;
    let (mut diffs, mut p_max) = (vec![], 0.0f64);
    for i in (0..cpu.n_particles()).filter(|&i| cpu.is_fluid(i)) {
        let rho = cpu.vel_rho[i][3];
        let twin = rho * rho * (cpu.warm_pressure[i] / (dt * dt) + cpu.warm_divergence[i] / dt);
        diffs.push((p[i] as f64 - twin).abs());
        p_max = p_max.max(twin.abs());
    }
    diffs.sort_by(f64::total_cmp);
    (p_max, diffs)
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
        let d = s.read_diagnostics().unwrap();
        let (dx, dv, drho) = diff(&s.read_particles().unwrap(), &cpu);
        eprintln!(
            "reorder every {interval}, submits of {chunk}: dt {:e} (twin {:e}), t {} (twin {}), |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}",
            d.dt,
            cpu.last.dt,
            d.sim_time(),
            cpu.time
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

/// DFSPH's solves read the lists dfsph.factor wrote: split over two bindings they give the same
/// steps bit for bit as in one.
#[test]
fn dfsph_steps_with_split_lists_are_those_with_lists_in_one_binding() {
    use rillet::sim::ListLayout;
    let state = dfsph_fixed_iterations(3);
    let mut one = sim(&state, dfsph_options(1));
    let mut split = Sim::with_lists(common::gpu(), &state, dfsph_options(1), true).expect("the split lists fit");
    assert_eq!((one.list_layout(), split.list_layout()), (ListLayout::One, ListLayout::Split));
    one.run(8);
    split.run(8);
    let (a, b) = (one.read_particles().unwrap(), split.read_particles().unwrap());
    assert!(a.id == b.id && a.pos_mass == b.pos_mass && a.vel_rho == b.vel_rho, "split lists changed the DFSPH step");
}

/// The solves' momentum (`dfsph.momentum`, β: each change of κ takes β times the particle's last
/// change besides) on the GPU as on the twin: three steps of three updates a solve from a moving
/// state, within the pass-by-pass tolerances; and β changes the step (the term is at work).
#[test]
fn dfsph_steps_with_momentum_match_the_twin() {
    let mut base = dfsph_fixed_iterations(3);
    base.params.dfsph_momentum = 0.5;
    let mut warm = sim(&base, dfsph_options(1));
    warm.run(60);
    let state = snapshot(&base, &warm.read_particles().unwrap());
    let mut cpu = RefSim::new(&state);
    let mut s = sim(&state, dfsph_options(1));
    for _ in 0..3 {
        cpu.step();
    }
    s.run(3);
    let (dx, dv, drho) = diff(&s.read_particles().unwrap(), &cpu);
    eprintln!("momentum 0.5: |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}");
    assert!(cpu.last.max_speed > 0.3, "the state should be moving ({} m/s)", cpu.last.max_speed);
    assert!(dx <= TOL_STEP_X && dv <= TOL_STEP_V && drho <= 1e-5, "|dx| {dx:e}, |dv| {dv:e}, density {drho:e}");
    let mut plain = state.clone();
    plain.params.dfsph_momentum = 0.0;
    let mut p = sim(&plain, dfsph_options(1));
    p.run(3);
    let (_, dv_plain, _) = diff(&p.read_particles().unwrap(), &cpu);
    eprintln!("without the momentum: |dv| {dv_plain:.2e} from the twin's step with it");
    assert!(dv_plain > 20.0 * dv.max(1e-6), "without the momentum the step should differ ({dv_plain:e} m/s against {dv:e})");
}

#[test]
fn dfsph_steps_match_the_twin_pass_by_pass_across_reorders_and_submits() {
    // from a moving state (the GPU's after 60 steps: the drop has hit the floor), so that every
    // term of the solves is at work
    let base = dfsph_fixed_iterations(3);
    let mut warm = sim(&base, dfsph_options(1));
    warm.run(60);
    let state = snapshot(&base, &warm.read_particles().unwrap());
    let steps = 3;
    let mut cpu = RefSim::new(&state);
    for _ in 0..steps {
        cpu.step();
    }
    assert_eq!((cpu.last.pressure_iterations, cpu.last.divergence_iterations), (3, 3));
    assert!(cpu.last.max_speed > 0.3, "the state should be moving ({} m/s)", cpu.last.max_speed);
    for (interval, chunk) in [(1, steps), (2, 1), (0, 2)] {
        let mut s = sim(&state, dfsph_options(interval));
        run(&mut s, steps, chunk);
        let d = s.read_diagnostics().unwrap();
        let (dx, dv, drho) = diff(&s.read_particles().unwrap(), &cpu);
        eprintln!(
            "reorder every {interval}, submits of {chunk}: iterations {}/{} error {:.3e} (twin {:.3e}); |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}",
            d.pressure_iterations, d.divergence_iterations, d.solver_error, cpu.last.solver_error
        );
        assert_eq!((d.pressure_iterations, d.divergence_iterations), (3, 3));
        assert!(dx <= TOL_STEP_X && dv <= TOL_STEP_V && drho <= 1e-5, "|dx| {dx:e}, |dv| {dv:e}, density {drho:e}");
        assert!((d.solver_error as f64 - cpu.last.solver_error).abs() <= 1e-3 * cpu.last.solver_error + 1e-7);
    }
    // step by step, each GPU step against one twin step seeded with the GPU's state before it,
    // warm starts included (so the comparison does not depend on the switches of earlier steps):
    // trajectories and the solver's pressure
    let mut s = sim(&state, dfsph_options(1));
    for step in 1..=3 {
        let (wp, wv) = s.read_dfsph_totals().unwrap().expect("a DFSPH simulation keeps the solves' totals");
        let mut twin = RefSim::new(&snapshot(&state, &s.read_particles().unwrap()));
        twin.warm_pressure = wp.iter().map(|&w| w as f64).collect();
        twin.warm_divergence = wv.iter().map(|&w| w as f64).collect();
        twin.step();
        s.run(1);
        let after = s.read_particles().unwrap();
        let (dx, dv, _) = diff(&after, &twin);
        let (p_max, dp) = pressure_diffs(&after, &twin);
        let bound = 5e-3 * p_max;
        let off = dp.iter().filter(|&&d| d > bound).count();
        eprintln!(
            "step {step} from the GPU's state: |dx| {dx:.2e} |dv| {dv:.2e}; pressure up to {p_max:.3e} Pa, |dp| {:.2e} Pa; {off} of {} beyond {bound:.2e} Pa (largest {:.2e})",
            dp[dp.len() * 99 / 100],
            dp.len(),
            dp[dp.len() - 1]
        );
        assert!(dx <= TOL_STEP_X && dv <= TOL_STEP_V, "|dx| {dx:e}, |dv| {dv:e}");
        // κ = s·factor/dt² with s a small difference (ρ − ρ0 + dt·Σ…): f32 rounding weighs more
        // than in the trajectories. And the warm start's switch (all of the last κ where s_i > 0,
        // none where not) is a jump: a particle whose s_i is within rounding of 0 may take its
        // last κ on one side and not on the other, and the iterations pass the difference on to
        // its neighbours (measured on lavapipe: none in these three steps). At most 1 % of the
        // particles may differ so.
        assert!(p_max > 0.0 && off * 100 <= dp.len(), "the solver's pressure against the twin's: {off} particles beyond {bound:e} Pa");
    }
    // (no longer comparison from rest: through the impact the solver's switches — the warm
    // start where s_i > 0, the neighbour rule, a solve stopping one iteration earlier at its
    // tolerance — make f32 and f64 part ways within tens of steps; the steps above are each
    // compared from the same state instead)
}

#[test]
fn dfsph_converges_on_the_gpu_as_the_twin_does_with_an_adaptive_step() {
    let adaptive = TimeStep::Adaptive { min: 1e-5, max: 4e-3, cfl: 0.4 };
    let state = build(&drop_with(Solver::Dfsph, adaptive, 1e-3));
    let tol = state.params.density_tolerance as f64;
    let max = state.params.max_iterations;
    let mut cpu = RefSim::new(&state);
    let mut s = sim(&state, dfsph_options(1));
    let (mut most, mut compared, mut same) = (0u32, 0, true);
    // GPU and twin side by side for 15 steps (beyond, the solver's switches have made f32 and
    // f64 part ways: see TOL_RUN_X), then the GPU alone
    for step in 1..=70u64 {
        let twin = step <= 15;
        if twin {
            cpu.step();
        }
        s.run(1);
        if step % 5 != 0 {
            continue;
        }
        let d = s.read_diagnostics().unwrap();
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
        assert!(d.density_error < 0.01, "mean compression {} should stay below 1 %", d.density_error);
        most = most.max(d.pressure_iterations);
        if !twin {
            continue;
        }
        assert!(d.pressure_iterations.abs_diff(c.pressure_iterations) <= 1, "pressure iterations against the twin's");
        assert!(d.divergence_iterations.abs_diff(c.divergence_iterations) <= 1, "divergence iterations against the twin's");
        // once a solve has stopped one iteration earlier on one side (its error within rounding
        // of the tolerance), the trajectories part by that iteration's velocity change
        same &= (d.pressure_iterations, d.divergence_iterations) == (c.pressure_iterations, c.divergence_iterations);
        if !same {
            continue;
        }
        assert!((d.dt as f64 - c.dt).abs() <= 1e-3 * c.dt, "dt {} against the twin's {}", d.dt, c.dt);
        let (dx, dv, _) = diff(&s.read_particles().unwrap(), &cpu);
        eprintln!("    |dx| {dx:.2e} |dv| {dv:.2e}");
        assert!(dx <= TOL_RUN_X && dv <= TOL_RUN_V, "|dx| {dx:e}, |dv| {dv:e}");
        compared += 1;
    }
    assert!(compared >= 1, "the trajectories should be compared at least once");
    assert!(most >= 1, "the drop's impact should make the pressure solve iterate ({most})");
}

/// No-slip walls (Adami et al. 2012's extrapolated wall velocity, Morris et al. 1997's laminar
/// friction): one step from a moving state against the twin — the wall particles' velocities
/// (relative 1e-4) and the accelerations (1e-3 of |a| + |g|) — and trajectories over 40 steps
/// (WCSPH tolerances); in deterministic steps, so the moving state is the same on every run.
#[test]
fn no_slip_walls_match_the_twin() {
    let mut scene = small_drop();
    scene.physics.no_slip_viscosity = 1e-3;
    scene.validate("small_drop.ron").expect("valid");
    let base = build(&scene);
    let mut warm = sim(&base, dfsph_options(1));
    warm.run(150);
    let state = snapshot(&base, &warm.read_particles().unwrap());

    let mut s = sim(&state, dfsph_options(1));
    s.run(1);
    let after = s.read_particles().unwrap();
    let acc = s.read_acc().unwrap();
    let mut cpu = RefSim::new(&state);
    let nb = cpu.neighbours();
    cpu.compute_density(&nb);
    cpu.compute_wall_pressure(&nb);
    let mut free_slip = cpu.clone();
    free_slip.params.no_slip_viscosity = 0.0;
    free_slip.compute_wall_pressure(&nb);
    free_slip.compute_forces(&nb);
    cpu.compute_forces(&nb);
    let g = 9.81;
    let (mut worst_a, mut worst_wall_v, mut moving_walls, mut friction) = (0.0f64, 0.0f64, 0, 0.0f64);
    for (slot, &id) in after.id.iter().enumerate() {
        let i = id as usize;
        if cpu.is_boundary(i) {
            let v = &cpu.vel_rho[i];
            let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if speed > 1e-3 {
                moving_walls += 1;
            }
            let dv = (0..3).map(|d| (after.vel_rho[slot][d] as f64 - v[d]).powi(2)).sum::<f64>().sqrt();
            worst_wall_v = worst_wall_v.max(dv / (speed + 1e-2));
        } else if cpu.is_fluid(i) {
            let a = cpu.acc[i];
            let an = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            let da = (0..3).map(|d| (acc[slot][d] as f64 - a[d]).powi(2)).sum::<f64>().sqrt();
            worst_a = worst_a.max(da / (an + g));
            let fa = free_slip.acc[i];
            friction = friction.max((0..3).map(|d| (a[d] - fa[d]).powi(2)).sum::<f64>().sqrt());
        }
    }
    eprintln!(
        "{moving_walls} wall particles moving; wall velocity off by {worst_wall_v:.2e} of (|v| + 0.01); acceleration {worst_a:.2e} of (|a| + |g|); friction up to {friction:.3} m/s²"
    );
    assert!(moving_walls > 50, "the walls under the moving water should move ({moving_walls})");
    assert!(friction > 0.1, "the friction should change accelerations ({friction} m/s²)");
    assert!(worst_wall_v < 1e-4, "wall velocity off by {worst_wall_v:e}");
    // (gpu_sph's 5e-4 for the Tait and Monaghan terms; the friction's sum adds its own rounding)
    assert!(worst_a < 1e-3, "acceleration off by {worst_a:e}");

    let mut cpu = RefSim::new(&state);
    for _ in 0..40 {
        cpu.step();
    }
    let mut s = sim(&state, dfsph_options(4));
    run(&mut s, 40, 15);
    let (dx, dv, drho) = diff(&s.read_particles().unwrap(), &cpu);
    eprintln!("40 steps: |dx| {dx:.2e} |dv| {dv:.2e} ρ {drho:.2e}");
    assert!(dx <= TOL_X && dv <= TOL_V && drho <= 1e-4, "|dx| {dx:e}, |dv| {dv:e}, density {drho:e}");
}

/// A frame time ahead of an adaptive clock (`rillet run --export-fps`): the GPU's steps and
/// the twin's approach it alike — the same step halves towards it, the same step lands on it,
/// whose clock reads the frame time exactly on both — and go on past it as before.
#[test]
fn adaptive_steps_land_on_a_frame_time_as_the_twins_do() {
    let adaptive = TimeStep::Adaptive { min: 1e-5, max: 2e-3, cfl: 0.4 };
    let state = build(&drop_with(Solver::Wcsph, adaptive, 4e-4));
    let frame = 0.0123f32;
    let mut cpu = RefSim::new(&state);
    cpu.params.frame_time = frame;
    let mut s = sim(&state, options(1));
    s.set_frame_time(Some(frame));
    let mut landed = None;
    for step in 1..=30 {
        cpu.step();
        s.run(1);
        let d = s.read_diagnostics().unwrap();
        assert!((d.dt as f64 - cpu.last.dt).abs() <= 1e-4 * cpu.last.dt, "step {step}: dt {} against the twin's {}", d.dt, cpu.last.dt);
        assert_eq!(
            d.sim_time() == frame as f64,
            cpu.time == frame as f64,
            "step {step}: clock {} against the twin's {}",
            d.sim_time(),
            cpu.time
        );
        if cpu.time == frame as f64 {
            landed = Some(step);
        }
        assert!(d.sim_time() <= frame as f64 || landed.is_some(), "step {step}: passed the frame at {}", d.sim_time());
    }
    let landed = landed.expect("the clock lands on the frame within 30 steps");
    assert!(cpu.time > frame as f64 && landed < 30, "the steps go on past the frame (landed at step {landed}, t = {})", cpu.time);
}
