// Shared by the render shaders (sprites.wgsl, lines.wgsl): the per-frame uniform block.
// They import it (src/wgsl.rs composes).

// Kept in sync with `FrameUniforms` in src/render/uniforms.rs; tests/app.rs checks the size and
// every member offset against what naga reports for this struct.
struct FrameUniforms {
    // world → view (camera) space
    view: mat4x4<f32>,
    // view → clip space (wgpu depth range 0..1)
    proj: mat4x4<f32>,
    // lower corner of the fluid domain
    domain_min: vec3<f32>,
    // sphere radius in metres (half the particle spacing)
    radius: f32,
    // upper corner of the fluid domain
    domain_max: vec3<f32>,
    // 0 speed |v|, 1 density ρ, 2 pressure p (Tait)
    color_mode: u32,
    // the value mapped to the first colormap entry
    range_lo: f32,
    // the value mapped to the last colormap entry
    range_hi: f32,
    // ρ0, for the pressure
    rest_density: f32,
    // Tait stiffness B, for the pressure
    stiffness: f32,
    // 1: draw boundary particles (grey), 0: hide them
    show_boundary: u32,
    // entries used in `colormap`
    colormap_len: u32,
    // 1: draw fluid particles, 0: hide them (the surface view draws the walls alone)
    show_fluid: u32,
    _pad1: u32,
    // colour of the domain box lines (linear RGB, alpha unused)
    box_color: vec4<f32>,
    // linear RGB colormap, sampled with linear interpolation
    colormap: array<vec4<f32>, 64>,
}

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
