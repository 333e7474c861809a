//! The passes' shaders and the small helpers every pass uses: pipelines whose bind-group layout
//! is read from the shader itself ([`crate::wgsl::bindings`]), bind groups that name their
//! buffers by WGSL variable name, and 1D dispatches split into 2D.

use crate::wgsl::{self, Access, Binding};
use wgpu::util::DeviceExt;

/// The WGSL of one pass: its label (namespaced, also the timestamp and debug name) and its file
/// in `shaders/`, which states its own imports.
#[derive(Clone, Copy, Debug)]
pub struct ShaderSource {
    /// e.g. "sph.density" ↔ `shaders/density.wgsl` ↔ `src/sim/density.rs`.
    pub label: &'static str,
    /// File stem in `shaders/`.
    pub file: &'static str,
}

impl ShaderSource {
    /// The file with everything it imports.
    pub fn compose(&self) -> Result<String, wgsl::ComposeError> {
        wgsl::compose(self.file)
    }
}

pub(crate) const SOLIDS_MOVE: ShaderSource = ShaderSource { label: "solids.move", file: "solids_move" };
pub(crate) const BODIES_FORCE: ShaderSource = ShaderSource { label: "bodies.force", file: "bodies_force" };
pub(crate) const BODIES_INTEGRATE: ShaderSource = ShaderSource { label: "bodies.integrate", file: "bodies_integrate" };
pub const KEEP: ShaderSource = ShaderSource { label: "grid.keep", file: "keep" };
pub const COUNT: ShaderSource = ShaderSource { label: "grid.count", file: "count" };
pub const SCAN: ShaderSource = ShaderSource { label: "grid.scan", file: "scan" };
pub(crate) const SCATTER: ShaderSource = ShaderSource { label: "grid.scatter", file: "scatter" };
pub(crate) const SORT_CELLS: ShaderSource = ShaderSource { label: "grid.sort_cells", file: "sort_cells" };
pub(crate) const RANK_FREE: ShaderSource = ShaderSource { label: "grid.rank_free", file: "rank_free" };
pub(crate) const REORDER: ShaderSource = ShaderSource { label: "reorder", file: "reorder" };
pub const DENSITY: ShaderSource = ShaderSource { label: "sph.density", file: "density" };
pub(crate) const WALL_PRESSURE: ShaderSource = ShaderSource { label: "sph.wall_pressure", file: "wall_pressure" };
pub(crate) const FORCE: ShaderSource = ShaderSource { label: "sph.force", file: "force" };
pub const INTEGRATE: ShaderSource = ShaderSource { label: "sph.integrate", file: "integrate" };
pub const EMIT_PLAN: ShaderSource = ShaderSource { label: "emit.plan", file: "emit_plan" };
pub const EMIT: ShaderSource = ShaderSource { label: "emit.write", file: "emit" };
pub(crate) const DFSPH_FACTOR: ShaderSource = ShaderSource { label: "dfsph.factor", file: "dfsph_factor" };
pub(crate) const DFSPH_DIVERGENCE: ShaderSource = ShaderSource { label: "dfsph.divergence", file: "dfsph_source" };
pub(crate) const DFSPH_PRESSURE: ShaderSource = ShaderSource { label: "dfsph.pressure", file: "dfsph_source" };
pub(crate) const DFSPH_STORE: ShaderSource = ShaderSource { label: "dfsph.store", file: "dfsph_store" };
pub(crate) const DFSPH_UPDATE: ShaderSource = ShaderSource { label: "dfsph.update", file: "dfsph_update" };
pub const DFSPH_CONTROL: ShaderSource = ShaderSource { label: "dfsph.control", file: "dfsph_control" };
pub(crate) const PREDICT: ShaderSource = ShaderSource { label: "dfsph.predict", file: "predict" };
pub const TIME_STEP: ShaderSource = ShaderSource { label: "sim.time_step", file: "time_step" };
pub(crate) const SENSORS: ShaderSource = ShaderSource { label: "sim.sensors", file: "sensors" };
pub(crate) const SOLID_FORCE: ShaderSource = ShaderSource { label: "sim.solid_force", file: "solid_force" };
pub(crate) const FLOW: ShaderSource = ShaderSource { label: "sim.flow", file: "flow" };
pub(crate) const PROBES: ShaderSource = ShaderSource { label: "probe.row", file: "probes" };
pub(crate) const NEIGHBOUR_PROBE: ShaderSource = ShaderSource { label: "test.neighbour_probe", file: "neighbour_probe" };
pub(crate) const ALL_PAIRS: ShaderSource = ShaderSource { label: "baseline.all_pairs", file: "all_pairs" };
pub(crate) const COPY: ShaderSource = ShaderSource { label: "baseline.copy", file: "copy" };

