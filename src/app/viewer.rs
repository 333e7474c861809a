//! The app's content: the running scene ([`Session`]), its 3D view ([`SceneView`]), the panel,
//! and what the command line scripts ([`Automation`]), put together as the [`Content`] the
//! shell draws. This is where a frame's parts meet: the readbacks that arrived are logged and
//! reported, the panel's actions are applied between frames, and screenshots are taken from the
//! finished frame.

use super::automation::{Automation, Report};
use super::cli::AppArgs;
use super::driver::DiagSample;
use super::panel::{self, Action, PanelState, Readout};
use super::recorder::Recorder;
use super::screenshot::Screenshots;
use super::session::{LoadedScene, Reloaded, SceneFile, Session};
use super::shell::{Content, Flow, Host};
use super::view::{GrabEvent, SceneView};
use crate::gpu::Gpu;
use anyhow::Context as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The window's title for a scene.
pub(crate) fn title(scene_name: &str) -> String {
    format!("Rillet — {scene_name}")
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

/// The app's content: the parts of a frame, each in its own type.
pub(crate) struct Viewer {
    session: Session,
    view: SceneView,
    panel: PanelState,
    automation: Automation,
    screenshots: Screenshots,
    /// The last screenshot asked for, or why there is none (shown in the panel).
    screenshot_note: Option<String>,
    recorder: Recorder,
    rate: Rate,
    /// This frame's: what the panel asked for, the steps recorded, the screenshot to take.
    actions: Vec<Action>,
    steps: u32,
    shot: Option<PathBuf>,
    /// The scene's solid surfaces, with the moving ones' motions (drawn where they are).
    surfaces: crate::scene::bodies::SolidSurfaces,
    /// The simulated time of the last diagnostics read (an adaptive dt's clock).
    sample_time: f64,
    /// A floating body held by a shift-drag.
    drag: Option<Drag>,
    /// Whether the floating bodies' places on screen were logged (once, at their first states).
    bodies_shown: bool,
}

/// A floating body following the pointer on the plane through the point it was grabbed at,
/// facing the camera.
#[derive(Clone, Copy, Debug)]
struct Drag {
    body: usize,
    /// The plane: a point and its normal.
    point: glam::Vec3,
    normal: glam::Vec3,
    /// From the point grabbed to the body's centre.
    offset: glam::Vec3,
    /// The centre where the last frame's steps leave it, and where the pointer wants it.
    at: glam::Vec3,
    target: glam::Vec3,
}

impl Viewer {
    /// The shift-drag: a floating body under the pointer is held and moved with it, at the speed
    /// that takes it from where it is to the pointer over this frame's steps (at most 0.1 of the
    /// speed of sound); let go, it floats on at that speed.
    fn drag_bodies(&mut self) {
        let sim = self.session.driver.sim();
        let states = &self.session.driver.body_states;
        for event in self.view.take_grab_events() {
            match event {
                GrabEvent::Start(o, d) => {
                    let Some((body, s)) = self.surfaces.pick(o.as_dvec3(), d.as_dvec3(), states) else {
                        log::info!(
                            "shift-drag: no floating body under the pointer (the ray from {:.3?} along {:.3?})",
                            o.to_array(),
                            d.to_array()
                        );
                        continue;
                    };
                    let point = o + d * s as f32;
                    let centre = glam::Vec3::from(states[body].position);
                    let normal = self.view.settings.camera.forward();
                    log::info!("dragging floating body {body} (at {:.3?})", centre.to_array());
                    self.drag = Some(Drag { body, point, normal, offset: centre - point, at: centre, target: centre });
                }
                GrabEvent::Move(o, d) => {
                    if let Some(g) = &mut self.drag {
                        let along = d.dot(g.normal);
                        if along.abs() > 1e-6 {
                            let s = (g.point - o).dot(g.normal) / along;
                            if s > 0.0 {
                                g.target = o + d * s + g.offset;
                            }
                        }
                    }
                }
                GrabEvent::Release => {
                    if let Some(g) = self.drag.take() {
                        sim.hold_body(g.body, None);
                        log::info!("let go of floating body {} at {:.3?}", g.body, g.at.to_array());
                    }
                }
            }
        }
        if !self.bodies_shown && !states.is_empty() {
            self.bodies_shown = true;
            for (k, st) in states.iter().enumerate().filter(|(_, s)| s.floating != 0) {
                if let Some([px, py]) = self.view.on_screen(glam::Vec3::from(st.position)) {
                    log::info!("floating body {k} at {:.3?} m, on screen at ({px:.0}, {py:.0}) px: shift-drag it", st.position);
                }
            }
        }
        if let Some(g) = &mut self.drag {
            let p = sim.params();
            let span = (self.session.controls.substeps.max(1) as f32 * p.dt).max(1e-6);
            let mut v = (g.target - g.at) / span;
            let limit = 0.1 * p.sound_speed;
            if v.length() > limit {
                v *= limit / v.length();
            }
            sim.hold_body(g.body, Some((g.at.to_array(), v.to_array())));
            g.at += v * span;
        }
    }

    pub(crate) fn new(host: &Host, args: &AppArgs, file: SceneFile) -> anyhow::Result<Self> {
        let (gpu, surface) = (host.gpu, host.surface);
        let name = file.name.clone();
        let scene = LoadedScene::build(file, gpu).with_context(|| format!("{name}: the scene does not fit this device"))?;
        let session = Session::new(gpu, scene, args.substeps)?;
        let motions = session.scene.scene.moving_motions();
        let size = host.window.inner_size();
        let mut view = SceneView::new(gpu, surface.scene_format, session.driver.sim().params(), [size.width, size.height]);
        view.settings.view = args.view;
        view.settings.surface.environment = args.environment;
        let surfaces = session.scene.scene.solid_surfaces();
        view.set_solids(gpu, &surfaces.rest);
        let state = &session.scene.state;
        let header = Report {
            adapter: gpu.describe(),
            surface_format: format!("{:?}", surface.config.format),
            timestamps: gpu.has_timestamps(),
            n_particles: state.n_particles(),
            n_fluid: state.n_fluid,
            ..Default::default()
        };
        Ok(Self {
            session,
            view,
            panel: PanelState::default(),
            automation: Automation::new(args, header),
            screenshots: Screenshots::default(),
            screenshot_note: None,
            recorder: {
                let mut r = Recorder::new(args.export_dir.clone(), args.export.clone(), args.export_every, args.export_boundary);
                r.set_motions(motions);
                if args.record {
                    r.toggle(0);
                }
                r
            },
            rate: Rate::new(),
            actions: Vec::new(),
            steps: 0,
            shot: None,
            surfaces,
            sample_time: 0.0,
            drag: None,
            bodies_shown: false,
        })
    }

    /// A diagnostics sample arrived: into the log (with its warning, if any) and the report.
    fn arrived(&mut self, s: &DiagSample) {
        self.sample_time = s.time;
        log::info!(
            "diagnostics of frame {} (step {}, t = {:.4} s, dt {:.2e} s): max per cell {}, overflows {}, wall clamps {} ({:.2} per step), non-finite {}",
            s.frame,
            s.step,
            s.time,
            s.diag.dt,
            s.diag.max_per_cell,
            s.diag.overflows,
            s.wall_clamps_total,
            s.delta.clamps_per_step(),
            s.non_finite_total
        );
        if let Some(w) = panel::overflow_warning(s) {
            log::warn!("frame {}: {w}", s.frame);
        }
        if let Some(f) = &s.finding
            && !self.session.controls.paused
        {
            // the guards keep a blown-up state looking orderly: stop before it runs on as if healthy
            log::error!("{f}: paused (reset or reload to go on)");
            self.session.pause_for_blow_up(format!("paused: {f}. Reset (Backspace) or fix the scene."));
        }
        self.automation.diagnostics(s);
    }

    fn check_scene_file(&mut self, host: &Host) {
        if let Some(r) = self.session.check_file(host.gpu) {
            self.replaced(host, r);
        }
    }

    /// A reload replaced the scene: the view and the title follow.
    fn replaced(&mut self, host: &Host, r: Reloaded) {
        self.view.scene_replaced(self.session.driver.sim().params(), r.domain_changed);
        self.surfaces = self.session.scene.scene.solid_surfaces();
        self.view.set_solids(host.gpu, &self.surfaces.rest);
        host.window.set_title(&title(&self.session.scene.title));
        self.restarted();
    }

    /// The simulation started again: the report follows the running scene.
    fn restarted(&mut self) {
        self.view.release_particles();
        // a body held in the old simulation is not one of the new one's
        self.drag = None;
        self.bodies_shown = false;
        let sim = self.session.driver.sim();
        self.automation.restarted(sim.n_particles(), sim.n_fluid());
        self.recorder.restarted();
        self.recorder.set_motions(self.session.scene.scene.moving_motions());
    }

    /// Applies the panel's actions of this frame, before the frame `next` is recorded.
    fn apply_actions(&mut self, host: &Host, next: u64) {
        for a in std::mem::take(&mut self.actions) {
            match a {
                Action::Step => self.session.step_once(),
                Action::Reset => {
                    if self.session.reset(host.gpu) {
                        self.restarted();
                    }
                }
                Action::Reload => {
                    if let Some(r) = self.session.reload(host.gpu) {
                        self.replaced(host, r);
                    }
                }
                Action::ResetCamera => self.view.reframe(),
                Action::Screenshot => self.shot = Some(self.automation.asked_shot(next)),
                Action::ExportFrame => self.recorder.export_frame(),
                Action::ToggleRecording => self.recorder.toggle(self.session.driver.sim().steps()),
            }
        }
    }

    /// The panel's "saving …" line becomes "saved …" once the file is written (or the error).
    fn note_written_screenshots(&mut self) {
        let Some(path) = self.screenshot_note.as_deref().and_then(|n| n.strip_prefix("saving ")).map(str::to_string) else { return };
        if self.screenshots.written.iter().any(|p| p.display().to_string() == path) {
            self.screenshot_note = Some(format!("saved {path}"));
        } else if !self.screenshots.busy()
            && let Some(e) = self.screenshots.errors.last()
        {
            self.screenshot_note = Some(format!("screenshot failed: {e}"));
        }
    }
}

impl Content for Viewer {
    fn poll(&mut self, host: &Host) {
        for s in self.session.driver.poll(&host.gpu.device) {
            self.arrived(&s);
        }
        if let Some(p) = &self.session.driver.profile {
            self.automation.profile(p.frame);
        }
        self.view.poll();
        self.screenshots.poll();
        self.note_written_screenshots();
        self.recorder.poll(self.session.driver.sim());
        self.check_scene_file(host);
    }

    fn idle(&mut self, host: &Host) -> Instant {
        let wake = self.session.wake_at();
        self.check_scene_file(host);
        wake
    }

    fn ui(&mut self, ui: &mut egui::Ui, host: &Host) {
        let Session { scene, driver, controls, error, .. } = &mut self.session;
        let sim = driver.sim();
        let readout = Readout {
            scene_name: &scene.title,
            scene_file: scene.path.as_deref().and_then(|p| p.to_str()),
            error: error.as_deref(),
            adapter: &host.gpu.info.name,
            cpu_adapter: host.gpu.info.device_type == wgpu::DeviceType::Cpu,
            fps: self.rate.fps,
            steps_per_second: self.rate.sps,
            frame: driver.frame(),
            steps: sim.steps(),
            sim: panel::SimFacts::of(sim),
            timestamps: host.gpu.has_timestamps(),
            profile: driver.profile.as_ref(),
            render_times: self.view.render_times(),
            latest: driver.latest.as_ref(),
            current: driver.current(),
            time: driver.sim_time(),
            history: &driver.history,
            screenshots: self.screenshot_note.as_deref(),
            export: Some(panel::ExportReadout {
                dir: self.recorder.dir.to_str().unwrap_or("(not UTF-8)"),
                recording: self.recorder.recording,
                every: self.recorder.every,
                frames: self.recorder.frames,
                skipped: self.recorder.skipped,
                error: self.recorder.error.as_deref(),
            }),
        };
        let settings = &mut self.view.settings;
        self.actions.extend(panel::keys(ui.ctx(), &mut self.panel, controls, settings));
        self.actions.extend(panel::show(ui, &mut self.panel, controls, settings, &readout));
        let viewport = self.view.input(ui, host.surface.size());
        self.automation.viewport(viewport);
    }

    fn record(&mut self, host: &Host, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        // the panel's changes, between frames
        let next = self.session.driver.frame() + 1;
        self.apply_actions(host, next);
        self.view.frame_if_asked(self.session.driver.sim().params());
        self.session.apply_options();
        if let Some(path) = self.automation.scripted_shot(next) {
            self.shot = Some(path);
        }
        self.drag_bodies();
        // the steps (stopping where the recorder records a frame), then the scene pass
        self.steps = self.session.record_frame(encoder, &mut self.recorder.stops(&host.gpu.device));
        // "Export frame": the state after the frame's steps
        self.recorder.record(&host.gpu.device, encoder, self.session.driver.sim());
        let driver = &self.session.driver;
        if self.surfaces.moves() {
            // where the frame's steps leave them: a fixed dt's clock, or an adaptive dt's at the
            // last diagnostics read (up to 60 frames behind)
            let sim = driver.sim();
            let t = if sim.is_adaptive() { self.sample_time } else { sim.steps() as f64 * sim.fixed_dt() };
            for (first, moved) in self.surfaces.moved_at(t, &driver.body_states) {
                self.view.move_solids(host.gpu, first, &moved);
            }
        }
        self.view.record(host.gpu, encoder, target, host.surface.size(), driver.sim(), driver.frame());
    }

    fn overlay_timestamps(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        self.view.overlay_timestamps(self.session.driver.frame())
    }

    fn record_after_overlay(&mut self, host: &Host, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture) {
        self.view.record_times(encoder, self.session.driver.frame());
        let Some(path) = self.shot.take() else { return };
        if host.surface.capture {
            self.screenshots.record(&host.gpu.device, encoder, texture, path.clone());
            self.automation.captured(&path);
            self.screenshot_note = Some(format!("saving {}", path.display()));
        } else {
            self.screenshot_note = Some("screenshots are unavailable: this surface cannot be copied from".into());
        }
    }

    fn submitted(&mut self) {
        self.session.driver.submitted();
        self.recorder.submitted();
        self.view.submitted();
        self.screenshots.submitted();
    }

    fn presented(&mut self, host: &Host) -> Flow {
        self.rate.tick(self.steps);
        let driver = &self.session.driver;
        let done = self.automation.presented(host.window, driver.frame(), driver.steps_total, driver.sim().steps(), host.surface.size());
        if done { Flow::Exit } else { Flow::Continue }
    }

    /// Waits (bounded) for the readbacks in flight and the screenshots, writes the report.
    fn finish(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        // the readbacks still in flight complete within a frame or two; take them for the report
        let deadline = Instant::now() + Duration::from_secs(10);
        while (self.session.driver.in_flight() > 0 || self.recorder.in_flight() > 0) && Instant::now() < deadline {
            let _ = gpu.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_millis(100)) });
            for s in self.session.driver.poll(&gpu.device) {
                self.automation.diagnostics(&s);
            }
            self.recorder.poll(self.session.driver.sim());
        }
        if let Some(stats) = self.recorder.finish()? {
            log::info!("exported {} frames ({} bytes) to {}", stats.frames, stats.bytes, self.recorder.dir.display());
        }
        self.screenshots.finish(&gpu.device, Duration::from_secs(60));
        if let Some(e) = self.screenshots.errors.first() {
            anyhow::bail!("{e}");
        }
        self.automation.write_report()
    }
}
