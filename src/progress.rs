//! Progress on stderr for long work (`rillet run`'s steps, `rillet render`'s frames): a bar
//! redrawn in place on a terminal, a line per 10 % otherwise, with the time left at the pace of
//! this run; and numbers printed to significant digits.

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// " t=… s" for a progress line; nothing where the simulated time is not known (NaN).
fn sim_clock(t: f64) -> String {
    if t.is_finite() { format!(" t={t:.4} s") } else { String::new() }
}

/// `x` with `digits` significant digits (0.000412, 0.412, 41.2 for 3), not rounded to a fixed
/// number of decimals that would print a small rate as 0.000.
pub fn significant(x: f64, digits: i32) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let decimals = (digits - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.decimals$}")
}

/// A progress bar on stderr: redrawn in place on a terminal, one line per 10 % otherwise.
pub struct Progress {
    label: String,
    total: u64,
    /// Where this run started (a resumed run's checkpoint step): the time left is estimated
    /// from the pace since then.
    from: u64,
    unit: &'static str,
    start: Instant,
    tty: bool,
    on: bool,
    last_decile: u64,
    last_draw: Option<Instant>,
}

impl Progress {
    pub fn new(label: &str, total: u64, on: bool) -> Self {
        Self {
            label: label.to_string(),
            total,
            from: 0,
            unit: "step",
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            on,
            last_decile: 0,
            last_draw: None,
        }
    }

    /// What the bar counts ("step" by default; "frame" for `rillet render`).
    pub fn counting(mut self, unit: &'static str) -> Self {
        self.unit = unit;
        self
    }

    /// The count already done when the bar starts (a resumed run's checkpoint step).
    pub fn starting_at(mut self, from: u64) -> Self {
        self.from = from.min(self.total);
        self.last_decile = (self.from as f64 / self.total.max(1) as f64 * 10.0).floor() as u64;
        self
    }

    /// Seconds left at the pace since the bar started, from `done` of the total.
    pub fn eta(&self, done: u64, elapsed: f64) -> f64 {
        let since = done.saturating_sub(self.from);
        if since > 0 { elapsed * self.total.saturating_sub(done) as f64 / since as f64 } else { 0.0 }
    }

    pub fn update(&mut self, done: u64, sim_time: f64) {
        if !self.on || self.total == 0 {
            return;
        }
        let frac = done as f64 / self.total as f64;
        let elapsed = self.start.elapsed().as_secs_f64();
        let eta = self.eta(done, elapsed);
        if self.tty {
            if self.last_draw.is_some_and(|t| t.elapsed().as_millis() < 100) && done < self.total {
                return;
            }
            self.last_draw = Some(Instant::now());
            let width = 30;
            let filled = ((frac * width as f64) as usize).min(width);
            eprint!(
                "\r{} [{}{}] {:5.1}% {} {}/{}{}, {:.0} s left   ",
                self.label,
                "#".repeat(filled),
                "-".repeat(width - filled),
                100.0 * frac,
                self.unit,
                done,
                self.total,
                sim_clock(sim_time),
                eta
            );
            let _ = std::io::stderr().flush();
        } else {
            let decile = (frac * 10.0).floor() as u64;
            if decile > self.last_decile {
                self.last_decile = decile;
                eprintln!(
                    "{}: {:3.0}% {} {}/{}{}, {:.0} s elapsed, {:.0} s left",
                    self.label,
                    100.0 * frac,
                    self.unit,
                    done,
                    self.total,
                    sim_clock(sim_time),
                    elapsed,
                    eta
                );
            }
        }
    }

    pub fn finish(&mut self) {
        self.clear();
    }

    /// Ends the bar's line (on a terminal) so that a message can follow; the bar redraws below.
    pub fn clear(&mut self) {
        if self.on && self.tty && self.last_draw.take().is_some() {
            eprintln!();
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
