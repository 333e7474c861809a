// Shared by the render shaders (sprites.wgsl, lines.wgsl): the per-frame uniform block.
// They import it (src/wgsl.rs composes).
//
// #import frame_uniforms

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
