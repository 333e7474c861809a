//! A study, not a check: a standing wave (the first sloshing mode of a closed tank) on the CPU
//! twin, WCSPH, to find what takes a gravity wave's energy (docs/VALIDATION.md, "Wave maker").
//! Prints the mode's velocity amplitude and the fluid's energy (kinetic, gravitational, the
//! Tait compression energy) over time, and the decay rate fitted to the mode's peaks.
//! `WS_*` variables choose the variant: `WS_SPACING` (0.01 m), `WS_LENGTH` (0.4 m), `WS_DEPTH`
//! (0.2 m), `WS_WIDTH` (0.05 m), `WS_AMP` (the mode's amplitude, 0.02 m), `WS_ALPHA` (0.02),
//! `WS_APPROACH` (the walls' approach viscosity, 1), `WS_C` (times the scene's speed of sound),
//! `WS_SUPPORT` (the kernel's support in spacings, 2), `WS_SETTLE` (seconds to settle first, 0),
//! `WS_T` (seconds to run, 3), `WS_DT` (the step as a fraction of 0.4 h / c, 1), `WS_FINEWALL`
//! (the walls' lattice that many times finer than the fluid's, 1), `WS_WALL` (0
//! the scenes' walls, 1 conservative walls: see [`study_step`]), `WS_KGC` (a kernel gradient
//! correction, 1–3: see [`gradient_correction`]; 4: [`corrected_continuity`], with `WS_PLAIN=1`
//! the same scheme uncorrected; 5, 6: [`pressure_split`], with `WS_PB` and `WS_SPLITCLAMP`; 7:
//! [`consistent_bulk`], with `WS_SHIFT`, `WS_NCP` and `WS_BAND`; 8: [`continuity_consistent`],
//! the same with `WS_DELTA`).
//! `cargo test --release --test cpu wave_study:: -- --ignored --nocapture` runs both studies
//! (the standing wave and [`piston_flume`]); docs/VALIDATION.md, "Resolution, and a standing
//! wave on the CPU twin" and "The piston's power, and where the energy goes next to it", has
//! what they measured.

// particle ids and 3 × 3 matrix entries index several arrays at once here
#![allow(clippy::needless_range_loop)]

use rillet::reference::RefSim;
use rillet::scene::{Scene, setup};

