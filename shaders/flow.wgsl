// sim.flow: the flow rate through each flow section of the scene, sampled with the pressure
// sensors on the state a step starts from (docs/PHYSICS.md, "Flow through a section"). A
// section is a rectangle (or the whole plane) of centre c, unit normal n, sides along e1 and
// e2 = n x e1; the rate through it is the flux density averaged over a slab of thickness
// delta (the support radius h) centred on it:
//   Q = (1 / delta) sum_j V_j (u_j . n),   mdot = (1 / delta) sum_j m_j (u_j . n),
// over the fluid particles j with |(x_j - c) . n| < delta / 2 and within the rectangle
// (V_j = m_j / rho_j). Two parts (PART):
// 0, per particle: its share of each section's sums, summed over the workgroup into
//    flow_partials[workgroup * sections + k] = (sum V u.n, sum m u.n, particles, 0);
// 1, one workgroup per section: the partials in a fixed order (the same sum every run) into
//    sensor_out[out + k] = (Q m^3/s, mdot kg/s, particles in the slab, 0).
//
// flow_sections: three words per section: (c, delta / 2), (n, half side along e1),
// (e1, half side along e2); a section without sides has half sides of 1e30.
//
// #import common

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> flow_sections: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> flow_partials: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> sensor_out: array<vec4<f32>>;
// the first of sensor_out the sections write (after the points and the force sensors)
@group(0) @binding(9) var<storage, read> flow_out: array<u32>;

override PART: u32 = 0u;

var<workgroup> wg_sum: array<vec4<f32>, 256>;

fn share(j: u32, k: u32) -> vec4<f32> {
    if j >= params.n_particles {
        return vec4<f32>(0.0);
    }
    let p = pos_mass[j];
    if p.w <= 0.0 {
        return vec4<f32>(0.0);
    }
    let c = flow_sections[3u * k];
    let n = flow_sections[3u * k + 1u];
    let e1 = flow_sections[3u * k + 2u];
    let d = p.xyz - c.xyz;
    let e2 = cross(n.xyz, e1.xyz);
    if abs(dot(d, n.xyz)) >= c.w || abs(dot(d, e1.xyz)) > n.w || abs(dot(d, e2)) > e1.w {
        return vec4<f32>(0.0);
    }
    let v = vel_rho[j];
    let un = dot(v.xyz, n.xyz);
    return vec4<f32>(p.w / v.w * un, p.w * un, 1.0, 0.0);
}

fn reduce_workgroup(lid: u32) {
    workgroupBarrier();
    for (var half = WG_SIZE / 2u; half > 0u; half /= 2u) {
        if lid < half {
            wg_sum[lid] += wg_sum[lid + half];
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let sections = arrayLength(&flow_sections) / 3u;
    let group = wid.y * nwg.x + wid.x;
    // the workgroups that cover the particles (a 2D dispatch may have more, with none)
    let groups = (params.n_particles + WG_SIZE - 1u) / WG_SIZE;
    if PART == 0u {
        let j = linear_id(wid, nwg, lid);
        for (var k = 0u; k < sections; k++) {
            wg_sum[lid] = share(j, k);
            reduce_workgroup(lid);
            if lid == 0u && group < groups {
                flow_partials[group * sections + k] = wg_sum[0];
            }
            workgroupBarrier();
        }
    } else {
        let k = group;
        var s = vec4<f32>(0.0);
        for (var g = lid; g < groups; g += WG_SIZE) {
            s += flow_partials[g * sections + k];
        }
        wg_sum[lid] = s;
        reduce_workgroup(lid);
        if lid == 0u {
            let delta = 2.0 * flow_sections[3u * k].w;
            let t = wg_sum[0];
            sensor_out[flow_out[0] + k] = vec4<f32>(t.x / delta, t.y / delta, t.z, 0.0);
        }
    }
}
