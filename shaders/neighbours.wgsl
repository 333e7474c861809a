// The neighbour loop, shared by sph.density, sph.force and the neighbour probe. Each of them
// defines `struct Acc` (what it accumulates, plus the particle's own data) and
// `fn visit(acc: ptr<function, Acc>, j: u32)`; WGSL resolves those names at module scope.

@group(0) @binding(2) var<storage, read> cell_start: array<u32>;
@group(0) @binding(3) var<storage, read> sorted: array<u32>;

// true on steps without a reorder: slots in a cell range are read through `sorted`.
override USE_SORTED: bool = false;
// true for linear cell order: the cells of a row along x are contiguous, so one range covers
// the whole row (2r+1 cells) instead of one range per cell.
override ROWS: bool = false;

// Slot of the particle this invocation works on: the t-th in cell order, so neighbouring
// invocations handle neighbouring particles (coherent loops) with or without a reorder.
fn own_slot(t: u32) -> u32 {
    if USE_SORTED {
        return sorted[t];
    }
    return t;
}

// Visits every particle in the (2r+1)^3 cells around `x` (clipped to the grid, never clamped:
// a clamped coordinate would visit a border cell twice).
fn neighbour_loop(x: vec3<f32>, acc: ptr<function, Acc>) {
    let g = vec3<i32>(params.grid_dims) - vec3<i32>(1);
    let c = clamp(cell_coord(x), vec3<i32>(0), g);
    let r = i32(params.search_range);
    let lo = max(c - vec3<i32>(r), vec3<i32>(0));
    let hi = min(c + vec3<i32>(r), g);
    let x_last = select(hi.x, lo.x, ROWS);
    for (var z = lo.z; z <= hi.z; z++) {
        let cz = cell_part_z(u32(z));
        for (var y = lo.y; y <= hi.y; y++) {
            let cyz = cz + cell_part_y(u32(y));
            for (var cx = lo.x; cx <= x_last; cx++) {
                let first = cyz + cell_part_x(u32(cx));
                // ROWS (linear order): the row's cells are consecutive indices
                let last = select(first, first + u32(hi.x - lo.x), ROWS);
                let end = cell_start[last + 1u];
                for (var k = cell_start[first]; k < end; k++) {
                    var j = k;
                    if USE_SORTED {
                        j = sorted[k];
                    }
                    visit(acc, j);
                }
            }
        }
    }
}
