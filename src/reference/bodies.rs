//! The twin of bodies.force and bodies.integrate (docs/PHYSICS.md, "Floating bodies"): the
//! force of the fluid and of the contacts on each moving solid, from its boundary particles'
//! side as the GPU computes it, and floating bodies moved by symplectic Euler — in f64.

use super::sph::RefSim;
use crate::sim::motion::BodyState;
use glam::{DMat3, DQuat, DVec3};

/// A moving solid's state in f64 ([`BodyState`]'s fields).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefBody {
    pub position: DVec3,
    pub mass: f64,
    pub orientation: DQuat,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
    pub acceleration: DVec3,
    pub angular_acceleration: DVec3,
    pub force: DVec3,
    pub torque: DVec3,
    pub contacts: u32,
    pub contact_depth: f64,
    pub contact_mass: f64,
    pub inertia: DMat3,
    pub inv_inertia: DMat3,
    pub floating: bool,
    /// Held by the app (dragged with the mouse): moves at its velocity, unturned.
    pub held: bool,
    pub first: usize,
    pub count: usize,
}

fn v3(a: [f32; 3]) -> DVec3 {
    DVec3::from(a.map(f64::from))
}

fn m3(m: [[f32; 4]; 4]) -> DMat3 {
    let c = |k: usize| DVec3::new(m[k][0] as f64, m[k][1] as f64, m[k][2] as f64);
    DMat3::from_cols(c(0), c(1), c(2))
}

impl RefBody {
    pub fn new(s: &BodyState) -> Self {
        let q = s.orientation.map(f64::from);
        Self {
            position: v3(s.position),
            mass: s.mass as f64,
            orientation: DQuat::from_xyzw(q[0], q[1], q[2], q[3]),
            velocity: v3(s.velocity),
            angular_velocity: v3(s.angular_velocity),
            acceleration: v3(s.acceleration),
            angular_acceleration: v3(s.angular_acceleration),
            force: v3(s.force),
            torque: v3(s.torque),
            contacts: s.contacts,
            contact_depth: s.contact_depth as f64,
            contact_mass: s.contact_mass as f64,
            inertia: m3(s.inertia),
            inv_inertia: m3(s.inv_inertia),
            floating: s.floating != 0,
            held: s.floating == 2,
            first: s.first as usize,
            count: s.count as usize,
        }
    }
}

