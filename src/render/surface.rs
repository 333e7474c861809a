//! The surface view: the fluid drawn as water, screen-space (no mesh), in four passes a frame.
//!
//! 1. `render.surface.background` (render pass, into a texture of the viewport's size): the
//!    environment (a procedural sky and a tiled floor, or a dark studio), the domain box and,
//!    when shown, the walls — what the water refracts and what it may hide behind.
//! 2. `render.surface.splat` (compute, a thread per particle): each fluid particle a sphere,
//!    ray-cast into the pixels it covers: the nearest view depth per pixel (an atomic max of
//!    inverted float bits) and the water's thickness along the pixel's ray (the chords through
//!    every sphere, added in fixed point); a particle of low density (spray) goes into a depth
//!    buffer of its own instead, as a smaller point. Compute rather than rasterised sprites: no fragment
//!    depth writes, no overdraw through the raster units.
//! 3. `render.surface.filter` (compute, two dispatches): a separable bilateral filter of the
//!    depth, its radius a world distance seen at each pixel's depth, its weights Gaussian in
//!    pixel distance and in depth difference (layers and silhouettes stay apart); and a plain
//!    Gaussian blur of the thickness (a lattice's chords would show as a moiré).
//! 4. `render.surface.shade` (render pass into the target's viewport, a full-screen triangle):
//!    normals from the smoothed depth, Fresnel reflection of the environment, refraction of the
//!    background displaced by the normal with Beer–Lambert absorption by the thickness, the
//!    sun's highlight; spray as white points.
//!
//! Every buffer and texture is sized to the viewport and made when that size changes (start,
//! resize), never per frame; the splat pass's bind group is kept per particle buffer (the
//! simulation's two, which the reorder swaps).

use super::DEPTH_FORMAT;
use crate::sim::params::SimParams;
use crate::sim::shader as kernels;
use crate::wgsl::Binding;
use glam::{Mat4, Vec3};

/// Labels of the surface view's passes, in order (and in timestamp order).
pub(crate) const PASSES: [&str; 4] = ["render.surface.background", "render.surface.splat", "render.surface.filter", "render.surface.shade"];
/// [`PASSES`] and egui's pass after them (`rillet render --panel`).
pub(crate) const PASSES_WITH_UI: [&str; 5] =
    ["render.surface.background", "render.surface.splat", "render.surface.filter", "render.surface.shade", "ui.egui"];

/// Radius of the spheres splatted into depth and thickness, in particle spacings: neighbours at
/// one spacing (and diagonal ones at √2) overlap, so a sheet one particle thick is one surface.
pub(crate) const SPLAT_RADIUS_OVER_SPACING: f32 = 0.75;

/// A fluid particle whose density is below this share of ρ0 is spray, drawn as a white point.
/// With the cubic spline of support 2 spacings a particle alone has 1/π ≈ 0.32 ρ0 (its own
/// kernel), two side by side 0.40, a filament (a line of particles a spacing apart) 0.48, a
/// sheet one particle thick 0.70 and a corner of a block of water about 0.6: a lone particle or
/// a pair is spray, a filament is water (a threshold of 0.55 drew thin jets as scattered dots).
pub(crate) const SPRAY_DENSITY_OVER_REST: f32 = 0.44;

/// The depth filter's largest radius in pixels.
pub(crate) const FILTER_MAX_PX: f32 = 24.0;

/// What the water reflects and is seen against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[value(rename_all = "lower")]
pub enum Environment {
    /// A blue sky with a sun, a tiled floor at the bottom of the domain.
    Sky,
    /// The sphere view's dark background; the water lit softly from above.
    Studio,
}

impl Environment {
    pub(crate) const ALL: [Environment; 2] = [Environment::Sky, Environment::Studio];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Environment::Sky => "sky",
            Environment::Studio => "studio",
        }
    }

    fn index(self) -> u32 {
        match self {
            Environment::Sky => 0,
            Environment::Studio => 1,
        }
    }
}

