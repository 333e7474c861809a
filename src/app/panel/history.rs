//! History of the grid diagnostics over the last minutes, as two plots: the largest cell
//! occupancy against the capacity, and the overflow count (its own scale: it can be thousands).

use crate::app::driver::DiagSample;
use egui_plot::{Legend, Line, Plot, PlotPoints, Points};
use std::collections::VecDeque;

type Series<'a> = (&'a str, egui::Color32, &'a dyn Fn(&DiagSample) -> f64);

pub(crate) fn show(ui: &mut egui::Ui, history: &VecDeque<DiagSample>) {
    if history.is_empty() {
        ui.weak("no samples yet (one every 60 frames)");
        return;
    }
    let max = |s: &DiagSample| s.diag.max_per_cell as f64;
    let capacity = |s: &DiagSample| s.capacity as f64;
    let overflows = |s: &DiagSample| s.diag.overflows as f64;
    plot(
        ui,
        "diagnostics.occupancy",
        history,
        &[("max per cell", egui::Color32::from_rgb(240, 110, 90), &max), ("capacity", egui::Color32::from_rgb(110, 150, 240), &capacity)],
        false,
    );
    plot(ui, "diagnostics.overflows", history, &[("overflows", egui::Color32::from_rgb(190, 210, 90), &overflows)], true);
}

fn plot(ui: &mut egui::Ui, id: &str, history: &VecDeque<DiagSample>, series: &[Series], x_label: bool) {
    let now = history.back().map_or(0.0, |s| s.at.as_secs_f64());
    let points =
        |f: &dyn Fn(&DiagSample) -> f64| -> PlotPoints<'static> { history.iter().map(|s| [s.at.as_secs_f64() - now, f(s)]).collect() };
    let mut p = Plot::new(id)
        .height(if x_label { 95.0 } else { 80.0 })
        .legend(Legend::default())
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .include_y(0.0)
        .include_x(0.0);
    if x_label {
        p = p.x_axis_label("seconds ago");
    }
    p.show(ui, |plot| {
        // lines between the samples, and a dot on each (so a single sample shows too)
        for (name, color, f) in series {
            plot.line(Line::new(*name, points(*f)).color(*color));
            plot.add(Points::new(*name, points(*f)).color(*color).radius(2.0));
        }
    });
}
