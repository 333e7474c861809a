//! The structs the GPU reads as Rust writes them, each defined here once ([`wgsl_struct!`]) and
//! served to the shaders as a generated import module ([`MODULES`]). They live in the `wgsl`
//! layer because the composer resolves the imports and sits below `sim` and `render`; those
//! modules re-export them where they are used (`sim::params::SimParams`,
//! `render::uniforms::FrameUniforms`, `render::surface::SurfaceUniforms`, `sim::emit`'s
//! `EmitterGpu` and `EmitState`) and keep their methods.

use super::structs::{WgslStruct, wgsl_struct};
use bytemuck::{Pod, Zeroable};

wgsl_struct! {
    #[wgsl(uniform)]
    /// Uniform block of one simulation (`params` in `shaders/common.wgsl`). All lengths in
    /// metres, times in seconds, SI units.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct SimParams {
        /// Lower corner of the fluid domain (the inner faces of the walls).
        pub domain_min: [f32; 3],
        /// Particles in the state buffers: fluid first at creation, boundary after (order changes
        /// with reorders; a particle is boundary when its `pos_mass.w` is negative).
        pub n_particles: u32,
        /// Upper corner of the fluid domain.
        pub domain_max: [f32; 3],
        /// Fluid particles (the ones that move).
        pub n_fluid: u32,
        /// Gravity acceleration.
        pub gravity: [f32; 3],
        /// Time step.
        pub dt: f32,
        /// World position of the corner of cell (0, 0, 0).
        pub grid_origin: [f32; 3],
        /// 1 / cell size.
        pub inv_cell_size: f32,
        /// Cells per axis.
        pub grid_dims: [u32; 3],
        /// Length of the cell index range (padded for Morton order).
        pub num_cells: u32,
        /// Support radius of the kernel (2 particle spacings).
        pub h: f32,
        /// Rest density ρ0.
        pub rest_density: f32,
        /// Tait stiffness B = ρ0 c² / γ ([`crate::physics::TAIT_GAMMA`]).
        pub stiffness: f32,
        /// Speed of sound c.
        pub sound_speed: f32,
        /// Monaghan artificial viscosity α between fluid particles.
        pub viscosity: f32,
        /// Monaghan artificial viscosity α between fluid and boundary particles.
        pub wall_viscosity: f32,
        /// Cubic spline normalisation 8 / (π h³).
        pub kernel_norm: f32,
        /// Neighbour search range in cells, r = ceil(h / cell size).
        pub search_range: u32,
        /// Per-cell occupancy above which a cell counts as overflowing.
        pub capacity: u32,
        /// Open faces of the domain, a bit each ([`crate::sim::params::open_face_bit`]: min faces
        /// x, y, z are bits 0–2, max faces bits 3–5): a fluid particle that crosses one leaves the
        /// simulation (its slot is freed) instead of being clamped onto it.
        pub open_faces: u32,
        /// The pressure solver: [`crate::physics::SOLVER_WCSPH`] or [`crate::physics::SOLVER_DFSPH`]
        /// (`SOLVER_WCSPH`, `SOLVER_DFSPH` in the `constants` module).
        pub solver: u32,
        /// 1: the step chooses dt (sim.time_step, from `cfl`, the force condition, `dt_min` and
        /// `dt_max`); 0: `dt` is fixed.
        pub adaptive: u32,
        /// Bounds of an adaptive dt (the viscous condition already folded into `dt_max`).
        pub dt_min: f32,
        pub dt_max: f32,
        /// CFL number of an adaptive dt: WCSPH dt·(c + |v|max)/h ≤ cfl, DFSPH dt·|v|max/spacing ≤ cfl.
        pub cfl: f32,
        /// DFSPH: the pressure solve stops when the mean predicted compression (ρ* − ρ0)/ρ0 over
        /// fluid is at most this.
        pub density_tolerance: f32,
        /// DFSPH: the divergence solve stops when the mean dt·(Dρ/Dt)/ρ0 over fluid is at most this.
        pub divergence_tolerance: f32,
        /// DFSPH: most velocity updates per solve.
        pub max_iterations: u32,
        /// No-slip walls: kinematic viscosity ν (m²/s) of the laminar fluid–wall friction; 0 = free
        /// slip (wall particles at rest).
        pub no_slip_viscosity: f32,
        /// Derived (set by [`SimParams::derive`] before every upload; uniform operands instead of
        /// registers in the neighbour loops): 1 / h.
        pub inv_h: f32,
        /// Derived: h².
        pub h2: f32,
        /// Derived: 1 / ρ0.
        pub inv_rest_density: f32,
        /// Derived: 2 h c, the artificial viscosity's prefactor without α and 1 / (ρ_i + ρ_j).
        pub viscosity_scale: f32,
        /// Derived: the cubic spline gradient's factor kernel_norm · 6 / h².
        pub grad_scale: f32,
        /// Monaghan artificial viscosity α on the normal component of the approach to wall
        /// particles, along each wall particle's normal (docs/PHYSICS.md, "Walls"); 0 = none.
        pub wall_approach_viscosity: f32,
        /// An adaptive dt's next frame time (s; 0: none): the step that would pass it ends on it
        /// instead, and a step that would leave less than one step before it takes half of what
        /// is left (`rillet run --export-fps`; docs/PHYSICS.md, "Time step").
        pub frame_time: f32,
        /// DFSPH: the heavy-ball momentum β of the solves' projected Jacobi iteration (each
        /// change of a particle's κ takes β times its last change besides; 0 = plain Jacobi).
        pub dfsph_momentum: f32,
        /// The skin of the neighbour lists kept between grid builds, in h (`grid.list_skin`;
        /// 0 = lists built every step; src/sim/keep.rs).
        pub list_skin: f32,
    }
}

