//! `rillet render`: a scene run and drawn with the app's renderer into a texture — no window, no
//! display — one PNG per frame (`DIR/frame-NNNNN.png`), for animations and for measuring the
//! renderer. The camera frames the domain as the app does when it opens, turned and moved by
//! `--yaw`, `--pitch` and `--zoom`, in either view (`--view spheres|surface`). Each render pass
//! is timed with GPU timestamps where the adapter has them; `DIR/render.json` keeps the figures.

use crate::gpu::Gpu;
use crate::render::image::{self, Pixels};
use crate::render::surface::Environment;
use crate::render::{Renderer, Timing, View, ViewSettings, Viewport};
use crate::scene::Scene;
use crate::scene::limits;
use crate::scene::setup;
use crate::sim::Sim;
use crate::sim::profiler::FrameTimer;
use crate::sim::readback::Readback;
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// Scene file (RON).
    pub scene: PathBuf,
    /// Frames to render.
    #[arg(long, default_value_t = 120)]
    pub frames: u64,
    /// Output folder for frame-NNNNN.png and render.json (created if missing).
    #[arg(long, default_value = "frames")]
    pub out: PathBuf,
    /// Image size in pixels.
    #[arg(long, default_value = "1280x720", value_parser = limits::parse_size)]
    pub size: (u32, u32),
    /// Simulation steps per frame.
    #[arg(long, default_value_t = 4, value_parser = |s: &str| limits::parse_within(s, &limits::SUBSTEPS))]
    pub substeps: u32,
    /// How to draw the fluid: spheres (coloured by speed) or surface (water).
    #[arg(long, value_enum, default_value = "spheres")]
    pub view: View,
    /// What the water reflects and is seen against (surface view).
    #[arg(long, value_enum, default_value = "sky")]
    pub environment: Environment,
    /// Radius of the surface view's depth filter, in particle spacings.
    #[arg(long, value_name = "SPACINGS", value_parser = parse_smoothing)]
    pub smoothing: Option<f32>,
    /// Draw spray (particles with few neighbours) as water, not as white points (surface view).
    #[arg(long)]
    pub no_spray: bool,
    /// Draw without the domain box.
    #[arg(long)]
    pub no_box: bool,
    /// Draw the boundary particles too: the tank's walls and the solids' shells (solids are
    /// drawn as surfaces either way).
    #[arg(long)]
    pub walls: bool,
    /// Render and time the frames without writing PNGs (for measuring).
    #[arg(long)]
    pub no_images: bool,
    /// No progress line on stderr while the frames are made.
    #[arg(long)]
    pub quiet: bool,
    /// Camera azimuth about the vertical axis, degrees (default: the app's opening view).
    #[arg(long, allow_hyphen_values = true)]
    pub yaw: Option<f32>,
    /// Camera elevation, degrees.
    #[arg(long, allow_hyphen_values = true, value_parser = |s: &str| limits::parse_within(s, &limits::CAMERA_PITCH))]
    pub pitch: Option<f32>,
    /// Camera distance as a multiple of the one that frames the whole domain (< 1: closer).
    #[arg(long, value_parser = |s: &str| limits::parse_within(s, &limits::CAMERA_ZOOM))]
    pub zoom: Option<f32>,
    /// Draw the app's panel over every frame (egui, its pass timed as `ui.egui`), so that a
    /// frame costs what the app's does: steps, view and panel.
    #[arg(long)]
    pub panel: bool,
}

/// What is drawn over each frame after the view: the app's panel with `--panel` (the app makes
/// it, `crate::app::panel_frame`), so that `rillet render` measures the app's whole frame.
pub trait FrameOverlay {
    /// Records the overlay's render pass over `target` (`size` pixels) of `frame`, its GPU
    /// times to `timestamps`; returns the command buffers to submit before the frame's.
    fn record(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: (&wgpu::TextureView, [u32; 2]),
        frame: &OverlayFrame<'_>,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) -> Vec<wgpu::CommandBuffer>;
    /// After the frame's submit.
    fn submitted(&mut self);
}

/// What an overlay may show of a frame.
pub struct OverlayFrame<'a> {
    /// The frame (1-based), the steps a frame runs and the steps done by its end.
    pub frame: u64,
    pub substeps: u32,
    pub steps: u64,
    pub sim: &'a Sim,
    /// The view's settings (the panel shows them).
    pub settings: &'a ViewSettings,
    /// The diagnostics words that arrived since the last frame, with the frame they are of.
    pub arrived: &'a [(u64, crate::sim::params::Diagnostics)],
    /// Frames and steps per wall second of the loop so far.
    pub fps: f32,
    pub steps_per_second: f32,
    /// The GPU milliseconds of the view's passes and of the overlay's, of the last timed frame.
    pub render_ms: Option<(u64, [f64; 2])>,
}

