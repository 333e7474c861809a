// Test instrument, not part of the step: runs the same neighbour loop as sph.density and
// sph.force and records, per particle, how many candidates lie within h and checksums of their
// ids, so tests can compare the grid's neighbour sets with the all-pairs oracle.
//
// #import common
// #import neighbours

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;
// per particle id: count, sum of ids, sum of id^2 (wrapping), xor of hashed ids
@group(0) @binding(6) var<storage, read_write> probe: array<vec4<u32>>;

struct Acc {
    x: vec3<f32>,
    count: u32,
    sum: u32,
    sum2: u32,
    hash: u32,
}

fn mix(v: u32) -> u32 {
    var x = v * 0x9E3779B1u;
    x ^= x >> 15u;
    x *= 0x85EBCA77u;
    x ^= x >> 13u;
    return x;
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let d = (*acc).x - pos_mass[j].xyz;
    if dot(d, d) < params.h * params.h {
        let id = ids[j];
        (*acc).count += 1u;
        (*acc).sum += id;
        (*acc).sum2 += id * id;
        (*acc).hash ^= mix(id);
    }
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid);
    if t >= params.n_particles {
        return;
    }
    let i = slot_of(t);
    var acc = Acc(pos_mass[i].xyz, 0u, 0u, 0u, 0u);
    neighbour_loop(acc.x, &acc);
    probe[ids[i]] = vec4<u32>(acc.count, acc.sum, acc.sum2, acc.hash);
}
