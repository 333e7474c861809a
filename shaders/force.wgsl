// sph.force: pressure (Tait, symmetric form, wall particles carrying the pressure that
// sph.wall_pressure gave them),
// Monaghan artificial viscosity and gravity into an acceleration (docs/PHYSICS.md).
// Reads two vec4 per candidate (position+mass, velocity+density).
//
// #import common
// #import neighbours
// #import lists

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> acc_out: array<vec4<f32>>;
// the particle id of each slot, and each wall particle's normal line by id (src/sim/walls.rs)
@group(0) @binding(7) var<storage, read> ids: array<u32>;
@group(0) @binding(8) var<storage, read> wall_normal: array<vec4<f32>>;
// false for DFSPH: viscosity, gravity and the walls' hydrostatic support only (the pressure is
// solved for; docs/PHYSICS.md, "DFSPH")
override PRESSURE: bool = true;
// no-slip walls (params.no_slip_viscosity > 0; WCSPH only): Morris et al.'s laminar friction
// against wall particles. A pipeline constant, so free-slip scenes do not carry the term.
override NO_SLIP: bool = false;
// the walls' approach viscosity (params.wall_approach_viscosity > 0): Monaghan's term on the
// normal component of the approach to each wall particle, along its normal (docs/PHYSICS.md,
// "Walls")
override WALL_APPROACH: bool = true;
// moving solids (a scene with them): the approach is the fluid's velocity relative to the wall
// particle's (solids.move's wall_motion, by id; zero for walls at rest)
override MOVING: bool = false;
@group(0) @binding(9) var<storage, read> wall_motion: array<vec4<f32>>;

struct Acc {
    x: vec3<f32>,
    // p_i / rho_i^2
    p_term: f32,
    v: vec3<f32>,
    rho: f32,
    a: vec3<f32>,
    // no-slip walls: sum over wall neighbours of m_b (rho_i + rho_b) / (rho_i rho_b)
    // * kernel_grad_q r^2 / (r^2 + 0.01 h^2) * (v_i - v_b) (without nu * kernel_norm * 6 / h^2)
    friction: vec3<f32>,
    self_slot: u32,
    // the walls' approach viscosity: its acceleration, and the rate at which it damps the
    // approach (the sum of the pairs' coefficients of |u|), both without the gradient factor
    approach: vec3<f32>,
    rate: f32,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    let h2 = params.h2;
    if r2 >= h2 || j == (*acc).self_slot || r2 <= 1e-12 * h2 {
        return;
    }
    let inv_r = inverseSqrt(r2);
    let q = r2 * inv_r * params.inv_h;
    let vj = vel_rho[j];
    let rho_j = vj.w;
    let fluid = pj.w > 0.0;
    var p_j = 0.0;
    if PRESSURE {
        p_j = tait_pressure(rho_j, params.inv_rest_density) / (rho_j * rho_j);
    } else if !fluid {
        // DFSPH: the wall's hydrostatic part, kappa_b - kappa_i = g . (x_b - x_i) / rho0 (the
        // solve mirrors kappa_i; this is the part of Adami's wall pressure that kappa_i lacks)
        p_j = -dot(params.gravity, d) * params.inv_rest_density;
    }
    let alpha = select(params.wall_viscosity, params.viscosity, fluid);
    let vd = dot((*acc).v - vj.xyz, d);
    var pi_ij = 0.0;
    if vd < 0.0 {
        pi_ij = -alpha * params.viscosity_scale * vd / (((*acc).rho + rho_j) * (r2 + 0.01 * h2));
    }
    // the factor kernel_norm * 6 / h^2 of the gradient is applied once, after the loop
    let g = kernel_grad_q(q, params.h * inv_r);
    (*acc).a -= (abs(pj.w) * ((*acc).p_term + p_j + pi_ij) * g) * d;
    if WALL_APPROACH && !fluid {
        // the normal line of the wall particle, turned towards this particle
        var n = wall_normal[ids[j]].xyz;
        let xn0 = dot(d, n);
        n = select(n, -n, xn0 < 0.0);
        var u = dot((*acc).v, n);
        if MOVING {
            u -= dot(wall_motion[2u * ids[j]].xyz, n);
        }
        if u < 0.0 {
            let k = abs(pj.w) * params.wall_approach_viscosity * params.viscosity_scale * xn0 * xn0 / (((*acc).rho + rho_j) * (r2 + 0.01 * h2));
            // along n: Π_n (grad W . n) with Π_n = −k' u |x.n|, (grad W . n) = g (d . n) (times the factor)
            (*acc).approach += (k * g * u) * n;
            (*acc).rate -= k * g;
        }
    }
    if NO_SLIP && !fluid {
        // Morris et al. 1997 laminar viscosity, x_ij . grad W_ij = g r^2 (times the factor)
        let f = abs(pj.w) * ((*acc).rho + rho_j) / ((*acc).rho * rho_j) * g * r2 / (r2 + 0.01 * h2);
        (*acc).friction += f * ((*acc).v - vj.xyz);
    }
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
    if pi.w <= 0.0 {
        return;
    }
    let vi = vel_rho[i];
    var p_i = 0.0;
    if PRESSURE {
        p_i = tait_pressure(vi.w, params.inv_rest_density);
    }
    var acc = Acc(pi.xyz, p_i / (vi.w * vi.w), vi.xyz, vi.w, vec3<f32>(0.0), vec3<f32>(0.0), i, vec3<f32>(0.0), 0.0);
    neighbour_walk(i, pi.xyz, &acc);
    let grad_scale = params.grad_scale;
    var a = acc.a * grad_scale + params.gravity;
    if WALL_APPROACH {
        // WCSPH: as it is (its acoustic step keeps rate · dt below 2); DFSPH, whose step resolves
        // no sound: at most the approach removed in one step
        var limit = 1.0;
        if !PRESSURE {
            limit = min(1.0, 1.0 / max(acc.rate * grad_scale * params.dt, 1e-30));
        }
        a += acc.approach * (grad_scale * limit);
    }
    if NO_SLIP {
        a += acc.friction * (params.no_slip_viscosity * grad_scale);
    }
    acc_out[i] = vec4<f32>(a, 0.0);
}
