//! Probes: the quantities a validation run records. [`measure`] defines them on a copy of the
//! particles (the CPU twin); `rillet run` measures them on the GPU ([`measure_gpu`]).
//!
//! Every definition here is what `docs/VALIDATION.md` quotes; change one only together with it.

use crate::cells::CellGrid;
use crate::sim::params::SimParams;
use crate::sim::probes::{ProbeConfig, ProbeReadings, ProbeSpec};
use crate::sim::{Particles, Sim, SimError};

pub(crate) mod columns;
pub mod sensors;

/// What the probes need to know about a run.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSetup {
    /// Particle spacing s (m).
    pub spacing: f64,
    /// Support radius h (m).
    pub h: f64,
    pub rest_density: f64,
    /// Tait stiffness B (Pa).
    pub stiffness: f64,
    pub gravity: [f64; 3],
    pub domain_min: [f64; 3],
    pub domain_max: [f64; 3],
    /// x positions of the water-height gauges across the whole depth (m).
    pub gauges: Vec<f64>,
    /// (x, z) positions of the point water-height gauges (m).
    pub point_gauges: Vec<[f64; 2]>,
    /// (x, z) positions of the free-surface gauges (m): [`surface_elevation`].
    pub surface_gauges: Vec<[f64; 2]>,
}

impl ProbeSetup {
    pub fn new(params: &SimParams, spacing: f32, gauges: &[f32]) -> Self {
        let v = |a: [f32; 3]| a.map(|x| x as f64);
        Self {
            spacing: spacing as f64,
            h: params.h as f64,
            rest_density: params.rest_density as f64,
            stiffness: params.stiffness as f64,
            gravity: v(params.gravity),
            domain_min: v(params.domain_min),
            domain_max: v(params.domain_max),
            gauges: gauges.iter().map(|&g| g as f64).collect(),
            point_gauges: Vec::new(),
            surface_gauges: Vec::new(),
        }
    }

    /// With free-surface gauges at these (x, z) positions (their columns follow the point
    /// gauges').
    pub fn with_surface_gauges(mut self, points: &[[f32; 2]]) -> Self {
        self.surface_gauges = points.iter().map(|g| [g[0] as f64, g[1] as f64]).collect();
        self
    }

    /// With point gauges at these (x, z) positions (their columns follow the slab gauges').
    pub fn with_point_gauges(mut self, points: &[[f32; 2]]) -> Self {
        self.point_gauges = points.iter().map(|g| [g[0] as f64, g[1] as f64]).collect();
        self
    }

    /// The columns of the gauges' heights: `x{x}` for a slab, `x{x}_z{z}` for a point.
    pub(crate) fn gauge_names(&self) -> Vec<String> {
        self.gauges
            .iter()
            .map(|g| format!("x{g}"))
            .chain(self.point_gauges.iter().map(|[x, z]| format!("x{x}_z{z}")))
            .chain(self.surface_gauges.iter().map(|[x, z]| format!("surface_x{x}_z{z}")))
            .collect()
    }

    /// Tait pressure with negative pressure clamped away (docs/PHYSICS.md).
    pub(crate) fn pressure(&self, rho: f64) -> f64 {
        crate::physics::tait_pressure(rho, self.rest_density, self.stiffness)
    }

    /// Elastic energy per unit mass stored at density ρ: e(ρ) = ∫ p/ρ² dρ from ρ0, which with the
    /// clamped Tait law is (B/ρ0)·(x^(γ−1)/(γ−1) + 1/x − γ/(γ−1)), x = ρ/ρ0 ≥ 1, and 0 below ρ0
    /// (γ = 7: x⁶/6 + 1/x − 7/6).
    pub(crate) fn elastic_energy_per_mass(&self, rho: f64) -> f64 {
        let x = rho / self.rest_density;
        let g = crate::physics::TAIT_GAMMA as f64;
        if x <= 1.0 {
            0.0
        } else {
            self.stiffness / self.rest_density * (x.powi(crate::physics::TAIT_GAMMA - 1) / (g - 1.0) + 1.0 / x - g / (g - 1.0))
        }
    }

    /// Volume one fluid particle stands for on the initial lattice: s³.
    pub(crate) fn particle_volume(&self) -> f64 {
        self.spacing.powi(3)
    }
}

/// One row of `probes.csv`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProbeRow {
    pub step: u64,
    /// Simulated time (s).
    pub time: f64,
    /// Surge front (m): see [`front`].
    pub front: f64,
    /// Water height (m) at each gauge: see [`gauge_height`].
    pub gauges: Vec<f64>,
    /// max |ρ/ρ0 − 1| over all fluid particles.
    pub max_density_error: f64,
    /// mean |ρ/ρ0 − 1| over all fluid particles.
    pub mean_density_error: f64,
    /// max |ρ/ρ0 − 1| over the fluid particles deeper than h below the free surface ([`surface_depths`]).
    pub max_density_error_interior: f64,
    /// Σ ½ m |v|² (J).
    pub kinetic: f64,
    /// Σ m |g| (height above the domain floor), i.e. −Σ m g·(x − domain_min) (J).
    pub potential: f64,
    /// Σ m e(ρ): the elastic energy of the compressed fluid (J).
    pub elastic: f64,
    /// Σ m v (kg m/s).
    pub momentum: [f64; 3],
    /// Largest particle speed (m/s).
    pub max_speed: f64,
    /// Smallest distance of a fluid particle to a face of the domain (m).
    pub min_wall_distance: f64,
    /// Position clamps of the domain guard since the start (particle-steps; GPU counter,
    /// accumulated without wrapping).
    pub wall_clamps: u64,
    /// Particle-steps whose integrated state was not finite and was discarded, since the start
    /// (GPU counter, accumulated without wrapping).
    pub non_finite: u64,
    /// Fluid particles outside the domain box (more than 1 µm beyond a face) or not finite.
    pub outside: u32,
    /// max |ρ/ρ0 − 1| over the bulk: fluid particles with a full neighbourhood (at least
    /// [`BULK_FRACTION`] of the neighbours a particle has inside the lattice).
    pub max_density_error_bulk: f64,
    /// Fluid particles in spray and drops: fewer than [`SPRAY_FRACTION`] of a full neighbourhood.
    pub spray: u32,
    /// max (ρ/ρ0 − 1, 0) over all fluid particles: the largest compression (a free surface or a
    /// drop is under-dense, never over-dense, so this needs no neighbourhood).
    pub max_compression: f64,
    /// Domain-guard clamps per step since the previous row.
    pub wall_clamps_per_step: f64,
    /// Largest cell occupancy of the last grid build (0 with diagnostics off).
    pub max_per_cell: u32,
    /// Particles over the cell capacity in the last grid build.
    pub overflows: u32,
    /// Fluid particles inside a solid, more than a quarter spacing deep: leaks (0 without
    /// solids). See [`crate::scene::bodies::SolidMask`].
    pub inside_solids: u32,
    /// Fluid particles in the simulation (the fluid entries, plus what the emitters created,
    /// less what left through open faces).
    pub fluid_particles: u64,
    /// Fluid particles that left through open faces since the start (GPU counter).
    pub outflow: u64,
    /// Fluid particles the emitters created since the start (GPU counter).
    pub emitted: u64,
    /// Particles the emitters could not create for want of room since the start (GPU counter).
    pub starved: u64,
    /// The last step's dt (s; GPU diagnostics: fixed, or what an adaptive step chose).
    pub dt: f64,
    /// Fastest fluid particle at the last step's density pass (m/s; GPU diagnostics, column
    /// `max_speed`; [`ProbeRow::max_speed`] is the state's after the step).
    pub step_max_speed: f64,
    /// Mean compression max(ρ − ρ0, 0)/ρ0 over fluid at the last step's density pass (GPU).
    pub density_error: f64,
    /// DFSPH: velocity updates of the last step's pressure and divergence solves (0 for WCSPH).
    pub pressure_iterations: u32,
    pub divergence_iterations: u32,
    /// DFSPH: the mean predicted compression the last pressure solve reached (0 for WCSPH).
    pub solver_error: f64,
}

