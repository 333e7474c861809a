//! The simulation step on the GPU: one module per pass (named like its shader and its label),
//! the buffers, and [`Sim`], which records the passes of a step into the caller's encoder and
//! never waits on the GPU inside a step.

mod bodies;
pub(crate) mod buffers;
pub(crate) mod count;
pub(crate) mod density;
pub(crate) mod dfsph;
pub mod emit;
pub(crate) mod force;
pub mod instruments;
pub(crate) mod integrate;
pub mod keep;
pub mod layout;
pub mod motion;
pub mod objects;
pub mod params;
pub mod probes;
pub(crate) mod profiler;
pub(crate) mod readback;
pub(crate) mod reorder;
pub(crate) mod scan;
pub(crate) mod scatter;
pub mod sensors;
pub mod shader;
pub(crate) mod sort_cells;
pub(crate) mod state;
pub(crate) mod time_step;
pub(crate) mod wall_pressure;
pub(crate) mod walls;

use crate::gpu::Gpu;
use buffers::{CellBuffers, ParticleSet};
use layout::{CellOrder, GridLayout, GridTooLarge};
use params::{Diagnostics, SimParams};
use profiler::{Profile, ProfileBatch, Profiler};
use shader::{Bindable, KernelError, Named, Pass, Walk};

pub use crate::physics::NEIGHBOUR_LIST_MAX;
pub use instruments::{GridSnapshot, Particles, dfsph_pressure};
pub use state::InitialState;

/// The choices the panel drives; all can change between steps.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Cell size as a multiple of the support radius h.
    pub cell_size: f32,
    /// Occupancy above which a cell counts as overflowing.
    pub capacity: u32,
    /// Reorder every this many steps (0 = never).
    pub reorder_interval: u32,
    pub order: CellOrder,
    /// Grid diagnostics compiled into the grid build (grid.scan's first level).
    pub diagnostics: bool,
    /// Order every cell's particles by id after the grid build (grid.sort_cells), so that the
    /// step gives the same bits on every run (at a cost: docs/PERFORMANCE.md).
    pub deterministic: bool,
    /// Workgroup size of the per-particle passes.
    pub workgroup_size: u32,
    /// Compile the shaders with wgpu's runtime bounds checks (slower; off by default, see
    /// `shader::module`).
    pub shader_checks: bool,
    /// The neighbour lists kept between grid builds (docs/PHYSICS.md, "Lists kept between grid
    /// builds"): they hold every particle within (1 + skin) h, and a step builds the grid and
    /// the lists again only once the particles may have moved half the skin since the last
    /// build (decided on the GPU, [`keep`]); 0 = built every step. Fixed for a simulation's
    /// life (it sizes the lists).
    pub list_skin: f32,
}

/// The default list skin, in h ([`SimOptions::list_skin`]): the lists of the benchmark case's
/// first tenth of a second last about four steps, and a fast flow, where every step builds,
/// pays about 2 % (docs/PERFORMANCE.md, "Kept lists by default").
pub const DEFAULT_LIST_SKIN: f32 = 0.1;

impl SimOptions {
    /// What every per-particle kernel is compiled with under these options, with lists of
    /// `list_max` entries (the simulation's: [`Sim::list_capacity`]).
    pub(crate) fn kernel_config(&self, list_max: u32) -> shader::KernelConfig {
        shader::KernelConfig { wg_size: self.workgroup_size, checks: self.shader_checks, list_max }
    }
}

impl Default for SimOptions {
    /// The measured fastest choices (docs/PERFORMANCE.md): cells of h/2 in linear order, reorder
    /// every step, workgroups of 256, diagnostics on, no runtime bounds checks, the neighbour
    /// lists kept between grid builds with a skin of 0.1 h (where the scene allows it).
    fn default() -> Self {
        Self {
            cell_size: 0.5,
            capacity: 8,
            reorder_interval: 1,
            order: CellOrder::Linear,
            diagnostics: true,
            deterministic: false,
            workgroup_size: 256,
            shader_checks: false,
            list_skin: DEFAULT_LIST_SKIN,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(
        "{what}: {bytes} bytes needed, but the device allows {limit} bytes per storage buffer ({limit_name}); at most {max_particles} particles fit"
    )]
    TooManyParticles { what: &'static str, bytes: u64, limit: u64, limit_name: &'static str, max_particles: u64 },
    #[error(transparent)]
    GridTooLarge(#[from] GridTooLarge),
    #[error("workgroup size {0} is not supported (use 32, 64, 128 or 256, at most the device's {1})")]
    WorkgroupSize(u32, u32),
    #[error("the device rejected a simulation shader or pipeline: {0}")]
    Pipeline(String),
    #[error(
        "the device ran out of memory creating the simulation's buffers ({0}); the scene does not fit this device: increase physics.spacing or shrink the domain or the fluid"
    )]
    OutOfMemory(String),
    #[error("the device refused a buffer of the simulation: {0}")]
    Buffer(String),
    #[error("a simulation pass could not be built: {0}")]
    Kernel(#[from] KernelError),
    #[error("the checkpoint does not fit the simulation: {0}")]
    Resume(String),
    #[error("reading the simulation back from the GPU failed: {0}")]
    Read(#[from] readback::ReadError),
    #[error("{0}")]
    FixedOption(String),
}

impl SimError {
    /// The scene is too large for the device (as opposed to a device that cannot run the passes).
    pub(crate) fn is_too_large(&self) -> bool {
        matches!(self, SimError::TooManyParticles { .. } | SimError::GridTooLarge(_) | SimError::OutOfMemory(_))
    }

    /// The error with the scene it concerns: "does not fit this device" for a scene too large.
    pub(crate) fn for_scene(self, scene: &str) -> anyhow::Error {
        let what = if self.is_too_large() { "the scene does not fit this device" } else { "the simulation cannot run on this device" };
        anyhow::Error::new(self).context(format!("{scene}: {what}"))
    }
}

/// The state a step carries to the next besides the particles.
#[derive(Clone, Debug, PartialEq)]
pub struct StepState {
    /// The last step's dt (an adaptive dt grows from it) and the mean compression its pressure
    /// solve reached (DFSPH halves the next dt above its tolerance).
    pub last_dt: f32,
    pub solver_error: f32,
    /// The GPU's clock, a compensated pair: time + time_lo.
    pub clock: [f32; 2],
    /// The moving solids' states (a floating body's pose and rates), one per moving solid;
    /// empty without them.
    pub bodies: Vec<motion::BodyState>,
    /// DFSPH: the solves' totals by id (κ dt² of the pressure solve, κ dt of the divergence
    /// solve), the next step's warm start.
    pub warm: Option<(Vec<f32>, Vec<f32>)>,
}

crate::passes! {
    /// The step's passes for one set of options: their pipelines and, once bound, their bind
    /// groups. A pass added here is built in [`Passes::new`], bound with the others and
    /// recorded where the step records it.
    struct Passes {
        count: Pass,
        /// Its levels are bound with the cells ([`CellBuffers`]).
        scan: scan::ScanPass,
        scatter: Pass,
        sort_cells: Pass<sort_cells::Ranks>,
        rank_free: Pass,
        reorder: Pass<keep::Gather>,
        /// grid.keep: whether a step with the lists kept between grid builds builds them.
        keep: Pass<keep::Decide>,
        /// A simulation with moving solids (runs first in the step).
        move_solids: Option<Pass>,
        /// With moving solids: the force on each, and floating bodies moved (after
        /// sim.time_step).
        body_force: Option<Pass<Walk>>,
        body_integrate: Option<Pass>,
        density: Pass<keep::Reads>,
        wall_pressure: Pass<keep::Reads>,
        force: Pass<Walk>,
        integrate: Pass<integrate::Integrate>,
        time_step: Pass<time_step::Part>,
        /// A simulation with emitters.
        emit: Option<emit::EmitPasses>,
        /// A DFSPH simulation.
        dfsph: Option<dfsph::DfsphPasses>,
        /// A simulation with pressure sensors (after the grid build of a step whose state is
        /// sampled).
        sensors: Option<Pass<Walk>>,
        /// A simulation with force sensors (with the pressure sensors).
        solid_force: Option<Pass<sensors::ForcePart>>,
        /// A simulation with flow sections (with the pressure sensors).
        flow: Option<Pass<sensors::FlowPart>>,
    }
}

/// What a simulation's pipelines are built for besides its options and parameters.
#[derive(Clone, Copy, Debug)]
struct Builds {
    /// The neighbour lists ([`Fixed::lists`]).
    lists: ListLayout,
    /// The emitters' passes.
    emitters: bool,
    /// solids.move and the moving walls' terms.
    moving: bool,
    /// sim.sensors.
    sensors: bool,
    /// sim.solid_force.
    forces: bool,
    /// sim.flow.
    flows: bool,
    /// The lists kept between grid builds ([`Sim::keeps_lists`]).
    keeps: bool,
    /// The lists' capacity (`LIST_MAX` of the shaders).
    list_max: u32,
}

impl Passes {
    /// Builds every pipeline, turning a shader or pipeline the device rejects into an error
    /// here rather than a logged one at the first dispatch.
    fn checked(device: &wgpu::Device, o: &SimOptions, params: &SimParams, b: Builds) -> Result<Self, SimError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let passes = Self::new(device, o, params, b);
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(SimError::Pipeline(e.to_string())),
            None => Ok(passes?),
        }
    }

