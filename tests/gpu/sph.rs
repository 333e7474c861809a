//! Density, force and whole steps on the GPU against the f64 CPU twin, and against each other
//! across reorder intervals, submissions, diagnostics variants and live option changes.
//!
//! Tolerances (f32 GPU against f64 CPU, stated once here):
//! - density: relative 1e-5;
//! - acceleration: |Δa| ≤ 5e-4 · (|a| + |g|) per particle (pressure terms cancel, so the error
//!   is relative to the size of the terms, not of the sum);
//! - trajectories after 60 steps: |Δx| ≤ 2e-5 m and |Δv| ≤ 2e-3 m/s per particle (particle
//!   spacing 0.02 m, speeds up to ~1.3 m/s in this scene).

use crate::common;

use common::{build, gpu, sim, small_drop, snapshot};
use rillet::reference::RefSim;
use rillet::sim::layout::CellOrder;
use rillet::sim::{InitialState, NEIGHBOUR_LIST_MAX, Particles, Sim, SimOptions};

const STEPS: u32 = 60;
const TOL_X: f64 = 2e-5;
const TOL_V: f64 = 2e-3;

fn options(reorder_interval: u32) -> SimOptions {
    SimOptions {
        cell_size: 1.0,
        capacity: 64,
        reorder_interval,
        order: CellOrder::Morton,
        diagnostics: true,
        deterministic: false,
        workgroup_size: 64,
        shader_checks: false,
        list_skin: 0.0,
    }
}

/// Max position and velocity differences between a GPU state (by id) and the CPU twin.
fn diff_cpu(gpu: &Particles, cpu: &RefSim) -> (f64, f64) {
    let g = gpu.by_id();
    let mut dx: f64 = 0.0;
    let mut dv: f64 = 0.0;
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
        }
    }
    (dx, dv)
}

fn diff_gpu(a: &Particles, b: &Particles) -> (f64, f64) {
    let (a, b) = (a.by_id(), b.by_id());
    let mut dx: f64 = 0.0;
    let mut dv: f64 = 0.0;
    for i in 0..a.id.len() {
        for d in 0..3 {
            dx = dx.max((a.pos_mass[i][d] - b.pos_mass[i][d]).abs() as f64);
            dv = dv.max((a.vel_rho[i][d] - b.vel_rho[i][d]).abs() as f64);
        }
    }
    (dx, dv)
}

/// The small drop after 150 steps, as an initial state (velocities and compression are
/// non-trivial), with the scene's own initial state.
fn fallen_drop() -> (InitialState, InitialState) {
    let base = build(&small_drop());
    let mut warm = sim(&base, options(1));
    warm.run(150);
    let state = snapshot(&base, &warm.read_particles().unwrap());
    (base, state)
}

/// One GPU step from `state` (its state after the step and sph.force's accelerations) and the
/// twin's density, wall pressure and forces from the same state.
struct OneStep {
    after: Particles,
    acc: Vec<[f32; 4]>,
    cpu: RefSim,
    nb: Vec<Vec<u32>>,
}

fn one_step(state: &InitialState, options: SimOptions) -> OneStep {
    let mut s = sim(state, options);
    s.run(1);
    let mut cpu = RefSim::new(state);
    let nb = cpu.neighbours();
    cpu.compute_density(&nb);
    cpu.compute_wall_pressure(&nb);
    cpu.compute_forces(&nb);
    OneStep { after: s.read_particles().unwrap(), acc: s.read_acc().unwrap(), cpu, nb }
}

impl OneStep {
    /// Per fluid particle (by id): |Δa| / (|a| + |g|) and the twin's |a|.
    fn acceleration_errors(&self) -> Vec<(usize, f64, f64)> {
        let g = self.cpu.params.gravity.map(f64::from);
        let gnorm = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        let mut out = Vec::new();
        for (slot, &id) in self.after.id.iter().enumerate() {
            let i = id as usize;
            if !self.cpu.is_fluid(i) {
                continue;
            }
            let a = self.cpu.acc[i];
            let an = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            let da = (0..3).map(|d| (self.acc[slot][d] as f64 - a[d]).powi(2)).sum::<f64>().sqrt();
            out.push((i, da / (an + gnorm), an));
        }
        out
    }

