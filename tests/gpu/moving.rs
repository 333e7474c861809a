//! Solids on a prescribed path (docs/PHYSICS.md, "Moving solids"): solids.move and the moving
//! walls' terms on the GPU against the CPU twin (the tolerances of tests/gpu/sph.rs), across
//! reorders and submissions; and what a moving wall does to the water.

use crate::common;

use glam::DVec3;
use rillet::reference::RefSim;
use rillet::sim::SimOptions;
use rillet::sim::layout::CellOrder;

/// A tank with a paddle that slides and rocks in the water (sines) and a cylinder that comes
/// down into it and turns (keyframes, straight and smooth).
pub(crate) const TANK: &str = r#"(
    domain: (min: (0.0, 0.0, 0.0), max: (0.4, 0.3, 0.12)),
    fluid: [(min: (0.0, 0.0, 0.0), max: (0.08, 0.16, 0.12)), (min: (0.12, 0.0, 0.0), max: (0.4, 0.16, 0.12))],
    solids: [
        Box(center: (0.1, 0.15, 0.06), size: (0.04, 0.3, 0.12), motion: (
            translation: Sine(amplitude: (0.03, 0.0, 0.0), period: 0.5),
            rotation: Sine(axis: (0.0, 0.0, 1.0), amplitude: 10.0, period: 0.5, phase: 90.0))),
        Cylinder(center: (0.3, 0.21, 0.06), radius: 0.03, height: 0.08, motion: (
            translation: Keyframes(keys: [(0.0, (0.0, 0.0, 0.0)), (0.024, (0.0, -0.02, 0.0))]),
            rotation: Keyframes(axis: (0.0, 1.0, 0.0), keys: [(0.0, 0.0), (0.02, 10.0), (0.06, -5.0)], smooth: true))),
    ],
    physics: (spacing: 0.02),
)"#;

/// 60 steps on the GPU (two submissions, a reorder every 7 steps) against the twin: every
/// particle within 2e-5 m and 2e-3 m/s, and the moving solids where their motion puts them.
#[test]
fn moving_solids_match_the_cpu_twin() {
    let scene = common::scene(TANK);
    let state = common::build(&scene);
    let k = &state.kinematics;
    assert_eq!(k.bodies.len(), 2);
    let moving = k.body_of.iter().filter(|&&b| b != 0).count();
    assert!(moving > 200 && state.n_fluid > 500, "{moving} moving boundary particles, {} fluid", state.n_fluid);
    let mut cpu = RefSim::new(&state);
    let steps = 60;
    for _ in 0..steps {
        cpu.step();
    }
    // a reorder every 7 steps, in Morton order
    let options = SimOptions { reorder_interval: 7, order: CellOrder::Morton, ..rillet::scene::setup::sim_options(&scene) };
    let mut sim = common::sim(&state, options);
    sim.run(25);
    sim.run(steps - 25);
    let g = sim.read_particles().unwrap().by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            if cpu.is_fluid(i) {
                dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
            }
        }
    }
    eprintln!(
        "{} fluid + {} boundary ({moving} moving), {steps} steps: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s",
        state.n_fluid,
        state.n_boundary()
    );
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
    // the solids moved as their motion says: at the start of step 60 (the pose solids.move
    // gave the last step), against the f64 pose
    let t = cpu.time - cpu.last.dt;
    let mut moved: f64 = 0.0;
    for id in 0..cpu.n_particles() {
        let b = k.body_of[id];
        if b == 0 {
            continue;
        }
        let x0 = DVec3::from(k.rest[id].map(f64::from));
        let want = k.pose(b as usize - 1, t).apply(x0);
        let got = DVec3::new(g.pos_mass[id][0] as f64, g.pos_mass[id][1] as f64, g.pos_mass[id][2] as f64);
        assert!((got - want).length() < 2e-6, "particle {id}: {got} against the pose's {want}");
        moved = moved.max((want - x0).length());
    }
    assert!(moved > 0.005, "the solids moved at most {moved} m");
}

/// A piston pushed into still water from rest: the water gains momentum along the stroke, and
/// none gets into the piston or through the walls.
#[test]
fn a_piston_pushes_the_water() {
    let scene = common::scene(
        r#"(
        domain: (min: (0.0, 0.0, 0.0), max: (0.6, 0.3, 0.08)),
        fluid: [(min: (0.0, 0.0, 0.0), max: (0.04, 0.14, 0.08)), (min: (0.08, 0.0, 0.0), max: (0.6, 0.14, 0.08))],
        solids: [Box(center: (0.06, 0.15, 0.04), size: (0.04, 0.3, 0.08), motion: (translation: Keyframes(keys: [(0.0, (0.0, 0.0, 0.0)), (0.1, (0.04, 0.0, 0.0))], smooth: true)))],
        physics: (spacing: 0.01, dt: 0.0002),
    )"#,
    );
    let state = common::build(&scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
    sim.run(500);
    let p = sim.read_particles().unwrap();
    let d = sim.read_diagnostics().unwrap();
    let (mut px, mut m) = (0.0f64, 0.0f64);
    // at t = 0.1 s the piston spans x = 0.08..0.12 m (its last key), the whole width and height
    let s = 0.01;
    let mut inside = 0;
    for (x, v) in p.pos_mass.iter().zip(&p.vel_rho) {
        if x[3] > 0.0 {
            px += x[3] as f64 * v[0] as f64;
            m += x[3] as f64;
            inside += usize::from(x[0] > 0.08 + 0.25 * s && x[0] < 0.12 - 0.25 * s);
        }
    }
    eprintln!("after 0.1 s: mean vx {:.4} m/s, clamps {}, inside the piston {inside}", px / m, d.wall_clamps);
    // the piston swept 0.04 m × the wetted face in 0.1 s; the water moves along +x
    assert!(px / m > 0.005, "mean vx {} m/s", px / m);
    assert_eq!((d.wall_clamps, inside), (0, 0));
}
