// The emitters' data, shared by emit.plan and emit.write (src/sim/emit.rs keeps the Rust side;
// tests/shaders.rs compares the layouts).
//
// #import common

// Kept in sync with `EmitterGpu` in src/sim/emit.rs.
struct Emitter {
    // direction × speed
    velocity: vec3<f32>,
    // mass of each particle it creates
    mass: f32,
    // unit direction
    direction: vec3<f32>,
    // distance a particle travels in one step (speed × dt)
    step_length: f32,
    // centre of the rectangle or disc
    center: vec3<f32>,
    // length of its inlet zone along the direction: fluid there moves at its velocity
    zone: f32,
    // the axes across the direction, with the half width and half height the points cover; a
    // disc has half_v < 0 and its radius (plus half a spacing) in half_u
    axis_u: vec3<f32>,
    half_u: f32,
    axis_v: vec3<f32>,
    half_v: f32,
    // its points in `points`: first_point .. first_point + n_points (one layer)
    first_point: u32,
    n_points: u32,
    // it emits on steps start_step .. end_step
    start_step: u32,
    end_step: u32,
    // steps from one layer to the next in 16.16 fixed point (at least 1.0: a layer a step at most)
    period: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const MAX_EMITTERS: u32 = 16u;
const PHASE_ONE: i32 = 65536;

// Kept in sync with `EmitState` in src/sim/emit.rs.
struct EmitState {
    // the step being taken (emit.plan advances it)
    step: u32,
    n_emitters: u32,
    _pad0: u32,
    _pad1: u32,
    // per emitter: time from the start of this step to its next layer, in 1/65536 of a step
    phase: array<i32, MAX_EMITTERS>,
    // per emitter: its layer's first free slot (an index into the free cell's range) this step
    offset: array<u32, MAX_EMITTERS>,
    // per emitter: particles it writes this step (0 or its n_points)
    count: array<u32, MAX_EMITTERS>,
    // per emitter: steps since its layer's time, in (0, 1]; the layer is moved on by as much
    late: array<f32, MAX_EMITTERS>,
}

// Whether `x` lies in the inlet zone of `em`: from its plane to `zone` along its direction,
// inside its outline (half a spacing beyond its outer points).
fn in_inlet(em: Emitter, x: vec3<f32>) -> bool {
    let q = x - em.center;
    let a = dot(q, em.direction);
    if a < 0.0 || a >= em.zone {
        return false;
    }
    let u = dot(q, em.axis_u);
    let v = dot(q, em.axis_v);
    if em.half_v < 0.0 {
        return u * u + v * v <= em.half_u * em.half_u;
    }
    return abs(u) <= em.half_u && abs(v) <= em.half_v;
}
