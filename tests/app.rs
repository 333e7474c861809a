//! The desktop app.
//!
//! - The real binary in a real window (under an Xvfb display the test binary starts, on lavapipe in CI) with the default
//!   scene: it runs a bounded number of frames, writes screenshots and a report, exits with 0;
//!   the pixels show the panel and the particles, and the particles moved between two shots.
//! - The frame loop's simulation side ([`Driver`]) headless: diagnostics arrive for frames 60,
//!   120, … with the values the simulation computed for that frame, and live option changes
//!   between frames keep every particle and the physics of the CPU twin.
//! - The render shaders validate, and their uniform block matches the Rust struct.
//! - The command line: `--help`, and a bad scene gives one message and exit code 2.

mod common;

use common::{build, gpu, small_drop};
use rillet::app::driver::{DIAGNOSTICS_EVERY, Driver};
use rillet::reference::RefSim;
use rillet::render::uniforms::FrameUniforms;
use rillet::sim::layout::CellOrder;
use rillet::sim::params::Diagnostics;
use rillet::sim::{Sim, SimOptions};
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rillet");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[allow(clippy::needless_update)] // the update covers fields added later
fn options(reorder_interval: u32) -> SimOptions {
    let base = rillet::scene::setup::sim_options(&small_drop());
    SimOptions { cell_size: 1.0, capacity: 64, reorder_interval, order: CellOrder::Morton, diagnostics: true, workgroup_size: 64, ..base }
}

/// Records, submits and polls one frame the way the window loop does.
fn frame(driver: &mut Driver, steps: u32) -> Vec<rillet::app::driver::DiagSample> {
    let g = gpu();
    let mut enc = g.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("test.frame") });
    driver.record_frame(&mut enc, steps);
    g.queue.submit([enc.finish()]);
    driver.submitted();
    driver.poll(&g.device)
}

/// Polls (waiting, bounded) until the readbacks in flight have arrived.
fn drain(driver: &mut Driver) -> Vec<rillet::app::driver::DiagSample> {
    let g = gpu();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut got = Vec::new();
    while driver.in_flight() > 0 {
        assert!(Instant::now() < deadline, "readbacks did not arrive within 60 s");
        g.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_secs(1)) }).ok();
        got.extend(driver.poll(&g.device));
    }
    got
}

/// What the diagnostics words must say for the grid of the last step, from its cell counts.
fn from_counts(counts: &[u32], capacity: u32) -> (u32, u32) {
    let max = counts.iter().copied().max().unwrap_or(0);
    let over = counts.iter().map(|&c| c.saturating_sub(capacity)).sum();
    (max, over)
}

#[test]
fn diagnostics_arrive_on_their_frames_with_the_values_of_that_frame() {
    let state = build(&small_drop());
    // a small capacity so that overflows are not zero
    // lists built every step, so that every step leaves the grid its words describe (a step
    // that keeps the lists leaves the last build's words: tests/gpu/grid.rs)
    let sim = Sim::new(gpu(), &state, SimOptions { capacity: 6, list_skin: 0.0, ..options(1) }).unwrap();
    let mut driver = Driver::new(&gpu().device, sim, gpu().has_timestamps());
    let steps_per_frame = 2;
    let frames = 3 * DIAGNOSTICS_EVERY + 10;
    let mut expected: Vec<(u64, u64, Diagnostics)> = Vec::new();
    let mut arrived = Vec::new();
    for f in 1..=frames {
        arrived.extend(frame(&mut driver, steps_per_frame));
        assert_eq!(driver.frame(), f);
        if f % DIAGNOSTICS_EVERY == 0 {
            // what the simulation core holds right after this frame (blocking: test only)
            let sim = driver.sim();
            let d = sim.read_diagnostics().unwrap();
            let grid = sim.read_grid().unwrap();
            assert_eq!(from_counts(&grid.counts, 6), (d.max_per_cell, d.overflows), "frame {f}: words vs the grid's counts");
            expected.push((f, sim.steps(), d));
        }
    }
    arrived.extend(drain(&mut driver));
    let got: Vec<(u64, u64, Diagnostics)> = arrived.iter().map(|s| (s.frame, s.step, s.diag)).collect();
    assert_eq!(got, expected);
    assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![60, 120, 180]);
    assert!(got.iter().all(|g| g.1 == g.0 * steps_per_frame as u64));
    assert!(got.iter().any(|g| g.2.overflows > 0), "capacity 6 should overflow: {got:?}");
    assert!(got.iter().all(|g| g.2.non_finite == 0));
    assert_eq!(driver.latest.as_ref().map(|s| s.frame), Some(180));
    assert_eq!(driver.history.len(), 3);
    let warning = rillet::app::panel::overflow_warning(driver.latest.as_ref().unwrap()).expect("a warning");
    assert!(
        warning.starts_with(&format!(
            "cells hold up to {} particles, capacity 6: cell size too large for this density",
            got[2].2.max_per_cell
        )),
        "{warning}"
    );
    if gpu().has_timestamps() {
        let p = driver.profile.as_ref().expect("timestamps read back");
        assert_eq!(p.frame % 10, 0);
        assert_eq!(p.profile.steps, steps_per_frame as u64);
        assert!(p.profile.per_step_ms("sph.density").is_some());
    }
}

