//! `probes.csv`: its columns, their units and their number formats, in one place ([`Record`]),
//! written and read with the `csv` crate and serde.
//!
//! Columns are read by the header's names, so a file written before a column existed (the
//! `inside_solids` column, the flow columns, the step columns `dt` to `solver_error`) reads with
//! 0 there; a row must have as many fields as its file's header.

use super::ProbeRow;
use serde::{Deserialize, Serialize, Serializer};

/// The gauge columns' prefix: `height_m_at_NAME` (water height, m, at gauge NAME of
/// [`super::ProbeSetup::gauge_names`]); they come after `front_m`.
pub(crate) const GAUGE_PREFIX: &str = "height_m_at_";

/// Where the gauge columns go: after this many columns of [`Record`].
const GAUGES_AT: usize = 3;

fn f6<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{x:.6}"))
}
fn f7<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{x:.7}"))
}
fn e6<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{x:.6e}"))
}
fn e9<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{x:.9e}"))
}

/// One row of probes.csv, column by column in the file's order (the gauges' columns,
/// [`GAUGE_PREFIX`], after `front_m`): each field's name is its column's, its doc its unit and
/// meaning (see [`ProbeRow`] for the definitions), its `serialize_with` the digits written.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
struct Record {
    /// Step number.
    step: u64,
    /// Simulated time (s).
    #[serde(serialize_with = "f7")]
    time_s: f64,
    /// Surge front (m).
    #[serde(serialize_with = "f6")]
    front_m: f64,
    /// max |ρ/ρ0 − 1| over all fluid (1).
    #[serde(serialize_with = "e6")]
    max_density_error: f64,
    /// mean |ρ/ρ0 − 1| over all fluid (1).
    #[serde(serialize_with = "e6")]
    mean_density_error: f64,
    /// max |ρ/ρ0 − 1| deeper than h below the free surface (1).
    #[serde(serialize_with = "e6")]
    max_density_error_interior: f64,
    /// Kinetic energy (J).
    #[serde(rename = "kinetic_J", serialize_with = "e9")]
    kinetic_j: f64,
    /// Potential energy above the domain floor (J).
    #[serde(rename = "potential_J", serialize_with = "e9")]
    potential_j: f64,
    /// Elastic energy of the compressed fluid (J).
    #[serde(rename = "elastic_J", serialize_with = "e9")]
    elastic_j: f64,
    /// Momentum (kg m/s).
    #[serde(serialize_with = "e9")]
    momentum_x: f64,
    #[serde(serialize_with = "e9")]
    momentum_y: f64,
    #[serde(serialize_with = "e9")]
    momentum_z: f64,
    /// Largest particle speed of the state after the step (m/s).
    #[serde(serialize_with = "f6")]
    max_speed_m_s: f64,
    /// Smallest distance of fluid to a face of the domain (m).
    #[serde(serialize_with = "e6")]
    min_wall_distance_m: f64,
    /// Domain-guard clamps since the start (particle-steps).
    wall_clamps: u64,
    /// Non-finite particle-steps discarded since the start.
    non_finite: u64,
    /// Fluid particles outside the domain (count).
    outside: u32,
    /// max |ρ/ρ0 − 1| over the bulk (1).
    #[serde(serialize_with = "e6")]
    max_density_error_bulk: f64,
    /// Fluid particles in spray and drops (count).
    spray: u32,
    /// max (ρ/ρ0 − 1, 0) (1).
    #[serde(serialize_with = "e6")]
    max_compression: f64,
    /// Clamps per step since the previous row.
    #[serde(serialize_with = "f6")]
    wall_clamps_per_step: f64,
    /// Largest cell occupancy of the last grid build (particles).
    max_per_cell: u32,
    /// Particles over the cell capacity in the last grid build.
    overflows: u32,
    /// Fluid particles inside a solid (count; column added after the first files).
    inside_solids: u32,
    /// Fluid particles in the simulation (count; the flow columns, added later).
    fluid_particles: u64,
    /// Left through open faces since the start (count).
    outflow: u64,
    /// Created by the emitters since the start (count).
    emitted: u64,
    /// Not emitted for want of room since the start (count).
    starved: u64,
    /// The last step's dt (s; the step columns, from the GPU's diagnostics, added later).
    #[serde(serialize_with = "e6")]
    dt: f64,
    /// Fastest fluid particle at the last step's density pass (m/s).
    #[serde(serialize_with = "f6")]
    max_speed: f64,
    /// Mean compression at the last step's density pass (1).
    #[serde(serialize_with = "e6")]
    density_error: f64,
    /// DFSPH: velocity updates of the last pressure and divergence solves (0 for WCSPH).
    pressure_iterations: u32,
    divergence_iterations: u32,
    /// DFSPH: the mean predicted compression the last pressure solve reached (1).
    #[serde(serialize_with = "e6")]
    solver_error: f64,
}

/// The header's names of [`Record`]'s fields, in order (serde's names: the derive above).
fn record_names() -> Vec<String> {
    let mut w = csv::WriterBuilder::new().has_headers(true).from_writer(vec![]);
    w.serialize(Record::default()).expect("a record serializes");
    let bytes = w.into_inner().expect("into a Vec");
    let text = String::from_utf8(bytes).expect("ASCII names");
    text.lines().next().unwrap_or_default().split(',').map(str::to_string).collect()
}

