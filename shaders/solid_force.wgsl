// sim.solid_force: the force and moment of the fluid on each force sensor's solid (a solid that
// does not move), sampled with the pressure sensors on the state a step starts from, after its
// grid build (docs/PHYSICS.md, "Forces on solids"). Two parts (PART):
//
// 0, per boundary particle b of a sensed solid: the reaction of the terms sph.force gives each
//    fluid neighbour i from b (d = x_i - x_b), as bodies.force sums them for a moving solid:
//      f_b = m_i m_b (P_i + P_b + Pi_ib) grad W_ib
//            - m_i (the walls' approach viscosity on i from b)       (WCSPH)
//            - m_i (the no-slip friction on i from b)                (no-slip walls)
//    with P = p / rho^2. WCSPH: p_i Tait's of rho_i, P_b the wall particle's (sph.wall_pressure's
//    density). DFSPH: the solve mirrors P_i onto the wall and sph.force adds the hydrostatic
//    part, so P_i + P_b = 2 P_i - g . d / rho0, with P_i = K_pressure / dt^2 + K_divergence / dt
//    the solves' totals (as sim.sensors reads them); the approach viscosity, which DFSPH limits
//    per fluid particle, is left out. Writes force_each[2 k] = (f_b, 0) and
//    force_each[2 k + 1] = ((x_b - about) x f_b, 0), k = the set's `each` + id - first.
// 1, one workgroup per sensor: the sums over its particles in a fixed order (the same sum every
//    run) into sensor_out[out] = (F, 0) and sensor_out[out + 1] = (M, 0).
//
// force_sets: two words per sensor: (first id, count, each, out) and (about.xyz as bits, 0).
//
// #import common
// #import neighbours

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> ids: array<u32>;
@group(0) @binding(7) var<storage, read> wall_normal: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read> force_sets: array<vec4<u32>>;
@group(0) @binding(9) var<storage, read_write> force_each: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read_write> sensor_out: array<vec4<f32>>;
// DFSPH's solve totals by particle id (16-byte placeholders for WCSPH)
@group(0) @binding(11) var<storage, read> warm_pressure: array<f32>;
@group(0) @binding(12) var<storage, read> warm_divergence: array<f32>;

override PART: u32 = 0u;
override DFSPH: bool = false;
override NO_SLIP: bool = false;
override WALL_APPROACH: bool = true;

var<workgroup> wg_force: array<vec4<f32>, 256>;
var<workgroup> wg_torque: array<vec4<f32>, 256>;

struct Acc {
    x: vec3<f32>,
    // WCSPH: the wall particle's P_b
    p_term: f32,
    v: vec3<f32>,
    rho: f32,
    n: vec3<f32>,
    m_b: f32,
    // without grad_scale
    f: vec3<f32>,
    friction: vec3<f32>,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    if pj.w <= 0.0 {
        return;
    }
    let d = pj.xyz - (*acc).x;
    let r2 = dot(d, d);
    let h2 = params.h2;
    if r2 >= h2 || r2 <= 1e-12 * h2 {
        return;
    }
    let inv_r = inverseSqrt(r2);
    let q = r2 * inv_r * params.inv_h;
    let vi = vel_rho[j];
    let rho_i = vi.w;
    let m_i = pj.w;
    var terms = 0.0;
    if DFSPH {
        let dt = params.dt;
        var p_i = 0.0;
        if dt > 0.0 {
            let id = ids[j];
            p_i = warm_pressure[id] / (dt * dt) + warm_divergence[id] / dt;
        }
        terms = 2.0 * p_i - dot(params.gravity, d) * params.inv_rest_density;
    } else {
        terms = tait_pressure(rho_i, params.inv_rest_density) / (rho_i * rho_i) + (*acc).p_term;
    }
    let vd = dot(vi.xyz - (*acc).v, d);
    if vd < 0.0 {
        terms -= params.wall_viscosity * params.viscosity_scale * vd / ((rho_i + (*acc).rho) * (r2 + 0.01 * h2));
    }
    let g = kernel_grad_q(q, params.h * inv_r);
    (*acc).f += (m_i * (*acc).m_b * terms * g) * d;
    if WALL_APPROACH && !DFSPH {
        var n = (*acc).n;
        let xn0 = dot(d, n);
        n = select(n, -n, xn0 < 0.0);
        let u = dot(vi.xyz, n);
        if u < 0.0 {
            let k = (*acc).m_b * params.wall_approach_viscosity * params.viscosity_scale * xn0 * xn0 / ((rho_i + (*acc).rho) * (r2 + 0.01 * h2));
            (*acc).f -= (m_i * k * g * u) * n;
        }
    }
    if NO_SLIP {
        let fr = (*acc).m_b * (rho_i + (*acc).rho) / (rho_i * (*acc).rho) * g * r2 / (r2 + 0.01 * h2);
        (*acc).friction -= (m_i * fr) * (vi.xyz - (*acc).v);
    }
}

fn each(t: u32) {
    if t >= params.n_particles {
        return;
    }
    let i = slot_of(t);
    let pb = pos_mass[i];
    if pb.w >= 0.0 {
        return;
    }
    let id = ids[i];
    let sets = arrayLength(&force_sets) / 2u;
    var found = sets;
    for (var k = 0u; k < sets; k++) {
        let s = force_sets[2u * k];
        if id >= s.x && id - s.x < s.y {
            found = k;
            break;
        }
    }
    if found == sets {
        return;
    }
    let s = force_sets[2u * found];
    let about = bitcast<vec3<f32>>(force_sets[2u * found + 1u].xyz);
    let vb = vel_rho[i];
    var p_b = 0.0;
    if !DFSPH {
        p_b = tait_pressure(vb.w, params.inv_rest_density) / (vb.w * vb.w);
    }
    // (the normals exist only with the approach viscosity or moving solids)
    var n = vec3<f32>(0.0);
    if WALL_APPROACH && !DFSPH {
        n = wall_normal[id].xyz;
    }
    var acc = Acc(pb.xyz, p_b, vb.xyz, vb.w, n, -pb.w, vec3<f32>(0.0), vec3<f32>(0.0));
    neighbour_loop(pb.xyz, &acc);
    var f = acc.f * params.grad_scale;
    if NO_SLIP {
        f += acc.friction * (params.no_slip_viscosity * params.grad_scale);
    }
    let k = s.z + id - s.x;
    force_each[2u * k] = vec4<f32>(f, 0.0);
    force_each[2u * k + 1u] = vec4<f32>(cross(pb.xyz - about, f), 0.0);
}

fn reduce(sensor: u32, lid: u32) {
    let s = force_sets[2u * sensor];
    var f = vec4<f32>(0.0);
    var m = vec4<f32>(0.0);
    for (var k = lid; k < s.y; k += WG_SIZE) {
        f += force_each[2u * (s.z + k)];
        m += force_each[2u * (s.z + k) + 1u];
    }
    wg_force[lid] = f;
    wg_torque[lid] = m;
    workgroupBarrier();
    for (var half = WG_SIZE / 2u; half > 0u; half /= 2u) {
        if lid < half {
            wg_force[lid] += wg_force[lid + half];
            wg_torque[lid] += wg_torque[lid + half];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        sensor_out[s.w] = wg_force[0];
        sensor_out[s.w + 1u] = wg_torque[0];
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if PART == 0u {
        each(linear_id(wid, nwg, lid));
    } else {
        reduce(wid.y * nwg.x + wid.x, lid);
    }
}
