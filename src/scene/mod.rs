//! Scenes: the RON schema, its defaults, and validation with errors that name the file, the field
//! and the allowed range.

pub mod limits;

use limits::Limit;
use serde::{Deserialize, Serialize};

/// The default scene, embedded in the binary.
pub const DEFAULT_SCENE: &str = include_str!("../../scenes/dam_break.ron");
pub const DEFAULT_SCENE_PATH: &str = "scenes/dam_break.ron";

/// An axis-aligned box in metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

/// How the Tait stiffness is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Pressure {
    /// c = 10·sqrt(2·|g|·H), H = height of the highest fluid top above the domain floor
    /// (10 × the fastest speed a column of that height reaches when it falls).
    Auto,
    /// Speed of sound c in m/s; B = ρ0 c² / 7.
    SpeedOfSound(f32),
    /// Tait stiffness B in Pa; c = sqrt(7 B / ρ0).
    Stiffness(f32),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Physics {
    /// Particle spacing in metres (the support radius h is twice this).
    pub spacing: f32,
    /// Rest density ρ0 in kg/m³.
    pub rest_density: f32,
    pub pressure: Pressure,
    /// Monaghan artificial viscosity α between fluid particles.
    pub viscosity: f32,
    /// Monaghan artificial viscosity α between fluid and wall particles (0 = free slip).
    pub wall_viscosity: f32,
    /// Gravity in m/s².
    pub gravity: [f32; 3],
    /// Time step in seconds.
    pub dt: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GridSettings {
    /// Cell size as a multiple of the support radius h.
    pub cell_size: f32,
    /// Per-cell occupancy above which a cell counts as overflowing (diagnostic).
    pub capacity: u32,
    /// Reorder particle state by cell every this many steps (0 = never).
    pub reorder_interval: u32,
    /// Morton (Z-order) cell order instead of linear.
    pub morton: bool,
    /// Compile the grid diagnostics (max per cell, overflows) into the count pass.
    pub diagnostics: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Walls {
    /// Layers of boundary particles behind each face of the domain.
    pub layers: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    #[serde(default)]
    pub name: String,
    /// The container: fluid stays inside; walls of boundary particles line its faces outside.
    pub domain: Aabb,
    /// Blocks filled with fluid particles on a cubic lattice of `physics.spacing`.
    pub fluid: Vec<Aabb>,
    #[serde(default)]
    pub physics: Physics,
    #[serde(default)]
    pub grid: GridSettings,
    #[serde(default)]
    pub walls: Walls,
}

impl Default for Physics {
    fn default() -> Self {
        Self {
            spacing: 0.02,
            rest_density: 1000.0,
            pressure: Pressure::Auto,
            viscosity: 0.05,
            wall_viscosity: 0.0,
            gravity: [0.0, -9.81, 0.0],
            dt: 4e-4,
        }
    }
}

impl Default for GridSettings {
    fn default() -> Self {
        Self { cell_size: 0.5, capacity: 8, reorder_interval: 1, morton: false, diagnostics: true }
    }
}

impl Default for Walls {
    fn default() -> Self {
        Self { layers: 2 }
    }
}

/// Why a scene could not be loaded. Every message starts with the file, then (for syntax errors)
/// `line:column`, or (for values out of range) the field path, the value and the allowed range.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{file}: cannot read the scene: {source}")]
    Io { file: String, source: std::io::Error },
    /// The text is not a scene: a RON syntax error, an unknown or missing field, a wrong type.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax { file: String, line: usize, column: usize, message: String },
    /// A value outside its allowed range (or blocks that overlap, or too many particles).
    #[error("{file}: {field} = {value} is out of range: allowed {allowed}")]
    Invalid { file: String, field: String, value: String, allowed: String },
}

/// Hard cap on the particle count of a scene (fluid + boundary); device limits are checked
/// where the simulation is created.
pub const MAX_PARTICLES: u64 = 1 << 31;

/// Slack when checking that fluid blocks lie inside the domain, in metres.
const INSIDE_TOLERANCE: f32 = 1e-5;

impl Scene {
    /// Parses and validates a scene; `file` is only used in error messages.
    pub fn parse(text: &str, file: &str) -> Result<Scene, SceneError> {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME | ron::extensions::Extensions::UNWRAP_NEWTYPES);
        let scene: Scene = options.from_str(text).map_err(|e| SceneError::Syntax {
            file: file.to_owned(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: syntax_message(&e.code),
        })?;
        scene.validate(file)?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file.
    pub fn load(path: &std::path::Path) -> Result<Scene, SceneError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io { file: file.clone(), source })?;
        Self::parse(&text, &file)
    }

    /// The built-in scene ([`DEFAULT_SCENE`], `scenes/dam_break.ron`).
    pub fn default_scene() -> Scene {
        Self::parse(DEFAULT_SCENE, DEFAULT_SCENE_PATH).expect("the built-in default scene is valid")
    }

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
            if (0..3).any(|a| crate::setup::lattice_count(b.min[a], b.max[a], s) == 0) {
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
        let n = |lo: f32, hi: f32| crate::setup::lattice_count(lo, hi, s) as u128;
        let fluid: u128 = self.fluid.iter().map(|b| (0..3).map(|a| n(b.min[a], b.max[a])).product::<u128>()).sum();
        let t = layers as f32 * s;
        let outer: u128 = (0..3).map(|a| n(dmin[a] - t, dmax[a] + t)).product();
        let inner: u128 = (0..3).map(|a| n(dmin[a], dmax[a])).product();
        let (fluid, boundary) = if fluid + outer.saturating_sub(inner) > MAX_PARTICLES as u128 {
            (fluid, outer.saturating_sub(inner))
        } else {
            let (f, b) = crate::setup::count_particles(self);
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

/// RON's message, reworded for the errors users make most.
fn syntax_message(code: &ron::Error) -> String {
    fn one_of(alts: &[&str]) -> String {
        let names: Vec<String> = alts.iter().map(|a| format!("`{a}`")).collect();
        match names.len() {
            0 => "there are none".to_owned(),
            1 => format!("expected {}", names[0]),
            _ => format!("expected one of {}", names.join(", ")),
        }
    }
    fn within(outer: &Option<String>) -> String {
        outer.as_ref().map(|o| format!(" in `{o}`")).unwrap_or_default()
    }
    match code {
        ron::Error::NoSuchStructField { expected, found, outer } => {
            format!("unknown field `{found}`{}, {}", within(outer), one_of(expected))
        }
        ron::Error::MissingStructField { field, outer } => {
            format!("missing field `{field}`{}", within(outer))
        }
        ron::Error::DuplicateStructField { field, outer } => {
            format!("duplicate field `{field}`{}", within(outer))
        }
        ron::Error::NoSuchEnumVariant { expected, found, outer } => {
            format!("unknown variant `{found}`{}, {}", within(outer), one_of(expected))
        }
        other => other.to_string(),
    }
}

/// Loads `path`, or the built-in default scene when there is none; returns the scene and a
/// name for messages.
pub fn load_or_default(path: Option<&std::path::Path>) -> Result<(Scene, String), SceneError> {
    Ok(match path {
        Some(p) => (Scene::load(p)?, p.display().to_string()),
        None => (Scene::parse(DEFAULT_SCENE, DEFAULT_SCENE_PATH)?, format!("{DEFAULT_SCENE_PATH} (built in)")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))])";

    fn invalid(text: &str) -> (String, String, String, String) {
        match Scene::parse(text, "t.ron") {
            Err(e @ SceneError::Invalid { .. }) => {
                let shown = e.to_string();
                let SceneError::Invalid { field, value, allowed, .. } = e else { unreachable!() };
                (field, value, allowed, shown)
            }
            other => panic!("expected SceneError::Invalid, got {other:?}"),
        }
    }

    /// MINIMAL with `extra` appended inside the outer parentheses.
    fn with(extra: &str) -> String {
        format!("{}, {extra})", &MINIMAL[..MINIMAL.len() - 1])
    }

    #[test]
    fn default_scene_parses() {
        let scene = Scene::default_scene();
        assert_eq!(scene.name, "dam break");
        assert_eq!(scene.fluid.len(), 1);
        assert_eq!(scene.physics.pressure, Pressure::Auto);
        assert_eq!(crate::setup::count_particles(&scene), (22_500, 29_664));
    }

    #[test]
    fn minimal_scene_gets_defaults() {
        let scene = Scene::parse(MINIMAL, "t.ron").unwrap();
        assert_eq!(scene.name, "");
        assert_eq!(scene.domain, Aabb { min: [0.0; 3], max: [1.0; 3] });
        assert_eq!(scene.fluid, vec![Aabb { min: [0.0; 3], max: [0.2; 3] }]);
        assert_eq!(scene.physics, Physics::default());
        assert_eq!(scene.grid, GridSettings::default());
        assert_eq!(scene.walls, Walls::default());
    }

    #[test]
    fn partial_sections_get_defaults() {
        let scene = Scene::parse(&with("physics: (dt: 0.001), grid: (morton: false)"), "t.ron").unwrap();
        assert_eq!(scene.physics, Physics { dt: 0.001, ..Physics::default() });
        assert_eq!(scene.grid, GridSettings { morton: false, ..GridSettings::default() });
    }

    #[test]
    fn pressure_variants_parse() {
        let scene = Scene::parse(&with("physics: (pressure: SpeedOfSound(30))"), "t.ron").unwrap();
        assert_eq!(scene.physics.pressure, Pressure::SpeedOfSound(30.0));
        let scene = Scene::parse(&with("physics: (pressure: Stiffness(5e4))"), "t.ron").unwrap();
        assert_eq!(scene.physics.pressure, Pressure::Stiffness(5e4));
    }

    #[test]
    fn io_error_names_the_file() {
        let err = Scene::load(std::path::Path::new("no/such/scene.ron")).unwrap_err();
        assert!(matches!(err, SceneError::Io { .. }), "{err:?}");
        assert!(err.to_string().starts_with("no/such/scene.ron: "), "{err}");
    }

    #[test]
    fn syntax_errors_have_a_position() {
        let err = Scene::parse("(\n  domain: (min: (0, 0, 0), max: (1, 1, 1)),\n  fluid: [(min: (0, 0, 0) max: (1, 1, 1))],\n)", "t.ron")
            .unwrap_err();
        let SceneError::Syntax { line, column, .. } = &err else { panic!("{err:?}") };
        assert_eq!(*line, 3);
        assert!(*column > 1);
        assert!(err.to_string().starts_with(&format!("t.ron:3:{column}: ")), "{err}");
    }

    #[test]
    fn unknown_field_is_a_syntax_error() {
        let err = Scene::parse(&with("physics: (spacnig: 0.01)"), "t.ron").unwrap_err();
        let SceneError::Syntax { line, message, .. } = &err else { panic!("{err:?}") };
        assert_eq!(*line, 1);
        assert!(message.starts_with("unknown field `spacnig` in `Physics`, expected one of `spacing`"), "{message}");
    }

    #[test]
    fn missing_field_and_wrong_type_are_syntax_errors() {
        let err = Scene::parse("(domain: (min: (0, 0, 0), max: (1, 1, 1)))", "t.ron").unwrap_err();
        let SceneError::Syntax { message, .. } = &err else { panic!("{err:?}") };
        assert!(message.contains("missing field `fluid`"), "{message}");
        let err = Scene::parse(&with("walls: (layers: 1.5)"), "t.ron").unwrap_err();
        assert!(matches!(err, SceneError::Syntax { .. }), "{err:?}");
        let err = Scene::parse(&with("physics: (pressure: Loud)"), "t.ron").unwrap_err();
        let SceneError::Syntax { message, .. } = &err else { panic!("{err:?}") };
        assert!(message.starts_with("unknown variant `Loud`"), "{message}");
    }

    #[test]
    fn out_of_range_values() {
        let (field, value, allowed, shown) = invalid(&with("physics: (dt: -0.001)"));
        assert_eq!((field.as_str(), value.as_str(), allowed.as_str()), ("physics.dt", "-0.001", "(0, 0.1] s"));
        assert_eq!(shown, "t.ron: physics.dt = -0.001 is out of range: allowed (0, 0.1] s");

        let cases = [
            ("physics: (spacing: 0)", "physics.spacing", "(0, 10] m"),
            ("physics: (rest_density: 0.5)", "physics.rest_density", "[1, 100000] kg/m³"),
            ("physics: (pressure: SpeedOfSound(0))", "physics.pressure.SpeedOfSound", "(0, 100000] m/s"),
            ("physics: (pressure: Stiffness(2e12))", "physics.pressure.Stiffness", "(0, 1e12] Pa"),
            ("physics: (viscosity: -1)", "physics.viscosity", "[0, 10]"),
            ("physics: (wall_viscosity: 11)", "physics.wall_viscosity", "[0, 10]"),
            ("physics: (gravity: (0, -2000, 0))", "physics.gravity[1]", "[-1000, 1000] m/s²"),
            ("physics: (dt: 0.2)", "physics.dt", "(0, 0.1] s"),
            ("physics: (dt: NaN)", "physics.dt", "a finite number of s"),
            ("grid: (cell_size: 0)", "grid.cell_size", "[0.5, 2]"),
            ("grid: (capacity: 0)", "grid.capacity", "[1, 1000000]"),
            ("grid: (reorder_interval: 1001)", "grid.reorder_interval", "[0, 1000]"),
            ("walls: (layers: 5)", "walls.layers", "[1, 4]"),
        ];
        for (extra, want_field, want_allowed) in cases {
            let (field, _, allowed, shown) = invalid(&with(extra));
            assert_eq!(field, want_field, "{extra}");
            assert!(allowed.starts_with(want_allowed), "{extra}: {allowed}");
            assert!(shown.starts_with(&format!("t.ron: {want_field} = ")), "{shown}");
        }
    }

    #[test]
    fn domain_checks() {
        let fluid = "fluid: [(min: (0, 0, 0), max: (0.04, 0.04, 0.04))]";
        let (field, ..) = invalid(&format!("(domain: (min: (0, 0, 0), max: (1, -1, 1)), {fluid})"));
        assert_eq!(field, "domain.max[1]");
        // narrower than 4 spacings
        let (field, _, allowed, _) = invalid(&format!("(domain: (min: (0, 0, 0), max: (1, 1, 0.07)), {fluid})"));
        assert_eq!(field, "domain.max[2]");
        assert!(allowed.starts_with("[0.08, 10000] m"), "{allowed}");
        let (field, ..) = invalid(&format!("(domain: (min: (0, 0, 0), max: (20000, 1, 1)), {fluid})"));
        assert_eq!(field, "domain.max[0]");
        let (field, _, allowed, _) = invalid(&format!("(domain: (min: (0, inf, 0), max: (1, 1, 1)), {fluid})"));
        assert_eq!((field.as_str(), allowed.as_str()), ("domain.min[1]", "a finite number of m"));
    }

    #[test]
    fn fluid_block_checks() {
        let scene = |fluid: &str| format!("(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [{fluid}])");
        let (field, value, ..) = invalid(&scene(""));
        assert_eq!((field.as_str(), value.as_str()), ("fluid", "[]"));

        let (field, _, allowed, _) = invalid(&scene("(min: (0, 0, 0), max: (0.5, 1.2, 0.5))"));
        assert_eq!(field, "fluid[0].max[1]");
        assert!(allowed.contains("[0, 1] m"), "{allowed}");
        // within the tolerance
        Scene::parse(&scene("(min: (-0.000001, 0, 0), max: (0.5, 1.000001, 0.5))"), "t.ron").unwrap();

        let (field, ..) = invalid(&scene("(min: (0.5, 0, 0), max: (0.2, 0.5, 0.5))"));
        assert_eq!(field, "fluid[0].max[0]");

        let (field, _, allowed, _) = invalid(&scene("(min: (0, 0, 0), max: (0.5, 0.01, 0.5))"));
        assert_eq!(field, "fluid[0]");
        assert!(allowed.contains("0.02 m"), "{allowed}");

        let (field, _, allowed, shown) = invalid(&scene(
            "(min: (0, 0, 0), max: (0.5, 0.5, 0.5)), (min: (0.6, 0, 0), max: (1, 1, 1)), (min: (0.4, 0.4, 0.4), max: (0.6, 0.6, 0.6))",
        ));
        assert_eq!(field, "fluid[2]");
        assert!(allowed.starts_with("no overlap with fluid[0]"), "{allowed}");
        assert!(shown.contains("fluid[2] = (0.4, 0.4, 0.4)..(0.6, 0.6, 0.6)"), "{shown}");

        // touching blocks are fine
        Scene::parse(&scene("(min: (0, 0, 0), max: (0.5, 0.5, 0.5)), (min: (0.5, 0, 0), max: (1, 0.5, 0.5))"), "t.ron").unwrap();
    }

    #[test]
    fn particle_cap() {
        // 10000³ m at 1 mm: far more than 2^31 particles, and no overflow on the way
        let (field, value, allowed, _) = invalid(
            "(domain: (min: (0, 0, 0), max: (10000, 10000, 10000)), fluid: [(min: (0, 0, 0), max: (10000, 10000, 10000))], physics: (spacing: 0.001))",
        );
        assert_eq!(field, "particles");
        assert!(value.contains("fluid"), "{value}");
        assert!(allowed.contains("2147483648"), "{allowed}");
        // walls alone over the cap, with little fluid
        let (field, ..) = invalid(
            "(domain: (min: (0, 0, 0), max: (200, 200, 200)), fluid: [(min: (0, 0, 0), max: (1, 1, 1))], physics: (spacing: 0.01))",
        );
        assert_eq!(field, "particles");
    }

    #[test]
    fn shipped_scenes_counts() {
        let bench = Scene::parse(include_str!("../../scenes/bench_1m.ron"), "scenes/bench_1m.ron").unwrap();
        assert_eq!(crate::setup::count_particles(&bench).0, 1_000_000);
        assert_eq!(bench.physics.pressure, Pressure::Stiffness(50000.0));
    }
}
