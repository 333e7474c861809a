// grid.rank_free (deterministic steps with emitters): the rank of a free slot in the free cell
// is the number of free slots with a smaller id, the exclusive scan of the flags grid.sort_cells
// wrote by id. The free cell then lists its slots in id order, as every other cell, and the
// emitters fill them in that order: the same ids on every run, and the ones the CPU twin
// chooses (the lowest free ids first).
//
// #import common

@group(0) @binding(2) var<storage, read> free_prefix: array<u32>;
@group(0) @binding(3) var<storage, read> cell_of: array<u32>;
@group(0) @binding(4) var<storage, read_write> rank: array<u32>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles || cell_of[i] != params.num_cells {
        return;
    }
    rank[i] = free_prefix[ids[i]];
}
