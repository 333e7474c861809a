//! The pressure sensors (sim.sensors) against their CPU twin, `reference::sensors`: each row the
//! GPU kept is the Shepard-corrected interpolation of the state it was taken of, on steps with and
//! without a reorder, with WCSPH's and DFSPH's pressure; and a batch of steps in one submit keeps
//! the same rows, bit for bit, as the same steps one submit each (deterministic mode).

use crate::common;
use rillet::reference::sensors::sensor_reading;
use rillet::scene::Scene;
use rillet::sim::sensors::SensorRow;

/// A small dam break (a 0.1 × 0.16 × 0.1 m block at spacing 0.02, 400 particles) with sensors
/// on the wall behind it, in the water, at its free surface, and in air, and a disc sensor 6 cm
/// across on the wall; reorder every 3 steps, a sensor row every 2.
fn sensed(physics: &str, grid: &str) -> Scene {
    common::scene(&format!(
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.1)), fluid: [(min: (0, 0, 0), max: (0.1, 0.16, 0.1))],
          probes: (sensors: [(name: \"wall_low\", at: (0, 0.03, 0.05)), (name: \"wall_high\", at: (0, 0.11, 0.05)),
                             (name: \"inside\", at: (0.05, 0.05, 0.05)), (name: \"corner\", at: (0, 0, 0)),
                             (name: \"surface\", at: (0.05, 0.16, 0.05), fill_min: 0.9), (name: \"air\", at: (0.3, 0.25, 0.05)),
                             (name: \"wall_disc\", at: (0, 0.07, 0.05), diameter: 0.06, normal: (1, 0, 0))],
                   sensor_every: 2),
          physics: (spacing: 0.02{physics}), grid: (reorder_interval: 3{grid}))"
    ))
}

/// The twin's readings of one state: its step and (p, fill, neighbours) per sensor.
type TwinRow = (u64, Vec<(f64, f64, u32)>);

/// Runs `steps` steps one submit each, reading the state before each; returns the GPU's rows and
/// the twin's readings of the states they were taken of.
fn rows_and_twin(scene: &Scene, steps: u64) -> (Vec<SensorRow>, Vec<TwinRow>) {
    let state = common::build(scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(scene));
    let h = sim.params().h as f64;
    let (rest, stiffness) = (sim.params().rest_density as f64, sim.params().stiffness as f64);
    let spec = scene.sensor_spec();
    let mut twin = Vec::new();
    for step in 0..steps {
        let p = sim.read_particles().unwrap();
        if step % 2 == 0 {
            let tait = |rho: f64| rillet::reference::tait_pressure(rho, rest, stiffness);
            let points: Vec<(f64, f64, u32)> = spec
                .points
                .iter()
                .zip(&spec.fill_min)
                .map(|(x, &f)| sensor_reading(x.map(|c| c as f64), f as f64, &p.pos_mass, &p.vel_rho, |j| p.pressure_at(j, tait), h))
                .collect();
            // a disc sensor reads the mean of its points (the centre's neighbours)
            let readings = spec
                .groups()
                .into_iter()
                .map(|g| {
                    let n = g.len() as f64;
                    let mean = |f: fn(&(f64, f64, u32)) -> f64| points[g.clone()].iter().map(f).sum::<f64>() / n;
                    (mean(|r| r.0), mean(|r| r.1), points[g.start].2)
                })
                .collect();
            twin.push((step, readings));
        }
        sim.run(1);
    }
    (sim.read_sensor_rows().unwrap(), twin)
}

fn compare(scene: &Scene, steps: u64, what: &str) {
    let (rows, twin) = rows_and_twin(scene, steps);
    assert_eq!(rows.iter().map(|r| r.step).collect::<Vec<_>>(), twin.iter().map(|t| t.0).collect::<Vec<_>>(), "{what}: the rows' steps");
    let names = scene.sensor_names();
    // the pressure scale: ρ0 g of the block's height
    let scale = 1000.0 * 9.81 * 0.16;
    let mut worst = (0.0f64, 0.0f64);
    for (row, (step, want)) in rows.iter().zip(&twin) {
        for ((got, want), name) in row.values.iter().zip(want).zip(&names) {
            let (dp, dfill) = ((got.pressure as f64 - want.0).abs(), (got.fill as f64 - want.1).abs());
            worst = (worst.0.max(dp / scale), worst.1.max(dfill));
            assert!(dp <= 1e-4 * scale + 1e-4 * want.0.abs(), "{what}, step {step}, {name}: p {} against {}", got.pressure, want.0);
            assert!(dfill <= 1e-5, "{what}, step {step}, {name}: fill {} against {}", got.fill, want.1);
            assert_eq!(got.neighbours, want.2, "{what}, step {step}, {name}: fluid particles within h");
        }
    }
    let last = rows.last().unwrap();
    let at = |name: &str| last.values[names.iter().position(|n| n == name).unwrap()];
    assert!(at("inside").fill > 0.8 && at("inside").pressure > 0.0, "{what}: in the water {:?}", at("inside"));
    assert!(at("wall_low").fill > 0.3 && at("wall_low").fill < 0.7, "{what}: on the wall {:?}", at("wall_low"));
    assert_eq!((at("air").fill, at("air").pressure, at("air").neighbours), (0.0, 0.0, 0), "{what}: in air");
    // the disc (37 points, 6 cm across on the wall) reads the water beside it
    assert!(at("wall_disc").fill > 0.2 && at("wall_disc").pressure > 0.0, "{what}: the disc {:?}", at("wall_disc"));
    eprintln!("{what}: {} rows; worst |Δp| / ρ0·g·H {:.2e}, |Δfill| {:.2e}", rows.len(), worst.0, worst.1);
}

#[test]
fn sensor_rows_are_the_twins_interpolation_of_the_states_they_sample() {
    compare(&sensed("", ""), 16, "WCSPH");
}

#[test]
fn sensor_rows_read_the_dfsph_pressure_as_the_twin_does() {
    compare(&sensed(", solver: DFSPH", ""), 10, "DFSPH");
}

/// One submit of many steps keeps the same rows as one submit a step, bit for bit, and a ring
/// read between submits loses no row.
#[test]
fn sensor_rows_do_not_depend_on_how_the_steps_are_submitted() {
    let scene = sensed("", ", deterministic: true");
    let state = common::build(&scene);
    let opts = rillet::scene::setup::sim_options(&scene);
    let (mut one, mut many) = (common::sim(&state, opts.clone()), common::sim(&state, opts));
    let mut a = Vec::new();
    for step in 0..20 {
        one.run(1);
        if step == 9 {
            a.extend(one.read_sensor_rows().unwrap());
        }
    }
    a.extend(one.read_sensor_rows().unwrap());
    many.run(20);
    let b = many.read_sensor_rows().unwrap();
    assert_eq!(a.iter().map(|r| r.step).collect::<Vec<_>>(), (0..20).step_by(2).collect::<Vec<u64>>());
    assert_eq!(a, b);
    // the state after the last step is sampled on request, once
    many.sample_sensors_now();
    many.sample_sensors_now();
    let end = many.read_sensor_rows().unwrap();
    assert_eq!(end.iter().map(|r| r.step).collect::<Vec<_>>(), [20]);
    assert_eq!(many.sensor_rows_dropped(), 0);
}

/// The force sensors' and flow sections' sums are in a fixed order: 40 steps in one submit
/// keep the rows of 40 submits bit for bit (deterministic mode), with a reorder every 3 steps.
#[test]
fn force_and_flow_rows_do_not_depend_on_how_the_steps_are_submitted() {
    let text = "(domain: (min: (0, 0, 0), max: (0.3, 0.2, 0.1)),
          fluid: [(min: (0, 0, 0), max: (0.1, 0.16, 0.1)), (min: (0.12, 0.08, 0), max: (0.2, 0.14, 0.1))],
          solids: [Box(center: (0.16, 0.03, 0.05), size: (0.08, 0.06, 0.1))],
          probes: (forces: [(name: \"box\", solid: 0)], flows: [(name: \"front\", at: (0.09, 0.08, 0.05), normal: (1, 0, 0))], sensor_every: 4),
          physics: (spacing: 0.02, dt: 0.0005), grid: (reorder_interval: 3, deterministic: true))";
    let scene = common::scene(text);
    let state = common::build(&scene);
    let opts = rillet::scene::setup::sim_options(&scene);
    let (mut one, mut many) = (common::sim(&state, opts.clone()), common::sim(&state, opts));
    for _ in 0..40 {
        one.run(1);
    }
    many.run(40);
    let (a, b) = (one.read_sensor_rows().unwrap(), many.read_sensor_rows().unwrap());
    assert_eq!(a.len(), 10);
    assert_eq!(a, b);
    let last = a.last().unwrap();
    assert!(last.forces[0][0] > 0.0 && last.flows[0].volume_rate > 0.0, "the water pushes the box and flows: {last:?}");
}

/// Water beside a fixed box (x 0.12–0.2 m, 6 cm high) and a block above it that falls onto it,
/// with a force sensor on the box (its moment about a point off the box) and one pressure
/// sensor; a sensor row every 8 steps of 0.5 ms, reorder every 3.
fn forced(physics: &str) -> Scene {
    common::scene(&format!(
        "(domain: (min: (0, 0, 0), max: (0.3, 0.2, 0.1)),
          fluid: [(min: (0, 0, 0), max: (0.1, 0.16, 0.1)), (min: (0.12, 0.08, 0), max: (0.2, 0.14, 0.1))],
          solids: [Box(center: (0.16, 0.03, 0.05), size: (0.08, 0.06, 0.1))],
          probes: (sensors: [(name: \"floor\", at: (0.05, 0, 0.05))], forces: [(name: \"box\", solid: 0, about: (0, 0, 0))], sensor_every: 8),
          physics: (spacing: 0.02, dt: 0.0005{physics}), grid: (reorder_interval: 3))"
    ))
}

/// The force sensor's rows against the twin's sums over the states they sample.
fn compare_forces(scene: &Scene, steps: u64, what: &str) {
    use rillet::reference::sensors::{WallTerms, solid_force};
    let state = common::build(scene);
    let normals = rillet::reference::RefSim::new(&state).wall_normals;
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(scene));
    let q = *sim.params();
    let terms = WallTerms {
        h: q.h as f64,
        sound_speed: q.sound_speed as f64,
        rest_density: q.rest_density as f64,
        gravity: q.gravity.map(f64::from),
        wall_viscosity: q.wall_viscosity as f64,
        approach: q.wall_approach_viscosity as f64,
        no_slip: q.no_slip_viscosity as f64,
        dfsph: q.solver == rillet::sim::params::SOLVER_DFSPH,
    };
    let spec = &state.sensors.forces[0];
    let mut twin = Vec::new();
    for step in 0..steps {
        if step % 8 == 0 {
            let p = sim.read_particles().unwrap();
            let tait = |rho: f64| rillet::reference::tait_pressure(rho, q.rest_density as f64, q.stiffness as f64);
            let pressure = |j: usize| p.pressure_at(j, tait);
            twin.push(solid_force(spec.first, spec.count, [0.0; 3], &p.pos_mass, &p.vel_rho, &p.id, &normals, pressure, &terms));
        }
        sim.run(1);
    }
    let rows = sim.read_sensor_rows().unwrap();
    assert_eq!(rows.len(), twin.len(), "{what}: rows");
    // the scale: ρ0 g H on the box's top (8 × 10 cm) under the 6 cm block, and its moment arm
    let scale = 1000.0 * 9.81 * 0.06 * 0.008;
    let mut worst = 0.0f64;
    for (row, want) in rows.iter().zip(&twin) {
        let got = row.forces[0];
        for k in 0..6 {
            let s = if k < 3 { scale } else { scale * 0.2 };
            let d = (got[k] as f64 - want[k]).abs();
            worst = worst.max(d / s);
            assert!(d <= 1e-4 * s + 1e-5 * want[k].abs(), "{what}, step {}: column {k}: {} against {}", row.step, got[k], want[k]);
        }
    }
    // the water above presses the box down and the water beside it pushes it along +x
    let last = twin.last().unwrap();
    assert!(last[1] < -0.05 * scale && last[0] > 0.0, "{what}: the force at the end {last:?}");
    eprintln!("{what}: {} rows; worst |ΔF| / scale {worst:.2e}; the last force {last:?}", rows.len());
}

#[test]
fn force_sensors_are_the_twins_sum_over_the_solid() {
    compare_forces(&forced(""), 160, "WCSPH");
}

#[test]
fn force_sensors_read_the_dfsph_pressure_as_the_twin_does() {
    compare_forces(&forced(", solver: DFSPH"), 160, "DFSPH");
}

#[test]
fn force_sensors_on_no_slip_walls_sum_the_friction_too() {
    compare_forces(&forced(", no_slip_viscosity: 0.001, wall_viscosity: 0.1"), 160, "no-slip");
}

/// A block of water moving at 1 m/s along x through sections: across it (the whole plane, and
/// against its motion), a tilted rectangle, and one in air; a row every 4 steps, reorder every 3.
fn flowing() -> Scene {
    common::scene(
        "(domain: (min: (0, 0, 0), max: (0.6, 0.3, 0.1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.16, 0.1), velocity: (1, 0, 0))],
          probes: (flows: [(name: \"across\", at: (0.1, 0.05, 0.05), normal: (1, 0, 0)),
                           (name: \"back\", at: (0.1, 0.05, 0.05), normal: (-2, 0, 0)),
                           (name: \"tilted\", at: (0.12, 0.08, 0.05), normal: (1, 1, 0), size: (0.06, 0.08)),
                           (name: \"air\", at: (0.5, 0.25, 0.05), normal: (0, 1, 0), size: (0.1, 0.1))],
                   sensor_every: 4),
          physics: (spacing: 0.02, dt: 0.0004), grid: (reorder_interval: 3))",
    )
}

/// Each flow row the GPU kept is the twin's slab sum over the state it was taken of; at the
/// start the section across the block passes its cross-section times its speed.
#[test]
fn flow_sections_are_the_twins_slab_sums() {
    use rillet::reference::sensors::flow_rate;
    let scene = flowing();
    let state = common::build(&scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
    let spec = state.sensors.flows.clone();
    let mut twin = Vec::new();
    for step in 0..40 {
        if step % 4 == 0 {
            let p = sim.read_particles().unwrap();
            twin.push(spec.iter().map(|s| flow_rate(s, &p.pos_mass, &p.vel_rho)).collect::<Vec<_>>());
        }
        sim.run(1);
    }
    let rows = sim.read_sensor_rows().unwrap();
    assert_eq!(rows.len(), twin.len());
    // the scale: the block's cross-section 0.16 × 0.1 m² at 1 m/s
    let scale = 0.016;
    for (row, want) in rows.iter().zip(&twin) {
        for (k, (got, want)) in row.flows.iter().zip(want).enumerate() {
            assert_eq!(got.particles, want.2, "step {}, section {k}: particles in the slab", row.step);
            assert!(
                (got.volume_rate as f64 - want.0).abs() <= 1e-5 * scale,
                "step {}, section {k}: Q {} against {}",
                row.step,
                got.volume_rate,
                want.0
            );
            assert!(
                (got.mass_rate as f64 - want.1).abs() <= 1e-5 * scale * 1000.0,
                "step {}, section {k}: ṁ {} against {}",
                row.step,
                got.mass_rate,
                want.1
            );
        }
    }
    let first = &rows[0].flows;
    eprintln!("step 0: {first:?}");
    // two layers of 8 × 5 particles in the slab 2 spacings thick: Q = A u (V = m/ρ0 ≈ s³)
    assert_eq!(first[0].particles, 80);
    assert!((first[0].volume_rate as f64 - scale).abs() < 1e-3 * scale, "{:?}", first[0]);
    assert!((first[0].mass_rate as f64 / first[0].volume_rate as f64 - 1000.0).abs() < 1.0, "{:?}", first[0]);
    assert_eq!(first[1].volume_rate, -first[0].volume_rate, "against the motion");
    // the tilted rectangle (0.06 × 0.08 m inside the block) at 45° to the motion: A u / √2
    let tilted = 0.06 * 0.08 / 2f64.sqrt();
    assert!((first[2].volume_rate as f64 - tilted).abs() < 0.05 * tilted, "{:?} against {tilted}", first[2]);
    assert_eq!((first[3].particles, first[3].volume_rate), (0, 0.0), "in air");
}
