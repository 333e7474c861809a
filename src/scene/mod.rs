//! Scenes: the RON schema ([`schema`]), the allowed ranges ([`limits`]), validation with errors
//! that name the file, the field and the allowed range ([`validate`]), the particle lattice
//! ([`lattice`]) and the initial state a simulation starts from ([`setup`]).

pub(crate) mod blocks;
pub(crate) mod bodies;
pub mod geometry;
pub mod hash;
pub(crate) mod inflow;
pub mod lattice;
pub mod limits;
mod motion;
pub(crate) mod schema;
pub mod setup;
pub(crate) mod validate;

pub use schema::{
    Aabb, DfsphSettings, FlowSection, Fluid, ForceSensor, GridSettings, Meshes, Motion, Physics, Pressure, PressureSensor, Probes,
    Rotation, Scene, Solid, Solver, TimeStep, Translation, Walls,
};
pub use validate::MAX_PARTICLES;

/// The default scene, embedded in the binary.
pub(crate) const DEFAULT_SCENE: &str = include_str!("../../scenes/dam_break.ron");
pub const DEFAULT_SCENE_PATH: &str = "scenes/dam_break.ron";

/// Why a scene could not be loaded. Every message starts with the file, then (for syntax errors)
/// `line:column`, or (for values out of range) the field path, the value and the allowed range.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("{file}: cannot read the scene: {source}")]
    Io { file: String, source: std::io::Error },
    /// The file is not UTF-8 text.
    #[error("{file}: not UTF-8 text: invalid byte at offset {offset} ({hint})")]
    Encoding { file: String, offset: usize, hint: &'static str },
    /// The text is not a scene: a RON syntax error, an unknown or missing field, a wrong type.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax { file: String, line: usize, column: usize, message: String },
    /// A mesh an entry names cannot be read or used.
    #[error("{file}: {field} = \"{path}\": {message}")]
    Mesh { file: String, field: String, path: String, message: String },
    /// A value outside its allowed range (or blocks that overlap, or too many particles).
    #[error("{file}: {field} = {value} is out of range: allowed {allowed}")]
    Invalid { file: String, field: String, value: String, allowed: String },
}

impl Scene {
    /// The pressure sensors' points and rate, for the simulation.
    /// A disc sensor (`diameter` > 0) is sampled at the points of [`disc_points`], and its
    /// reading is their mean.
    pub fn sensor_spec(&self) -> crate::sim::sensors::SensorSpec {
        let mut spec = crate::sim::sensors::SensorSpec { every: self.probes.sensor_every.max(1), ..Default::default() };
        for s in &self.probes.sensors {
            let points = match s.normal {
                Some(n) if s.diameter > 0.0 => disc_points(s.at, n, s.diameter),
                _ => vec![s.at],
            };
            spec.members.push(points.len() as u32);
            spec.fill_min.extend(std::iter::repeat_n(s.fill_min, points.len()));
            spec.points.extend(points);
        }
        let slab = crate::physics::SUPPORT_OVER_SPACING * self.physics.spacing;
        spec.flows = self.probes.flows.iter().map(|f| crate::sim::sensors::FlowSpec::new(f.at, f.normal, f.size, slab)).collect();
        spec
    }

    /// The names of the pressure sensors, in `sensors.csv`'s order.
    pub fn sensor_names(&self) -> Vec<String> {
        self.probes.sensors.iter().map(|s| s.name.clone()).collect()
    }

    /// The names of the force sensors, in `sensors.csv`'s order (after the pressure sensors).
    pub fn force_names(&self) -> Vec<String> {
        self.probes.forces.iter().map(|s| s.name.clone()).collect()
    }

    /// The names of the flow sections, in `sensors.csv`'s order (after the force sensors).
    pub fn flow_names(&self) -> Vec<String> {
        self.probes.flows.iter().map(|s| s.name.clone()).collect()
    }

    /// `sensors.csv`'s sensors.
    pub fn sensor_columns(&self) -> crate::sim::sensors::Columns {
        crate::sim::sensors::Columns { pressure: self.sensor_names(), forces: self.force_names(), flows: self.flow_names() }
    }

