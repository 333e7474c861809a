//! The scene file's schema: the RON structure, its defaults and the meaning of every field
//! (ranges in [`super::limits`]).

use serde::{Deserialize, Serialize};

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
    /// Monaghan artificial viscosity α on the normal component of the approach to walls and
    /// solids, along each wall particle's normal: stops what pressure alone lets through (thin
    /// sheets, lone particles) and leaves slip along the walls free.
    pub wall_approach_viscosity: f32,
    /// No-slip walls: the kinematic viscosity ν (m²/s, water 1e-6) of a laminar friction
    /// between fluid and wall particles (Morris et al. 1997), the walls moving with the
    /// extrapolated velocity of Adami et al. 2012; 0 = free slip.
    pub no_slip_viscosity: f32,
    /// Gravity in m/s².
    pub gravity: [f32; 3],
    /// Time step in seconds (the first step's, when `time_step` is adaptive).
    pub dt: f32,
    /// Fixed (every step `dt`) or adaptive (each step chooses its own on the GPU).
    pub time_step: TimeStep,
    /// How pressure keeps the water from compressing.
    pub solver: Solver,
    /// Settings of the DFSPH solver (read when `solver` is DFSPH).
    pub dfsph: DfsphSettings,
}

/// How the time step is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum TimeStep {
    /// Every step takes `physics.dt`.
    Fixed,
    /// Each step takes the largest dt within `[min, max]` that the CFL condition (`cfl`: WCSPH
    /// dt·(c + |v|max)/h, DFSPH dt·|v|max/spacing) and the force condition
    /// (dt ≤ 0.25·√(h/|a|max)) allow, chosen on the GPU from the step's own speeds and forces.
    Adaptive { min: f32, max: f32, cfl: f32 },
}

/// The pressure solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Solver {
    /// Weakly compressible SPH: pressure from the Tait equation of state.
    #[serde(rename = "WCSPH")]
    Wcsph,
    /// Divergence-free SPH (Bender & Koschier 2017): pressure solved for, iterating until the
    /// density and the velocity divergence are within the `dfsph` tolerances.
    #[serde(rename = "DFSPH")]
    Dfsph,
}

