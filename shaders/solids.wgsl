// render.solids: the scene's solids as triangles (their surfaces, not their boundary
// particles), flat-shaded from the screen-space derivatives of the world position.
//
// #import render_common

struct SolidOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn vs_solid(@location(0) position: vec3<f32>) -> SolidOut {
    var out: SolidOut;
    out.clip = frame.proj * frame.view * vec4<f32>(position, 1.0);
    out.world = position;
    return out;
}

@fragment
fn fs_solid(in: SolidOut) -> @location(0) vec4<f32> {
    // the side facing the eye
    let eye = (transpose(frame.view) * vec4<f32>(-frame.view[3].xyz, 0.0)).xyz;
    let c = cross(dpdx(in.world), dpdy(in.world));
    // a triangle seen edge-on has no screen derivatives to speak of: face the eye
    var n = select(normalize(eye - in.world), normalize(c), dot(c, c) > 1e-30);
    if dot(n, eye - in.world) < 0.0 {
        n = -n;
    }
    let light = normalize(vec3<f32>(-0.35, 0.8, 0.5));
    let diffuse = max(dot(n, light), 0.0);
    let base = vec3<f32>(0.42, 0.4, 0.37);
    return vec4<f32>(base * (0.3 + 0.7 * diffuse), 1.0);
}
