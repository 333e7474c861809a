//! A scene the validator accepts must not crash the process, and a run that goes wrong must not
//! exit 0 looking healthy. Each test runs the real `rillet` binary on the test adapter
//! (lavapipe in CI) and reads its exit code, its messages and the files it left.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn rillet() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rillet"));
    c.env("WGPU_BACKEND", std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "vulkan".into()));
    // as in a root shell or a container, where nothing sets it: the binary's output must not
    // depend on it (Mesa's device-selection layer complains where it is unset)
    c.env_remove("XDG_RUNTIME_DIR").env_remove("NODEVICE_SELECT");
    c
}

/// A fresh folder for one test's files.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rillet-reliability-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_scene(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("scene.ron");
    std::fs::write(&path, text).unwrap();
    path
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The small drop of the tests, with `physics` and `grid` sections of our own.
fn small_drop(physics: &str, grid: &str) -> String {
    format!(
        "(name: \"test drop\", domain: (min: (0, 0, 0), max: (0.4, 0.4, 0.4)),
          fluid: [(min: (0.1, 0, 0.1), max: (0.3, 0.12, 0.3)), (min: (0.16, 0.24, 0.16), max: (0.24, 0.32, 0.24))],
          physics: ({physics}), grid: ({grid}))"
    )
}

/// Every line of probes.csv is complete: as many fields as the header, all numbers.
fn assert_csv_complete(path: &Path) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.ends_with('\n'), "{} ends mid-line", path.display());
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    lines
        .map(|l| {
            let f: Vec<f64> = l.split(',').map(|x| x.parse().unwrap_or_else(|_| panic!("`{x}` in `{l}`"))).collect();
            assert_eq!(f.len(), header.len(), "{l}");
            f
        })
        .collect()
}

fn column(path: &Path, name: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().next().unwrap().split(',').position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {}", path.display()))
}

fn run_json(dir: &Path) -> serde_json::Value {
    let path = dir.join("run.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn a_scene_too_large_is_refused_before_it_is_built() {
    // a 1 m box at 0.8 mm: 1.95e9 particles, under the 2^31 cap; building it took 8 GiB and
    // aborted the process before the device was ever asked
    let dir = folder("too-large");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (1, 1, 1))], physics: (spacing: 0.0008, dt: 0.00001))",
    );
    let t = Instant::now();
    let o = rillet().arg("run").arg(&scene).args(["--steps", "1", "--quiet", "--out"]).arg(dir.join("out")).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("does not fit this device"), "{err}");
    assert!(err.contains("max_storage_buffer_binding_size") || err.contains("host memory"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(60), "refused only after {:?}", t.elapsed());

    let o = rillet().args(["bench", "--particles", "1e9", "--warmup", "1", "--steps", "1"]).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("max_storage_buffer_binding_size") || err.contains("host memory"), "{err}");
}

