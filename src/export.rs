//! Particle export: frames of a run as VTK XML unstructured grids (`.vtu`, inline binary, with a
//! `.pvd` collection that ParaView opens as one time series) and binary little-endian PLY
//! (Blender, Houdini, splashsurf). Frames are written by a thread behind a bounded queue, so the
//! disk overlaps the simulation; every file is written under a temporary name and renamed, so no
//! half-written file ever has its final name.
//!
//! Every frame holds, per particle in id order (ids are stable across reorders): position,
//! velocity, density, pressure (WCSPH: the Tait pressure, negative clamped, as the step uses it;
//! DFSPH: the solver's, `dfsph_pressure`, 0 for wall particles), id, kind (0 fluid, 1 boundary)
//! and object (which fluid entry, the tank, which solid, or the emitters' fluid: the export
//! folder's `objects.csv` lists them, [`crate::sim::objects`]); boundary particles only when
//! asked for.

use crate::physics::tait_pressure;
use crate::sim::Particles;
use crate::sim::objects::ObjectMap;
use crate::sim::readback::ParticleCopy;
use anyhow::Context as _;
use base64::Engine as _;
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A file format of the export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[value(rename_all = "lower")]
pub enum Format {
    /// VTK XML unstructured grid (`.vtu`) per frame, and `particles.pvd` listing them.
    Vtk,
    /// The same, its arrays zlib-compressed (VTK's `vtkZLibDataCompressor`): about half the
    /// bytes of a fluid frame, a fifth of a boundary one.
    #[value(name = "vtk-zlib")]
    #[serde(rename = "vtk-zlib")]
    VtkZlib,
    /// Binary little-endian PLY per frame.
    Ply,
    /// A surface mesh of the fluid per frame (`.obj`): splashsurf's reconstruction
    /// ([`SurfaceParams`]); the fluid alone, never the boundary.
    Surface,
}

/// The surface reconstruction's parameters (splashsurf's marching cubes on the SPH density of
/// the fluid particles), from the scene's spacing s: particle radius s/2, the kernel's support
/// h = 2s (the simulation's), marching-cubes cells of `cube` particle radii, the surface where
/// the density is `threshold` ρ0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceParams {
    pub spacing: f32,
    pub rest_density: f32,
    /// Cube edge in particle radii (default 0.5).
    pub cube: f32,
    /// Iso-density in units of ρ0 (default 0.6, splashsurf's).
    pub threshold: f32,
}

impl SurfaceParams {
    pub fn new(spacing: f32, rest_density: f32) -> Self {
        Self { spacing, rest_density, cube: 0.5, threshold: 0.6 }
    }
}

/// The surface mesh of a frame's fluid particles as Wavefront OBJ text (`v x y z`, `f a b c`,
/// 1-based, counter-clockwise seen from outside); empty (a comment) for a frame without fluid.
pub fn surface_obj(f: &Frame, p: &SurfaceParams) -> anyhow::Result<Vec<u8>> {
    use splashsurf_lib::nalgebra::Vector3;
    let positions: Vec<Vector3<f32>> = (0..f.len()).filter(|&i| f.kind[i] == 0).map(|i| Vector3::from(f.position[i])).collect();
    let mut out = format!("# Rillet surface of the fluid, step {}, t = {} s\n", f.step, time_text(f.time));
    if positions.is_empty() {
        return Ok(out.into_bytes());
    }
    let radius = 0.5 * p.spacing;
    let mut params = splashsurf_lib::Parameters::new(radius, 2.0 * p.spacing, p.cube * radius);
    params.rest_density = p.rest_density;
    params.iso_surface_threshold = p.threshold;
    let surface = splashsurf_lib::reconstruct_surface::<i64, f32>(&positions, &params)
        .map_err(|e| anyhow::anyhow!("surface reconstruction of step {}: {e}", f.step))?;
    let mesh = &surface.mesh;
    use std::fmt::Write;
    for v in &mesh.vertices {
        let _ = writeln!(out, "v {} {} {}", v.x, v.y, v.z);
    }
    for t in &mesh.triangles {
        let _ = writeln!(out, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    Ok(out.into_bytes())
}

/// Which axis is up in the exported files: Rillet's own y (the scene's coordinates), or z, for
/// tools whose world is z-up (Blender, Houdini's default import): x' = x, y' = −z, z' = y, a
/// turn of 90° about x, applied to positions, velocities and the solids' transforms alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Up {
    #[default]
    Y,
    Z,
}

impl Up {
    /// A vector of the scene in the files' axes.
    pub fn apply(self, v: [f32; 3]) -> [f32; 3] {
        match self {
            Up::Y => v,
            Up::Z => [v[0], -v[2], v[1]],
        }
    }

    /// The turn from the scene's axes to the files'.
    pub fn rotation(self) -> glam::DQuat {
        match self {
            Up::Y => glam::DQuat::IDENTITY,
            Up::Z => glam::DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2),
        }
    }
}

