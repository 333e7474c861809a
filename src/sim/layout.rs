//! Grid geometry shared by the GPU passes and the CPU twin: which cell a position falls in and
//! where that cell sits in the cell order (linear or Morton).
//!
//! Both orders are *separable*: the index of cell `(x, y, z)` is `lut[x] + lut[gx + y] +
//! lut[gx + gy + z]`. For linear order the three tables hold `x`, `y·gx` and `z·gx·gy`; for Morton
//! order they hold the bits of each coordinate spread to that axis's interleaved positions, so the
//! sum is a bitwise OR. `cell_index` in `shaders/common.wgsl` is the same three loads; the range
//! guard (clamp into the grid) lives inside it and nowhere else.

use glam::{IVec3, UVec3, Vec3};

/// Order in which cells (and, after a reorder, particles) are laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[value(rename_all = "lower")]
pub enum CellOrder {
    /// `x + y·gx + z·gx·gy`: neighbour rows along x are contiguous.
    Linear,
    /// Z-order over the grid padded to a power of two per axis: the 27 neighbour cells of a cell
    /// sit close together in the index range.
    Morton,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GridLayout {
    /// World position of the corner of cell (0, 0, 0).
    pub origin: Vec3,
    pub cell_size: f32,
    /// 1 / cell_size: positions are binned by multiplying with it, on the GPU and here alike, so
    /// both assign every particle to the same cell bit for bit.
    pub inv_cell_size: f32,
    /// Cells per axis.
    pub dims: UVec3,
    pub order: CellOrder,
    /// Length of the cell index range (`counts` has this many entries, `cell_start` one more).
    /// Equals `dims.x·dims.y·dims.z` for linear order; the padded power-of-two volume for Morton.
    pub num_cells: u32,
    /// The three per-axis tables, concatenated: `gx + gy + gz` entries.
    pub lut: Vec<u32>,
}

#[derive(Debug, thiserror::Error)]
#[error("the grid would need {cells} cells ({what}); at most {max} fit the device (raise the cell size or shrink the domain)")]
pub struct GridTooLarge {
    pub cells: u64,
    pub max: u64,
    pub what: &'static str,
}

impl GridLayout {
    /// A grid covering `[lo, hi]` with cubic cells of `cell_size`. `max_cells` is the largest cell
    /// count the device can hold (from its buffer-size limits).
    pub fn new(lo: Vec3, hi: Vec3, cell_size: f32, order: CellOrder, max_cells: u64) -> Result<Self, GridTooLarge> {
        let inv_cell_size = 1.0 / cell_size;
        let ext = (hi - lo) * inv_cell_size;
        let dims = UVec3::new((ext.x.ceil() as u32).max(1), (ext.y.ceil() as u32).max(1), (ext.z.ceil() as u32).max(1));
        let linear_cells = dims.x as u64 * dims.y as u64 * dims.z as u64;
        let (num_cells, what) = match order {
            CellOrder::Linear => (linear_cells, "linear order"),
            CellOrder::Morton => {
                let p = |d: u32| d.next_power_of_two() as u64;
                (p(dims.x) * p(dims.y) * p(dims.z), "Morton order, padded to powers of two")
            }
        };
        // cell_start has num_cells + 1 entries and indices must stay below u32::MAX.
        let max = max_cells.min(u32::MAX as u64 - 2);
        if num_cells > max {
            return Err(GridTooLarge { cells: num_cells, max, what });
        }
        let lut = match order {
            CellOrder::Linear => {
                let mut lut = Vec::with_capacity((dims.x + dims.y + dims.z) as usize);
                lut.extend(0..dims.x);
                lut.extend((0..dims.y).map(|y| y * dims.x));
                lut.extend((0..dims.z).map(|z| z * dims.x * dims.y));
                lut
            }
            CellOrder::Morton => morton_lut(dims),
        };
        Ok(Self { origin: lo, cell_size, inv_cell_size, dims, order, num_cells: num_cells as u32, lut })
    }