impl RefSim {
    /// bodies.force and bodies.integrate: for every boundary particle of a moving solid, the
    /// reaction of sph.force's terms on its fluid neighbours and (floating bodies) the contact
    /// penalty against every other boundary particle closer than a spacing; summed per body
    /// with the torque about its centre; floating bodies moved with this step's dt. Call after
    /// [`Self::compute_forces`] and [`Self::choose_dt`], on the same `nb`.
    pub fn move_bodies(&mut self, nb: &[Vec<u32>]) {
        if self.bodies.is_empty() {
            return;
        }
        let k = self.kernel();
        let p = self.params;
        let (h, c) = (p.h as f64, p.sound_speed as f64);
        let eta2 = 0.01 * h * h;
        let dt = p.dt as f64;
        let reach = h / crate::physics::SUPPORT_OVER_SPACING as f64;
        let (beta, gamma) = (crate::physics::CONTACT_STIFFNESS as f64, crate::physics::CONTACT_DAMPING as f64);
        let nu = p.no_slip_viscosity as f64;
        let alpha_n = p.wall_approach_viscosity as f64;
        let body_of = &self.kinematics.body_of;
        let mut sums = vec![(DVec3::ZERO, DVec3::ZERO, 0u32, 0.0f64); self.bodies.len()];
        for b in 0..self.n_particles() {
            if !self.is_boundary(b) || body_of[b] == 0 {
                continue;
            }
            let body = body_of[b] as usize - 1;
            let state = self.bodies[body];
            let xb = DVec3::new(self.pos_mass[b][0], self.pos_mass[b][1], self.pos_mass[b][2]);
            let (m_b, rho_b) = (self.pos_mass[b][3].abs(), self.vel_rho[b][3]);
            let vb = DVec3::new(self.vel_rho[b][0], self.vel_rho[b][1], self.vel_rho[b][2]);
            let p_b = self.pressure(rho_b) / (rho_b * rho_b);
            let v_w = DVec3::from(self.wall_motion[b][0]);
            let n_b = DVec3::new(self.wall_normals[b][0] as f64, self.wall_normals[b][1] as f64, self.wall_normals[b][2] as f64);
            let (mut f, mut touches, mut depth) = (DVec3::ZERO, false, 0.0f64);
            for &i in &nb[b] {
                let i = i as usize;
                if i == b || self.pos_mass[i][3] == 0.0 {
                    continue;
                }
                let xi = DVec3::new(self.pos_mass[i][0], self.pos_mass[i][1], self.pos_mass[i][2]);
                let d = xi - xb;
                let r2 = d.length_squared();
                if !(r2 > 0.0 && r2 < k.h2) {
                    continue;
                }
                if self.is_fluid(i) {
                    let (m_i, rho_i) = (self.pos_mass[i][3], self.vel_rho[i][3]);
                    let vi = DVec3::new(self.vel_rho[i][0], self.vel_rho[i][1], self.vel_rho[i][2]);
                    let p_i = self.pressure(rho_i) / (rho_i * rho_i);
                    let vd = (vi - vb).dot(d);
                    let pi_ib = if vd < 0.0 { -(p.wall_viscosity as f64) * h * c * 2.0 / (rho_i + rho_b) * vd / (r2 + eta2) } else { 0.0 };
                    let grad = DVec3::from(k.grad_r(d.to_array(), r2.sqrt()));
                    f += grad * (m_i * m_b * (p_i + p_b + pi_ib));
                    if alpha_n > 0.0 {
                        let side = if n_b.dot(d) < 0.0 { -1.0 } else { 1.0 };
                        let n = n_b * side;
                        let u = (vi - v_w).dot(n);
                        if u < 0.0 {
                            let xn = d.dot(n);
                            let pi = -alpha_n * h * c * 2.0 / (rho_i + rho_b) * u * xn / (r2 + eta2);
                            // the fluid's a_i −= m_b Π (∇W·n) n: its reaction
                            f += n * (m_i * m_b * pi * grad.dot(n));
                        }
                    }
                    if nu > 0.0 {
                        let xg = d.dot(grad);
                        let fr = m_b * nu * (rho_i + rho_b) / (rho_i * rho_b) * xg / (r2 + eta2);
                        f -= (vi - vb) * (m_i * fr);
                    }
                } else if state.floating {
                    let other = body_of[i];
                    if other as usize == body + 1 {
                        continue;
                    }
                    let r = r2.sqrt();
                    if r >= reach {
                        continue;
                    }
                    let mut m_c = state.contact_mass;
                    if other > 0 && self.bodies[other as usize - 1].floating {
                        m_c = m_c.min(self.bodies[other as usize - 1].contact_mass);
                    }
                    let e = -d / r;
                    let overlap = reach - r;
                    let u_n = -(v_w - DVec3::from(self.wall_motion[i][0])).dot(e);
                    let push = m_c * (beta * overlap / (dt * dt) + gamma * u_n / dt);
                    if push > 0.0 {
                        f += e * push;
                    }
                    touches = true;
                    depth = depth.max(overlap);
                }
            }
            let s = &mut sums[body];
            s.0 += f;
            s.1 += (xb - state.position).cross(f);
            s.2 += u32::from(touches);
            s.3 = s.3.max(depth);
        }
        let g = DVec3::from(p.gravity.map(f64::from));
        for (b, (force, torque, contacts, depth)) in self.bodies.iter_mut().zip(sums) {
            (b.force, b.torque, b.contacts, b.contact_depth) = (force, torque, contacts, depth);
            if !b.floating {
                continue;
            }
            if b.held {
                (b.acceleration, b.angular_acceleration, b.angular_velocity) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
                b.position += dt * b.velocity;
                continue;
            }
            let a = force / b.mass + g;
            b.acceleration = a;
            b.velocity += dt * a;
            b.position += dt * b.velocity;
            let r = DMat3::from_quat(b.orientation);
            let inertia = r * b.inertia * r.transpose();
            let inv = r * b.inv_inertia * r.transpose();
            let w = b.angular_velocity;
            let alpha = inv * (torque - w.cross(inertia * w));
            b.angular_acceleration = alpha;
            b.angular_velocity = w + dt * alpha;
            let w1 = b.angular_velocity;
            let dq = DQuat::from_xyzw(0.5 * dt * w1.x, 0.5 * dt * w1.y, 0.5 * dt * w1.z, 0.0) * b.orientation;
            let q = b.orientation;
            b.orientation = DQuat::from_xyzw(q.x + dq.x, q.y + dq.y, q.z + dq.z, q.w + dq.w).normalize();
        }
    }
}
