//! The simulation step in f64, per docs/PHYSICS.md steps 3–5 (density, force, integration).
//!
//! State is indexed by particle id (creation order) and never reordered: the reorder of step 2
//! only permutes the GPU's buffers, so it has no counterpart here, and the grid of step 1 only
//! accelerates the neighbour search, whose result [`RefSim::neighbours`] finds directly.

use super::grid::cell_list_neighbours;
use super::kernel::{CubicKernel, tait_pressure};
use crate::sim::InitialState;
use crate::sim::emit::{Emitters, PHASE_ONE};
use crate::sim::params::{SimParams, open_face_bit};
use glam::Vec3;

/// The CPU twin of `Sim`: the same step, in f64.
#[derive(Clone, Debug)]
pub struct RefSim {
    /// The f32 parameters the GPU runs with; every value is widened to f64 where it is used.
    pub params: SimParams,
    /// `(x, m)` for fluid, `(x, −ψ)` for boundary, indexed by particle id; never reordered.
    pub pos_mass: Vec<[f64; 4]>,
    /// `(v, ρ)`; boundary particles keep `v = 0`; their `ρ` carries the wall pressure
    /// ([`Self::compute_wall_pressure`]).
    pub vel_rho: Vec<[f64; 4]>,
    /// Acceleration of the last [`Self::compute_forces`] (fluid), zero for boundary.
    pub acc: Vec<[f64; 3]>,
    /// Particles clamped by the domain guard, cumulative (once per particle and step).
    pub wall_clamps: u64,
    /// Particles whose integrated state was not finite, cumulative.
    pub non_finite: u64,
    /// Steps taken by [`Self::step`].
    pub steps: u64,
    /// The emitters, and each one's phase (1/65536 step to its next layer).
    pub emitters: Emitters,
    pub phase: Vec<i64>,
    /// Fluid particles that left through an open face, cumulative.
    pub outflow: u64,
    /// Particles the emitters created, and could not create for want of free slots.
    pub emitted: u64,
    pub starved: u64,
    /// Simulated time, s: the sum of the steps' dt.
    pub time: f64,
    /// What the last step measured and chose (the GPU's [`Diagnostics`](crate::sim::params::Diagnostics)
    /// words of the same names): its dt is also `params.dt` from then on, as on the GPU.
    pub last: StepRecord,
    /// DFSPH: 1 / D_i of the last density pass, and κ_i of the last iteration, by id.
    pub factor: Vec<f64>,
    pub kappa: Vec<f64>,
    /// DFSPH: the current solve's total κ, and each solve's total at the end of the last step
    /// (κ dt for the divergence solve, κ dt² for the pressure solve), by id: the warm start.
    pub kappa_total: Vec<f64>,
    pub warm_divergence: Vec<f64>,
    pub warm_pressure: Vec<f64>,
    /// Each wall particle's normal line by id ([`crate::sim::walls::wall_normals`], as the
    /// GPU has them), with the approach viscosity; empty without it.
    pub wall_normals: Vec<[f32; 4]>,
    /// The moving solids ([`crate::sim::motion`]), the rest normals of their particles by id,
    /// and each wall particle's velocity and acceleration of this step (zero for walls at
    /// rest; set by [`Self::move_solids`]).
    pub kinematics: crate::sim::motion::Kinematics,
    pub rest_normals: Vec<[f32; 4]>,
    pub wall_motion: Vec<[[f64; 3]; 2]>,
    /// Each moving solid's state ([`super::bodies`]): a floating body's pose and rates, and
    /// the force and torque on every moving solid in the last step.
    pub bodies: Vec<super::bodies::RefBody>,
}

/// What one step measured, chose and iterated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepRecord {
    pub dt: f64,
    pub max_speed: f64,
    pub max_acc: f64,
    /// Mean max(ρ − ρ0, 0)/ρ0 over fluid at the step's density pass (each share capped at 1).
    pub density_error: f64,
    pub pressure_iterations: u32,
    pub divergence_iterations: u32,
    /// The mean predicted compression the pressure solve stopped at.
    pub solver_error: f64,
}