    /// The pipelines for `params`' solver and walls (DFSPH's passes; the no-slip terms), with
    /// or without what `b` names; not bound.
    fn new(device: &wgpu::Device, o: &SimOptions, params: &SimParams, b: Builds) -> Result<Self, KernelError> {
        let Builds { lists, emitters, moving, sensors, forces, flows, list_max, .. } = b;
        let cfg = o.kernel_config(list_max);
        let rows = o.order == CellOrder::Linear;
        let dfsph = params.solver == params::SOLVER_DFSPH;
        let no_slip = params.no_slip_viscosity > 0.0;
        let force_mode = match (dfsph, no_slip) {
            (true, _) => force::Mode::ViscousOnly,
            (false, true) => force::Mode::PressureNoSlip,
            (false, false) => force::Mode::Pressure,
        };
        Ok(Self {
            count: count::new(device, cfg)?,
            scan: scan::ScanPass::new(device, o.shader_checks, o.diagnostics)?,
            scatter: scatter::new(device, cfg)?,
            sort_cells: sort_cells::new(device, cfg)?,
            rank_free: sort_cells::rank_free(device, cfg)?,
            reorder: reorder::new(device, cfg)?,
            keep: keep::new(device, cfg)?,
            move_solids: if moving { Some(wall_pressure::solids_move(device, cfg)?) } else { None },
            body_force: if moving { Some(bodies::force(device, cfg, rows, no_slip, params.wall_approach_viscosity > 0.0)?) } else { None },
            body_integrate: if moving { Some(bodies::integrate(device, cfg)?) } else { None },
            density: density::new(device, cfg, rows, lists)?,
            wall_pressure: wall_pressure::new(device, cfg, rows, no_slip, moving, if b.keeps { lists } else { ListLayout::Off })?,
            force: force::new(device, cfg, rows, force_mode, lists, params.wall_approach_viscosity > 0.0, moving)?,
            integrate: integrate::new(device, cfg)?,
            time_step: time_step::new(device, cfg)?,
            emit: if emitters { Some(emit::EmitPasses::new(device, cfg)?) } else { None },
            dfsph: if dfsph { Some(dfsph::DfsphPasses::new(device, cfg, rows, lists)?) } else { None },
            sensors: if sensors { Some(sensors::new(device, cfg, rows, dfsph)?) } else { None },
            solid_force: if forces {
                Some(sensors::forces(device, cfg, rows, dfsph, no_slip && !dfsph, params.wall_approach_viscosity > 0.0)?)
            } else {
                None
            },
            flow: if flows { Some(sensors::flows(device, cfg)?) } else { None },
        })
    }

    /// The passes bound to the simulation's buffers (a copy: a refused change leaves the
    /// simulation's own passes as they were).
    fn bound(&self, device: &wgpu::Device, cells: &CellBuffers, f: &Fixed) -> Result<Self, KernelError> {
        let mut passes = self.clone();
        passes.bind(device, &[named(cells, f, 0), named(cells, f, 1)])?;
        Ok(passes)
    }
}

/// The simulation's buffers by the WGSL names its passes bind, with `c` the current set: the
/// one place that says which buffer a name is. `src_*` is the current set and `dst_*` the
/// other (the reorder's gather); the emitters' and DFSPH's buffers are there where they exist.
fn named(cells: &CellBuffers, f: &Fixed, c: usize) -> Named {
    let (s, o) = (&f.sets[c], &f.sets[1 - c]);
    let e = &f.emit_buffers;
    let mut t = Named::default();
    t.add("params", &f.params)
        .add("diag", &f.diag)
        .add("cell_lut", &cells.lut)
        .add("counts", &cells.counts)
        .add("cell_start", &cells.cell_start)
        .add("cell_of", &f.cell_of)
        .add("rank", &f.rank)
        .add("sorted", &f.sorted)
        .add("pos_mass", &s.pos_mass)
        .add("vel_rho", &s.vel_rho)
        .add("ids", &s.id)
        .add("src_pos_mass", &s.pos_mass)
        .add("src_vel_rho", &s.vel_rho)
        .add("src_id", &s.id)
        .add("dst_pos_mass", &o.pos_mass)
        .add("dst_vel_rho", &o.vel_rho)
        .add("dst_id", &o.id)
        // sph.force writes the acceleration that sph.integrate and sim.time_step read
        .add("acc_out", &f.acc)
        .add("acc_in", &f.acc)
        .add("wet", &f.wet)
        .add("wall_normal", &f.wall_normal)
        .add("rest", &f.moving.rest)
        .add("rest_normal", &f.moving.rest_normal)
        .add("wall_motion", &f.moving.wall_motion)
        .add("bodies", &f.moving.bodies)
        .add("motion_keys", &f.moving.keys)
        .add("body_state", &f.moving.states)
        .add("body_force", &f.moving.force)
        .add("nb_list", &f.nb_list)
        .add("nb_count", &f.nb_count)
        .add("nb_list_hi", &f.nb_list_hi)
        .add("reduce", &f.reduce)
        .add("keep", &f.keep)
        .add("keep_args", &f.keep_args)
        .add("free_flag", &e.free_flag)
        .add("free_prefix", &e.free_prefix)
        .add("emitters", &e.emitters)
        // the emitters' state: `state` in the emit passes, `emit_state` in sph.integrate
        .add("state", &e.state)
        .add("emit_state", &e.state);
    if let Some(points) = &f.emit {
        t.add("points", &points.buffer);
    }
    if let Some(s) = &f.sensors {
        t.add("sensor_points", &s.points).add("sensor_out", &s.out).add("force_sets", &s.force_sets).add("force_each", &s.force_each);
        t.add("flow_sections", &s.flow_sections).add("flow_partials", &s.flow_partials).add("flow_out", &s.flow_out);
        if let Some(none) = &s.no_totals {
            t.add("warm_pressure", none).add("warm_divergence", none);
        }
    }
    if let Some(d) = &f.dfsph {
        t.add("factor", &d.factor)
            .add("kappa", &d.kappa)
            .add("solve_state", &d.state)
            .add("solve_args", &d.args)
            .add("kappa_total", &d.kappa_total)
            .add("warm_divergence", &d.warm_divergence)
            .add("warm_pressure", &d.warm_pressure);
    }
    t
}

