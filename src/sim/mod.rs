//! The simulation step on the GPU: one module per pass (named like its shader and its label),
//! the buffers, and [`Sim`], which records the passes of a step into the caller's encoder and
//! never waits on the GPU inside a step.

pub mod all_pairs;
pub mod buffers;
pub mod count;
pub mod density;
pub mod force;
pub mod integrate;
pub mod layout;
pub mod params;
pub mod probe;
pub mod profiler;
pub mod readback;
pub mod reorder;
pub mod scan;
pub mod scatter;
pub mod shader;
pub mod state;
pub mod wall_pressure;

use crate::gpu::Gpu;
use buffers::{CellBuffers, ParticleSet, read_vec};
use layout::{CellOrder, GridLayout, GridTooLarge};
use params::{Diagnostics, SimParams};
use profiler::{Profile, Profiler};
use shader::Kernel;
use wgpu::util::DeviceExt;

pub use state::InitialState;

/// Pipeline variant of the neighbour-loop passes: cell ranges are slots (the step reordered).
pub const DIRECT: usize = 0;
/// Pipeline variant of the neighbour-loop passes: cell ranges index `sorted`.
pub const THROUGH_SORTED: usize = 1;

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
    /// Grid diagnostics compiled into grid.count.
    pub diagnostics: bool,
    /// Workgroup size of the per-particle passes.
    pub workgroup_size: u32,
    /// Compile the shaders with wgpu's runtime bounds checks (slower; off by default, see
    /// `shader::module`).
    pub shader_checks: bool,
}

