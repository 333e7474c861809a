//! The particle lattice of a scene: how many sites fit a block or the walls, counted without
//! building anything (the validator's particle count and the setup share these).

use super::schema::Scene;
use glam::Vec3;

/// Number of lattice points of spacing `s` that fit in `[lo, hi]` along one axis.
pub fn lattice_count(lo: f32, hi: f32, s: f32) -> u32 {
    (((hi - lo) / s) as f64 + 1e-4).floor().max(0.0) as u32
}

/// Particle counts of a scene without building it: (fluid, boundary). Exact for boxes of fluid
/// and the tank's walls, and for meshes of fluid and solids once they are sampled (a loaded
/// scene's are); before that they count the lattice points of their bounding boxes (an upper
/// bound).
pub fn count_particles(scene: &Scene) -> (u64, u64) {
    let s = scene.physics.spacing;
    let bound = |(lo, hi): (glam::DVec3, glam::DVec3)| (0..3).map(|a| lattice_count(lo[a] as f32, hi[a] as f32, s) as u64 + 1).product::<u64>();
    let fluid = (0..scene.fluid.len())
        .map(|i| match (scene.fluid[i].block(), scene.meshes.fills.get(i).and_then(|f| f.as_ref())) {
            (Some(b), _) => (0..3).map(|a| lattice_count(b.min[a], b.max[a], s) as u64).product::<u64>(),
            (None, Some(points)) => points.len() as u64,
            (None, None) => bound(scene.fluid_shape(i).bounds()),
        })
        .sum();
    let solids: u64 = (0..scene.solids.len())
        .map(|i| match scene.meshes.shells.get(i) {
            Some(shell) => shell.len() as u64,
            None => bound(scene.solid_shape(i).bounds()),
        })
        .sum();
    let (lo, hi, _) = wall_box(scene);
    let n = |a: usize| lattice_count(lo[a], hi[a], s) as u64;
    let inner = |a: usize| lattice_count(scene.domain.min[a], scene.domain.max[a], s) as u64;
    let outer_total = n(0) * n(1) * n(2);
    let inner_total = inner(0) * inner(1) * inner(2);
    (fluid, outer_total - inner_total + solids)
}

/// The box of wall particle centres' lattice: the domain grown by the wall thickness.
pub fn wall_box(scene: &Scene) -> (Vec3, Vec3, f32) {
    let s = scene.physics.spacing;
    let t = scene.walls.layers as f32 * s;
    (Vec3::from(scene.domain.min) - Vec3::splat(t), Vec3::from(scene.domain.max) + Vec3::splat(t), t)
}
