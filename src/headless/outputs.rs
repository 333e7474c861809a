//! What a run writes as it goes, one place per file: the probe rows (`probes.csv`), the leak log
//! (`leaks.csv`), the particle export (`particles/`), the checkpoint (`checkpoint.bin`), and at
//! the start and the end `run.json` and `profile.csv`.

use super::{EXPORT_FOLDER, ExportMeta, RunMeta};
use crate::checkpoint::Checkpoint;
use crate::export::{Exporter, Frame};
use crate::files::write_whole;
use crate::probes::{self as probe, ProbeRow, ProfileBin};
use crate::sim::instruments::Particles;
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The leak log of a run folder.
pub const LEAKS_FILE: &str = "leaks.csv";
/// At most this many rows of `leaks.csv` a probe (the count in probes.csv is complete).
pub const LEAK_ROWS: usize = 100;
const LEAKS_HEADER: &str = "step,time_s,id,x,y,z,vx,vy,vz,density";

/// A fluid particle inside a solid, as `leaks.csv` lists it.
pub(crate) struct Leak {
    id: u32,
    x: [f32; 3],
    v: [f32; 3],
    density: f32,
}

impl Leak {
    fn csv(&self, step: u64, time: f64) -> String {
        let [x, y, z] = self.x;
        let [vx, vy, vz] = self.v;
        format!("{step},{time:.7},{},{x:.6},{y:.6},{z:.6},{vx:.4},{vy:.4},{vz:.4},{:.2}", self.id, self.density)
    }
}

/// The fluid particles inside the solids (deeper than the mask's quarter spacing), in id order.
pub(crate) fn leaked(p: &Particles, solids: &crate::scene::bodies::SolidMask, time: f64) -> Vec<Leak> {
    let mut inside: Vec<Leak> = p
        .pos_mass
        .iter()
        .zip(&p.vel_rho)
        .zip(&p.id)
        .filter(|((x, _), _)| x[3] > 0.0 && solids.contains_at(glam::DVec3::new(x[0] as f64, x[1] as f64, x[2] as f64), time, &p.bodies))
        .map(|((x, v), &id)| Leak { id, x: [x[0], x[1], x[2]], v: [v[0], v[1], v[2]], density: v[3] })
        .collect();
    inside.sort_by_key(|l| l.id);
    inside
}

/// `bodies.csv`: each moving solid's state at every probe row (docs/PHYSICS.md, "Floating
/// bodies"): `solid` is its index in the scene's `solids`; position is the centre of mass of a
/// floating body (a prescribed one's pivot at rest), q its orientation from the scene's pose;
/// force and torque (about the centre) are the fluid's and the contacts' in the step before.
pub const BODIES_FILE: &str = "bodies.csv";
const BODIES_HEADER: &str = "step,time_s,solid,x_m,y_m,z_m,qx,qy,qz,qw,vx_m_s,vy_m_s,vz_m_s,wx_rad_s,wy_rad_s,wz_rad_s,fx_n,fy_n,fz_n,tx_n_m,ty_n_m,tz_n_m,contacts";

pub use crate::export::TRANSFORMS_FILE;
use crate::export::{TRANSFORMS_HEADER, transform_row};

/// A `bodies.csv` row of body state `b` of solid `solid`.
pub(crate) fn body_row(step: u64, time: f64, solid: usize, b: &crate::sim::motion::BodyState) -> String {
    let f = |v: &[f32]| v.iter().map(|x| format!("{x:.7e}")).collect::<Vec<_>>().join(",");
    format!(
        "{step},{time:.7},{solid},{},{},{},{},{},{},{}",
        f(&b.position),
        f(&b.orientation),
        f(&b.velocity),
        f(&b.angular_velocity),
        f(&b.force),
        f(&b.torque),
        b.contacts
    )
}

/// `leaks.csv`: a new file with its header, or a resumed run's cut back to the checkpoint's step.
fn leak_log(path: &Path, resumed: Option<u64>) -> anyhow::Result<CsvFile> {
    csv_log(path, LEAKS_HEADER, resumed)
}

