//! Initial particle state of a scene: the fluid lattice, the wall particles and their Akinci
//! volumes, the fluid mass, and the resolved physical constants. Computed once, in f64 where it
//! matters, then handed to the GPU (and to the CPU twin) as f32.

use super::lattice::{count_particles, fluid_slots, lattice_count, wall_axis, wall_box};
use super::schema::{Pressure, Scene};
use crate::gpu::Gpu;
use crate::physics::{SUPPORT_OVER_SPACING, TAIT_GAMMA, cubic_w};
use crate::sim::layout::CellOrder;
use crate::sim::params::SimParams;
use crate::sim::{InitialState, Sim, SimError, SimOptions};
use glam::{DVec3, Vec3};

/// Why a scene's state was not built.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The particle buffers would exceed what the device allows.
    #[error(transparent)]
    Device(#[from] SimError),
    /// Building the state would exhaust the host's memory.
    #[error(
        "{particles} particles need about {needed_gib:.1} GiB of host memory to build, but {available_gib:.1} GiB are available: increase physics.spacing or shrink the domain or the fluid"
    )]
    HostMemory { particles: u64, needed_gib: f64, available_gib: f64 },
}

/// Host bytes per particle while a state is built and uploaded: position and velocity with the
/// growth slack of their vectors, the ids, the wall lattice in f64 and its volumes.
pub(crate) const HOST_BYTES_PER_PARTICLE: u64 = 2 * 16 + 16 + 4 + 24 + 8;

/// Builds a scene's initial state after checking, from the particle count alone, that the
/// device can hold it and that the host has the memory to build it: a scene too large is
/// refused before anything is allocated.
pub(crate) fn build_checked(scene: &Scene, gpu: &Gpu) -> Result<InitialState, SetupError> {
    let (fluid, boundary) = count_particles(scene);
    let n = fluid_slots(scene, fluid) + boundary;
    Sim::check_fits(gpu, n)?;
    let mut needed = n * HOST_BYTES_PER_PARTICLE;
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        // a CPU adapter's buffers are host memory too
        needed += Sim::device_bytes(
            n,
            scene.physics.solver == crate::scene::Solver::Dfsph,
            gpu.max_binding_bytes(),
            crate::physics::list_capacity(scene.grid.list_skin),
        );
    }
    if let Some(available) = available_host_memory()
        && needed > available
    {
        return Err(SetupError::HostMemory { particles: n, needed_gib: needed as f64 / GIB, available_gib: available as f64 / GIB });
    }
    Ok(build(scene))
}

/// Bytes in a GiB, for the memory figures of messages.
pub(crate) const GIB: f64 = (1u64 << 30) as f64;

/// `MemAvailable` of /proc/meminfo (Linux); None where it cannot be read.
pub(crate) fn available_host_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Speed of sound and Tait stiffness for a scene.
pub(crate) fn resolve_pressure(scene: &Scene) -> (f32, f32) {
    let p = &scene.physics;
    let rho0 = p.rest_density as f64;
    let gamma = TAIT_GAMMA as f64;
    let c = match p.pressure {
        Pressure::SpeedOfSound(c) => c as f64,
        Pressure::Stiffness(b) => (gamma * b as f64 / rho0).sqrt(),
        Pressure::Auto => {
            // ten times the fastest the water gets: falling from its highest point (a fluid
            // entry's top or an emitter), or sent off by an emitter
            let top = (0..scene.fluid.len())
                .map(|i| scene.fluid_shape(i).bounds().1.y as f32)
                .chain(scene.emitters.iter().map(|e| e.center[1]))
                .fold(f32::MIN, f32::max);
            let height = ((top - scene.domain.min[1]) as f64).max(p.spacing as f64);
            let g = Vec3::from(p.gravity).length().max(1e-3) as f64;
            let thrown = scene.emitters.iter().map(|e| e.speed as f64).fold(0.0, f64::max);
            10.0 * (2.0 * g * height).sqrt().max(thrown)
        }
    };
    let b = match p.pressure {
        Pressure::Stiffness(b) => b as f64,
        _ => rho0 * c * c / gamma,
    };
    (c as f32, b as f32)
}