/// Makes the overlay once the device is open (`rillet render --panel`: the app's panel).
pub type OverlayMaker = Box<dyn FnOnce(&Gpu, &Scene, &RenderArgs) -> Box<dyn FrameOverlay>>;

fn parse_smoothing(s: &str) -> Result<f32, String> {
    let range = crate::render::surface::FILTER_RADIUS;
    let v: f32 = s.trim().parse().map_err(|_| format!("`{s}` is not a number"))?;
    if range.contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is out of range: allowed [{}, {}] particle spacings", range.start(), range.end()))
    }
}

/// What `render.json` records.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct RenderReport {
    pub scene: String,
    pub adapter: String,
    pub width: u32,
    pub height: u32,
    /// Frames rendered (fewer than asked for when a signal stopped the run).
    pub frames: u64,
    pub substeps: u32,
    pub view: View,
    pub fluid_particles: u32,
    pub boundary_particles: u32,
    /// Mean GPU milliseconds per frame of all render passes (None without timestamp queries).
    pub render_ms_per_frame: Option<f64>,
    /// Mean GPU milliseconds per frame of each render pass of the view, by label.
    pub passes: Vec<PassTime>,
    /// Wall seconds of the frame loop (steps, drawing, readback; PNG encoding overlapped; the
    /// scene's setup before the first frame not included). The CPU records a frame while the
    /// GPU runs the one before, as the app does.
    pub wall_seconds: f64,
    /// Frames per wall second of the frame loop.
    pub frames_per_second: f64,
    /// Simulated seconds the frames covered, and per wall second.
    pub sim_seconds: f64,
    pub sim_seconds_per_second: f64,
    pub images: bool,
}

/// One render pass's mean GPU time per frame.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct PassTime {
    pub pass: String,
    pub ms_per_frame: f64,
}

/// The colour target's format: sRGB, as the app's swapchain.
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

pub fn run(args: RenderArgs, overlay: Option<OverlayMaker>) -> anyhow::Result<()> {
    let scene = Scene::load(&args.scene)?;
    let gpu = Gpu::headless()?;
    let mut overlay = overlay.map(|make| make(&gpu, &scene, &args));
    let r = render(&gpu, &scene, &args.scene.display().to_string(), &args, overlay.as_deref_mut())?;
    eprintln!(
        "{}: {} frames of {}x{} ({} view, {} steps each), render {} per frame{}, {:.1} s: {:.1} frames/s, {} simulated s/s",
        args.out.display(),
        r.frames,
        r.width,
        r.height,
        r.view.name(),
        r.substeps,
        r.render_ms_per_frame.map_or("n/a (no timestamp queries)".to_string(), |ms| format!("{ms:.3} ms")),
        if r.passes.len() > 1 {
            format!(" ({})", r.passes.iter().map(|p| format!("{} {:.3} ms", p.pass, p.ms_per_frame)).collect::<Vec<_>>().join(", "))
        } else {
            String::new()
        },
        r.wall_seconds,
        r.frames_per_second,
        crate::progress::significant(r.sim_seconds_per_second, 3)
    );
    Ok(())
}

/// The view the command line asks for.
fn view_settings(args: &RenderArgs, params: &crate::sim::params::SimParams, aspect: f32) -> ViewSettings {
    let mut settings = ViewSettings::new(params, aspect);
    if let Some(yaw) = args.yaw.filter(|y| y.is_finite()) {
        settings.camera.yaw = yaw.to_radians();
    }
    if let Some(pitch) = args.pitch {
        settings.camera.pitch = pitch.to_radians();
    }
    if let Some(zoom) = args.zoom {
        settings.camera.distance *= zoom;
    }
    settings.view = args.view;
    settings.surface.environment = args.environment;
    settings.surface.spray = !args.no_spray;
    if let Some(r) = args.smoothing {
        settings.surface.filter_radius = r;
    }
    settings.show_box = !args.no_box;
    settings.show_boundary = args.walls;
    settings
}