/// The CSV header for gauges named as [`super::ProbeSetup::gauge_names`] names them.
pub(crate) fn header(gauges: &[String]) -> String {
    let mut names = record_names();
    let gauge_columns: Vec<String> = gauges.iter().map(|g| format!("{GAUGE_PREFIX}{g}")).collect();
    names.splice(GAUGES_AT..GAUGES_AT, gauge_columns);
    names.join(",")
}

impl From<&ProbeRow> for Record {
    fn from(r: &ProbeRow) -> Self {
        Record {
            step: r.step,
            time_s: r.time,
            front_m: r.front,
            max_density_error: r.max_density_error,
            mean_density_error: r.mean_density_error,
            max_density_error_interior: r.max_density_error_interior,
            kinetic_j: r.kinetic,
            potential_j: r.potential,
            elastic_j: r.elastic,
            momentum_x: r.momentum[0],
            momentum_y: r.momentum[1],
            momentum_z: r.momentum[2],
            max_speed_m_s: r.max_speed,
            min_wall_distance_m: r.min_wall_distance,
            wall_clamps: r.wall_clamps,
            non_finite: r.non_finite,
            outside: r.outside,
            max_density_error_bulk: r.max_density_error_bulk,
            spray: r.spray,
            max_compression: r.max_compression,
            wall_clamps_per_step: r.wall_clamps_per_step,
            max_per_cell: r.max_per_cell,
            overflows: r.overflows,
            inside_solids: r.inside_solids,
            fluid_particles: r.fluid_particles,
            outflow: r.outflow,
            emitted: r.emitted,
            starved: r.starved,
            dt: r.dt,
            max_speed: r.step_max_speed,
            density_error: r.density_error,
            pressure_iterations: r.pressure_iterations,
            divergence_iterations: r.divergence_iterations,
            solver_error: r.solver_error,
        }
    }
}

impl Record {
    fn into_row(self, gauges: Vec<f64>) -> ProbeRow {
        ProbeRow {
            step: self.step,
            time: self.time_s,
            front: self.front_m,
            gauges,
            max_density_error: self.max_density_error,
            mean_density_error: self.mean_density_error,
            max_density_error_interior: self.max_density_error_interior,
            kinetic: self.kinetic_j,
            potential: self.potential_j,
            elastic: self.elastic_j,
            momentum: [self.momentum_x, self.momentum_y, self.momentum_z],
            max_speed: self.max_speed_m_s,
            min_wall_distance: self.min_wall_distance_m,
            wall_clamps: self.wall_clamps,
            non_finite: self.non_finite,
            outside: self.outside,
            max_density_error_bulk: self.max_density_error_bulk,
            spray: self.spray,
            max_compression: self.max_compression,
            wall_clamps_per_step: self.wall_clamps_per_step,
            max_per_cell: self.max_per_cell,
            overflows: self.overflows,
            inside_solids: self.inside_solids,
            fluid_particles: self.fluid_particles,
            outflow: self.outflow,
            emitted: self.emitted,
            starved: self.starved,
            dt: self.dt,
            step_max_speed: self.max_speed,
            density_error: self.density_error,
            pressure_iterations: self.pressure_iterations,
            divergence_iterations: self.divergence_iterations,
            solver_error: self.solver_error,
        }
    }
}

/// A row as one CSV line (no newline), in [`header`]'s columns.
pub(crate) fn line(row: &ProbeRow) -> String {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(vec![]);
    w.serialize(Record::from(row)).expect("numbers serialize");
    let bytes = w.into_inner().expect("into a Vec");
    let fixed = String::from_utf8(bytes).expect("numbers are ASCII");
    let mut fields: Vec<String> = fixed.trim_end().split(',').map(str::to_string).collect();
    fields.splice(GAUGES_AT..GAUGES_AT, row.gauges.iter().map(|g| format!("{g:.6}")));
    fields.join(",")
}

/// A line of a probes.csv that is not a row of it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BadLine {
    /// Its line number (the header is line 1).
    pub line: usize,
    /// Whether it is the file's last line (one cut short by a crash can only be that one).
    pub last: bool,
    pub why: String,
}

/// The rows of a probes.csv's text, up to its first line that is not a row (which is returned
/// too); the columns read by the header's names (see the module's doc).
pub(crate) fn read(text: &str) -> Result<(Vec<ProbeRow>, Option<BadLine>), String> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let headers = reader.headers().map_err(|e| format!("line 1 (the header): {e}"))?.clone();
    let gauges: Vec<usize> = headers.iter().enumerate().filter(|(_, h)| h.starts_with(GAUGE_PREFIX)).map(|(i, _)| i).collect();
    let total = text.lines().count();
    let mut rows = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let line = k + 2;
        let bad = |why: String| BadLine { line, last: line >= total, why };
        let record = match record {
            Ok(r) => r,
            Err(e) => return Ok((rows, Some(bad(e.to_string())))),
        };
        if record.len() != headers.len() {
            return Ok((rows, Some(bad(format!("{} fields, the header has {}", record.len(), headers.len())))));
        }
        let parsed = record.deserialize::<Record>(Some(&headers)).map_err(|e| e.to_string()).and_then(|r| {
            let g = gauges
                .iter()
                .map(|&i| record[i].trim().parse::<f64>().map_err(|e| format!("{}: {e}", &headers[i])))
                .collect::<Result<_, _>>()?;
            Ok(r.into_row(g))
        });
        match parsed {
            Ok(row) => rows.push(row),
            Err(why) => return Ok((rows, Some(bad(why)))),
        }
    }
    Ok((rows, None))
}
