//! Whether a run is still physical. The GPU's guards (the domain clamp, the non-finite discard)
//! keep a blown-up state looking orderly — every particle clamped into a corner, nothing
//! non-finite — so the counters behind them are watched here, with the probes' compression and
//! speeds: a blow-up stops `rillet run` (exit code 3) and pauses the app, a warning is said once.

use crate::probes::ProbeRow;
use crate::sim::params::{Diagnostics, SOLVER_DFSPH, SimParams};

/// The fastest particle may reach this fraction of the speed of sound before the weakly
/// compressible model no longer holds: density varies as the square of the Mach number, so 0.1
/// keeps it near 1 % (Monaghan 1994, c ≥ 10 v_max).
pub(crate) const MACH_WARN: f64 = 0.1;
/// Faster than sound: the model has lost its meaning.
pub(crate) const MACH_BLOWUP: f64 = 1.0;
/// DFSPH has no speed of sound: its limit is the step. A particle that moves more than a spacing
/// (half a support radius) in one step outruns the solves' neighbourhoods: warned once.
pub(crate) const STEP_TRAVEL_WARN: f64 = 0.5;
/// A particle that moves a whole support radius in one step has left every neighbour it had.
pub(crate) const STEP_TRAVEL_BLOWUP: f64 = 1.0;
/// Fluid compressed to this much above its rest density (pressure 127 B at γ = 7) is no weakly
/// compressible fluid. Under-density is no sign: with negative pressure clamped away, a fluid
/// that spreads (a collapsing column, a splash) thins out legitimately, by 50 % and more in the
/// bulk of the 1M benchmark dam break (measured, docs/PHYSICS.md "Walls").
pub(crate) const COMPRESSION_BLOWUP: f64 = 1.0;
/// Domain-guard clamps per step, as a fraction of the fluid particles, past which the walls no
/// longer hold the fluid: a blow-up clamps most of them every step; a thin front on free-slip
/// walls clamps up to about 1 % in the coarse CI dam break (720 fluid particles, measured), far
/// less at finer resolutions (docs/PHYSICS.md, "Walls").
pub(crate) const CLAMP_FRACTION_BLOWUP: f64 = 0.05;
/// At least this many clamps per step besides: in a small run (a jet's first hundred
/// particles) one particle clamped every step is a particle at a wall, not a blow-up.
pub(crate) const CLAMPS_PER_STEP_BLOWUP_MIN: f64 = 10.0;

/// The guard counters of the GPU (u32, cumulative, wrapping) accumulated without wrapping.
#[derive(Clone, Debug, Default)]
pub(crate) struct GuardTotals {
    last: Option<(u32, u32)>,
    last_step: u64,
    pub wall_clamps: u64,
    pub non_finite: u64,
}

/// What changed between two reads of the counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GuardDelta {
    pub steps: u64,
    pub wall_clamps: u64,
    pub non_finite: u64,
}

impl GuardDelta {
    pub(crate) fn clamps_per_step(&self) -> f64 {
        if self.steps == 0 { 0.0 } else { self.wall_clamps as f64 / self.steps as f64 }
    }
}

impl GuardTotals {
    /// Totals carried over from an earlier simulation (a resumed run), whose GPU counters start
    /// again from zero at `step`.
    pub(crate) fn starting_at(wall_clamps: u64, non_finite: u64, step: u64) -> Self {
        Self { last: Some((0, 0)), last_step: step, wall_clamps, non_finite }
    }

    /// The totals with a read of the counters included, without taking it (a checkpoint's
    /// figures between two probes).
    pub(crate) fn peek(&self, d: &Diagnostics) -> (u64, u64) {
        let (c0, n0) = self.last.unwrap_or((0, 0));
        (self.wall_clamps + d.wall_clamps.wrapping_sub(c0) as u64, self.non_finite + d.non_finite.wrapping_sub(n0) as u64)
    }

    /// Takes a read of the counters made after `step` steps. Reads must come less than 2^32
    /// events apart (a read every 4 000 steps at 1M particles clamped every step).
    pub(crate) fn update(&mut self, d: &Diagnostics, step: u64) -> GuardDelta {
        let (c0, n0) = self.last.unwrap_or((0, 0));
        let delta = GuardDelta {
            steps: step.saturating_sub(self.last_step),
            wall_clamps: d.wall_clamps.wrapping_sub(c0) as u64,
            non_finite: d.non_finite.wrapping_sub(n0) as u64,
        };
        self.wall_clamps += delta.wall_clamps;
        self.non_finite += delta.non_finite;
        self.last = Some((d.wall_clamps, d.non_finite));
        self.last_step = step;
        delta
    }
}

/// A finding about the run's health, with when it was seen.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub step: u64,
    pub time: f64,
    pub blow_up: bool,
    pub what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.blow_up { "the simulation blew up" } else { "warning" };
        write!(f, "{kind} at step {} (t = {:.4} s): {}", self.step, self.time, self.what)
    }
}