fn env(name: &str, default: f64) -> f64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
#[ignore = "a study: a standing wave's decay on the twin; run with --ignored --nocapture"]
fn standing_wave_decay() {
    let s = env("WS_SPACING", 0.01);
    let len = env("WS_LENGTH", 0.4);
    let depth = env("WS_DEPTH", 0.2);
    let width = env("WS_WIDTH", 0.05);
    let amp = env("WS_AMP", 0.02);
    let alpha = env("WS_ALPHA", 0.02);
    let approach = env("WS_APPROACH", 1.0);
    let t_end = env("WS_T", 3.0);
    let c_mult = env("WS_C", 1.0);
    // 0: the twin's step (Adami's wall pressure); 1: each wall particle's pressure from its own
    // summation density over all neighbours (fluid and wall), `p_b = p(Σ_j |w_j| W_bj)`
    let wall = env("WS_WALL", 0.0) as u32;
    // 1–3: the pressure force with a kernel gradient correction (`gradient_correction`);
    // 4: the corrected continuity scheme (`corrected_continuity`, whose walls are its own);
    // 5, 6: `pressure_split`; 7: `consistent_bulk`; 8: `continuity_consistent`
    let kgc = env("WS_KGC", 0.0) as u32;
    let text = format!(
        "(name: \"standing wave\", domain: (min: (0.0, 0.0, 0.0), max: ({len}, {top}, {width})),
          fluid: [(min: (0.0, 0.0, 0.0), max: ({len}, {depth}, {width}))],
          physics: (spacing: {s}, rest_density: 1000.0, pressure: Auto, viscosity: {alpha},
                    wall_approach_viscosity: {approach}, dt: 0.0002))",
        top = depth * 2.0
    );
    let mut scene = Scene::parse(&text, "standing wave").unwrap();
    let state0 = setup::build(&scene);
    let c = state0.params.sound_speed as f64 * c_mult;
    let h = state0.params.h as f64;
    // WS_DT: the step as a fraction of the acoustic 0.4 h / c (density by continuity needs less)
    scene.physics.dt = (env("WS_DT", 1.0) * 0.4 * h / c) as f32;
    if c_mult != 1.0 {
        scene.physics.pressure = rillet::scene::Pressure::SpeedOfSound(c as f32);
    }
    let rho0 = scene.physics.rest_density as f64;
    let support = env("WS_SUPPORT", 2.0);
    if support != 2.0 {
        scene.walls.layers = support.ceil() as u32;
    }
    let mut state = setup::build(&scene);
    if support != 2.0 {
        // the kernel's support in spacings changed after the build: h, the particles' mass
        // (ρ0 on the lattice) and the walls' ψ (= m: the walls are at least h thick)
        let h = support * s;
        state.params.h = h as f32;
        let m = (rho0 / rillet::physics::lattice_kernel_sum(s, h)) as f32;
        for p in &mut state.pos_mass {
            if p[3] != 0.0 {
                p[3] = m * p[3].signum();
            }
        }
        state.params.dt = (env("WS_DT", 1.0) * 0.4 * h / c) as f32;
    }
    // WS_FINEWALL=N: the walls on a lattice N times finer, as thick (the support), each wall
    // particle weighing ψ = ρ0 / Σ_k W_k (the fine lattice's kernel sum at the fluid's h): a
    // smoother wall for the same fluid
    let fine = env("WS_FINEWALL", 1.0) as u32;
    if fine > 1 {
        let sf = s / fine as f64;
        let mut fs = scene.clone();
        fs.physics.spacing = sf as f32;
        fs.walls.layers = (support * fine as f64).ceil() as u32;
        let walls = setup::build(&fs);
        let psi = (rho0 / rillet::physics::lattice_kernel_sum(sf, state.params.h as f64)) as f32;
        let nf = state.n_fluid as usize;
        state.pos_mass.truncate(nf);
        state.vel_rho.truncate(nf);
        for (p, v) in walls.pos_mass.iter().zip(&walls.vel_rho) {
            if p[3] < 0.0 {
                state.pos_mass.push([p[0], p[1], p[2], -psi]);
                state.vel_rho.push(*v);
            }
        }
    }
    let mut sim = RefSim::new(&state);
    let g = 9.81f64;
    let k = std::f64::consts::PI / len;
    let omega = (g * k * (k * depth).tanh()).sqrt();
    let b = sim.params.stiffness as f64;
    // the mode's velocity field at t = 0 (flat surface, the velocity at its largest):
    // φ = (aω/k) cosh(ky)/sinh(kd) cos(kx), u = ∇φ
    let mode = |x: f64, y: f64| -> [f64; 3] {
        let f = amp * omega / (k * depth).sinh();
        [-f * (k * y).cosh() * (k * x).sin(), f * (k * y).sinh() * (k * x).cos(), 0.0]
    };
    if kgc == 4 {
        init_continuity(&mut sim);
    }
    if kgc == 8 {
        // hydrostatic density below the still level (the Tait law inverted), ρ0 above it
        let b = sim.params.stiffness as f64;
        for i in 0..sim.n_particles() {
            if sim.is_fluid(i) {
                let p = rho0 * g * (depth - sim.pos_mass[i][1]).max(0.0);
                sim.vel_rho[i][3] = rho0 * (1.0 + p / b).powf(1.0 / 7.0);
            }
        }
    }
    // settle first (WS_SETTLE seconds with α = 0.2, then at rest): the column released at ρ0
    // and no pressure rings with sound whose energy is the wave's order
    let settle = env("WS_SETTLE", 0.0);
    if settle > 0.0 {
        let alpha0 = sim.params.viscosity;
        sim.params.viscosity = 0.2;
        while sim.time < settle {
            if wall == 0 && kgc == 0 { sim.step() } else { study_step(&mut sim, wall, kgc) }
        }
        sim.params.viscosity = alpha0;
        sim.time = 0.0;
    }
    let n = sim.n_particles();
    let mut norm = 0.0;
    for i in 0..n {
        if sim.is_fluid(i) {
            let p = sim.pos_mass[i];
            let u = mode(p[0], p[1]);
            sim.vel_rho[i][0] = u[0];
            sim.vel_rho[i][1] = u[1];
            sim.vel_rho[i][2] = 0.0;
            norm += p[3] * (u[0] * u[0] + u[1] * u[1]);
        }
    }
    let energy = |sim: &RefSim| -> (f64, f64, f64, f64) {
        let (mut ke, mut pe, mut ue, mut a) = (0.0, 0.0, 0.0, 0.0);
        let u_of = |m: f64, rho: f64| {
            let r = rho.max(rho0);
            m * b * (r.powi(6) / (6.0 * rho0.powi(7)) - 1.0 / (6.0 * rho0) + 1.0 / r - 1.0 / rho0)
        };
        for i in 0..sim.n_particles() {
            if !sim.is_fluid(i) {
                // variant 4's walls carry a compression energy of their own
                if kgc == 4 && sim.is_boundary(i) {
                    ue += u_of(sim.pos_mass[i][3].abs(), sim.vel_rho[i][3]);
                }
                continue;
            }
            let p = sim.pos_mass[i];
            let v = sim.vel_rho[i];
            ke += 0.5 * p[3] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            pe += p[3] * g * p[1];
            ue += u_of(p[3], v[3]);
            let u = mode(p[0], p[1]);
            a += p[3] * (v[0] * u[0] + v[1] * u[1]);
        }
        (ke, pe, ue, a / norm)
    };
    println!(
        "wall model {wall}, gradient correction {kgc}; standing wave: L {len} m, d {depth} m, width {width} m, spacing {s} m, a {amp} m, alpha {alpha}, approach {approach}, c {c:.1} m/s, dt {:.2e} s, k {k:.3}, omega {omega:.3} (T {:.3} s), {n} particles",
        sim.params.dt,
        2.0 * std::f64::consts::PI / omega
    );
    let (_, pe0, _, _) = energy(&sim);
    let mut samples = Vec::new();
    let every = ((0.01 / sim.params.dt as f64).round() as u64).max(1);
    let mut step = 0u64;
    while sim.time < t_end {
        if step.is_multiple_of(every) {
            let (ke, pe, ue, a) = energy(&sim);
            samples.push((sim.time, a, ke, pe - pe0, ue));
        }
        if wall == 0 && kgc == 0 {
            sim.step();
        } else {
            study_step(&mut sim, wall, kgc);
        }
        step += 1;
        if !sim.vel_rho.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            println!("blew up at {:.3} s", sim.time);
            return;
        }
    }
    // peaks of |A| (one per half period): their log against time gives the amplitude's decay rate
    let mut peaks = Vec::new();
    for w in samples.windows(3) {
        let (a0, a1, a2) = (w[0].1.abs(), w[1].1.abs(), w[2].1.abs());
        if a1 > a0 && a1 >= a2 && a1 > 0.2 {
            peaks.push((w[1].0, a1));
        }
    }
    for (t, a, ke, pe, ue) in samples.iter().step_by(5) {
        println!("t {t:.3}  A {a:+.4}  KE {ke:.5}  PE-PE0 {pe:.5}  U {ue:.5}  E {:.5}", ke + pe + ue);
    }
    let m = peaks.len() as f64;
    let (st, sl) = peaks.iter().fold((0.0, 0.0), |(a, b), &(t, p)| (a + t, b + p.ln()));
    let (tm, lm) = (st / m, sl / m);
    let (num, den) = peaks.iter().fold((0.0, 0.0), |(a, b), &(t, p)| (a + (t - tm) * (p.ln() - lm), b + (t - tm) * (t - tm)));
    let rate = -num / den;
    println!("peaks: {:?}", peaks.iter().map(|(t, p)| format!("{t:.2}:{p:.3}")).collect::<Vec<_>>());
    let nu = rate / (2.0 * k * k);
    println!(
        "decay rate of the mode's amplitude {rate:.4} 1/s (a viscosity 2 nu k^2 would need nu = {nu:.2e} m2/s; Monaghan's alpha h c / 10 = {:.2e}); clamps {}",
        alpha * h * c / 10.0,
        sim.wall_clamps
    );
}

