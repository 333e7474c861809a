//! sim.sensors — the scene's pressure sensors, sampled on the GPU (`shaders/sensors.wgsl`): at
//! the start of every step whose state is due (after that step's grid build, so the walk sees the
//! grid of the very positions it samples), one invocation per sensor interpolates the fluid's
//! pressure at the sensor's point and the pass's output is copied into a ring of rows on the
//! GPU, with the clock of that state. The rows stay there until [`Sim::read_sensor_rows`]
//! reads them all in one copy: no readback per sample. [`crate::reference::sensors`] is the CPU
//! twin; docs/PHYSICS.md, "Sensors", the definition.

use super::buffers::read_recorded;
use super::readback::ReadError;
use super::shader::{self, KernelConfig, KernelError, Pass, Variant, Walk};
use super::{Sim, begin};

/// Rows the GPU holds between two reads: a run reads them before the ring is full
/// ([`Sim::sensor_room`]).
pub(crate) const RING_ROWS: u32 = 1024;

/// The sensors a simulation samples: their points and how often.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SensorSpec {
    /// Each sensor's point (m).
    pub points: Vec<[f32; 3]>,
    /// Each sensor's least fill: below it the interpolation's sum is divided by it instead of
    /// by the fill (docs/PHYSICS.md, "Sensors").
    pub fill_min: Vec<f32>,
    /// A sample of the state every this many steps (at least 1), counted from step 0.
    pub every: u64,
    /// How many of `points` each sensor reads, in order (a disc sensor many, whose reading is
    /// their mean); empty: one each.
    pub members: Vec<u32>,
    /// The solids whose force and moment the fluid exerts are sampled with the points.
    pub forces: Vec<ForceSpec>,
    /// The sections whose flow rates are sampled with the points.
    pub flows: Vec<FlowSpec>,
}

/// A flow section as sim.flow reads it (docs/PHYSICS.md, "Flow through a section").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSpec {
    /// Its centre (m) and half the slab's thickness.
    pub at: [f32; 3],
    pub half_thickness: f32,
    /// Unit normal, and the rectangle's first side (unit, in the plane).
    pub normal: [f32; 3],
    pub side: [f32; 3],
    /// Half the sides along `side` and along `normal × side` (m; 1e30: no bound).
    pub half_size: [f32; 2],
}

impl FlowSpec {
    /// The section at `at` across `normal` (not zero), `size` its sides (None: the whole
    /// plane), averaged over a slab `thickness` thick. Its first side is along the world axis
    /// least along the normal (the first of x, y, z on a tie), made perpendicular to it.
    pub fn new(at: [f32; 3], normal: [f32; 3], size: Option<[f32; 2]>, thickness: f32) -> Self {
        let n = glam::Vec3::from(normal).normalize();
        let axis = if n.x.abs() <= n.y.abs() && n.x.abs() <= n.z.abs() {
            glam::Vec3::X
        } else if n.y.abs() <= n.z.abs() {
            glam::Vec3::Y
        } else {
            glam::Vec3::Z
        };
        let side = (axis - axis.dot(n) * n).normalize();
        let half_size = size.map_or([1e30; 2], |s| [0.5 * s[0], 0.5 * s[1]]);
        Self { at, half_thickness: 0.5 * thickness, normal: n.to_array(), side: side.to_array(), half_size }
    }

    /// sim.flow's three words.
    fn words(&self) -> [[f32; 4]; 3] {
        let (a, n, e) = (self.at, self.normal, self.side);
        [[a[0], a[1], a[2], self.half_thickness], [n[0], n[1], n[2], self.half_size[0]], [e[0], e[1], e[2], self.half_size[1]]]
    }
}

/// The sensors of a simulation by kind, each in the scene's order, by name (`sensors.csv`'s
/// columns: `crate::probes::sensors`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    pub pressure: Vec<String>,
    pub forces: Vec<String>,
    pub flows: Vec<String>,
}

impl Columns {
    pub fn is_empty(&self) -> bool {
        self.pressure.is_empty() && self.forces.is_empty() && self.flows.is_empty()
    }
}

