//! grid.keep — the neighbour lists kept between grid builds (docs/PHYSICS.md, "Lists kept between
//! grid builds"; `shaders/keep.wgsl`). With a skin s (`grid.list_skin`, in h), a build lists every
//! particle within (1 + s) h; as long as no particle has moved more than s h / 2 since, every pair
//! within h is on those lists, and a step can skip the grid build and read the lists instead of
//! walking the grid. One invocation at the start of such a step decides on the GPU, from the
//! distance the fastest particle moved in each step since the build (sph.integrate's
//! reduction), and turns the step's indirect dispatches on or off: the grid build's and the
//! walking passes' (a build) or the listed passes' (the lists kept). No CPU round trip.
//!
//! The control words (`keep` in the shaders), `u32` each:
//! - [`TRAVEL`]: the summed largest moves since the last build (f32 bits);
//! - [`MOVE`]: the largest move of the last step (f32 bits, sph.integrate's `atomicMax`);
//! - [`OVERFLOW`]: 1 when a list of the last build overflowed (then the next step builds);
//! - [`BUILDS`], [`KEPT`]: steps that built, steps that kept the lists (counters);
//! - [`SKIN`]: the skin the last build listed with (f32 bits, in h): the scene's, or 0 where
//!   the last step's largest move exceeded a quarter of it (a flow so fast that lists with the
//!   skin would be expected to last less than two steps: the build then lists within h, as
//!   without a skin);
//! - [`OVERFLOWED`]: builds forced by a list that overflowed (a counter).
//!
//! The indirect dispatches (`keep_args`, a buffer of its own: a pass cannot bind as storage a
//! buffer its dispatch reads as arguments): from [`LIVE`], [`ENTRIES`] dispatches of four words,
//! which grid.keep writes; from [`FULL`], the same entries at full size, written from the CPU:
//! word 3 of an entry says in which steps it runs ([`WHEN_BUILD`]: every build; [`WHEN_LISTED`]:
//! the steps that keep the lists; [`WHEN_SKINNED`], [`WHEN_WITHIN_H`]: the builds that list with
//! the skin, or within h).

use super::shader::{self, KernelConfig, KernelError, Pass, Variant, Walk};

pub use crate::physics::keep::*;

/// Byte offset of entry `k`'s live indirect dispatch.
pub(crate) fn live_offset(k: u32) -> u64 {
    4 * (LIVE + 4 * k) as u64
}

/// How a step records grid.keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decide {
    /// The CPU records a build (the first step, a sensor sample, after a change of options): the
    /// control words restart from it.
    Build,
    /// The GPU decides from the distance moved since the last build.
    Moved,
}

impl Variant for Decide {
    const ALL: &'static [Self] = &[Decide::Build, Decide::Moved];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("FORCE", shader::flag(self == Decide::Build))]
    }
}

/// How sph.density and sph.wall_pressure find a particle's neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reads {
    /// They walk the grid within h and write the lists within h: the passes of lists built every
    /// step, nothing of the skin compiled in (a simulation without a skin, and a build that
    /// grid.keep made list within h).
    Grid(Walk),
    /// A build with the skin grid.keep chose (`SKIN`: its word [`SKIN`], read on the GPU): the
    /// walk within (1 + skin) h, the particles in cell order (every such build reorders).
    Skinned,
    /// They read the lists the last build wrote (`LISTED`), the particles in slot order (cell
    /// order as of the last build's reorder).
    Lists,
}

impl Variant for Reads {
    const ALL: &'static [Self] = &[Reads::Grid(Walk::Direct), Reads::Grid(Walk::ThroughSorted), Reads::Skinned, Reads::Lists];
    fn constants(self) -> Vec<(&'static str, f64)> {
        let (walk, skin, listed) = match self {
            Reads::Grid(w) => (w, false, false),
            Reads::Skinned => (Walk::Direct, true, false),
            Reads::Lists => (Walk::Direct, true, true),
        };
        [walk.constants(), vec![("SKIN", shader::flag(skin)), ("LISTED", shader::flag(listed))]].concat()
    }
}

/// The reorder's variants: the gather in cell order, or (a step that keeps the lists) a plain
/// copy into the other set, so that the current set alternates every step whichever grid.keep
/// chose, and the lists' slots stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gather {
    pub copy: bool,
}

impl Variant for Gather {
    const ALL: &'static [Self] = &[Gather { copy: false }, Gather { copy: true }];
    fn constants(self) -> Vec<(&'static str, f64)> {
        vec![("COPY", shader::flag(self.copy))]
    }
}

pub(crate) fn new(device: &wgpu::Device, cfg: KernelConfig) -> Result<Pass<Decide>, KernelError> {
    Pass::new(device, &shader::KEEP, cfg, &[])
}