/// The passes of a step, in the order a step records them: their labels name the timestamps,
/// the panel's rows and the benchmark's columns.
/// A WCSPH step records density, wall pressure, force; a DFSPH step factor, the divergence
/// solve, force (viscosity and gravity), predict and the pressure solve.
pub(crate) const STEP: [ShaderSource; 24] = [
    SOLIDS_MOVE,
    KEEP,
    COUNT,
    SCAN,
    SCATTER,
    SORT_CELLS,
    RANK_FREE,
    REORDER,
    SENSORS,
    SOLID_FORCE,
    FLOW,
    DENSITY,
    DFSPH_FACTOR,
    DFSPH_DIVERGENCE,
    WALL_PRESSURE,
    FORCE,
    TIME_STEP,
    BODIES_FORCE,
    BODIES_INTEGRATE,
    PREDICT,
    DFSPH_PRESSURE,
    INTEGRATE,
    EMIT_PLAN,
    EMIT,
];

/// Every compute shader, for the validation test.
pub const ALL: [ShaderSource; 31] = [
    KEEP,
    SENSORS,
    SOLID_FORCE,
    FLOW,
    PROBES,
    SOLIDS_MOVE,
    BODIES_FORCE,
    BODIES_INTEGRATE,
    DFSPH_STORE,
    DFSPH_FACTOR,
    DFSPH_DIVERGENCE,
    DFSPH_PRESSURE,
    DFSPH_UPDATE,
    DFSPH_CONTROL,
    PREDICT,
    TIME_STEP,
    COUNT,
    SCAN,
    SCATTER,
    SORT_CELLS,
    RANK_FREE,
    REORDER,
    DENSITY,
    WALL_PRESSURE,
    FORCE,
    INTEGRATE,
    EMIT_PLAN,
    EMIT,
    NEIGHBOUR_PROBE,
    ALL_PAIRS,
    COPY,
];

/// Why a pass could not be built or bound.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    Compose(#[from] wgsl::ComposeError),
    #[error(transparent)]
    Reflect(#[from] wgsl::ReflectError),
    #[error("{label}: no binding named `{name}` (the shader binds {known})")]
    UnknownName { label: String, name: String, known: String },
    #[error("{label}: binding `{name}` is given no buffer")]
    MissingName { label: String, name: String },
    #[error("{label}: binding `{name}` is given twice")]
    DuplicateName { label: String, name: String },
}

/// Compiles a pass's shader. With `checks` off, the module is created without wgpu's runtime
/// bounds checks (each array access clamped or guarded otherwise), which costs the neighbour
/// loops about a tenth of their time.
pub(crate) fn module(device: &wgpu::Device, label: &str, text: &str, checks: bool) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor { label: Some(label), source: wgpu::ShaderSource::Wgsl(text.into()) };
    if checks {
        device.create_shader_module(desc)
    } else {
        // SAFETY: every index in these shaders stays in range by construction: particle indices
        // are guarded by `n_particles`, cell coordinates are clamped inside `cell_index` (the
        // only place that forms a cell index) and neighbour loops are clipped to the grid,
        // `cell_start` values are prefix sums of counts that add up to `n_particles`, `sorted`
        // holds a permutation of `0..n_particles` written by grid.scatter, and scan blocks are
        // guarded by their lengths. The GPU-vs-CPU tests (tests/gpu_*.rs) run with checks off and
        // compare every grid array and result with the CPU twin; `SimOptions::shader_checks`
        // turns them back on.
        #[allow(unsafe_code)]
        unsafe {
            device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
        }
    }
}

