//! Tests of the f64 CPU twin (`rillet::reference`) on whole scenes: lattice density, conservation, rest under gravity,
//! and the guards of the integrator.

use rillet::physics::cubic_w;
use rillet::reference::*;
use rillet::scene::{Aabb, Fluid, GridSettings, Physics, Pressure, Scene, Walls, setup};
use rillet::sim::InitialState;
use std::time::Instant;

fn scene(domain: [[f32; 3]; 2], fluid: [[f32; 3]; 2], spacing: f32, pressure: Pressure, gravity: [f32; 3], dt: f32) -> Scene {
    let s = Scene {
        name: "reference test".into(),
        domain: Aabb { min: domain[0], max: domain[1] },
        fluid: vec![Fluid::from_block(Aabb { min: fluid[0], max: fluid[1] })],
        physics: Physics { spacing, pressure, gravity, dt, ..Physics::default() },
        grid: GridSettings::default(),
        walls: Walls::default(),
        solids: Vec::new(),
        emitters: Vec::new(),
        fluid_capacity: None,
        probes: Default::default(),
        meshes: Default::default(),
    };
    s.validate("reference test").expect("test scene is valid");
    s.validate_count("reference test").expect("test scene is valid");
    s
}

/// Domain 1×1×1, fluid block 0..0.6 per axis, spacing 0.05 (12³ = 1728 fluid), no gravity.
fn big_block() -> InitialState {
    setup::build(&scene([[0.0; 3], [1.0; 3]], [[0.0; 3], [0.6; 3]], 0.05, Pressure::Stiffness(50_000.0), [0.0; 3], 4e-4))
}

/// Id of lattice point `(i, j, k)` of the first fluid block (x fastest, as `setup::build` fills).
fn lattice_id(n: [u32; 3], i: u32, j: u32, k: u32) -> usize {
    (i + n[0] * (j + n[1] * k)) as usize
}

