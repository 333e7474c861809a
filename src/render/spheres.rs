//! The sphere view: every particle a lit sphere, drawn by compute in three passes a frame.
//!
//! 1. `render.scene` (render pass into the target): the background, the domain box and the
//!    solids, with a depth buffer kept for pass 3.
//! 2. `render.spheres.splat` (compute, a thread per particle, two dispatches): each shown particle
//!    ray-cast into the pixels it covers: the nearest view depth per pixel, then the index of the
//!    particle at that depth (`shaders/spheres.wgsl`).
//! 3. `render.spheres.shade` (render pass into the target's viewport, a full-screen triangle):
//!    each pixel's particle lit as a sphere, its colour from the colormap, written with its depth
//!    against pass 1's (`shaders/spheres_shade.wgsl`).
//!
//! Compute rather than rasterised sprites: a GPU made for compute has few raster units, and a
//! sprite that writes its fragments' depth cannot be culled early. The viewport-sized buffers are
//! made when that size changes, never per frame; the bind groups are kept per particle set (the
//! simulation's two, which the reorder swaps). [`splat_twin`] is the splat's CPU twin.

use super::surface::{ComputeKernel, storage_read_entry, uniform_entry};
use crate::sim::shader as kernels;
use glam::{Mat4, Vec3, Vec4};

pub use crate::wgsl::shared::SphereView;

/// Labels of the sphere view's passes, in order (and in timestamp order).
pub(crate) const PASSES: [&str; 3] = ["render.scene", "render.spheres.splat", "render.spheres.shade"];
/// [`PASSES`] and egui's pass after them (`rillet render --panel`).
pub(crate) const PASSES_WITH_UI: [&str; 4] = ["render.scene", "render.spheres.splat", "render.spheres.shade", "ui.egui"];

/// A sphere larger than this on the screen is cut to a square of this half-side
/// (`MAX_SPLAT_PX` of `shaders/spheres.wgsl`).
pub const MAX_SPLAT_PX: f32 = 48.0;

/// Relative depth within which a particle counts as a pixel's nearest in the splat's second
/// dispatch (`SAME_DEPTH` of `shaders/spheres.wgsl`).
pub const SAME_DEPTH: f32 = 2e-6;

/// What is sized to the viewport.
struct Targets {
    size: [u32; 2],
    depth_bits: wgpu::Buffer,
    ids: wgpu::Buffer,
    /// The bind groups per particle set (at most the simulation's two), by its position buffer:
    /// the two dispatches' and the shade pass's.
    groups: Vec<(wgpu::Buffer, [wgpu::BindGroup; 3])>,
}

/// The sphere view's pipelines and viewport-sized buffers.
pub(crate) struct SpherePass {
    view: wgpu::Buffer,
    splat_depth: ComputeKernel,
    splat_id: ComputeKernel,
    shade_layout: wgpu::BindGroupLayout,
    shade: wgpu::RenderPipeline,
    max_dim: u32,
    targets: Option<Targets>,
    /// GPU objects made so far (buffers and bind groups; tests check that a frame makes none).
    made: u64,
}

