//! Moving solids in a scene: their motions as the GPU reads them ([`BodyMotion`]), the checks
//! of a motion's fields, and the checks of where it takes the solid and how fast
//! (docs/PHYSICS.md, "Moving solids").

use super::SceneError;
use super::schema::{Floating, Motion, Rotation, Scene, Solver, Translation};
use crate::sim::motion::{self as m, BodyMotion, BodyState, Kinematics, pose_at};
use glam::{DMat3, DVec3};

/// Longest a motion's times (start, end, keyframes) may be, s.
pub(crate) const MAX_MOTION_TIME: f32 = 1e6;
/// Periods of sines, s.
const PERIOD: (f32, f32) = (1e-3, 1e4);
/// Most keyframes of one motion.
pub(crate) const MAX_KEYS: usize = 100_000;
/// A moving solid may move no faster than this share of the speed of sound (weak compressibility
/// holds below Mach 0.1, and the step's dt, set by the speed of sound, then covers the solid too).
pub(crate) const MAX_MACH: f64 = 0.1;

/// Densities a floating body may have, kg/m³: from a twentieth of the fluid's (lighter bodies
/// than that, explicitly coupled, are not stable at the step's dt; docs/PHYSICS.md, "Floating
/// bodies") to the densest metal's, osmium's 22 590 kg/m³, rounded up.
pub(crate) const MIN_DENSITY_RATIO: f64 = 0.05;
pub(crate) const MAX_DENSITY: f64 = 23_000.0;

/// The numbers of a floating body, by field name below `floating.` (for the finite check).
pub(crate) fn floating_numbers(f: &Floating) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = (0..3).map(|a| (format!("velocity[{a}]"), f.velocity[a])).collect();
    out.extend(f.density.map(|d| ("density".to_string(), d)));
    out.extend(f.mass.map(|m| ("mass".to_string(), m)));
    out
}

/// The numbers of a motion, by field name below `motion.` (for the finite check).
pub(crate) fn motion_numbers(mo: &Motion) -> Vec<(String, f32)> {
    let mut out = vec![("start".to_string(), mo.start)];
    if let Some(e) = mo.end {
        out.push(("end".into(), e));
    }
    let v3 = |out: &mut Vec<(String, f32)>, name: &str, v: [f32; 3]| out.extend((0..3).map(|a| (format!("{name}[{a}]"), v[a])));
    match &mo.translation {
        Some(Translation::Sine { amplitude, period, phase }) => {
            v3(&mut out, "translation.amplitude", *amplitude);
            out.push(("translation.period".into(), *period));
            out.push(("translation.phase".into(), *phase));
        }
        Some(Translation::Keyframes { keys, .. }) => {
            for (k, (t, x)) in keys.iter().enumerate() {
                out.push((format!("translation.keys[{k}].0"), *t));
                v3(&mut out, &format!("translation.keys[{k}].1"), *x);
            }
        }
        None => {}
    }
    if let Some(r) = &mo.rotation {
        let (axis, pivot) = rotation_axis(r);
        v3(&mut out, "rotation.axis", axis);
        if let Some(p) = pivot {
            v3(&mut out, "rotation.pivot", p);
        }
        match r {
            Rotation::Spin { speed, .. } => out.push(("rotation.speed".into(), *speed)),
            Rotation::Sine { amplitude, period, phase, .. } => {
                out.push(("rotation.amplitude".into(), *amplitude));
                out.push(("rotation.period".into(), *period));
                out.push(("rotation.phase".into(), *phase));
            }
            Rotation::Keyframes { keys, .. } => {
                for (k, (t, a)) in keys.iter().enumerate() {
                    out.push((format!("rotation.keys[{k}].0"), *t));
                    out.push((format!("rotation.keys[{k}].1"), *a));
                }
            }
        }
    }
    out
}

fn rotation_axis(r: &Rotation) -> ([f32; 3], Option<[f32; 3]>) {
    match r {
        Rotation::Spin { axis, pivot, .. } | Rotation::Sine { axis, pivot, .. } | Rotation::Keyframes { axis, pivot, .. } => {
            (*axis, *pivot)
        }
    }
}

