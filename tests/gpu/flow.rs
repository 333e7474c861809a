//! Emitters and open faces on the GPU: the emitters create exactly the particles their rate
//! gives, particles in = particles now + particles out, a full reserve starves the emitters
//! (counted, nothing overwritten), and steps with a mesh solid, an emitter and an open face match
//! the CPU twin (the tolerances of tests/gpu_sph.rs).

use crate::common;

use common::{build, scene, sim};
use rillet::reference::RefSim;
use rillet::scene::Scene;
use rillet::scene::setup::sim_options;
use rillet::sim::Particles;

/// A 0.4 × 0.3 × 0.2 m box, open at XMax: an emitter (0.1 m square, 5 × 5 points) sends water
/// along +x at 3 m/s (a layer every 0.02 / 3 s = 33⅓ steps of 0.2 ms); a block of water near the
/// open face (150 particles) moves out through it at `block_speed`.
fn flow_scene(capacity: &str, block_speed: f32) -> Scene {
    scene(&format!(
        "(
            domain: (min: (0.0, 0.0, 0.0), max: (0.4, 0.3, 0.2)),
            fluid: [(min: (0.3, 0.1, 0.04), max: (0.4, 0.2, 0.16), velocity: ({block_speed}, 0.0, 0.0))],
            emitters: [(shape: Rectangle(size: (0.1, 0.1)), center: (0.03, 0.15, 0.1), direction: (1.0, 0.0, 0.0), speed: 3.0, end: 1.0)],
            {capacity}
            walls: (open: [XMax]),
            physics: (spacing: 0.02, pressure: SpeedOfSound(40.0), dt: 0.0002, gravity: (0.0, 0.0, 0.0)),
        )"
    ))
}

fn fluid_now(p: &Particles) -> u64 {
    p.pos_mass.iter().filter(|x| x[3] > 0.0).count() as u64
}

/// Layers due by the end of `steps` steps at the emitter's rate: the layer times k · s / v,
/// k = 0, 1, …, before steps · dt (exact rational arithmetic: s / v = 1 / 150 s, dt = 1 / 5000 s).
fn layers_by_rate(steps: u64) -> u64 {
    // k / 150 < steps / 5000  ⟺  k · 5000 < steps · 150
    (steps * 150).div_ceil(5000)
}

#[test]
fn emitters_create_exactly_what_their_rate_gives_and_in_equals_now_plus_out() {
    let scene = flow_scene("", 2.0);
    let state = build(&scene);
    let n0 = state.n_fluid as u64;
    let points = state.emitters.points.len() as u64;
    assert_eq!(points, 25);
    // the scene reserves what the emitter creates from start (0) to end (1 s): 150 layers
    assert_eq!(state.n_free() as u64, 150 * points);
    let mut sim = sim(&state, sim_options(&scene));
    let mut done = 0u64;
    // step counts that fall between layer times (k · 33⅓ steps): no rounding at a boundary
    for steps in [1u64, 47, 140, 260] {
        let frac = (steps as f64 * 150.0 / 5000.0).fract();
        assert!(frac > 0.01 && frac < 0.99, "{steps} steps lie on a layer time");
        sim.run((steps - done) as u32);
        done = steps;
        let d = sim.read_diagnostics().unwrap();
        let want = layers_by_rate(steps) * points;
        assert_eq!(d.emitted as u64, want, "emitted after {steps} steps");
        assert_eq!(state.emitters.particles_in(steps), want, "the closed form after {steps} steps");
        let p = sim.read_particles().unwrap();
        let now = fluid_now(&p);
        assert_eq!(n0 + d.emitted as u64, now + d.outflow as u64, "in = now + out after {steps} steps");
        assert_eq!(d.starved, 0);
        assert_eq!(d.free_slots as u64, state.n_particles() as u64 - state.n_boundary() as u64 - now, "free slots");
        assert_eq!(d.wall_clamps, 0, "open face: no clamps");
        if steps == 260 {
            // the thrown block has left through the open face by now
            assert!(d.outflow as u64 >= n0 / 2, "outflow {} of {n0}", d.outflow);
        }
    }
}

