//! Constants and closed-form functions of the model (docs/PHYSICS.md), written once and read by
//! the scene setup, the GPU passes (the WGSL sees them through the generated `constants` module,
//! see [`crate::wgsl`]), the CPU twin and the renderer.

/// γ of the Tait equation of state, p = B ((ρ/ρ0)^γ − 1).
pub(crate) const TAIT_GAMMA: i32 = 7;

/// `SimParams::solver` of the weakly compressible step (Tait equation of state).
pub const SOLVER_WCSPH: u32 = 0;
/// `SimParams::solver` of the divergence-free step (Bender & Koschier 2017).
pub const SOLVER_DFSPH: u32 = 1;

/// DFSPH's divergence solve leaves out a particle with fewer neighbours than this (j ≠ i, r < h,
/// fluid and wall): about 60 % of a full neighbourhood of 4/3·π·2³ ≈ 33 at h = 2 spacings — a
/// particle at a free surface, where its few neighbours would make it jitter (as SPlisHSPlasH's
/// DFSPH does).
pub(crate) const DIVERGENCE_MIN_NEIGHBOURS: u32 = 20;

/// A DFSPH solve stops when the mean error is within its tolerance and the largest within this
/// many times it: the mean alone lets a few hundred particles of an impact front be far off
/// (they hit the wall through the solve) while the bulk is fine.
pub(crate) const MAX_ERROR_FACTOR: f32 = 10.0;

/// Support radius h of the kernel in particle spacings.
pub(crate) const SUPPORT_OVER_SPACING: f32 = 2.0;

/// The contact penalty between a floating body and any other boundary (docs/PHYSICS.md,
/// "Floating bodies"): a pair of boundary particles closer than a spacing pushes apart with
/// `m_c (β δ / dt² + γ u_n / dt)`, at least 0 (δ the overlap, u_n the rate of approach, m_c the body's mass
/// per boundary particle), so the contact's own frequency ω satisfies ω dt ≤ √β however many
/// of the body's particles touch, and its damping ratio is √(touching / all) ≤ 1 with
/// γ = 2√β. Numbers of the integrator, not of a material: the contact is frictionless and
/// not fully inelastic (docs/PHYSICS.md, "Floating bodies").
pub(crate) const CONTACT_STIFFNESS: f32 = 0.04;
pub(crate) const CONTACT_DAMPING: f32 = 0.4;

/// The cubic spline's normalisation 8 / (π h³) for support radius h.
pub(crate) fn kernel_norm(h: f64) -> f64 {
    8.0 / (std::f64::consts::PI * h * h * h)
}

/// CFL number dt·c/h: how much of the support radius sound crosses in one step.
pub(crate) fn cfl(dt: f64, sound_speed: f64, h: f64) -> f64 {
    dt * sound_speed / h
}

/// Cubic spline W(r) for support radius h, in f64 (the formula of docs/PHYSICS.md).
pub fn cubic_w(r: f64, h: f64) -> f64 {
    let sigma = kernel_norm(h);
    let q = r / h;
    if q <= 0.5 {
        sigma * (6.0 * q * q * q - 6.0 * q * q + 1.0)
    } else if q <= 1.0 {
        sigma * 2.0 * (1.0 - q).powi(3)
    } else {
        0.0
    }
}

/// `Σ W(x_k)` over the infinite cubic lattice of spacing `s` (every site within `h` of the
/// origin, the origin included): a fluid particle's mass is `ρ0 / Σ W`, so that a particle
/// inside a full lattice has exactly the rest density.
pub fn lattice_kernel_sum(s: f64, h: f64) -> f64 {
    let reach = (h / s).ceil() as i32;
    let mut sum = 0.0;
    for k in -reach..=reach {
        for j in -reach..=reach {
            for i in -reach..=reach {
                sum += cubic_w(s * ((i * i + j * j + k * k) as f64).sqrt(), h);
            }
        }
    }
    sum
}

/// Tait pressure with negative pressure clamped away (the CPU side of `tait_pressure` in
/// `shaders/common.wgsl`).
/// The decimal a 32-bit float was written as (its shortest representation that reads back to
/// the same bits), as a 64-bit float: 0.0004f32 gives 0.0004, not 0.0004000000189989805. A fixed
/// dt's times are step × this, so 50 steps of 0.0004 s are 0.02 s in every file.
pub fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(x as f64)
}

pub fn tait_pressure(rho: f64, rho0: f64, stiffness: f64) -> f64 {
    stiffness * ((rho.max(rho0) / rho0).powi(TAIT_GAMMA) - 1.0)
}

/// Largest dt the viscous condition allows, dt ≤ 0.125·ℓ²/ν with the smoothing length ℓ = h/2
/// and the kinematic viscosity of Monaghan's artificial viscosity ν = α·ℓ·c/10 (3D cubic
/// spline): 0.625·h/(α·c). `None` without viscosity.
pub(crate) fn viscous_dt_limit(h: f64, alpha: f64, sound_speed: f64) -> Option<f64> {
    (alpha > 0.0 && sound_speed > 0.0).then(|| 0.625 * h / (alpha * sound_speed))
}

