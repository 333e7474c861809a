//! One window and everything drawn in it: the surface ([`super::surface`]), the egui
//! integration, the 3D renderer and the simulation driver. A frame is, in this order: take the
//! readbacks that have arrived (no waiting), acquire the surface texture (every outcome
//! handled), run the panel, apply its changes, then encode the simulation steps, the scene pass
//! and the egui pass, and submit once.

use super::driver::{Driver, TIMESTAMPS_EVERY};
use super::panel::{self, Action, Controls, PanelState, Readout};
use super::render_timer::RenderTimer;
use super::screenshot::Screenshots;
use super::surface::{Acquired, WindowSurface};
use super::watch::SceneWatch;
use super::{AppArgs, Report, ReportSample};
use crate::gpu::Gpu;
use crate::render::{Renderer, ViewSettings, Viewport};
use crate::scene::Scene;
use crate::setup::{self, InitialState};
use crate::sim::{Sim, SimOptions};
use anyhow::Context as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::window::Window;

/// A scene as loaded, with its initial state (kept for resets).
pub struct LoadedScene {
    pub scene: Scene,
    /// What the panel and the log call it (the file, or "… (built in)").
    pub name: String,
    /// The file, when the scene came from one.
    pub path: Option<PathBuf>,
    pub state: InitialState,
}

impl LoadedScene {
    pub fn load(path: Option<&std::path::Path>) -> Result<Self, crate::scene::SceneError> {
        let (scene, name) = crate::scene::load_or_default(path)?;
        let state = setup::build(&scene);
        Ok(Self { scene, name, path: path.map(|p| p.to_path_buf()), state })
    }
}

/// Frames and steps per second over about the last second.
struct Rate {
    since: Instant,
    frames: u32,
    steps: u64,
    fps: f32,
    sps: f32,
}

impl Rate {
    fn new() -> Self {
        Self { since: Instant::now(), frames: 0, steps: 0, fps: 0.0, sps: 0.0 }
    }
    fn tick(&mut self, steps: u32) {
        self.frames += 1;
        self.steps += steps as u64;
        let dt = self.since.elapsed().as_secs_f32();
        if dt >= 1.0 {
            self.fps = self.frames as f32 / dt;
            self.sps = self.steps as f32 / dt;
            *self = Self { since: Instant::now(), frames: 0, steps: 0, ..*self };
        }
    }
}

pub struct Running {
    window: Arc<Window>,
    gpu: Gpu,
    surface: WindowSurface,
    egui_ctx: egui::Context,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    renderer: Renderer,
    /// GPU times of the render passes (where the adapter has timestamp queries).
    render_timer: Option<RenderTimer>,
    driver: Driver,
    scene: LoadedScene,
    watch: Option<SceneWatch>,
    controls: Controls,
    view: ViewSettings,
    panel: PanelState,
    /// The last failed reload or option change, shown in the panel.
    error: Option<String>,
    screenshots: Screenshots,
    screenshot_note: Option<String>,
    /// The window has no area (minimized): nothing is drawn and the loop sleeps.
    minimized: bool,
    rate: Rate,
    step_once: bool,
    /// A frame was skipped (surface timeout/occluded): wait a little before the next try.
    backoff_until: Option<Instant>,
    args: AppArgs,
    report: Report,
    viewport: Viewport,
    /// Frame the scene once the 3D view's size is known (after the first panel layout).
    frame_camera: bool,
}

