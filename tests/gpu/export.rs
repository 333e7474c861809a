//! Particle export, read back with readers that are not ours: the `.vtu` frames with vtkio, the
//! `.ply` frames with ply-rs, the `.pvd` collection with roxmltree. What they read must equal
//! the GPU's particle buffers (positions, velocities, densities, ids, kinds), and the collection's
//! times the steps.

use crate::common;

use rillet::export::{self, Frame};
use std::path::{Path, PathBuf};
use std::process::Command;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rillet-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// (name, values) of the point arrays and the points of a `.vtu`, read by vtkio.
fn read_vtu(path: &Path) -> (Vec<f32>, Vec<(String, vtkio::model::IOBuffer)>) {
    use vtkio::model::{Attribute, DataSet, Piece};
    let vtk = vtkio::Vtk::import(path).unwrap_or_else(|e| panic!("vtkio cannot read {}: {e:?}", path.display()));
    let DataSet::UnstructuredGrid { pieces, .. } = vtk.data else { panic!("not an unstructured grid") };
    let Piece::Inline(piece) = pieces.into_iter().next().unwrap() else { panic!("not inline") };
    let points = piece.points.cast_into::<f32>().unwrap();
    let arrays = piece
        .data
        .point
        .into_iter()
        .map(|a| match a {
            Attribute::DataArray(d) => (d.name, d.data),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    (points, arrays)
}

/// `rillet run SCENE ARGS… --quiet --out OUT`, asserted to exit 0; its output.
fn run_rillet(scene: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    let o =
        Command::new(env!("CARGO_BIN_EXE_rillet")).arg("run").arg(scene).args(args).args(["--quiet", "--out"]).arg(out).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// (timestep, file) of each DataSet of a `.pvd`, read by roxmltree.
fn datasets(pvd: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(pvd).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the collection is XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("DataSet"))
        .map(|n| (n.attribute("timestep").unwrap().to_string(), n.attribute("file").unwrap().to_string()))
        .collect()
}

fn array<'a>(arrays: &'a [(String, vtkio::model::IOBuffer)], name: &str) -> &'a vtkio::model::IOBuffer {
    &arrays.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no array {name}")).1
}