/// `vtk` and `vtk-zlib` write the same files: one of them.
pub fn check_formats(formats: &[Format]) -> anyhow::Result<()> {
    anyhow::ensure!(
        !(formats.contains(&Format::Vtk) && formats.contains(&Format::VtkZlib)),
        "--export: vtk and vtk-zlib write the same .vtu files: allowed one of them (with ply or alone)"
    );
    Ok(())
}

/// The export folder's list of the scene's objects (a particle's `object` is its row).
pub const OBJECTS_FILE: &str = "objects.csv";

/// Frames waiting for the writer at most; a full queue makes the run wait for the disk.
pub(crate) const QUEUE: usize = 2;

/// One exported frame: the particles of `step`, in id order.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub step: u64,
    pub time: f64,
    pub position: Vec<[f32; 3]>,
    pub velocity: Vec<[f32; 3]>,
    pub density: Vec<f32>,
    pub pressure: Vec<f32>,
    pub id: Vec<u32>,
    /// 0 fluid, 1 boundary.
    pub kind: Vec<u8>,
    /// The object of the scene the particle belongs to (`objects.csv`).
    pub object: Vec<u32>,
}

/// The two series of an export: the fluid's frames `particles-SSSSSSSS` (collection
/// `particles.pvd`) and, with the boundary, the walls' and solids' `boundary-SSSSSSSS`
/// (`boundary.pvd`), so a tool that meshes or renders the water reads a file of water alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    Particles,
    Boundary,
}

impl Series {
    /// The frames' file prefix and the collection's stem.
    pub fn name(self) -> &'static str {
        match self {
            Series::Particles => "particles",
            Series::Boundary => "boundary",
        }
    }
}

impl Frame {
    /// The frame of a readback (any slot order): fluid particles, and the boundary ones with
    /// `boundary`, by id (free slots left out). `rest_density` and `stiffness` give the pressure,
    /// `objects` each particle's object.
    pub fn new(p: &Particles, step: u64, time: f64, rest_density: f32, stiffness: f32, boundary: bool, objects: &ObjectMap) -> Self {
        let by_id = p.by_id();
        let mut f = Frame {
            step,
            time,
            position: vec![],
            velocity: vec![],
            density: vec![],
            pressure: vec![],
            id: vec![],
            kind: vec![],
            object: vec![],
        };
        let tait = |rho: f64| tait_pressure(rho, rest_density as f64, stiffness as f64);
        for (id, (x, v)) in by_id.pos_mass.iter().zip(&by_id.vel_rho).enumerate() {
            let wall = x[3] < 0.0;
            // a free slot (w = 0) holds no particle
            if (wall && !boundary) || x[3] == 0.0 {
                continue;
            }
            f.position.push([x[0], x[1], x[2]]);
            f.velocity.push([v[0], v[1], v[2]]);
            f.density.push(v[3]);
            f.pressure.push(by_id.pressure_at(id, tait) as f32);
            f.id.push(id as u32);
            f.kind.push(wall as u8);
            f.object.push(objects.object_of(id as u32));
        }
        f
    }

    pub fn len(&self) -> usize {
        self.id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.id.is_empty()
    }

