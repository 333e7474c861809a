// sph.integrate: symplectic Euler for fluid particles, then the guards: a non-finite result is
// discarded (position kept, velocity zeroed) and counted; a position past an open face of the
// domain leaves the simulation (w = 0 frees its slot) and is counted as outflow; a position past
// a closed face is clamped onto it, the velocity component zeroed, and counted. Streams 48 B per
// particle.
//
// With INLETS (a scene with emitters), fluid inside the inlet zone of an emitter that is
// emitting moves at the emitter's velocity: the layers it lays down keep their spacing until
// they are a support radius on, whatever the water ahead does.
//
// #import emit_common

@group(0) @binding(4) var<storage, read_write> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> acc_in: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;
@group(0) @binding(8) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(9) var<storage, read> emit_state: EmitState;
// grid.keep's control words (src/sim/keep.rs)
@group(0) @binding(10) var<storage, read_write> keep: array<atomic<u32>, KEEP_WORDS>;

override INLETS: bool = false;
// false for DFSPH: the velocity is final already (dfsph.predict and the pressure solve); only
// the positions move
override KICK: bool = true;
// the neighbour lists are kept between grid builds (a list skin): the step's largest move,
// |x_new - x_old| over fluid, goes to keep[KEEP_MOVE] (a workgroup's largest first, then one
// atomic a workgroup; distances as the bits of non-negative floats, which order like them)
override MOVES: bool = false;

var<workgroup> wg_move: atomic<u32>;

fn all_finite(v: vec3<f32>) -> bool {
    // |v| <= f32::MAX is false for NaN and for infinities
    return all(abs(v) <= vec3<f32>(3.402823e38));
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let moved = advance(linear_id(wid, nwg, lid));
    if MOVES {
        if moved > 0.0 {
            atomicMax(&wg_move, bitcast<u32>(moved));
        }
        workgroupBarrier();
        if lid == 0u {
            let m = atomicLoad(&wg_move);
            if m > 0u {
                atomicMax(&keep[KEEP_MOVE], m);
            }
        }
    }
}

// Moves particle i; returns how far it moved (0 for a slot that is not fluid).
fn advance(i: u32) -> f32 {
    if i >= params.n_particles {
        return 0.0;
    }
    let p = pos_mass[i];
    if p.w <= 0.0 {
        return 0.0;
    }
    let vr = vel_rho[i];
    var v = vr.xyz;
    if KICK {
        v += params.dt * acc_in[i].xyz;
    }
    if INLETS {
        let step = emit_state.step;
        for (var e = 0u; e < emit_state.n_emitters; e++) {
            let em = emitters[e];
            if step >= em.start_step && step < em.end_step && in_inlet(em, p.xyz) {
                v = em.velocity;
            }
        }
    }
    var x = p.xyz + params.dt * v;
    if !(all_finite(v) && all_finite(x)) {
        atomicAdd(&diag[DIAG_NON_FINITE], 1u);
        vel_rho[i] = vec4<f32>(0.0, 0.0, 0.0, vr.w);
        return 0.0;
    }
    let lo = x < params.domain_min;
    let hi = x > params.domain_max;
    let open = params.open_faces;
    let open_lo = (vec3<u32>(open) & vec3<u32>(1u, 2u, 4u)) != vec3<u32>(0u);
    let open_hi = (vec3<u32>(open) & vec3<u32>(8u, 16u, 32u)) != vec3<u32>(0u);
    if any(lo & open_lo) || any(hi & open_hi) {
        pos_mass[i] = vec4<f32>(x, 0.0);
        vel_rho[i] = vec4<f32>(0.0, 0.0, 0.0, params.rest_density);
        atomicAdd(&diag[DIAG_OUTFLOW], 1u);
        return 0.0;
    }
    if any(lo) || any(hi) {
        x = clamp(x, params.domain_min, params.domain_max);
        v = select(v, vec3<f32>(0.0), lo | hi);
        atomicAdd(&diag[DIAG_WALL_CLAMPS], 1u);
    }
    pos_mass[i] = vec4<f32>(x, p.w);
    vel_rho[i] = vec4<f32>(v, vr.w);
    return length(x - p.xyz);
}
