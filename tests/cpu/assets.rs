//! The meshes under `assets/` are made by this file, from the same shape functions the tests use
//! (`rillet::scene::geometry`): a test fails when a committed asset differs from what the code
//! makes, and `RILLET_WRITE_ASSETS=1 cargo test --release --test cpu assets::` writes them anew.

use glam::DVec3;
use rillet::scene::geometry::{TriMesh, revolve, to_obj, uv_sphere};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A bowl: a hemispherical shell of outer radius 0.25 m and 0.05 m walls (0.04 m at the bottom),
/// standing on a flat foot (its lowest 0.01 m cut flat), rim at y = 0.24 m; the origin at the
/// bottom centre.
pub fn bowl() -> TriMesh {
    let (outer, wall, steps) = (0.25f64, 0.05f64, 24);
    let inner = outer - wall;
    let foot = 0.01;
    // the profile from the bottom centre, out along the foot, up the outside, over the rim and
    // down the inside to the inner bottom (anticlockwise in the (r, y) plane: outward faces)
    let mut profile = vec![(0.0, 0.0)];
    let foot_angle = ((outer - foot) / outer).acos();
    for k in 0..=steps {
        let a = foot_angle + (std::f64::consts::FRAC_PI_2 - foot_angle) * k as f64 / steps as f64;
        profile.push((outer * a.sin(), outer - outer * a.cos() - foot));
    }
    for k in (0..=steps).rev() {
        let a = std::f64::consts::FRAC_PI_2 * k as f64 / steps as f64;
        let (r, y) = (inner * a.sin(), outer - inner * a.cos() - foot);
        if k == 0 {
            profile.push((0.0, y));
        } else {
            profile.push((r, y));
        }
    }
    revolve(&profile, 64)
}

/// A ball of radius 0.1 m about the origin.
pub fn ball() -> TriMesh {
    uv_sphere(0.1, 24, 48)
}

fn stl_bytes(mesh: &TriMesh) -> Vec<u8> {
    let triangles: Vec<stl_io::Triangle> = mesh
        .triangles
        .iter()
        .map(|t| {
            let v = t.map(|i| mesh.vertices[i as usize]);
            let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize_or_zero();
            let f = |p: DVec3| stl_io::Vector::new([p.x as f32, p.y as f32, p.z as f32]);
            stl_io::Triangle { normal: f(n), vertices: v.map(f) }
        })
        .collect();
    let mut out = Vec::new();
    stl_io::write_stl(&mut std::io::Cursor::new(&mut out), triangles.iter()).unwrap();
    out
}

fn check(name: &str, bytes: Vec<u8>) {
    let path = root().join("assets").join(name);
    if std::env::var_os("RILLET_WRITE_ASSETS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e} (RILLET_WRITE_ASSETS=1 writes it)", path.display()));
    assert!(committed == bytes, "{} differs from what tests/assets.rs makes (RILLET_WRITE_ASSETS=1 writes it)", path.display());
}

#[test]
fn the_assets_are_what_this_file_makes() {
    let b = bowl();
    b.check_closed().unwrap();
    assert!(b.volume() > 0.0, "the bowl faces outward");
    check("bowl.obj", to_obj(&b, "A bowl: outer radius 0.25 m, walls 0.05 m, a flat foot; made by tests/assets.rs").into_bytes());
    let ball = ball();
    ball.check_closed().unwrap();
    check("ball.stl", stl_bytes(&ball));
    // and they read back as they were made
    let read = TriMesh::load(&root().join("assets/bowl.obj")).unwrap();
    assert_eq!(read.triangles.len(), b.triangles.len());
    read.check_closed().unwrap();
    let read = TriMesh::load(&root().join("assets/ball.stl")).unwrap();
    read.check_closed().unwrap();
    assert!((read.volume() - ball.volume()).abs() < 1e-6 * ball.volume().max(1.0) + 1e-7);
}