/// With an adaptive dt a sample's time is the GPU's clock of its frame, no multiple of the first
/// dt; the driver's simulated time is the running simulation's, from its first step on.
#[test]
fn an_adaptive_dt_reads_its_time_from_the_gpu_clock() {
    let mut scene = small_drop();
    scene.physics.time_step = rillet::scene::TimeStep::Adaptive { min: 1e-5, max: 1e-3, cfl: 0.4 };
    let state = build(&scene);
    let sim = Sim::new(gpu(), &state, options(1)).unwrap();
    assert!(sim.is_adaptive());
    let mut driver = Driver::new(&gpu().device, sim, gpu().has_timestamps());
    assert_eq!(driver.sim_time(), Some((0.0, 0)), "no step yet");
    let mut clock = None;
    for f in 1..=DIAGNOSTICS_EVERY {
        frame(&mut driver, 2);
        if f == DIAGNOSTICS_EVERY {
            clock = Some(driver.sim().read_diagnostics().unwrap().sim_time());
        }
    }
    drain(&mut driver);
    let s = driver.current().expect("the sample of frame 60").clone();
    assert_eq!((s.frame, s.step), (DIAGNOSTICS_EVERY, 2 * DIAGNOSTICS_EVERY));
    assert_eq!(Some(s.time), clock);
    assert!((s.time - s.step as f64 * scene.physics.dt as f64).abs() > 1e-3, "t = {} s after {} steps", s.time, s.step);
    assert!(s.diag.dt >= 1e-5 && s.diag.dt <= 1e-3);
    assert_eq!(driver.sim_time(), Some((s.time, s.step)));
    // a new simulation: the old sample is not its time
    driver.replace_sim(Sim::new(gpu(), &state, options(1)).unwrap());
    assert!(driver.current().is_none() && driver.latest.is_some());
    assert_eq!(driver.sim_time(), Some((0.0, 0)));
    frame(&mut driver, 1);
    assert_eq!(driver.sim_time(), None, "unknown until the first readback");
}

/// The solver chosen in the panel is taken at the next reset; a scene whose dt only DFSPH
/// allows refuses WCSPH there, in words, and keeps running.
#[test]
fn the_panel_solver_applies_at_the_next_reset() {
    use rillet::app::session::{LoadedScene, SceneFile, Session};
    use rillet::scene::Solver;
    let load = |scene: rillet::scene::Scene| {
        let file = SceneFile { scene, name: "small_drop.ron".into(), path: None };
        Session::new(gpu(), LoadedScene::build(file, gpu()).unwrap(), 1).unwrap()
    };
    let mut session = load(small_drop());
    assert!(!session.driver.sim().is_dfsph());
    session.controls.solver = Some(Solver::Dfsph);
    assert!(!session.driver.sim().is_dfsph(), "pending until the simulation is built again");
    assert!(session.reset(gpu()), "{:?}", session.error);
    assert!(session.driver.sim().is_dfsph());
    assert_eq!(session.scene.scene.physics.solver, Solver::Wcsph, "the scene itself is left as loaded");
    session.controls.solver = Some(Solver::Wcsph);
    assert!(session.reset(gpu()));
    assert!(!session.driver.sim().is_dfsph());

    // dt·c/h = 0.01 · 25 / 0.04 ≈ 6: beyond any WCSPH step, fine for DFSPH
    let mut scene = small_drop();
    scene.physics.solver = Solver::Dfsph;
    scene.physics.dt = 0.01;
    let mut session = load(scene);
    session.controls.solver = Some(Solver::Wcsph);
    assert!(!session.reset(gpu()));
    let e = session.error.clone().unwrap();
    assert!(
        e.starts_with("reset failed: with the solver WCSPH chosen in the panel: small_drop.ron: physics.dt = 0.01 is out of range"),
        "{e}"
    );
    assert!(session.driver.sim().is_dfsph(), "the running simulation stays");
}

#[test]
fn readbacks_never_block_the_frame() {
    // polling right after a submit returns at once, with nothing or with what is ready
    let state = build(&small_drop());
    let sim = Sim::new(gpu(), &state, options(1)).unwrap();
    let mut driver = Driver::new(&gpu().device, sim, gpu().has_timestamps());
    for _ in 0..DIAGNOSTICS_EVERY - 1 {
        frame(&mut driver, 1);
    }
    let g = gpu();
    let mut enc = g.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("test.frame") });
    driver.record_frame(&mut enc, 1);
    g.queue.submit([enc.finish()]);
    driver.submitted();
    let t = Instant::now();
    let _ = driver.poll(&g.device);
    assert!(t.elapsed() < Duration::from_millis(500), "poll took {:?}", t.elapsed());
    let late = drain(&mut driver);
    assert_eq!(driver.latest.as_ref().map(|s| s.frame), Some(DIAGNOSTICS_EVERY), "{late:?}");
}

#[test]
fn live_changes_between_frames_keep_particles_and_physics() {
    // the panel's changes, applied between frames as the app does, then the CPU twin
    let state = build(&small_drop());
    let steps = 60;
    let mut cpu = RefSim::new(&state);
    for _ in 0..steps {
        cpu.step();
    }
    let sim = Sim::new(gpu(), &state, options(1)).unwrap();
    let n = sim.n_particles();
    let mut driver = Driver::new(&gpu().device, sim, gpu().has_timestamps());
    let schedule = [
        (3, SimOptions { cell_size: 0.5, ..options(0) }),
        (4, SimOptions { cell_size: 2.0, reorder_interval: 64, ..options(0) }),
        (5, SimOptions { cell_size: 0.75, order: CellOrder::Linear, ..options(7) }),
        (2, SimOptions { cell_size: 1.25, diagnostics: false, capacity: 3, ..options(2) }),
        (6, SimOptions { cell_size: 1.0, capacity: 200, ..options(1) }),
    ];
    let mut done = 0;
    let mut k = 0;
    while done < steps {
        let (per_frame, o) = &schedule[k % schedule.len()];
        driver.sim_mut().set_options(o.clone()).expect("option change");
        let take = (*per_frame).min(steps - done);
        frame(&mut driver, take);
        done += take;
        k += 1;
        assert_eq!(driver.sim().n_particles(), n);
    }
    drain(&mut driver);
    let p = driver.sim().read_particles().unwrap();
    let mut ids = p.id.clone();
    ids.sort_unstable();
    assert!(ids.iter().enumerate().all(|(i, &id)| i as u32 == id), "every particle is still there once");
    let g = p.by_id();
    let (mut dx, mut dv) = (0.0f64, 0.0f64);
    for i in 0..cpu.n_particles() {
        for d in 0..3 {
            dx = dx.max((g.pos_mass[i][d] as f64 - cpu.pos_mass[i][d]).abs());
            dv = dv.max((g.vel_rho[i][d] as f64 - cpu.vel_rho[i][d]).abs());
        }
    }
    eprintln!("live changes through the driver vs the CPU twin: |dx| {dx:.2e} m, |dv| {dv:.2e} m/s");
    // the tolerances of tests/gpu_sph.rs for 60 steps
    assert!(dx < 2e-5 && dv < 2e-3, "dx {dx:.2e}, dv {dv:.2e}");
}

