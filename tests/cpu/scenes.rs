//! Scene files: every shipped scene loads, and broken scenes give errors that name the file, the
//! field and the allowed range (or the line and column). CPU only.

use rillet::scene::{Scene, SceneError};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.ron` under `dir`, recursively, sorted.
fn ron_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ron") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_shipped_scene_loads() {
    let files = ron_files(&root().join("scenes"));
    assert!(files.len() >= 3, "expected at least 3 scenes, found {files:?}");
    for path in &files {
        if let Err(e) = Scene::load(path) {
            panic!("{e}");
        }
    }
}

#[test]
fn default_scene_is_the_dam_break_file() {
    let from_file = Scene::load(&root().join(rillet::scene::DEFAULT_SCENE_PATH)).unwrap();
    assert_eq!(Scene::default_scene(), from_file);
}

fn load_bad(name: &str) -> (SceneError, String) {
    let path = root().join("tests/bad_scenes").join(name);
    assert!(path.is_file(), "{} is missing", path.display());
    let err = Scene::load(&path).expect_err(name);
    let shown = err.to_string();
    assert!(shown.starts_with(&path.display().to_string()), "{shown}");
    assert!(shown.contains(name), "{shown}");
    (err, shown)
}

/// Asserts an out-of-range error for `field` whose message shows `allowed`.
fn assert_invalid(name: &str, want_field: &str, want_allowed: &str) {
    let (err, shown) = load_bad(name);
    let SceneError::Invalid { field, allowed, .. } = &err else { panic!("{name}: expected Invalid, got {err:?}") };
    assert_eq!(field, want_field, "{shown}");
    assert!(allowed.contains(want_allowed), "{shown}");
    assert!(shown.contains(&format!(": {want_field} = ")), "{shown}");
    assert!(shown.contains(&format!("is out of range: allowed {want_allowed}")), "{shown}");
}

/// Asserts a syntax error at `want_line` whose message contains `want_message`.
fn assert_syntax(name: &str, want_line: usize, want_message: &str) {
    let (err, shown) = load_bad(name);
    let SceneError::Syntax { line, column, message, .. } = &err else { panic!("{name}: expected Syntax, got {err:?}") };
    assert_eq!(*line, want_line, "{shown}");
    assert!(*column >= 1, "{shown}");
    assert!(message.contains(want_message), "{shown}");
    assert!(shown.contains(&format!("{name}:{line}:{column}: ")), "{shown}");
}

#[test]
fn syntax_error() {
    assert_syntax("syntax_error.ron", 5, "Expected comma");
}

#[test]
fn unknown_field() {
    assert_syntax("unknown_field.ron", 6, "unknown field `spacnig` in `Physics`, expected one of `spacing`");
}

#[test]
fn negative_spacing() {
    assert_invalid("negative_spacing.ron", "physics.spacing", "(0, 10] m");
}

#[test]
fn zero_cell_size() {
    assert_invalid("zero_cell_size.ron", "grid.cell_size", "[0.5, 2]");
}

#[test]
fn block_outside_domain() {
    assert_invalid("block_outside_domain.ron", "fluid[1].max[1]", "[0, 1] m");
}

#[test]
fn overlapping_blocks() {
    assert_invalid("overlapping_blocks.ron", "fluid[1]", "no overlap with fluid[0]");
}

#[test]
fn dt_too_large() {
    assert_invalid("dt_too_large.ron", "physics.dt", "(0, 0.1] s");
}

#[test]
fn zero_capacity() {
    assert_invalid("zero_capacity.ron", "grid.capacity", "[1, 1000000]");
}

/// Asserts a mesh error for `field` naming the mesh file `path`, whose message contains `want`.
fn assert_mesh(name: &str, want_field: &str, want_path: &str, want: &str) {
    let (err, shown) = load_bad(name);
    let SceneError::Mesh { field, path, message, .. } = &err else { panic!("{name}: expected Mesh, got {err:?}") };
    assert_eq!(field, want_field, "{shown}");
    assert_eq!(path, want_path, "{shown}");
    assert!(message.contains(want), "{shown}");
    assert!(shown.contains(&format!(": {want_field} = \"{want_path}\": ")), "{shown}");
}

#[test]
fn missing_mesh() {
    assert_mesh("missing_mesh.ron", "solids[0].path", "meshes/no_such_mesh.obj", "No such file");
}

#[test]
fn unreadable_mesh() {
    assert_mesh("unreadable_mesh.ron", "fluid[1].mesh", "meshes/garbage.stl", "not a valid STL file");
}

#[test]
fn open_fluid_mesh() {
    assert_mesh("open_fluid_mesh.ron", "fluid[0].mesh", "meshes/open_box.obj", "not closed");
}

#[test]
fn inward_mesh() {
    assert_mesh("inward_mesh.ron", "fluid[0].mesh", "meshes/inward_cube.obj", "face inward");
}

#[test]
fn fluid_mesh_overlap() {
    assert_invalid("fluid_mesh_overlap.ron", "fluid[1]", "no overlap with fluid[0]");
}

#[test]
fn solid_outside_domain() {
    assert_invalid("solid_outside_domain.ron", "solids[0]", "inside the domain (0.0000, 0.0000, 0.0000)..(1.0000, 1.0000, 1.0000)");
}

#[test]
fn fluid_in_solid() {
    assert_invalid("fluid_in_solid.ron", "fluid[0]", "fluid that does not overlap any solid");
}

#[test]
fn thin_solid() {
    assert_invalid("thin_solid.ron", "solids[0].size[1]", "≥ 0.04 m (two spacings");
}

#[test]
fn emitter_outside_domain() {
    assert_invalid("emitter_outside_domain.ron", "emitters[0].center", "an emitter inside the domain");
}

#[test]
fn emitter_into_solid() {
    assert_invalid(
        "emitter_into_solid.ron",
        "emitters[0]",
        "an emitter whose first two support radii (0.0800 m) along its direction are clear of every solid",
    );
}

#[test]
fn emitter_without_end() {
    assert_invalid("emitter_without_end.ron", "emitters[0].end", "an end time, or a `fluid_capacity`");
}

#[test]
fn emitter_too_fast() {
    assert_invalid("emitter_too_fast.ron", "emitters[0].speed", "(0, 100.0000] m/s: below half the speed of sound");
}

#[test]
fn capacity_below_fluid() {
    assert_invalid("capacity_below_fluid.ron", "fluid_capacity", "at least the 1000 particles");
}

#[test]
fn list_skin_too_large() {
    assert_invalid("list_skin_too_large.ron", "grid.list_skin", "[0, 0.5] × h (0 = lists built every step)");
}

#[test]
fn open_face_twice() {
    assert_invalid("open_face_twice.ron", "walls.open[2]", "each face once");
}

#[test]
fn adaptive_time_step_and_dfsph_settings() {
    assert_invalid("adaptive_with_emitter.ron", "physics.time_step", "Fixed in a scene with emitters");
    assert_invalid("adaptive_range_inverted.ron", "physics.time_step.Adaptive.max", "[0.001, 0.1] s (at least time_step.min)");
    assert_invalid("dt_outside_adaptive_range.ron", "physics.dt", "[0.001, 0.004] s");
    assert_invalid("dfsph_tolerance_zero.ron", "physics.dfsph.tolerance", "[0.00001, 0.1]");
    assert_invalid("dfsph_momentum_one.ron", "physics.dfsph.momentum", "[0, 0.8] (0 = plain Jacobi)");
}

/// Moving solids: the solver, keyframes in order, an axis, a path inside the domain, a speed
/// below a tenth of the speed of sound.
#[test]
fn bad_motions() {
    assert_invalid("motion_dfsph.ron", "solids[0].motion", "physics.solver WCSPH");
    assert_invalid("motion_keys_unordered.ron", "solids[0].motion.translation.keys[2].0", "(1, 1000000] s (after the key before it)");
    assert_invalid("motion_zero_axis.ron", "solids[0].motion.rotation.axis", "a direction (not zero)");
    let (_, shown) = load_bad("motion_leaves_domain.ron");
    assert!(
        shown.contains("solids[0].motion = a motion that takes the solid's corner") && shown.contains("inside the domain and its walls"),
        "{shown}"
    );
    let (_, shown) = load_bad("motion_too_fast.ron");
    assert!(
        shown.contains("solids[0].motion = a motion that moves the solid at") && shown.contains("0.1 of the speed of sound"),
        "{shown}"
    );
}

#[test]
fn bad_floating_bodies() {
    assert_invalid("floating_dfsph.ron", "solids[0].floating", "physics.solver WCSPH");
    assert_invalid("floating_with_motion.ron", "solids[0].floating", "one of motion (a prescribed path) or floating (moved by the fluid)");
    assert_invalid("floating_mass_and_density.ron", "solids[0].floating", "one of density (kg/m³) or mass (kg)");
    assert_invalid("floating_too_dense.ron", "solids[0].floating.density", "a density in [50, 23000] kg/m³");
}

#[test]
fn bad_sensors() {
    assert_invalid("sensor_outside_domain.ron", "probes.sensors[1].at", "inside the domain: x in [0, 1], y in [0, 1], z in [0, 1] m");
    assert_invalid("sensor_name_twice.ron", "probes.sensors[1].name", "a name no other sensor has (probes.sensors[0] has it)");
    assert_invalid("sensor_every_zero.ron", "probes.sensor_every", "[1, 1000000] steps");
    assert_invalid("flow_without_normal.ron", "probes.flows[0].normal", "a direction (x, y, z) of non-zero length");
    assert_invalid(
        "force_twice_on_a_solid.ron",
        "probes.forces[1].solid",
        "a solid no other force sensor measures (probes.forces[0] does)",
    );
    assert_invalid("force_on_missing_solid.ron", "probes.forces[0].solid", "a solid's index in `solids`: [0, 0]");
    assert_invalid(
        "force_on_moving_solid.ron",
        "probes.forces[0].solid",
        "a solid without `motion` or `floating` (a moving solid's force is in bodies.csv)",
    );
    assert_invalid(
        "sensor_disc_without_normal.ron",
        "probes.sensors[0].normal",
        "a direction (x, y, z) of non-zero length: a sensor with a diameter is a disc perpendicular to it",
    );
}

#[test]
fn every_bad_scene_is_tested() {
    let names: Vec<String> =
        ron_files(&root().join("tests/bad_scenes")).iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let tested = [
        "adaptive_range_inverted.ron",
        "adaptive_with_emitter.ron",
        "block_outside_domain.ron",
        "capacity_below_fluid.ron",
        "dfsph_momentum_one.ron",
        "dfsph_tolerance_zero.ron",
        "dt_outside_adaptive_range.ron",
        "dt_too_large.ron",
        "emitter_into_solid.ron",
        "emitter_outside_domain.ron",
        "emitter_too_fast.ron",
        "emitter_without_end.ron",
        "floating_dfsph.ron",
        "floating_mass_and_density.ron",
        "floating_too_dense.ron",
        "floating_with_motion.ron",
        "flow_without_normal.ron",
        "fluid_in_solid.ron",
        "fluid_mesh_overlap.ron",
        "force_on_missing_solid.ron",
        "force_on_moving_solid.ron",
        "force_twice_on_a_solid.ron",
        "inward_mesh.ron",
        "list_skin_too_large.ron",
        "missing_mesh.ron",
        "motion_dfsph.ron",
        "motion_keys_unordered.ron",
        "motion_leaves_domain.ron",
        "motion_too_fast.ron",
        "motion_zero_axis.ron",
        "negative_spacing.ron",
        "open_face_twice.ron",
        "open_fluid_mesh.ron",
        "overlapping_blocks.ron",
        "sensor_disc_without_normal.ron",
        "sensor_every_zero.ron",
        "sensor_name_twice.ron",
        "sensor_outside_domain.ron",
        "solid_outside_domain.ron",
        "syntax_error.ron",
        "thin_solid.ron",
        "unknown_field.ron",
        "unreadable_mesh.ron",
        "zero_capacity.ron",
        "zero_cell_size.ron",
    ];
    assert_eq!(names, tested);
}

#[test]
fn missing_file_is_an_io_error() {
    let path = root().join("scenes/no_such_scene.ron");
    let err = Scene::load(&path).unwrap_err();
    let SceneError::Io { file, source } = &err else { panic!("expected Io, got {err:?}") };
    assert_eq!(file, &path.display().to_string());
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(err.to_string().contains("no_such_scene.ron"), "{err}");
}

/// Prints every bad scene's message (`cargo test --release --test cpu scenes::show_messages -- --nocapture`).
#[test]
fn show_messages() {
    for path in ron_files(&root().join("tests/bad_scenes")) {
        println!("{}", Scene::load(&path).unwrap_err());
    }
}

/// The scene shown in README.md is a valid scene.
#[test]
fn the_readme_scene_parses() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("```ron\n").expect("a ron block in README.md") + "```ron\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let scene = Scene::parse(&readme[start..end], "README.md").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scene.solids.len(), 1);
    assert_eq!(scene.probes.point_gauges.len(), 1);
    assert_eq!((scene.emitters.len(), scene.fluid_capacity, scene.walls.open.len()), (1, Some(60000), 1));
}

/// An initial velocity at half the speed of sound or above is refused, naming the entry.
#[test]
fn a_fluid_velocity_near_the_speed_of_sound_is_refused() {
    let scene = |v: &str| {
        format!(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2), velocity: ({v}, 0, 0))], physics: (pressure: SpeedOfSound(20.0), dt: 0.0004))"
        )
    };
    assert!(Scene::parse(&scene("9.9"), "v.ron").is_ok());
    let err = Scene::parse(&scene("10.0"), "v.ron").unwrap_err().to_string();
    assert!(err.contains("fluid[0].velocity = (10, 0, 0)") && err.contains("below half the speed of sound"), "{err}");
}
