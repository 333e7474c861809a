// The neighbour lists, read side (docs/PHYSICS.md, step 3): the passes that walk a fluid
// particle's neighbourhood after the pass that wrote the lists in the same step (sph.force after
// sph.density; dfsph.source, dfsph.update and sph.force after dfsph.factor: the positions do not
// change in between) call `neighbour_walk` instead of `neighbour_loop`. It visits the particle's
// listed neighbours — those with 0 < r < h, in the grid walk's order — and walks the grid for a
// particle with more than LIST_MAX of them, or everywhere without LISTS. Every visit function
// leaves out the particle itself and particles at r = 0, so both give the same sums.
// lists_write.wgsl says how the lists are laid out.
//
// #import neighbours
// #import lists_walk

@group(0) @binding(14) var<storage, read> nb_list: array<vec4<u32>>;
@group(0) @binding(15) var<storage, read> nb_count: array<u32>;
@group(0) @binding(16) var<storage, read> nb_list_hi: array<vec4<u32>>;

// Set from Rust (crate::sim::ListLayout): whether the lists were written this step, and whether
// their rows from LIST_SPLIT_ROW on are in nb_list_hi (lists_write.wgsl).
override LISTS: bool = false;
override SPLIT_LISTS: bool = false;

// Row `row` (entries 4·row … 4·row + 3) of slot i's list.
fn list_row(row: u32, i: u32) -> vec4<u32> {
    if SPLIT_LISTS && row >= LIST_SPLIT_ROW {
        return nb_list_hi[(row - LIST_SPLIT_ROW) * params.n_particles + i];
    }
    return nb_list[row * params.n_particles + i];
}

fn neighbour_walk(i: u32, x: vec3<f32>, acc: ptr<function, Acc>) {
    var count = LIST_MAX + 1u;
    if LISTS {
        count = nb_count[i];
    }
    if count > LIST_MAX {
        neighbour_loop(x, acc);
        return;
    }
    listed_visits(i, count, acc);
}
