//! Solids that move on a prescribed path (docs/PHYSICS.md, "Moving solids"): each moving solid's
//! motion as the GPU reads it ([`BodyMotion`]), its boundary particles' rest positions and
//! normals by id, and the pose at a time in f64 — what solids.move computes in f32
//! (`shaders/motion.wgsl`), for the CPU twin, the probes' leak check and the scene's checks.

pub use crate::wgsl::shared::{
    BodyMotion, BodyState, ROTATION_KEYS, ROTATION_NONE, ROTATION_SINE, ROTATION_SPIN, TRANSLATION_FLOATING, TRANSLATION_KEYS,
    TRANSLATION_NONE, TRANSLATION_SINE,
};
use glam::{DQuat, DVec3};

/// The moving solids of a simulation: what solids.move reads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kinematics {
    /// One per moving solid.
    pub bodies: Vec<BodyMotion>,
    /// One per moving solid, as the GPU starts with it: a floating body's pose, mass and
    /// inertia; for every moving solid its boundary particles' ids (the force on it).
    pub states: Vec<BodyState>,
    /// The keyframes the bodies index (`(τ, x, y, z)` or `(τ, θ, 0, 0)`).
    pub keys: Vec<[f32; 4]>,
    /// By particle id: the moving solid a boundary particle belongs to, plus one (0: fluid, a
    /// free slot or a boundary particle that does not move).
    pub body_of: Vec<u32>,
    /// By particle id: the position at rest (the scene's pose) of a moving boundary particle.
    pub rest: Vec<[f32; 3]>,
}

impl Kinematics {
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// `rest[id]` with `w` = the body plus one as bits (solids.move's `rest`).
    pub(crate) fn rest_words(&self) -> Vec<[f32; 4]> {
        self.rest.iter().zip(&self.body_of).map(|(x, &b)| [x[0], x[1], x[2], f32::from_bits(b)]).collect()
    }

    /// The pose of body `b` at simulated time `t`: on its path, or a floating body's from its
    /// state at the start (see [`Pose::of_state`] for one it has moved to).
    pub fn pose(&self, b: usize, t: f64) -> Pose {
        if self.bodies[b].translation == TRANSLATION_FLOATING {
            return Pose::of_state(&self.bodies[b], &self.states[b]);
        }
        pose_at(&self.bodies[b], &self.keys, t)
    }

    /// Whether any body floats (then the step sums the forces on the bodies and moves them).
    pub fn floats(&self) -> bool {
        self.bodies.iter().any(|b| b.translation == TRANSLATION_FLOATING)
    }
}

/// A rigid pose and its rates: `x = pivot + translation + R (x0 − pivot)`, and the velocity
/// and acceleration of a point of the body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    pub pivot: DVec3,
    pub translation: DVec3,
    /// R, from the scene's pose.
    pub rotation: DQuat,
    pub angular_velocity: DVec3,
    pub angular_acceleration: DVec3,
    /// Of the pivot's image `pivot + translation`.
    pub velocity: DVec3,
    pub acceleration: DVec3,
}

impl Pose {
    /// A floating body's pose from its state: the pivot is its centre of mass at rest.
    pub fn of_state(m: &BodyMotion, s: &BodyState) -> Pose {
        let v = |a: [f32; 3]| DVec3::from(a.map(f64::from));
        let q = s.orientation.map(f64::from);
        let pivot = v(m.pivot);
        Pose {
            pivot,
            translation: v(s.position) - pivot,
            rotation: DQuat::from_xyzw(q[0], q[1], q[2], q[3]).normalize(),
            angular_velocity: v(s.angular_velocity),
            angular_acceleration: v(s.angular_acceleration),
            velocity: v(s.velocity),
            acceleration: v(s.acceleration),
        }
    }
    /// `R v`.
    pub fn rotate(&self, v: DVec3) -> DVec3 {
        self.rotation * v
    }
    /// `R⁻¹ v`.
    pub fn unrotate(&self, v: DVec3) -> DVec3 {
        self.rotation.conjugate() * v
    }
    /// Where the point at rest `x0` is.
    pub fn apply(&self, x0: DVec3) -> DVec3 {
        self.pivot + self.translation + self.rotate(x0 - self.pivot)
    }
    /// The point at rest that is at `x` now.
    pub fn invert(&self, x: DVec3) -> DVec3 {
        self.pivot + self.unrotate(x - self.pivot - self.translation)
    }
    /// Velocity and acceleration of the body's point now at `x`.
    pub fn point_rates(&self, x: DVec3) -> (DVec3, DVec3) {
        let r = x - self.pivot - self.translation;
        let (w, al) = (self.angular_velocity, self.angular_acceleration);
        (self.velocity + w.cross(r), self.acceleration + al.cross(r) + w.cross(w.cross(r)))
    }
}

/// Each moving solid's scene index, motion and keyframes ([`crate::scene::Scene::moving_motions`]).
pub type Motions = Vec<(usize, BodyMotion, Vec<[f32; 4]>)>;

