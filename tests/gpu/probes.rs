//! The GPU probes (`probes::measure_gpu`: `Sim::read_probes`, `shaders/probes.wgsl`) against their CPU twin,
//! `probes::measure` on a copy of the particles: every column of a probe row on a small dam
//! break with slab, point and free-surface gauges, on steps with and without a reorder, WCSPH and
//! DFSPH; and a probe row leaves the run as it was (deterministic mode: the same particles, bit
//! for bit, as a run without probes).

use crate::common;
use rillet::probes::{ProbeRow, ProbeSetup, measure, measure_gpu};
use rillet::scene::Scene;

/// A 0.12 × 0.16 × 0.1 m block at spacing 0.02 (480 particles) collapsing in a 0.4 m tank, and
/// four particles falling as a drop (spray: 3 neighbours each) at the other end; reordered every
/// 3 steps.
fn dam(physics: &str, grid: &str) -> Scene {
    common::scene(&format!(
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.1)), fluid: [(min: (0, 0, 0), max: (0.12, 0.16, 0.1)), (min: (0.3, 0.2, 0.04), max: (0.34, 0.24, 0.06))],
          physics: (spacing: 0.02{physics}), grid: (reorder_interval: 3{grid}))"
    ))
}

fn setup(sim: &rillet::sim::Sim) -> ProbeSetup {
    ProbeSetup::new(sim.params(), 0.02, &[0.0, 0.05, 0.13, 0.39])
        .with_point_gauges(&[[0.05, 0.05], [0.0, 0.0], [0.2, 0.09]])
        .with_surface_gauges(&[[0.03, 0.05], [0.11, 0.02], [0.35, 0.05]])
}

/// Every column of the GPU's row against the twin's; `what` names the state.
fn same_row(gpu: &ProbeRow, cpu: &ProbeRow, what: &str) {
    let close = |name: &str, a: f64, b: f64, tol: f64| {
        assert!((a - b).abs() <= tol, "{what}: {name}: GPU {a} against the twin's {b} (tolerance {tol})");
    };
    assert_eq!(gpu.fluid_particles, cpu.fluid_particles, "{what}: fluid particles");
    assert_eq!(gpu.spray, cpu.spray, "{what}: spray (neighbour counts)");
    assert_eq!(gpu.outside, cpu.outside, "{what}: outside");
    // densities are f32 on both sides: ε = ρ/ρ0 − 1 differs by its rounding alone
    for (name, a, b) in [
        ("max density error", gpu.max_density_error, cpu.max_density_error),
        ("mean density error", gpu.mean_density_error, cpu.mean_density_error),
        ("max density error interior", gpu.max_density_error_interior, cpu.max_density_error_interior),
        ("max density error bulk", gpu.max_density_error_bulk, cpu.max_density_error_bulk),
        ("max compression", gpu.max_compression, cpu.max_compression),
    ] {
        close(name, a, b, 1e-6);
    }
    // sums of f32 shares, by workgroup in f32: relative 1e-5 of the energy's scale
    let scale = cpu.potential.abs().max(cpu.kinetic).max(1e-9);
    close("kinetic", gpu.kinetic, cpu.kinetic, 1e-5 * scale);
    close("potential", gpu.potential, cpu.potential, 1e-5 * scale);
    close("elastic", gpu.elastic, cpu.elastic, 1e-4 * cpu.elastic.abs() + 1e-12);
    let momentum = cpu.momentum.iter().map(|m| m.abs()).fold(1e-9, f64::max);
    for a in 0..3 {
        close("momentum", gpu.momentum[a], cpu.momentum[a], 1e-5 * momentum + 1e-9);
    }
    close("max speed", gpu.max_speed, cpu.max_speed, 1e-6 * cpu.max_speed.max(1.0));
    close("min wall distance", gpu.min_wall_distance, cpu.min_wall_distance, 1e-6);
    close("front", gpu.front, cpu.front, 1e-6);
    assert_eq!(gpu.gauges.len(), cpu.gauges.len(), "{what}: gauges");
    for (k, (a, b)) in gpu.gauges.iter().zip(&cpu.gauges).enumerate() {
        // slab and point gauges count particles (exact); the free-surface gauges' crossings are
        // interpolated from f32 kernel sums
        close(&format!("gauge {k}"), *a, *b, 1e-5);
    }
}

fn compare(scene: &Scene, steps: u64, every: u64, what: &str) {
    let state = common::build(scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(scene));
    let setup = setup(&sim);
    let (mut wet_surface, mut spray) = (0, 0);
    for step in 0..=steps {
        if step % every == 0 || step == steps {
            let p = sim.read_particles().unwrap();
            let cpu = measure(&setup, &p, step, 0.0);
            let gpu = measure_gpu(&mut sim, &setup, step, 0.0).unwrap();
            same_row(&gpu, &cpu, &format!("{what}, step {step}"));
            wet_surface += cpu.gauges[7..].iter().filter(|&&g| g > 0.0).count();
            spray += cpu.spray;
        }
        sim.run(1);
    }
    // the free-surface gauges read water where there is some (not two zeros that agree)
    assert!(wet_surface > 0, "{what}: no free-surface gauge found water");
    assert!(spray > 0, "{what}: the drop was never spray");
}

#[test]
fn gpu_probes_match_the_cpu_twin_wcsph() {
    compare(&dam("", ""), 400, 40, "WCSPH");
}

#[test]
fn gpu_probes_match_the_cpu_twin_dfsph() {
    compare(&dam(", solver: DFSPH, dt: 0.001", ""), 150, 25, "DFSPH");
}

/// A probe row builds a grid but changes nothing the next steps read: a deterministic run probed
/// every 5 steps ends bit for bit where the same run without probes does.
#[test]
fn a_probe_row_leaves_the_run_as_it_was() {
    let scene = dam("", ", deterministic: true");
    let state = common::build(&scene);
    let run = |probe: bool| {
        let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
        let setup = setup(&sim);
        for step in 0..30 {
            if probe && step % 5 == 0 {
                measure_gpu(&mut sim, &setup, step, 0.0).unwrap();
            }
            sim.run(1);
        }
        sim.read_particles().unwrap().by_id()
    };
    let (plain, probed) = (run(false), run(true));
    assert_eq!(plain.pos_mass, probed.pos_mass, "positions");
    assert_eq!(plain.vel_rho, probed.vel_rho, "velocities and densities");
}