impl Scene {
    /// The fields of every solid's motion (finite already): times, periods, axes, keyframes,
    /// and the solver.
    pub(crate) fn check_motions(&self, file: &str) -> Result<(), SceneError> {
        let invalid = |field: String, value: String, allowed: &str| SceneError::Invalid {
            file: file.to_owned(),
            field,
            value,
            allowed: allowed.to_owned(),
        };
        for (i, solid) in self.solids.iter().enumerate() {
            let Some(mo) = solid.motion() else { continue };
            let f = |name: &str| format!("solids[{i}].motion.{name}");
            if self.physics.solver != Solver::Wcsph {
                return Err(invalid(
                    f("").trim_end_matches('.').to_string(),
                    "a moving solid with solver DFSPH".into(),
                    "physics.solver WCSPH (DFSPH's boundary terms take no wall velocity yet)",
                ));
            }
            let times = format!("[0, {MAX_MOTION_TIME}] s");
            if !(0.0..=MAX_MOTION_TIME).contains(&mo.start) {
                return Err(invalid(f("start"), mo.start.to_string(), &times));
            }
            if let Some(e) = mo.end
                && !(e > mo.start && e <= MAX_MOTION_TIME)
            {
                return Err(invalid(f("end"), e.to_string(), &format!("({}, {MAX_MOTION_TIME}] s (after start)", mo.start)));
            }
            if mo.translation.is_none() && mo.rotation.is_none() {
                return Err(invalid(f("translation"), "none, and no rotation".into(), "a translation, a rotation or both"));
            }
            let period = |name: &str, p: f32| {
                let ok = p >= PERIOD.0 && p <= PERIOD.1;
                if ok { Ok(()) } else { Err(invalid(f(name), p.to_string(), &format!("[{}, {}] s", PERIOD.0, PERIOD.1))) }
            };
            let keys_ok = |name: &str, times: &[f32]| -> Result<(), SceneError> {
                if times.len() < 2 || times.len() > MAX_KEYS {
                    return Err(invalid(f(name), format!("{} keys", times.len()), &format!("2 to {MAX_KEYS} keys")));
                }
                if times[0] != 0.0 {
                    return Err(invalid(
                        format!("{}[0].0", f(name)),
                        times[0].to_string(),
                        "0 s (the first key is where the solid is at start)",
                    ));
                }
                for k in 1..times.len() {
                    if !(times[k] > times[k - 1] && times[k] <= MAX_MOTION_TIME) {
                        return Err(invalid(
                            format!("{}[{k}].0", f(name)),
                            times[k].to_string(),
                            &format!("({}, {MAX_MOTION_TIME}] s (after the key before it)", times[k - 1]),
                        ));
                    }
                }
                Ok(())
            };
            match &mo.translation {
                Some(Translation::Sine { amplitude, period: p, .. }) => {
                    period("translation.period", *p)?;
                    for (a, x) in amplitude.iter().enumerate() {
                        if x.abs() > 1e4 {
                            return Err(invalid(f(&format!("translation.amplitude[{a}]")), x.to_string(), "[-10000, 10000] m"));
                        }
                    }
                }
                Some(Translation::Keyframes { keys, .. }) => keys_ok("translation.keys", &keys.iter().map(|k| k.0).collect::<Vec<_>>())?,
                None => {}
            }
            if let Some(r) = &mo.rotation {
                let (axis, _) = rotation_axis(r);
                let len = DVec3::from(axis.map(f64::from)).length();
                if !(len > 1e-6) {
                    return Err(invalid(f("rotation.axis"), format!("{axis:?}"), "a direction (not zero)"));
                }
                match r {
                    Rotation::Spin { speed, .. } => {
                        if speed.abs() > 36_000.0 {
                            return Err(invalid(f("rotation.speed"), speed.to_string(), "[-36000, 36000] degrees/s"));
                        }
                    }
                    Rotation::Sine { amplitude, period: p, .. } => {
                        period("rotation.period", *p)?;
                        if amplitude.abs() > 3600.0 {
                            return Err(invalid(f("rotation.amplitude"), amplitude.to_string(), "[-3600, 3600] degrees"));
                        }
                    }
                    Rotation::Keyframes { keys, .. } => keys_ok("rotation.keys", &keys.iter().map(|k| k.0).collect::<Vec<_>>())?,
                }
            }
        }
        Ok(())
    }

