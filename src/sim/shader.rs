//! Shader sources and the small helpers every pass uses: module assembly, bind-group layouts,
//! bind groups, pipelines and 1D dispatches split into 2D.

use wgpu::util::DeviceExt;

pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
pub const NEIGHBOURS: &str = include_str!("../../shaders/neighbours.wgsl");

/// The WGSL of one pass: its file plus the shared code it builds on.
#[derive(Clone, Copy, Debug)]
pub struct ShaderSource {
    /// Label and file stem, e.g. "sph.density" ↔ `shaders/density.wgsl`.
    pub label: &'static str,
    pub body: &'static str,
    /// Prepend common.wgsl.
    pub common: bool,
    /// Prepend neighbours.wgsl (the shared neighbour loop).
    pub neighbours: bool,
}

impl ShaderSource {
    pub fn assemble(&self) -> String {
        let mut s = String::new();
        if self.common {
            s.push_str(COMMON);
            s.push('\n');
        }
        if self.neighbours {
            s.push_str(NEIGHBOURS);
            s.push('\n');
        }
        s.push_str(self.body);
        s
    }
}

pub const COUNT: ShaderSource =
    ShaderSource { label: "grid.count", body: include_str!("../../shaders/count.wgsl"), common: true, neighbours: false };
pub const SCAN: ShaderSource =
    ShaderSource { label: "grid.scan", body: include_str!("../../shaders/scan.wgsl"), common: false, neighbours: false };
pub const SCATTER: ShaderSource =
    ShaderSource { label: "grid.scatter", body: include_str!("../../shaders/scatter.wgsl"), common: true, neighbours: false };
pub const REORDER: ShaderSource =
    ShaderSource { label: "reorder", body: include_str!("../../shaders/reorder.wgsl"), common: true, neighbours: false };
pub const DENSITY: ShaderSource =
    ShaderSource { label: "sph.density", body: include_str!("../../shaders/density.wgsl"), common: true, neighbours: true };
pub const FORCE: ShaderSource =
    ShaderSource { label: "sph.force", body: include_str!("../../shaders/force.wgsl"), common: true, neighbours: true };
pub const WALL_PRESSURE: ShaderSource =
    ShaderSource { label: "sph.wall_pressure", body: include_str!("../../shaders/wall_pressure.wgsl"), common: true, neighbours: true };
pub const INTEGRATE: ShaderSource =
    ShaderSource { label: "sph.integrate", body: include_str!("../../shaders/integrate.wgsl"), common: true, neighbours: false };
pub const NEIGHBOUR_PROBE: ShaderSource = ShaderSource {
    label: "test.neighbour_probe",
    body: include_str!("../../shaders/neighbour_probe.wgsl"),
    common: true,
    neighbours: true,
};

pub const ALL_PAIRS: ShaderSource =
    ShaderSource { label: "baseline.all_pairs", body: include_str!("../../shaders/all_pairs.wgsl"), common: true, neighbours: false };

pub const COPY: ShaderSource =
    ShaderSource { label: "baseline.copy", body: include_str!("../../shaders/copy.wgsl"), common: false, neighbours: false };

/// Every shader, for the validation test.
pub const ALL: [ShaderSource; 11] =
    [COUNT, SCAN, SCATTER, REORDER, DENSITY, WALL_PRESSURE, FORCE, INTEGRATE, NEIGHBOUR_PROBE, ALL_PAIRS, COPY];

/// Compiles a pass's shader. With `checks` off, the module is created without wgpu's runtime
/// bounds checks (each array access clamped or guarded otherwise), which costs the neighbour
/// loops about a tenth of their time.
pub fn module(device: &wgpu::Device, src: &ShaderSource, checks: bool) -> wgpu::ShaderModule {
    let desc = wgpu::ShaderModuleDescriptor { label: Some(src.label), source: wgpu::ShaderSource::Wgsl(src.assemble().into()) };
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

/// A binding of a compute bind-group layout.
#[derive(Clone, Copy, Debug)]
pub enum Slot {
    Uniform,
    Read,
    ReadWrite,
}

pub fn layout(device: &wgpu::Device, label: &str, slots: &[(u32, Slot)]) -> wgpu::BindGroupLayout {
    let entries: Vec<_> = slots
        .iter()
        .map(|&(binding, slot)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match slot {
                    Slot::Uniform => wgpu::BufferBindingType::Uniform,
                    Slot::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Slot::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries })
}

pub fn bind(device: &wgpu::Device, label: &str, layout: &wgpu::BindGroupLayout, buffers: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
    let entries: Vec<_> =
        buffers.iter().map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() }).collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(label), layout, entries: &entries })
}

