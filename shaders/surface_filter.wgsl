// render.surface.filter: the splatted depth smoothed by a bilateral filter, run as two 1D passes
// (along x, then along y). Each pixel's radius is the filter's world radius seen at its depth
// (so near water and far water are smoothed alike), capped in pixels. Weights: a Gaussian in
// the pixel distance times a Gaussian in the depth difference, so that depths of another layer
// (a drop in front of the bulk, the far side of a splash) do not mix and silhouettes stay sharp.
// Empty pixels neither take nor give depth.
//
// The thickness is smoothed by the same two passes with a plain Gaussian of a fixed radius
// (`surf.thickness_blur_px`, about a particle and a half at the camera's target): the sum of
// chords through a regular lattice of spheres would otherwise show the lattice as a moiré.
//
// #import surface_common

@group(0) @binding(1) var<storage, read> depth_bits: array<u32>;
@group(0) @binding(2) var<storage, read_write> depth_across: array<f32>;
@group(0) @binding(3) var<storage, read> depth_across_in: array<f32>;
@group(0) @binding(4) var<storage, read_write> depth_smooth: array<f32>;
@group(0) @binding(5) var<storage, read> thickness: array<u32>;
@group(0) @binding(6) var<storage, read_write> thickness_across: array<f32>;
@group(0) @binding(7) var<storage, read> thickness_across_in: array<f32>;
@group(0) @binding(8) var<storage, read_write> thickness_smooth: array<f32>;

fn splatted(p: vec2<i32>) -> f32 {
    let bits = depth_bits[pixel_index(p)];
    if bits == 0u {
        return NO_DEPTH;
    }
    return bitcast<f32>(~bits);
}

fn radius_px(d: f32) -> i32 {
    return i32(min(surf.filter_world * pixels_per_metre(d), surf.filter_max_px));
}

fn blur_weight(k: i32) -> f32 {
    let s = f32(k) / max(surf.thickness_blur_px * 0.5, 0.5);
    return exp(-0.5 * s * s);
}

fn weight(k: i32, sigma_px: f32, dz: f32) -> f32 {
    let s = f32(k) / sigma_px;
    let z = dz / surf.depth_sigma;
    return exp(-0.5 * (s * s + z * z));
}

@compute @workgroup_size(16, 16)
fn filter_x(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = vec2<i32>(gid.xy);
    if !inside(p) {
        return;
    }
    let z0 = splatted(p);
    var out = NO_DEPTH;
    if z0 > 0.0 {
        let r = radius_px(z0);
        let sigma = max(f32(r) * 0.5, 0.5);
        var sum = 0.0;
        var wsum = 0.0;
        for (var k = -r; k <= r; k++) {
            let q = p + vec2<i32>(k, 0);
            if !inside(q) {
                continue;
            }
            let z = splatted(q);
            if z > 0.0 {
                let w = weight(k, sigma, z - z0);
                sum += w * z;
                wsum += w;
            }
        }
        out = sum / wsum;
    }
    depth_across[pixel_index(p)] = out;

    let tr = i32(surf.thickness_blur_px);
    var t = 0.0;
    var tw = 0.0;
    for (var k = -tr; k <= tr; k++) {
        let q = p + vec2<i32>(k, 0);
        if inside(q) {
            let w = blur_weight(k);
            t += w * f32(thickness[pixel_index(q)]);
            tw += w;
        }
    }
    thickness_across[pixel_index(p)] = t / tw * surf.thickness_unit;
}

@compute @workgroup_size(16, 16)
fn filter_y(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = vec2<i32>(gid.xy);
    if !inside(p) {
        return;
    }
    let z0 = depth_across_in[pixel_index(p)];
    var out = NO_DEPTH;
    if z0 > 0.0 {
        let r = radius_px(z0);
        let sigma = max(f32(r) * 0.5, 0.5);
        var sum = 0.0;
        var wsum = 0.0;
        for (var k = -r; k <= r; k++) {
            let q = p + vec2<i32>(0, k);
            if !inside(q) {
                continue;
            }
            let z = depth_across_in[pixel_index(q)];
            if z > 0.0 {
                let w = weight(k, sigma, z - z0);
                sum += w * z;
                wsum += w;
            }
        }
        out = sum / wsum;
    }
    depth_smooth[pixel_index(p)] = out;

    let tr = i32(surf.thickness_blur_px);
    var t = 0.0;
    var tw = 0.0;
    for (var k = -tr; k <= tr; k++) {
        let q = p + vec2<i32>(0, k);
        if inside(q) {
            let w = blur_weight(k);
            t += w * thickness_across_in[pixel_index(q)];
            tw += w;
        }
    }
    thickness_smooth[pixel_index(p)] = t / tw;
}