/// Neighbours are counted within this fraction of h: the kernel vanishes at h, and lattice sites
/// at exactly h (2 spacings along an axis) would be counted or not by rounding.
pub(crate) const NEIGHBOUR_REACH: f64 = 0.999;

/// A fluid particle is in the bulk with at least this fraction of a full neighbourhood.
pub(crate) const BULK_FRACTION: f64 = 0.85;
/// A fluid particle is in spray or a drop with fewer than this fraction of a full neighbourhood.
pub(crate) const SPRAY_FRACTION: f64 = 0.25;

impl ProbeRow {
    pub(crate) fn mechanical(&self) -> f64 {
        self.kinetic + self.potential
    }
    pub(crate) fn total(&self) -> f64 {
        self.kinetic + self.potential + self.elastic
    }

    /// The CSV header for gauges named as [`ProbeSetup::gauge_names`] names them (the columns:
    /// [`columns`]).
    pub(crate) fn header(gauges: &[String]) -> String {
        columns::header(gauges)
    }

    /// This row as a line of probes.csv (no newline).
    pub(crate) fn csv(&self) -> String {
        columns::line(self)
    }

    /// Fills the step columns (`dt` to `solver_error`) from the diagnostics read at this row.
    pub(crate) fn set_step_columns(&mut self, d: &crate::sim::params::Diagnostics) {
        self.dt = d.dt as f64;
        self.step_max_speed = d.max_speed as f64;
        self.density_error = d.density_error as f64;
        self.pressure_iterations = d.pressure_iterations;
        self.divergence_iterations = d.divergence_iterations;
        self.solver_error = d.solver_error as f64;
    }
}

/// Fluid particles of a readback: (position, mass, velocity, density).
pub(crate) fn fluid(p: &Particles) -> impl Iterator<Item = ([f64; 3], f64, [f64; 3], f64)> + '_ {
    p.pos_mass
        .iter()
        .zip(&p.vel_rho)
        .filter(|(x, _)| x[3] > 0.0)
        .map(|(x, v)| ([x[0] as f64, x[1] as f64, x[2] as f64], x[3] as f64, [v[0] as f64, v[1] as f64, v[2] as f64], v[3] as f64))
}

/// Neighbours within h of a particle inside the lattice, itself not counted (26 at h = 2s).
pub(crate) fn full_neighbourhood(setup: &ProbeSetup) -> u32 {
    let r = (setup.h / setup.spacing).ceil() as i32;
    let mut n = 0;
    for k in -r..=r {
        for j in -r..=r {
            for i in -r..=r {
                let d = setup.spacing * ((i * i + j * j + k * k) as f64).sqrt();
                if d > 0.0 && d < NEIGHBOUR_REACH * setup.h {
                    n += 1;
                }
            }
        }
    }
    n
}

/// For every fluid particle (in [`fluid`] order), its neighbours within h, fluid and wall
/// particles alike; a grid of cell h keeps this O(n).
pub(crate) fn neighbour_counts(setup: &ProbeSetup, p: &Particles) -> Vec<u32> {
    let h = setup.h;
    let reach2 = (NEIGHBOUR_REACH * h) * (NEIGHBOUR_REACH * h);
    // every particle (free slots, w = 0, are none)
    let all: Vec<[f64; 3]> = p
        .pos_mass
        .iter()
        .filter(|x| x[3] != 0.0)
        .map(|x| [x[0] as f64, x[1] as f64, x[2] as f64])
        .filter(|x| x.iter().all(|c| c.is_finite()))
        .collect();
    let cells = CellGrid::new(&all, h);
    let count = |x: [f64; 3]| {
        if !x.iter().all(|c| c.is_finite()) {
            return 0;
        }
        let c = cells.key(x);
        let mut n = 0u32;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &j in cells.members([c[0] + dx, c[1] + dy, c[2] + dz]) {
                        let y = all[j as usize];
                        let d2 = (0..3).map(|a| (x[a] - y[a]) * (x[a] - y[a])).sum::<f64>();
                        if d2 > 0.0 && d2 < reach2 {
                            n += 1;
                        }
                    }
                }
            }
        }
        n
    };
    // the counts are independent: split over the host's cores (the same result in any order)
    let xs: Vec<[f64; 3]> = fluid(p).map(|(x, ..)| x).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(32);
    let chunk = xs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> =
            xs.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(|&x| count(x)).collect::<Vec<u32>>())).collect();
        parts.into_iter().flat_map(|h| h.join().expect("a neighbour count thread panicked")).collect()
    })
}

