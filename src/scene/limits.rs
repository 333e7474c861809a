//! The allowed range of every bounded setting, written once: the scene validator checks against
//! these, the panel's controls and the command line take their ranges from them, and error
//! messages print them.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// A range a value must lie in, with its unit and an optional note for messages.
#[derive(Clone, Copy, Debug)]
pub struct Limit<T> {
    pub min: T,
    pub max: T,
    /// The lower end is excluded: `(min, max]`.
    pub min_exclusive: bool,
    /// Unit shown after the range ("m", "s", "× h"); may be empty.
    pub unit: &'static str,
    /// Shown after the unit, e.g. "(0 = never)"; may be empty.
    pub note: &'static str,
}

impl<T: PartialOrd + Copy + Shown> Limit<T> {
    pub(crate) const fn closed(min: T, max: T, unit: &'static str) -> Self {
        Self { min, max, min_exclusive: false, unit, note: "" }
    }
    /// `(min, max]`.
    pub(crate) const fn above(min: T, max: T, unit: &'static str) -> Self {
        Self { min, max, min_exclusive: true, unit, note: "" }
    }
    pub(crate) const fn with_note(self, note: &'static str) -> Self {
        Self { note, ..self }
    }

    pub fn contains(&self, v: T) -> bool {
        let low = if self.min_exclusive { v > self.min } else { v >= self.min };
        low && v <= self.max
    }

    /// `min..=max`, for sliders and drag values (an exclusive lower end is the caller's care).
    pub(crate) fn range(&self) -> RangeInclusive<T> {
        self.min..=self.max
    }

    /// The range as messages print it: `(0, 10] m`, `[0, 1000] steps (0 = never)`.
    pub fn allowed(&self) -> String {
        let open = if self.min_exclusive { '(' } else { '[' };
        let mut s = format!("{open}{}, {}]", self.min.shown(), self.max.shown());
        for extra in [self.unit, self.note] {
            if !extra.is_empty() {
                s.push(' ');
                s.push_str(extra);
            }
        }
        s
    }
}

/// How a bound is printed: plain up to a million, in exponent form above.
pub trait Shown: Display {
    fn shown(&self) -> String {
        self.to_string()
    }
}
impl Shown for u32 {}
impl Shown for f32 {
    fn shown(&self) -> String {
        if self.abs() > 1e6 { format!("{self:e}") } else { self.to_string() }
    }
}

// physics
pub(crate) const SPACING: Limit<f32> = Limit::above(0.0, 10.0, "m");
pub(crate) const REST_DENSITY: Limit<f32> = Limit::closed(1.0, 1e5, "kg/m³");
pub(crate) const SPEED_OF_SOUND: Limit<f32> = Limit::above(0.0, 1e5, "m/s");
pub(crate) const STIFFNESS: Limit<f32> = Limit::above(0.0, 1e12, "Pa");
pub(crate) const VISCOSITY: Limit<f32> = Limit::closed(0.0, 10.0, "");
/// Each component of gravity.
pub(crate) const GRAVITY: Limit<f32> = Limit::closed(-1000.0, 1000.0, "m/s²");
pub(crate) const DT: Limit<f32> = Limit::above(0.0, 0.1, "s");
/// Kinematic viscosity of no-slip walls.
pub(crate) const NO_SLIP_VISCOSITY: Limit<f32> = Limit::closed(0.0, 1.0, "m²/s").with_note("(0 = free slip; water 1e-6)");
/// CFL number of an adaptive time step.
pub(crate) const ADAPTIVE_CFL: Limit<f32> = Limit::above(0.0, 1.0, "");
/// DFSPH's tolerances (mean relative density error, and divergence per step).
pub const DFSPH_TOLERANCE: Limit<f32> = Limit::closed(1e-5, 0.1, "");
/// DFSPH's most velocity updates per solve.
pub(crate) const DFSPH_ITERATIONS: Limit<u32> = Limit::closed(1, 1000, "iterations");
/// DFSPH's heavy-ball momentum β (0 = plain Jacobi; towards 1 the iteration no longer settles).
pub const DFSPH_MOMENTUM: Limit<f32> = Limit::closed(0.0, 0.8, "").with_note("(0 = plain Jacobi)");

/// A scene holds at most this many fluid blocks.
pub(crate) const MAX_FLUID_BLOCKS: usize = 10_000;

