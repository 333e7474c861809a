// render.sprites: every particle drawn as a sphere impostor, straight from the simulation's
// particle buffers (bound as per-instance vertex buffers: no copy through the CPU).
//
// #import constants
// #import render_common

const BOUNDARY_COLOR: vec3<f32> = vec3<f32>(0.23, 0.23, 0.25);

struct SpriteOut {
    @builtin(position) clip: vec4<f32>,
    // the quad corner's view-space position (on the plane through the sphere's centre that
    // faces the eye)
    @location(0) view_pos: vec3<f32>,
    @location(1) @interpolate(flat) center: vec3<f32>,
    @location(2) @interpolate(flat) color: vec3<f32>,
}

fn colormap(t: f32) -> vec3<f32> {
    let n = max(frame.colormap_len, 2u);
    let x = clamp(t, 0.0, 1.0) * f32(n - 1u);
    let i = min(u32(floor(x)), n - 2u);
    return mix(frame.colormap[i].rgb, frame.colormap[i + 1u].rgb, x - f32(i));
}

fn scalar(vel_rho: vec4<f32>) -> f32 {
    switch frame.color_mode {
        case 1u: {
            return vel_rho.w;
        }
        case 2u: {
            return frame.stiffness * (pow(max(vel_rho.w, 0.0) / frame.rest_density, TAIT_GAMMA) - 1.0);
        }
        default: {
            return length(vel_rho.xyz);
        }
    }
}

// The eye in world space: the view matrix is a rotation R and a translation t, eye = -Rᵀ t.
fn eye_position() -> vec3<f32> {
    let r = mat3x3<f32>(frame.view[0].xyz, frame.view[1].xyz, frame.view[2].xyz);
    return -(transpose(r) * frame.view[3].xyz);
}

// Whether a wall particle of the tank (outside the domain, behind one of its faces) belongs to a
// wall the eye looks through to see the water: the eye is beyond that face too. Those walls are
// left out ("B" shows the walls behind and below the water, as a cutaway), so the tank never
// hides its contents; a solid's shell lies inside the domain and is always drawn.
fn faces_the_eye(p: vec3<f32>) -> bool {
    let eye = eye_position();
    let below = p < frame.domain_min;
    let above = p > frame.domain_max;
    let near_below = below & (eye < frame.domain_min);
    let near_above = above & (eye > frame.domain_max);
    return any(near_below) || any(near_above);
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
    // a free slot (w = 0) holds no particle; the tank's walls between the eye and the water are
    // cut away
    if (boundary && (frame.show_boundary == 0u || faces_the_eye(pos_mass.xyz))) || (!boundary && frame.show_fluid == 0u) || pos_mass.w == 0.0 || d <= r * 1.01 || d != d {
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
    if boundary {
        out.color = BOUNDARY_COLOR;
    } else {
        let t = (scalar(vel_rho) - frame.range_lo) / max(frame.range_hi - frame.range_lo, 1e-20);
        out.color = colormap(t);
    }
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

    let light = normalize(vec3<f32>(-0.4, 0.8, 0.45));
    let diffuse = max(dot(n, light), 0.0);
    let half_vec = normalize(light - dir);
    let specular = pow(max(dot(n, half_vec), 0.0), 48.0) * 0.35;
    let rgb = in.color * (0.35 + 0.75 * diffuse) + vec3<f32>(specular);
    out.color = vec4<f32>(rgb, 1.0);
    return out;
}
