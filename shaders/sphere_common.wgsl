// Shared by the two ways of drawing particles as spheres (sprites.wgsl, rasterised, which the
// surface view uses for the walls; spheres.wgsl, the sphere view by compute): which particles
// show, their colour and the lighting of a sphere's point.
//
// #import constants
// #import render_common

const BOUNDARY_COLOR: vec3<f32> = vec3<f32>(0.23, 0.23, 0.25);

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

// The colour of a sphere's point of normal n (view space) seen along dir (view space, unit):
// light from above and to the side, a highlight.
fn lit_sphere(color: vec3<f32>, n: vec3<f32>, dir: vec3<f32>) -> vec3<f32> {
    let light = normalize(vec3<f32>(-0.4, 0.8, 0.45));
    let diffuse = max(dot(n, light), 0.0);
    let half_vec = normalize(light - dir);
    let specular = pow(max(dot(n, half_vec), 0.0), 48.0) * 0.35;
    return color * (0.35 + 0.75 * diffuse) + vec3<f32>(specular);
}

// Whether a particle of state pos_mass shows: a free slot (w = 0) holds no particle, a
// non-finite state draws nothing, the fluid shows unless hidden (the surface view draws the walls
// alone), the walls when asked for, except the tank's walls between the eye and the water.
fn shown(pos_mass: vec4<f32>) -> bool {
    let p = pos_mass.xyz;
    if pos_mass.w == 0.0 || !(abs(p.x) < 1e30 && abs(p.y) < 1e30 && abs(p.z) < 1e30) {
        return false;
    }
    if pos_mass.w < 0.0 {
        return frame.show_boundary != 0u && !faces_the_eye(p);
    }
    return frame.show_fluid != 0u;
}

// A particle's colour: grey for the walls, else the colormap of the chosen scalar.
fn particle_color(boundary: bool, vel_rho: vec4<f32>) -> vec3<f32> {
    if boundary {
        return BOUNDARY_COLOR;
    }
    let t = (scalar(vel_rho) - frame.range_lo) / max(frame.range_hi - frame.range_lo, 1e-20);
    return colormap(t);
}

// The view-space ray through the centre of pixel p of a viewport of `size` pixels (row 0 at the
// top), scaled so that its z is −1: the point at view depth d (distance along −z) is ray * d.
fn pixel_ray(p: vec2<f32>, size: vec2<f32>) -> vec3<f32> {
    let ndc = vec2<f32>((p.x + 0.5) / size.x * 2.0 - 1.0, 1.0 - (p.y + 0.5) / size.y * 2.0);
    return vec3<f32>(ndc.x / frame.proj[0][0], ndc.y / frame.proj[1][1], -1.0);
}