impl Running {
    pub fn new(event_loop: &ActiveEventLoop, args: AppArgs, scene: LoadedScene) -> anyhow::Result<Self> {
        let (w, h) = args.size;
        let attrs = Window::default_attributes()
            .with_title(format!("Rillet — {}", scene.name))
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h))
            .with_min_inner_size(winit::dpi::PhysicalSize::new(320, 240));
        let window = Arc::new(event_loop.create_window(attrs).context("cannot create the window")?);
        let (gpu, surface) = Gpu::windowed(Box::new(event_loop.owned_display_handle()), window.clone())?;
        log::info!("adapter: {}", gpu.describe());

        let size = window.inner_size();
        let surface = WindowSurface::new(&gpu, surface, (size.width, size.height), !args.no_vsync)?;
        let minimized = size.width == 0 || size.height == 0;

        let egui_ctx = egui::Context::default();
        let max_tex = gpu.limits.max_texture_dimension_2d as usize;
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_tex),
        );
        let egui_renderer = egui_wgpu::Renderer::new(
            &gpu.device,
            surface.config.format,
            egui_wgpu::RendererOptions {
                msaa_samples: 1,
                depth_stencil_format: None,
                dithering: true,
                predictable_texture_filtering: false,
            },
        );
        let renderer = Renderer::new(&gpu.device, surface.scene_format);
        let render_timer = gpu.has_timestamps().then(|| RenderTimer::new(&gpu.device, &gpu.queue));

        let options = SimOptions::from_scene(&scene.scene);
        let sim =
            Sim::new(&gpu, &scene.state, options.clone()).with_context(|| format!("{}: the scene does not fit this device", scene.name))?;
        let driver = Driver::new(&gpu.device, sim, gpu.has_timestamps());
        let view = ViewSettings::new(driver.sim().params(), size.width.max(1) as f32 / size.height.max(1) as f32);
        let controls = Controls { options, substeps: args.substeps, paused: false };
        let watch = scene.path.as_deref().map(SceneWatch::new);
        log::info!("{}: {} fluid + {} boundary particles", scene.name, scene.state.n_fluid, scene.state.n_boundary());
        let report = Report {
            adapter: gpu.describe(),
            surface_format: format!("{:?}", surface.config.format),
            timestamps: gpu.has_timestamps(),
            n_particles: scene.state.n_particles(),
            n_fluid: scene.state.n_fluid,
            ..Default::default()
        };
        Ok(Self {
            window,
            gpu,
            surface,
            egui_ctx,
            egui_state,
            egui_renderer,
            renderer,
            render_timer,
            driver,
            scene,
            watch,
            controls,
            view,
            panel: PanelState::default(),
            error: None,
            screenshots: Screenshots::default(),
            screenshot_note: None,
            minimized,
            rate: Rate::new(),
            step_once: false,
            backoff_until: None,
            args,
            report,
            viewport: Viewport { x: 0.0, y: 0.0, width: size.width as f32, height: size.height as f32 },
            frame_camera: true,
        })
    }

    pub fn window_event(&mut self, event_loop: &ActiveEventLoop, event: WindowEvent) {
        let response = self.egui_state.on_window_event(&self.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::Occluded(occluded) => {
                log::debug!("occluded: {occluded}");
                let size = self.window.inner_size();
                self.minimized = occluded || size.width == 0 || size.height == 0;
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
        if response.repaint && !self.minimized {
            self.window.request_redraw();
        }
    }

    fn resize(&mut self, width: u32, height: u32) {
        self.minimized = width == 0 || height == 0;
        self.surface.resize(&self.gpu.device, width, height);
    }

    /// Chooses how the loop waits: continuous frames while visible; asleep while minimized
    /// (waking for the scene file check).
    pub fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.minimized {
            let wake = self.watch.as_ref().map_or(Instant::now() + Duration::from_secs(1), |w| w.next_check());
            event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
            self.check_scene_file();
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

    fn check_scene_file(&mut self) {
        if self.watch.as_mut().is_some_and(|w| w.changed()) {
            log::info!("{} changed on disk: reloading", self.scene.name);
            self.reload();
        }
    }

    /// Reads the scene again; on any error the running scene stays and the error is shown.
    fn reload(&mut self) {
        let loaded = match LoadedScene::load(self.scene.path.as_deref()) {
            Ok(l) => l,
            Err(e) => {
                log::error!("{e}");
                self.error = Some(format!("reload failed, the previous scene keeps running: {e}"));
                return;
            }
        };
        let options = SimOptions::from_scene(&loaded.scene);
        match Sim::new(&self.gpu, &loaded.state, options.clone()) {
            Ok(sim) => {
                let domain_changed = sim.params().domain_min != self.driver.sim().params().domain_min
                    || sim.params().domain_max != self.driver.sim().params().domain_max;
                self.driver.replace_sim(sim);
                self.controls.options = options;
                self.frame_camera |= domain_changed;
                self.view.ranges = crate::render::ColorMode::ALL.map(|m| m.default_range(self.driver.sim().params()));
                self.window.set_title(&format!("Rillet — {}", loaded.name));
                log::info!("{}: reloaded, {} fluid + {} boundary particles", loaded.name, loaded.state.n_fluid, loaded.state.n_boundary());
                self.scene = loaded;
                self.error = None;
            }
            Err(e) => {
                log::error!("{}: {e}", loaded.name);
                self.error = Some(format!("reload failed, the previous scene keeps running: {}: {e}", loaded.name));
            }
        }
    }

    fn reset(&mut self) {
        match Sim::new(&self.gpu, &self.scene.state, self.controls.options.clone()) {
            Ok(sim) => self.driver.replace_sim(sim),
            Err(e) => self.error = Some(format!("reset failed: {e}")),
        }
    }

    /// Applies the panel's simulation options between frames (particles are kept).
    fn apply_options(&mut self) {
        if self.controls.options == *self.driver.sim().options() {
            return;
        }
        if let Err(e) = self.driver.sim_mut().set_options(self.controls.options.clone()) {
            log::warn!("options not applied: {e}");
            self.error = Some(format!("options not applied: {e}"));
            self.controls.options = self.driver.sim().options().clone();
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        // 1. what has arrived since the last frame (never waits)
        for s in self.driver.poll(&self.gpu.device) {
            log::info!(
                "diagnostics of frame {} (step {}): max per cell {}, overflows {}, wall clamps {}, non-finite {}",
                s.frame,
                s.step,
                s.diag.max_per_cell,
                s.diag.overflows,
                s.diag.wall_clamps,
                s.diag.non_finite
            );
            if let Some(w) = panel::overflow_warning(&s) {
                log::warn!("frame {}: {w}", s.frame);
            }
            self.report.diagnostics.push(ReportSample::from(&s));
        }
        if let Some(p) = &self.driver.profile
            && self.report.profile_frames.last() != Some(&p.frame)
        {
            self.report.profile_frames.push(p.frame);
        }
        if let Some(t) = &mut self.render_timer {
            t.poll();
        }
        self.screenshots.poll();
        self.check_scene_file();
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

        // 3. the panel, then its changes (between frames)
        let (actions, full) = self.run_ui();
        let mut screenshot: Option<PathBuf> = None;
        for a in actions {
            match a {
                Action::Step => self.step_once = true,
                Action::Reset => self.reset(),
                Action::Reload => self.reload(),
                Action::ResetCamera => self.frame_camera = true,
                Action::Screenshot => {
                    screenshot = Some(self.args.screenshot_dir.join(format!("rillet-frame-{:05}.png", self.driver.frame() + 1)))
                }
            }
        }
        if std::mem::take(&mut self.frame_camera) {
            self.view.camera = ViewSettings::new(self.driver.sim().params(), self.viewport.aspect()).camera;
        }
        self.apply_options();
        let next = self.driver.frame() + 1;
        if self.args.screenshot_at.contains(&next) {
            screenshot = Some(self.args.screenshot_dir.join(format!("frame-{next:05}.png")));
        }
        if let Some(path) = &self.args.screenshot
            && self.args.frames == Some(next)
        {
            screenshot = Some(path.clone());
        }

        // 4. one encoder: steps, scene pass, egui pass
        let device = self.gpu.device.clone();
        let queue = self.gpu.queue.clone();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("app.frame") });
        let steps = if self.controls.paused { std::mem::take(&mut self.step_once) as u32 } else { self.controls.substeps };
        self.driver.record_frame(&mut encoder, steps);

        let target = frame.texture.create_view(&wgpu::TextureViewDescriptor { label: Some("app.surface"), ..Default::default() });
        let scene_target = frame.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("app.surface.srgb"),
            format: Some(self.surface.scene_format),
            ..Default::default()
        });
        let size = self.surface.size();
        let uniforms = self.view.uniforms(self.driver.sim().params(), self.viewport.aspect());
        let sim = self.driver.sim();
        let timer = self.render_timer.as_ref().filter(|_| self.driver.frame().is_multiple_of(TIMESTAMPS_EVERY));
        self.renderer.record(
            &device,
            &queue,
            &mut encoder,
            &scene_target,
            size,
            self.viewport,
            &uniforms,
            Some((sim.current(), sim.n_particles())),
            self.view.show_box,
            timer.map(|t| t.writes(0)),
        );

        let ppp = full.pixels_per_point;
        let jobs = self.egui_ctx.tessellate(full.shapes, ppp);
        for (id, deltas) in &full.textures_delta.set {
            for delta in deltas {
                self.egui_renderer.update_texture(&device, &queue, *id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: size, pixels_per_point: ppp };
        let extra = self.egui_renderer.update_buffers(&device, &queue, &mut encoder, &jobs, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("ui.egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &target,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: timer.map(|t| t.writes(1)),
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            self.egui_renderer.render(&mut pass, &jobs, &screen);
        }
        if timer.is_some()
            && let Some(t) = &mut self.render_timer
        {
            t.record_copy(&mut encoder, self.driver.frame());
        }
        if let Some(path) = screenshot {
            if self.surface.capture {
                self.screenshots.record(&device, &mut encoder, &frame.texture, path.clone());
                self.report.screenshots.push(path.display().to_string());
                self.screenshot_note = Some(format!("saving {}", path.display()));
            } else {
                self.screenshot_note = Some("screenshots are unavailable: this surface cannot be copied from".into());
            }
        }

        // 5. one submit
        queue.submit(extra.into_iter().chain([encoder.finish()]));
        self.driver.submitted();
        if let Some(t) = &mut self.render_timer {
            t.submitted();
        }
        self.screenshots.submitted();
        self.window.pre_present_notify();
        queue.present(frame);
        if reconfigure {
            self.surface.reconfigure(&self.gpu.device);
        }
        for id in &full.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }
        self.rate.tick(steps);
        self.report.frames = self.driver.frame();
        self.report.steps = self.driver.sim().steps();

        self.report.surface_size = size;
        if let Some(&(at, (w, h))) = self.args.resize_at.iter().find(|r| r.0 == self.driver.frame()) {
            log::info!("frame {at}: asking for a {w}x{h} window");
            let _ = self.window.request_inner_size(winit::dpi::PhysicalSize::new(w, h));
        }
        if self.args.frames.is_some_and(|n| self.driver.frame() >= n) {
            log::info!("{} frames done: exiting", self.driver.frame());
            event_loop.exit();
        }
    }

    /// Runs the panel and the 3D view's input; returns the actions and egui's output.
    fn run_ui(&mut self) -> (Vec<Action>, egui::FullOutput) {
        let raw = self.egui_state.take_egui_input(&self.window);
        let Self { driver, scene, panel, controls, view, error, gpu, rate, screenshot_note, render_timer, .. } = self;
        let sim = driver.sim();
        let readout = Readout {
            scene_name: &scene.name,
            scene_file: scene.path.as_deref().and_then(|p| p.to_str()),
            error: error.as_deref(),
            adapter: &gpu.info.name,
            fps: rate.fps,
            steps_per_second: rate.sps,
            frame: driver.frame(),
            steps: sim.steps(),
            n_fluid: sim.n_fluid(),
            n_boundary: sim.n_particles() - sim.n_fluid(),
            params: sim.params(),
            grid: sim.grid(),
            timestamps: gpu.has_timestamps(),
            profile: driver.profile.as_ref(),
            render_times: render_timer.as_ref().and_then(|t| t.latest),
            latest: driver.latest.as_ref(),
            history: &driver.history,
            screenshots: screenshot_note.as_deref(),
        };
        let mut actions = Vec::new();
        let mut central = egui::Rect::NOTHING;
        let full = self.egui_ctx.run_ui(raw, |ui| {
            actions.extend(panel::keys(ui.ctx(), panel, controls, view));
            actions.extend(panel::show(ui, panel, controls, view, &readout));
            egui::CentralPanel::no_frame().show(ui, |ui| {
                let rect = ui.max_rect();
                central = rect;
                let response = ui.allocate_rect(rect, egui::Sense::click_and_drag());
                let d = response.drag_delta();
                if response.dragged_by(egui::PointerButton::Primary) {
                    view.camera.rotate(d.x, d.y);
                } else if response.dragged_by(egui::PointerButton::Secondary) || response.dragged_by(egui::PointerButton::Middle) {
                    view.camera.pan(d.x, d.y, rect.height());
                }
                if response.hovered() {
                    let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                    if scroll != 0.0 {
                        view.camera.zoom(scroll / 100.0);
                    }
                }
            });
        });
        self.egui_state.handle_platform_output(&self.window, full.platform_output.clone());
        let ppp = full.pixels_per_point;
        let [w, h] = self.surface.size().map(|v| v as f32);
        let x0 = (central.min.x * ppp).clamp(0.0, w);
        let y0 = (central.min.y * ppp).clamp(0.0, h);
        let x1 = (central.max.x * ppp).clamp(x0, w);
        let y1 = (central.max.y * ppp).clamp(y0, h);
        self.viewport = Viewport { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
        self.report.viewport = [x0, y0, x1, y1];
        (actions, full)
    }

    /// At exit: waits (bounded) for the screenshots, writes the report.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        // the readbacks still in flight complete within a frame or two; take them for the report
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.driver.in_flight() > 0 && Instant::now() < deadline {
            let _ = self.gpu.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_millis(100)) });
            for s in self.driver.poll(&self.gpu.device) {
                self.report.diagnostics.push(ReportSample::from(&s));
            }
        }
        self.screenshots.finish(&self.gpu.device, Duration::from_secs(60));
        if let Some(e) = self.screenshots.errors.first() {
            anyhow::bail!("{e}");
        }
        if let Some(path) = &self.args.report {
            let text = serde_json::to_string_pretty(&self.report)?;
            std::fs::write(path, text).with_context(|| format!("cannot write the report {}", path.display()))?;
        }
        Ok(())
    }
}