/// One WCSPH step as [`RefSim::step`] (fixed dt, no emitters, no floating bodies) with the wall
/// particles' pressure by the study's model `wall` and the correction `kgc` (4: the corrected
/// continuity scheme, which sets the walls' density itself).
fn study_step(sim: &mut RefSim, wall: u32, kgc: u32) {
    sim.move_solids();
    let nb = sim.neighbours();
    if kgc == 4 {
        corrected_continuity(sim, &nb);
        return;
    }
    if kgc == 8 {
        continuity_consistent(sim, &nb);
        return;
    }
    sim.compute_density(&nb);
    match wall {
        1 => {
            for b in 0..sim.n_particles() {
                if !sim.is_boundary(b) {
                    continue;
                }
                sim.vel_rho[b][3] = summation_density(sim, &nb, b);
                // a moving wall particle carries its own velocity (the viscosities' v_b)
                let v = sim.wall_motion[b][0];
                sim.vel_rho[b][..3].copy_from_slice(&v);
            }
        }
        0 => sim.compute_wall_pressure(&nb),
        _ => panic!("WS_WALL: 0 or 1"),
    }
    sim.compute_forces(&nb);
    let mut shift = Vec::new();
    if kgc == 7 {
        shift = consistent_bulk(sim, &nb);
    } else if kgc == 5 || kgc == 6 {
        pressure_split(sim, &nb, kgc);
    } else if kgc > 0 {
        gradient_correction(sim, &nb, kgc);
    }
    sim.integrate();
    for (i, d) in shift.iter().enumerate() {
        for a in 0..3 {
            sim.pos_mass[i][a] += d[a];
        }
    }
    sim.time += sim.params.dt as f64;
    sim.steps += 1;
}

/// Replaces the pressure part of each fluid particle's acceleration, `−Σ_j |w_j| (P_i + P_j) ∇W_ij`,
/// by the same sum with the corrected gradient `½ (L_i + L_j) ∇W_ij` (momentum conserving),
/// `L_i = G_i⁻¹`, `G_i = Σ_j V_j ∇W_ij ⊗ (x_j − x_i)` over all neighbours (`V_j = |w_j| / ρ_j`;
/// walls at ρ0), which makes the gradient exact for linear fields on any arrangement. `L = I`
/// for wall particles and where G is far from I (det G < 0.5: the free surface's truncated
/// kernel). Variant 2: `L_i ∇W_ij` (the particle's own correction only; linear momentum is then
/// not exactly conserved); 3: the symmetric form between fluid particles and `L_i` against
/// walls; 4: see [`corrected_continuity`].
fn gradient_correction(sim: &mut RefSim, nb: &[Vec<u32>], variant: u32) {
    let l = correction_matrices(sim, nb, false);
    let fluid: Vec<bool> = (0..sim.n_particles()).map(|j| sim.is_fluid(j)).collect();
    replace_pressure(sim, nb, |pr, i, j, gr| {
        // 1: ½ (L_i + L_j), L = I for walls; 2: L_i alone; 3: ½ (L_i + L_j) between fluid
        // particles, L_i against walls
        let lj = if variant == 1 || (variant == 3 && fluid[j]) { &l[j] } else { &l[i] };
        let (gi, gj) = (mul(&l[i], gr), mul(lj, gr));
        [0, 1, 2].map(|a| 0.5 * (pr[i] + pr[j]) * (gi[a] + gj[a]))
    });
}

/// Variants 5 and 6: what the pressure's size (not its gradient) does to the wave. 5: the
/// symmetric sum form with a background `P_b` (`WS_PB`, Pa) added to every pressure (the force
/// of a uniform pressure is zero in the continuum, not on particles off a lattice). 6: the
/// pressure split into the still water's hydrostatic part `p_s = ρ0 g (d − y)` and the rest:
/// `−Σ_j |w_j| [(p'_i/ρ_i² + p'_j/ρ_j²) + (p_s,j − p_s,i)/(ρ_i ρ_j)] ∇W_ij`, `p' = p − p_s`
/// (the sum form for the rest, the difference form — exact for a uniform field — for the
/// hydrostatic part; `WS_SPLITCLAMP=1`: `max(p', 0)` in the sum).
fn pressure_split(sim: &mut RefSim, nb: &[Vec<u32>], variant: u32) {
    let rho0 = sim.params.rest_density as f64;
    let d = env("WS_DEPTH", 0.2);
    let pb = env("WS_PB", 0.0);
    let clamp = env("WS_SPLITCLAMP", 0.0) > 0.0;
    let n = sim.n_particles();
    let rho: Vec<f64> = (0..n).map(|i| sim.vel_rho[i][3]).collect();
    let ps: Vec<f64> = (0..n).map(|i| if variant == 6 { rho0 * 9.81 * (d - sim.pos_mass[i][1]) } else { -pb }).collect();
    let pr: Vec<f64> = (0..n)
        .map(|i| {
            let p = sim.pressure(rho[i]) - ps[i];
            (if clamp { p.max(0.0) } else { p }) / (rho[i] * rho[i])
        })
        .collect();
    replace_pressure(sim, nb, |_, i, j, gr| {
        let hyd = if variant == 6 { (ps[j] - ps[i]) / (rho[i] * rho[j]) } else { 0.0 };
        [0, 1, 2].map(|a| (pr[i] + pr[j] + hyd) * gr[a])
    });
}

