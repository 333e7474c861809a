// The emitters' data, shared by emit.plan and emit.write: the records and the state are
// generated from Rust (the `emit_structs` module, src/wgsl/shared.rs).
//
// #import common, emit_structs

const PHASE_ONE: i32 = 65536;

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