/// The bind-group layout of reflected bindings (compute stage).
pub(crate) fn layout(device: &wgpu::Device, label: &str, bindings: &[Binding]) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = bindings
        .iter()
        .map(|b| wgpu::BindGroupLayoutEntry {
            binding: b.binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match b.access {
                    Access::Uniform => wgpu::BufferBindingType::Uniform,
                    Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

/// Matches buffers named by WGSL variable name to the reflected bindings: every binding gets
/// exactly one buffer, and a name the shader does not bind is an error. Returns the binding
/// number of each buffer, in the order given.
pub(crate) fn match_names(label: &str, bindings: &[Binding], names: &[&str]) -> Result<Vec<u32>, KernelError> {
    let mut numbers = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(KernelError::DuplicateName { label: label.to_owned(), name: (*name).to_owned() });
        }
        let b = bindings.iter().find(|b| b.name == *name).ok_or_else(|| KernelError::UnknownName {
            label: label.to_owned(),
            name: (*name).to_owned(),
            known: bindings.iter().map(|b| format!("`{}`", b.name)).collect::<Vec<_>>().join(", "),
        })?;
        numbers.push(b.binding);
    }
    if let Some(b) = bindings.iter().find(|b| !names.contains(&b.name.as_str())) {
        return Err(KernelError::MissingName { label: label.to_owned(), name: b.name.clone() });
    }
    Ok(numbers)
}

/// A bind group naming its buffers by WGSL variable name (see [`match_names`]).
pub(crate) fn bind(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    bindings: &[Binding],
    buffers: &[(&str, &wgpu::Buffer)],
) -> Result<wgpu::BindGroup, KernelError> {
    let names: Vec<&str> = buffers.iter().map(|b| b.0).collect();
    let numbers = match_names(label, bindings, &names)?;
    let entries: Vec<_> = numbers
        .iter()
        .zip(buffers)
        .map(|(&binding, (_, buffer))| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
        .collect();
    Ok(device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries }))
}

pub(crate) fn pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(&pl),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions { constants, zero_initialize_workgroup_memory: true },
        cache: None,
    })
}

/// Workgroup counts for `groups` workgroups: a 1D dispatch while it fits the per-dimension
/// limit, otherwise a 2D grid (`linear_id` in common.wgsl undoes it; extra groups exit early).
pub(crate) fn grid_2d(groups: u32, max_per_dim: u32) -> (u32, u32) {
    if groups <= max_per_dim {
        (groups.max(1), 1)
    } else {
        let y = groups.div_ceil(max_per_dim);
        (groups.div_ceil(y), y)
    }
}

pub(crate) fn dispatch(pass: &mut wgpu::ComputePass<'_>, groups: u32, max_per_dim: u32) {
    let (x, y) = grid_2d(groups, max_per_dim);
    pass.dispatch_workgroups(x, y, 1);
}

pub(crate) fn storage_init(device: &wgpu::Device, label: &str, contents: &[u8], extra: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | extra,
    })
}

pub fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    storage_with(device, label, size, wgpu::BufferUsages::empty())
}

