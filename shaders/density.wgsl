// sph.density: rho_i = sum_j |w_j| W(|x_i - x_j|) over the neighbour loop (docs/PHYSICS.md).
// Reads one vec4 (position, mass) per candidate; most of the cost is rejected candidates.
// Boundary particles (w < 0) keep rho0 and are skipped, as are free slots (w = 0). A wall
// particle within h of a fluid particle is marked in `wet` (cleared before the pass), so that
// sph.wall_pressure runs its loop for those only.
//
// The same walk lists each fluid particle's neighbours for sph.force (lists_write.wgsl): those
// within (1 + skin) h with a list skin (src/sim/keep.rs). A LISTED step (the lists kept) reads
// the last build's lists instead of walking the grid, and writes none.
//
// #import common
// #import neighbours
// #import lists_write

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
// every invocation that writes a word writes 1: the order of the writes does not matter
@group(0) @binding(6) var<storage, read_write> wet: array<u32>;

struct Acc {
    x: vec3<f32>,
    // sum of |w_j| * kernel_w_q(q): the density without the factor kernel_norm
    rho: f32,
    h2: f32,
    // the list radius squared, ((1 + skin) h)² (h² without a skin, and in a LISTED step)
    l2: f32,
    inv_h: f32,
    list: ListWriter,
}

// With SKIN (a build that lists with the skin) a wall particle within the list radius is marked:
// sph.wall_pressure then lists its fluid at the build, and keeps those lists while the fluid's
// lists are kept. Without, the loop is the one of lists built every step (a pipeline constant:
// the nested test cost the step 3 % at 4M, docs/PERFORMANCE.md), also in the builds grid.keep
// made list within h.
fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if SKIN {
        if r2 < (*acc).l2 {
            if r2 < (*acc).h2 {
                (*acc).rho += abs(pj.w) * kernel_w_q(sqrt(r2) * (*acc).inv_h);
            }
            if pj.w < 0.0 {
                wet[j] = 1u;
            }
            list_push(acc, j, r2);
        }
    } else if r2 < (*acc).h2 {
        (*acc).rho += abs(pj.w) * kernel_w_q(sqrt(r2) * (*acc).inv_h);
        if pj.w < 0.0 {
            wet[j] = 1u;
        }
        list_push(acc, j, r2);
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
    let h2 = params.h * params.h;
    var l2 = h2;
    // the skin grid.keep chose for this build (0 without lists kept between builds)
    var skin = 0.0;
    if SKIN && !LISTED {
        skin = build_skin();
        let l = params.h * (1.0 + skin);
        l2 = l * l;
    }
    var acc = Acc(pi.xyz, 0.0, h2, l2, 1.0 / params.h, list_start(i));
    if LISTED {
        // the lists leave out the particle itself (and any at r = 0), which the walk visits
        acc.rho = pi.w * kernel_w_q(0.0);
    }
    walk_or_listed(i, pi.xyz, skin, &acc);
    vel_rho[i].w = acc.rho * params.kernel_norm;
}