    /// The floating bodies' fields (finite already): one of density or mass, in range; a shape
    /// with a volume and an inertia; no prescribed motion beside; WCSPH; a start speed the step
    /// covers.
    pub(crate) fn check_floating(&self, file: &str) -> Result<(), SceneError> {
        let invalid = |field: String, value: String, allowed: String| SceneError::Invalid { file: file.to_owned(), field, value, allowed };
        let rho0 = self.physics.rest_density as f64;
        let c = super::setup::resolve_pressure(self).0 as f64;
        for (i, solid) in self.solids.iter().enumerate() {
            let Some(fl) = solid.floating() else { continue };
            let f = |name: &str| format!("solids[{i}].floating{name}");
            if self.physics.solver != Solver::Wcsph {
                return Err(invalid(
                    f(""),
                    "a floating body with solver DFSPH".into(),
                    "physics.solver WCSPH (DFSPH's boundary terms take no wall velocity yet)".into(),
                ));
            }
            if solid.motion().is_some() {
                return Err(invalid(
                    f(""),
                    "a floating body with a prescribed motion".into(),
                    "one of motion (a prescribed path) or floating (moved by the fluid)".into(),
                ));
            }
            let props = self.solid_shape(i).mass_properties();
            if !(props.volume.is_finite() && props.volume > 0.0) {
                return Err(invalid(
                    format!("solids[{i}]"),
                    format!("a floating body of volume {:.3e} m³", props.volume),
                    "a shape with a positive volume (a mesh with outward-facing triangles)".into(),
                ));
            }
            let density = match (fl.density, fl.mass) {
                (Some(d), None) => d as f64,
                (None, Some(m)) => {
                    if !(m > 0.0) {
                        return Err(invalid(f(".mass"), m.to_string(), "a positive mass in kg".into()));
                    }
                    m as f64 / props.volume
                }
                (d, m) => {
                    return Err(invalid(f(""), format!("density {d:?}, mass {m:?}"), "one of density (kg/m³) or mass (kg)".into()));
                }
            };
            let (lo, hi) = (MIN_DENSITY_RATIO * rho0, MAX_DENSITY);
            if !(density >= lo && density <= hi) {
                let field = if fl.mass.is_some() { f(".mass") } else { f(".density") };
                let value = match fl.mass {
                    Some(m) => format!("{m} kg, a density of {density:.1} kg/m³ over the shape's {:.4e} m³", props.volume),
                    None => format!("{density} kg/m³"),
                };
                return Err(invalid(
                    field,
                    value,
                    format!("a density in [{lo}, {hi}] kg/m³ ({MIN_DENSITY_RATIO} of the fluid's rest density to the densest metal's)"),
                ));
            }
            let eig = symmetric_eigenvalues(props.inertia * density);
            if !eig.iter().all(|e| e.is_finite() && *e > 0.0) {
                return Err(invalid(
                    format!("solids[{i}]"),
                    format!("a floating body whose inertia has principal moments {:.3e} {:.3e} {:.3e} kg m²", eig[0], eig[1], eig[2]),
                    "a shape whose inertia tensor is positive definite (a closed solid with volume in all three directions)".into(),
                ));
            }
            let speed = DVec3::from(fl.velocity.map(f64::from)).length();
            if speed > MAX_MACH * c {
                return Err(invalid(
                    f(".velocity"),
                    format!("{:?} ({speed:.3} m/s)", fl.velocity),
                    format!("at most {:.3} m/s, {MAX_MACH} of the speed of sound c = {c:.2} m/s", MAX_MACH * c),
                ));
            }
        }
        Ok(())
    }

