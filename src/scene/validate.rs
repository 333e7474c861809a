//! Checks a parsed scene against the allowed ranges ([`super::limits`]) and its geometry
//! (blocks inside the domain, no overlap, particle count), with errors that name the field.

use super::SceneError;
use super::lattice::{count_particles, lattice_count};
use super::limits::{self, Limit};
use super::schema::{Aabb, Pressure, Scene};

/// Hard cap on the particle count of a scene (fluid + boundary); device limits are checked
/// where the simulation is created.
pub const MAX_PARTICLES: u64 = 1 << 31;

/// Slack when checking that fluid blocks lie inside the domain, in metres.
const INSIDE_TOLERANCE: f32 = 1e-5;

impl Scene {
    /// Checks every value against its allowed range; the first violation is returned.
    pub fn validate(&self, file: &str) -> Result<(), SceneError> {
        let v = Validator { file };
        let p = &self.physics;
        let g = &self.grid;

        // every float finite, before anything compares them
        for a in 0..3 {
            v.finite(&format!("domain.min[{a}]"), self.domain.min[a], "m")?;
            v.finite(&format!("domain.max[{a}]"), self.domain.max[a], "m")?;
        }
        for (i, b) in self.fluid.iter().enumerate() {
            for a in 0..3 {
                v.finite(&format!("fluid[{i}].min[{a}]"), b.min[a], "m")?;
                v.finite(&format!("fluid[{i}].max[{a}]"), b.max[a], "m")?;
            }
        }
        v.finite("physics.spacing", p.spacing, "m")?;
        v.finite("physics.rest_density", p.rest_density, "kg/m³")?;
        match p.pressure {
            Pressure::Auto => {}
            Pressure::SpeedOfSound(c) => v.finite("physics.pressure.SpeedOfSound", c, "m/s")?,
            Pressure::Stiffness(b) => v.finite("physics.pressure.Stiffness", b, "Pa")?,
        }
        v.finite("physics.viscosity", p.viscosity, "")?;
        v.finite("physics.wall_viscosity", p.wall_viscosity, "")?;
        for a in 0..3 {
            v.finite(&format!("physics.gravity[{a}]"), p.gravity[a], "m/s²")?;
        }
        v.finite("physics.dt", p.dt, "s")?;
        v.finite("grid.cell_size", g.cell_size, "× h")?;

        // physics
        let s = p.spacing;
        v.limit("physics.spacing", s, &limits::SPACING)?;
        let rho0 = p.rest_density;
        v.limit("physics.rest_density", rho0, &limits::REST_DENSITY)?;
        match p.pressure {
            Pressure::Auto => {}
            Pressure::SpeedOfSound(c) => v.limit("physics.pressure.SpeedOfSound", c, &limits::SPEED_OF_SOUND)?,
            Pressure::Stiffness(b) => v.limit("physics.pressure.Stiffness", b, &limits::STIFFNESS)?,
        }
        v.limit("physics.viscosity", p.viscosity, &limits::VISCOSITY)?;
        v.limit("physics.wall_viscosity", p.wall_viscosity, &limits::VISCOSITY)?;
        for a in 0..3 {
            v.limit(&format!("physics.gravity[{a}]"), p.gravity[a], &limits::GRAVITY)?;
        }
        v.limit("physics.dt", p.dt, &limits::DT)?;

        // grid and walls
        v.limit("grid.cell_size", g.cell_size, &limits::CELL_SIZE)?;
        v.limit("grid.capacity", g.capacity, &limits::CAPACITY)?;
        v.limit("grid.reorder_interval", g.reorder_interval, &limits::REORDER_INTERVAL)?;
        let layers = self.walls.layers;
        v.limit("walls.layers", layers, &limits::WALL_LAYERS)?;

        // domain
        let (dmin, dmax) = (self.domain.min, self.domain.max);
        for a in 0..3 {
            let extent = dmax[a] - dmin[a];
            let ok = extent >= 4.0 * s && extent <= 10000.0;
            let allowed = format!(
                "[{}, {}] m (domain.min[{a}] + 4·physics.spacing up to domain.min[{a}] + 10000 m)",
                dmin[a] + 4.0 * s,
                dmin[a] + 10000.0,
            );
            v.check(&format!("domain.max[{a}]"), dmax[a], ok, &allowed)?;
        }

        // fluid blocks
        if self.fluid.is_empty() {
            return Err(v.invalid("fluid", "[]", "at least one block"));
        }
        for (i, b) in self.fluid.iter().enumerate() {
            for a in 0..3 {
                let (lo, hi) = (dmin[a] - INSIDE_TOLERANCE, dmax[a] + INSIDE_TOLERANCE);
                let inside = format!("[{}, {}] m (inside domain.min[{a}]..domain.max[{a}])", dmin[a], dmax[a]);
                v.check(&format!("fluid[{i}].min[{a}]"), b.min[a], b.min[a] >= lo && b.min[a] <= hi, &inside)?;
                v.check(&format!("fluid[{i}].max[{a}]"), b.max[a], b.max[a] >= lo && b.max[a] <= hi, &inside)?;
                let above = format!("> fluid[{i}].min[{a}] = {} m", b.min[a]);
                v.check(&format!("fluid[{i}].max[{a}]"), b.max[a], b.max[a] > b.min[a], &above)?;
            }
            if (0..3).any(|a| lattice_count(b.min[a], b.max[a], s) == 0) {
                return Err(v.invalid(
                    &format!("fluid[{i}]"),
                    block(b),
                    &format!("a block at least one physics.spacing ({s} m) long along every axis"),
                ));
            }
        }
        for (i, b) in self.fluid.iter().enumerate() {
            for (j, c) in self.fluid.iter().enumerate().take(i) {
                let overlap = (0..3).all(|a| b.min[a] < c.max[a] - INSIDE_TOLERANCE && c.min[a] < b.max[a] - INSIDE_TOLERANCE);
                if overlap {
                    return Err(v.invalid(
                        &format!("fluid[{i}]"),
                        block(b),
                        &format!("no overlap with fluid[{j}] = {} (blocks may touch)", block(c)),
                    ));
                }
            }
        }

        // particle count, first in u128 so that count_particles (u64) cannot overflow
        let n = |lo: f32, hi: f32| lattice_count(lo, hi, s) as u128;
        let fluid: u128 = self.fluid.iter().map(|b| (0..3).map(|a| n(b.min[a], b.max[a])).product::<u128>()).sum();
        let t = layers as f32 * s;
        let outer: u128 = (0..3).map(|a| n(dmin[a] - t, dmax[a] + t)).product();
        let inner: u128 = (0..3).map(|a| n(dmin[a], dmax[a])).product();
        let (fluid, boundary) = if fluid + outer.saturating_sub(inner) > MAX_PARTICLES as u128 {
            (fluid, outer.saturating_sub(inner))
        } else {
            let (f, b) = count_particles(self);
            (f as u128, b as u128)
        };
        if fluid + boundary > MAX_PARTICLES as u128 {
            return Err(v.invalid(
                "particles",
                format!("{} (fluid {fluid} + boundary {boundary})", fluid + boundary),
                &format!("at most 2^31 = {MAX_PARTICLES} in all: increase physics.spacing or shrink the domain, the fluid or walls.layers"),
            ));
        }
        Ok(())
    }
}

