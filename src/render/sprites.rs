//! render.sprites: one sphere impostor per particle, read straight from the simulation's
//! particle buffers as per-instance vertex buffers (`pos_mass`, `vel_rho`).

use super::DEPTH_FORMAT;

pub fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("render.sprites"),
        source: wgpu::ShaderSource::Wgsl(super::sprites_source().into()),
    });
    let instance = |location| wgpu::VertexBufferLayout {
        array_stride: 16,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: match location {
            0 => &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x4, offset: 0, shader_location: 0 }],
            _ => &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x4, offset: 0, shader_location: 1 }],
        },
    };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("render.sprites"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_sprite"),
            compilation_options: Default::default(),
            buffers: &[Some(instance(0)), Some(instance(1))],
        },
        primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::TriangleList, cull_mode: None, ..Default::default() },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_sprite"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format: color, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// Draws `n` particles of `set` (six vertices per instance).
pub fn draw(pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline, set: &crate::sim::buffers::ParticleSet, n: u32) {
    pass.set_pipeline(pipeline);
    pass.set_vertex_buffer(0, set.pos_mass.slice(..));
    pass.set_vertex_buffer(1, set.vel_rho.slice(..));
    pass.draw(0..6, 0..n);
}
