// grid.scatter: each particle writes its own slot index at cell_start[cell] + rank, the place
// grid.count reserved for it. No atomics; `sorted` then lists every cell's particles in its
// slot range. Reads are coalesced, writes scattered (4 B each).
//
// #import common

@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read_write> sorted: array<u32>;
@group(0) @binding(4) var<storage, read> cell_of: array<u32>;
@group(0) @binding(5) var<storage, read> rank: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles {
        return;
    }
    sorted[cell_start[cell_of[i]] + rank[i]] = i;
}