/// Variant 7: a first-order consistent pressure gradient in the bulk with a particle shifting
/// that keeps the particles ordered instead (after the scheme of DualSPHysics 5.4's "advanced
/// shifting" with its non-conservative pressure, as its description reads): each fluid
/// particle's `div r = −Σ_j V_j (x_i − x_j)·∇W_ij` (3 inside the water) marks the free surface
/// (`< 2.75`) and the band within the kernel of it. In the bulk (neither) the pressure force is
/// `−L_i Σ_j V_j (p_j − p_i)/ρ_i ∇W_ij` (exact for a linear pressure on any arrangement; walls
/// with their Adami pressure), and the particle is shifted after the step by
/// `δx = −β (h/2)² Σ_j V_j ∇W_ij` (β = `WS_SHIFT`, 0.01; at most 0.1 spacing a component);
/// the band keeps the symmetric sum form and is not shifted. `WS_NCP=0`: the shifting alone.
/// Returns the shifts (zero for walls).
fn consistent_bulk(sim: &mut RefSim, nb: &[Vec<u32>]) -> Vec<[f64; 3]> {
    let h = sim.h();
    let k = rillet::reference::CubicKernel::new(h);
    let n = sim.n_particles();
    let beta = env("WS_SHIFT", 0.01);
    let ncp = env("WS_NCP", 1.0) > 0.0;
    let spacing = env("WS_SPACING", 0.01);
    let rho: Vec<f64> = (0..n).map(|i| sim.vel_rho[i][3]).collect();
    let press: Vec<f64> = rho.iter().map(|&r| sim.pressure(r)).collect();
    let mut div = vec![3.0; n];
    let mut gc = vec![[0.0; 3]; n];
    for i in 0..n {
        if !sim.is_fluid(i) {
            continue;
        }
        let xi = sim.pos_mass[i];
        let mut d = 0.0;
        for &j in &nb[i] {
            let xj = sim.pos_mass[j as usize];
            let x = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
            let gr = kernel_grad(&k, h, x);
            let v = xj[3].abs() / rho[j as usize];
            d -= v * (x[0] * gr[0] + x[1] * gr[1] + x[2] * gr[2]);
            for a in 0..3 {
                gc[i][a] += v * gr[a];
            }
        }
        div[i] = d;
    }
    let surface: Vec<bool> = (0..n).map(|i| sim.is_fluid(i) && div[i] < 2.75).collect();
    // WS_BAND=0: no band (the consistent form everywhere but on the surface's own particles)
    let band = env("WS_BAND", 1.0) > 0.0;
    let bulk: Vec<bool> = (0..n).map(|i| sim.is_fluid(i) && !surface[i] && !(band && nb[i].iter().any(|&j| surface[j as usize]))).collect();
    let l = correction_matrices(sim, nb, false);
    if ncp {
        replace_pressure(sim, nb, |pr, i, j, gr| {
            if bulk[i] {
                let g = mul(&l[i], gr);
                let f = (press[j] - press[i]) / (rho[i] * rho[j]);
                [0, 1, 2].map(|a| f * g[a])
            } else {
                [0, 1, 2].map(|a| (pr[i] + pr[j]) * gr[a])
            }
        });
    }
    let cap = 0.1 * spacing;
    (0..n)
        .map(|i| {
            if !bulk[i] {
                return [0.0; 3];
            }
            gc[i].map(|g| (-beta * 0.25 * h * h * g).clamp(-cap, cap))
        })
        .collect()
}

/// Variant 8: variant 7's pressure and shifting on a density by the continuity equation (so a
/// shift leaves the density as it is), `dρ_i/dt = Σ_j |w_j| (v_i − v_j)·∇W_ij` (walls at their
/// solid's velocity) plus the density diffusion of Molteni & Colagrossi (2009) over fluid
/// neighbours with the hydrostatic part taken out (Fourtakas et al. 2019),
/// `δ (h/2) c Σ_j 2 (ρ_j − ρ_i − ρ0 g (y_i − y_j)/c²) (x_j − x_i)·∇W_ij / (r² + 0.01 (h/2)²) V_j`
/// (δ = `WS_DELTA`, 0.1); symplectic in (v, ρ): the density moves with the velocities the kick
/// has just given. The fluid starts at the hydrostatic density.
fn continuity_consistent(sim: &mut RefSim, nb: &[Vec<u32>]) {
    let n = sim.n_particles();
    walls_at_their_velocity(sim);
    sim.compute_wall_pressure(nb);
    sim.compute_forces(nb);
    let shift = consistent_bulk(sim, nb);
    let x_old = sim.pos_mass.clone();
    let rho_old: Vec<f64> = (0..n).map(|i| sim.vel_rho[i][3]).collect();
    sim.integrate();
    let dt = sim.params.dt as f64;
    let drho = continuity_rate(sim, nb, &x_old, None);
    let diffusion = density_diffusion(sim, nb, &x_old, &rho_old);
    for i in 0..n {
        if x_old[i][3] > 0.0 {
            sim.vel_rho[i][3] = rho_old[i] + dt * (drho[i] + diffusion[i]);
            for a in 0..3 {
                sim.pos_mass[i][a] += shift[i][a];
            }
        }
    }
    sim.time += dt;
    sim.steps += 1;
}