/// A CSV file whose rows start with their step: a new file with its header, or a resumed run's
/// cut back to the checkpoint's step.
fn csv_log(path: &Path, header: &str, resumed: Option<u64>) -> anyhow::Result<CsvFile> {
    csv_log_to(path, header, resumed.map(|s| s + 1))
}

/// As [`csv_log`], keeping a resumed run's rows before step `resumed_before` (the sensors':
/// the resumed run samples its checkpoint's state again).
fn csv_log_to(path: &Path, header: &str, resumed_before: Option<u64>) -> anyhow::Result<CsvFile> {
    let mut kept = vec![header.to_string()];
    if let Some(before) = resumed_before {
        // a run of an older version has no leak log: it starts anew
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for line in text.lines().skip(1) {
            let complete = line.split(',').count() == header.split(',').count();
            match line.split(',').next().and_then(|s| s.parse::<u64>().ok()) {
                Some(step) if complete && step < before => kept.push(line.to_string()),
                // a line cut short by a crash can only come after the checkpoint's rows
                _ => break,
            }
        }
    }
    write_whole(path, format!("{}\n", kept.join("\n")).as_bytes())?;
    CsvFile::append(path)
}

/// A CSV file written line by line: a line is written whole or not at all (on an error — a full
/// disk — the file is cut back to its last complete line), and every error names the file.
struct CsvFile {
    file: std::fs::File,
    path: PathBuf,
    good: u64,
}

impl CsvFile {
    /// Opens an existing file to add lines at its end.
    fn append(path: &Path) -> anyhow::Result<Self> {
        let file = std::fs::OpenOptions::new().append(true).open(path).with_context(|| format!("cannot write {}", path.display()))?;
        let good = file.metadata().with_context(|| format!("cannot read {}", path.display()))?.len();
        Ok(Self { file, path: path.to_path_buf(), good })
    }

    fn line(&mut self, text: &str) -> anyhow::Result<()> {
        let line = format!("{text}\n");
        if let Err(e) = self.file.write_all(line.as_bytes()).and_then(|()| self.file.flush()) {
            let _ = self.file.set_len(self.good);
            return Err(e).with_context(|| format!("cannot write {} (kept up to its last complete line)", self.path.display()));
        }
        self.good += line.len() as u64;
        Ok(())
    }
}

