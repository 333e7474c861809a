// dfsph.update: the other half of a DFSPH iteration: every fluid particle's velocity moves by
//   v_i -= dt sum_{j fluid} m_j (kappa_i + kappa_j) grad W_ij + dt sum_{b wall} psi_b 2 kappa_i grad W_ib
// (a wall particle takes the fluid particle's own kappa: pressure mirroring in both terms of
// the symmetric form; with one term the wall holds half the force and particles sink into it).
// Dispatched indirectly, like dfsph.source.
//
// #import common
// #import neighbours
// #import lists

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> kappa: array<f32>;

struct Acc {
    x: vec3<f32>,
    k: f32,
    // sum of m_j (kappa_i + kappa_j) kernel_grad_q d (without kernel_norm * 6 / h^2)
    dv: vec3<f32>,
    self_slot: u32,
    h2: f32,
    inv_h: f32,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if r2 >= (*acc).h2 || j == (*acc).self_slot || r2 <= 1e-12 * (*acc).h2 {
        return;
    }
    let inv_r = inverseSqrt(r2);
    let q = r2 * inv_r * (*acc).inv_h;
    var k = (*acc).k;
    if pj.w > 0.0 {
        k += kappa[j];
    } else {
        k += (*acc).k;
    }
    (*acc).dv += (abs(pj.w) * k * kernel_grad_q(q, inv_r / (*acc).inv_h)) * d;
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
    let h = params.h;
    var acc = Acc(pi.xyz, kappa[i], vec3<f32>(0.0), i, h * h, 1.0 / h);
    neighbour_walk(i, pi.xyz, &acc);
    let vi = vel_rho[i];
    let dv = acc.dv * (params.dt * params.kernel_norm * 6.0 / (h * h));
    vel_rho[i] = vec4<f32>(vi.xyz - dv, vi.w);
}