#[test]
fn a_full_reserve_starves_the_emitters_and_overwrites_nothing() {
    // room for the block and two layers of 25; the block moves at 0.2 m/s: its front row
    // (0.01 m from the open face) leaves after 0.05 s, 250 steps
    let scene = flow_scene("fluid_capacity: 200,", 0.2);
    let state = build(&scene);
    assert_eq!(state.n_fluid, 150);
    assert_eq!(state.n_free(), 50);
    let mut sim = sim(&state, sim_options(&scene));
    // 60 steps: the layers of steps 0 and 34 fit
    sim.run(60);
    let d = sim.read_diagnostics().unwrap();
    assert_eq!((d.emitted, d.starved, d.outflow, d.free_slots), (50, 0, 0, 0));
    // 90 steps: the layer of step 67 finds no room; it is counted, and nothing is overwritten
    sim.run(30);
    let d = sim.read_diagnostics().unwrap();
    let p = sim.read_particles().unwrap();
    assert_eq!((d.emitted, d.starved, d.outflow), (50, 25, 0));
    assert_eq!(fluid_now(&p), 200);
    // every particle of the block is still where its own motion took it
    let g = p.by_id();
    for i in 0..150 {
        let (x, x0) = (g.pos_mass[i], state.pos_mass[i]);
        assert!((x[0] - x0[0] - 0.2 * 90.0 * 0.0002).abs() < 1e-3 && (x[1] - x0[1]).abs() < 1e-3, "particle {i}: {x:?} from {x0:?}");
    }
}

/// The bowl scene, coarse (a small test case), with a disc emitter above the bowl (13 points,
/// a layer every 25 steps up to step 60), an open face at XMin and a small block (2 × 2 × 2)
/// thrown out through it at 8 m/s: its layer of lower ids leaves first (step 8), the other
/// later (step 24), so the free slots they leave, in the order the grid lists them (the later
/// first: their slots precede the free range), are not in id order when a layer is emitted
/// (step 25).
fn bowl_with_flow() -> Scene {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("scenes/bowl.ron"))
        .unwrap()
        .replace("spacing: 0.01,", "spacing: 0.025,")
        .replace("dt: 0.0001,", "dt: 0.0002,")
        .replace(
            "    solids: [",
            "    emitters: [(shape: Disc(radius: 0.05), center: (0.55, 0.7, 0.4), direction: (0.0, -1.0, 0.0), speed: 5.0, end: 0.012)],
    walls: (open: [XMin]),
    solids: [",
        )
        .replace("    fluid: [", "    fluid: [\n        (min: (0.0, 0.5, 0.1), max: (0.05, 0.55, 0.15), velocity: (-8.0, 0.0, 0.0)),");
    Scene::parse(&text, root.join("scenes/bowl.ron").to_str().unwrap()).expect("the bowl scene with an emitter")
}