/// The render's health, as `rillet run` and the app watch it: the GPU's counters and the fastest
/// particle of every frame, copied out with the frame (read without waiting).
struct FrameHealth {
    health: crate::health::Health,
    guards: crate::health::GuardTotals,
    n_fluid: u64,
    fixed_dt: Option<f64>,
    substeps: u32,
}

impl FrameHealth {
    /// The finding that stops the render (a blow-up) in the diagnostics copied with `frame`;
    /// a warning goes to `warned`.
    fn judge(&mut self, frame: u64, bytes: &[u8], warned: &mut dyn FnMut(&crate::health::Finding)) -> Option<crate::health::Finding> {
        let step = frame * self.substeps as u64;
        let d = crate::sim::readback::diagnostics_from(bytes);
        let time = self.fixed_dt.map_or(d.sim_time(), |dt| step as f64 * dt);
        let delta = self.guards.update(&d, step);
        let fluid = (self.n_fluid + d.emitted as u64).saturating_sub(d.outflow as u64);
        let row = crate::probes::ProbeRow { step, time, max_speed: d.max_speed as f64, dt: d.dt as f64, ..Default::default() };
        match self.health.check_guards(&delta, fluid, step, time).or_else(|| self.health.check_row(&row)) {
            Some(f) if f.blow_up => Some(f),
            Some(f) => {
                warned(&f);
                None
            }
            None => None,
        }
    }
}

/// Each pass's mean milliseconds a frame over the second half of the frames (the first warm up:
/// pipelines, caches); none without timestamps.
fn pass_times(times: &[(u64, Vec<f64>)], passes: &[&str]) -> Vec<PassTime> {
    let tail = &times[times.len() / 2..];
    if tail.is_empty() {
        return Vec::new();
    }
    let mean = |k: usize| tail.iter().map(|(_, t)| t[k]).sum::<f64>() / tail.len() as f64;
    passes.iter().enumerate().map(|(k, p)| PassTime { pass: p.to_string(), ms_per_frame: mean(k) }).collect()
}