/// A force sensor: a solid that does not move, by its boundary particles' ids, and the point
/// its moment is about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForceSpec {
    /// Its boundary particles are the ids `first..first + count`.
    pub first: u32,
    pub count: u32,
    /// m.
    pub about: [f32; 3],
}

impl SensorSpec {
    pub fn is_empty(&self) -> bool {
        self.points.is_empty() && self.forces.is_empty() && self.flows.is_empty()
    }

    /// Each sensor's range of `points`.
    pub fn groups(&self) -> Vec<std::ops::Range<usize>> {
        if self.members.is_empty() {
            return (0..self.points.len()).map(|k| k..k + 1).collect();
        }
        let mut first = 0;
        self.members
            .iter()
            .map(|&m| {
                first += m as usize;
                first - m as usize..first
            })
            .collect()
    }
}

/// One sample of every sensor: the state after `step` steps.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorRow {
    pub step: u64,
    /// Simulated time of that state, s (the GPU's clock for an adaptive dt, `step · dt` for a
    /// fixed one, as the probe rows).
    pub time: f64,
    /// Per sensor: the interpolated pressure (Pa), the fill (the kernel sum of the fluid there;
    /// 0 in air, where the pressure is 0) and the fluid particles within h (of a disc sensor:
    /// the means over its points, and the particles within h of its centre).
    pub values: Vec<SensorValue>,
    /// Per force sensor: the fluid's force on the solid (N) and its moment about the sensor's
    /// point (N·m), `[fx, fy, fz, mx, my, mz]`.
    pub forces: Vec<[f32; 6]>,
    /// Per flow section: the volume rate through it (m³/s), the mass rate (kg/s) and the
    /// fluid particles in its slab.
    pub flows: Vec<FlowValue>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowValue {
    pub volume_rate: f32,
    pub mass_rate: f32,
    pub particles: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SensorValue {
    pub pressure: f32,
    pub fill: f32,
    pub neighbours: u32,
}

impl SensorValue {
    /// A disc sensor's reading from its points' (the centre first): the means of the pressure
    /// and the fill (summed in f64), the centre's neighbours. One point reads as itself.
    pub fn mean(points: &[SensorValue]) -> SensorValue {
        let n = points.len().max(1) as f64;
        let mean = |f: fn(&SensorValue) -> f32| (points.iter().map(|p| f(p) as f64).sum::<f64>() / n) as f32;
        SensorValue { pressure: mean(|p| p.pressure), fill: mean(|p| p.fill), neighbours: points.first().map_or(0, |p| p.neighbours) }
    }
}

/// The pass: its walk, and DFSPH's pressure or Tait's.
pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig, rows: bool, dfsph: bool) -> Result<Pass<Walk>, KernelError> {
    Pass::new(device, &shader::SENSORS, cfg, &[("ROWS", shader::flag(rows)), ("DFSPH", shader::flag(dfsph))])
}

/// The parts of sim.solid_force (`shaders/solid_force.wgsl`'s `PART`): per boundary particle
/// (a walk of the grid, after a reorder or not), and the sums per sensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ForcePart {
    Each(Walk),
    Sum,
}

impl Variant for ForcePart {
    const ALL: &'static [Self] = &[ForcePart::Each(Walk::Direct), ForcePart::Each(Walk::ThroughSorted), ForcePart::Sum];
    fn constants(self) -> Vec<(&'static str, f64)> {
        match self {
            ForcePart::Each(w) => [vec![("PART", 0.0)], w.constants()].concat(),
            ForcePart::Sum => vec![("PART", 1.0), ("USE_SORTED", 0.0)],
        }
    }
}

/// The parts of sim.flow (`shaders/flow.wgsl`'s `PART`): per particle, and the sums per
/// section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlowPart {
    Each,
    Sum,
}

impl Variant for FlowPart {
    const ALL: &'static [Self] = &[FlowPart::Each, FlowPart::Sum];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("PART", if self == FlowPart::Each { 0.0 } else { 1.0 })]
    }
}

