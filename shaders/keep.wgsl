// grid.keep: one invocation at the start of a step with the neighbour lists kept between grid
// builds (src/sim/keep.rs; docs/PHYSICS.md, "Lists kept between grid builds"). The lists of the
// last build hold every pair within (1 + skin) h of that moment; they hold every pair within h
// while no particle has moved more than skin h / 2 since. The travel is bounded by the sum of
// each step's largest move (sph.integrate's reduction into `keep[KEEP_MOVE]`): the step builds
// once that sum would pass s h / 2 (s: the skin the last build listed with, keep[KEEP_SKIN]),
// or when a list of the last build overflowed, or always with FORCE (a step the CPU records as
// a build: it restarts the count). A build lists with the scene's skin, or with none where
// the last step's largest move exceeded a quarter of it. Then it sets the live
// indirect dispatches: the full ones of the building passes (grid.count, grid.scan's levels,
// grid.scatter, the reorder, and the walking sph.density and sph.wall_pressure of the skin it
// chose: the skinned ones, or those of lists built every step where it chose none) and none of
// the listed ones, or the other way round. A build also clears the grid diagnostics words (max per cell, overflows),
// which grid.scan's first level then fills; a step that keeps the lists leaves the last build's there.
//
// #import common

@group(0) @binding(4) var<storage, read_write> keep: array<u32, KEEP_WORDS>;
@group(0) @binding(5) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;
// the indirect dispatches: live entries, then full ones (src/sim/keep.rs)
@group(0) @binding(6) var<storage, read_write> keep_args: array<u32, KEEP_ARGS_WORDS>;

override FORCE: bool = false;

@compute @workgroup_size(1)
fn main() {
    let moved = bitcast<f32>(keep[KEEP_MOVE]);
    let travel = bitcast<f32>(keep[KEEP_TRAVEL]) + moved;
    let overflow = keep[KEEP_OVERFLOW] != 0u;
    // lists without a skin (s = 0) are never kept: sph.wall_pressure writes none for the walls
    let s = bitcast<f32>(keep[KEEP_SKIN]);
    let build = FORCE || overflow || s == 0.0 || travel > 0.5 * s * params.h;
    keep[KEEP_MOVE] = 0u;
    if build {
        // the build lists with the scene's skin unless the last step moved a particle farther
        // than a quarter of it (such lists would be expected to last less than two steps): then
        // within h
        let skin = select(0.0, params.list_skin, 0.25 * params.list_skin * params.h >= moved);
        keep[KEEP_SKIN] = bitcast<u32>(skin);
        keep[KEEP_TRAVEL] = 0u;
        keep[KEEP_OVERFLOW] = 0u;
        keep[KEEP_BUILDS] += 1u;
        if overflow {
            keep[KEEP_OVERFLOWED] += 1u;
        }
        if !FORCE {
            atomicStore(&diag[DIAG_MAX_PER_CELL], 0u);
            atomicStore(&diag[DIAG_OVERFLOWS], 0u);
        }
    } else {
        keep[KEEP_TRAVEL] = bitcast<u32>(travel);
        keep[KEEP_KEPT] += 1u;
    }
    // the skin the step's walk lists with (a build's choice, or the last build's while kept)
    let skinned = keep[KEEP_SKIN] != 0u;
    for (var k = 0u; k < KEEP_ENTRIES; k++) {
        let full = KEEP_FULL + 4u * k;
        let live = KEEP_LIVE + 4u * k;
        let when = keep_args[full + 3u];
        var on = build && !skinned;
        if when == KEEP_WHEN_BUILD {
            on = build;
        } else if when == KEEP_WHEN_LISTED {
            on = !build;
        } else if when == KEEP_WHEN_SKINNED {
            on = build && skinned;
        }
        for (var c = 0u; c < 3u; c++) {
            keep_args[live + c] = select(0u, keep_args[full + c], on);
        }
    }
}
