// bodies.integrate: one workgroup per moving solid. Sums bodies.force's forces and torques over
// the solid's boundary particles (ids first .. first + count, in a fixed order: the same sum
// every run), records them, and moves a floating body (docs/PHYSICS.md, "Floating bodies") by
// symplectic Euler with the step's dt, as sph.integrate moves the fluid:
//   A = F / M + g,  V += dt A,  c += dt V;
//   I = R I0 R^T,  alpha = I^-1 (T - w x I w),  w += dt alpha,  q += dt/2 (w, 0) q, normalised.
// solids.move places its particles from the new state at the start of the next step, with
// A + alpha x r + w x (w x r) as their acceleration (Adami's wall pressure). A floating body
// the app holds (floating = 2: dragged with the mouse) moves at the velocity it was given.
//
// #import common
// #import motion_structs

@group(0) @binding(4) var<storage, read> body_force: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read_write> body_state: array<BodyState>;

var<workgroup> wg_force: array<vec4<f32>, 256>;
var<workgroup> wg_torque: array<vec4<f32>, 256>;

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn block(m: mat4x4<f32>) -> mat3x3<f32> {
    return mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz);
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let b = wid.y * nwg.x + wid.x;
    let s = body_state[b];
    var f = vec4<f32>(0.0);
    var tq = vec4<f32>(0.0);
    for (var k = lid; k < s.count; k += WG_SIZE) {
        let id = s.first + k;
        let a = body_force[2u * id];
        let c = body_force[2u * id + 1u];
        f += a;
        tq = vec4<f32>(tq.xyz + c.xyz, max(tq.w, c.w));
    }
    wg_force[lid] = f;
    wg_torque[lid] = tq;
    workgroupBarrier();
    for (var half = WG_SIZE / 2u; half > 0u; half /= 2u) {
        if lid < half {
            wg_force[lid] += wg_force[lid + half];
            let o = wg_torque[lid + half];
            wg_torque[lid] = vec4<f32>(wg_torque[lid].xyz + o.xyz, max(wg_torque[lid].w, o.w));
        }
        workgroupBarrier();
    }
    if lid != 0u {
        return;
    }
    var out = s;
    let force = wg_force[0];
    let torque = wg_torque[0];
    out.force = force.xyz;
    out.contacts = u32(force.w + 0.5);
    out.torque = torque.xyz;
    out.contact_depth = torque.w;
    if s.floating == 2u {
        // held (the app's mouse drag): a prescribed motion at its velocity, unturned
        out.acceleration = vec3<f32>(0.0);
        out.angular_acceleration = vec3<f32>(0.0);
        out.angular_velocity = vec3<f32>(0.0);
        out.position = s.position + params.dt * s.velocity;
    } else if s.floating != 0u {
        let dt = params.dt;
        let acc = force.xyz / s.mass + params.gravity;
        let v = s.velocity + dt * acc;
        out.acceleration = acc;
        out.velocity = v;
        out.position = s.position + dt * v;
        // the inertia and its inverse in the world frame: R I0 R^T
        let q = s.orientation;
        let r = mat3x3<f32>(quat_rotate(q, vec3<f32>(1.0, 0.0, 0.0)), quat_rotate(q, vec3<f32>(0.0, 1.0, 0.0)),
            quat_rotate(q, vec3<f32>(0.0, 0.0, 1.0)));
        let inertia = r * block(s.inertia) * transpose(r);
        let inv_inertia = r * block(s.inv_inertia) * transpose(r);
        let w = s.angular_velocity;
        let alpha = inv_inertia * (torque.xyz - cross(w, inertia * w));
        let w1 = w + dt * alpha;
        out.angular_acceleration = alpha;
        out.angular_velocity = w1;
        out.orientation = normalize(q + quat_mul(vec4<f32>(0.5 * dt * w1, 0.0), q));
    }
    body_state[b] = out;
}
