//! Shapes a scene places in the domain — primitives (box, sphere, cylinder) and closed triangle
//! meshes — and what the setup asks of them: which points of a lattice lie inside, and how deep.
//!
//! **Inside a mesh**: the winding number, computed exactly along each lattice row: the row is a
//! ray, and every triangle it crosses adds +1 or −1 by the side it crosses from; a point's
//! winding number is the sum of the crossings before it. Rows are moved off the lattice by an
//! irrational fraction of a spacing, so no row passes exactly through an edge or a vertex of a
//! mesh whose vertices sit on round coordinates (the case where counting crossings breaks).
//! Winding numbers need no consistent "first hit" and stay right where a mesh has overlapping
//! parts. A mesh must be closed (every edge shared by exactly two triangles, in opposite
//! directions), else inside means nothing: [`TriMesh::check_closed`].
//!
//! **How deep**: the distance to the nearest triangle, found through a grid of buckets of
//! triangles, and only asked of points already inside (the boundary shell, docs/PHYSICS.md).

use glam::{DMat3, DVec3, Vec3};

/// Position, rotation and scale of a shape: a point `p` of the shape's own frame is at
/// `translation + rotation · (scale · p)` in the scene.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub scale: f64,
    pub rotation: DMat3,
    pub translation: DVec3,
}

impl Placement {
    /// `rotation` in degrees about x, then y, then z (fixed axes).
    pub fn new(scale: f32, rotation_deg: [f32; 3], translation: [f32; 3]) -> Self {
        let [rx, ry, rz] = rotation_deg.map(|d| (d as f64).to_radians());
        let rotation = DMat3::from_rotation_z(rz) * DMat3::from_rotation_y(ry) * DMat3::from_rotation_x(rx);
        Self { scale: scale as f64, rotation, translation: Vec3::from(translation).as_dvec3() }
    }

    pub(crate) fn apply(&self, p: DVec3) -> DVec3 {
        self.translation + self.rotation * (p * self.scale)
    }

    /// A scene point in the shape's frame (scale left out: primitives are sized in metres).
    pub(crate) fn local(&self, p: DVec3) -> DVec3 {
        self.rotation.transpose() * (p - self.translation)
    }
}

/// An analytic solid, in its own frame (centred at the origin; the cylinder's axis is y).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    Box { half: DVec3 },
    Sphere { radius: f64 },
    Cylinder { radius: f64, half_height: f64 },
}

impl Primitive {
    /// Signed distance in the shape's frame: negative inside (exact for the sphere and the
    /// cylinder's sides; inside the box and the cylinder, the distance to the nearest face).
    pub(crate) fn signed_distance(&self, p: DVec3) -> f64 {
        match *self {
            Primitive::Box { half } => {
                let q = p.abs() - half;
                q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
            }
            Primitive::Sphere { radius } => p.length() - radius,
            Primitive::Cylinder { radius, half_height } => {
                let d = glam::DVec2::new(glam::DVec2::new(p.x, p.z).length() - radius, p.y.abs() - half_height);
                d.max(glam::DVec2::ZERO).length() + d.max_element().min(0.0)
            }
        }
    }

    /// Signed distance to the shape with its convex edges and corners rounded to radius `r`
    /// (the shape shrunk by `r`, then grown by `r` again): the same as [`Self::signed_distance`]
    /// on a face, and near an edge the distance to a curved edge of radius `r`.
    pub(crate) fn rounded_signed_distance(&self, p: DVec3, r: f64) -> f64 {
        let shrunk = match *self {
            Primitive::Box { half } => Primitive::Box { half: (half - DVec3::splat(r)).max(DVec3::ZERO) },
            Primitive::Sphere { radius } => Primitive::Sphere { radius: (radius - r).max(0.0) },
            Primitive::Cylinder { radius, half_height } => {
                Primitive::Cylinder { radius: (radius - r).max(0.0), half_height: (half_height - r).max(0.0) }
            }
        };
        shrunk.signed_distance(p) - r
    }

    /// Half the extent of a box around the shape, in its own frame.
    pub(crate) fn half_extent(&self) -> DVec3 {
        match *self {
            Primitive::Box { half } => half,
            Primitive::Sphere { radius } => DVec3::splat(radius),
            Primitive::Cylinder { radius, half_height } => DVec3::new(radius, half_height, radius),
        }
    }
}

/// A triangle mesh in scene coordinates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    pub vertices: Vec<DVec3>,
    pub triangles: Vec<[u32; 3]>,
}

/// Why a mesh cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshError {
    #[error("cannot read the mesh: {0}")]
    Read(String),
    #[error("the mesh has no triangles")]
    Empty,
    #[error("the mesh has {0} triangles: allowed at most {1}")]
    TooLarge(usize, usize),
    #[error("the mesh has a non-finite vertex coordinate (vertex {0})")]
    NonFinite(usize),
    #[error(
        "the mesh is not closed: the edge from {0} to {1} belongs to {2} triangle(s) facing that way and {3} facing back (a closed mesh has one of each on every edge)"
    )]
    NotClosed(String, String, usize, usize),
}

/// The most triangles a scene's mesh may have.
pub(crate) const MAX_TRIANGLES: usize = 2_000_000;

fn vec_text(v: DVec3) -> String {
    format!("({:.4}, {:.4}, {:.4})", v.x, v.y, v.z)
}

/// Triangles (corner indices) covering a simple polygon in 3D, by ear clipping in the plane
/// of its Newell normal, keeping its winding; `None` for a polygon without area or with
/// crossing edges (no ear left). Fewer than three corners give no triangle.
pub(crate) fn triangulate_polygon(points: &[DVec3]) -> Option<Vec<[usize; 3]>> {
    let n = points.len();
    if n < 3 {
        return Some(vec![]);
    }
    if n == 3 {
        return Some(vec![[0, 1, 2]]);
    }
    let mut normal = DVec3::ZERO;
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        normal += DVec3::new((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y));
    }
    let scale = points.iter().map(|p| (*p - points[0]).length()).fold(0.0, f64::max);
    if !(normal.length() > 1e-12 * scale * scale) {
        return None;
    }
    // two axes of the plane, so that the polygon runs counter-clockwise in them
    let u = normal.any_orthonormal_vector();
    let v = normal.normalize().cross(u);
    let flat: Vec<glam::DVec2> = points.iter().map(|p| glam::DVec2::new(p.dot(u), p.dot(v))).collect();
    let cross = |o: glam::DVec2, a: glam::DVec2, b: glam::DVec2| (a - o).perp_dot(b - o);
    let eps = 1e-12 * scale * scale;
    let mut left: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n - 2);
    while left.len() > 3 {
        let m = left.len();
        let ear = (0..m).find(|&k| {
            let (a, b, c) = (flat[left[(k + m - 1) % m]], flat[left[k]], flat[left[(k + 1) % m]]);
            if cross(a, b, c) <= eps {
                return false; // a reflex or flat corner
            }
            // no other corner inside or on the triangle
            left.iter().all(|&j| {
                let p = flat[j];
                j == left[(k + m - 1) % m]
                    || j == left[k]
                    || j == left[(k + 1) % m]
                    || cross(a, b, p) < -eps
                    || cross(b, c, p) < -eps
                    || cross(c, a, p) < -eps
            })
        })?;
        out.push([left[(ear + m - 1) % m], left[ear], left[(ear + 1) % m]]);
        left.remove(ear);
    }
    let (a, b, c) = (flat[left[0]], flat[left[1]], flat[left[2]]);
    if cross(a, b, c) <= eps {
        return None;
    }
    out.push([left[0], left[1], left[2]]);
    Some(out)
}