    /// Per wall particle (by id): the twin's density and the relative error of the GPU's.
    fn wall_densities(&self) -> Vec<(usize, f64, f64)> {
        let mut out = Vec::new();
        for (slot, &id) in self.after.id.iter().enumerate() {
            let i = id as usize;
            if self.cpu.is_fluid(i) {
                continue;
            }
            let rho_cpu = self.cpu.vel_rho[i][3];
            out.push((i, rho_cpu, (self.after.vel_rho[slot][3] as f64 - rho_cpu).abs() / rho_cpu));
        }
        out
    }
}

/// sph.force reads the neighbour lists sph.density wrote, and walks the grid for a particle with
/// more than [`NEIGHBOUR_LIST_MAX`] neighbours. The fallen drop squeezed towards the floor to
/// 0.6 of its height: the particles inside have more neighbours than a list holds, those at the
/// surface and the edges fewer; both kinds must match the twin.
#[test]
fn forces_match_the_twin_with_and_without_room_in_the_lists() {
    let (_, mut state) = fallen_drop();
    for p in state.pos_mass.iter_mut().filter(|p| p[3] > 0.0) {
        p[1] *= 0.6;
    }
    assert_eq!(
        rillet::sim::ListLayout::for_particles(state.n_particles() as u64, gpu().max_binding_bytes(), false, NEIGHBOUR_LIST_MAX),
        rillet::sim::ListLayout::One,
        "the lists fit this device"
    );
    let step = one_step(&state, SimOptions { cell_size: 0.5, order: CellOrder::Linear, ..options(1) });
    // a list holds the neighbours other than the particle itself
    let listed = |i: usize| step.nb[i].iter().filter(|&&j| j as usize != i).count();
    let errors = step.acceleration_errors();
    let full = errors.iter().filter(|(i, ..)| listed(*i) > NEIGHBOUR_LIST_MAX as usize).count();
    let room = errors.len() - full;
    let worst = errors.iter().map(|e| e.1).fold(0.0, f64::max);
    eprintln!("{full} particles with more neighbours than a list holds, {room} with room; acceleration worst {worst:.2e} of (|a| + |g|)");
    assert!(full > 50 && room > 50, "the squeezed drop should have both kinds ({full} over, {room} within)");
    assert!(worst < 5e-4, "acceleration off by {worst:.2e}");
}

/// Neighbour lists split over two bindings (the layout where one binding cannot hold them: 16M
/// particles on the H200) give the same steps bit for bit as lists in one binding: the squeezed
/// drop of the test above (lists full and lists with room), deterministic steps, reorders.
#[test]
fn split_lists_step_as_lists_in_one_binding() {
    use rillet::sim::ListLayout;
    let (_, mut state) = fallen_drop();
    for p in state.pos_mass.iter_mut().filter(|p| p[3] > 0.0) {
        p[1] *= 0.6;
    }
    let o = SimOptions { cell_size: 0.5, order: CellOrder::Linear, deterministic: true, ..options(2) };
    let mut one = sim(&state, o.clone());
    let mut split = Sim::with_lists(gpu(), &state, o, true).expect("the split lists fit");
    assert_eq!((one.list_layout(), split.list_layout()), (ListLayout::One, ListLayout::Split));
    one.run(12);
    split.run(12);
    let (a, b) = (one.read_particles().unwrap(), split.read_particles().unwrap());
    assert_eq!(a.id, b.id, "the same slots");
    assert!(a.pos_mass == b.pos_mass && a.vel_rho == b.vel_rho, "split lists changed the step");
    assert_eq!(one.read_acc().unwrap(), split.read_acc().unwrap(), "split lists changed sph.force");
}

/// sph.wall_pressure runs its loop only for the wall particles sph.density marked (those within
/// h of fluid); the others must get ρ0 again, whatever they held. The fallen drop with the fluid
/// lifted by 3h off the floor: the floor's pressed particles dry out.
#[test]
fn walls_without_fluid_return_to_rest_density() {
    let (_, mut state) = fallen_drop();
    let rho0 = state.params.rest_density as f64;
    let lift = 3.0 * state.params.h;
    let pressed_before: Vec<bool> = state.vel_rho.iter().map(|v| v[3] as f64 > rho0 * (1.0 + 1e-6)).collect();
    for p in state.pos_mass.iter_mut().filter(|p| p[3] > 0.0) {
        p[1] += lift;
    }
    let walls = one_step(&state, options(1)).wall_densities();
    let dried = walls.iter().filter(|&&(i, rho, _)| pressed_before[i] && rho == rho0).count();
    let worst = walls.iter().map(|w| w.2).fold(0.0, f64::max);
    eprintln!("{dried} wall particles dried out; wall density worst relative error {worst:.2e}");
    assert!(dried > 100, "lifting the fluid should leave pressed wall particles without fluid ({dried} did)");
    assert!(worst < 1e-5, "wall density off by {worst:.2e} relative");
}

