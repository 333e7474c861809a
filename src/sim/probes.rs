//! probe.row — a probe row measured on the GPU (`shaders/probes.wgsl`): a grid build of the
//! current positions, then three dispatches (the columns' and bins' maxima and the gauges'
//! counts; per particle the neighbour count, depth, errors, energies and momentum reduced to one
//! row per workgroup; the free-surface gauges' kernel sums) and one small read of what they
//! wrote. [`crate::probes::from_gpu`] finishes the row on the CPU exactly as
//! [`crate::probes::measure`] — the CPU twin, which needs a copy of every particle — defines it.
//! Nothing of the simulation's state changes (the next step builds its grid again).

use super::buffers::read_recorded;
use super::shader::{self, KernelConfig, KernelError, Named, Pass, Variant};
use super::{Sim, SimError, begin};
use crate::probes::{GpuProbe, ProbeRow, ProbeSetup};
use crate::wgsl::shared::ProbeConfig;

/// The three parts of `shaders/probes.wgsl` (its `PART`); each reads the grid through `sorted`
/// (the probe's grid build does not reorder).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Bins,
    Reduce,
    Surface,
}

impl Variant for Part {
    const ALL: &'static [Self] = &[Part::Bins, Part::Reduce, Part::Surface];
    fn constants(self) -> Vec<(&'static str, f64)> {
        let part = match self {
            Part::Bins => 0.0,
            Part::Reduce => 1.0,
            Part::Surface => 2.0,
        };
        vec![("PART", part), ("USE_SORTED", 1.0)]
    }
}

/// The sizes of what the passes write, from a probe setup and the simulation's domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Shape {
    pub cols_x: u32,
    pub cols_z: u32,
    pub front_bins: u32,
    pub n_slab: u32,
    pub n_point: u32,
    pub n_surface: u32,
    pub samples: u32,
}

impl Shape {
    pub(crate) fn of(setup: &ProbeSetup) -> Self {
        let (lo, hi, h) = (setup.domain_min, setup.domain_max, setup.h);
        let cols = |a: usize| (((hi[a] - lo[a]) / h).ceil() as u32).max(1);
        // the CPU's walk down a free-surface gauge's line starts h above the highest particle
        // (at most the domain's top) and stops below the floor
        let step = setup.spacing / 8.0;
        let samples = ((hi[1] - lo[1] + h) / step).ceil() as u32 + 2;
        Self {
            cols_x: cols(0),
            cols_z: cols(2),
            front_bins: cols(0) + 1,
            n_slab: setup.gauges.len() as u32,
            n_point: setup.point_gauges.len() as u32,
            n_surface: setup.surface_gauges.len() as u32,
            samples,
        }
    }
    fn bins_words(&self) -> u64 {
        (self.cols_x * self.cols_z + self.front_bins + self.n_slab + self.n_point + self.n_surface) as u64
    }
    fn sample_words(&self) -> u64 {
        (self.n_surface * self.samples) as u64
    }
}

/// The smallest f32 at or above `a`: for every f32 `x`, `x >= up(a)` is `x as f64 >= a`.
fn up(a: f64) -> f32 {
    let f = a as f32;
    if (f as f64) < a { f.next_up() } else { f }
}

/// The GPU probes of one setup: the pass, bound to both particle sets, and its buffers.
pub(crate) struct GpuProbes {
    setup: ProbeSetup,
    shape: Shape,
    pass: Pass<Part>,
    bins: wgpu::Buffer,
    partials: wgpu::Buffer,
    samples: wgpu::Buffer,
    workgroups: u32,
}