/// A storage buffer (copyable both ways) with `extra` usages, unmapped.
pub(crate) fn storage_with(device: &wgpu::Device, label: &str, size: u64, extra: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | extra,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reflected(src: &ShaderSource) -> Vec<Binding> {
        wgsl::bindings(src.label, &src.compose().unwrap(), &["main"]).unwrap()
    }

    #[test]
    fn a_wrong_missing_or_repeated_name_is_an_error_that_names_it() {
        let b = reflected(&FORCE);
        let good = [
            "params",
            "cell_lut",
            "cell_start",
            "sorted",
            "pos_mass",
            "vel_rho",
            "acc_out",
            "ids",
            "wall_normal",
            "wall_motion",
            "nb_list",
            "nb_count",
            "nb_list_hi",
        ];
        assert_eq!(match_names("sph.force", &b, &good).unwrap(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14, 15, 16]);
        // any order: numbers follow the names
        assert_eq!(
            match_names(
                "sph.force",
                &b,
                &[
                    "nb_list_hi",
                    "nb_count",
                    "nb_list",
                    "wall_motion",
                    "wall_normal",
                    "ids",
                    "acc_out",
                    "vel_rho",
                    "pos_mass",
                    "sorted",
                    "cell_start",
                    "cell_lut",
                    "params"
                ]
            )
            .unwrap(),
            [16, 15, 14, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
        );
        let mut typo = good;
        typo[5] = "vel_rh";
        let e = match_names("sph.force", &b, &typo).unwrap_err();
        assert!(matches!(&e, KernelError::UnknownName { name, .. } if name == "vel_rh"), "{e}");
        assert!(e.to_string().contains("`vel_rho`"), "lists what the shader binds: {e}");
        let e = match_names("sph.force", &b, &good[..12]).unwrap_err();
        assert_eq!(e, KernelError::MissingName { label: "sph.force".into(), name: "nb_list_hi".into() });
        let mut twice = good.to_vec();
        twice.push("params");
        assert!(matches!(match_names("sph.force", &b, &twice).unwrap_err(), KernelError::DuplicateName { .. }));
    }

    #[test]
    fn split_dispatch_covers_all_groups() {
        for groups in [1, 65_535, 65_536, 200_000, 1 << 24] {
            let (x, y) = super::grid_2d(groups, 65_535);
            assert!(x <= 65_535 && y <= 65_535);
            assert!(x as u64 * y as u64 >= groups as u64);
            assert!((x as u64) * (y as u64 - 1) < groups as u64, "a whole row of groups would be idle");
        }
    }
}

/// What every per-particle kernel is compiled with.
#[derive(Clone, Copy, Debug)]
pub struct KernelConfig {
    pub wg_size: u32,
    /// wgpu's runtime bounds checks in the shader.
    pub checks: bool,
    /// The neighbour lists' capacity (`LIST_MAX` in the shaders: a constant, not an override,
    /// docs/PERFORMANCE.md, "Neighbour lists"), [`crate::physics::list_capacity`] of the skin.
    pub list_max: u32,
}

impl KernelConfig {
    /// Workgroups of `wg_size`, without runtime checks, the default list capacity.
    pub fn plain(wg_size: u32) -> Self {
        Self { wg_size, checks: false, list_max: crate::physics::NEIGHBOUR_LIST_MAX }
    }
}

/// `text` (a composed shader) with the lists' capacity `list_max` instead of the default: the
/// generated constants `LIST_MAX` and `LIST_SPLIT_ROW` (src/wgsl.rs) rewritten.
pub(crate) fn with_list_max(text: String, list_max: u32) -> String {
    use crate::physics::{LIST_SPLIT_ROW, NEIGHBOUR_LIST_MAX, list_split_row};
    if list_max == NEIGHBOUR_LIST_MAX {
        return text;
    }
    text.replace(&format!("const LIST_MAX: u32 = {NEIGHBOUR_LIST_MAX}u;"), &format!("const LIST_MAX: u32 = {list_max}u;")).replace(
        &format!("const LIST_SPLIT_ROW: u32 = {LIST_SPLIT_ROW}u;"),
        &format!("const LIST_SPLIT_ROW: u32 = {}u;", list_split_row(list_max)),
    )
}

/// A compute pass's pipeline(s) over one bind-group layout, which is read from the shader. Passes
/// differ in their buffers and override constants only; this holds what they share. A step's
/// passes are [`Pass`]es, which add their bind groups and typed variants.
#[derive(Clone)]
pub struct Kernel {
    pub label: &'static str,
    pub layout: wgpu::BindGroupLayout,
    /// What the entry point `main` uses, by name.
    bindings: Vec<Binding>,
    /// Variants of the same entry point (e.g. direct / through `sorted`).
    variants: Vec<wgpu::ComputePipeline>,
    wg_size: u32,
}

impl Kernel {
    /// `variants`: the override constants of each pipeline variant (WG_SIZE is added).
    pub fn new(device: &wgpu::Device, src: &ShaderSource, cfg: KernelConfig, variants: &[&[(&str, f64)]]) -> Result<Self, KernelError> {
        let wg_size = cfg.wg_size;
        let text = with_list_max(src.compose()?, cfg.list_max);
        let bindings = wgsl::bindings(src.label, &text, &["main"])?;
        let layout = layout(device, src.label, &bindings);
        let module = module(device, src.label, &text, cfg.checks);
        let variants = variants
            .iter()
            .map(|consts| {
                let mut c: Vec<(&str, f64)> = vec![("WG_SIZE", wg_size as f64)];
                c.extend_from_slice(consts);
                pipeline(device, src.label, &layout, &module, "main", &c)
            })
            .collect();
        Ok(Self { label: src.label, layout, bindings, variants, wg_size })
    }

    /// The WGSL variable names this pass binds.
    pub fn binding_names(&self) -> impl Iterator<Item = &str> {
        self.bindings.iter().map(|b| b.name.as_str())
    }

    /// A bind group with each buffer named by its WGSL variable name.
    pub fn bind(&self, device: &wgpu::Device, buffers: &[(&str, &wgpu::Buffer)]) -> Result<wgpu::BindGroup, KernelError> {
        bind(device, self.label, &self.layout, &self.bindings, buffers)
    }

    /// A bind group that looks every binding up in `table` by its WGSL name, or by the table's
    /// name `aliases` gives it (WGSL name, table name); a binding the table lacks, or an alias
    /// of a name the shader does not bind, is an error.
    pub(crate) fn bind_named(
        &self,
        device: &wgpu::Device,
        table: &Named,
        aliases: &[(&str, &str)],
    ) -> Result<wgpu::BindGroup, KernelError> {
        if let Some((name, _)) = aliases.iter().find(|(a, _)| !self.bindings.iter().any(|b| b.name == *a)) {
            return Err(KernelError::UnknownName {
                label: self.label.to_owned(),
                name: (*name).to_owned(),
                known: self.bindings.iter().map(|b| format!("`{}`", b.name)).collect::<Vec<_>>().join(", "),
            });
        }
        let mut buffers = Vec::with_capacity(self.bindings.len());
        for b in &self.bindings {
            let key = aliases.iter().find(|(a, _)| *a == b.name).map_or(b.name.as_str(), |(_, t)| t);
            let buffer = table.get(key).ok_or_else(|| KernelError::MissingName { label: self.label.to_owned(), name: key.to_owned() })?;
            buffers.push((b.name.as_str(), buffer));
        }
        self.bind(device, &buffers)
    }

    /// One invocation per item, `n` items, with pipeline variant `variant`.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, bg: &wgpu::BindGroup, n: u32, variant: usize, max_dim: u32) {
        pass.set_pipeline(&self.variants[variant]);
        pass.set_bind_group(0, bg, &[]);
        dispatch(pass, n.div_ceil(self.wg_size), max_dim);
    }

    /// As [`Self::record`], with the workgroup counts read from `args` (words 0–2 from byte
    /// `offset`) on the GPU.
    pub(crate) fn record_indirect(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bg: &wgpu::BindGroup,
        variant: usize,
        args: &wgpu::Buffer,
        offset: u64,
    ) {
        pass.set_pipeline(&self.variants[variant]);
        pass.set_bind_group(0, bg, &[]);
        pass.dispatch_workgroups_indirect(args, offset);
    }
}

