//! The fluid entries of a scene as particle index ranges of its initial state, and initial
//! velocities given per entry (`rillet run --velocity`, the validation's blobs).

use super::Scene;
use crate::sim::InitialState;
use anyhow::Context;

/// Index ranges of the fluid particles of each fluid entry (fluid is created entry by entry).
pub(crate) fn block_ranges(scene: &Scene) -> Vec<std::ops::Range<usize>> {
    let s = scene.physics.spacing;
    let mut start = 0;
    (0..scene.fluid.len())
        .map(|i| {
            let n: usize = match scene.fluid[i].block() {
                Some(b) => (0..3).map(|a| super::lattice::lattice_count(b.min[a], b.max[a], s) as usize).product(),
                None => scene.mesh_fluid(i).len(),
            };
            start += n;
            start - n..start
        })
        .collect()
}

/// Sets the initial velocity of whole fluid blocks, held to the range a scene's `velocity` has
/// (below half the speed of sound).
pub(crate) fn set_block_velocities(scene: &Scene, state: &mut InitialState, velocities: &[(usize, [f32; 3])]) -> anyhow::Result<()> {
    let ranges = block_ranges(scene);
    let (c, _) = super::setup::resolve_pressure(scene);
    for &(block, v) in velocities {
        let range = ranges
            .get(block)
            .with_context(|| format!("--velocity {block}:…: the scene has {} fluid blocks (0..{})", ranges.len(), ranges.len()))?;
        let speed = glam::Vec3::from(v).as_dvec3().length();
        anyhow::ensure!(
            speed < 0.5 * c as f64,
            "--velocity {block}:{}: speed {} m/s out of range: allowed below half the speed of sound, {:.4} m/s (c = {c:.4} m/s), as a scene's fluid velocity",
            v.map(|x| if x.abs() < 1e6 { x.to_string() } else { format!("{x:e}") }).join(","),
            if speed < 1e6 { format!("{speed:.4}") } else { format!("{speed:.3e}") },
            0.5 * c
        );
        for i in range.clone() {
            state.vel_rho[i][..3].copy_from_slice(&v);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_ranges_follow_the_lattice() {
        let scene = Scene::default_scene();
        let r = block_ranges(&scene);
        assert_eq!(r, vec![0..22_500]);
    }
}
