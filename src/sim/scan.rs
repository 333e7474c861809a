//! grid.scan — exclusive prefix sum of the cell counts into `cell_start` (cells + 1 entries),
//! reduce-then-scan over as many levels as the cell count needs (`shaders/scan.wgsl`).
//!
//! Level 0 scans `counts` into `cell_start` in blocks of [`BLOCK`]; the sum of each block goes to
//! the next level, which is scanned the same way, until one block remains. Then each level's
//! `down` adds the scanned block sums as offsets. 1024 elements per block and three levels
//! cover 2^30 cells; more levels are added as needed.

use super::shader::{self, KernelError};
use crate::wgsl::Binding;
use wgpu::util::DeviceExt;

pub(crate) const WG_SIZE: u32 = 256;
/// Elements per workgroup block (4 per invocation).
pub(crate) const BLOCK: u32 = 4 * WG_SIZE;

/// One level's uniform block, defined once with its WGSL (`scan_params`).
use crate::wgsl::shared::ScanParams;

#[derive(Clone)]
pub(crate) struct ScanPass {
    layout: wgpu::BindGroupLayout,
    /// What `reduce` and `down` use, by name.
    bindings: Vec<Binding>,
    reduce: wgpu::ComputePipeline,
    down: wgpu::ComputePipeline,
    /// `down` with the grid diagnostics (`DIAG`), for the grid's level 0 (where the simulation
    /// compiles the diagnostics in).
    down_diag: Option<wgpu::ComputePipeline>,
}

struct Level {
    bind_group: wgpu::BindGroup,
    blocks: u32,
}

/// The per-level buffers and bind groups for one grid size.
pub(crate) struct ScanLevels {
    levels: Vec<Level>,
    /// Level 0 scans the grid's cell counts: its `down` takes the diagnostics.
    grid: bool,
    /// Block sums and scanned offsets of the levels above 0, kept alive for the bind groups.
    _buffers: Vec<wgpu::Buffer>,
}

/// What a scan of the grid's cell counts binds for the diagnostics: the simulation's uniform
/// block (`num_cells`, `capacity`) and its diagnostics words. Another scan (the emitters' free
/// slots) binds placeholders its pipelines never touch.
pub(crate) struct GridDiagnostics<'a> {
    pub params: &'a wgpu::Buffer,
    pub diag: &'a wgpu::Buffer,
}

impl ScanLevels {
    pub(crate) fn depth(&self) -> usize {
        self.levels.len()
    }

    /// Each level's workgroups (blocks), level 0 first.
    pub(crate) fn blocks(&self) -> Vec<u32> {
        self.levels.iter().map(|l| l.blocks).collect()
    }
}

/// Its bind groups are per level, made with the cells' buffers ([`ScanPass::levels`]).
impl shader::Bindable for ScanPass {
    fn bind(&mut self, _: &wgpu::Device, _: &[shader::Named; 2]) -> Result<(), KernelError> {
        Ok(())
    }
}

impl ScanPass {
    /// With `diagnostics`, the grid's level 0 takes the grid diagnostics ([`ScanLevels`] made
    /// with [`GridDiagnostics`]).
    pub(crate) fn new(device: &wgpu::Device, checks: bool, diagnostics: bool) -> Result<Self, KernelError> {
        let src = shader::SCAN;
        let text = src.compose()?;
        let bindings = crate::wgsl::bindings(src.label, &text, &["reduce", "down"])?;
        let layout = shader::layout(device, src.label, &bindings);
        let module = shader::module(device, src.label, &text, checks);
        let c = [("WG_SIZE", WG_SIZE as f64)];
        let reduce = shader::pipeline(device, "grid.scan.reduce", &layout, &module, "reduce", &c);
        let down = shader::pipeline(device, "grid.scan.down", &layout, &module, "down", &c);
        let down_diag =
            diagnostics.then(|| shader::pipeline(device, "grid.scan.down_diag", &layout, &module, "down", &[c[0], ("DIAG", 1.0)]));
        Ok(Self { layout, bindings, reduce, down, down_diag })
    }

