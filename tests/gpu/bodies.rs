//! Solids and bodies of fluid beyond boxes: how meshes are sampled and filled, steps with a mesh
//! solid and a mesh of moving fluid on the GPU against the CPU twin (the tolerances of
//! tests/gpu_sph.rs), and a fast jet against the thinnest plate a scene accepts.

use crate::common;

use glam::DVec3;
use rillet::reference::RefSim;
use rillet::scene::Scene;
use rillet::scene::geometry::{Placement, Primitive, Shape, TriMesh, coverage_gap, primitive_mesh, uv_sphere};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::Arc;

/// The smallest distance between two of `points` (a hash grid of cell `cell`; pairs farther
/// than `cell` apart are not looked at).
fn closest_pair(points: &[DVec3], cell: f64) -> f64 {
    let key = |p: DVec3| ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64, (p.z / cell).floor() as i64);
    let mut grid: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
    for (i, p) in points.iter().enumerate() {
        grid.entry(key(*p)).or_default().push(i);
    }
    let mut best = f64::INFINITY;
    for (i, p) in points.iter().enumerate() {
        let (x, y, z) = key(*p);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &j in grid.get(&(x + dx, y + dy, z + dz)).map_or(&[][..], |v| v.as_slice()) {
                        if j != i {
                            best = best.min((points[j] - *p).length());
                        }
                    }
                }
            }
        }
    }
    best
}

/// A sphere, a box and a cylinder given as meshes: their shells hold area × layers / s²
/// particles within 5 %, no two closer than half a spacing, and no point of the surface farther
/// than 1.5 spacings from the shell (no uncovered spot wider than that).
#[test]
fn mesh_shells_are_even_and_cover_the_surface() {
    let (s, layers) = (0.01, 2.0);
    let thickness = layers * s;
    let here = Placement::new(1.0, [0.0; 3], [0.0; 3]);
    let shapes: [(&str, TriMesh, f64, f64); 3] = [
        ("sphere r = 0.5 m", uv_sphere(0.5, 96, 192), 4.0 * PI * 0.25, 4.0 / 3.0 * PI * (0.5f64.powi(3) - 0.48f64.powi(3))),
        (
            "box 1.2 × 1 × 0.8 m",
            primitive_mesh(&Primitive::Box { half: DVec3::new(0.6, 0.5, 0.4) }, &here, 4),
            2.0 * (1.2 + 0.8 + 0.96),
            0.96 - 1.16 * 0.96 * 0.76,
        ),
        (
            "cylinder r = 0.6 m, 1.2 m high",
            primitive_mesh(&Primitive::Cylinder { radius: 0.6, half_height: 0.6 }, &here, 384),
            2.0 * PI * 0.6 * (0.6 + 1.2),
            PI * (0.36 * 1.2 - 0.58 * 0.58 * 1.16),
        ),
    ];
    for (name, mesh, area, shell_volume) in shapes {
        mesh.check_closed().unwrap();
        let shell = Shape::Mesh(Arc::new(mesh.clone())).shell(s, thickness);
        let n = shell.len() as f64;
        let by_area = area * layers / (s * s);
        let by_volume = shell_volume / (s * s * s);
        let closest = closest_pair(&shell, 2.0 * s);
        let gap = coverage_gap(&mesh, &shell, 0.5 * s, 1.5 * s);
        eprintln!(
            "{name}: {n} particles, area × layers / s² = {by_area:.0} ({:+.2} %), shell volume / s³ = {by_volume:.0} ({:+.2} %), closest pair {:.3} s, worst gap {gap:?}",
            100.0 * (n / by_area - 1.0),
            100.0 * (n / by_volume - 1.0),
            closest / s
        );
        assert!((n / by_area - 1.0).abs() < 0.05, "{name}: {n} against {by_area:.0}");
        assert!((n / by_volume - 1.0).abs() < 0.025, "{name}: {n} against the shell's volume, {by_volume:.0}");
        assert!(closest >= 0.5 * s, "{name}: two particles {closest} m apart");
        assert!(gap.is_none(), "{name}: a surface point farther than 1.5 spacings from the shell: {gap:?}");
    }
}

/// A sphere mesh filled on the lattice holds its volume / s³ particles within 3 %.
#[test]
fn a_mesh_of_fluid_holds_its_volume() {
    let (r, s) = (0.3, 0.01);
    let mesh = uv_sphere(r, 128, 256);
    let n = Shape::Mesh(Arc::new(mesh)).fill(s).len() as f64;
    let want = 4.0 / 3.0 * PI * r * r * r / (s * s * s);
    eprintln!("sphere r = {r} m at s = {s} m: {n} particles, volume / s³ = {want:.0} ({:+.2} %)", 100.0 * (n / want - 1.0));
    assert!((n / want - 1.0).abs() < 0.03, "{n} against {want:.0}");
}

fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A ball of water (an STL mesh) thrown into a bowl (an OBJ mesh solid): 60 steps on the GPU
/// against the CPU twin, within the tolerances of tests/gpu_sph.rs.
#[test]
fn steps_with_a_mesh_solid_and_a_moving_mesh_of_fluid_match_the_cpu_twin() {
    // the bowl scene at a coarse spacing: a small test case
    let text = std::fs::read_to_string(root().join("scenes/bowl.ron"))
        .unwrap()
        .replace("spacing: 0.01,", "spacing: 0.025,")
        .replace("dt: 0.0001,", "dt: 0.0002,");
    let scene = Scene::parse(&text, root().join("scenes/bowl.ron").to_str().unwrap()).expect("the coarse bowl scene");
    let state = common::build(&scene);
    assert!(state.n_fluid > 100 && state.n_boundary() > 1000, "{} fluid, {} boundary", state.n_fluid, state.n_boundary());
    // a loaded scene's count (what the device check reads) is exact, meshes included
    assert_eq!(rillet::scene::lattice::count_particles(&scene), (state.n_fluid as u64, state.n_boundary() as u64));
    // the fluid starts moving
    assert!(state.vel_rho[..state.n_fluid as usize].iter().all(|v| (v[0] - 1.5).abs() < 1e-6 && (v[1] + 1.3).abs() < 1e-6));
    let mut cpu = RefSim::new(&state);
    let steps = 60;
    for _ in 0..steps {
        cpu.step();
    }
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
    sim.run(steps);
    let g = sim.read_particles().unwrap().by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
        }
    }
    eprintln!("{} fluid + {} boundary, {steps} steps: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s", state.n_fluid, state.n_boundary());
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
}

/// A jet of 5 m/s against the thinnest plate a scene accepts (two spacings thick, across the
/// whole tank), 2000 steps: not one fluid particle gets to the far side, and none is clamped at
/// the domain's faces. The walls are free slip (no wall viscosity): before the walls' approach
/// viscosity the plate held, but the splash off it got through the tank's walls unless the scene
/// set a wall viscosity (thousands of clamps with 0 or 0.05; docs/PHYSICS.md, "Walls").
#[test]
fn a_fast_jet_does_not_get_through_the_thinnest_plate() {
    let text = "(
        domain: (min: (0, 0, 0), max: (0.6, 0.4, 0.3)),
        fluid: [(min: (0.08, 0.12, 0.08), max: (0.2, 0.26, 0.22), velocity: (5.0, 0.0, 0.0))],
        solids: [Box(center: (0.42, 0.2, 0.15), size: (0.04, 0.4, 0.3))],
        physics: (spacing: 0.02, pressure: SpeedOfSound(60.0), wall_viscosity: 0.0, dt: 0.00025),
    )";
    let scene = Scene::parse(text, "leak test").expect("the leak test scene");
    // the plate is the thinnest accepted: a thinner one is refused
    let thinner = text.replace("size: (0.04, 0.4, 0.3)", "size: (0.039, 0.4, 0.3)");
    let err = Scene::parse(&thinner, "leak test").unwrap_err().to_string();
    assert!(err.contains("solids[0].size[0]"), "{err}");
    let state = common::build(&scene);
    let far = 0.44;
    // deterministic: the splash is chaotic, and the same bits every run keep the check from
    // depending on the order the GPU's atomics sum in
    let options = rillet::sim::SimOptions { deterministic: true, ..rillet::scene::setup::sim_options(&scene) };
    let mut sim = common::sim(&state, options);
    let mut fastest = 0.0f32;
    let mut worst = f32::MIN;
    for _ in 0..20 {
        sim.run(100);
        let p = sim.read_particles().unwrap();
        for (x, v) in p.pos_mass.iter().zip(&p.vel_rho).filter(|(x, _)| x[3] > 0.0) {
            worst = worst.max(x[0]);
            fastest = fastest.max(glam::Vec3::new(v[0], v[1], v[2]).length());
        }
        assert!(worst < far, "after {} steps a fluid particle is at x = {worst} m, past the plate's far face at {far} m", sim.steps());
    }
    let d = sim.read_diagnostics().unwrap();
    eprintln!(
        "{} fluid particles, 2000 steps: the farthest reached x = {worst:.4} m (the plate spans 0.40–0.44 m), wall clamps {}, non-finite {}",
        state.n_fluid, d.wall_clamps, d.non_finite
    );
    assert_eq!(d.wall_clamps, 0, "clamps at the domain's faces");
    assert_eq!(d.non_finite, 0);
    assert!(worst > 0.35, "the jet reached the plate ({worst})");
}

/// A checkpoint belongs to a scene and the meshes it read: a mesh edited after the run makes
/// another scene (resume refuses it), the same files the same one.
#[test]
fn the_scene_hash_covers_the_meshes() {
    let dir = std::env::temp_dir().join(format!("rillet-hash-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenes")).unwrap();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::copy(root().join("scenes/bowl.ron"), dir.join("scenes/bowl.ron")).unwrap();
    std::fs::copy(root().join("assets/ball.stl"), dir.join("assets/ball.stl")).unwrap();
    let bowl = std::fs::read_to_string(root().join("assets/bowl.obj")).unwrap();
    std::fs::write(dir.join("assets/bowl.obj"), &bowl).unwrap();
    let path = dir.join("scenes/bowl.ron");
    let hash = || rillet::scene::hash::scene_hash(&path, &Scene::load(&path).unwrap()).unwrap();
    let first = hash();
    assert_eq!(hash(), first, "the same files, the same scene");
    // the bowl 1 % larger: its vertex lines rewritten
    let larger: String = bowl
        .lines()
        .map(|l| match l.strip_prefix("v ") {
            Some(v) => format!(
                "v {}\n",
                v.split_whitespace().map(|c| (c.parse::<f64>().unwrap() * 1.01).to_string()).collect::<Vec<_>>().join(" ")
            ),
            None => format!("{l}\n"),
        })
        .collect();
    std::fs::write(dir.join("assets/bowl.obj"), larger).unwrap();
    assert_ne!(hash(), first, "an edited mesh is another scene");
    let _ = std::fs::remove_dir_all(&dir);
}
