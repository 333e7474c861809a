//! The desktop app: a winit window with the fluid drawn as sprites and the egui panel
//! ([`panel`], the app's own part: it reads the app's driver and timers, never the reverse).
//!
//! [`run`] loads the scene first (a bad scene is an error before any window opens), then runs
//! the event loop. The frame itself lives in [`window`]; the simulation side of a frame, with
//! its asynchronous readbacks, in [`driver`] (also used headless by the tests).

pub mod driver;
pub mod panel;
pub mod render_timer;
pub mod screenshot;
pub mod surface;
pub mod watch;
pub mod window;

use crate::scene::limits;
use anyhow::Context as _;
use std::path::PathBuf;
use window::{LoadedScene, Running};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::WindowId;

/// Command-line options of the app (the default command).
#[derive(clap::Args, Debug, Clone)]
pub struct AppArgs {
    /// Scene file (RON). Without one, the built-in dam break runs. The file is watched: the
    /// scene reloads when it changes.
    pub scene: Option<PathBuf>,
    /// Simulation steps per frame at start, within [`limits::SUBSTEPS`] (the panel changes it).
    #[arg(long, default_value_t = 4, value_parser = parse_substeps, value_name = "N",
          help = format!("Simulation steps per frame at start ({}–{}; the panel changes it)", limits::SUBSTEPS.min, limits::SUBSTEPS.max))]
    pub substeps: u32,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, value_parser = parse_size, default_value = "1280x720")]
    pub size: (u32, u32),
    /// Exit (code 0) after this many frames.
    #[arg(long, value_name = "N")]
    pub frames: Option<u64>,
    /// Save a PNG of the last frame (the one `--frames` ends on) as FILE.
    #[arg(long, value_name = "FILE", requires = "frames")]
    pub screenshot: Option<PathBuf>,
    /// Save a PNG of these frames (comma separated), as DIR/frame-NNNNN.png.
    #[arg(long, value_delimiter = ',', value_name = "FRAME,...")]
    pub screenshot_at: Vec<u64>,
    /// Folder for screenshots (F12, the panel button, --screenshot-at).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub screenshot_dir: PathBuf,
    /// Write a JSON report at exit: frames, steps, the diagnostics samples with their frames.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Do not wait for the display's refresh (present as fast as possible).
    #[arg(long)]
    pub no_vsync: bool,
    /// Testing: ask for a new window size at a frame, FRAME:WIDTHxHEIGHT (repeatable).
    #[arg(long, hide = true, value_parser = parse_resize, value_name = "FRAME:WxH")]
    pub resize_at: Vec<(u64, (u32, u32))>,
}

impl Default for AppArgs {
    fn default() -> Self {
        Self {
            scene: None,
            substeps: 4,
            size: (1280, 720),
            frames: None,
            screenshot: None,
            screenshot_at: Vec::new(),
            screenshot_dir: PathBuf::from("."),
            report: None,
            no_vsync: false,
            resize_at: Vec::new(),
        }
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let parse = |v: &str| v.trim().parse::<u32>().ok().filter(|&n| (64..=16384).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("`{s}`: width and height must be whole numbers in 64..=16384")),
    }
}

/// `--substeps`: a whole number within [`limits::SUBSTEPS`]; out of range is refused, not clamped.
fn parse_substeps(s: &str) -> Result<u32, String> {
    let n: u32 = s.trim().parse().map_err(|_| format!("`{s}` is not a whole number"))?;
    if limits::SUBSTEPS.contains(n) { Ok(n) } else { Err(format!("{n} is out of range: allowed {}", limits::SUBSTEPS.allowed())) }
}

fn parse_resize(s: &str) -> Result<(u64, (u32, u32)), String> {
    let (frame, size) = s.split_once(':').ok_or_else(|| format!("`{s}`: expected FRAME:WIDTHxHEIGHT"))?;
    let frame = frame.trim().parse().map_err(|_| format!("`{frame}` is not a frame number"))?;
    Ok((frame, parse_size(size)?))
}

/// One diagnostics sample in the report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ReportSample {
    pub frame: u64,
    pub step: u64,
    pub max_per_cell: u32,
    pub overflows: u32,
    pub wall_clamps: u32,
    pub non_finite: u32,
}

impl From<&driver::DiagSample> for ReportSample {
    fn from(s: &driver::DiagSample) -> Self {
        Self {
            frame: s.frame,
            step: s.step,
            max_per_cell: s.diag.max_per_cell,
            overflows: s.diag.overflows,
            wall_clamps: s.diag.wall_clamps,
            non_finite: s.diag.non_finite,
        }
    }
}

/// What `--report` writes at exit.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub adapter: String,
    pub surface_format: String,
    pub timestamps: bool,
    pub n_particles: u32,
    pub n_fluid: u32,
    pub frames: u64,
    pub steps: u64,
    pub diagnostics: Vec<ReportSample>,
    /// Frames whose per-pass GPU times arrived.
    pub profile_frames: Vec<u64>,
    pub screenshots: Vec<String>,
    /// Size of the surface at the last frame, in pixels.
    pub surface_size: [u32; 2],
    /// The 3D view in pixels: [x0, y0, x1, y1] (the rest of the window is the panel).
    pub viewport: [f32; 4],
}

struct App {
    args: AppArgs,
    scene: Option<LoadedScene>,
    running: Option<Running>,
    result: anyhow::Result<()>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() {
            return;
        }
        let Some(scene) = self.scene.take() else { return };
        match Running::new(event_loop, self.args.clone(), scene) {
            Ok(r) => self.running = Some(r),
            Err(e) => {
                self.result = Err(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        if let Some(r) = &mut self.running {
            r.window_event(event_loop, event);
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(r) = &mut self.running {
            r.about_to_wait(event_loop);
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(mut r) = self.running.take()
            && let Err(e) = r.finish()
            && self.result.is_ok()
        {
            self.result = Err(e);
        }
    }
}

/// Opens the window and runs until it is closed (or `--frames` are done).
pub fn run(args: AppArgs) -> anyhow::Result<()> {
    // the scene first: a bad file is reported (exit code 2) before any window opens
    let scene = LoadedScene::load(args.scene.as_deref())?;
    log::info!("rillet {} (pid {})", env!("CARGO_PKG_VERSION"), std::process::id());
    let event_loop =
        EventLoop::new().context("cannot open a window (no display? set DISPLAY or WAYLAND_DISPLAY, or run under xvfb-run)")?;
    let mut app = App { args, scene: Some(scene), running: None, result: Ok(()) };
    event_loop.run_app(&mut app).context("the event loop failed")?;
    app.result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert_eq!(parse_size("800X600"), Ok((800, 600)));
        assert!(parse_size("1280").is_err());
        assert!(parse_size("0x720").is_err());
        assert!(parse_size("axb").is_err());
        assert_eq!(parse_resize("150:800x560"), Ok((150, (800, 560))));
        assert!(parse_resize("800x560").is_err());
    }

    #[test]
    fn substeps_out_of_range_are_refused_with_the_range() {
        assert_eq!(parse_substeps("1"), Ok(1));
        assert_eq!(parse_substeps(&limits::SUBSTEPS.max.to_string()), Ok(limits::SUBSTEPS.max));
        assert_eq!(parse_substeps("0"), Err("0 is out of range: allowed [1, 32] steps per frame".into()));
        assert_eq!(parse_substeps("33"), Err("33 is out of range: allowed [1, 32] steps per frame".into()));
        assert!(parse_substeps("-1").is_err() && parse_substeps("four").is_err());
    }
}