impl Default for SimOptions {
    /// The measured fastest choices (docs/PERFORMANCE.md): cells of h/2 in linear order, reorder
    /// every step, workgroups of 256, diagnostics on, no runtime bounds checks.
    fn default() -> Self {
        Self {
            cell_size: 0.5,
            capacity: 8,
            reorder_interval: 1,
            order: CellOrder::Linear,
            diagnostics: true,
            workgroup_size: 256,
            shader_checks: false,
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
}

/// The passes' pipelines for one set of options.
struct Kernels {
    count: Kernel,
    scan: scan::ScanPass,
    scatter: Kernel,
    reorder: Kernel,
    density: Kernel,
    wall_pressure: Kernel,
    force: Kernel,
    integrate: Kernel,
}

impl Kernels {
    /// Builds every pipeline, turning a shader or pipeline the device rejects into an error
    /// here rather than a logged one at the first dispatch.
    fn checked(device: &wgpu::Device, o: &SimOptions) -> Result<Self, SimError> {
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let kernels = Self::new(device, o);
        match pollster::block_on(scope.pop()) {
            Some(e) => Err(SimError::Pipeline(e.to_string())),
            None => Ok(kernels),
        }
    }

    fn new(device: &wgpu::Device, o: &SimOptions) -> Self {
        let cfg = shader::KernelConfig { wg_size: o.workgroup_size, checks: o.shader_checks };
        let rows = o.order == CellOrder::Linear;
        Self {
            count: count::new(device, cfg, o.diagnostics),
            scan: scan::ScanPass::new(device, o.shader_checks),
            scatter: scatter::new(device, cfg),
            reorder: reorder::new(device, cfg),
            density: density::new(device, cfg, rows),
            wall_pressure: wall_pressure::new(device, cfg, rows),
            force: force::new(device, cfg, rows),
            integrate: integrate::new(device, cfg),
        }
    }
}

/// Bind groups for one grid allocation, indexed by the current particle set.
struct Binds {
    count: [wgpu::BindGroup; 2],
    scatter: wgpu::BindGroup,
    /// [A→B, B→A]
    reorder: [wgpu::BindGroup; 2],
    density: [wgpu::BindGroup; 2],
    wall_pressure: [wgpu::BindGroup; 2],
    force: [wgpu::BindGroup; 2],
    integrate: [wgpu::BindGroup; 2],
}

/// Buffers allocated once per simulation (their size depends on the particle count only).
struct Fixed {
    params: wgpu::Buffer,
    sets: [ParticleSet; 2],
    /// Acceleration from sph.force to sph.integrate (transient: not reordered).
    acc: wgpu::Buffer,
    /// [`Diagnostics`] words.
    diag: wgpu::Buffer,
    cell_of: wgpu::Buffer,
    rank: wgpu::Buffer,
    sorted: wgpu::Buffer,
}

impl Binds {
    fn new(d: &wgpu::Device, k: &Kernels, cells: &CellBuffers, f: &Fixed) -> Self {
        let p = &f.params;
        let both = |make: &dyn Fn(&ParticleSet) -> wgpu::BindGroup| [make(&f.sets[0]), make(&f.sets[1])];
        Binds {
            count: both(&|s| k.count.bind(d, &[p, &cells.lut, &s.pos_mass, &cells.counts, &f.cell_of, &f.rank, &f.diag])),
            scatter: k.scatter.bind(d, &[p, &cells.cell_start, &f.sorted, &f.cell_of, &f.rank]),
            reorder: [0, 1].map(|i| {
                let (src, dst) = (&f.sets[i], &f.sets[1 - i]);
                k.reorder.bind(d, &[p, &f.sorted, &src.pos_mass, &src.vel_rho, &src.id, &dst.pos_mass, &dst.vel_rho, &dst.id])
            }),
            density: both(&|s| k.density.bind(d, &[p, &cells.lut, &cells.cell_start, &f.sorted, &s.pos_mass, &s.vel_rho])),
            wall_pressure: both(&|s| k.wall_pressure.bind(d, &[p, &cells.lut, &cells.cell_start, &f.sorted, &s.pos_mass, &s.vel_rho])),
            force: both(&|s| k.force.bind(d, &[p, &cells.lut, &cells.cell_start, &f.sorted, &s.pos_mass, &s.vel_rho, &f.acc])),
            integrate: both(&|s| k.integrate.bind(d, &[p, &s.pos_mass, &s.vel_rho, &f.acc, &f.diag])),
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
    kernels: Kernels,
    binds: Binds,
    grid_lo: glam::Vec3,
    grid_hi: glam::Vec3,
    max_cells: u64,
    max_dim: u32,
    steps: u64,
    /// Did the last recorded step reorder? (then `sorted` no longer indexes the current set)
    last_reordered: bool,
    profiler: Option<Profiler>,
}

/// Particle state read back to the CPU, in slot order.
#[derive(Clone, Debug)]
pub struct Particles {
    pub pos_mass: Vec<[f32; 4]>,
    pub vel_rho: Vec<[f32; 4]>,
    pub id: Vec<u32>,
}

impl Particles {
    /// Positions, velocities and densities indexed by particle id.
    pub fn by_id(&self) -> Particles {
        let n = self.id.len();
        let mut out = Particles { pos_mass: vec![[0.0; 4]; n], vel_rho: vec![[0.0; 4]; n], id: (0..n as u32).collect() };
        for (slot, &id) in self.id.iter().enumerate() {
            out.pos_mass[id as usize] = self.pos_mass[slot];
            out.vel_rho[id as usize] = self.vel_rho[slot];
        }
        out
    }
}

/// Grid arrays read back to the CPU.
#[derive(Clone, Debug)]
pub struct GridSnapshot {
    pub counts: Vec<u32>,
    pub cell_start: Vec<u32>,
    pub cell_of: Vec<u32>,
    pub rank: Vec<u32>,
    pub sorted: Vec<u32>,
}

impl Sim {
    pub fn new(gpu: &Gpu, state: &InitialState, options: SimOptions) -> Result<Self, SimError> {
        let device = &gpu.device;
        let n = state.n_particles();
        let max_binding = gpu.max_binding_bytes();
        let vec4_bytes = n as u64 * 16;
        if vec4_bytes > max_binding {
            return Err(SimError::TooManyParticles {
                what: "particle state (16 bytes per particle and vector)",
                bytes: vec4_bytes,
                limit: max_binding,
                limit_name: "max_storage_buffer_binding_size",
                max_particles: max_binding / 16,
            });
        }
        let max_wg = gpu.limits.max_compute_invocations_per_workgroup.min(gpu.limits.max_compute_workgroup_size_x);
        if !matches!(options.workgroup_size, 32 | 64 | 128 | 256) || options.workgroup_size > max_wg {
            return Err(SimError::WorkgroupSize(options.workgroup_size, max_wg));
        }
        let max_cells = max_binding / 4 - 1;
        let layout = GridLayout::new(state.grid_lo, state.grid_hi, options.cell_size * state.params.h, options.order, max_cells)?;

        let ids: Vec<u32> = (0..n).collect();
        let sets = [
            ParticleSet::new(device, "particles.a", &state.pos_mass, &state.vel_rho, &ids),
            ParticleSet::new(device, "particles.b", &state.pos_mass, &state.vel_rho, &ids),
        ];
        let mut params = state.params;
        params.capacity = options.capacity;
        apply_layout(&mut params, &layout, state.params.h);
        let params_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("sim.params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let per_particle = |label| shader::storage(device, label, n as u64 * 4);
        let kernels = Kernels::checked(device, &options)?;
        let cells = CellBuffers::new(device, &kernels.scan, layout);
        let fixed = Fixed {
            params: params_buf,
            sets,
            acc: shader::storage(device, "sim.acc", n as u64 * 16),
            diag: shader::storage(device, "sim.diag", std::mem::size_of::<Diagnostics>() as u64),
            cell_of: per_particle("grid.cell_of"),
            rank: per_particle("grid.rank"),
            sorted: per_particle("grid.sorted"),
        };
        let binds = Binds::new(device, &kernels, &cells, &fixed);
        Ok(Self {
            device: device.clone(),
            queue: gpu.queue.clone(),
            params,
            fixed,
            binds,
            cells,
            kernels,
            cur: 0,
            grid_lo: state.grid_lo,
            grid_hi: state.grid_hi,
            max_cells,
            max_dim: gpu.limits.max_compute_workgroups_per_dimension,
            steps: 0,
            last_reordered: false,
            profiler: None,
            options,
        })
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
    pub fn steps(&self) -> u64 {
        self.steps
    }
    pub fn n_particles(&self) -> u32 {
        self.params.n_particles
    }
    pub fn n_fluid(&self) -> u32 {
        self.params.n_fluid
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
    pub fn reorders_next(&self) -> bool {
        let n = self.options.reorder_interval;
        n > 0 && self.steps.is_multiple_of(n as u64)
    }

    /// Changes options between steps. A new cell size or order reallocates the per-cell buffers;
    /// particle state is kept.
    pub fn set_options(&mut self, options: SimOptions) -> Result<(), SimError> {
        if options == self.options {
            return Ok(());
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
        if pipelines_changed {
            self.kernels = Kernels::checked(&self.device, &options)?;
        }
        if let Some(layout) = layout {
            let h = self.params.h;
            apply_layout(&mut self.params, &layout, h);
            self.cells = CellBuffers::new(&self.device, &self.kernels.scan, layout);
        }
        self.params.capacity = options.capacity;
        self.queue.write_buffer(&self.fixed.params, 0, bytemuck::bytes_of(&self.params));
        self.options = options;
        self.binds = Binds::new(&self.device, &self.kernels, &self.cells, &self.fixed);
        Ok(())
    }

    /// Turns per-pass GPU timestamps on, with room for `steps` steps between reads.
    pub fn enable_profiling(&mut self, steps: u32) {
        self.profiler = Some(Profiler::new(&self.device, &self.queue, steps * profiler::PASSES.len() as u32));
    }

    /// Resolves the timestamps recorded so far into `encoder` (before it is submitted).
    pub fn resolve_profile(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(p) = &self.profiler {
            p.resolve(encoder);
        }
    }

    /// Reads the resolved timestamps back (blocking: bench and tools only).
    pub fn read_profile(&mut self) -> Option<Profile> {
        let (device, queue) = (self.device.clone(), self.queue.clone());
        self.profiler.as_mut().map(|p| p.read(&device, &queue))
    }

    /// Records one step into `encoder`: grid build, reorder (on its steps), density, force,
    /// integrate. Waits on nothing.
    pub fn record_step(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let n = self.params.n_particles;
        let md = self.max_dim;
        let step = self.steps;
        let reorder = self.reorders_next();
        encoder.push_debug_group("sim.step");

        let c = self.record_grid(encoder, step, reorder);
        let Self { kernels: k, binds: b, profiler: prof, .. } = self;
        let variant = if reorder { DIRECT } else { THROUGH_SORTED };
        k.density.record(&mut begin(encoder, prof, "sph.density", step), &b.density[c], n, variant, md);
        k.wall_pressure.record(&mut begin(encoder, prof, "sph.wall_pressure", step), &b.wall_pressure[c], n, variant, md);
        k.force.record(&mut begin(encoder, prof, "sph.force", step), &b.force[c], n, variant, md);
        k.integrate.record(&mut begin(encoder, prof, "sph.integrate", step), &b.integrate[c], n, 0, md);
        encoder.pop_debug_group();

        self.cur = c;
        self.last_reordered = reorder;
        self.steps += 1;
    }

    pub fn record_steps(&mut self, encoder: &mut wgpu::CommandEncoder, steps: u32) {
        for _ in 0..steps {
            self.record_step(encoder);
        }
    }

    /// Copies the diagnostics words into `dst` at `offset` (for an asynchronous readback).
    pub fn record_diagnostics_copy(&self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) {
        encoder.copy_buffer_to_buffer(&self.fixed.diag, 0, dst, offset, std::mem::size_of::<Diagnostics>() as u64);
    }

    /// Records and submits `steps` steps.
    pub fn run(&mut self, steps: u32) {
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sim.run") });
        self.record_steps(&mut enc, steps);
        self.queue.submit([enc.finish()]);
    }

    // ----- blocking readback: tests, tools, benchmark -----

    pub fn read_particles(&self) -> Particles {
        let n = self.params.n_particles as usize;
        let set = &self.fixed.sets[self.cur];
        Particles {
            pos_mass: read_vec(&self.device, &self.queue, &set.pos_mass, n),
            vel_rho: read_vec(&self.device, &self.queue, &set.vel_rho, n),
            id: read_vec(&self.device, &self.queue, &set.id, n),
        }
    }

    /// Grid arrays of the last step's grid build. `cell_of`, `rank` and `sorted` refer to the
    /// slots of the set the build read (before that step's reorder, if it had one).
    pub fn read_grid(&self) -> GridSnapshot {
        let (d, q) = (&self.device, &self.queue);
        let n = self.params.n_particles as usize;
        let cells = self.cells.layout.num_cells as usize;
        GridSnapshot {
            counts: read_vec(d, q, &self.cells.counts, cells),
            cell_start: read_vec(d, q, &self.cells.cell_start, cells + 1),
            cell_of: read_vec(d, q, &self.fixed.cell_of, n),
            rank: read_vec(d, q, &self.fixed.rank, n),
            sorted: read_vec(d, q, &self.fixed.sorted, n),
        }
    }

    pub fn read_diagnostics(&self) -> Diagnostics {
        read_vec::<Diagnostics>(&self.device, &self.queue, &self.fixed.diag, 1)[0]
    }

    /// Whether the last step reordered (then `read_grid().sorted` indexes the other set).
    pub fn last_step_reordered(&self) -> bool {
        self.last_reordered
    }

    /// Runs the neighbour probe (same loop as density/force) on the current grid and state and
    /// returns, per particle id, [count, Σid, Σid², xor of hashed ids] of its neighbours within h.
    /// Test instrument; requires the grid of the current positions: after `build_grid(false)`
    /// read through `sorted`, after `build_grid(true)` read directly.
    pub fn probe_neighbours(&self) -> Vec<[u32; 4]> {
        let through_sorted = !self.last_reordered;
        let d = &self.device;
        let n = self.params.n_particles;
        let cfg = shader::KernelConfig { wg_size: self.options.workgroup_size, checks: self.options.shader_checks };
        let kernel = probe::new(d, cfg, self.options.order == CellOrder::Linear);
        let out = shader::storage(d, "test.probe", n as u64 * 16);
        let set = &self.fixed.sets[self.cur];
        let bg = kernel
            .bind(d, &[&self.fixed.params, &self.cells.lut, &self.cells.cell_start, &self.fixed.sorted, &set.pos_mass, &set.id, &out]);
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("test.probe") });
        {
            let mut pass =
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("test.neighbour_probe"), timestamp_writes: None });
            kernel.record(&mut pass, &bg, n, if through_sorted { THROUGH_SORTED } else { DIRECT }, self.max_dim);
        }
        self.queue.submit([enc.finish()]);
        read_vec(d, &self.queue, &out, n as usize)
    }

    /// Runs the all-pairs density baseline (no grid) `repeats` times on the current state and
    /// returns the densities by slot and the mean GPU milliseconds per run (None without
    /// timestamp queries). Blocking: benchmark and tests only.
    pub fn all_pairs_density(&self, repeats: u32) -> (Vec<f32>, Option<f64>) {
        let d = &self.device;
        let n = self.params.n_particles;
        let cfg = shader::KernelConfig { wg_size: self.options.workgroup_size, checks: self.options.shader_checks };
        let kernel = all_pairs::new(d, cfg);
        let out = shader::storage(d, "baseline.density", n as u64 * 4);
        let set = &self.fixed.sets[self.cur];
        let bg = kernel.bind(d, &[&self.fixed.params, &set.pos_mass, &out]);
        let timed = self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut prof = timed.then(|| Profiler::new(d, &self.queue, repeats.max(1)));
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("baseline.all_pairs") });
        for r in 0..repeats.max(1) {
            let mut pass = begin(&mut enc, &mut prof, "baseline.all_pairs", r as u64);
            kernel.record(&mut pass, &bg, n, 0, self.max_dim);
        }
        if let Some(p) = &prof {
            p.resolve(&mut enc);
        }
        self.queue.submit([enc.finish()]);
        let density = read_vec(d, &self.queue, &out, n as usize);
        let ms = prof.as_mut().and_then(|p| p.read(d, &self.queue).per_step_ms("baseline.all_pairs"));
        (density, ms)
    }

    /// Records and submits only the start of a step: the grid build on the current set and, with
    /// `reorder`, the gather into the other set. Leaves the state in place otherwise (tests and
    /// tools; the step counter does not advance).
    pub fn build_grid(&mut self, reorder: bool) {
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sim.grid") });
        self.cur = self.record_grid(&mut enc, self.steps, reorder);
        self.queue.submit([enc.finish()]);
        self.last_reordered = reorder;
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
        let Self { kernels: k, binds: b, cells, profiler: prof, .. } = self;
        let c = self.cur;
        k.count.record(&mut begin(encoder, prof, "grid.count", step), &b.count[c], n, 0, md);
        k.scan.record(&mut begin(encoder, prof, "grid.scan", step), &cells.scan, md);
        k.scatter.record(&mut begin(encoder, prof, "grid.scatter", step), &b.scatter, n, 0, md);
        if reorder {
            k.reorder.record(&mut begin(encoder, prof, "reorder", step), &b.reorder[c], n, 0, md);
            return 1 - c;
        }
        c
    }

    /// Accelerations of the last sph.force, by slot of the current set.
    pub fn read_acc(&self) -> Vec<[f32; 4]> {
        read_vec(&self.device, &self.queue, &self.fixed.acc, self.params.n_particles as usize)
    }
}

/// Grid fields of the uniform block for a layout.
fn apply_layout(params: &mut SimParams, layout: &GridLayout, h: f32) {
    params.grid_origin = layout.origin.into();
    params.inv_cell_size = layout.inv_cell_size;
    params.grid_dims = layout.dims.into();
    params.num_cells = layout.num_cells;
    params.search_range = layout.search_range(h);
}