    /// Parses and validates a scene; `file` is only used in error messages.
    pub fn parse(text: &str, file: &str) -> Result<Scene, SceneError> {
        // a UTF-8 byte-order mark (some editors write one) is not part of the text
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Some((line, column, literal)) = number_beyond_f32(text) {
            return Err(SceneError::Syntax {
                file: file.to_owned(),
                line,
                column,
                message: format!("`{literal}` is beyond what a 32-bit float holds (at most ±3.4e38, and no smaller than 1e-38 unless 0)"),
            });
        }
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME | ron::extensions::Extensions::UNWRAP_NEWTYPES);
        let scene: Scene = options.from_str(text).map_err(|e| SceneError::Syntax {
            file: file.to_owned(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: syntax_message(&e.code),
        })?;
        let mut scene = scene;
        scene.validate(file)?;
        scene.load_meshes(file)?;
        scene.validate_inside_domain(file)?;
        // the count first: it bounds the lattices the bodies' checks sample
        scene.validate_count(file)?;
        scene.sample_bodies();
        scene.validate_inflow(file, lattice::count_particles(&scene).0)?;
        scene.validate_bodies(file)?;
        scene.validate_motions(file)?;
        scene.check_floating(file)?;
        scene.validate_inflow_bodies(file)?;
        Ok(scene)
    }

    /// Reads, parses and validates a scene file.
    pub fn load(path: &std::path::Path) -> Result<Scene, SceneError> {
        let file = path.display().to_string();
        let bytes = crate::files::read_regular(path).map_err(|source| SceneError::Io { file: file.clone(), source })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let bytes = e.as_bytes();
            let utf16 = bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]);
            SceneError::Encoding {
                file: file.clone(),
                offset: e.utf8_error().valid_up_to(),
                hint: if utf16 { "the file is UTF-16: save it as UTF-8" } else { "save the scene as UTF-8 text" },
            }
        })?;
        Self::parse(&text, &file)
    }

    /// The built-in scene ([`DEFAULT_SCENE`], `scenes/dam_break.ron`).
    pub fn default_scene() -> Scene {
        Self::parse(DEFAULT_SCENE, DEFAULT_SCENE_PATH).expect("the built-in default scene is valid")
    }
}

