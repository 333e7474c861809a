// grid.scan: exclusive prefix sum, reduce-then-scan over as many levels as the length needs.
// Each workgroup owns a block of SCAN_BLOCK = 4 * WG_SIZE elements (4 consecutive per thread).
// `reduce` writes one sum per block; the block sums are scanned the same way one level up; then
// `down` rescans each block and adds its block's offset. No decoupled look-back: WebGPU gives
// no forward-progress guarantee between workgroups. Not including common.wgsl: own bindings.
//
// With DIAG (the grid's level 0, where `src` is the cell counts; src/sim/scan.rs) `down` also
// takes the grid diagnostics of the build from the counts it reads anyway: the largest count of
// a cell (the free slots' cell, `num_cells`, left out) and the particles over the cells'
// capacity, sum of max(0, count − capacity). Reduced per workgroup first: one global atomic per
// workgroup that has any, and none where the workgroup's largest is not above the largest so far.
// (grid.count took them before, for 2.6 % of the step at 4M: docs/PERFORMANCE.md.)
//
// #import scan_params, sim_params, diagnostics

@group(0) @binding(0) var<uniform> sp: ScanParams;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<storage, read_write> block_sums: array<u32>;
@group(0) @binding(4) var<storage, read> block_offsets: array<u32>;
// the simulation's uniform block (num_cells, capacity) and diagnostics words, for DIAG
@group(0) @binding(5) var<uniform> params: SimParams;
@group(0) @binding(6) var<storage, read_write> diag: array<atomic<u32>, DIAG_WORDS>;

override WG_SIZE: u32 = 256u;
override DIAG: bool = false;

var<workgroup> shared_vals: array<u32, 1024>;
var<workgroup> wg_max: atomic<u32>;
var<workgroup> wg_over: atomic<u32>;

fn block_id(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

fn load(i: u32) -> u32 {
    if i < sp.n_in {
        return src[i];
    }
    return 0u;
}

@compute @workgroup_size(WG_SIZE)
fn reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let b = block_id(wid, nwg);
    let base = b * 4u * WG_SIZE + lid * 4u;
    shared_vals[lid] = load(base) + load(base + 1u) + load(base + 2u) + load(base + 3u);
    workgroupBarrier();
    for (var s = WG_SIZE / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            shared_vals[lid] += shared_vals[lid + s];
        }
        workgroupBarrier();
    }
    if lid == 0u {
        block_sums[b] = shared_vals[0];
    }
}

@compute @workgroup_size(WG_SIZE)
fn down(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let b = block_id(wid, nwg);
    let base = b * 4u * WG_SIZE + lid * 4u;
    let v0 = load(base);
    let v1 = load(base + 1u);
    let v2 = load(base + 2u);
    let v3 = load(base + 3u);
    let total = v0 + v1 + v2 + v3;
    let vals = array<u32, 4>(v0, v1, v2, v3);
    if DIAG {
        var most = 0u;
        var over = 0u;
        for (var e = 0u; e < 4u; e++) {
            if base + e < params.num_cells {
                most = max(most, vals[e]);
                over += max(vals[e], params.capacity) - params.capacity;
            }
        }
        if most > 0u {
            atomicMax(&wg_max, most);
        }
        if over > 0u {
            atomicAdd(&wg_over, over);
        }
    }
    // inclusive Hillis-Steele scan of the per-thread totals (its barriers also order the
    // diagnostics' workgroup atomics before their reads below)
    shared_vals[lid] = total;
    workgroupBarrier();
    for (var s = 1u; s < WG_SIZE; s <<= 1u) {
        var add = 0u;
        if lid >= s {
            add = shared_vals[lid - s];
        }
        workgroupBarrier();
        shared_vals[lid] += add;
        workgroupBarrier();
    }
    var acc = block_offsets[b] + shared_vals[lid] - total;
    if DIAG && lid == 0u {
        let m = atomicLoad(&wg_max);
        if m > atomicLoad(&diag[DIAG_MAX_PER_CELL]) {
            atomicMax(&diag[DIAG_MAX_PER_CELL], m);
        }
        let o = atomicLoad(&wg_over);
        if o > 0u {
            atomicAdd(&diag[DIAG_OVERFLOWS], o);
        }
    }
    for (var e = 0u; e < 4u; e++) {
        let i = base + e;
        if i < sp.n_out {
            dst[i] = acc;
        }
        acc += vals[e];
    }
}