impl RefSim {
    /// Copies `state.params` and widens the f32 particle arrays.
    pub fn new(state: &InitialState) -> Self {
        assert_eq!(state.pos_mass.len(), state.vel_rho.len(), "pos_mass and vel_rho differ in length");
        let widen = |v: &[f32; 4]| v.map(f64::from);
        let n = state.pos_mass.len();
        Self {
            params: state.params,
            pos_mass: state.pos_mass.iter().map(widen).collect(),
            vel_rho: state.vel_rho.iter().map(widen).collect(),
            acc: vec![[0.0; 3]; n],
            wall_clamps: 0,
            non_finite: 0,
            steps: state.step,
            phase: state.emitters.emitters.iter().map(|e| e.phase_at(state.step) as i64).collect(),
            emitters: state.emitters.clone(),
            outflow: 0,
            emitted: 0,
            starved: 0,
            time: state.time,
            last: StepRecord::default(),
            factor: vec![0.0; n],
            kappa: vec![0.0; n],
            kappa_total: vec![0.0; n],
            warm_divergence: vec![0.0; n],
            warm_pressure: vec![0.0; n],
            wall_normals: Vec::new(),
            kinematics: state.kinematics.clone(),
            rest_normals: Vec::new(),
            wall_motion: vec![[[0.0; 3]; 2]; n],
            bodies: state.kinematics.states.iter().map(super::bodies::RefBody::new).collect(),
        }
        .with_normals(state)
    }

    /// The walls' normal lines as the GPU has them (`Sim::new`): from the solids at rest.
    fn with_normals(mut self, state: &InitialState) -> Self {
        let k = &state.kinematics;
        if !k.is_empty() {
            self.rest_normals = crate::sim::walls::rest_normals(&state.pos_mass, k, state.params.h);
            self.wall_normals = self.rest_normals.clone();
        } else if state.params.wall_approach_viscosity > 0.0 {
            self.wall_normals = crate::sim::walls::wall_normals(&state.pos_mass, state.params.h);
        }
        self
    }

    /// solids.move's twin: every boundary particle of a moving solid to its pose at the clock
    /// (the start of the step), its normal turned, its velocity and acceleration recorded.
    pub fn move_solids(&mut self) {
        if self.kinematics.is_empty() {
            return;
        }
        let poses: Vec<_> = (0..self.kinematics.bodies.len())
            .map(|b| {
                let m = &self.kinematics.bodies[b];
                match self.bodies.get(b) {
                    Some(s) if m.translation == crate::sim::motion::TRANSLATION_FLOATING => {
                        let pivot = glam::DVec3::from(m.pivot.map(f64::from));
                        crate::sim::motion::Pose {
                            pivot,
                            translation: s.position - pivot,
                            rotation: s.orientation,
                            angular_velocity: s.angular_velocity,
                            angular_acceleration: s.angular_acceleration,
                            velocity: s.velocity,
                            acceleration: s.acceleration,
                        }
                    }
                    _ => self.kinematics.pose(b, self.time),
                }
            })
            .collect();
        for id in 0..self.n_particles() {
            let b = self.kinematics.body_of[id];
            if b == 0 {
                continue;
            }
            let pose = &poses[b as usize - 1];
            let x0 = glam::DVec3::from(self.kinematics.rest[id].map(f64::from));
            let x = pose.apply(x0);
            self.pos_mass[id][..3].copy_from_slice(&x.to_array());
            let n0 = self.rest_normals[id];
            let n = pose.rotate(glam::DVec3::new(n0[0] as f64, n0[1] as f64, n0[2] as f64));
            self.wall_normals[id] = [n.x as f32, n.y as f32, n.z as f32, 0.0];
            let (v, a) = pose.point_rates(x);
            self.wall_motion[id] = [v.to_array(), a.to_array()];
        }
    }

    pub fn n_particles(&self) -> usize {
        self.pos_mass.len()
    }

    /// Fluid particles are the ones with `w > 0` (docs/PHYSICS.md, "Particles").
    #[inline]
    pub fn is_fluid(&self, i: usize) -> bool {
        self.pos_mass[i][3] > 0.0
    }

    /// Boundary particles have `w < 0`; `w = 0` is a free slot.
    #[inline]
    pub fn is_boundary(&self, i: usize) -> bool {
        self.pos_mass[i][3] < 0.0
    }

    /// Support radius `h` as f64.
    pub fn h(&self) -> f64 {
        self.params.h as f64
    }

