//! render.solids: a scene's solids drawn as their surfaces (triangles handed over by whoever
//! loaded the scene), flat-shaded, writing depth so the water and the spheres meet them right.

use super::DepthUse;
use wgpu::util::DeviceExt;

pub(crate) fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let source = crate::wgsl::compose("solids").expect("shaders/solids.wgsl composes (tests/shaders.rs checks every file)");
    let module = super::module(device, "render.solids", source);
    let vertices = wgpu::VertexBufferLayout {
        array_stride: 12,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &[wgpu::VertexAttribute { format: wgpu::VertexFormat::Float32x3, offset: 0, shader_location: 0 }],
    };
    let depth = DepthUse { write: true, compare: wgpu::CompareFunction::Less };
    super::pipeline(
        device,
        "render.solids",
        layout,
        &module,
        ("vs_solid", "fs_solid"),
        &[Some(vertices)],
        wgpu::PrimitiveTopology::TriangleList,
        color,
        Some(depth),
    )
}

/// The solids' triangles on the GPU (three positions per triangle).
pub(crate) struct SolidMesh {
    vertices: wgpu::Buffer,
    count: u32,
}

impl SolidMesh {
    /// None when there is nothing to draw.
    pub(crate) fn new(device: &wgpu::Device, triangles: &[[f32; 3]]) -> Option<Self> {
        if triangles.is_empty() {
            return None;
        }
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("render.solids"),
            contents: bytemuck::cast_slice(triangles),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        });
        Some(Self { vertices, count: triangles.len() as u32 })
    }

    /// Vertices `first..` moved to `vertices` (a range past the end is ignored).
    pub(crate) fn update(&self, queue: &wgpu::Queue, first: usize, vertices: &[[f32; 3]]) {
        if first + vertices.len() <= self.count as usize && !vertices.is_empty() {
            queue.write_buffer(&self.vertices, first as u64 * 12, bytemuck::cast_slice(vertices));
        }
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline) {
        pass.set_pipeline(pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.count, 0..1);
    }
}
