// emit.write: one invocation per emitter point (every emitter's layer, concatenated). Where
// emit.plan gave the point's emitter a layer this step, the point becomes a fluid particle in the
// next free slot: the free cell's range of the grid build (`cell_start[num_cells]` on), read
// through `sorted` on steps without a reorder, directly after one. A particle keeps the id its
// slot had. Runs after sph.integrate; the next grid build puts the new particles in their cells.
//
// #import emit_common

@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<u32>;
@group(0) @binding(4) var<storage, read> emitters: array<Emitter>;
// xyz: the point on its emitter; w: the emitter's index (bits)
@group(0) @binding(5) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> state: EmitState;
@group(0) @binding(7) var<storage, read_write> pos_mass: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> vel_rho: array<vec4<f32>>;

// true on steps without a reorder: the free cell's range indexes `sorted`.
override USE_SORTED: bool = false;

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let t = linear_id(wid, nwg, lid);
    if t >= arrayLength(&points) {
        return;
    }
    let pt = points[t];
    let e = bitcast<u32>(pt.w);
    if state.count[e] == 0u {
        return;
    }
    let em = emitters[e];
    var slot = cell_start[params.num_cells] + state.offset[e] + (t - em.first_point);
    if USE_SORTED {
        slot = sorted[slot];
    }
    let x = pt.xyz + em.direction * (em.step_length * state.late[e]);
    pos_mass[slot] = vec4<f32>(x, em.mass);
    vel_rho[slot] = vec4<f32>(em.velocity, params.rest_density);
}
