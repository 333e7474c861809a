//! The walls' approach viscosity on the CPU twin (docs/PHYSICS.md, "Walls"): a sheet of water
//! three spacings thick running at 3 m/s into a free-slip wall, and the same sheet sliding along
//! the floor (how much the walls brake it along their face), for several α_n. A measurement:
//!
//!     cargo test --release --test gpu wall_study:: -- --ignored --nocapture

use rillet::reference::RefSim;
use rillet::scene::{Scene, setup};

fn sheet(domain_x: f64, physics: &str) -> RefSim {
    let text = format!(
        "(domain: (min: (0, 0, 0), max: ({domain_x}, 0.2, 0.1)),
          fluid: [(min: (0.05, 0, 0), max: (0.2, 0.03, 0.1), velocity: (3, 0, 0))],
          physics: (spacing: 0.01, pressure: SpeedOfSound(30), viscosity: 0.05, dt: 0.00025, {physics}))"
    );
    RefSim::new(&setup::build(&Scene::parse(&text, "sheet").unwrap()))
}

/// The fastest fluid particle and the fluid's mean x velocity.
fn fluid_stats(s: &RefSim) -> (f64, f64) {
    let (mut vmax, mut px, mut m) = (0.0f64, 0.0, 0.0);
    for i in (0..s.n_particles()).filter(|&i| s.is_fluid(i)) {
        let v = s.vel_rho[i];
        vmax = vmax.max((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt());
        px += s.pos_mass[i][3] * v[0];
        m += s.pos_mass[i][3];
    }
    (vmax, px / m)
}

#[test]
#[ignore = "a study: prints what each wall model does; run with --ignored --nocapture"]
fn wall_models_on_a_sheet() {
    let models = [
        ("pressure only", "wall_approach_viscosity: 0"),
        ("wall viscosity 0.05 (radial)", "wall_approach_viscosity: 0, wall_viscosity: 0.05"),
        ("approach viscosity 0.2", "wall_approach_viscosity: 0.2"),
        ("approach viscosity 0.5", "wall_approach_viscosity: 0.5"),
        ("approach viscosity 1", "wall_approach_viscosity: 1"),
    ];
    for (name, physics) in models {
        // into the wall: 0.35 s (the sheet reaches it after 0.07 s)
        let mut s = sheet(0.4, physics);
        let mut vmax: f64 = 0.0;
        let mut first = None;
        for step in 0..1400 {
            s.step();
            vmax = vmax.max(fluid_stats(&s).0);
            if first.is_none() && s.wall_clamps > 0 {
                first = Some(step);
            }
        }
        // along the floor: 0.05 s in a tank too long to reach the far wall
        let mut f = sheet(1.0, physics);
        for _ in 0..200 {
            f.step();
        }
        let (_, vx) = fluid_stats(&f);
        println!(
            "{name:<30} into the wall: {} clamps (first at step {first:?}), fastest {vmax:.2} m/s; along the floor after 0.05 s: mean vx {vx:.3} m/s",
            s.wall_clamps
        );
    }
}