impl Solver {
    /// "WCSPH" or "DFSPH", as a scene spells it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Solver::Wcsph => "WCSPH",
            Solver::Dfsph => "DFSPH",
        }
    }

    /// `SimParams::solver` of this solver.
    pub(crate) fn code(self) -> u32 {
        match self {
            Solver::Wcsph => crate::physics::SOLVER_WCSPH,
            Solver::Dfsph => crate::physics::SOLVER_DFSPH,
        }
    }

    /// The solver a simulation's `SimParams::solver` names.
    pub(crate) fn of(code: u32) -> Self {
        if code == crate::physics::SOLVER_DFSPH { Solver::Dfsph } else { Solver::Wcsph }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DfsphSettings {
    /// The pressure solve iterates until the mean predicted compression (ρ* − ρ0)/ρ0 over the
    /// fluid is at most this.
    pub tolerance: f32,
    /// The divergence solve iterates until the mean dt·(Dρ/Dt)/ρ0 over the fluid is at most this.
    pub divergence_tolerance: f32,
    /// Most velocity updates of each solve in a step.
    pub max_iterations: u32,
    /// Heavy-ball momentum β of the solves' projected Jacobi iteration, in [0, 0.8]: each
    /// change of a particle's κ takes β times its last change besides (docs/PHYSICS.md,
    /// "DFSPH"). 0, plain Jacobi, is the default; docs/VALIDATION.md, "DFSPH", says what β = 0.5
    /// does to the iterations on the CPU twin.
    pub momentum: f32,
}

impl Default for DfsphSettings {
    fn default() -> Self {
        // SPlisHSPlasH's DFSPH defaults (0.01 % and 0.1 %): at 0.1 % for the density the solves
        // stop after 0–1 updates and a column at rest keeps stirring (docs/VALIDATION.md, "DFSPH")
        Self { tolerance: 1e-4, divergence_tolerance: 1e-3, max_iterations: 50, momentum: 0.0 }
    }
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
    /// Compile the grid diagnostics (max per cell, overflows) into the grid build (grid.scan's
    /// first level).
    pub diagnostics: bool,
    /// Order each cell's particles by id after the grid build, so every run of the scene gives
    /// the same bits (costs a pass; docs/PERFORMANCE.md).
    pub deterministic: bool,
    /// Keep the neighbour lists between grid builds with this skin, in h: the lists hold every
    /// particle within (1 + skin) h, and the grid is built again only once a particle may have
    /// moved half the skin (docs/PHYSICS.md, "Lists kept between grid builds"); 0 builds every
    /// step. WCSPH scenes without emitters, open faces or moving solids only (others build every
    /// step whatever it says). Default 0.1.
    pub list_skin: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Walls {
    /// Layers of boundary particles behind each face of the domain.
    pub layers: u32,
    /// Faces left open: no wall behind them, and a fluid particle that crosses one leaves the
    /// simulation (counted as outflow) instead of being stopped on it.
    pub open: Vec<Face>,
}

/// A face of the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Face {
    XMin,
    XMax,
    YMin,
    YMax,
    ZMin,
    ZMax,
}

impl Face {
    /// The axis (0 = x, 1 = y, 2 = z) and whether it is the face on the max side.
    pub(crate) fn axis_side(self) -> (usize, bool) {
        match self {
            Face::XMin => (0, false),
            Face::XMax => (0, true),
            Face::YMin => (1, false),
            Face::YMax => (1, true),
            Face::ZMin => (2, false),
            Face::ZMax => (2, true),
        }
    }
}

/// Inflow: layers of fluid particles laid down on a rectangle or a disc and sent off along
/// `direction` at `speed`, one layer every spacing / speed seconds from `start` to `end`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Emitter {
    pub shape: EmitterShape,
    /// Centre of the rectangle or disc (m).
    pub center: [f32; 3],
    /// Where the particles go; the rectangle or disc lies across it.
    pub direction: [f32; 3],
    /// Speed of the particles it creates (m/s).
    pub speed: f32,
    /// Time it starts (s).
    #[serde(default)]
    pub start: f32,
    /// Time it stops (s); without one it runs as long as the simulation, and the scene must state
    /// `fluid_capacity`.
    #[serde(default)]
    pub end: Option<f32>,
}

/// The outline of an emitter, across its direction. A rectangle's `size` is (width, height):
/// for a direction that is not vertical, the width is horizontal and the height vertical; for a
/// vertical one, the width runs along z and the height along x.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum EmitterShape {
    Rectangle { size: [f32; 2] },
    Disc { radius: f32 },
}

/// A body of fluid: a box (`min`, `max`) or a closed mesh (`mesh`, placed by `scale`,
/// `rotation` and `translation`) filled on the lattice, with an initial velocity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fluid {
    /// Lower corner of a box of fluid (m).
    #[serde(default)]
    pub min: Option<[f32; 3]>,
    /// Upper corner of a box of fluid (m).
    #[serde(default)]
    pub max: Option<[f32; 3]>,
    /// A closed OBJ or STL mesh to fill, its path relative to the scene file.
    #[serde(default)]
    pub mesh: Option<String>,
    /// The mesh's scale factor (its units to metres).
    #[serde(default = "one")]
    pub scale: f32,
    /// The mesh's rotation in degrees about x, then y, then z.
    #[serde(default)]
    pub rotation: [f32; 3],
    /// Where the mesh's origin goes (m).
    #[serde(default)]
    pub translation: [f32; 3],
    /// Initial velocity (m/s).
    #[serde(default)]
    pub velocity: [f32; 3],
}

fn one() -> f32 {
    1.0
}

impl Fluid {
    /// The box, for a box entry.
    pub(crate) fn block(&self) -> Option<Aabb> {
        match (self.min, self.max, &self.mesh) {
            (Some(min), Some(max), None) => Some(Aabb { min, max }),
            _ => None,
        }
    }

    /// A box entry at rest.
    pub fn from_block(b: Aabb) -> Self {
        Fluid { min: Some(b.min), max: Some(b.max), mesh: None, scale: 1.0, rotation: [0.0; 3], translation: [0.0; 3], velocity: [0.0; 3] }
    }
}

