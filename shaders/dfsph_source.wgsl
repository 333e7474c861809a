// dfsph.source: one half of a DFSPH iteration (docs/PHYSICS.md, "DFSPH"). For every fluid
// particle the density error the current velocities would leave after the step,
//   s_i = [rho_i - rho0]_(DENSITY) + dt sum_j m_j (v_i - v_j) . grad W_ij
// (boundary particles at rest; signed: negative where the particle would end up below rho0),
// and the change of its pressure-like kappa_i that dfsph.update turns into a velocity change:
// a projected, relaxed Jacobi iteration, total_i <- max(0, total_i + DFSPH_RELAXATION s_i
// factor_i / dt^2), the change being kappa_i. The sum of clamp(s_i / rho0, 0, 1) (compression
// only) and the count of fluid particles go into `solve_state` (a workgroup reduction, then one
// fixed-point atomic per workgroup), and their largest value, for dfsph.control's convergence
// test. Dispatched indirectly: dfsph.control sets the dispatch to zero workgroups once the
// solve has converged.
//
// DENSITY true: the pressure solve (density error); false: the divergence solve, where a
// particle with fewer than DIVERGENCE_MIN_NEIGHBOURS neighbours (a free surface) has s_i = 0.
//
// WARM (the solve's warm start, before its iterations): kappa_i is a share (WARM_PRESSURE_SHARE,
// WARM_DIVERGENCE_SHARE) of the kappa the particle's updates applied in the last step's solve
// (`warm`, by particle id, stored as kappa dt^2 for the pressure solve and kappa dt for the
// divergence solve, so a change of dt carries over) where s_i > 0, else 0; no error is summed.
// The warm source sets `kappa_total`, every other source moves it; dfsph.store keeps it for the
// next step.
//
// #import common
// #import neighbours
// #import lists

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> factor: array<f32>;
@group(0) @binding(7) var<storage, read_write> kappa: array<f32>;
// [error sum lo, hi, fluid count, iterations, ...]: dfsph_control.wgsl
@group(0) @binding(8) var<storage, read_write> solve_state: array<atomic<u32>, 8>;
@group(0) @binding(9) var<storage, read> ids: array<u32>;
@group(0) @binding(10) var<storage, read> warm: array<f32>;
@group(0) @binding(11) var<storage, read_write> kappa_total: array<f32>;

override DENSITY: bool = true;
override WARM: bool = false;

var<workgroup> wg_err: array<f32, 256>;
var<workgroup> wg_max: array<f32, 256>;
var<workgroup> wg_count: array<u32, 256>;

struct Acc {
    x: vec3<f32>,
    v: vec3<f32>,
    // sum of m_j (v_i - v_j) . d * kernel_grad_q (without kernel_norm * 6 / h^2)
    div: f32,
    // neighbours j != i with r < h (fluid and boundary)
    count: u32,
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
    (*acc).count += 1u;
    var vj = vec3<f32>(0.0);
    if pj.w > 0.0 {
        vj = vel_rho[j].xyz;
    }
    (*acc).div += abs(pj.w) * kernel_grad_q(q, inv_r / (*acc).inv_h) * dot((*acc).v - vj, d);
}

// s_i / rho0 (capped at 1) of slot-order invocation t, 0 for anything but fluid; writes kappa.
fn source(t: u32) -> f32 {
    if t >= params.n_particles {
        return -1.0;
    }
    let i = slot_of(t);
    let pi = pos_mass[i];
    if pi.w <= 0.0 {
        return -1.0;
    }
    let vi = vel_rho[i];
    let h = params.h;
    var acc = Acc(pi.xyz, vi.xyz, 0.0, 0u, i, h * h, 1.0 / h);
    neighbour_walk(i, pi.xyz, &acc);
    let dt = params.dt;
    var s = dt * acc.div * params.kernel_norm * 6.0 / (h * h);
    if DENSITY {
        s += vi.w - params.rest_density;
    } else if acc.count < DIVERGENCE_MIN_NEIGHBOURS {
        // a particle short of neighbours (at a free surface) is left out of the divergence solve:
        // its few neighbours would give it a large kappa and the surface would jitter
        s = 0.0;
    }
    if WARM {
        let scale = select(dt, dt * dt, DENSITY);
        let share = select(WARM_DIVERGENCE_SHARE, WARM_PRESSURE_SHARE, DENSITY);
        let k = select(0.0, share * warm[ids[i]] / scale, s > 0.0);
        kappa[i] = k;
        kappa_total[i] = k;
    } else {
        // projected, relaxed Jacobi: the total moves by DFSPH_RELAXATION times the correction of
        // the particle's own (signed) error, plus the momentum times its last change (kappa as
        // the last source left it), and stays >= 0; kappa is the change, which dfsph.update
        // applies
        let total = kappa_total[i];
        let next = max(total + DFSPH_RELAXATION * s * factor[i] / (dt * dt) + params.dfsph_momentum * kappa[i], 0.0);
        kappa[i] = next - total;
        kappa_total[i] = next;
    }
    return clamp(s / params.rest_density, 0.0, 1.0);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let e = source(linear_id(wid, nwg, lid));
    if WARM {
        return;
    }
    wg_err[lid] = max(e, 0.0);
    wg_max[lid] = max(e, 0.0);
    wg_count[lid] = select(0u, 1u, e >= 0.0);
    for (var stride = WG_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if lid < stride {
            wg_err[lid] += wg_err[lid + stride];
            wg_max[lid] = max(wg_max[lid], wg_max[lid + stride]);
            wg_count[lid] += wg_count[lid + stride];
        }
    }
    if lid == 0u && wg_count[0] > 0u {
        let v = to_fixed(wg_err[0]);
        if carried(atomicAdd(&solve_state[0], v), v) {
            atomicAdd(&solve_state[1], 1u);
        }
        atomicAdd(&solve_state[2], wg_count[0]);
        atomicMax(&solve_state[5], bitcast<u32>(wg_max[0]));
    }
}
