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

/// The terms of the walls that the force sensors sum (sph.force's, from the wall's side).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WallTerms {
    pub h: f64,
    pub sound_speed: f64,
    pub rest_density: f64,
    pub gravity: [f64; 3],
    /// Monaghan's α against walls.
    pub wall_viscosity: f64,
    /// The walls' approach viscosity (WCSPH; DFSPH's is left out).
    pub approach: f64,
    /// The no-slip walls' ν (0: free slip).
    pub no_slip: f64,
    /// DFSPH: the wall mirrors the fluid particle's P_i and adds the hydrostatic part.
    pub dfsph: bool,
}

/// The CPU twin of sim.solid_force (`shaders/solid_force.wgsl`): the fluid's force on the
/// boundary particles with ids `first..first + count` and its moment about `about`,
/// `[fx, fy, fz, mx, my, mz]`, over every particle (no grid), in f64. `pos_mass`, `vel_rho`,
/// `ids` by slot; `normals` by id; `pressure(slot)` each fluid particle's pressure (Pa), and
/// for WCSPH each wall particle's (Tait's of its density).
#[allow(clippy::too_many_arguments)]
pub fn solid_force(
    first: u32,
    count: u32,
    about: [f64; 3],
    pos_mass: &[[f32; 4]],
    vel_rho: &[[f32; 4]],
    ids: &[u32],
    normals: &[[f32; 4]],
    pressure: impl Fn(usize) -> f64,
    t: &WallTerms,
) -> [f64; 6] {
    use glam::DVec3;
    let k = CubicKernel::new(t.h);
    let eta2 = 0.01 * t.h * t.h;
    let scale = 2.0 * t.h * t.sound_speed;
    let v3 = |a: &[f32; 4]| DVec3::new(a[0] as f64, a[1] as f64, a[2] as f64);
    let g = DVec3::from(t.gravity);
    let (mut force, mut moment) = (DVec3::ZERO, DVec3::ZERO);
    for b in 0..pos_mass.len() {
        if pos_mass[b][3] >= 0.0 || !(first..first + count).contains(&ids[b]) {
            continue;
        }
        let (xb, vb) = (v3(&pos_mass[b]), v3(&vel_rho[b]));
        let (m_b, rho_b) = (-(pos_mass[b][3] as f64), vel_rho[b][3] as f64);
        let p_b = if t.dfsph { 0.0 } else { pressure(b) / (rho_b * rho_b) };
        let n_b = v3(&normals[ids[b] as usize]);
        let mut f = DVec3::ZERO;
        for i in 0..pos_mass.len() {
            if pos_mass[i][3] <= 0.0 {
                continue;
            }
            let d = v3(&pos_mass[i]) - xb;
            let r2 = d.length_squared();
            if !(r2 > 1e-12 * k.h2 && r2 < k.h2) {
                continue;
            }
            let (m_i, rho_i, vi) = (pos_mass[i][3] as f64, vel_rho[i][3] as f64, v3(&vel_rho[i]));
            let p_i = pressure(i) / (rho_i * rho_i);
            let mut terms = if t.dfsph { 2.0 * p_i - g.dot(d) / t.rest_density } else { p_i + p_b };
            let vd = (vi - vb).dot(d);
            if vd < 0.0 {
                terms -= t.wall_viscosity * scale * vd / ((rho_i + rho_b) * (r2 + eta2));
            }
            let grad = DVec3::from(k.grad_r(d.to_array(), r2.sqrt()));
            f += grad * (m_i * m_b * terms);
            if t.approach > 0.0 && !t.dfsph {
                let n = if n_b.dot(d) < 0.0 { -n_b } else { n_b };
                let u = vi.dot(n);
                if u < 0.0 {
                    let pi = -t.approach * scale / (rho_i + rho_b) * u * d.dot(n) / (r2 + eta2);
                    f += n * (m_i * m_b * pi * grad.dot(n));
                }
            }
            if t.no_slip > 0.0 && !t.dfsph {
                let fr = m_b * t.no_slip * (rho_i + rho_b) / (rho_i * rho_b) * d.dot(grad) / (r2 + eta2);
                f -= (vi - vb) * (m_i * fr);
            }
        }
        force += f;
        moment += (xb - DVec3::from(about)).cross(f);
    }
    [force.x, force.y, force.z, moment.x, moment.y, moment.z]
}

/// The CPU twin of sim.flow (`shaders/flow.wgsl`): the volume and mass rates through section
/// `s` and the fluid particles in its slab, `(Q m³/s, ṁ kg/s, particles)`, over every particle,
/// in f64: Q = Σ V_j (u_j · n) / δ and ṁ = Σ m_j (u_j · n) / δ over the fluid within δ/2 of
/// the plane and inside the rectangle, δ the slab's thickness, V_j = m_j / ρ_j.
pub fn flow_rate(s: &crate::sim::sensors::FlowSpec, pos_mass: &[[f32; 4]], vel_rho: &[[f32; 4]]) -> (f64, f64, u32) {
    use glam::DVec3;
    let v3 = |a: [f32; 3]| DVec3::from(a.map(f64::from));
    let (c, n, e1) = (v3(s.at), v3(s.normal), v3(s.side));
    let e2 = n.cross(e1);
    let (mut q, mut m, mut count) = (0.0, 0.0, 0u32);
    for (p, v) in pos_mass.iter().zip(vel_rho) {
        if p[3] <= 0.0 {
            continue;
        }
        let d = v3([p[0], p[1], p[2]]) - c;
        if d.dot(n).abs() >= s.half_thickness as f64 || d.dot(e1).abs() > s.half_size[0] as f64 || d.dot(e2).abs() > s.half_size[1] as f64 {
            continue;
        }
        let un = v3([v[0], v[1], v[2]]).dot(n);
        q += p[3] as f64 / v[3] as f64 * un;
        m += p[3] as f64 * un;
        count += 1;
    }
    let delta = 2.0 * s.half_thickness as f64;
    (q / delta, m / delta, count)
}