/// Renders `args.frames` frames of `scene` into `args.out`. One function for the frame loop and
/// what it holds (the target, the staging rings, the PNG writer's thread, the timer), so that
/// their borrows stay local; its parts are the helpers above.
pub(crate) fn render(
    gpu: &Gpu,
    scene: &Scene,
    label: &str,
    args: &RenderArgs,
    mut overlay: Option<&mut (dyn FrameOverlay + 'static)>,
) -> anyhow::Result<RenderReport> {
    let (width, height) = args.size;
    check_size(gpu, args.size, args.view, args.no_images, setup::available_host_memory())?;
    let state = setup::build_checked(scene, gpu).with_context(|| format!("{label}: the scene does not fit this device"))?;
    let mut sim = Sim::new(gpu, &state, setup::sim_options(scene)).map_err(|e| e.for_scene(label))?;
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let device = &gpu.device;
    let mut renderer = Renderer::new(device, FORMAT);
    let viewport = Viewport { x: 0.0, y: 0.0, width: width as f32, height: height as f32 };
    let settings = view_settings(args, sim.params(), viewport.aspect());
    let surfaces = scene.solid_surfaces();
    renderer.set_solids(device, &surfaces.rest);
    let target = target_texture(device, "render.offscreen", width, height);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let padded_row = image::padded_row(width);
    // one frame in flight while the next is recorded (as a swapchain of two images): a staging
    // buffer for each, and one for the frame whose mapping is still being taken
    let mut pixels = Readback::<u64>::new(device, "render.offscreen.pixels", padded_row as u64 * height as u64, 3);
    let passes = args.view.passes_with(overlay.is_some());
    let mut timer = gpu.has_timestamps().then(|| FrameTimer::new(device, &gpu.queue, "render.offscreen.time", passes));
    let mut times: Vec<(u64, Vec<f64>)> = Vec::new();
    let (tx, rx) = std::sync::mpsc::sync_channel::<(PathBuf, Vec<u8>)>(2);
    let writer = std::thread::spawn(move || -> Result<(), String> {
        for (path, bytes) in rx {
            image::write_png(&path, &Pixels { width, height, padded_row, bgra: false, bytes: &bytes })?;
        }
        Ok(())
    });
    // loaded: from here a signal stops the render after the frame in flight
    crate::signals::loaded();
    let t0 = Instant::now();
    let mut frames = 0;
    let mut bar = crate::progress::Progress::new(label, args.frames, !args.quiet).counting("frame");
    // the simulated time a progress line shows: step × dt, unknown on the CPU for an adaptive dt
    let fixed_dt = (!sim.is_adaptive()).then(|| sim.fixed_dt());
    // an adaptive run's clock as the last diagnostics read gave it (where the moving solids are
    // drawn)
    let mut last_time = 0.0;
    // the floating bodies' states, read with the diagnostics (where they are drawn)
    let mut body_states: Vec<crate::sim::motion::BodyState> = Vec::new();
    let mut ahead = crate::ahead::OneAhead::new();
    // the run's health, as `rillet run` and the app watch it: the GPU's counters and the fastest
    // particle of every frame, copied out with the frame (read without waiting)
    let mut watch = FrameHealth {
        health: crate::health::Health::new(sim.params()),
        guards: crate::health::GuardTotals::default(),
        n_fluid: sim.params().n_fluid as u64,
        fixed_dt,
        substeps: args.substeps,
    };
    let mut blown: Option<crate::health::Finding> = None;
    // the diagnostics that arrived since the overlay's last frame
    let mut arrived: Vec<(u64, crate::sim::params::Diagnostics)> = Vec::new();
    // the diagnostics words, then the moving solids' states
    const DIAG_BYTES: u64 = std::mem::size_of::<crate::sim::params::Diagnostics>() as u64;
    let mut diagnostics = Readback::<u64>::new(device, "render.offscreen.diagnostics", DIAG_BYTES + sim.bodies_bytes(), 3);
    // hands the frames whose pixels and times have arrived to the writer; false when it stopped
    let take = |pixels: &mut Readback<u64>, timer: &mut Option<FrameTimer>, times: &mut Vec<(u64, Vec<f64>)>| -> bool {
        if let Some(t) = timer.as_mut() {
            times.extend(t.take_ready());
        }
        for (frame, bytes) in pixels.take_ready() {
            if tx.send((frame_path(&args.out, frame), bytes)).is_err() {
                return false;
            }
        }
        true
    };
    'frames: for frame in 1..=args.frames {
        if crate::signals::stop_requested() {
            break;
        }
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("render.offscreen") });
        sim.record_steps(&mut encoder, args.substeps);
        if surfaces.moves() {
            // where the steps leave them: the clock of a fixed dt (with an adaptive one, the
            // frame's dt is not known here: the last diagnostics read)
            let t = fixed_dt.map_or(last_time, |dt| (frame * args.substeps as u64) as f64 * dt);
            for (first, moved) in surfaces.moved_at(t, &body_states) {
                renderer.move_solids(&gpu.queue, first, &moved);
            }
        }
        let draw = Some((sim.current(), sim.n_particles()));
        if let Some(t) = timer.as_mut() {
            t.start(frame);
        }
        let timing = timer.as_ref().map_or(Timing::Off, |t| Timing::Passes { set: t.query_set(), base: 0 });
        renderer.record(device, &gpu.queue, &mut encoder, &view, [width, height], viewport, &settings, sim.params(), draw, timing);
        let mut first = Vec::new();
        if let Some(o) = overlay.as_deref_mut() {
            let elapsed = t0.elapsed().as_secs_f64().max(1e-9);
            let info = OverlayFrame {
                frame,
                substeps: args.substeps,
                steps: frame * args.substeps as u64,
                sim: &sim,
                settings: &settings,
                arrived: &arrived,
                fps: (frames as f64 / elapsed) as f32,
                steps_per_second: (frames as f64 * args.substeps as f64 / elapsed) as f32,
                render_ms: times.last().map(|(at, t)| {
                    let n = t.len() - 1;
                    (*at, [t[..n].iter().sum(), t[n]])
                }),
            };
            let k = passes.len() as u32 - 1;
            let writes = timer.as_ref().map(|t| wgpu::RenderPassTimestampWrites {
                query_set: t.query_set(),
                beginning_of_pass_write_index: Some(2 * k),
                end_of_pass_write_index: Some(2 * k + 1),
            });
            first = o.record(gpu, &mut encoder, (&view, [width, height]), &info, writes);
            arrived.clear();
        }
        if let Some(t) = timer.as_mut() {
            t.record_copy(&mut encoder, frame);
        }
        if !args.no_images {
            let dst = pixels.reserve(frame).context("the frame's staging buffer is still in use")?;
            copy_out(&mut encoder, &target, dst, padded_row);
        }
        let dst = diagnostics.reserve(frame).context("the frame's diagnostics staging buffer is still in use")?;
        sim.record_diagnostics_copy(&mut encoder, dst, 0);
        sim.record_bodies_copy(&mut encoder, dst, DIAG_BYTES);
        let submitted = gpu.queue.submit(first.into_iter().chain([encoder.finish()]));
        if let Some(o) = overlay.as_deref_mut() {
            o.submitted();
        }
        pixels.submitted();
        diagnostics.submitted();
        if let Some(t) = timer.as_mut() {
            t.submitted();
        }
        // the CPU records frame k + 1 while the GPU draws frame k: wait for frame k - 1 only
        ahead.submitted(device, submitted)?;
        if !take(&mut pixels, &mut timer, &mut times) {
            // the writer stopped on an error: its message follows below
            break 'frames;
        }
        frames = frame;
        bar.update(frame, fixed_dt.map_or(f64::NAN, |dt| (frame * args.substeps as u64) as f64 * dt));
        for (done, bytes) in diagnostics.take_ready() {
            if bytes.len() >= std::mem::size_of::<crate::sim::params::Diagnostics>() {
                let d = bytemuck::pod_read_unaligned::<crate::sim::params::Diagnostics>(
                    &bytes[..std::mem::size_of::<crate::sim::params::Diagnostics>()],
                );
                last_time = d.sim_time();
                if overlay.is_some() {
                    arrived.push((done, d));
                }
            }
            let bodies_end = (DIAG_BYTES + sim.bodies_bytes()) as usize;
            if sim.bodies_bytes() > 0 && bytes.len() >= bodies_end {
                body_states = bytemuck::pod_collect_to_vec(&bytes[DIAG_BYTES as usize..bodies_end]);
            }
            if let Some(f) = watch.judge(done, &bytes, &mut |f| bar.say(&format!("{label}: {f}"))) {
                blown = Some(f);
                break 'frames;
            }
        }
    }
    bar.finish();
    ahead.drain(device)?;
    let wall_seconds = t0.elapsed().as_secs_f64();
    take(&mut pixels, &mut timer, &mut times);
    if blown.is_none() {
        for (done, bytes) in diagnostics.take_ready() {
            if let Some(f) = watch.judge(done, &bytes, &mut |f| eprintln!("{label}: {f}")) {
                blown = Some(f);
                break;
            }
        }
    }
    let sim_seconds = {
        let d = sim.read_diagnostics()?;
        sim.time_at(frames * args.substeps as u64, &d)
    };
    drop(tx);
    writer.join().map_err(|_| anyhow::anyhow!("the PNG writer panicked"))?.map_err(anyhow::Error::msg)?;
    if let (n @ 1.., first) = gpu.uncaptured_errors() {
        anyhow::bail!(
            "the device reported {n} error(s) while rendering, so the frames in {} cannot be trusted; the first: {}",
            args.out.display(),
            first.unwrap_or_default()
        );
    }
    if let Some(finding) = blown {
        return Err(crate::health::Stopped::BlowUp { finding, out: args.out.display().to_string(), kept: "frames" }.into());
    }
    let pass_times = pass_times(&times, passes);
    let report = RenderReport {
        scene: label.to_string(),
        adapter: gpu.describe(),
        width,
        height,
        frames,
        substeps: args.substeps,
        view: args.view,
        fluid_particles: state.n_fluid,
        boundary_particles: state.n_boundary(),
        render_ms_per_frame: (!pass_times.is_empty()).then(|| pass_times.iter().map(|p| p.ms_per_frame).sum()),
        passes: pass_times,
        wall_seconds,
        frames_per_second: frames as f64 / wall_seconds.max(1e-9),
        sim_seconds,
        sim_seconds_per_second: sim_seconds / wall_seconds.max(1e-9),
        images: !args.no_images,
    };
    crate::files::write_whole(&args.out.join("render.json"), serde_json::to_string_pretty(&report)?.as_bytes())?;
    Ok(report)
}

