//! The DFSPH passes (docs/PHYSICS.md, "DFSPH"): dfsph.factor (density and the solver's factor),
//! the two solves — dfsph.divergence and dfsph.pressure, each a compute pass of iterations of
//! source, control and update dispatches, driven by `dfsph.control` on the GPU through indirect
//! dispatches — and dfsph.predict (v* = v + dt a before the pressure solve).

use super::shader::{self, Kernel, KernelConfig, KernelError};

/// The DFSPH pipelines for one set of options (built only for a DFSPH simulation).
pub struct DfsphKernels {
    pub factor: Kernel,
    /// dfsph.source with DENSITY false (variants: direct, through `sorted`; plus [`WARM`]: the
    /// warm start).
    pub divergence: Kernel,
    /// dfsph.source with DENSITY true.
    pub pressure: Kernel,
    pub update: Kernel,
    /// Variants: [`BEGIN`] / check, times divergence / pressure ([`control_variant`]).
    pub control: Kernel,
    pub predict: Kernel,
    /// Variants: divergence (0), pressure (1).
    pub store: Kernel,
}

/// Added to a source variant: the warm start.
pub const WARM: usize = 2;

/// Control variant: arm a solve.
pub const BEGIN: usize = 0;
/// Control variant: the convergence test after a source.
pub const CHECK: usize = 1;

/// The control pipeline for `phase` ([`BEGIN`] or [`CHECK`]) of the pressure (`density`) or the
/// divergence solve.
pub fn control_variant(phase: usize, density: bool) -> usize {
    phase + if density { 2 } else { 0 }
}

impl DfsphKernels {
    pub fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, lists: bool) -> Result<Self, KernelError> {
        let r = if rows { 1.0 } else { 0.0 };
        let l = super::list_constants(lists)[0];
        let source = |src: &shader::ShaderSource, density: f64| {
            Kernel::new(
                device,
                src,
                cfg,
                &[
                    &[("USE_SORTED", 0.0), ("ROWS", r), ("DENSITY", density), ("WARM", 0.0), l],
                    &[("USE_SORTED", 1.0), ("ROWS", r), ("DENSITY", density), ("WARM", 0.0), l],
                    &[("USE_SORTED", 0.0), ("ROWS", r), ("DENSITY", density), ("WARM", 1.0), l],
                    &[("USE_SORTED", 1.0), ("ROWS", r), ("DENSITY", density), ("WARM", 1.0), l],
                ],
            )
        };
        Ok(Self {
            factor: shader::neighbour_kernel_with(device, &shader::DFSPH_FACTOR, cfg, rows, &[l])?,
            divergence: source(&shader::DFSPH_DIVERGENCE, 0.0)?,
            pressure: source(&shader::DFSPH_PRESSURE, 1.0)?,
            update: shader::neighbour_kernel_with(device, &shader::DFSPH_UPDATE, cfg, rows, &[l])?,
            control: Kernel::new(
                device,
                &shader::DFSPH_CONTROL,
                cfg,
                &[
                    &[("BEGIN", 1.0), ("DENSITY", 0.0)],
                    &[("BEGIN", 0.0), ("DENSITY", 0.0)],
                    &[("BEGIN", 1.0), ("DENSITY", 1.0)],
                    &[("BEGIN", 0.0), ("DENSITY", 1.0)],
                ],
            )?,
            predict: Kernel::new(device, &shader::PREDICT, cfg, &[&[]])?,
            store: Kernel::new(device, &shader::DFSPH_STORE, cfg, &[&[("DENSITY", 0.0)], &[("DENSITY", 1.0)]])?,
        })
    }
}