const _: () = assert!(std::mem::size_of::<SimParams>() == 192);

/// Entries of the colormap table in [`FrameUniforms`].
pub const COLORMAP_LEN: usize = 64;

wgsl_struct! {
    #[wgsl(uniform)]
    /// The per-frame uniform block of the render shaders, shared by the sprite and box pipelines
    /// (`frame` in `shaders/render_common.wgsl`).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Pod, Zeroable)]
    pub struct FrameUniforms {
        /// World → view (camera) space.
        pub view: [[f32; 4]; 4],
        /// View → clip space (wgpu depth range 0..1).
        pub proj: [[f32; 4]; 4],
        /// Lower corner of the fluid domain.
        pub domain_min: [f32; 3],
        /// Sphere radius in metres (half the particle spacing).
        pub radius: f32,
        /// Upper corner of the fluid domain.
        pub domain_max: [f32; 3],
        /// 0 speed |v|, 1 density ρ, 2 pressure p (Tait) ([`crate::render::ColorMode`]).
        pub color_mode: u32,
        /// Value mapped to the first colormap entry.
        pub range_lo: f32,
        /// Value mapped to the last colormap entry.
        pub range_hi: f32,
        /// ρ0, for the pressure.
        pub rest_density: f32,
        /// Tait stiffness B, for the pressure.
        pub stiffness: f32,
        /// 1: draw boundary particles (grey), 0: hide them.
        pub show_boundary: u32,
        /// Entries used in `colormap`.
        pub colormap_len: u32,
        /// 1: draw fluid particles, 0: hide them (the surface view draws the walls alone).
        pub show_fluid: u32,
        pub _pad1: u32,
        /// Colour of the domain box lines (linear RGB, alpha unused).
        pub box_color: [f32; 4],
        /// Linear RGB colormap, sampled with linear interpolation.
        pub colormap: [[f32; 4]; COLORMAP_LEN],
    }
}

const _: () = assert!(std::mem::size_of::<FrameUniforms>() == 1232);

wgsl_struct! {
    #[wgsl(uniform)]
    /// The sphere view's viewport (`px` in `shaders/spheres.wgsl`, beside the frame's
    /// [`FrameUniforms`]): its buffers hold one value per pixel of the viewport, row by row from
    /// the top.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Pod, Zeroable)]
    pub struct SphereView {
        /// The viewport's size in pixels.
        pub size: [u32; 2],
        /// The viewport's top-left corner in the target, pixels.
        pub origin: [f32; 2],
        /// Particles splatted (the first this many of the set).
        pub n_particles: u32,
        pub _pad: [u32; 3] as pad,
    }
}

const _: () = assert!(std::mem::size_of::<SphereView>() == 32);