    /// Levels for scanning `n` counts into `out` (n + 1 entries, the last one the total); with
    /// `grid`, the counts are the grid's cells (and the free slots' cell after them), and level
    /// 0 takes the diagnostics where the pass has them.
    pub(crate) fn levels(
        &self,
        device: &wgpu::Device,
        counts: &wgpu::Buffer,
        out: &wgpu::Buffer,
        n: u32,
        grid: Option<GridDiagnostics<'_>>,
    ) -> Result<ScanLevels, KernelError> {
        let mut levels = Vec::new();
        let mut buffers = Vec::new();
        let zero = shader::storage(device, "grid.scan.zero", 16);
        let is_grid = grid.is_some();
        let (params, diag) = match grid {
            Some(g) => (g.params.clone(), g.diag.clone()),
            None => {
                let params = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("grid.scan.no_params"),
                    size: std::mem::size_of::<crate::wgsl::shared::SimParams>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM,
                    mapped_at_creation: false,
                });
                let words = std::mem::size_of::<crate::wgsl::shared::Diagnostics>() as u64;
                (params, shader::storage(device, "grid.scan.no_diag", words))
            }
        };
        let (mut src, mut dst) = (counts.clone(), out.clone());
        let (mut n_in, mut n_out) = (n, n + 1);
        loop {
            let blocks = n_out.div_ceil(BLOCK);
            let level_params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("grid.scan.params"),
                contents: bytemuck::bytes_of(&ScanParams { n_in, n_out, _pad: [0; 2] }),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let (sums, offsets) = if blocks > 1 {
                let bytes = blocks as u64 * 4;
                (shader::storage(device, "grid.scan.sums", bytes), shader::storage(device, "grid.scan.offsets", bytes))
            } else {
                (shader::storage(device, "grid.scan.unused", 16), zero.clone())
            };
            let named = [
                ("sp", &level_params),
                ("src", &src),
                ("dst", &dst),
                ("block_sums", &sums),
                ("block_offsets", &offsets),
                ("params", &params),
                ("diag", &diag),
            ];
            let bind_group = shader::bind(device, shader::SCAN.label, &self.layout, &self.bindings, &named)?;
            levels.push(Level { bind_group, blocks });
            buffers.push(level_params);
            if blocks == 1 {
                break;
            }
            (src, dst) = (sums.clone(), offsets.clone());
            (n_in, n_out) = (blocks, blocks);
            buffers.push(sums);
            buffers.push(offsets);
        }
        buffers.push(zero);
        Ok(ScanLevels { levels, grid: is_grid, _buffers: buffers })
    }

    /// As [`Self::record`], each level's dispatch read from `args` at `offset(level)` (grid.keep's
    /// entries: empty on a step that keeps the lists).
    pub(crate) fn record_indirect(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        levels: &ScanLevels,
        args: &wgpu::Buffer,
        offset: impl Fn(u32) -> u64,
    ) {
        let top = levels.levels.len() - 1;
        pass.set_pipeline(&self.reduce);
        for (k, level) in levels.levels[..top].iter().enumerate() {
            pass.set_bind_group(0, &level.bind_group, &[]);
            pass.dispatch_workgroups_indirect(args, offset(k as u32));
        }
        for (k, level) in levels.levels.iter().enumerate().rev() {
            pass.set_pipeline(self.down_at(levels, k));
            pass.set_bind_group(0, &level.bind_group, &[]);
            pass.dispatch_workgroups_indirect(args, offset(k as u32));
        }
    }

    /// `down`'s pipeline for level `k`: the one with the diagnostics for the grid's level 0.
    fn down_at(&self, levels: &ScanLevels, k: usize) -> &wgpu::ComputePipeline {
        match &self.down_diag {
            Some(d) if k == 0 && levels.grid => d,
            _ => &self.down,
        }
    }

    pub(crate) fn record(&self, pass: &mut wgpu::ComputePass<'_>, levels: &ScanLevels, max_dim: u32) {
        let top = levels.levels.len() - 1;
        pass.set_pipeline(&self.reduce);
        for level in &levels.levels[..top] {
            pass.set_bind_group(0, &level.bind_group, &[]);
            shader::dispatch(pass, level.blocks, max_dim);
        }
        for (k, level) in levels.levels.iter().enumerate().rev() {
            pass.set_pipeline(self.down_at(levels, k));
            pass.set_bind_group(0, &level.bind_group, &[]);
            shader::dispatch(pass, level.blocks, max_dim);
        }
    }
}
