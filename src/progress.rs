//! Progress on stderr for long work (`rillet run`'s steps, `rillet render`'s frames, `rillet
//! bench`'s variants): on a terminal an `indicatif` bar redrawn in place, with the time left at
//! the pace of this run; otherwise (a log, a pipe) a line per 10 %; and numbers printed to
//! significant digits.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// " t=… s" for a progress line; nothing where the simulated time is not known (NaN).
fn sim_clock(t: f64) -> String {
    if t.is_finite() { format!(" t={t:.4} s") } else { String::new() }
}

/// `x` with `digits` significant digits (0.000412, 0.412, 41.2 for 3), not rounded to a fixed
/// number of decimals that would print a small rate as 0.000.
pub(crate) fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A progress bar on stderr: an `indicatif` bar on a terminal, one line per 10 % otherwise.
pub(crate) struct Progress {
    label: String,
    total: u64,
    /// Where this run started (a resumed run's checkpoint step): the time left is estimated
    /// from the pace since then.
    from: u64,
    unit: &'static str,
    start: Instant,
    on: bool,
    /// The bar, on a terminal (while it is on).
    bar: Option<ProgressBar>,
    /// Whether the bar has been drawn yet.
    shown: bool,
    last_decile: u64,
}

impl Progress {
    pub(crate) fn new(label: &str, total: u64, on: bool) -> Self {
        let bar = (on && std::io::stderr().is_terminal()).then(|| {
            // drawn from the first update on: what is said before (a run's first line) comes first
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {percent:>3}% {msg}, {eta} left")
                    .expect("a valid template")
                    .progress_chars("#>-"),
            );
            bar.set_prefix(label.to_string());
            bar
        });
        let p =
            Self { label: label.to_string(), total, from: 0, unit: "step", start: Instant::now(), on, bar, shown: false, last_decile: 0 };
        p.count(0, f64::NAN);
        p
    }

    /// The bar's words: "step 120/1000 t=0.0480 s".
    fn count(&self, done: u64, sim_time: f64) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} {}/{}{}", self.unit, done, self.total, sim_clock(sim_time)));
        }
    }

    /// What the bar counts ("step" by default; "frame" for `rillet render`).
    pub(crate) fn counting(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self.count(self.from, f64::NAN);
        self
    }

    /// The count already done when the bar starts (a resumed run's checkpoint step).
    pub(crate) fn starting_at(mut self, from: u64) -> Self {
        self.from = from.min(self.total);
        self.last_decile = (self.from as f64 / self.total.max(1) as f64 * 10.0).floor() as u64;
        if let Some(bar) = &self.bar {
            bar.set_position(self.from);
            self.count(self.from, f64::NAN);
            // the time left at the pace from here, not from 0
            bar.reset_eta();
        }
        self
    }

    /// Seconds left at the pace since the bar started, from `done` of the total.
    pub(crate) fn eta(&self, done: u64, elapsed: f64) -> f64 {
        let since = done.saturating_sub(self.from);
        if since > 0 { elapsed * self.total.saturating_sub(done) as f64 / since as f64 } else { 0.0 }
    }

    pub(crate) fn update(&mut self, done: u64, sim_time: f64) {
        if !self.on || self.total == 0 {
            return;
        }
        if let Some(bar) = &self.bar {
            if !self.shown {
                self.shown = true;
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
            }
            self.count(done, sim_time);
            bar.set_position(done);
            return;
        }
        let frac = done as f64 / self.total as f64;
        let decile = (frac * 10.0).floor() as u64;
        if decile > self.last_decile {
            self.last_decile = decile;
            let elapsed = self.start.elapsed().as_secs_f64();
            eprintln!(
                "{}: {:3.0}% {} {}/{}{}, {:.0} s elapsed, {:.0} s left",
                self.label,
                100.0 * frac,
                self.unit,
                done,
                self.total,
                sim_clock(sim_time),
                elapsed,
                self.eta(done, elapsed)
            );
        }
    }

    /// Says `line` on stderr, above the bar (which is redrawn below it).
    pub(crate) fn say(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// Leaves the bar as drawn, its line ended, and draws no more.
    pub(crate) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.abandon();
            // indicatif leaves the cursor at the end of the bar's line
            if self.shown {
                eprintln!();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed run's time left counts the steps it ran itself: 1000 of 2000 steps resumed at
    /// 800, 200 steps in 10 s, leave 1000 steps for 50 s (not the 10 s that counting from step 0
    /// gave).
    #[test]
    fn time_left_of_a_resumed_run() {
        let bar = Progress::new("run", 2000, false).starting_at(800);
        assert_eq!(bar.eta(1000, 10.0), 50.0);
        assert_eq!(Progress::new("run", 2000, false).eta(1000, 10.0), 10.0);
        assert_eq!(bar.eta(800, 1.0), 0.0);
    }

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.000412345, 3), "0.000412");
        assert_eq!(significant(0.41, 3), "0.410");
        assert_eq!(significant(273.4, 3), "273");
        assert_eq!(significant(0.0, 3), "0");
    }
}