wgsl_struct! {
    #[wgsl(uniform)]
    /// The uniform block of the surface shaders (`surf` in `shaders/surface_common.wgsl`). The
    /// view's buffers hold one value per pixel of the viewport, row by row from the top.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Pod, Zeroable)]
    pub struct SurfaceUniforms {
        /// World → view (camera) space.
        pub view: [[f32; 4]; 4],
        /// View → world space.
        pub inv_view: [[f32; 4]; 4],
        /// View → clip space (wgpu depth range 0..1).
        pub proj: [[f32; 4]; 4],
        /// Clip → view space.
        pub inv_proj: [[f32; 4]; 4],
        /// Beer–Lambert absorption per metre (linear RGB; w unused).
        pub absorption: [f32; 4],
        /// Direction towards the sun, world space (w unused).
        pub light_dir: [f32; 4],
        /// The studio environment's background (linear RGB; the sphere view's; w unused).
        pub backdrop: [f32; 4],
        /// The viewport in pixels.
        pub size: [u32; 2],
        /// The viewport's top-left corner in the target, pixels.
        pub origin: [f32; 2],
        /// Particles in the buffers (fluid and boundary).
        pub n_particles: u32,
        /// 0 sky, 1 studio.
        pub environment: u32,
        /// Radius of the spheres splatted into depth and thickness, metres.
        pub radius: f32,
        /// The depth filter's radius, metres.
        pub filter_world: f32,
        /// The depth filter's largest radius, pixels.
        pub filter_max_px: f32,
        /// The depth filter's range scale, metres (depths further apart than a few of these do
        /// not mix).
        pub depth_sigma: f32,
        /// Height of the floor plane (the bottom of the domain).
        pub floor_y: f32,
        /// Side of a floor tile, metres.
        pub tile: f32,
        /// Metres per unit of the thickness buffer.
        pub thickness_unit: f32,
        /// How far the background is displaced by refraction, per metre of water.
        pub refraction: f32,
        /// The thickness blur's radius, pixels.
        pub thickness_blur_px: f32,
        /// A fluid particle of a density below this is spray, drawn as a white point (0: none is).
        pub spray_density: f32,
    }
}

const _: () = assert!(std::mem::size_of::<SurfaceUniforms>() == 368);

/// Emitters a scene may have (the size of the per-emitter arrays of [`EmitState`]).
pub const MAX_EMITTERS: usize = 16;

wgsl_struct! {
    #[wgsl(storage, name = Emitter)]
    /// One emitter as the GPU reads it (`struct Emitter`, `emitters` in emit.plan, emit.write and
    /// sph.integrate).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct EmitterGpu {
        /// Direction × speed: the velocity of the particles it creates.
        pub velocity: [f32; 3],
        /// Mass of each particle it creates (the fluid's).
        pub mass: f32,
        /// Unit direction.
        pub direction: [f32; 3],
        /// Distance travelled in one step, speed × dt.
        pub step_length: f32,
        /// Centre of the rectangle or disc.
        pub center: [f32; 3],
        /// Length of the inlet zone along the direction (fluid there moves at `velocity`).
        pub zone: f32,
        /// Axes across the direction with the half extents the points cover; a disc has
        /// `half_v < 0` and its radius (plus half a spacing) in `half_u`.
        pub axis_u: [f32; 3],
        pub half_u: f32,
        pub axis_v: [f32; 3],
        pub half_v: f32,
        /// Its points: `first_point .. first_point + n_points` of the points buffer (one layer).
        pub first_point: u32,
        pub n_points: u32,
        /// It emits on steps `start_step .. end_step` (`u32::MAX`: no end).
        pub start_step: u32,
        pub end_step: u32,
        /// Steps from one layer to the next, 16.16 fixed point, at least
        /// [`crate::sim::emit::PHASE_ONE`] (a layer a step at most).
        pub period: u32,
        pub _pad: [u32; 3] as pad,
    }
}

const _: () = assert!(std::mem::size_of::<EmitterGpu>() == 112);

wgsl_struct! {
    #[wgsl(storage)]
    /// What emit.plan keeps from step to step and hands to emit.write.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
    pub struct EmitState {
        /// The step being taken (emit.plan advances it).
        pub step: u32,
        pub n_emitters: u32,
        pub _pad: [u32; 2] as pad,
        /// Per emitter: time from the start of this step to its next layer, in 1/65536 of a step.
        pub phase: [i32; MAX_EMITTERS],
        /// Per emitter: its layer's first free slot (an index into the free cell's range) this step.
        pub offset: [u32; MAX_EMITTERS],
        /// Per emitter: particles it writes this step (0 or its n_points).
        pub count: [u32; MAX_EMITTERS],
        /// Per emitter: steps since its layer's time, in (0, 1]; the layer is moved on by as much.
        pub late: [f32; MAX_EMITTERS],
    }
}