impl TriMesh {
    /// Reads an OBJ (any object; polygons triangulated by ear clipping, so concave faces are
    /// right) or an STL file (ASCII or binary), by the file's extension. A UTF-8 byte-order mark
    /// before a text mesh is skipped.
    pub fn load(path: &std::path::Path) -> Result<TriMesh, MeshError> {
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        if !matches!(ext.as_deref(), Some("obj" | "stl")) {
            return Err(MeshError::Read("the file name must end in .obj or .stl".into()));
        }
        let mut bytes = crate::files::read_regular(path).map_err(|e| MeshError::Read(e.to_string()))?;
        // a UTF-8 byte-order mark, as some editors write, before a text mesh (an OBJ, an ASCII
        // STL; a binary STL's 80-byte header may start with any bytes and is left alone)
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        if bytes.starts_with(BOM) && (ext.as_deref() == Some("obj") || bytes[BOM.len()..].trim_ascii_start().starts_with(b"solid")) {
            bytes.drain(..BOM.len());
        }
        let mesh = match ext.as_deref() {
            Some("obj") => {
                // polygons are triangulated here (ear clipping): tobj's fan crosses a concave face's notch
                let options = tobj::LoadOptions { triangulate: false, single_index: true, ..Default::default() };
                // materials are not read: a mesh is only its shape
                let (models, _) = tobj::load_obj_buf(&mut std::io::Cursor::new(&bytes), &options, |_| Err(tobj::LoadError::OpenFileFailed))
                    .map_err(|e| MeshError::Read(format!("not a valid OBJ file ({e})")))?;
                let mut mesh = TriMesh::default();
                for m in models {
                    let base = mesh.vertices.len() as u32;
                    let p = &m.mesh.positions;
                    mesh.vertices.extend(p.chunks_exact(3).map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)));
                    let indices = &m.mesh.indices;
                    if m.mesh.face_arities.is_empty() {
                        mesh.triangles.extend(indices.chunks_exact(3).map(|t| [base + t[0], base + t[1], base + t[2]]));
                        continue;
                    }
                    let mut start = 0;
                    for (face, &n) in m.mesh.face_arities.iter().enumerate() {
                        let corners = indices
                            .get(start..start + n as usize)
                            .ok_or_else(|| MeshError::Read(format!("object \"{}\": face {} is cut short", m.name, face + 1)))?;
                        start += n as usize;
                        if corners.iter().any(|&i| (base + i) as usize >= mesh.vertices.len()) {
                            return Err(MeshError::Read(format!(
                                "object \"{}\": face {} refers to a vertex the file does not have",
                                m.name,
                                face + 1
                            )));
                        }
                        let points: Vec<DVec3> = corners.iter().map(|&i| mesh.vertices[(base + i) as usize]).collect();
                        let triangles = triangulate_polygon(&points).ok_or_else(|| {
                            MeshError::Read(format!(
                                "object \"{}\": face {} ({} corners) is not a simple polygon (its edges cross, or it has no area): split it into triangles",
                                m.name,
                                face + 1,
                                n
                            ))
                        })?;
                        mesh.triangles.extend(triangles.into_iter().map(|t| t.map(|k| base + corners[k])));
                    }
                }
                mesh
            }
            Some("stl") => {
                let stl = stl_io::read_stl(&mut std::io::Cursor::new(&bytes))
                    .map_err(|e| MeshError::Read(format!("not a valid STL file ({e})")))?;
                TriMesh {
                    vertices: stl.vertices.iter().map(|v| DVec3::new(v.0[0] as f64, v.0[1] as f64, v.0[2] as f64)).collect(),
                    triangles: stl.faces.iter().map(|f| f.vertices.map(|i| i as u32)).collect(),
                }
            }
            _ => unreachable!("checked above"),
        };
        if mesh.triangles.is_empty() {
            return Err(MeshError::Empty);
        }
        if mesh.triangles.len() > MAX_TRIANGLES {
            return Err(MeshError::TooLarge(mesh.triangles.len(), MAX_TRIANGLES));
        }
        if let Some(i) = mesh.vertices.iter().position(|v| !v.is_finite()) {
            return Err(MeshError::NonFinite(i));
        }
        if let Some(t) = mesh.triangles.iter().find(|t| t.iter().any(|&i| i as usize >= mesh.vertices.len())) {
            return Err(MeshError::Read(format!("a triangle refers to vertex {}, of {}", t.iter().max().unwrap(), mesh.vertices.len())));
        }
        Ok(mesh)
    }

    /// The mesh moved by `placement`.
    pub(crate) fn placed(&self, placement: &Placement) -> TriMesh {
        TriMesh { vertices: self.vertices.iter().map(|&v| placement.apply(v)).collect(), triangles: self.triangles.clone() }
    }

    /// Vertices at the same position made one, and triangles with two equal corners dropped.
    fn welded(&self) -> TriMesh {
        let mut index = std::collections::HashMap::new();
        let mut vertices = Vec::new();
        let map: Vec<u32> = self
            .vertices
            .iter()
            .map(|v| {
                let key = [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()];
                *index.entry(key).or_insert_with(|| {
                    vertices.push(*v);
                    vertices.len() as u32 - 1
                })
            })
            .collect();
        let triangles =
            self.triangles.iter().map(|t| t.map(|i| map[i as usize])).filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).collect();
        TriMesh { vertices, triangles }
    }

    /// Closed: after welding equal vertices, every directed edge is matched by exactly one
    /// triangle using it backwards.
    pub fn check_closed(&self) -> Result<(), MeshError> {
        let m = self.welded();
        let mut edges: std::collections::HashMap<(u32, u32), (usize, usize)> = std::collections::HashMap::new();
        for t in &m.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                let e = edges.entry((a.min(b), a.max(b))).or_default();
                if a < b {
                    e.0 += 1;
                } else {
                    e.1 += 1;
                }
            }
        }
        let mut open: Vec<_> = edges.into_iter().filter(|(_, (f, b))| !(*f == 1 && *b == 1)).collect();
        open.sort_by_key(|(e, _)| *e);
        if let Some(((a, b), (f, back))) = open.first() {
            return Err(MeshError::NotClosed(vec_text(m.vertices[*a as usize]), vec_text(m.vertices[*b as usize]), *f, *back));
        }
        Ok(())
    }

    pub(crate) fn bounds(&self) -> (DVec3, DVec3) {
        let lo = self.vertices.iter().fold(DVec3::splat(f64::INFINITY), |a, v| a.min(*v));
        let hi = self.vertices.iter().fold(DVec3::splat(f64::NEG_INFINITY), |a, v| a.max(*v));
        (lo, hi)
    }

    /// Enclosed volume (divergence theorem; positive for outward-facing triangles).
    pub fn volume(&self) -> f64 {
        self.triangles.iter().map(|t| self.corner(t, 0).dot(self.corner(t, 1).cross(self.corner(t, 2))) / 6.0).sum()
    }

    fn corner(&self, t: &[u32; 3], k: usize) -> DVec3 {
        self.vertices[t[k] as usize]
    }
}

