//! The validation figures: plotters into an RGB buffer, encoded as PNG.

use super::reference::{self, MARTIN_MOYCE_FIG3, MARTIN_MOYCE_HEIGHT, MARTIN_MOYCE_TABLE};
use crate::headless::RunResult;
use anyhow::Context;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

const FONT: &str = "sans-serif";
const W: u32 = 1500;
const H: u32 = 520;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // the Ubuntu Light face egui ships: no system fonts needed
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT);
    });
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// Draws `panels` side by side and writes the PNG.
fn figure(path: &Path, panels: usize, draw: impl FnOnce(Vec<Area<'_>>) -> anyhow::Result<()>) -> anyhow::Result<()> {
    register_font();
    let mut buf = vec![255u8; (W * H * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (W, H)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let areas = root.split_evenly((1, panels));
        draw(areas)?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    write_png(path, &buf, W, H)
}

/// Writes an RGB8 buffer as PNG.
pub(crate) fn write_png(path: &Path, rgb: &[u8], width: u32, height: u32) -> anyhow::Result<()> {
    let file = std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_compression(png::Compression::Best);
    let mut w = enc.write_header()?;
    w.write_image_data(rgb)?;
    Ok(())
}

fn e<T: std::fmt::Display>(x: T) -> anyhow::Error {
    anyhow::anyhow!("plot: {x}")
}

#[allow(dead_code)]
fn range(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let span = (hi - lo).max(1e-12);
    (lo - pad * span, hi + pad * span)
}

macro_rules! legend {
    ($chart:expr) => {
        $chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font((FONT, 16))
            .draw()
            .map_err(e)?
    };
}

fn line_legend(c: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
}

/// Pressure profile (sim vs hydrostatic), max interior density error and kinetic energy over time.
pub(crate) fn hydrostatic(path: &Path, r: &RunResult, surface: f64, profile: &[(f64, f64, f64, bool)]) -> anyhow::Result<()> {
    figure(path, 3, |areas| {
        let p_max = profile.iter().map(|p| p.1.max(p.2)).fold(0.0, f64::max) * 1.05;
        let mut c = ChartBuilder::on(&areas[0])
            .caption("pressure profile (last tenth, per layer)", (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..p_max.max(1.0), 0.0..surface * 1.05)
            .map_err(e)?;
        c.configure_mesh().x_desc("p (Pa)").y_desc("y (m)").label_style((FONT, 14)).draw().map_err(e)?;
        c.draw_series(LineSeries::new(profile.iter().map(|p| (p.2, p.0)), BLACK.stroke_width(2)))
            .map_err(e)?
            .label("ρ0·g·(H − y)")
            .legend(line_legend(BLACK));
        c.draw_series(profile.iter().filter(|p| p.3).map(|p| Circle::new((p.1, p.0), 4, BLUE.filled())))
            .map_err(e)?
            .label("Rillet, deeper than h")
            .legend(|(x, y)| Circle::new((x + 10, y), 4, BLUE.filled()));
        c.draw_series(profile.iter().filter(|p| !p.3).map(|p| Circle::new((p.1, p.0), 4, RED.stroke_width(2))))
            .map_err(e)?
            .label("Rillet, within h of the surface")
            .legend(|(x, y)| Circle::new((x + 10, y), 4, RED.stroke_width(2)));
        legend!(c);

        let t_end = r.rows.last().map(|x| x.time).unwrap_or(1.0).max(1e-9);
        let d_max = r.rows.iter().map(|x| 100.0 * x.max_density_error_interior).fold(1.2, f64::max) * 1.05;
        let mut c = ChartBuilder::on(&areas[1])
            .caption("max density error, deeper than h", (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, 0.0..d_max)
            .map_err(e)?;
        c.configure_mesh().x_desc("t (s)").y_desc("|ρ/ρ0 − 1| (%)").label_style((FONT, 14)).draw().map_err(e)?;
        c.draw_series(LineSeries::new(r.rows.iter().map(|x| (x.time, 100.0 * x.max_density_error_interior)), BLUE.stroke_width(2)))
            .map_err(e)?
            .label("Rillet")
            .legend(line_legend(BLUE));
        c.draw_series(LineSeries::new([(0.0, 1.0), (t_end, 1.0)], RED.stroke_width(1)))
            .map_err(e)?
            .label("bound 1 %")
            .legend(line_legend(RED));
        legend!(c);

        let ke: Vec<(f64, f64)> = r.rows.iter().map(|x| (x.time, x.kinetic)).collect();
        let ke_max = ke.iter().map(|p| p.1).fold(1e-12, f64::max) * 1.05;
        let mut c = ChartBuilder::on(&areas[2])
            .caption("kinetic energy", (FONT, 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_end, 0.0..ke_max)
            .map_err(e)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("E_kin (J)")
            .y_label_formatter(&|v| format!("{v:.2e}"))
            .label_style((FONT, 14))
            .draw()
            .map_err(e)?;
        c.draw_series(LineSeries::new(ke, BLUE.stroke_width(2))).map_err(e)?;
        Ok(())
    })
}

/// Surge front Z(T) against Ritter and Martin & Moyce; residual height H(τ) at the back wall.
pub(crate) fn dam_break(path: &Path, front: &[(f64, f64)], height: &[(f64, f64)]) -> anyhow::Result<()> {
    figure(path, 2, |areas| {
        let t_max = front.last().map(|p| p.0).unwrap_or(1.0).max(MARTIN_MOYCE_FIG3[14].0);
        let z_max = front.iter().map(|p| p.1).fold(MARTIN_MOYCE_FIG3[14].1, f64::max) * 1.05;
        let mut c = ChartBuilder::on(&areas[0])
            .caption("surge front", (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..t_max, 0.0..z_max)
            .map_err(e)?;
        c.configure_mesh().x_desc("T = n·t·sqrt(g/a)").y_desc("Z = front / a").label_style((FONT, 14)).draw().map_err(e)?;
        let t_ritter = ((z_max - 1.0) / 2.0).min(t_max);
        c.draw_series(LineSeries::new([(0.0, 1.0), (t_ritter, reference::ritter_z(t_ritter))], BLACK.stroke_width(2)))
            .map_err(e)?
            .label("Ritter (1892), Z = 1 + 2T")
            .legend(line_legend(BLACK));
        c.draw_series(LineSeries::new(front.iter().copied(), BLUE.stroke_width(2))).map_err(e)?.label("Rillet").legend(line_legend(BLUE));
        c.draw_series(MARTIN_MOYCE_TABLE.iter().map(|&p| Circle::new(p, 5, RED.filled())))
            .map_err(e)?
            .label("Martin & Moyce 1952, tables")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, RED.filled()));
        c.draw_series(MARTIN_MOYCE_FIG3.iter().map(|&p| TriangleMarker::new(p, 6, GREEN.mix(0.9).filled())))
            .map_err(e)?
            .label("Martin & Moyce 1952, Fig. 3")
            .legend(|(x, y)| TriangleMarker::new((x + 10, y), 6, GREEN.filled()));
        legend!(c);

        let tau_max = height.last().map(|p| p.0).unwrap_or(1.0).max(7.5);
        let mut c = ChartBuilder::on(&areas[1])
            .caption("residual column height at the back wall", (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(55)
            .build_cartesian_2d(0.0..tau_max, 0.0..1.1)
            .map_err(e)?;
        c.configure_mesh().x_desc("τ = t·sqrt(g/a)").y_desc("H = height / (n²·a)").label_style((FONT, 14)).draw().map_err(e)?;
        c.draw_series(LineSeries::new(height.iter().copied(), BLUE.stroke_width(2)))
            .map_err(e)?
            .label("Rillet (gauge 0 ≤ x < h)")
            .legend(line_legend(BLUE));
        c.draw_series(MARTIN_MOYCE_HEIGHT.iter().map(|&p| Circle::new(p, 5, RED.filled())))
            .map_err(e)?
            .label("Martin & Moyce 1952, tables")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, RED.filled()));
        legend!(c);
        Ok(())
    })
}

/// Momentum drift of the blobs; energy of the dam break relative to its initial potential energy.
pub(crate) fn conservation(path: &Path, drift: &[(f64, [f64; 3])], energy: &[(f64, f64, f64)]) -> anyhow::Result<()> {
    figure(path, 2, |areas| {
        let t_max = drift.last().map(|p| p.0).unwrap_or(1.0).max(1e-9);
        let m = drift.iter().flat_map(|p| p.1).map(f64::abs).fold(1e-9, f64::max) * 1.1;
        let mut c = ChartBuilder::on(&areas[0])
            .caption("blobs without gravity: momentum drift", (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..t_max, -m..m)
            .map_err(e)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("(P(t) − P(0)) / |P(0)|")
            .y_label_formatter(&|v| format!("{v:.1e}"))
            .label_style((FONT, 14))
            .draw()
            .map_err(e)?;
        for (a, (name, col)) in [("x", BLUE), ("y", RED), ("z", GREEN)].into_iter().enumerate() {
            c.draw_series(LineSeries::new(drift.iter().map(|p| (p.0, p.1[a])), col.stroke_width(2)))
                .map_err(e)?
                .label(name)
                .legend(line_legend(col));
        }
        legend!(c);

        let t_max = energy.last().map(|p| p.0).unwrap_or(1.0).max(1e-9);
        let (lo, hi) = range(energy.iter().flat_map(|p| [p.1, p.2]), 0.1);
        let mut c = ChartBuilder::on(&areas[1])
            .caption("dam break: energy / initial potential energy", (FONT, 22))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_max, lo..hi)
            .map_err(e)?;
        c.configure_mesh()
            .x_desc("t (s)")
            .y_desc("E / E_pot(0)")
            .y_label_formatter(&|v| format!("{v:.3}"))
            .label_style((FONT, 14))
            .draw()
            .map_err(e)?;
        c.draw_series(LineSeries::new(energy.iter().map(|p| (p.0, p.1)), BLUE.stroke_width(2)))
            .map_err(e)?
            .label("kinetic + potential")
            .legend(line_legend(BLUE));
        c.draw_series(LineSeries::new(energy.iter().map(|p| (p.0, p.2)), RED.stroke_width(2)))
            .map_err(e)?
            .label("kinetic + potential + elastic")
            .legend(line_legend(RED));
        legend!(c);
        Ok(())
    })
}

/// SPHERIC Test 2: water heights H2 and H4 over time, ours against the measurement.
pub(crate) fn spheric(path: &Path, ours: &[(f64, f64, f64)], measured: &[(f64, f64, f64)], label: &str) -> anyhow::Result<()> {
    figure(path, 2, |areas| {
        let t_max = ours.last().map_or(1.5, |p| p.0);
        for (k, (name, x)) in [("H2", 2.228), ("H4", 0.582)].into_iter().enumerate() {
            let pick = |p: &(f64, f64, f64)| if k == 0 { p.1 } else { p.2 };
            let mut c = ChartBuilder::on(&areas[k])
                .caption(format!("{name}: water height at x = {x} m, z = 0.5 m"), (FONT, 22))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(0.0..t_max, 0.0..0.6)
                .map_err(e)?;
            c.configure_mesh().x_desc("t (s)").y_desc("height (m)").label_style((FONT, 14)).draw().map_err(e)?;
            c.draw_series(LineSeries::new(measured.iter().filter(|p| p.0 <= t_max).map(|p| (p.0, pick(p))), RED.stroke_width(2)))
                .map_err(e)?
                .label("measured (Kleefsman et al. 2005, MARIN)")
                .legend(line_legend(RED));
            c.draw_series(LineSeries::new(ours.iter().map(|p| (p.0, pick(p))), BLUE.stroke_width(2)))
                .map_err(e)?
                .label(label.to_string())
                .legend(line_legend(BLUE));
            legend!(c);
        }
        Ok(())
    })
}

/// (t, value) points of a curve.
pub(crate) type Curve = Vec<(f64, f64)>;

/// SPHERIC Test 2's pressure sensors: for each (name, ours, measured) a panel of pressure (kPa)
/// against time, in a grid of two rows.
pub(crate) fn spheric_pressure(path: &Path, panels: &[(String, Curve, Curve)], label: &str) -> anyhow::Result<()> {
    register_font();
    let (w, h) = (W, 2 * H);
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(e)?;
        let areas = root.split_evenly((2, panels.len().div_ceil(2).max(1)));
        for ((name, ours, measured), area) in panels.iter().zip(&areas) {
            let t_max = ours.last().map_or(2.0, |p| p.0);
            let top = ours.iter().chain(measured.iter().filter(|p| p.0 <= t_max)).map(|p| p.1).fold(1.0, f64::max) * 1.1e-3;
            let mut c = ChartBuilder::on(area)
                .caption(name, (FONT, 22))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(55)
                .build_cartesian_2d(0.0..t_max, -0.5..top)
                .map_err(e)?;
            c.configure_mesh().x_desc("t (s)").y_desc("p (kPa)").label_style((FONT, 14)).draw().map_err(e)?;
            // held inside the panel (a line beyond its range would be drawn across the next)
            let kpa = |p: &(f64, f64)| (p.0, (p.1 * 1e-3).clamp(-0.5, top));
            c.draw_series(LineSeries::new(measured.iter().filter(|p| p.0 <= t_max).map(kpa), RED.stroke_width(1)))
                .map_err(e)?
                .label("measured (Kleefsman et al. 2005, MARIN)")
                .legend(line_legend(RED));
            c.draw_series(LineSeries::new(ours.iter().map(kpa), BLUE.stroke_width(1)))
                .map_err(e)?
                .label(label.to_string())
                .legend(line_legend(BLUE));
            legend!(c);
        }
        root.present().map_err(e)?;
    }
    write_png(path, &buf, w, h)
}