/// The surface view's choices (the panel changes them).
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceSettings {
    /// Radius of the depth filter in particle spacings (0: no smoothing).
    pub filter_radius: f32,
    /// Colour of white light after `absorption_depth` metres of water (linear RGB, each in (0, 1]).
    pub absorption_color: [f32; 3],
    /// The depth at which the light has `absorption_color`, metres.
    pub absorption_depth: f32,
    pub environment: Environment,
    /// Draw spray (particles with few neighbours) as white points.
    pub spray: bool,
}

/// Allowed filter radii, particle spacings.
pub(crate) const FILTER_RADIUS: std::ops::RangeInclusive<f32> = 0.0..=8.0;

/// Allowed absorption depths, metres.
pub(crate) const ABSORPTION_DEPTH: std::ops::RangeInclusive<f32> = 1e-4..=1e4;

impl SurfaceSettings {
    /// Clear water in a sky, absorbing over a depth of a fifth of the domain's height.
    pub(crate) fn new(params: &SimParams) -> Self {
        let height = (params.domain_max[1] - params.domain_min[1]).max(1e-3);
        Self {
            filter_radius: 3.0,
            absorption_color: [0.28, 0.62, 0.78],
            absorption_depth: height * 0.2,
            environment: Environment::Sky,
            spray: true,
        }
    }

    /// Beer–Lambert coefficients per metre.
    pub(crate) fn absorption(&self) -> [f32; 3] {
        let depth = self.absorption_depth.clamp(*ABSORPTION_DEPTH.start(), *ABSORPTION_DEPTH.end());
        self.absorption_color.map(|c| -c.clamp(1e-4, 1.0).ln() / depth)
    }
}

/// The uniform block of the surface shaders, defined once in [`crate::wgsl::shared`] (its WGSL
/// declaration is generated from that definition: the `surface_uniforms` module).
pub use crate::wgsl::shared::SurfaceUniforms;

/// The direction towards the sun (world space), shared with nothing else: the sphere view lights
/// in view space.
const SUN: Vec3 = Vec3::new(-0.35, 0.8, 0.5);

impl SurfaceUniforms {
    pub(crate) fn new(
        settings: &SurfaceSettings,
        params: &SimParams,
        view: Mat4,
        proj: Mat4,
        viewport: super::Viewport,
        size: [u32; 2],
        n_particles: u32,
        camera_distance: f32,
    ) -> Self {
        let spacing = params.h / crate::physics::SUPPORT_OVER_SPACING;
        let radius = spacing * SPLAT_RADIUS_OVER_SPACING;
        let extent = (Vec3::from(params.domain_max) - Vec3::from(params.domain_min)).max_element().max(1e-3);
        let [a, b, c] = settings.absorption();
        Self {
            view: view.to_cols_array_2d(),
            inv_view: view.inverse().to_cols_array_2d(),
            proj: proj.to_cols_array_2d(),
            inv_proj: proj.inverse().to_cols_array_2d(),
            absorption: [a, b, c, 0.0],
            light_dir: SUN.normalize().extend(0.0).to_array(),
            backdrop: {
                let [r, g, b] = super::BACKGROUND.map(|c| super::colormap::srgb_to_linear(c as f32 / 255.0));
                [r, g, b, 1.0]
            },
            size,
            origin: [viewport.x, viewport.y],
            n_particles,
            environment: settings.environment.index(),
            radius,
            filter_world: settings.filter_radius.clamp(*FILTER_RADIUS.start(), *FILTER_RADIUS.end()) * spacing,
            filter_max_px: FILTER_MAX_PX,
            depth_sigma: 2.0 * radius,
            floor_y: params.domain_min[1],
            // about twelve tiles across the domain, at a round size
            tile: 10f32.powf((extent / 12.0).log10().round()),
            // a sphere's largest chord is 512 units: 8 million spheres deep before a u32 wraps
            thickness_unit: radius / 256.0,
            refraction: 0.6,
            // a particle and a half at the distance of the camera's target
            thickness_blur_px: (1.5 * spacing * proj.col(1).y * size[1] as f32 * 0.5 / camera_distance.max(1e-6)).clamp(1.0, 16.0),
            spray_density: if settings.spray { SPRAY_DENSITY_OVER_REST * params.rest_density } else { 0.0 },
        }
    }
}