const _: () = assert!(std::mem::size_of::<EmitState>() == 16 + 4 * 4 * MAX_EMITTERS);

wgsl_struct! {
    #[wgsl(storage)]
    /// The prescribed motion of one moving solid as the GPU evaluates it (`bodies` in
    /// solids.move, `body_pose` in `shaders/motion.wgsl`; docs/PHYSICS.md, "Moving solids"). Its
    /// pose at time t: `x = pivot + T(τ) + R(θ(τ)) (x0 − pivot)` with `τ = clamp(t − start, 0,
    /// end − start)`, R the rotation by θ about `axis`.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct BodyMotion {
        /// The point the rotation turns about, in the scene's frame at rest.
        pub pivot: [f32; 3],
        /// Simulated time the motion starts, s.
        pub start: f32,
        /// Unit axis of the rotation.
        pub axis: [f32; 3],
        /// Simulated time the motion ends (the pose holds after it), s; f32::MAX: never.
        pub end: f32,
        /// Translation sine: amplitude vector, m.
        pub amplitude: [f32; 3],
        /// Translation sine: period, s.
        pub period: f32,
        /// [`TRANSLATION_NONE`], [`TRANSLATION_SINE`] or [`TRANSLATION_KEYS`].
        pub translation: u32,
        /// [`ROTATION_NONE`], [`ROTATION_SPIN`], [`ROTATION_SINE`] or [`ROTATION_KEYS`].
        pub rotation: u32,
        /// 1: the keyframes of the translation (rotation) are joined by cubic Hermite curves
        /// (Catmull–Rom tangents, zero at the ends); 0: by straight segments.
        pub smooth_translation: u32,
        pub smooth_rotation: u32,
        /// Translation sine: phase, rad.
        pub phase: f32,
        /// Rotation: the sine's amplitude (rad), or the spin's angular speed (rad/s).
        pub angle: f32,
        /// Rotation sine: period, s, and phase, rad.
        pub angle_period: f32,
        pub angle_phase: f32,
        /// Keyframes of the translation: `keys[first .. first + count]`, each `(τ, x, y, z)`;
        /// of the rotation: each `(τ, θ, 0, 0)`, θ in rad.
        pub translation_first: u32,
        pub translation_count: u32,
        pub rotation_first: u32,
        pub rotation_count: u32,
    }
}

const _: () = assert!(std::mem::size_of::<BodyMotion>() == 96);

wgsl_struct! {
    #[wgsl(storage)]
    /// The state of one moving solid as a rigid body (`body_state` in solids.move and
    /// bodies.integrate; docs/PHYSICS.md, "Floating bodies"). A floating body's pose is its
    /// centre of mass `position` and its `orientation` from the scene's pose: a point at rest
    /// `x0` is at `position + R(q) (x0 − rest centre)`, the rest centre being its
    /// [`BodyMotion::pivot`]. bodies.integrate writes the force and torque the fluid and the
    /// contacts put on every moving solid (prescribed ones too) and moves the floating ones.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct BodyState {
        /// Centre of mass now, m.
        pub position: [f32; 3],
        /// Mass, kg (0 for a prescribed motion).
        pub mass: f32,
        /// Orientation from the scene's pose, a unit quaternion `(x, y, z, w)`.
        pub orientation: [f32; 4],
        /// Velocity of the centre of mass, m/s.
        pub velocity: [f32; 3],
        /// The mass a contact spring acts on, kg: the body's mass over its boundary particles
        /// (docs/PHYSICS.md, "Floating bodies": the contact penalty).
        pub contact_mass: f32,
        /// Angular velocity, rad/s (world frame).
        pub angular_velocity: [f32; 3],
        /// The body's boundary particles are the ids `first .. first + count`.
        pub first: u32,
        /// Acceleration of the centre of mass in the last step, m/s² (gravity included).
        pub acceleration: [f32; 3],
        pub count: u32,
        /// Angular acceleration in the last step, rad/s².
        pub angular_acceleration: [f32; 3],
        /// 1: a floating body, moved by the forces on it; 2: a floating body held by the app
        /// (dragged with the mouse: it moves at its velocity); 0: a prescribed motion.
        pub floating: u32,
        /// Force of the fluid and the contacts on the body in the last step, N.
        pub force: [f32; 3],
        /// Boundary particles of the body in contact in the last step.
        pub contacts: u32,
        /// Torque of the fluid and the contacts about the centre of mass, N m.
        pub torque: [f32; 3],
        /// Deepest contact of the last step: how far a pair of boundary particles was inside
        /// the contact distance, m.
        pub contact_depth: f32,
        /// The inertia tensor about the centre of mass in the scene's pose, kg m² (columns; the
        /// 3×3 block), and its inverse.
        pub inertia: [[f32; 4]; 4],
        pub inv_inertia: [[f32; 4]; 4],
    }
}