/// Each wall particle's velocity set to its solid's (the continuity schemes' `v_b`).
fn walls_at_their_velocity(sim: &mut RefSim) {
    for b in 0..sim.n_particles() {
        if sim.is_boundary(b) {
            let v = sim.wall_motion[b][0];
            sim.vel_rho[b][..3].copy_from_slice(&v);
        }
    }
}

/// The continuity equation's rate for every particle (fluid and wall), on the positions `x` of
/// the step's start and the velocities the kick has just given (symplectic in v, ρ):
/// `dρ_i/dt = Σ_j |w_j| (v_i − v_j)·L_i ∇W_ij`, walls at their solid's velocity, `L_i = I`
/// without `l` (variant 8), the correction matrices with it (variant 4).
fn continuity_rate(sim: &RefSim, nb: &[Vec<u32>], x: &[[f64; 4]], l: Option<&[[[f64; 3]; 3]]>) -> Vec<f64> {
    let h = sim.h();
    let k = rillet::reference::CubicKernel::new(h);
    let v = |j: usize| if sim.is_boundary(j) { sim.wall_motion[j][0] } else { [sim.vel_rho[j][0], sim.vel_rho[j][1], sim.vel_rho[j][2]] };
    (0..x.len())
        .map(|i| {
            if x[i][3] == 0.0 {
                return 0.0;
            }
            let (xi, vi) = (x[i], v(i));
            nb[i]
                .iter()
                .map(|&j| {
                    let (xj, vj) = (x[j as usize], v(j as usize));
                    let gr = kernel_grad(&k, h, [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]]);
                    let g = l.map_or(gr, |l| mul(&l[i], gr));
                    xj[3].abs() * ((vi[0] - vj[0]) * g[0] + (vi[1] - vj[1]) * g[1] + (vi[2] - vj[2]) * g[2])
                })
                .sum()
        })
        .collect()
}

/// The density diffusion of Molteni & Colagrossi (2009) with the hydrostatic part taken out
/// (Fourtakas et al. 2019), fluid particles against fluid neighbours, on the positions `x` and
/// densities `rho` of the step's start: `δ (h/2) c Σ_j 2 (ρ_j − ρ_i − ρ0 g (y_i − y_j)/c²)
/// (x_j − x_i)·∇W_ij / (r² + 0.01 (h/2)²) V_j` (δ = `WS_DELTA`, 0.1 for variant 8, 0 for 4).
fn density_diffusion(sim: &RefSim, nb: &[Vec<u32>], x: &[[f64; 4]], rho: &[f64]) -> Vec<f64> {
    let h = sim.h();
    let k = rillet::reference::CubicKernel::new(h);
    let delta = env("WS_DELTA", if env("WS_KGC", 0.0) as u32 == 8 { 0.1 } else { 0.0 });
    let c = sim.params.sound_speed as f64;
    let rho0 = sim.params.rest_density as f64;
    let hd = 0.5 * h;
    (0..x.len())
        .map(|i| {
            if x[i][3] <= 0.0 || delta == 0.0 {
                return 0.0;
            }
            let xi = x[i];
            let mut d = 0.0;
            for &j in &nb[i] {
                let (j, xj) = (j as usize, x[j as usize]);
                if j == i || xj[3] <= 0.0 {
                    continue;
                }
                let r = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
                let gr = kernel_grad(&k, h, r);
                let r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
                let hyd = rho0 * 9.81 * (xi[1] - xj[1]) / (c * c);
                let dot = -(r[0] * gr[0] + r[1] * gr[1] + r[2] * gr[2]);
                d += 2.0 * (rho[j] - rho[i] - hyd) * dot / (r2 + 0.01 * hd * hd) * xj[3] / rho[j];
            }
            delta * hd * c * d
        })
        .collect()
}

/// `∇W(x)` of the cubic spline `k` with support `h` (zero at r = 0 and beyond h).
fn kernel_grad(k: &rillet::reference::CubicKernel, h: f64, x: [f64; 3]) -> [f64; 3] {
    let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
    if r <= 1e-9 * h || r >= h {
        return [0.0; 3];
    }
    let d = k.dw_dr(r) / r;
    [d * x[0], d * x[1], d * x[2]]
}

/// `m v` for a 3 × 3 matrix.
fn mul(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|a| m[a][0] * v[0] + m[a][1] * v[1] + m[a][2] * v[2])
}

/// Replaces the pressure part that [`RefSim::compute_forces`] put in each fluid particle's
/// acceleration, `−Σ_j |w_j| (P_i + P_j) ∇W_ij`, by `−Σ_j |w_j| term(P, i, j, ∇W_ij)` (P = p/ρ²
/// of every particle).
fn replace_pressure(sim: &mut RefSim, nb: &[Vec<u32>], term: impl Fn(&[f64], usize, usize, [f64; 3]) -> [f64; 3]) {
    let h = sim.h();
    let k = rillet::reference::CubicKernel::new(h);
    let pr: Vec<f64> = sim.vel_rho.iter().map(|v| sim.pressure(v[3]) / (v[3] * v[3])).collect();
    for i in 0..sim.n_particles() {
        if !sim.is_fluid(i) {
            continue;
        }
        let xi = sim.pos_mass[i];
        for &j in &nb[i] {
            let j = j as usize;
            if j == i {
                continue;
            }
            let xj = sim.pos_mass[j];
            let gr = kernel_grad(&k, h, [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]]);
            let t = term(&pr, i, j, gr);
            for a in 0..3 {
                sim.acc[i][a] += xj[3].abs() * ((pr[i] + pr[j]) * gr[a] - t[a]);
            }
        }
    }
}