/// What is sized to the viewport.
struct Targets {
    size: [u32; 2],
    depth_bits: wgpu::Buffer,
    thickness: wgpu::Buffer,
    spray_bits: wgpu::Buffer,
    depth_smooth: wgpu::Buffer,
    background: wgpu::TextureView,
    background_depth: wgpu::TextureView,
    filter_x: wgpu::BindGroup,
    filter_y: wgpu::BindGroup,
    shade: wgpu::BindGroup,
    /// The splat pass's bind group per particle set (at most the simulation's two), by its
    /// position buffer.
    splat: Vec<(wgpu::Buffer, wgpu::BindGroup)>,
}

/// A compute pipeline of the 3D view with its reflected bindings (the surface and sphere views').
pub(super) struct ComputeKernel {
    pub(super) pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    bindings: Vec<Binding>,
}

impl ComputeKernel {
    pub(super) fn new(device: &wgpu::Device, label: &str, source: &str, entry: &str, constants: &[(&str, f64)]) -> Self {
        let bindings =
            crate::wgsl::bindings(label, source, &[entry]).unwrap_or_else(|e| panic!("{e} (tests/shaders.rs checks every file)"));
        let layout = kernels::layout(device, label, &bindings);
        let module = kernels::module(device, label, source, true);
        let pipeline = kernels::pipeline(device, label, &layout, &module, entry, constants);
        Self { pipeline, layout, bindings }
    }

    pub(super) fn bind(&self, device: &wgpu::Device, label: &str, buffers: &[(&str, &wgpu::Buffer)]) -> wgpu::BindGroup {
        kernels::bind(device, label, &self.layout, &self.bindings, buffers).unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The surface view's pipelines and viewport-sized resources.
pub(crate) struct SurfacePass {
    uniforms: wgpu::Buffer,
    environment: wgpu::RenderPipeline,
    environment_group: wgpu::BindGroup,
    splat: ComputeKernel,
    filter_x: ComputeKernel,
    filter_y: ComputeKernel,
    shade_layout: wgpu::BindGroupLayout,
    shade: wgpu::RenderPipeline,
    color: wgpu::TextureFormat,
    max_dim: u32,
    targets: Option<Targets>,
    /// GPU objects made so far: viewport-sized sets and splat bind groups (tests check that a
    /// frame makes none).
    made: u64,
}

/// surface_*.wgsl with its imports.
pub fn source(file: &str) -> String {
    crate::wgsl::compose(file).unwrap_or_else(|e| panic!("shaders/{file}.wgsl: {e} (tests/shaders.rs checks every file)"))
}

pub(super) fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
        count: None,
    }
}

pub(super) fn storage_read_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn fullscreen_pipeline(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    module: &wgpu::ShaderModule,
    entry: &str,
    color: wgpu::TextureFormat,
    depth: bool,
) -> wgpu::RenderPipeline {
    let pl = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    // in a pass with a depth attachment: neither tested nor written
    let depth = depth.then_some(super::DepthUse { write: false, compare: wgpu::CompareFunction::Always });
    super::pipeline(device, label, &pl, module, ("vs_fullscreen", entry), &[], wgpu::PrimitiveTopology::TriangleList, color, depth)
}