/// A lattice: points `origin + (i, j, k) · spacing` for `i < n[0]` etc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lattice {
    pub origin: DVec3,
    pub spacing: f64,
    pub n: [usize; 3],
}

impl Lattice {
    /// The points of the lattice anchored at `anchor` (a point is at `anchor + (i + ½)·s`) that
    /// fall within `[lo, hi]`.
    pub(crate) fn covering(anchor: DVec3, spacing: f64, lo: DVec3, hi: DVec3) -> Lattice {
        let first = ((lo - anchor) / spacing - 0.5).ceil();
        let last = ((hi - anchor) / spacing - 0.5).floor();
        let n = (last - first + 1.0).max(DVec3::ZERO);
        Lattice { origin: anchor + (first + 0.5) * spacing, spacing, n: [n.x as usize, n.y as usize, n.z as usize] }
    }

    /// A lattice centred in the box `[lo, hi]`: per axis as many points as round(extent / s)
    /// (at least one), as far from one face as from the other (between s/4 and 3s/4 from
    /// each), so a box's corners are as near a point as the lattice allows.
    pub(crate) fn centred(lo: DVec3, hi: DVec3, spacing: f64) -> Lattice {
        let n = ((hi - lo) / spacing).round().max(DVec3::ONE);
        let origin = (lo + hi) * 0.5 - (n - 1.0) * spacing * 0.5;
        Lattice { origin, spacing, n: [n.x as usize, n.y as usize, n.z as usize] }
    }

    /// Every point, in index order.
    pub(crate) fn points(&self) -> impl Iterator<Item = DVec3> + '_ {
        let [n0, n1, n2] = self.n;
        (0..n2).flat_map(move |k| (0..n1).flat_map(move |j| (0..n0).map(move |i| self.point(i, j, k))))
    }

    pub(crate) fn point(&self, i: usize, j: usize, k: usize) -> DVec3 {
        self.origin + DVec3::new(i as f64, j as f64, k as f64) * self.spacing
    }

    pub(crate) fn len(&self) -> usize {
        self.n[0] * self.n[1] * self.n[2]
    }
}

/// Rows are moved off the lattice by these fractions of a spacing (irrational: no row meets an
/// edge or a vertex on round coordinates).
const ROW_SHIFT: [f64; 2] = [1e-4 * std::f64::consts::SQRT_2, 1e-4 * std::f64::consts::E];