    /// Solid `i` as a floating body: its motion record (no path; its pivot the centre of mass)
    /// and its state at the start (at rest but for its start velocity, unturned), its boundary
    /// particles the ids `ids`.
    pub(crate) fn floating_body(&self, i: usize, ids: &std::ops::Range<usize>) -> Option<(BodyMotion, BodyState)> {
        let fl = self.solids[i].floating()?;
        let props = self.solid_shape(i).mass_properties();
        let density = fl.density.map(f64::from).unwrap_or_else(|| fl.mass.unwrap_or(0.0) as f64 / props.volume);
        let mass = density * props.volume;
        let inertia = props.inertia * density;
        let centre = props.centre.as_vec3().to_array();
        let motion =
            BodyMotion { pivot: centre, axis: [0.0, 1.0, 0.0], translation: m::TRANSLATION_FLOATING, end: f32::MAX, ..Default::default() };
        let state = BodyState {
            position: centre,
            mass: mass as f32,
            orientation: [0.0, 0.0, 0.0, 1.0],
            velocity: fl.velocity,
            contact_mass: (mass / ids.len().max(1) as f64) as f32,
            first: ids.start as u32,
            count: ids.len() as u32,
            floating: 1,
            inertia: mat4(inertia),
            inv_inertia: mat4(inertia.inverse()),
            ..Default::default()
        };
        Some((motion, state))
    }

    /// Solid `i`'s motion record if it moves, a floating body's or a prescribed path's (its
    /// keyframes appended to `keys`): what solids.move reads for it.
    pub(crate) fn moving_motion(&self, i: usize, keys: &mut Vec<[f32; 4]>) -> Option<BodyMotion> {
        match self.floating_body(i, &(0..1)) {
            Some((b, _)) => Some(b),
            None => self.body_motion(i, keys),
        }
    }

    /// Solid `i`'s motion as the GPU reads it, its keyframes appended to `keys`.
    pub(crate) fn body_motion(&self, i: usize, keys: &mut Vec<[f32; 4]>) -> Option<BodyMotion> {
        let mo = self.solids[i].motion()?;
        let (lo, hi) = self.solid_shape(i).bounds();
        let centre = ((lo + hi) * 0.5).as_vec3().to_array();
        let rad = |d: f32| d.to_radians();
        let mut b =
            BodyMotion { pivot: centre, axis: [0.0, 1.0, 0.0], start: mo.start, end: mo.end.unwrap_or(f32::MAX), ..Default::default() };
        match &mo.translation {
            Some(Translation::Sine { amplitude, period, phase }) => {
                (b.translation, b.amplitude, b.period, b.phase) = (m::TRANSLATION_SINE, *amplitude, *period, rad(*phase));
            }
            Some(Translation::Keyframes { keys: k, smooth }) => {
                (b.translation, b.smooth_translation) = (m::TRANSLATION_KEYS, u32::from(*smooth));
                (b.translation_first, b.translation_count) = (keys.len() as u32, k.len() as u32);
                keys.extend(k.iter().map(|(t, x)| [*t, x[0], x[1], x[2]]));
            }
            None => {}
        }
        if let Some(r) = &mo.rotation {
            let (axis, pivot) = rotation_axis(r);
            let a = DVec3::from(axis.map(f64::from)).normalize().as_vec3();
            b.axis = a.to_array();
            b.pivot = pivot.unwrap_or(centre);
            match r {
                Rotation::Spin { speed, .. } => (b.rotation, b.angle) = (m::ROTATION_SPIN, rad(*speed)),
                Rotation::Sine { amplitude, period, phase, .. } => {
                    (b.rotation, b.angle, b.angle_period, b.angle_phase) = (m::ROTATION_SINE, rad(*amplitude), *period, rad(*phase));
                }
                Rotation::Keyframes { keys: k, smooth, .. } => {
                    (b.rotation, b.smooth_rotation) = (m::ROTATION_KEYS, u32::from(*smooth));
                    (b.rotation_first, b.rotation_count) = (keys.len() as u32, k.len() as u32);
                    keys.extend(k.iter().map(|(t, deg)| [*t, rad(*deg), 0.0, 0.0]));
                }
            }
        }
        Some(b)
    }