    /// Cell coordinate of a position, not yet clamped (may lie outside the grid).
    pub fn cell_coord(&self, p: Vec3) -> IVec3 {
        ((p - self.origin) * self.inv_cell_size).floor().as_ivec3()
    }

    /// The only place a cell coordinate becomes an index: clamps into the grid, then looks up the
    /// order. Mirrors `cell_index` in `shaders/common.wgsl`.
    pub(crate) fn cell_index(&self, c: IVec3) -> u32 {
        let max = self.dims.as_ivec3() - IVec3::ONE;
        let c = c.clamp(IVec3::ZERO, max).as_uvec3();
        let (gx, gy) = (self.dims.x, self.dims.y);
        self.lut[c.x as usize] + self.lut[(gx + c.y) as usize] + self.lut[(gx + gy + c.z) as usize]
    }

    /// Search range in cells for support radius `h`: `r = ceil(h / cell_size)`.
    pub(crate) fn search_range(&self, h: f32) -> u32 {
        (h / self.cell_size).ceil().max(1.0) as u32
    }
}

/// Morton tables for a grid padded to `next_power_of_two` per axis. Bits are interleaved x, y, z
/// while an axis still has bits; once the shorter axes run out the longer ones continue alone,
/// so the index range is exactly the padded volume (no 2^(3·maxbits) blow-up for flat domains).
fn morton_lut(dims: UVec3) -> Vec<u32> {
    let bits = [dims.x, dims.y, dims.z].map(|d| d.next_power_of_two().trailing_zeros());
    let max_bits = bits.into_iter().max().unwrap_or(0);
    // position of bit b of axis a in the index
    let mut place = [[0u32; 32]; 3];
    let mut next = 0;
    for b in 0..max_bits {
        for a in 0..3 {
            if b < bits[a] {
                place[a][b as usize] = next;
                next += 1;
            }
        }
    }
    let mut lut = Vec::with_capacity((dims.x + dims.y + dims.z) as usize);
    for (a, d) in [dims.x, dims.y, dims.z].into_iter().enumerate() {
        for v in 0..d {
            let mut code = 0u32;
            for b in 0..bits[a] {
                code |= ((v >> b) & 1) << place[a][b as usize];
            }
            lut.push(code);
        }
    }
    lut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_is_a_bijection_onto_the_padded_volume() {
        let g = GridLayout::new(Vec3::ZERO, Vec3::new(5.0, 3.0, 9.0), 1.0, CellOrder::Morton, u64::MAX).unwrap();
        assert_eq!(g.num_cells, 8 * 4 * 16);
        let mut seen = vec![false; g.num_cells as usize];
        for z in 0..9 {
            for y in 0..3 {
                for x in 0..5 {
                    let i = g.cell_index(IVec3::new(x, y, z)) as usize;
                    assert!(!seen[i], "index {i} used twice");
                    seen[i] = true;
                }
            }
        }
        // the first 8 cells of a 2x2x2 block are consecutive
        let block: Vec<u32> = (0..8).map(|k| g.cell_index(IVec3::new(k & 1, (k >> 1) & 1, (k >> 2) & 1))).collect();
        assert_eq!(block, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn linear_order_and_clamp() {
        let g = GridLayout::new(Vec3::ZERO, Vec3::new(4.0, 3.0, 2.0), 1.0, CellOrder::Linear, u64::MAX).unwrap();
        assert_eq!(g.num_cells, 24);
        assert_eq!(g.cell_index(IVec3::new(1, 2, 1)), 1 + 2 * 4 + 12);
        assert_eq!(g.cell_index(IVec3::new(-5, 99, 1)), g.cell_index(IVec3::new(0, 2, 1)));
    }

    #[test]
    fn too_large_is_refused_with_the_limit() {
        let e = GridLayout::new(Vec3::ZERO, Vec3::splat(100.0), 0.01, CellOrder::Linear, 1 << 20).unwrap_err();
        assert_eq!(e.max, 1 << 20);
        assert!(e.to_string().contains("cells"));
    }
}
