//! The 3D view: the sphere renderer, the user's view settings and camera, the part of the
//! window left to the view once the panel is laid out, and the GPU times of the frame's two
//! render passes. The camera is driven by egui's input over that part (the panel takes its own
//! input first), so the view and the panel never both act on one click.

use super::driver::TIMESTAMPS_EVERY;
use super::render_timer::RenderTimer;
use crate::gpu::Gpu;
use crate::render::{ColorMode, Renderer, ViewSettings, Viewport};
use crate::sim::Sim;
use crate::sim::params::SimParams;

/// The 3D part of the window and how it is drawn.
pub(crate) struct SceneView {
    renderer: Renderer,
    /// GPU times of the render passes (where the adapter has timestamp queries).
    timer: Option<RenderTimer>,
    /// What the panel and the keys change: camera, colours, what is shown.
    pub settings: ViewSettings,
    /// The part of the surface the scene is drawn in, in pixels.
    viewport: Viewport,
    /// Frame the scene once the view's size is known (after the first panel layout).
    frame_camera: bool,
    /// A shift-drag in progress (it moves a floating body, not the camera), and the drag's
    /// events since the viewer last took them.
    grabbing: bool,
    grab_events: Vec<GrabEvent>,
}

/// A shift-drag in the view: pressed, moved or let go, with the ray under the pointer (origin and
/// unit direction, scene coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum GrabEvent {
    Start(glam::Vec3, glam::Vec3),
    Move(glam::Vec3, glam::Vec3),
    Release,
}

impl SceneView {
    /// `size`: the window's, until the first layout says what the panel leaves to the view.
    pub(crate) fn new(gpu: &Gpu, format: wgpu::TextureFormat, params: &SimParams, size: [u32; 2]) -> Self {
        let (width, height) = (size[0] as f32, size[1] as f32);
        Self {
            renderer: Renderer::new(&gpu.device, format),
            timer: gpu.has_timestamps().then(|| RenderTimer::new(&gpu.device, &gpu.queue)),
            settings: ViewSettings::new(params, width.max(1.0) / height.max(1.0)),
            viewport: Viewport { x: 0.0, y: 0.0, width, height },
            frame_camera: true,
            grabbing: false,
            grab_events: Vec::new(),
        }
    }

    /// Where point `x` of the scene is drawn, in pixels of the surface (None behind the camera).
    pub(crate) fn on_screen(&self, x: glam::Vec3) -> Option<[f32; 2]> {
        let v = self.viewport;
        let cam = &self.settings.camera;
        let clip = cam.proj(v.aspect()) * cam.view() * x.extend(1.0);
        (clip.w > 0.0).then(|| [v.x + (clip.x / clip.w + 1.0) * 0.5 * v.width, v.y + (1.0 - clip.y / clip.w) * 0.5 * v.height])
    }

    /// The shift-drag's events since the last call.
    pub(crate) fn take_grab_events(&mut self) -> Vec<GrabEvent> {
        std::mem::take(&mut self.grab_events)
    }

    /// A new simulation runs (reset, reload): the renderer lets go of the old particle buffers.
    pub(crate) fn release_particles(&mut self) {
        self.renderer.release_particles();
    }

    /// The scene's solids (triangles) to draw, when a scene is loaded.
    pub(crate) fn set_solids(&mut self, gpu: &Gpu, triangles: &[[f32; 3]]) {
        self.renderer.set_solids(&gpu.device, triangles);
    }

    /// The moving solids where they are now: the vertices of [`Self::set_solids`] from `first`
    /// on, moved.
    pub(crate) fn move_solids(&mut self, gpu: &Gpu, first: usize, vertices: &[[f32; 3]]) {
        self.renderer.move_solids(&gpu.queue, first, vertices);
    }

    /// Frames the whole scene again on the next frame.
    pub(crate) fn reframe(&mut self) {
        self.frame_camera = true;
    }

    /// A new scene runs: its colour ranges, and its framing when the domain changed.
    pub(crate) fn scene_replaced(&mut self, params: &SimParams, domain_changed: bool) {
        self.frame_camera |= domain_changed;
        self.settings.ranges = ColorMode::ALL.map(|m| m.default_range(params));
    }