/// Buffers allocated once per simulation (their size depends on the particle count only).
struct Fixed {
    params: wgpu::Buffer,
    sets: [ParticleSet; 2],
    /// Acceleration from sph.force to sph.integrate (transient: not reordered).
    acc: wgpu::Buffer,
    /// Each wall particle's normal line, by particle id (`vec4`; [`walls::wall_normals`]), for
    /// sph.force's approach viscosity; a placeholder without it.
    wall_normal: wgpu::Buffer,
    /// A word per slot, cleared before every WCSPH density pass: sph.density sets it for every
    /// wall particle within h of a fluid particle, and sph.wall_pressure runs its neighbour loop
    /// for those only (transient: not reordered).
    wet: wgpu::Buffer,
    /// The neighbour lists and their counts, written by sph.density (WCSPH) or dfsph.factor
    /// (DFSPH) and read by the passes after it in the step ([`ListLayout`]; 16-byte
    /// placeholders without them); `nb_list_hi` holds the lists' second half where they are
    /// split over two bindings (a placeholder otherwise). Transient: not reordered.
    nb_list: wgpu::Buffer,
    nb_count: wgpu::Buffer,
    nb_list_hi: wgpu::Buffer,
    /// Whether and how the step keeps neighbour lists ([`ListLayout`]): the list buffers are
    /// real and the kernels are built to write and read them.
    lists: ListLayout,
    /// [`Diagnostics`] words.
    diag: wgpu::Buffer,
    cell_of: wgpu::Buffer,
    rank: wgpu::Buffer,
    sorted: wgpu::Buffer,
    /// The emitters' records and state (a placeholder without emitters).
    emit_buffers: emit::EmitBuffers,
    /// The emitters' points, with emitters (the emit passes run only then).
    emit: Option<emit::EmitPoints>,
    /// sim.time_step's reduction words.
    reduce: wgpu::Buffer,
    /// grid.keep's control words and indirect dispatches ([`keep`]).
    keep: wgpu::Buffer,
    keep_args: wgpu::Buffer,
    /// The step keeps the lists between grid builds ([`Sim::keeps_lists`]).
    keeps: bool,
    /// The lists' capacity ([`crate::physics::list_capacity`] of the skin in use).
    list_max: u32,
    /// The moving solids' records and by-id arrays (placeholders without them).
    moving: MovingBuffers,
    /// A DFSPH simulation's arrays and control words.
    dfsph: Option<dfsph::DfsphBuffers>,
    /// The pressure sensors' points, output and ring of rows, with sensors.
    sensors: Option<sensors::SensorBuffers>,
}

impl Fixed {
    /// What grid.scan's level 0 binds for the grid diagnostics.
    fn grid_diagnostics(&self) -> scan::GridDiagnostics<'_> {
        scan::GridDiagnostics { params: &self.params, diag: &self.diag }
    }
}

/// What solids.move reads and writes: the bodies' motions and keyframes; by particle id the rest
/// positions (with the body), the rest normals, and each wall particle's velocity and
/// acceleration (`2 vec4`, zero for walls that do not move). 16-byte placeholders without
/// moving solids.
struct MovingBuffers {
    bodies: wgpu::Buffer,
    /// One [`motion::BodyState`] per moving solid (bodies.integrate's).
    states: wgpu::Buffer,
    /// By id: bodies.force's force and torque on each boundary particle of a moving solid
    /// (`2 vec4`).
    force: wgpu::Buffer,
    n_bodies: u32,
    /// Which moving solids float (the ones [`Sim::hold_body`] may hold).
    floats: Vec<bool>,
    keys: wgpu::Buffer,
    rest: wgpu::Buffer,
    rest_normal: wgpu::Buffer,
    wall_motion: wgpu::Buffer,
}

impl MovingBuffers {
    fn new(device: &wgpu::Device, k: &motion::Kinematics, n: u64) -> Self {
        let moving = !k.is_empty();
        let size = |bytes: u64| if moving { bytes.max(16) } else { 16 };
        Self {
            bodies: shader::storage(
                device,
                "solids.bodies",
                size(k.bodies.len() as u64 * std::mem::size_of::<motion::BodyMotion>() as u64),
            ),
            keys: shader::storage(device, "solids.keys", size(k.keys.len() as u64 * 16)),
            states: shader::storage(device, "bodies.state", size(k.states.len() as u64 * std::mem::size_of::<motion::BodyState>() as u64)),
            force: shader::storage(device, "bodies.force", size(n * 32)),
            n_bodies: k.bodies.len() as u32,
            floats: k.bodies.iter().map(|b| b.translation == motion::TRANSLATION_FLOATING).collect(),
            rest: shader::storage(device, "solids.rest", size(n * 16)),
            rest_normal: shader::storage(device, "solids.rest_normal", size(n * 16)),
            wall_motion: shader::storage(device, "solids.wall_motion", size(n * 32)),
        }
    }
}

/// Begins a labelled compute pass, with timestamps when profiling is on.
fn begin<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    profiler: &mut Option<Profiler>,
    label: &'static str,
    step: u64,
) -> wgpu::ComputePass<'e> {
    let timestamp_writes = profiler.as_mut().and_then(|p| p.writes(label, step));
    encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes })
}

/// A running simulation on the GPU.
pub struct Sim {
    device: wgpu::Device,
    queue: wgpu::Queue,
    params: SimParams,
    options: SimOptions,
    fixed: Fixed,
    /// Which set holds the current state.
    cur: usize,
    cells: CellBuffers,
    /// Bound to `fixed` and `cells`.
    passes: Passes,
    grid_lo: glam::Vec3,
    grid_hi: glam::Vec3,
    max_cells: u64,
    max_dim: u32,
    steps: u64,
    /// Boundary particles (`w < 0`); the other slots hold fluid or are free.
    n_boundary: u32,
    /// Did the last recorded step reorder? (then `sorted` no longer indexes the current set)
    last_reordered: bool,
    profiler: Option<Profiler>,
    /// Which object of the scene each particle id belongs to.
    objects: std::sync::Arc<objects::ObjectMap>,
    /// The step the initial state was at (a checkpoint's; 0 for a fresh one): `steps` counts
    /// from it.
    first_step: u64,
    /// The GPU probes, made at the first probe row ([`Sim::read_probes`]).
    probes: Option<probes::GpuProbes>,
    /// The neighbour lists hold a build on the current slots (with the lists kept between
    /// builds, a step may then keep them; otherwise it must build).
    lists_built: bool,
}

impl Sim {
    /// Whether `n` particles fit the device's per-buffer limits — from the count alone, so a
    /// scene can be refused before its state is built on the host.
    pub(crate) fn check_fits(gpu: &Gpu, n: u64) -> Result<(), SimError> {
        let max_binding = gpu.max_binding_bytes();
        let vec4_bytes = n * 16;
        if vec4_bytes > max_binding || n > u32::MAX as u64 {
            return Err(SimError::TooManyParticles {
                what: "particle state (16 bytes per particle and vector)",
                bytes: vec4_bytes,
                limit: max_binding,
                limit_name: "max_storage_buffer_binding_size",
                max_particles: (max_binding / 16).min(u32::MAX as u64),
            });
        }
        Ok(())
    }

    /// Device bytes a simulation of `n` particles allocates for its particle buffers (two sets
    /// of position, velocity and id, the acceleration, three grid arrays and the wall marks;
    /// with `dfsph` the solver's five per-particle arrays; the neighbour lists where they fit a
    /// binding of `max_binding` bytes), without the per-cell arrays.
    pub(crate) fn device_bytes(n: u64, dfsph: bool, max_binding: u64, list_max: u32) -> u64 {
        let lists = if ListLayout::for_particles(n, max_binding, false, list_max).on() { 4 * list_max as u64 + 4 } else { 0 };
        n * (2 * (16 + 16 + 4) + 16 + 4 * 4 + if dfsph { 5 * 4 } else { 0 } + lists)
    }

    pub fn new(gpu: &Gpu, state: &InitialState, options: SimOptions) -> Result<Self, SimError> {
        Self::with_lists(gpu, state, options, false)
    }