/// Measures every probe of a particle readback (the GPU counters are the caller's to fill in):
/// the CPU twin of [`measure_gpu`], which `rillet run` uses.
pub fn measure(setup: &ProbeSetup, p: &Particles, step: u64, time: f64) -> ProbeRow {
    let rho0 = setup.rest_density;
    let (lo, hi) = (setup.domain_min, setup.domain_max);
    let depths = surface_depths(setup, p);
    let neighbours = neighbour_counts(setup, p);
    let full = full_neighbourhood(setup) as f64;
    let mut row = ProbeRow { step, time, min_wall_distance: f64::INFINITY, ..Default::default() };
    row.fluid_particles = fluid(p).count() as u64;
    let mut n = 0usize;
    let mut sum_err = 0.0;
    for (i, (x, m, v, rho)) in fluid(p).enumerate() {
        n += 1;
        let err = (rho / rho0 - 1.0).abs();
        row.max_compression = row.max_compression.max(rho / rho0 - 1.0);
        sum_err += err;
        row.max_density_error = row.max_density_error.max(err);
        if depths[i] >= setup.h {
            row.max_density_error_interior = row.max_density_error_interior.max(err);
        }
        let around = neighbours[i] as f64;
        if around >= BULK_FRACTION * full {
            row.max_density_error_bulk = row.max_density_error_bulk.max(err);
        }
        if around < SPRAY_FRACTION * full {
            row.spray += 1;
        }
        let v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        row.kinetic += 0.5 * m * v2;
        row.max_speed = row.max_speed.max(v2.sqrt());
        for a in 0..3 {
            row.momentum[a] += m * v[a];
            row.potential -= m * setup.gravity[a] * (x[a] - lo[a]);
            row.min_wall_distance = row.min_wall_distance.min(x[a] - lo[a]).min(hi[a] - x[a]);
        }
        row.elastic += m * setup.elastic_energy_per_mass(rho);
        let finite = x.iter().chain(&v).all(|c| c.is_finite());
        if !finite || (0..3).any(|a| x[a] < lo[a] - 1e-6 || x[a] > hi[a] + 1e-6) {
            row.outside += 1;
        }
    }
    row.mean_density_error = if n > 0 { sum_err / n as f64 } else { 0.0 };
    row.front = front(setup, p);
    row.gauges = setup.gauges.iter().map(|&g| gauge_height(setup, p, g)).collect();
    row.gauges.extend(setup.point_gauges.iter().map(|&[x, z]| point_gauge_height(setup, p, x, z)));
    row.gauges.extend(setup.surface_gauges.iter().map(|&[x, z]| surface_elevation(setup, p, x, z)));
    row
}

/// The surge front along +x: fluid particles are binned along x in bins of width h; starting at
/// the bin of the leftmost particle, the bins are walked while they hold particles, and the
/// front is the largest particle x in that contiguous run plus half a spacing (the edge of the
/// particle's volume, so that a column of width L starts with front = domain_min.x + L). Drops
/// thrown ahead of the bulk across a gap of at least h do not count.
pub(crate) fn front(setup: &ProbeSetup, p: &Particles) -> f64 {
    let x0 = setup.domain_min[0];
    let bins = (((setup.domain_max[0] - x0) / setup.h).ceil() as usize).max(1) + 1;
    let mut max_in_bin = vec![f64::NEG_INFINITY; bins];
    for (x, ..) in fluid(p) {
        if !x[0].is_finite() {
            continue;
        }
        let b = (((x[0] - x0) / setup.h).floor().max(0.0) as usize).min(bins - 1);
        max_in_bin[b] = max_in_bin[b].max(x[0]);
    }
    let Some(first) = max_in_bin.iter().position(|m| m.is_finite()) else {
        return f64::NAN;
    };
    let mut front = max_in_bin[first];
    for m in &max_in_bin[first..] {
        if !m.is_finite() {
            break;
        }
        front = front.max(*m);
    }
    (front + 0.5 * setup.spacing).min(setup.domain_max[0])
}

/// Water height at gauge position `x_gauge`: the volume of the fluid particles in the slab
/// `|x − x_gauge| < h` (clipped to the domain), counted as s³ per particle, divided by the slab's
/// floor area (clipped width × domain depth in z). A depth-averaged height, insensitive to single
/// drops; for a flat surface it is the surface height above the floor.
pub(crate) fn gauge_height(setup: &ProbeSetup, p: &Particles, x_gauge: f64) -> f64 {
    let [a, b] = slab(setup, x_gauge);
    let count = fluid(p).filter(|(x, ..)| x[0] >= a && x[0] < b).count();
    slab_height(setup, x_gauge, count as u64)
}

/// The x interval `[a, b)` of the slab gauge at `x_gauge` (clipped to the domain).
pub(crate) fn slab(setup: &ProbeSetup, x_gauge: f64) -> [f64; 2] {
    [(x_gauge - setup.h).max(setup.domain_min[0]), (x_gauge + setup.h).min(setup.domain_max[0])]
}

/// [`gauge_height`] from the count of fluid particles in the slab.
pub(crate) fn slab_height(setup: &ProbeSetup, x_gauge: f64, count: u64) -> f64 {
    let [a, b] = slab(setup, x_gauge);
    if b <= a {
        return 0.0;
    }
    count as f64 * setup.particle_volume() / ((b - a) * (setup.domain_max[2] - setup.domain_min[2]))
}

/// Water height at the point (x, z) of the floor: the volume of the fluid particles in the column
/// `|x − x_g| < h`, `|z − z_g| < h` (clipped to the domain), counted as s³ per particle, divided by
/// the column's clipped floor area. Like [`gauge_height`], a height averaged over the column.
pub(crate) fn point_gauge_height(setup: &ProbeSetup, p: &Particles, x: f64, z: f64) -> f64 {
    let [x0, x1, z0, z1] = column(setup, x, z);
    let count = fluid(p).filter(|(q, ..)| q[0] >= x0 && q[0] < x1 && q[2] >= z0 && q[2] < z1).count();
    column_height(setup, x, z, count as u64)
}

