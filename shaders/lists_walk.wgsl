// The loop over a particle's listed neighbours, shared by the lists' read side (lists.wgsl:
// sph.force, DFSPH's solves) and write side (lists_write.wgsl: sph.density and
// sph.wall_pressure in a step that keeps the lists). Each side defines `list_row(row, i)` over
// its own bindings of the lists, and the pass its `Acc` and `visit`.

// Visits the first `count` entries of slot i's list (count at most LIST_MAX), four at a time.
fn listed_visits(i: u32, count: u32, acc: ptr<function, Acc>) {
    for (var m = 0u; m < count; m += 4u) {
        let q = list_row(m / 4u, i);
        visit(acc, q.x);
        if m + 1u < count {
            visit(acc, q.y);
        }
        if m + 2u < count {
            visit(acc, q.z);
        }
        if m + 3u < count {
            visit(acc, q.w);
        }
    }
}
