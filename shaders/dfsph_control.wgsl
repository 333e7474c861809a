// dfsph.control: one invocation that drives a DFSPH solve without a CPU round trip
// (docs/PHYSICS.md, "DFSPH"). The step records every possible iteration (source, control,
// update; max_iterations of them, then a last source and control); source and update are
// dispatched indirectly from `solve_args`, which this pass sets to zero workgroups once the
// solve is done, so the iterations not needed cost an empty dispatch each.
// - BEGIN: arms the solve: the full dispatch (solve_args[4..7], written by the step) into the
//   live one (solve_args[0..3]), counters cleared.
// - otherwise (after a dfsph.source): the mean and the largest error of the source just
//   computed; the mean at most the tolerance and the largest at most MAX_ERROR_FACTOR times it
//   (an impact: a few particles far off while the bulk is fine) once at least
//   MIN_PRESSURE_ITERATIONS / MIN_DIVERGENCE_ITERATIONS updates are done, or max_iterations
//   updates done: the solve stops (the iteration count, and for the
//   pressure solve the error reached, go to the diagnostics); else one more update follows.
//
// #import common

// [error sum lo, hi, fluid count, updates done, stopped, largest error (f32 bits)]
@group(0) @binding(4) var<storage, read_write> solve_state: array<u32, 8>;
@group(0) @binding(5) var<storage, read_write> solve_args: array<u32, 8>;
// src/sim/params.rs: Diagnostics
@group(0) @binding(6) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;

override BEGIN: bool = false;
// the pressure solve (density tolerance; diagnostics words 13 and 15) or the divergence solve
// (divergence tolerance; word 14)
override DENSITY: bool = true;

@compute @workgroup_size(1)
fn main() {
    if BEGIN {
        solve_args[0] = solve_args[4];
        solve_args[1] = solve_args[5];
        solve_args[2] = solve_args[6];
        for (var k = 0u; k < 8u; k++) {
            solve_state[k] = 0u;
        }
        return;
    }
    if solve_state[4] != 0u {
        return;
    }
    let mean = fixed_mean(solve_state[0], solve_state[1], solve_state[2]);
    let tolerance = select(params.divergence_tolerance, params.density_tolerance, DENSITY);
    let largest = bitcast<f32>(solve_state[5]);
    let done = solve_state[3];
    solve_state[0] = 0u;
    solve_state[1] = 0u;
    solve_state[2] = 0u;
    solve_state[5] = 0u;
    let least = select(MIN_DIVERGENCE_ITERATIONS, MIN_PRESSURE_ITERATIONS, DENSITY);
    if (mean <= tolerance && largest <= MAX_ERROR_FACTOR * tolerance && done >= least) || done >= params.max_iterations {
        solve_state[4] = 1u;
        solve_args[0] = 0u;
        if DENSITY {
            atomicStore(&diag[DIAG_PRESSURE_ITERATIONS], done);
            atomicStore(&diag[DIAG_SOLVER_ERROR], bitcast<u32>(mean));
        } else {
            atomicStore(&diag[DIAG_DIVERGENCE_ITERATIONS], done);
        }
    } else {
        solve_state[3] = done + 1u;
    }
}
