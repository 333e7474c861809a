// grid.count: one invocation per particle. Stores the particle's cell and its rank inside the
// cell (the old value of the cell's counter), so grid.scatter needs no second atomic. Reads
// 16 B and writes 8 B per particle, coalesced; the atomics are the cost in dense cells.
// The grid diagnostics (largest occupancy, overflows over capacity) are taken from the counts by
// grid.scan's level 0 (scan.wgsl, DIAG).
// Free slots (w = 0: no particle) all go to the extra cell `num_cells` after the last, which no
// neighbour loop visits: the scan then puts them after every particle, and the reorder moves
// them to the end of the buffers, where the emitters find them (emit.plan, emit.write).
//
// #import common

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> cell_of: array<u32>;
@group(0) @binding(7) var<storage, read_write> rank: array<u32>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles {
        return;
    }
    let p = pos_mass[i];
    let free = p.w == 0.0;
    let c = select(cell_index(cell_coord(p.xyz)), params.num_cells, free);
    cell_of[i] = c;
    rank[i] = atomicAdd(&counts[c], 1u);
}