/// `probes.csv` of a new run, or a resumed run's cut back to the checkpoint's step: the rows it
/// keeps are returned (and written anew in this version's columns: a row of an older version
/// gets the columns it lacked, so every row of the file has the header's width).
fn probe_log(path: &Path, gauge_names: &[String], resumed: Option<u64>) -> anyhow::Result<(CsvFile, Vec<ProbeRow>)> {
    let mut kept = vec![ProbeRow::header(gauge_names)];
    let mut rows = Vec::new();
    if let Some(from) = resumed {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let (read, bad) = probe::columns::read(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        // a line cut short by a crash can only be the last one; a bad line before it is damage,
        // and the rows after it would be lost with it
        if let Some(bad) = bad.filter(|b| !b.last) {
            let lines = text.lines().count();
            anyhow::bail!(
                "{}: line {} is damaged (not a probe row of this run: {}) and {} rows follow it: repair or remove that line, then resume",
                path.display(),
                bad.line,
                bad.why,
                lines - bad.line
            );
        }
        for row in read.into_iter().filter(|r| r.step <= from) {
            if row.gauges.len() != gauge_names.len() {
                anyhow::bail!("{}: its rows have {} gauges, this run {}", path.display(), row.gauges.len(), gauge_names.len());
            }
            kept.push(row.csv());
            rows.push(row);
        }
    }
    write_whole(path, format!("{}\n", kept.join("\n")).as_bytes())?;
    Ok((CsvFile::append(path)?, rows))
}

/// The files of a run folder, each written from one place. Without a folder (a run kept in
/// memory) every write is a no-op.
pub(crate) struct Outputs {
    dir: Option<PathBuf>,
    probes: Option<CsvFile>,
    leaks: Option<CsvFile>,
    /// `bodies.csv`, with moving solids.
    bodies: Option<CsvFile>,
    /// `particles/transforms.csv`, with moving solids and an export.
    transforms: Option<CsvFile>,
    /// `sensors.csv`, with pressure sensors.
    sensors: Option<CsvFile>,
    exporter: Option<Exporter>,
    export_boundary: bool,
    /// The exported files' up axis.
    export_up: crate::export::Up,
    /// Which object each particle id belongs to (the frames' `object`).
    objects: std::sync::Arc<crate::sim::objects::ObjectMap>,
}

impl Outputs {
    /// Opens the files of `dir` for a run from `resumed` (a checkpoint's step) or from the start;
    /// returns the probe rows kept from the resumed run. A fresh run removes a checkpoint of an
    /// earlier run in the folder, which must not be resumed with this one's files.
    pub(crate) fn open(
        dir: Option<&Path>,
        gauge_names: &[String],
        with_leaks: bool,
        with_bodies: bool,
        sensor_columns: &probe::sensors::Columns,
        export: Option<&super::ExportSettings>,
        objects: std::sync::Arc<crate::sim::objects::ObjectMap>,
        surface: crate::export::SurfaceParams,
        resumed: Option<u64>,
    ) -> anyhow::Result<(Self, Vec<ProbeRow>)> {
        let Some(dir) = dir else {
            let none = Self {
                dir: None,
                probes: None,
                leaks: None,
                bodies: None,
                transforms: None,
                sensors: None,
                exporter: None,
                export_boundary: false,
                export_up: crate::export::Up::Y,
                objects,
            };
            return Ok((none, vec![]));
        };
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        if resumed.is_none() {
            let old = dir.join(crate::checkpoint::FILE);
            if old.exists() {
                std::fs::remove_file(&old).with_context(|| format!("cannot remove {}", old.display()))?;
            }
        }
        let (probes, rows) = probe_log(&dir.join("probes.csv"), gauge_names, resumed)?;
        let leaks = if with_leaks { Some(leak_log(&dir.join(LEAKS_FILE), resumed)?) } else { None };
        let bodies = if with_bodies { Some(csv_log(&dir.join(BODIES_FILE), BODIES_HEADER, resumed)?) } else { None };
        let sensors = match sensor_columns.is_empty() {
            true => None,
            false => Some(csv_log_to(&dir.join(probe::sensors::FILE), &probe::sensors::header(sensor_columns), resumed)?),
        };
        let exporter = match export {
            Some(e) => {
                let read = |s: crate::export::Series| match resumed {
                    Some(from) => super::resume::read_series(&dir.join(EXPORT_FOLDER).join(format!("{}.pvd", s.name())), s, from),
                    None => Ok(vec![]),
                };
                let series = [read(crate::export::Series::Particles)?, read(crate::export::Series::Boundary)?];
                Some(Exporter::start(&dir.join(EXPORT_FOLDER), &e.formats, series, objects.clone(), with_bodies, surface)?)
            }
            None => None,
        };
        let transforms = match export {
            Some(_) if with_bodies => Some(csv_log(&dir.join(EXPORT_FOLDER).join(TRANSFORMS_FILE), TRANSFORMS_HEADER, resumed)?),
            _ => None,
        };
        let export_boundary = export.is_some_and(|e| e.boundary);
        let export_up = export.map_or(crate::export::Up::Y, |e| e.up);
        let outputs = Self {
            dir: Some(dir.to_path_buf()),
            probes: Some(probes),
            leaks,
            bodies,
            transforms,
            sensors,
            exporter,
            export_boundary,
            export_up,
            objects,
        };
        Ok((outputs, rows))
    }

    /// The folder's name for messages.
    pub(crate) fn folder_name(&self) -> String {
        self.dir.as_ref().map_or_else(|| "no folder".to_string(), |d| d.display().to_string())
    }

    /// Appends a probe row to probes.csv.
    pub(crate) fn probe_row(&mut self, row: &ProbeRow) -> anyhow::Result<()> {
        match self.probes.as_mut() {
            Some(w) => w.line(&row.csv()),
            None => Ok(()),
        }
    }

    /// Appends each moving solid's state to bodies.csv (`solids[k]`: the scene index of body k).
    pub(crate) fn bodies(
        &mut self,
        states: &[crate::sim::motion::BodyState],
        solids: &[usize],
        step: u64,
        time: f64,
    ) -> anyhow::Result<()> {
        if let Some(w) = self.bodies.as_mut() {
            for (b, &solid) in states.iter().zip(solids) {
                w.line(&body_row(step, time, solid, b))?;
            }
        }
        Ok(())
    }

    /// Appends each moving solid's transform at an exported frame to transforms.csv.
    pub(crate) fn transforms(&mut self, step: u64, time: f64, poses: &[(usize, crate::sim::motion::Pose)]) -> anyhow::Result<()> {
        if let Some(w) = self.transforms.as_mut() {
            for (solid, pose) in poses {
                w.line(&transform_row(step, time, *solid, pose, self.export_up))?;
            }
        }
        Ok(())
    }

    /// Appends the sensors' rows to sensors.csv.
    pub(crate) fn sensor_rows(&mut self, rows: &[crate::sim::sensors::SensorRow]) -> anyhow::Result<()> {
        if let Some(w) = self.sensors.as_mut() {
            for r in rows {
                w.line(&probe::sensors::line(r))?;
            }
        }
        Ok(())
    }

    /// Appends at most [`LEAK_ROWS`] of a probe's leaks to leaks.csv.
    pub(crate) fn leaks(&mut self, inside: &[Leak], step: u64, time: f64) -> anyhow::Result<()> {
        if let Some(w) = self.leaks.as_mut() {
            for line in inside.iter().take(LEAK_ROWS).map(|l| l.csv(step, time)) {
                w.line(&line)?;
            }
        }
        Ok(())
    }

    /// Hands a frame to the export writer; an error of the writer (which ends it) is returned
    /// as the writer's own when it has one.
    pub(crate) fn export(&mut self, p: &Particles, step: u64, time: f64, params: &crate::sim::params::SimParams) -> anyhow::Result<()> {
        let Some(e) = self.exporter.as_mut() else { return Ok(()) };
        let frame =
            Frame::new(p, step, time, params.rest_density, params.stiffness, self.export_boundary, &self.objects).turned(self.export_up);
        if let Err(sent) = e.send(frame) {
            return Err(match self.exporter.take().map(|e| e.finish()) {
                Some(Err(e)) => e,
                _ => sent,
            });
        }
        Ok(())
    }

    /// Ends the export (its writer finishes the files in its queue) and says what it wrote.
    pub(crate) fn finish_export(&mut self, settings: Option<&super::ExportSettings>) -> anyhow::Result<Option<ExportMeta>> {
        match (self.exporter.take(), settings) {
            (Some(e), Some(s)) => Ok(Some(ExportMeta { settings: s.clone(), folder: EXPORT_FOLDER.to_string(), stats: e.finish()? })),
            _ => Ok(None),
        }
    }

    /// Saves the checkpoint.
    pub(crate) fn checkpoint(&self, c: &Checkpoint) -> anyhow::Result<()> {
        match &self.dir {
            Some(dir) => c.save(&dir.join(crate::checkpoint::FILE)),
            None => Ok(()),
        }
    }

    /// Writes run.json.
    pub(crate) fn meta(&self, meta: &RunMeta) -> anyhow::Result<()> {
        match &self.dir {
            Some(dir) => write_whole(&dir.join("run.json"), serde_json::to_string_pretty(meta)?.as_bytes()),
            None => Ok(()),
        }
    }

    /// Writes profile.csv.
    pub(crate) fn profile(&self, bins: &[ProfileBin]) -> anyhow::Result<()> {
        let Some(dir) = &self.dir else { return Ok(()) };
        let mut s = String::from(probe::PROFILE_HEADER);
        s.push('\n');
        for b in bins {
            s.push_str(&b.csv());
            s.push('\n');
        }
        write_whole(&dir.join("profile.csv"), s.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    /// The columns docs/OUTPUTS.md lists under the heading that names `file`: the backticked
    /// names of each table row's first cell, in order.
    fn documented(file: &str) -> Vec<String> {
        let doc = include_str!("../../docs/OUTPUTS.md");
        let start = doc.find(&format!("## {file}")).unwrap_or_else(|| panic!("docs/OUTPUTS.md has no section {file}"));
        let section = &doc[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
        section
            .lines()
            .filter(|l| l.starts_with("| `"))
            .flat_map(|l| l.split('|').nth(1).unwrap_or("").split(',').map(|c| c.trim().trim_matches('`').to_string()).collect::<Vec<_>>())
            .collect()
    }

    fn columns(header: &str) -> Vec<String> {
        header.split(',').map(str::to_string).collect()
    }

    /// docs/OUTPUTS.md lists every column of every CSV a run writes, in the file's order.
    #[test]
    fn the_outputs_doc_lists_every_column() {
        let gauge = format!("{}NAME", crate::probes::columns::GAUGE_PREFIX);
        assert_eq!(
            documented("probes.csv"),
            columns(&crate::probes::columns::header(&["NAME".into()]))
                .iter()
                .map(|c| if c == &gauge { "height_m_at_NAME".to_string() } else { c.clone() })
                .collect::<Vec<_>>()
        );
        assert_eq!(
            documented("sensors.csv"),
            columns(&probe::sensors::header(&probe::sensors::Columns {
                pressure: vec!["NAME".into()],
                forces: vec!["FORCE".into()],
                flows: vec!["SECTION".into()],
            }))
        );
        assert_eq!(documented("bodies.csv"), columns(BODIES_HEADER));
        assert_eq!(documented("leaks.csv"), columns(LEAKS_HEADER));
        assert_eq!(documented("particles/"), columns(TRANSFORMS_HEADER));
    }

    /// The leak log lists the fluid particles inside a solid (and no free slot, no particle
    /// outside or only at the surface), in id order; a resumed run keeps its rows up to the
    /// checkpoint's step and drops a line cut short.
    #[test]
    fn leaks_are_listed_and_resumed() {
        let scene = Scene::parse(
            "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))],
              solids: [Box(center: (0.6, 0.5, 0.5), size: (0.2, 0.2, 0.2))], physics: (spacing: 0.02))",
            "leaks.ron",
        )
        .unwrap();
        let solids = crate::scene::bodies::SolidMask::new(&scene);
        let at = |x: f32, w: f32| [x, 0.5, 0.5, w];
        let p = Particles {
            // deep inside; inside but a free slot; outside; at the face (within the quarter spacing)
            pos_mass: vec![at(0.6, 1.0), at(0.62, 0.0), at(0.3, 1.0), at(0.503, 1.0), at(0.55, 1.0)],
            vel_rho: vec![[1.0, 2.0, 3.0, 1001.0]; 5],
            id: vec![7, 1, 2, 3, 4],
            pressure: None,
            bodies: vec![],
        };
        let inside = leaked(&p, &solids, 0.0);
        assert_eq!(inside.iter().map(|l| l.id).collect::<Vec<_>>(), [4, 7]);
        assert_eq!(inside[1].csv(10, 0.5), "10,0.5000000,7,0.600000,0.500000,0.500000,1.0000,2.0000,3.0000,1001.00");

        let dir = std::env::temp_dir().join(format!("rillet-leaks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(LEAKS_FILE);
        let mut log = leak_log(&path, None).unwrap();
        for step in [10, 20, 30] {
            log.line(&inside[0].csv(step, step as f64 * 0.05)).unwrap();
        }
        drop(log);
        std::fs::write(&path, std::fs::read_to_string(&path).unwrap() + "40,2.0,4,0.5").unwrap();
        leak_log(&path, Some(20)).unwrap();
        let steps: Vec<String> =
            std::fs::read_to_string(&path).unwrap().lines().map(|l| l.split(',').next().unwrap().to_string()).collect();
        assert_eq!(steps, ["step", "10", "20"]);
        leak_log(&path, None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{LEAKS_HEADER}\n"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
