// grid.sort_cells (optional, `SimOptions::deterministic`): ranks every particle within its cell
// by particle id, for grid.scatter to run again with these ranks. The count pass's atomics hand
// out ranks in whatever order the GPU ran them, so without this the neighbour loops sum a
// cell's particles in an order that changes from run to run, and results differ in their last
// bits. One invocation per particle counts the particles of its cell with a smaller id (a
// handful at the default cell size h/2; no loop runs longer than its cell is full).
//
// #import common

@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<u32>;
@group(0) @binding(4) var<storage, read> cell_of: array<u32>;
@group(0) @binding(5) var<storage, read_write> rank: array<u32>;
@group(0) @binding(6) var<storage, read> ids: array<u32>;
// With FREE_RANKS (a simulation with emitters): 1 for the id of every free slot, 0 for every
// other id, for grid.scan and grid.rank_free to rank the free slots by id.
@group(0) @binding(7) var<storage, read_write> free_flag: array<u32>;

override FREE_RANKS: bool = false;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles {
        return;
    }
    let c = cell_of[i];
    let id = ids[i];
    if FREE_RANKS {
        free_flag[id] = select(0u, 1u, c == params.num_cells);
    }
    if c == params.num_cells {
        // the free cell can hold the whole reserve: too many to rank this way (grid.rank_free
        // ranks them, where there are emitters to fill them)
        return;
    }
    var r = 0u;
    for (var k = cell_start[c]; k < cell_start[c + 1u]; k++) {
        r += select(0u, 1u, ids[sorted[k]] < id);
    }
    rank[i] = r;
}