    /// The rest of the window after the panel: the camera's input (drag to rotate, right or
    /// middle drag to pan, wheel to zoom) and shift-drag (a floating body follows the pointer:
    /// [`GrabEvent`]s for the viewer). Returns the view's rectangle in pixels,
    /// [x0, y0, x1, y1], clamped to the surface of `surface_size`.
    pub(crate) fn input(&mut self, ui: &mut egui::Ui, surface_size: [u32; 2]) -> [f32; 4] {
        let camera = &mut self.settings.camera;
        let (grabbing, events) = (&mut self.grabbing, &mut self.grab_events);
        let mut central = egui::Rect::NOTHING;
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let rect = ui.max_rect();
            central = rect;
            let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
            let d = response.drag_delta();
            let ray = |camera: &crate::render::camera::OrbitCamera, p: egui::Pos2| {
                let ndc = [(p.x - rect.min.x) / rect.width().max(1.0) * 2.0 - 1.0, 1.0 - (p.y - rect.min.y) / rect.height().max(1.0) * 2.0];
                camera.ray(ndc, rect.width().max(1.0) / rect.height().max(1.0))
            };
            let pointer = response.interact_pointer_pos();
            if response.drag_started_by(egui::PointerButton::Primary)
                && ui.input(|i| i.modifiers.shift)
                && let Some(p) = pointer
            {
                *grabbing = true;
                let (o, dir) = ray(camera, p);
                events.push(GrabEvent::Start(o, dir));
            } else if *grabbing {
                if let Some(p) = pointer.filter(|_| response.dragged_by(egui::PointerButton::Primary)) {
                    let (o, dir) = ray(camera, p);
                    events.push(GrabEvent::Move(o, dir));
                }
                if !response.dragged() {
                    *grabbing = false;
                    events.push(GrabEvent::Release);
                }
            } else if response.dragged_by(egui::PointerButton::Primary) {
                camera.rotate(d.x, d.y);
            } else if response.dragged_by(egui::PointerButton::Secondary) || response.dragged_by(egui::PointerButton::Middle) {
                camera.pan(d.x, d.y, rect.height());
            }
            if response.hovered() {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    camera.zoom(scroll / 100.0);
                }
            }
        });
        let ppp = ui.ctx().pixels_per_point();
        let [w, h] = surface_size.map(|v| v as f32);
        let x0 = (central.min.x * ppp).clamp(0.0, w);
        let y0 = (central.min.y * ppp).clamp(0.0, h);
        let x1 = (central.max.x * ppp).clamp(x0, w);
        let y1 = (central.max.y * ppp).clamp(y0, h);
        self.viewport = Viewport { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
        [x0, y0, x1, y1]
    }

    /// Frames the scene when asked to (at start, `C`, a reload into another domain).
    pub(crate) fn frame_if_asked(&mut self, params: &SimParams) {
        if std::mem::take(&mut self.frame_camera) {
            self.settings.camera = ViewSettings::new(params, self.viewport.aspect()).camera;
        }
    }

    /// Records the 3D view of frame `frame` (the fluid of `sim` as spheres or water, the box) into
    /// `target`, a view of the surface texture of `size` pixels.
    pub(crate) fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: [u32; 2],
        sim: &Sim,
        frame: u64,
    ) {
        if let Some(t) = self.timer.as_mut().filter(|_| frame.is_multiple_of(TIMESTAMPS_EVERY)) {
            t.start(frame);
        }
        let timer = timed(&self.timer, frame);
        self.renderer.record(
            &gpu.device,
            &gpu.queue,
            encoder,
            target,
            size,
            self.viewport,
            &self.settings,
            sim.params(),
            Some((sim.current(), sim.n_particles())),
            timer.map_or(crate::render::Timing::Off, |t| t.scene_timing()),
        );
    }

    /// Timestamp writes for the egui pass of frame `frame`, when it is timed.
    pub(crate) fn overlay_timestamps(&self, frame: u64) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        timed(&self.timer, frame).map(|t| t.writes(1))
    }

    /// After both passes of a timed frame: the copy of their times.
    pub(crate) fn record_times(&mut self, encoder: &mut wgpu::CommandEncoder, frame: u64) {
        if timed(&self.timer, frame).is_some()
            && let Some(t) = &mut self.timer
        {
            t.record_copy(encoder, frame);
        }
    }

    pub(crate) fn submitted(&mut self) {
        if let Some(t) = &mut self.timer {
            t.submitted();
        }
    }

    /// Takes the render pass times that have arrived (after a device poll), without waiting.
    pub(crate) fn poll(&mut self) {
        if let Some(t) = &mut self.timer {
            t.poll();
        }
    }

    /// The latest render pass times: the frame they were measured on and the milliseconds of
    /// each pass of [`super::render_timer::PASSES`].
    pub(crate) fn render_times(&self) -> Option<(u64, [f64; 2])> {
        self.timer.as_ref().and_then(|t| t.latest)
    }
}

/// The timer, on the frames whose render passes are timed (every [`TIMESTAMPS_EVERY`]th, with
/// the simulation's passes).
fn timed(timer: &Option<RenderTimer>, frame: u64) -> Option<&RenderTimer> {
    timer.as_ref().filter(|_| frame.is_multiple_of(TIMESTAMPS_EVERY))
}
