//! The walls' normals, for the approach viscosity of sph.force (docs/PHYSICS.md, "Walls").
//!
//! For every boundary particle b, the unit line of `Σ_b' ψ_b' ∇W(x_b − x_b')` over the boundary
//! particles within h: perpendicular to a face of the tank, or to a solid's shell, whatever the
//! shape (no geometry is needed). Its sign is chosen where it is used, towards the fluid
//! particle it acts on. The walls never move, so the normals are computed once, on the CPU, from
//! the initial state, and kept by particle id; the CPU twin uses the same ones.

use glam::DVec3;

/// Calls `f(i, k)` for every point `i` and every point `k` of the 27 cells of side `h` around it
/// (`i` itself included, in a fixed order): every pair closer than `h` among them. A hash grid,
/// so O(n) for points at a spacing; the caller tests the distance.
pub(crate) fn for_each_candidate(x: &[DVec3], h: f64, mut f: impl FnMut(usize, usize)) {
    let points: Vec<[f64; 3]> = x.iter().map(|p| p.to_array()).collect();
    let cells = crate::cells::CellGrid::new(&points, h);
    for (i, p) in points.iter().enumerate() {
        let [cx, cy, cz] = cells.key(*p);
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    for &k in cells.members([cx + dx, cy + dy, cz + dz]) {
                        f(i, k as usize);
                    }
                }
            }
        }
    }
}

/// Below this fraction of the sum of its terms' lengths, a wall particle's normal sum is a balance.
const BALANCED: f64 = 1e-3;

/// `vec4(n, 0)` for every particle of `pos_mass` (by index = id): the unit normal line of a
/// boundary particle, zero for fluid, free slots and a boundary particle whose neighbours
/// balance (deep inside a wall thicker than 2h).
pub(crate) fn wall_normals(pos_mass: &[[f32; 4]], h: f32) -> Vec<[f32; 4]> {
    let h = h as f64;
    let walls: Vec<usize> = (0..pos_mass.len()).filter(|&i| pos_mass[i][3] < 0.0).collect();
    let x: Vec<DVec3> = walls.iter().map(|&i| DVec3::new(pos_mass[i][0] as f64, pos_mass[i][1] as f64, pos_mass[i][2] as f64)).collect();
    let mut sum = vec![DVec3::ZERO; walls.len()];
    // Σ of the terms' lengths: what the sum is measured against
    let mut scale = vec![0.0f64; walls.len()];
    // ∇W(r) up to a positive factor: (dW/dr)/r · x, dW/dr ∝ 3q² − 2q (q ≤ ½), −(1 − q)²
    for_each_candidate(&x, h, |a, b| {
        let d = x[a] - x[b];
        let r = d.length();
        if a == b || r >= h {
            return;
        }
        let q = r / h;
        let dw = if q <= 0.5 { 3.0 * q * q - 2.0 * q } else { -(1.0 - q) * (1.0 - q) };
        let term = d * (-(pos_mass[walls[b]][3] as f64) * dw / r.max(1e-12 * h));
        sum[a] += term;
        scale[a] += term.length();
    });
    let mut out = vec![[0.0f32; 4]; pos_mass.len()];
    // A balance has no direction: a sum within BALANCED of its terms' lengths is the rounding of
    // f32 positions (a middle layer of a wall three or more layers thick gives 1e-5 of them), and
    // its direction is noise.
    for (a, &i) in walls.iter().enumerate() {
        if sum[a].length() > BALANCED * scale[a] {
            let n = sum[a].normalize();
            out[i] = [n.x as f32, n.y as f32, n.z as f32, 0.0];
        }
    }
    out
}

/// [`wall_normals`] of a state whose moving solids stand at rest (their rest positions in place
/// of the positions `pos_mass` has them at): the normals solids.move turns with them.
pub(crate) fn rest_normals(pos_mass: &[[f32; 4]], k: &super::motion::Kinematics, h: f32) -> Vec<[f32; 4]> {
    let mut at_rest = pos_mass.to_vec();
    for (id, p) in at_rest.iter_mut().enumerate() {
        if k.body_of[id] != 0 {
            p[..3].copy_from_slice(&k.rest[id]);
        }
    }
    wall_normals(&at_rest, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A floor of two layers at a spacing: away from its edges every normal is vertical (the
    /// sign is chosen where a normal is used), fluid has none, and the candidates hold every
    /// pair within h.
    #[test]
    fn a_flat_wall_has_vertical_normals() {
        let s = 0.01f32;
        let mut pos = vec![[0.5, 0.5, 0.5, 1.0]];
        for layer in 0..2 {
            for i in 0..12 {
                for k in 0..12 {
                    pos.push([i as f32 * s, -(0.5 + layer as f32) * s, k as f32 * s, -1.0]);
                }
            }
        }
        let n = wall_normals(&pos, 2.0 * s);
        assert_eq!(n[0], [0.0; 4], "fluid has none");
        // away from the floor's edges (within h of them the line tilts)
        for (i, p) in pos.iter().enumerate().skip(1) {
            if (0.025..0.085).contains(&p[0]) && (0.025..0.085).contains(&p[2]) {
                assert!(n[i][1].abs() > 0.999, "particle {i} at {p:?}: {:?}", n[i]);
            }
        }
        // every pair within h is a candidate, both ways
        let x: Vec<DVec3> = pos.iter().map(|p| DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)).collect();
        let mut found = std::collections::HashSet::new();
        for_each_candidate(&x, 0.02, |a, b| {
            found.insert((a, b));
        });
        for a in 0..x.len() {
            for b in 0..x.len() {
                if (x[a] - x[b]).length() < 0.02 {
                    assert!(found.contains(&(a, b)), "{a} {b}");
                }
            }
        }
    }

    /// A floor of three layers at f32 positions far from the origin, with h = 2.5 spacings: the
    /// middle layer's neighbours balance, so it has no normal (its sum is the rounding of the
    /// positions, whose direction is noise: taken for a normal it turned the approach viscosity
    /// on the water's motion along the floor), and the outer layers stay vertical.
    #[test]
    fn a_balanced_layer_has_no_normal() {
        let s = 0.01f32;
        let mut pos = Vec::new();
        for layer in 0..3 {
            for i in 0..16 {
                for k in 0..16 {
                    pos.push([3.2 + i as f32 * s, 0.3 - (0.5 + layer as f32) * s, 1.7 + k as f32 * s, -1.0]);
                }
            }
        }
        let n = wall_normals(&pos, 2.5 * s);
        let inner = |p: &[f32; 4]| (3.23..3.323).contains(&p[0]) && (1.73..1.823).contains(&p[2]);
        let mut middle = 0;
        for (i, p) in pos.iter().enumerate().filter(|(_, p)| inner(p)) {
            if i / 256 == 1 {
                assert_eq!(n[i], [0.0; 4], "middle particle {i} at {p:?}");
                middle += 1;
            } else {
                assert!(n[i][1].abs() > 0.999, "outer particle {i} at {p:?}: {:?}", n[i]);
            }
        }
        assert!(middle > 50, "{middle}");
    }
}
