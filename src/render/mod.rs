//! Drawing the simulation in one of two views ([`View`]): spheres (every particle ray-cast by
//! compute straight from the particle buffers, coloured by speed, density or pressure;
//! [`spheres`]: three passes) or the water's surface ([`surface`]: four passes). Both draw the domain box
//! as lines with an orbit camera; the egui pass follows in the same encoder.

pub(crate) mod camera;
pub(crate) mod colormap;
pub(crate) mod image;
pub(crate) mod lines;
pub(crate) mod solids;
pub mod spheres;
pub(crate) mod sprites;
pub mod surface;
pub mod uniforms;

use crate::sim::buffers::ParticleSet;
use crate::sim::params::SimParams;
use colormap::Colormap;
use uniforms::{COLORMAP_LEN, FrameUniforms};

pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// How a pipeline of the 3D view meets the depth buffer: none, or tested with `compare` and
/// written when `write`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DepthUse {
    pub write: bool,
    pub compare: wgpu::CompareFunction,
}

/// One render pipeline of the 3D view: the vertex and fragment entry points `entry` of `module`,
/// opaque output into `color`, no culling. Every pipeline of the renderer is made here.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry: (&str, &str),
    buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
    topology: wgpu::PrimitiveTopology,
    color: wgpu::TextureFormat,
    depth: Option<DepthUse>,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex: wgpu::VertexState { module, entry_point: Some(entry.0), compilation_options: Default::default(), buffers },
        primitive: wgpu::PrimitiveState { topology, cull_mode: None, ..Default::default() },
        depth_stencil: depth.map(|d| wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(d.write),
            depth_compare: Some(d.compare),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(entry.1),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState { format: color, blend: None, write_mask: wgpu::ColorWrites::ALL })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

/// A shader module of the renderer from composed WGSL.
pub(crate) fn module(device: &wgpu::Device, label: &str, source: String) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(label), source: wgpu::ShaderSource::Wgsl(source.into()) })
}

/// Background of the 3D view (sRGB).
pub const BACKGROUND: [u8; 3] = [14, 17, 24];

/// sprites.wgsl with its imports (the uniform block, the model's constants).
pub fn sprites_source() -> String {
    crate::wgsl::compose("sprites").expect("shaders/sprites.wgsl composes (tests/shaders.rs checks every file)")
}

/// lines.wgsl with its imports (the uniform block).
pub fn lines_source() -> String {
    crate::wgsl::compose("lines").expect("shaders/lines.wgsl composes (tests/shaders.rs checks every file)")
}

/// How the fluid is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[value(rename_all = "lower")]
#[serde(rename_all = "lowercase")]
pub enum View {
    /// Every particle a shaded sphere, coloured by speed, density or pressure.
    Spheres,
    /// The water's surface: smoothed depth, reflection, refraction and absorption.
    Surface,
}

impl View {
    pub const ALL: [View; 2] = [View::Spheres, View::Surface];

    pub(crate) fn name(self) -> &'static str {
        match self {
            View::Spheres => "spheres",
            View::Surface => "surface",
        }
    }

    /// Labels of the view's render passes, in order (and in timestamp order).
    pub(crate) fn passes(self) -> &'static [&'static str] {
        match self {
            View::Spheres => &spheres::PASSES,
            View::Surface => &surface::PASSES,
        }
    }

    /// The view's passes, then egui's (`ui.egui`) where a panel is drawn over the frame
    /// (`rillet render --panel`).
    pub(crate) fn passes_with(self, ui: bool) -> &'static [&'static str] {
        match (self, ui) {
            (view, false) => view.passes(),
            (View::Spheres, true) => &spheres::PASSES_WITH_UI,
            (View::Surface, true) => &surface::PASSES_WITH_UI,
        }
    }

    pub(crate) fn toggled(self) -> Self {
        match self {
            View::Spheres => View::Surface,
            View::Surface => View::Spheres,
        }
    }
}