    /// Testing: [`Sim::new`], with the neighbour lists split over two bindings where `split`
    /// even where one would hold them (the layout a device of smaller bindings gets).
    #[doc(hidden)]
    pub fn with_lists(gpu: &Gpu, state: &InitialState, options: SimOptions, split: bool) -> Result<Self, SimError> {
        let device = &gpu.device;
        let n = state.n_particles();
        Self::check_fits(gpu, n as u64)?;
        let max_binding = gpu.max_binding_bytes();
        // sim.solid_force's force and moment per boundary particle of a sensed solid
        let sensed = state.sensors.forces.iter().map(|f| f.count as u64).sum::<u64>() * 32;
        if sensed > max_binding {
            return Err(SimError::TooManyParticles {
                what: "the force sensors' solids (32 bytes per boundary particle)",
                bytes: sensed,
                limit: max_binding,
                limit_name: "max_storage_buffer_binding_size",
                max_particles: max_binding / 32,
            });
        }
        let max_wg = gpu.limits.max_compute_invocations_per_workgroup.min(gpu.limits.max_compute_workgroup_size_x);
        if !matches!(options.workgroup_size, 32 | 64 | 128 | 256) || options.workgroup_size > max_wg {
            return Err(SimError::WorkgroupSize(options.workgroup_size, max_wg));
        }
        // cell_start has num_cells + 2 entries (the cell of free slots, and the total)
        let max_cells = max_binding / 4 - 2;
        let layout = GridLayout::new(state.grid_lo, state.grid_hi, options.cell_size * state.params.h, options.order, max_cells)?;

        let mut params = state.params;
        params.capacity = options.capacity;
        let is_dfsph = params.solver == params::SOLVER_DFSPH;
        // the walls' approach viscosity (docs/PHYSICS.md, "Walls")
        let approach = params.wall_approach_viscosity > 0.0;
        let moving = !state.kinematics.is_empty();
        let sensing = !state.sensors.is_empty();
        // the lists kept between grid builds where the scene allows it and the larger lists fit
        // the device's bindings; otherwise lists of the default capacity, built every step
        let skin_lists = ListLayout::for_particles(n as u64, max_binding, split, crate::physics::list_capacity(options.list_skin));
        let slots_change = !state.emitters.is_empty() || params.open_faces != 0;
        let keeps = options.list_skin > 0.0 && skin_lists.on() && !is_dfsph && !options.deterministic && !moving && !slots_change;
        params.list_skin = if keeps { options.list_skin } else { 0.0 };
        let list_max = crate::physics::list_capacity(params.list_skin);
        let lists = ListLayout::for_particles(n as u64, max_binding, split, list_max);
        apply_layout(&mut params, &layout, state.params.h);
        let builds = Builds {
            list_max,
            keeps,
            lists,
            emitters: !state.emitters.is_empty(),
            moving,
            sensors: sensing,
            forces: !state.sensors.forces.is_empty(),
            flows: !state.sensors.flows.is_empty(),
        };
        let passes = Passes::checked(device, &options, &params, builds)?;
        // every allocation inside one scope: memory the device does not have is an error here
        // (buffers are created unmapped and written after the scope, never mapped while invalid)
        let (fixed, cells) = out_of_memory_scope(device, || -> Result<_, KernelError> {
            let per_particle = |label| shader::storage(device, label, n as u64 * 4);
            let fixed = Fixed {
                params: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("sim.params"),
                    size: std::mem::size_of::<SimParams>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                sets: [ParticleSet::new(device, "particles.a", n as u64), ParticleSet::new(device, "particles.b", n as u64)],
                acc: shader::storage(device, "sim.acc", n as u64 * 16),
                wall_normal: shader::storage(device, "sim.wall_normal", if approach || moving { n as u64 * 16 } else { 16 }),
                wet: shader::storage(device, "sim.wet", n as u64 * 4),
                nb_list: shader::storage(device, "sim.nb_list", lists.bytes(n as u64, list_max)[0]),
                nb_count: shader::storage(device, "sim.nb_count", if lists.on() { n as u64 * 4 } else { 16 }),
                nb_list_hi: shader::storage(device, "sim.nb_list_hi", lists.bytes(n as u64, list_max)[1]),
                lists,
                list_max,
                keeps,
                diag: shader::storage(device, "sim.diag", std::mem::size_of::<Diagnostics>() as u64),
                cell_of: per_particle("grid.cell_of"),
                rank: per_particle("grid.rank"),
                sorted: per_particle("grid.sorted"),
                emit_buffers: emit::EmitBuffers::new(device, &passes.scan, &state.emitters, state.step, n)?,
                emit: None,
                reduce: shader::storage(device, "sim.time_step.reduce", time_step::REDUCE_BYTES),
                keep: shader::storage(device, "grid.keep", keep::WORDS as u64 * 4),
                keep_args: shader::storage_with(device, "grid.keep_args", keep::ARGS_WORDS as u64 * 4, wgpu::BufferUsages::INDIRECT),
                moving: MovingBuffers::new(device, &state.kinematics, n as u64),
                dfsph: is_dfsph.then(|| dfsph::DfsphBuffers::new(device, n as u64)),
                sensors: sensing.then(|| sensors::SensorBuffers::new(device, &state.sensors, state.step, is_dfsph, n)),
            };
            let cells = CellBuffers::new(device, &passes.scan, layout, fixed.grid_diagnostics())?;
            Ok((fixed, cells))
        })??;
        let mut fixed = fixed;
        if !state.emitters.is_empty() {
            fixed.emit = Some(emit::EmitPoints::new(device, &state.emitters));
        }
        let ids: Vec<u32> = (0..n).collect();
        for set in &fixed.sets {
            set.write(&gpu.queue, &state.pos_mass, &state.vel_rho, &ids);
        }
        if moving {
            // the normals of the solids at rest (a resumed state has them moved), which
            // solids.move turns with them
            let k = &state.kinematics;
            let normals = walls::rest_normals(&state.pos_mass, k, state.params.h);
            gpu.queue.write_buffer(&fixed.wall_normal, 0, bytemuck::cast_slice(&normals));
            gpu.queue.write_buffer(&fixed.moving.rest_normal, 0, bytemuck::cast_slice(&normals));
            gpu.queue.write_buffer(&fixed.moving.rest, 0, bytemuck::cast_slice(&k.rest_words()));
            gpu.queue.write_buffer(&fixed.moving.bodies, 0, bytemuck::cast_slice(&k.bodies));
            gpu.queue.write_buffer(&fixed.moving.states, 0, bytemuck::cast_slice(&k.states));
            if !k.keys.is_empty() {
                gpu.queue.write_buffer(&fixed.moving.keys, 0, bytemuck::cast_slice(&k.keys));
            }
        } else if approach {
            let normals = walls::wall_normals(&state.pos_mass, state.params.h);
            gpu.queue.write_buffer(&fixed.wall_normal, 0, bytemuck::cast_slice(&normals));
        }
        params.derive();
        gpu.queue.write_buffer(&fixed.params, 0, bytemuck::bytes_of(&params));
        // the clock starts at the state's time (a compensated pair, as sim.time_step keeps it)
        let t = state.time as f32;
        let clock = [state.params.dt, t, (state.time - t as f64) as f32];
        gpu.queue.write_buffer(&fixed.diag, std::mem::offset_of!(Diagnostics, dt) as u64, bytemuck::cast_slice(&clock));
        let max_dim = gpu.limits.max_compute_workgroups_per_dimension;
        if let Some(d) = &fixed.dfsph {
            d.write_full_dispatch(&gpu.queue, n, options.workgroup_size, max_dim);
        }
        let passes = passes.bound(device, &cells, &fixed)?;
        let mut sim = Self {
            device: device.clone(),
            queue: gpu.queue.clone(),
            params,
            fixed,
            passes,
            cells,
            cur: 0,
            grid_lo: state.grid_lo,
            grid_hi: state.grid_hi,
            max_cells,
            max_dim: gpu.limits.max_compute_workgroups_per_dimension,
            steps: 0,
            n_boundary: state.n_boundary(),
            last_reordered: false,
            profiler: None,
            objects: std::sync::Arc::new(state.objects.clone()),
            first_step: state.step,
            options,
            probes: None,
            lists_built: false,
        };
        sim.write_keep_words();
        Ok(sim)
    }

