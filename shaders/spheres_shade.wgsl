// render.spheres.shade: a full-screen triangle over the sphere view's viewport. Each pixel the
// splat (spheres.wgsl) gave a particle is that sphere's point along the pixel's ray, lit as the
// sprites are and written with its depth, so the box lines and the solids drawn before (the
// render.scene pass, whose depth this pass tests against) hide it or are hidden by it.
//
// #import sphere_common
// #import sphere_view

@group(0) @binding(1) var<uniform> px: SphereView;
@group(0) @binding(2) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> ids: array<u32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let x = f32((vi << 1u) & 2u);
    let y = f32(vi & 2u);
    return vec4<f32>(x * 2.0 - 1.0, 1.0 - y * 2.0, 0.0, 1.0);
}

struct FragOut {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_spheres(@builtin(position) pos: vec4<f32>) -> FragOut {
    var out: FragOut;
    let p = vec2<i32>(floor(pos.xy - px.origin));
    if any(p < vec2<i32>(0)) || any(p >= vec2<i32>(px.size)) {
        discard;
    }
    let id = ids[u32(p.y) * px.size.x + u32(p.x)];
    if id == 0u {
        discard;
    }
    let q = pos_mass[id - 1u];
    let c = (frame.view * vec4<f32>(q.xyz, 1.0)).xyz;
    let dir = normalize(pixel_ray(vec2<f32>(p), vec2<f32>(px.size)));
    let r = frame.radius;
    let b = dot(dir, c);
    // the splat found a hit along this ray: a disc that rounds below zero is a grazing one
    let off = c - dir * b;
    let disc = max(r * r - dot(off, off), 0.0);
    let hit = dir * (b - sqrt(disc));
    let n = normalize(hit - c);
    let clip = frame.proj * vec4<f32>(hit, 1.0);
    out.depth = clip.z / clip.w;
    out.color = vec4<f32>(lit_sphere(particle_color(q.w < 0.0, vel_rho[id - 1u]), n, dir), 1.0);
    return out;
}