impl GpuProbes {
    fn new(
        device: &wgpu::Device,
        cfg: KernelConfig,
        rows: bool,
        tables: [Named; 2],
        setup: &ProbeSetup,
        n: u32,
        max_dim: u32,
    ) -> Result<Self, KernelError> {
        let shape = Shape::of(setup);
        let full = crate::probes::full_neighbourhood(setup) as f64;
        let reach = crate::probes::NEIGHBOUR_REACH * setup.h;
        let config = ProbeConfig {
            spacing: setup.spacing as f32,
            reach2: (reach * reach) as f32,
            // counts are integers: n ≥ 0.85 full ⇔ n ≥ ceil(0.85 full); n < 0.25 full ⇔ n < ceil(0.25 full)
            bulk_min: (crate::probes::BULK_FRACTION * full).ceil() as f32,
            spray_below: (crate::probes::SPRAY_FRACTION * full).ceil() as f32,
            cols_x: shape.cols_x,
            cols_z: shape.cols_z,
            front_bins: shape.front_bins,
            n_slab: shape.n_slab,
            n_point: shape.n_point,
            n_surface: shape.n_surface,
            samples: shape.samples,
            sample_step: (setup.spacing / 8.0) as f32,
        };
        let (lo, hi, h) = (setup.domain_min, setup.domain_max, setup.h);
        let mut gauges: Vec<[f32; 4]> = Vec::new();
        for &g in &setup.gauges {
            gauges.push([up((g - h).max(lo[0])), up((g + h).min(hi[0])), 0.0, 0.0]);
        }
        for &[x, z] in &setup.point_gauges {
            gauges.push([up((x - h).max(lo[0])), up((x + h).min(hi[0])), up((z - h).max(lo[2])), up((z + h).min(hi[2]))]);
        }
        for &[x, z] in &setup.surface_gauges {
            gauges.push([x as f32, z as f32, 0.0, 0.0]);
        }
        if gauges.is_empty() {
            gauges.push([0.0; 4]);
        }
        let words = |w: u64| w.max(1) * 4;
        // the reduce part's workgroups, as its dispatch lays them out (2D beyond max_dim)
        let (wx, wy) = shader::grid_2d(n.div_ceil(cfg.wg_size).max(1), max_dim);
        let workgroups = wx * wy;
        let config_buf = shader::storage_init(device, "probe.config", bytemuck::bytes_of(&config), wgpu::BufferUsages::empty());
        let gauges_buf = shader::storage_init(device, "probe.gauges", bytemuck::cast_slice(&gauges), wgpu::BufferUsages::empty());
        let bins = shader::storage(device, "probe.bins", words(shape.bins_words()));
        let partials = shader::storage(device, "probe.partials", workgroups as u64 * 64);
        let samples = shader::storage(device, "probe.samples", words(shape.sample_words()));
        let tables = tables.map(|mut t| {
            t.add("probe_config", &config_buf)
                .add("probe_gauges", &gauges_buf)
                .add("probe_bins", &bins)
                .add("probe_partials", &partials)
                .add("probe_samples", &samples);
            t
        });
        let mut pass = Pass::new(device, &shader::PROBES, cfg, &[("ROWS", shader::flag(rows))])?;
        shader::Bindable::bind(&mut pass, device, &tables)?;
        Ok(Self { setup: setup.clone(), shape, pass, bins, partials, samples, workgroups })
    }
}

