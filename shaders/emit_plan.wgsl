// emit.plan: one invocation decides what every emitter creates at the end of this step, with
// integers only so that the CPU twin decides the same: an emitter emits on steps start_step ..
// end_step, a layer of its points whenever its phase (time to its next layer) falls inside the
// step. A layer goes to the free slots the grid build counted (the cell `num_cells`) if all of
// it fits, after the layers of the emitters before it; a layer that does not fit is skipped and
// counted as starved (the schedule goes on: the rate stays what the scene says). Then the
// diagnostics: particles emitted, starved, free slots left.
//
// #import emit_common

@group(0) @binding(2) var<storage, read> counts: array<u32>;
@group(0) @binding(3) var<storage, read> emitters: array<Emitter>;
@group(0) @binding(4) var<storage, read_write> state: EmitState;
// src/sim/params.rs: Diagnostics
@group(0) @binding(5) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if linear_id(wid, nwg, lid) != 0u {
        return;
    }
    let free = counts[params.num_cells];
    let step = state.step;
    var used = 0u;
    var starved = 0u;
    for (var e = 0u; e < state.n_emitters; e++) {
        state.count[e] = 0u;
        let em = emitters[e];
        if step < em.start_step || step >= em.end_step {
            continue;
        }
        var phase = state.phase[e];
        if phase < PHASE_ONE {
            if used + em.n_points <= free {
                state.offset[e] = used;
                state.count[e] = em.n_points;
                state.late[e] = f32(PHASE_ONE - phase) / f32(PHASE_ONE);
                used += em.n_points;
            } else {
                starved += em.n_points;
            }
            phase += i32(em.period);
        }
        state.phase[e] = phase - PHASE_ONE;
    }
    atomicAdd(&diag[DIAG_EMITTED], used);
    atomicAdd(&diag[DIAG_STARVED], starved);
    atomicStore(&diag[DIAG_FREE_SLOTS], free - used);
    state.step = step + 1u;
}