/// A solid in the domain: its shell of boundary particles is handled like the tank's walls.
/// Rotations are in degrees about x, then y, then z; a cylinder's axis is y before its
/// rotation. A solid with a `motion` moves on that prescribed path (docs/PHYSICS.md, "Moving
/// solids"), one with `floating` as the fluid and gravity move it ("Floating bodies"); without
/// either it stays where it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Solid {
    Box {
        center: [f32; 3],
        size: [f32; 3],
        #[serde(default)]
        rotation: [f32; 3],
        #[serde(default)]
        motion: Option<Motion>,
        #[serde(default)]
        floating: Option<Floating>,
    },
    Sphere {
        center: [f32; 3],
        radius: f32,
        #[serde(default)]
        motion: Option<Motion>,
        #[serde(default)]
        floating: Option<Floating>,
    },
    Cylinder {
        center: [f32; 3],
        radius: f32,
        height: f32,
        #[serde(default)]
        rotation: [f32; 3],
        #[serde(default)]
        motion: Option<Motion>,
        #[serde(default)]
        floating: Option<Floating>,
    },
    /// A closed OBJ or STL mesh, its path relative to the scene file.
    Mesh {
        path: String,
        #[serde(default = "one")]
        scale: f32,
        #[serde(default)]
        rotation: [f32; 3],
        #[serde(default)]
        translation: [f32; 3],
        #[serde(default)]
        motion: Option<Motion>,
        #[serde(default)]
        floating: Option<Floating>,
    },
}

/// A floating body: a solid the fluid moves, with gravity, its mass and inertia from its shape
/// and a uniform density (or its mass), two-way coupled (docs/PHYSICS.md, "Floating bodies").
/// Give `density` or `mass`, not both.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Floating {
    /// kg/m³.
    pub density: Option<f32>,
    /// kg (the density is then mass over the shape's volume).
    pub mass: Option<f32>,
    /// Velocity at the start, m/s.
    pub velocity: [f32; 3],
}

/// A solid's prescribed motion: a translation and a rotation about a fixed axis, both functions
/// of `τ = t − start` from `start` to `end` (the pose holds before and after; velocities are
/// zero there). Both start from the solid's place in the scene: a sine is `A (sin(2π τ/T + φ) −
/// sin φ)`, keyframes are offsets from their first key. The pose is `x = pivot + T(τ) +
/// R(θ(τ)) (x0 − pivot)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Motion {
    pub translation: Option<Translation>,
    pub rotation: Option<Rotation>,
    /// Simulated time the motion starts, s.
    pub start: f32,
    /// Simulated time it ends, s (none: it goes on).
    pub end: Option<f32>,
}

/// The translation of a moving solid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Translation {
    /// `amplitude · (sin(2π τ / period + phase) − sin(phase))`: a piston wave maker, a shaken tank.
    Sine {
        /// m, per axis.
        amplitude: [f32; 3],
        /// s.
        period: f32,
        /// degrees.
        #[serde(default)]
        phase: f32,
    },
    /// Offsets `(τ, (x, y, z))` from the first key, τ in s from `start` ascending, the first at
    /// 0; straight segments, or with `smooth` cubic curves (Catmull–Rom tangents, at rest at the
    /// first and the last key).
    Keyframes {
        keys: Vec<(f32, [f32; 3])>,
        #[serde(default)]
        smooth: bool,
    },
}

/// The rotation of a moving solid about a fixed `axis` through `pivot` (default: the centre of
/// the solid's bounding box).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Rotation {
    /// A constant angular speed, degrees per second: a paddle, a mixer.
    Spin {
        axis: [f32; 3],
        #[serde(default)]
        pivot: Option<[f32; 3]>,
        speed: f32,
    },
    /// `amplitude · (sin(2π τ / period + phase) − sin(phase))`, degrees: a flap wave maker, a
    /// rolling tank.
    Sine {
        axis: [f32; 3],
        #[serde(default)]
        pivot: Option<[f32; 3]>,
        /// degrees.
        amplitude: f32,
        /// s.
        period: f32,
        /// degrees.
        #[serde(default)]
        phase: f32,
    },
    /// Angles `(τ, degrees)` from the first key, as [`Translation::Keyframes`].
    Keyframes {
        axis: [f32; 3],
        #[serde(default)]
        pivot: Option<[f32; 3]>,
        keys: Vec<(f32, f32)>,
        #[serde(default)]
        smooth: bool,
    },
}