const _: () = assert!(std::mem::size_of::<BodyState>() == 256);

wgsl_struct! {
    #[wgsl(storage)]
    /// Diagnostic words the GPU writes (`diag` buffer), in this order. The shaders bind them as
    /// `array<atomic<u32>, DIAG_WORDS>` and name each word by the constant the `diagnostics`
    /// module generates from its field (`DIAG_MAX_PER_CELL` = 0, …, `DIAG_SOLVER_ERROR`).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct Diagnostics {
        /// Largest cell occupancy seen by the last grid build (0 when diagnostics are compiled out).
        pub max_per_cell: u32,
        /// Particles that landed in a cell already holding `capacity` (last grid build).
        pub overflows: u32,
        /// Position clamps by the domain guard, cumulative since the simulation was created.
        pub wall_clamps: u32,
        /// Particles whose integrated state was not finite, cumulative (their step was discarded).
        pub non_finite: u32,
        /// Fluid particles that left through an open face, cumulative.
        pub outflow: u32,
        /// Fluid particles the emitters created, cumulative.
        pub emitted: u32,
        /// Particles the emitters could not create for want of free slots, cumulative.
        pub starved: u32,
        /// Free slots after the last step's emission (slots of no particle).
        pub free_slots: u32,
        /// The dt of the last step (written by sim.time_step every step; fixed or adaptive).
        pub dt: f32,
        /// Simulated time at the end of the last step, as a compensated f32 sum `time + time_lo`
        /// (sim.time_step adds each step's dt).
        pub time: f32,
        pub time_lo: f32,
        /// Fastest fluid particle at the last step's density pass, m/s.
        pub max_speed: f32,
        /// Mean compression `max(ρ − ρ0, 0)/ρ0` over fluid at the last step's density pass.
        pub density_error: f32,
        /// DFSPH: velocity updates of the last step's pressure and divergence solves.
        pub pressure_iterations: u32,
        pub divergence_iterations: u32,
        /// DFSPH: the mean predicted compression the last pressure solve reached.
        pub solver_error: f32,
    }
}

wgsl_struct! {
    #[wgsl(uniform)]
    /// One level of grid.scan (`sp` in `shaders/scan.wgsl`).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub(crate) struct ScanParams {
        /// Elements read from `src` (beyond: zeros).
        pub n_in: u32,
        /// Elements written to `dst` (level 0: cells + 1, so `dst[cells]` is the total).
        pub n_out: u32,
        pub _pad: [u32; 2] as pad,
    }
}

wgsl_struct! {
    #[wgsl(storage)]
    /// What the GPU probes need besides the uniform block (`probe_config` in
    /// `shaders/probes.wgsl`; src/sim/probes.rs writes it).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
    pub struct ProbeConfig {
        /// Particle spacing s (m).
        pub spacing: f32,
        /// (0.999 h)²: neighbours are counted within 0.999 h ([`crate::probes::NEIGHBOUR_REACH`]).
        pub reach2: f32,
        /// A fluid particle with at least this many neighbours is in the bulk.
        pub bulk_min: f32,
        /// A fluid particle with fewer than this many neighbours is spray.
        pub spray_below: f32,
        /// h × h (x, z) columns of the free-surface depth, along x and z.
        pub cols_x: u32,
        pub cols_z: u32,
        /// Bins of h along x of the surge front.
        pub front_bins: u32,
        /// Slab, point and free-surface gauges.
        pub n_slab: u32,
        pub n_point: u32,
        pub n_surface: u32,
        /// Samples of the kernel sum on each free-surface gauge's line, `sample_step` apart (m).
        pub samples: u32,
        pub sample_step: f32,
    }
}