/// Where a frame's render passes write their GPU timestamps.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Timing<'a> {
    Off,
    /// One figure for the whole view: `begin` at the start of its first pass, `end` at the end of
    /// its last.
    Whole {
        set: &'a wgpu::QuerySet,
        begin: u32,
        end: u32,
    },
    /// A figure per pass of [`View::passes`]: pass k writes `base + 2k` and `base + 2k + 1`.
    Passes {
        set: &'a wgpu::QuerySet,
        base: u32,
    },
}

impl<'a> Timing<'a> {
    /// Pass `k` of `count`: the query set and the indices it writes at its start and end.
    fn pass(self, k: usize, count: usize) -> Option<(&'a wgpu::QuerySet, Option<u32>, Option<u32>)> {
        match self {
            Timing::Off => None,
            Timing::Whole { set, begin, end } => {
                let (first, last) = (k == 0, k + 1 == count);
                (first || last).then_some((set, first.then_some(begin), last.then_some(end)))
            }
            Timing::Passes { set, base } => Some((set, Some(base + 2 * k as u32), Some(base + 2 * k as u32 + 1))),
        }
    }
}

/// What the particle colour shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    Speed,
    Density,
    Pressure,
}

impl ColorMode {
    pub(crate) const ALL: [ColorMode; 3] = [ColorMode::Speed, ColorMode::Density, ColorMode::Pressure];

    pub(crate) fn name(self) -> &'static str {
        match self {
            ColorMode::Speed => "speed",
            ColorMode::Density => "density",
            ColorMode::Pressure => "pressure",
        }
    }

    pub(crate) fn unit(self) -> &'static str {
        match self {
            ColorMode::Speed => "m/s",
            ColorMode::Density => "kg/m³",
            ColorMode::Pressure => "Pa",
        }
    }

    pub(crate) fn colormap(self) -> Colormap {
        match self {
            ColorMode::Speed => Colormap::Viridis,
            ColorMode::Density | ColorMode::Pressure => Colormap::CoolWarm,
        }
    }

    fn index(self) -> u32 {
        match self {
            ColorMode::Speed => 0,
            ColorMode::Density => 1,
            ColorMode::Pressure => 2,
        }
    }

    /// A range that suits the scene: speeds up to the free-fall speed from the fluid's height
    /// (c / 10 with the automatic stiffness), densities ρ0 ± 2 %, pressures ± the hydrostatic
    /// pressure of that height.
    pub(crate) fn default_range(self, params: &SimParams) -> (f32, f32) {
        let v = (params.sound_speed / 10.0).max(1e-3);
        let g = glam::Vec3::from(params.gravity).length().max(1e-3);
        let height = v * v / (2.0 * g);
        match self {
            ColorMode::Speed => (0.0, v),
            ColorMode::Density => (params.rest_density * 0.98, params.rest_density * 1.02),
            ColorMode::Pressure => {
                let p = (params.rest_density * g * height).max(1e-3);
                (-p, p)
            }
        }
    }
}

/// The user's view choices, applied each frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewSettings {
    pub view: View,
    pub camera: camera::OrbitCamera,
    pub color_mode: ColorMode,
    /// Values at the ends of the colormap, per mode (speed, density, pressure).
    pub ranges: [(f32, f32); 3],
    pub show_boundary: bool,
    pub show_box: bool,
    /// The surface view's filter, absorption and environment.
    pub surface: surface::SurfaceSettings,
}

impl ViewSettings {
    pub fn new(params: &SimParams, aspect: f32) -> Self {
        Self {
            view: View::Spheres,
            camera: camera::OrbitCamera::frame(params.domain_min.into(), params.domain_max.into(), aspect),
            color_mode: ColorMode::Speed,
            ranges: ColorMode::ALL.map(|m| m.default_range(params)),
            show_boundary: false,
            show_box: true,
            surface: surface::SurfaceSettings::new(params),
        }
    }

    pub(crate) fn range(&self) -> (f32, f32) {
        self.ranges[self.color_mode.index() as usize]
    }

    pub(crate) fn range_mut(&mut self) -> &mut (f32, f32) {
        &mut self.ranges[self.color_mode.index() as usize]
    }