fn norm(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

#[test]
fn neighbours_equal_the_all_pairs_oracle() {
    let state = big_block();
    let mut sim = RefSim::new(&state);
    let f32_pos: Vec<glam::Vec3> = state.pos_mass.iter().map(|p| glam::Vec3::new(p[0], p[1], p[2])).collect();
    let oracle = all_pairs_neighbours(&f32_pos, sim.h());
    assert_eq!(sim.neighbours(), oracle, "initial (f32-exact) positions");
    // after a few steps the positions are genuinely f64
    for _ in 0..3 {
        sim.step();
    }
    sim.vel_rho.iter_mut().take(state.n_fluid as usize).enumerate().for_each(|(i, v)| v[0] += 1e-3 * (i % 7) as f64);
    sim.integrate();
    let nb = sim.neighbours();
    assert_eq!(nb, all_pairs_neighbours_f64(&sim.positions(), sim.h()));
    let fluid_nb = sim.fluid_neighbours();
    for i in 0..sim.n_particles() {
        assert_eq!(fluid_nb[i], if sim.is_fluid(i) { nb[i].clone() } else { vec![] });
    }
}

#[test]
fn interior_lattice_particle_is_at_rest_density_with_no_pressure_force() {
    let state = big_block();
    let n = [12, 12, 12];
    assert_eq!(state.n_fluid, 12 * 12 * 12);
    let centre = lattice_id(n, 6, 6, 6);
    let mut sim = RefSim::new(&state);
    let rho0 = sim.params.rest_density as f64;
    let nb = sim.neighbours();
    // the 27 offsets with |v|² ≤ 3 at least; |v| = 2 sits at r ≈ h (in or out by f32 rounding)
    assert!((27..=33).contains(&nb[centre].len()), "{} neighbours", nb[centre].len());
    assert!(nb[centre].iter().all(|&j| (j as usize) < state.n_fluid as usize));
    sim.compute_density(&nb);
    // (a) as built: the mass and the positions were rounded to f32, so ρ0 holds to f32 rounding
    let err = (sim.vel_rho[centre][3] / rho0 - 1.0).abs();
    assert!(err < 1e-6, "f32 lattice: |ρ/ρ0 − 1| = {err:e}");

    // (b) the same lattice in exact f64 with the f64 mass: ρ0 to 1e-9 (the contract's "exactly")
    let s = 0.05f32 as f64;
    let h = sim.h();
    assert_eq!(h, 2.0 * s);
    let mut lattice_sum = 0.0;
    for k in -2i32..=2 {
        for j in -2i32..=2 {
            for i in -2i32..=2 {
                lattice_sum += cubic_w(s * ((i * i + j * j + k * k) as f64).sqrt(), h);
            }
        }
    }
    let m = rho0 / lattice_sum;
    for k in 0..12 {
        for j in 0..12 {
            for i in 0..12 {
                let id = lattice_id(n, i, j, k);
                sim.pos_mass[id] = [(i as f64 + 0.5) * s, (j as f64 + 0.5) * s, (k as f64 + 0.5) * s, m];
            }
        }
    }
    let nb = sim.neighbours();
    sim.compute_density(&nb);
    let interior: Vec<usize> = (2..10).flat_map(|k| (2..10).flat_map(move |j| (2..10).map(move |i| lattice_id(n, i, j, k)))).collect();
    for &i in &interior {
        let err = (sim.vel_rho[i][3] / rho0 - 1.0).abs();
        assert!(err < 1e-9, "f64 lattice, particle {i}: |ρ/ρ0 − 1| = {err:e}");
    }
    // no pressure (ρ ≤ ρ0 up to 1e-15 gives p ≈ 0) and no gravity: no force at all
    sim.compute_forces(&nb);
    // pressure-acceleration scale: B / (ρ0 h)
    let scale = sim.params.stiffness as f64 / (rho0 * h);
    for &i in &interior {
        let a = norm(sim.acc[i]);
        assert!(a < 1e-9 * scale, "particle {i}: |a| = {a:e} (scale {scale})");
    }

    // (c) compressed by 1 %: uniform pressure inside cancels by lattice symmetry (to 1e-12 of the
    // pressure scale), while the free top face is pushed outwards (+y)
    for p in sim.pos_mass.iter_mut().take(state.n_fluid as usize) {
        p[3] *= 1.01;
    }
    sim.compute_density(&nb);
    assert!((sim.vel_rho[centre][3] / rho0 - 1.01).abs() < 1e-12);
    sim.compute_forces(&nb);
    let p_term = sim.pressure(1.01 * rho0) / (1.01 * rho0 * 1.01 * rho0);
    let force_scale = p_term * m * 1.01 * CubicKernel::new(h).sigma / h;
    for &i in &interior {
        let a = norm(sim.acc[i]);
        assert!(a < 1e-12 * force_scale, "compressed, particle {i}: |a| = {a:e} vs {force_scale:e}");
    }
    let top = lattice_id(n, 6, 11, 6);
    let a = sim.acc[top];
    assert!(a[1] > 0.1 * force_scale, "top face not pushed up: {a:?} (scale {force_scale:e})");
    assert!(a[0].abs() < 1e-9 * a[1] && a[2].abs() < 1e-9 * a[1], "top face pushed sideways: {a:?}");
}

/// xorshift64*, uniform in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn momentum_is_conserved_away_from_walls() {
    // blob 0.3..0.7 (8³ = 512 particles) in a 1 m box: the walls are 0.35 m = 3.5 h away
    let state = setup::build(&scene([[0.0; 3], [1.0; 3]], [[0.3; 3], [0.7; 3]], 0.05, Pressure::Stiffness(50_000.0), [0.0; 3], 4e-4));
    let mut sim = RefSim::new(&state);
    let nf = state.n_fluid as usize;
    assert_eq!(nf, 512);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let drift = [0.3, -0.2, 0.1];
    for v in sim.vel_rho.iter_mut().take(nf) {
        for d in 0..3 {
            v[d] = drift[d] + (rng.next() - 0.5);
        }
    }
    let p0 = sim.momentum();
    let v0: Vec<[f64; 4]> = sim.vel_rho.clone();
    let t = Instant::now();
    for _ in 0..20 {
        let nb = sim.fluid_neighbours();
        assert!(nb.iter().take(nf).all(|l| l.iter().all(|&j| (j as usize) < nf)), "fluid touched a wall");
        sim.compute_density(&nb);
        sim.compute_forces(&nb);
        sim.integrate();
        sim.steps += 1;
    }
    eprintln!("momentum: 20 steps of {} particles in {:?}", sim.n_particles(), t.elapsed());
    let p1 = sim.momentum();
    let dp = norm([p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]]);
    eprintln!("momentum: |P0| = {:.6e}, |ΔP| = {dp:.3e}", norm(p0));
    assert!(dp <= 1e-9 * norm(p0), "|ΔP| = {dp:e}, |P0| = {:e}", norm(p0));
    // and the forces were not trivially zero: velocities changed by far more than ΔP
    let dv: f64 = (0..nf).map(|i| norm([0, 1, 2].map(|d| sim.vel_rho[i][d] - v0[i][d]))).sum::<f64>() / nf as f64;
    eprintln!("momentum: mean |Δv| = {dv:.3e} m/s");
    assert!(dv > 1e-2, "mean |Δv| = {dv:e}: the blob did not interact");
    assert_eq!((sim.wall_clamps, sim.non_finite), (0, 0));
}

