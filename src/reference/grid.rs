//! The grid build on the CPU (the integer-exact twin of the `grid.count`, `grid.scan` and
//! `grid.scatter` passes), the grid diagnostics, and neighbour search: the O(N²) all-pairs oracle
//! and a cell-list search that must agree with it exactly.

use crate::sim::layout::GridLayout;
use glam::Vec3;
use std::ops::Range;

/// Result of the counting sort of docs/PHYSICS.md step 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefGrid {
    /// Cell index of every particle slot: `cell_index(cell_coord(x))`, computed on the f32
    /// position with [`GridLayout`]'s own functions, so bit-identical to the GPU.
    pub cell_of: Vec<u32>,
    /// Particles per cell, `num_cells + 1` entries: the last is the cell of free slots.
    pub counts: Vec<u32>,
    /// Exclusive prefix sum of `counts`, `num_cells + 2` entries; the last is the slot count.
    pub cell_start: Vec<u32>,
    /// Particle slots in cell order; within a cell ascending (a stable sort). The GPU's order
    /// inside a cell is whatever order its atomics ran in, so compare per-cell *sets*.
    pub sorted: Vec<u32>,
}

impl RefGrid {
    /// Cells in the index range (`num_cells`), without the cell of free slots.
    #[cfg(test)]
    pub(crate) fn num_cells(&self) -> u32 {
        self.counts.len() as u32 - 1
    }

    /// Positions in [`Self::sorted`] of the particles of `cell`:
    /// `cell_start[cell]..cell_start[cell + 1]`.
    pub fn cell_slots(&self, cell: u32) -> Range<u32> {
        self.cell_start[cell as usize]..self.cell_start[cell as usize + 1]
    }

    /// Particle slots of `cell`, ascending.
    pub fn cell_particles(&self, cell: u32) -> &[u32] {
        let r = self.cell_slots(cell);
        &self.sorted[r.start as usize..r.end as usize]
    }
}

/// Counting sort of `positions` (particle slots in buffer order) into the cells of `layout`.
pub fn build_grid(layout: &GridLayout, positions: &[Vec3]) -> RefGrid {
    build_grid_with_free(layout, positions, |_| false)
}

/// [`build_grid`] where the slots `free(slot)` holds no particle (`w = 0`): they go to the
/// cell `num_cells`, after every cell of the grid.
pub fn build_grid_with_free(layout: &GridLayout, positions: &[Vec3], free: impl Fn(usize) -> bool) -> RefGrid {
    let num_cells = layout.num_cells as usize + 1;
    let cell_of: Vec<u32> = positions
        .iter()
        .enumerate()
        .map(|(i, &p)| if free(i) { layout.num_cells } else { layout.cell_index(layout.cell_coord(p)) })
        .collect();
    let mut counts = vec![0u32; num_cells];
    for &c in &cell_of {
        counts[c as usize] += 1;
    }
    let mut cell_start = Vec::with_capacity(num_cells + 1);
    let mut acc = 0u32;
    cell_start.push(0);
    for &n in &counts {
        acc += n;
        cell_start.push(acc);
    }
    let mut next: Vec<u32> = cell_start[..num_cells].to_vec();
    let mut sorted = vec![0u32; positions.len()];
    for (i, &c) in cell_of.iter().enumerate() {
        let slot = &mut next[c as usize];
        sorted[*slot as usize] = i as u32;
        *slot += 1;
    }
    RefGrid { cell_of, counts, cell_start, sorted }
}

/// `(max_per_cell, overflows)` from the final cell counts: `max n_c` and
/// `Σ_c max(n_c − capacity, 0)` (saturating at `u32::MAX`), what grid.scan's first level takes
/// from the counts (the free slots' cell left out by the caller).
pub fn grid_diagnostics(counts: &[u32], capacity: u32) -> (u32, u32) {
    let max = counts.iter().copied().max().unwrap_or(0);
    let overflows: u64 = counts.iter().map(|&n| n.saturating_sub(capacity) as u64).sum();
    (max, overflows.min(u32::MAX as u64) as u32)
}