#[test]
fn exported_frames_read_back_equal_to_the_gpu_buffers() {
    let scene = common::small_drop();
    let state = common::build(&scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
    sim.run(10); // reordered: slot order is not id order
    let p = sim.read_particles().unwrap();
    let params = *sim.params();
    let frame = Frame::new(&p, 10, 0.004, params.rest_density, params.stiffness, true, &state.objects);
    let dir = folder("frame");
    let (vtu, ply) = (dir.join("f.vtu"), dir.join("f.ply"));
    export::write_whole(&vtu, &export::vtu(&frame)).unwrap();
    export::write_whole(&ply, &export::ply(&frame)).unwrap();

    // the GPU buffers by id
    let by_id = p.by_id();
    let n = by_id.id.len();
    assert_eq!(frame.len(), n, "every particle, boundary included");

    let (points, arrays) = read_vtu(&vtu);
    assert_eq!(points.len(), 3 * n);
    // the zlib-compressed frame reads back to the same values, in fewer bytes
    let zlib = dir.join("z.vtu");
    export::write_whole(&zlib, &export::vtu_zlib(&frame)).unwrap();
    let (zpoints, zarrays) = read_vtu(&zlib);
    assert_eq!(zpoints, points);
    assert_eq!(zarrays, arrays, "every array as the uncompressed frame's");
    let (plain, packed) = (std::fs::metadata(&vtu).unwrap().len(), std::fs::metadata(&zlib).unwrap().len());
    eprintln!(
        "vtu {plain} bytes, zlib {packed} bytes ({:.1} and {:.1} bytes a particle)",
        plain as f64 / n as f64,
        packed as f64 / n as f64
    );
    assert!(packed * 2 < plain, "zlib {packed} bytes against {plain}");
    let velocity = array(&arrays, "velocity").cast_into::<f32>().unwrap();
    let density = array(&arrays, "density").cast_into::<f32>().unwrap();
    let ids = array(&arrays, "id").cast_into::<u32>().unwrap();
    let kind = array(&arrays, "kind").cast_into::<u8>().unwrap();
    let pressure = array(&arrays, "pressure").cast_into::<f32>().unwrap();
    let object = array(&arrays, "object").cast_into::<u32>().unwrap();
    // the object each particle should have, from the scene alone: the fluid entry whose block
    // held it at the start (0: the pool, 1: the drop), else the tank (2)
    let expected_object = |i: usize| {
        let x = state.pos_mass[i];
        if x[3] < 0.0 {
            return 2;
        }
        // small_drop.ron's blocks
        let blocks = [([0.1, 0.0, 0.1], [0.3, 0.12, 0.3]), ([0.16, 0.24, 0.16], [0.24, 0.32, 0.24])];
        let inside = |e: usize| (0..3).all(|a| x[a] > blocks[e].0[a] && x[a] < blocks[e].1[a]);
        (0..2).find(|&e| inside(e)).expect("every fluid particle starts in a block") as u32
    };
    for i in 0..n {
        assert_eq!(object[i], expected_object(i), "object of {i}");
        let (x, v) = (by_id.pos_mass[i], by_id.vel_rho[i]);
        assert_eq!(&points[3 * i..3 * i + 3], &x[..3], "position of {i}");
        assert_eq!(&velocity[3 * i..3 * i + 3], &v[..3], "velocity of {i}");
        assert_eq!(density[i], v[3]);
        assert_eq!(ids[i], i as u32);
        assert_eq!(kind[i], (x[3] < 0.0) as u8);
        let p_expected = rillet::physics::tait_pressure(v[3] as f64, params.rest_density as f64, params.stiffness as f64) as f32;
        assert_eq!(pressure[i], p_expected);
    }

    use ply_rs::ply::Property;
    let parser = ply_rs::parser::Parser::<ply_rs::ply::DefaultElement>::new();
    let ply_data = parser.read_ply(&mut std::io::BufReader::new(std::fs::File::open(&ply).unwrap())).expect("ply-rs reads it");
    let vertices = &ply_data.payload["vertex"];
    assert_eq!(vertices.len(), n);
    let f = |e: &ply_rs::ply::DefaultElement, k: &str| match e[k] {
        Property::Float(v) => v,
        ref other => panic!("{k}: {other:?}"),
    };
    for (i, e) in vertices.iter().enumerate() {
        let (x, v) = (by_id.pos_mass[i], by_id.vel_rho[i]);
        assert_eq!([f(e, "x"), f(e, "y"), f(e, "z")], [x[0], x[1], x[2]]);
        assert_eq!([f(e, "vx"), f(e, "vy"), f(e, "vz"), f(e, "density")], [v[0], v[1], v[2], v[3]]);
        assert_eq!(e["particle_id"], Property::UInt(i as u32));
        assert_eq!(e["kind"], Property::UChar((x[3] < 0.0) as u8));
        assert_eq!(e["object"], Property::UInt(expected_object(i)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--export-boundary` writes the walls as a series of their own: the fluid's frames hold water
/// alone (what a mesher or a renderer reads), the tank's particles are in `boundary-*.vtu` —
/// once, since nothing moves — with `boundary.pvd`; vtkio reads both.
#[test]
fn the_boundary_is_a_series_of_its_own() {
    let dir = folder("boundary");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    run_rillet(&scene, &out, &["--steps", "20", "--every", "20", "--export", "vtk", "--export-every", "10", "--export-boundary"]);
    let frames = out.join("particles");
    let mut names: Vec<String> =
        std::fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "boundary-00000000.vtu",
            "boundary.pvd",
            "objects.csv",
            "particles-00000000.vtu",
            "particles-00000010.vtu",
            "particles-00000020.vtu",
            "particles.pvd"
        ]
    );
    let (points, arrays) = read_vtu(&frames.join("particles-00000020.vtu"));
    assert_eq!(points.len(), 3 * 664, "the small drop's fluid alone");
    assert!(array(&arrays, "kind").cast_into::<u8>().unwrap().iter().all(|&k| k == 0));
    let (walls, arrays) = read_vtu(&frames.join("boundary-00000000.vtu"));
    let kinds = array(&arrays, "kind").cast_into::<u8>().unwrap();
    assert!(walls.len() > 3 * 1000 && kinds.iter().all(|&k| k == 1), "{} wall particles", walls.len() / 3);
    let files: Vec<String> = datasets(&frames.join("boundary.pvd")).into_iter().map(|d| d.1).collect();
    assert_eq!(files, ["boundary-00000000.vtu"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--export-fps 30` at dt 0.4 ms: frame k at the step nearest k/30 s (0, 83, 167, 250), the
/// collection's times those steps' in decimals (roxmltree reads them); out-of-range values are
/// refused with the flag named, exit 2. With an adaptive dt the steps land on the frames: frame
/// k at k/30 s exactly, as the GPU's clock read it (probes.csv's time at that step).
#[test]
fn rillet_run_exports_frames_at_a_frame_rate() {
    let dir = folder("fps");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let run = |extra: &[&str], scene: &Path, out: &Path| {
        Command::new(env!("CARGO_BIN_EXE_rillet"))
            .arg("run")
            .arg(scene)
            .args(["--every", "100", "--export", "vtk", "--quiet", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--steps", "250", "--export-fps", "30"], &scene, &out);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let sets = datasets(&out.join("particles/particles.pvd"));
    let want: Vec<(String, String)> = [(0u64, "0"), (83, "0.0332"), (167, "0.0668"), (250, "0.1")]
        .iter()
        .map(|(s, t)| (t.to_string(), format!("particles-{s:08}.vtu")))
        .collect();
    assert_eq!(sets, want);
    for (flag, bad, why) in [
        ("--export-fps", "0", "--export-fps 0 is out of range: allowed (0, 10000]"),
        ("--export-fps", "5000", "allowed below one frame a step, 1/dt = 2500"),
    ] {
        let o = run(&["--steps", "10", flag, bad, "--overwrite"], &scene, &out);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(why), "{err}");
    }
    let adaptive = dir.join("adaptive.ron");
    let text = std::fs::read_to_string(&scene)
        .unwrap()
        .replace("dt: 0.0004,", "dt: 0.0004, time_step: Adaptive(min: 0.00001, max: 0.001, cfl: 0.4),");
    assert!(text.contains("Adaptive"), "the scene's dt line moved");
    std::fs::write(&adaptive, text).unwrap();
    let o = run(&["--steps", "300", "--export-fps", "30", "--overwrite"], &adaptive, &out);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let sets = datasets(&out.join("particles/particles.pvd"));
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let end = meta["sim_time"].as_f64().unwrap();
    // every frame up to the end, then the last step's state
    let frames = (end * 30.0).floor() as usize + 1;
    assert!(frames >= 4, "{end} s simulated");
    assert_eq!(sets.len(), frames + 1, "{sets:?}");
    let mut steps = Vec::new();
    for (k, (time, file)) in sets[..frames].iter().enumerate() {
        // written to 10 decimals (0.0333333333)
        assert!((time.parse::<f64>().unwrap() - k as f64 / 30.0).abs() < 6e-11, "frame {k}: {file} at {time}");
        steps.push(file["particles-".len()..][..8].parse::<u64>().unwrap());
    }
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?}");
}

/// An adaptive dt with a frame time ahead: the clock, read after every step, never passes the
/// frame and lands on it exactly (its f32 value); the step before is not a sliver (at least a
/// quarter of the step before it); the next frame set, the steps go on towards it.
#[test]
fn an_adaptive_clock_lands_on_the_frame_times() {
    let scene = common::scene(
        "(domain: (min: (0, 0, 0), max: (0.4, 0.3, 0.1)), fluid: [(min: (0, 0, 0), max: (0.1, 0.16, 0.1))],
          physics: (spacing: 0.02, dt: 0.0004, time_step: Adaptive(min: 0.00001, max: 0.002, cfl: 0.4)))",
    );
    let state = common::build(&scene);
    let mut sim = common::sim(&state, rillet::scene::setup::sim_options(&scene));
    let mut landed = Vec::new();
    let (mut last_dt, mut steps) = (0.0f32, 0);
    for frame in [0.0101f32, 0.0203, 0.05] {
        sim.set_frame_time(Some(frame));
        loop {
            sim.run(1);
            steps += 1;
            let d = sim.read_diagnostics().unwrap();
            let clock = d.sim_time();
            assert!(clock <= frame as f64, "step {steps}: the clock {clock} passed the frame {frame}");
            assert!(d.dt >= 0.25 * last_dt, "step {steps}: dt {} after {last_dt}", d.dt);
            last_dt = d.dt;
            if clock == frame as f64 {
                landed.push((frame, steps));
                break;
            }
            assert!(steps < 500, "never landed on {frame}");
        }
    }
    assert_eq!(landed.len(), 3, "{landed:?}");
    // without a frame the clock goes on by the flow's dt
    sim.set_frame_time(None);
    sim.run(5);
    assert!(sim.read_diagnostics().unwrap().sim_time() > 0.05);
}

#[test]
fn rillet_run_exports_a_series_paraview_opens_as_one() {
    let dir = folder("run");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    run_rillet(&scene, &out, &["--steps", "25", "--every", "25", "--export", "vtk,ply", "--export-every", "10"]);
    let frames = out.join("particles");
    // steps 0, 10, 20 and the last, 25; no temporary file left
    let mut names: Vec<String> =
        std::fs::read_dir(&frames).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let expected: Vec<String> = ["objects.csv".to_string()]
        .into_iter()
        .chain([0u64, 10, 20, 25].iter().flat_map(|s| [format!("particles-{s:08}.ply"), format!("particles-{s:08}.vtu")]))
        .chain(["particles.pvd".to_string()])
        .collect();
    assert_eq!(names, expected);

    let sets: Vec<(f64, String)> = datasets(&frames.join("particles.pvd")).into_iter().map(|(t, f)| (t.parse().unwrap(), f)).collect();
    let dt = 4e-4;
    assert_eq!(sets.len(), 4);
    for ((t, file), step) in sets.iter().zip([0u64, 10, 20, 25]) {
        assert!((t - step as f64 * dt).abs() < 1e-9, "{t} for step {step}");
        assert_eq!(file, &format!("particles-{step:08}.vtu"));
    }
    // fluid only without --export-boundary: the small drop's 664
    let (points, arrays) = read_vtu(&frames.join("particles-00000025.vtu"));
    assert_eq!(points.len(), 3 * 664);
    assert!(array(&arrays, "kind").cast_into::<u8>().unwrap().iter().all(|&k| k == 0));
    // the objects: two fluid entries (the pool's 600 particles first, then the drop's 64),
    // the tank, and the emitters' fluid (none)
    let objects: Vec<Vec<String>> =
        std::fs::read_to_string(frames.join("objects.csv")).unwrap().lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    assert_eq!(objects[0], ["object", "kind", "entry", "first_id", "particles"]);
    assert_eq!(objects[1], ["0", "fluid", "fluid[0]", "0", "600"]);
    assert_eq!(objects[2], ["1", "fluid", "fluid[1]", "600", "64"]);
    assert_eq!(&objects[3][..3], ["2", "tank", "walls"]);
    assert_eq!(
        objects[4][1..],
        ["emitted".to_string(), "emitters".into(), (664 + objects[3][4].parse::<u32>().unwrap()).to_string(), "0".into()]
    );
    let object = array(&arrays, "object").cast_into::<u32>().unwrap();
    assert_eq!((object.iter().filter(|&&o| o == 0).count(), object.iter().filter(|&&o| o == 1).count()), (600, 64));
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(meta["export"]["frames"], 4);
    assert!(meta["export"]["bytes"].as_u64().unwrap() > 4 * 664 * 41);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The positions and objects of a binary PLY frame, read by ply-rs.
fn read_ply(path: &Path) -> Vec<([f32; 3], u32, u32)> {
    use ply_rs::ply::Property;
    let parser = ply_rs::parser::Parser::<ply_rs::ply::DefaultElement>::new();
    let ply = parser.read_ply(&mut std::io::BufReader::new(std::fs::File::open(path).unwrap())).expect("ply-rs reads it");
    let float = |e: &ply_rs::ply::DefaultElement, k: &str| match e[k] {
        Property::Float(v) => v,
        ref other => panic!("{k}: {other:?}"),
    };
    let uint = |e: &ply_rs::ply::DefaultElement, k: &str| match e[k] {
        Property::UInt(v) => v,
        ref other => panic!("{k}: {other:?}"),
    };
    ply.payload["vertex"]
        .iter()
        .map(|e| ([float(e, "x"), float(e, "y"), float(e, "z")], uint(e, "particle_id"), uint(e, "object")))
        .collect()
}

/// With moving solids, `particles/transforms.csv` gives each solid's rigid transform at every
/// exported frame: applied to a solid's boundary particles of one frame (their object from
/// objects.csv, read from the PLY frames), it carries them onto the same particles of a later
/// frame. The transform of step N is the solid's pose at that step's time; its boundary
/// particles stand there in frame N + 1 (solids.move places them at the start of each step).
#[test]
fn exported_transforms_carry_a_moving_solid_from_frame_to_frame() {
    let dir = folder("transforms");
    let scene = dir.join("tank.ron");
    // the moving-solids tests' tank: a sliding, rocking paddle and a cylinder on keyframes
    std::fs::write(&scene, crate::moving::TANK).unwrap();
    let out = dir.join("out");
    run_rillet(&scene, &out, &["--steps", "61", "--every", "61", "--export", "ply", "--export-every", "1", "--export-boundary"]);
    let frames = out.join("particles");
    let objects = std::fs::read_to_string(frames.join("objects.csv")).unwrap();
    let object_of_solid = |entry: &str| -> u32 {
        objects
            .lines()
            .find(|l| l.split(',').nth(2) == Some(entry))
            .unwrap_or_else(|| panic!("no {entry}"))
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    // step, solid -> (q, t)
    let transforms = std::fs::read_to_string(frames.join("transforms.csv")).unwrap();
    let mut lines = transforms.lines();
    assert_eq!(lines.next(), Some("step,time_s,solid,qx,qy,qz,qw,tx_m,ty_m,tz_m"));
    let rows: Vec<(u64, usize, glam::DQuat, glam::DVec3)> = lines
        .map(|l| {
            let v: Vec<f64> = l.split(',').map(|x| x.parse().unwrap()).collect();
            (v[0] as u64, v[2] as usize, glam::DQuat::from_xyzw(v[3], v[4], v[5], v[6]), glam::DVec3::new(v[7], v[8], v[9]))
        })
        .collect();
    assert_eq!(rows.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(), (0..=61).flat_map(|s| [(s, 0), (s, 1)]).collect::<Vec<_>>());
    let at = |step: u64, solid: usize| rows.iter().find(|r| r.0 == step && r.1 == solid).map(|r| (r.2, r.3)).unwrap();
    let frame = |step: u64| read_ply(&frames.join(format!("boundary-{step:08}.ply")));
    // frame 0 is the setup's (the solids at their pose at t = 0), frame 1 the same
    let first = frame(0);
    for (step, shown) in [(0, 1), (30, 31), (60, 61)] {
        let later = frame(shown);
        for solid in 0..2 {
            let object = object_of_solid(&format!("solids[{solid}]"));
            let ((q0, t0), (q1, t1)) = (at(0, solid), at(step, solid));
            // the solid moved (the transform is not the identity between the frames)
            assert!(step == 0 || (t1 - t0).length() > 1e-3 || q1.angle_between(q0) > 1e-3, "solid {solid} did not move by step {step}");
            let mut checked = 0;
            for ((x0, id0, o0), (x1, id1, _)) in first.iter().zip(&later) {
                assert_eq!(id0, id1, "frames in id order");
                if *o0 != object {
                    continue;
                }
                let x0 = glam::Vec3::from(*x0).as_dvec3();
                let predicted = q1 * (q0.inverse() * (x0 - t0)) + t1;
                let d = (predicted - glam::Vec3::from(*x1).as_dvec3()).length();
                assert!(d < 2e-5, "solid {solid}, particle {id0}, step {step}: {d} m off");
                checked += 1;
            }
            assert!(checked > 20, "solid {solid}: {checked} particles");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--export-up z`: the same frames and transforms turned 90° about x (x, −z, y), for z-up
/// tools: the first frame's particles (the setup's, the same in both runs) and every transform
/// row of the moving solids, against the y-up export of the same scene; and a solid's boundary
/// particles of a later z-up frame are where its z-up transform carries the first frame's.
#[test]
fn the_export_turns_to_z_up_on_request() {
    let dir = folder("z-up");
    let scene = dir.join("tank.ron");
    std::fs::write(&scene, crate::moving::TANK).unwrap();
    let run = |up: &str| {
        let out = dir.join(up);
        run_rillet(
            &scene,
            &out,
            &["--steps", "10", "--every", "10", "--export", "ply", "--export-every", "5", "--export-boundary", "--export-up", up],
        );
        out.join("particles")
    };
    let (y, z) = (run("y"), run("z"));
    let turn = |x: [f32; 3]| [x[0], -x[2], x[1]];
    for file in ["particles-00000000.ply", "boundary-00000000.ply"] {
        let (a, b) = (read_ply(&y.join(file)), read_ply(&z.join(file)));
        assert_eq!(a.len(), b.len());
        for (p, q) in a.iter().zip(&b) {
            assert_eq!((turn(p.0), p.1, p.2), *q, "{file}");
        }
    }
    let rows = |d: &Path| -> Vec<Vec<f64>> {
        std::fs::read_to_string(d.join("transforms.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let (ry, rz) = (rows(&y), rows(&z));
    assert_eq!(ry.len(), rz.len());
    let a = glam::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
    for (p, q) in ry.iter().zip(&rz) {
        assert_eq!(p[..3], q[..3], "the same step, time, solid");
        // (written to 9 decimals: normalized again)
        let (qy, qz) =
            (glam::DQuat::from_xyzw(p[3], p[4], p[5], p[6]).normalize(), glam::DQuat::from_xyzw(q[3], q[4], q[5], q[6]).normalize());
        assert!((a * qy * a.inverse()).dot(qz).abs() > 1.0 - 1e-9, "rotation of {p:?} against {q:?}");
        let (ty, tz) = (glam::DVec3::new(p[7], p[8], p[9]), glam::DVec3::new(q[7], q[8], q[9]));
        assert!((a * ty - tz).length() < 1e-8, "translation {ty} against {tz}");
    }
    // the z-up transform of step 4 moves the z-up first frame's paddle onto frame 5's
    let objects = std::fs::read_to_string(z.join("objects.csv")).unwrap();
    let paddle: u32 =
        objects.lines().find(|l| l.split(',').nth(2) == Some("solids[0]")).unwrap().split(',').next().unwrap().parse().unwrap();
    let (first, later) = (read_ply(&z.join("boundary-00000000.ply")), read_ply(&z.join("boundary-00000005.ply")));
    let at = |step: f64, r: &[Vec<f64>]| r.iter().find(|x| x[0] == step && x[2] == 0.0).cloned().unwrap();
    let (r0, r4) = (at(0.0, &rz), at(5.0, &rz));
    let pose = |r: &[f64]| (glam::DQuat::from_xyzw(r[3], r[4], r[5], r[6]).normalize(), glam::DVec3::new(r[7], r[8], r[9]));
    let ((q0, t0), (q1, t1)) = (pose(&r0), pose(&r4));
    // frame N + 1's boundary stands at the pose of step N; the transforms are written at the
    // frames' steps, so frame 5 is checked against the pose of step 5 with one step's slack
    let mut worst = 0.0f64;
    for (p0, p1) in first.iter().zip(&later).filter(|(p, _)| p.2 == paddle) {
        let x0 = glam::Vec3::from(p0.0).as_dvec3();
        let predicted = q1 * (q0.inverse() * (x0 - t0)) + t1;
        worst = worst.max((predicted - glam::Vec3::from(p1.0).as_dvec3()).length());
    }
    assert!(worst < 2e-3, "the paddle's particles are {worst} m from where the z-up transform puts them");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--export surface`: a surface mesh of the fluid per frame (splashsurf's reconstruction), read
/// back by tobj: closed (every edge in exactly two triangles, each way once: consistently
/// oriented), its volume (divergence theorem) within 5 % of the fluid particles' (664 · s³ of the
/// small drop's pool and drop), two pieces at the start (the pool and the drop above it).
#[test]
fn rillet_run_exports_a_closed_surface_of_the_fluid() {
    let dir = folder("surface");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    run_rillet(&scene, &out, &["--steps", "20", "--every", "20", "--export", "surface,ply", "--export-every", "20", "--export-boundary"]);
    let frames = out.join("particles");
    for step in [0, 20] {
        let path = frames.join(format!("surface-{step:08}.obj"));
        let (models, _) = tobj::load_obj(&path, &tobj::LoadOptions { single_index: true, triangulate: true, ..Default::default() })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(models.len(), 1, "one mesh");
        let mesh = &models[0].mesh;
        let v = |i: u32| glam::DVec3::from_array([0, 1, 2].map(|a| mesh.positions[3 * i as usize + a] as f64));
        let mut edges = std::collections::HashMap::new();
        let mut volume = 0.0;
        for t in mesh.indices.chunks_exact(3) {
            for k in 0..3 {
                *edges.entry((t[k], t[(k + 1) % 3])).or_insert(0u32) += 1;
            }
            volume += v(t[0]).dot(v(t[1]).cross(v(t[2]))) / 6.0;
        }
        assert!(mesh.indices.len() > 3 * 100, "step {step}: {} triangles", mesh.indices.len() / 3);
        let open = edges.iter().filter(|&(&(a, b), &n)| n != 1 || edges.get(&(b, a)) != Some(&1)).count();
        assert_eq!(open, 0, "step {step}: edges not shared by exactly two triangles, one each way");
        let particles = 664.0 * 0.02f64.powi(3);
        assert!((volume / particles - 1.0).abs() < 0.05, "step {step}: the surface holds {volume} m³, the particles {particles} m³");
        // nothing of the walls: the mesh stays inside the tank, away from its faces
        let lowest = mesh.positions.chunks_exact(3).map(|p| p[1]).fold(f32::INFINITY, f32::min);
        assert!(lowest > -0.02, "step {step}: the surface reaches {lowest} m, below the floor");
    }
    // the PLY frames are written beside it, as before
    assert!(frames.join("particles-00000020.ply").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
