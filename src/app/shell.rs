//! The window shell: the event loop, the window, its surface and the egui layer, and the order
//! of a frame. What is drawn is a [`Content`] (the app's is its viewer); the shell knows
//! nothing of simulations or scenes, and the content never touches the surface's
//! configuration, the event loop or egui-winit. This is the split of wgpu's examples (a framework calling an
//! `Example`), with the egui pass and the one submit per frame kept by the shell.
//!
//! A frame, in this order: the content takes what has arrived (never waiting), the surface
//! texture is acquired (every outcome handled: a lost or outdated surface is made again, a
//! timeout or an occluded window backs off), the content builds its UI in egui, records its GPU
//! work, the egui pass is recorded over it, the content may copy the finished frame, and all of
//! it is submitted once and presented. A window of no area draws nothing and the loop sleeps.

use super::overlay::Overlay;
use super::surface::{Acquired, WindowSurface};
use crate::gpu::Gpu;
use anyhow::Context as _;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

/// The window to open.
pub(crate) struct WindowSpec {
    pub title: String,
    /// Inner size in pixels.
    pub size: (u32, u32),
    /// Present at the display's rate.
    pub vsync: bool,
}

/// What the shell lends its content for a call: the GPU, the window, and the surface (its
/// formats, size and whether it can be copied from).
pub(crate) struct Host<'a> {
    pub gpu: &'a Gpu,
    pub window: &'a Window,
    pub surface: &'a WindowSurface,
}

/// Whether the event loop goes on after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Exit,
}

/// What the shell draws. Each drawn frame calls, in order: [`poll`](Content::poll), [`ui`],
/// [`record`], [`overlay_timestamps`], [`record_after_overlay`], then the one submit,
/// [`submitted`], the present, [`presented`]. No call may wait on the GPU.
///
/// [`ui`]: Content::ui
/// [`record`]: Content::record
/// [`overlay_timestamps`]: Content::overlay_timestamps
/// [`record_after_overlay`]: Content::record_after_overlay
/// [`submitted`]: Content::submitted
/// [`presented`]: Content::presented
pub(crate) trait Content {
    /// First in every redraw, also when nothing is drawn after it (minimized, no surface
    /// texture): takes what has arrived since the last frame, without waiting.
    fn poll(&mut self, host: &Host);
    /// While the window has no area the loop sleeps: the periodic checks, and when to wake for
    /// the next.
    fn idle(&mut self, host: &Host) -> Instant;
    /// The frame's UI, in egui's frame.
    fn ui(&mut self, ui: &mut egui::Ui, host: &Host);
    /// After the UI: applies what it asked for and records the frame's own GPU work into
    /// `encoder`, drawing into `target` (a view of the surface texture in
    /// [`WindowSurface::scene_format`]; the egui pass draws over it afterwards).
    fn record(&mut self, host: &Host, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView);
    /// Timestamp writes for this frame's egui pass, if it is timed.
    fn overlay_timestamps(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        None
    }
    /// After the egui pass, with the finished frame in `texture`: copies of it, query resolves.
    fn record_after_overlay(&mut self, _host: &Host, _encoder: &mut wgpu::CommandEncoder, _texture: &wgpu::Texture) {}
    /// Right after the submit (before the present): ask for the mappings just submitted.
    fn submitted(&mut self);
    /// After the present: whether to go on.
    fn presented(&mut self, host: &Host) -> Flow;
    /// At exit (once, from the event loop's `exiting`); may wait, bounded.
    fn finish(&mut self, gpu: &Gpu) -> anyhow::Result<()>;
}

/// Opens the window described by `spec`, starts the content with `init` once the GPU is up,
/// and runs until the window is closed or the content says [`Flow::Exit`].
pub(crate) fn run<C: Content>(spec: WindowSpec, init: impl FnOnce(&Host) -> anyhow::Result<C>) -> anyhow::Result<()> {
    let event_loop =
        EventLoop::new().context("cannot open a window (no display? set DISPLAY or WAYLAND_DISPLAY, or run under xvfb-run)")?;
    let mut handler = Handler { start: Some((spec, init)), running: None, result: Ok(()) };
    event_loop.run_app(&mut handler).context("the event loop failed")?;
    handler.result
}

/// The event loop's handler: starts the shell and its content on the first `resumed`.
struct Handler<C, F> {
    start: Option<(WindowSpec, F)>,
    running: Option<(Shell, C)>,
    result: anyhow::Result<()>,
}