    /// The uniform block for a viewport of `aspect`.
    pub fn uniforms(&self, params: &SimParams, aspect: f32) -> FrameUniforms {
        let (lo, hi) = self.range();
        let spacing = params.h / crate::physics::SUPPORT_OVER_SPACING;
        FrameUniforms {
            view: self.camera.view().to_cols_array_2d(),
            proj: self.camera.proj(aspect).to_cols_array_2d(),
            domain_min: params.domain_min,
            radius: spacing * 0.5,
            domain_max: params.domain_max,
            color_mode: self.color_mode.index(),
            range_lo: lo,
            range_hi: hi,
            rest_density: params.rest_density,
            stiffness: params.stiffness,
            show_boundary: self.show_boundary as u32,
            colormap_len: COLORMAP_LEN as u32,
            show_fluid: 1,
            _pad1: 0,
            box_color: [0.16, 0.18, 0.22, 1.0],
            colormap: self.color_mode.colormap().linear_table(),
        }
    }
}

/// A rectangle of the window in physical pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
}

impl Viewport {
    pub(crate) fn aspect(&self) -> f32 {
        self.width / self.height.max(1.0)
    }
}

/// Pipelines and per-window resources of the 3D view.
pub struct Renderer {
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// Sphere sprites, rasterised: the walls in the surface view.
    sprites: wgpu::RenderPipeline,
    spheres: spheres::SpherePass,
    lines: wgpu::RenderPipeline,
    depth: Option<(wgpu::TextureView, [u32; 2])>,
    surface: surface::SurfacePass,
    solids_pipeline: wgpu::RenderPipeline,
    /// The scene's solids as triangles, if it has any.
    solids: Option<solids::SolidMesh>,
}

