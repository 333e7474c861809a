//! The grid build on the GPU against the CPU twin: counts and cell_start exactly, every cell's
//! slot range holding exactly that cell's particles, the diagnostics words; and the neighbour
//! loop against the all-pairs oracle for several cell sizes and both cell orders.

use crate::common;

use common::{Rng, build, gpu, scene, sim, small_drop};
use glam::Vec3;
use rillet::reference::{all_pairs_neighbours, build_grid, build_grid_with_free, grid_diagnostics};
use rillet::sim::InitialState;
use rillet::sim::layout::CellOrder;
use rillet::sim::{GridSnapshot, Sim, SimOptions};

fn options(cell_size: f32, order: CellOrder) -> SimOptions {
    SimOptions {
        cell_size,
        capacity: 16,
        reorder_interval: 1,
        order,
        diagnostics: true,
        deterministic: false,
        workgroup_size: 64,
        shader_checks: false,
        list_skin: 0.0,
    }
}

/// An initial state whose particles are `cloud` (all fluid), on the grid of a 1 m box scene.
fn cloud_state(cloud: &[Vec3]) -> InitialState {
    let mut s =
        build(&scene("(domain: (min: (0,0,0), max: (1,1,1)), fluid: [(min: (0,0,0), max: (0.1,0.1,0.1))], physics: (spacing: 0.05))"));
    s.pos_mass = cloud.iter().map(|p| [p.x, p.y, p.z, 1.0]).collect();
    s.vel_rho = vec![[0.0, 0.0, 0.0, 1000.0]; cloud.len()];
    s.n_fluid = cloud.len() as u32;
    s.params.n_particles = cloud.len() as u32;
    s.params.n_fluid = cloud.len() as u32;
    s
}

/// Checks a GPU grid build against the CPU's, exactly.
fn check_grid(sim: &Sim, positions: &[Vec3], what: &str) {
    check_grid_with_free(sim, positions, &vec![false; positions.len()], what)
}

/// [`check_grid`] where `free[i]` marks the slots that hold no particle (w = 0): they must be in
/// the cell after the last.
fn check_grid_with_free(sim: &Sim, positions: &[Vec3], free: &[bool], what: &str) {
    let g: GridSnapshot = sim.read_grid().unwrap();
    let cpu = build_grid_with_free(sim.grid(), positions, |i| free[i]);
    assert_eq!(g.cell_of, cpu.cell_of, "{what}: cell_of");
    assert_eq!(g.counts, cpu.counts, "{what}: counts");
    assert_eq!(g.cell_start, cpu.cell_start, "{what}: cell_start");
    // every cell's slot range holds exactly its particles; ranks are 0..count within a cell
    let n = positions.len();
    let mut seen = vec![false; n];
    // every cell, and the cell of free slots after the last
    for cell in 0..=sim.grid().num_cells {
        let range = cpu.cell_slots(cell);
        let mut gpu_members: Vec<u32> = g.sorted[range.start as usize..range.end as usize].to_vec();
        let mut ranks: Vec<u32> = gpu_members.iter().map(|&i| g.rank[i as usize]).collect();
        gpu_members.sort_unstable();
        ranks.sort_unstable();
        let mut cpu_members = cpu.cell_particles(cell).to_vec();
        cpu_members.sort_unstable();
        assert_eq!(gpu_members, cpu_members, "{what}: members of cell {cell}");
        assert_eq!(ranks, (0..range.len() as u32).collect::<Vec<_>>(), "{what}: ranks in cell {cell}");
        for &i in &gpu_members {
            assert!(!seen[i as usize], "{what}: particle {i} sorted twice");
            seen[i as usize] = true;
        }
    }
    assert!(seen.iter().all(|&s| s), "{what}: a particle is missing from sorted");
    let d = sim.read_diagnostics().unwrap();
    // over the cells of the grid: the cell of free slots is no cell of space
    let (max, over) = grid_diagnostics(&cpu.counts[..sim.grid().num_cells as usize], sim.params().capacity);
    assert_eq!((d.max_per_cell, d.overflows), (max, over), "{what}: diagnostics");
}

