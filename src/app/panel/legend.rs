//! The colour legend: the colormap the sprites use, with its range (editable).

use crate::render::{ColorMode, ViewSettings};

/// Draws the gradient of the current colour mode with editable ends; true when changed.
pub(crate) fn show(ui: &mut egui::Ui, view: &mut ViewSettings, defaults: (f32, f32)) -> bool {
    let mode = view.color_mode;
    let map = mode.colormap();
    let width = ui.available_width().max(60.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 16.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let n = 48;
    for i in 0..n {
        let t0 = i as f32 / n as f32;
        let t1 = (i + 1) as f32 / n as f32;
        let [r, g, b] = map.srgb((t0 + t1) * 0.5);
        let seg = egui::Rect::from_min_max(
            egui::pos2(rect.left() + t0 * rect.width(), rect.top()),
            egui::pos2(rect.left() + t1 * rect.width() + 0.5, rect.bottom()),
        );
        painter.rect_filled(seg, 0.0, egui::Color32::from_rgb((r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8));
    }
    let mut changed = false;
    let (lo, hi) = view.range_mut();
    let speed = ((*hi - *lo).abs() * 0.005).max(1e-4) as f64;
    ui.horizontal(|ui| {
        changed |= ui.add(egui::DragValue::new(lo).speed(speed).max_decimals(4)).changed();
        ui.label(format!("… {} …", mode.unit()));
        changed |= ui.add(egui::DragValue::new(hi).speed(speed).max_decimals(4)).changed();
        if ui.small_button("auto").on_hover_text("the range that suits this scene").clicked() {
            (*lo, *hi) = defaults;
            changed = true;
        }
    });
    let what = match mode {
        ColorMode::Speed => "particle speed |v|",
        ColorMode::Density => "density ρ (white: rest density)",
        ColorMode::Pressure => "pressure p = B((ρ/ρ0)^7 − 1) (white: 0)",
    };
    ui.small(what);
    changed
}