impl Renderer {
    pub fn new(device: &wgpu::Device, color: wgpu::TextureFormat) -> Self {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.frame"),
            size: std::mem::size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.frame"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.frame"),
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });
        Self {
            sprites: sprites::pipeline(device, &layout, color),
            spheres: spheres::SpherePass::new(device, color),
            lines: lines::pipeline(device, &layout, color),
            uniforms,
            bind_group,
            depth: None,
            surface: surface::SurfacePass::new(device, color),
            solids_pipeline: solids::pipeline(device, &layout, color),
            solids: None,
        }
    }

    /// The scene's solids, as triangles (three positions each; empty: none). Made when a scene
    /// is loaded, not per frame.
    pub fn set_solids(&mut self, device: &wgpu::Device, triangles: &[[f32; 3]]) {
        self.solids = solids::SolidMesh::new(device, triangles);
    }

    /// The scene's moving solids where they are now: the vertices of [`Self::set_solids`] from
    /// `first` on, moved.
    pub fn move_solids(&mut self, queue: &wgpu::Queue, first: usize, vertices: &[[f32; 3]]) {
        if let Some(m) = &self.solids {
            m.update(queue, first, vertices);
        }
    }

    fn depth_view(&mut self, device: &wgpu::Device, size: [u32; 2]) -> wgpu::TextureView {
        if let Some((view, s)) = &self.depth
            && *s == size
        {
            return view.clone();
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("render.depth"),
            size: wgpu::Extent3d { width: size[0].max(1), height: size[1].max(1), depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor { label: Some("render.depth"), ..Default::default() });
        self.depth = Some((view.clone(), size));
        view
    }

    /// Records the 3D view of `settings.view` into `viewport` of `target` (a texture of `size`
    /// pixels): the box, and the first `n` particles of `set`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        viewport: Viewport,
        settings: &ViewSettings,
        params: &SimParams,
        draw: Option<(&ParticleSet, u32)>,
        timing: Timing<'_>,
    ) {
        let mut frame = settings.uniforms(params, viewport.aspect());
        let view_size = [viewport.width.floor() as u32, viewport.height.floor() as u32];
        if settings.view == View::Surface && view_size[0] >= 1 && view_size[1] >= 1 {
            frame.show_fluid = 0;
            queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&frame));
            let surface = surface::SurfaceUniforms::new(
                &settings.surface,
                params,
                settings.camera.view(),
                settings.camera.proj(viewport.aspect()),
                viewport,
                view_size,
                draw.map_or(0, |(_, n)| n),
                settings.camera.distance,
            );
            let (bind_group, lines, sprites) = (&self.bind_group, &self.lines, &self.sprites);
            let (solid_mesh, solids_pipeline) = (&self.solids, &self.solids_pipeline);
            let count = surface::PASSES.len();
            self.surface.record(
                device,
                queue,
                encoder,
                target,
                viewport,
                &surface,
                draw.map(|(set, _)| set),
                |pass| {
                    pass.set_bind_group(0, bind_group, &[]);
                    if settings.show_box {
                        lines::draw(pass, lines);
                    }
                    if let Some(m) = solid_mesh {
                        m.draw(pass, solids_pipeline);
                    }
                    if let Some((set, n)) = draw
                        && settings.show_boundary
                    {
                        sprites::draw(pass, sprites, set, n);
                    }
                },
                |k| timing.pass(k, count),
            );
            return;
        }
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&frame));
        let depth = self.depth_view(device, size);
        let count = spheres::PASSES.len();
        let [r, g, b] = BACKGROUND.map(|c| colormap::srgb_to_linear(c as f32 / 255.0) as f64);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(spheres::PASSES[0]),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }), store: wgpu::StoreOp::Store },
                })],
                // kept for the spheres' shade pass
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
                    stencil_ops: None,
                }),
                timestamp_writes: timing.pass(0, count).map(|(query_set, b, e)| wgpu::RenderPassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: b,
                    end_of_pass_write_index: e,
                }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            if viewport.width >= 1.0 && viewport.height >= 1.0 {
                pass.set_viewport(viewport.x, viewport.y, viewport.width, viewport.height, 0.0, 1.0);
                pass.set_bind_group(0, &self.bind_group, &[]);
                if settings.show_box {
                    lines::draw(&mut pass, &self.lines);
                }
                if let Some(m) = &self.solids {
                    m.draw(&mut pass, &self.solids_pipeline);
                }
            }
        }
        self.spheres.record(device, queue, encoder, target, &depth, viewport, view_size, &self.uniforms, draw, |k| timing.pass(k, count));
    }

    /// A new simulation replaced the old one: both views let go of the old particle buffers.
    pub fn release_particles(&mut self) {
        self.surface.release_particles();
        self.spheres.release_particles();
    }

    /// The sphere view's count of GPU objects made (buffers and bind groups: at the first frame,
    /// on a new viewport size and for a new particle buffer, never on a frame like the last).
    pub fn sphere_objects_made(&self) -> u64 {
        self.spheres.made()
    }

    /// Testing: the sphere view's splat of the last frame (see [`spheres::Splat`]).
    pub fn sphere_splat(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Option<spheres::Splat> {
        self.spheres.read_splat(device, queue)
    }

    /// The surface view's count of GPU objects made ([`surface::SurfacePass::made`]).
    pub fn surface_objects_made(&self) -> u64 {
        self.surface.made()
    }

    /// Testing: the surface view's smoothed depth of the last frame (see
    /// [`surface::SurfacePass::read_depth`]).
    pub fn surface_depth(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Option<([u32; 2], Vec<f32>)> {
        self.surface.read_depth(device, queue)
    }
}

#[cfg(test)]
mod tests {
    use super::View;

    /// With a panel drawn over the frame (`rillet render --panel`), egui's pass is timed after
    /// the view's own, whose labels keep their places (their queries are pairs 2k, 2k + 1).
    #[test]
    fn the_passes_with_the_panel_are_the_views_then_egui() {
        for view in View::ALL {
            let want: Vec<&str> = view.passes().iter().copied().chain(["ui.egui"]).collect();
            assert_eq!(view.passes_with(true), &want[..], "{view:?}");
            assert_eq!(view.passes_with(false), view.passes(), "{view:?}");
        }
    }
}
