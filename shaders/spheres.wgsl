// render.spheres.splat: the sphere view's particles ray-cast into the viewport's pixels they
// cover (compute, one invocation per particle, two dispatches). The first keeps the nearest view
// depth per pixel (atomicMax of the inverted bits of a positive float: the largest inverted value
// is the smallest depth; 0 stays "empty"); the second writes, where a particle's depth is that
// nearest one (within two parts in a million: the two dispatches need not round alike), its
// index + 1 (atomicMax: of two at the same depth the larger index, whatever the order). The
// shade pass (spheres_shade.wgsl) lights each pixel's particle. Compute rather than rasterised
// sprites: no fragment depth writes, no overdraw through the raster units.
//
// #import sphere_common
// #import sphere_view

@group(0) @binding(1) var<uniform> px: SphereView;
@group(0) @binding(2) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> depth_bits: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> ids: array<atomic<u32>>;

// A sphere larger than this on the screen is cut to a square of this half-side (only when the
// camera is very close to a particle).
const MAX_SPLAT_PX: f32 = 48.0;

// Relative depth within which a particle counts as the pixel's nearest in the second dispatch.
const SAME_DEPTH: f32 = 2e-6;

fn splat_particle(i: u32, second: bool) {
    let p = pos_mass[i];
    if !shown(p) {
        return;
    }
    let c = (frame.view * vec4<f32>(p.xyz, 1.0)).xyz;
    let r = frame.radius;
    let d = -c.z;
    if d <= r * 1.01 {
        return;
    }
    let clip = frame.proj * vec4<f32>(c, 1.0);
    let ndc = clip.xy / clip.w;
    let size = vec2<f32>(px.size);
    let centre = vec2<f32>((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y);
    // the silhouette of a sphere off the axis is stretched outward by about |c| / d (1 / cos of
    // its angle from the axis): that, a tenth more and a pixel cover it
    let stretch = length(c) / d;
    let reach = min(r * frame.proj[1][1] * size.y * 0.5 / d * stretch * 1.1 + 1.0, MAX_SPLAT_PX);
    let lo = max(vec2<i32>(floor(centre - reach)), vec2<i32>(0));
    let hi = min(vec2<i32>(ceil(centre + reach)), vec2<i32>(px.size) - 1);
    for (var y = lo.y; y <= hi.y; y++) {
        for (var x = lo.x; x <= hi.x; x++) {
            let ray = pixel_ray(vec2<f32>(f32(x), f32(y)), size);
            let len = length(ray);
            let dir = ray / len;
            let b = dot(dir, c);
            // r² less the squared distance of the centre from the ray (not b² − |c|² + r², whose
            // difference of two squares of the distance loses the digits a small sphere needs)
            let off = c - dir * b;
            let disc = r * r - dot(off, off);
            if disc < 0.0 {
                continue;
            }
            // view depth (along −z) of the nearest hit
            let depth = (b - sqrt(disc)) / len;
            let k = u32(y) * px.size.x + u32(x);
            if second {
                let nearest = bitcast<f32>(~atomicLoad(&depth_bits[k]));
                if depth <= nearest * (1.0 + SAME_DEPTH) {
                    atomicMax(&ids[k], i + 1u);
                }
            } else {
                atomicMax(&depth_bits[k], ~bitcast<u32>(depth));
            }
        }
    }
}

@compute @workgroup_size(256)
fn splat_depth(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * 256u;
    if i < px.n_particles {
        splat_particle(i, false);
    }
}

@compute @workgroup_size(256)
fn splat_id(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = gid.x + gid.y * groups.x * 256u;
    if i < px.n_particles {
        splat_particle(i, true);
    }
}