    /// Which object of the scene each particle id belongs to (the export's `object`).
    pub fn objects(&self) -> &std::sync::Arc<objects::ObjectMap> {
        &self.objects
    }
    pub fn params(&self) -> &SimParams {
        &self.params
    }
    pub fn options(&self) -> &SimOptions {
        &self.options
    }
    pub fn grid(&self) -> &GridLayout {
        &self.cells.layout
    }
    /// Whether the step keeps neighbour lists ([`ListLayout`]): the passes after the first
    /// neighbour walk of a step read them instead of walking the grid again.
    pub(crate) fn has_neighbour_lists(&self) -> bool {
        self.fixed.lists.on()
    }

    /// How the step keeps its neighbour lists.
    pub fn list_layout(&self) -> ListLayout {
        self.fixed.lists
    }
    pub fn steps(&self) -> u64 {
        self.steps
    }
    pub fn n_particles(&self) -> u32 {
        self.params.n_particles
    }
    /// Fluid particles at the start (emitters and open faces change the number of particles
    /// in the run; the diagnostics count them).
    pub(crate) fn n_fluid(&self) -> u32 {
        self.params.n_fluid
    }
    /// Boundary particles.
    pub(crate) fn n_boundary(&self) -> u32 {
        self.n_boundary
    }
    /// Slots for fluid: the fluid at the start and the free slots (room for the emitters).
    pub(crate) fn fluid_slots(&self) -> u32 {
        self.params.n_particles - self.n_boundary
    }
    /// Whether fluid can enter or leave (emitters, open faces): the panel then shows the count.
    pub(crate) fn has_flow(&self) -> bool {
        self.fixed.emit.is_some() || self.params.open_faces != 0
    }
    /// Whether the step solves for the pressure (DFSPH) rather than taking it from the Tait
    /// equation (WCSPH).
    pub fn is_dfsph(&self) -> bool {
        self.params.solver == params::SOLVER_DFSPH
    }
    /// Whether each step chooses its own dt (then [`Diagnostics::dt`] and
    /// [`Diagnostics::sim_time`] say what it chose).
    pub fn is_adaptive(&self) -> bool {
        self.params.adaptive != 0
    }
    /// Simulated time at the end of `step` steps, given the diagnostics read at that step: the
    /// GPU's clock for an adaptive dt, `step · dt` for a fixed one, in f64 from the dt's decimal
    /// ([`Sim::fixed_dt`]).
    pub fn time_at(&self, step: u64, d: &Diagnostics) -> f64 {
        if self.is_adaptive() { d.sim_time() } else { step as f64 * self.fixed_dt() }
    }
    /// An adaptive dt's next frame time (s; `None`: none): from the next step the steps land on
    /// it (sim.time_step; `rillet run --export-fps`).
    pub fn set_frame_time(&mut self, t: Option<f32>) {
        self.params.frame_time = t.unwrap_or(0.0);
        let offset = std::mem::offset_of!(SimParams, frame_time) as u64;
        self.queue.write_buffer(&self.fixed.params, offset, bytemuck::bytes_of(&self.params.frame_time));
    }
    /// The fixed dt as the scene wrote it ([`crate::physics::decimal`]), s.
    pub fn fixed_dt(&self) -> f64 {
        crate::physics::decimal(self.params.dt)
    }
    /// What the next step reads besides the particles, for a checkpoint: the last dt, the last
    /// pressure solve's error, the clock and (DFSPH) the solves' totals by id.
    /// `bodies`: the moving solids' states copied with the particles ([`Particles::bodies`]).
    pub(crate) fn step_state(&self, d: &Diagnostics, bodies: &[motion::BodyState]) -> Result<StepState, readback::ReadError> {
        Ok(StepState {
            last_dt: d.dt,
            solver_error: d.solver_error,
            clock: [d.time, d.time_lo],
            warm: self.read_dfsph_totals()?,
            bodies: bodies.to_vec(),
        })
    }

    /// Continues from a checkpoint's step state: the next step sees the last dt, solver error,
    /// clock and warm start the checkpointed run's next step saw (call before the first step).
    pub(crate) fn restore_step_state(&self, s: &StepState) -> Result<(), SimError> {
        let diag = |field: usize, v: &[f32]| self.queue.write_buffer(&self.fixed.diag, field as u64, bytemuck::cast_slice(v));
        diag(std::mem::offset_of!(Diagnostics, dt), &[s.last_dt, s.clock[0], s.clock[1]]);
        diag(std::mem::offset_of!(Diagnostics, solver_error), &[s.solver_error]);
        // the passes before this step's sim.time_step read the last dt from the uniform block
        self.queue.write_buffer(&self.fixed.params, params::DT_OFFSET, bytemuck::bytes_of(&s.last_dt));
        match (&self.fixed.dfsph, &s.warm) {
            (Some(b), Some((p, v))) => {
                let n = self.params.n_particles as usize;
                if p.len() != n || v.len() != n {
                    return Err(SimError::Resume(format!("the warm start holds {} particles, the simulation {n}", p.len())));
                }
                self.queue.write_buffer(&b.warm_pressure, 0, bytemuck::cast_slice(p));
                self.queue.write_buffer(&b.warm_divergence, 0, bytemuck::cast_slice(v));
            }
            (None, Some(_)) => return Err(SimError::Resume("the checkpoint is of a DFSPH run, the scene is WCSPH".into())),
            _ => {}
        }
        let n_bodies = if self.passes.move_solids.is_some() { self.fixed.moving.n_bodies as usize } else { 0 };
        if s.bodies.len() != n_bodies {
            return Err(SimError::Resume(format!("the checkpoint holds {} moving solids, the scene {n_bodies}", s.bodies.len())));
        }
        if n_bodies > 0 {
            self.queue.write_buffer(&self.fixed.moving.states, 0, bytemuck::cast_slice(&s.bodies));
        }
        Ok(())
    }

    /// The buffer set holding the current state (for rendering straight from the GPU).
    pub fn current(&self) -> &ParticleSet {
        &self.fixed.sets[self.cur]
    }
    /// Depth of the prefix-sum hierarchy for the current grid.
    pub fn scan_levels(&self) -> usize {
        self.cells.scan.depth()
    }
    /// Whether the next step reorders.
    pub(crate) fn reorders_next(&self) -> bool {
        let n = self.options.reorder_interval;
        n > 0 && self.steps.is_multiple_of(n as u64)
    }

    /// Changes options between steps. A new cell size or order reallocates the per-cell buffers;
    /// particle state is kept.
    pub fn set_options(&mut self, options: SimOptions) -> Result<(), SimError> {
        if options == self.options {
            return Ok(());
        }
        if options.list_skin != self.options.list_skin {
            return Err(SimError::FixedOption(format!(
                "grid.list_skin is {} for this simulation (it sizes the neighbour lists) and cannot become {}; start it again with the new value",
                self.options.list_skin, options.list_skin
            )));
        }
        let grid_changed = options.cell_size != self.options.cell_size || options.order != self.options.order;
        let pipelines_changed = options.diagnostics != self.options.diagnostics
            || options.order != self.options.order
            || options.workgroup_size != self.options.workgroup_size
            || options.shader_checks != self.options.shader_checks;
        // build everything that can fail first, so a refused change leaves the simulation as it was
        let layout = if grid_changed {
            Some(GridLayout::new(self.grid_lo, self.grid_hi, options.cell_size * self.params.h, options.order, self.max_cells)?)
        } else {
            None
        };
        let fresh_passes = if pipelines_changed {
            let b = Builds {
                lists: self.fixed.lists,
                emitters: self.fixed.emit.is_some(),
                moving: self.passes.move_solids.is_some(),
                sensors: self.passes.sensors.is_some(),
                forces: self.passes.solid_force.is_some(),
                flows: self.passes.flow.is_some(),
                keeps: self.fixed.keeps,
                list_max: self.fixed.list_max,
            };
            Some(Passes::checked(&self.device, &options, &self.params, b)?)
        } else {
            None
        };
        let passes = fresh_passes.as_ref().unwrap_or(&self.passes);
        let fresh_cells = match layout {
            Some(layout) => Some(out_of_memory_scope(&self.device, || {
                CellBuffers::new(&self.device, &passes.scan, layout, self.fixed.grid_diagnostics())
            })??),
            None => None,
        };
        let cells = fresh_cells.as_ref().unwrap_or(&self.cells);
        let passes = passes.bound(&self.device, cells, &self.fixed)?;
        // nothing below fails
        if let Some(cells) = fresh_cells {
            let h = self.params.h;
            apply_layout(&mut self.params, &cells.layout, h);
            self.cells = cells;
        }
        self.params.capacity = options.capacity;
        self.params.derive();
        self.queue.write_buffer(&self.fixed.params, 0, bytemuck::bytes_of(&self.params));
        if let Some(d) = &self.fixed.dfsph {
            d.write_full_dispatch(&self.queue, self.params.n_particles, options.workgroup_size, self.max_dim);
        }
        self.options = options;
        self.passes = passes;
        self.write_keep_words();
        Ok(())
    }