impl SurfacePass {
    pub(crate) fn new(device: &wgpu::Device, color: wgpu::TextureFormat) -> Self {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.surface.uniforms"),
            size: std::mem::size_of::<SurfaceUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let splat_src = source("surface_splat");
        let filter_src = source("surface_filter");
        let shade_src = source("surface_shade");
        let shade_module = kernels::module(device, "render.surface.shade", &shade_src, true);

        let env_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.surface.environment"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::FRAGMENT)],
        });
        let environment_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.surface.environment"),
            layout: &env_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() }],
        });
        let shade_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.surface.shade"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                storage_read_entry(1),
                storage_read_entry(2),
                wgpu::BindGroupLayoutEntry {
                    binding: 3,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 4,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                storage_read_entry(5),
            ],
        });
        Self {
            environment: fullscreen_pipeline(
                device,
                "render.surface.environment",
                &env_layout,
                &shade_module,
                "fs_environment",
                color,
                true,
            ),
            shade: fullscreen_pipeline(device, "render.surface.shade", &shade_layout, &shade_module, "fs_shade", color, false),
            environment_group,
            splat: ComputeKernel::new(device, "render.surface.splat", &splat_src, "splat", &[]),
            filter_x: ComputeKernel::new(device, "render.surface.filter_x", &filter_src, "filter_pass", &[("FIRST", 1.0)]),
            filter_y: ComputeKernel::new(device, "render.surface.filter_y", &filter_src, "filter_pass", &[("FIRST", 0.0)]),
            shade_layout,
            uniforms,
            color,
            max_dim: device.limits().max_compute_workgroups_per_dimension,
            targets: None,
            made: 0,
        }
    }

    fn make_targets(&self, device: &wgpu::Device, size: [u32; 2]) -> Targets {
        let pixels = size[0] as u64 * size[1] as u64;
        let buffer = |label: &str| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: pixels * 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        };
        let depth_bits = buffer("render.surface.depth_bits");
        let thickness = buffer("render.surface.thickness");
        let spray_bits = buffer("render.surface.spray_bits");
        let across = buffer("render.surface.depth_across");
        let smooth = buffer("render.surface.depth_smooth");
        let thickness_across = buffer("render.surface.thickness_across");
        let thickness_smooth = buffer("render.surface.thickness_smooth");
        let texture = |label: &str, format| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor { label: Some(label), ..Default::default() })
        };
        let background = texture("render.surface.background", self.color);
        let background_depth = texture("render.surface.background_depth", DEPTH_FORMAT);
        let u = &self.uniforms;
        let filter_x = self.filter_x.bind(
            device,
            "render.surface.filter_x",
            &[
                ("surf", u),
                ("depth_in", &depth_bits),
                ("depth_out", &across),
                ("thickness_in", &thickness),
                ("thickness_out", &thickness_across),
            ],
        );
        let filter_y = self.filter_y.bind(
            device,
            "render.surface.filter_y",
            &[
                ("surf", u),
                ("depth_in", &across),
                ("depth_out", &smooth),
                ("thickness_in", &thickness_across),
                ("thickness_out", &thickness_smooth),
            ],
        );
        let shade = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.surface.shade"),
            layout: &self.shade_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: u.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: smooth.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: thickness_smooth.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: wgpu::BindingResource::TextureView(&background) },
                wgpu::BindGroupEntry { binding: 4, resource: wgpu::BindingResource::TextureView(&background_depth) },
                wgpu::BindGroupEntry { binding: 5, resource: spray_bits.as_entire_binding() },
            ],
        });
        Targets {
            size,
            depth_bits,
            thickness,
            spray_bits,
            depth_smooth: smooth,
            background,
            background_depth,
            filter_x,
            filter_y,
            shade,
            splat: Vec::new(),
        }
    }

    /// Records the four passes: the background into the pass's own texture (`draw_background`
    /// records the box and walls into the render pass it is given, after the environment), the
    /// fluid of `pos_mass` (`n` particles), and the water over the background into `viewport`
    /// of `target`. `timing(k)` gives pass k's timestamp writes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record<'t>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        viewport: super::Viewport,
        uniforms: &SurfaceUniforms,
        particles: Option<&crate::sim::buffers::ParticleSet>,
        draw_background: impl FnOnce(&mut wgpu::RenderPass<'_>),
        timing: impl Fn(usize) -> Option<(&'t wgpu::QuerySet, Option<u32>, Option<u32>)>,
    ) {
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(uniforms));
        let size = uniforms.size;
        let max_dim = self.max_dim;
        // the viewport-sized buffers and textures, made again only when the size changed
        if self.targets.as_ref().is_none_or(|t| t.size != size) {
            self.targets = None; // the old ones go before the new ones are made
            self.targets = Some(self.make_targets(device, size));
            self.made += 1;
        }
        let splat_group = particles.map(|set| self.splat_group(device, set));
        let t = self.targets.as_mut().expect("made above");
        let render_writes = |k: usize| {
            timing(k).map(|(query_set, b, e)| wgpu::RenderPassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: b,
                end_of_pass_write_index: e,
            })
        };
        let compute_writes = |k: usize| {
            timing(k).map(|(query_set, b, e)| wgpu::ComputePassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: b,
                end_of_pass_write_index: e,
            })
        };
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(PASSES[0]),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.background,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.background_depth,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
                    stencil_ops: None,
                }),
                timestamp_writes: render_writes(0),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.environment);
            pass.set_bind_group(0, &self.environment_group, &[]);
            pass.draw(0..3, 0..1);
            draw_background(&mut pass);
        }
        encoder.clear_buffer(&t.depth_bits, 0, None);
        encoder.clear_buffer(&t.thickness, 0, None);
        encoder.clear_buffer(&t.spray_bits, 0, None);
        {
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(PASSES[1]), timestamp_writes: compute_writes(1) });
            if let Some(group) = &splat_group
                && uniforms.n_particles > 0
            {
                pass.set_pipeline(&self.splat.pipeline);
                pass.set_bind_group(0, group, &[]);
                kernels::dispatch(&mut pass, uniforms.n_particles.div_ceil(256), max_dim);
            }
        }
        {
            let mut pass =
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(PASSES[2]), timestamp_writes: compute_writes(2) });
            let groups = [size[0].div_ceil(16), size[1].div_ceil(16)];
            pass.set_pipeline(&self.filter_x.pipeline);
            pass.set_bind_group(0, &t.filter_x, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], 1);
            pass.set_pipeline(&self.filter_y.pipeline);
            pass.set_bind_group(0, &t.filter_y, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], 1);
        }
        let [r, g, b] = super::BACKGROUND.map(|c| super::colormap::srgb_to_linear(c as f32 / 255.0) as f64);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(PASSES[3]),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a: 1.0 }), store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: render_writes(3),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_viewport(viewport.x, viewport.y, size[0] as f32, size[1] as f32, 0.0, 1.0);
        pass.set_pipeline(&self.shade);
        pass.set_bind_group(0, &t.shade, &[]);
        pass.draw(0..3, 0..1);
    }

    /// The splat's bind group for a particle set: the one made for it before (the two latest
    /// are kept: the simulation's sets alternate), or a new one. Needs the targets.
    fn splat_group(&mut self, device: &wgpu::Device, set: &crate::sim::buffers::ParticleSet) -> wgpu::BindGroup {
        let t = self.targets.as_mut().expect("the targets are made first");
        let buffer = &set.pos_mass;
        if let Some(k) = t.splat.iter().position(|(b, _)| b == buffer) {
            return t.splat[k].1.clone();
        }
        let group = self.splat.bind(
            device,
            "render.surface.splat",
            &[
                ("surf", &self.uniforms),
                ("pos_mass", buffer),
                ("vel_rho", &set.vel_rho),
                ("depth_bits", &t.depth_bits),
                ("thickness", &t.thickness),
                ("spray_bits", &t.spray_bits),
            ],
        );
        self.made += 1;
        if t.splat.len() >= 2 {
            t.splat.remove(0);
        }
        t.splat.push((buffer.clone(), group.clone()));
        group
    }

    /// Lets go of the bind groups that hold particle buffers (a new simulation replaced the old
    /// one: its buffers are freed now, not when two surface frames have run).
    pub(crate) fn release_particles(&mut self) {
        if let Some(t) = &mut self.targets {
            t.splat.clear();
        }
    }

    /// How many times buffers, textures or bind groups were made: at the first frame, on a
    /// new viewport size and for a new particle buffer, never on a frame like the last.
    pub(crate) fn made(&self) -> u64 {
        self.made
    }

    /// Testing: the smoothed depth of the last frame recorded (view depth per pixel of the
    /// viewport, row by row from the top; 0 where there is no water), read back with a wait
    /// (None without a frame, or when the readback fails).
    pub(crate) fn read_depth(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Option<([u32; 2], Vec<f32>)> {
        let t = self.targets.as_ref()?;
        let bytes = crate::sim::buffers::read_bytes(device, queue, &t.depth_smooth, 0, t.size[0] as u64 * t.size[1] as u64 * 4).ok()?;
        Some((t.size, bytemuck::cast_slice(&bytes).to_vec()))
    }
}
