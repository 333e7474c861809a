//! The CPU twin of sim.sensors (`shaders/sensors.wgsl`): the fluid's pressure at a point by the
//! Shepard-corrected SPH interpolation, over every particle (no grid), in f64.

use super::kernel::CubicKernel;

/// What a sensor at `x` reads from particles `pos_mass`/`vel_rho` (slot order; fluid has
/// `w > 0`), with `pressure(slot)` each particle's pressure: (p, fill, fluid particles within
/// h), where `fill = Σ V_j W(x − x_j)` over fluid with `V_j = m_j/ρ_j`, and
/// `p = Σ V_j p_j W(x − x_j) / max(fill, fill_min)` (0 where no fluid is within h).
pub fn sensor_reading(
    x: [f64; 3],
    fill_min: f64,
    pos_mass: &[[f32; 4]],
    vel_rho: &[[f32; 4]],
    pressure: impl Fn(usize) -> f64,
    h: f64,
) -> (f64, f64, u32) {
    let k = CubicKernel::new(h);
    let (mut pw, mut w, mut count) = (0.0, 0.0, 0u32);
    for (j, (q, v)) in pos_mass.iter().zip(vel_rho).enumerate() {
        if q[3] <= 0.0 {
            continue;
        }
        let d = [x[0] - q[0] as f64, x[1] - q[1] as f64, x[2] - q[2] as f64];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if r2 < k.h2 {
            let wj = q[3] as f64 / v[3] as f64 * k.w(r2.sqrt());
            w += wj;
            pw += wj * pressure(j);
            count += 1;
        }
    }
    (if w > 0.0 { pw / w.max(fill_min) } else { 0.0 }, w, count)
}
