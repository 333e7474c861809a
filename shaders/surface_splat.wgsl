// render.surface.splat: every fluid particle as a sphere of radius `surf.radius`, ray-cast into
// the viewport's pixels it covers (compute, one invocation per particle): the nearest view depth
// per pixel (atomicMax of the inverted bits of a positive float: the largest inverted value is
// the smallest depth; 0 stays "empty") and the thickness of water along the pixel's ray (the
// chords through every sphere, added up in fixed point). A particle of low density (few
// neighbours: spray, the tip of a jet) goes instead into a depth buffer of its own as a point of
// half the radius, which the shade pass draws white.
//
// #import surface_common

@group(0) @binding(1) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> depth_bits: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> thickness: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> spray_bits: array<atomic<u32>>;

// A sphere larger than this on the screen is cut to a square of this half-side (only when the
// camera is very close to a particle).
const MAX_SPLAT_PX: f32 = 48.0;

@compute @workgroup_size(256)
fn splat(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * 256u;
    if i >= surf.n_particles {
        return;
    }
    let p = pos_mass[i];
    // boundary particles (w < 0) and a non-finite state are not water
    if !(p.w > 0.0) || !(abs(p.x) < 1e30 && abs(p.y) < 1e30 && abs(p.z) < 1e30) {
        return;
    }
    let c = (surf.view * vec4<f32>(p.xyz, 1.0)).xyz;
    let spray = vel_rho[i].w < surf.spray_density;
    let r = select(surf.radius, surf.radius * 0.5, spray);
    let d = -c.z;
    if d <= r * 1.01 {
        return;
    }
    let clip = surf.proj * vec4<f32>(c, 1.0);
    let ndc = clip.xy / clip.w;
    let size = vec2<f32>(surf.size);
    let centre = vec2<f32>((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y);
    // the silhouette of a sphere off the axis is stretched outward by about |c| / d (1 / cos of
    // its angle from the axis): that, a tenth more and a pixel cover it
    let stretch = length(c) / d;
    let reach = min(r * pixels_per_metre(d) * stretch * 1.1 + 1.0, MAX_SPLAT_PX);
    let lo = max(vec2<i32>(floor(centre - reach)), vec2<i32>(0));
    let hi = min(vec2<i32>(ceil(centre + reach)), vec2<i32>(surf.size) - 1);
    let cc = dot(c, c) - r * r;
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let ray = view_ray(vec2<f32>(f32(x), f32(y)));
            let len = length(ray);
            let dir = ray / len;
            let b = dot(dir, c);
            let disc = b * b - cc;
            if disc < 0.0 {
                continue;
            }
            let half_chord = sqrt(disc);
            // view depth (along −z) of the nearest hit
            let depth = (b - half_chord) / len;
            let k = pixel_index(vec2<i32>(x, y));
            if spray {
                atomicMax(&spray_bits[k], ~bitcast<u32>(depth));
            } else {
                atomicMax(&depth_bits[k], ~bitcast<u32>(depth));
                atomicAdd(&thickness[k], u32(2.0 * half_chord / surf.thickness_unit + 0.5));
            }
        }
    }
}
