//! What `rillet run` says at its end: the summary lines, and its exit (an error when the run
//! stopped early).

use super::outputs::LEAKS_FILE;
use super::settings::{COMPLETED, TimeStep};
use super::{RunMeta, RunResult};
use crate::probes::ProbeRow;
use crate::scene::{Scene, Solver};
use anyhow::Context;
use std::path::Path;

/// The time step in words: "dt adaptive in [min, max] s, cfl X" or "dt X s".
pub fn time_step_words(p: &crate::sim::params::SimParams) -> String {
    if p.adaptive != 0 { format!("dt adaptive in [{}, {}] s, cfl {}", p.dt_min, p.dt_max, p.cfl) } else { format!("dt {} s", p.dt) }
}

/// The summary lines of a finished run and its exit (an error when it stopped early).
pub(crate) fn finish_run(r: RunResult, out: &Path, scene: &Scene) -> anyhow::Result<()> {
    let last = r.rows.last().context("no probe was recorded")?;
    eprintln!("{}", summary_line(&r, last, out, scene));
    if r.meta.time_step != TimeStep::Fixed || r.meta.solver != Solver::Wcsph {
        eprintln!("{}", solver_line(&r.meta));
    }
    if let Some([built, kept]) = r.meta.list_builds {
        eprintln!(
            "neighbour lists kept between grid builds (skin {} h): {kept} steps kept them, {built} built the grid",
            scene.grid.list_skin
        );
    }
    if !scene.solids.is_empty() {
        let most = r.rows.iter().map(|row| row.inside_solids).max().unwrap_or(0);
        let listed = if most > 0 { format!(" (each listed in {})", out.join(LEAKS_FILE).display()) } else { String::new() };
        eprintln!("fluid particles inside solids (leaks): {} now, at most {most} at any probe{listed}", last.inside_solids);
    }
    if !scene.emitters.is_empty() || !scene.walls.open.is_empty() {
        eprintln!(
            "fluid particles: {} now of {} slots; {} emitted, {} left through open faces, {} not emitted for want of room",
            last.fluid_particles, r.meta.fluid_slots, last.emitted, last.outflow, last.starved
        );
    }
    match r.stopped {
        Some(stopped) => Err(stopped.into()),
        None => Ok(()),
    }
}

/// The first line: how the run ended, its pace, and the last probe's state.
fn summary_line(r: &RunResult, last: &ProbeRow, out: &Path, scene: &Scene) -> String {
    format!(
        "{}: {} ({} of {} steps, {:.4} s simulated) in {:.1} s ({:.2} ms/step; stepping {:.2} ms/step) on {}; front {:.4} m, largest compression {:.3} %, density error in the bulk up to {:.3} % (up to {:.1} % at the free surface, where the kernel reaches past the water), spray {}, max speed {:.3} m/s (Mach {:.3}), wall clamps {} ({:.2} per step lately), outside {}, non-finite {}, cells up to {} (capacity {}, {} over)",
        out.display(),
        if r.stopped.is_some() { "stopped early" } else { COMPLETED },
        r.meta.steps_done,
        r.meta.steps,
        last.time,
        r.meta.wall_seconds,
        r.meta.ms_per_step,
        r.meta.stepping_ms_per_step,
        r.meta.adapter,
        last.front,
        100.0 * last.max_compression,
        100.0 * last.max_density_error_bulk,
        100.0 * last.max_density_error,
        last.spray,
        last.max_speed,
        last.max_speed / r.meta.sound_speed as f64,
        last.wall_clamps,
        last.wall_clamps_per_step,
        last.outside,
        last.non_finite,
        last.max_per_cell,
        scene.grid.capacity,
        last.overflows,
    )
}

/// The solver and time step of a run that is not WCSPH with a fixed dt.
fn solver_line(m: &RunMeta) -> String {
    let iterations = if m.solver == Solver::Dfsph {
        format!(", at most {} pressure iterations a step", m.max_pressure_iterations_seen)
    } else {
        String::new()
    };
    let dt = match m.time_step {
        TimeStep::Adaptive => {
            format!("adaptive dt: {:.3e} to {:.3e} s over the probes (mean {:.3e} s)", m.dt_min_seen, m.dt_max_seen, m.dt_mean)
        }
        TimeStep::Fixed => format!("fixed dt {} s", m.dt),
    };
    format!("{}, {dt}{iterations}", m.solver.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_step_in_words() {
        let mut p = crate::sim::params::SimParams { dt: 4e-4, dt_min: 1e-5, dt_max: 1e-3, cfl: 0.4, ..Default::default() };
        assert_eq!(time_step_words(&p), "dt 0.0004 s");
        p.adaptive = 1;
        assert_eq!(time_step_words(&p), "dt adaptive in [0.00001, 0.001] s, cfl 0.4");
    }
}
