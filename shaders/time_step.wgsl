// sim.time_step: measures the step and chooses its dt, without a CPU round trip (docs/PHYSICS.md,
// "Time step"). Two pipeline variants of one entry point:
// - reduce (FINISH false, one invocation per slot): over fluid, the largest speed |v| (the
//   velocity the step starts from), the largest acceleration |a| (sph.force's), and the sum of
//   the compression max(rho - rho0, 0) / rho0 at this step's density pass; a workgroup reduces in
//   workgroup memory, then one atomic per workgroup into `reduce` (speeds as the bits of
//   non-negative floats, which order like the floats; the compression sum in fixed point, 2^20
//   per unit, as a 64-bit number in two words; each particle's share capped at 1).
// - finish (FINISH true, one invocation): the adaptive dt from those maxima (the same formula
//   as `physics::adaptive_dt`) or the fixed dt, the compensated simulated time, the diagnostics
//   words; clears `reduce` for the next step. The step then copies `diag[DIAG_DT]` (dt) into
//   params.dt for the passes after it.
//
// #import common

@group(0) @binding(4) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> acc_in: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> pos_mass: array<vec4<f32>>;
// [max speed bits, max acceleration bits, compression sum lo, hi, fluid count]
@group(0) @binding(7) var<storage, read_write> reduce: array<atomic<u32>, 8>;
// src/sim/params.rs: Diagnostics
@group(0) @binding(8) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;

override FINISH: bool = false;

var<workgroup> wg_speed: array<f32, 256>;
var<workgroup> wg_acc: array<f32, 256>;
var<workgroup> wg_err: array<f32, 256>;
var<workgroup> wg_count: array<u32, 256>;

struct Sample {
    speed: f32,
    acc: f32,
    err: f32,
    fluid: u32,
}

fn sample(i: u32) -> Sample {
    var s = Sample(0.0, 0.0, 0.0, 0u);
    if i >= params.n_particles {
        return s;
    }
    if pos_mass[i].w <= 0.0 {
        return s;
    }
    let vr = vel_rho[i];
    s.speed = length(vr.xyz);
    s.acc = length(acc_in[i].xyz);
    s.err = min(max(vr.w - params.rest_density, 0.0) / params.rest_density, 1.0);
    s.fluid = 1u;
    return s;
}

fn finish() {
    let max_speed = bitcast<f32>(atomicLoad(&reduce[0]));
    let max_acc = bitcast<f32>(atomicLoad(&reduce[1]));
    let mean = fixed_mean(atomicLoad(&reduce[2]), atomicLoad(&reduce[3]), atomicLoad(&reduce[4]));
    var dt = params.dt_max;
    if params.adaptive != 0u {
        let h = params.h;
        if params.solver == SOLVER_WCSPH {
            dt = min(dt, params.cfl * h / (params.sound_speed + max_speed));
        } else if max_speed > 0.0 {
            dt = min(dt, params.cfl * 0.5 * h / max_speed);
        }
        if max_acc > 0.0 {
            dt = min(dt, FORCE_CONDITION * sqrt(h / max_acc));
        }
        // at most DT_GROWTH times the last step's; at most half of it after a pressure solve
        // that stopped above its tolerance
        let last = bitcast<f32>(atomicLoad(&diag[DIAG_DT]));
        dt = min(dt, DT_GROWTH * last);
        let unconverged = bitcast<f32>(atomicLoad(&diag[DIAG_SOLVER_ERROR])) > params.density_tolerance;
        if params.solver == SOLVER_DFSPH && unconverged {
            dt = min(dt, 0.5 * last);
        }
        dt = max(dt, params.dt_min);
    } else {
        dt = params.dt;
    }
    // compensated sum (Kahan): time + time_lo carries what f32 alone would round away
    let sum_t = bitcast<f32>(atomicLoad(&diag[DIAG_TIME]));
    let lo = bitcast<f32>(atomicLoad(&diag[DIAG_TIME_LO]));
    // a frame time ahead (an adaptive dt's --export-fps): the step that reaches it ends on it,
    // the clock then reads it exactly; less than two steps before it, the step takes half.
    // Within half of dt_min of it the clock counts as on it (the run stops there): no sliver.
    var lands = false;
    if params.adaptive != 0u && params.frame_time > 0.0 {
        let left = (params.frame_time - sum_t) - lo;
        if left > 0.5 * params.dt_min {
            if left <= dt {
                dt = left;
                lands = true;
            } else if left < 2.0 * dt {
                dt = 0.5 * left;
            }
        }
    }
    let y = dt + lo;
    var t = sum_t + y;
    var t_lo = y - (t - sum_t);
    if lands {
        t = params.frame_time;
        t_lo = 0.0;
    }
    atomicStore(&diag[DIAG_DT], bitcast<u32>(dt));
    atomicStore(&diag[DIAG_TIME], bitcast<u32>(t));
    atomicStore(&diag[DIAG_TIME_LO], bitcast<u32>(t_lo));
    atomicStore(&diag[DIAG_MAX_SPEED], bitcast<u32>(max_speed));
    atomicStore(&diag[DIAG_DENSITY_ERROR], bitcast<u32>(mean));
    for (var k = 0u; k < 8u; k++) {
        atomicStore(&reduce[k], 0u);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if FINISH {
        if linear_id(wid, nwg, lid) == 0u {
            finish();
        }
        return;
    }
    let s = sample(linear_id(wid, nwg, lid));
    wg_speed[lid] = s.speed;
    wg_acc[lid] = s.acc;
    wg_err[lid] = s.err;
    wg_count[lid] = s.fluid;
    for (var stride = WG_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if lid < stride {
            wg_speed[lid] = max(wg_speed[lid], wg_speed[lid + stride]);
            wg_acc[lid] = max(wg_acc[lid], wg_acc[lid + stride]);
            wg_err[lid] += wg_err[lid + stride];
            wg_count[lid] += wg_count[lid + stride];
        }
    }
    if lid == 0u && wg_count[0] > 0u {
        atomicMax(&reduce[0], bitcast<u32>(wg_speed[0]));
        atomicMax(&reduce[1], bitcast<u32>(wg_acc[0]));
        let v = to_fixed(wg_err[0]);
        if carried(atomicAdd(&reduce[2], v), v) {
            atomicAdd(&reduce[3], 1u);
        }
        atomicAdd(&reduce[4], wg_count[0]);
    }
}

