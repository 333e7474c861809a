//! render.box: the edges of the fluid domain as lines (24 vertices from the vertex index).

use super::DEPTH_FORMAT;

pub fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("render.box"),
        source: wgpu::ShaderSource::Wgsl(super::lines_source().into()),
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("render.box"),
        layout: Some(layout),
        vertex: wgpu::VertexState { module: &module, entry_point: Some("vs_box"), compilation_options: Default::default(), buffers: &[] },
        primitive: wgpu::PrimitiveState { topology: wgpu::PrimitiveTopology::LineList, ..Default::default() },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_box"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format: color, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

pub fn draw(pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline) {
    pass.set_pipeline(pipeline);
    pass.draw(0..24, 0..1);
}
