//! Emitters and open faces of a scene: the points of an emitter, its schedule in steps for the
//! GPU ([`crate::sim::emit`]), the room the scene reserves for them, and their checks.

use super::SceneError;
use super::geometry::{DistanceField, Lattice, Shape};
use super::schema::{Emitter, EmitterShape, Scene};
use crate::sim::emit::{EmitterGpu, Emitters, MAX_EMITTERS, PHASE_ONE};
use crate::sim::params::open_face_bit;
use glam::DVec3;

/// Fastest an emitter may lay its layers down: half a spacing a step (a layer every two steps).
pub(crate) const MAX_STEP_LENGTH_OVER_SPACING: f64 = 0.5;

/// The unit direction and the two axes across it, (width, height) of [`EmitterShape`]:
/// the width is `direction × up` with up = y (x for a vertical direction), the height
/// `direction × width`.
pub(crate) fn emitter_axes(direction: [f32; 3]) -> (DVec3, DVec3, DVec3) {
    let d = glam::Vec3::from(direction).as_dvec3().normalize();
    let up = if d.y.abs() > 0.9 { DVec3::X } else { DVec3::Y };
    let u = d.cross(up).normalize();
    let v = d.cross(u);
    (d, u, v)
}

/// Points across a rectangle of `size` at spacing `s`, along its width and its height: as many
/// as fit, at least one.
fn rectangle_points(size: [f32; 2], s: f64) -> [i64; 2] {
    size.map(|l| ((l as f64 / s).round() as i64).max(1))
}

impl Scene {
    /// The bits of `SimParams::open_faces` for the scene's open faces.
    pub(crate) fn open_face_bits(&self) -> u32 {
        self.walls
            .open
            .iter()
            .map(|f| {
                let (axis, max) = f.axis_side();
                open_face_bit(axis, max)
            })
            .fold(0, |a, b| a | b)
    }

    /// The points of emitter `i`'s layer: a lattice of the spacing on its rectangle (centred in
    /// it, at least one point across each side) or its disc (centred on its centre).
    pub(crate) fn emitter_points(&self, i: usize) -> Vec<DVec3> {
        let e = &self.emitters[i];
        let s = self.physics.spacing as f64;
        let c = glam::Vec3::from(e.center).as_dvec3();
        let (_, u, v) = emitter_axes(e.direction);
        let mut out = Vec::new();
        match e.shape {
            EmitterShape::Rectangle { size } => {
                let n = rectangle_points(size, s);
                for j in 0..n[1] {
                    for k in 0..n[0] {
                        let a = (k as f64 + 0.5 - n[0] as f64 / 2.0) * s;
                        let b = (j as f64 + 0.5 - n[1] as f64 / 2.0) * s;
                        out.push(c + a * u + b * v);
                    }
                }
            }
            EmitterShape::Disc { radius } => {
                let r = radius as f64 / s;
                let m = r.floor() as i64;
                for j in -m..=m {
                    for k in -m..=m {
                        if ((k * k + j * j) as f64) <= r * r + 1e-9 {
                            out.push(c + (k as f64 * s) * u + (j as f64 * s) * v);
                        }
                    }
                }
            }
        }
        out
    }

    /// Emitter `i`'s steps: (start, end, period) as [`EmitterGpu`] holds them.
    fn emitter_steps(&self, i: usize) -> (u32, u32, u32) {
        let e = &self.emitters[i];
        let dt = self.physics.dt as f64;
        let to_step = |t: f32| ((t as f64 / dt).round()).clamp(0.0, (u32::MAX - 1) as f64) as u32;
        let start = to_step(e.start);
        let end = e.end.map_or(u32::MAX, to_step);
        // rounded up: a layer is never due before its time (at most 1/65536 step late each)
        let period = (self.physics.spacing as f64 / (e.speed as f64 * dt) * PHASE_ONE as f64).ceil();
        (start, end, period.clamp(PHASE_ONE as f64, u32::MAX as f64) as u32)
    }