/// A piston wave maker in a short flume on the twin (3.5 m, still water 0.4 m, 8 cm wide, spacing
/// 0.02 m, T = 1.0 s, stroke 2.5 cm: `scenes/wave_flume.ron` at twice its spacing), with the
/// scenes' walls or the conservative walls of [`study_step`] (`WS_WALL`): the wave height at
/// 0.42, 0.92 and 1.42 m from the piston's mean face, or at `WS_GAUGES` (distances in m,
/// comma-separated), each from the particles in a window 0.1 m wide, scaled so that the fitted
/// mean level is the still depth, fitted over 3–6 s, against the far field of linear wave-maker
/// theory, 3.84 cm; and the piston's power into the water over 3–6 s against the theory's
/// energy flux. `WS_ALPHA`, `WS_APPROACH`, `WS_SPACING`, `WS_T` as for the standing wave;
/// `WS_BUDGET=1` adds the energy budget by term and distance ([`power_budget`]).
/// `cargo test --release --test cpu wave_study::piston_flume -- --ignored --nocapture` (about
/// ten minutes on two cores).
#[test]
#[ignore = "a study: a piston wave maker on the twin; run with --ignored --nocapture"]
fn piston_flume() {
    let wall = env("WS_WALL", 0.0) as u32;
    let alpha = env("WS_ALPHA", 0.02);
    let s = env("WS_SPACING", 0.02);
    let t_end = env("WS_T", 6.0);
    let approach = env("WS_APPROACH", 1.0);
    // the piston's mean face, its motion x = (S/2) sin ωt, the still depth and the flume's width
    let (face, amp, period, depth, width) = (0.08, 0.0125, 1.0, 0.4, 0.08);
    let w = 2.0 * std::f64::consts::PI / period;
    // linear wave-maker theory's far field: k of ω² = g k tanh kd (Newton), H = S · 2 (cosh 2kd − 1)
    // / (sinh 2kd + 2kd), the group speed, and the energy flux (1/8) ρ g H² c_g times the width
    let g = 9.81;
    let mut k = w * w / g;
    for _ in 0..50 {
        k -= (g * k * (k * depth).tanh() - w * w) / (g * (k * depth).tanh() + g * k * depth / (k * depth).cosh().powi(2));
    }
    let kd2 = 2.0 * k * depth;
    let h_theory = 2.0 * amp * 2.0 * (kd2.cosh() - 1.0) / (kd2.sinh() + kd2);
    let cg = w / k * 0.5 * (1.0 + kd2 / kd2.sinh());
    let flux = 1000.0 * g * h_theory * h_theory / 8.0 * cg * width;
    let text = format!(
        "(name: \"piston flume\", domain: (min: (0.0, 0.0, 0.0), max: (3.5, 0.7, {width})),
          fluid: [(min: ({face}, 0.0, 0.0), max: (3.5, {depth}, {width}))],
          solids: [Box(center: ({centre}, 0.35, {half}), size: (0.04, 0.7, {width}), motion: (
              translation: Sine(amplitude: ({amp}, 0.0, 0.0), period: {period})))],
          physics: (spacing: {s}, rest_density: 1000.0, pressure: Auto, viscosity: {alpha},
                    wall_approach_viscosity: {approach}, dt: {dt}))",
        dt = 0.4 * 2.0 * s / 28.0,
        centre = face - 0.02,
        half = width / 2.0
    );
    let scene = Scene::parse(&text, "piston flume").unwrap();
    let state = setup::build(&scene);
    let mut sim = RefSim::new(&state);
    // WS_GAUGES: the windows' centres as distances from the piston's mean face (x = 0.08 m)
    let gauges: Vec<f64> = std::env::var("WS_GAUGES")
        .unwrap_or_else(|_| "0.42,0.92,1.42".into())
        .split(',')
        .map(|g| face + g.trim().parse::<f64>().expect("WS_GAUGES: distances in m, comma-separated"))
        .collect();
    // the power into the water, -f_x v_x of the piston, summed over the fit's window
    let (mut work, mut samples) = (0.0f64, 0u64);
    // WS_BUDGET=1: where the fluid's energy goes (`power_budget`), in 0.1 m bins from the face
    let budget_on = env("WS_BUDGET", 0.0) > 0.0;
    let (mut budget, mut budget_samples) = (vec![[0.0f64; 3]; 35], 0u64);
    let count = |sim: &RefSim, xg: f64| {
        (0..sim.n_particles()).filter(|&i| sim.is_fluid(i) && (sim.pos_mass[i][0] - xg).abs() < 0.05).count() as f64
    };
    let n0: Vec<f64> = gauges.iter().map(|&x| count(&sim, x)).collect();
    let mut rows: Vec<(f64, Vec<f64>)> = Vec::new();
    let every = ((0.02 / sim.params.dt as f64).round() as u64).max(1);
    let mut step = 0u64;
    println!(
        "piston flume: wall model {wall}, alpha {alpha}, approach viscosity {approach}, spacing {s}, dt {:.2e}, {} particles",
        sim.params.dt,
        sim.n_particles()
    );
    while sim.time < t_end {
        if step.is_multiple_of(every) {
            rows.push((sim.time, gauges.iter().zip(&n0).map(|(&x, &n)| depth * count(&sim, x) / n).collect()));
        }
        // the piston's velocity over the step (x = S/2 sin ωt; a prescribed body's state
        // carries no velocity on the twin)
        let v_piston = amp * w * (w * (sim.time + 0.5 * sim.params.dt as f64)).cos();
        if wall == 0 {
            sim.step();
        } else {
            study_step(&mut sim, wall, 0);
        }
        step += 1;
        if (3.0..6.0).contains(&sim.time) {
            if let Some(b) = sim.bodies.first() {
                work -= b.force.x * v_piston;
                samples += 1;
            }
            if budget_on && step.is_multiple_of(every) {
                power_budget(&mut sim, face, &mut budget);
                budget_samples += 1;
            }
        }
        if !sim.vel_rho.iter().all(|v| v.iter().all(|c| c.is_finite())) {
            println!("blew up at {:.3} s", sim.time);
            return;
        }
    }
    for (g, &x) in gauges.iter().enumerate() {
        // least squares of c + a cos ωt + b sin ωt over 3–6 s (normal equations, 3 × 3)
        let mut m = [[0.0f64; 4]; 3];
        for (t, h) in rows.iter().filter(|(t, _)| *t >= 3.0 && *t < 6.0) {
            let basis = [1.0, (w * t).cos(), (w * t).sin()];
            for a in 0..3 {
                for b in 0..3 {
                    m[a][b] += basis[a] * basis[b];
                }
                m[a][3] += basis[a] * h[g];
            }
        }
        for i in 0..3 {
            for j in i + 1..3 {
                let f = m[j][i] / m[i][i];
                for k in 0..4 {
                    m[j][k] -= f * m[i][k];
                }
            }
        }
        let mut c = [0.0; 3];
        for i in (0..3).rev() {
            c[i] = (m[i][3] - (i + 1..3).map(|j| m[i][j] * c[j]).sum::<f64>()) / m[i][i];
        }
        // the window's count at the start depends on how the lattice's columns fall in it:
        // scaled so that the fit's mean level is the still depth
        let height = 2.0 * c[1].hypot(c[2]) * depth / c[0];
        println!(
            "gauge {:.2} m from the face: H = {:.2} cm ({:+.1} % of the far field's {:.2} cm); mean level before scaling {:.4} m",
            x - face,
            100.0 * height,
            100.0 * (height / h_theory - 1.0),
            100.0 * h_theory,
            c[0]
        );
    }
    if samples > 0 {
        let power = work / samples as f64;
        println!(
            "piston's power into the water over 3-6 s: {power:.4} W; the theory's flux {flux:.4} W ({:+.1} %)",
            100.0 * (power / flux - 1.0)
        );
    }
    if budget_samples > 0 {
        println!(
            "power by term in 0.1 m bins from the piston's mean face (W, mean over 3-6 s): pressure, artificial viscosity, walls' approach viscosity"
        );
        let mut total = [0.0; 3];
        for (bin, p) in budget.iter().enumerate() {
            let p = p.map(|x| x / budget_samples as f64);
            for t in 0..3 {
                total[t] += p[t];
            }
            if bin < 12 {
                println!("  {:.1}-{:.1} m: {:+.4} {:+.4} {:+.4}", 0.1 * bin as f64, 0.1 * (bin + 1) as f64, p[0], p[1], p[2]);
            }
        }
        println!("  all: {:+.4} {:+.4} {:+.4}", total[0], total[1], total[2]);
    }
    println!("clamps {}", sim.wall_clamps);
}