/// A pipeline variant of a pass: the override constants that make it. A pass records with a
/// value of its own variant type, never a number.
pub trait Variant: Copy + PartialEq + std::fmt::Debug + 'static {
    /// Every variant, in the order of the pass's pipelines.
    const ALL: &'static [Self];
    /// The override constants of this variant (the pass's shared constants are added).
    fn constants(self) -> Vec<(&'static str, f64)>;
    /// Its pipeline.
    fn index(self) -> usize {
        Self::ALL.iter().position(|v| *v == self).expect("every variant is in Variant::ALL")
    }
}

/// The one variant of a pass without variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Single;

impl Variant for Single {
    const ALL: &'static [Self] = &[Single];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![]
    }
}

/// How a pass built on the shared neighbour loop (`shaders/neighbours.wgsl`) reads the grid:
/// `USE_SORTED` in the shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walk {
    /// The step reordered: a cell's range is its particles' slots.
    Direct,
    /// It did not: a cell's range indexes `sorted`.
    ThroughSorted,
}

impl Walk {
    /// The walk over a grid built on the current set, after a reorder or not.
    pub(crate) fn after(reordered: bool) -> Self {
        if reordered { Walk::Direct } else { Walk::ThroughSorted }
    }
    fn through_sorted(self) -> f64 {
        if self == Walk::ThroughSorted { 1.0 } else { 0.0 }
    }
}

impl Variant for Walk {
    const ALL: &'static [Self] = &[Walk::Direct, Walk::ThroughSorted];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("USE_SORTED", self.through_sorted())]
    }
}

/// A flag as an override constant.
pub(crate) fn flag(on: bool) -> f64 {
    if on { 1.0 } else { 0.0 }
}

/// The simulation's buffers by the WGSL names its shaders bind them under, for one current
/// particle set: every pass binds from it, so a pass states only what is its own (an alias).
#[derive(Clone, Default)]
pub struct Named {
    entries: Vec<(&'static str, wgpu::Buffer)>,
}

impl Named {
    /// Adds `buffer` under `name` (a name given twice is a mistake in the table).
    pub fn add(&mut self, name: &'static str, buffer: &wgpu::Buffer) -> &mut Self {
        debug_assert!(self.get(name).is_none(), "`{name}` is in the table twice");
        self.entries.push((name, buffer.clone()));
        self
    }

