// render.surface.filter: the splatted depth smoothed by a bilateral filter, run as two 1D passes
// of this one entry point (along x, then along y; FIRST picks the axis and how the input is
// stored). Each pixel's radius is the filter's world radius seen at its depth (so near water and
// far water are smoothed alike), capped in pixels. Weights: a Gaussian in the pixel distance
// times a Gaussian in the depth difference, so that depths of another layer (a drop in front of
// the bulk, the far side of a splash) do not mix and silhouettes stay sharp. Empty pixels neither
// take nor give depth.
//
// The thickness is smoothed by the same two passes with a plain Gaussian of a fixed radius
// (`surf.thickness_blur_px`, about a particle and a half at the camera's target): the sum of
// chords through a regular lattice of spheres would otherwise show the lattice as a moiré.
//
// The first pass reads the splat's buffers (inverted depth bits, thickness in fixed point); both
// write f32 bits (depth 0 where empty, thickness in metres), which the second pass and the shade
// pass read.
//
// #import surface_common

@group(0) @binding(1) var<storage, read> depth_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> depth_out: array<u32>;
@group(0) @binding(3) var<storage, read> thickness_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> thickness_out: array<u32>;

// true: the pass along x, reading the splat's buffers; false: the pass along y.
override FIRST: bool = true;

fn depth_at(p: vec2<i32>) -> f32 {
    let bits = depth_in[pixel_index(p)];
    if FIRST {
        if bits == 0u {
            return NO_DEPTH;
        }
        return bitcast<f32>(~bits);
    }
    return bitcast<f32>(bits);
}

fn thickness_at(p: vec2<i32>) -> f32 {
    let v = thickness_in[pixel_index(p)];
    if FIRST {
        return f32(v) * surf.thickness_unit;
    }
    return bitcast<f32>(v);
}

fn radius_px(d: f32) -> i32 {
    return i32(min(surf.filter_world * pixels_per_metre(d), surf.filter_max_px));
}

@compute @workgroup_size(16, 16)
fn filter_pass(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = vec2<i32>(gid.xy);
    if !inside(p) {
        return;
    }
    let axis = select(vec2<i32>(0, 1), vec2<i32>(1, 0), FIRST);

    let z0 = depth_at(p);
    var out = NO_DEPTH;
    if z0 > 0.0 {
        let r = radius_px(z0);
        let sigma = max(f32(r) * 0.5, 0.5);
        var sum = 0.0;
        var wsum = 0.0;
        for (var k = -r; k <= r; k++) {
            let q = p + axis * k;
            if !inside(q) {
                continue;
            }
            let z = depth_at(q);
            if z > 0.0 {
                let s = f32(k) / sigma;
                let dz = (z - z0) / surf.depth_sigma;
                let w = exp(-0.5 * (s * s + dz * dz));
                sum += w * z;
                wsum += w;
            }
        }
        out = sum / wsum;
    }
    depth_out[pixel_index(p)] = bitcast<u32>(out);

    let tr = i32(surf.thickness_blur_px);
    let tsigma = max(surf.thickness_blur_px * 0.5, 0.5);
    var t = 0.0;
    var tw = 0.0;
    for (var k = -tr; k <= tr; k++) {
        let q = p + axis * k;
        if inside(q) {
            let s = f32(k) / tsigma;
            let w = exp(-0.5 * s * s);
            t += w * thickness_at(q);
            tw += w;
        }
    }
    thickness_out[pixel_index(p)] = bitcast<u32>(t / tw);
}