    /// The file stem of this frame in `series`: `particles-SSSSSSSS` (the step, zero-padded).
    pub(crate) fn stem(&self, series: Series) -> String {
        format!("{}-{:08}", series.name(), self.step)
    }

    /// The frame in the axes `up` says ([`Up`]).
    pub fn turned(mut self, up: Up) -> Frame {
        if up != Up::Y {
            self.position.iter_mut().for_each(|x| *x = up.apply(*x));
            self.velocity.iter_mut().for_each(|v| *v = up.apply(*v));
        }
        self
    }

    /// The fluid particles and the boundary ones of this frame, as two frames (the second
    /// empty when the frame holds no boundary).
    pub fn split_boundary(self) -> (Frame, Frame) {
        let pick = |wall: bool| {
            let keep: Vec<usize> = (0..self.len()).filter(|&i| (self.kind[i] == 1) == wall).collect();
            Frame {
                step: self.step,
                time: self.time,
                position: keep.iter().map(|&i| self.position[i]).collect(),
                velocity: keep.iter().map(|&i| self.velocity[i]).collect(),
                density: keep.iter().map(|&i| self.density[i]).collect(),
                pressure: keep.iter().map(|&i| self.pressure[i]).collect(),
                id: keep.iter().map(|&i| self.id[i]).collect(),
                kind: keep.iter().map(|&i| self.kind[i]).collect(),
                object: keep.iter().map(|&i| self.object[i]).collect(),
            }
        };
        (pick(false), pick(true))
    }
}

/// Bytes of a block of a compressed array before compression (VTK's own default).
const ZLIB_BLOCK: usize = 32 * 1024;

/// An array's bytes as VTK's inline binary: base64 of a UInt64 byte count and the bytes; with
/// `zlib`, the blocks of [`ZLIB_BLOCK`] bytes each zlib-compressed, after the header
/// `[blocks][block size][last block's size, 0 if full][compressed size of each block]`, the
/// header and the blocks base64-encoded apart (VTK's XML format, "binary" with a compressor).
fn encode_array(bytes: &[u8], zlib: bool) -> String {
    use std::io::Write as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    if !zlib {
        let mut block = (bytes.len() as u64).to_le_bytes().to_vec();
        block.extend_from_slice(bytes);
        return b64(&block);
    }
    let blocks: Vec<Vec<u8>> = bytes
        .chunks(ZLIB_BLOCK)
        .map(|chunk| {
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
            z.write_all(chunk).expect("writing into memory does not fail");
            z.finish().expect("writing into memory does not fail")
        })
        .collect();
    let last = bytes.len() % ZLIB_BLOCK;
    let mut header: Vec<u64> = vec![blocks.len() as u64, ZLIB_BLOCK as u64, last as u64];
    header.extend(blocks.iter().map(|b| b.len() as u64));
    let header: Vec<u8> = header.iter().flat_map(|w| w.to_le_bytes()).collect();
    b64(&header) + &b64(&blocks.concat())
}

/// The frame as a VTK XML unstructured grid (one vertex cell per particle), inline binary
/// (base64; the arrays are encoded on threads of their own).
pub fn vtu(f: &Frame) -> Vec<u8> {
    vtu_with(f, false)
}

/// [`vtu`], with the arrays zlib-compressed ([`Format::VtkZlib`]).
pub fn vtu_zlib(f: &Frame) -> Vec<u8> {
    vtu_with(f, true)
}

