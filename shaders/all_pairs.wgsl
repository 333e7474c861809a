// Baseline instrument, not part of the step: the density sum of sph.density over ALL particles
// (O(N^2), no grid), the loop a grid must beat. Each workgroup stages a tile of WG_SIZE
// positions in workgroup memory, so every position is read from global memory once per
// workgroup rather than once per invocation (the tiling of a matrix multiply).
//
// #import common

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> density: array<f32>;

var<workgroup> tile: array<vec4<f32>, WG_SIZE>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    let n = params.n_particles;
    let inside = i < n;
    var xi = vec4<f32>(0.0);
    if inside {
        xi = pos_mass[i];
    }
    let h2 = params.h * params.h;
    let inv_h = 1.0 / params.h;
    var rho = 0.0;
    for (var base = 0u; base < n; base += WG_SIZE) {
        let j = base + lid;
        tile[lid] = select(vec4<f32>(1e30, 1e30, 1e30, 0.0), pos_mass[min(j, n - 1u)], j < n);
        workgroupBarrier();
        for (var k = 0u; k < WG_SIZE; k++) {
            let pj = tile[k];
            let d = xi.xyz - pj.xyz;
            let r2 = dot(d, d);
            if r2 < h2 {
                rho += abs(pj.w) * kernel_w_q(sqrt(r2) * inv_h);
            }
        }
        workgroupBarrier();
    }
    if inside && xi.w > 0.0 {
        density[i] = rho * params.kernel_norm;
    }
}