/// Largest dt the viscous condition allows for a laminar kinematic viscosity ν (no-slip walls):
/// `0.125·ℓ²/ν` with the smoothing length `ℓ = h/2`. `None` without it.
pub(crate) fn laminar_dt_limit(h: f64, nu: f64) -> Option<f64> {
    (nu > 0.0).then(|| 0.125 * (0.5 * h) * (0.5 * h) / nu)
}

/// The fraction of the support radius (WCSPH: sound and flow, dt·(c + |v|)/h) or of the
/// spacing (DFSPH: flow alone, dt·|v|/s) crossed in one step must stay below `cfl`; with the
/// force condition dt ≤ 0.25·√(h/|a|) and `[dt_min, dt_max]` this is the adaptive dt
/// (docs/PHYSICS.md, "Time step"). `max_speed` and `max_acc` are over the fluid. The GPU's
/// sim.time_step computes the same in f32.
///
/// Two bounds follow the last step: dt grows by at most [`DT_GROWTH`] a step (`last_dt`), and
/// after a DFSPH pressure solve that stopped at its iteration cap above its tolerance
/// (`unconverged`), dt is at most half the last one.
pub(crate) fn adaptive_dt(a: AdaptiveDt, max_speed: f64, max_acc: f64, last_dt: f64, unconverged: bool) -> f64 {
    let AdaptiveDt { solver, h, sound_speed, cfl, dt_min, dt_max } = a;
    let mut dt = dt_max;
    if solver == SOLVER_WCSPH {
        dt = dt.min(cfl * h / (sound_speed + max_speed));
    } else if max_speed > 0.0 {
        dt = dt.min(cfl * 0.5 * h / max_speed);
    }
    if max_acc > 0.0 {
        dt = dt.min(FORCE_CONDITION * (h / max_acc).sqrt());
    }
    dt = dt.min(DT_GROWTH * last_dt);
    if unconverged {
        dt = dt.min(0.5 * last_dt);
    }
    dt.max(dt_min)
}

/// An adaptive dt against the next frame time (`rillet run --export-fps`; sim.time_step's rule):
/// with `left` = frame time − clock, a step that would reach or pass the frame ends on it
/// (`true`: the clock then reads the frame time), and one that would leave less than a step
/// before it takes half of `left`, so the step that lands is not a sliver. Within `dt_min / 2`
/// of the frame the clock counts as on it: the step is the flow's.
pub(crate) fn toward_frame(dt: f64, left: f64, dt_min: f64) -> (f64, bool) {
    if left <= 0.5 * dt_min {
        (dt, false)
    } else if left <= dt {
        (left, true)
    } else if left < 2.0 * dt {
        (0.5 * left, false)
    } else {
        (dt, false)
    }
}

/// What [`adaptive_dt`] depends on besides the speeds and forces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AdaptiveDt {
    pub solver: u32,
    pub h: f64,
    pub sound_speed: f64,
    pub cfl: f64,
    pub dt_min: f64,
    pub dt_max: f64,
}

/// Most an adaptive dt grows from one step to the next (a pressure solve's warm start and the
/// flow keep up with a dt that grows smoothly; a jump from rest to the CFL bound overwhelms it).
pub(crate) const DT_GROWTH: f64 = 1.1;

/// The share of the last step's applied κ a DFSPH solve starts from (its warm start), for the
/// pressure and for the divergence solve (SPlisHSPlasH's DFSPH takes ½ too). Measured on the full
/// hydrostatic column (docs/VALIDATION.md, "DFSPH"): ½ passes every bound with the widest margins,
/// ¾ passes with less, the whole of it fails (3.1 % density error below h, kinetic energy 0.12 of
/// its peak): an iteration can take pressure back, but a whole warm start overshoots where the
/// flow has changed since the last step faster than the few iterations correct.
pub(crate) const WARM_PRESSURE_SHARE: f64 = 0.5;
pub(crate) const WARM_DIVERGENCE_SHARE: f64 = 0.5;

/// The relaxation ω of a DFSPH iteration: each particle's total κ moves by ω times the Jacobi
/// correction of its own error, and is kept ≥ 0 (a projected, relaxed Jacobi iteration, as
/// IISPH's ω = ½, Ihmsen et al. 2014, and SPlisHSPlasH's DFSPH). With ω = 1 every neighbour's
/// correction adds to a particle's own and the iteration overshoots; ω = ¾ blew the full
/// hydrostatic column up within 40 steps (docs/VALIDATION.md, "DFSPH").
pub(crate) const DFSPH_RELAXATION: f64 = 0.5;