/// The solver's per-particle arrays and its control words.
pub struct DfsphBuffers {
    /// 1 / D_i (dfsph.factor).
    pub factor: wgpu::Buffer,
    /// κ_i of the current iteration (dfsph.source).
    pub kappa: wgpu::Buffer,
    /// Error sum, count, iterations, stopped (`solve_state`).
    pub state: wgpu::Buffer,
    /// The live indirect dispatch (words 0–2) and the full one (words 4–6).
    pub args: wgpu::Buffer,
    /// The total κ of the current solve, by slot.
    pub kappa_total: wgpu::Buffer,
    /// Each solve's total κ at the end of the last step, by particle id (κ dt for the
    /// divergence solve, κ dt² for the pressure solve): the warm start.
    pub warm_divergence: wgpu::Buffer,
    pub warm_pressure: wgpu::Buffer,
}

impl DfsphBuffers {
    pub fn new(device: &wgpu::Device, n: u64) -> Self {
        Self {
            factor: shader::storage(device, "dfsph.factor", n * 4),
            kappa: shader::storage(device, "dfsph.kappa", n * 4),
            state: shader::storage(device, "dfsph.solve_state", 32),
            args: shader::storage_with(device, "dfsph.solve_args", 32, wgpu::BufferUsages::INDIRECT),
            kappa_total: shader::storage(device, "dfsph.kappa_total", n * 4),
            warm_divergence: shader::storage(device, "dfsph.warm_divergence", n * 4),
            warm_pressure: shader::storage(device, "dfsph.warm_pressure", n * 4),
        }
    }

    /// Writes the full dispatch of `n` invocations in workgroups of `wg_size` (split into 2D
    /// beyond `max_dim`) where dfsph.control's BEGIN reads it.
    pub fn write_full_dispatch(&self, queue: &wgpu::Queue, n: u32, wg_size: u32, max_dim: u32) {
        let (x, y) = shader::grid_2d(n.div_ceil(wg_size), max_dim);
        queue.write_buffer(&self.args, 16, bytemuck::cast_slice(&[x, y, 1u32, 0u32]));
    }
}

/// Bind groups of the DFSPH passes, by the current particle set.
pub struct DfsphBinds {
    pub factor: [wgpu::BindGroup; 2],
    pub divergence: [wgpu::BindGroup; 2],
    pub pressure: [wgpu::BindGroup; 2],
    pub update: [wgpu::BindGroup; 2],
    pub control: wgpu::BindGroup,
    pub predict: [wgpu::BindGroup; 2],
    /// [divergence, pressure] by set.
    pub store: [[wgpu::BindGroup; 2]; 2],
}

/// What one solve records with.
pub struct Solve<'a> {
    pub source: &'a Kernel,
    pub source_bind: &'a wgpu::BindGroup,
    pub update_bind: &'a wgpu::BindGroup,
    pub control_bind: &'a wgpu::BindGroup,
    pub store_bind: &'a wgpu::BindGroup,
    pub args: &'a wgpu::Buffer,
    /// The pressure solve (else the divergence solve).
    pub density: bool,
}

/// Records one solve as one compute pass: arm; the warm start (a source that takes half the last
/// step's total κ, and an update with it); `max_iterations` × (source, control, update), then a
/// last source and control (which measures the error the last update left) — these run from the
/// indirect dispatch that control empties once the solve is done; then the total κ is stored
/// for the next step.
pub fn record_solve(pass: &mut wgpu::ComputePass<'_>, k: &DfsphKernels, s: &Solve<'_>, n: u32, variant: usize, max_iterations: u32, max_dim: u32) {
    k.control.record(pass, s.control_bind, 1, control_variant(BEGIN, s.density), 1);
    s.source.record(pass, s.source_bind, n, variant + WARM, max_dim);
    k.update.record(pass, s.update_bind, n, variant, max_dim);
    for it in 0..=max_iterations {
        s.source.record_indirect(pass, s.source_bind, variant, s.args);
        k.control.record(pass, s.control_bind, 1, control_variant(CHECK, s.density), 1);
        if it < max_iterations {
            k.update.record_indirect(pass, s.update_bind, variant, s.args);
        }
    }
    k.store.record(pass, s.store_bind, n, s.density as usize, max_dim);
}