    /// The emitters as the GPU runs them, each particle of `mass`.
    pub(crate) fn emitters_for_gpu(&self, mass: f32) -> Emitters {
        let mut out = Emitters::default();
        let dt = self.physics.dt;
        for i in 0..self.emitters.len() {
            let e = &self.emitters[i];
            let points = self.emitter_points(i);
            let (d, u, v) = emitter_axes(e.direction);
            let d = d.as_vec3();
            let (start_step, end_step, period) = self.emitter_steps(i);
            let s = self.physics.spacing;
            // the outline the points cover: half a spacing beyond the outer ones
            let (half_u, half_v) = match e.shape {
                EmitterShape::Rectangle { size } => {
                    let n = rectangle_points(size, s as f64);
                    (0.5 * n[0] as f32 * s, 0.5 * n[1] as f32 * s)
                }
                EmitterShape::Disc { radius } => (radius + 0.5 * s, -1.0),
            };
            out.emitters.push(EmitterGpu {
                velocity: (d * e.speed).into(),
                mass,
                direction: d.into(),
                step_length: e.speed * dt,
                center: e.center,
                zone: crate::physics::SUPPORT_OVER_SPACING * s,
                axis_u: u.as_vec3().into(),
                half_u,
                axis_v: v.as_vec3().into(),
                half_v,
                first_point: out.points.len() as u32,
                n_points: points.len() as u32,
                start_step,
                end_step,
                period,
                _pad: [0; 3],
            });
            let tag = f32::from_bits(i as u32);
            out.points.extend(points.iter().map(|p| [p.x as f32, p.y as f32, p.z as f32, tag]));
        }
        out
    }

    /// Particles the emitters create from start to end, if every one has an end.
    pub(crate) fn emitted_total(&self) -> Option<u64> {
        let e = self.emitters_for_gpu(0.0);
        e.emitters.iter().all(|e| e.end_step != u32::MAX).then(|| e.particles_in(u32::MAX as u64))
    }

    /// Values of the emitters and the open faces (before the meshes are read).
    pub(super) fn validate_inflow(&self, file: &str, fluid: u64) -> Result<(), SceneError> {
        let invalid = |field: String, value: String, allowed: String| SceneError::Invalid { file: file.to_owned(), field, value, allowed };
        let mut seen = Vec::new();
        for (k, f) in self.walls.open.iter().enumerate() {
            if seen.contains(f) {
                return Err(invalid(format!("walls.open[{k}]"), format!("{f:?}"), "each face once".into()));
            }
            seen.push(*f);
        }
        if self.emitters.len() > MAX_EMITTERS {
            return Err(invalid(
                "emitters".into(),
                format!("{} emitters", self.emitters.len()),
                format!("at most {MAX_EMITTERS} emitters"),
            ));
        }
        let (c, _) = super::setup::resolve_pressure(self);
        for (i, e) in self.emitters.iter().enumerate() {
            self.validate_emitter(file, i, e, c as f64)?;
        }
        // room for the emitted fluid
        let total = match (self.fluid_capacity, self.emitted_total()) {
            (Some(cap), _) => {
                if cap < fluid {
                    return Err(invalid(
                        "fluid_capacity".into(),
                        cap.to_string(),
                        format!("at least the {fluid} particles of the fluid entries"),
                    ));
                }
                cap
            }
            (None, Some(emitted)) => fluid + emitted,
            (None, None) => {
                let i = self.emitters.iter().position(|e| e.end.is_none()).unwrap_or(0);
                return Err(invalid(
                    format!("emitters[{i}].end"),
                    "none".into(),
                    "an end time, or a `fluid_capacity` for the scene (an emitter without an end creates fluid as long as the run goes)"
                        .into(),
                ));
            }
        };
        if total > super::validate::MAX_PARTICLES {
            return Err(invalid(
                "fluid_capacity".into(),
                total.to_string(),
                format!("at most 2^31 = {} fluid particles (the emitters' total without it)", super::validate::MAX_PARTICLES),
            ));
        }
        Ok(())
    }

