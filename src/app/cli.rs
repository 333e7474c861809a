//! The app's command line: the options and their parsers. Each is checked when parsed, so a bad
//! value is one clap message naming the option and what it allows, before anything starts.

use crate::scene::limits;
use std::path::PathBuf;

/// Command-line options of the app (the default command).
#[derive(clap::Args, Debug, Clone)]
pub struct AppArgs {
    /// Scene file (RON). Without one, the built-in dam break runs. The file is watched: the
    /// scene reloads when it changes.
    pub scene: Option<PathBuf>,
    /// Simulation steps per frame at start, within [`limits::SUBSTEPS`] (the panel changes it).
    #[arg(long, default_value_t = 4, value_parser = parse_substeps,
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
    /// Folder for exported particle frames ("Export frame" E, "Record" R).
    #[arg(long, value_name = "DIR", default_value = "export")]
    pub export_dir: PathBuf,
    /// Formats of exported frames: vtk (.vtu and particles.pvd), ply.
    #[arg(long, value_delimiter = ',', default_value = "vtk")]
    pub export: Vec<crate::export::Format>,
    /// Record a frame every this many steps.
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub export_every: u64,
    /// Export the boundary (wall) particles too.
    #[arg(long)]
    pub export_boundary: bool,
    /// Start recording at once.
    #[arg(long)]
    pub record: bool,
    /// How the fluid is drawn at start: spheres or surface (the panel and V switch).
    #[arg(long, value_enum, default_value = "spheres")]
    pub view: crate::render::View,
    /// What the water reflects and is seen against at start (surface view).
    #[arg(long, value_enum, default_value = "sky")]
    pub environment: crate::render::surface::Environment,
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
            export_dir: PathBuf::from("export"),
            export: vec![crate::export::Format::Vtk],
            export_every: 10,
            export_boundary: false,
            record: false,
            resize_at: Vec::new(),
            view: crate::render::View::Spheres,
            environment: crate::render::surface::Environment::Sky,
        }
    }
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    limits::parse_size(s)
}

/// `--substeps`: a whole number within [`limits::SUBSTEPS`]; out of range is refused, not clamped.
fn parse_substeps(s: &str) -> Result<u32, String> {
    limits::parse_within(s, &limits::SUBSTEPS)
}

fn parse_resize(s: &str) -> Result<(u64, (u32, u32)), String> {
    let (frame, size) = s.split_once(':').ok_or_else(|| format!("`{s}`: expected FRAME:WIDTHxHEIGHT"))?;
    let frame = frame.trim().parse().map_err(|_| format!("`{frame}` is not a frame number"))?;
    Ok((frame, parse_size(size)?))
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
