//! The particle lattice of a scene: how many sites fit a block or the walls, counted without
//! building anything (the validator's particle count and the setup share these).

use super::schema::Scene;
use glam::Vec3;

/// Number of lattice points of spacing `s` that fit in `[lo, hi]` along one axis.
pub(crate) fn lattice_count(lo: f32, hi: f32, s: f32) -> u32 {
    (((hi - lo) / s) as f64 + 1e-4).floor().max(0.0) as u32
}

/// Particle counts of a scene without building it: (fluid, boundary). Exact for boxes of fluid
/// and the tank's walls, and for meshes of fluid and solids once they are sampled (a loaded
/// scene's are); before that they count the lattice points of their bounding boxes (an upper
/// bound).
pub fn count_particles(scene: &Scene) -> (u64, u64) {
    let s = scene.physics.spacing;
    let bound =
        |(lo, hi): (glam::DVec3, glam::DVec3)| (0..3).map(|a| lattice_count(lo[a] as f32, hi[a] as f32, s) as u64 + 1).product::<u64>();
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
    // the wall lattice axis by axis, with the setup's own f32 arithmetic: a point is a wall
    // point when it is kept along every axis (not beyond an open face) and not inside the
    // domain along every axis
    let (lo, _, _) = wall_box(scene);
    let (mut kept, mut inner) = (1u64, 1u64);
    for a in 0..3 {
        let (k, i) = wall_axis(scene, lo[a], a).fold((0u64, 0u64), |(k, i), (keep, inside)| (k + keep as u64, i + inside as u64));
        kept *= k;
        inner *= i;
    }
    (fluid, kept - inner + solids)
}

/// Along axis `a`, each point of the wall lattice starting at `lo`: (kept: not beyond an open
/// face, inside: strictly inside the domain). The setup's walls are the points kept along every
/// axis and not inside along every axis.
pub(crate) fn wall_axis(scene: &Scene, lo: f32, a: usize) -> impl Iterator<Item = (bool, bool)> + '_ {
    let s = scene.physics.spacing;
    let (_, hi, _) = wall_box(scene);
    let n = lattice_count(lo, hi[a], s);
    let (dmin, dmax) = (scene.domain.min[a], scene.domain.max[a]);
    let open = scene.open_face_bits();
    let (open_lo, open_hi) =
        (open & crate::sim::params::open_face_bit(a, false) != 0, open & crate::sim::params::open_face_bit(a, true) != 0);
    (0..n).map(move |i| {
        let x = lo + (i as f32 + 0.5) * s;
        let beyond = (open_lo && x < dmin) || (open_hi && x > dmax);
        (!beyond, x > dmin && x < dmax)
    })
}

/// Fluid slots of a scene: its `fluid_capacity`, or the fluid entries' `fluid` particles and
/// everything the emitters create.
pub(crate) fn fluid_slots(scene: &Scene, fluid: u64) -> u64 {
    scene.fluid_capacity.unwrap_or_else(|| fluid + scene.emitted_total().unwrap_or(0))
}

/// The box of wall particle centres' lattice: the domain grown by the wall thickness.
pub(crate) fn wall_box(scene: &Scene) -> (Vec3, Vec3, f32) {
    let s = scene.physics.spacing;
    let t = scene.walls.layers as f32 * s;
    (Vec3::from(scene.domain.min) - Vec3::splat(t), Vec3::from(scene.domain.max) + Vec3::splat(t), t)
}
