//! Floating bodies (docs/PHYSICS.md, "Floating bodies"): bodies.force and bodies.integrate on
//! the GPU against the CPU twin, across reorders and submissions, contacts included; and what
//! the water does to a body.

use crate::common;

use glam::DVec3;
use rillet::reference::RefSim;
use rillet::sim::SimOptions;
use rillet::sim::layout::CellOrder;

/// A tank of water with a light box dropped onto it (turned), a heavy sphere thrown at the dry
/// floor, and a paddle on a path pushing the water.
const TANK: &str = r#"(
    domain: (min: (0.0, 0.0, 0.0), max: (0.4, 0.3, 0.12)),
    fluid: [(min: (0.06, 0.0, 0.0), max: (0.24, 0.12, 0.12))],
    solids: [
        Box(center: (0.15, 0.17, 0.06), size: (0.12, 0.08, 0.08), rotation: (0.0, 0.0, 10.0), floating: (density: 500.0, velocity: (0.0, -0.3, 0.0))),
        Sphere(center: (0.32, 0.045, 0.06), radius: 0.04, floating: (density: 2000.0, velocity: (0.0, -0.5, 0.0))),
        Box(center: (0.03, 0.15, 0.06), size: (0.04, 0.3, 0.12), motion: (translation: Sine(amplitude: (0.01, 0.0, 0.0), period: 0.2))),
    ],
    physics: (spacing: 0.02),
)"#;

/// 60 steps on the GPU (two submissions, a reorder every 7 steps) against the twin: every
/// particle within 2e-5 m and 2e-3 m/s, each body's centre, velocity, turn and force within
/// the same bounds, the sphere's particles where its state puts them; the bodies moved and the
/// sphere touched the floor.
#[test]
fn floating_bodies_match_the_cpu_twin() {
    let scene = common::scene(TANK);
    let state = common::build(&scene);
    let k = &state.kinematics;
    assert_eq!((k.bodies.len(), k.states.len()), (3, 3));
    assert!(k.floats());
    let mut cpu = RefSim::new(&state);
    let steps = 60;
    let mut touched = 0;
    for _ in 0..steps {
        cpu.step();
        touched = touched.max(cpu.bodies[1].contacts);
    }
    let options = SimOptions { reorder_interval: 7, order: CellOrder::Morton, ..rillet::scene::setup::sim_options(&scene) };
    let mut sim = common::sim(&state, options);
    sim.run(25);
    sim.run(steps - 25);
    let g = sim.read_particles().unwrap();
    let bodies = g.bodies.clone();
    let g = g.by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            if cpu.is_fluid(i) {
                dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
            }
        }
    }
    let v = |a: [f32; 3]| DVec3::from(a.map(f64::from));
    for (b, (gpu, twin)) in bodies.iter().zip(&cpu.bodies).enumerate() {
        let q = gpu.orientation.map(f64::from);
        // the angle between the two orientations, 2 |q − q'| for close ones (acos of their dot
        // product has no precision there)
        let (qg, qt) = (glam::DVec4::from(q), glam::DVec4::from(twin.orientation.to_array()));
        let turn = 2.0 * (qg - qt).length().min((qg + qt).length());
        let (ex, ev, ef) =
            ((v(gpu.position) - twin.position).length(), (v(gpu.velocity) - twin.velocity).length(), (v(gpu.force) - twin.force).length());
        eprintln!(
            "body {b}: at {:.5?} moving {:.4?} m/s, force {:.4?} N, {} contacts; against the twin {ex:.2e} m, {ev:.2e} m/s, {turn:.2e} rad, {ef:.2e} N",
            twin.position.to_array(),
            twin.velocity.to_array(),
            twin.force.to_array(),
            twin.contacts
        );
        assert!(ex < 2e-5 && ev < 2e-3 && turn < 1e-4, "body {b}: {ex:.2e} m, {ev:.2e} m/s, {turn:.2e} rad");
        assert!(ef < 2e-3 * twin.force.length().max(twin.mass * 9.81), "body {b}: force {:?} against {:?}", gpu.force, twin.force);
    }
    eprintln!("{} fluid + {} boundary, {steps} steps: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s", state.n_fluid, state.n_boundary());
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
    // the sphere's particles where its state puts them: c + R (x0 − c0)
    let pose = rillet::sim::motion::Pose::of_state(&k.bodies[1], &bodies[1]);
    for id in (k.states[1].first..k.states[1].first + k.states[1].count).map(|i| i as usize) {
        let want = pose.apply(DVec3::from(k.rest[id].map(f64::from)));
        let got = DVec3::new(g.pos_mass[id][0] as f64, g.pos_mass[id][1] as f64, g.pos_mass[id][2] as f64);
        // the state is one step ahead of the particles (moved at the end of the last step)
        assert!((got - want).length() < 1e-3, "particle {id}: {got} against the state's {want}");
    }
    // the water pushed the box up (it came down at 0.3 m/s) and the sphere hit the floor
    assert!(cpu.bodies[0].force.y > 0.0, "no lift on the box: {}", cpu.bodies[0].force);
    assert!(touched > 0, "the sphere never touched the floor");
    assert!(cpu.bodies[2].force.length() > 0.0, "no force recorded on the paddle");

    // held (the app's drag): 10 more steps at a given velocity, the same on both
    let (x, v) = (bodies[0].position, [0.2f32, 0.05, 0.0]);
    sim.hold_body(0, Some((x, v)));
    let b = &mut cpu.bodies[0];
    (b.held, b.position, b.velocity, b.angular_velocity) =
        (true, DVec3::from(x.map(f64::from)), DVec3::from(v.map(f64::from)), DVec3::ZERO);
    let q0 = b.orientation;
    let mut t = 0.0;
    for _ in 0..10 {
        cpu.step();
        t += cpu.last.dt;
    }
    sim.run(10);
    let held = sim.read_particles().unwrap().bodies[0];
    let want = DVec3::from(x.map(f64::from)) + DVec3::from(v.map(f64::from)) * t;
    let got = DVec3::from(held.position.map(f64::from));
    assert!(
        (got - want).length() < 1e-5 && (cpu.bodies[0].position - want).length() < 1e-9,
        "held: {got} and {} against {want}",
        cpu.bodies[0].position
    );
    assert_eq!((held.floating, cpu.bodies[0].orientation), (2, q0), "a held body moves at its velocity, unturned");
}
