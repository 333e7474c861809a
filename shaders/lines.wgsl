// render.box: the twelve edges of the fluid domain as a line list, generated from the vertex
// index (no vertex buffer).
//
// #import render_common

// Corner k of the box has bit 0 → x, bit 1 → y, bit 2 → z (0 = min, 1 = max). Each pair is
// one edge.
const EDGES = array<u32, 24>(
    0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, // along x
    0u, 2u, 1u, 3u, 4u, 6u, 5u, 7u, // along y
    0u, 4u, 1u, 5u, 2u, 6u, 3u, 7u, // along z
);

@vertex
fn vs_box(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let edges = EDGES;
    let k = edges[vi % 24u];
    let bits = vec3<f32>(f32(k & 1u), f32((k >> 1u) & 1u), f32((k >> 2u) & 1u));
    let p = mix(frame.domain_min, frame.domain_max, bits);
    return frame.proj * frame.view * vec4<f32>(p, 1.0);
}

@fragment
fn fs_box() -> @location(0) vec4<f32> {
    return vec4<f32>(frame.box_color.rgb, 1.0);
}
