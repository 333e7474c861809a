// Shared by the surface view's shaders (surface_splat, surface_filter, surface_shade): the
// per-frame uniform block, the view ray of a pixel and the environment the water reflects.
// The view's buffers hold one value per pixel of the viewport, row by row from the top.
//
// #import surface_uniforms

@group(0) @binding(0) var<uniform> surf: SurfaceUniforms;

// Empty pixels of the depth buffers.
const NO_DEPTH: f32 = 0.0;

fn pixel_index(p: vec2<i32>) -> u32 {
    return u32(p.y) * surf.size.x + u32(p.x);
}

fn inside(p: vec2<i32>) -> bool {
    return p.x >= 0 && p.y >= 0 && p.x < i32(surf.size.x) && p.y < i32(surf.size.y);
}

// The view-space ray through the centre of pixel `p`, scaled so that its z is −1: the point at
// view depth d (distance along −z) is ray * d.
fn view_ray(p: vec2<f32>) -> vec3<f32> {
    let size = vec2<f32>(surf.size);
    let ndc = vec2<f32>((p.x + 0.5) / size.x * 2.0 - 1.0, 1.0 - (p.y + 0.5) / size.y * 2.0);
    return vec3<f32>(ndc.x / surf.proj[0][0], ndc.y / surf.proj[1][1], -1.0);
}

// Pixels per metre at view depth d.
fn pixels_per_metre(d: f32) -> f32 {
    return surf.proj[1][1] * f32(surf.size.y) * 0.5 / max(d, 1e-6);
}

fn sky(dir: vec3<f32>) -> vec3<f32> {
    let sun = surf.light_dir.xyz;
    if surf.environment == 1u {
        // studio: a soft light from above over the backdrop the water stands against (a rim
        // seen at a grazing angle reflects the backdrop, not a black below that outlined it)
        let up = clamp(dir.y * 0.5 + 0.5, 0.0, 1.0);
        return mix(surf.backdrop.rgb, vec3<f32>(0.55, 0.58, 0.62), up * up);
    }
    let horizon = vec3<f32>(0.62, 0.72, 0.85);
    let zenith = vec3<f32>(0.12, 0.3, 0.68);
    let up = clamp(dir.y, 0.0, 1.0);
    var c = mix(horizon, zenith, sqrt(up));
    let s = max(dot(dir, sun), 0.0);
    c += vec3<f32>(1.0, 0.9, 0.7) * (pow(s, 800.0) * 8.0 + pow(s, 12.0) * 0.15);
    return c;
}

// What a ray from `origin` in direction `dir` (world space) sees: the sky, or a tiled floor at
// the bottom of the domain (sky environment only).
fn environment(origin: vec3<f32>, dir: vec3<f32>) -> vec3<f32> {
    if surf.environment == 0u && dir.y < -1e-4 {
        let t = (surf.floor_y - origin.y) / dir.y;
        if t > 0.0 {
            let hit = origin + dir * t;
            let cell = floor(hit.xz / surf.tile);
            let odd = (i32(cell.x) + i32(cell.y)) & 1;
            let tile = select(vec3<f32>(0.62, 0.6, 0.55), vec3<f32>(0.38, 0.37, 0.35), odd == 1);
            let lit = tile * (0.35 + 0.65 * max(surf.light_dir.y, 0.0));
            // the floor fades into the horizon far away
            let fade = exp(-t / (surf.tile * 60.0));
            return mix(sky(vec3<f32>(dir.x, 0.0, dir.z)), lit, fade);
        }
    }
    return sky(dir);
}
