//! render.sprites: one sphere impostor per particle, read straight from the simulation's
//! particle buffers as per-instance vertex buffers (`pos_mass`, `vel_rho`).

use super::DepthUse;

pub(crate) fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let module = super::module(device, "render.sprites", super::sprites_source());
    let instance = |location| wgpu::VertexBufferLayout {
        array_stride: 16,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: match location {
            0 => &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x4, offset: 0, shader_location: 0 }],
            _ => &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x4, offset: 0, shader_location: 1 }],
        },
    };
    let depth = DepthUse { write: true, compare: wgpu::CompareFunction::Less };
    let buffers = [Some(instance(0)), Some(instance(1))];
    super::pipeline(
        device,
        "render.sprites",
        layout,
        &module,
        ("vs_sprite", "fs_sprite"),
        &buffers,
        wgpu::PrimitiveTopology::TriangleList,
        color,
        Some(depth),
    )
}

/// Draws `n` particles of `set` (six vertices per instance).
pub(crate) fn draw(pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline, set: &crate::sim::buffers::ParticleSet, n: u32) {
    pass.set_pipeline(pipeline);
    pass.set_vertex_buffer(0, set.pos_mass.slice(..));
    pass.set_vertex_buffer(1, set.vel_rho.slice(..));
    pass.draw(0..6, 0..n);
}