impl SpherePass {
    pub(crate) fn new(device: &wgpu::Device, color: wgpu::TextureFormat) -> Self {
        let view = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.spheres.view"),
            size: std::mem::size_of::<SphereView>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let splat_src = super::surface::source("spheres");
        let shade_src = super::surface::source("spheres_shade");
        let shade_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render.spheres.shade"),
            entries: &[
                uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                uniform_entry(1, wgpu::ShaderStages::FRAGMENT),
                storage_read_entry(2),
                storage_read_entry(3),
                storage_read_entry(4),
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render.spheres.shade"),
            bind_group_layouts: &[Some(&shade_layout)],
            immediate_size: 0,
        });
        let module = kernels::module(device, "render.spheres.shade", &shade_src, true);
        let shade = super::pipeline(
            device,
            "render.spheres.shade",
            &layout,
            &module,
            ("vs_fullscreen", "fs_spheres"),
            &[],
            wgpu::PrimitiveTopology::TriangleList,
            color,
            Some(super::DepthUse { write: true, compare: wgpu::CompareFunction::Less }),
        );
        Self {
            view,
            splat_depth: ComputeKernel::new(device, "render.spheres.splat_depth", &splat_src, "splat_depth", &[]),
            splat_id: ComputeKernel::new(device, "render.spheres.splat_id", &splat_src, "splat_id", &[]),
            shade_layout,
            shade,
            max_dim: device.limits().max_compute_workgroups_per_dimension,
            targets: None,
            made: 0,
        }
    }

    /// Records passes 2 and 3 (pass 1 is the caller's: `depth` holds its depth): the first `n`
    /// particles of `particles` into `viewport` of `target`, `size` its whole pixels. `frame` is
    /// the frame's uniform block (as the render pipelines see it); `timing(k)` gives pass k's
    /// timestamp writes (k = 1, 2). Both passes are recorded whatever there is to draw, so that a
    /// frame's timestamps are always written.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record<'t>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        depth: &wgpu::TextureView,
        viewport: super::Viewport,
        size: [u32; 2],
        frame: &wgpu::Buffer,
        particles: Option<(&crate::sim::buffers::ParticleSet, u32)>,
        timing: impl Fn(usize) -> Option<(&'t wgpu::QuerySet, Option<u32>, Option<u32>)>,
    ) {
        let visible = size[0] >= 1 && size[1] >= 1;
        let n = particles.map_or(0, |(_, n)| n);
        let uniforms = SphereView { size, origin: [viewport.x, viewport.y], n_particles: n, _pad: [0; 3] };
        queue.write_buffer(&self.view, 0, bytemuck::bytes_of(&uniforms));
        if visible && self.targets.as_ref().is_none_or(|t| t.size != size) {
            self.targets = None; // the old ones go before the new ones are made
            self.targets = Some(self.make_targets(device, size));
            self.made += 1;
        }
        let groups = match (visible, particles) {
            (true, Some((set, n))) if n > 0 => Some(self.groups(device, frame, set)),
            _ => None,
        };
        if let (Some(t), Some(_)) = (&self.targets, &groups) {
            encoder.clear_buffer(&t.depth_bits, 0, None);
            encoder.clear_buffer(&t.ids, 0, None);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(PASSES[1]),
                timestamp_writes: timing(1).map(|(query_set, b, e)| wgpu::ComputePassTimestampWrites {
                    query_set,
                    beginning_of_pass_write_index: b,
                    end_of_pass_write_index: e,
                }),
            });
            if let Some([first, second, _]) = &groups {
                let workgroups = n.div_ceil(256);
                pass.set_pipeline(&self.splat_depth.pipeline);
                pass.set_bind_group(0, first, &[]);
                kernels::dispatch(&mut pass, workgroups, self.max_dim);
                pass.set_pipeline(&self.splat_id.pipeline);
                pass.set_bind_group(0, second, &[]);
                kernels::dispatch(&mut pass, workgroups, self.max_dim);
            }
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(PASSES[2]),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: timing(2).map(|(query_set, b, e)| wgpu::RenderPassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: b,
                end_of_pass_write_index: e,
            }),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if let Some([_, _, shade]) = &groups {
            pass.set_viewport(viewport.x, viewport.y, size[0] as f32, size[1] as f32, 0.0, 1.0);
            pass.set_pipeline(&self.shade);
            pass.set_bind_group(0, shade, &[]);
            pass.draw(0..3, 0..1);
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
        Targets { size, depth_bits: buffer("render.spheres.depth_bits"), ids: buffer("render.spheres.ids"), groups: Vec::new() }
    }

    /// The bind groups for a particle set: those made for it before (the two latest sets are
    /// kept: the simulation's sets alternate), or new ones. Needs the targets.
    fn groups(&mut self, device: &wgpu::Device, frame: &wgpu::Buffer, set: &crate::sim::buffers::ParticleSet) -> [wgpu::BindGroup; 3] {
        let t = self.targets.as_mut().expect("the targets are made first");
        if let Some(k) = t.groups.iter().position(|(b, _)| *b == set.pos_mass) {
            return t.groups[k].1.clone();
        }
        let splat = |kernel: &ComputeKernel, label| {
            kernel.bind(
                device,
                label,
                &[("frame", frame), ("px", &self.view), ("pos_mass", &set.pos_mass), ("depth_bits", &t.depth_bits), ("ids", &t.ids)],
            )
        };
        let first = splat(&self.splat_depth, "render.spheres.splat_depth");
        let second = splat(&self.splat_id, "render.spheres.splat_id");
        let shade = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render.spheres.shade"),
            layout: &self.shade_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: frame.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: self.view.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: set.pos_mass.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: set.vel_rho.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: t.ids.as_entire_binding() },
            ],
        });
        self.made += 1;
        if t.groups.len() >= 2 {
            t.groups.remove(0);
        }
        let groups = [first, second, shade];
        t.groups.push((set.pos_mass.clone(), groups.clone()));
        groups
    }

    /// Lets go of the bind groups that hold particle buffers (a new simulation replaced the old
    /// one).
    pub(crate) fn release_particles(&mut self) {
        if let Some(t) = &mut self.targets {
            t.groups.clear();
        }
    }

    pub(crate) fn made(&self) -> u64 {
        self.made
    }

    /// Testing: the last frame's splat, read back with a wait: per pixel of the viewport (row by
    /// row from the top) the nearest view depth (0: none) and the index + 1 of the particle drawn
    /// there (0: none). None without a frame, or when the readback fails.
    pub(crate) fn read_splat(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Splat> {
        let t = self.targets.as_ref()?;
        let len = t.size[0] as u64 * t.size[1] as u64 * 4;
        let bits = crate::sim::buffers::read_bytes(device, queue, &t.depth_bits, 0, len).ok()?;
        let ids = crate::sim::buffers::read_bytes(device, queue, &t.ids, 0, len).ok()?;
        let depth = bytemuck::cast_slice::<u8, u32>(&bits).iter().map(|&b| if b == 0 { 0.0 } else { f32::from_bits(!b) }).collect();
        Some(Splat { size: t.size, depth, ids: bytemuck::cast_slice(&ids).to_vec() })
    }
}