/// For every particle `i`, the ascending list of `j` with `|x_i − x_j|² < h²`, `i` itself
/// included: the O(N²) all-pairs oracle. Distances are computed in f64 from the f32 positions.
pub fn all_pairs_neighbours(positions: &[Vec3], h: f64) -> Vec<Vec<u32>> {
    let p: Vec<[f64; 3]> = positions.iter().map(|p| p.as_dvec3().to_array()).collect();
    all_pairs_neighbours_f64(&p, h)
}

/// [`all_pairs_neighbours`] on f64 positions. A particle with a NaN coordinate has no
/// neighbours, not even itself (`NaN < h²` is false).
pub fn all_pairs_neighbours_f64(positions: &[[f64; 3]], h: f64) -> Vec<Vec<u32>> {
    let n = positions.len();
    let h2 = h * h;
    let (xs, ys, zs) = split(positions);
    let mut lists: Vec<Vec<u32>> = (0..n).map(|_| Vec::with_capacity(48)).collect();
    // Half the pairs: list i gets every j ≥ i when i's row runs, after every j < i was pushed by
    // the earlier rows in increasing order, so each list comes out sorted.
    for i in 0..n {
        let (xi, yi, zi) = (xs[i], ys[i], zs[i]);
        for j in i..n {
            let r2 = dist2(xi - xs[j], yi - ys[j], zi - zs[j]);
            if r2 < h2 {
                lists[i].push(j as u32);
                if j != i {
                    lists[j].push(i as u32);
                }
            }
        }
    }
    lists
}