/// The column `[x0, x1) × [z0, z1)` of the point gauge at (x, z) (clipped to the domain).
pub(crate) fn column(setup: &ProbeSetup, x: f64, z: f64) -> [f64; 4] {
    let (lo, hi) = (setup.domain_min, setup.domain_max);
    [(x - setup.h).max(lo[0]), (x + setup.h).min(hi[0]), (z - setup.h).max(lo[2]), (z + setup.h).min(hi[2])]
}

/// [`point_gauge_height`] from the count of fluid particles in the column.
pub(crate) fn column_height(setup: &ProbeSetup, x: f64, z: f64, count: u64) -> f64 {
    let [x0, x1, z0, z1] = column(setup, x, z);
    if x1 <= x0 || z1 <= z0 {
        return 0.0;
    }
    count as f64 * setup.particle_volume() / ((x1 - x0) * (z1 - z0))
}

/// The free surface above the point (x, z) of the floor: the highest y on the vertical line
/// through it where the fluid's kernel sum `c(y) = Σ_j (m_j/ρ0) W(|(x, y, z) − x_j|)` is ½
/// (1 inside the fluid's lattice at rest, 0 in air; the threshold of DualSPHysics's free-surface
/// gauge), measured from the domain's floor; `c` is sampled every s/8 down from h above the
/// highest fluid particle within h of the line and the crossing interpolated linearly. 0 where
/// no fluid is within h of the line. Unlike [`point_gauge_height`], which counts the particles
/// of a column, it does not jump when a lattice plane of particles crosses the column's side.
pub(crate) fn surface_elevation(setup: &ProbeSetup, p: &Particles, x: f64, z: f64) -> f64 {
    let h = setup.h;
    let rho0 = setup.rest_density;
    let near: Vec<([f64; 3], f64)> =
        fluid(p).filter(|(q, ..)| (q[0] - x).abs() < h && (q[2] - z).abs() < h).map(|(q, m, ..)| (q, m / rho0)).collect();
    let Some(top) = near.iter().map(|(q, _)| q[1]).reduce(f64::max) else { return 0.0 };
    let kernel = |r: f64| crate::physics::cubic_w(r, h);
    let c =
        |y: f64| near.iter().map(|(q, v)| v * kernel(((q[0] - x).powi(2) + (q[1] - y).powi(2) + (q[2] - z).powi(2)).sqrt())).sum::<f64>();
    surface_crossing(setup, top, |k| Some(c(surface_sample_y(setup, top, k))))
}

/// The k-th sample of a free-surface gauge's line below the highest fluid particle near it at
/// `top`: `top + h − k·s/8`.
pub(crate) fn surface_sample_y(setup: &ProbeSetup, top: f64, k: usize) -> f64 {
    top + setup.h - k as f64 * setup.spacing / 8.0
}

/// [`surface_elevation`] from the kernel sums `c(k)` at the samples [`surface_sample_y`] (`None`
/// past the last one there is): walking down from k = 0, the first sample where c ≥ ½, the
/// crossing interpolated linearly with the sample above; 0 if the walk passes the floor.
pub(crate) fn surface_crossing(setup: &ProbeSetup, top: f64, c: impl Fn(usize) -> Option<f64>) -> f64 {
    let step = setup.spacing / 8.0;
    let lo = setup.domain_min[1];
    let Some(mut above) = c(0) else { return 0.0 };
    let mut k = 0;
    while surface_sample_y(setup, top, k) > lo {
        let Some(below) = c(k + 1) else { return 0.0 };
        if below >= 0.5 {
            // the crossing between samples k + 1 and k
            let f = if below > above { (below - 0.5) / (below - above) } else { 0.0 };
            return surface_sample_y(setup, top, k + 1) + f * step - lo;
        }
        (k, above) = (k + 1, below);
    }
    0.0
}

/// A probe row of the simulation's current state, measured on the GPU
/// ([`Sim::read_probes`]) and finished by [`from_gpu`]: the definitions of [`measure`] without a
/// copy of the particles. The GPU counters' columns are the caller's to fill in, as for
/// `measure`.
pub fn measure_gpu(sim: &mut Sim, setup: &ProbeSetup, step: u64, time: f64) -> Result<ProbeRow, SimError> {
    let readings = sim.read_probes(&gpu_spec(setup))?;
    Ok(from_gpu(setup, &readings, step, time))
}

/// What [`Sim::read_probes`] measures for `setup`.
pub(crate) fn gpu_spec(setup: &ProbeSetup) -> ProbeSpec {
    let shape = Shape::of(setup);
    let full = full_neighbourhood(setup) as f64;
    let reach = NEIGHBOUR_REACH * setup.h;
    let config = ProbeConfig {
        spacing: setup.spacing as f32,
        reach2: (reach * reach) as f32,
        // counts are integers: n ≥ 0.85 full ⇔ n ≥ ceil(0.85 full); n < 0.25 full ⇔ n < ceil(0.25 full)
        bulk_min: (BULK_FRACTION * full).ceil() as f32,
        spray_below: (SPRAY_FRACTION * full).ceil() as f32,
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
    ProbeSpec { config, gauges }
}

/// The sizes of what the GPU probes write, for a probe setup.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Shape {
    cols_x: u32,
    cols_z: u32,
    front_bins: u32,
    n_slab: u32,
    n_point: u32,
    n_surface: u32,
    samples: u32,
}