/// Each moving solid's (scene index, pose) at time `t`, body `k` of `states` for the floating
/// ones ([`pose_now`]): the exported frames' transforms.
pub fn poses_now(motions: &Motions, t: f64, states: &[BodyState]) -> Vec<(usize, Pose)> {
    motions.iter().enumerate().map(|(k, (solid, m, keys))| (*solid, pose_now(m, keys, t, states.get(k)))).collect()
}

/// The pose of a moving solid at `t`: a floating body's from its `state` where one is given
/// (the states read back with the particles), otherwise its path's ([`pose_at`]; a floating
/// body without a state is at rest).
pub fn pose_now(m: &BodyMotion, keys: &[[f32; 4]], t: f64, state: Option<&BodyState>) -> Pose {
    match state {
        Some(s) if m.translation == TRANSLATION_FLOATING => Pose::of_state(m, s),
        _ => pose_at(m, keys, t),
    }
}

/// Value, rate and second derivative of keyframes `keys` (`(τ, value…)`, τ ascending, at
/// least two) at `tau`, relative to the first key's value: straight segments or cubic Hermite
/// curves with Catmull–Rom tangents (zero at the first and last key). Before the first key
/// and after the last the value holds and the rates are zero. `f` picks the component.
fn keyframes(keys: &[[f32; 4]], tau: f64, smooth: bool, f: impl Fn(&[f32; 4]) -> DVec3) -> (DVec3, DVec3, DVec3) {
    let n = keys.len();
    let t = |k: usize| keys[k][0] as f64;
    let p0 = f(&keys[0]);
    if n < 2 || tau <= t(0) {
        return (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    }
    if tau >= t(n - 1) {
        return (f(&keys[n - 1]) - p0, DVec3::ZERO, DVec3::ZERO);
    }
    // the segment j with t(j) <= tau < t(j + 1): the last key at or before tau
    let (mut lo, mut hi) = (0usize, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if t(mid) <= tau {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let j = lo;
    let d = t(j + 1) - t(j);
    let u = (tau - t(j)) / d;
    let (a, b) = (f(&keys[j]), f(&keys[j + 1]));
    if !smooth {
        return (a + (b - a) * u - p0, (b - a) / d, DVec3::ZERO);
    }
    let tangent = |k: usize| if k == 0 || k == n - 1 { DVec3::ZERO } else { (f(&keys[k + 1]) - f(&keys[k - 1])) / (t(k + 1) - t(k - 1)) };
    let (ma, mb) = (tangent(j) * d, tangent(j + 1) * d);
    let (u2, u3) = (u * u, u * u * u);
    let p = a * (2.0 * u3 - 3.0 * u2 + 1.0) + ma * (u3 - 2.0 * u2 + u) + b * (-2.0 * u3 + 3.0 * u2) + mb * (u3 - u2);
    let v = a * (6.0 * u2 - 6.0 * u) + ma * (3.0 * u2 - 4.0 * u + 1.0) + b * (-6.0 * u2 + 6.0 * u) + mb * (3.0 * u2 - 2.0 * u);
    let acc = a * (12.0 * u - 6.0) + ma * (6.0 * u - 4.0) + b * (-12.0 * u + 6.0) + mb * (6.0 * u - 2.0);
    (p - p0, v / d, acc / (d * d))
}

/// `(A (sin(ωτ + φ) − sin φ), its rate, its second derivative)` for amplitude `a`.
fn sine(a: f64, period: f64, phase: f64, tau: f64) -> (f64, f64, f64) {
    let w = std::f64::consts::TAU / period;
    let (s, c) = (w * tau + phase).sin_cos();
    (a * (s - phase.sin()), a * w * c, -a * w * w * s)
}

/// The pose of `m` at simulated time `t` (f64: the twin of `body_pose` in
/// `shaders/motion.wgsl`).
pub fn pose_at(m: &BodyMotion, keys: &[[f32; 4]], t: f64) -> Pose {
    let start = m.start as f64;
    let end = m.end as f64;
    let moving = t >= start && t < end;
    let tau = (t.min(end) - start).max(0.0);
    let (mut translation, mut velocity, mut acceleration) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
    match m.translation {
        TRANSLATION_SINE => {
            let (p, v, a) = sine(1.0, m.period as f64, m.phase as f64, tau);
            let amp = DVec3::from(m.amplitude.map(f64::from));
            (translation, velocity, acceleration) = (amp * p, amp * v, amp * a);
        }
        TRANSLATION_KEYS => {
            let k = &keys[m.translation_first as usize..(m.translation_first + m.translation_count) as usize];
            (translation, velocity, acceleration) =
                keyframes(k, tau, m.smooth_translation != 0, |k| DVec3::new(k[1] as f64, k[2] as f64, k[3] as f64));
        }
        _ => {}
    }
    let (angle, mut angular_speed, mut angular_acc) = match m.rotation {
        ROTATION_SPIN => (m.angle as f64 * tau, m.angle as f64, 0.0),
        ROTATION_SINE => sine(m.angle as f64, m.angle_period as f64, m.angle_phase as f64, tau),
        ROTATION_KEYS => {
            let k = &keys[m.rotation_first as usize..(m.rotation_first + m.rotation_count) as usize];
            let (p, v, a) = keyframes(k, tau, m.smooth_rotation != 0, |k| DVec3::new(k[1] as f64, 0.0, 0.0));
            (p.x, v.x, a.x)
        }
        _ => (0.0, 0.0, 0.0),
    };
    if !moving {
        (velocity, acceleration, angular_speed, angular_acc) = (DVec3::ZERO, DVec3::ZERO, 0.0, 0.0);
    }
    let axis = DVec3::from(m.axis.map(f64::from));
    Pose {
        pivot: DVec3::from(m.pivot.map(f64::from)),
        translation,
        rotation: DQuat::from_axis_angle(axis.normalize_or(DVec3::Y), angle),
        angular_velocity: axis * angular_speed,
        angular_acceleration: axis * angular_acc,
        velocity,
        acceleration,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body() -> BodyMotion {
        BodyMotion { pivot: [0.5, 0.2, 0.1], axis: [0.0, 0.0, 1.0], end: f32::MAX, ..Default::default() }
    }

    /// The rates are the derivatives of the pose: central differences of a point's position
    /// against `point_rates`, for every kind of motion.
    #[test]
    fn rates_are_the_derivatives_of_the_pose() {
        let keys = vec![[0.0, 0.0, 0.0, 0.0], [0.5, 0.1, 0.0, -0.05], [1.0, 0.1, 0.2, 0.0], [2.0, 0.0, 0.0, 0.3]];
        let rot_keys = vec![[0.0, 0.0, 0.0, 0.0], [0.7, 0.4, 0.0, 0.0], [1.5, -0.2, 0.0, 0.0]];
        let mut all = keys.clone();
        all.extend(&rot_keys);
        let variants = [
            BodyMotion { translation: TRANSLATION_SINE, amplitude: [0.05, 0.01, 0.0], period: 0.8, phase: 0.3, ..body() },
            BodyMotion { rotation: ROTATION_SPIN, angle: 1.3, ..body() },
            BodyMotion { rotation: ROTATION_SINE, angle: 0.2, angle_period: 1.1, angle_phase: 0.5, ..body() },
            BodyMotion {
                translation: TRANSLATION_KEYS,
                translation_first: 0,
                translation_count: 4,
                smooth_translation: 1,
                rotation: ROTATION_KEYS,
                rotation_first: 4,
                rotation_count: 3,
                smooth_rotation: 1,
                ..body()
            },
            BodyMotion { translation: TRANSLATION_KEYS, translation_first: 0, translation_count: 4, ..body() },
        ];
        let x0 = DVec3::new(0.7, 0.25, 0.12);
        for (k, m) in variants.iter().enumerate() {
            for t in [0.13, 0.61, 0.93, 1.27] {
                let e = 1e-5;
                let at = |t| pose_at(m, &all, t).apply(x0);
                let v_fd = (at(t + e) - at(t - e)) / (2.0 * e);
                let a_fd = (at(t + e) - 2.0 * at(t) + at(t - e)) / (e * e);
                let pose = pose_at(m, &all, t);
                let (v, a) = pose.point_rates(pose.apply(x0));
                assert!((v - v_fd).length() < 1e-6, "variant {k} t {t}: v {v} against {v_fd}");
                // straight segments have no acceleration between keys
                assert!((a - a_fd).length() < 2e-3 * (1.0 + a.length()), "variant {k} t {t}: a {a} against {a_fd}");
                assert!((pose.invert(pose.apply(x0)) - x0).length() < 1e-12, "variant {k}: invert");
            }
        }
    }

    /// The pose starts at rest, holds before `start` and after `end`, and keyframes pass
    /// through their keys (relative to the first).
    #[test]
    fn motion_starts_at_rest_and_holds_outside_its_window() {
        let keys = vec![[0.0, 1.0, 1.0, 1.0], [1.0, 1.2, 1.0, 1.0], [3.0, 1.2, 1.5, 1.0]];
        let m = BodyMotion { translation: TRANSLATION_KEYS, translation_count: 3, start: 0.5, end: 2.5, ..body() };
        assert_eq!(pose_at(&m, &keys, 0.0).translation, DVec3::ZERO);
        assert_eq!(pose_at(&m, &keys, 0.5).translation, DVec3::ZERO);
        let p = pose_at(&m, &keys, 1.5);
        assert!((p.translation - DVec3::new(0.2, 0.0, 0.0)).length() < 1e-6, "{:?}", p.translation);
        let after = pose_at(&m, &keys, 9.0);
        assert_eq!(after.velocity, DVec3::ZERO);
        assert!((after.translation - pose_at(&m, &keys, 2.5 - 1e-9).translation).length() < 1e-6);
        let s = BodyMotion { translation: TRANSLATION_SINE, amplitude: [0.1, 0.0, 0.0], period: 1.0, phase: 1.0, ..body() };
        assert!(pose_at(&s, &[], 0.0).translation.length() < 1e-12, "a sine starts where the solid is");
    }
}