    /// grid.keep's indirect dispatches from the start (the full ones of the current particle
    /// count, workgroup size and scan levels), and the next step builds, which restarts the
    /// travel (grid.keep's words start at zero, and its counters count on).
    fn write_keep_words(&mut self) {
        let args = keep::args(self.params.n_particles, self.options.workgroup_size, &self.cells.scan.blocks(), self.max_dim);
        self.queue.write_buffer(&self.fixed.keep_args, 0, bytemuck::cast_slice(&args));
        self.lists_built = false;
    }

    /// Whether the step keeps its neighbour lists between grid builds: a list skin
    /// ([`SimOptions::list_skin`]), the lists with the skin's capacity fit the device's bindings,
    /// WCSPH, and none of what changes particles or slots outside the step's own passes
    /// (emitters and open faces free and fill slots, moving solids move wall particles, the
    /// deterministic mode's ranks; DFSPH's solves read the lists it writes each step).
    /// Otherwise every step builds, as without a skin.
    pub fn keeps_lists(&self) -> bool {
        self.fixed.keeps
    }

    /// The most neighbours a list holds ([`crate::physics::list_capacity`] of the skin in use).
    pub fn list_capacity(&self) -> u32 {
        self.fixed.list_max
    }

    /// What the simulation's kernels are compiled with (the options', and its lists' capacity).
    pub(crate) fn kernel_config(&self) -> shader::KernelConfig {
        self.options.kernel_config(self.fixed.list_max)
    }

    /// Steps that built the grid and steps that kept the lists since the simulation started
    /// (grid.keep's counters; both 0 without a skin). Blocking.
    pub fn list_builds(&self) -> Result<(u32, u32), readback::ReadError> {
        let w = self.keep_words()?;
        Ok((w[keep::BUILDS as usize], w[keep::KEPT as usize]))
    }

    /// grid.keep's control words ([`keep`]). Blocking.
    pub fn keep_words(&self) -> Result<Vec<u32>, readback::ReadError> {
        buffers::read_vec(&self.device, &self.queue, &self.fixed.keep, keep::WORDS as usize)
    }

    /// Turns per-pass GPU timestamps on, with room for `steps` steps between reads.
    pub(crate) fn enable_profiling(&mut self, steps: u32) {
        self.profiler = Some(Profiler::new(&self.device, &self.queue, steps * profiler::MAX_PASSES_PER_STEP));
    }

    /// Resolves the timestamps recorded so far into `encoder` (before it is submitted).
    pub(crate) fn resolve_profile(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(p) = &self.profiler {
            p.resolve(encoder);
        }
    }

    /// Reads the resolved timestamps back (blocking: bench and tools only); None without
    /// profiling.
    pub(crate) fn read_profile(&mut self) -> Result<Option<Profile>, readback::ReadError> {
        let (device, queue) = (self.device.clone(), self.queue.clone());
        self.profiler.as_mut().map(|p| p.read(&device, &queue)).transpose()
    }

    /// Bytes a [`Sim::record_profile_copy`] may copy at most (0 without profiling).
    pub(crate) fn profile_bytes(&self) -> u64 {
        self.profiler.as_ref().map_or(0, |p| p.capacity_bytes())
    }

    /// Resolves the timestamps of the steps recorded since the last copy or reset into `dst`
    /// at `offset`; the batch turns the ticks read back later into a profile.
    pub(crate) fn record_profile_copy(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        dst: &wgpu::Buffer,
        offset: u64,
    ) -> Option<ProfileBatch> {
        self.profiler.as_mut()?.resolve_into(encoder, dst, offset)
    }

    /// Forgets the timestamps of the steps recorded since the last copy (frames not read back).
    pub(crate) fn reset_profile(&mut self) {
        if let Some(p) = &mut self.profiler {
            p.reset();
        }
    }