/// Bytes of host memory a pixel of the image takes: the staging buffers of the frames in flight
/// (three), the frames queued for the PNG writer (two) and the writer's own (two).
const HOST_BYTES_PER_PIXEL: u64 = 4 * 7;

/// Whether an image of `size` can be rendered in `view` here, before anything is allocated: the
/// device's largest texture, the surface view's per-pixel storage binding, the host's memory.
pub fn check_size(gpu: &Gpu, size: (u32, u32), view: View, no_images: bool, available: Option<u64>) -> anyhow::Result<()> {
    let (w, h) = size;
    let max_dim = gpu.limits.max_texture_dimension_2d;
    anyhow::ensure!(
        w <= max_dim && h <= max_dim,
        "--size {w}x{h} is out of range: this device draws images of at most {max_dim} pixels a side"
    );
    let pixels = w as u64 * h as u64;
    if view == View::Surface {
        // the depth splat keeps 4 bytes a pixel in one storage binding
        let most = gpu.max_binding_bytes() / 4;
        anyhow::ensure!(
            pixels <= most,
            "--size {w}x{h} ({pixels} pixels) is out of range for the surface view: this device binds at most {} bytes of storage at once, 4 a pixel, so at most {most} pixels (about {side}x{side})",
            gpu.max_binding_bytes(),
            side = (most as f64).sqrt() as u64
        );
    }
    if !no_images && let Some(available) = available {
        let needed = pixels * HOST_BYTES_PER_PIXEL;
        use setup::GIB;
        anyhow::ensure!(
            needed <= available,
            "--size {w}x{h}: the frames in flight and the PNG writer need about {:.1} GiB of memory, this machine has {:.1} GiB free: render smaller images",
            needed as f64 / GIB,
            available as f64 / GIB
        );
    }
    Ok(())
}