    /// The moving solids of the scene for a state whose boundary particles of solid `i` are the
    /// ids `shells[i]` (their rest positions are the shell's points), of `n` particles in all.
    pub(crate) fn kinematics(&self, shells: &[std::ops::Range<usize>], n: usize) -> Kinematics {
        let mut k = Kinematics::default();
        for (i, ids) in shells.iter().enumerate() {
            let (b, state) = match self.floating_body(i, ids) {
                Some(f) => f,
                None => {
                    let Some(b) = self.body_motion(i, &mut k.keys) else { continue };
                    let state = BodyState {
                        position: b.pivot,
                        orientation: [0.0, 0.0, 0.0, 1.0],
                        first: ids.start as u32,
                        count: ids.len() as u32,
                        ..Default::default()
                    };
                    (b, state)
                }
            };
            if k.body_of.is_empty() {
                k.body_of = vec![0; n];
                k.rest = vec![[0.0; 3]; n];
            }
            k.bodies.push(b);
            k.states.push(state);
            let shell = self.solid_shell(i);
            for (id, x) in ids.clone().zip(shell.iter()) {
                k.body_of[id] = k.bodies.len() as u32;
                k.rest[id] = x.as_vec3().to_array();
            }
        }
        k
    }

    /// Where each motion takes its solid and how fast, sampled over the motion (at most
    /// [`MOTION_SAMPLES`] times, and at every keyframe): the solid's bounding box, carried by
    /// the pose, stays inside the domain grown by the wall layers (the grid the step covers),
    /// and no point of the box moves faster than [`MAX_MACH`] of the speed of sound.
    pub(crate) fn validate_motions(&self, file: &str) -> Result<(), SceneError> {
        let mut keys = Vec::new();
        let c = super::setup::resolve_pressure(self).0 as f64;
        let wall = self.shell_thickness();
        let dmin = DVec3::from(self.domain.min.map(f64::from)) - wall;
        let dmax = DVec3::from(self.domain.max.map(f64::from)) + wall;
        for i in 0..self.solids.len() {
            keys.clear();
            let Some(b) = self.body_motion(i, &mut keys) else { continue };
            let (lo, hi) = self.solid_shape(i).bounds();
            let corners: Vec<DVec3> =
                (0..8).map(|k| DVec3::new([lo.x, hi.x][k & 1], [lo.y, hi.y][(k >> 1) & 1], [lo.z, hi.z][(k >> 2) & 1])).collect();
            for t in sample_times(&b, &keys) {
                let pose = pose_at(&b, &keys, t);
                for &x0 in &corners {
                    let x = pose.apply(x0);
                    if x.cmplt(dmin).any() || x.cmpgt(dmax).any() {
                        return Err(SceneError::Invalid {
                            file: file.to_owned(),
                            field: format!("solids[{i}].motion"),
                            value: format!(
                                "a motion that takes the solid's corner {:.4?} to {:.4?} at t = {t:.4} s",
                                x0.to_array(),
                                x.to_array()
                            ),
                            allowed: format!(
                                "a motion that keeps the solid inside the domain and its walls, {:.4?}..{:.4?}",
                                dmin.to_array(),
                                dmax.to_array()
                            ),
                        });
                    }
                    let speed = pose.point_rates(x).0.length();
                    if speed > MAX_MACH * c {
                        return Err(SceneError::Invalid {
                            file: file.to_owned(),
                            field: format!("solids[{i}].motion"),
                            value: format!("a motion that moves the solid at {speed:.3} m/s at t = {t:.4} s"),
                            allowed: format!(
                                "at most {:.3} m/s, {MAX_MACH} of the speed of sound c = {c:.2} m/s (slower, or a larger c in physics.pressure)",
                                MAX_MACH * c
                            ),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// A 3×3 matrix as the 3×3 block of a WGSL `mat4x4` (columns).
fn mat4(m: DMat3) -> [[f32; 4]; 4] {
    let c = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32, 0.0];
    [c(m.x_axis), c(m.y_axis), c(m.z_axis), [0.0, 0.0, 0.0, 1.0]]
}

/// The eigenvalues of a symmetric 3×3 matrix, ascending (the trigonometric closed form).
pub(crate) fn symmetric_eigenvalues(a: DMat3) -> [f64; 3] {
    let (a11, a22, a33) = (a.x_axis.x, a.y_axis.y, a.z_axis.z);
    let (a12, a13, a23) = (a.y_axis.x, a.z_axis.x, a.z_axis.y);
    let p1 = a12 * a12 + a13 * a13 + a23 * a23;
    let mut e = if p1 <= 1e-30 * (a11 * a11 + a22 * a22 + a33 * a33) {
        [a11, a22, a33]
    } else {
        let q = (a11 + a22 + a33) / 3.0;
        let p2 = (a11 - q).powi(2) + (a22 - q).powi(2) + (a33 - q).powi(2) + 2.0 * p1;
        let p = (p2 / 6.0).sqrt();
        let b = (a - DMat3::from_diagonal(DVec3::splat(q))) * (1.0 / p);
        let r = (b.determinant() / 2.0).clamp(-1.0, 1.0);
        let phi = r.acos() / 3.0;
        let e1 = q + 2.0 * p * phi.cos();
        let e3 = q + 2.0 * p * (phi + 2.0 * std::f64::consts::PI / 3.0).cos();
        [e1, 3.0 * q - e1 - e3, e3]
    };
    e.sort_by(f64::total_cmp);
    e
}

/// Samples of a motion's time line for [`Scene::validate_motions`].
pub(crate) const MOTION_SAMPLES: usize = 20_000;

/// The times a motion is checked at: evenly over its span (its end, or for a motion without
/// one, long enough to go through every period and keyframe twice), at most
/// [`MOTION_SAMPLES`], plus every keyframe.
fn sample_times(b: &BodyMotion, keys: &[[f32; 4]]) -> Vec<f64> {
    let start = b.start as f64;
    let mut span: f64 = 0.0;
    let mut finest: f64 = f64::INFINITY;
    if b.translation == m::TRANSLATION_SINE {
        span = span.max(2.0 * b.period as f64);
        finest = finest.min(b.period as f64 / 64.0);
    }
    if b.rotation == m::ROTATION_SINE {
        span = span.max(2.0 * b.angle_period as f64);
        finest = finest.min(b.angle_period as f64 / 64.0);
    }
    if b.rotation == m::ROTATION_SPIN && b.angle != 0.0 {
        let turn = std::f64::consts::TAU / (b.angle as f64).abs();
        span = span.max(turn);
        finest = finest.min(turn / 64.0);
    }
    let mut key_times = Vec::new();
    for (kind, first, count) in [
        (b.translation == m::TRANSLATION_KEYS, b.translation_first, b.translation_count),
        (b.rotation == m::ROTATION_KEYS, b.rotation_first, b.rotation_count),
    ] {
        if kind {
            let k = &keys[first as usize..(first + count) as usize];
            span = span.max(k[k.len() - 1][0] as f64);
            for w in k.windows(2) {
                finest = finest.min((w[1][0] - w[0][0]) as f64 / 16.0);
            }
            key_times.extend(k.iter().map(|q| start + q[0] as f64));
        }
    }
    if b.end < f32::MAX {
        span = span.min(b.end as f64 - start);
    }
    let n = if finest.is_finite() && finest > 0.0 { ((span / finest).ceil() as usize).clamp(2, MOTION_SAMPLES) } else { 2 };
    let mut times: Vec<f64> = (0..=n).map(|k| start + span * k as f64 / n as f64).collect();
    times.extend(key_times);
    times
}
