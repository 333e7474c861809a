// reorder: a gather of every piece of per-particle state into the other buffer set,
// dst[k] = src[sorted[k]]. Writes are coalesced; reads are scattered but each one pulls whole
// 16-byte vectors, and `sorted[k]` is read once for all buffers. After it, slot k holds the k-th
// particle in cell order and the neighbour loops read cell ranges directly. With COPY (a step
// that keeps the neighbour lists, src/sim/keep.rs) it copies slot k to slot k instead: the
// current set alternates every step, and the lists' slots stay.
//
// #import common

@group(0) @binding(3) var<storage, read> sorted: array<u32>;
@group(0) @binding(4) var<storage, read> src_pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> src_vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> src_id: array<u32>;
@group(0) @binding(7) var<storage, read_write> dst_pos_mass: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> dst_vel_rho: array<vec4<f32>>;
@group(0) @binding(9) var<storage, read_write> dst_id: array<u32>;

override COPY: bool = false;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let k = linear_id(wid, nwg, lid);
    if k >= params.n_particles {
        return;
    }
    var s = k;
    if !COPY {
        s = sorted[k];
    }
    dst_pos_mass[k] = src_pos_mass[s];
    dst_vel_rho[k] = src_vel_rho[s];
    dst_id[k] = src_id[s];
}
