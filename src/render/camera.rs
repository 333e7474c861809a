//! An orbit camera: it circles a target point. Drag to rotate, wheel to zoom, right-drag to pan;
//! [`OrbitCamera::frame`] fits a box into the view (the initial view and the reset key).

use glam::{Mat4, Vec3};

#[derive(Clone, Debug, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    /// Rotation about the vertical axis, radians.
    pub yaw: f32,
    /// Elevation above the horizontal plane, radians (kept inside ±89°).
    pub pitch: f32,
    /// Distance from the target, metres.
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

const PITCH_LIMIT: f32 = 89.0 * std::f32::consts::PI / 180.0;

impl OrbitCamera {
    /// A camera that shows the whole box `lo..hi` in a viewport of `aspect` (width / height),
    /// looking from the front, a little from above and from the right.
    pub(crate) fn frame(lo: Vec3, hi: Vec3, aspect: f32) -> Self {
        let fov_y = 40f32.to_radians();
        let mut cam = Self { target: (lo + hi) * 0.5, yaw: 0.45, pitch: 0.42, distance: 1.0, fov_y };
        let radius = ((hi - lo).length() * 0.5).max(1e-3);
        let half_x = ((fov_y * 0.5).tan() * aspect.max(0.05)).atan();
        let half = (fov_y * 0.5).min(half_x);
        cam.distance = radius / half.sin() * 1.02;
        cam
    }

    pub(crate) fn eye(&self) -> Vec3 {
        let dir = Vec3::new(self.pitch.cos() * self.yaw.sin(), self.pitch.sin(), self.pitch.cos() * self.yaw.cos());
        self.target + dir * self.distance
    }

    pub(crate) fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y)
    }

    /// Perspective projection with wgpu's 0..1 depth; near and far follow the distance so depth
    /// precision stays useful at every zoom.
    pub(crate) fn proj(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 0.01).max(1e-4);
        glam::camera::rh::proj::directx::perspective(self.fov_y, aspect.max(1e-3), near, self.distance * 20.0 + 10.0)
    }

    /// The unit direction the camera looks in.
    pub(crate) fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize()
    }

    /// The ray from the eye through the viewport's point at `ndc` (x right, y up, −1..1), for a
    /// viewport of `aspect` (width / height): origin and unit direction.
    pub(crate) fn ray(&self, ndc: [f32; 2], aspect: f32) -> (Vec3, Vec3) {
        let view = self.view();
        let (right, up) = (view.row(0).truncate(), view.row(1).truncate());
        let t = (self.fov_y * 0.5).tan();
        (self.eye(), (self.forward() + right * (ndc[0] * t * aspect.max(1e-3)) + up * (ndc[1] * t)).normalize())
    }

    /// Rotates by a mouse drag of (dx, dy) pixels.
    pub(crate) fn rotate(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-PITCH_LIMIT, PITCH_LIMIT);
    }

    /// Moves the target in the view plane by a drag of (dx, dy) pixels in a viewport
    /// `height` pixels high (the point under the cursor stays under it).
    pub(crate) fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let per_pixel = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        let view = self.view();
        let right = view.row(0).truncate();
        let up = view.row(1).truncate();
        self.target += (-right * dx + up * dy) * per_pixel;
    }

    /// Zooms by wheel `steps` (positive: closer).
    pub(crate) fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(1e-3, 1e5);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ray through a point's projection passes through the point.
    #[test]
    fn a_ray_through_a_projected_point_meets_it() {
        let cam = OrbitCamera::frame(Vec3::ZERO, Vec3::new(1.6, 0.8, 0.6), 1.5);
        for p in [Vec3::new(0.3, 0.2, 0.1), Vec3::new(1.5, 0.7, 0.5), Vec3::new(0.8, 0.0, 0.6)] {
            let clip = cam.proj(1.5) * cam.view() * p.extend(1.0);
            let (o, d) = cam.ray([clip.x / clip.w, clip.y / clip.w], 1.5);
            let miss = (p - o).cross(d).length();
            assert!(miss < 1e-5, "{p}: the ray misses by {miss} m");
        }
    }

    #[test]
    fn framed_box_is_inside_the_view() {
        let (lo, hi) = (Vec3::ZERO, Vec3::new(1.6, 0.8, 0.6));
        for aspect in [0.5, 1.0, 16.0 / 9.0] {
            let cam = OrbitCamera::frame(lo, hi, aspect);
            let m = cam.proj(aspect) * cam.view();
            for k in 0..8 {
                let p = Vec3::new(
                    if k & 1 == 0 { lo.x } else { hi.x },
                    if k & 2 == 0 { lo.y } else { hi.y },
                    if k & 4 == 0 { lo.z } else { hi.z },
                );
                let c = m * p.extend(1.0);
                let ndc = c.truncate() / c.w;
                assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z), "aspect {aspect}: corner {p} at {ndc}");
            }
        }
    }

    #[test]
    fn pan_moves_target_in_view_plane() {
        let mut cam = OrbitCamera::frame(Vec3::ZERO, Vec3::ONE, 1.0);
        let before = cam.clone();
        cam.pan(10.0, 0.0, 500.0);
        let moved = cam.target - before.target;
        assert!(moved.length() > 0.0);
        assert!(moved.dot(before.target - before.eye()).abs() < 1e-5);
    }
}