impl Solid {
    /// Its prescribed motion, if it moves.
    pub fn motion(&self) -> Option<&Motion> {
        match self {
            Solid::Box { motion, .. } | Solid::Sphere { motion, .. } | Solid::Cylinder { motion, .. } | Solid::Mesh { motion, .. } => {
                motion.as_ref()
            }
        }
    }

    /// What makes it a floating body, if it is one.
    pub fn floating(&self) -> Option<&Floating> {
        match self {
            Solid::Box { floating, .. }
            | Solid::Sphere { floating, .. }
            | Solid::Cylinder { floating, .. }
            | Solid::Mesh { floating, .. } => floating.as_ref(),
        }
    }

    /// Whether it moves (a prescribed motion or a floating body).
    pub fn moves(&self) -> bool {
        self.motion().is_some() || self.floating().is_some()
    }
}

/// A pressure sensor: the fluid's pressure interpolated at a point (docs/PHYSICS.md, "Sensors").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PressureSensor {
    /// Its columns in `sensors.csv` are `{name}_pa` and `{name}_fill`: letters, digits, `_`,
    /// `-`, `.`; unique in the scene.
    pub name: String,
    /// Where it measures (m), inside the domain (on a wall: the wall's face).
    pub at: [f32; 3],
    /// The least fill at which it reads the fluid's pressure in full, in [0.01, 1] (default
    /// 0.25, the fill of a corner under water): below it the reading is the fluid's pressure
    /// times fill / fill_min, so that a few particles at the edge of the support do not read as
    /// water on the sensor (docs/PHYSICS.md, "Sensors").
    #[serde(default = "default_fill_min")]
    pub fill_min: f32,
    /// The diameter (m) of the sensor's face, in [0, 1]: 0 (the default) measures at the point
    /// `at`; more, a disc of this diameter centred on `at` and perpendicular to `normal`, whose
    /// reading is the mean of the interpolation over it, as a transducer's membrane averages the
    /// pressure on its area (docs/PHYSICS.md, "Sensors").
    #[serde(default)]
    pub diameter: f32,
    /// The disc's normal (any length but 0); needed with a diameter.
    #[serde(default)]
    pub normal: Option<[f32; 3]>,
}

fn default_fill_min() -> f32 {
    0.25
}

/// A section the flow rate through is measured at, sampled with the pressure sensors
/// (docs/PHYSICS.md, "Flow through a section").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSection {
    /// Its columns in `sensors.csv` are `{name}_m3_s` and `{name}_kg_s`: letters, digits, `_`,
    /// `-`, `.`; unique among the sensors.
    pub name: String,
    /// The section's centre (m), inside the domain.
    pub at: [f32; 3],
    /// The direction the flow counts positive through it (any length but 0).
    pub normal: [f32; 3],
    /// The rectangle's sides (m): the first along the world axis least along the normal (y
    /// for a normal along x, x for one along y or z), the second across; default: the whole
    /// plane.
    #[serde(default)]
    pub size: Option<[f32; 2]>,
}

/// The force and moment of the fluid on a solid that does not move, sampled with the pressure
/// sensors (docs/PHYSICS.md, "Forces on solids"). A moving solid's force is in `bodies.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForceSensor {
    /// Its columns in `sensors.csv` are `{name}_fx_n` … `{name}_mz_nm`: letters, digits, `_`,
    /// `-`, `.`; unique among the sensors.
    pub name: String,
    /// The solid, by its index in `solids` (a solid without `motion` or `floating`).
    pub solid: usize,
    /// The point the moment is taken about (m); default: the centre of the solid's bounding box.
    #[serde(default)]
    pub about: Option<[f32; 3]>,
}

