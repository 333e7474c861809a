// Bandwidth instrument, not part of the step: a plain vec4 copy, the ceiling the streaming
// passes (grid.count, grid.scan, grid.scatter, reorder, sph.integrate) are compared with.

struct CopyParams {
    n: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> cp: CopyParams;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<f32>>;

override WG_SIZE: u32 = 256u;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = (wid.y * nwg.x + wid.x) * WG_SIZE + lid;
    if i < cp.n {
        dst[i] = src[i];
    }
}