fn vtu_with(f: &Frame, zlib: bool) -> Vec<u8> {
    let n = f.len();
    let cells: Vec<i64> = (0..n as i64).collect();
    let offsets: Vec<i64> = (1..=n as i64).collect();
    let types = vec![1u8; n]; // VTK_VERTEX
    // (type, name, components, bytes), in the order the file lists them
    let arrays: [(&str, &str, usize, &[u8]); 10] = [
        ("Float32", "velocity", 3, bytemuck::cast_slice(&f.velocity)),
        ("Float32", "density", 1, bytemuck::cast_slice(&f.density)),
        ("Float32", "pressure", 1, bytemuck::cast_slice(&f.pressure)),
        ("UInt32", "id", 1, bytemuck::cast_slice(&f.id)),
        ("UInt8", "kind", 1, &f.kind),
        ("UInt32", "object", 1, bytemuck::cast_slice(&f.object)),
        ("Float32", "position", 3, bytemuck::cast_slice(&f.position)),
        ("Int64", "connectivity", 1, bytemuck::cast_slice(&cells)),
        ("Int64", "offsets", 1, bytemuck::cast_slice(&offsets)),
        ("UInt8", "types", 1, &types),
    ];
    let encoded: Vec<String> = std::thread::scope(|scope| {
        let jobs: Vec<_> = arrays.iter().map(|a| scope.spawn(move || encode_array(a.3, zlib))).collect();
        jobs.into_iter().map(|j| j.join().expect("base64 encoding does not panic")).collect()
    });
    let xml = |k: usize| {
        let (kind, name, components, _) = arrays[k];
        format!(
            "        <DataArray type=\"{kind}\" Name=\"{name}\" NumberOfComponents=\"{components}\" format=\"binary\">{}</DataArray>\n",
            encoded[k]
        )
    };
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str(&format!("<!-- rillet: step {} time {} -->\n", f.step, f.time));
    let compressor = if zlib { " compressor=\"vtkZLibDataCompressor\"" } else { "" };
    s.push_str(&format!(
        "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\"{compressor}>\n"
    ));
    s.push_str("  <UnstructuredGrid>\n");
    s.push_str(&format!("    <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{n}\">\n"));
    s.push_str("      <PointData Scalars=\"density\" Vectors=\"velocity\">\n");
    (0..6).for_each(|k| s.push_str(&xml(k)));
    s.push_str("      </PointData>\n      <Points>\n");
    s.push_str(&xml(6));
    s.push_str("      </Points>\n      <Cells>\n");
    (7..10).for_each(|k| s.push_str(&xml(k)));
    s.push_str("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    s.into_bytes()
}

/// The frame as binary little-endian PLY: one vertex element with x y z, vx vy vz, density,
/// pressure (float), particle_id (uint), kind (uchar) and object (uint). The id is named
/// `particle_id`, not `id`: Blender's PLY import (4.5) drops a property named `id`.
pub fn ply(f: &Frame) -> Vec<u8> {
    let mut out = format!(
        "ply\nformat binary_little_endian 1.0\ncomment rillet step {} time {}\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n\
         property float vx\nproperty float vy\nproperty float vz\n\
         property float density\nproperty float pressure\nproperty uint particle_id\nproperty uchar kind\nproperty uint object\nend_header\n",
        f.step,
        f.time,
        f.len()
    )
    .into_bytes();
    out.reserve(f.len() * 41);
    for i in 0..f.len() {
        for c in f.position[i].iter().chain(&f.velocity[i]).chain([&f.density[i], &f.pressure[i]]) {
            out.extend_from_slice(&c.to_le_bytes());
        }
        out.extend_from_slice(&f.id[i].to_le_bytes());
        out.push(f.kind[i]);
        out.extend_from_slice(&f.object[i].to_le_bytes());
    }
    out
}

/// The `.pvd` collection of `(time, file name)` frames.
pub(crate) fn pvd(frames: &[(f64, String)]) -> Vec<u8> {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, file) in frames {
        s.push_str(&format!("    <DataSet timestep=\"{}\" part=\"0\" file=\"{file}\"/>\n", time_text(*t)));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s.into_bytes()
}

/// A time for the collection: to 10⁻¹⁰ s, without trailing zeros (step × dt in f64 carries a
/// last-digit error, 0.033200000000000003 for 83 steps of 0.4 ms, that no reader needs).
pub(crate) fn time_text(t: f64) -> String {
    let s = format!("{t:.10}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" { "0".to_string() } else { s.to_string() }
}

/// `particles/transforms.csv`: each moving solid's rigid transform at every exported frame, for
/// animating its mesh in ParaView or Blender: a point `x0` of the solid as the scene places it is
/// at `R(q) x0 + t` (q = (qx, qy, qz, qw) a unit quaternion; in Blender, the mesh at the scene's
/// pose with its origin at the world's gets rotation_quaternion (qw, qx, qy, qz) and location t).
pub const TRANSFORMS_FILE: &str = "transforms.csv";
pub(crate) const TRANSFORMS_HEADER: &str = "step,time_s,solid,qx,qy,qz,qw,tx_m,ty_m,tz_m";

/// A `transforms.csv` row of solid `solid` at `pose`, in the axes `up` says: with A the turn
/// of [`Up`], the files' point A·x0 is at (A R Aᵀ)·A·x0 + A·t.
pub(crate) fn transform_row(step: u64, time: f64, solid: usize, pose: &crate::sim::motion::Pose, up: Up) -> String {
    let a = up.rotation();
    let q = (a * pose.rotation.normalize() * a.inverse()).normalize();
    let t = a * pose.apply(glam::DVec3::ZERO);
    format!("{step},{time:.9},{solid},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9}", q.x, q.y, q.z, q.w, t.x, t.y, t.z)
}

pub use crate::files::write_whole;

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExportStats {
    pub frames: u64,
    pub bytes: u64,
    /// Seconds the writer spent writing.
    pub write_seconds: f64,
    /// Seconds the run spent waiting for the disk (the queue was full).
    pub waited_seconds: f64,
}

/// What the writer thread turns into files.
pub(crate) enum Job {
    Frame(Frame),
    /// The simulation's state as copied from the GPU ([`crate::sim::Sim::record_particle_copy`],
    /// laid out as `copy` says), made into a frame on the writer thread, so the caller (the
    /// app's frame loop) does no per-particle work.
    Raw {
        bytes: Vec<u8>,
        copy: ParticleCopy,
        step: u64,
        time: f64,
        rest_density: f32,
        stiffness: f32,
        boundary: bool,
        /// Each moving solid's transform at the frame (solid index, pose): a line each of
        /// `transforms.csv` (the app's recordings; `rillet run` writes its own file).
        poses: Vec<(usize, crate::sim::motion::Pose)>,
    },
}

impl Job {
    /// The frame, and the transforms' lines to write with it.
    fn frame(self, objects: &ObjectMap) -> anyhow::Result<(Frame, Vec<String>)> {
        match self {
            Job::Frame(f) => Ok((f, vec![])),
            Job::Raw { bytes, copy, step, time, rest_density, stiffness, boundary, poses } => {
                let (p, _) = copy.decode(&bytes)?;
                let lines = poses.iter().map(|(solid, pose)| transform_row(step, time, *solid, pose, Up::Y)).collect();
                Ok((Frame::new(&p, step, time, rest_density, stiffness, boundary, objects), lines))
            }
        }
    }
}

/// The export of one run: a writer thread behind a bounded queue.
pub(crate) struct Exporter {
    tx: Option<SyncSender<Job>>,
    writer: Option<JoinHandle<anyhow::Result<ExportStats>>>,
    waited: Duration,
}

impl Exporter {
    /// Starts writing into `dir` in `formats`, with `objects.csv` listing `objects` (the map of
    /// the frames made on the writer thread). `series`: the `.pvd` entries already there of the
    /// fluid's and the boundary's collections (a resumed run continues them). A frame's boundary
    /// particles go to the boundary series: at every frame with `boundary_moves`, else in the
    /// first frame only (walls that do not move are the same in every frame).
    pub(crate) fn start(
        dir: &Path,
        formats: &[Format],
        series: [Vec<(f64, String)>; 2],
        objects: std::sync::Arc<ObjectMap>,
        boundary_moves: bool,
        surface: SurfaceParams,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_whole(&dir.join(OBJECTS_FILE), objects.csv().as_bytes())?;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Job>(QUEUE);
        let (dir, formats) = (dir.to_path_buf(), formats.to_vec());
        let writer = std::thread::Builder::new()
            .name("rillet-export".into())
            .spawn(move || write_frames(&dir, &formats, series, &objects, boundary_moves, &surface, rx))
            .context("cannot start the export thread")?;
        Ok(Self { tx: Some(tx), writer: Some(writer), waited: Duration::ZERO })
    }

    /// Queues a frame; waits while the queue is full (the time counts as waiting on the disk).
    /// An error means the writer stopped (its error comes from [`Exporter::finish`]).
    pub(crate) fn send(&mut self, frame: Frame) -> anyhow::Result<()> {
        match self.try_send(Job::Frame(frame))? {
            None => Ok(()),
            Some(job) => {
                let t = Instant::now();
                let sent = self.tx.as_ref().context("the export was finished")?.send(job);
                self.waited += t.elapsed();
                sent.map_err(|_| anyhow::anyhow!("the export writer stopped"))
            }
        }
    }

    /// Queues a job if there is room, without waiting (the app's frame loop never waits for the
    /// disk); gives the job back when the queue is full.
    pub(crate) fn try_send(&mut self, job: Job) -> anyhow::Result<Option<Job>> {
        let tx = self.tx.as_ref().context("the export was finished")?;
        match tx.try_send(job) {
            Ok(()) => Ok(None),
            Err(TrySendError::Full(job)) => Ok(Some(job)),
            Err(TrySendError::Disconnected(_)) => Err(anyhow::anyhow!("the export writer stopped")),
        }
    }

    /// Waits for the frames in the queue to be written; returns what was written, or the
    /// writer's first error.
    pub(crate) fn finish(mut self) -> anyhow::Result<ExportStats> {
        self.tx = None;
        let writer = self.writer.take().expect("finished once");
        let mut stats = writer.join().map_err(|_| anyhow::anyhow!("the export writer panicked"))??;
        stats.waited_seconds = self.waited.as_secs_f64();
        Ok(stats)
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

fn write_frames(
    dir: &Path,
    formats: &[Format],
    mut series: [Vec<(f64, String)>; 2],
    objects: &ObjectMap,
    boundary_moves: bool,
    surface: &SurfaceParams,
    rx: Receiver<Job>,
) -> anyhow::Result<ExportStats> {
    let mut stats = ExportStats::default();
    let mut boundary_written = false;
    let mut transforms: Option<String> = None;
    for job in rx {
        let (frame, lines) = job.frame(objects)?;
        if !lines.is_empty() {
            // the whole file anew each time (a recording's frames are few): never half a line
            let text = transforms.get_or_insert_with(|| format!("{TRANSFORMS_HEADER}\n"));
            for l in lines {
                text.push_str(&l);
                text.push('\n');
            }
            write_whole(&dir.join(TRANSFORMS_FILE), text.as_bytes())?;
        }
        let (fluid, boundary) = frame.split_boundary();
        let t = Instant::now();
        write_frame(dir, formats, &fluid, Series::Particles, &mut series[0], surface, &mut stats)?;
        if !boundary.is_empty() && (boundary_moves || !boundary_written) {
            write_frame(dir, formats, &boundary, Series::Boundary, &mut series[1], surface, &mut stats)?;
            boundary_written = true;
        }
        stats.frames += 1;
        stats.write_seconds += t.elapsed().as_secs_f64();
    }
    Ok(stats)
}

/// Writes `frame` in every format as a frame of `which`, and its collection with it.
fn write_frame(
    dir: &Path,
    formats: &[Format],
    frame: &Frame,
    which: Series,
    series: &mut Vec<(f64, String)>,
    surface: &SurfaceParams,
    stats: &mut ExportStats,
) -> anyhow::Result<()> {
    let stem = frame.stem(which);
    for format in formats {
        let (name, bytes) = match format {
            Format::Vtk => (format!("{stem}.vtu"), vtu(frame)),
            Format::VtkZlib => (format!("{stem}.vtu"), vtu_zlib(frame)),
            Format::Ply => (format!("{stem}.ply"), ply(frame)),
            // the water's surface: the fluid's series only
            Format::Surface if which == Series::Particles => (format!("surface-{:08}.obj", frame.step), surface_obj(frame, surface)?),
            Format::Surface => continue,
        };
        write_whole(&dir.join(&name), &bytes)?;
        stats.bytes += bytes.len() as u64;
        if matches!(format, Format::Vtk | Format::VtkZlib) {
            series.retain(|(_, f)| *f != name);
            series.push((frame.time, name));
            let collection = pvd(series);
            write_whole(&dir.join(format!("{}.pvd", which.name())), &collection)?;
            stats.bytes += collection.len() as u64;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn particles() -> Particles {
        // slot order differs from id order, as after a reorder; the last is a wall particle
        // ids 0 and 1 fluid, 2 boundary, 3 a free slot
        Particles {
            pos_mass: vec![[1.0, 2.0, 3.0, 0.5], [0.0, 0.1, 0.2, 0.5], [9.0, 9.0, 9.0, -0.4], [5.0, 5.0, 5.0, 0.0]],
            vel_rho: vec![[1.0, 0.0, 0.0, 1010.0], [0.0, -1.0, 0.0, 990.0], [0.0, 0.0, 0.0, 1000.0], [0.0; 4]],
            id: vec![1, 0, 2, 3],
            pressure: None,
            bodies: vec![],
        }
    }

    /// ids 0 and 1 two fluid entries, 2 the tank, 3 the emitters' slot.
    fn objects() -> ObjectMap {
        ObjectMap::new(&[1, 1], 1, &[], 1)
    }

    #[test]
    fn a_solver_pressure_is_exported_by_id_instead_of_the_tait_one() {
        let mut p = particles();
        p.pressure = Some(vec![11.0, 22.0, 33.0, 44.0]);
        let f = Frame::new(&p, 10, 0.004, 1000.0, 50_000.0, true, &objects());
        assert_eq!(f.id, [0, 1, 2]);
        // slot 1 holds id 0, slot 0 id 1
        assert_eq!(f.pressure, [22.0, 11.0, 33.0]);
    }

    #[test]
    fn frames_are_in_id_order_with_boundary_on_request_and_no_free_slot() {
        let f = Frame::new(&particles(), 10, 0.004, 1000.0, 50_000.0, false, &objects());
        assert_eq!(f.id, [0, 1]);
        assert_eq!(f.position, [[0.0, 0.1, 0.2], [1.0, 2.0, 3.0]]);
        assert_eq!(f.pressure[0], 0.0, "negative pressure clamped");
        assert!((f.pressure[1] - (50_000.0 * (1.01f64.powi(7) - 1.0)) as f32).abs() < 1e-2);
        let all = Frame::new(&particles(), 10, 0.004, 1000.0, 50_000.0, true, &objects());
        assert_eq!((all.id.clone(), all.kind.clone()), (vec![0, 1, 2], vec![0, 0, 1]));
        assert_eq!(all.object, [0, 1, 2]);
        assert_eq!(all.stem(Series::Particles), "particles-00000010");
        let (fluid, walls) = all.split_boundary();
        assert_eq!(walls.stem(Series::Boundary), "boundary-00000010");
        assert_eq!((fluid.id, walls.id, walls.kind, walls.object), (vec![0, 1], vec![2], vec![1], vec![2]));
    }

    #[test]
    fn collection_times_are_decimals() {
        assert_eq!(time_text(83.0 * crate::physics::decimal(0.0004)), "0.0332");
        assert_eq!(time_text(0.0), "0");
        assert_eq!(time_text(50.0 * crate::physics::decimal(0.0004)), "0.02");
        assert_eq!(time_text(1.25), "1.25");
        assert_eq!(time_text(0.019999999494757503), "0.0199999995");
    }

    #[test]
    fn ply_has_the_declared_size() {
        let f = Frame::new(&particles(), 0, 0.0, 1000.0, 50_000.0, true, &objects());
        let bytes = ply(&f);
        let end = bytes.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        assert_eq!(bytes.len() - end, 3 * (8 * 4 + 4 + 1 + 4));
    }
}
