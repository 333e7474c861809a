// solids.move: the boundary particles of moving solids to their pose at the start of the step
// (docs/PHYSICS.md, "Moving solids"). Each one's position is its rest position x0 (the scene's
// pose) carried by its body's motion, x = pivot + T(tau) + R(theta(tau)) (x0 - pivot), with
// tau = clamp(t - start, 0, end - start) and t the clock at the start of the step; its normal
// line is turned by R; its velocity and acceleration (for sph.wall_pressure and sph.force) go to
// wall_motion by id. Runs before the grid build, so the step sees the solids where they are.
// A floating body's particles go where its state says (bodies.integrate moved it in the last
// step): x = c + R(q) (x0 - c0), v = V + w x r, a = A + alpha x r + w x (w x r).
// The f64 twin is src/sim/motion.rs.
//
// #import common
// #import motion_structs

@group(0) @binding(4) var<storage, read_write> pos_mass: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;
// by id: the rest position, and w = the body plus one as bits (0: not moving)
@group(0) @binding(6) var<storage, read> rest: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read> rest_normal: array<vec4<f32>>;
@group(0) @binding(8) var<storage, read_write> wall_normal: array<vec4<f32>>;
// by id: [2 id] the velocity, [2 id + 1] the acceleration of the wall particle
@group(0) @binding(9) var<storage, read_write> wall_motion: array<vec4<f32>>;
@group(0) @binding(10) var<storage, read> bodies: array<BodyMotion>;
@group(0) @binding(11) var<storage, read> motion_keys: array<vec4<f32>>;
@group(0) @binding(12) var<storage, read> diag: array<u32, DIAG_WORDS>;
// by body: a floating body's pose and rates (bodies.integrate's)
@group(0) @binding(13) var<storage, read> body_state: array<BodyState>;

const TAU: f32 = 6.283185307179586;

struct Curve {
    p: vec3<f32>,
    v: vec3<f32>,
    a: vec3<f32>,
}

fn key_value(k: u32, rotation: bool) -> vec3<f32> {
    let q = motion_keys[k];
    return select(q.yzw, vec3<f32>(q.y, 0.0, 0.0), rotation);
}

fn key_tangent(first: u32, n: u32, k: u32, rotation: bool) -> vec3<f32> {
    if k == 0u || k == n - 1u {
        return vec3<f32>(0.0);
    }
    let dt = motion_keys[first + k + 1u].x - motion_keys[first + k - 1u].x;
    return (key_value(first + k + 1u, rotation) - key_value(first + k - 1u, rotation)) / dt;
}

