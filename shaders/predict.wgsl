// dfsph.predict: the velocity the pressure solve starts from, v* = v + dt a, with a the
// non-pressure acceleration (viscosity and gravity) of sph.force; positions move later, in
// sph.integrate, with the velocity the solve leaves.
//
// #import common

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> acc_in: array<vec4<f32>>;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles || pos_mass[i].w <= 0.0 {
        return;
    }
    let vr = vel_rho[i];
    vel_rho[i] = vec4<f32>(vr.xyz + params.dt * acc_in[i].xyz, vr.w);
}