/// A run (`rillet run`, `rillet render`) that stopped before its last step: the files written
/// so far are complete and valid.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Stopped {
    /// The health checks saw a blow-up.
    #[error("{finding}; the run stopped, {out} holds the {kept} up to it")]
    BlowUp { finding: Finding, out: String, kept: &'static str },
    /// SIGINT or SIGTERM.
    #[error(
        "interrupted at step {step}; the run stopped, {out} holds the probes up to it and a checkpoint: continue with `rillet run --resume {out}`"
    )]
    Interrupted { step: u64, out: String, code: u8 },
}

impl Stopped {
    /// The process exit code: 3 for a blow-up, 130 for SIGINT, 143 for SIGTERM.
    pub fn exit_code(&self) -> u8 {
        match self {
            Stopped::BlowUp { .. } => 3,
            Stopped::Interrupted { code, .. } => *code,
        }
    }
}

/// Watches one run: blow-ups every time, each kind of warning once.
#[derive(Clone, Debug)]
pub(crate) struct Health {
    n_fluid: u64,
    sound_speed: f64,
    /// DFSPH: speeds are judged against the step (h per dt), not the speed of sound.
    dfsph: bool,
    h: f64,
    warned_mach: bool,
}

impl Health {
    /// For the simulation of `params` (its fluid, solver, speed of sound and support radius).
    pub(crate) fn new(params: &SimParams) -> Self {
        Self {
            n_fluid: params.n_fluid as u64,
            sound_speed: params.sound_speed as f64,
            dfsph: params.solver == SOLVER_DFSPH,
            h: params.h as f64,
            warned_mach: false,
        }
    }

    /// What the GPU counters say (the app has these alone): non-finite states, and walls that no
    /// longer hold the fluid. `fluid` is the fluid particles there are now (emitters add to the
    /// fluid a run started with, open faces take from it).
    pub(crate) fn check_guards(&self, delta: &GuardDelta, fluid: u64, step: u64, time: f64) -> Option<Finding> {
        let finding = |what: String| Some(Finding { step, time, blow_up: true, what });
        if delta.non_finite > 0 {
            return finding(format!(
                "{} particle-steps gave non-finite positions or velocities in the last {} steps (discarded by the guard)",
                delta.non_finite, delta.steps
            ));
        }
        let per_step = delta.clamps_per_step();
        let fluid = fluid.max(self.n_fluid).max(1);
        if per_step > (CLAMP_FRACTION_BLOWUP * fluid as f64).max(CLAMPS_PER_STEP_BLOWUP_MIN) {
            return finding(format!(
                "the domain guard clamped {per_step:.0} particles per step over the last {} steps ({:.1} % of the {fluid} fluid particles; more than {} % and {CLAMPS_PER_STEP_BLOWUP_MIN} a step means the walls no longer hold it)",
                delta.steps,
                100.0 * per_step / fluid as f64,
                100.0 * CLAMP_FRACTION_BLOWUP
            ));
        }
        None
    }

    /// What a probe row says: the largest compression and the speeds against the speed of sound.
    pub(crate) fn check_row(&mut self, row: &ProbeRow) -> Option<Finding> {
        let (step, time) = (row.step, row.time);
        if row.max_compression.is_nan() || row.max_compression > COMPRESSION_BLOWUP {
            return Some(Finding {
                step,
                time,
                blow_up: true,
                what: format!(
                    "fluid is compressed to {:.0} % above its rest density (more than {:.0} %: no longer a weakly compressible fluid)",
                    100.0 * row.max_compression,
                    100.0 * COMPRESSION_BLOWUP
                ),
            });
        }
        if self.dfsph {
            // DFSPH: the fastest particle's travel in one step against the support radius
            let (travel, h) = (row.max_speed * row.dt / self.h, self.h);
            return self.judge_speed(row, travel, STEP_TRAVEL_WARN, STEP_TRAVEL_BLOWUP, |r| {
                (
                    format!(
                        "a particle moves at {:.2} m/s, {travel:.2} support radii (h = {h} m) in one step of {:.3e} s",
                        r.max_speed, r.dt
                    ),
                    format!(
                        "the fastest particle reaches {:.2} m/s and moves {:.0} % of a support radius in one step of {:.3e} s (above {:.0} %, a spacing, the solves lose its neighbourhood: lower dt or use an adaptive time step)",
                        r.max_speed,
                        100.0 * travel,
                        r.dt,
                        100.0 * STEP_TRAVEL_WARN
                    ),
                )
            });
        }
        let mach = row.max_speed / self.sound_speed;
        let c = self.sound_speed;
        self.judge_speed(row, mach, MACH_WARN, MACH_BLOWUP, |r| {
            (
                format!("a particle moves at {:.2} m/s, Mach {mach:.2} against c = {c:.2} m/s", r.max_speed),
                format!(
                    "the fastest particle reaches {:.2} m/s, {:.0} % of c = {c:.2} m/s (above {:.0} %, density varies by more than about 1 % and weak compressibility no longer holds: raise the speed of sound)",
                    r.max_speed,
                    100.0 * mach,
                    100.0 * MACH_WARN
                ),
            )
        })
    }

