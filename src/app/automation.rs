//! What the app does unattended, from the command line: stop after `--frames`, save the
//! screenshots of `--screenshot`, `--screenshot-at` (into `--screenshot-dir`), ask for the
//! window sizes of `--resize-at`, and write the `--report` at exit. The tests drive the real
//! binary this way; keeping it out of the frame loop lets the loop read as the interactive app
//! it is, and keeps every scripted fact (which frame, which file) in one place.

use super::cli::AppArgs;
use super::driver::DiagSample;
use anyhow::Context as _;
use std::path::PathBuf;
use winit::window::Window;

/// One diagnostics sample in the report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct ReportSample {
    pub frame: u64,
    pub step: u64,
    /// Simulated time after `step` steps (s) and the last step's dt.
    pub time: f64,
    pub dt: f32,
    pub max_per_cell: u32,
    pub overflows: u32,
    /// Since the running scene started (a reload or reset starts again), without wrapping.
    pub wall_clamps: u64,
    pub non_finite: u64,
    pub wall_clamps_per_step: f64,
    /// A blow-up seen in this sample, if any.
    pub blow_up: Option<String>,
}

impl From<&DiagSample> for ReportSample {
    fn from(s: &DiagSample) -> Self {
        Self {
            frame: s.frame,
            step: s.step,
            time: s.time,
            dt: s.diag.dt,
            max_per_cell: s.diag.max_per_cell,
            overflows: s.diag.overflows,
            wall_clamps: s.wall_clamps_total,
            non_finite: s.non_finite_total,
            wall_clamps_per_step: s.delta.clamps_per_step(),
            blow_up: s.finding.as_ref().map(|f| f.to_string()),
        }
    }
}

/// What `--report` writes at exit.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub(crate) struct Report {
    pub adapter: String,
    pub surface_format: String,
    pub timestamps: bool,
    /// Particles of the scene running at exit.
    pub n_particles: u32,
    pub n_fluid: u32,
    /// Scene reloads and resets during the run (each starts the simulation again).
    pub restarts: u32,
    pub frames: u64,
    /// Steps over the whole run, every restart included.
    pub steps: u64,
    /// Steps of the scene running at exit, since its last restart.
    pub scene_steps: u64,
    pub diagnostics: Vec<ReportSample>,
    /// Frames whose per-pass GPU times arrived.
    pub profile_frames: Vec<u64>,
    pub screenshots: Vec<String>,
    /// Size of the surface at the last frame, in pixels.
    pub surface_size: [u32; 2],
    /// The 3D view in pixels: [x0, y0, x1, y1] (the rest of the window is the panel).
    pub viewport: [f32; 4],
}

/// The scripted side of a run: the options that script it and the report it keeps.
pub(crate) struct Automation {
    /// `--frames`: exit after this many.
    frames: Option<u64>,
    /// `--screenshot`: the last frame's file.
    last_shot: Option<PathBuf>,
    /// `--screenshot-at`: frames saved as `frame-NNNNN.png`.
    shots_at: Vec<u64>,
    /// `--screenshot-dir`: where those, and the ones the user asks for, go.
    shot_dir: PathBuf,
    /// `--resize-at`: (frame, size) window size requests.
    resizes: Vec<(u64, (u32, u32))>,
    /// `--report`: where the report goes at exit.
    report_path: Option<PathBuf>,
    report: Report,
}

impl Automation {
    /// `header`: the report's fixed part (adapter, surface format, particle counts).
    pub(crate) fn new(args: &AppArgs, header: Report) -> Self {
        Self {
            frames: args.frames,
            last_shot: args.screenshot.clone(),
            shots_at: args.screenshot_at.clone(),
            shot_dir: args.screenshot_dir.clone(),
            resizes: args.resize_at.clone(),
            report_path: args.report.clone(),
            report: header,
        }
    }

    /// A diagnostics sample arrived.
    pub(crate) fn diagnostics(&mut self, s: &DiagSample) {
        self.report.diagnostics.push(ReportSample::from(s));
    }