/// Measurements `rillet run` records (the same as its flags; a flag given adds to these).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Probes {
    /// Water-height gauges across the whole depth: x positions (m).
    pub gauges: Vec<f32>,
    /// Water-height gauges at a point of the floor: (x, z) positions (m), each a column of
    /// 2h × 2h.
    pub point_gauges: Vec<[f32; 2]>,
    /// Free-surface gauges at a point of the floor: (x, z) positions (m), each the highest y on
    /// the vertical line where the fluid's kernel sum is ½ (docs/VALIDATION.md, "Definitions").
    pub surface_gauges: Vec<[f32; 2]>,
    /// Probe every this many steps (0: `rillet run`'s `--every`, or about 500 probes).
    pub every: u64,
    /// Pressure sensors, sampled on the GPU into `sensors.csv` (`rillet run` with a folder).
    pub sensors: Vec<PressureSensor>,
    /// A sensor row every this many steps (default 1: every step).
    pub sensor_every: u64,
    /// The fluid's force and moment on fixed solids, sampled with the sensors into
    /// `sensors.csv`.
    pub forces: Vec<ForceSensor>,
    /// Flow rates through sections, sampled with the sensors into `sensors.csv`.
    pub flows: Vec<FlowSection>,
}

impl Default for Probes {
    fn default() -> Self {
        Self {
            gauges: vec![],
            point_gauges: vec![],
            surface_gauges: vec![],
            every: 0,
            sensors: vec![],
            sensor_every: 1,
            forces: vec![],
            flows: vec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    #[serde(default)]
    pub name: String,
    /// The container: fluid stays inside; walls of boundary particles line its faces outside.
    pub domain: Aabb,
    /// Bodies of fluid, filled with particles on a cubic lattice of `physics.spacing`.
    pub fluid: Vec<Fluid>,
    /// Static solids inside the domain.
    #[serde(default)]
    pub solids: Vec<Solid>,
    /// Inflow of fluid.
    #[serde(default)]
    pub emitters: Vec<Emitter>,
    /// Fluid particles the simulation has room for (the emitters fill the room the fluid
    /// entries leave; particles that leave through open faces free theirs). Default: the fluid
    /// entries and everything the emitters create from start to end.
    #[serde(default)]
    pub fluid_capacity: Option<u64>,
    /// Measurements the scene carries.
    #[serde(default)]
    pub probes: Probes,
    #[serde(default)]
    pub physics: Physics,
    #[serde(default)]
    pub grid: GridSettings,
    #[serde(default)]
    pub walls: Walls,
    /// The meshes the entries name, read and placed when the scene is loaded.
    #[serde(skip)]
    pub meshes: Meshes,
}

/// The meshes of a scene's entries, in scene coordinates: by fluid entry and by solid (None for
/// the entries that are no mesh).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meshes {
    pub fluid: Vec<Option<std::sync::Arc<super::geometry::TriMesh>>>,
    pub solids: Vec<Option<std::sync::Arc<super::geometry::TriMesh>>>,
    /// Every mesh file read, for watching.
    pub files: Vec<std::path::PathBuf>,
    /// The bodies sampled once when the scene is loaded ([`Scene::sample_bodies`]), for the
    /// checks, the setup and the runs alike: each solid's shell, each mesh of fluid's points.
    pub shells: Vec<std::sync::Arc<Vec<glam::DVec3>>>,
    pub fills: Vec<Option<std::sync::Arc<Vec<glam::DVec3>>>>,
}

impl Default for Physics {
    fn default() -> Self {
        Self {
            spacing: 0.02,
            rest_density: 1000.0,
            pressure: Pressure::Auto,
            viscosity: 0.05,
            wall_viscosity: 0.0,
            wall_approach_viscosity: 1.0,
            no_slip_viscosity: 0.0,
            gravity: [0.0, -9.81, 0.0],
            dt: 4e-4,
            time_step: TimeStep::Fixed,
            solver: Solver::Wcsph,
            dfsph: DfsphSettings::default(),
        }
    }
}

impl Default for GridSettings {
    fn default() -> Self {
        // the simulation's own defaults, so a scene without a `grid` runs the measured fastest
        let o = crate::sim::SimOptions::default();
        Self {
            cell_size: o.cell_size,
            capacity: o.capacity,
            reorder_interval: o.reorder_interval,
            morton: o.order == crate::sim::layout::CellOrder::Morton,
            diagnostics: o.diagnostics,
            deterministic: o.deterministic,
            list_skin: o.list_skin,
        }
    }
}

impl Default for Walls {
    fn default() -> Self {
        Self { layers: 2, open: Vec::new() }
    }
}
