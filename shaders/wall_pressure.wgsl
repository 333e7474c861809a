// sph.wall_pressure: the pressure of every boundary particle from the fluid around it (Adami,
// Hu & Adams 2012, eq. 27, walls at rest):
//   p_b = max(0, sum_f (p_f + rho_f g . (x_b - x_f)) W_bf / sum_f W_bf),
// stored as the density that gives it through the Tait equation, rho_b = rho0 (p_b / B + 1)^(1/7),
// so sph.force treats fluid and wall neighbours alike. Runs between sph.density and sph.force
// over the same neighbour loop; fluid particles are skipped. Wall particles without fluid
// within h get rho0 (p_b = 0) without the loop: sph.density marked in `wet` the ones that have
// some (the relation r < h is symmetric: the same f32 expression from either side).
//
// No-slip walls (NO_SLIP, a pipeline constant set when params.no_slip_viscosity > 0): the wall
// particle also takes the velocity v_b = 2 v_wall - sum_f v_f W_bf / sum_f W_bf (Adami et al.
// 2012, eq. 22-23; walls at rest: minus the fluid's velocity extrapolated to it), which
// sph.force's laminar friction uses; otherwise it stays at rest.
//
// Moving solids (MOVING, a scene with moving solids): a wall particle of one moves with the
// velocity v_w and acceleration a_w solids.move gave it (zero for walls at rest). Its pressure
// takes the fluid's acceleration relative to it, p_b = max(0, sum_f (p_f + rho_f (g - a_w) .
// (x_b - x_f)) W_bf / sum_f W_bf) (Adami et al. 2012, eq. 27), and its velocity is v_w (free
// slip) or 2 v_w - sum_f v_f W_bf / sum_f W_bf (no slip, eq. 23).
//
// With the lists kept between grid builds (a list skin; LISTS set only then), a building step
// lists each marked wall particle's fluid within (1 + skin) h as it walks (sph.density marked
// the wall particles within that radius of fluid), and a LISTED step reads those lists instead
// of walking the grid (src/sim/keep.rs).
//
// #import common
// #import neighbours
// #import lists_write

@group(0) @binding(4) var<storage, read> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> vel_rho: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> wet: array<u32>;
@group(0) @binding(7) var<storage, read> ids: array<u32>;
@group(0) @binding(8) var<storage, read> wall_motion: array<vec4<f32>>;

override NO_SLIP: bool = false;
override MOVING: bool = false;

struct Acc {
    x: vec3<f32>,
    // sum of (p_f + rho_f g . (x_b - x_f)) * kernel_w_q
    num: f32,
    // sum of kernel_w_q over fluid neighbours
    den: f32,
    // sum of v_f * kernel_w_q over fluid neighbours
    vel: vec3<f32>,
    // gravity less the wall particle's acceleration
    g: vec3<f32>,
    // the list radius squared (LISTS: a building step with a skin), and h² (list_push's)
    l2: f32,
    h2: f32,
    list: ListWriter,
}

fn visit(acc: ptr<function, Acc>, j: u32) {
    let pj = pos_mass[j];
    if pj.w <= 0.0 {
        return;
    }
    let d = (*acc).x - pj.xyz;
    let r2 = dot(d, d);
    if r2 < params.h2 {
        let w = kernel_w_q(sqrt(r2) * params.inv_h);
        let vf = vel_rho[j];
        let rho_f = vf.w;
        (*acc).num += (tait_pressure(rho_f, params.inv_rest_density) + rho_f * dot((*acc).g, d)) * w;
        (*acc).den += w;
        if NO_SLIP {
            (*acc).vel += vf.xyz * w;
        }
    }
    if LISTS && r2 < (*acc).l2 {
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
    if pi.w >= 0.0 {
        return;
    }
    let rho0 = params.rest_density;
    var v_w = vec3<f32>(0.0);
    var g = params.gravity;
    if MOVING {
        let id = ids[i];
        v_w = wall_motion[2u * id].xyz;
        g -= wall_motion[2u * id + 1u].xyz;
    }
    if wet[i] == 0u {
        vel_rho[i] = vec4<f32>(v_w, rho0);
        return;
    }
    // the walls' lists only where the build lists with a skin (grid.keep never keeps lists
    // without one)
    let skin = build_skin();
    let l = params.h * (1.0 + skin);
    var acc = Acc(pi.xyz, 0.0, 0.0, vec3<f32>(0.0), g, select(-1.0, l * l, skin > 0.0), params.h2, list_start(i));
    walk_or_listed(i, pi.xyz, skin, &acc);
    var p_b = 0.0;
    var v_b = v_w;
    if acc.den > 0.0 {
        p_b = max(acc.num / acc.den, 0.0);
        if NO_SLIP {
            v_b = 2.0 * v_w - acc.vel / acc.den;
        }
    }
    vel_rho[i] = vec4<f32>(v_b, rho0 * pow(p_b / params.stiffness + 1.0, 1.0 / 7.0));
}
