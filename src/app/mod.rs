//! The desktop app: window, sprites, panel. (Being built; until then `rillet [SCENE]` runs the
//! scene headless with a progress line.)

use crate::gpu::Gpu;
use crate::scene::Scene;
use crate::setup;
use crate::sim::{Sim, SimOptions};
use anyhow::Context;
use std::path::PathBuf;

/// Command-line options of the app (the default command).
#[derive(clap::Args, Debug, Default)]
pub struct AppArgs {
    /// Scene file (RON). Without one, the built-in dam break runs.
    pub scene: Option<PathBuf>,
}

pub fn run(args: AppArgs) -> anyhow::Result<()> {
    let (scene, name) = crate::scene::load_or_default(args.scene.as_deref())?;
    let gpu = Gpu::headless()?;
    let state = setup::build(&scene);
    eprintln!("{name}: {} fluid + {} boundary particles on {}", state.n_fluid, state.n_boundary(), gpu.describe());
    let mut sim = Sim::new(&gpu, &state, SimOptions::from_scene(&scene)).with_context(|| format!("{name}: the scene does not fit this device"))?;
    let steps = 2000;
    let mut done = 0;
    while done < steps {
        let k = 100.min(steps - done);
        sim.run(k);
        done += k;
        let d = sim.read_diagnostics();
        eprint!(
            "\rstep {done}/{steps}  t = {:.3} s  max/cell {}  overflows {}  wall clamps {}  non-finite {}   ",
            done as f32 * scene.physics.dt,
            d.max_per_cell,
            d.overflows,
            d.wall_clamps,
            d.non_finite
        );
    }
    eprintln!();
    let _: &Scene = &scene;
    Ok(())
}