    pub(crate) fn get(&self, name: &str) -> Option<&wgpu::Buffer> {
        self.entries.iter().find(|(n, _)| *n == name).map(|(_, b)| b)
    }
}

/// Something that binds its bind groups from the simulation's tables (one per current set):
/// a [`Pass`], a group of them ([`passes!`](crate::passes)), or an optional one.
pub(crate) trait Bindable {
    fn bind(&mut self, device: &wgpu::Device, sets: &[Named; 2]) -> Result<(), KernelError>;
}

impl<T: Bindable> Bindable for Option<T> {
    fn bind(&mut self, device: &wgpu::Device, sets: &[Named; 2]) -> Result<(), KernelError> {
        self.as_mut().map_or(Ok(()), |p| p.bind(device, sets))
    }
}

/// A pass of the step: its pipelines (one per variant `V`), its bind groups (one per current
/// particle set, looked up by name in the simulation's table) and its recording.
#[derive(Clone)]
pub struct Pass<V: Variant = Single> {
    kernel: Kernel,
    /// (WGSL name, table name) where the pass binds a table buffer under another name.
    aliases: Vec<(&'static str, &'static str)>,
    /// By the current set; empty until bound.
    groups: Vec<wgpu::BindGroup>,
    _variant: std::marker::PhantomData<V>,
}

impl<V: Variant> Pass<V> {
    /// The pass's pipelines: each variant's constants and `shared` (and WG_SIZE).
    pub fn new(device: &wgpu::Device, src: &ShaderSource, cfg: KernelConfig, shared: &[(&str, f64)]) -> Result<Self, KernelError> {
        let variants: Vec<Vec<(&str, f64)>> = V::ALL.iter().map(|v| [&v.constants()[..], shared].concat()).collect();
        let refs: Vec<&[(&str, f64)]> = variants.iter().map(|v| &v[..]).collect();
        Ok(Self { kernel: Kernel::new(device, src, cfg, &refs)?, aliases: vec![], groups: vec![], _variant: std::marker::PhantomData })
    }

    /// The pass binds the table's `table_name` as its WGSL `wgsl_name`.
    pub fn alias(mut self, wgsl_name: &'static str, table_name: &'static str) -> Self {
        self.aliases.push((wgsl_name, table_name));
        self
    }

    pub(crate) fn label(&self) -> &'static str {
        self.kernel.label
    }

    /// The pass bound to one table (an instrument beside the step: record it with set 0).
    pub fn bound_to(mut self, device: &wgpu::Device, table: &Named) -> Result<Self, KernelError> {
        self.groups = vec![self.kernel.bind_named(device, table, &self.aliases)?];
        Ok(self)
    }

    /// One invocation per item, `n` items, on the current set `set`.
    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, set: usize, n: u32, variant: V, max_dim: u32) {
        self.kernel.record(pass, &self.groups[set], n, variant.index(), max_dim);
    }

    /// As [`Self::record`], with the workgroup counts read from `args` (words 0–2) on the GPU.
    pub(crate) fn record_indirect(&self, pass: &mut wgpu::ComputePass<'_>, set: usize, variant: V, args: &wgpu::Buffer) {
        self.kernel.record_indirect(pass, &self.groups[set], variant.index(), args, 0);
    }

    /// As [`Self::record_indirect`], from byte `offset` of `args`.
    pub(crate) fn record_indirect_at(&self, pass: &mut wgpu::ComputePass<'_>, set: usize, variant: V, args: &wgpu::Buffer, offset: u64) {
        self.kernel.record_indirect(pass, &self.groups[set], variant.index(), args, offset);
    }
}

impl<V: Variant> Bindable for Pass<V> {
    fn bind(&mut self, device: &wgpu::Device, sets: &[Named; 2]) -> Result<(), KernelError> {
        let groups = sets.iter().map(|t| self.kernel.bind_named(device, t, &self.aliases)).collect::<Result<_, _>>()?;
        self.groups = groups;
        Ok(())
    }
}

/// A group of passes bound together: declares the struct and its [`Bindable`], which binds
/// every field, so a pass added to the group is bound with it.
#[macro_export]
macro_rules! passes {
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone)]
        $vis struct $name { $($(#[$fm])* pub $f: $t),* }

        impl $crate::sim::shader::Bindable for $name {
            fn bind(&mut self, device: &wgpu::Device, sets: &[$crate::sim::shader::Named; 2]) -> Result<(), $crate::sim::shader::KernelError> {
                $($crate::sim::shader::Bindable::bind(&mut self.$f, device, sets)?;)*
                Ok(())
            }
        }
    };
}
