// The neighbour loop, shared by sph.density, sph.force and the neighbour probe. Each of them
// defines `struct Acc` (what it accumulates, plus the particle's own data) and
// `fn visit(acc: ptr<function, Acc>, j: u32)`; WGSL resolves those names at module scope.
//
// #import common

@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<u32>;

// The search range in cells of a walk that lists within (1 + skin) h: ceil((1 + skin) h / cell
// size), at least 1 (as `GridLayout::search_range` computes the one for h in
// params.search_range).
fn skin_range(skin: f32) -> i32 {
    return max(i32(ceil(params.h * (1.0 + skin) * params.inv_cell_size)), 1);
}

// true on steps without a reorder: slots in a cell range are read through `sorted`.
override USE_SORTED: bool = false;
// true for linear cell order: the cells of a row along x are contiguous, so one range covers
// the whole row (2r+1 cells) instead of one range per cell.
override ROWS: bool = false;

// Slot of the k-th particle in cell order: k itself after a reorder, `sorted[k]` otherwise.
// Invocation t works on the t-th particle in cell order, so neighbouring invocations handle
// neighbouring particles (coherent loops) with or without a reorder.
fn slot_of(k: u32) -> u32 {
    if USE_SORTED {
        return sorted[k];
    }
    return k;
}

// Slot range of `cells` consecutive cell indices starting at cell (cx, y, z) (inside the grid).
// With ROWS (linear order) the cell index is computed, x + (y + z gy) gx, instead of read
// from the order tables: the row's two `cell_start` loads then wait on nothing but arithmetic.
fn span_range(cx: i32, y: i32, z: i32, cells: u32) -> vec2<u32> {
    var first: u32;
    if ROWS {
        let g = params.grid_dims;
        first = u32(cx) + (u32(y) + u32(z) * g.y) * g.x;
    } else {
        first = cell_part_z(u32(z)) + cell_part_y(u32(y)) + cell_part_x(u32(cx));
    }
    return vec2<u32>(cell_start[first], cell_start[first + cells]);
}

// Visits every particle in the (2r+1)^3 cells around `x` (clipped to the grid, never clamped:
// a clamped coordinate would visit a border cell twice). The cells are taken as spans: whole
// rows along x with ROWS (linear order: a row's cells have consecutive indices), single cells
// otherwise. The next span's range is loaded before the current span is visited, so its two
// `cell_start` loads are in flight while the candidates are tested.
fn neighbour_loop(x: vec3<f32>, acc: ptr<function, Acc>) {
    neighbour_loop_within(x, acc, i32(params.search_range));
}

// The cells up to `r` cells away: a search range for a radius other than h (a build of the
// neighbour lists with a skin, src/sim/keep.rs: `skin_range`).
fn neighbour_loop_within(x: vec3<f32>, acc: ptr<function, Acc>, r: i32) {
    let g = vec3<i32>(params.grid_dims) - vec3<i32>(1);
    let c = clamp(cell_coord(x), vec3<i32>(0), g);
    let lo = max(c - vec3<i32>(r), vec3<i32>(0));
    let hi = min(c + vec3<i32>(r), g);
    let span_cells = select(1u, u32(hi.x - lo.x + 1), ROWS);
    var cx = lo.x;
    var y = lo.y;
    var z = lo.z;
    var next = span_range(cx, y, z, span_cells);
    loop {
        let cur = next;
        var more = true;
        cx = select(cx + 1, hi.x + 1, ROWS);
        if cx > hi.x {
            cx = lo.x;
            y += 1;
            if y > hi.y {
                y = lo.y;
                z += 1;
                more = z <= hi.z;
            }
        }
        if more {
            next = span_range(cx, y, z, span_cells);
        }
        for (var k = cur.x; k < cur.y; k++) {
            visit(acc, slot_of(k));
        }
        if !more {
            break;
        }
    }
}