/// The piston flume's energy budget at one instant: each fluid particle's `m v·a` of the
/// pressure force, the artificial viscosity and the walls' approach viscosity (the
/// accelerations with the terms switched off one after another), added to `bins` by the
/// particle's distance from the piston's mean face (x = `face`) in 0.1 m bins.
fn power_budget(sim: &mut RefSim, face: f64, bins: &mut [[f64; 3]]) {
    let nb = sim.neighbours();
    sim.compute_density(&nb);
    sim.compute_wall_pressure(&nb);
    let (alpha, alpha_n) = (sim.params.viscosity, sim.params.wall_approach_viscosity);
    sim.compute_forces(&nb);
    let full = sim.acc.clone();
    sim.params.wall_approach_viscosity = 0.0;
    sim.compute_forces(&nb);
    let no_approach = sim.acc.clone();
    sim.params.viscosity = 0.0;
    sim.compute_forces(&nb);
    (sim.params.viscosity, sim.params.wall_approach_viscosity) = (alpha, alpha_n);
    let g = sim.params.gravity.map(f64::from);
    for i in 0..sim.n_particles() {
        if !sim.is_fluid(i) {
            continue;
        }
        let (x, v) = (sim.pos_mass[i], sim.vel_rho[i]);
        let bin = (((x[0] - face) / 0.1).floor().max(0.0) as usize).min(bins.len() - 1);
        let dot = |a: [f64; 3]| x[3] * (v[0] * a[0] + v[1] * a[1] + v[2] * a[2]);
        let p = sim.acc[i];
        bins[bin][0] += dot([p[0] - g[0], p[1] - g[1], p[2] - g[2]]);
        bins[bin][1] += dot([0, 1, 2].map(|d| no_approach[i][d] - p[d]));
        bins[bin][2] += dot([0, 1, 2].map(|d| full[i][d] - no_approach[i][d]));
    }
}

