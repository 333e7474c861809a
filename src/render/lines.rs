//! render.box: the edges of the fluid domain as lines (24 vertices from the vertex index).

use super::DepthUse;

pub(crate) fn pipeline(device: &wgpu::Device, layout: &wgpu::PipelineLayout, color: wgpu::TextureFormat) -> wgpu::RenderPipeline {
    let module = super::module(device, "render.box", super::lines_source());
    let depth = DepthUse { write: true, compare: wgpu::CompareFunction::LessEqual };
    super::pipeline(device, "render.box", layout, &module, ("vs_box", "fs_box"), &[], wgpu::PrimitiveTopology::LineList, color, Some(depth))
}

pub(crate) fn draw(pass: &mut wgpu::RenderPass<'_>, pipeline: &wgpu::RenderPipeline) {
    pass.set_pipeline(pipeline);
    pass.draw(0..24, 0..1);
}