/// Winding numbers of the lattice's points with respect to `mesh`, row by row along x: index
/// `i + n0 · (j + n1 · k)`. Inside a closed, outward-facing mesh 1, outside 0.
pub(crate) fn winding_numbers(mesh: &TriMesh, lattice: &Lattice) -> Vec<i32> {
    let [n0, n1, n2] = lattice.n;
    let mut out = vec![0i32; lattice.len()];
    if out.is_empty() {
        return out;
    }
    let s = lattice.spacing;
    // the triangles by the rows (j, k) their y–z shadow may cross
    let mut rows: Vec<Vec<u32>> = vec![Vec::new(); n1 * n2];
    for (ti, t) in mesh.triangles.iter().enumerate() {
        let (a, b, c) = (mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
        let lo = a.min(b).min(c);
        let hi = a.max(b).max(c);
        let j0 = (((lo.y - lattice.origin.y) / s).floor() - 1.0).max(0.0) as usize;
        let j1 = (((hi.y - lattice.origin.y) / s).ceil() + 1.0).clamp(0.0, n1 as f64 - 1.0) as usize;
        let k0 = (((lo.z - lattice.origin.z) / s).floor() - 1.0).max(0.0) as usize;
        let k1 = (((hi.z - lattice.origin.z) / s).ceil() + 1.0).clamp(0.0, n2 as f64 - 1.0) as usize;
        if hi.y < lattice.origin.y - s || hi.z < lattice.origin.z - s || j0 >= n1 || k0 >= n2 {
            continue;
        }
        for k in k0..=k1 {
            for j in j0..=j1 {
                rows[j + n1 * k].push(ti as u32);
            }
        }
    }
    let mut crossings: Vec<(f64, i32)> = Vec::new();
    for k in 0..n2 {
        for j in 0..n1 {
            let p = lattice.point(0, j, k);
            let (y, z) = (p.y + ROW_SHIFT[0] * s, p.z + ROW_SHIFT[1] * s);
            crossings.clear();
            for &ti in &rows[j + n1 * k] {
                let t = &mesh.triangles[ti as usize];
                let (a, b, c) = (mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
                // barycentric coordinates of (y, z) in the triangle's y–z shadow
                let d = (b.y - a.y) * (c.z - a.z) - (c.y - a.y) * (b.z - a.z);
                if d == 0.0 {
                    continue; // edge-on to the row: crossed by no row
                }
                let u = ((y - a.y) * (c.z - a.z) - (c.y - a.y) * (z - a.z)) / d;
                let v = ((b.y - a.y) * (z - a.z) - (y - a.y) * (b.z - a.z)) / d;
                if u < 0.0 || v < 0.0 || u + v > 1.0 {
                    continue;
                }
                let x = a.x + u * (b.x - a.x) + v * (c.x - a.x);
                // d is the normal's x component: where an outward normal faces −x (d < 0), the
                // row, running along +x, goes in
                crossings.push((x, if d < 0.0 { 1 } else { -1 }));
            }
            if crossings.is_empty() {
                continue;
            }
            crossings.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut w = 0;
            let mut c = 0;
            for i in 0..n0 {
                let x = lattice.origin.x + i as f64 * s;
                while c < crossings.len() && crossings[c].0 < x {
                    w += crossings[c].1;
                    c += 1;
                }
                out[i + n0 * (j + n1 * k)] = w;
            }
        }
    }
    out
}

/// Distances to a mesh's surface, through buckets of triangles.
pub(crate) struct DistanceField<'a> {
    mesh: &'a TriMesh,
    lo: DVec3,
    cell: f64,
    n: [usize; 3],
    buckets: Vec<Vec<u32>>,
}

impl<'a> DistanceField<'a> {
    /// Buckets of side `cell` (queries up to about that distance are fast).
    pub(crate) fn new(mesh: &'a TriMesh, cell: f64) -> Self {
        let (lo, hi) = mesh.bounds();
        let lo = lo - DVec3::splat(cell);
        let n = ((hi + DVec3::splat(cell) - lo) / cell).ceil().max(DVec3::ONE);
        // keep the bucket count bounded for a huge mesh at a small spacing
        let mut cell = cell;
        let mut n = [n.x as usize, n.y as usize, n.z as usize];
        while n[0] * n[1] * n[2] > 8_000_000 {
            cell *= 2.0;
            n = n.map(|v| v.div_ceil(2));
        }
        let mut buckets = vec![Vec::new(); n[0] * n[1] * n[2]];
        for (ti, t) in mesh.triangles.iter().enumerate() {
            let (a, b, c) = (mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
            let b0 = ((a.min(b).min(c) - lo) / cell).floor();
            let b1 = ((a.max(b).max(c) - lo) / cell).floor();
            for z in b0.z as usize..=(b1.z as usize).min(n[2] - 1) {
                for y in b0.y as usize..=(b1.y as usize).min(n[1] - 1) {
                    for x in b0.x as usize..=(b1.x as usize).min(n[0] - 1) {
                        buckets[x + n[0] * (y + n[1] * z)].push(ti as u32);
                    }
                }
            }
        }
        Self { mesh, lo, cell, n, buckets }
    }

    /// The distance from `p` to the surface if it is at most `limit`, else None.
    pub(crate) fn within(&self, p: DVec3, limit: f64) -> Option<f64> {
        let b0 = ((p - DVec3::splat(limit) - self.lo) / self.cell).floor().max(DVec3::ZERO);
        let b1 = ((p + DVec3::splat(limit) - self.lo) / self.cell).floor();
        let mut best = limit;
        let mut found = false;
        for z in b0.z as usize..=(b1.z.max(0.0) as usize).min(self.n[2] - 1) {
            for y in b0.y as usize..=(b1.y.max(0.0) as usize).min(self.n[1] - 1) {
                for x in b0.x as usize..=(b1.x.max(0.0) as usize).min(self.n[0] - 1) {
                    for &ti in &self.buckets[x + self.n[0] * (y + self.n[1] * z)] {
                        let t = &self.mesh.triangles[ti as usize];
                        let d = point_triangle_distance(p, self.mesh.corner(t, 0), self.mesh.corner(t, 1), self.mesh.corner(t, 2));
                        if d <= best {
                            best = d;
                            found = true;
                        }
                    }
                }
            }
        }
        found.then_some(best)
    }
}

/// Distance from `p` to the triangle `abc` (Ericson, Real-Time Collision Detection, 5.1.5).
pub(crate) fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return ap.length();
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return bp.length();
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (p - (a + ab * v)).length();
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return cp.length();
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (p - (a + ac * w)).length();
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (p - (b + (c - b) * w)).length();
    }
    let denom = 1.0 / (va + vb + vc);
    let v = vb * denom;
    let w = vc * denom;
    (p - (a + ab * v + ac * w)).length()
}

/// A UV sphere (outward-facing), for tests and the project's assets.
pub fn uv_sphere(radius: f64, rings: usize, segments: usize) -> TriMesh {
    use std::f64::consts::PI;
    let mut m = TriMesh::default();
    m.vertices.push(DVec3::new(0.0, radius, 0.0));
    for r in 1..rings {
        let theta = PI * r as f64 / rings as f64;
        for s in 0..segments {
            let phi = 2.0 * PI * s as f64 / segments as f64;
            m.vertices.push(DVec3::new(theta.sin() * phi.cos(), theta.cos(), theta.sin() * phi.sin()) * radius);
        }
    }
    m.vertices.push(DVec3::new(0.0, -radius, 0.0));
    let last = m.vertices.len() as u32 - 1;
    let ring = |r: usize, s: usize| 1 + (r * segments + s % segments) as u32;
    for s in 0..segments {
        m.triangles.push([0, ring(0, s + 1), ring(0, s)]);
        m.triangles.push([last, ring(rings - 2, s), ring(rings - 2, s + 1)]);
    }
    for r in 0..rings - 2 {
        for s in 0..segments {
            m.triangles.push([ring(r, s), ring(r, s + 1), ring(r + 1, s + 1)]);
            m.triangles.push([ring(r, s), ring(r + 1, s + 1), ring(r + 1, s)]);
        }
    }
    m
}

/// A closed surface of revolution about y through the profile points (r, y), in order from the
/// bottom centre round to the top centre (both r = 0), outward-facing when the profile runs
/// anticlockwise in the (r, y) plane.
pub fn revolve(profile: &[(f64, f64)], segments: usize) -> TriMesh {
    use std::f64::consts::PI;
    let mut m = TriMesh::default();
    let mut index = Vec::new();
    for &(r, y) in profile {
        if r == 0.0 {
            index.push(vec![m.vertices.len() as u32; segments]);
            m.vertices.push(DVec3::new(0.0, y, 0.0));
        } else {
            let base = m.vertices.len() as u32;
            for s in 0..segments {
                let phi = 2.0 * PI * s as f64 / segments as f64;
                m.vertices.push(DVec3::new(r * phi.cos(), y, -r * phi.sin()));
            }
            index.push((0..segments as u32).map(|s| base + s).collect());
        }
    }
    for w in index.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        for s in 0..segments {
            let t = (s + 1) % segments;
            let quad = [a[s], a[t], b[t], b[s]];
            for tri in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
                if tri[0] != tri[1] && tri[1] != tri[2] && tri[0] != tri[2] {
                    m.triangles.push(tri);
                }
            }
        }
    }
    m
}