/// The walls' approach viscosity (docs/PHYSICS.md, step 4): the fallen drop thrown at the floor
/// and two walls (2 m/s down, 2 and 1 m/s sideways); the GPU's accelerations match the twin's,
/// and the term moves them far more than that tolerance, so the comparison sees it.
#[test]
fn the_walls_approach_viscosity_matches_the_twin() {
    let (_, mut state) = fallen_drop();
    assert_eq!(state.params.wall_approach_viscosity, 1.0, "the default");
    for (p, v) in state.pos_mass.iter().zip(state.vel_rho.iter_mut()) {
        if p[3] > 0.0 {
            v[0] += 2.0;
            v[1] -= 2.0;
            v[2] += 1.0;
        }
    }
    let step = one_step(&state, options(1));
    let worst = step.acceleration_errors().iter().map(|e| e.1).fold(0.0, f64::max);
    let mut off = state.clone();
    off.params.wall_approach_viscosity = 0.0;
    let mut cpu = RefSim::new(&off);
    let nb = cpu.neighbours();
    cpu.compute_density(&nb);
    cpu.compute_wall_pressure(&nb);
    cpu.compute_forces(&nb);
    let g = 9.81;
    let moved = (0..cpu.n_particles())
        .filter(|&i| cpu.is_fluid(i))
        .map(|i| {
            let (a, b) = (step.cpu.acc[i], cpu.acc[i]);
            let an = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            ((0..3).map(|d| (a[d] - b[d]).powi(2)).sum::<f64>().sqrt(), an)
        })
        .map(|(d, an)| d / (an + g))
        .fold(0.0, f64::max);
    eprintln!("approach viscosity: GPU against twin worst {worst:.2e} of (|a| + |g|); the term moves accelerations by up to {moved:.2e}");
    assert!(worst < 5e-4, "acceleration off by {worst:.2e}");
    assert!(moved > 0.05, "the term should matter here ({moved:.2e})");
}

#[test]
fn density_and_force_match_the_cpu_twin() {
    let (_, state) = fallen_drop();
    let step = one_step(&state, options(1));
    let (after, cpu) = (&step.after, &step.cpu);
    let g = cpu.params.gravity.map(f64::from);
    let gnorm = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    let mut worst_rho = 0.0f64;
    for (slot, &id) in after.id.iter().enumerate() {
        let i = id as usize;
        if cpu.is_fluid(i) {
            let rho_cpu = cpu.vel_rho[i][3];
            worst_rho = worst_rho.max((after.vel_rho[slot][3] as f64 - rho_cpu).abs() / rho_cpu);
        }
    }
    let errors = step.acceleration_errors();
    let worst_a = errors.iter().map(|e| e.1).fold(0.0, f64::max);
    let max_a = errors.iter().map(|e| e.2).fold(0.0, f64::max);
    // wall particles: the density that carries their pressure
    let walls = step.wall_densities();
    let pressed = walls.iter().filter(|w| w.1 > cpu.params.rest_density as f64 * (1.0 + 1e-6)).count();
    let worst_wall = walls.iter().map(|w| w.2).fold(0.0, f64::max);
    eprintln!("wall density: worst relative error {worst_wall:.2e} ({pressed} wall particles under pressure)");
    assert!(pressed > 100, "the walls should carry pressure in this state ({pressed} do)");
    assert!(worst_wall < 1e-5, "wall density off by {worst_wall:.2e} relative");
    eprintln!("density: worst relative error {worst_rho:.2e}; acceleration: worst {worst_a:.2e} of (|a| + |g|), max |a| {max_a:.1} m/s²");
    assert!(max_a > 2.0 * gnorm, "the state should have pressure forces well above gravity (max |a| {max_a})");
    assert!(worst_rho < 1e-5, "density off by {worst_rho:.2e} relative");
    assert!(worst_a < 5e-4, "acceleration off by {worst_a:.2e}");
}