pub fn build(scene: &Scene) -> InitialState {
    let p = &scene.physics;
    let s = p.spacing;
    let h = SUPPORT_OVER_SPACING * s;
    let (c, b) = resolve_pressure(scene);

    // fluid mass: rest density on the infinite lattice, in f64
    let (sd, hd) = (s as f64, h as f64);
    let mass = (p.rest_density as f64 / crate::physics::lattice_kernel_sum(sd, hd)) as f32;

    let mut pos_mass = Vec::new();
    let mut vel_rho = Vec::new();
    let mut fluid_counts = Vec::with_capacity(scene.fluid.len());
    for (e, fluid) in scene.fluid.iter().enumerate() {
        let before = pos_mass.len();
        let [vx, vy, vz] = fluid.velocity;
        if let Some(block) = fluid.block() {
            let n = [0, 1, 2].map(|a| lattice_count(block.min[a], block.max[a], s));
            for k in 0..n[2] {
                for j in 0..n[1] {
                    for i in 0..n[0] {
                        let x = Vec3::from(block.min) + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s;
                        pos_mass.push([x.x, x.y, x.z, mass]);
                    }
                }
            }
        } else {
            pos_mass.extend(scene.mesh_fluid(e).iter().map(|x| [x.x as f32, x.y as f32, x.z as f32, mass]));
        }
        vel_rho.resize(pos_mass.len(), [vx, vy, vz, p.rest_density]);
        fluid_counts.push((pos_mass.len() - before) as u32);
    }
    let n_fluid = pos_mass.len() as u32;

    // walls: lattice of the grown box minus the lattice of the domain
    let (lo, hi, _) = wall_box(scene);
    // per axis, which lattice points are kept (not beyond an open face) and inside the domain
    let axes = [0, 1, 2].map(|a| wall_axis(scene, lo[a], a).collect::<Vec<_>>());
    let mut walls: Vec<DVec3> = Vec::new();
    for (k, (kz, iz)) in axes[2].iter().enumerate() {
        for (j, (ky, iy)) in axes[1].iter().enumerate() {
            for (i, (kx, ix)) in axes[0].iter().enumerate() {
                if kx & ky & kz && !(ix & iy & iz) {
                    walls.push((lo + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * s).as_dvec3());
                }
            }
        }
    }
    // solids: each its shell on its own lattice (centred in it: its faces as near the lattice as
    // they can be)
    let tank = walls.len() as u32;
    let mut shells = Vec::with_capacity(scene.solids.len());
    for i in 0..scene.solids.len() {
        let first = pos_mass.len() + walls.len();
        walls.extend(scene.solid_shell(i).iter().copied());
        shells.push(first..pos_mass.len() + walls.len());
    }
    // Walls at least as thick as the support radius continue the fluid lattice on the other
    // side of every face (edges and corners filled), so a wall particle stands for exactly one
    // lattice site: ψ = m gives a fluid particle at the wall the rest density it has inside. A
    // solid's shell, as thick as the walls, continues the lattice inside the solid the same way.
    // Thinner walls miss part of the support; there Akinci's ψ = ρ0 / Σ_k W_bk weighs them up.
    let psi = if scene.walls.layers as f32 * s >= h - 1e-6 * s {
        vec![mass as f64; walls.len()]
    } else {
        boundary_volumes(&walls, hd, p.rest_density as f64)
    };
    for (x, psi) in walls.iter().zip(psi) {
        pos_mass.push([x.x as f32, x.y as f32, x.z as f32, -(psi as f32)]);
    }
    vel_rho.resize(pos_mass.len(), [0.0, 0.0, 0.0, p.rest_density]);
    // free slots for the emitters (w = 0), at the domain's centre
    let free = fluid_slots(scene, n_fluid as u64) - n_fluid as u64;
    let centre = (Vec3::from(scene.domain.min) + Vec3::from(scene.domain.max)) * 0.5;
    pos_mass.resize(pos_mass.len() + free as usize, [centre.x, centre.y, centre.z, 0.0]);
    vel_rho.resize(pos_mass.len(), [0.0, 0.0, 0.0, p.rest_density]);

    let n_particles = pos_mass.len();
    let shell_counts: Vec<u32> = shells.iter().map(|r| r.len() as u32).collect();
    let params = SimParams {
        domain_min: scene.domain.min,
        n_particles: pos_mass.len() as u32,
        domain_max: scene.domain.max,
        n_fluid,
        gravity: p.gravity,
        dt: p.dt,
        h,
        rest_density: p.rest_density,
        stiffness: b,
        sound_speed: c,
        viscosity: p.viscosity,
        wall_viscosity: p.wall_viscosity,
        wall_approach_viscosity: p.wall_approach_viscosity,
        no_slip_viscosity: p.no_slip_viscosity,
        kernel_norm: crate::physics::kernel_norm(hd) as f32,
        capacity: scene.grid.capacity,
        open_faces: scene.open_face_bits(),
        ..SimParams::default()
    };
    let params = with_solver(params, p);
    let margin = Vec3::splat(0.5 * s);
    InitialState {
        params,
        pos_mass,
        vel_rho,
        n_fluid,
        grid_lo: lo - margin,
        grid_hi: hi + margin,
        emitters: scene.emitters_for_gpu(mass),
        step: 0,
        time: 0.0,
        kinematics: scene.kinematics(&shells, n_particles),
        objects: crate::sim::objects::ObjectMap::new(&fluid_counts, tank, &shell_counts, free as u32),
        sensors: crate::sim::sensors::SensorSpec {
            forces: force_specs(scene, &walls, &shells, n_particles - walls.len() - free as usize),
            ..scene.sensor_spec()
        },
    }
}

