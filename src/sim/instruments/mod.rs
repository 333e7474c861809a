//! Instruments beside the simulation, never part of a step: blocking readbacks of the GPU state
//! (tests, `rillet run`'s probes, the benchmark), the neighbour probe and the all-pairs
//! baseline (extra passes on the current state), and the copy kernel the benchmark measures
//! bandwidth against. Each of these waits on the GPU; the frame loop uses none of them.

pub(crate) mod all_pairs;
pub(crate) mod neighbour_probe;

use super::buffers::{read_recorded, read_vec};
use super::layout::CellOrder;
use super::params::Diagnostics;
use super::profiler::Profiler;
use super::readback::ReadError;
use super::shader::{self, Named, Single, Walk};
use super::{Sim, SimError, begin, named};
use crate::gpu::Gpu;
use wgpu::util::DeviceExt;

/// Particle state read back to the CPU, in slot order.
#[derive(Clone, Debug)]
pub struct Particles {
    pub pos_mass: Vec<[f32; 4]>,
    pub vel_rho: Vec<[f32; 4]>,
    pub id: Vec<u32>,
    /// The pressure the solver applied in the last step, by slot (Pa), where it is not a
    /// function of the density: DFSPH's ([`dfsph_pressure`]). `None`: the Tait pressure of the
    /// density (WCSPH).
    pub pressure: Option<Vec<f32>>,
    /// The moving solids' states at the copied step (empty without moving solids).
    pub bodies: Vec<crate::sim::motion::BodyState>,
}

impl Particles {
    /// Positions, velocities, densities (and the solver's pressure) indexed by particle id.
    pub fn by_id(&self) -> Particles {
        let n = self.id.len();
        let mut out = Particles {
            pos_mass: vec![[0.0; 4]; n],
            vel_rho: vec![[0.0; 4]; n],
            id: (0..n as u32).collect(),
            pressure: self.pressure.as_ref().map(|_| vec![0.0; n]),
            bodies: self.bodies.clone(),
        };
        for (slot, &id) in self.id.iter().enumerate() {
            out.pos_mass[id as usize] = self.pos_mass[slot];
            out.vel_rho[id as usize] = self.vel_rho[slot];
            if let (Some(to), Some(from)) = (&mut out.pressure, &self.pressure) {
                to[id as usize] = from[slot];
            }
        }
        out
    }

    /// Particle `slot`'s pressure: the solver's where there is one, else `tait(density)`.
    pub fn pressure_at(&self, slot: usize, tait: impl Fn(f64) -> f64) -> f64 {
        match &self.pressure {
            Some(p) => p[slot] as f64,
            None => tait(self.vel_rho[slot][3] as f64),
        }
    }
}

/// DFSPH's pressure by slot from the solves' totals by particle id (`warm_pressure` holds
/// κ dt², `warm_divergence` κ dt, docs/PHYSICS.md "DFSPH"): p_i = ρ_i² (κ_pressure + κ_divergence),
/// with `dt` the last step's (0 before the first step: no pressure yet). κ is p/ρ² of the
/// symmetric pressure force over the step, so the sum is the pressure the step applied.
pub fn dfsph_pressure(vel_rho: &[[f32; 4]], id: &[u32], warm_pressure: &[f32], warm_divergence: &[f32], dt: f32) -> Vec<f32> {
    let dt = dt as f64;
    id.iter()
        .zip(vel_rho)
        .map(|(&id, v)| {
            let (kp, kv) = (warm_pressure[id as usize] as f64, warm_divergence[id as usize] as f64);
            let kappa = if dt > 0.0 { kp / (dt * dt) + kv / dt } else { 0.0 };
            (v[3] as f64 * v[3] as f64 * kappa) as f32
        })
        .collect()
}

