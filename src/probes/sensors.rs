//! `sensors.csv`: the pressure sensors' rows (docs/PHYSICS.md, "Sensors"), written as the run
//! reads them from the GPU and read back with the `csv` crate by the header's names.
//!
//! Columns: `step`, `time_s` (s, from f64), then per sensor NAME `NAME_pa` (the interpolated
//! pressure, Pa) and `NAME_fill` (the kernel sum of the fluid at the point: about 1 inside the
//! water, ½ on a flat wall under water, 0 in air, where the pressure is 0); then per force
//! sensor NAME `NAME_fx_n`, `NAME_fy_n`, `NAME_fz_n` (the fluid's force on the solid, N) and
//! `NAME_mx_nm`, `NAME_my_nm`, `NAME_mz_nm` (its moment about the sensor's point, N·m); then per
//! flow section NAME `NAME_m3_s` (the volume rate through it, m³/s, positive along its normal)
//! and `NAME_kg_s` (the mass rate, kg/s). The values are f32 written in their shortest form that
//! reads back to the same bits.

pub use crate::sim::sensors::Columns;
use crate::sim::sensors::{FlowValue, SensorRow, SensorValue};

/// The file in a run folder.
pub const FILE: &str = "sensors.csv";

/// A force sensor's columns, in order.
const FORCE_COLUMNS: [&str; 6] = ["fx_n", "fy_n", "fz_n", "mx_nm", "my_nm", "mz_nm"];

/// The header for sensors `c`.
pub fn header(c: &Columns) -> String {
    let mut h = String::from("step,time_s");
    for n in &c.pressure {
        h.push_str(&format!(",{n}_pa,{n}_fill"));
    }
    for n in &c.forces {
        for c in FORCE_COLUMNS {
            h.push_str(&format!(",{n}_{c}"));
        }
    }
    for n in &c.flows {
        h.push_str(&format!(",{n}_m3_s,{n}_kg_s"));
    }
    h
}

/// A row's line.
pub fn line(row: &SensorRow) -> String {
    let mut s = format!("{},{:.9}", row.step, row.time);
    for v in &row.values {
        s.push_str(&format!(",{},{}", v.pressure, v.fill));
    }
    for f in &row.forces {
        for c in f {
            s.push_str(&format!(",{c}"));
        }
    }
    for f in &row.flows {
        s.push_str(&format!(",{},{}", f.volume_rate, f.mass_rate));
    }
    s
}

/// The rows of a `sensors.csv` for sensors `c` (each row's values in their order; the
/// neighbour and particle counts, which the file does not hold, are 0). An error names the
/// line.
pub fn read(text: &str, c: &Columns) -> Result<Vec<SensorRow>, String> {
    let (names, forces) = (&c.pressure, &c.forces);
    let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let head = r.headers().map_err(|e| format!("header: {e}"))?.clone();
    let col = |name: &str| head.iter().position(|h| h == name).ok_or_else(|| format!("no column `{name}`"));
    let (step_at, time_at) = (col("step")?, col("time_s")?);
    let cols: Vec<(usize, usize)> =
        names.iter().map(|n| Ok((col(&format!("{n}_pa"))?, col(&format!("{n}_fill"))?))).collect::<Result<_, String>>()?;
    let force_cols: Vec<Vec<usize>> = forces
        .iter()
        .map(|n| FORCE_COLUMNS.iter().map(|c| col(&format!("{n}_{c}"))).collect::<Result<Vec<_>, String>>())
        .collect::<Result<_, String>>()?;
    let flow_cols: Vec<(usize, usize)> =
        c.flows.iter().map(|n| Ok((col(&format!("{n}_m3_s"))?, col(&format!("{n}_kg_s"))?))).collect::<Result<_, String>>()?;
    let mut rows = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| format!("line {line}: {e}"))?;
        let field = |k: usize| rec.get(k).ok_or_else(|| format!("line {line}: too few fields"));
        let num = |k: usize| field(k)?.parse::<f64>().map_err(|e| format!("line {line}: `{}`: {e}", rec.get(k).unwrap_or("")));
        let step = field(step_at)?.parse::<u64>().map_err(|e| format!("line {line}: step: {e}"))?;
        let values = cols
            .iter()
            .map(|&(p, f)| Ok(SensorValue { pressure: num(p)? as f32, fill: num(f)? as f32, neighbours: 0 }))
            .collect::<Result<_, String>>()?;
        let forces = force_cols
            .iter()
            .map(|cols| {
                let mut f = [0.0f32; 6];
                for (v, &k) in f.iter_mut().zip(cols) {
                    *v = num(k)? as f32;
                }
                Ok(f)
            })
            .collect::<Result<_, String>>()?;
        let flows = flow_cols
            .iter()
            .map(|&(q, m)| Ok(FlowValue { volume_rate: num(q)? as f32, mass_rate: num(m)? as f32, particles: 0 }))
            .collect::<Result<_, String>>()?;
        rows.push(SensorRow { step, time: num(time_at)?, values, forces, flows });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_to_the_same_bits() {
        let names = vec!["P1".to_string(), "wall-2.a".to_string()];
        let v = |p: f32, f: f32| SensorValue { pressure: p, fill: f, neighbours: 0 };
        let c = Columns { pressure: names, forces: vec!["box".to_string()], flows: vec!["out".to_string()] };
        let q = |q: f32, m: f32| FlowValue { volume_rate: q, mass_rate: m, particles: 0 };
        let rows = vec![
            SensorRow {
                step: 0,
                time: 0.0,
                values: vec![v(0.0, 0.0), v(1.0e-7, 0.4999999)],
                forces: vec![[0.0; 6]],
                flows: vec![q(0.0, 0.0)],
            },
            SensorRow {
                step: 40,
                time: 0.016,
                values: vec![v(9810.123, 1.0000001), v(3.4e7, 0.5)],
                forces: vec![[-1.5e-3, 88.28999, 0.1, 1.0e-9, -2.5, 3.0e4]],
                flows: vec![q(-0.0599999, -59.99991)],
            },
        ];
        let text = format!("{}\n{}\n", header(&c), rows.iter().map(line).collect::<Vec<_>>().join("\n"));
        assert!(
            text.starts_with(
                "step,time_s,P1_pa,P1_fill,wall-2.a_pa,wall-2.a_fill,box_fx_n,box_fy_n,box_fz_n,box_mx_nm,box_my_nm,box_mz_nm,out_m3_s,out_kg_s\n0,0.000000000,0,0,"
            ),
            "{text}"
        );
        assert_eq!(read(&text, &c).unwrap(), rows);
        let e = read(&text, &Columns { pressure: vec!["P3".to_string()], ..Default::default() }).unwrap_err();
        assert!(e.contains("P3_pa"), "{e}");
        let e = read(&text, &Columns { forces: vec!["lid".to_string()], ..Default::default() }).unwrap_err();
        assert!(e.contains("lid_fx_n"), "{e}");
        let e = read(&text, &Columns { flows: vec!["inlet".to_string()], ..Default::default() }).unwrap_err();
        assert!(e.contains("inlet_m3_s"), "{e}");
        let e = read(&format!("{text}80,x,1,1,1,1,1,1,1,1,1,1,1,1\n"), &c).unwrap_err();
        assert!(e.starts_with("line 4"), "{e}");
    }
}