// keyframes first .. first + n at tau, relative to the first key (src/sim/motion.rs, keyframes)
fn keyframes(first: u32, n: u32, tau: f32, curved: bool, rotation: bool) -> Curve {
    let zero = vec3<f32>(0.0);
    let p0 = key_value(first, rotation);
    if n < 2u || tau <= motion_keys[first].x {
        return Curve(zero, zero, zero);
    }
    if tau >= motion_keys[first + n - 1u].x {
        return Curve(key_value(first + n - 1u, rotation) - p0, zero, zero);
    }
    var lo = 0u;
    var hi = n - 1u;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if motion_keys[first + mid].x <= tau {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let j = lo;
    let t0 = motion_keys[first + j].x;
    let d = motion_keys[first + j + 1u].x - t0;
    let u = (tau - t0) / d;
    let a = key_value(first + j, rotation);
    let b = key_value(first + j + 1u, rotation);
    if !curved {
        return Curve(a + (b - a) * u - p0, (b - a) / d, zero);
    }
    let ma = key_tangent(first, n, j, rotation) * d;
    let mb = key_tangent(first, n, j + 1u, rotation) * d;
    let u2 = u * u;
    let u3 = u2 * u;
    let p = a * (2.0 * u3 - 3.0 * u2 + 1.0) + ma * (u3 - 2.0 * u2 + u) + b * (-2.0 * u3 + 3.0 * u2) + mb * (u3 - u2);
    let v = a * (6.0 * u2 - 6.0 * u) + ma * (3.0 * u2 - 4.0 * u + 1.0) + b * (-6.0 * u2 + 6.0 * u) + mb * (3.0 * u2 - 2.0 * u);
    let acc = a * (12.0 * u - 6.0) + ma * (6.0 * u - 4.0) + b * (-12.0 * u + 6.0) + mb * (6.0 * u - 2.0);
    return Curve(p - p0, v / d, acc / (d * d));
}

// (A (sin(w tau + phase) - sin phase), its rate, its second derivative) for A = 1
fn sine(period: f32, phase: f32, tau: f32) -> vec3<f32> {
    let w = TAU / period;
    let arg = w * tau + phase;
    let s = sin(arg);
    return vec3<f32>(s - sin(phase), w * cos(arg), -w * w * s);
}

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn rotate(v: vec3<f32>, axis: vec3<f32>, angle: f32) -> vec3<f32> {
    let s = sin(angle);
    let c = cos(angle);
    return v * c + cross(axis, v) * s + axis * (dot(axis, v) * (1.0 - c));
}

@compute @workgroup_size(WG_SIZE)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid);
    if i >= params.n_particles {
        return;
    }
    let p = pos_mass[i];
    if p.w >= 0.0 {
        return;
    }
    let id = ids[i];
    let r0 = rest[id];
    let body = bitcast<u32>(r0.w);
    if body == 0u {
        return;
    }
    let m = bodies[body - 1u];
    if m.translation == TRANSLATION_FLOATING {
        // a floating body: x = c + R(q) (x0 - c0), the centre c0 at rest its pivot
        let st = body_state[body - 1u];
        let r = quat_rotate(st.orientation, r0.xyz - m.pivot);
        let w = st.angular_velocity;
        pos_mass[i] = vec4<f32>(st.position + r, p.w);
        wall_normal[id] = vec4<f32>(quat_rotate(st.orientation, rest_normal[id].xyz), 0.0);
        wall_motion[2u * id] = vec4<f32>(st.velocity + cross(w, r), 0.0);
        wall_motion[2u * id + 1u] = vec4<f32>(st.acceleration + cross(st.angular_acceleration, r) + cross(w, cross(w, r)), 0.0);
        return;
    }
    // the clock at the start of this step: the compensated pair sim.time_step keeps
    let t_hi = bitcast<f32>(diag[DIAG_TIME]);
    let t_lo = bitcast<f32>(diag[DIAG_TIME_LO]);
    let moving = t_hi + t_lo >= m.start && t_hi + t_lo < m.end;
    let tau = max((min(t_hi, m.end) - m.start) + select(0.0, t_lo, t_hi < m.end), 0.0);
    var tr = Curve(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    if m.translation == TRANSLATION_SINE {
        let s = sine(m.period, m.phase, tau);
        tr = Curve(m.amplitude * s.x, m.amplitude * s.y, m.amplitude * s.z);
    } else if m.translation == TRANSLATION_KEYS {
        tr = keyframes(m.translation_first, m.translation_count, tau, m.smooth_translation != 0u, false);
    }
    var th = vec3<f32>(0.0);
    if m.rotation == ROTATION_SPIN {
        th = vec3<f32>(m.angle * tau, m.angle, 0.0);
    } else if m.rotation == ROTATION_SINE {
        th = m.angle * sine(m.angle_period, m.angle_phase, tau);
    } else if m.rotation == ROTATION_KEYS {
        let c = keyframes(m.rotation_first, m.rotation_count, tau, m.smooth_rotation != 0u, true);
        th = vec3<f32>(c.p.x, c.v.x, c.a.x);
    }
    if !moving {
        tr.v = vec3<f32>(0.0);
        tr.a = vec3<f32>(0.0);
        th.y = 0.0;
        th.z = 0.0;
    }
    let r = rotate(r0.xyz - m.pivot, m.axis, th.x);
    pos_mass[i] = vec4<f32>(m.pivot + tr.p + r, p.w);
    wall_normal[id] = vec4<f32>(rotate(rest_normal[id].xyz, m.axis, th.x), 0.0);
    let w = m.axis * th.y;
    let al = m.axis * th.z;
    wall_motion[2u * id] = vec4<f32>(tr.v + cross(w, r), 0.0);
    wall_motion[2u * id + 1u] = vec4<f32>(tr.a + cross(al, r) + cross(w, cross(w, r)), 0.0);
}