/// Writes a mesh as OBJ text (positions and faces).
pub fn to_obj(mesh: &TriMesh, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    for v in &mesh.vertices {
        out.push_str(&format!("v {:.6} {:.6} {:.6}\n", v.x, v.y, v.z));
    }
    for t in &mesh.triangles {
        out.push_str(&format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A primitive's closed-form mass properties match those of its mesh (exact for the box;
    /// within the facets' error for the sphere and the cylinder), turned and moved with it.
    #[test]
    fn mass_properties_of_primitives_match_their_meshes() {
        let place = Placement::new(1.0, [20.0, -35.0, 50.0], [0.3, 1.2, -0.4]);
        for (prim, segments, tol) in [
            (Primitive::Box { half: DVec3::new(0.1, 0.25, 0.05) }, 4, 1e-12),
            (Primitive::Sphere { radius: 0.2 }, 256, 2e-3),
            (Primitive::Cylinder { radius: 0.1, half_height: 0.3 }, 256, 2e-3),
        ] {
            let exact = Shape::Primitive(prim, place).mass_properties();
            let mesh = primitive_mesh(&prim, &place, segments).mass_properties();
            assert!((mesh.volume / exact.volume - 1.0).abs() < tol, "{prim:?}: volume {} against {}", mesh.volume, exact.volume);
            assert!((mesh.centre - exact.centre).length() < 1e-9, "{prim:?}: centre {} against {}", mesh.centre, exact.centre);
            let scale = exact.inertia.x_axis.length();
            for (a, b) in mesh.inertia.to_cols_array().iter().zip(exact.inertia.to_cols_array()) {
                assert!((a - b).abs() < tol * scale, "{prim:?}: inertia {} against {}", mesh.inertia, exact.inertia);
            }
        }
        // a box's inertia about its centre, by hand: m (b² + c²) / 12 about x
        let b = Shape::Block(DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)).mass_properties();
        assert!((b.volume - 6.0).abs() < 1e-12 && (b.inertia.x_axis.x - 6.0 * 13.0 / 12.0).abs() < 1e-12);
    }

    /// A long thin triangle (a cylinder cap's fan: 40 m by 5 m) is sampled in proportion to its
    /// area, not its longest edge squared, and every point of it has a sample within a step;
    /// the meshes of large round primitives have their facets within a tenth of a spacing.
    #[test]
    fn surface_samples_cost_their_area_and_facets_stay_close() {
        let (a, b, c) = (DVec3::ZERO, DVec3::new(40.0, 0.0, 0.0), DVec3::new(40.0, 0.0, 5.2));
        let step = 0.025;
        let mut points = Vec::new();
        triangle_samples(a, b, c, step, |q| points.push(q));
        let area = 0.5 * 40.0 * 5.2;
        let n = points.len() as f64;
        assert!(n < 1.3 * area / (step * step) && n > 0.9 * area / (step * step), "{n} samples for {area} m²");
        // every sample on the triangle (y = 0, 0 ≤ z ≤ 5.2 x / 40)
        assert!(points.iter().all(|p| p.y == 0.0 && p.z >= -1e-9 && p.z <= 5.2 * p.x / 40.0 + 1e-9));
        // a sphere of radius 30 m at 5 cm: facets within 0.1 spacing of the surface
        let (r, s) = (30.0, 0.05);
        let n = circle_segments(r, s);
        let m = primitive_mesh(&Primitive::Sphere { radius: r }, &Placement::new(1.0, [0.0; 3], [0.0; 3]), n);
        let deepest =
            m.triangles.iter().map(|t| r - ((m.corner(t, 0) + m.corner(t, 1) + m.corner(t, 2)) / 3.0).length()).fold(0.0, f64::max);
        assert!(deepest <= 0.1 * s, "{n} segments: a facet's centre {deepest} m inside");
        assert_eq!(circle_segments(0.1, 0.05), 48);
    }

    /// The coverage check finds a hole: a unit cube's surface against a lattice of points over
    /// all of it is covered, against the same with the points near x = 1 taken away it is not,
    /// and the gap it reports is where the points are missing.
    #[test]
    fn coverage_gaps_are_found_where_the_points_are_missing() {
        let cube = primitive_mesh(&Primitive::Box { half: DVec3::splat(0.5) }, &Placement::new(1.0, [0.0; 3], [0.0; 3]), 4);
        let s = 0.05;
        let l = Lattice::covering(DVec3::splat(-0.5), s, DVec3::splat(-0.5), DVec3::splat(0.5));
        let all: Vec<DVec3> = l.points().collect();
        assert_eq!(coverage_gap(&cube, &all, 0.5 * s, 1.5 * s), None);
        let holed: Vec<DVec3> = all.iter().copied().filter(|p| p.x < 0.3).collect();
        let (at, d) = coverage_gap(&cube, &holed, 0.5 * s, 1.5 * s).expect("a gap");
        assert!(at.x > 0.3 && d > 1.5 * s, "{at:?} {d}");
    }

    /// An L-shaped prism whose two caps are concave 6-gons: ear clipping covers each cap
    /// exactly (tobj's fan crossed the notch), so the mesh is closed and holds the L's volume.
    /// Given with a UTF-8 byte-order mark it reads the same; so does an ASCII STL with one.
    #[test]
    fn concave_faces_and_byte_order_marks_read_right() {
        let dir = std::env::temp_dir().join(format!("rillet-ngon-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // the L in the xy-plane: 2 × 2 with the 1 × 1 corner at (1..2, 1..2) cut away; depth 1
        let l = [(0.0, 0.0), (2.0, 0.0), (2.0, 1.0), (1.0, 1.0), (1.0, 2.0), (0.0, 2.0)];
        let mut obj = String::new();
        for z in [0.0, 1.0] {
            for (x, y) in l {
                obj.push_str(&format!("v {x} {y} {z}\n"));
            }
        }
        obj.push_str("f 6 5 4 3 2 1\nf 7 8 9 10 11 12\n"); // bottom (facing -z), top (+z)
        for i in 0..6 {
            let j = (i + 1) % 6;
            obj.push_str(&format!("f {} {} {} {}\n", i + 1, j + 1, j + 7, i + 7));
        }
        for (name, bom) in [("l.obj", ""), ("l-bom.obj", "\u{feff}")] {
            let path = dir.join(name);
            std::fs::write(&path, format!("{bom}{obj}")).unwrap();
            let m = TriMesh::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            m.check_closed().unwrap();
            assert_eq!(m.triangles.len(), 2 * 4 + 6 * 2, "{name}");
            assert!((m.volume() - 3.0).abs() < 1e-9, "{name}: volume {}", m.volume());
        }
        let stl = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
        let path = dir.join("t-bom.stl");
        std::fs::write(&path, format!("\u{feff}{stl}")).unwrap();
        assert_eq!(TriMesh::load(&path).unwrap().triangles.len(), 1);
        // a face whose edges cross (a bow tie) is refused by name
        let path = dir.join("bowtie.obj");
        std::fs::write(&path, "v 0 0 0\nv 1 1 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 4\n").unwrap();
        let err = TriMesh::load(&path).unwrap_err().to_string();
        assert!(err.contains("face 1") && err.contains("not a simple polygon"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sphere_mesh_is_closed_and_encloses_its_volume() {
        let m = uv_sphere(1.0, 48, 96);
        m.check_closed().unwrap();
        let v = m.volume();
        assert!((v - 4.0 / 3.0 * std::f64::consts::PI).abs() < 0.01, "{v}");
        let mut open = m.clone();
        open.triangles.pop();
        assert!(matches!(open.check_closed(), Err(MeshError::NotClosed(..))));
    }

    #[test]
    fn winding_numbers_are_one_inside_and_zero_outside() {
        let m = uv_sphere(0.5, 24, 48);
        let l = Lattice::covering(DVec3::splat(-1.0), 0.05, DVec3::splat(-0.8), DVec3::splat(0.8));
        let w = winding_numbers(&m, &l);
        let [n0, n1, _] = l.n;
        for (idx, &wn) in w.iter().enumerate() {
            let p = l.point(idx % n0, (idx / n0) % n1, idx / (n0 * n1));
            let r = p.length();
            if r < 0.47 {
                assert_eq!(wn, 1, "{p}");
            } else if r > 0.51 {
                assert_eq!(wn, 0, "{p}");
            }
        }
    }

    #[test]
    fn primitive_meshes_are_closed_and_face_out() {
        let place = Placement::new(1.0, [10.0, 20.0, 30.0], [1.0, 2.0, 3.0]);
        for prim in [
            Primitive::Box { half: DVec3::new(0.1, 0.2, 0.3) },
            Primitive::Sphere { radius: 0.2 },
            Primitive::Cylinder { radius: 0.1, half_height: 0.3 },
        ] {
            let m = primitive_mesh(&prim, &place, 64);
            m.check_closed().unwrap();
            let exact = match prim {
                Primitive::Box { half } => 8.0 * half.x * half.y * half.z,
                Primitive::Sphere { radius } => 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3),
                Primitive::Cylinder { radius, half_height } => std::f64::consts::PI * radius * radius * 2.0 * half_height,
            };
            assert!((m.volume() - exact).abs() < 0.02 * exact, "{prim:?}: {} against {exact}", m.volume());
        }
    }

    /// Rows that pass exactly through a mesh's edges and vertices (a cube and an octahedron on
    /// a lattice through their corners): points strictly inside have winding number 1, points
    /// strictly outside 0 — no row double-counts a shared edge or misses a vertex.
    #[test]
    fn rows_through_edges_and_vertices_count_right() {
        let here = Placement::new(1.0, [0.0; 3], [0.0; 3]);
        let cube = primitive_mesh(&Primitive::Box { half: DVec3::splat(0.5) }, &here, 4);
        let octahedron = {
            let v = [DVec3::X * 0.5, -DVec3::X * 0.5, DVec3::Y * 0.5, -DVec3::Y * 0.5, DVec3::Z * 0.5, -DVec3::Z * 0.5];
            let mut m = TriMesh { vertices: v.to_vec(), triangles: Vec::new() };
            // outward: (x, y, z) signs of each face's corners
            for (a, b, c) in [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)] {
                m.triangles.push([a, b, c]);
            }
            m
        };
        octahedron.check_closed().unwrap();
        assert!(octahedron.volume() > 0.0);
        let inside_cube = |p: DVec3| p.abs().max_element() < 0.5 - 1e-9;
        let outside_cube = |p: DVec3| p.abs().max_element() > 0.5 + 1e-9;
        let l1 = p1_norm;
        let inside_oct = |p: DVec3| l1(p) < 0.5 - 1e-9;
        let outside_oct = |p: DVec3| l1(p) > 0.5 + 1e-9;
        // lattice points at multiples of 0.125 from -0.75: rows through y, z = ±0.5 and 0
        for (mesh, inside, outside) in [
            (&cube, &inside_cube as &dyn Fn(DVec3) -> bool, &outside_cube as &dyn Fn(DVec3) -> bool),
            (&octahedron, &inside_oct, &outside_oct),
        ] {
            let l = Lattice { origin: DVec3::splat(-0.75), spacing: 0.125, n: [13, 13, 13] };
            let w = winding_numbers(mesh, &l);
            let (mut checked, mut on_surface) = (0, 0);
            for (p, w) in l.points().zip(w) {
                if inside(p) {
                    assert_eq!(w, 1, "{p} inside");
                    checked += 1;
                } else if outside(p) {
                    assert_eq!(w, 0, "{p} outside");
                    checked += 1;
                } else {
                    on_surface += 1;
                }
            }
            assert!(checked > 1000 && on_surface > 0, "{checked} checked, {on_surface} on the surface");
        }
    }

    fn p1_norm(p: DVec3) -> f64 {
        p.x.abs() + p.y.abs() + p.z.abs()
    }

    #[test]
    fn revolved_profile_is_closed() {
        let m = revolve(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)], 32);
        m.check_closed().unwrap();
        assert!(m.volume() > 0.0);
    }
}

/// Volume, centre and inertia of a solid of unit density (docs/PHYSICS.md, "Floating bodies"):
/// a body of density ρ has mass `ρ · volume` and inertia `ρ · inertia`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// m³.
    pub volume: f64,
    /// The centre of volume (of mass, for a uniform density), m.
    pub centre: DVec3,
    /// The inertia tensor about `centre` per unit density, m⁵ (kg m² per kg/m³).
    pub inertia: DMat3,
}

impl Primitive {
    /// Volume and inertia about its centre per unit density, in its own frame (closed forms).
    fn mass_properties(&self) -> (f64, DVec3) {
        match *self {
            Primitive::Box { half } => {
                let s = half * 2.0;
                let v = s.x * s.y * s.z;
                (v, DVec3::new(s.y * s.y + s.z * s.z, s.x * s.x + s.z * s.z, s.x * s.x + s.y * s.y) * (v / 12.0))
            }
            Primitive::Sphere { radius } => {
                let v = 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
                (v, DVec3::splat(0.4 * v * radius * radius))
            }
            Primitive::Cylinder { radius, half_height } => {
                let hh = 2.0 * half_height;
                let v = std::f64::consts::PI * radius * radius * hh;
                let side = v * (3.0 * radius * radius + hh * hh) / 12.0;
                (v, DVec3::new(side, 0.5 * v * radius * radius, side))
            }
        }
    }
}

impl TriMesh {
    /// Volume, centre and inertia per unit density (the signed tetrahedra of each triangle
    /// with the origin, their second moments summed and moved to the centre).
    pub fn mass_properties(&self) -> MassProperties {
        // ∫ x xᵀ dV over the tetrahedron (0, a, b, c) is det(A) A C Aᵀ, A = [a b c], C the
        // canonical tetrahedron's: (1 + δ_ij) / 120
        let canonical = DMat3::from_cols(DVec3::new(2.0, 1.0, 1.0), DVec3::new(1.0, 2.0, 1.0), DVec3::new(1.0, 1.0, 2.0)) * (1.0 / 120.0);
        let (mut volume, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
        for t in &self.triangles {
            let (a, b, c) = (self.corner(t, 0), self.corner(t, 1), self.corner(t, 2));
            let m = DMat3::from_cols(a, b, c);
            let det = m.determinant();
            volume += det / 6.0;
            first += (a + b + c) * (det / 24.0);
            second += m * canonical * m.transpose() * det;
        }
        let centre = if volume != 0.0 { first / volume } else { DVec3::ZERO };
        // about the centre: ∫ (x − c)(x − c)ᵀ = ∫ x xᵀ − V c cᵀ
        let outer = |u: DVec3, v: DVec3| DMat3::from_cols(u * v.x, u * v.y, u * v.z);
        let cov = second - outer(centre, centre) * volume;
        let trace = cov.x_axis.x + cov.y_axis.y + cov.z_axis.z;
        MassProperties { volume, centre, inertia: DMat3::from_diagonal(DVec3::splat(trace)) - cov }
    }
}

/// A solid or a body of fluid, resolved from a scene entry: a placed primitive or a placed mesh.
#[derive(Clone, Debug)]
pub enum Shape {
    Primitive(Primitive, Placement),
    Mesh(std::sync::Arc<TriMesh>),
    /// An axis-aligned box (a fluid block).
    Block(DVec3, DVec3),
}

impl Shape {
    /// Volume, centre and inertia per unit density ([`MassProperties`]): closed forms for a
    /// primitive (turned with it), the signed tetrahedra for a mesh.
    pub fn mass_properties(&self) -> MassProperties {
        match self {
            Shape::Primitive(prim, place) => {
                let (volume, principal) = prim.mass_properties();
                let r = place.rotation;
                MassProperties { volume, centre: place.translation, inertia: r * DMat3::from_diagonal(principal) * r.transpose() }
            }
            Shape::Mesh(m) => m.mass_properties(),
            Shape::Block(lo, hi) => {
                let place = Placement { scale: 1.0, rotation: DMat3::IDENTITY, translation: (*lo + *hi) * 0.5 };
                Shape::Primitive(Primitive::Box { half: (*hi - *lo) * 0.5 }, place).mass_properties()
            }
        }
    }

    /// A box around the shape, in scene coordinates.
    pub(crate) fn bounds(&self) -> (DVec3, DVec3) {
        match self {
            Shape::Primitive(prim, place) => {
                let h = prim.half_extent();
                let mut lo = DVec3::splat(f64::INFINITY);
                let mut hi = DVec3::splat(f64::NEG_INFINITY);
                for k in 0..8 {
                    let c = DVec3::new(
                        if k & 1 == 0 { -h.x } else { h.x },
                        if k & 2 == 0 { -h.y } else { h.y },
                        if k & 4 == 0 { -h.z } else { h.z },
                    );
                    let p = place.translation + place.rotation * c;
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                (lo, hi)
            }
            Shape::Mesh(m) => m.bounds(),
            Shape::Block(lo, hi) => (*lo, *hi),
        }
    }

    /// Which points of `lattice` are inside (index `i + n0 · (j + n1 · k)`).
    pub(crate) fn inside(&self, lattice: &Lattice) -> Vec<bool> {
        match self {
            Shape::Mesh(m) => winding_numbers(m, lattice).into_iter().map(|w| w >= 1).collect(),
            _ => {
                let [n0, n1, n2] = lattice.n;
                let mut out = Vec::with_capacity(lattice.len());
                for k in 0..n2 {
                    for j in 0..n1 {
                        for i in 0..n0 {
                            out.push(self.primitive_distance(lattice.point(i, j, k)) <= 0.0);
                        }
                    }
                }
                out
            }
        }
    }

    fn primitive_distance(&self, p: DVec3) -> f64 {
        match self {
            Shape::Primitive(prim, place) => prim.signed_distance(place.local(p)),
            Shape::Block(lo, hi) => Primitive::Box { half: (*hi - *lo) * 0.5 }.signed_distance(p - (*lo + *hi) * 0.5),
            Shape::Mesh(_) => unreachable!("meshes use winding numbers"),
        }
    }

    /// The lattice a shape is sampled on: centred in its box (for a primitive, in its own
    /// frame: the lattice turns with it).
    pub(crate) fn own_lattice(&self, spacing: f64) -> Lattice {
        match self {
            Shape::Primitive(prim, _) => {
                let h = prim.half_extent();
                Lattice::centred(-h, h, spacing)
            }
            _ => {
                let (lo, hi) = self.bounds();
                Lattice::centred(lo, hi, spacing)
            }
        }
    }

    /// The shape's shell: the points of its own lattice ([`Shape::own_lattice`]) inside it and
    /// less than `thickness` deep, in scene coordinates.
    pub fn shell(&self, spacing: f64, thickness: f64) -> Vec<DVec3> {
        let lattice = self.own_lattice(spacing);
        match self {
            Shape::Mesh(m) => {
                let inside = self.inside(&lattice);
                let field = DistanceField::new(m, thickness.max(spacing));
                lattice
                    .points()
                    .zip(inside)
                    .filter(|(_, i)| *i)
                    .map(|(p, _)| p)
                    .filter(|p| field.within(*p, thickness).is_some_and(|d| d < thickness))
                    .collect()
            }
            Shape::Primitive(prim, place) => lattice
                .points()
                .filter(|p| {
                    let d = prim.signed_distance(*p);
                    d <= 0.0 && -d < thickness
                })
                .map(|p| place.translation + place.rotation * p)
                .collect(),
            Shape::Block(..) => {
                let inside = self.inside(&lattice);
                lattice
                    .points()
                    .zip(inside)
                    .filter(|(_, i)| *i)
                    .map(|(p, _)| p)
                    .filter(|p| -self.primitive_distance(*p) < thickness)
                    .collect()
            }
        }
    }

    /// The points of the shape's own lattice inside it (a body of fluid).
    pub fn fill(&self, spacing: f64) -> Vec<DVec3> {
        let lattice = self.own_lattice(spacing);
        match self {
            Shape::Primitive(prim, place) => {
                lattice.points().filter(|p| prim.signed_distance(*p) <= 0.0).map(|p| place.translation + place.rotation * p).collect()
            }
            _ => {
                let inside = self.inside(&lattice);
                lattice.points().zip(inside).filter(|(_, i)| *i).map(|(p, _)| p).collect()
            }
        }
    }
}

/// The surface point of `mesh` (sampled every `step` or closer on each triangle) farthest from
/// every point of `points`, with that distance, where it is above `limit`; None if every
/// sample has a point within `limit`.
pub fn coverage_gap(mesh: &TriMesh, points: &[DVec3], step: f64, limit: f64) -> Option<(DVec3, f64)> {
    let xs: Vec<[f64; 3]> = points.iter().map(|p| p.to_array()).collect();
    let cells = crate::cells::CellGrid::new(&xs, limit);
    // the distance to the nearest point when none lies within `limit` (None: covered); the
    // sample's own cell first, and out at the first point close enough
    let uncovered = |q: DVec3| {
        let [cx, cy, cz] = cells.key(q.to_array());
        let mut best = f64::INFINITY;
        for (dx, dy, dz) in
            std::iter::once((0, 0, 0)).chain((0..27).map(|k| (k % 3 - 1, k / 3 % 3 - 1, k / 9 - 1)).filter(|&d| d != (0, 0, 0)))
        {
            for &k in cells.members([cx + dx, cy + dy, cz + dz]) {
                let d2 = (points[k as usize] - q).length_squared();
                if d2 <= limit * limit {
                    return None;
                }
                best = best.min(d2);
            }
        }
        Some(best.sqrt())
    };
    let mut worst: Option<(DVec3, f64)> = None;
    for t in &mesh.triangles {
        let (a, b, c) = (mesh.corner(t, 0), mesh.corner(t, 1), mesh.corner(t, 2));
        triangle_samples(a, b, c, step, |q| {
            if let Some(d) = uncovered(q)
                && worst.is_none_or(|w| d > w.1)
            {
                worst = Some((q, d));
            }
        });
    }
    worst
}

/// Points of triangle abc no farther than `step` from one another: its corners, its edges every
/// `step`, and inside it a square grid of `step` in its plane — about area / step² points, so
/// that a long thin triangle (a cylinder cap's fan) costs its area, not its longest edge squared.
pub(crate) fn triangle_samples(a: DVec3, b: DVec3, c: DVec3, step: f64, mut visit: impl FnMut(DVec3)) {
    for (p, q) in [(a, b), (b, c), (c, a)] {
        let n = (((q - p).length() / step).ceil() as usize).max(1);
        for i in 0..n {
            visit(p + (q - p) * (i as f64 / n as f64));
        }
    }
    // the grid: x along the longest edge, y across it in the plane
    let (p0, p1, p2) = [(a, b, c), (b, c, a), (c, a, b)]
        .into_iter()
        .max_by(|x, y| (x.1 - x.0).length_squared().total_cmp(&(y.1 - y.0).length_squared()))
        .expect("three edges");
    let e = p1 - p0;
    let length = e.length();
    if !(length > 0.0) {
        return;
    }
    let ex = e / length;
    let across = (p2 - p0) - ex * (p2 - p0).dot(ex);
    let height = across.length();
    if !(height > 0.0) {
        return;
    }
    let ey = across / height;
    let apex = (p2 - p0).dot(ex);
    let (nx, ny) = ((length / step).ceil() as usize, (height / step).ceil() as usize);
    for j in 1..ny {
        let y = j as f64 * height / ny as f64;
        // the triangle's extent along x at height y: from the left edge to the right one
        let (x0, x1) = (apex * y / height, length + (apex - length) * y / height);
        for i in 1..nx {
            let x = i as f64 * length / nx as f64;
            if x > x0 && x < x1 {
                visit(p0 + ex * x + ey * y);
            }
        }
    }
}

/// Segments around a circle of `radius` (for the meshes of a primitive's surface) so that a
/// chord lies at most a twentieth of `spacing` inside the circle, and a facet of a sphere's mesh
/// (whose centre lies deeper than its edges) at most a tenth; at least 48.
pub(crate) fn circle_segments(radius: f64, spacing: f64) -> usize {
    let depth = (0.05 * spacing / radius).min(1.0);
    let n = (std::f64::consts::PI / (1.0 - depth).acos()).ceil();
    if n.is_finite() { (n as usize).clamp(48, 4096) } else { 48 }
}

/// The surface of a primitive as a triangle mesh (for coverage checks and drawing): a box's six
/// faces, a UV sphere, a capped cylinder, placed.
pub fn primitive_mesh(prim: &Primitive, place: &Placement, segments: usize) -> TriMesh {
    let local = match *prim {
        Primitive::Sphere { radius } => uv_sphere(radius, segments / 2, segments),
        Primitive::Cylinder { radius, half_height } => {
            revolve(&[(0.0, -half_height), (radius, -half_height), (radius, half_height), (0.0, half_height)], segments)
        }
        Primitive::Box { half } => {
            let mut m = TriMesh::default();
            for k in 0..8 {
                m.vertices.push(DVec3::new(
                    if k & 1 == 0 { -half.x } else { half.x },
                    if k & 2 == 0 { -half.y } else { half.y },
                    if k & 4 == 0 { -half.z } else { half.z },
                ));
            }
            // outward-facing quads as corner indices (bit 0 x, bit 1 y, bit 2 z)
            for q in [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]] {
                m.triangles.push([q[0], q[1], q[2]]);
                m.triangles.push([q[0], q[2], q[3]]);
            }
            m
        }
    };
    TriMesh { vertices: local.vertices.iter().map(|&v| place.translation + place.rotation * v).collect(), triangles: local.triangles }
}