impl Shape {
    fn of(setup: &ProbeSetup) -> Self {
        let (lo, hi, h) = (setup.domain_min, setup.domain_max, setup.h);
        let cols = |a: usize| (((hi[a] - lo[a]) / h).ceil() as u32).max(1);
        // the walk down a free-surface gauge's line starts h above the highest particle (at
        // most the domain's top) and stops below the floor
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
}

/// The smallest f32 at or above `a`: for every f32 `x`, `x >= up(a)` is `x as f64 >= a`.
fn up(a: f64) -> f32 {
    let f = a as f32;
    if (f as f64) < a { f.next_up() } else { f }
}

/// A probe row from what the GPU probes read back: the sums in f64 over the workgroups' rows,
/// the front, gauges and free-surface crossings as [`measure`] finds them.
pub(crate) fn from_gpu(setup: &ProbeSetup, g: &ProbeReadings, step: u64, time: f64) -> ProbeRow {
    let mut row = ProbeRow { step, time, min_wall_distance: f64::INFINITY, ..Default::default() };
    let (mut n, mut sum_err, mut spray, mut outside) = (0.0, 0.0, 0.0, 0.0);
    for w in &g.partials {
        let v = w.map(|x| x as f64);
        n += v[0];
        sum_err += v[1];
        spray += v[2];
        outside += v[3];
        row.kinetic += v[4];
        row.potential += v[5];
        row.elastic += v[6];
        for a in 0..3 {
            row.momentum[a] += v[7 + a];
        }
        row.max_density_error = row.max_density_error.max(v[10]);
        row.max_compression = row.max_compression.max(v[11]);
        row.max_density_error_interior = row.max_density_error_interior.max(v[12]);
        row.max_density_error_bulk = row.max_density_error_bulk.max(v[13]);
        row.max_speed = row.max_speed.max(v[14]);
        if v[15] > -1e38 {
            row.min_wall_distance = row.min_wall_distance.min(-v[15]);
        }
    }
    row.fluid_particles = n as u64;
    row.spray = spray as u32;
    row.outside = outside as u32;
    row.mean_density_error = if n > 0.0 { sum_err / n } else { 0.0 };
    row.front = match g.front.iter().position(|b| b.is_some()) {
        Some(first) => {
            let run = g.front[first..].iter().map_while(|b| *b).map(|x| x as f64);
            (run.fold(f64::NEG_INFINITY, f64::max) + 0.5 * setup.spacing).min(setup.domain_max[0])
        }
        None => f64::NAN,
    };
    let slabs = setup.gauges.len();
    row.gauges = setup.gauges.iter().zip(&g.counts).map(|(&x, &c)| slab_height(setup, x, c as u64)).collect();
    row.gauges.extend(setup.point_gauges.iter().zip(&g.counts[slabs..]).map(|(&[x, z], &c)| column_height(setup, x, z, c as u64)));
    let per = g.samples_per_gauge;
    row.gauges.extend(g.surface_tops.iter().enumerate().map(|(i, top)| match top {
        Some(top) => surface_crossing(setup, *top as f64, |k| (k < per).then(|| g.samples[i * per + k] as f64)),
        None => 0.0,
    }));
    row
}

/// For every fluid particle (in readback order), its depth below the free surface: the top of its
/// column, a vertical column of h × h (x, z) cells, lies half a spacing above the highest
/// particle centre in it. Particles less than h deep have kernel supports that cross the
/// surface, so their summed density is short by construction.
pub(crate) fn surface_depths(setup: &ProbeSetup, p: &Particles) -> Vec<f64> {
    let (lo, hi, h) = (setup.domain_min, setup.domain_max, setup.h);
    let nx = (((hi[0] - lo[0]) / h).ceil() as usize).max(1);
    let nz = (((hi[2] - lo[2]) / h).ceil() as usize).max(1);
    let cell = |x: &[f64; 3]| {
        let i = (((x[0] - lo[0]) / h).floor().max(0.0) as usize).min(nx - 1);
        let k = (((x[2] - lo[2]) / h).floor().max(0.0) as usize).min(nz - 1);
        k * nx + i
    };
    let mut top = vec![f64::NEG_INFINITY; nx * nz];
    for (x, ..) in fluid(p) {
        if x.iter().all(|c| c.is_finite()) {
            let c = cell(&x);
            top[c] = top[c].max(x[1]);
        }
    }
    fluid(p).map(|(x, ..)| if x.iter().all(|c| c.is_finite()) { top[cell(&x)] + 0.5 * setup.spacing - x[1] } else { 0.0 }).collect()
}

/// The free-surface height above the floor: the mean over the occupied h × h (x, z) columns of
/// the highest particle centre plus half a spacing.
pub(crate) fn surface_height(setup: &ProbeSetup, p: &Particles) -> f64 {
    let (lo, hi, h) = (setup.domain_min, setup.domain_max, setup.h);
    let nx = (((hi[0] - lo[0]) / h).ceil() as usize).max(1);
    let nz = (((hi[2] - lo[2]) / h).ceil() as usize).max(1);
    let mut top = vec![f64::NEG_INFINITY; nx * nz];
    for (x, ..) in fluid(p) {
        if x.iter().all(|c| c.is_finite()) {
            let i = (((x[0] - lo[0]) / h).floor().max(0.0) as usize).min(nx - 1);
            let k = (((x[2] - lo[2]) / h).floor().max(0.0) as usize).min(nz - 1);
            top[k * nx + i] = top[k * nx + i].max(x[1]);
        }
    }
    let tops: Vec<f64> = top.into_iter().filter(|t| t.is_finite()).collect();
    if tops.is_empty() {
        return 0.0;
    }
    tops.iter().sum::<f64>() / tops.len() as f64 + 0.5 * setup.spacing - lo[1]
}

/// One horizontal layer of the vertical profile (`profile.csv`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileBin {
    /// Bin bounds above the domain floor (m).
    pub y_lo: f64,
    pub y_hi: f64,
    /// Fluid particle samples in the bin (summed over the snapshots averaged).
    pub count: u64,
    /// Mean particle height (m, above the floor).
    pub mean_y: f64,
    pub mean_density: f64,
    pub min_density: f64,
    pub max_density: f64,
    /// Mean pressure (Pa) of the particles: Tait (WCSPH) or the solver's (DFSPH).
    pub mean_pressure: f64,
    /// Samples deeper than h below the free surface.
    pub interior: u64,
}

/// Accumulates a vertical profile (bins of one spacing, from the floor) over several snapshots.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    setup: ProbeSetup,
    bins: Vec<ProfileBin>,
    sum_y: Vec<f64>,
    sum_rho: Vec<f64>,
    sum_p: Vec<f64>,
    sum_surface: f64,
    pub snapshots: u32,
}