    /// One emitter's values (`c`: the speed of sound): finite, a direction, a speed the step
    /// can carry, its times, its outline's size, and its points inside the domain.
    fn validate_emitter(&self, file: &str, i: usize, e: &Emitter, c: f64) -> Result<(), SceneError> {
        let invalid = |field: String, value: String, allowed: String| SceneError::Invalid { file: file.to_owned(), field, value, allowed };
        let p = &self.physics;
        let s = p.spacing as f64;
        let (dmin, dmax) = (glam::Vec3::from(self.domain.min).as_dvec3(), glam::Vec3::from(self.domain.max).as_dvec3());
        let field = |name: &str| format!("emitters[{i}].{name}");
        let finite = |name: &str, v: f32| {
            if v.is_finite() { Ok(()) } else { Err(invalid(field(name), v.to_string(), "a finite number".into())) }
        };
        for a in 0..3 {
            finite(&format!("center[{a}]"), e.center[a])?;
            finite(&format!("direction[{a}]"), e.direction[a])?;
        }
        finite("speed", e.speed)?;
        finite("start", e.start)?;
        if let Some(end) = e.end {
            finite("end", end)?;
        }
        let d = glam::Vec3::from(e.direction);
        if !(d.length() > 1e-6) {
            return Err(invalid(field("direction"), format!("{:?}", e.direction), "a direction of non-zero length".into()));
        }
        let fastest = (MAX_STEP_LENGTH_OVER_SPACING * s / p.dt as f64).min(0.5 * c);
        if !(e.speed > 0.0 && (e.speed as f64) <= fastest) {
            return Err(invalid(
                field("speed"),
                e.speed.to_string(),
                format!(
                    "(0, {fastest:.4}] m/s: below half the speed of sound ({:.4} m/s) and at most half a spacing per step (spacing {} m / dt {} s / 2)",
                    0.5 * c,
                    p.spacing,
                    p.dt
                ),
            ));
        }
        let last = (u32::MAX - 2) as f64 * p.dt as f64;
        if !(e.start >= 0.0 && (e.start as f64) < last) {
            return Err(invalid(field("start"), e.start.to_string(), format!("[0, {last:.4e}) s")));
        }
        if let Some(end) = e.end
            && !(end > e.start && (end as f64) <= last)
        {
            return Err(invalid(field("end"), end.to_string(), format!("({}, {last:.4e}] s (after start)", e.start)));
        }
        match e.shape {
            EmitterShape::Rectangle { size } => {
                for (a, l) in size.iter().enumerate() {
                    finite(&format!("shape.size[{a}]"), *l)?;
                    if !((*l as f64) >= s && *l <= 10000.0) {
                        return Err(invalid(
                            field(&format!("shape.size[{a}]")),
                            l.to_string(),
                            format!("[{s}, 10000] m (at least a spacing)"),
                        ));
                    }
                }
            }
            EmitterShape::Disc { radius } => {
                finite("shape.radius", radius)?;
                if !((radius as f64) >= 0.5 * s && radius <= 5000.0) {
                    return Err(invalid(
                        field("shape.radius"),
                        radius.to_string(),
                        format!("[{}, 5000] m (at least half a spacing)", 0.5 * s),
                    ));
                }
            }
        }
        // before its points are made: an outline that cannot fit in the domain, or one of far
        // more points than a layer may have, is refused from its size alone
        let (area, across) = match e.shape {
            EmitterShape::Rectangle { size } => (size[0] as f64 * size[1] as f64, (size[0] as f64).hypot(size[1] as f64)),
            EmitterShape::Disc { radius } => (std::f64::consts::PI * (radius as f64).powi(2), 2.0 * radius as f64),
        };
        let diagonal = (dmax - dmin).length();
        if across > diagonal {
            return Err(invalid(
                field("shape"),
                format!("{:?}, {across:.4} m across", e.shape),
                format!("an outline that fits in the domain (at most its diagonal, {diagonal:.4} m, across)"),
            ));
        }
        if area / (s * s) > 2.0 * (1u64 << 24) as f64 {
            return Err(invalid(
                field("shape"),
                format!("{:?}, about {:.3e} points", e.shape, area / (s * s)),
                format!("at most {} points a layer", 1 << 24),
            ));
        }
        // every point inside the domain, half a spacing from its faces
        let points = self.emitter_points(i);
        if points.len() > 1 << 24 {
            return Err(invalid(field("shape"), format!("{} points", points.len()), format!("at most {} points a layer", 1 << 24)));
        }
        let margin = 0.5 * s - 1e-6;
        if let Some(out) = points.iter().find(|x| x.cmplt(dmin + margin).any() || x.cmpgt(dmax - margin).any()) {
            return Err(invalid(
                field("center"),
                format!("{:?}", e.center),
                format!(
                    "an emitter inside the domain {:?}..{:?}, half a spacing from its faces (its point ({:.4}, {:.4}, {:.4}) is not)",
                    self.domain.min, self.domain.max, out.x, out.y, out.z
                ),
            ));
        }
        Ok(())
    }