// ----- render shaders -----

fn parse(label: &str, text: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(text).unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(text)));
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(text)));
    module
}

#[test]
fn render_shaders_validate_and_the_uniform_block_matches() {
    let sprites = parse("render.sprites", &rillet::render::sprites_source());
    parse("render.box", &rillet::render::lines_source());
    let (_, ty) = sprites.types.iter().find(|(_, t)| t.name.as_deref() == Some("FrameUniforms")).expect("FrameUniforms in WGSL");
    let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!("FrameUniforms is not a struct") };
    let wgsl: Vec<(String, u32)> = members.iter().map(|m| (m.name.clone().unwrap_or_default(), m.offset)).collect();
    macro_rules! rust {
        ($($f:ident),*) => { vec![$((stringify!($f).to_string(), offset_of!(FrameUniforms, $f) as u32)),*] };
    }
    let rust = rust!(
        view,
        proj,
        domain_min,
        radius,
        domain_max,
        color_mode,
        range_lo,
        range_hi,
        rest_density,
        stiffness,
        show_boundary,
        colormap_len,
        show_fluid,
        _pad1,
        box_color,
        colormap
    );
    assert_eq!(wgsl, rust);
    assert_eq!(*span as usize, size_of::<FrameUniforms>());
}

// ----- the binary -----

#[test]
fn help_lists_the_options() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for want in
        ["[SCENE]", "--substeps", "--size", "--frames", "--screenshot ", "--screenshot-at", "--screenshot-dir", "--report", "--no-vsync"]
    {
        assert!(text.contains(want), "--help lacks {want}:\n{text}");
    }
}

#[test]
fn a_bad_scene_is_one_message_and_exit_code_2() {
    for (file, want) in [
        ("negative_spacing.ron", "physics.spacing = -0.02 is out of range: allowed (0, 10] m"),
        ("syntax_error.ron", "syntax_error.ron:5:"),
        ("unknown_field.ron", "unknown field `spacnig`"),
        ("missing_mesh.ron", "solids[0].path = \"meshes/no_such_mesh.obj\": cannot read the mesh"),
        ("fluid_in_solid.ron", "fluid[0] = 2000 fluid particles inside solids[0]"),
        ("emitter_into_solid.ron", "emitters[0] = an emitter whose particles reach solids[0]"),
        ("emitter_outside_domain.ron", "emitters[0].center = [0.5, 0.5, 0.9] is out of range"),
    ] {
        let path = root().join("tests/bad_scenes").join(file);
        // no display needed: the scene is checked before any window opens
        let out = Command::new(BIN)
            .arg(&path)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{file}: {err}");
        assert!(err.contains(want), "{file}: {err}");
        assert!(err.contains(&path.display().to_string()), "{file}: the message names the file: {err}");
        assert!(!err.contains("panicked"), "{file}: {err}");
        assert_eq!(err.lines().filter(|l| l.starts_with("error:")).count(), 1, "{file}: one message: {err}");
    }
}

/// The app on the test display, its log read line by line. Dropping it stops the app if it still
/// runs (a failed assertion never leaves it running).
/// One virtual X display for this test binary: Xvfb picks a free display number and says it
/// (`-displayfd`); a shell beside it stops it when this process is gone.
fn display() -> &'static str {
    static DISPLAY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DISPLAY.get_or_init(start_xvfb)
}

/// A display of its own, for a test whose real input must reach its window and no other
/// (the other tests' windows share [`display`] and may lie on top).
fn own_display() -> &'static str {
    static DISPLAY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DISPLAY.get_or_init(start_xvfb)
}

