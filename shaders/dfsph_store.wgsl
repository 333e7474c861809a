// dfsph.store: after a DFSPH solve, every fluid particle's applied kappa — the total (the warm
// start and every iteration's) less the last source's, which no update followed (the solve had
// converged, or reached its cap) — goes to `warm`, by particle id (slots move with the reorders,
// ids do not), as kappa dt^2 (DENSITY: the pressure solve) or kappa dt (the divergence solve):
// the next step's solve starts from a share of it (dfsph.source's WARM variant), and the
// particle's exported pressure is made from it (sim::dfsph_pressure).
//
// #import common

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;
@group(0) @binding(6) var<storage, read> kappa: array<f32>;
@group(0) @binding(7) var<storage, read> kappa_total: array<f32>;
@group(0) @binding(8) var<storage, read_write> warm: array<f32>;

override DENSITY: bool = true;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles || pos_mass[i].w <= 0.0 {
        return;
    }
    let dt = params.dt;
    warm[ids[i]] = (kappa_total[i] - kappa[i]) * select(dt, dt * dt, DENSITY);
}