/// Largest CFL number dt·c/h a scene may ask for: beyond it sound crosses more than the support
/// radius in one step and no explicit step is stable.
pub(crate) const CFL_MAX: f64 = 1.0;
/// The CFL number recommended for weakly compressible SPH (Monaghan); the panel warns above it.
pub(crate) const CFL_RECOMMENDED: f64 = 0.4;
/// Largest dt / √(h/|g|) a scene may ask for: at 1, gravity carries a particle from rest half
/// the support radius in one step.
pub(crate) const FORCE_MAX: f64 = 1.0;
/// Monaghan's force condition, dt ≤ 0.25·√(h/|a|), with gravity as the acceleration.
pub(crate) const FORCE_RECOMMENDED: f64 = 0.25;
/// The spacing must be at least this many times the gap between neighbouring 32-bit positions
/// at the scene's farthest coordinate (so motions of a fraction of the spacing are resolved).
pub(crate) const POSITION_RESOLUTION: f64 = 256.0;
/// Smallest particle mass (kg), and the inverse of the largest kernel normalisation (m³), that
/// 32-bit floats carry with room for the products of a step.
pub(crate) const F32_SMALLEST_SAFE: f64 = 1e-30;

// grid (live: the panel changes these)
pub const CELL_SIZE: Limit<f32> = Limit::closed(0.5, 2.0, "× h (the support radius)");
pub(crate) const CAPACITY: Limit<u32> = Limit::closed(1, 1_000_000, "particles");
pub(crate) const REORDER_INTERVAL: Limit<u32> = Limit::closed(0, 1000, "steps").with_note("(0 = never)");
pub const LIST_SKIN: Limit<f32> = Limit::closed(0.0, 0.5, "× h").with_note("(0 = lists built every step)");

// walls
pub(crate) const WALL_LAYERS: Limit<u32> = Limit::closed(1, 4, "");

// running
/// Simulation steps per frame in the app and `rillet render`.
pub(crate) const SUBSTEPS: Limit<u32> = Limit::closed(1, 32, "steps per frame");
/// Camera elevation for `rillet render`, degrees.
pub(crate) const CAMERA_PITCH: Limit<f32> = Limit::closed(-89.0, 89.0, "degrees");
/// Camera distance for `rillet render`, as a multiple of the distance that frames the scene.
pub(crate) const CAMERA_ZOOM: Limit<f32> = Limit::closed(0.05, 20.0, "× the framing distance");
/// Each side of a window or an offscreen image.
pub(crate) const IMAGE_SIDE: Limit<u32> = Limit::closed(64, 16384, "pixels");

/// A command-line value within `limit`: out of range is refused with the range, not clamped.
pub(crate) fn parse_within<T: PartialOrd + Copy + Shown + std::str::FromStr>(s: &str, limit: &Limit<T>) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let v: T = s.trim().parse().map_err(|e| format!("`{s}`: {e}"))?;
    if limit.contains(v) { Ok(v) } else { Err(format!("{} is out of range: allowed {}", v.shown(), limit.allowed())) }
}

/// `WIDTHxHEIGHT`, each side within [`IMAGE_SIDE`].
pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    Ok((parse_within(w, &IMAGE_SIDE)?, parse_within(h, &IMAGE_SIDE)?))
}

/// Most solids in a scene.
pub(crate) const MAX_SOLIDS: usize = 256;
/// Pressure sensors a scene may have (one invocation each; a row of `sensors.csv` per sample).
pub(crate) const MAX_SENSORS: usize = 4096;

/// Force sensors a scene may have (a workgroup each to sum; six columns of `sensors.csv`).
pub(crate) const MAX_FORCE_SENSORS: usize = 256;

/// Flow sections a scene may have (their partial sums, 16 bytes per section and 32 particles,
/// stay within the particle state's binding: 16 bytes a particle).
pub(crate) const MAX_FLOW_SECTIONS: usize = 16;

/// A mesh's scale factor.
pub(crate) const MESH_SCALE: Limit<f32> = Limit::closed(1e-6, 1e6, "");

/// Rotation angles, degrees.
pub(crate) const ROTATION: Limit<f32> = Limit::closed(-360.0, 360.0, "degrees");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_print_as_messages_show_them() {
        assert_eq!(SPACING.allowed(), "(0, 10] m");
        assert_eq!(STIFFNESS.allowed(), "(0, 1e12] Pa");
        assert_eq!(REST_DENSITY.allowed(), "[1, 100000] kg/m³");
        assert_eq!(REORDER_INTERVAL.allowed(), "[0, 1000] steps (0 = never)");
        assert_eq!(VISCOSITY.allowed(), "[0, 10]");
    }

    #[test]
    fn command_line_values_are_refused_out_of_range() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("800X600"), Ok((800, 600)));
        assert!(parse_size("1280").is_err() && parse_size("0x720").is_err() && parse_size("axb").is_err());
        assert_eq!(parse_within("33", &SUBSTEPS), Err("33 is out of range: allowed [1, 32] steps per frame".to_string()));
        assert_eq!(parse_within("4", &SUBSTEPS), Ok(4));
    }

    #[test]
    fn ends_are_open_or_closed_as_declared() {
        assert!(!SPACING.contains(0.0) && SPACING.contains(10.0) && !SPACING.contains(10.01));
        assert!(REORDER_INTERVAL.contains(0) && REORDER_INTERVAL.contains(1000) && !REORDER_INTERVAL.contains(1001));
        assert!(!CELL_SIZE.contains(f32::NAN));
    }
}