impl Sim {
    /// A probe row of the current state measured on the GPU ([`GpuProbes`]): the same
    /// definitions as [`crate::probes::measure`] on a copy of the particles, without the copy.
    /// The GPU counters' columns are the caller's to fill in, as for `measure`. Builds the grid
    /// of the current positions (the grid diagnostics then describe this build); the particles
    /// stay as they are.
    pub fn measure_probes(&mut self, setup: &ProbeSetup, step: u64, time: f64) -> Result<ProbeRow, SimError> {
        let fresh = self.probes.as_ref().is_none_or(|p| p.setup != *setup);
        if fresh {
            let tables = [super::named(&self.cells, &self.fixed, 0), super::named(&self.cells, &self.fixed, 1)];
            let rows = self.options.order == super::CellOrder::Linear;
            let cfg = self.options.kernel_config();
            self.probes = Some(GpuProbes::new(&self.device, cfg, rows, tables, setup, self.params.n_particles, self.max_dim)?);
        }
        let Some(probes) = self.probes.take() else { unreachable!("made above") };
        let n = self.params.n_particles;
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("probe.row") });
        self.cur = self.record_grid(&mut enc, self.steps, false);
        self.last_reordered = false;
        enc.clear_buffer(&probes.bins, 0, None);
        {
            let mut pass = begin(&mut enc, &mut None, probes.pass.label(), 0);
            probes.pass.record(&mut pass, self.cur, n, Part::Bins, self.max_dim);
            probes.pass.record(&mut pass, self.cur, n, Part::Reduce, self.max_dim);
            let samples = probes.shape.n_surface * probes.shape.samples;
            if samples > 0 {
                probes.pass.record(&mut pass, self.cur, samples, Part::Surface, self.max_dim);
            }
        }
        self.queue.submit([enc.finish()]);
        let (bins, partials, samples) = (probes.shape.bins_words() * 4, probes.workgroups as u64 * 64, probes.shape.sample_words() * 4);
        let read = read_recorded(&self.device, &self.queue, bins + partials + samples, |enc, dst| {
            enc.copy_buffer_to_buffer(&probes.bins, 0, dst, 0, bins);
            enc.copy_buffer_to_buffer(&probes.partials, 0, dst, bins, partials);
            if samples > 0 {
                enc.copy_buffer_to_buffer(&probes.samples, 0, dst, bins + partials, samples);
            }
        });
        let shape = probes.shape;
        self.probes = Some(probes);
        let bytes = read?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let (bins, rest) = words.split_at(shape.bins_words() as usize);
        let (partials, samples) = rest.split_at((partials / 4) as usize);
        let (columns, bins) = bins.split_at((shape.cols_x * shape.cols_z) as usize);
        let (front, bins) = bins.split_at(shape.front_bins as usize);
        let (counts, tops) = bins.split_at((shape.n_slab + shape.n_point) as usize);
        let _ = columns;
        let gpu = GpuProbe {
            partials: bytemuck::cast_slice::<u32, [f32; 16]>(partials).to_vec(),
            front: front.iter().map(|&b| unordered(b)).collect(),
            counts: counts.to_vec(),
            surface_tops: tops.iter().map(|&b| unordered(b)).collect(),
            samples: bytemuck::cast_slice::<u32, f32>(&samples[..shape.sample_words() as usize]).to_vec(),
            samples_per_gauge: shape.samples as usize,
        };
        Ok(crate::probes::from_gpu(setup, &gpu, step, time))
    }
}

/// The float behind `shaders/probes.wgsl`'s `ordered` bits; `None` for 0 (nothing there).
fn unordered(u: u32) -> Option<f32> {
    if u == 0 {
        return None;
    }
    Some(f32::from_bits(if u & 0x8000_0000 != 0 { u & 0x7fff_ffff } else { !u }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn ordered_bits_order_as_the_floats() {
        let ordered = |f: f32| {
            let b = f.to_bits();
            if b & 0x8000_0000 != 0 { !b } else { b | 0x8000_0000 }
        };
        let xs = [-1e30f32, -2.5, -1e-30, -0.0, 0.0, 1e-30, 0.5, 3.0, 1e30];
        for w in xs.windows(2) {
            assert!(ordered(w[0]) <= ordered(w[1]), "{} {}", w[0], w[1]);
        }
        for x in xs {
            assert!(ordered(x) > 0);
            assert_eq!(super::unordered(ordered(x)), Some(x));
        }
        assert_eq!(super::unordered(0), None);
    }

    #[test]
    fn bounds_round_up_to_the_f32_the_cpu_test_agrees_with() {
        for a in [1.46f64, 0.1, 2.0 / 3.0, 5.999_999_9, -0.3] {
            let f = super::up(a);
            assert!(f as f64 >= a && (f.next_down() as f64) < a, "{a}: {f}");
        }
    }
}