/// The PNG of frame `frame` (1-based) in `dir`.
pub(crate) fn frame_path(dir: &Path, frame: u64) -> PathBuf {
    dir.join(format!("frame-{frame:05}.png"))
}

/// One frame of `settings`' view drawn into a new texture of `size` and read back at once:
/// tightly packed sRGB RGBA rows (alpha 255), top row first. For tests and single images (it makes its
/// texture and buffers each call; [`render`] keeps them).
pub fn draw_frame(
    gpu: &Gpu,
    renderer: &mut Renderer,
    settings: &ViewSettings,
    params: &crate::sim::params::SimParams,
    draw: Option<(&crate::sim::buffers::ParticleSet, u32)>,
    size: (u32, u32),
) -> Result<Vec<u8>, crate::sim::readback::ReadError> {
    let (width, height) = size;
    let device = &gpu.device;
    let target = target_texture(device, "render.frame", width, height);
    let view = target.create_view(&wgpu::TextureViewDescriptor::default());
    let padded_row = image::padded_row(width);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("render.frame.pixels"),
        size: padded_row as u64 * height as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("render.frame") });
    let viewport = Viewport { x: 0.0, y: 0.0, width: width as f32, height: height as f32 };
    renderer.record(device, &gpu.queue, &mut encoder, &view, [width, height], viewport, settings, params, draw, Timing::Off);
    copy_out(&mut encoder, &target, &buffer, padded_row);
    gpu.queue.submit([encoder.finish()]);
    let bytes = crate::sim::buffers::read_bytes(device, &gpu.queue, &buffer, 0, padded_row as u64 * height as u64)?;
    Ok(Pixels { width, height, padded_row, bgra: false, bytes: &bytes }.rgba())
}

/// The colour target of an offscreen frame (rendered into, copied out of).
fn target_texture(device: &wgpu::Device, label: &str, width: u32, height: u32) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Records the copy of `target` into `buffer`, `padded_row` bytes per row.
fn copy_out(encoder: &mut wgpu::CommandEncoder, target: &wgpu::Texture, buffer: &wgpu::Buffer, padded_row: u32) {
    let size = target.size();
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded_row), rows_per_image: Some(size.height) },
        },
        size,
    );
}