#[test]
fn grid_matches_cpu_on_random_clouds() {
    let mut rng = Rng(0x5EED);
    let mut clouds: Vec<(&str, Vec<Vec3>)> = Vec::new();
    // uniform, with 5% of the particles outside the grid (clamped into border cells)
    clouds.push(("uniform", (0..20_000).map(|_| Vec3::new(rng.f32() * 1.4 - 0.2, rng.f32() * 1.4 - 0.2, rng.f32() * 1.4 - 0.2)).collect()));
    // one cell holding thousands of particles, plus a sparse background
    let mut dense: Vec<Vec3> = (0..6_000).map(|_| Vec3::new(0.5, 0.5, 0.5) + Vec3::splat(rng.f32() * 0.004)).collect();
    dense.extend((0..2_000).map(|_| Vec3::new(rng.f32(), rng.f32(), rng.f32())));
    clouds.push(("one dense cell", dense));
    for (name, cloud) in &clouds {
        for order in [CellOrder::Morton, CellOrder::Linear] {
            let mut s = sim(&cloud_state(cloud), options(1.0, order));
            s.build_grid(false);
            check_grid(&s, cloud, &format!("{name}, {order:?}"));
        }
    }
}

/// With `deterministic`, every cell's slots are in id order: before any reorder (slot = id) the
/// GPU's `sorted` is the CPU's exactly, and after reorders each cell still lists ascending ids.
#[test]
fn deterministic_cells_are_in_id_order() {
    let mut rng = Rng(0xD1CE);
    let cloud: Vec<Vec3> = (0..20_000).map(|_| Vec3::new(rng.f32(), rng.f32(), rng.f32())).collect();
    for order in [CellOrder::Morton, CellOrder::Linear] {
        let mut s = sim(&cloud_state(&cloud), SimOptions { deterministic: true, ..options(0.5, order) });
        s.build_grid(false);
        let cpu = build_grid(s.grid(), &cloud);
        assert_eq!(s.read_grid().unwrap().sorted, cpu.sorted, "{order:?}: sorted, slot = id");
        // scramble the slots: a reorder, then a build on the reordered set
        s.run(3);
        s.build_grid(false);
        let (g, ids) = (s.read_grid().unwrap(), s.read_particles().unwrap().id);
        for c in 0..s.grid().num_cells as usize {
            let cell: Vec<u32> =
                g.sorted[g.cell_start[c] as usize..g.cell_start[c + 1] as usize].iter().map(|&slot| ids[slot as usize]).collect();
            assert!(cell.windows(2).all(|w| w[0] < w[1]), "{order:?}: cell {c} ids {cell:?}");
        }
    }
}

/// Free slots (w = 0) go to the cell after the last, listed after every particle; a reorder then
/// moves them to the end of the buffers, and the grid diagnostics do not count them.
#[test]
fn free_slots_go_to_the_cell_after_the_last() {
    let mut rng = Rng(0xF8EE);
    let cloud: Vec<Vec3> = (0..20_000).map(|_| Vec3::new(rng.f32(), rng.f32(), rng.f32())).collect();
    let free: Vec<bool> = (0..cloud.len()).map(|_| rng.f32() < 0.3).collect();
    let n_free = free.iter().filter(|f| **f).count();
    for order in [CellOrder::Morton, CellOrder::Linear] {
        let mut state = cloud_state(&cloud);
        for (p, f) in state.pos_mass.iter_mut().zip(&free) {
            if *f {
                p[3] = 0.0;
            }
        }
        let mut o = options(0.5, order);
        o.capacity = 2;
        let mut s = sim(&state, o);
        s.build_grid(true);
        check_grid_with_free(&s, &cloud, &free, &format!("free slots, {order:?}"));
        let g = s.read_grid().unwrap();
        let nc = s.grid().num_cells as usize;
        assert_eq!((g.counts[nc] as usize, g.cell_start[nc + 1] as usize), (n_free, cloud.len()));
        // the diagnostics leave the free slots' cell out (its count is far above any cell's)
        let d = s.read_diagnostics().unwrap();
        let (max, over) = grid_diagnostics(&g.counts[..nc], 2);
        assert!(max < n_free as u32 && over > 0, "{order:?}: max {max}, overflows {over}");
        assert_eq!((d.max_per_cell, d.overflows), (max, over), "{order:?}");
        // after the reorder: particles first, free slots last
        let p = s.read_particles().unwrap();
        let first_free = cloud.len() - n_free;
        assert!(p.pos_mass[..first_free].iter().all(|x| x[3] > 0.0) && p.pos_mass[first_free..].iter().all(|x| x[3] == 0.0), "{order:?}");
    }
}