impl Profile {
    pub(crate) fn new(setup: &ProbeSetup) -> Self {
        let s = setup.spacing;
        let n = (((setup.domain_max[1] - setup.domain_min[1]) / s).ceil() as usize).max(1);
        let bins = (0..n)
            .map(|i| ProfileBin {
                y_lo: i as f64 * s,
                y_hi: (i + 1) as f64 * s,
                min_density: f64::INFINITY,
                max_density: f64::NEG_INFINITY,
                ..Default::default()
            })
            .collect();
        Self { setup: setup.clone(), bins, sum_y: vec![0.0; n], sum_rho: vec![0.0; n], sum_p: vec![0.0; n], sum_surface: 0.0, snapshots: 0 }
    }

    pub(crate) fn add(&mut self, p: &Particles) {
        let depths = surface_depths(&self.setup, p);
        let (s, y0) = (self.setup.spacing, self.setup.domain_min[1]);
        let n = self.bins.len();
        let slots = p.pos_mass.iter().enumerate().filter(|(_, x)| x[3] > 0.0).map(|(slot, _)| slot);
        for (i, ((x, _, _, rho), slot)) in fluid(p).zip(slots).enumerate() {
            if !x[1].is_finite() {
                continue;
            }
            let y = x[1] - y0;
            let b = ((y / s).floor().max(0.0) as usize).min(n - 1);
            let bin = &mut self.bins[b];
            bin.count += 1;
            bin.min_density = bin.min_density.min(rho);
            bin.max_density = bin.max_density.max(rho);
            if depths[i] >= self.setup.h {
                bin.interior += 1;
            }
            self.sum_y[b] += y;
            self.sum_rho[b] += rho;
            self.sum_p[b] += p.pressure_at(slot, |rho| self.setup.pressure(rho));
        }
        self.sum_surface += surface_height(&self.setup, p);
        self.snapshots += 1;
    }

    /// Mean [`surface_height`] over the snapshots.
    pub(crate) fn surface(&self) -> f64 {
        if self.snapshots == 0 { 0.0 } else { self.sum_surface / self.snapshots as f64 }
    }

    /// The bins that hold particles.
    pub(crate) fn bins(&self) -> Vec<ProfileBin> {
        self.bins
            .iter()
            .enumerate()
            .filter(|(_, b)| b.count > 0)
            .map(|(i, b)| {
                let c = b.count as f64;
                ProfileBin { mean_y: self.sum_y[i] / c, mean_density: self.sum_rho[i] / c, mean_pressure: self.sum_p[i] / c, ..b.clone() }
            })
            .collect()
    }
}

pub(crate) const PROFILE_HEADER: &str =
    "y_lo_m,y_hi_m,samples,interior_samples,mean_y_m,mean_density,min_density,max_density,mean_pressure_Pa";

impl ProfileBin {
    pub(crate) fn csv(&self) -> String {
        format!(
            "{:.6},{:.6},{},{},{:.6},{:.5},{:.5},{:.5},{:.4}",
            self.y_lo,
            self.y_hi,
            self.count,
            self.interior,
            self.mean_y,
            self.mean_density,
            self.min_density,
            self.max_density,
            self.mean_pressure
        )
    }

