// dfsph.factor: the density of every fluid particle, as sph.density, and DFSPH's factor
// (Bender & Koschier 2017, eq. 9 without rho_i, docs/PHYSICS.md "DFSPH"):
//   D_i = (g_f + 2 g_b) . (g_f + g_b) + sum_{j fluid} |m_j grad W_ij|^2,   factor_i = 1 / D_i
// with g_f = sum_{j fluid} m_j grad W_ij and g_b = sum_{b wall} psi_b grad W_ib (0 where D_i is
// 0: a particle alone). Wall particles weigh in with their volume psi (|w|, Akinci et al.
// 2012) and take the fluid particle's own kappa in both terms of the update (dfsph.update),
// hence the 2 g_b. One neighbour loop, which also lists each fluid particle's neighbours for
// the solves and sph.force of the step (lists_write.wgsl).
//
// #import common
// #import neighbours
// #import lists_write

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> factor: array<f32>;

struct Acc {
    x: vec3<f32>,
    // sum of |w_j| * kernel_w_q(q)
    rho: f32,
    // sums of m_j * kernel_grad_q * d over fluid and over wall particles, and of
    // |m_j * kernel_grad_q * d|^2 over fluid (without the factor kernel_norm * 6 / h^2)
    grad: vec3<f32>,
    grad_b: vec3<f32>,
    grad2: f32,
    self_slot: u32,
    h2: f32,
    inv_h: f32,
    list: ListWriter,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if r2 >= (*acc).h2 {
        return;
    }
    let m = abs(pj.w);
    (*acc).rho += m * kernel_w_q(sqrt(r2) * (*acc).inv_h);
    list_push(acc, j, r2);
    if j == (*acc).self_slot || r2 <= 1e-12 * (*acc).h2 {
        return;
    }
    let inv_r = inverseSqrt(r2);
    let q = r2 * inv_r * (*acc).inv_h;
    let g = (m * kernel_grad_q(q, inv_r / (*acc).inv_h)) * d;
    if pj.w > 0.0 {
        (*acc).grad += g;
        (*acc).grad2 += dot(g, g);
    } else {
        (*acc).grad_b += g;
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
    let h = params.h;
    var acc = Acc(pi.xyz, 0.0, vec3<f32>(0.0), vec3<f32>(0.0), 0.0, i, h * h, 1.0 / h, list_start(i));
    neighbour_loop(pi.xyz, &acc);
    list_finish(acc.list);
    vel_rho[i].w = acc.rho * params.kernel_norm;
    let s = params.kernel_norm * 6.0 / (h * h);
    let d = (dot(acc.grad + 2.0 * acc.grad_b, acc.grad + acc.grad_b) + acc.grad2) * s * s;
    factor[i] = select(0.0, 1.0 / d, d > 0.0);
}
