//! Every scene in `scenes/` runs on the GPU, and a scene larger than the device allows is
//! refused with an error that names the limit (the parsing side of scenes is tests/scenes.rs).

use crate::common;

use common::gpu;
use rillet::gpu::Gpu;
use rillet::scene::Scene;
use rillet::scene::{lattice, setup};
use rillet::sim::{Sim, SimError};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `*.ron` under `scenes/`, subfolders included, sorted.
fn scene_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root().join("scenes")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "ron") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_scene_runs_a_few_steps() {
    let files = scene_files();
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let name = path.display().to_string();
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let state = setup::build(&scene);
        let t = std::time::Instant::now();
        let mut sim = Sim::new(gpu(), &state, rillet::scene::setup::sim_options(&scene)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let n = sim.n_particles();
        sim.run(3);
        let p = sim.read_particles().unwrap();
        let d = sim.read_diagnostics().unwrap();
        eprintln!("{name}: {n} particles, 3 steps in {:.2} s, max per cell {}", t.elapsed().as_secs_f32(), d.max_per_cell);
        assert_eq!(p.id.len(), n as usize, "{name}");
        let mut ids = p.id.clone();
        ids.sort_unstable();
        assert!(ids.iter().enumerate().all(|(i, &id)| i as u32 == id), "{name}: ids are a permutation");
        assert!(p.pos_mass.iter().chain(&p.vel_rho).all(|v| v.iter().all(|c| c.is_finite())), "{name}: non-finite state");
        assert_eq!(d.non_finite, 0, "{name}");
        assert!(d.max_per_cell > 0, "{name}: diagnostics counted nothing");
        let lo = state.grid_lo;
        let hi = state.grid_hi;
        assert!(p.pos_mass.iter().all(|x| (0..3).all(|a| x[a] >= lo[a] && x[a] <= hi[a])), "{name}: a particle left the grid box");
        // with gravity, the fluid has started to move (a scene without gravity may start at rest)
        if scene.physics.gravity != [0.0; 3] && state.n_fluid > 0 {
            let by_id = p.by_id();
            let moved = (0..state.n_fluid as usize).filter(|&i| (0..3).any(|a| by_id.pos_mass[i][a] != state.pos_mass[i][a])).count();
            assert!(moved > 0, "{name}: no fluid particle moved");
        }
        // a scene with emitters has made water
        if !scene.emitters.is_empty() {
            assert!(d.emitted > 0, "{name}: the emitters made nothing");
            assert_eq!(
                p.pos_mass.iter().filter(|x| x[3] > 0.0).count() as u64,
                state.n_fluid as u64 + d.emitted as u64 - d.outflow as u64,
                "{name}"
            );
        }
    }
}

/// The test device, with its storage-binding limit lowered to `bytes` (to check the refusal on
/// devices that would hold the scene).
fn with_binding_limit(g: &Gpu, bytes: u64) -> Gpu {
    g.with_limits(wgpu::Limits { max_storage_buffer_binding_size: bytes.min(g.limits.max_storage_buffer_binding_size), ..g.limits.clone() })
}

#[test]
fn too_many_particles_is_refused_naming_the_device_limit() {
    let path = root().join("tests/bad_scenes_device/too_many_particles.ron");
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("the scene itself is valid: {e}"));
    let (fluid, boundary) = lattice::count_particles(&scene);
    let n = fluid + boundary;
    let g = gpu();
    let fits = g.max_binding_bytes() / 16;
    let lavapipe_class = 128u64 << 20;
    let limited;
    let device = if n > fits {
        g
    } else {
        eprintln!("this device holds {fits} particles; checking against a 128 MiB binding limit instead");
        limited = with_binding_limit(g, lavapipe_class);
        &limited
    };
    let fits = device.max_binding_bytes() / 16;
    assert!(n > fits, "{n} particles fit in {fits}");
    let state = setup::build(&scene);
    assert_eq!(state.n_particles() as u64, n);
    let err = match Sim::new(device, &state, rillet::scene::setup::sim_options(&scene)) {
        Ok(_) => panic!("{n} particles were accepted by a device that holds {fits}"),
        Err(e) => e,
    };
    let SimError::TooManyParticles { limit, limit_name, max_particles, .. } = &err else {
        panic!("expected TooManyParticles, got {err:?}")
    };
    assert_eq!(*limit_name, "max_storage_buffer_binding_size");
    assert_eq!(*limit, device.max_binding_bytes());
    assert_eq!(*max_particles, fits);
    let text = err.to_string();
    eprintln!("{text}");
    assert!(text.contains("max_storage_buffer_binding_size") && text.contains(&format!("at most {fits} particles fit")), "{text}");
}