/// The first number literal (outside comments and strings) that a 32-bit float cannot hold — too
/// large (it would read as infinity) or so small it is not a normal number — as (line, column,
/// the literal as written).
fn number_beyond_f32(text: &str) -> Option<(usize, usize, String)> {
    // bytes throughout: every byte the scanner stops on is ASCII, so slicing at it is safe, and
    // multi-byte characters (ρ, curly quotes) are stepped over
    let b = text.as_bytes();
    let find = |from: usize, pat: &[u8]| b[from..].windows(pat.len()).position(|w| w == pat).map(|k| from + k);
    let (mut i, mut line, mut line_start) = (0, 1, 0);
    let newline = |at: usize, line: &mut usize, line_start: &mut usize| {
        *line += 1;
        *line_start = at + 1;
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            newline(i, &mut line, &mut line_start);
            i += 1;
        } else if b[i..].starts_with(b"//") {
            i = find(i, b"\n").unwrap_or(b.len());
        } else if b[i..].starts_with(b"/*") || c == b'"' {
            // a comment or a string: skip it, counting its lines
            let end = if c == b'"' {
                let mut k = i + 1;
                while k < b.len() && b[k] != b'"' {
                    k += if b[k] == b'\\' { 2 } else { 1 };
                }
                (k + 1).min(b.len())
            } else {
                find(i + 2, b"*/").map_or(b.len(), |k| k + 2)
            };
            for (k, _) in b[i..end].iter().enumerate().filter(|(_, c)| **c == b'\n') {
                newline(i + k, &mut line, &mut line_start);
            }
            i = end;
        } else if c.is_ascii_digit() && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            let start = if i > 0 && matches!(b[i - 1], b'-' | b'+' | b'.') { i - 1 } else { i };
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || b[i] == b'_'
                    || ((b[i] == b'-' || b[i] == b'+') && matches!(b[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            let literal = &text[start..i];
            if let Ok(v) = literal.replace('_', "").parse::<f64>() {
                let a = v.abs();
                if a > f32::MAX as f64 || (a > 0.0 && a < f32::MIN_POSITIVE as f64) {
                    let column = text[line_start..start].chars().count() + 1;
                    return Some((line, column, literal.to_owned()));
                }
            }
        } else {
            i += 1;
        }
    }
    None
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
pub(crate) fn load_or_default(path: Option<&std::path::Path>) -> Result<(Scene, String), SceneError> {
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
    fn a_byte_order_mark_is_accepted() {
        let scene = Scene::parse(&format!("\u{feff}{MINIMAL}"), "t.ron").unwrap();
        assert_eq!(scene.fluid.len(), 1);
    }

    #[test]
    fn numbers_beyond_f32_are_quoted_as_written() {
        let e = Scene::parse(&with("physics: (dt: 1e39)"), "t.ron").unwrap_err().to_string();
        assert!(e.starts_with("t.ron:1:") && e.contains("`1e39` is beyond what a 32-bit float holds"), "{e}");
        let e = Scene::parse(&with("physics: (spacing: 1e-45)"), "t.ron").unwrap_err().to_string();
        assert!(e.contains("`1e-45`"), "{e}");
        // comments and names are not numbers
        Scene::parse(&format!("// 1e99 in a comment\n/* 1e40 */ {MINIMAL}"), "t.ron").unwrap();
        // non-ASCII text anywhere (it panicked the scanner once), lines counted inside strings
        let e = Scene::parse(&with("name: \"ρ “two”\nlines\", physics: (dt: -1e39)"), "t.ron").unwrap_err().to_string();
        assert!(e.starts_with("t.ron:2:") && e.contains("`-1e39`"), "{e}");
        let e = Scene::parse("(ρ: 1)", "t.ron").unwrap_err().to_string();
        assert!(e.starts_with("t.ron:1:"), "a syntax error, not a panic: {e}");
    }

    #[test]
    fn files_that_are_not_utf8_name_the_byte() {
        let dir = std::env::temp_dir().join(format!("rillet-enc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let latin1 = dir.join("latin1.ron");
        let mut bytes = b"(name: \"caf".to_vec();
        bytes.push(0xe9);
        bytes.extend_from_slice(b"\", domain: (min: (0,0,0), max: (1,1,1)), fluid: [])");
        std::fs::write(&latin1, &bytes).unwrap();
        let e = Scene::load(&latin1).unwrap_err().to_string();
        assert!(e.contains("latin1.ron: not UTF-8 text: invalid byte at offset 11"), "{e}");
        let utf16 = dir.join("utf16.ron");
        let mut bytes = vec![0xff, 0xfe];
        bytes.extend(MINIMAL.encode_utf16().flat_map(|u| u.to_le_bytes()));
        std::fs::write(&utf16, &bytes).unwrap();
        let e = Scene::load(&utf16).unwrap_err().to_string();
        assert!(e.contains("the file is UTF-16"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn unstable_steps_are_refused_with_the_largest_stable_dt() {
        // c = 50 m/s, h = 0.04 m: CFL 1 allows dt up to 8e-4 s, 0.4 is recommended (3.2e-4 s)
        let (field, value, allowed, _) = invalid(&with("physics: (pressure: SpeedOfSound(50), dt: 0.001)"));
        assert_eq!((field.as_str(), value.as_str()), ("physics.dt", "0.001"));
        assert!(allowed.starts_with("(0, 8.0000e-4] s") && allowed.contains("CFL") && allowed.contains("3.2000e-4 s"), "{allowed}");
        Scene::parse(&with("physics: (pressure: SpeedOfSound(50), dt: 0.0008)"), "t.ron").unwrap();
        // the small drop with dt = 0.1 (CFL 63)
        let (field, ..) = invalid(&with("physics: (dt: 0.1)"));
        assert_eq!(field, "physics.dt");
        // h = 0.04 m, |g| = 1000: dt ≤ √(4e-5) = 6.3e-3 s
        let (field, _, allowed, _) = invalid(&with("physics: (pressure: SpeedOfSound(1), gravity: (0, -1000, 0), dt: 0.007)"));
        assert_eq!(field, "physics.dt");
        assert!(allowed.contains("force condition"), "{allowed}");
    }

    #[test]
    fn precision_f32_cannot_carry_is_refused() {
        let far = "(domain: (min: (1000000, 0, 0), max: (1000001, 1, 1)), fluid: [(min: (1000000, 0, 0), max: (1000000.2, 0.2, 0.2))])";
        let (field, _, allowed, _) = invalid(far);
        assert_eq!(field, "physics.spacing");
        assert!(allowed.contains("32-bit positions"), "{allowed}");
        let tiny = "(domain: (min: (0, 0, 0), max: (1e-29, 1e-29, 1e-29)), fluid: [(min: (0, 0, 0), max: (1e-29, 1e-29, 1e-29))], physics: (spacing: 1e-31))";
        let (field, _, allowed, _) = invalid(tiny);
        assert_eq!(field, "physics.spacing");
        assert!(allowed.contains("particle mass"), "{allowed}");
    }

    #[test]
    fn many_blocks_load_fast_and_too_many_are_refused() {
        // eighths are exact in f32: touching blocks touch exactly
        let at = |i: usize| i as f64 * 0.125;
        let blocks = |n: usize| {
            (0..n).map(|i| format!("(min: ({}, 0, 0), max: ({}, 0.125, 0.125))", at(i), at(i + 1))).collect::<Vec<_>>().join(",")
        };
        let scene = |n: usize| {
            format!("(domain: (min: (0, 0, 0), max: (1251, 1, 1)), fluid: [{}], physics: (spacing: 0.0625, dt: 0.001))", blocks(n))
        };
        let t = std::time::Instant::now();
        Scene::parse(&scene(limits::MAX_FLUID_BLOCKS), "t.ron").unwrap();
        assert!(t.elapsed().as_secs_f64() < 5.0, "10 000 touching blocks took {:?}", t.elapsed());
        let (field, value, _, _) = invalid(&scene(limits::MAX_FLUID_BLOCKS + 1));
        assert_eq!((field.as_str(), value.as_str()), ("fluid", "10001 blocks"));
        // an overlap deep in the list is still found, naming the later block
        let mut many: Vec<String> = (0..2000).map(|i| format!("(min: ({}, 0, 0), max: ({}, 0.125, 0.125))", at(i), at(i + 1))).collect();
        many.push("(min: (50.05, 0, 0), max: (50.2, 0.125, 0.125))".into());
        let text =
            format!("(domain: (min: (0, 0, 0), max: (251, 1, 1)), fluid: [{}], physics: (spacing: 0.01, dt: 0.0001))", many.join(","));
        let (field, _, allowed, _) = invalid(&text);
        assert_eq!(field, "fluid[2000]");
        assert!(allowed.contains("no overlap with fluid[400]"), "{allowed}");
    }

    #[test]
    fn default_scene_parses() {
        let scene = Scene::default_scene();
        assert_eq!(scene.name, "dam break");
        assert_eq!(scene.fluid.len(), 1);
        // 10× the fastest a released column 0.6 m high runs (Ritter's front, 2·sqrt(g·H) =
        // 4.85 m/s), at a time step within the recommended CFL number
        assert_eq!(scene.physics.pressure, Pressure::SpeedOfSound(50.0));
        assert!(50.0 >= 10.0 * 2.0 * (9.81f64 * 0.6).sqrt());
        let h = crate::physics::SUPPORT_OVER_SPACING as f64 * scene.physics.spacing as f64;
        assert!(crate::physics::cfl(scene.physics.dt as f64, 50.0, h) <= limits::CFL_RECOMMENDED);
        assert_eq!(lattice::count_particles(&scene), (22_500, 29_664));
    }

    #[test]
    fn minimal_scene_gets_defaults() {
        let scene = Scene::parse(MINIMAL, "t.ron").unwrap();
        assert_eq!(scene.name, "");
        assert_eq!(scene.domain, Aabb { min: [0.0; 3], max: [1.0; 3] });
        assert_eq!(scene.fluid, vec![Fluid::from_block(Aabb { min: [0.0; 3], max: [0.2; 3] })]);
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

    /// Emitters far larger than the domain are refused from their size, before a point is made
    /// (a disc of radius 1000 m at 1 cm would be 3e10 points: the allocation aborted).
    #[test]
    fn emitters_that_cannot_fit_are_refused_before_their_points_are_made() {
        for shape in ["Disc(radius: 1000)", "Rectangle(size: (10000, 10000))"] {
            let (field, value, allowed, _) = invalid(&format!(
                "(domain: (min: (0, 0, 0), max: (0.4, 0.4, 0.4)), fluid: [],
                  emitters: [(shape: {shape}, center: (0.2, 0.3, 0.2), direction: (0, -1, 0), speed: 1.0, end: 0.1)],
                  physics: (spacing: 0.01, dt: 0.0001))"
            ));
            assert_eq!(field, "emitters[0].shape", "{shape}");
            assert!(value.contains("across") && allowed.contains("fits in the domain"), "{shape}: {value} / {allowed}");
        }
        // an emitter too fast for the step is told so by its speed, not as physics.dt
        let (field, _, allowed, _) = invalid(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [],
              emitters: [(shape: Disc(radius: 0.1), center: (0.5, 0.5, 0.5), direction: (1, 0, 0), speed: 45.0, end: 0.5)],
              physics: (spacing: 0.02, pressure: SpeedOfSound(100), dt: 0.0003))",
        );
        assert_eq!(field, "emitters[0].speed");
        assert!(allowed.contains("half a spacing per step"), "{allowed}");
    }

    /// Sampling a mesh is refused, naming the entry, when this machine's free memory cannot
    /// hold its lattice (here a made-up 1 MiB), before the count samples it.
    #[test]
    fn meshes_too_large_to_sample_are_refused_by_memory() {
        let dir = std::env::temp_dir().join(format!("rillet-sampling-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
        std::fs::write(dir.join("cube.obj"), cube).unwrap();
        let path = dir.join("s.ron");
        std::fs::write(&path, "(domain: (min: (0, 0, 0), max: (2, 2, 2)), fluid: [(mesh: \"cube.obj\", translation: (0.5, 0.5, 0.5))], physics: (spacing: 0.02))").unwrap();
        let scene = Scene::load(&path).expect("the cube fills");
        assert!(scene.check_sampling_memory("s.ron", Some(1 << 40)).is_ok());
        let e = scene.check_sampling_memory("s.ron", Some(1 << 20)).unwrap_err().to_string();
        assert!(e.contains("fluid[0]") && e.contains("GiB to sample") && e.contains("free memory"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
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
        // a solid far larger than the domain is told it lies outside the domain, not that its
        // shell would hold 1e15 particles
        let (field, value, allowed, _) = invalid(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))],
              solids: [Box(center: (0.5, 0.5, 0.5), size: (5000, 5000, 5000))], physics: (spacing: 0.05))",
        );
        assert_eq!(field, "solids[0]");
        assert!(value.contains("spanning") && allowed.starts_with("inside the domain"), "{value} / {allowed}");
    }

    #[test]
    fn shipped_scenes_counts() {
        let bench = Scene::parse(include_str!("../../scenes/bench_1m.ron"), "scenes/bench_1m.ron").unwrap();
        assert_eq!(lattice::count_particles(&bench).0, 1_000_000);
        assert_eq!(bench.physics.pressure, Pressure::Stiffness(50000.0));
    }
}

/// Lattice points across a disc sensor's face (docs/PHYSICS.md, "Sensors"): the centre `at`
/// first, then every point `at + (i u + j v)·d/7` with i² + j² ≤ 12.25 (inside the disc of
/// diameter d; 37 points), u and v orthonormal and perpendicular to `normal`. An even lattice,
/// so their mean is the mean over the disc's area.
pub fn disc_points(at: [f32; 3], normal: [f32; 3], diameter: f32) -> Vec<[f32; 3]> {
    let n = glam::Vec3::from(normal).normalize();
    // the axis least along n, crossed with it
    let axis = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
        glam::Vec3::X
    } else if n.y.abs() <= n.z.abs() {
        glam::Vec3::Y
    } else {
        glam::Vec3::Z
    };
    let u = n.cross(axis).normalize();
    let v = n.cross(u);
    let pitch = diameter / 7.0;
    let centre = glam::Vec3::from(at);
    let mut points = vec![at];
    for j in -3i32..=3 {
        for i in -3i32..=3 {
            if (i, j) != (0, 0) && (i * i + j * j) as f32 <= 12.25 {
                points.push((centre + (i as f32 * u + j as f32 * v) * pitch).to_array());
            }
        }
    }
    points
}

#[cfg(test)]
mod disc_tests {
    /// The disc's points: 37, the centre first, all on the plane through `at` perpendicular to
    /// the normal, within the radius, their mean the centre (an even lattice).
    #[test]
    fn a_disc_sensor_samples_its_face_evenly() {
        for normal in [[1.0, 0.0, 0.0], [0.0, -2.0, 0.0], [0.3, 0.4, -0.5]] {
            let at = [0.1f32, 0.7, 0.25];
            let points = super::disc_points(at, normal, 0.07);
            assert_eq!(points.len(), 37);
            assert_eq!(points[0], at);
            let (c, n) = (glam::Vec3::from(at), glam::Vec3::from(normal).normalize());
            let mut sum = glam::Vec3::ZERO;
            for p in &points {
                let d = glam::Vec3::from(*p) - c;
                assert!(d.dot(n).abs() < 1e-6, "{normal:?}: {p:?} off the plane");
                assert!(d.length() <= 0.035 + 1e-6, "{normal:?}: {p:?} outside the disc");
                sum += d;
            }
            assert!((sum / 37.0).length() < 1e-6, "{normal:?}: the points' mean is off the centre");
            // the outermost ring reaches √10 / 7 of the diameter from the centre
            let far = points.iter().map(|p| (glam::Vec3::from(*p) - c).length()).fold(0.0, f32::max);
            assert!((far - 0.07 * 10f32.sqrt() / 7.0).abs() < 1e-6, "{far}");
        }
    }
}