#[test]
fn steps_match_across_reorder_intervals_submits_and_the_cpu_twin() {
    let state = build(&small_drop());
    let mut cpu = RefSim::new(&state);
    for _ in 0..STEPS {
        cpu.step();
    }
    let ke = cpu.kinetic_energy();
    assert!(ke > 0.0);

    let run = |interval: u32, chunk: u32, diagnostics: bool, shader_checks: bool| -> Particles {
        let mut o = options(interval);
        o.diagnostics = diagnostics;
        o.shader_checks = shader_checks;
        let mut s = sim(&state, o);
        let mut done = 0;
        while done < STEPS {
            let k = chunk.min(STEPS - done);
            s.run(k);
            done += k;
        }
        let p = s.read_particles().unwrap();
        let d = s.read_diagnostics().unwrap();
        assert_eq!(d.non_finite, 0);
        // a fixed-dt batch measures its last step only (sim.time_step's reduction): the one a
        // readback after it sees, whatever the submit size
        let c = &cpu.last;
        assert!(
            (d.max_speed as f64 - c.max_speed).abs() <= 1e-4 * c.max_speed && c.max_speed > 0.0,
            "submits of {chunk}: fastest particle {} against the twin's {}",
            d.max_speed,
            c.max_speed
        );
        assert!(
            (d.density_error as f64 - c.density_error).abs() <= 1e-3 * c.density_error + 1e-7,
            "submits of {chunk}: mean compression {} against the twin's {}",
            d.density_error,
            c.density_error
        );
        p
    };
    let every = run(1, STEPS, true, false);
    let kept = {
        // the lists kept between grid builds: a skin of 0.03 h, 7 steps per submit; the CPU
        // records the first build, grid.keep decides the others (each reorders; a step that
        // keeps the lists copies the particles to the other set)
        let o = SimOptions { list_skin: 0.03, ..options(9) };
        let mut s = sim(&state, o);
        assert!(s.keeps_lists());
        let mut done = 0;
        while done < STEPS {
            let k = 7.min(STEPS - done);
            s.run(k);
            done += k;
        }
        let (builds, kept) = s.list_builds().unwrap();
        eprintln!("lists kept with a skin of 0.03 h: {builds} steps built, {kept} kept the lists");
        assert_eq!(builds + kept, STEPS, "grid.keep ran once a step");
        assert!(kept > 0, "no step kept the lists");
        assert!(builds > 1, "grid.keep never decided a build");
        s.read_particles().unwrap()
    };
    let cases = [
        ("lists kept (skin 0.03 h), 7 steps per submit", kept),
        ("reorder every 3 steps, 7 steps per submit", run(3, 7, true, false)),
        ("never reorder, 1 step per submit", run(0, 1, true, false)),
        ("reorder every step, diagnostics compiled out", run(1, STEPS, false, false)),
        ("reorder every step, shaders with runtime bounds checks", run(1, STEPS, true, true)),
    ];
    let (dx, dv) = diff_cpu(&every, &cpu);
    eprintln!("reorder every step vs CPU twin: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
    assert!(dx < TOL_X && dv < TOL_V, "GPU (reorder every step) vs CPU: dx {dx:.2e}, dv {dv:.2e}");
    for (name, p) in &cases {
        let (dx, dv) = diff_gpu(p, &every);
        eprintln!("{name} vs reorder every step: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
        assert!(dx < TOL_X && dv < TOL_V, "{name}: dx {dx:.2e}, dv {dv:.2e}");
        let (dx, dv) = diff_cpu(p, &cpu);
        assert!(dx < TOL_X && dv < TOL_V, "{name} vs CPU: dx {dx:.2e}, dv {dv:.2e}");
    }
    // the ids are a permutation in every case (nothing lost or duplicated by reorders)
    for (name, p) in &cases {
        let mut ids = p.id.clone();
        ids.sort_unstable();
        assert!(ids.iter().enumerate().all(|(i, &id)| i as u32 == id), "{name}: ids are not a permutation");
    }
}

#[test]
fn live_option_changes_keep_particles_and_physics() {
    let state = build(&small_drop());
    let mut cpu = RefSim::new(&state);
    for _ in 0..STEPS {
        cpu.step();
    }
    let mut s: Sim = sim(&state, options(1));
    let n = s.n_particles();
    let changes = [
        SimOptions { cell_size: 0.5, order: CellOrder::Linear, ..options(3) },
        SimOptions { cell_size: 2.0, capacity: 8, diagnostics: false, ..options(0) },
        SimOptions { cell_size: 1.5, workgroup_size: 128, ..options(2) },
    ];
    s.run(STEPS / 4);
    for o in changes {
        s.set_options(o.clone()).expect("option change");
        s.run(STEPS / 4);
        assert_eq!(s.n_particles(), n);
        assert_eq!(s.options(), &o);
    }
    let p = s.read_particles().unwrap();
    let mut ids = p.id.clone();
    ids.sort_unstable();
    assert!(ids.iter().enumerate().all(|(i, &id)| i as u32 == id));
    let (dx, dv) = diff_cpu(&p, &cpu);
    eprintln!("with live changes vs CPU twin: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
    assert!(dx < TOL_X && dv < TOL_V, "dx {dx:.2e}, dv {dv:.2e}");
    let _ = gpu();
}

/// The same with the lists kept between grid builds: a change of cells (other scan levels,
/// whose indirect dispatches grid.keep then sets) or of workgroups makes the next step build,
/// and the physics stays the twin's; the skin itself cannot change while the simulation runs.
#[test]
fn live_option_changes_with_kept_lists() {
    let state = build(&small_drop());
    let mut cpu = RefSim::new(&state);
    for _ in 0..STEPS {
        cpu.step();
    }
    let kept = |o: SimOptions| SimOptions { list_skin: 0.03, ..o };
    let mut s: Sim = sim(&state, kept(options(1)));
    assert!(s.keeps_lists());
    let changes = [
        kept(SimOptions { cell_size: 0.5, order: CellOrder::Linear, ..options(1) }),
        kept(SimOptions { workgroup_size: 128, ..options(1) }),
    ];
    s.run(STEPS / 3);
    for o in changes {
        let (built, _) = s.list_builds().unwrap();
        s.set_options(o.clone()).expect("option change");
        s.run(STEPS / 3);
        assert!(s.list_builds().unwrap().0 > built, "the step after a change builds");
    }
    let e = s.set_options(SimOptions { list_skin: 0.1, ..s.options().clone() }).unwrap_err();
    assert!(e.to_string().contains("grid.list_skin"), "{e}");
    let (builds, kept_steps) = s.list_builds().unwrap();
    assert!(kept_steps > 0 && builds + kept_steps == STEPS / 3 * 3);
    let (dx, dv) = diff_cpu(&s.read_particles().unwrap(), &cpu);
    eprintln!("kept lists with live changes vs CPU twin: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s ({builds} builds, {kept_steps} kept)");
    assert!(dx < TOL_X && dv < TOL_V, "dx {dx:.2e}, dv {dv:.2e}");
}

/// A simulation that keeps its lists, made deterministic while it runs (the panel's checkbox):
/// from then on every step builds the grid with its cells in id order; made so before its first
/// step, two runs give the same bits whatever their submits.
#[test]
fn deterministic_turned_on_with_kept_lists_builds_every_step() {
    let state = build(&small_drop());
    let kept = SimOptions { list_skin: 0.1, order: CellOrder::Linear, cell_size: 0.5, ..options(1) };
    let deterministic = SimOptions { deterministic: true, ..kept.clone() };
    let mut s = sim(&state, kept.clone());
    assert!(s.keeps_lists());
    s.run(20);
    let (b0, k0) = s.list_builds().unwrap();
    assert!(k0 > 0, "the lists were kept before");
    s.set_options(deterministic.clone()).expect("deterministic, live");
    s.run(30);
    let (b1, k1) = s.list_builds().unwrap();
    assert_eq!((b1 - b0, k1), (30, k0), "every deterministic step builds");
    let run = |chunk: u32| {
        let mut s = sim(&state, kept.clone());
        s.set_options(deterministic.clone()).expect("deterministic, live");
        for _ in 0..(30 / chunk) {
            s.run(chunk);
        }
        s.read_particles().unwrap().by_id()
    };
    let (a, b) = (run(30), run(5));
    assert_eq!(a.pos_mass, b.pos_mass, "positions, one submit against six");
    assert_eq!(a.vel_rho, b.vel_rho, "velocities and densities, one submit against six");
}

#[test]
fn all_pairs_baseline_density_matches_the_cpu_twin() {
    let state = build(&small_drop());
    let s = sim(&state, options(1));
    let (density, _ms) = s.all_pairs_density(1).expect("the all-pairs pass binds");
    let mut cpu = RefSim::new(&state);
    let nb = cpu.neighbours();
    cpu.compute_density(&nb);
    // no step ran: slots are still in creation order
    let mut worst = 0.0f64;
    for (i, &rho) in density.iter().enumerate() {
        if cpu.is_fluid(i) {
            worst = worst.max((rho as f64 - cpu.vel_rho[i][3]).abs() / cpu.vel_rho[i][3]);
        }
    }
    assert!(worst < 1e-5, "all-pairs density off by {worst:.2e} relative");
}

/// With `deterministic`, the step gives the same bits whatever the submits, the reorder
/// interval or the run: every cell's particles are summed in id order.
#[test]
fn a_deterministic_step_gives_the_same_bits_every_run() {
    let state = build(&small_drop());
    let det = |reorder_interval| SimOptions { deterministic: true, order: CellOrder::Linear, cell_size: 0.5, ..options(reorder_interval) };
    let mut a = sim(&state, det(1));
    a.run(60);
    let mut b = sim(&state, det(1));
    for _ in 0..6 {
        b.run(10);
    }
    let mut c = sim(&state, det(0));
    c.run(60);
    let (pa, pb, pc) = (a.read_particles().unwrap().by_id(), b.read_particles().unwrap().by_id(), c.read_particles().unwrap().by_id());
    assert!(pa.pos_mass.iter().zip(&pa.vel_rho).any(|(_, v)| v[0] != 0.0 || v[1] != 0.0), "the drop moved");
    assert_eq!(pa.pos_mass, pb.pos_mass, "positions, one submit against six");
    assert_eq!(pa.vel_rho, pb.vel_rho, "velocities and densities, one submit against six");
    assert_eq!(pa.pos_mass, pc.pos_mass, "positions, reordered every step against never");
    assert_eq!(pa.vel_rho, pc.vel_rho);
}

/// grid.keep against its CPU twin (`keep::decide`), one step at a time: from the words the step
/// before left (the travel, the last build's skin, the last step's largest move, an overflow),
/// the twin's decision — build or keep, the travel carried, the skin a build lists with — is the
/// GPU's, bit for bit. The small drop falls from rest: its largest move grows from 2 µm to
/// 60 µm a step over the 40 steps; with a skin whose half is 30 µm it keeps the lists early,
/// builds by itself as the travel adds up, and lists without the skin once a single step moves
/// farther than a quarter of it, 15 µm. The CPU records the first build.
#[test]
fn grid_keep_decides_as_its_twin() {
    use rillet::sim::keep::{self, Kept};
    let state = build(&small_drop());
    let h = state.params.h;
    let skin = 2.0 * 30e-6 / h;
    let mut s = sim(&state, SimOptions { list_skin: skin, ..options(9) });
    let f = |w: &[u32], k: u32| f32::from_bits(w[k as usize]);
    let mut before = s.keep_words().unwrap();
    let (mut decided, mut kept, mut without) = (0, 0, 0);
    for step in 0..40u32 {
        s.run(1);
        let after = s.keep_words().unwrap();
        let force = step == 0;
        let last = Kept { travel: f(&before, keep::TRAVEL), skin: f(&before, keep::SKIN) };
        let (build, next) = keep::decide(last, f(&before, keep::MOVE), before[keep::OVERFLOW as usize] != 0, force, skin, h);
        let built = after[keep::BUILDS as usize] - before[keep::BUILDS as usize] == 1;
        assert_eq!(built, build, "step {step}: the GPU built {built}, the twin {build} ({last:?})");
        assert_eq!(after[keep::BUILDS as usize] + after[keep::KEPT as usize], step + 1);
        let gpu = Kept { travel: f(&after, keep::TRAVEL), skin: f(&after, keep::SKIN) };
        assert_eq!(gpu, next, "step {step}: what the GPU carries on");
        decided += (build && !force) as u32;
        kept += !build as u32;
        without += (build && next.skin == 0.0) as u32;
        before = after;
    }
    eprintln!("40 steps: {decided} builds decided on the GPU, {without} builds without the skin, {kept} steps kept the lists");
    assert!(decided > 0 && kept > 0 && without > 0, "the case should exercise every decision");
    // each kind of step ran its own passes (the walk with the skin, the walk within h, the
    // lists): the physics is that of lists built every step
    let mut every = sim(&state, options(9));
    every.run(40);
    let (dx, dv) = diff_gpu(&s.read_particles().unwrap(), &every.read_particles().unwrap());
    eprintln!("against lists built every step: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
    assert!(dx < TOL_X && dv < TOL_V, "kept lists vs built every step: dx {dx:.2e}, dv {dv:.2e}");
}