/// The sphere view's splat of one frame: per pixel of the viewport, row by row from the top.
#[derive(Clone, Debug)]
pub struct Splat {
    pub size: [u32; 2],
    /// The nearest sphere's view depth (distance along −z), 0 where no sphere covers the pixel.
    pub depth: Vec<f32>,
    /// The index + 1 of the particle drawn at the pixel, 0 where none.
    pub ids: Vec<u32>,
}

/// The splat's CPU twin: the same ray casts as `shaders/spheres.wgsl` in f32, for the
/// particles `pos_mass` seen with `frame` in a viewport of `size` pixels. Where two spheres are
/// within [`SAME_DEPTH`] of each other at a pixel the GPU may draw either (its second dispatch
/// compares with the depth the first kept); the twin keeps the larger index, as the GPU does
/// among those it finds.
pub fn splat_twin(frame: &super::uniforms::FrameUniforms, size: [u32; 2], pos_mass: &[[f32; 4]]) -> Splat {
    let pixels = size[0] as usize * size[1] as usize;
    let (mut depth, mut ids) = (vec![0f32; pixels], vec![0u32; pixels]);
    let view = Mat4::from_cols_array_2d(&frame.view);
    let proj = Mat4::from_cols_array_2d(&frame.proj);
    let eye = view.inverse().w_axis.truncate();
    let (lo, hi) = (Vec3::from(frame.domain_min), Vec3::from(frame.domain_max));
    let sz = [size[0] as f32, size[1] as f32];
    let ray = |x: f32, y: f32| {
        let ndc = [(x + 0.5) / sz[0] * 2.0 - 1.0, 1.0 - (y + 0.5) / sz[1] * 2.0];
        Vec3::new(ndc[0] / proj.x_axis.x, ndc[1] / proj.y_axis.y, -1.0)
    };
    let shown = |p: [f32; 4]| {
        let q = Vec3::new(p[0], p[1], p[2]);
        if p[3] == 0.0 || !(q.abs().max_element() < 1e30) {
            return false;
        }
        if p[3] < 0.0 {
            let faces = (q.cmplt(lo) & eye.cmplt(lo)).any() || (q.cmpgt(hi) & eye.cmpgt(hi)).any();
            return frame.show_boundary != 0 && !faces;
        }
        frame.show_fluid != 0
    };
    // the pixels a particle's sphere covers, and its depth at each
    let cover = |p: [f32; 4], visit: &mut dyn FnMut(usize, f32)| {
        if !shown(p) {
            return;
        }
        let c = (view * Vec4::new(p[0], p[1], p[2], 1.0)).truncate();
        let r = frame.radius;
        let d = -c.z;
        if d <= r * 1.01 {
            return;
        }
        let clip = proj * c.extend(1.0);
        let ndc = [clip.x / clip.w, clip.y / clip.w];
        let centre = [(ndc[0] * 0.5 + 0.5) * sz[0], (0.5 - ndc[1] * 0.5) * sz[1]];
        let reach = (r * proj.y_axis.y * sz[1] * 0.5 / d * (c.length() / d) * 1.1 + 1.0).min(MAX_SPLAT_PX);
        let x0 = ((centre[0] - reach).floor() as i32).max(0);
        let y0 = ((centre[1] - reach).floor() as i32).max(0);
        let x1 = ((centre[0] + reach).ceil() as i32).min(size[0] as i32 - 1);
        let y1 = ((centre[1] + reach).ceil() as i32).min(size[1] as i32 - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let ray = ray(x as f32, y as f32);
                let len = ray.length();
                let dir = ray / len;
                let b = dir.dot(c);
                let off = c - dir * b;
                let disc = r * r - off.dot(off);
                if disc >= 0.0 {
                    visit(y as usize * size[0] as usize + x as usize, (b - disc.sqrt()) / len);
                }
            }
        }
    };
    for &p in pos_mass {
        cover(p, &mut |k, z| {
            if depth[k] == 0.0 || z < depth[k] {
                depth[k] = z;
            }
        });
    }
    for (i, &p) in pos_mass.iter().enumerate() {
        cover(p, &mut |k, z| {
            if z <= depth[k] * (1.0 + SAME_DEPTH) {
                ids[k] = ids[k].max(i as u32 + 1);
            }
        });
    }
    Splat { size, depth, ids }
}
