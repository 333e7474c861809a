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
        assert_eq!(e["id"], Property::UInt(i as u32));
        assert_eq!(e["kind"], Property::UChar((x[3] < 0.0) as u8));
        assert_eq!(e["object"], Property::UInt(expected_object(i)));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rillet_run_exports_a_series_paraview_opens_as_one() {
    let dir = folder("run");
    let out = dir.join("out");
    let scene = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/small_drop.ron");
    let o = Command::new(env!("CARGO_BIN_EXE_rillet"))
        .arg("run")
        .arg(&scene)
        .args(["--steps", "25", "--every", "25", "--export", "vtk,ply", "--export-every", "10", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
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

    let pvd = std::fs::read_to_string(frames.join("particles.pvd")).unwrap();
    let doc = roxmltree::Document::parse(&pvd).expect("the collection is XML");
    let sets: Vec<(f64, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("DataSet"))
        .map(|n| (n.attribute("timestep").unwrap().parse().unwrap(), n.attribute("file").unwrap().to_string()))
        .collect();
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
    assert!(meta["export"]["bytes"].as_u64().unwrap() > 4 * 664 * 37);
    let _ = std::fs::remove_dir_all(&dir);
}
