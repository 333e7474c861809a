//! The egui layer of the window: egui-winit turns the window's events into egui input and
//! applies egui's platform output (cursor, clipboard, IME); egui-wgpu uploads egui's textures
//! and draws the tessellated UI in its own render pass over the scene. Kept apart from the shell
//! so that the frame's order reads in one place while egui's own bookkeeping (texture deltas,
//! the command buffers egui-wgpu asks to be submitted first, textures freed after the submit)
//! stays here.

use crate::gpu::Gpu;
use winit::event::WindowEvent;
use winit::window::Window;

/// egui on the window: its input, its platform output, and its render pass.
pub(crate) struct Overlay {
    ctx: egui::Context,
    state: egui_winit::State,
    painter: Painter,
}

/// egui's drawing on the GPU: its textures and its render pass over a target. The window's
/// overlay and `rillet render --panel`'s (crate::app::panel_frame) draw through it.
pub(crate) struct Painter {
    renderer: egui_wgpu::Renderer,
    /// Textures egui is done with, freed once the frame that last drew them is submitted.
    to_free: Vec<egui::TextureId>,
}

impl Overlay {
    /// egui for `window`, drawing into surface textures of `format`.
    pub(crate) fn new(gpu: &Gpu, window: &Window, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        let max_tex = gpu.limits.max_texture_dimension_2d as usize;
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_tex),
        );
        Self { ctx, state, painter: Painter::new(gpu, format) }
    }

    /// Hands a window event to egui; true when egui wants the window redrawn.
    pub(crate) fn on_window_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        self.state.on_window_event(window, event).repaint
    }

    /// Runs one egui frame with the input gathered since the last, building the UI with `build`;
    /// applies egui's platform output and returns what is left to draw.
    pub(crate) fn run(&mut self, window: &Window, build: impl FnMut(&mut egui::Ui)) -> egui::FullOutput {
        let raw = self.state.take_egui_input(window);
        let mut full = self.ctx.run_ui(raw, build);
        self.state.handle_platform_output(window, std::mem::take(&mut full.platform_output));
        full
    }

    /// Records the egui pass (labelled `ui.egui`) over `target`, a view of a surface texture of
    /// `size` pixels, keeping what is drawn there. Returns the command buffers egui-wgpu needs
    /// submitted before `encoder`'s; call [`Overlay::submitted`] after the submit.
    pub(crate) fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        full: egui::FullOutput,
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> Vec<wgpu::CommandBuffer> {
        self.painter.record(gpu, &self.ctx, encoder, target, size, full, timestamp_writes)
    }

    /// After the submit: frees the textures egui no longer uses.
    pub(crate) fn submitted(&mut self) {
        self.painter.submitted();
    }
}

impl Painter {
    /// egui's renderer for targets of `format`.
    pub(crate) fn new(gpu: &Gpu, format: wgpu::TextureFormat) -> Self {
        let renderer = egui_wgpu::Renderer::new(
            &gpu.device,
            format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                depth_stencil_format: None,
                dithering: true,
                predictable_texture_filtering: false,
            },
        );
        Self { renderer, to_free: Vec::new() }
    }

    /// Records the egui pass (labelled `ui.egui`) of `ctx`'s frame `full` over `target` (`size`
    /// pixels), keeping what is drawn there. Returns the command buffers egui-wgpu needs
    /// submitted before `encoder`'s; call [`Painter::submitted`] after the submit.
    pub(crate) fn record(
        &mut self,
        gpu: &Gpu,
        ctx: &egui::Context,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        mut full: egui::FullOutput,
        timestamp_writes: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> Vec<wgpu::CommandBuffer> {
        let (device, queue) = (&gpu.device, &gpu.queue);
        let ppp = full.pixels_per_point;
        let jobs = ctx.tessellate(full.shapes, ppp);
        for (id, deltas) in &full.textures_delta.set {
            for delta in deltas {
                self.renderer.update_texture(device, queue, *id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: size, pixels_per_point: ppp };
        let extra = self.renderer.update_buffers(device, queue, encoder, &jobs, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("ui.egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: target,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            self.renderer.render(&mut pass, &jobs, &screen);
        }
        self.to_free.extend(full.textures_delta.free.drain());
        extra
    }

    /// After the submit: frees the textures egui no longer uses.
    pub(crate) fn submitted(&mut self) {
        for id in self.to_free.drain(..) {
            self.renderer.free_texture(&id);
        }
    }
}
