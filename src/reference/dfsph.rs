//! The DFSPH passes in f64 (docs/PHYSICS.md, "DFSPH"; Bender & Koschier 2017): density and
//! factor, the two solves, the velocity prediction — the twin of dfsph.factor, dfsph.source,
//! dfsph.update, dfsph.control and dfsph.predict, sum by sum.

use super::sph::RefSim;

impl RefSim {
    /// dfsph.factor: `ρ_i` as [`RefSim::compute_density`] and `factor_i = 1/D_i` with
    /// `D_i = (g_f + 2 g_b)·(g_f + g_b) + Σ_{j fluid} |m_j ∇W_ij|²`, `g_f = Σ_{j fluid} m_j ∇W_ij`,
    /// `g_b = Σ_{b wall} ψ_b ∇W_ib` (`j ≠ i`), 0 where `D_i = 0`.
    pub(crate) fn compute_density_and_factor(&mut self, nb: &[Vec<u32>]) {
        self.compute_density(nb);
        let k = self.kernel();
        for (i, list) in nb.iter().enumerate() {
            if !self.is_fluid(i) {
                continue;
            }
            let (mut gf, mut gb, mut g2) = ([0.0f64; 3], [0.0f64; 3], 0.0);
            for &j in list {
                let j = j as usize;
                if let Some((m, grad)) = self.pair(&k, i, j) {
                    let t = [m * grad[0], m * grad[1], m * grad[2]];
                    if self.is_fluid(j) {
                        for d in 0..3 {
                            gf[d] += t[d];
                        }
                        g2 += t[0] * t[0] + t[1] * t[1] + t[2] * t[2];
                    } else {
                        for d in 0..3 {
                            gb[d] += t[d];
                        }
                    }
                }
            }
            let d = (0..3).map(|a| (gf[a] + 2.0 * gb[a]) * (gf[a] + gb[a])).sum::<f64>() + g2;
            self.factor[i] = if d > 0.0 { 1.0 / d } else { 0.0 };
        }
    }

