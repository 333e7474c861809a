//! The desktop app: a winit window with the fluid drawn as sprites and the egui panel.
//!
//! [`run`] loads the scene first (a bad scene is an error before any window opens), then hands
//! the window to the shell with the viewer as its content. Each module uses only those listed
//! after it, so imports run one way:
//!
//! - [`viewer`]: the app's content, where a frame's parts meet: the running scene, its view,
//!   the panel, screenshots and the scripted run.
//! - [`shell`]: the event loop, the window, and the order of a frame; it draws any
//!   [`shell::Content`] and knows nothing of scenes.
//! - [`session`]: the running scene: its simulation, file watch, reloads, resets, options.
//! - [`automation`]: what the command line scripts: frame count, screenshots, resizes, the
//!   report.
//! - [`view`]: the 3D view: renderer, camera, viewport, render pass times.
//! - [`panel`]: the egui panel.
//! - [`cli`]: the command line.
//! - [`driver`]: the simulation side of a frame and its asynchronous readbacks (also used
//!   headless by the tests).
//! - [`render_timer`], [`overlay`] (egui-winit and egui-wgpu), [`surface`], [`screenshot`],
//!   [`watch`]: one mechanism each.
//! - [`panel_frame`]: the panel over `rillet render`'s offscreen frames (`--panel`).

pub(crate) mod automation;
pub(crate) mod cli;
pub mod driver;
pub(crate) mod overlay;
pub mod panel;
pub mod panel_frame;
pub(crate) mod recorder;
pub(crate) mod render_timer;
pub(crate) mod screenshot;
pub mod session;
pub(crate) mod shell;
pub(crate) mod surface;
pub(crate) mod view;
pub(crate) mod viewer;
pub(crate) mod watch;

pub use cli::AppArgs;

use session::SceneFile;
use shell::WindowSpec;
use viewer::Viewer;

/// Opens the window and runs until it is closed (or `--frames` are done).
pub fn run(args: AppArgs) -> anyhow::Result<()> {
    // the scene and the options first: a bad one is reported (exit code 2) before any window opens
    let scene = SceneFile::load(args.scene.as_deref())?;
    crate::export::check_formats(&args.export)?;
    crate::signals::loaded();
    log::info!("rillet {} (pid {})", env!("CARGO_PKG_VERSION"), std::process::id());
    let spec = WindowSpec { title: viewer::title(&scene.title()), size: args.size, vsync: !args.no_vsync };
    shell::run(spec, move |host| Viewer::new(host, &args, scene))
}