#[test]
fn fluid_at_rest_under_gravity_stays_put() {
    // 0.6 m box, fluid 0.6 × 0.3 × 0.6 at spacing 0.05 (864 fluid, 2368 wall particles), c from
    // Auto (10·sqrt(2 g H) ≈ 24.3 m/s), dt = 5e-4 (CFL 0.4 h/c ≈ 1.6e-3), 200 steps = 0.1 s
    let state = setup::build(&scene([[0.0; 3], [0.6; 3]], [[0.0; 3], [0.6, 0.3, 0.6]], 0.05, Pressure::Auto, [0.0, -9.81, 0.0], 5e-4));
    let mut sim = RefSim::new(&state);
    let nf = state.n_fluid as usize;
    assert_eq!((nf, state.n_boundary()), (864, 2368));
    let com_y = |sim: &RefSim| (0..nf).map(|i| sim.pos_mass[i][1]).sum::<f64>() / nf as f64;
    let y0 = com_y(&sim);
    let t = Instant::now();
    let (mut worst_lo, mut worst_hi) = (0.0f64, 0.0f64);
    for _ in 0..200 {
        sim.step();
        let (lo, hi) = sim.density_error_range();
        worst_lo = worst_lo.min(lo);
        worst_hi = worst_hi.max(hi);
    }
    let vmax = (0..nf).map(|i| norm([0, 1, 2].map(|d| sim.vel_rho[i][d]))).fold(0.0, f64::max);
    let dy = com_y(&sim) - y0;
    eprintln!(
        "rest: 200 steps of {} particles in {:?}; ρ/ρ0 − 1 over the run in [{worst_lo:.4}, {worst_hi:.4}], \
         final vmax {vmax:.4} m/s, centre of mass moved {dy:.2e} m, clamps {}, non-finite {}",
        sim.n_particles(),
        t.elapsed(),
        sim.wall_clamps,
        sim.non_finite
    );
    assert_eq!(sim.steps, 200);
    assert_eq!(sim.non_finite, 0);
    assert_eq!(sim.wall_clamps, 0, "the walls should hold the fluid without the guard");
    // Measured: ρ/ρ0 − 1 in [−0.323, +0.047] over the run, final vmax 0.47 m/s (peak ≈ 0.73 m/s
    // around step 40), centre of mass down 4.3 mm, no clamps. The +4.7 % is there at t = 0: the
    // fluid particle in a corner of the box sees three walls whose Akinci volumes (from a 2-layer
    // shell) exceed the fluid mass (faces +2.6 %, edges +4.1 %, corners +4.7 %); the deficit is
    // the free surface, whose particles miss neighbours.
    assert!(worst_hi < 0.06, "compression {worst_hi}");
    assert!(worst_lo > -0.45, "density deficit {worst_lo}");
    assert!(vmax < 1.0, "vmax {vmax}");
    assert!(dy.abs() < 0.01, "centre of mass moved {dy}");
    for i in 0..nf {
        let x = sim.pos_mass[i];
        assert!((0..3).all(|d| x[d] >= 0.0 && x[d] <= 0.6), "particle {i} left the box: {x:?}");
    }
}