impl<C: Content, F: FnOnce(&Host) -> anyhow::Result<C>> ApplicationHandler for Handler<C, F> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        let Some((spec, init)) = self.start.take() else { return };
        let started = Shell::new(event_loop, &spec).and_then(|shell| {
            let content = init(&shell.host())?;
            Ok((shell, content))
        });
        match started {
            Ok(r) => self.running = Some(r),
            Err(e) => {
                self.result = Err(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Some((shell, content)) = &mut self.running {
            shell.window_event(event_loop, content, event);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some((shell, content)) = &mut self.running {
            shell.about_to_wait(event_loop, content);
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some((shell, mut content)) = self.running.take()
            && let Err(e) = content.finish(&shell.gpu)
            && self.result.is_ok()
        {
            self.result = Err(e);
        }
    }
}

/// The window and what draws into it, apart from the content.
struct Shell {
    window: Arc<Window>,
    gpu: Gpu,
    surface: WindowSurface,
    overlay: Overlay,
    /// The window has no area (minimized) or is occluded: nothing is drawn and the loop sleeps.
    minimized: bool,
    /// A frame was skipped (surface timeout/occluded): wait a little before the next try.
    backoff_until: Option<Instant>,
}

impl Shell {
    fn new(event_loop: &ActiveEventLoop, spec: &WindowSpec) -> anyhow::Result<Self> {
        let (w, h) = spec.size;
        let attrs = Window::default_attributes()
            .with_title(&spec.title)
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h))
            .with_min_inner_size(winit::dpi::PhysicalSize::new(320, 240));
        let window = Arc::new(event_loop.create_window(attrs).context("cannot create the window")?);
        let (gpu, surface) = Gpu::windowed(Box::new(event_loop.owned_display_handle()), window.clone())?;
        log::info!("adapter: {}", gpu.describe());
        let size = window.inner_size();
        let surface = WindowSurface::new(&gpu, surface, (size.width, size.height), spec.vsync)?;
        let overlay = Overlay::new(&gpu, &window, surface.config.format);
        let minimized = size.width == 0 || size.height == 0;
        Ok(Self { window, gpu, surface, overlay, minimized, backoff_until: None })
    }

    fn host(&self) -> Host<'_> {
        Host { gpu: &self.gpu, window: &self.window, surface: &self.surface }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, content: &mut impl Content, event: WindowEvent) {
        let repaint = self.overlay.on_window_event(&self.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::Occluded(occluded) => {
                log::debug!("occluded: {occluded}");
                let size = self.window.inner_size();
                self.minimized = occluded || size.width == 0 || size.height == 0;
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop, content),
            _ => {}
        }
        if repaint && !self.minimized {
            self.window.request_redraw();
        }
    }

    fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        self.surface.resize(&self.gpu.device, width, height);
    }

    /// Chooses how the loop waits: continuous frames while visible; asleep while minimized
    /// (waking for the content's periodic checks).
    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop, content: &mut impl Content) {
        // SIGINT / SIGTERM: leave the loop the ordinary way, so the content finishes (its report)
        if crate::signals::stop_requested() {
            log::info!("a signal asked to stop: exiting");
            event_loop.exit();
            return;
        }
        if self.minimized {
            let wake = content.idle(&self.host());
            event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
            return;
        }
        if let Some(t) = self.backoff_until {
            if Instant::now() < t {
                event_loop.set_control_flow(ControlFlow::WaitUntil(t));
                return;
            }
            self.backoff_until = None;
        }
        event_loop.set_control_flow(ControlFlow::Poll);
        self.window.request_redraw();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop, content: &mut impl Content) {
        // 1. what has arrived since the last frame (never waits)
        content.poll(&self.host());
        if self.minimized {
            return;
        }

        // 2. the surface texture
        let (frame, reconfigure) = match self.surface.acquire(&self.gpu, &self.window) {
            Acquired::Frame { frame, reconfigure } => (frame, reconfigure),
            Acquired::Retry => return,
            Acquired::Later => {
                self.backoff_until = Some(Instant::now() + Duration::from_millis(50));
                return;
            }
        };

        // 3. the UI, then one encoder: the content's work, the egui pass, copies of the frame
        let Self { window, gpu, surface, overlay, .. } = self;
        let host = Host { gpu, window, surface };
        let ui = overlay.run(window, |ui| content.ui(ui, &host));
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.frame") });
        let target = frame.texture.create_view(&wgpu::TextureViewDescriptor { label: Some("app.surface"), ..Default::default() });
        let scene_target = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("app.surface.srgb"),
            format: Some(surface.scene_format),
            ..Default::default()
        });
        content.record(&host, &mut encoder, &scene_target);
        let extra = overlay.record(gpu, &mut encoder, &target, surface.size(), ui, content.overlay_timestamps());
        content.record_after_overlay(&host, &mut encoder, &frame.texture);

        // 4. one submit, then the present
        gpu.queue.submit(extra.into_iter().chain([encoder.finish()]));
        content.submitted();
        window.pre_present_notify();
        gpu.queue.present(frame);
        if reconfigure {
            surface.reconfigure(&gpu.device);
        }
        overlay.submitted();
        if content.presented(&host) == Flow::Exit {
            event_loop.exit();
        }
    }
}