#[test]
fn a_blow_up_stops_the_run_with_exit_code_3_and_valid_files() {
    // gravity 1000 m/s² against a speed of sound of 5 m/s: the drop falls at Mach 3 and the pool
    // is crushed; the guards kept this looking orderly and the run exited 0
    let dir = folder("blow-up");
    let scene = write_scene(&dir, &small_drop("pressure: SpeedOfSound(5), gravity: (0, -1000, 0), dt: 0.0002", ""));
    let out = dir.join("out");
    let o = rillet().arg("run").arg(&scene).args(["--steps", "2000", "--every", "20", "--quiet", "--out"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("blew up at step"), "{err}");
    let rows = assert_csv_complete(&out.join("probes.csv"));
    assert!(rows.len() >= 2 && rows.len() < 101, "stopped early: {} rows", rows.len());
    let meta = run_json(&out);
    assert!(meta["outcome"].as_str().unwrap().contains("blew up at step"), "{meta}");
    assert!(meta["steps_done"].as_u64().unwrap() < 2000);
    assert!(out.join("profile.csv").is_file());
}

#[test]
fn a_healthy_run_exits_0_and_says_completed() {
    let dir = folder("healthy");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let o = rillet().arg("run").arg(&scene).args(["--steps", "40", "--every", "20", "--quiet", "--out"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(run_json(&out)["outcome"], "completed");
    assert_eq!(assert_csv_complete(&out.join("probes.csv")).len(), 3);
    // without XDG_RUNTIME_DIR (see rillet()): a quiet healthy run prints its summary and nothing
    // that looks like an error
    let err = stderr(&o);
    assert!(!err.contains("XDG_RUNTIME_DIR") && !err.lines().any(|l| l.contains("error:")), "{err}");
}

#[test]
fn run_records_the_grid_diagnostics_the_panel_shows() {
    // capacity 1: every cell that holds two particles overflows
    let dir = folder("overflow");
    let out = dir.join("out");
    let scene = write_scene(&dir, &small_drop("", "capacity: 1"));
    let o = rillet().arg("run").arg(&scene).args(["--steps", "20", "--every", "10", "--quiet", "--out"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let csv = out.join("probes.csv");
    let rows = assert_csv_complete(&csv);
    let (max, over) = (column(&csv, "max_per_cell"), column(&csv, "overflows"));
    let last = rows.last().unwrap();
    assert!(last[max] >= 2.0 && last[over] >= 1.0, "max per cell {}, overflows {}", last[max], last[over]);
    assert!(err.contains("capacity 1") && err.contains(&format!("{} over", last[over])), "the summary line says it: {err}");
}

#[test]
fn an_interrupted_run_writes_its_files_and_resumes_to_the_same_end() {
    let dir = folder("interrupted");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let child = rillet()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "100000", "--every", "10", "--quiet", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let csv = out.join("probes.csv");
    let t = Instant::now();
    while std::fs::read_to_string(&csv).map_or(0, |s| s.lines().count()) < 3 {
        assert!(t.elapsed() < Duration::from_secs(120), "no probes after two minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    let ok = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted at step") && err.contains("rillet run --resume"), "{err}");
    assert_csv_complete(&csv);
    let meta = run_json(&out);
    assert!(meta["outcome"].as_str().unwrap().contains("interrupted"));
    assert!(out.join("profile.csv").is_file() && out.join("checkpoint.bin").is_file());
    let stopped_at = meta["steps_done"].as_u64().unwrap();

    // resumed to a nearby end: every probe step once, in order, up to the end
    let end = (stopped_at / 10 + 3) * 10;
    let o = rillet().args(["run", "--quiet", "--steps", &end.to_string(), "--resume"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let steps: Vec<u64> = assert_csv_complete(&csv).iter().map(|r| r[0] as u64).collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "no duplicate or unordered rows: {steps:?}");
    assert_eq!(*steps.last().unwrap(), end);
    // the rows at multiples of 10 are all there
    for k in (0..=end).step_by(10) {
        assert!(steps.contains(&k), "row of step {k} missing: {steps:?}");
    }
    assert_eq!(run_json(&out)["resumed_from"].as_u64(), Some(stopped_at));
}

/// A run killed outright (SIGKILL: nothing is written at the end) resumes from its last
/// checkpoint: run.json is there from the start.
#[test]
fn a_killed_run_resumes_from_its_last_checkpoint() {
    let dir = folder("killed");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let mut child = rillet()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "1000000", "--every", "10", "--checkpoint-every", "20", "--quiet", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !out.join("checkpoint.bin").is_file() {
        assert!(t.elapsed() < Duration::from_secs(120), "no checkpoint after two minutes");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(run_json(&out)["outcome"], "running", "run.json as written at the start");
    let b = std::fs::read(out.join("checkpoint.bin")).unwrap();
    let at = u64::from_le_bytes(b[24..32].try_into().unwrap());
    let end = (at / 10 + 2) * 10;
    let o = rillet().args(["run", "--quiet", "--steps", &end.to_string(), "--resume"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let steps: Vec<u64> = assert_csv_complete(&out.join("probes.csv")).iter().map(|r| r[0] as u64).collect();
    assert!(steps.windows(2).all(|w| w[0] < w[1]) && *steps.last().unwrap() == end, "{steps:?}");
    assert_eq!(run_json(&out)["resumed_from"].as_u64(), Some(at));
    // a fresh run into the same folder is refused, and the earlier run is left as it was
    let before = std::fs::read(out.join("probes.csv")).unwrap();
    let o = rillet().arg("run").arg(&scene).args(["--steps", "5", "--quiet", "--out"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("holds an earlier run") && err.contains("--overwrite") && err.contains("--resume"), "{err}");
    assert_eq!(std::fs::read(out.join("probes.csv")).unwrap(), before);
    assert!(out.join("checkpoint.bin").exists());
    // with --overwrite it clears the earlier run's files (no stale checkpoint or frames) and
    // leaves the user's own
    std::fs::create_dir_all(out.join("particles")).unwrap();
    std::fs::write(out.join("particles/particles-99999999.ply"), b"old frame").unwrap();
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    let o = rillet().arg("run").arg(&scene).args(["--steps", "5", "--quiet", "--overwrite", "--out"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!out.join("checkpoint.bin").exists(), "a stale checkpoint of the earlier run was left");
    assert!(!out.join("particles").exists(), "the earlier run's frames were left");
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    assert_eq!(assert_csv_complete(&out.join("probes.csv")).last().unwrap()[0], 5.0);
}

/// Two runs into one folder at once: the second is refused at once (the first holds the
/// folder's lock), and the first completes with its own files.
#[test]
fn a_second_run_into_a_folder_in_use_is_refused() {
    let dir = folder("locked");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let first = rillet()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "2000", "--every", "10", "--quiet", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !out.join("probes.csv").is_file() {
        assert!(t.elapsed() < Duration::from_secs(120), "the first run wrote nothing in two minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    for args in [
        vec!["run", scene.to_str().unwrap(), "--steps", "5", "--quiet", "--overwrite", "--out", out.to_str().unwrap()],
        vec!["run", "--quiet", "--steps", "500", "--resume", out.to_str().unwrap()],
    ] {
        let o = rillet().args(&args).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("is in use"), "{args:?}: {err}");
    }
    let o = first.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(assert_csv_complete(&out.join("probes.csv")).last().unwrap()[0], 2000.0);
    assert_eq!(run_json(&out)["steps_done"].as_u64(), Some(2000));
}

/// Particles of a binary PLY frame, read by ply-rs: (position, velocity) by id.
fn ply_particles(path: &Path) -> Vec<([f32; 3], [f32; 3])> {
    use ply_rs::ply::Property;
    let parser = ply_rs::parser::Parser::<ply_rs::ply::DefaultElement>::new();
    let ply = parser.read_ply(&mut std::io::BufReader::new(std::fs::File::open(path).unwrap())).expect("ply-rs reads it");
    let f = |e: &ply_rs::ply::DefaultElement, k: &str| match e[k] {
        Property::Float(v) => v,
        ref other => panic!("{k}: {other:?}"),
    };
    ply.payload["vertex"].iter().map(|e| ([f(e, "x"), f(e, "y"), f(e, "z")], [f(e, "vx"), f(e, "vy"), f(e, "vz")])).collect()
}

/// Runs `scene` 200 steps in one go (into `dir/a`) and 100 + resume + 100 (into `dir/b`),
/// probing every 50 and exporting PLY every 100 steps; returns the two run folders.
fn uninterrupted_and_resumed(scene: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    let run = |out: &Path, steps: &str, extra: &[&str]| {
        let o = rillet()
            .arg("run")
            .arg(scene)
            .args(["--steps", steps, "--every", "50", "--export", "ply", "--export-every", "100", "--quiet"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    let (a, b) = (dir.join("a"), dir.join("b"));
    run(&a, "200", &[]);
    run(&b, "100", &["--checkpoint-every", "100"]);
    let o = rillet().args(["run", "--quiet", "--steps", "200", "--resume"]).arg(&b).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    (a, b)
}

#[test]
fn a_resumed_run_ends_where_an_uninterrupted_one_does() {
    let dir = folder("resume");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let (a, b) = uninterrupted_and_resumed(&scene, &dir);
    let rows = |d: &Path| assert_csv_complete(&d.join("probes.csv")).iter().map(|r| r[0] as u64).collect::<Vec<_>>();
    assert_eq!(rows(&a), rows(&b), "the same probe rows, none twice");
    let frames = |d: &Path| {
        let mut n: Vec<String> =
            std::fs::read_dir(d.join("particles")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
        n.sort();
        n
    };
    assert_eq!(frames(&a), frames(&b));
    // The step is not bit-deterministic: the counting sort's atomics order the particles of a
    // cell differently from run to run, so sums round differently (two uninterrupted runs
    // differ by about 3e-7 m after 100 steps here). The bound is the one the GPU-vs-twin
    // trajectory tests use (tests/gpu_sph.rs).
    let (pa, pb) = (ply_particles(&a.join("particles/particles-00000200.ply")), ply_particles(&b.join("particles/particles-00000200.ply")));
    assert_eq!(pa.len(), pb.len());
    let d = |x: [f32; 3], y: [f32; 3]| (0..3).map(|k| (x[k] - y[k]).powi(2)).sum::<f32>().sqrt();
    let dx = pa.iter().zip(&pb).map(|(x, y)| d(x.0, y.0)).fold(0.0, f32::max);
    let dv = pa.iter().zip(&pb).map(|(x, y)| d(x.1, y.1)).fold(0.0, f32::max);
    eprintln!("resumed against uninterrupted after 200 steps: |dx| ≤ {dx:.2e} m, |dv| ≤ {dv:.2e} m/s");
    assert!(dx <= 2e-5 && dv <= 2e-3, "|dx| {dx}, |dv| {dv}");
}

#[test]
fn a_deterministic_resumed_run_ends_bit_for_bit_where_an_uninterrupted_one_does() {
    // a fixed dt; an adaptive one (it grows from the last step's); DFSPH with an adaptive dt
    // (its solves start from the last totals, and an unconverged solve halves the next dt):
    // the checkpoint carries that step state, so each resume continues exactly
    let adaptive = "time_step: Adaptive(min: 0.00001, max: 0.002, cfl: 0.4)";
    for (name, physics) in [("fixed", String::new()), ("adaptive", adaptive.to_string()), ("dfsph", format!("solver: DFSPH, {adaptive}"))] {
        let dir = folder(&format!("resume-det-{name}"));
        let scene = write_scene(&dir, &small_drop(&physics, "deterministic: true"));
        let (a, b) = uninterrupted_and_resumed(&scene, &dir);
        let frame = |d: &Path| std::fs::read(d.join("particles/particles-00000200.ply")).unwrap();
        assert!(frame(&a) == frame(&b), "{name}: the frames of step 200 differ");
        let probes = |d: &Path| std::fs::read_to_string(d.join("probes.csv")).unwrap();
        assert_eq!(probes(&a), probes(&b), "{name}: the probe rows differ");
    }
}

/// With an adaptive dt the times come from the GPU's clock: probes.csv, the export series,
/// run.json and a resumed run all say the same simulated time, none of it step × dt.
#[test]
fn an_adaptive_run_keeps_the_gpu_clock_through_a_resume() {
    let dir = folder("adaptive");
    let scene = write_scene(&dir, &small_drop("dt: 0.0004, time_step: Adaptive(min: 0.00001, max: 0.001, cfl: 0.4)", ""));
    let out = dir.join("out");
    let o = rillet()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "100", "--every", "50", "--export", "vtk", "--export-every", "50", "--checkpoint-every", "100", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    // the largest dt is the scene's 0.001 s or the viscous condition's 0.625 h/(α c) for the
    // walls' approach viscosity (α = 1), 0.000998 s here
    assert!(
        err.contains("WCSPH, dt adaptive in [0.00001, 0.0009977") && err.contains("] s, cfl 0.4"),
        "the startup line names the time step: {err}"
    );
    assert!(!err.contains("CFL dt·c/h"), "no fixed-dt CFL warning for an adaptive dt: {err}");
    let o = rillet().args(["run", "--quiet", "--steps", "200", "--resume"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let csv = out.join("probes.csv");
    let rows = assert_csv_complete(&csv);
    let (time, dt) = (column(&csv, "time_s"), column(&csv, "dt"));
    let steps: Vec<u64> = rows.iter().map(|r| r[0] as u64).collect();
    assert_eq!(steps, [0, 50, 100, 150, 200]);
    assert!(rows.windows(2).all(|w| w[1][time] > w[0][time]), "time goes on across the resume");
    assert!(rows.iter().all(|r| r[dt] >= 1e-5 && r[dt] <= 1e-3), "every dt in its range");
    // the step chose a dt of its own: the times are no multiple of the first dt
    let last = rows.last().unwrap();
    assert!((last[time] - 200.0 * 4e-4).abs() > 1e-3, "t = {} at step 200", last[time]);
    let pvd = std::fs::read_to_string(out.join("particles/particles.pvd")).unwrap();
    for r in &rows {
        let entry = format!("file=\"particles-{:08}.vtu\"", r[0] as u64);
        let line = pvd.lines().find(|l| l.contains(&entry)).unwrap_or_else(|| panic!("no frame of step {}: {pvd}", r[0]));
        let t: f64 = line.split("timestep=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!((t - r[time]).abs() < 1e-6, "frame of step {}: {t} s, probes {} s", r[0], r[time]);
    }
    let meta = run_json(&out);
    assert_eq!((meta["solver"].as_str(), meta["time_step"].as_str()), (Some("WCSPH"), Some("adaptive")));
    assert!((meta["sim_time"].as_f64().unwrap() - last[time]).abs() < 1e-6, "{meta}");
    let (lo, hi, mean) = (meta["dt_min_seen"].as_f64().unwrap(), meta["dt_max_seen"].as_f64().unwrap(), meta["dt_mean"].as_f64().unwrap());
    assert!(lo > 0.0 && lo <= mean && mean <= hi && hi <= 1e-3, "{meta}");
    assert_eq!(meta["max_pressure_iterations_seen"].as_u64(), Some(0));
}

/// The checkpoint's layout as `src/checkpoint.rs` documents it, read here field by field (not
/// with the program's reader): magic, version, header size, scene hash, step, time, counts,
/// guard totals, flow totals, payload size and its FNV-1a checksum, then positions and
/// velocities by id.
#[test]
fn the_checkpoint_file_is_what_its_documentation_says() {
    let dir = folder("checkpoint-layout");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let o =
        rillet().arg("run").arg(&scene).args(["--steps", "30", "--checkpoint-every", "30", "--quiet", "--out"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let b = std::fs::read(out.join("checkpoint.bin")).unwrap();
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    assert_eq!(&b[..8], b"RILLETCK");
    assert_eq!(u32_at(8), 3, "format version");
    let header = u32_at(12) as usize;
    assert_eq!(header, 128);
    assert_eq!(u64_at(24), 30, "step");
    // the time is step × dt from the dt as the scene writes it, 0.0004, in f64
    assert_eq!(f64::from_le_bytes(b[32..40].try_into().unwrap()), 30.0 * 0.0004, "time: step × dt");
    let (n, fluid) = (u32_at(40) as usize, u32_at(44));
    assert_eq!((n, fluid), (664 + 5824, 664));
    // wall clamps, non-finite, then outflow, emitted, starved (none in this scene)
    assert_eq!((u64_at(64), u64_at(72), u64_at(80)), (0, 0, 0), "flow totals");
    // the step state: the last dt (fixed here), the solver error (WCSPH: 0), the clock, no warm start
    let f32_at = |o: usize| f32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    assert_eq!((f32_at(88), f32_at(92)), (4e-4, 0.0), "last dt, solver error");
    assert!((f32_at(96) as f64 + f32_at(100) as f64 - 30.0 * 4e-4).abs() < 1e-9, "the GPU clock");
    assert_eq!(u32_at(104), 0, "warm-start entries (WCSPH: none)");
    assert_eq!(u64_at(112) as usize, n * 32, "payload bytes");
    assert_eq!(b.len(), header + n * 32);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b[8..120].iter().chain(&b[header..]) {
        h = (h ^ x as u64).wrapping_mul(0x0100_0000_01b3);
    }
    assert_eq!(u64_at(120), h, "FNV-1a of every byte after the magic but the checksum's own");
    // fluid first by id: positive masses, then the walls' negative ones
    let mass = |i: usize| f32::from_le_bytes(b[header + 16 * i + 12..header + 16 * i + 16].try_into().unwrap());
    assert!((0..664).all(|i| mass(i) > 0.0) && (664..n).all(|i| mass(i) < 0.0));
}

#[test]
fn a_checkpoint_of_another_scene_or_a_damaged_one_is_refused() {
    let dir = folder("refused");
    let scene = write_scene(&dir, &small_drop("", ""));
    let out = dir.join("out");
    let o =
        rillet().arg("run").arg(&scene).args(["--steps", "20", "--checkpoint-every", "10", "--quiet", "--out"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // the scene changed since
    std::fs::write(&scene, small_drop("viscosity: 0.1", "")).unwrap();
    let o = rillet().args(["run", "--quiet", "--steps", "40", "--resume"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("checkpoint is of another scene"), "{err}");
    // back to the scene, but a damaged checkpoint
    std::fs::write(&scene, small_drop("", "")).unwrap();
    let ck = out.join("checkpoint.bin");
    let good = std::fs::read(&ck).unwrap();
    // a byte of the payload, the step (20 → 16), the time's sign, the wall clamps, the emitted count
    for at in [good.len() - 1, 24, 39, 48, 72] {
        let mut bytes = good.clone();
        bytes[at] ^= if at == 24 { 0x04 } else { 0x80 };
        std::fs::write(&ck, &bytes).unwrap();
        let o = rillet().args(["run", "--quiet", "--steps", "40", "--resume"]).arg(&out).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "byte {at}: {err}");
        assert!(err.contains("checkpoint is damaged"), "byte {at}: {err}");
    }
    // a damaged probes.csv row before the checkpoint's step: refused, naming the line, and the
    // file kept as it was (no row after it lost)
    std::fs::write(&ck, &good).unwrap();
    let probes = out.join("probes.csv");
    let text = std::fs::read_to_string(&probes).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 4, "{text}");
    lines[2] = "12,garbage";
    let damaged = format!("{}\n", lines.join("\n"));
    std::fs::write(&probes, &damaged).unwrap();
    let o = rillet().args(["run", "--quiet", "--steps", "40", "--resume"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("probes.csv") && err.contains("line 3 is damaged"), "{err}");
    assert_eq!(std::fs::read_to_string(&probes).unwrap(), damaged, "probes.csv changed");
}

#[test]
fn a_full_disk_is_an_error_naming_the_file() {
    // probes.csv is written aside first (probes.csv.tmp, then renamed): that file on /dev/full,
    // where every write fails with "no space left on device"
    let dir = folder("full-disk");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink("/dev/full", out.join("probes.csv.tmp")).unwrap();
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let o = rillet().arg("run").arg(&scene).args(["--steps", "20", "--every", "10", "--quiet", "--out"]).arg(&out).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("probes.csv") && err.contains("No space left"), "{err}");
    assert!(!out.join("probes.csv").exists(), "no half-written file under the final name");
}

#[test]
fn out_of_range_options_are_refused_not_run() {
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let dir = folder("options");
    for args in [
        vec!["run", scene.to_str().unwrap(), "--gauges", "nan", "--out", dir.to_str().unwrap()],
        vec!["run", scene.to_str().unwrap(), "--gauges", "7", "--out", dir.to_str().unwrap()],
        vec!["bench", "--cell-size", "nan"],
        vec!["bench", "--cell-size", "100"],
        vec!["bench", "--particles", "0.4"],
        vec!["--substeps", "0"],
        // a velocity the scene file would refuse (below half the speed of sound, c ≈ 25 m/s)
        vec!["run", scene.to_str().unwrap(), "--velocity", "0:30,0,0", "--steps", "10", "--out", dir.to_str().unwrap()],
        vec!["run", scene.to_str().unwrap(), "--velocity", "0:1e30,0,0", "--steps", "10", "--out", dir.to_str().unwrap()],
    ] {
        let o = rillet().args(&args).output().unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("out of range") || err.contains("invalid value"), "{args:?}: {err}");
    }
}

/// A sheet of water three spacings thick running at 3 m/s into a free-slip wall: with pressure
/// alone its front got through the wall (thousands of domain-guard clamps within 1 400 steps,
/// particles launched to twice the sheet's speed, a blow-up); the walls' approach viscosity
/// holds it, and along the floor it brakes nothing (docs/PHYSICS.md, "Walls").
#[test]
fn a_fast_thin_sheet_does_not_get_through_a_free_slip_wall() {
    let dir = folder("sheet");
    let sheet = |domain_x: f64, physics: &str| {
        format!(
            "(name: \"sheet\", domain: (min: (0, 0, 0), max: ({domain_x}, 0.2, 0.1)),
              fluid: [(min: (0.05, 0, 0), max: (0.2, 0.03, 0.1), velocity: (3, 0, 0))],
              physics: (spacing: 0.01, pressure: SpeedOfSound(30), viscosity: 0.05, dt: 0.00025{physics}))"
        )
    };
    let run = |name: &str, text: String, steps: &str| {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        let scene = write_scene(&d, &text);
        let out = d.join("out");
        let o = rillet().arg("run").arg(&scene).args(["--steps", steps, "--every", "50", "--quiet", "--out"]).arg(&out).output().unwrap();
        (o, out.join("probes.csv"))
    };
    // into the wall, 0.35 s: the default walls hold
    let (o, probes) = run("held", sheet(0.4, ""), "1400");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = assert_csv_complete(&probes);
    let (clamps, speed) = (column(&probes, "wall_clamps"), column(&probes, "max_speed_m_s"));
    let fastest = rows.iter().map(|r| r[speed]).fold(0.0, f64::max);
    assert_eq!(rows.last().unwrap()[clamps], 0.0, "the front got through the wall");
    assert!(fastest < 5.0, "fastest particle {fastest} m/s (the sheet ran at 3)");
    // DFSPH, with the term limited by its step: held too (11 230 clamps without it)
    let (o, probes) = run("held-dfsph", sheet(0.4, ", solver: DFSPH"), "1400");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(assert_csv_complete(&probes).last().unwrap()[clamps], 0.0, "DFSPH: the front got through the wall");
    // without the approach viscosity the same sheet gets through: the case is a real test
    let (o, probes) = run("leaks", sheet(0.4, ", wall_approach_viscosity: 0"), "400");
    assert!(matches!(o.status.code(), Some(0) | Some(3)), "{}", stderr(&o));
    let last = assert_csv_complete(&probes).last().unwrap().clone();
    assert!(last[clamps] > 0.0, "pressure alone held the sheet: the test would not see a leak");
    // along the floor, 0.05 s: the same momentum with and without it (free slip)
    let momentum = |physics: &str, name: &str| {
        let (o, probes) = run(name, sheet(1.0, physics), "200");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_csv_complete(&probes).last().unwrap()[column(&probes, "momentum_x")]
    };
    let (with, without) = (momentum("", "slide"), momentum(", wall_approach_viscosity: 0", "slide-off"));
    assert!((with - without).abs() <= 2e-3 * without.abs(), "momentum along the floor {with} against {without} without the term");
}

/// Runs `c` and returns its output, failing the test if it has not ended within `secs`.
fn output_within(c: &mut Command, secs: u64) -> Output {
    let mut child = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed().as_secs() > secs {
            let _ = child.kill();
            panic!("still running after {secs} s: {c:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// A FIFO (or a folder) given as the scene file or as a mesh is refused at once, naming it,
/// instead of blocking in open() until a writer comes.
#[cfg(unix)]
#[test]
fn a_fifo_as_scene_or_mesh_is_refused_at_once() {
    let dir = folder("fifo");
    let pipe = dir.join("pipe.obj");
    assert!(Command::new("mkfifo").arg(&pipe).status().unwrap().success());
    let o = output_within(rillet().arg("run").arg(&pipe).arg("--out").arg(dir.join("out")), 60);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("pipe.obj") && err.contains("not a regular file"), "{err}");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))],
          solids: [Mesh(path: \"pipe.obj\", translation: (0.5, 0.5, 0.5))], physics: (spacing: 0.05))",
    );
    let o = output_within(rillet().arg("run").arg(&scene).arg("--out").arg(dir.join("out")), 60);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("pipe.obj") && err.contains("not a regular file") && err.contains("solids[0]"), "{err}");
    let o = output_within(rillet().arg("run").arg(&dir).arg("--out").arg(dir.join("out")), 60);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("a folder"), "{}", stderr(&o));
}

/// A run started with a relative scene path resumes from any working directory, and so does
/// the resumed run: run.json keeps the scene's absolute path.
#[test]
fn a_resume_from_another_folder_keeps_the_scene_file() {
    let dir = folder("elsewhere");
    let work = dir.join("work");
    std::fs::create_dir_all(&work).unwrap();
    write_scene(&work, &small_drop("", ""));
    let o = rillet()
        .current_dir(&work)
        .args(["run", "scene.ron", "--steps", "10", "--checkpoint-every", "10", "--quiet", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let scene_file = std::fs::canonicalize(work.join("scene.ron")).unwrap().display().to_string();
    let out = work.join("out");
    for (cwd, steps) in [(dir.clone(), "20"), (PathBuf::from("/"), "30")] {
        let o = rillet().current_dir(&cwd).args(["run", "--quiet", "--steps", steps, "--resume"]).arg(&out).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "from {}: {}", cwd.display(), stderr(&o));
        assert_eq!(run_json(&out)["scene_file"].as_str(), Some(scene_file.as_str()), "from {}", cwd.display());
    }
}

/// `rillet render` watches the run's health as `rillet run` does (a scene that blows up exits
/// 3, it exited 0), and refuses before rendering an image the device or the host cannot hold:
/// a surface view larger than the device's storage binding (it logged validation errors and
/// wrote a PNG without the water), or frames larger than the free memory (it aborted).
#[test]
fn render_checks_health_and_sizes() {
    let dir = folder("render");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (0.4, 0.4, 0.4)),
          fluid: [(min: (0.1, 0.1, 0.1), max: (0.3, 0.3, 0.3), velocity: (0, -4.9, 0))],
          physics: (spacing: 0.02, pressure: SpeedOfSound(10), dt: 0.0015))",
    );
    let o = output_within(
        rillet().arg("render").arg(&scene).args(["--frames", "40", "--size", "160x90", "--quiet", "--out"]).arg(dir.join("frames")),
        300,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("blew up") && err.contains("holds the frames up to it"), "{err}");
    // the surface view's largest image on this device, plus a row
    let gpu = rillet::gpu::Gpu::headless().expect("a Vulkan adapter (lavapipe: apt-get install mesa-vulkan-drivers)");
    let side = ((gpu.max_binding_bytes() / 4) as f64).sqrt() as u32 + 1;
    let small = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let max_dim = gpu.limits.max_texture_dimension_2d.min(16384);
    if side <= max_dim {
        let size = format!("{side}x{side}");
        let o = output_within(
            rillet()
                .arg("render")
                .arg(&small)
                .args(["--view", "surface", "--frames", "1", "--size", &size, "--quiet", "--out"])
                .arg(dir.join("big")),
            120,
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{size}: {err}");
        assert!(err.contains("out of range for the surface view"), "{err}");
        assert!(!dir.join("big/frame-00001.png").exists(), "a frame was written");
    }
    let view = rillet::render::View::Spheres;
    assert!(rillet::offscreen::check_size(&gpu, (1280, 720), view, false, Some(1 << 30)).is_ok());
    let e = rillet::offscreen::check_size(&gpu, (16384, 16384), view, false, Some(1 << 30)).unwrap_err().to_string();
    assert!(e.contains("GiB of memory") && e.contains("16384x16384"), "{e}");
    assert!(rillet::offscreen::check_size(&gpu, (16384, 16384), view, true, Some(1 << 30)).is_ok(), "--no-images keeps no frames");
    // the device's uncaptured errors are counted (render fails on any): a buffer both mappable
    // for reading and a storage buffer is invalid without a feature no adapter gives here
    assert_eq!(gpu.uncaptured_errors().0, 0);
    let _invalid = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test.invalid"),
        size: 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let (n, first) = gpu.uncaptured_errors();
    assert!(n >= 1 && first.as_deref().is_some_and(|e| e.contains("test.invalid")), "{n} {first:?}");
}

/// A signal while a scene still loads (a 30 m sphere's shell takes seconds to sample and
/// check) ends the command at once with 128 + its number; it was ignored until the load ended.
#[cfg(unix)]
#[test]
fn a_signal_while_loading_ends_the_run_at_once() {
    let dir = folder("loading");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (100, 100, 100)), fluid: [(min: (0, 0, 0), max: (1, 1, 1))],
          solids: [Sphere(center: (50, 50, 50), radius: 30)], physics: (spacing: 0.05))",
    );
    let child = rillet().arg("run").arg(&scene).args(["--steps", "10", "--quiet", "--out"]).arg(dir.join("out")).spawn().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Instant::now();
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(sent.elapsed() < Duration::from_secs(5), "ended {:?} after the signal", sent.elapsed());
}

/// `rillet run SCENE --steps STEPS --every 20 --quiet --out OUT EXTRA…`, which must exit 0.
fn run_probed(scene: &Path, out: &Path, steps: &str, extra: &[&str]) {
    let o =
        rillet().arg("run").arg(scene).args(["--steps", steps, "--every", "20", "--quiet", "--out"]).arg(out).args(extra).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A run with a moving solid resumed from a checkpoint ends where the same run without a stop
/// ends, bit for bit (`grid.deterministic`): the solid's pose comes from the clock, which the
/// checkpoint carries, and its rest positions from the scene.
#[test]
fn a_run_with_a_moving_solid_resumes_to_the_same_bits() {
    let dir = folder("moving-resume");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.12)),
          fluid: [(min: (0, 0, 0), max: (0.08, 0.16, 0.12)), (min: (0.12, 0, 0), max: (0.4, 0.16, 0.12))],
          solids: [Box(center: (0.1, 0.15, 0.06), size: (0.04, 0.3, 0.12), motion: (translation: Sine(amplitude: (0.03, 0, 0), period: 0.2),
                   rotation: Sine(axis: (0, 0, 1), amplitude: 5, period: 0.2)))],
          physics: (spacing: 0.02), grid: (deterministic: true))",
    );
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    let run = |out: &Path, steps: &str, extra: &[&str]| run_probed(&scene, out, steps, extra);
    run(&whole, "60", &[]);
    run(&parts, "20", &["--checkpoint-every", "20"]);
    let o = rillet().args(["run", "--quiet", "--steps", "60", "--resume"]).arg(&parts).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let last = |d: &Path| std::fs::read_to_string(d.join("probes.csv")).unwrap().lines().last().unwrap().to_string();
    assert!(last(&whole).starts_with("60,"), "{}", last(&whole));
    assert_eq!(last(&parts), last(&whole));
}

/// A run with a floating body resumed from a checkpoint ends where the same run without a stop
/// ends, bit for bit (`grid.deterministic`): the checkpoint carries the body's state, and its
/// force sums run in a fixed order; bodies.csv is the same row for row.
#[test]
fn a_run_with_a_floating_body_resumes_to_the_same_bits() {
    let dir = folder("floating-resume");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.12)),
          fluid: [(min: (0, 0, 0), max: (0.4, 0.14, 0.12))],
          solids: [Box(center: (0.2, 0.19, 0.06), size: (0.1, 0.08, 0.08), rotation: (0, 0, 8), floating: (density: 600, velocity: (0, -0.3, 0)))],
          physics: (spacing: 0.02), grid: (deterministic: true))",
    );
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    let run = |out: &Path, steps: &str, extra: &[&str]| run_probed(&scene, out, steps, extra);
    run(&whole, "80", &[]);
    run(&parts, "40", &["--checkpoint-every", "40"]);
    let o = rillet().args(["run", "--quiet", "--steps", "80", "--resume"]).arg(&parts).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let read = |d: &Path, f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    let last = |d: &Path| read(d, "probes.csv").lines().last().unwrap().to_string();
    assert!(last(&whole).starts_with("80,"), "{}", last(&whole));
    assert_eq!(last(&parts), last(&whole));
    let bodies = read(&whole, "bodies.csv");
    assert_eq!(bodies.lines().count(), 1 + 5, "a header and a row at steps 0, 20, 40, 60, 80:\n{bodies}");
    assert_eq!(read(&parts, "bodies.csv"), bodies);
    // the body moved: its last row's centre is not where it started
    let y = |line: &str| line.split(',').nth(4).unwrap().parse::<f64>().unwrap();
    let rows: Vec<&str> = bodies.lines().skip(1).collect();
    assert!((y(rows[4]) - y(rows[0])).abs() > 1e-3, "{bodies}");
}

/// The sensors of a run resumed from a checkpoint: sensors.csv is the uninterrupted run's, byte
/// for byte (deterministic mode), one row every 4 steps from step 0 to the last, none twice —
/// the checkpoint's step (20, a sampled one) is dropped from the file and sampled again by the
/// resumed run. With a force sensor on a box beside the water and a flow section across it.
/// Read back with the `csv` crate.
#[test]
fn a_run_with_sensors_resumes_to_the_same_rows() {
    let dir = folder("sensors-resume");
    let scene = write_scene(
        &dir,
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.1)), fluid: [(min: (0, 0, 0), max: (0.1, 0.16, 0.1))],
          solids: [Box(center: (0.16, 0.03, 0.05), size: (0.08, 0.06, 0.1))],
          probes: (sensors: [(name: \"wall\", at: (0, 0.05, 0.05)), (name: \"floor\", at: (0.05, 0, 0.05))],
                   forces: [(name: \"box\", solid: 0)], flows: [(name: \"front\", at: (0.09, 0.08, 0.05), normal: (1, 0, 0))],
                   sensor_every: 4),
          physics: (spacing: 0.02), grid: (deterministic: true))",
    );
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    run_probed(&scene, &whole, "60", &[]);
    run_probed(&scene, &parts, "20", &["--checkpoint-every", "20"]);
    let o = rillet().args(["run", "--quiet", "--steps", "60", "--resume"]).arg(&parts).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = |d: &Path| std::fs::read_to_string(d.join("sensors.csv")).unwrap();
    let whole_text = text(&whole);
    let mut r = csv::Reader::from_reader(whole_text.as_bytes());
    let head = [
        "step",
        "time_s",
        "wall_pa",
        "wall_fill",
        "floor_pa",
        "floor_fill",
        "box_fx_n",
        "box_fy_n",
        "box_fz_n",
        "box_mx_nm",
        "box_my_nm",
        "box_mz_nm",
        "front_m3_s",
        "front_kg_s",
    ];
    assert_eq!(r.headers().unwrap().iter().collect::<Vec<_>>(), head);
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(rows.iter().map(|x| x[0].parse::<u64>().unwrap()).collect::<Vec<_>>(), (0..=60).step_by(4).collect::<Vec<u64>>());
    let last: Vec<f64> = rows.last().unwrap().iter().map(|x| x.parse().unwrap()).collect();
    assert!((last[1] - 60.0 * 4e-4).abs() < 1e-8, "the time of step 60: {}", last[1]);
    assert!(last[2] > 0.0 && last[3] > 0.2 && last[4] > 0.0 && last[5] > 0.2, "both sensors under water: {last:?}");
    // the water beside the box pushes it along +x; the collapsing column flows out through x = 0.09
    // (ṁ/Q is about ρ0: at the water's edge the summed density is below ρ0, V = m/ρ above m/ρ0)
    assert!(last[6] > 0.0 && last[12] > 0.0 && (last[13] / last[12] - 1000.0).abs() < 150.0, "the box's force and the flow: {last:?}");
    assert_eq!(text(&parts), whole_text);
}
