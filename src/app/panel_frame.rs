//! `rillet render --panel`: the app's panel drawn over every offscreen frame as the app draws it
//! over its window (the same [`panel::show`], the same egui pass through [`Painter`]), so that
//! `rillet render` measures the app's whole frame — steps, view and panel — on a machine without
//! a display. The panel shows what the offscreen loop has: the frame and step rates, the
//! diagnostics (a sample every [`DIAGNOSTICS_EVERY`] frames, as the app reads them, with their
//! history), the render passes' GPU times; the simulation passes' times are not measured
//! offscreen (their rows stay "…"). Its controls draw but change nothing: there is no pointer.

use super::driver::{DIAGNOSTICS_EVERY, DiagSample, HISTORY};
use super::overlay::Painter;
use super::panel::{self, Controls, PanelState, Readout};
use crate::gpu::Gpu;
use crate::health::GuardTotals;
use crate::offscreen::{FORMAT, FrameOverlay, OverlayFrame, OverlayMaker, RenderArgs};
use crate::render::ViewSettings;
use crate::scene::Scene;
use std::collections::VecDeque;
use std::time::Instant;

/// What `rillet render --panel` hands the offscreen loop.
pub fn maker() -> OverlayMaker {
    Box::new(|gpu: &Gpu, scene: &Scene, args: &RenderArgs| -> Box<dyn FrameOverlay> { Box::new(PanelFrame::new(gpu, scene, args)) })
}

/// The panel's state across the offscreen frames.
struct PanelFrame {
    ctx: egui::Context,
    painter: Painter,
    panel: PanelState,
    controls: Controls,
    /// The view's settings as the panel shows them (the offscreen loop's, taken at the first
    /// frame).
    settings: Option<ViewSettings>,
    title: String,
    file: String,
    adapter: String,
    cpu_adapter: bool,
    timestamps: bool,
    guards: GuardTotals,
    history: VecDeque<DiagSample>,
    latest: Option<DiagSample>,
    /// When the first frame was recorded: the diagnostics history's clock.
    started: Option<Instant>,
}

impl PanelFrame {
    fn new(gpu: &Gpu, scene: &Scene, args: &RenderArgs) -> Self {
        let file = args.scene.display().to_string();
        let title = if scene.name.is_empty() { file.clone() } else { format!("{} — {file}", scene.name) };
        Self {
            ctx: egui::Context::default(),
            painter: Painter::new(gpu, FORMAT),
            panel: PanelState::default(),
            controls: Controls { options: crate::scene::setup::sim_options(scene), substeps: args.substeps, paused: false, solver: None },
            settings: None,
            title,
            file,
            adapter: gpu.info.name.clone(),
            cpu_adapter: gpu.info.device_type == wgpu::DeviceType::Cpu,
            timestamps: gpu.has_timestamps(),
            guards: GuardTotals::default(),
            history: VecDeque::new(),
            latest: None,
            started: None,
        }
    }

    /// A diagnostics sample of the words read with frame `frame`, as the app's driver makes
    /// one (the blow-up findings are the offscreen loop's to judge).
    fn sample(&mut self, f: &OverlayFrame<'_>, frame: u64, diag: crate::sim::params::Diagnostics, at: std::time::Duration) -> DiagSample {
        let step = frame * f.substeps as u64;
        let delta = self.guards.update(&diag, step);
        DiagSample {
            frame,
            step,
            time: f.sim.time_at(step, &diag),
            diag,
            capacity: f.sim.options().capacity,
            grid_diagnostics: self.controls.options.diagnostics,
            at,
            wall_clamps_total: self.guards.wall_clamps,
            non_finite_total: self.guards.non_finite,
            delta,
            finding: None,
        }
    }
}

impl FrameOverlay for PanelFrame {
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        (target, size): (&wgpu::TextureView, [u32; 2]),
        f: &OverlayFrame<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> Vec<wgpu::CommandBuffer> {
        let now = self.started.get_or_insert_with(Instant::now).elapsed();
        // a sample every DIAGNOSTICS_EVERY frames, as the app reads them
        for &(frame, diag) in f.arrived {
            if frame.is_multiple_of(DIAGNOSTICS_EVERY) {
                let s = self.sample(f, frame, diag, now);
                self.history.push_back(s.clone());
                self.latest = Some(s);
            }
        }
        while let (Some(first), Some(last)) = (self.history.front(), self.history.back()) {
            if last.at.saturating_sub(first.at) > HISTORY {
                self.history.pop_front();
            } else {
                break;
            }
        }
        let sim = f.sim;
        let readout = Readout {
            scene_name: &self.title,
            scene_file: Some(&self.file),
            error: None,
            adapter: &self.adapter,
            cpu_adapter: self.cpu_adapter,
            fps: f.fps,
            steps_per_second: f.steps_per_second,
            frame: f.frame,
            steps: f.steps,
            sim: panel::SimFacts::of(sim),
            timestamps: self.timestamps,
            profile: None,
            render_times: f.render_ms,
            latest: self.latest.as_ref(),
            current: self.latest.as_ref(),
            time: self.latest.as_ref().map(|s| (s.time, s.step)),
            history: &self.history,
            screenshots: None,
            export: None,
        };
        let raw = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0] as f32, size[1] as f32))),
            time: Some(now.as_secs_f64()),
            ..Default::default()
        };
        let settings = self.settings.get_or_insert_with(|| f.settings.clone());
        let (panel_state, controls) = (&mut self.panel, &mut self.controls);
        let full = self.ctx.run_ui(raw, |ui| {
            panel::show(ui, panel_state, controls, settings, &readout);
        });
        self.painter.record(gpu, &self.ctx, encoder, target, size, full, timestamps)
    }

    fn submitted(&mut self) {
        self.painter.submitted();
    }
}