/// The force sensors' solids as the GPU sums them: each its shell's ids (`shells[i]`, ids of
/// `walls[k − wall_base]`) and the point the moment is about (given, or the centre of the
/// shell's bounding box).
fn force_specs(scene: &Scene, walls: &[DVec3], shells: &[std::ops::Range<usize>], wall_base: usize) -> Vec<crate::sim::sensors::ForceSpec> {
    scene
        .probes
        .forces
        .iter()
        .map(|f| {
            let ids = shells[f.solid].clone();
            let about = f.about.unwrap_or_else(|| {
                let shell = &walls[ids.start - wall_base..ids.end - wall_base];
                let lo = shell.iter().fold(DVec3::splat(f64::INFINITY), |a, v| a.min(*v));
                let hi = shell.iter().fold(DVec3::splat(f64::NEG_INFINITY), |a, v| a.max(*v));
                ((lo + hi) * 0.5).as_vec3().to_array()
            });
            crate::sim::sensors::ForceSpec { first: ids.start as u32, count: ids.len() as u32, about }
        })
        .collect()
}

/// The solver and time-step fields of the uniform block from the scene's physics
/// (docs/PHYSICS.md, "Time step" and "DFSPH").
pub(crate) fn with_solver(mut params: SimParams, p: &crate::scene::Physics) -> SimParams {
    use crate::scene::TimeStep;
    params.solver = p.solver.code();
    // the walls' approach viscosity's viscous bound holds WCSPH's explicit term; DFSPH's is
    // limited by its own step instead (docs/PHYSICS.md, "Walls")
    let approach = if p.solver == crate::scene::Solver::Wcsph { params.wall_approach_viscosity } else { 0.0 };
    (params.adaptive, params.dt_min, params.dt_max, params.cfl) = match p.time_step {
        TimeStep::Fixed => (0, p.dt, p.dt, 0.0),
        TimeStep::Adaptive { min, max, cfl } => {
            let max = crate::physics::viscous_dt_limit(
                params.h as f64,
                params.viscosity.max(params.wall_viscosity).max(approach) as f64,
                params.sound_speed as f64,
            )
            .map_or(max, |v| max.min(v as f32).max(min));
            let max = crate::physics::laminar_dt_limit(params.h as f64, params.no_slip_viscosity as f64)
                .map_or(max, |v| max.min(v as f32).max(min));
            (1, min, max, cfl)
        }
    };
    params.density_tolerance = p.dfsph.tolerance;
    params.divergence_tolerance = p.dfsph.divergence_tolerance;
    params.max_iterations = p.dfsph.max_iterations;
    params.dfsph_momentum = p.dfsph.momentum;
    params
}

/// Akinci volumes ψ_b = ρ0 / Σ_k W(x_b − x_k) over the boundary particles, with a hash grid of
/// cell h so this stays O(n).
fn boundary_volumes(x: &[DVec3], h: f64, rho0: f64) -> Vec<f64> {
    let mut sum = vec![0.0; x.len()];
    crate::sim::walls::for_each_candidate(x, h, |i, k| sum[i] += cubic_w((x[i] - x[k]).length(), h));
    sum.into_iter().map(|s| rho0 / s).collect()
}

/// The grid options a scene asks for (what the panel then changes live).
pub fn sim_options(scene: &Scene) -> SimOptions {
    let g = &scene.grid;
    SimOptions {
        cell_size: g.cell_size,
        capacity: g.capacity,
        reorder_interval: g.reorder_interval,
        order: if g.morton { CellOrder::Morton } else { CellOrder::Linear },
        diagnostics: g.diagnostics,
        deterministic: g.deterministic,
        list_skin: g.list_skin,
        ..SimOptions::default()
    }
}