/// Both the GPU and the twin create their particles in free slots, but which slot (and so which
/// id) each new particle gets differs (the GPU's free cell lists them in the order its atomics
/// ran, and slots freed at the open face are reused). Boundary particles are compared by id,
/// fluid particles by position: each GPU particle with the nearest twin particle, a one-to-one
/// match well inside a spacing.
#[test]
fn steps_with_a_mesh_solid_an_emitter_and_an_open_face_match_the_cpu_twin() {
    let scene = bowl_with_flow();
    let state = build(&scene);
    let n_start = (state.n_particles() - state.n_free()) as usize;
    let n_fluid0 = state.n_fluid as u64;
    let mut cpu = RefSim::new(&state);
    let steps = 60;
    for _ in 0..steps {
        cpu.step();
    }
    let mut sim = sim(&state, sim_options(&scene));
    sim.run(steps as u32);
    let d = sim.read_diagnostics().unwrap();
    assert_eq!((d.emitted as u64, d.outflow as u64, d.starved as u64), (cpu.emitted, cpu.outflow, cpu.starved), "counters");
    assert!(cpu.emitted >= 3 * 9 && cpu.outflow > 0, "the case must emit and lose particles: {} in, {} out", cpu.emitted, cpu.outflow);
    let g = sim.read_particles().unwrap().by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    let mut compare = |gi: usize, ci: usize| {
        for a in 0..3 {
            dx = dx.max((g.pos_mass[gi][a] as f64 - cpu.pos_mass[ci][a]).abs());
            dv = dv.max((g.vel_rho[gi][a] as f64 - cpu.vel_rho[ci][a]).abs());
        }
    };
    // boundary particles by id (they never move slots' ids)
    for i in 0..cpu.n_particles() {
        if cpu.is_boundary(i) {
            assert!(g.pos_mass[i][3] < 0.0, "boundary particle {i}");
            compare(i, i);
        }
    }
    // fluid by position: each GPU particle with the nearest twin particle, one to one
    let fluid_gpu: Vec<usize> = (0..g.pos_mass.len()).filter(|&i| g.pos_mass[i][3] > 0.0).collect();
    let fluid_cpu: Vec<usize> = (0..cpu.n_particles()).filter(|&i| cpu.is_fluid(i)).collect();
    assert_eq!(fluid_gpu.len(), fluid_cpu.len(), "fluid particles");
    assert_eq!(fluid_cpu.len() as u64, n_fluid0 + cpu.emitted - cpu.outflow, "in = now + out on the twin");
    let s = scene.physics.spacing as f64;
    let mut taken = vec![false; cpu.n_particles()];
    let mut new = 0;
    for &gi in &fluid_gpu {
        let dist = |ci: usize| (0..3).map(|a| (g.pos_mass[gi][a] as f64 - cpu.pos_mass[ci][a]).powi(2)).sum::<f64>().sqrt();
        let ci = *fluid_cpu.iter().min_by(|&&a, &&b| dist(a).total_cmp(&dist(b))).unwrap();
        assert!(dist(ci) < 0.25 * s, "GPU particle {gi}: nearest twin particle {} m away", dist(ci));
        assert!(!taken[ci], "twin particle {ci} matched twice");
        taken[ci] = true;
        new += (ci >= n_start) as usize;
        compare(gi, ci);
    }
    eprintln!(
        "{} fluid ({new} in slots free at the start), {} out, {steps} steps: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s",
        fluid_gpu.len(),
        cpu.outflow
    );
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
}

/// With `grid.deterministic`, the free slots are ranked by id like every cell, so the GPU fills
/// the lowest free ids first, as the twin does: the whole state compares by id; and the step
/// gives the same bits whatever the submits and the reorder interval, emitted particles and the
/// slots freed at the open face included.
#[test]
fn deterministic_steps_with_an_emitter_and_an_open_face_fill_the_twins_ids_and_repeat_bit_for_bit() {
    let scene = bowl_with_flow();
    let state = build(&scene);
    let options = rillet::sim::SimOptions { deterministic: true, ..sim_options(&scene) };
    let steps = 60;
    let mut cpu = RefSim::new(&state);
    for _ in 0..steps {
        cpu.step();
    }
    let mut a = sim(&state, options.clone());
    a.run(steps);
    let pa = a.read_particles().unwrap().by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        assert_eq!(pa.pos_mass[i][3] > 0.0, cpu.is_fluid(i), "id {i}: fluid on one side only");
        assert_eq!(pa.pos_mass[i][3] == 0.0, cpu.pos_mass[i][3] == 0.0, "id {i}: free on one side only");
        if cpu.pos_mass[i][3] != 0.0 {
            for k in 0..3 {
                dx = dx.max((pa.pos_mass[i][k] as f64 - cpu.pos_mass[i][k]).abs());
                dv = dv.max((pa.vel_rho[i][k] as f64 - cpu.vel_rho[i][k]).abs());
            }
        }
    }
    assert_eq!((cpu.emitted, cpu.outflow), (3 * 13, 8), "the case must emit after the whole block left");
    eprintln!("by id after {steps} steps: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
    // another reorder interval, in three submits
    let mut b = sim(&state, rillet::sim::SimOptions { reorder_interval: 4, ..options });
    for _ in 0..3 {
        b.run(steps / 3);
    }
    let pb = b.read_particles().unwrap().by_id();
    assert!(pa.pos_mass == pb.pos_mass && pa.vel_rho == pb.vel_rho, "the two runs differ");
}
