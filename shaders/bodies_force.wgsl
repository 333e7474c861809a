// bodies.force: the force of the fluid and of the contacts on each boundary particle of a moving
// solid, by id, for bodies.integrate to sum (docs/PHYSICS.md, "Floating bodies"). Runs after
// sph.force and sim.time_step, on the state sph.force read, one invocation per slot (boundary
// particles of moving solids only).
//
// Fluid: the reaction of every term sph.force gives a fluid particle i from the wall particle b
// (the same expressions, from b's side): f_b = -m_i a_i<-b, that is
//   m_i m_b (P_i + P_b + Pi_ib) grad W_ib             (pressure and Monaghan's viscosity)
//   - m_i (the walls' approach viscosity on i from b)
//   - m_i (the no-slip friction on i from b),
// so the fluid and the body exchange equal and opposite momentum up to rounding.
//
// Contacts (floating bodies only): every other boundary particle k (the tank, a still solid,
// another body) closer than a spacing pushes b away along x_b - x_k with
//   m_c (CONTACT_STIFFNESS d / dt^2 + CONTACT_DAMPING u_n / dt), at least 0,
// d the overlap, u_n the rate of approach of the two particles, m_c the smaller of the two
// bodies' masses per boundary particle (src/physics.rs, CONTACT_STIFFNESS).
//
// Writes body_force[2 id] = (force, contact flag), body_force[2 id + 1] = (torque about the
// body's centre of mass, deepest overlap).
//
// #import common
// #import neighbours
// #import motion_structs

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> ids: array<u32>;
@group(0) @binding(7) var<storage, read> wall_normal: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> wall_motion: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read> rest: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> body_state: array<BodyState>;
@group(0) @binding(11) var<storage, read_write> body_force: array<vec4<f32>>;

override NO_SLIP: bool = false;
override WALL_APPROACH: bool = true;

struct Acc {
    x: vec3<f32>,
    // the wall particle's P_b = p_b / rho_b^2, its density and velocity (sph.wall_pressure's)
    p_term: f32,
    v: vec3<f32>,
    rho: f32,
    // the wall's own velocity (solids.move's) and normal line
    v_w: vec3<f32>,
    m_b: f32,
    n: vec3<f32>,
    body: u32,
    // the fluid's force (without grad_scale), the friction's (without it and the viscosity)
    f: vec3<f32>,
    self_slot: u32,
    friction: vec3<f32>,
    contact_mass: f32,
    contact: vec3<f32>,
    depth: f32,
    floating: bool,
    touches: bool,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    if j == (*acc).self_slot {
        return;
    }
    let pj = pos_mass[j];
    // d = x_i - x_b, as sph.force has it for fluid particle i
    let d = pj.xyz - (*acc).x;
    let r2 = dot(d, d);
    let h2 = params.h2;
    if r2 >= h2 || r2 <= 1e-12 * h2 {
        return;
    }
    if pj.w > 0.0 {
        let inv_r = inverseSqrt(r2);
        let q = r2 * inv_r * params.inv_h;
        let vi = vel_rho[j];
        let rho_i = vi.w;
        let m_i = pj.w;
        let p_i = tait_pressure(rho_i, params.inv_rest_density) / (rho_i * rho_i);
        let vd = dot(vi.xyz - (*acc).v, d);
        var pi_ij = 0.0;
        if vd < 0.0 {
            pi_ij = -params.wall_viscosity * params.viscosity_scale * vd / ((rho_i + (*acc).rho) * (r2 + 0.01 * h2));
        }
        let g = kernel_grad_q(q, params.h * inv_r);
        (*acc).f += (m_i * (*acc).m_b * (p_i + (*acc).p_term + pi_ij) * g) * d;
        if WALL_APPROACH {
            var n = (*acc).n;
            let xn0 = dot(d, n);
            n = select(n, -n, xn0 < 0.0);
            let u = dot(vi.xyz, n) - dot((*acc).v_w, n);
            if u < 0.0 {
                let k = (*acc).m_b * params.wall_approach_viscosity * params.viscosity_scale * xn0 * xn0 / ((rho_i + (*acc).rho) * (r2 + 0.01 * h2));
                (*acc).f -= (m_i * k * g * u) * n;
            }
        }
        if NO_SLIP {
            let fr = (*acc).m_b * (rho_i + (*acc).rho) / (rho_i * (*acc).rho) * g * r2 / (r2 + 0.01 * h2);
            (*acc).friction -= (m_i * fr) * (vi.xyz - (*acc).v);
        }
        return;
    }
    if !(*acc).floating {
        return;
    }
    let id_k = ids[j];
    let other = bitcast<u32>(rest[id_k].w);
    if other == (*acc).body {
        return;
    }
    let reach = params.h / SUPPORT_OVER_SPACING;
    let r = sqrt(r2);
    if r >= reach {
        return;
    }
    var m_c = (*acc).contact_mass;
    if other != 0u {
        let o = body_state[other - 1u];
        if o.floating != 0u {
            m_c = min(m_c, o.contact_mass);
        }
    }
    // away from k
    let e = -d / r;
    let overlap = reach - r;
    let u_n = -dot((*acc).v_w - wall_motion[2u * id_k].xyz, e);
    let dt = params.dt;
    let push = m_c * (CONTACT_STIFFNESS * overlap / (dt * dt) + CONTACT_DAMPING * u_n / dt);
    if push > 0.0 {
        (*acc).contact += push * e;
    }
    (*acc).touches = true;
    (*acc).depth = max((*acc).depth, overlap);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid);
    if t >= params.n_particles {
        return;
    }
    let i = slot_of(t);
    let pi = pos_mass[i];
    if pi.w >= 0.0 {
        return;
    }
    let id = ids[i];
    let body = bitcast<u32>(rest[id].w);
    if body == 0u {
        return;
    }
    let s = body_state[body - 1u];
    let vb = vel_rho[i];
    var p_b = 0.0;
    p_b = tait_pressure(vb.w, params.inv_rest_density) / (vb.w * vb.w);
    var acc = Acc(pi.xyz, p_b, vb.xyz, vb.w, wall_motion[2u * id].xyz, abs(pi.w), wall_normal[id].xyz, body,
        vec3<f32>(0.0), i, vec3<f32>(0.0), s.contact_mass, vec3<f32>(0.0), 0.0, s.floating != 0u, false);
    neighbour_loop(pi.xyz, &acc);
    var f = acc.f * params.grad_scale + acc.contact;
    if NO_SLIP {
        f += acc.friction * (params.no_slip_viscosity * params.grad_scale);
    }
    let arm = pi.xyz - s.position;
    body_force[2u * id] = vec4<f32>(f, select(0.0, 1.0, acc.touches));
    body_force[2u * id + 1u] = vec4<f32>(cross(arm, f), acc.depth);
}
