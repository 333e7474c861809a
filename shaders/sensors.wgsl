// sim.sensors: the scene's pressure sensors, sampled on the state a step starts from, after its
// grid build (docs/PHYSICS.md, "Sensors"). One invocation per sensor walks the shared neighbour
// loop around the sensor's point and interpolates the fluid's pressure there with the Shepard
// correction (the kernel sum over the fluid that is there, not over a full support):
//   p(x) = sum_j V_j p_j W(x - x_j) / sum_j V_j W(x - x_j),   V_j = m_j / rho_j,
// fluid particles only (walls and free slots are skipped). `fill` = sum_j V_j W(x - x_j) says
// how much of the support is fluid: about 1 inside the water, about 1/2 on a flat wall under
// water, 0 in air (then p is 0). Below the sensor's `fill_min` (its point's w) the sum is
// divided by fill_min instead: a point a few particles touch at the edge of its support reads a
// share of their pressure, not all of it. p_j is the pressure the solver applies: Tait's of the density
// (WCSPH, negative clamped) or the DFSPH solves' rho^2 (K_pressure/dt^2 + K_divergence/dt), with
// dt the last step's (params.dt at the start of a step).
//
// #import common
// #import neighbours

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> ids: array<u32>;
// xyz: the sensor's point (m); w: its fill_min
@group(0) @binding(7) var<storage, read> sensor_points: array<vec4<f32>>;
// per sensor: (p in Pa, fill, fluid particles within h, 0)
@group(0) @binding(8) var<storage, read_write> sensor_out: array<vec4<f32>>;
// DFSPH's solve totals by particle id (16-byte placeholders for WCSPH)
@group(0) @binding(9) var<storage, read> warm_pressure: array<f32>;
@group(0) @binding(10) var<storage, read> warm_divergence: array<f32>;

override DFSPH: bool = false;

struct Acc {
    x: vec3<f32>,
    // sum of V_j W_j p_j and of V_j W_j, without the factor kernel_norm
    pw: f32,
    w: f32,
    count: u32,
}

fn particle_pressure(j: u32) -> f32 {
    let rho = vel_rho[j].w;
    if DFSPH {
        let dt = params.dt;
        if dt <= 0.0 {
            return 0.0;
        }
        let id = ids[j];
        return rho * rho * (warm_pressure[id] / (dt * dt) + warm_divergence[id] / dt);
    }
    return tait_pressure(rho, params.inv_rest_density);
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    if pj.w <= 0.0 {
        return;
    }
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if r2 < params.h2 {
        let w = pj.w / vel_rho[j].w * kernel_w_q(sqrt(r2) * params.inv_h);
        (*acc).w += w;
        (*acc).pw += w * particle_pressure(j);
        (*acc).count += 1u;
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid);
    if t >= arrayLength(&sensor_points) {
        return;
    }
    let point = sensor_points[t];
    var acc = Acc(point.xyz, 0.0, 0.0, 0u);
    neighbour_loop(acc.x, &acc);
    let fill = acc.w * params.kernel_norm;
    let p = select(0.0, acc.pw * params.kernel_norm / max(fill, point.w), fill > 0.0);
    sensor_out[t] = vec4<f32>(p, fill, f32(acc.count), 0.0);
}
