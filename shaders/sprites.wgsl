// render.sprites: every particle drawn as a sphere impostor, straight from the simulation's
// particle buffers (bound as per-instance vertex buffers: no copy through the CPU).
//
// #import sphere_common

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    // the quad corner's view-space position (on the plane through the sphere's centre that
    // faces the eye)
    @location(0) view_pos: vec3<f32>,
    @location(1) @interpolate(flat) center: vec3<f32>,
    @location(2) @interpolate(flat) color: vec3<f32>,
}

// One instance per particle, six vertices (two triangles) per instance. The quad faces the eye
// (not just the camera plane) and is grown by d / sqrt(d² − r²) so that it covers the sphere's
// silhouette exactly; the fragment shader then ray-casts the sphere. Hidden particles (boundary
// particles unless asked for — solids are drawn as surfaces, render.solids — free slots, or a
// non-finite state) get a degenerate position outside the clip volume.
@vertex
fn vs_sprite(@builtin(vertex_index) vi: u32, @location(0) pos_mass: vec4<f32>, @location(1) vel_rho: vec4<f32>) -> SpriteOut {
    var out: SpriteOut;
    let boundary = pos_mass.w < 0.0;
    let corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[vi % 6u];
    let c = (frame.view * vec4<f32>(pos_mass.xyz, 1.0)).xyz;
    let r = frame.radius;
    let d = length(c);
    if !shown(pos_mass) || d <= r * 1.01 || d != d {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return out;
    }
    let fwd = c / d;
    var up = vec3<f32>(0.0, 1.0, 0.0);
    if abs(fwd.y) > 0.99 {
        up = vec3<f32>(1.0, 0.0, 0.0);
    }
    let right = normalize(cross(fwd, up));
    let up2 = cross(right, fwd);
    let grow = d / sqrt(d * d - r * r) * 1.02;
    let p = c + (right * corner.x + up2 * corner.y) * (r * grow);
    out.clip = frame.proj * vec4<f32>(p, 1.0);
    out.view_pos = p;
    out.center = c;
    out.color = particle_color(boundary, vel_rho);
    return out;
}

struct FragOut {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

// Ray-sphere intersection in view space (the eye at the origin): the nearest hit gives the
// normal for the shading and the depth written, so spheres intersect correctly with each other
// and with the box lines.
@fragment
fn fs_sprite(in: SpriteOut) -> FragOut {
    var out: FragOut;
    let dir = normalize(in.view_pos);
    let c = in.center;
    let r = frame.radius;
    let b = dot(dir, c);
    let disc = b * b - (dot(c, c) - r * r);
    if disc < 0.0 {
        discard;
    }
    let t = b - sqrt(disc);
    let hit = dir * t;
    let n = (hit - c) / r;
    let clip = frame.proj * vec4<f32>(hit, 1.0);
    out.depth = clip.z / clip.w;

    out.color = vec4<f32>(lit_sphere(in.color, n, dir), 1.0);
    return out;
}