/// The indirect dispatches at the start: every live one empty, the full ones for `n` particles
/// in workgroups of `wg` and for the scan levels' `blocks`.
pub(crate) fn args(n: u32, wg: u32, scan_blocks: &[u32], max_dim: u32) -> Vec<u32> {
    assert!(scan_blocks.len() <= MAX_SCAN_LEVELS as usize, "{} scan levels: grid.keep holds {MAX_SCAN_LEVELS}", scan_blocks.len());
    let mut w = vec![0u32; ARGS_WORDS as usize];
    let mut full = |k: u32, groups: u32, when: u32| {
        let (x, y) = shader::grid_2d(groups, max_dim);
        let at = (FULL + 4 * k) as usize;
        w[at..at + 4].copy_from_slice(&[x, y, 1, when]);
    };
    let groups = n.div_ceil(wg);
    full(ENTRY_BUILD, groups, WHEN_BUILD);
    full(ENTRY_LISTED, groups, WHEN_LISTED);
    full(ENTRY_SKINNED, groups, WHEN_SKINNED);
    full(ENTRY_WITHIN_H, groups, WHEN_WITHIN_H);
    for (k, &blocks) in scan_blocks.iter().enumerate() {
        full(ENTRY_SCAN + k as u32, blocks, WHEN_BUILD);
    }
    w
}

/// What grid.keep carries from step to step (its words [`TRAVEL`] and [`SKIN`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kept {
    /// The summed largest moves since the last build, m.
    pub travel: f32,
    /// The skin the last build listed with, in h.
    pub skin: f32,
}

/// The CPU twin of grid.keep's decision at the start of a step: whether it builds, and what it
/// carries on. `moved` is the last step's largest move, `overflow` whether a list of the last
/// build overflowed, `force` a build the CPU records, `skin` the scene's. The lists hold every
/// pair within (1 + s) h (s: the skin they were built with), so they hold every pair within h
/// while each particle has moved at most s h / 2 since. A build lists with the scene's skin
/// unless `moved` exceeds a quarter of it (lists with it would be expected to last less than two
/// steps: a rule, measured in docs/PERFORMANCE.md), then with 0; lists with 0 are never kept
/// (the walls' are not written).
pub fn decide(k: Kept, moved: f32, overflow: bool, force: bool, skin: f32, h: f32) -> (bool, Kept) {
    let travel = k.travel + moved;
    if force || overflow || k.skin == 0.0 || travel > 0.5 * k.skin * h {
        let skin = if 0.25 * skin * h >= moved { skin } else { 0.0 };
        (true, Kept { travel: 0.0, skin })
    } else {
        (false, Kept { travel, ..k })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_kept_until_half_the_skin_is_travelled() {
        let (h, skin) = (0.04, 0.2);
        // 0.004 m of budget: three steps of 0.0013 m keep, the fourth builds
        let (first, mut k) = decide(Kept { travel: 0.0, skin: 0.0 }, 0.0, false, true, skin, h);
        assert!(first);
        assert_eq!(k.skin, skin);
        let mut builds = vec![];
        for _ in 0..4 {
            let (b, next) = decide(k, 0.0013, false, false, skin, h);
            builds.push(b);
            k = next;
        }
        assert_eq!(builds, [false, false, false, true]);
        assert_eq!(k, Kept { travel: 0.0, skin }, "a build restarts the travel");
        assert!(decide(k, 0.0, true, false, skin, h).0, "an overflowed list builds at once");
        let (b, fast) = decide(k, 0.0041, false, false, skin, h);
        assert!(b && fast.skin == 0.0, "a move beyond half the skin: the build lists within h");
        let (b, quick) = decide(k, 0.0021, true, false, skin, h);
        assert!(b && quick.skin == 0.0, "a move beyond a quarter of the skin: the build lists within h");
        assert!(decide(fast, 0.0, false, false, skin, h).0, "lists without a skin: every step builds");
        assert_eq!(decide(fast, 0.001, false, false, skin, h), (true, Kept { travel: 0.0, skin }), "slower again: the skin is back");
    }

    #[test]
    fn the_full_dispatches_cover_the_particles_and_the_scan_levels() {
        let w = args(1_000_000, 256, &[977, 1], 65_535);
        let entry = |k: u32| &w[(FULL + 4 * k) as usize..(FULL + 4 * k + 4) as usize];
        assert_eq!(entry(ENTRY_BUILD), [3907, 1, 1, WHEN_BUILD]);
        assert_eq!(entry(ENTRY_LISTED), [3907, 1, 1, WHEN_LISTED]);
        assert_eq!(entry(ENTRY_SKINNED), [3907, 1, 1, WHEN_SKINNED]);
        assert_eq!(entry(ENTRY_WITHIN_H), [3907, 1, 1, WHEN_WITHIN_H]);
        assert_eq!(entry(ENTRY_SCAN), [977, 1, 1, WHEN_BUILD]);
        assert_eq!(entry(ENTRY_SCAN + 1), [1, 1, 1, WHEN_BUILD]);
        assert_eq!(entry(ENTRY_SCAN + 2), [0, 0, 0, 0], "an entry without a level stays empty");
        assert!(w[LIVE as usize..FULL as usize].iter().all(|&x| x == 0), "the live dispatches start empty");
    }
}