/// DFSPH's two solve totals by particle id: (κ dt² of the pressure solve, κ dt of the divergence
/// solve).
pub(crate) type SolveTotals = (Vec<f32>, Vec<f32>);

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
    /// The current particles (with DFSPH's pressure) and the diagnostics, in one copy and one
    /// round trip ([`ParticleCopy`](super::readback::ParticleCopy)).
    pub(crate) fn read_state(&self) -> Result<(Particles, Diagnostics), ReadError> {
        let copy = self.particle_copy();
        let bytes = read_recorded(&self.device, &self.queue, copy.bytes(), |enc, dst| {
            self.record_particle_copy(enc, dst, 0);
        })?;
        copy.decode(&bytes)
    }

    /// The current particles ([`Sim::read_state`]).
    pub fn read_particles(&self) -> Result<Particles, ReadError> {
        Ok(self.read_state()?.0)
    }

    /// DFSPH: each solve's total κ at the end of the last step, by particle id (κ dt² for the
    /// pressure solve, κ dt for the divergence solve: the next step's warm start); `None` for
    /// WCSPH.
    pub fn read_dfsph_totals(&self) -> Result<Option<SolveTotals>, ReadError> {
        let n = self.params.n_particles as usize;
        let (d, q) = (&self.device, &self.queue);
        match self.fixed.dfsph.as_ref() {
            Some(b) => Ok(Some((read_vec(d, q, &b.warm_pressure, n)?, read_vec(d, q, &b.warm_divergence, n)?))),
            None => Ok(None),
        }
    }

    /// Grid arrays of the last step's grid build. `cell_of`, `rank` and `sorted` refer to the
    /// slots of the set the build read (before that step's reorder, if it had one). `counts`
    /// and `cell_start` include the cell of free slots (`num_cells`).
    pub fn read_grid(&self) -> Result<GridSnapshot, ReadError> {
        let (d, q) = (&self.device, &self.queue);
        let n = self.params.n_particles as usize;
        let cells = self.cells.layout.num_cells as usize + 1;
        Ok(GridSnapshot {
            counts: read_vec(d, q, &self.cells.counts, cells)?,
            cell_start: read_vec(d, q, &self.cells.cell_start, cells + 1)?,
            cell_of: read_vec(d, q, &self.fixed.cell_of, n)?,
            rank: read_vec(d, q, &self.fixed.rank, n)?,
            sorted: read_vec(d, q, &self.fixed.sorted, n)?,
        })
    }

    /// The diagnostics and the moving solids' states (empty without them), in one copy: what a
    /// stop of `rillet run` reads when it needs no particles.
    pub(crate) fn read_diagnostics_and_bodies(&self) -> Result<(Diagnostics, Vec<crate::sim::motion::BodyState>), ReadError> {
        let diag = std::mem::size_of::<Diagnostics>() as u64;
        let bytes = read_recorded(&self.device, &self.queue, diag + self.bodies_bytes(), |enc, dst| {
            self.record_diagnostics_copy(enc, dst, 0);
            self.record_bodies_copy(enc, dst, diag);
        })?;
        let d = bytemuck::pod_read_unaligned(&bytes[..diag as usize]);
        let body_bytes = &bytes[diag as usize..(diag + self.bodies_bytes()) as usize];
        Ok((d, bytemuck::pod_collect_to_vec(body_bytes)))
    }

    pub fn read_diagnostics(&self) -> Result<Diagnostics, ReadError> {
        Ok(read_vec::<Diagnostics>(&self.device, &self.queue, &self.fixed.diag, 1)?[0])
    }

    /// The simulation's buffers by WGSL name, for the current set (an instrument adds its own).
    fn named(&self) -> Named {
        named(&self.cells, &self.fixed, self.cur)
    }

    /// Runs the neighbour probe (same loop as density/force) on the current grid and state and
    /// returns, per particle id, [count, Σid, Σid², xor of hashed ids] of its neighbours within h.
    /// Test instrument; requires the grid of the current positions: after `build_grid(false)`
    /// read through `sorted`, after `build_grid(true)` read directly.
    pub fn probe_neighbours(&self) -> Result<Vec<[u32; 4]>, SimError> {
        let through_sorted = !self.last_reordered;
        let d = &self.device;
        let n = self.params.n_particles;
        let out = shader::storage(d, "test.probe", n as u64 * 16);
        let mut table = self.named();
        table.add("probe", &out);
        let probe = neighbour_probe::new(d, self.kernel_config(), self.options.order == CellOrder::Linear)?.bound_to(d, &table)?;
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("test.probe") });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(probe.label()), timestamp_writes: None });
            probe.record(&mut pass, 0, n, Walk::after(!through_sorted), self.max_dim);
        }
        self.queue.submit([enc.finish()]);
        Ok(read_vec(d, &self.queue, &out, n as usize)?)
    }

    /// Runs the all-pairs density baseline (no grid) `repeats` times on the current state and
    /// returns the densities by slot and the mean GPU milliseconds per run (None without
    /// timestamp queries). Blocking: benchmark and tests only.
    pub fn all_pairs_density(&self, repeats: u32) -> Result<(Vec<f32>, Option<f64>), SimError> {
        let d = &self.device;
        let n = self.params.n_particles;
        let out = shader::storage(d, "baseline.density", n as u64 * 4);
        let mut table = self.named();
        table.add("density", &out);
        let pass_ = all_pairs::new(d, self.kernel_config())?.bound_to(d, &table)?;
        let timed = self.device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut prof = timed.then(|| Profiler::new(d, &self.queue, repeats.max(1)));
        let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("baseline.all_pairs") });
        for r in 0..repeats.max(1) {
            let mut pass = begin(&mut enc, &mut prof, pass_.label(), r as u64);
            pass_.record(&mut pass, 0, n, Single, self.max_dim);
        }
        if let Some(p) = &prof {
            p.resolve(&mut enc);
        }
        self.queue.submit([enc.finish()]);
        let density = read_vec(d, &self.queue, &out, n as usize)?;
        let ms = match prof.as_mut() {
            Some(p) => p.read(d, &self.queue)?.per_step_ms(pass_.label()),
            None => None,
        };
        Ok((density, ms))
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

    /// Accelerations of the last sph.force, by slot of the current set.
    pub fn read_acc(&self) -> Result<Vec<[f32; 4]>, ReadError> {
        read_vec(&self.device, &self.queue, &self.fixed.acc, self.params.n_particles as usize)
    }
}

