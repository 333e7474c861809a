//! render.solids: a scene's solids drawn as their surfaces (triangles handed over by whoever
//! loaded the scene), flat-shaded, writing depth so the water and the spheres meet them right.

use super::DEPTH_FORMAT;
use wgpu::util::DeviceExt;

pub fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let source = crate::wgsl::compose("solids").expect("shaders/solids.wgsl composes (tests/shaders.rs checks every file)");
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("render.solids"), source: wgpu::ShaderSource::Wgsl(source.into()) });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("render.solids"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_solid"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 12,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x3, offset: 0, shader_location: 0 }],
            })],
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
            entry_point: Some("fs_solid"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format: color, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// The solids' triangles on the GPU (three positions per triangle).
pub struct SolidMesh {
    vertices: wgpu::Buffer,
    count: u32,
}

impl SolidMesh {
    /// None when there is nothing to draw.
    pub fn new(device: &wgpu::Device, triangles: &[[f32; 3]]) -> Option<Self> {
        if triangles.is_empty() {
            return None;
        }
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("render.solids"),
            contents: bytemuck::cast_slice(triangles),
            usage: wgpu::BufferUsages::VERTEX,
        });
        Some(Self { vertices, count: triangles.len() as u32 })
    }

    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline) {
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}