    pub(crate) fn parse(line: &str) -> Option<ProfileBin> {
        let f: Vec<f64> = line.trim().split(',').map(|x| x.parse().ok()).collect::<Option<_>>()?;
        if f.len() != 9 {
            return None;
        }
        Some(ProfileBin {
            y_lo: f[0],
            y_hi: f[1],
            count: f[2] as u64,
            interior: f[3] as u64,
            mean_y: f[4],
            mean_density: f[5],
            min_density: f[6],
            max_density: f[7],
            mean_pressure: f[8],
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gauge_bounds_round_up_to_the_f32_the_cpu_test_agrees_with() {
        for a in [1.46f64, 0.1, 2.0 / 3.0, 5.999_999_9, -0.3] {
            let f = super::up(a);
            assert!(f as f64 >= a && (f.next_down() as f64) < a, "{a}: {f}");
        }
    }

    use super::*;

    fn setup() -> ProbeSetup {
        ProbeSetup {
            spacing: 0.1,
            h: 0.2,
            rest_density: 1000.0,
            stiffness: 1e5,
            gravity: [0.0, -10.0, 0.0],
            domain_min: [0.0; 3],
            domain_max: [4.0, 2.0, 1.0],
            gauges: vec![0.5],
            point_gauges: vec![],
            surface_gauges: vec![],
        }
    }

    /// A surface gauge finds the top of a block at rest within a quarter spacing, follows the
    /// block up exactly, and barely moves when the lattice slides across its line by a fraction
    /// of a spacing.
    #[test]
    fn surface_gauges_find_the_free_surface() {
        let s = setup();
        // the mass that gives a particle inside the lattice rest density (as the scene's setup)
        let mass = (s.rest_density / crate::physics::lattice_kernel_sum(s.spacing, s.h)) as f32;
        let shifted = |dx: f32, dy: f32| {
            let mut p = block(30, 8, 10);
            for q in p.pos_mass.iter_mut().filter(|q| q[3] > 0.0) {
                (q[0], q[1], q[3]) = (q[0] + dx, q[1] + dy, mass);
            }
            p
        };
        let at_rest = surface_elevation(&s, &shifted(0.0, 0.0), 1.5, 0.5);
        assert!((at_rest - 0.8).abs() < 0.025, "the block's top is at 0.8 m: {at_rest}");
        let up = surface_elevation(&s, &shifted(0.0, 0.037), 1.5, 0.5);
        assert!((up - at_rest - 0.037).abs() < 1e-6, "{up} against {at_rest} + 0.037");
        let mut most: f64 = 0.0;
        for k in 1..10 {
            let p = shifted(0.01 * k as f32, 0.0);
            most = most.max((surface_elevation(&s, &p, 1.5, 0.5) - at_rest).abs());
        }
        assert!(most < 0.005, "the surface moved {most} m with the lattice sliding sideways");
        assert_eq!(surface_elevation(&s, &shifted(0.0, 0.0), 3.8, 0.5), 0.0, "no fluid within h");
    }

    /// A point gauge is the slab gauge's height over a column: a flat block reads its height at
    /// any point of it, and nothing outside it.
    #[test]
    fn point_gauges_read_the_height_of_their_column() {
        let s = setup();
        let p = block(20, 6, 10);
        let slab = gauge_height(&s, &p, 0.95);
        let point = point_gauge_height(&s, &p, 0.95, 0.5);
        assert!(slab > 0.0 && (point - slab).abs() < 1e-9, "{point} {slab}");
        assert_eq!(point_gauge_height(&s, &p, 3.0, 0.5), 0.0);
    }

    /// A block of `nx × ny × nz` particles at the lattice sites from the origin, plus one wall particle.
    fn block(nx: usize, ny: usize, nz: usize) -> Particles {
        let mut p = Particles { pos_mass: vec![], vel_rho: vec![], id: vec![], pressure: None, bodies: vec![] };
        for k in 0..nz {
            for j in 0..ny {
                for i in 0..nx {
                    p.pos_mass.push([(i as f32 + 0.5) * 0.1, (j as f32 + 0.5) * 0.1, (k as f32 + 0.5) * 0.1, 1.0]);
                    p.vel_rho.push([1.0, 0.0, 0.0, 1000.0]);
                }
            }
        }
        p.pos_mass.push([-0.05, 0.05, 0.05, -1.0]);
        p.vel_rho.push([0.0, 0.0, 0.0, 1000.0]);
        p.id = (0..p.pos_mass.len() as u32).collect();
        p
    }

    #[test]
    fn front_gauge_energy_of_a_block() {
        let s = setup();
        let mut p = block(10, 10, 10);
        let r = measure(&s, &p, 0, 0.0);
        assert!((r.front - 1.0).abs() < 1e-6, "{}", r.front);
        assert!((r.gauges[0] - 1.0).abs() < 1e-6, "{:?}", r.gauges);
        assert_eq!(r.kinetic, 500.0);
        assert_eq!(r.momentum, [1000.0, 0.0, 0.0]);
        // Σ m g y = 10 · 100 · Σ_j (j + ½)·0.1 · 10 = 100 · 10 · 5
        assert!((r.potential - 5000.0).abs() < 1e-3, "{}", r.potential);
        assert_eq!((r.outside, r.max_density_error, r.elastic), (0, 0.0, 0.0));
        // a drop far ahead does not move the front; one within h does
        p.pos_mass.push([3.0, 0.05, 0.05, 1.0]);
        p.vel_rho.push([0.0, 0.0, 0.0, 1000.0]);
        assert!((front(&s, &p) - 1.0).abs() < 1e-6);
        p.pos_mass.push([1.1, 0.05, 0.05, 1.0]);
        p.vel_rho.push([0.0, 0.0, 0.0, 1000.0]);
        assert!((front(&s, &p) - 1.15).abs() < 1e-6);
    }

    #[test]
    fn depths_and_profile() {
        let s = setup();
        let p = block(4, 10, 10);
        let d = surface_depths(&s, &p);
        // top layer centre at 0.95: surface at 1.0
        assert!((d[0] - 0.95).abs() < 1e-6 && (d[399] - 0.05).abs() < 1e-6);
        let mut prof = Profile::new(&s);
        prof.add(&p);
        let bins = prof.bins();
        assert_eq!(bins.len(), 10);
        assert_eq!((bins[0].count, bins[0].interior), (40, 40));
        // the top two layers (depth 0.05, 0.15) are within h = 0.2 of the surface
        assert_eq!((bins[8].interior, bins[9].interior), (0, 0));
        assert!((bins[3].mean_y - 0.35).abs() < 1e-6);
        assert!((prof.surface() - 1.0).abs() < 1e-6, "{}", prof.surface());
        let line = bins[3].csv();
        assert_eq!(ProfileBin::parse(&line).unwrap().count, 40);
    }

    #[test]
    fn elastic_energy_is_the_integral_of_p_over_rho_squared() {
        let s = setup();
        let rho = 1010.0;
        let n = 10_000;
        let mut integral = 0.0;
        for k in 0..n {
            let r = 1000.0 + (k as f64 + 0.5) * 10.0 / n as f64;
            integral += s.pressure(r) / (r * r) * 10.0 / n as f64;
        }
        assert!((s.elastic_energy_per_mass(rho) - integral).abs() < 1e-6 * integral, "{} {integral}", s.elastic_energy_per_mass(rho));
        assert_eq!(s.elastic_energy_per_mass(990.0), 0.0);
    }

    #[test]
    fn csv_round_trip() {
        let r = ProbeRow {
            step: 7,
            time: 0.25,
            front: 1.5,
            gauges: vec![0.1, 0.2],
            kinetic: 3.0,
            momentum: [1.0, -2.0, 0.5],
            outside: 2,
            wall_clamps: 5_000_000_000,
            spray: 3,
            overflows: 11,
            max_per_cell: 9,
            wall_clamps_per_step: 2.5,
            ..Default::default()
        };
        let line = r.csv();
        // the digits of every column, as probes.csv always had them
        assert_eq!(
            line,
            "7,0.2500000,1.500000,0.100000,0.200000,0.000000e0,0.000000e0,0.000000e0,3.000000000e0,0.000000000e0,0.000000000e0,\
             1.000000000e0,-2.000000000e0,5.000000000e-1,0.000000,0.000000e0,5000000000,0,2,0.000000e0,3,0.000000e0,2.500000,9,11,0,\
             0,0,0,0,0.000000e0,0.000000,0.000000e0,0,0,0.000000e0"
        );
        assert_eq!(ProbeRow::header(&["x0.1".to_string(), "x0.2".to_string()]).split(',').count(), line.split(',').count());
        let header = ProbeRow::header(&["x0.1".to_string(), "x0.2".to_string()]);
        let parse = |header: &str, line: &str| -> Option<ProbeRow> {
            match columns::read(&format!("{header}\n{line}\n")).unwrap() {
                (rows, None) if rows.len() == 1 => rows.into_iter().next(),
                _ => None,
            }
        };
        let back = parse(&header, &line).unwrap();
        assert_eq!((back.step, back.front, back.gauges, back.momentum, back.outside), (7, 1.5, vec![0.1, 0.2], [1.0, -2.0, 0.5], 2));
        assert_eq!(
            (back.wall_clamps, back.spray, back.overflows, back.max_per_cell, back.wall_clamps_per_step),
            (5_000_000_000, 3, 11, 9, 2.5)
        );
        // the flow columns
        let flow = ProbeRow { fluid_particles: 1234, outflow: 56, emitted: 789, starved: 10, inside_solids: 4, ..r.clone() };
        let back = parse(&header, &flow.csv()).unwrap();
        assert_eq!((back.fluid_particles, back.outflow, back.emitted, back.starved, back.inside_solids), (1234, 56, 789, 10, 4));
        // the step columns, from the diagnostics
        let mut step = flow.clone();
        step.set_step_columns(&crate::sim::params::Diagnostics {
            dt: 2.5e-4,
            max_speed: 3.25,
            density_error: 1.5e-3,
            pressure_iterations: 7,
            divergence_iterations: 2,
            solver_error: 8.0e-4,
            ..Default::default()
        });
        let back = parse(&header, &step.csv()).unwrap();
        assert_eq!((back.dt, back.step_max_speed, back.pressure_iterations, back.divergence_iterations), (2.5e-4, 3.25, 7, 2));
        assert!((back.density_error - 1.5e-3).abs() < 1e-9 && (back.solver_error - 8.0e-4).abs() < 1e-9, "{back:?}");
        assert_eq!(back.starved, 10);
        assert!(header.ends_with(",starved,dt,max_speed,density_error,pressure_iterations,divergence_iterations,solver_error"), "{header}");
        assert!(header.starts_with("step,time_s,front_m,height_m_at_x0.1,height_m_at_x0.2,max_density_error,"), "{header}");
        assert!(header.contains(",kinetic_J,potential_J,elastic_J,momentum_x,"), "{header}");
        // a file written before the step columns, also before the flow columns, or also before
        // the inside_solids column (its header as short as its rows) reads with 0 there, and its
        // rows are written back at the header's width (what a resume does with the rows it keeps)
        let line = step.csv();
        let fields: Vec<&str> = line.split(',').collect();
        let names: Vec<&str> = header.split(',').collect();
        for dropped in [6, 10, 11] {
            let old = fields[..fields.len() - dropped].join(",");
            let old_header = names[..names.len() - dropped].join(",");
            let back = parse(&old_header, &old).unwrap_or_else(|| panic!("a row without its last {dropped} columns"));
            assert_eq!(
                (back.dt, back.step_max_speed, back.density_error, back.pressure_iterations, back.solver_error),
                (0.0, 0.0, 0.0, 0, 0.0)
            );
            assert_eq!((back.fluid_particles, back.starved), if dropped == 6 { (1234, 10) } else { (0, 0) });
            assert_eq!(back.inside_solids, if dropped == 11 { 0 } else { 4 });
            assert_eq!(back.csv().split(',').count(), header.split(',').count());
            assert_eq!(parse(&header, &back.csv()).unwrap().csv(), back.csv(), "rewriting a row is stable");
        }
        // a row of another width than its header's is not a row of this program
        assert!(parse(&header, &fields[..fields.len() - 3].join(",")).is_none());
        let (rows, bad) = columns::read(&format!("{header}\n{line}\n{}\n{line}\n", &line[..20])).unwrap();
        assert_eq!((rows.len(), bad.map(|b| (b.line, b.last))), (1, Some((3, false))));
        let (rows, bad) = columns::read(&format!("{header}\n{line}\n{}", &line[..20])).unwrap();
        assert_eq!((rows.len(), bad.map(|b| (b.line, b.last))), (1, Some((3, true))));
    }

    /// The dense grid and the hash map list the same points per cell; a point far away makes
    /// the box too large for the dense grid, and the counts stay the same.
    #[test]
    fn neighbour_counts_do_not_depend_on_the_grid_kind() {
        let s = setup();
        let mut p = block(12, 8, 10);
        let dense = neighbour_counts(&s, &p);
        assert!(matches!(CellGrid::new(&[[0.0; 3], [1.0; 3]], s.h), CellGrid::Dense { .. }));
        // one particle a kilometre away: the box would hold billions of cells
        p.pos_mass.push([1000.0, 1000.0, 1000.0, 1.0]);
        p.vel_rho.push([0.0, 0.0, 0.0, 1000.0]);
        assert!(matches!(CellGrid::new(&[[0.0; 3], [1000.0; 3]], s.h), CellGrid::Sparse { .. }));
        let sparse = neighbour_counts(&s, &p);
        assert_eq!(&sparse[..dense.len()], &dense[..]);
        assert_eq!(*sparse.last().unwrap(), 0);
        // and by brute force, over fluid and wall particles
        let xs: Vec<[f64; 3]> = fluid(&p).map(|(x, ..)| x).collect();
        let all: Vec<[f64; 3]> = p.pos_mass.iter().map(|x| [x[0] as f64, x[1] as f64, x[2] as f64]).collect();
        let reach2 = (NEIGHBOUR_REACH * s.h).powi(2);
        for (i, x) in xs.iter().enumerate() {
            let brute = all.iter().filter(|y| {
                let d2: f64 = (0..3).map(|a| (x[a] - y[a]).powi(2)).sum();
                d2 > 0.0 && d2 < reach2
            });
            assert_eq!(brute.count() as u32, sparse[i], "particle {i}");
        }
    }

    #[test]
    fn the_bulk_and_the_spray_are_told_apart() {
        let s = setup();
        assert_eq!(full_neighbourhood(&s), 26);
        let mut p = block(10, 10, 10);
        // a compressed particle in the middle of the block, and a free drop far from it
        let centre = (5 * 100 + 5 * 10 + 5) as usize;
        p.vel_rho[centre][3] = 1200.0;
        p.pos_mass.push([3.0, 1.5, 0.5, 1.0]);
        p.vel_rho.push([0.0, 0.0, 0.0, 320.0]);
        let r = measure(&s, &p, 0, 0.0);
        assert!((r.max_density_error - 0.68).abs() < 1e-9, "the drop reads as a 68 % error over all particles");
        assert!((r.max_density_error_bulk - 0.2).abs() < 1e-9, "{}", r.max_density_error_bulk);
        assert!((r.max_compression - 0.2).abs() < 1e-9, "the drop is under-dense: {}", r.max_compression);
        // only the drop: even the block's corners keep 7 of 26 neighbours
        assert_eq!(r.spray, 1);
        let counts = neighbour_counts(&s, &p);
        assert_eq!(counts[centre], 26);
        assert_eq!(*counts.last().unwrap(), 0);
    }
}