    /// Records one step into `encoder`: grid build, reorder (on its steps), density, force,
    /// integrate, with its measurements in the diagnostics (fastest particle, mean compression).
    /// Waits on nothing.
    pub(crate) fn record_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        self.record_step_with(encoder, true);
    }

    /// [`Self::record_step`]; without `measure` (and with a fixed dt, which needs none of them)
    /// sim.time_step skips its reduction over the particles and the step's diagnostics carry 0
    /// for the fastest particle and the mean compression.
    fn record_step_with(&mut self, encoder: &mut wgpu::CommandEncoder, measure: bool) {
        let measure = measure || self.params.adaptive != 0;
        let n = self.params.n_particles;
        let md = self.max_dim;
        let step = self.steps;
        // With the lists kept between grid builds, a step builds when the CPU says so (the lists
        // hold no build of the current slots yet, a sensor sample) or when grid.keep finds the
        // particles may have moved half the skin since the last build; otherwise it keeps them
        // (src/sim/keep.rs). Every build reorders then (the reorder interval does not apply),
        // and a step that keeps the lists copies the particles to the other set instead, so the
        // current set alternates every step whatever the GPU decides. Without, every step builds.
        let keeps = self.fixed.keeps;
        // a deterministic step (turned on live: a simulation made deterministic keeps no lists)
        // orders its cells by id at every build, which only the CPU-recorded build does
        let built = !keeps || !self.lists_built || self.sensor_due() || self.options.deterministic;
        let reorder = keeps || self.reorders_next();
        encoder.push_debug_group("sim.step");

        if let Some(m) = &self.passes.move_solids {
            m.record(&mut begin(encoder, &mut self.profiler, m.label(), step), self.cur, n, shader::Single, md);
        }
        if keeps {
            let decide = if built { keep::Decide::Build } else { keep::Decide::Moved };
            let k = &self.passes.keep;
            k.record(&mut begin(encoder, &mut self.profiler, k.label(), step), self.cur, 1, decide, md);
        }
        let c = if built { self.record_grid(encoder, step, reorder) } else { self.record_grid_if_due(encoder, step) };
        self.record_sensors(encoder, c, Walk::after(reorder));
        let wg = self.options.workgroup_size;
        let Self { passes: p, profiler: prof, fixed, params, .. } = self;
        let walk = Walk::after(reorder);
        let inlets = p.emit.is_some();
        match (&p.dfsph, &fixed.dfsph) {
            (Some(dp), Some(buffers)) => {
                // DFSPH: density and factor, the divergence solve (on the velocities the last
                // step left), viscosity and gravity, dt, v* = v + dt a, the pressure solve, move
                let iterations = params.max_iterations;
                dp.factor.record(&mut begin(encoder, prof, dp.factor.label(), step), c, n, walk, md);
                let solve =
                    |pass: &mut wgpu::ComputePass<'_>, solve| dp.record_solve(pass, c, solve, n, walk, iterations, md, &buffers.args);
                solve(&mut begin(encoder, prof, dp.divergence.label(), step), dfsph::Solve::Divergence);
                p.force.record(&mut begin(encoder, prof, p.force.label(), step), c, n, walk, md);
                Self::record_time_step(encoder, p, prof, fixed, c, n, md, step, measure);
                dp.predict.record(&mut begin(encoder, prof, dp.predict.label(), step), c, n, shader::Single, md);
                solve(&mut begin(encoder, prof, dp.pressure.label(), step), dfsph::Solve::Pressure);
                let v = integrate::Integrate { inlets, kick: false, moves: false };
                p.integrate.record(&mut begin(encoder, prof, p.integrate.label(), step), c, n, v, md);
            }
            _ => {
                encoder.clear_buffer(&fixed.wet, 0, None);
                if built {
                    // a build the CPU records lists with the skin grid.keep chose (read on the GPU)
                    let reads = if keeps { keep::Reads::Skinned } else { keep::Reads::Grid(walk) };
                    p.density.record(&mut begin(encoder, prof, p.density.label(), step), c, n, reads, md);
                    p.wall_pressure.record(&mut begin(encoder, prof, p.wall_pressure.label(), step), c, n, reads, md);
                } else {
                    // grid.keep turned on one of each three: the walk with the skin or within h (a
                    // build, after its reorder), or the lists
                    let entries = [
                        (keep::Reads::Skinned, keep::ENTRY_SKINNED),
                        (keep::Reads::Grid(Walk::Direct), keep::ENTRY_WITHIN_H),
                        (keep::Reads::Lists, keep::ENTRY_LISTED),
                    ];
                    for pass in [&p.density, &p.wall_pressure] {
                        let mut cp = begin(encoder, prof, pass.label(), step);
                        for (reads, entry) in entries {
                            pass.record_indirect_at(&mut cp, c, reads, &fixed.keep_args, keep::live_offset(entry));
                        }
                    }
                }
                p.force.record(&mut begin(encoder, prof, p.force.label(), step), c, n, walk, md);
                Self::record_time_step(encoder, p, prof, fixed, c, n, md, step, measure);
                if let (Some(bf), Some(bi)) = (&p.body_force, &p.body_integrate) {
                    bf.record(&mut begin(encoder, prof, bf.label(), step), c, n, walk, md);
                    let groups = fixed.moving.n_bodies * wg;
                    bi.record(&mut begin(encoder, prof, bi.label(), step), c, groups, shader::Single, md);
                }
                let v = integrate::Integrate { inlets, kick: true, moves: keeps };
                p.integrate.record(&mut begin(encoder, prof, p.integrate.label(), step), c, n, v, md);
            }
        }
        if let (Some(points), Some(e)) = (&fixed.emit, &p.emit) {
            e.plan.record(&mut begin(encoder, prof, e.plan.label(), step), c, 1, shader::Single, md);
            e.write.record(&mut begin(encoder, prof, e.write.label(), step), c, points.n, walk, md);
        }
        encoder.pop_debug_group();

        self.cur = c;
        self.last_reordered = reorder;
        self.lists_built = true;
        self.steps += 1;
    }

    /// sim.time_step (reduce, finish), then its dt into the uniform block for the passes after it.
    #[allow(clippy::too_many_arguments)]
    fn record_time_step(
        encoder: &mut wgpu::CommandEncoder,
        p: &Passes,
        prof: &mut Option<Profiler>,
        fixed: &Fixed,
        c: usize,
        n: u32,
        md: u32,
        step: u64,
        measure: bool,
    ) {
        {
            let mut pass = begin(encoder, prof, p.time_step.label(), step);
            if measure {
                p.time_step.record(&mut pass, c, n, time_step::Part::Reduce, md);
            }
            p.time_step.record(&mut pass, c, 1, time_step::Part::Finish, md);
        }
        let dt_word = std::mem::offset_of!(Diagnostics, dt) as u64;
        encoder.copy_buffer_to_buffer(&fixed.diag, dt_word, &fixed.params, params::DT_OFFSET, 4);
    }

    /// Records `steps` steps; with a fixed dt only the last is measured (sim.time_step's
    /// reduction over the particles, 4 % of the benchmark step), which is the one any readback
    /// recorded after them sees.
    pub fn record_steps(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32) {
        for i in 0..steps {
            self.record_step_with(encoder, i + 1 == steps);
        }
    }

    /// Copies the diagnostics words into `dst` at `offset` (for an asynchronous readback).
    pub(crate) fn record_diagnostics_copy(&self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) {
        encoder.copy_buffer_to_buffer(&self.fixed.diag, 0, dst, offset, std::mem::size_of::<Diagnostics>() as u64);
    }

    /// Holds floating body `b` (the app's mouse drag): from the next step it is at `position`
    /// (its centre) and moves at `velocity`, unturned, whatever the water does; `None` lets it
    /// go (it floats on from the velocity it was last given). A body that does not float, or
    /// one the simulation does not have, is left alone.
    pub fn hold_body(&self, b: usize, hold: Option<([f32; 3], [f32; 3])>) {
        if self.passes.move_solids.is_none() || !self.fixed.moving.floats.get(b).copied().unwrap_or(false) {
            return;
        }
        let at = (b * std::mem::size_of::<motion::BodyState>()) as u64;
        let field = |offset: usize, bytes: &[u8]| self.queue.write_buffer(&self.fixed.moving.states, at + offset as u64, bytes);
        use std::mem::offset_of;
        match hold {
            Some((x, v)) => {
                field(offset_of!(motion::BodyState, position), bytemuck::cast_slice(&x));
                field(offset_of!(motion::BodyState, velocity), bytemuck::cast_slice(&v));
                field(offset_of!(motion::BodyState, angular_velocity), bytemuck::cast_slice(&[0.0f32; 3]));
                field(offset_of!(motion::BodyState, floating), bytemuck::bytes_of(&2u32));
            }
            None => field(offset_of!(motion::BodyState, floating), bytemuck::bytes_of(&1u32)),
        }
    }

    /// Whether solids move (prescribed or floating).
    pub fn has_moving_solids(&self) -> bool {
        self.passes.move_solids.is_some()
    }

    /// Bytes of the moving solids' states ([`Sim::record_bodies_copy`]; 0 without them).
    pub(crate) fn bodies_bytes(&self) -> u64 {
        if self.passes.move_solids.is_some() {
            self.fixed.moving.n_bodies as u64 * std::mem::size_of::<motion::BodyState>() as u64
        } else {
            0
        }
    }

    /// Copies the moving solids' states ([`motion::BodyState`], one per moving solid) into `dst`
    /// at `offset`, for an asynchronous readback (where the app draws floating bodies).
    pub(crate) fn record_bodies_copy(&self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) {
        let bytes = self.bodies_bytes();
        if bytes > 0 {
            encoder.copy_buffer_to_buffer(&self.fixed.moving.states, 0, dst, offset, bytes);
        }
    }

    /// The layout of a copy of the current state ([`Sim::record_particle_copy`]).
    pub(crate) fn particle_copy(&self) -> readback::ParticleCopy {
        let bodies = if self.passes.move_solids.is_some() { self.fixed.moving.n_bodies } else { 0 };
        readback::ParticleCopy { n: self.params.n_particles, solver: self.fixed.dfsph.is_some(), bodies }
    }

    /// Records the copy of the current state into `dst` at `offset`, laid out as
    /// [`Sim::particle_copy`] says (particles, diagnostics, DFSPH's solve totals): what the
    /// app's recorder, `rillet run` and the instruments read particles with.
    pub(crate) fn record_particle_copy(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        dst: &wgpu::Buffer,
        offset: u64,
    ) -> readback::ParticleCopy {
        let copy = self.particle_copy();
        let set = &self.fixed.sets[self.cur];
        let n = copy.n as u64;
        encoder.copy_buffer_to_buffer(&set.pos_mass, 0, dst, offset, n * 16);
        encoder.copy_buffer_to_buffer(&set.vel_rho, 0, dst, offset + copy.vel_rho_at(), n * 16);
        encoder.copy_buffer_to_buffer(&set.id, 0, dst, offset + copy.id_at(), n * 4);
        self.record_diagnostics_copy(encoder, dst, offset + copy.diagnostics_at());
        if let Some(b) = &self.fixed.dfsph {
            let at = offset + copy.solver_at();
            encoder.copy_buffer_to_buffer(&b.warm_pressure, 0, dst, at, n * 4);
            encoder.copy_buffer_to_buffer(&b.warm_divergence, 0, dst, at + n * 4, n * 4);
        }
        if copy.bodies > 0 {
            let bytes = copy.bytes() - copy.bodies_at();
            encoder.copy_buffer_to_buffer(&self.fixed.moving.states, 0, dst, offset + copy.bodies_at(), bytes);
        }
        copy
    }

    /// Records and submits `steps` steps; waits on nothing (the index lets a caller wait for
    /// this submission alone).
    pub fn run(&mut self, steps: u32) -> wgpu::SubmissionIndex {
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sim.run") });
        self.record_steps(&mut enc, steps);
        self.queue.submit([enc.finish()])
    }

    /// The grid build of a step (clear, count, scan, scatter) on the current set and, with
    /// `reorder`, the gather into the other set; returns the set that holds the state after it.
    /// Shared by `record_step` and `build_grid`, so the tests of the grid exercise the step's own
    /// recording.
    fn record_grid(&mut self, encoder: &mut wgpu::CommandEncoder, step: u64, reorder: bool) -> usize {
        let n = self.params.n_particles;
        let md = self.max_dim;
        // grid.clear: counters and the per-build diagnostics words (max per cell, overflows)
        encoder.clear_buffer(&self.cells.counts, 0, None);
        encoder.clear_buffer(&self.fixed.diag, 0, Some(8));
        let Self { passes: p, cells, profiler: prof, fixed, .. } = self;
        let c = self.cur;
        let one = shader::Single;
        p.count.record(&mut begin(encoder, prof, p.count.label(), step), c, n, one, md);
        p.scan.record(&mut begin(encoder, prof, shader::SCAN.label, step), &cells.scan, md);
        p.scatter.record(&mut begin(encoder, prof, p.scatter.label(), step), c, n, one, md);
        if self.options.deterministic {
            // ranks by id (the free slots too, where emitters fill them), then the scatter again
            // with them
            let free_scan = fixed.emit_buffers.free_scan.as_ref();
            let ranks = if free_scan.is_some() { sort_cells::Ranks::WithFree } else { sort_cells::Ranks::Particles };
            p.sort_cells.record(&mut begin(encoder, prof, p.sort_cells.label(), step), c, n, ranks, md);
            if let Some(levels) = free_scan {
                p.scan.record(&mut begin(encoder, prof, shader::SCAN.label, step), levels, md);
                p.rank_free.record(&mut begin(encoder, prof, p.rank_free.label(), step), c, n, one, md);
            }
            p.scatter.record(&mut begin(encoder, prof, p.scatter.label(), step), c, n, one, md);
        }
        if reorder {
            p.reorder.record(&mut begin(encoder, prof, p.reorder.label(), step), c, n, keep::Gather { copy: false }, md);
            // the lists name slots of the set before the gather
            self.lists_built = false;
            return 1 - c;
        }
        c
    }

    /// The grid build of a step that may keep the lists: clear, count, scan, scatter and the
    /// reorder dispatched from grid.keep's entries, which are empty unless it decided to build,
    /// and otherwise a plain copy into the other set (the lists' slots stay). Returns the other
    /// set, which holds the state after it either way.
    fn record_grid_if_due(&mut self, encoder: &mut wgpu::CommandEncoder, step: u64) -> usize {
        encoder.clear_buffer(&self.cells.counts, 0, None);
        let Self { passes: p, cells, profiler: prof, fixed, .. } = self;
        let (c, args, one) = (self.cur, &fixed.keep_args, shader::Single);
        let (build, listed) = (keep::live_offset(keep::ENTRY_BUILD), keep::live_offset(keep::ENTRY_LISTED));
        p.count.record_indirect_at(&mut begin(encoder, prof, p.count.label(), step), c, one, args, build);
        let level = |k: u32| keep::live_offset(keep::ENTRY_SCAN + k);
        p.scan.record_indirect(&mut begin(encoder, prof, shader::SCAN.label, step), &cells.scan, args, level);
        p.scatter.record_indirect_at(&mut begin(encoder, prof, p.scatter.label(), step), c, one, args, build);
        let mut pass = begin(encoder, prof, p.reorder.label(), step);
        p.reorder.record_indirect_at(&mut pass, c, keep::Gather { copy: false }, args, build);
        p.reorder.record_indirect_at(&mut pass, c, keep::Gather { copy: true }, args, listed);
        1 - c
    }
}