/// The same neighbour relation as [`all_pairs_neighbours_f64`] (the same `r²` expression, so the
/// same pairs bit for bit) found through a dense cell list of cell size slightly above `h`.
/// Only particles with `query(i)` get their list; the others get an empty one. Falls back to the
/// all-pairs search when a coordinate is not finite or the cell grid would be far larger than
/// the particle count.
pub fn cell_list_neighbours(positions: &[[f64; 3]], h: f64, query: impl Fn(usize) -> bool) -> Vec<Vec<u32>> {
    let n = positions.len();
    let h2 = h * h;
    let fallback = |positions: &[[f64; 3]]| {
        let mut lists = all_pairs_neighbours_f64(positions, h);
        for (i, l) in lists.iter_mut().enumerate() {
            if !query(i) {
                *l = Vec::new();
            }
        }
        lists
    };
    if n == 0 {
        return Vec::new();
    }
    // cells a hair larger than h: |Δx| < h then never spans more than one cell boundary even
    // after the rounding of the division
    let cs = h * (1.0 + 1e-6);
    let all_finite = positions.iter().all(|p| p.iter().all(|c| c.is_finite()));
    if !(cs.is_finite() && cs > 0.0 && all_finite) {
        return fallback(positions);
    }
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for p in positions {
        for a in 0..3 {
            lo[a] = lo[a].min(p[a]);
            hi[a] = hi[a].max(p[a]);
        }
    }
    let ext = [0, 1, 2].map(|a| ((hi[a] - lo[a]) / cs).floor());
    let cells_f = ext.iter().map(|e| e + 1.0).product::<f64>();
    // (finite here: finite positions, cs > 0)
    if cells_f > (16 * n + 4096) as f64 {
        return fallback(positions);
    }
    let dims = ext.map(|e| e as usize + 1);
    let coord = |p: &[f64; 3]| [0, 1, 2].map(|a| (((p[a] - lo[a]) / cs).floor() as usize).min(dims[a] - 1));
    let lin = |c: [usize; 3]| c[0] + dims[0] * (c[1] + dims[1] * c[2]);

    let num_cells = dims[0] * dims[1] * dims[2];
    let coords: Vec<[usize; 3]> = positions.iter().map(coord).collect();
    let mut start = vec![0u32; num_cells + 1];
    for c in &coords {
        start[lin(*c) + 1] += 1;
    }
    for k in 0..num_cells {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    let mut sorted = vec![0u32; n];
    for (i, c) in coords.iter().enumerate() {
        let s = &mut next[lin(*c)];
        sorted[*s as usize] = i as u32;
        *s += 1;
    }
    // positions in cell order, so the inner loop streams through memory
    let (xs, ys, zs) = split(positions);
    let sx: Vec<f64> = sorted.iter().map(|&j| xs[j as usize]).collect();
    let sy: Vec<f64> = sorted.iter().map(|&j| ys[j as usize]).collect();
    let sz: Vec<f64> = sorted.iter().map(|&j| zs[j as usize]).collect();

    let mut lists: Vec<Vec<u32>> = Vec::with_capacity(n);
    for (i, c) in coords.iter().enumerate() {
        if !query(i) {
            lists.push(Vec::new());
            continue;
        }
        let mut list = Vec::with_capacity(48);
        let (xi, yi, zi) = (xs[i], ys[i], zs[i]);
        let x0 = c[0].saturating_sub(1);
        let x1 = (c[0] + 1).min(dims[0] - 1);
        for z in c[2].saturating_sub(1)..=(c[2] + 1).min(dims[2] - 1) {
            for y in c[1].saturating_sub(1)..=(c[1] + 1).min(dims[1] - 1) {
                // the cells x0..=x1 of this row are contiguous in the linear order
                let a = start[lin([x0, y, z])] as usize;
                let b = start[lin([x1, y, z]) + 1] as usize;
                for k in a..b {
                    if dist2(xi - sx[k], yi - sy[k], zi - sz[k]) < h2 {
                        list.push(sorted[k]);
                    }
                }
            }
        }
        list.sort_unstable();
        lists.push(list);
    }
    lists
}

#[inline(always)]
fn dist2(dx: f64, dy: f64, dz: f64) -> f64 {
    dx * dx + dy * dy + dz * dz
}

fn split(p: &[[f64; 3]]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    (p.iter().map(|p| p[0]).collect(), p.iter().map(|p| p[1]).collect(), p.iter().map(|p| p[2]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::layout::CellOrder;

    /// Small deterministic generator for test positions (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next_f64(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn random_positions(n: usize, lo: f32, hi: f32, seed: u64) -> Vec<Vec3> {
        let mut rng = Rng(seed);
        let mut f = || lo + (hi - lo) * rng.next_f64() as f32;
        (0..n).map(|_| Vec3::new(f(), f(), f())).collect()
    }

    fn check_grid(layout: &GridLayout, positions: &[Vec3]) {
        let g = build_grid(layout, positions);
        let n = positions.len();
        assert_eq!(g.counts.len(), layout.num_cells as usize + 1);
        assert_eq!(g.cell_start.len(), layout.num_cells as usize + 2);
        assert_eq!(g.counts.iter().map(|&c| c as usize).sum::<usize>(), n);
        assert_eq!(g.cell_start[0], 0);
        for c in 0..g.counts.len() {
            assert_eq!(g.cell_start[c + 1], g.cell_start[c] + g.counts[c], "exclusive scan at {c}");
        }
        assert_eq!(*g.cell_start.last().unwrap() as usize, n);
        // every particle appears once, inside the slot range of its own cell
        let mut slot_of = vec![u32::MAX; n];
        for (k, &i) in g.sorted.iter().enumerate() {
            assert_eq!(slot_of[i as usize], u32::MAX, "particle {i} sorted twice");
            slot_of[i as usize] = k as u32;
        }
        for i in 0..n {
            let c = g.cell_of[i];
            assert_eq!(c, layout.cell_index(layout.cell_coord(positions[i])));
            assert!(g.cell_slots(c).contains(&slot_of[i]), "particle {i} outside cell {c}");
        }
        for c in 0..g.num_cells() {
            let p = g.cell_particles(c);
            assert!(p.windows(2).all(|w| w[0] < w[1]), "cell {c} not ascending");
            assert!(p.iter().all(|&i| g.cell_of[i as usize] == c));
        }
    }

    #[test]
    fn counting_sort_linear_and_morton() {
        // points also outside the grid box: they are clamped into the border cells
        let positions = random_positions(3000, -0.2, 1.3, 7);
        for order in [CellOrder::Linear, CellOrder::Morton] {
            let layout = GridLayout::new(Vec3::ZERO, Vec3::new(1.0, 0.7, 1.1), 0.1, order, u64::MAX).unwrap();
            check_grid(&layout, &positions);
        }
    }

    #[test]
    fn clamped_and_handmade_cells() {
        let layout = GridLayout::new(Vec3::ZERO, Vec3::splat(2.0), 1.0, CellOrder::Linear, u64::MAX).unwrap();
        let p = [
            Vec3::new(0.5, 0.5, 0.5),
            Vec3::new(1.5, 0.5, 0.5),
            Vec3::new(-3.0, 0.2, 0.1),
            Vec3::new(9.0, 9.0, 9.0),
            Vec3::new(1.0, 1.0, 1.0),
        ];
        let g = build_grid(&layout, &p);
        assert_eq!(g.cell_of, vec![0, 1, 0, 7, 7]);
        assert_eq!(g.counts, vec![2, 1, 0, 0, 0, 0, 0, 2, 0]);
        assert_eq!(g.cell_start, vec![0, 2, 3, 3, 3, 3, 3, 3, 5, 5]);
        assert_eq!(g.sorted, vec![0, 2, 1, 3, 4]);
        assert_eq!(g.cell_slots(7), 3..5);
        assert_eq!(g.cell_particles(0), &[0, 2]);
        // free slots (1 and 3) go to the cell after the last, 8
        let g = build_grid_with_free(&layout, &p, |i| i == 1 || i == 3);
        assert_eq!(g.cell_of, vec![0, 8, 0, 8, 7]);
        assert_eq!(g.counts, vec![2, 0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(g.cell_start, vec![0, 2, 2, 2, 2, 2, 2, 2, 3, 5]);
        assert_eq!(g.sorted, vec![0, 2, 4, 1, 3]);
    }

    #[test]
    fn diagnostics_from_counts() {
        assert_eq!(grid_diagnostics(&[3, 0, 7, 5, 1], 4), (7, 3 + 1));
        assert_eq!(grid_diagnostics(&[3, 0, 4], 4), (4, 0));
        assert_eq!(grid_diagnostics(&[], 4), (0, 0));
        assert_eq!(grid_diagnostics(&[10, 10], 0), (10, 20));
    }

    #[test]
    fn all_pairs_on_a_handmade_set() {
        let p = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.5, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.99)];
        let nb = all_pairs_neighbours(&p, 1.0);
        // 0–2 at exactly h is not a neighbour (strict)
        assert_eq!(nb, vec![vec![0, 1, 3], vec![0, 1, 2], vec![1, 2], vec![0, 3]]);
    }

    #[test]
    fn cell_list_equals_all_pairs() {
        let mut p: Vec<[f64; 3]> = random_positions(4000, -0.3, 0.3, 11).iter().map(|v| v.as_dvec3().to_array()).collect();
        // pairs at exactly h and just below it, on and off the axes
        let h = 0.1;
        p.push([0.25, 0.25, 0.25]);
        p.push([0.25 + h, 0.25, 0.25]);
        p.push([0.25, 0.25 - h * (1.0 - 1e-15), 0.25]);
        p.push([0.25, 0.25, 0.25 + h * (1.0 - 1e-16)]);
        let all = all_pairs_neighbours_f64(&p, h);
        let cells = cell_list_neighbours(&p, h, |_| true);
        assert_eq!(cells, all);
        assert!(all.iter().map(Vec::len).sum::<usize>() > 10 * p.len(), "too sparse to test anything");
        let even = cell_list_neighbours(&p, h, |i| i % 2 == 0);
        for i in 0..p.len() {
            assert_eq!(even[i], if i % 2 == 0 { all[i].clone() } else { vec![] });
        }
        // a NaN particle has no neighbours and is nobody's neighbour; the fallback agrees
        p[5] = [f64::NAN, 0.0, 0.0];
        let all = all_pairs_neighbours_f64(&p, h);
        assert!(all[5].is_empty() && all.iter().all(|l| !l.contains(&5)));
        assert_eq!(cell_list_neighbours(&p, h, |_| true), all);
    }
}