    /// `(m_j, ∇W_ij)` for a neighbour `j ≠ i` with `0 < r² < h²` (the force pass's test), `m_j = |w_j|`.
    fn pair(&self, k: &super::CubicKernel, i: usize, j: usize) -> Option<(f64, [f64; 3])> {
        if i == j || self.pos_mass[j][3] == 0.0 {
            return None;
        }
        let (xi, xj) = (&self.pos_mass[i], &self.pos_mass[j]);
        let x = [xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]];
        let r2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        if !(r2 > 1e-12 * k.h2 && r2 < k.h2) {
            return None;
        }
        Some((xj[3].abs(), k.grad_r(x, r2.sqrt())))
    }

    /// dfsph.predict: `v* = v + dt a` for fluid.
    pub(crate) fn predict(&mut self) {
        let dt = self.params.dt as f64;
        for i in 0..self.n_particles() {
            if self.is_fluid(i) {
                for d in 0..3 {
                    self.vel_rho[i][d] += dt * self.acc[i][d];
                }
            }
        }
    }

    /// One source (dfsph.source): `s_i = [ρ_i − ρ0]_density + dt Σ_j m_j (v_i − v_j)·∇W_ij`
    /// (boundary at rest, signed), the total `K_i ← max(0, K_i + ω s_i factor_i / dt²)` (ω =
    /// [`crate::physics::DFSPH_RELAXATION`]) and `κ_i` its change; returns the mean of
    /// `clamp(s_i/ρ0, 0, 1)` over fluid. With `warm` (the warm start): `κ_i` is a share of the
    /// last step's applied total (`warm_*`, divided by dt² or dt) where `s_i > 0`, else 0, and
    /// starts the total.
    pub(crate) fn source(&mut self, nb: &[Vec<u32>], density: bool) -> (f64, f64) {
        self.source_with(nb, density, false)
    }

    /// Returns the mean and the largest of `min(s_i/ρ0, 1)` over fluid.
    fn source_with(&mut self, nb: &[Vec<u32>], density: bool, warm: bool) -> (f64, f64) {
        let k = self.kernel();
        let dt = self.params.dt as f64;
        let rho0 = self.params.rest_density as f64;
        let (mut sum, mut largest, mut n) = (0.0, 0.0f64, 0usize);
        for (i, list) in nb.iter().enumerate() {
            if !self.is_fluid(i) {
                continue;
            }
            let vi = self.vel_rho[i];
            let mut div = 0.0;
            let mut count = 0;
            for &j in list {
                let j = j as usize;
                if let Some((m, grad)) = self.pair(&k, i, j) {
                    count += 1;
                    let vj = if self.is_fluid(j) { self.vel_rho[j] } else { [0.0; 4] };
                    let dv = [vi[0] - vj[0], vi[1] - vj[1], vi[2] - vj[2]];
                    div += m * (dv[0] * grad[0] + dv[1] * grad[1] + dv[2] * grad[2]);
                }
            }
            let mut s = dt * div;
            if density {
                s += vi[3] - rho0;
            } else if count < crate::physics::DIVERGENCE_MIN_NEIGHBOURS {
                s = 0.0;
            }
            if warm {
                let (last, share) = if density {
                    (self.warm_pressure[i] / (dt * dt), crate::physics::WARM_PRESSURE_SHARE)
                } else {
                    (self.warm_divergence[i] / dt, crate::physics::WARM_DIVERGENCE_SHARE)
                };
                self.kappa[i] = if s > 0.0 { share * last } else { 0.0 };
                self.kappa_total[i] = self.kappa[i];
            } else {
                // projected, relaxed Jacobi on the total; κ_i is the change the update applies
                // (and the momentum β times the particle's last change)
                let beta = self.params.dfsph_momentum as f64;
                let step = crate::physics::DFSPH_RELAXATION * s * self.factor[i] / (dt * dt) + beta * self.kappa[i];
                let next = (self.kappa_total[i] + step).max(0.0);
                self.kappa[i] = next - self.kappa_total[i];
                self.kappa_total[i] = next;
            }
            let s = s.max(0.0);
            sum += (s / rho0).min(1.0);
            largest = largest.max((s / rho0).min(1.0));
            n += 1;
        }
        (if n > 0 { sum / n as f64 } else { 0.0 }, largest)
    }

    /// One update (dfsph.update): `v_i −= dt Σ_{j fluid} m_j (κ_i + κ_j) ∇W_ij + dt Σ_b ψ_b 2κ_i ∇W_ib`.
    pub(crate) fn update(&mut self, nb: &[Vec<u32>]) {
        let k = self.kernel();
        let dt = self.params.dt as f64;
        let mut dv = vec![[0.0f64; 3]; self.n_particles()];
        for (i, list) in nb.iter().enumerate() {
            if !self.is_fluid(i) {
                continue;
            }
            for &j in list {
                let j = j as usize;
                if let Some((m, grad)) = self.pair(&k, i, j) {
                    let kk = self.kappa[i] + if self.is_fluid(j) { self.kappa[j] } else { self.kappa[i] };
                    for d in 0..3 {
                        dv[i][d] += m * kk * grad[d];
                    }
                }
            }
        }
        for (i, dv) in dv.iter().enumerate() {
            if self.is_fluid(i) {
                for (v, dv) in self.vel_rho[i].iter_mut().zip(dv) {
                    *v -= dt * dv;
                }
            }
        }
    }

    /// A solve as dfsph.control drives it: the warm start (a warm source and an update), then a
    /// source, and while its mean error is above the tolerance (or its largest above
    /// [`crate::physics::MAX_ERROR_FACTOR`] times it, or fewer than the solve's least
    /// iterations, [`crate::physics::MIN_PRESSURE_ITERATIONS`] or
    /// [`crate::physics::MIN_DIVERGENCE_ITERATIONS`], are done) and fewer than `max_iterations`
    /// updates are done, an update and another source; then the applied κ (the total less the
    /// last source's, which no update followed) is kept for the next step (dfsph.store). Returns the updates done after the warm start and the last mean error.
    pub(crate) fn solve(&mut self, nb: &[Vec<u32>], density: bool) -> (u32, f64) {
        let p = &self.params;
        let tolerance = if density { p.density_tolerance } else { p.divergence_tolerance } as f64;
        let max = p.max_iterations;
        let dt = p.dt as f64;
        self.source_with(nb, density, true);
        self.update(nb);
        let mut done = 0;
        let factor = crate::physics::MAX_ERROR_FACTOR as f64;
        let min_it = if density { crate::physics::MIN_PRESSURE_ITERATIONS } else { crate::physics::MIN_DIVERGENCE_ITERATIONS };
        let err = loop {
            let (err, largest) = self.source(nb, density);
            if (err <= tolerance && largest <= factor * tolerance && done >= min_it) || done >= max {
                break err;
            }
            self.update(nb);
            done += 1;
        };
        let scale = if density { dt * dt } else { dt };
        for i in 0..self.n_particles() {
            if self.is_fluid(i) {
                // the applied total: the last source's κ was followed by no update
                let w = (self.kappa_total[i] - self.kappa[i]) * scale;
                if density {
                    self.warm_pressure[i] = w;
                } else {
                    self.warm_divergence[i] = w;
                }
            }
        }
        (done, err)
    }
}