/// `(x, y, z)..(x, y, z)`, a block in messages.
fn block(b: &Aabb) -> String {
    format!("{}..{}", vec3(b.min), vec3(b.max))
}

fn vec3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// Builds [`SceneError::Invalid`]s for one file.
struct Validator<'a> {
    file: &'a str,
}

impl Validator<'_> {
    fn invalid(&self, field: &str, value: impl std::fmt::Display, allowed: &str) -> SceneError {
        SceneError::Invalid { file: self.file.to_owned(), field: field.to_owned(), value: value.to_string(), allowed: allowed.to_owned() }
    }

    fn check(&self, field: &str, value: impl std::fmt::Display, ok: bool, allowed: &str) -> Result<(), SceneError> {
        if ok { Ok(()) } else { Err(self.invalid(field, value, allowed)) }
    }

    fn limit<T: PartialOrd + Copy + limits::Shown>(&self, field: &str, value: T, limit: &Limit<T>) -> Result<(), SceneError> {
        self.check(field, value, limit.contains(value), &limit.allowed())
    }

    fn finite(&self, field: &str, value: f32, unit: &str) -> Result<(), SceneError> {
        let allowed = if unit.is_empty() { "a finite number".to_owned() } else { format!("a finite number of {unit}") };
        self.check(field, value, value.is_finite(), &allowed)
    }
}