    /// The kernel for `params.h`.
    pub(crate) fn kernel(&self) -> CubicKernel {
        CubicKernel::new(self.h())
    }

    /// Tait pressure of a density with this simulation's `ρ0` and `B`.
    pub fn pressure(&self, rho: f64) -> f64 {
        tait_pressure(rho, self.params.rest_density as f64, self.params.stiffness as f64)
    }

    /// Positions in f64, by id.
    pub fn positions(&self) -> Vec<[f64; 3]> {
        self.pos_mass.iter().map(|p| [p[0], p[1], p[2]]).collect()
    }

    /// Positions rounded to f32 (what the GPU would hold for this state), e.g. for
    /// [`super::build_grid`].
    pub fn positions_f32(&self) -> Vec<Vec3> {
        self.pos_mass.iter().map(|p| Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32)).collect()
    }

    /// For every particle (fluid and boundary), the ascending ids `j` with `r² < h²` on the
    /// current f64 positions, itself included. Same relation as the all-pairs oracle, found with
    /// a cell list (checked equal to the oracle in the tests).
    pub fn neighbours(&self) -> Vec<Vec<u32>> {
        cell_list_neighbours(&self.positions(), self.h(), |i| self.pos_mass[i][3] != 0.0)
    }

    /// [`Self::neighbours`] for fluid particles only; boundary particles get empty lists (the
    /// density and force passes never read them). What [`Self::step`] uses.
    pub fn fluid_neighbours(&self) -> Vec<Vec<u32>> {
        cell_list_neighbours(&self.positions(), self.h(), |i| self.is_fluid(i))
    }

    /// Step 3: `ρ_i = Σ_j |w_j| W(|x_i − x_j|)` over `nb[i]` (which includes `i`), fluid only;
    /// boundary particles keep their `ρ`.
    pub fn compute_density(&mut self, nb: &[Vec<u32>]) {
        assert_eq!(nb.len(), self.n_particles(), "one neighbour list per particle");
        let k = self.kernel();
        for (i, list) in nb.iter().enumerate() {
            if !self.is_fluid(i) {
                continue;
            }
            let xi = self.pos_mass[i];
            let mut rho = 0.0;
            for &j in list {
                let xj = &self.pos_mass[j as usize];
                let (dx, dy, dz) = (xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]);
                let r = (dx * dx + dy * dy + dz * dz).sqrt();
                rho += xj[3].abs() * k.w(r);
            }
            self.vel_rho[i][3] = rho;
        }
    }

    /// Step 4: pressure (Tait, `P = p/ρ²`) and Monaghan viscosity against every neighbour
    /// `j ≠ i` with `0 < r² < h²`, plus gravity; fills `acc` for fluid particles.
    pub fn compute_forces(&mut self, nb: &[Vec<u32>]) {
        self.compute_forces_with(nb, true)
    }

    /// [`Self::compute_forces`]; without `pressure` viscosity, gravity and the walls' hydrostatic
    /// support only (DFSPH).
    pub(crate) fn compute_forces_with(&mut self, nb: &[Vec<u32>], pressure: bool) {
        assert_eq!(nb.len(), self.n_particles(), "one neighbour list per particle");
        let k = self.kernel();
        let p = &self.params;
        let g = p.gravity.map(f64::from);
        let h = p.h as f64;
        let c = p.sound_speed as f64;
        let (alpha_fluid, alpha_wall) = (p.viscosity as f64, p.wall_viscosity as f64);
        let eta2 = 0.01 * h * h;
        let nu = p.no_slip_viscosity as f64;
        // P_j = p(ρ_j)/ρ_j² for everyone (for boundary particles ρ_j carries the wall pressure)
        let pr: Vec<f64> = self.vel_rho.iter().map(|v| if pressure { self.pressure(v[3]) / (v[3] * v[3]) } else { 0.0 }).collect();
        for i in 0..self.n_particles() {
            if !self.is_fluid(i) {
                continue;
            }
            let xi = self.pos_mass[i];
            let vi = self.vel_rho[i];
            let mut a = [0.0f64; 3];
            for &j in &nb[i] {
                let j = j as usize;
                if j == i {
                    continue;
                }
                let xj = &self.pos_mass[j];
                let vj = &self.vel_rho[j];
                let x = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
                let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
                if !(r2 > 0.0 && r2 < k.h2) {
                    continue;
                }
                let v = [vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]];
                let vx = v[0] * x[0] + v[1] * x[1] + v[2] * x[2];
                let pi_ij = if vx < 0.0 {
                    let alpha = if xj[3] > 0.0 { alpha_fluid } else { alpha_wall };
                    -alpha * h * c * 2.0 / (vi[3] + vj[3]) * vx / (r2 + eta2)
                } else {
                    0.0
                };
                let grad = k.grad_r(x, r2.sqrt());
                // DFSPH: a wall particle's hydrostatic part g·(x_b − x_i)/ρ0 of its κ (the solve
                // mirrors κ_i)
                let pr_j =
                    if !pressure && xj[3] < 0.0 { -(g[0] * x[0] + g[1] * x[1] + g[2] * x[2]) / p.rest_density as f64 } else { pr[j] };
                let s = xj[3].abs() * (pr[i] + pr_j + pi_ij);
                for d in 0..3 {
                    a[d] -= s * grad[d];
                }
                // no-slip walls: Morris et al. (1997) laminar friction against wall particles
                if xj[3] < 0.0 && nu > 0.0 {
                    let xg = x[0] * grad[0] + x[1] * grad[1] + x[2] * grad[2];
                    let f = xj[3].abs() * nu * (vi[3] + vj[3]) / (vi[3] * vj[3]) * xg / (r2 + eta2);
                    for d in 0..3 {
                        a[d] += f * v[d];
                    }
                }
            }
            if p.wall_approach_viscosity > 0.0 {
                let (an, rate) = self.wall_approach(i, &nb[i]);
                // DFSPH (whose step resolves no sound): at most the approach removed in one step
                let limit = if pressure { 1.0 } else { (1.0 / (rate * p.dt as f64)).min(1.0) };
                for d in 0..3 {
                    a[d] += an[d] * limit;
                }
            }
            self.acc[i] = [g[0] + a[0], g[1] + a[1], g[2] + a[2]];
        }
    }

    /// The walls' approach viscosity on fluid particle `i` (docs/PHYSICS.md, "Walls"): for each
    /// wall neighbour `b` with normal line `n_b` (turned towards `i`), Monaghan's term with
    /// `α_n = wall_approach_viscosity` on the normal component of `i`'s approach,
    /// `Π = −α_n h c 2/(ρ_i + ρ_b) (v_i·n)(x_ib·n)/(r² + 0.01 h²)` while `v_i·n < 0`, along `n`:
    /// `a_i −= ψ_b Π (∇W_ib·n) n`. Nothing acts along the wall. Also the rate κ at which it
    /// damps the approach (the sum of the pairs' coefficients of |u|, 1/s).
    fn wall_approach(&self, i: usize, nb: &[u32]) -> ([f64; 3], f64) {
        let k = self.kernel();
        let p = &self.params;
        let (h, c, alpha) = (p.h as f64, p.sound_speed as f64, p.wall_approach_viscosity as f64);
        let eta2 = 0.01 * h * h;
        let (xi, vi) = (self.pos_mass[i], self.vel_rho[i]);
        let mut a = [0.0f64; 3];
        let mut rate = 0.0;
        for &j in nb {
            let j = j as usize;
            let xj = self.pos_mass[j];
            if xj[3] >= 0.0 {
                continue;
            }
            let x = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
            let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
            if !(r2 > 0.0 && r2 < k.h2) {
                continue;
            }
            let m = self.wall_normals[j].map(f64::from);
            let side = if m[0] * x[0] + m[1] * x[1] + m[2] * x[2] < 0.0 { -1.0 } else { 1.0 };
            let n = [side * m[0], side * m[1], side * m[2]];
            let vw = self.wall_motion[j][0];
            let u = (vi[0] - vw[0]) * n[0] + (vi[1] - vw[1]) * n[1] + (vi[2] - vw[2]) * n[2];
            if u >= 0.0 {
                continue;
            }
            let xn = x[0] * n[0] + x[1] * n[1] + x[2] * n[2];
            let g = k.grad_r(x, r2.sqrt());
            let gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
            let pi = -alpha * h * c * 2.0 / (vi[3] + self.vel_rho[j][3]) * u * xn / (r2 + eta2);
            for d in 0..3 {
                a[d] -= xj[3].abs() * pi * gn * n[d];
            }
            rate += (xj[3].abs() * pi * gn / u).abs();
        }
        (a, rate)
    }

    /// Step 5: symplectic Euler for fluid particles, the non-finite guard, then the domain
    /// guard: past an open face the particle leaves (its slot freed, counted as outflow), past a
    /// closed one it is clamped onto the face, that velocity component zeroed, counted once.
    pub fn integrate(&mut self) {
        self.integrate_with(true)
    }

    /// [`Self::integrate`]; without `kick` the velocity is taken as it is (DFSPH: the pressure
    /// solve has made it final) and only positions move.
    pub(crate) fn integrate_with(&mut self, kick: bool) {
        let dt = self.params.dt as f64;
        let lo = self.params.domain_min.map(f64::from);
        let hi = self.params.domain_max.map(f64::from);
        let open = self.params.open_faces;
        for i in 0..self.n_particles() {
            if !self.is_fluid(i) {
                continue;
            }
            let a = self.acc[i];
            let mut v = [0.0; 3];
            let mut x = [0.0; 3];
            for d in 0..3 {
                v[d] = self.vel_rho[i][d] + if kick { dt * a[d] } else { 0.0 };
            }
            // fluid in the inlet zone of an emitter that is emitting moves at its velocity
            let at = [self.pos_mass[i][0], self.pos_mass[i][1], self.pos_mass[i][2]];
            for em in &self.emitters.emitters {
                if em.active(self.steps) && in_inlet(em, at) {
                    v = em.velocity.map(f64::from);
                }
            }
            for d in 0..3 {
                x[d] = self.pos_mass[i][d] + dt * v[d];
            }
            if !v.iter().chain(x.iter()).all(|c| c.is_finite()) {
                // keep x, stop the particle
                self.vel_rho[i][..3].copy_from_slice(&[0.0; 3]);
                self.non_finite += 1;
                continue;
            }
            // compared in f32, as the GPU compares
            let leaves = (0..3).any(|d| {
                let xf = x[d] as f32;
                (xf < lo[d] as f32 && open & open_face_bit(d, false) != 0) || (xf > hi[d] as f32 && open & open_face_bit(d, true) != 0)
            });
            if leaves {
                self.pos_mass[i] = [x[0], x[1], x[2], 0.0];
                self.vel_rho[i] = [0.0, 0.0, 0.0, self.params.rest_density as f64];
                self.outflow += 1;
                continue;
            }
            let mut clamped = false;
            for d in 0..3 {
                if x[d] < lo[d] {
                    x[d] = lo[d];
                    v[d] = 0.0;
                    clamped = true;
                } else if x[d] > hi[d] {
                    x[d] = hi[d];
                    v[d] = 0.0;
                    clamped = true;
                }
            }
            if clamped {
                self.wall_clamps += 1;
            }
            self.pos_mass[i][..3].copy_from_slice(&x);
            self.vel_rho[i][..3].copy_from_slice(&v);
        }
    }

    /// Step 3b (Adami et al. 2012): the pressure of each boundary particle from the fluid
    /// neighbours in `nb[b]`,
    /// `p_b = max(0, Σ_f (p_f + ρ_f (g − a_b)·(x_b − x_f)) W_bf / Σ_f W_bf)` (0 without fluid
    /// around; `a_b` the wall particle's acceleration, zero at rest), stored as the density with
    /// that Tait pressure, `ρ_b = ρ0 (p_b/B + 1)^(1/7)`; its velocity is the wall's `v_b`, or
    /// with no-slip walls `2 v_b` minus the fluid's velocity extrapolated to it.
    pub fn compute_wall_pressure(&mut self, nb: &[Vec<u32>]) {
        assert_eq!(nb.len(), self.n_particles(), "one neighbour list per particle");
        let k = self.kernel();
        let g = self.params.gravity.map(f64::from);
        let rho0 = self.params.rest_density as f64;
        let b = self.params.stiffness as f64;
        for (w, nb_w) in nb.iter().enumerate() {
            if !self.is_boundary(w) {
                continue;
            }
            let xw = self.pos_mass[w];
            let [v_w, a_w] = self.wall_motion[w];
            let g = [g[0] - a_w[0], g[1] - a_w[1], g[2] - a_w[2]];
            let (mut num, mut den, mut vel) = (0.0, 0.0, [0.0f64; 3]);
            for &f in nb_w {
                let f = f as usize;
                if !self.is_fluid(f) {
                    continue;
                }
                let xf = &self.pos_mass[f];
                let r = [xw[0] - xf[0], xw[1] - xf[1], xw[2] - xf[2]];
                let weight = k.w((r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt());
                let rho_f = self.vel_rho[f][3];
                num += (self.pressure(rho_f) + rho_f * (g[0] * r[0] + g[1] * r[1] + g[2] * r[2])) * weight;
                den += weight;
                for (v, u) in vel.iter_mut().zip(&self.vel_rho[f]) {
                    *v += u * weight;
                }
            }
            let p_w = if den > 0.0 { (num / den).max(0.0) } else { 0.0 };
            self.vel_rho[w][3] = rho0 * (p_w / b + 1.0).powf(1.0 / 7.0);
            // no-slip walls: minus the fluid's velocity extrapolated to the wall particle
            let no_slip = self.params.no_slip_viscosity > 0.0 && den > 0.0;
            for ((u, v), vw) in self.vel_rho[w].iter_mut().zip(vel).zip(v_w) {
                *u = if no_slip { 2.0 * vw - v / den } else { vw };
            }
        }
    }

    /// One step: neighbours, density, wall pressure, forces, dt, integration, emission
    /// (WCSPH); or neighbours, density and factor, the divergence solve, viscosity and gravity,
    /// dt, v* = v + dt a, the pressure solve, positions, emission (DFSPH).
    pub fn step(&mut self) {
        // the slots free at the start of the step are the ones the emitters may fill at its end
        let free: Vec<usize> = (0..self.n_particles()).filter(|&i| self.pos_mass[i][3] == 0.0).collect();
        self.move_solids();
        let nb = self.neighbours();
        if self.params.solver == crate::physics::SOLVER_DFSPH {
            self.compute_density_and_factor(&nb);
            self.last.divergence_iterations = self.solve(&nb, false).0;
            self.compute_forces_with(&nb, false);
            self.choose_dt();
            self.predict();
            (self.last.pressure_iterations, self.last.solver_error) = self.solve(&nb, true);
            self.integrate_with(false);
        } else {
            self.compute_density(&nb);
            self.compute_wall_pressure(&nb);
            self.compute_forces(&nb);
            self.choose_dt();
            self.move_bodies(&nb);
            self.integrate();
        }
        self.emit(&free);
        self.steps += 1;
    }

    /// sim.time_step's twin: over fluid, the largest speed and acceleration and the mean
    /// compression; the step's dt ([`crate::physics::adaptive_dt`], rounded to f32 as the GPU
    /// holds it, or the fixed dt), which becomes `params.dt`; the clock advances by it.
    pub(crate) fn choose_dt(&mut self) {
        let rho0 = self.params.rest_density as f64;
        let (mut vmax, mut amax, mut err, mut n) = (0.0f64, 0.0f64, 0.0, 0usize);
        for i in (0..self.n_particles()).filter(|&i| self.is_fluid(i)) {
            let v = &self.vel_rho[i];
            let a = &self.acc[i];
            vmax = vmax.max((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt());
            amax = amax.max((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt());
            err += ((v[3] - rho0).max(0.0) / rho0).min(1.0);
            n += 1;
        }
        let p = self.params;
        let dt = if p.adaptive != 0 {
            let a = crate::physics::AdaptiveDt {
                solver: p.solver,
                h: p.h as f64,
                sound_speed: p.sound_speed as f64,
                cfl: p.cfl as f64,
                dt_min: p.dt_min as f64,
                dt_max: p.dt_max as f64,
            };
            let unconverged = p.solver == crate::physics::SOLVER_DFSPH && self.last.solver_error > p.density_tolerance as f64;
            crate::physics::adaptive_dt(a, vmax, amax, p.dt as f64, unconverged) as f32
        } else {
            p.dt
        };
        let (dt, lands) = if p.adaptive != 0 && p.frame_time > 0.0 {
            let (dt, lands) = crate::physics::toward_frame(dt as f64, p.frame_time as f64 - self.time, p.dt_min as f64);
            (dt as f32, lands)
        } else {
            (dt, false)
        };
        self.params.dt = dt;
        self.time = if lands { p.frame_time as f64 } else { self.time + dt as f64 };
        self.last.dt = dt as f64;
        self.last.max_speed = vmax;
        self.last.max_acc = amax;
        self.last.density_error = if n > 0 { err / n as f64 } else { 0.0 };
    }

    /// The emitters at the end of a step (docs/PHYSICS.md, "Emitters"): each emitter in its
    /// window whose next layer falls in this step lays its points down, moved on along its
    /// direction by the time since the layer was due, in the lowest free ids — if the whole
    /// layer fits in what is left of `free`; otherwise the layer is skipped and counted as
    /// starved.
    pub(crate) fn emit(&mut self, free: &[usize]) {
        let mut used = 0usize;
        let rho0 = self.params.rest_density as f64;
        for (e, em) in self.emitters.emitters.iter().enumerate() {
            if self.steps < em.start_step as u64 || self.steps >= em.end_step as u64 {
                continue;
            }
            let phase = self.phase[e];
            if phase < PHASE_ONE {
                let n = em.n_points as usize;
                if used + n <= free.len() {
                    let late = (PHASE_ONE - phase) as f64 / PHASE_ONE as f64;
                    let shift = em.step_length as f64 * late;
                    let points = &self.emitters.points[em.first_point as usize..][..n];
                    for (p, &slot) in points.iter().zip(&free[used..used + n]) {
                        let d = em.direction.map(f64::from);
                        self.pos_mass[slot] =
                            [p[0] as f64 + d[0] * shift, p[1] as f64 + d[1] * shift, p[2] as f64 + d[2] * shift, em.mass as f64];
                        self.vel_rho[slot] = [em.velocity[0] as f64, em.velocity[1] as f64, em.velocity[2] as f64, rho0];
                        self.acc[slot] = [0.0; 3];
                    }
                    used += n;
                    self.emitted += n as u64;
                } else {
                    self.starved += n as u64;
                }
                self.phase[e] = phase + em.period as i64;
            }
            self.phase[e] -= PHASE_ONE;
        }
    }

    /// `Σ ½ m v²` over fluid.
    pub fn kinetic_energy(&self) -> f64 {
        (0..self.n_particles())
            .filter(|&i| self.is_fluid(i))
            .map(|i| {
                let v = &self.vel_rho[i];
                0.5 * self.pos_mass[i][3] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
            })
            .sum()
    }

    /// `Σ m v` over fluid.
    pub fn momentum(&self) -> [f64; 3] {
        let mut p = [0.0; 3];
        for i in (0..self.n_particles()).filter(|&i| self.is_fluid(i)) {
            let m = self.pos_mass[i][3];
            for (p, v) in p.iter_mut().zip(&self.vel_rho[i][..3]) {
                *p += m * v;
            }
        }
        p
    }

    /// `(min, max)` of `ρ/ρ0 − 1` over fluid (negative at free surfaces, where neighbours are
    /// missing; positive where the fluid is compressed).
    pub fn density_error_range(&self) -> (f64, f64) {
        let rho0 = self.params.rest_density as f64;
        (0..self.n_particles())
            .filter(|&i| self.is_fluid(i))
            .map(|i| self.vel_rho[i][3] / rho0 - 1.0)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| (lo.min(e), hi.max(e)))
    }
}

/// Whether `x` lies in the inlet zone of `em` (docs/PHYSICS.md step 5): from its plane to
/// `zone` along its direction, inside its outline (a disc has `half_v < 0`, its radius in
/// `half_u`).
fn in_inlet(em: &crate::sim::emit::EmitterGpu, x: [f64; 3]) -> bool {
    let q = [0, 1, 2].map(|a| x[a] - em.center[a] as f64);
    let dot = |v: [f32; 3]| q[0] * v[0] as f64 + q[1] * v[1] as f64 + q[2] * v[2] as f64;
    let a = dot(em.direction);
    if a < 0.0 || a >= em.zone as f64 {
        return false;
    }
    let (u, v) = (dot(em.axis_u), dot(em.axis_v));
    if em.half_v < 0.0 {
        u * u + v * v <= em.half_u as f64 * em.half_u as f64
    } else {
        u.abs() <= em.half_u as f64 && v.abs() <= em.half_v as f64
    }
}
