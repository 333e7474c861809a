//! probe.row — what a probe row needs, measured on the GPU (`shaders/probes.wgsl`): a grid build
//! of the current positions, then three dispatches (the columns' and bins' maxima and the
//! gauges' counts; per particle the neighbour count, depth, errors, energies and momentum reduced
//! to one row per workgroup; the free-surface gauges' kernel sums) and one small read of what
//! they wrote ([`ProbeReadings`]). `crate::probes` says what to measure ([`ProbeSpec`], from its
//! probe setup) and finishes the row on the CPU by the definitions its CPU twin (`measure`, on a
//! copy of every particle) implements. Nothing of the simulation's state changes: the next step
//! builds its grid again.

use super::buffers::read_recorded;
use super::shader::{self, KernelConfig, KernelError, Named, Pass, Variant};
use super::{Sim, SimError, begin};
pub use crate::wgsl::shared::ProbeConfig;

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

/// What to measure: the sizes and thresholds ([`ProbeConfig`]), and the gauges (slab gauges
/// `[x from, x to, -, -]`, point gauges `[x from, x to, z from, z to]`, free-surface gauges
/// `[x, z, -, -]`, in that order; a particle is in a gauge where `x >= from && x < to`).
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSpec {
    pub config: ProbeConfig,
    pub gauges: Vec<[f32; 4]>,
}

impl ProbeSpec {
    fn bins_words(&self) -> u64 {
        let c = &self.config;
        (c.cols_x * c.cols_z + c.front_bins + c.n_slab + c.n_point + c.n_surface) as u64
    }
    fn sample_words(&self) -> u64 {
        (self.config.n_surface * self.config.samples) as u64
    }
}

/// What the GPU probes read back.
#[derive(Clone, Debug, Default)]
pub struct ProbeReadings {
    /// Per workgroup: [fluid count, Σ|ε|, spray, outside, kinetic, potential, elastic, p_x, p_y,
    /// p_z, max |ε|, max compression, max |ε| interior, max |ε| bulk, max speed, −min wall
    /// distance] (ε = ρ/ρ0 − 1; sums 0 and maxima their neutral value where no fluid was).
    pub partials: Vec<[f32; 16]>,
    /// The largest x in each bin of h along x (None: empty).
    pub front: Vec<Option<f32>>,
    /// Fluid particles in each slab gauge, then in each point gauge.
    pub counts: Vec<u32>,
    /// The highest fluid particle within h of each free-surface gauge's line (None: none).
    pub surface_tops: Vec<Option<f32>>,
    /// `samples_per_gauge` kernel sums c(y) per free-surface gauge, at y = top + h − k·step.
    pub samples: Vec<f32>,
    pub samples_per_gauge: usize,
}

/// The GPU probes of one spec: the pass, bound to both particle sets, and its buffers.
pub(crate) struct GpuProbes {
    spec: ProbeSpec,
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
        spec: &ProbeSpec,
        n: u32,
        max_dim: u32,
    ) -> Result<Self, KernelError> {
        let mut gauges = spec.gauges.clone();
        if gauges.is_empty() {
            gauges.push([0.0; 4]);
        }
        let words = |w: u64| w.max(1) * 4;
        // the reduce part's workgroups, as its dispatch lays them out (2D beyond max_dim)
        let (wx, wy) = shader::grid_2d(n.div_ceil(cfg.wg_size).max(1), max_dim);
        let workgroups = wx * wy;
        let config = shader::storage_init(device, "probe.config", bytemuck::bytes_of(&spec.config), wgpu::BufferUsages::empty());
        let gauges = shader::storage_init(device, "probe.gauges", bytemuck::cast_slice(&gauges), wgpu::BufferUsages::empty());
        let bins = shader::storage(device, "probe.bins", words(spec.bins_words()));
        let partials = shader::storage(device, "probe.partials", workgroups as u64 * 64);
        let samples = shader::storage(device, "probe.samples", words(spec.sample_words()));
        let tables = tables.map(|mut t| {
            t.add("probe_config", &config)
                .add("probe_gauges", &gauges)
                .add("probe_bins", &bins)
                .add("probe_partials", &partials)
                .add("probe_samples", &samples);
            t
        });
        let mut pass = Pass::new(device, &shader::PROBES, cfg, &[("ROWS", shader::flag(rows))])?;
        shader::Bindable::bind(&mut pass, device, &tables)?;
        Ok(Self { spec: spec.clone(), pass, bins, partials, samples, workgroups })
    }
}