    /// Emitters against the solids (after the meshes are read): no emitter inside a solid or
    /// sending its particles into one within the kernel's reach.
    pub(super) fn validate_inflow_bodies(&self, file: &str) -> Result<(), SceneError> {
        if self.solids.is_empty() {
            return Ok(());
        }
        let s = self.physics.spacing as f64;
        let h = crate::physics::SUPPORT_OVER_SPACING as f64 * s;
        let shapes: Vec<_> = (0..self.solids.len()).map(|j| self.solid_shape(j)).collect();
        let fields: Vec<Option<DistanceField>> =
            shapes.iter().map(|shape| if let Shape::Mesh(m) = shape { Some(DistanceField::new(m, 2.0 * s)) } else { None }).collect();
        // inside the solid or within a spacing of its surface; a path that goes in crosses the
        // surface, so past the emitter's own points the distance alone decides for a mesh
        let blocked = |j: usize, p: DVec3, first: bool| -> bool {
            let shape = &shapes[j];
            let (lo, hi) = shape.bounds();
            if p.cmplt(lo - s).any() || p.cmpgt(hi + s).any() {
                return false;
            }
            match (shape, &fields[j]) {
                (Shape::Primitive(prim, place), _) => prim.signed_distance(place.local(p)) < s,
                (_, Some(field)) => {
                    field.within(p, s).is_some() || (first && shape.inside(&Lattice::covering(p - 0.5 * s, s, p, p)).first() == Some(&true))
                }
                _ => false,
            }
        };
        for i in 0..self.emitters.len() {
            let (d, _, _) = emitter_axes(self.emitters[i].direction);
            // the first layers' path: the points and up to two support radii on, against each
            // solid grown by a spacing (its shell)
            let steps = (2.0 * h / (0.5 * s)).ceil() as usize;
            let path: Vec<(DVec3, bool)> =
                self.emitter_points(i).iter().flat_map(|p| (0..=steps).map(move |k| (*p + d * (k as f64 * 0.5 * s), k == 0))).collect();
            for j in 0..shapes.len() {
                if let Some((hit, _)) = path.iter().find(|(p, first)| blocked(j, *p, *first)) {
                    return Err(SceneError::Invalid {
                        file: file.to_owned(),
                        field: format!("emitters[{i}]"),
                        value: format!("an emitter whose particles reach solids[{j}] at ({:.4}, {:.4}, {:.4})", hit.x, hit.y, hit.z),
                        allowed: format!(
                            "an emitter whose first two support radii ({:.4} m) along its direction are clear of every solid by a spacing",
                            2.0 * h
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}