    /// The per-pass GPU times of `frame` are the latest (counted once per frame).
    pub(crate) fn profile(&mut self, frame: u64) {
        if self.report.profile_frames.last() != Some(&frame) {
            self.report.profile_frames.push(frame);
        }
    }

    /// Where the screenshot the user asked for (F12, the panel) of frame `next` goes.
    pub(crate) fn asked_shot(&self, next: u64) -> PathBuf {
        self.shot_dir.join(format!("rillet-frame-{next:05}.png"))
    }

    /// The scripted screenshot of frame `next` (about to be drawn), if there is one.
    pub(crate) fn scripted_shot(&self, next: u64) -> Option<PathBuf> {
        match &self.last_shot {
            Some(path) if self.frames == Some(next) => Some(path.clone()),
            _ => self.shots_at.contains(&next).then(|| self.shot_dir.join(format!("frame-{next:05}.png"))),
        }
    }

    /// The simulation started again (a reload or a reset) with this many particles.
    pub(crate) fn restarted(&mut self, n_particles: u32, n_fluid: u32) {
        self.report.restarts += 1;
        self.report.n_particles = n_particles;
        self.report.n_fluid = n_fluid;
    }

    /// A screenshot was recorded (it is written later, off the frame loop).
    pub(crate) fn captured(&mut self, path: &std::path::Path) {
        self.report.screenshots.push(path.display().to_string());
    }

    /// The 3D view's rectangle in pixels, [x0, y0, x1, y1], as laid out this frame.
    pub(crate) fn viewport(&mut self, rect: [f32; 4]) {
        self.report.viewport = rect;
    }

    /// After frame `frame` was presented: counts it, asks for its scripted window size; true
    /// when it was the last one `--frames` asked for.
    pub(crate) fn presented(&mut self, window: &Window, frame: u64, steps: u64, scene_steps: u64, surface_size: [u32; 2]) -> bool {
        self.report.frames = frame;
        self.report.steps = steps;
        self.report.scene_steps = scene_steps;
        self.report.surface_size = surface_size;
        if let Some(&(at, (w, h))) = self.resizes.iter().find(|r| r.0 == frame) {
            log::info!("frame {at}: asking for a {w}x{h} window");
            let _ = window.request_inner_size(winit::dpi::PhysicalSize::new(w, h));
        }
        let done = self.frames.is_some_and(|n| frame >= n);
        if done {
            log::info!("{frame} frames done: exiting");
        }
        done
    }

    /// At exit: writes the report, when one was asked for.
    pub(crate) fn write_report(&self) -> anyhow::Result<()> {
        if let Some(path) = &self.report_path {
            let text = serde_json::to_string_pretty(&self.report)?;
            crate::files::write_whole(path, text.as_bytes()).context("the report")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn automation(args: AppArgs) -> Automation {
        Automation::new(&args, Report::default())
    }

    #[test]
    fn scripted_shots_land_on_their_frames() {
        let a = automation(AppArgs {
            frames: Some(240),
            screenshot: Some("last.png".into()),
            screenshot_at: vec![120, 240],
            screenshot_dir: "shots".into(),
            ..Default::default()
        });
        assert_eq!(a.scripted_shot(119), None);
        assert_eq!(a.scripted_shot(120), Some(PathBuf::from("shots/frame-00120.png")));
        // the last frame's file wins over the folder's
        assert_eq!(a.scripted_shot(240), Some(PathBuf::from("last.png")));
        assert_eq!(a.asked_shot(7), PathBuf::from("shots/rillet-frame-00007.png"));
    }

    #[test]
    fn profile_frames_are_counted_once() {
        let mut a = automation(AppArgs::default());
        for f in [10, 10, 20, 20, 20, 30] {
            a.profile(f);
        }
        assert_eq!(a.report.profile_frames, vec![10, 20, 30]);
    }
}
