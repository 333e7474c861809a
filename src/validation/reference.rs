//! Analytical and experimental references, with where each number comes from.

/// Martin & Moyce (1952) variables for a column of width `a` and height `n²·a`:
/// `T = n·t·sqrt(g/a)` and `Z = front / a` (front measured from the back wall).
pub(crate) fn mm_time(t: f64, a: f64, n2: f64, g: f64) -> f64 {
    n2.sqrt() * t * (g / a).sqrt()
}

/// Ritter's (1892) dry-bed dam-break solution of the shallow-water equations: the front runs at
/// `2·sqrt(g·H)` from the start. In Martin & Moyce's variables, `Z = 1 + 2T` whatever `n`.
pub(crate) fn ritter_z(t_mm: f64) -> f64 {
    1.0 + 2.0 * t_mm
}

/// Martin & Moyce (1952), "Part IV. An experimental study of the collapse of liquid columns on a
/// rigid horizontal plane", Phil. Trans. R. Soc. Lond. A 244 (882), 312–324,
/// doi:10.1098/rsta.1952.0006; surge front of the n² = 2 column, a = 2¼ in, from the paper's
/// tables (Tables 2 and 6) as transcribed in Ocellaris (TormodLandet/Ocellaris,
/// scripts/plot_dam_break.py, commit e338249f): pairs (T, Z).
pub(crate) const MARTIN_MOYCE_TABLE: [(f64, f64); 15] = [
    (0.41, 1.11),
    (0.84, 1.22),
    (1.19, 1.44),
    (1.43, 1.67),
    (1.63, 1.89),
    (1.83, 2.11),
    (1.98, 2.33),
    (2.20, 2.56),
    (2.32, 2.78),
    (2.51, 3.00),
    (2.65, 3.22),
    (2.83, 3.44),
    (2.98, 3.67),
    (3.11, 3.89),
    (3.33, 4.11),
];

/// Martin & Moyce (1952), Fig. 3, surge front of the n² = 2 column, a = 2¼ in, digitised from
/// the figure in PySPH (pypr/pysph, pysph/examples/db_exp_data.py, `mm_data_2`, commit
/// 483e4449): pairs (T, Z), reaching further than the tables.
pub(crate) const MARTIN_MOYCE_FIG3: [(f64, f64); 15] = [
    (0.832, 1.217),
    (1.219, 1.474),
    (1.997, 2.292),
    (2.547, 2.995),
    (3.345, 4.134),
    (4.034, 4.944),
    (4.418, 5.881),
    (5.091, 6.980),
    (5.685, 7.945),
    (6.306, 8.966),
    (6.822, 9.986),
    (7.439, 10.963),
    (8.031, 11.977),
    (8.633, 13.005),
    (9.237, 13.970),
];

/// Martin & Moyce (1952), same source and transcription as [`MARTIN_MOYCE_TABLE`]: residual
/// height of the n² = 2 column at the back wall, pairs (τ, H) with τ = t·sqrt(g/a) and
/// H = height / (n²·a).
pub(crate) const MARTIN_MOYCE_HEIGHT: [(f64, f64); 17] = [
    (0.56, 0.94),
    (0.77, 0.89),
    (0.93, 0.83),
    (1.08, 0.78),
    (1.28, 0.72),
    (1.46, 0.67),
    (1.66, 0.61),
    (1.84, 0.56),
    (2.00, 0.50),
    (2.21, 0.44),
    (2.45, 0.39),
    (2.70, 0.33),
    (3.06, 0.28),
    (3.44, 0.22),
    (4.20, 0.17),
    (5.25, 0.11),
    (7.40, 0.06),
];

/// Both experimental series merged and sorted by T (the tests interpolate in it).
#[cfg(test)]
pub(crate) fn martin_moyce_merged() -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = MARTIN_MOYCE_TABLE.iter().chain(MARTIN_MOYCE_FIG3.iter()).copied().collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// Linear interpolation in a series sorted by x; `None` outside its range.
pub(crate) fn interpolate(series: &[(f64, f64)], x: f64) -> Option<f64> {
    let i = series.windows(2).position(|w| w[0].0 <= x && x <= w[1].0)?;
    let ((x0, y0), (x1, y1)) = (series[i], series[i + 1]);
    Some(if x1 > x0 { y0 + (y1 - y0) * (x - x0) / (x1 - x0) } else { y0 })
}

/// Hydrostatic pressure `ρ0·g·(H − y)` (0 above the surface).
pub(crate) fn hydrostatic_pressure(rho0: f64, g: f64, surface: f64, y: f64) -> f64 {
    (rho0 * g * (surface - y)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_experimental_series_agree() {
        // the figure digitisation lies within 0.15 of the tabulated values where they overlap
        let table: Vec<(f64, f64)> = MARTIN_MOYCE_TABLE.to_vec();
        for &(t, z) in MARTIN_MOYCE_FIG3.iter().filter(|p| p.0 >= 0.41 && p.0 <= 3.33) {
            let zt = interpolate(&table, t).unwrap();
            assert!((zt - z).abs() < 0.15, "T = {t}: table {zt}, figure {z}");
        }
        // and both are slower than Ritter
        for (t, z) in martin_moyce_merged() {
            assert!(z < ritter_z(t), "T = {t}");
        }
    }

    #[test]
    fn interpolation_and_scaling() {
        let s = [(0.0, 0.0), (1.0, 2.0), (3.0, 4.0)];
        assert_eq!(interpolate(&s, 0.5), Some(1.0));
        assert_eq!(interpolate(&s, 2.0), Some(3.0));
        assert_eq!(interpolate(&s, 3.5), None);
        // T = t·sqrt(2g/a) for n² = 2
        let t = mm_time(0.1, 0.05715, 2.0, 9.81);
        assert!((t - 0.1 * (2.0 * 9.81 / 0.05715f64).sqrt()).abs() < 1e-12);
        assert_eq!(hydrostatic_pressure(1000.0, 10.0, 1.0, 0.25), 7500.0);
    }
}