    /// A speed measure `ratio` (Mach number, or travel per step in support radii): a blow-up at
    /// `blowup` or when not finite, a warning (once) above `warn`; `what` words both.
    fn judge_speed(
        &mut self,
        row: &ProbeRow,
        ratio: f64,
        warn: f64,
        blowup: f64,
        what: impl FnOnce(&ProbeRow) -> (String, String),
    ) -> Option<Finding> {
        let (step, time) = (row.step, row.time);
        if !ratio.is_finite() || ratio >= blowup {
            return Some(Finding { step, time, blow_up: true, what: what(row).0 });
        }
        if ratio > warn && !self.warned_mach {
            self.warned_mach = true;
            return Some(Finding { step, time, blow_up: false, what: what(row).1 });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(wall_clamps: u32, non_finite: u32) -> Diagnostics {
        Diagnostics { wall_clamps, non_finite, ..Default::default() }
    }

    #[test]
    fn totals_do_not_wrap_with_the_gpu_counter() {
        let mut t = GuardTotals::default();
        t.update(&diag(u32::MAX - 10, 0), 100);
        let d = t.update(&diag(20, 0), 200);
        assert_eq!(d, GuardDelta { steps: 100, wall_clamps: 31, non_finite: 0 });
        assert_eq!(t.wall_clamps, u32::MAX as u64 - 10 + 31);
    }

    fn params(solver: u32) -> SimParams {
        SimParams { n_fluid: 1000, sound_speed: 10.0, h: 0.02, solver, ..Default::default() }
    }

    #[test]
    fn blow_ups_and_warnings() {
        let mut h = Health::new(&params(crate::sim::params::SOLVER_WCSPH));
        let calm = GuardDelta { steps: 10, wall_clamps: 50, non_finite: 0 };
        assert_eq!(h.check_guards(&calm, 1000, 10, 0.1), None);
        let splash = GuardDelta { steps: 10, wall_clamps: 110, non_finite: 0 };
        assert_eq!(h.check_guards(&splash, 1000, 10, 0.1), None, "1.1 % clamped per step is a splash on free-slip walls");
        let clamped = GuardDelta { steps: 10, wall_clamps: 5000, non_finite: 0 };
        assert!(h.check_guards(&clamped, 1000, 10, 0.1).unwrap().blow_up);
        // a jet that started from no fluid: its 169 particles now, one of them clamped every
        // step, is no blow-up (0.6 %); 40 of them every step is
        let jet = Health::new(&SimParams { n_fluid: 0, ..params(crate::sim::params::SOLVER_WCSPH) });
        let one = GuardDelta { steps: 10, wall_clamps: 10, non_finite: 0 };
        assert_eq!(jet.check_guards(&one, 169, 310, 0.03), None);
        let many = GuardDelta { steps: 10, wall_clamps: 400, non_finite: 0 };
        let f = jet.check_guards(&many, 169, 310, 0.03).unwrap();
        assert!(f.blow_up && f.what.contains("23.7 % of the 169 fluid particles"), "{f}");
        // a small run: 5 of 20 particles clamped a step is under the absolute floor
        assert_eq!(jet.check_guards(&GuardDelta { steps: 10, wall_clamps: 50, non_finite: 0 }, 20, 10, 0.1), None);
        let nan = GuardDelta { steps: 10, wall_clamps: 0, non_finite: 1 };
        assert!(h.check_guards(&nan, 1000, 10, 0.1).unwrap().to_string().starts_with("the simulation blew up at step 10"));
        let row = |speed: f64, compression: f64| ProbeRow {
            step: 5,
            time: 0.5,
            max_speed: speed,
            max_compression: compression,
            ..Default::default()
        };
        assert_eq!(h.check_row(&row(0.5, 0.01)), None);
        let w = h.check_row(&row(2.0, 0.01)).unwrap();
        assert!(!w.blow_up && w.what.contains("20 % of c"), "{w}");
        assert_eq!(h.check_row(&row(2.0, 0.01)), None, "a warning is said once");
        assert!(h.check_row(&row(11.0, 0.01)).unwrap().blow_up);
        assert_eq!(h.check_row(&row(0.5, 0.6)), None, "60 % compression is violent, not yet a blow-up");
        assert!(h.check_row(&row(0.5, 1.2)).unwrap().blow_up);
        assert!(h.check_row(&row(f64::NAN, 0.0)).unwrap().blow_up);
    }

    #[test]
    fn dfsph_speeds_are_judged_against_the_step_not_the_speed_of_sound() {
        let mut h = Health::new(&params(SOLVER_DFSPH));
        // h = 0.02 m, dt = 1 ms: a spacing a step is 10 m/s
        let row = |speed: f64| ProbeRow { step: 5, time: 0.5, max_speed: speed, dt: 1e-3, ..Default::default() };
        assert_eq!(h.check_row(&row(5.0)), None, "Mach 0.5 is no concern without an equation of state");
        let w = h.check_row(&row(12.0)).unwrap();
        assert!(!w.blow_up && w.what.contains("60 % of a support radius"), "{w}");
        assert_eq!(h.check_row(&row(12.0)), None, "a warning is said once");
        assert!(h.check_row(&row(25.0)).unwrap().blow_up);
        assert!(h.check_row(&row(f64::NAN)).unwrap().blow_up);
    }
}