fn one<T: WgslStruct>() -> String {
    T::wgsl()
}

fn emit_module() -> String {
    format!("const MAX_EMITTERS: u32 = {MAX_EMITTERS}u;\n\n{}\n{}", EmitterGpu::wgsl(), EmitState::wgsl())
}

/// The kinds of motion ([`BodyMotion::translation`], [`BodyMotion::rotation`]).
pub const TRANSLATION_NONE: u32 = 0;
pub const TRANSLATION_SINE: u32 = 1;
pub const TRANSLATION_KEYS: u32 = 2;
/// A floating body: no prescribed path; its pose is its [`BodyState`].
pub const TRANSLATION_FLOATING: u32 = 3;
pub const ROTATION_NONE: u32 = 0;
pub const ROTATION_SPIN: u32 = 1;
pub const ROTATION_SINE: u32 = 2;
pub const ROTATION_KEYS: u32 = 3;

fn motion_module() -> String {
    let mut out = String::new();
    for (name, v) in [
        ("TRANSLATION_NONE", TRANSLATION_NONE),
        ("TRANSLATION_SINE", TRANSLATION_SINE),
        ("TRANSLATION_KEYS", TRANSLATION_KEYS),
        ("TRANSLATION_FLOATING", TRANSLATION_FLOATING),
        ("ROTATION_NONE", ROTATION_NONE),
        ("ROTATION_SPIN", ROTATION_SPIN),
        ("ROTATION_SINE", ROTATION_SINE),
        ("ROTATION_KEYS", ROTATION_KEYS),
    ] {
        out.push_str(&format!("const {name}: u32 = {v}u;\n"));
    }
    out.push('\n');
    out.push_str(&BodyMotion::wgsl());
    out.push('\n');
    out.push_str(&BodyState::wgsl());
    out
}

/// The diagnostics words' indices (`DIAG_` and the field's name in capitals) and their count,
/// for shaders that bind `diag` as an array of atomics.
fn diagnostics_module() -> String {
    let mut out = String::from("// The words of `Diagnostics` of Rust (src/wgsl/shared.rs), generated: `diag[DIAG_DT]`.\n");
    let members = Diagnostics::members();
    for m in &members {
        out.push_str(&format!("const DIAG_{}: u32 = {}u;\n", m.name.to_uppercase(), m.offset / 4));
    }
    out.push_str(&format!("const DIAG_WORDS: u32 = {}u;\n\n", std::mem::size_of::<Diagnostics>() / 4));
    // the struct itself, for the layout test (the passes bind the words, as atomics)
    out.push_str(&Diagnostics::wgsl());
    out
}

/// The generated modules of shared structs: the name a shader imports, and its text.
pub(crate) const MODULES: &[(&str, super::Generated)] = &[
    ("sim_params", one::<SimParams>),
    ("frame_uniforms", one::<FrameUniforms>),
    ("surface_uniforms", one::<SurfaceUniforms>),
    ("sphere_view", one::<SphereView>),
    ("emit_structs", emit_module),
    ("diagnostics", diagnostics_module),
    ("scan_params", one::<ScanParams>),
    ("motion_structs", motion_module),
    ("probe_config", one::<ProbeConfig>),
];

/// Every shared struct's layout, with the module that declares it (what tests compare with
/// naga's layout of the generated WGSL).
pub fn layouts() -> Vec<(&'static str, super::structs::Layout)> {
    vec![
        ("sim_params", SimParams::layout()),
        ("frame_uniforms", FrameUniforms::layout()),
        ("surface_uniforms", SurfaceUniforms::layout()),
        ("sphere_view", SphereView::layout()),
        ("emit_structs", EmitterGpu::layout()),
        ("emit_structs", EmitState::layout()),
        ("diagnostics", Diagnostics::layout()),
        ("scan_params", ScanParams::layout()),
        ("motion_structs", BodyMotion::layout()),
        ("motion_structs", BodyState::layout()),
        ("probe_config", ProbeConfig::layout()),
    ]
}