/// `L_i = G_i⁻¹` (`L = I` where det G < 0.5) with `V_j = |w_j| / ρ_j`: with `all` for every
/// particle, fluid and wall, the walls' ρ theirs; without it for fluid only (`L = I` for walls),
/// wall neighbours at ρ0.
fn correction_matrices(sim: &RefSim, nb: &[Vec<u32>], all: bool) -> Vec<[[f64; 3]; 3]> {
    let h = sim.h();
    let rho0 = sim.params.rest_density as f64;
    let k = rillet::reference::CubicKernel::new(h);
    let ident = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    (0..sim.n_particles())
        .map(|i| {
            let xi = sim.pos_mass[i];
            if xi[3] == 0.0 || !(all || sim.is_fluid(i)) {
                return ident;
            }
            let mut g = [[0.0f64; 3]; 3];
            for &j in &nb[i] {
                let xj = sim.pos_mass[j as usize];
                let x = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
                let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
                if r <= 1e-9 * h || r >= h {
                    continue;
                }
                let rho = if all || sim.is_fluid(j as usize) { sim.vel_rho[j as usize][3] } else { rho0 };
                let v = xj[3].abs() / rho * k.dw_dr(r) / r;
                for a in 0..3 {
                    for b in 0..3 {
                        g[a][b] -= v * x[a] * x[b];
                    }
                }
            }
            let det = g[0][0] * (g[1][1] * g[2][2] - g[1][2] * g[2][1]) - g[0][1] * (g[1][0] * g[2][2] - g[1][2] * g[2][0])
                + g[0][2] * (g[1][0] * g[2][1] - g[1][1] * g[2][0]);
            if det < 0.5 {
                return ident;
            }
            let mut inv = [[0.0; 3]; 3];
            for a in 0..3 {
                for b in 0..3 {
                    let (a1, a2, b1, b2) = ((b + 1) % 3, (b + 2) % 3, (a + 1) % 3, (a + 2) % 3);
                    inv[a][b] = (g[a1][b1] * g[a2][b2] - g[a1][b2] * g[a2][b1]) / det;
                }
            }
            inv
        })
        .collect()
}

/// Variant 4, a corrected scheme that keeps the energy: every particle's density (the walls'
/// too) by the continuity equation with the corrected gradient, `dρ_i/dt = Σ_j |w_j| (v_i − v_j)
/// · L_i ∇W_ij`, and the pressure force `−Σ_j |w_j| (P_i L_i + P_j L_j) ∇W_ij`: then
/// `d/dt Σ_i m_i u(ρ_i) = −Σ_i m_i v_i · a_i^pressure` exactly (semi-discretely) and the pair
/// forces are opposite. The walls are particles held in place (their velocity that of their
/// solid). Density starts from the summation ([`init_continuity`]); `WS_REINIT=N` sets the
/// fluid's from the positions again every N steps.
fn corrected_continuity(sim: &mut RefSim, nb: &[Vec<u32>]) {
    let h = sim.h();
    let k = rillet::reference::CubicKernel::new(h);
    let n = sim.n_particles();
    // WS_PLAIN: L = I (plain continuity and the symmetric force), to tell the two apart
    let l = if env("WS_PLAIN", 0.0) > 0.0 {
        vec![[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]; n]
    } else {
        correction_matrices(sim, nb, true)
    };
    walls_at_their_velocity(sim);
    // WS_REINIT=N: every N steps each fluid particle's density from the positions again, by the
    // Shepard-filtered summation `Σ_j |w_j| W_ij / Σ_j (|w_j|/ρ_j) W_ij` (full at the surface;
    // the walls keep theirs, which carries the water's weight)
    let reinit = env("WS_REINIT", 0.0) as u64;
    if reinit > 0 && sim.steps.is_multiple_of(reinit) {
        let rho: Vec<f64> = (0..n)
            .map(|i| {
                let xi = sim.pos_mass[i];
                if xi[3] <= 0.0 {
                    return sim.vel_rho[i][3];
                }
                let (mut num, mut den) = (0.0, 0.0);
                for &j in &nb[i] {
                    let xj = sim.pos_mass[j as usize];
                    let w = k.w(((xi[0] - xj[0]).powi(2) + (xi[1] - xj[1]).powi(2) + (xi[2] - xj[2]).powi(2)).sqrt());
                    num += xj[3].abs() * w;
                    den += xj[3].abs() / sim.vel_rho[j as usize][3] * w;
                }
                num / den
            })
            .collect();
        for (i, r) in rho.into_iter().enumerate() {
            sim.vel_rho[i][3] = r;
        }
    }
    sim.compute_forces(nb);
    replace_pressure(sim, nb, |pr, i, j, gr| {
        let (gi, gj) = (mul(&l[i], gr), mul(&l[j], gr));
        [0, 1, 2].map(|a| pr[i] * gi[a] + pr[j] * gj[a])
    });
    // symplectic in (v, ρ): the density moves with the velocities the kick has just given, over
    // the positions the forces saw (forward Euler in both grows every sound wave)
    let x_old = sim.pos_mass.clone();
    sim.integrate();
    let drho = continuity_rate(sim, nb, &x_old, Some(&l));
    let dt = sim.params.dt as f64;
    let rho_old: Vec<f64> = (0..n).map(|i| sim.vel_rho[i][3]).collect();
    let diffusion = density_diffusion(sim, nb, &x_old, &rho_old);
    for i in 0..n {
        if x_old[i][3] != 0.0 {
            sim.vel_rho[i][3] += dt * (drho[i] + diffusion[i]);
        }
    }
    sim.time += dt;
    sim.steps += 1;
}

/// `Σ_j |w_j| W(x_i − x_j)` over `nb[i]` (fluid and wall neighbours, `i` included).
fn summation_density(sim: &RefSim, nb: &[Vec<u32>], i: usize) -> f64 {
    let k = rillet::reference::CubicKernel::new(sim.h());
    let xi = sim.pos_mass[i];
    nb[i]
        .iter()
        .map(|&j| {
            let xj = sim.pos_mass[j as usize];
            xj[3].abs() * k.w(((xi[0] - xj[0]).powi(2) + (xi[1] - xj[1]).powi(2) + (xi[2] - xj[2]).powi(2)).sqrt())
        })
        .sum()
}

/// Every particle's density by summation (walls over fluid and wall neighbours): variant 4's start.
fn init_continuity(sim: &mut RefSim) {
    let nb = sim.neighbours();
    for i in 0..sim.n_particles() {
        if sim.pos_mass[i][3] != 0.0 {
            sim.vel_rho[i][3] = summation_density(sim, &nb, i);
        }
    }
}