/// Two particles at distance h/2 along x: a standalone state for pair tests.
fn pair(sim_params_from: &InitialState, v: f64, second_is_wall: bool) -> RefSim {
    let mut sim = RefSim::new(sim_params_from);
    let h = sim.h();
    let m = sim.pos_mass[0][3];
    let rho0 = sim.params.rest_density as f64;
    let w1 = if second_is_wall { -m } else { m };
    sim.pos_mass = vec![[0.5, 0.5, 0.5, m], [0.5 + 0.5 * h, 0.5, 0.5, w1]];
    sim.vel_rho = vec![[v, 0.0, 0.0, rho0], [if second_is_wall { 0.0 } else { -v }, 0.0, 0.0, rho0]];
    sim.acc = vec![[0.0; 3]; 2];
    sim
}

#[test]
fn viscosity_pair_by_hand() {
    let state = big_block();
    let mut sim = pair(&state, 1.0, false);
    let nb = sim.neighbours();
    assert_eq!(nb, vec![vec![0, 1], vec![0, 1]]);
    sim.compute_density(&nb);
    let (h, m) = (sim.h(), sim.pos_mass[0][3]);
    let k = CubicKernel::new(h);
    let rho = m * (k.w(0.0) + k.w(0.5 * h));
    assert!((sim.vel_rho[0][3] - rho).abs() < 1e-12 * rho && rho < 1000.0, "ρ = {rho}: no pressure expected");
    sim.compute_forces(&nb);
    // x_01 = −h/2 ex, v_01 = 2 ex: approaching, Π > 0; ∇W(x_01) = dW/dr(h/2)·(−ex)
    let c = sim.params.sound_speed as f64;
    let alpha = sim.params.viscosity as f64;
    let pi = -alpha * h * c * 2.0 / (2.0 * rho) * (2.0 * -0.5 * h) / (0.25 * h * h + 0.01 * h * h);
    let expect = -m * pi * (-k.dw_dr(0.5 * h));
    assert!(expect < 0.0, "approach must be slowed");
    assert!((sim.acc[0][0] - expect).abs() < 1e-12 * expect.abs(), "{:?} vs {expect}", sim.acc[0]);
    assert_eq!(sim.acc[1][0], -sim.acc[0][0]);
    assert_eq!([sim.acc[0][1], sim.acc[0][2]], [0.0, 0.0]);

    // receding: no viscosity, no pressure, no force
    let mut sim = pair(&state, -1.0, false);
    sim.compute_density(&nb);
    sim.compute_forces(&nb);
    assert_eq!(sim.acc, vec![[0.0; 3]; 2]);

    // against a wall particle: wall_viscosity (0 = free slip), the wall does not move
    let mut sim = pair(&state, 1.0, true);
    assert_eq!(sim.params.wall_viscosity, 0.0);
    sim.compute_density(&nb);
    assert_eq!(sim.vel_rho[1][3], sim.params.rest_density as f64, "boundary keeps ρ0");
    sim.compute_forces(&nb);
    assert_eq!(sim.acc, vec![[0.0; 3]; 2]);
    sim.params.wall_viscosity = 0.5;
    sim.compute_forces(&nb);
    assert!(sim.acc[0][0] < 0.0 && sim.acc[1] == [0.0; 3]);
    sim.integrate();
    assert_eq!(sim.pos_mass[1][..3], [0.5 + 0.5 * sim.h(), 0.5, 0.5]);
}