#[test]
fn grid_matches_cpu_when_the_scan_needs_every_level() {
    // cell size 0.1 h = 0.01 m over a 1.3 m box: ~2.2M cells (linear), ~4.2M (Morton): 3 levels.
    let mut rng = Rng(7);
    let cloud: Vec<Vec3> = (0..30_000).map(|_| Vec3::new(rng.f32(), rng.f32(), rng.f32())).collect();
    for order in [CellOrder::Linear, CellOrder::Morton] {
        let mut state = cloud_state(&cloud);
        state.params.h = 0.1; // cell size = 0.1 × h = 0.01 m
        let mut o = options(0.1, order);
        o.capacity = 1;
        let mut s = sim(&state, o);
        assert!(s.scan_levels() >= 3, "{order:?}: {} cells need {} levels", s.grid().num_cells, s.scan_levels());
        s.build_grid(false);
        check_grid(&s, &cloud, &format!("{} cells, {order:?}", s.grid().num_cells));
        // the diagnostics, taken in the scan's level 0 over thousands of its blocks
        let cpu = build_grid(s.grid(), &cloud);
        let (max, over) = grid_diagnostics(&cpu.counts, 1);
        assert!(max > 1 && over > 0, "{order:?}: max {max}");
        let d = s.read_diagnostics().unwrap();
        assert_eq!((d.max_per_cell, d.overflows), (max, over), "{order:?}");
    }
}

#[test]
fn diagnostics_count_max_per_cell_and_overflows() {
    let state = build(&small_drop());
    let positions: Vec<Vec3> = state.pos_mass.iter().map(|p| Vec3::new(p[0], p[1], p[2])).collect();
    let mut o = options(1.0, CellOrder::Morton);
    o.capacity = 10;
    let mut s = sim(&state, o);
    s.build_grid(false);
    let cpu = build_grid(s.grid(), &positions);
    let (max, over) = grid_diagnostics(&cpu.counts, 10);
    assert!(max > 10 && over > 0, "the scene must overflow capacity 10 for this test to mean anything (max {max})");
    let d = s.read_diagnostics().unwrap();
    assert_eq!((d.max_per_cell, d.overflows), (max, over));
    // a capacity changed live, and cells of another size: the next build counts with them
    let (o, cells) = (s.options().clone(), s.grid().num_cells);
    s.set_options(SimOptions { capacity: 4, cell_size: 0.75, ..o }).unwrap();
    assert_ne!(s.grid().num_cells, cells);
    s.build_grid(false);
    let cpu = build_grid(s.grid(), &positions);
    let (max, over) = grid_diagnostics(&cpu.counts, 4);
    assert!(over > 0, "capacity 4: max {max}");
    let d = s.read_diagnostics().unwrap();
    assert_eq!((d.max_per_cell, d.overflows), (max, over), "after the change");
    // compiled out: the words stay zero, the grid is the same
    let mut o = options(1.0, CellOrder::Morton);
    o.diagnostics = false;
    let mut s = sim(&state, o);
    s.build_grid(false);
    assert_eq!((s.read_diagnostics().unwrap().max_per_cell, s.read_diagnostics().unwrap().overflows), (0, 0));
    check_grid_counts_only(&s, &positions);
}

fn check_grid_counts_only(sim: &Sim, positions: &[Vec3]) {
    let g = sim.read_grid().unwrap();
    let cpu = build_grid(sim.grid(), positions);
    assert_eq!(g.counts, cpu.counts);
    assert_eq!(g.cell_start, cpu.cell_start);
}

/// The oracle's answer in the probe's format: [count, Σid, Σid², xor of mixed ids].
fn oracle(positions: &[Vec3], h: f64) -> Vec<[u32; 4]> {
    let mix = |v: u32| {
        let mut x = v.wrapping_mul(0x9E3779B1);
        x ^= x >> 15;
        x = x.wrapping_mul(0x85EBCA77);
        x ^= x >> 13;
        x
    };
    all_pairs_neighbours(positions, h)
        .iter()
        .map(|nb| {
            let mut r = [nb.len() as u32, 0, 0, 0];
            for &j in nb {
                r[1] = r[1].wrapping_add(j);
                r[2] = r[2].wrapping_add(j.wrapping_mul(j));
                r[3] ^= mix(j);
            }
            r
        })
        .collect()
}

