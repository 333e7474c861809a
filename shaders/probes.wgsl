// probe.* — the quantities of a probe row (src/probes.rs, docs/VALIDATION.md "Definitions")
// measured on the GPU, so a row costs a few small reads instead of a copy of every particle and
// the CPU's neighbour counts (src/sim/probes.rs records them; src/probes.rs `measure` is the CPU
// twin, which the tests compare them with). They run beside the step, after a grid build of the
// current positions (read through `sorted`), and change no state of the simulation.
// Three variants of one entry point (PART):
// - 0 bins (one invocation per slot, fluid only): the top of each h × h (x, z) column (for the
//   depth below the free surface), the largest x in each bin of h along x (the surge front), the
//   particles in each slab and point gauge, the top of the fluid within h of each free-surface
//   gauge's vertical line. Maxima as atomicMax of order-preserving bits (`ordered`; 0 = empty).
// - 1 reduce (one invocation per slot, in cell order): each fluid particle's neighbours within
//   0.999 h (fluid and wall, itself not counted), its depth, densities, energies, momentum, speed
//   and distance to the walls, reduced in workgroup memory to one row of 16 floats per workgroup
//   (`partials`); the CPU adds the rows up in f64.
// - 2 surface (one invocation per free-surface gauge and sample): the fluid's kernel sum
//   c(y) = Σ_j (m_j/ρ0) W(|(x, y, z) − x_j|) at y = top + h − k·step on the gauge's line; the CPU
//   finds the crossing of ½ as `probes::surface_elevation` does.
//
// #import common
// #import neighbours
// #import probe_config

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> probe_config: ProbeConfig;
// slab gauges (x from, x to, -, -), point gauges (x from, x to, z from, z to), free-surface
// gauges (x, z, -, -), in that order; bounds rounded up to f32 so that `x >= a` here is the
// CPU's test on the f64 bound
@group(0) @binding(7) var<storage, read> probe_gauges: array<vec4<f32>>;
// [column tops (cols_x · cols_z) | front bins | gauge counts (slab, point) | surface tops]
@group(0) @binding(8) var<storage, read_write> probe_bins: array<atomic<u32>>;
// 16 floats per workgroup of the reduce part (see `Row`)
@group(0) @binding(9) var<storage, read_write> probe_partials: array<vec4<f32>>;
// per surface gauge, `samples` values of c(y)
@group(0) @binding(10) var<storage, read_write> probe_samples: array<f32>;


override PART: u32 = 0u;

// f32 bits that order as the floats do, all above 0 (the empty value)
fn ordered(f: f32) -> u32 {
    let b = bitcast<u32>(f);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

fn column_of(x: vec3<f32>) -> u32 {
    let lo = params.domain_min;
    let i = min(u32(max(floor((x.x - lo.x) * params.inv_h), 0.0)), probe_config.cols_x - 1u);
    let k = min(u32(max(floor((x.z - lo.z) * params.inv_h), 0.0)), probe_config.cols_z - 1u);
    return k * probe_config.cols_x + i;
}

fn front_at() -> u32 {
    return probe_config.cols_x * probe_config.cols_z;
}
fn counts_at() -> u32 {
    return front_at() + probe_config.front_bins;
}
fn surface_at() -> u32 {
    return counts_at() + probe_config.n_slab + probe_config.n_point;
}

fn bins(i: u32) {
    let x = pos_mass[i].xyz;
    atomicMax(&probe_bins[column_of(x)], ordered(x.y));
    let nb = probe_config.front_bins;
    let b = min(u32(max(floor((x.x - params.domain_min.x) / params.h), 0.0)), nb - 1u);
    atomicMax(&probe_bins[front_at() + b], ordered(x.x));
    for (var g = 0u; g < probe_config.n_slab; g++) {
        let s = probe_gauges[g];
        if x.x >= s.x && x.x < s.y {
            atomicAdd(&probe_bins[counts_at() + g], 1u);
        }
    }
    for (var g = 0u; g < probe_config.n_point; g++) {
        let s = probe_gauges[probe_config.n_slab + g];
        if x.x >= s.x && x.x < s.y && x.z >= s.z && x.z < s.w {
            atomicAdd(&probe_bins[counts_at() + probe_config.n_slab + g], 1u);
        }
    }
    let first = probe_config.n_slab + probe_config.n_point;
    for (var g = 0u; g < probe_config.n_surface; g++) {
        let s = probe_gauges[first + g];
        if abs(x.x - s.x) < params.h && abs(x.z - s.y) < params.h {
            atomicMax(&probe_bins[surface_at() + g], ordered(x.y));
        }
    }
}

// The neighbour walk: the count of the reduce part, the kernel sum of the surface part.
struct Acc {
    x: vec3<f32>,
    count: u32,
    c: f32,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if PART == 1u {
        if pj.w != 0.0 && r2 > 0.0 && r2 < probe_config.reach2 {
            (*acc).count += 1u;
        }
    } else if pj.w > 0.0 && r2 < params.h2 {
        (*acc).c += pj.w * kernel_w_q(sqrt(r2) * params.inv_h);
    }
}

// e(ρ)/(B/ρ0) = x⁶/6 + 1/x − 7/6 for x = ρ/ρ0 > 1 (src/probes.rs), written in u = x − 1 as a sum
// of positive terms: in f32 the plain form loses everything to cancellation near x = 1
fn elastic_per_mass(rho: f32) -> f32 {
    if rho <= params.rest_density {
        return 0.0;
    }
    // ρ − ρ0 is exact in f32 (the two are close); u from x = ρ/ρ0 would keep only its rounding
    let u = (rho - params.rest_density) * params.inv_rest_density;
    let x = 1.0 + u;
    let u2 = u * u;
    let poly = u2 * (2.5 + u * (10.0 / 3.0 + u * (2.5 + u * (1.0 + u / 6.0))));
    return params.stiffness * params.inv_rest_density * (u2 / x + poly);
}

// One fluid particle's share of the row: [count, Σ|ε|, spray, outside], [kinetic, potential,
// elastic, p_x], [p_y, p_z, max |ε|, max compression], [max |ε| interior, max |ε| bulk,
// max speed, −min wall distance]; sums 0 and maxima their neutral value for anything else.
struct Row {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
    d: vec4<f32>,
}

const FAR: f32 = -3.0e38;

fn empty_row() -> Row {
    return Row(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0, 0.0, 0.0, FAR));
}

