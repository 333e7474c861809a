// render.surface.environment and render.surface.shade: full-screen triangles. The first draws
// the environment (sky, and a tiled floor at the bottom of the domain) behind the box and the
// walls; the second puts the water over what the first pass drew: normals from the smoothed
// depth, Fresnel reflection of the environment, refraction of the scene behind with
// Beer–Lambert absorption through the splatted (and blurred) thickness, and the sun's highlight.
//
// #import surface_common

@group(0) @binding(1) var<storage, read> depth_smooth: array<f32>;
@group(0) @binding(2) var<storage, read> thickness_smooth: array<f32>;
@group(0) @binding(3) var background: texture_2d<f32>;
@group(0) @binding(4) var background_depth: texture_depth_2d;
@group(0) @binding(5) var<storage, read> spray_bits: array<u32>;

@vertex
fn vs_fullscreen(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4<f32> {
    let x = f32((vi << 1u) & 2u);
    let y = f32(vi & 2u);
    return vec4<f32>(x * 2.0 - 1.0, 1.0 - y * 2.0, 0.0, 1.0);
}

fn eye() -> vec3<f32> {
    return surf.inv_view[3].xyz;
}

fn to_world(v: vec3<f32>) -> vec3<f32> {
    return (surf.inv_view * vec4<f32>(v, 0.0)).xyz;
}

// The environment pass draws into a texture of the viewport's size: its pixels are the
// viewport's. The studio is a plain backdrop behind the water (its soft light only lights the
// water).
@fragment
fn fs_environment(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    if surf.environment == 1u {
        return vec4<f32>(surf.backdrop.rgb, 1.0);
    }
    let ray = view_ray(floor(pos.xy));
    return vec4<f32>(environment(eye(), normalize(to_world(ray))), 1.0);
}

fn depth_at(p: vec2<i32>) -> f32 {
    if !inside(p) {
        return NO_DEPTH;
    }
    return depth_smooth[pixel_index(p)];
}

// The view-space point of pixel p at depth d.
fn view_point(p: vec2<i32>, d: f32) -> vec3<f32> {
    return view_ray(vec2<f32>(p)) * d;
}

// The difference of view points along one axis: of the two one-sided differences, the smaller
// in depth (so that an edge of the water does not bend the normal of its side).
fn tangent(p: vec2<i32>, axis: vec2<i32>, centre: vec3<f32>) -> vec3<f32> {
    let da = depth_at(p + axis);
    let db = depth_at(p - axis);
    let a = view_point(p + axis, da) - centre;
    let b = centre - view_point(p - axis, db);
    if da > 0.0 && (db <= 0.0 || abs(a.z) < abs(b.z)) {
        return a;
    }
    if db > 0.0 {
        return b;
    }
    // a pixel alone on this axis: a tangent of the plane facing the eye
    return view_ray(vec2<f32>(p + axis)) * -centre.z - centre;
}

// View depth of what the background pass drew at p (the box, a wall), or a huge one.
fn scene_depth_at(p: vec2<i32>) -> f32 {
    let z = textureLoad(background_depth, p, 0);
    if z >= 1.0 {
        return 3.0e38;
    }
    let size = vec2<f32>(surf.size);
    let ndc = vec2<f32>((f32(p.x) + 0.5) / size.x * 2.0 - 1.0, 1.0 - (f32(p.y) + 0.5) / size.y * 2.0);
    let v = surf.inv_proj * vec4<f32>(ndc, z, 1.0);
    return -v.z / v.w;
}

@fragment
fn fs_shade(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let p = clamp(vec2<i32>(floor(pos.xy - surf.origin)), vec2<i32>(0), vec2<i32>(surf.size) - 1);
    let behind = textureLoad(background, p, 0).rgb;
    let scene = scene_depth_at(p);
    var d = depth_at(p);
    // what the background pass drew in front of the water hides it
    if d >= scene {
        d = NO_DEPTH;
    }
    var rgb = behind;
    if d > 0.0 {
        // the water's edge fades in over its first radius of thickness: a silhouette of few
        // particles blends into what is behind instead of ending in a jagged rim of grazing
        // reflections
        let t = thickness_smooth[pixel_index(p)];
        rgb = mix(behind, water(p, d), smoothstep(0.0, surf.radius, t));
    }
    let bits = spray_bits[pixel_index(p)];
    if bits != 0u {
        let s = bitcast<f32>(~bits);
        if s < scene && (d <= 0.0 || s < d + surf.radius) {
            // a white point, a little darker where it faces away from the sun's side
            let shade = 0.75 + 0.25 * max(surf.light_dir.y, 0.0);
            rgb = vec3<f32>(0.92, 0.95, 0.97) * shade;
        }
    }
    return vec4<f32>(rgb, 1.0);
}

// The water's colour at pixel p of view depth d.
fn water(p: vec2<i32>, d: f32) -> vec3<f32> {
    let centre = view_point(p, d);
    var n = cross(tangent(p, vec2<i32>(1, 0), centre), tangent(p, vec2<i32>(0, 1), centre));
    let view_dir = normalize(centre);
    if dot(n, n) < 1e-24 {
        n = -view_dir;
    }
    n = normalize(n);
    if dot(n, view_dir) > 0.0 {
        n = -n;
    }
    let nw = normalize(to_world(n));
    let vw = normalize(to_world(view_dir));
    let world = eye() + vw * length(centre);

    let cos_i = clamp(dot(-vw, nw), 0.0, 1.0);
    let fresnel = 0.02 + 0.98 * pow(1.0 - cos_i, 5.0);
    let reflected = environment(world + nw * surf.radius, reflect(vw, nw));

    let t = thickness_smooth[pixel_index(p)];
    // the background, displaced along the normal by the water's thickness, then absorbed
    let shift = n.xy * vec2<f32>(1.0, -1.0) * min(t * surf.refraction, 4.0 * surf.radius) * pixels_per_metre(d);
    let q = clamp(vec2<i32>(vec2<f32>(p) + shift), vec2<i32>(0), vec2<i32>(surf.size) - 1);
    let transmit = exp(-surf.absorption.rgb * t);
    // light scattered back by the water itself: the share scattered grows with the thickness
    // alike for every colour, and what comes back has crossed about half of it, tinted by what
    // the water lets through. (Scaled by 1 − transmit, the share absorbed, thin water sent back
    // mostly red: brown and salmon rims around small drops.)
    let grey = dot(surf.absorption.rgb, vec3<f32>(1.0 / 3.0));
    let scattered = (1.0 - exp(-grey * t)) * sqrt(transmit) * sky(vec3<f32>(0.0, 1.0, 0.0)) * 0.35;
    let refracted = textureLoad(background, q, 0).rgb * transmit + scattered;

    let sun = surf.light_dir.xyz;
    let h = normalize(sun - vw);
    let specular = pow(max(dot(nw, h), 0.0), 300.0) * 3.0 * select(1.0, 0.4, surf.environment == 1u);
    return mix(refracted, reflected, fresnel) + vec3<f32>(specular);
}