impl Sim {
    /// What a probe row of the current state needs, measured on the GPU as `spec` says
    /// ([`GpuProbes`]), without a copy of the particles. Builds the grid of the current
    /// positions (the grid diagnostics then describe this build); the particles stay as they
    /// are.
    pub fn read_probes(&mut self, spec: &ProbeSpec) -> Result<ProbeReadings, SimError> {
        if self.probes.as_ref().is_none_or(|p| p.spec != *spec) {
            let tables = [super::named(&self.cells, &self.fixed, 0), super::named(&self.cells, &self.fixed, 1)];
            let rows = self.options.order == super::CellOrder::Linear;
            let cfg = self.kernel_config();
            self.probes = Some(GpuProbes::new(&self.device, cfg, rows, tables, spec, self.params.n_particles, self.max_dim)?);
        }
        let Some(probes) = self.probes.take() else { unreachable!("made above") };
        let n = self.params.n_particles;
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("probe.row") });
        self.cur = self.record_grid(&mut enc, self.steps, false);
        self.last_reordered = false;
        enc.clear_buffer(&probes.bins, 0, None);
        let sample_words = probes.spec.sample_words();
        {
            let mut pass = begin(&mut enc, &mut None, probes.pass.label(), 0);
            probes.pass.record(&mut pass, self.cur, n, Part::Bins, self.max_dim);
            probes.pass.record(&mut pass, self.cur, n, Part::Reduce, self.max_dim);
            if sample_words > 0 {
                probes.pass.record(&mut pass, self.cur, sample_words as u32, Part::Surface, self.max_dim);
            }
        }
        self.queue.submit([enc.finish()]);
        let (bins, partials, samples) = (probes.spec.bins_words() * 4, probes.workgroups as u64 * 64, sample_words * 4);
        let read = read_recorded(&self.device, &self.queue, bins + partials + samples, |enc, dst| {
            enc.copy_buffer_to_buffer(&probes.bins, 0, dst, 0, bins);
            enc.copy_buffer_to_buffer(&probes.partials, 0, dst, bins, partials);
            if samples > 0 {
                enc.copy_buffer_to_buffer(&probes.samples, 0, dst, bins + partials, samples);
            }
        });
        let c = probes.spec.config;
        self.probes = Some(probes);
        let bytes = read?;
        let words: &[u32] = bytemuck::cast_slice(&bytes);
        let (bins, rest) = words.split_at((bins / 4) as usize);
        let (partials, samples) = rest.split_at((partials / 4) as usize);
        let (_columns, bins) = bins.split_at((c.cols_x * c.cols_z) as usize);
        let (front, bins) = bins.split_at(c.front_bins as usize);
        let (counts, tops) = bins.split_at((c.n_slab + c.n_point) as usize);
        Ok(ProbeReadings {
            partials: bytemuck::cast_slice::<u32, [f32; 16]>(partials).to_vec(),
            front: front.iter().map(|&b| unordered(b)).collect(),
            counts: counts.to_vec(),
            surface_tops: tops.iter().map(|&b| unordered(b)).collect(),
            samples: bytemuck::cast_slice::<u32, f32>(&samples[..sample_words as usize]).to_vec(),
            samples_per_gauge: c.samples as usize,
        })
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
        // shaders/probes.wgsl's `ordered`
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
}