fn start_xvfb() -> String {
    use std::io::BufRead;
    {
        // the shell lets go of the pipe at once (exec), so a Xvfb that fails ends the read
        let script = format!(
            "Xvfb -displayfd 1 -screen 0 1280x720x24 -nolisten tcp 2>/dev/null & x=$!; exec >/dev/null; \
             while kill -0 {} 2>/dev/null; do sleep 1; done; kill $x",
            std::process::id()
        );
        // never waited for: it outlives the tests by design and stops Xvfb once this process is gone
        #[allow(clippy::zombie_processes)]
        let mut sh = Command::new("sh").args(["-c", &script]).stdout(std::process::Stdio::piped()).spawn().expect("sh");
        let mut line = String::new();
        std::io::BufReader::new(sh.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let n: u32 = line.trim().parse().unwrap_or_else(|_| {
            panic!(
                "this test runs the app in a virtual X display and needs Xvfb: apt-get install xvfb \
                 (and the X11 libraries winit loads: libx11-6 libx11-xcb1 libxcursor1 libxi6 libxrandr2 libxkbcommon-x11-0); \
                 Xvfb said `{line}`"
            )
        });
        format!(":{n}")
    }
}

struct AppProcess {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    log: Vec<String>,
    /// The app's pid, from its first log line (the child's own, logged for the record).
    pid: Option<u32>,
}

impl AppProcess {
    fn start<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> Self {
        Self::start_on(display(), args)
    }

    fn start_on<S: AsRef<std::ffi::OsStr>>(display: &str, args: impl IntoIterator<Item = S>) -> Self {
        use std::io::BufRead;
        // the app itself is the child (not xvfb-run, whose own exit status once replaced the
        // app's), under the display this test binary owns
        let mut child = Command::new(BIN)
            .args(args)
            .env("DISPLAY", display)
            .env_remove("WAYLAND_DISPLAY")
            // as a newcomer's root shell or container has it: the app's log must not depend on
            // it (Mesa's device-selection layer complains where it is unset; the app quiets it)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("NODEVICE_SELECT")
            .env("RUST_LOG", "rillet=info,wgpu=warn")
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the rillet binary");
        let (tx, lines) = std::sync::mpsc::channel::<String>();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { child, lines, log: Vec::new(), pid: None }
    }

    fn text(&self) -> String {
        self.log.join("\n")
    }

    /// The next log line, or None at the deadline or when the app has closed its log.
    fn next_line(&mut self, deadline: Instant) -> Option<String> {
        let line = self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()?;
        if self.pid.is_none() {
            self.pid = line.split("(pid ").nth(1).and_then(|r| r.trim_end_matches(')').parse().ok());
        }
        self.log.push(line.clone());
        Some(line)
    }

    /// Reads the log until a line matches. Fails when the app made no progress for `stall` —
    /// no log line and no CPU time used (`Progress`) — or after `Progress::CAP` in all: on a
    /// loaded machine (the app tests run in parallel on two cores of a CPU adapter) a healthy
    /// app is slow, not stalled, and a wall-clock limit alone failed it.
    fn wait_for(&mut self, what: &str, stall: Duration, pred: impl Fn(&str) -> bool) {
        let mut progress = Progress::new(self.child.id(), stall);
        loop {
            match self.next_line(Instant::now() + Duration::from_secs(1)) {
                Some(line) if pred(&line) => return,
                Some(_) => progress.saw_line(),
                None if self.child.try_wait().ok().flatten().is_some() => {
                    // the app has exited: read what it still had in its pipe, then fail
                    while self.next_line(Instant::now() + Duration::from_secs(1)).is_some() {}
                    if self.log.iter().any(|l| pred(l)) {
                        return;
                    }
                    panic!("waiting for {what}, the app exited; it said:\n{}", self.text());
                }
                // a timeout, or the log closed while the process is being reaped
                None => std::thread::sleep(Duration::from_millis(20)),
            }
            if let Err(why) = progress.check() {
                panic!("waiting for {what}: {why}; the app said:\n{}", self.text());
            }
        }
    }

    /// Waits for the app to exit by itself (reading its log); fails when it made no progress for
    /// `stall` (see `wait_for`).
    fn wait_exit(&mut self, stall: Duration) -> Option<i32> {
        let mut progress = Progress::new(self.child.id(), stall);
        loop {
            if self.next_line(Instant::now() + Duration::from_millis(200)).is_some() {
                progress.saw_line();
                continue;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                while self.next_line(Instant::now() + Duration::from_secs(1)).is_some() {}
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
            if let Err(why) = progress.check() {
                panic!("the app did not exit: {why}:\n{}", self.text());
            }
        }
    }

    /// Stops the app (SIGTERM) and waits for it.
    fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_some() {
            return;
        }
        if let Some(pid) = self.pid {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for AppProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How long an app under test may go without a log line or CPU time before a wait fails.
const STALL: Duration = Duration::from_secs(180);

/// Whether a child process is still getting somewhere: it logged a line or used CPU time (its
/// threads' user + system ticks from /proc) within the last `stall`; `CAP` bounds any wait.
struct Progress {
    pid: u32,
    stall: Duration,
    start: Instant,
    last: Instant,
    ticks: Option<u64>,
}

impl Progress {
    /// The longest any one wait may take, progress or not.
    const CAP: Duration = Duration::from_secs(1500);

    fn new(pid: u32, stall: Duration) -> Self {
        Self { pid, stall, start: Instant::now(), last: Instant::now(), ticks: cpu_ticks(pid) }
    }

    fn saw_line(&mut self) {
        self.last = Instant::now();
    }

    fn check(&mut self) -> Result<(), String> {
        let ticks = cpu_ticks(self.pid);
        if ticks.is_some() && ticks > self.ticks {
            self.ticks = ticks;
            self.last = Instant::now();
        }
        if self.last.elapsed() > self.stall {
            return Err(format!("no log line and no CPU time used for {:?}", self.stall));
        }
        if self.start.elapsed() > Self::CAP {
            return Err(format!("still going after {:?}", Self::CAP));
        }
        Ok(())
    }
}

/// User + system clock ticks a process has used (all its threads), from /proc/PID/stat.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // the fields after the command name (which may hold spaces) in parentheses: utime and stime
    // are the 14th and 15th of the line, the 12th and 13th after ")"
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// RGB pixels of a PNG.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<[u8; 3]>,
}

fn load_png(path: &Path) -> Image {
    let decoder =
        png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()].chunks_exact(channels).map(|p| [p[0], p[1], p[2]]).collect();
    Image { width: info.width as usize, height: info.height as usize, rgb }
}

impl Image {
    fn at(&self, x: usize, y: usize) -> [u8; 3] {
        self.rgb[y * self.width + x]
    }
    /// Pixels in the rectangle for which `f` holds, and the rectangle's area.
    fn count(&self, r: [usize; 4], f: impl Fn([u8; 3]) -> bool) -> (usize, usize) {
        let mut n = 0;
        for y in r[1]..r[3] {
            for x in r[0]..r[2] {
                n += f(self.at(x, y)) as usize;
            }
        }
        (n, (r[2] - r[0]) * (r[3] - r[1]))
    }
}

fn far(a: [u8; 3], b: [u8; 3], d: i32) -> bool {
    (0..3).any(|k| (a[k] as i32 - b[k] as i32).abs() > d)
}

#[test]
fn the_app_draws_the_default_scene_in_a_real_window() {
    let dir = std::env::temp_dir().join(format!("rillet-app-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let frames = 240;
    let t = Instant::now();
    let mut args: Vec<std::ffi::OsString> = [
        "--frames",
        &frames.to_string(),
        "--substeps",
        "1",
        "--size",
        "1024x640",
        "--no-vsync",
        "--screenshot-at",
        "120,180",
        // resized between the two shots that are compared, back before the last one
        "--resize-at",
        "150:800x560",
        "--resize-at",
        "200:1024x640",
    ]
    .iter()
    .map(|a| a.into())
    .collect();
    args.extend(["--screenshot-dir".into(), dir.clone().into_os_string(), "--report".into(), report.clone().into_os_string()]);
    // the last frame through --screenshot FILE
    args.extend(["--screenshot".into(), dir.join("frame-00240.png").into_os_string()]);
    let mut app = AppProcess::start(args);
    let code = app.wait_exit(STALL);
    let log = app.text();
    eprintln!("app ran {frames} frames in {:.1} s", t.elapsed().as_secs_f32());
    assert_eq!(code, Some(0), "the app failed:\n{log}");
    assert!(!log.contains("panicked"), "{log}");
    assert!(!log.contains("ERROR"), "errors logged:\n{log}");

    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["frames"], frames);
    assert_eq!(r["steps"], frames);
    assert_eq!(r["n_fluid"], 22_500);
    let diag_frames: Vec<u64> = r["diagnostics"].as_array().unwrap().iter().map(|d| d["frame"].as_u64().unwrap()).collect();
    assert_eq!(diag_frames, vec![60, 120, 180, 240], "diagnostics arrive for every 60th frame");
    for d in r["diagnostics"].as_array().unwrap() {
        assert_eq!(d["step"], d["frame"], "one step per frame");
        assert!(d["max_per_cell"].as_u64().unwrap() > 0);
        assert_eq!(d["non_finite"], 0);
    }
    let v: Vec<usize> = r["viewport"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as usize).collect();

    // the window was resized in between: the shot of frame 180 has the other size
    let resized = load_png(&dir.join("frame-00180.png"));
    assert_eq!((resized.width, resized.height), (800, 560), "resize");
    let a = load_png(&dir.join("frame-00120.png"));
    let b = load_png(&dir.join("frame-00240.png"));
    assert_eq!((a.width, a.height), (1024, 640));
    let bg = rillet::render::BACKGROUND;

    // the panel: right of the 3D view, its own fill with text on it
    assert!(v[2] < a.width - 150 && v[2] > a.width / 2, "viewport {v:?}: the panel takes the right side");
    let panel = [v[2] + 2, 0, a.width, a.height];
    let (text, area) = a.count(panel, |p| p.iter().all(|&c| c > 150));
    assert!(text > area / 400, "panel text pixels: {text} of {area}");
    let (fill, _) = a.count(panel, |p| !far(p, bg, 3));
    assert!(fill < area / 10, "the panel area looks like the empty 3D background ({fill} of {area})");

    // the particles: coloured pixels in the 3D view
    let view = [v[0], v[1], v[2], v[3]];
    let (coloured, varea) = a.count(view, |p| far(p, bg, 30) && !(p[0] == p[1] && p[1] == p[2]));
    assert!(coloured > varea / 50, "particle pixels: {coloured} of {varea}");

    // they moved between frame 120 and frame 240
    let mut changed = 0;
    for y in view[1]..view[3] {
        for x in view[0]..view[2] {
            changed += far(a.at(x, y), b.at(x, y), 40) as usize;
        }
    }
    assert!(changed > varea / 500, "pixels that changed between frames 120 and 240: {changed} of {varea}");
    eprintln!("panel text {text}/{area}, particle pixels {coloured}/{varea}, changed {changed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Replaces `path` the way editors do: write a temporary file, rename it over.
fn replace_file(path: &Path, text: &str) {
    let tmp = path.with_extension("ron.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

#[test]
fn the_scene_reloads_when_its_file_changes_and_a_bad_edit_keeps_the_old_one() {
    let dir = std::env::temp_dir().join(format!("rillet-reload-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scene.ron");
    let original = std::fs::read_to_string(root().join("scenes/small_drop.ron")).unwrap();
    std::fs::write(&file, &original).unwrap();

    let args = [file.as_os_str(), "--frames".as_ref(), "20000".as_ref(), "--substeps".as_ref(), "1".as_ref()];
    let mut app = AppProcess::start(args.into_iter().chain(["--size", "640x480", "--no-vsync"].map(std::ffi::OsStr::new)));
    let limit = STALL;
    app.wait_for("the first diagnostics", limit, |l| l.contains("diagnostics of frame 60"));

    // an invalid edit: reported, and the old scene keeps running
    replace_file(&file, &original.replace("spacing: 0.02,", "spacing: -0.02,"));
    app.wait_for("the reload error", limit, |l| l.contains("physics.spacing = -0.02 is out of range"));
    app.wait_for("frames after the error", limit, |l| l.contains("diagnostics of frame"));

    // an edit the device cannot hold (38M fluid particles at 0.5 mm): refused from the count,
    // before anything is built, and the old scene keeps running
    replace_file(&file, &original.replace("spacing: 0.02,", "spacing: 0.0005,").replace("dt: 0.0004,", "dt: 0.00001,"));
    app.wait_for("the too-large reload refused", limit, |l| l.contains("does not fit this device"));
    app.wait_for("frames after the refusal", limit, |l| l.contains("diagnostics of frame"));

    // a valid edit: the pool only (no drop) — 600 fluid particles
    let pool_only = original.replace("(min: (0.16, 0.24, 0.16), max: (0.24, 0.32, 0.24)),", "");
    assert_ne!(pool_only, original);
    replace_file(&file, &pool_only);
    app.wait_for("the reload", limit, |l| l.contains("reloaded, 600 fluid"));
    app.wait_for("frames of the new scene", limit, |l| l.contains("diagnostics of frame"));
    assert!(app.pid.is_some(), "the app logs its pid");
    app.stop();
    let text = app.text();
    assert!(!text.contains("panicked"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `rillet render` draws what the app draws: the app's 3D view at frame 30 (cropped from its
/// screenshot) against the offscreen frame 30 of the same size and steps.
#[test]
fn offscreen_frames_match_the_app_view() {
    let dir = std::env::temp_dir().join(format!("rillet-offscreen-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = root().join("scenes/small_drop.ron");
    let report = dir.join("report.json");
    let mut args: Vec<std::ffi::OsString> = vec![scene.clone().into_os_string()];
    args.extend(["--frames", "30", "--substeps", "2", "--size", "900x500", "--no-vsync", "--screenshot-at", "30"].map(Into::into));
    args.extend(["--screenshot-dir".into(), dir.clone().into_os_string(), "--report".into(), report.clone().into_os_string()]);
    let mut app = AppProcess::start(args);
    assert_eq!(app.wait_exit(STALL), Some(0), "{}", app.text());
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let v: Vec<usize> = r["viewport"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap().round() as usize).collect();
    let (w, h) = (v[2] - v[0], v[3] - v[1]);
    let shot = load_png(&dir.join("frame-00030.png"));

    let out = dir.join("offscreen");
    let o = Command::new(BIN)
        .arg("render")
        .arg(&scene)
        .args(["--frames", "30", "--substeps", "2", "--size", &format!("{w}x{h}"), "--out"])
        .arg(&out)
        .env("WGPU_BACKEND", "vulkan")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let frame = load_png(&out.join("frame-00030.png"));
    assert_eq!((frame.width, frame.height), (w, h));
    let bg = rillet::render::BACKGROUND;
    let (drawn, area) = frame.count([0, 0, w, h], |p| far(p, bg, 30));
    assert!(drawn > area / 100, "the offscreen frame is not blank: {drawn} of {area} pixels drawn");
    // the particles move by a fraction of a pixel between two runs (the step's sums round in an
    // order that varies), so a few pixels along sphere edges may differ
    let (mut sum, mut differ) = (0u64, 0usize);
    for y in 0..h {
        for x in 0..w {
            let (a, b) = (frame.at(x, y), shot.at(v[0] + x, v[1] + y));
            sum += (0..3).map(|k| (a[k] as i64 - b[k] as i64).unsigned_abs()).sum::<u64>();
            differ += far(a, b, 40) as usize;
        }
    }
    let mean = sum as f64 / (3 * area) as f64;
    eprintln!("offscreen against the app: mean difference {mean:.3} levels, {differ} of {area} pixels differ by more than 40");
    assert!(mean < 2.0 && differ < area / 100, "mean {mean}, differing pixels {differ} of {area}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `rillet render --panel` draws the app's panel over each offscreen frame (the app's own panel
/// and egui pass, to measure the app's whole frame without a display) and times its pass: the
/// frame is the plain one where the panel is not, and not where it is.
#[test]
fn offscreen_frames_carry_the_panel_with_panel() {
    let dir = std::env::temp_dir().join(format!("rillet-offscreen-panel-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scene = root().join("scenes/small_drop.ron");
    // 61 frames: the panel's first diagnostics sample is frame 60's, as in the app
    let render = |name: &str, panel: bool| -> (Image, serde_json::Value) {
        let out = dir.join(name);
        let mut c = Command::new(BIN);
        c.arg("render").arg(&scene).args(["--frames", "61", "--substeps", "2", "--size", "800x450", "--quiet", "--out"]).arg(&out);
        if panel {
            c.arg("--panel");
        }
        let o = c.env("WGPU_BACKEND", "vulkan").output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let report = serde_json::from_str(&std::fs::read_to_string(out.join("render.json")).unwrap()).unwrap();
        (load_png(&out.join("frame-00061.png")), report)
    };
    let (plain, plain_report) = render("plain", false);
    let (with, report) = render("panel", true);
    let (w, h) = (plain.width, plain.height);
    // the panel docks right and is at least its minimum width (240 points): the left 200 pixels
    // are the view's alone; the right 200 the panel's
    let (mut sum, mut panel_differ) = (0u64, 0usize);
    for y in 0..h {
        for x in 0..200 {
            let (a, b) = (plain.at(x, y), with.at(x, y));
            sum += (0..3).map(|k| (a[k] as i64 - b[k] as i64).unsigned_abs()).sum::<u64>();
        }
        for x in w - 200..w {
            // egui's panel fill, (27, 27, 27), is 13 levels from the background at most
            panel_differ += far(plain.at(x, y), with.at(x, y), 8) as usize;
        }
    }
    let mean = sum as f64 / (3 * 200 * h) as f64;
    eprintln!(
        "the view beside the panel: mean difference {mean:.3} levels; {panel_differ} of {} pixels of the panel's side differ",
        200 * h
    );
    assert!(mean < 2.0, "the view beside the panel changed: mean difference {mean}");
    assert!(panel_differ > 200 * h / 2, "no panel drawn: {panel_differ} of {} pixels differ", 200 * h);
    // with timestamps, the panel's pass is timed after the view's
    let names = |r: &serde_json::Value| -> Vec<String> {
        r["passes"].as_array().unwrap().iter().map(|p| p["pass"].as_str().unwrap().to_string()).collect()
    };
    let (plain_names, names) = (names(&plain_report), names(&report));
    if !names.is_empty() {
        assert_eq!(names.last().map(String::as_str), Some("ui.egui"), "{names:?}");
        assert_eq!(names[..names.len() - 1], plain_names[..], "the view's passes come first");
        assert!(!plain_names.iter().any(|n| n == "ui.egui"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// "Record" writes particle frames with the same writer as `rillet run --export`, without
/// holding the frame loop.
#[test]
fn the_app_records_particle_frames() {
    let dir = std::env::temp_dir().join(format!("rillet-record-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = root().join("scenes/small_drop.ron");
    let mut args: Vec<std::ffi::OsString> = vec![scene.into_os_string()];
    args.extend(
        ["--frames", "12", "--substeps", "4", "--size", "640x480", "--no-vsync", "--record", "--export-every", "10"].map(Into::into),
    );
    args.extend(["--export".into(), "vtk,ply".into(), "--export-dir".into(), dir.clone().into_os_string()]);
    let mut app = AppProcess::start(args);
    assert_eq!(app.wait_exit(STALL), Some(0), "{}", app.text());
    // recording starts with the initial state (step 0), then every 10 steps exactly, although a
    // frame runs 4: the frame's steps stop at the recorded ones (it once recorded the frame
    // that passed a multiple: steps 12, 20, 32, 40)
    let mut written: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ply"))
        .collect();
    written.sort();
    let want: Vec<String> = (0..=48).step_by(10).map(|s| format!("particles-{s:08}.ply")).collect();
    assert_eq!(written, want, "the app said:\n{}", app.text());
    for step in (0..=48).step_by(10) {
        let f = dir.join(format!("particles-{step:08}.vtu"));
        assert!(f.is_file(), "{} missing; the app said:\n{}", f.display(), app.text());
    }
    let pvd = std::fs::read_to_string(dir.join("particles.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 5, "{pvd}");
    // a fixed dt: the simulation's clock is step × dt, in the dt's decimals
    let t20 = "timestep=\"0.008\" part=\"0\" file=\"particles-00000020.vtu\"".to_string();
    assert!(pvd.contains(&t20), "{t20} in {pvd}");
    let ply = std::fs::read(dir.join("particles-00000040.ply")).unwrap();
    assert!(String::from_utf8_lossy(&ply[..300]).contains("element vertex 664"), "the small drop's fluid");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A recording of a scene with moving solids writes each one's transform at every recorded frame
/// to `transforms.csv`, the same lines `rillet run --export` writes for the same steps.
#[test]
fn the_app_records_the_moving_solids_transforms() {
    let dir = std::env::temp_dir().join(format!("rillet-record-transforms-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("paddle.ron");
    std::fs::write(
        &scene,
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.12)),
          fluid: [(min: (0.12, 0, 0), max: (0.4, 0.16, 0.12))],
          solids: [Box(center: (0.06, 0.15, 0.06), size: (0.04, 0.3, 0.12), motion: (translation: Sine(amplitude: (0.03, 0, 0), period: 0.2),
                   rotation: Sine(axis: (0, 0, 1), amplitude: 5, period: 0.2)))],
          physics: (spacing: 0.02))",
    )
    .unwrap();
    let app_dir = dir.join("app");
    let mut args: Vec<std::ffi::OsString> = vec![scene.clone().into_os_string()];
    args.extend(
        ["--frames", "6", "--substeps", "4", "--size", "320x240", "--no-vsync", "--record", "--export-every", "10"].map(Into::into),
    );
    args.extend(["--export".into(), "ply".into(), "--export-dir".into(), app_dir.clone().into_os_string()]);
    let mut app = AppProcess::start(args);
    assert_eq!(app.wait_exit(STALL), Some(0), "{}", app.text());
    let recorded = std::fs::read_to_string(app_dir.join("transforms.csv")).unwrap_or_else(|e| panic!("{e}; the app said:\n{}", app.text()));
    let run_dir = dir.join("run");
    let o = Command::new(BIN)
        .arg("run")
        .arg(&scene)
        .args(["--steps", "20", "--every", "20", "--export", "ply", "--export-every", "10", "--quiet", "--out"])
        .arg(&run_dir)
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let run = std::fs::read_to_string(run_dir.join("particles/transforms.csv")).unwrap();
    let steps: Vec<&str> = recorded.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(steps, ["0", "10", "20"], "{recorded}");
    assert_eq!(recorded, run, "the app's transforms against rillet run's");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The surface view in a real window: water drawn at start (`--view surface`), and again at the
/// window's new size after a resize.
#[test]
fn the_app_draws_water_in_the_surface_view_and_after_a_resize() {
    let dir = std::env::temp_dir().join(format!("rillet-surface-app-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let mut args: Vec<std::ffi::OsString> =
        ["--view", "surface", "--frames", "90", "--substeps", "2", "--size", "900x560", "--no-vsync"].iter().map(|a| a.into()).collect();
    args.extend(["--screenshot-at", "40", "--resize-at", "50:700x480"].map(Into::into));
    args.extend(["--screenshot-dir".into(), dir.clone().into_os_string(), "--report".into(), report.clone().into_os_string()]);
    args.extend(["--screenshot".into(), dir.join("frame-00090.png").into_os_string()]);
    let mut app = AppProcess::start(args);
    let code = app.wait_exit(STALL);
    let log = app.text();
    assert_eq!(code, Some(0), "the app failed:\n{log}");
    assert!(!log.contains("panicked") && !log.contains("ERROR"), "{log}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let v: Vec<usize> = r["viewport"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as usize).collect();
    for (frame, size) in [(40, (900, 560)), (90, (700, 480))] {
        let shot = load_png(&dir.join(format!("frame-{frame:05}.png")));
        assert_eq!((shot.width, shot.height), size, "frame {frame}");
        // the view is left of the panel; at the last frame the report's viewport is the new one
        let right = if frame == 90 { v[2] } else { shot.width * 6 / 10 };
        // water: blue well above red (the sky's horizon and the grey floor are not)
        let (water, area) = shot.count([0, 0, right, shot.height], |p| p[2] as i32 > p[0] as i32 + 50);
        eprintln!("frame {frame}: {water} water pixels of {area}");
        assert!(water > area / 50, "frame {frame}: {water} water pixels of {area}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_ends_the_app_with_its_report_written() {
    let dir = std::env::temp_dir().join(format!("rillet-sigterm-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("report.json");
    let scene = root().join("scenes/small_drop.ron");
    let args = [scene.as_os_str(), "--report".as_ref(), report.as_os_str(), "--size".as_ref(), "640x480".as_ref(), "--no-vsync".as_ref()];
    let mut app = AppProcess::start(args);
    app.wait_for("the first diagnostics", STALL, |l| l.contains("diagnostics of frame 60"));
    let ok = Command::new("kill").args(["-TERM", &app.child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    let code = app.wait_exit(STALL);
    let log = app.text();
    assert_eq!(code, Some(143), "128 + SIGTERM: {log}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).unwrap();
    assert!(r["frames"].as_u64().unwrap() >= 60, "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_blow_up_pauses_the_app_and_says_so() {
    // gravity 1000 m/s² against a speed of sound of 5 m/s: the guards clamp the crushed pool into
    // the walls; the app must stop stepping and say why, not run on looking healthy
    let dir = std::env::temp_dir().join(format!("rillet-blowup-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("scene.ron");
    let original = std::fs::read_to_string(root().join("scenes/small_drop.ron")).unwrap();
    let text = original
        .replace("pressure: Auto,", "pressure: SpeedOfSound(5),")
        .replace("gravity: (0.0, -9.81, 0.0),", "gravity: (0.0, -1000.0, 0.0),")
        .replace("dt: 0.0004,", "dt: 0.0002,");
    assert_ne!(text, original);
    std::fs::write(&file, text).unwrap();
    let report = dir.join("report.json");
    let args = [
        file.as_os_str(),
        "--frames".as_ref(),
        "180".as_ref(),
        "--substeps".as_ref(),
        "4".as_ref(),
        "--report".as_ref(),
        report.as_os_str(),
    ];
    let mut app = AppProcess::start(args.into_iter().chain(["--size", "640x480", "--no-vsync"].map(std::ffi::OsStr::new)));
    let code = app.wait_exit(STALL);
    let log = app.text();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("the simulation blew up at step") && log.contains("paused"), "{log}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let samples = r["diagnostics"].as_array().unwrap();
    let first = samples.iter().position(|d| d["blow_up"].is_string()).expect("a sample shows the blow-up");
    // paused from then on: the sample arrives a few frames after its step (readbacks do not
    // block), so at most one diagnostics period (60 frames × 4 steps) ran after it, and far
    // fewer steps than the 180 frames would have run
    let step_then = samples[first]["step"].as_u64().unwrap();
    let steps = r["steps"].as_u64().unwrap();
    assert!(steps >= step_then && steps <= step_then + 60 * 4 && steps < 180 * 4, "{steps} steps, blow-up seen at {step_then}: {r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_scene_too_large_for_the_device_is_one_message_and_exit_code_2() {
    let path = root().join("tests/bad_scenes_device/too_many_particles.ron");
    let scene = rillet::scene::Scene::load(&path).unwrap();
    let (fluid, boundary) = rillet::scene::lattice::count_particles(&scene);
    let fits = gpu().max_binding_bytes() / 16;
    if fluid + boundary <= fits {
        // tests/scenes_gpu.rs checks the refusal against a lowered limit on such devices
        eprintln!("this device holds {fits} particles: the binary's refusal of {} cannot be shown here", fluid + boundary);
        return;
    }
    let mut app = AppProcess::start([path.as_os_str()]);
    let code = app.wait_exit(STALL);
    let log = app.text();
    assert_eq!(code, Some(2), "{log}");
    let errors: Vec<&String> = app.log.iter().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "one message: {log}");
    assert!(errors[0].contains("too_many_particles.ron") && errors[0].contains("max_storage_buffer_binding_size"), "{log}");
    assert!(errors[0].contains(&format!("at most {fits} particles fit")), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

/// A floating box dragged with the mouse in a real window: shift-drag (real X input through
/// xdotool) grabs it where the app says it is drawn, it follows the pointer to the right and is
/// let go there.
#[test]
fn a_floating_body_follows_a_shift_drag() {
    let dir = std::env::temp_dir().join(format!("rillet-drag-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("drag.ron");
    std::fs::write(
        &scene,
        "(domain: (min: (0.0, 0.0, 0.0), max: (0.6, 0.4, 0.3)), fluid: [(min: (0.0, 0.0, 0.0), max: (0.6, 0.14, 0.3))],
          solids: [Box(center: (0.3, 0.19, 0.15), size: (0.12, 0.08, 0.12), floating: (density: 500.0))],
          physics: (spacing: 0.02))",
    )
    .unwrap();
    // a display of its own: the keyboard focus and the pointer reach this window and no other
    let screen = own_display();
    let mut app = AppProcess::start_on(screen, [scene.as_os_str(), "--size".as_ref(), "800x600".as_ref(), "--no-vsync".as_ref()]);
    app.wait_for("the floating body on screen", STALL, |l| l.contains("floating body 0 at"));
    let line = app.log.iter().find(|l| l.contains("floating body 0 at")).unwrap().clone();
    let numbers =
        |s: &str| -> Vec<f64> { s.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).filter_map(|w| w.parse().ok()).collect() };
    let start = numbers(line.split("floating body 0 at").nth(1).unwrap());
    let (px, py) = (start[3], start[4]);
    // on the app's display (an xdotool on another one waits for the window for ever), each call
    // within a minute
    let xdotool = |args: &[&str]| {
        let out = Command::new("timeout").arg("60").arg("xdotool").args(args).env("DISPLAY", screen).output().expect("timeout (coreutils)");
        assert!(out.status.code() != Some(127), "this test drags with real X input and needs xdotool: apt-get install xdotool");
        assert!(out.status.code() != Some(124), "xdotool {args:?} took more than 60 s");
        assert!(out.status.success(), "xdotool {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let window = xdotool(&["search", "--sync", "--pid", &app.child.id().to_string()]);
    let window = window.lines().last().expect("the app's window").to_string();
    let (px, py) = (px.round() as i64, py.round() as i64);
    // the keyboard's focus (a display without a window manager gives none)
    xdotool(&["windowfocus", "--sync", &window]);
    xdotool(&["mousemove", "--window", &window, &px.to_string(), &py.to_string()]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["keydown", "shift"]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["mousedown", "1"]);
    for k in 1..=12 {
        std::thread::sleep(Duration::from_millis(150));
        xdotool(&["mousemove", "--window", &window, &(px + 10 * k).to_string(), &py.to_string()]);
    }
    // held at the end a while: on a busy two-core machine lavapipe draws few frames a second,
    // and the body follows the pointer frame by frame (once 0.019 m after a 0.5 s hold)
    std::thread::sleep(Duration::from_millis(1500));
    xdotool(&["mouseup", "1"]);
    std::thread::sleep(Duration::from_millis(300));
    xdotool(&["keyup", "shift"]);
    // the app goes on stepping whatever the input did: a deadline, not a stall, ends the wait
    let deadline = Instant::now() + Duration::from_secs(180);
    while !app.log.iter().any(|l| l.contains("let go of floating body 0 at")) {
        assert!(Instant::now() < deadline, "no drag within 180 s of the input; the app said:\n{}", app.text());
        app.next_line(Instant::now() + Duration::from_secs(1));
    }
    let log = app.text();
    let grabbed = app.log.iter().find(|l| l.contains("dragging floating body 0 (at")).unwrap_or_else(|| panic!("not grabbed:\n{log}"));
    let x0 = numbers(grabbed.split("(at").nth(1).unwrap())[0];
    let line = app.log.iter().find(|l| l.contains("let go of floating body 0 at")).unwrap().clone();
    let end = numbers(line.split("let go of floating body 0 at").nth(1).unwrap());
    eprintln!("the box's centre from x = {x0:.3} m to {:.3} m", end[0]);
    // to the screen's right is +x (the camera looks from the front, a little from the right)
    assert!(end[0] - x0 > 0.02, "the box did not follow the pointer to the right: x {x0} → {}\n{log}", end[0]);
    app.stop();
    assert!(!app.text().contains("panicked"), "{}", app.text());
    let _ = std::fs::remove_dir_all(&dir);
}
