//! The cubic spline kernel and the Tait equation of state in f64, formula by formula as in
//! docs/PHYSICS.md ("Kernel", "Pressure").

/// Monaghan's cubic spline with support radius `h` (`q = r/h`, `σ = 8/(π h³)`).
///
/// `σ` is computed here in f64 from `h`, not taken from the f32 `SimParams::kernel_norm`, so that
/// `W` is bit for bit [`crate::physics::cubic_w`], the function the fluid mass was chosen with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicKernel {
    /// Support radius.
    pub h: f64,
    /// `h²`, for the neighbour test `r² < h²`.
    pub h2: f64,
    /// Normalisation `σ = 8/(π h³)`.
    pub sigma: f64,
    /// Below this distance the gradient is taken as zero (`1e-9·h`).
    pub r_min: f64,
}

impl CubicKernel {
    pub fn new(h: f64) -> Self {
        Self { h, h2: h * h, sigma: crate::physics::kernel_norm(h), r_min: 1e-9 * h }
    }

    /// `W(r)`.
    #[inline]
    pub fn w(&self, r: f64) -> f64 {
        let q = r / self.h;
        if q <= 0.5 {
            self.sigma * (6.0 * q * q * q - 6.0 * q * q + 1.0)
        } else if q <= 1.0 {
            self.sigma * 2.0 * (1.0 - q).powi(3)
        } else {
            0.0
        }
    }

    /// `dW/dr (r)`.
    #[inline]
    pub fn dw_dr(&self, r: f64) -> f64 {
        let q = r / self.h;
        let f = self.sigma * 6.0 / self.h;
        if q <= 0.5 {
            f * (3.0 * q * q - 2.0 * q)
        } else if q <= 1.0 {
            let t = 1.0 - q;
            -f * (t * t)
        } else {
            0.0
        }
    }

    /// `∇W(x) = dW/dr(|x|) · x/|x|`, zero for `|x| < 1e-9·h` (the tests' form of [`Self::grad_r`]).
    #[cfg(test)]
    #[inline]
    pub(crate) fn grad(&self, x: [f64; 3]) -> [f64; 3] {
        let r = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt();
        self.grad_r(x, r)
    }

    /// `∇W(x)` with `r = |x|` already known.
    #[inline]
    pub(crate) fn grad_r(&self, x: [f64; 3], r: f64) -> [f64; 3] {
        if r < self.r_min {
            return [0.0; 3];
        }
        let s = self.dw_dr(r) / r;
        [s * x[0], s * x[1], s * x[2]]
    }
}

/// Tait pressure `p(ρ) = B·((max(ρ, ρ0)/ρ0)^γ − 1)`; exactly 0 for `ρ ≤ ρ0`.
pub use crate::physics::tait_pressure;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::cubic_w;

    #[test]
    fn w_is_setup_cubic_w_bit_for_bit() {
        let h = (2.0f32 * 0.05) as f64;
        let k = CubicKernel::new(h);
        for i in 0..=1100 {
            let r = h * i as f64 / 1000.0;
            assert_eq!(k.w(r).to_bits(), cubic_w(r, h).to_bits(), "r = {r}");
        }
        assert_eq!(k.w(h), 0.0);
        assert_eq!(k.w(0.0), k.sigma);
    }

    #[test]
    fn kernel_is_normalised() {
        // ∫ W dV = 1: midpoint rule over spherical shells
        let h = 0.3;
        let k = CubicKernel::new(h);
        let n = 20_000;
        let dr = h / n as f64;
        let integral: f64 = (0..n)
            .map(|i| {
                let r = (i as f64 + 0.5) * dr;
                4.0 * std::f64::consts::PI * r * r * k.w(r) * dr
            })
            .sum();
        assert!((integral - 1.0).abs() < 1e-7, "∫W = {integral}");
    }

    #[test]
    fn derivative_matches_finite_differences() {
        let h = 0.1;
        let k = CubicKernel::new(h);
        let eps = 1e-7 * h;
        for i in 1..100 {
            let r = h * i as f64 / 100.0 + 0.3e-3 * h; // stay off the q = ½ kink
            let fd = (k.w(r + eps) - k.w(r - eps)) / (2.0 * eps);
            let scale = k.sigma / h;
            assert!((fd - k.dw_dr(r)).abs() < 1e-6 * scale, "r = {r}: fd {fd} vs {}", k.dw_dr(r));
        }
        assert_eq!(k.dw_dr(h), 0.0);
        assert_eq!(k.dw_dr(1.5 * h), 0.0);
    }

    #[test]
    fn gradient_points_towards_the_origin_and_vanishes_at_it() {
        let k = CubicKernel::new(0.1);
        let g = k.grad([0.03, -0.04, 0.0]);
        // x·∇W = r·dW/dr < 0 inside the support
        assert!(g[0] < 0.0 && g[1] > 0.0 && g[2] == 0.0);
        let r = 0.05;
        assert!((g[0] * 0.03 + g[1] * -0.04 - r * k.dw_dr(r)).abs() < 1e-12 * k.sigma);
        assert_eq!(k.grad([0.0; 3]), [0.0; 3]);
        assert_eq!(k.grad([1e-12, 0.0, 0.0]), [0.0; 3]);
    }

    #[test]
    fn tait_clamps_negative_pressure() {
        assert_eq!(tait_pressure(900.0, 1000.0, 5e4), 0.0);
        assert_eq!(tait_pressure(1000.0, 1000.0, 5e4), 0.0);
        let p = tait_pressure(1010.0, 1000.0, 5e4);
        assert!((p - 5e4 * (1.01f64.powi(7) - 1.0)).abs() < 1e-9);
    }
}