/// sim.flow.
pub(crate) fn flows(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<FlowPart>, KernelError> {
    Pass::new(device, &shader::FLOW, cfg, &[])
}

/// sim.solid_force, with the terms sph.force has: DFSPH's pressure or Tait's, the no-slip
/// friction, the walls' approach viscosity.
pub(crate) fn forces(
    device: &wgpu::Device,
    cfg: KernelConfig,
    rows: bool,
    dfsph: bool,
    no_slip: bool,
    approach: bool,
) -> Result<Pass<ForcePart>, KernelError> {
    let constants = [
        ("ROWS", shader::flag(rows)),
        ("DFSPH", shader::flag(dfsph)),
        ("NO_SLIP", shader::flag(no_slip)),
        ("WALL_APPROACH", shader::flag(approach)),
    ];
    Pass::new(device, &shader::SOLID_FORCE, cfg, &constants)
}

/// The sensors' buffers and what the CPU knows of the ring.
pub(crate) struct SensorBuffers {
    pub points: wgpu::Buffer,
    /// The passes' output: one `vec4` per point, then two per force sensor (force, moment).
    pub out: wgpu::Buffer,
    /// The force sensors: two `vec4<u32>` each (first id, count, first of `force_each`, first
    /// of `out`; the moment's point as bits), and a force and moment per boundary particle.
    pub force_sets: wgpu::Buffer,
    pub force_each: wgpu::Buffer,
    /// Force sensors.
    pub n_forces: u32,
    /// The flow sections (three `vec4` each), sim.flow's partial sums per workgroup and
    /// section, and where in `out` its rates go.
    pub flow_sections: wgpu::Buffer,
    pub flow_partials: wgpu::Buffer,
    pub flow_out: wgpu::Buffer,
    pub n_flows: u32,
    /// [`RING_ROWS`] rows of `n + 2 n_forces` `vec4`.
    ring: wgpu::Buffer,
    /// [`RING_ROWS`] pairs of the clock's words (`time`, `time_lo`).
    clock: wgpu::Buffer,
    /// Placeholders a WCSPH simulation binds as the DFSPH totals.
    pub no_totals: Option<wgpu::Buffer>,
    pub n: u32,
    /// Each sensor's range of the points (`SensorSpec::groups`).
    groups: Vec<std::ops::Range<usize>>,
    every: u64,
    /// The next step whose state is sampled.
    next: u64,
    /// The steps of the rows the ring holds, in order.
    pending: Vec<u64>,
    dropped: u64,
}

impl SensorBuffers {
    /// Buffers for `spec`'s sensors of a simulation that starts at step `from` (its first sample
    /// is the first multiple of `every` at or after it); `dfsph`: the simulation has the totals.
    /// `n`: the simulation's particles (sim.flow's partial sums: a row per 32 of them, the
    /// smallest workgroup).
    pub(crate) fn new(device: &wgpu::Device, spec: &SensorSpec, from: u64, dfsph: bool, particles: u32) -> Self {
        let workgroups = particles.div_ceil(32).max(1);
        let n = spec.points.len() as u32;
        let mut points: Vec<[f32; 4]> = spec.points.iter().zip(&spec.fill_min).map(|(p, &f)| [p[0], p[1], p[2], f]).collect();
        if points.is_empty() {
            // a placeholder the pass never reads (no dispatch without points)
            points.push([0.0; 4]);
        }
        let n_forces = spec.forces.len() as u32;
        let mut sets: Vec<[u32; 4]> = Vec::new();
        let mut each = 0;
        for (k, f) in spec.forces.iter().enumerate() {
            sets.push([f.first, f.count, each, n + 2 * k as u32]);
            sets.push([f.about[0].to_bits(), f.about[1].to_bits(), f.about[2].to_bits(), 0]);
            each += f.count;
        }
        if sets.is_empty() {
            sets.push([0, 0, 0, 0]);
            sets.push([0; 4]);
        }
        let n_flows = spec.flows.len() as u32;
        let mut sections: Vec<[f32; 4]> = spec.flows.iter().flat_map(|f| f.words()).collect();
        if sections.is_empty() {
            sections.extend([[0.0; 4]; 3]);
        }
        let row = (n + 2 * n_forces + n_flows) as u64 * 16;
        let every = spec.every.max(1);
        Self {
            points: shader::storage_init(device, "sensors.points", bytemuck::cast_slice(&points), wgpu::BufferUsages::empty()),
            out: shader::storage(device, "sensors.out", row),
            force_sets: shader::storage_init(device, "sensors.force_sets", bytemuck::cast_slice(&sets), wgpu::BufferUsages::empty()),
            force_each: shader::storage(device, "sensors.force_each", each.max(1) as u64 * 32),
            n_forces,
            flow_sections: shader::storage_init(
                device,
                "sensors.flow_sections",
                bytemuck::cast_slice(&sections),
                wgpu::BufferUsages::empty(),
            ),
            flow_partials: shader::storage(device, "sensors.flow_partials", workgroups as u64 * n_flows.max(1) as u64 * 16),
            flow_out: shader::storage_init(
                device,
                "sensors.flow_out",
                bytemuck::bytes_of(&(n + 2 * n_forces)),
                wgpu::BufferUsages::empty(),
            ),
            n_flows,
            ring: shader::storage(device, "sensors.ring", RING_ROWS as u64 * row),
            clock: shader::storage(device, "sensors.clock", RING_ROWS as u64 * 8),
            no_totals: (!dfsph).then(|| shader::storage(device, "sensors.no_totals", 16)),
            n,
            groups: spec.groups(),
            every,
            next: from.div_ceil(every) * every,
            pending: Vec::new(),
            dropped: 0,
        }
    }
}

impl Sim {
    /// Whether the simulation samples sensors.
    pub fn has_sensors(&self) -> bool {
        self.fixed.sensors.is_some()
    }

    /// The step count of the state the simulation holds (a resumed one's from its checkpoint).
    pub(crate) fn absolute_step(&self) -> u64 {
        self.first_step + self.steps
    }

    /// Steps that can be recorded before the ring is full and must be read
    /// ([`Sim::read_sensor_rows`]): 0 when it is; `None` without sensors.
    pub fn sensor_room(&self) -> Option<u64> {
        let s = self.fixed.sensors.as_ref()?;
        let free = RING_ROWS as u64 - s.pending.len() as u64;
        // the free rows take the samples of states next, next + every, …; the state after them
        // would find the ring full at the start of its step
        Some((s.next + free * s.every).saturating_sub(self.absolute_step()))
    }

    /// Whether the next step samples the sensors (it then builds the grid: src/sim/keep.rs).
    pub(crate) fn sensor_due(&self) -> bool {
        self.fixed.sensors.as_ref().is_some_and(|s| s.next == self.absolute_step())
    }

    /// Records the sample of the current state if it is due (the grid of the current positions
    /// is built on set `set`, read as `walk` says).
    pub(crate) fn record_sensors(&mut self, encoder: &mut wgpu::CommandEncoder, set: usize, walk: Walk) {
        let step = self.absolute_step();
        let Self { passes, fixed, profiler, max_dim, params, options, .. } = self;
        let (Some(pass), Some(s)) = (&passes.sensors, &mut fixed.sensors) else { return };
        if step != s.next {
            return;
        }
        s.next += s.every;
        if s.pending.len() >= RING_ROWS as usize {
            s.dropped += 1;
            return;
        }
        if s.n > 0 {
            pass.record(&mut begin(encoder, profiler, pass.label(), step), set, s.n, walk, *max_dim);
        }
        if let (Some(forces), true) = (&passes.solid_force, s.n_forces > 0) {
            let mut p = begin(encoder, profiler, forces.label(), step);
            forces.record(&mut p, set, params.n_particles, ForcePart::Each(walk), *max_dim);
            forces.record(&mut p, set, s.n_forces * options.workgroup_size, ForcePart::Sum, *max_dim);
        }
        if let (Some(flows), true) = (&passes.flow, s.n_flows > 0) {
            let mut p = begin(encoder, profiler, flows.label(), step);
            flows.record(&mut p, set, params.n_particles, FlowPart::Each, *max_dim);
            flows.record(&mut p, set, s.n_flows * options.workgroup_size, FlowPart::Sum, *max_dim);
        }
        let row = s.pending.len() as u64;
        let bytes = (s.n + 2 * s.n_forces + s.n_flows) as u64 * 16;
        encoder.copy_buffer_to_buffer(&s.out, 0, &s.ring, row * bytes, bytes);
        let time_word = std::mem::offset_of!(super::params::Diagnostics, time) as u64;
        encoder.copy_buffer_to_buffer(&fixed.diag, time_word, &s.clock, row * 8, 8);
        s.pending.push(step);
    }

    /// Samples lost because the ring was full (a caller that reads within
    /// [`Sim::sensor_room`] loses none).
    pub fn sensor_rows_dropped(&self) -> u64 {
        self.fixed.sensors.as_ref().map_or(0, |s| s.dropped)
    }

    /// Samples the current state now if it is due and not sampled yet (the end of a run: no
    /// step follows to sample it at its start). Builds the grid of the current positions first,
    /// which leaves the particles as they are; the grid diagnostics then describe this build.
    pub fn sample_sensors_now(&mut self) {
        let due = self.fixed.sensors.as_ref().is_some_and(|s| s.next == self.absolute_step() && s.pending.len() < RING_ROWS as usize);
        if !due {
            return;
        }
        let mut enc = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sim.sensors") });
        self.cur = self.record_grid(&mut enc, self.steps, false);
        self.last_reordered = false;
        self.record_sensors(&mut enc, self.cur, Walk::ThroughSorted);
        self.queue.submit([enc.finish()]);
    }

    /// Every row the ring holds, in step order, in one copy (waits for the GPU); the ring is
    /// empty after it. Empty without sensors.
    pub fn read_sensor_rows(&mut self) -> Result<Vec<SensorRow>, ReadError> {
        let Some(s) = self.fixed.sensors.as_ref() else { return Ok(vec![]) };
        if s.pending.is_empty() {
            return Ok(vec![]);
        }
        let rows = s.pending.len() as u64;
        let width = (s.n + 2 * s.n_forces + s.n_flows) as usize;
        let nf = s.n_forces as usize;
        let ring_bytes = rows * width as u64 * 16;
        let bytes = read_recorded(&self.device, &self.queue, ring_bytes + rows * 8, |enc, dst| {
            enc.copy_buffer_to_buffer(&s.ring, 0, dst, 0, ring_bytes);
            enc.copy_buffer_to_buffer(&s.clock, 0, dst, ring_bytes, rows * 8);
        })?;
        let words: &[f32] = bytemuck::cast_slice(&bytes);
        let n = s.n as usize;
        let fixed_dt = (!self.is_adaptive()).then_some(self.fixed_dt());
        let out = s
            .pending
            .iter()
            .enumerate()
            .map(|(r, &step)| {
                let clock = &words[(ring_bytes / 4) as usize + 2 * r..][..2];
                let row = &words[r * width * 4..(r + 1) * width * 4];
                let points: Vec<SensorValue> =
                    row[..n * 4].chunks_exact(4).map(|v| SensorValue { pressure: v[0], fill: v[1], neighbours: v[2] as u32 }).collect();
                let values = s.groups.iter().map(|g| SensorValue::mean(&points[g.clone()])).collect();
                let forces = row[n * 4..(n + 2 * nf) * 4].chunks_exact(8).map(|v| [v[0], v[1], v[2], v[4], v[5], v[6]]).collect();
                let flows = row[(n + 2 * nf) * 4..]
                    .chunks_exact(4)
                    .map(|v| FlowValue { volume_rate: v[0], mass_rate: v[1], particles: v[2] as u32 })
                    .collect();
                let time = fixed_dt.map_or(clock[0] as f64 + clock[1] as f64, |dt| step as f64 * dt);
                SensorRow { step, time, values, forces, flows }
            })
            .collect();
        if let Some(s) = self.fixed.sensors.as_mut() {
            s.pending.clear();
        }
        Ok(out)
    }
}