/// Runs `make` inside an out-of-memory error scope: an allocation the device could not make
/// becomes [`SimError::OutOfMemory`].
fn out_of_memory_scope<T>(device: &wgpu::Device, make: impl FnOnce() -> T) -> Result<T, SimError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let invalid = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let made = make();
    let invalid = pollster::block_on(invalid.pop());
    let oom = pollster::block_on(oom.pop());
    match (oom, invalid) {
        (Some(e), _) => Err(SimError::OutOfMemory(e.to_string())),
        (None, Some(e)) => Err(SimError::Buffer(e.to_string())),
        (None, None) => Ok(made),
    }
}

/// Whether and how a simulation keeps neighbour lists: sph.density (WCSPH) or dfsph.factor
/// (DFSPH) writes each fluid particle's neighbours, and the passes after it in the step
/// (sph.force; DFSPH's solves) read them instead of walking the grid again. The lists take
/// 4 · [`NEIGHBOUR_LIST_MAX`] bytes a particle, in rows of four entries
/// (`shaders/lists_write.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListLayout {
    /// No lists: every pass walks the grid (the lists would not fit two bindings).
    Off,
    /// The lists in one binding.
    One,
    /// Rows from [`crate::physics::LIST_SPLIT_ROW`] on in a second binding: where one binding
    /// cannot hold them all (16M particles and more on the H200).
    Split,
}

impl ListLayout {
    /// The layout for `n` particles and bindings of at most `max_binding` bytes; `split` asks
    /// for two bindings even where one would do (testing).
    pub fn for_particles(n: u64, max_binding: u64, split: bool, list_max: u32) -> Self {
        let whole = n * 4 * list_max as u64;
        let half = n * 16 * crate::physics::list_split_row(list_max) as u64;
        if whole <= max_binding && !split {
            ListLayout::One
        } else if half <= max_binding && whole - half <= max_binding {
            ListLayout::Split
        } else {
            ListLayout::Off
        }
    }

    pub fn on(self) -> bool {
        self != ListLayout::Off
    }

    /// Bytes of the two list buffers for `n` particles (16 for a placeholder).
    fn bytes(self, n: u64, list_max: u32) -> [u64; 2] {
        let whole = n * 4 * list_max as u64;
        let half = n * 16 * crate::physics::list_split_row(list_max) as u64;
        match self {
            ListLayout::Off => [16, 16],
            ListLayout::One => [whole, 16],
            ListLayout::Split => [half, whole - half],
        }
    }

    /// The override constants of the passes that write or read the lists.
    fn constants(self) -> [(&'static str, f64); 2] {
        [("LISTS", shader::flag(self.on())), ("SPLIT_LISTS", shader::flag(self == ListLayout::Split))]
    }
}

/// Grid fields of the uniform block for a layout.
fn apply_layout(params: &mut SimParams, layout: &GridLayout, h: f32) {
    params.grid_origin = layout.origin.into();
    params.inv_cell_size = layout.inv_cell_size;
    params.grid_dims = layout.dims.into();
    params.num_cells = layout.num_cells;
    // the walks that build the lists with a skin reach (1 + skin) h by a range of their own
    // (`skin_range` in shaders/neighbours.wgsl)
    params.search_range = layout.search_range(h);
}

#[cfg(test)]
mod tests {
    /// A buffer the device refuses, made inside the scope, is an error and not a panic or a
    /// logged error at the first use. (Exhausting the memory of the test device is not
    /// something a test can do safely; a buffer over the device's size limit takes the same
    /// path through the scope.)
    #[test]
    fn a_buffer_the_device_refuses_is_an_error() {
        let gpu = crate::gpu::Gpu::headless().expect("a GPU adapter (on Linux without a GPU: apt-get install mesa-vulkan-drivers)");
        let too_big = gpu.limits.max_buffer_size.saturating_add(4);
        let made = super::out_of_memory_scope(&gpu.device, || super::shader::storage(&gpu.device, "test.too_big", too_big));
        assert!(made.is_err(), "a {too_big}-byte buffer was accepted");
        let fine = super::out_of_memory_scope(&gpu.device, || super::shader::storage(&gpu.device, "test.small", 64));
        assert!(fine.is_ok());
    }
}