#[test]
fn integrate_guards() {
    let state = big_block();
    let mut sim = RefSim::new(&state);
    let dt = sim.params.dt as f64;
    sim.acc.iter_mut().for_each(|a| *a = [0.0; 3]);
    // 0: non-finite acceleration → keeps x, v = 0
    sim.acc[0] = [f64::NAN, 0.0, 0.0];
    sim.vel_rho[0][..3].copy_from_slice(&[1.0, 2.0, 3.0]);
    let x0 = sim.pos_mass[0];
    // 1: through the floor and the x = 0 face at once → one clamp, both components zeroed
    sim.vel_rho[1][..3].copy_from_slice(&[-1000.0, -1000.0, 0.25]);
    let x1 = sim.pos_mass[1];
    // 2: an ordinary move
    sim.vel_rho[2][..3].copy_from_slice(&[0.5, 0.0, 0.0]);
    sim.acc[2] = [10.0, 0.0, 0.0];
    let x2 = sim.pos_mass[2];
    // a boundary particle with a (bogus) acceleration does not move
    let b = state.n_fluid as usize;
    sim.acc[b] = [1.0; 3];
    let xb = sim.pos_mass[b];
    sim.integrate();
    assert_eq!((sim.non_finite, sim.wall_clamps), (1, 1));
    assert_eq!(sim.pos_mass[0], x0);
    assert_eq!(sim.vel_rho[0][..3], [0.0; 3]);
    assert_eq!(sim.pos_mass[1][..3], [0.0, 0.0, x1[2] + dt * 0.25]);
    assert_eq!(sim.vel_rho[1][..3], [0.0, 0.0, 0.25]);
    let v2 = 0.5 + dt * 10.0;
    assert_eq!(sim.vel_rho[2][0], v2);
    assert_eq!(sim.pos_mass[2][0], x2[0] + dt * v2);
    assert_eq!(sim.pos_mass[b], xb);
    // upper faces too
    sim.vel_rho[3][..3].copy_from_slice(&[0.0, 0.0, 1e4]);
    sim.integrate();
    assert_eq!(sim.wall_clamps, 2);
    assert_eq!((sim.pos_mass[3][2], sim.vel_rho[3][2]), (1.0, 0.0));
}

#[test]
fn grid_of_a_simulation_state() {
    use rillet::sim::layout::{CellOrder, GridLayout};
    let state = big_block();
    let h = state.params.h;
    let mut sim = RefSim::new(&state);
    for _ in 0..2 {
        sim.step();
    }
    let layout = GridLayout::new(state.grid_lo, state.grid_hi, h, CellOrder::Morton, u64::MAX).unwrap();
    let pos = sim.positions_f32();
    let g = build_grid(&layout, &pos);
    assert_eq!(*g.cell_start.last().unwrap() as usize, sim.n_particles());
    // every neighbour pair lies in adjacent cells (cell size = h)
    let nb = all_pairs_neighbours(&pos, h as f64);
    // (pairs at r ≈ h exactly, which the lattice has on cell faces, may round either way)
    let r_safe = 0.999 * h;
    for (i, l) in nb.iter().enumerate() {
        let ci = layout.cell_coord(pos[i]);
        for &j in l {
            if pos[i].distance(pos[j as usize]) >= r_safe {
                continue;
            }
            let d = (layout.cell_coord(pos[j as usize]) - ci).abs();
            assert!(d.max_element() <= 1, "{i}–{j} are {d} cells apart");
        }
    }
    let (max, over) = grid_diagnostics(&g.counts, 4);
    assert!(max >= 8, "cells of size 2s hold 8 lattice points, got max {max}");
    let direct: u32 = g.counts.iter().map(|&c| c.saturating_sub(4)).sum();
    assert_eq!(over, direct);
}