pub fn pipeline(
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
pub fn grid_2d(groups: u32, max_per_dim: u32) -> (u32, u32) {
    if groups <= max_per_dim {
        (groups.max(1), 1)
    } else {
        let y = groups.div_ceil(max_per_dim);
        (groups.div_ceil(y), y)
    }
}

pub fn dispatch(pass: &mut wgpu::ComputePass<'_>, groups: u32, max_per_dim: u32) {
    let (x, y) = grid_2d(groups, max_per_dim);
    pass.dispatch_workgroups(x, y, 1);
}

pub fn storage_init(device: &wgpu::Device, label: &str, contents: &[u8], extra: wgpu::BufferUsages) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST | extra,
    })
}

pub fn storage(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(16),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
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
}

/// A pass built on the shared neighbour loop (`shaders/neighbours.wgsl`): its two pipeline
/// variants, [`super::DIRECT`] (the step reordered: cell ranges are slots) and
/// [`super::THROUGH_SORTED`] (they index `sorted`); `rows` reads a row of cells as one range
/// (linear order only).
pub fn neighbour_kernel(device: &wgpu::Device, src: &ShaderSource, slots: &[(u32, Slot)], cfg: KernelConfig, rows: bool) -> Kernel {
    let r = if rows { 1.0 } else { 0.0 };
    Kernel::new(device, src, slots, cfg, &[&[("USE_SORTED", 0.0), ("ROWS", r)], &[("USE_SORTED", 1.0), ("ROWS", r)]])
}

/// A compute pass's pipeline(s) over one bind-group layout. Passes differ in their bindings and
/// override constants only; this holds what they share.
pub struct Kernel {
    pub label: &'static str,
    pub layout: wgpu::BindGroupLayout,
    /// Binding numbers in the order `bind` takes buffers.
    bindings: Vec<u32>,
    /// Variants of the same entry point (e.g. direct / through `sorted`).
    variants: Vec<wgpu::ComputePipeline>,
    wg_size: u32,
}

impl Kernel {
    /// `variants`: the override constants of each pipeline variant (WG_SIZE is added).
    pub fn new(device: &wgpu::Device, src: &ShaderSource, slots: &[(u32, Slot)], cfg: KernelConfig, variants: &[&[(&str, f64)]]) -> Self {
        let wg_size = cfg.wg_size;
        let layout = layout(device, src.label, slots);
        let module = module(device, src, cfg.checks);
        let variants = variants
            .iter()
            .map(|consts| {
                let mut c: Vec<(&str, f64)> = vec![("WG_SIZE", wg_size as f64)];
                c.extend_from_slice(consts);
                pipeline(device, src.label, &layout, &module, "main", &c)
            })
            .collect();
        Self { label: src.label, layout, bindings: slots.iter().map(|s| s.0).collect(), variants, wg_size }
    }

    /// A bind group with `buffers` in the order of the slots given to `new`.
    pub fn bind(&self, device: &wgpu::Device, buffers: &[&wgpu::Buffer]) -> wgpu::BindGroup {
        assert_eq!(buffers.len(), self.bindings.len(), "{}: wrong number of buffers", self.label);
        let pairs: Vec<(u32, &wgpu::Buffer)> = self.bindings.iter().copied().zip(buffers.iter().copied()).collect();
        bind(device, self.label, &self.layout, &pairs)
    }

    /// One invocation per item, `n` items, with pipeline variant `variant`.
    pub fn record(&self, pass: &mut wgpu::ComputePass<'_>, bg: &wgpu::BindGroup, n: u32, variant: usize, max_dim: u32) {
        pass.set_pipeline(&self.variants[variant]);
        pass.set_bind_group(0, bg, &[]);
        dispatch(pass, n.div_ceil(self.wg_size), max_dim);
    }
}
