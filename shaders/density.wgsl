// sph.density: rho_i = sum_j |w_j| W(|x_i - x_j|) over the neighbour loop (docs/PHYSICS.md).
// Reads one vec4 (position, mass) per candidate; most of the cost is rejected candidates.
// Boundary particles (w < 0) keep rho0 and are skipped, as are free slots (w = 0). A wall
// particle within h of a fluid particle is marked in `wet` (cleared before the pass), so that
// sph.wall_pressure runs its loop for those only.
//
// With LISTS (WCSPH, where the lists fit one binding) the pass also writes each fluid particle's
// neighbour list for sph.force: the slots within h (the particle itself and particles at r = 0
// left out, as sph.force leaves them out), in the loop's order, at most LIST_MAX of them, and
// their count (all of them: a count above LIST_MAX tells sph.force to walk the grid instead).
// The lists are interleaved by fours: entry k of slot i is word k % 4 of
// nb_list[(k / 4) * n_particles + i], so that sph.force, whose invocations read their k-th
// entries together, loads 16 bytes per invocation from one contiguous range; a particle's four
// entries are written together as one vector.
//
// #import common
// #import neighbours

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
// every invocation that writes a word writes 1: the order of the writes does not matter
@group(0) @binding(6) var<storage, read_write> wet: array<u32>;
@group(0) @binding(7) var<storage, read_write> nb_list: array<vec4<u32>>;
@group(0) @binding(8) var<storage, read_write> nb_count: array<u32>;

// Set from Rust (src/sim/density.rs): whether the lists are written. Their length, LIST_MAX
// (a multiple of 4), is a constant of src/physics.rs.
override LISTS: bool = false;

struct Acc {
    x: vec3<f32>,
    // sum of |w_j| * kernel_w_q(q): the density without the factor kernel_norm
    rho: f32,
    h2: f32,
    inv_h: f32,
    // neighbours listed so far (also past LIST_MAX), the particle's slot, the four entries not
    // yet written
    n: u32,
    slot: u32,
    pack: vec4<u32>,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if r2 < (*acc).h2 {
        (*acc).rho += abs(pj.w) * kernel_w_q(sqrt(r2) * (*acc).inv_h);
        if pj.w < 0.0 {
            wet[j] = 1u;
        }
        if LISTS && r2 > 1e-12 * (*acc).h2 {
            let n = (*acc).n;
            if n < LIST_MAX {
                (*acc).pack[n & 3u] = j;
                if (n & 3u) == 3u {
                    nb_list[(n / 4u) * params.n_particles + (*acc).slot] = (*acc).pack;
                }
            }
            (*acc).n += 1u;
        }
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
    let pi = pos_mass[i];
    if pi.w <= 0.0 {
        return;
    }
    var acc = Acc(pi.xyz, 0.0, params.h * params.h, 1.0 / params.h, 0u, i, vec4<u32>(0u));
    neighbour_loop(pi.xyz, &acc);
    if LISTS {
        // the last, partial four
        if acc.n < LIST_MAX && (acc.n & 3u) != 0u {
            nb_list[(acc.n / 4u) * params.n_particles + i] = acc.pack;
        }
        nb_count[i] = acc.n;
    }
    vel_rho[i].w = acc.rho * params.kernel_norm;
}