/// Measured bandwidth of a plain vec4 copy kernel (read + write bytes per second), the ceiling
/// the benchmark holds the streaming passes against; None without timestamp queries.
pub fn copy_bandwidth(gpu: &Gpu) -> Result<Option<f64>, SimError> {
    if !gpu.has_timestamps() {
        return Ok(None);
    }
    let d = &gpu.device;
    // 256 MiB per buffer, or what a binding allows
    let bytes = (256u64 << 20).min(gpu.max_binding_bytes());
    let n = (bytes / 16) as u32;
    let src = shader::storage(d, "baseline.copy.src", bytes);
    let dst = shader::storage(d, "baseline.copy.dst", bytes);
    let params = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("baseline.copy.params"),
        contents: bytemuck::cast_slice(&[n, 0, 0, 0]),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let mut table = Named::default();
    table.add("cp", &params).add("src", &src).add("dst", &dst);
    let copy = shader::Pass::<Single>::new(d, &shader::COPY, shader::KernelConfig::plain(256), &[])?.bound_to(d, &table)?;
    let reps = 20u32;
    let mut prof = Some(Profiler::new(d, &gpu.queue, reps));
    let mut enc = d.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(copy.label()) });
    for r in 0..reps {
        let mut pass = begin(&mut enc, &mut prof, copy.label(), r as u64);
        copy.record(&mut pass, 0, n, Single, gpu.limits.max_compute_workgroups_per_dimension);
    }
    let mut prof = prof.expect("created above");
    prof.resolve(&mut enc);
    gpu.queue.submit([enc.finish()]);
    let p = prof.read(d, &gpu.queue)?;
    // the first repetitions warm up: take the best
    Ok(p.min_ns.get(copy.label()).map(|best| 2.0 * bytes as f64 / (best * 1e-9)))
}
