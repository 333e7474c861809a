//! History of the grid diagnostics over the last minutes, as a plot.

use crate::app::driver::DiagSample;
use egui_plot::{Legend, Line, Plot, PlotPoints};
use std::collections::VecDeque;

pub fn show(ui: &mut egui::Ui, history: &VecDeque<DiagSample>) {
    if history.is_empty() {
        ui.weak("no samples yet (one every 60 frames)");
        return;
    }
    let now = history.back().map_or(0.0, |s| s.at.as_secs_f64());
    let series =
        |f: &dyn Fn(&DiagSample) -> f64| -> PlotPoints<'static> { history.iter().map(|s| [s.at.as_secs_f64() - now, f(s)]).collect() };
    Plot::new("diagnostics.history")
        .height(130.0)
        .legend(Legend::default())
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .include_y(0.0)
        .x_axis_label("seconds ago")
        .show(ui, |plot| {
            plot.line(Line::new("max per cell", series(&|s| s.diag.max_per_cell as f64)));
            plot.line(Line::new("capacity", series(&|s| s.capacity as f64)));
            plot.line(Line::new("overflows", series(&|s| s.diag.overflows as f64)));
        });
}