fn row_of(i: u32) -> Row {
    let pm = pos_mass[i];
    let x = pm.xyz;
    let m = pm.w;
    let vr = vel_rho[i];
    let v = vr.xyz;
    let rho = vr.w;
    var acc = Acc(x, 0u, 0.0);
    neighbour_loop(x, &acc);
    let n = f32(acc.count);
    // ρ − ρ0 exact in f32 where the two are close (ρ/ρ0 − 1 would add the rounding of 1/ρ0)
    let excess = (rho - params.rest_density) * params.inv_rest_density;
    let err = abs(excess);
    let top = unordered(atomicLoad(&probe_bins[column_of(x)]));
    let interior = top + 0.5 * probe_config.spacing - x.y >= params.h;
    let lo = params.domain_min;
    let hi = params.domain_max;
    let v2 = dot(v, v);
    let wall = min(min(x - lo, hi - x), vec3<f32>(3.0e38));
    let out = any(x < lo - vec3<f32>(1e-6)) || any(x > hi + vec3<f32>(1e-6));
    var r: Row;
    r.a = vec4<f32>(1.0, err, select(0.0, 1.0, n < probe_config.spray_below), select(0.0, 1.0, out));
    r.b = vec4<f32>(0.5 * m * v2, -m * dot(params.gravity, x - lo), m * elastic_per_mass(rho), m * v.x);
    r.c = vec4<f32>(m * v.y, m * v.z, err, max(excess, 0.0));
    r.d = vec4<f32>(select(0.0, err, interior), select(0.0, err, n >= probe_config.bulk_min), sqrt(v2),
                    -min(min(wall.x, wall.y), wall.z));
    return r;
}

var<workgroup> wg_row: array<vec4<f32>, 256>;

// One vec4 of the rows reduced over the workgroup: sums where `maxima` is false, maxima where it
// is true; the result in wg_row[0].
fn reduce4(lid: u32, value: vec4<f32>, maxima: vec4<bool>) -> vec4<f32> {
    workgroupBarrier();
    wg_row[lid] = value;
    for (var stride = WG_SIZE / 2u; stride > 0u; stride /= 2u) {
        workgroupBarrier();
        if lid < stride {
            let a = wg_row[lid];
            let b = wg_row[lid + stride];
            wg_row[lid] = select(a + b, max(a, b), maxima);
        }
    }
    workgroupBarrier();
    return wg_row[0];
}

// c(y) on free-surface gauge g's line at sample k (0 where the line has no fluid within h)
fn sample(t: u32) {
    let per = probe_config.samples;
    let g = t / per;
    let k = t % per;
    let top_bits = atomicLoad(&probe_bins[surface_at() + g]);
    if top_bits == 0u {
        probe_samples[t] = 0.0;
        return;
    }
    let s = probe_gauges[probe_config.n_slab + probe_config.n_point + g];
    let y = unordered(top_bits) + params.h - f32(k) * probe_config.sample_step;
    var acc = Acc(vec3<f32>(s.x, y, s.y), 0u, 0.0);
    neighbour_loop(acc.x, &acc);
    probe_samples[t] = acc.c * params.inv_rest_density * params.kernel_norm;
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid);
    if PART == 0u {
        if t < params.n_particles && pos_mass[t].w > 0.0 {
            bins(t);
        }
        return;
    }
    if PART == 2u {
        if t < probe_config.n_surface * probe_config.samples {
            sample(t);
        }
        return;
    }
    var r = empty_row();
    if t < params.n_particles {
        let i = slot_of(t);
        if pos_mass[i].w > 0.0 {
            r = row_of(i);
        }
    }
    let a = reduce4(lid, r.a, vec4<bool>(false));
    let b = reduce4(lid, r.b, vec4<bool>(false));
    let c = reduce4(lid, r.c, vec4<bool>(false, false, true, true));
    let d = reduce4(lid, r.d, vec4<bool>(true));
    if lid == 0u {
        let w = (wid.y * nwg.x + wid.x) * 4u;
        probe_partials[w] = a;
        probe_partials[w + 1u] = b;
        probe_partials[w + 2u] = c;
        probe_partials[w + 3u] = d;
    }
}
