// The neighbour lists, write side: sph.density and dfsph.factor list each fluid particle's
// neighbours as their grid walk finds them (lists.wgsl reads them). A list holds the slots with
// 0 < r < h in the walk's order, at most LIST_MAX (a constant of src/physics.rs, a multiple of
// 4) of them, and its count holds all of them (a count above LIST_MAX sends the readers back to
// the grid). The lists are interleaved by fours: entry k of slot i is word k % 4 of
// nb_list[(k / 4) * n_particles + i], so that readers, whose invocations read their k-th
// entries together, load 16 bytes per invocation from one contiguous range; a particle's four
// entries are written together, as one vector (single words, scattered once the flow is
// irregular, cost twice as much: docs/PERFORMANCE.md, "Neighbour lists"). Where the lists are
// too large for one binding (SPLIT_LISTS), rows LIST_SPLIT_ROW and after are in nb_list_hi,
// from its start: row k ≥ LIST_SPLIT_ROW of slot i is nb_list_hi[(k − LIST_SPLIT_ROW) ·
// n_particles + i].
//
// #import common
// #import lists_walk

@group(0) @binding(14) var<storage, read_write> nb_list: array<vec4<u32>>;
@group(0) @binding(15) var<storage, read_write> nb_count: array<u32>;
@group(0) @binding(16) var<storage, read_write> nb_list_hi: array<vec4<u32>>;
// grid.keep's control words (src/sim/keep.rs): a list that overflows sets KEEP_OVERFLOW, so
// that the next step builds again instead of keeping it
@group(0) @binding(17) var<storage, read_write> keep: array<atomic<u32>, KEEP_WORDS>;

override LISTS: bool = false;
// Set from Rust (crate::sim::ListLayout): the lists' rows in two bindings.
override SPLIT_LISTS: bool = false;
// The lists kept from the last build are read instead of walking the grid (a step of a
// simulation with a list skin that grid.keep let keep them): nothing is written.
override LISTED: bool = false;
// A walk that lists with the skin grid.keep chose, or a LISTED step (src/sim/keep.rs, `Reads`);
// without, the walks are those of lists built every step, with nothing of the skin compiled in
// (a simulation without a skin, and a build grid.keep made list within h).
override SKIN: bool = false;

// The skin the build of this step lists with (grid.keep's choice; 0 without SKIN).
fn build_skin() -> f32 {
    if SKIN {
        return bitcast<f32>(atomicLoad(&keep[KEEP_SKIN]));
    }
    return 0.0;
}

// Row `row` of slot `slot`'s list, as stored.
fn list_row(row: u32, slot: u32) -> vec4<u32> {
    if SPLIT_LISTS && row >= LIST_SPLIT_ROW {
        return nb_list_hi[(row - LIST_SPLIT_ROW) * params.n_particles + slot];
    }
    return nb_list[row * params.n_particles + slot];
}

// Visits slot i's list as the last build left it (LISTED): every particle that was within the
// list radius (1 + skin) h then, in the grid walk's order. grid.keep keeps lists only when none
// overflowed, so the count is at most LIST_MAX.
fn listed_walk(i: u32, acc: ptr<function, Acc>) {
    listed_visits(i, min(nb_count[i], LIST_MAX), acc);
}

// The neighbours of the particle in slot i at x for a pass that builds the lists (sph.density,
// sph.wall_pressure): the grid walked within h, or within (1 + skin) h for a build with a skin
// (`skin_range`, neighbours.wgsl), its list then finished; or, in a LISTED step, the lists kept.
fn walk_or_listed(i: u32, x: vec3<f32>, skin: f32, acc: ptr<function, Acc>) {
    if LISTED {
        listed_walk(i, acc);
        return;
    }
    if SKIN && skin > 0.0 {
        neighbour_loop_within(x, acc, skin_range(skin));
    } else {
        neighbour_loop(x, acc);
    }
    list_finish((*acc).list);
}

// Stores row `row` (entries 4·row … 4·row + 3) of slot `slot`'s list.
fn list_store(row: u32, slot: u32, v: vec4<u32>) {
    if SPLIT_LISTS && row >= LIST_SPLIT_ROW {
        nb_list_hi[(row - LIST_SPLIT_ROW) * params.n_particles + slot] = v;
    } else {
        nb_list[row * params.n_particles + slot] = v;
    }
}

// A list being written: entries so far (also past LIST_MAX), the particle's slot, the four
// entries not yet stored.
struct ListWriter {
    n: u32,
    slot: u32,
    pack: vec4<u32>,
}

fn list_start(slot: u32) -> ListWriter {
    return ListWriter(0u, slot, vec4<u32>(0u));
}

// Adds neighbour j (at squared distance r2 below the list radius, h² without a skin) to the list of the pass's `Acc`, which has the
// members `list: ListWriter` and `h2` (h²), unless it is at r = 0. The list is reached through
// the Acc pointer: naga 30's SPIR-V writer fails on `&(*acc).list` passed as an argument, and a
// ListWriter passed and returned by value cost sph.density 13 % on the H200.
fn list_push(acc: ptr<function, Acc>, j: u32, r2: f32) {
    if !LISTS || LISTED || r2 <= 1e-12 * (*acc).h2 {
        return;
    }
    let n = (*acc).list.n;
    if n < LIST_MAX {
        (*acc).list.pack[n & 3u] = j;
        if (n & 3u) == 3u {
            list_store(n / 4u, (*acc).list.slot, (*acc).list.pack);
        }
    }
    (*acc).list.n = n + 1u;
}

// Stores the last, partial four and the count.
fn list_finish(w: ListWriter) {
    if !LISTS || LISTED {
        return;
    }
    if w.n < LIST_MAX && (w.n & 3u) != 0u {
        list_store(w.n / 4u, w.slot, w.pack);
    }
    nb_count[w.slot] = w.n;
    if w.n > LIST_MAX {
        atomicStore(&keep[KEEP_OVERFLOW], 1u);
    }
}
