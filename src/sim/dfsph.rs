//! The DFSPH passes (docs/PHYSICS.md, "DFSPH"): dfsph.factor (density and the solver's factor),
//! the two solves — dfsph.divergence and dfsph.pressure, each a compute pass of iterations of
//! source, control and update dispatches, driven by `dfsph.control` on the GPU through indirect
//! dispatches — and dfsph.predict (v* = v + dt a before the pressure solve).

use super::shader::{self, KernelConfig, KernelError, Pass, Single, Variant, Walk};

/// Which of the two solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Solve {
    /// The divergence solve (κ dt: the velocity's divergence to zero).
    Divergence,
    /// The pressure solve (κ dt²: the density to ρ0).
    Pressure,
}

impl Solve {
    fn density(self) -> f64 {
        shader::flag(self == Solve::Pressure)
    }
}

impl Variant for Solve {
    const ALL: &'static [Self] = &[Solve::Divergence, Solve::Pressure];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("DENSITY", self.density())]
    }
}

/// dfsph.source's variants: its neighbour walk, and whether it is the warm start (a source that
/// takes half the last step's total κ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Source {
    pub walk: Walk,
    pub warm: bool,
}

impl Variant for Source {
    const ALL: &'static [Self] = &[
        Source { walk: Walk::Direct, warm: false },
        Source { walk: Walk::ThroughSorted, warm: false },
        Source { walk: Walk::Direct, warm: true },
        Source { walk: Walk::ThroughSorted, warm: true },
    ];
    fn constants(self) -> Vec<(&'static str, f64)> {
        [self.walk.constants(), vec![("WARM", shader::flag(self.warm))]].concat()
    }
}

/// dfsph.control's variants: arm a solve (`begin`), or the convergence test after a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Control {
    pub begin: bool,
    pub solve: Solve,
}

impl Variant for Control {
    const ALL: &'static [Self] = &[
        Control { begin: true, solve: Solve::Divergence },
        Control { begin: false, solve: Solve::Divergence },
        Control { begin: true, solve: Solve::Pressure },
        Control { begin: false, solve: Solve::Pressure },
    ];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("BEGIN", shader::flag(self.begin)), ("DENSITY", self.solve.density())]
    }
}

crate::passes! {
    /// The DFSPH passes (built only for a DFSPH simulation). Each solve binds its own warm
    /// start as the shaders' `warm`.
    pub(crate) struct DfsphPasses {
        factor: Pass<Walk>,
        /// dfsph.source with DENSITY false.
        divergence: Pass<Source>,
        /// dfsph.source with DENSITY true.
        pressure: Pass<Source>,
        update: Pass<Walk>,
        control: Pass<Control>,
        predict: Pass<Single>,
        /// dfsph.store of each solve.
        store_divergence: Pass<Solve>,
        store_pressure: Pass<Solve>,
    }
}

impl DfsphPasses {
    pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, lists: super::ListLayout) -> Result<Self, KernelError> {
        let [on, split] = lists.constants();
        let walk = [("ROWS", shader::flag(rows)), on, split];
        let source =
            |src: &shader::ShaderSource, solve: Solve| Pass::new(device, src, cfg, &[&walk[..], &[("DENSITY", solve.density())]].concat());
        let store = Pass::new(device, &shader::DFSPH_STORE, cfg, &[])?;
        Ok(Self {
            factor: Pass::new(device, &shader::DFSPH_FACTOR, cfg, &walk)?,
            divergence: source(&shader::DFSPH_DIVERGENCE, Solve::Divergence)?.alias("warm", "warm_divergence"),
            pressure: source(&shader::DFSPH_PRESSURE, Solve::Pressure)?.alias("warm", "warm_pressure"),
            update: Pass::new(device, &shader::DFSPH_UPDATE, cfg, &walk)?,
            control: Pass::new(device, &shader::DFSPH_CONTROL, cfg, &[])?,
            predict: Pass::new(device, &shader::PREDICT, cfg, &[])?,
            store_divergence: store.clone().alias("warm", "warm_divergence"),
            store_pressure: store.alias("warm", "warm_pressure"),
        })
    }

    /// Records one solve as one compute pass on the current set `set`: arm; the warm start (a
    /// source that takes half the last step's total κ, and an update with it);
    /// `max_iterations` × (source, control, update), then a last source and control (which
    /// measures the error the last update left) — these run from the indirect dispatch `args`
    /// that control empties once the solve is done; then the total κ is stored for the next
    /// step.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record_solve(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        set: usize,
        solve: Solve,
        n: u32,
        walk: Walk,
        max_iterations: u32,
        max_dim: u32,
        args: &wgpu::Buffer,
    ) {
        let (source, store) = match solve {
            Solve::Divergence => (&self.divergence, &self.store_divergence),
            Solve::Pressure => (&self.pressure, &self.store_pressure),
        };
        let (cold, warm) = (Source { walk, warm: false }, Source { walk, warm: true });
        self.control.record(pass, set, 1, Control { begin: true, solve }, 1);
        source.record(pass, set, n, warm, max_dim);
        self.update.record(pass, set, n, walk, max_dim);
        for it in 0..=max_iterations {
            source.record_indirect(pass, set, cold, args);
            self.control.record(pass, set, 1, Control { begin: false, solve }, 1);
            if it < max_iterations {
                self.update.record_indirect(pass, set, walk, args);
            }
        }
        store.record(pass, set, n, solve, max_dim);
    }
}

/// The solver's per-particle arrays and its control words.
pub(crate) struct DfsphBuffers {
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
    pub(crate) fn new(device: &wgpu::Device, n: u64) -> Self {
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
    pub(crate) fn write_full_dispatch(&self, queue: &wgpu::Queue, n: u32, wg_size: u32, max_dim: u32) {
        let (x, y) = shader::grid_2d(n.div_ceil(wg_size), max_dim);
        queue.write_buffer(&self.args, 16, bytemuck::cast_slice(&[x, y, 1u32, 0u32]));
    }
}