#[test]
fn neighbour_loop_visits_exactly_the_all_pairs_set() {
    // small_drop after a few steps (so particles are off the lattice), plus jitter
    let state = build(&small_drop());
    let mut s = sim(&state, options(1.0, CellOrder::Morton));
    s.run(20);
    let p = s.read_particles().unwrap().by_id();
    let mut state2 = state.clone();
    let mut rng = Rng(3);
    for (i, pm) in p.pos_mass.iter().enumerate() {
        // walls too: lattice distances of exactly h would make the f32/f64 comparison a coin toss
        let j = 0.003;
        state2.pos_mass[i] = [pm[0] + j * (rng.f32() - 0.5), pm[1] + j * (rng.f32() - 0.5), pm[2] + j * (rng.f32() - 0.5), pm[3]];
    }
    let positions: Vec<Vec3> = state2.pos_mass.iter().map(|p| Vec3::new(p[0], p[1], p[2])).collect();
    let h = state2.params.h;
    // the GPU compares r² < h² in f32; keep pairs at |r − h| < 1e-6 out of the comparison
    let expected = oracle(&positions, h as f64);
    let all = all_pairs_neighbours(&positions, h as f64);
    let borderline: Vec<bool> = (0..positions.len())
        .map(|i| {
            positions.iter().any(|q| {
                let r = (positions[i].as_dvec3() - q.as_dvec3()).length();
                (r - h as f64).abs() < 1e-6
            })
        })
        .collect();
    let total: usize = all.iter().map(|v| v.len()).sum();
    assert!(total > positions.len() * 10, "too few neighbours ({total}) for a meaningful test");
    // the same particles in a grid that leaves a sixth of the extent out on every side: the
    // particles beyond it are clamped into the border cells, which the loop's row culling
    // must still visit from inside and outside the grid
    let mut shrunk = state2.clone();
    let extent = shrunk.grid_hi - shrunk.grid_lo;
    shrunk.grid_lo += extent / 6.0;
    shrunk.grid_hi -= extent / 6.0;
    let outside = positions.iter().filter(|p| p.cmplt(shrunk.grid_lo).any() || p.cmpge(shrunk.grid_hi).any()).count();
    assert!(outside > positions.len() / 4, "only {outside} particles outside the shrunk grid");
    for (grid, state) in [("whole grid", &state2), ("shrunk grid", &shrunk)] {
        for cell_size in [1.0, 0.5, 1.5, 0.3] {
            for order in [CellOrder::Morton, CellOrder::Linear] {
                for reorder in [false, true] {
                    let mut s = sim(state, options(cell_size, order));
                    s.build_grid(reorder);
                    let got = s.probe_neighbours().expect("the neighbour probe binds");
                    let mut checked = 0;
                    for i in 0..positions.len() {
                        if borderline[i] {
                            continue;
                        }
                        checked += 1;
                        assert_eq!(got[i], expected[i], "{grid}: particle {i}, cell size {cell_size} h, {order:?}, reordered {reorder}");
                    }
                    assert!(checked > positions.len() * 9 / 10);
                }
            }
        }
    }
}

#[test]
fn dispatches_over_the_workgroup_limit_split_into_2d() {
    // 32 invocations per workgroup and more than 65 535 × 32 particles: the per-particle
    // passes need a 2D dispatch.
    let max = gpu().limits.max_compute_workgroups_per_dimension as usize;
    let n = (max + 1000) * 32;
    let mut rng = Rng(11);
    let cloud: Vec<Vec3> = (0..n).map(|_| Vec3::new(rng.f32(), rng.f32(), rng.f32())).collect();
    let mut o = options(1.0, CellOrder::Linear);
    o.workgroup_size = 32;
    let mut s = sim(&cloud_state(&cloud), o);
    s.build_grid(false);
    let g = s.read_grid().unwrap();
    let cpu = build_grid(s.grid(), &cloud);
    assert_eq!(g.cell_of, cpu.cell_of, "cell_of");
    assert_eq!(g.cell_start, cpu.cell_start, "cell_start");
    // the last particles (in the second row of workgroups) were scattered too
    let mut seen = vec![false; n];
    for &i in &g.sorted {
        seen[i as usize] = true;
    }
    assert!(seen.iter().all(|&s| s), "a particle is missing from sorted");
}

/// With the lists kept between grid builds a step that keeps them builds no grid (its counts are
/// cleared, nothing counted): the diagnostics words stay those of the last build, which the
/// panel shows until the next.
#[test]
fn diagnostics_with_kept_lists_are_the_last_builds() {
    let state = build(&small_drop());
    let mut o = options(1.0, CellOrder::Morton);
    o.capacity = 6;
    o.list_skin = 0.1;
    let mut s = sim(&state, o);
    assert!(s.keeps_lists());
    let mut last = None;
    let (mut built, mut kept) = (0, 0);
    for step in 0..150 {
        let before = s.list_builds().unwrap().0;
        s.run(1);
        let d = s.read_diagnostics().unwrap();
        let words = (d.max_per_cell, d.overflows);
        if s.list_builds().unwrap().0 > before {
            let g = s.read_grid().unwrap();
            let nc = s.grid().num_cells as usize;
            let counted = grid_diagnostics(&g.counts[..nc], 6);
            assert_eq!(words, counted, "step {step}, a build: the words against its counts");
            assert!(counted.1 > 0, "capacity 6 should overflow");
            last = Some(counted);
            built += 1;
        } else {
            assert_eq!(Some(words), last, "step {step}, the lists kept: the last build's words");
            kept += 1;
        }
    }
    assert!(built > 2 && kept > 0, "{built} builds, {kept} steps kept the lists");
}