/// The fewest iterations a DFSPH solve does after its warm start, even when the warm start
/// already meets the tolerance (SPlisHSPlasH's DFSPH: 2 for the pressure solve, 1 for the
/// divergence solve). Without them a warm start that meets the mean tolerance is never
/// corrected: the divergence solve of the column did no iteration at all in most steps.
pub(crate) const MIN_PRESSURE_ITERATIONS: u32 = 2;
pub(crate) const MIN_DIVERGENCE_ITERATIONS: u32 = 1;

/// The factor of the force condition dt ≤ FORCE_CONDITION·√(h/|a|max) of an adaptive dt.
pub(crate) const FORCE_CONDITION: f64 = 0.25;

/// Most neighbours a particle's neighbour list holds (a multiple of 8: two bindings hold half each; sph.density writes the
/// lists, sph.force reads them, `crate::sim::ListLayout` says when and how). About 34 lie within h
/// of a particle of the benchmark case at rest and up to about 45 under its compression; a
/// particle with more walks the grid in sph.force. A constant of the shaders, not a pipeline
/// override: as an override in the lists' index arithmetic it cost the step 19 % on the H200
/// (docs/PERFORMANCE.md, "Neighbour lists").
pub const NEIGHBOUR_LIST_MAX: u32 = 48;
const _: () = assert!(NEIGHBOUR_LIST_MAX.is_multiple_of(8));

/// Where the neighbour lists are too large for one binding, their rows of four entries from this
/// one on are kept in a second binding (`shaders/lists_write.wgsl`): half in each.
pub const LIST_SPLIT_ROW: u32 = list_split_row(NEIGHBOUR_LIST_MAX);

/// Most neighbours a list holds when the lists are kept between grid builds with a skin of
/// `skin` h (`grid.list_skin`; docs/PHYSICS.md, "Lists kept between grid builds"): the lists then
/// hold every particle within (1 + skin) h, (1 + skin)³ times the volume, so the capacity grows
/// with it from [`NEIGHBOUR_LIST_MAX`], rounded up to a multiple of 8. A particle with more
/// makes the next step build the grid again.
pub fn list_capacity(skin: f32) -> u32 {
    if skin <= 0.0 {
        return NEIGHBOUR_LIST_MAX;
    }
    let grown = NEIGHBOUR_LIST_MAX as f64 * (1.0 + skin as f64).powi(3);
    (grown / 8.0).ceil() as u32 * 8
}

/// The rows of four entries a list keeps in its first binding where the lists are split over
/// two (half of them; [`LIST_SPLIT_ROW`] for the default capacity).
pub const fn list_split_row(capacity: u32) -> u32 {
    capacity / 8
}

/// The words of grid.keep, the control of the neighbour lists kept between grid builds
/// (`crate::sim::keep` says what each holds; generated into the shaders' constants).
pub mod keep {
    pub const TRAVEL: u32 = 0;
    pub const MOVE: u32 = 1;
    pub const OVERFLOW: u32 = 2;
    pub const BUILDS: u32 = 3;
    pub const KEPT: u32 = 4;
    pub const SKIN: u32 = 5;
    pub const OVERFLOWED: u32 = 6;
    /// Control words.
    pub const WORDS: u32 = 8;
    pub const LIVE: u32 = 0;
    /// Indirect dispatches: [`ENTRY_BUILD`], [`ENTRY_LISTED`], [`ENTRY_SKINNED`],
    /// [`ENTRY_WITHIN_H`], then one per scan level.
    pub const ENTRIES: u32 = 10;
    pub const FULL: u32 = LIVE + 4 * ENTRIES;
    /// Words of `keep_args`.
    pub const ARGS_WORDS: u32 = FULL + 4 * ENTRIES;
    /// The per-particle passes of a building step, whatever its skin (grid.count, grid.scatter,
    /// the reorder).
    pub const ENTRY_BUILD: u32 = 0;
    /// The per-particle passes of a step that keeps the lists (the copy into the other set, the
    /// listed sph.density and sph.wall_pressure).
    pub const ENTRY_LISTED: u32 = 1;
    /// The walking sph.density and sph.wall_pressure of a build that lists with the skin.
    pub const ENTRY_SKINNED: u32 = 2;
    /// The walking sph.density and sph.wall_pressure of a build that lists within h (the last
    /// step too fast for the skin): the passes of lists built every step, nothing of the skin
    /// compiled in.
    pub const ENTRY_WITHIN_H: u32 = 3;
    /// The first scan level's entry (level k is `ENTRY_SCAN + k`).
    pub const ENTRY_SCAN: u32 = 4;
    /// Word 3 of a full entry: the steps its dispatch runs in (grid.keep turns it on or off).
    pub const WHEN_BUILD: u32 = 0;
    pub const WHEN_LISTED: u32 = 1;
    pub const WHEN_SKINNED: u32 = 2;
    pub const WHEN_WITHIN_H: u32 = 3;
    pub const MAX_SCAN_LEVELS: u32 = ENTRIES - ENTRY_SCAN;
}
