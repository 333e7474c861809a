//! The egui panel: performance, per-pass GPU times, grid diagnostics with their history, the
//! live simulation controls and the view settings. The panel only edits [`Controls`] and
//! [`ViewSettings`] and returns [`Action`]s; the app applies them between frames.
//!
//! The controls' ranges are the scene schema's ([`limits`]), so the panel reaches every value a
//! scene may hold, and showing a value never changes it: only the user's edits are clamped.
//! The panel is the app's own part: it reads the app's driver and timer types, nothing above.

pub(crate) mod history;
pub(crate) mod legend;

use crate::app::driver::{DiagSample, ProfileSample};
use crate::app::render_timer;
use crate::render::surface::{ABSORPTION_DEPTH, Environment, FILTER_RADIUS, SPRAY_DENSITY_OVER_REST, SurfaceSettings};
use crate::render::{ColorMode, View, ViewSettings};
use crate::scene::{Solver, limits};
use crate::sim::SimOptions;
use crate::sim::layout::{CellOrder, GridLayout};
use crate::sim::params::{SOLVER_DFSPH, SimParams};
use crate::sim::profiler::PASSES;
use std::collections::VecDeque;

/// What the user can change while the simulation runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Controls {
    pub options: SimOptions,
    /// Simulation steps per frame.
    pub substeps: u32,
    pub paused: bool,
    /// The pressure solver chosen in the panel, in place of the scene's `physics.solver` from the
    /// next reset or reload on (None: the scene's own).
    pub solver: Option<Solver>,
}

/// One-off requests from the panel or the keyboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Run one step (while paused).
    Step,
    /// Restart the scene from its initial state.
    Reset,
    /// Read the scene file again.
    Reload,
    /// Frame the scene in the view.
    ResetCamera,
    /// Save a PNG of the window.
    Screenshot,
    /// Export the particles of the next frame.
    ExportFrame,
    /// Start or stop recording particle frames.
    ToggleRecording,
}

/// The particle export as the panel shows it.
#[derive(Clone, Debug)]
pub(crate) struct ExportReadout<'a> {
    pub dir: &'a str,
    pub recording: bool,
    pub every: u64,
    pub frames: u64,
    pub skipped: u64,
    pub error: Option<&'a str>,
}

/// Which side the panel is docked on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dock {
    Left,
    Right,
}

/// Panel state that lives across frames.
pub(crate) struct PanelState {
    pub dock: Dock,
    pub visible: bool,
}

impl Default for PanelState {
    fn default() -> Self {
        Self { dock: Dock::Right, visible: true }
    }
}

/// What the panel shows (read-only).
pub(crate) struct Readout<'a> {
    pub scene_name: &'a str,
    /// The scene file, when there is one (reload and watching work on it).
    pub scene_file: Option<&'a str>,
    /// The last reload or option change that failed: the old scene or options keep running.
    pub error: Option<&'a str>,
    pub adapter: &'a str,
    /// The adapter is a CPU implementation (lavapipe): its per-pass timestamps are not reliable
    /// while it also draws.
    pub cpu_adapter: bool,
    pub fps: f32,
    pub steps_per_second: f32,
    pub frame: u64,
    pub steps: u64,
    /// The running simulation's counts, parameters and grid.
    pub sim: SimFacts<'a>,
    pub timestamps: bool,
    pub profile: Option<&'a ProfileSample>,
    /// GPU milliseconds of the render passes ([`render_timer::PASSES`]) and the
    /// frame they were measured on.
    pub render_times: Option<(u64, [f64; 2])>,
    pub latest: Option<&'a DiagSample>,
    /// The running simulation's latest sample (None until its first readback; `latest` may be
    /// the one a reset or reload replaced).
    pub current: Option<&'a DiagSample>,
    /// Simulated time and the step it is of ([`crate::app::driver::Driver::sim_time`]; None for
    /// an adaptive dt before the first readback).
    pub time: Option<(f64, u64)>,
    pub history: &'a VecDeque<DiagSample>,
    pub screenshots: Option<&'a str>,
    pub export: Option<ExportReadout<'a>>,
}

/// What the panel shows of the simulation itself (the app's and `rillet render --panel`'s alike).
pub(crate) struct SimFacts<'a> {
    pub n_fluid: u32,
    pub n_boundary: u32,
    /// With emitters or open faces: the slots for fluid (fluid at the start and free slots).
    pub flow: Option<u32>,
    pub params: &'a SimParams,
    pub grid: &'a GridLayout,
    /// The neighbour lists' capacity where the step keeps lists (crate::sim::ListLayout).
    pub lists: Option<u32>,
}

impl<'a> SimFacts<'a> {
    pub(crate) fn of(sim: &'a crate::sim::Sim) -> Self {
        Self {
            n_fluid: sim.n_fluid(),
            n_boundary: sim.n_boundary(),
            flow: sim.has_flow().then(|| sim.fluid_slots()),
            params: sim.params(),
            grid: sim.grid(),
            lists: sim.has_neighbour_lists().then(|| sim.list_capacity()),
        }
    }
}

/// With emitters or open faces: the fluid count as "active / capacity" with what came in and
/// went out, from the fluid at the start (`n_fluid`), the fluid slots and a diagnostics sample;
/// and the plain-words warning when the emitters ran out of room.
pub(crate) fn flow_readout(n_fluid: u32, slots: u32, s: &DiagSample) -> (String, Option<String>) {
    let d = &s.diag;
    let active = n_fluid as i64 + d.emitted as i64 - d.outflow as i64;
    let line = format!("{active} / {slots} fluid ({} in, {} out)", d.emitted, d.outflow);
    let warning = (d.starved > 0).then(|| {
        format!(
            "capacity ran out: {} particles were not emitted, all {slots} fluid slots being full; raise fluid_capacity in the scene",
            d.starved
        )
    });
    (line, warning)
}

/// The solver the simulation runs.
pub(crate) fn running_solver(p: &SimParams) -> Solver {
    Solver::of(p.solver)
}

/// The step's own measurements in a diagnostics sample, as (label, value) rows: the last step's
/// dt, the fastest particle, the mean compression, and for DFSPH its solves.
pub(crate) fn step_rows(p: &SimParams, s: &DiagSample) -> Vec<(&'static str, String)> {
    let d = &s.diag;
    let mut rows = vec![
        ("dt (last step)", format!("{:.3e} s", d.dt)),
        ("max speed", format!("{:.3} m/s", d.max_speed)),
        ("mean density error", format!("{:.3} %", 100.0 * d.density_error)),
    ];
    if p.solver == SOLVER_DFSPH {
        rows.push(("pressure iterations", format!("{} (at most {})", d.pressure_iterations, p.max_iterations)));
        rows.push(("divergence iterations", format!("{} (at most {})", d.divergence_iterations, p.max_iterations)));
        rows.push(("pressure solve reached", format!("{:.3} % (tolerance {:.3} %)", 100.0 * d.solver_error, 100.0 * p.density_tolerance)));
    }
    rows
}

/// The time step in one line, and whether it is a warning: for WCSPH with a fixed dt its CFL
/// number dt·c/h (a warning above the recommended one); for an adaptive dt its range and the
/// last step's; for DFSPH with a fixed dt the dt.
pub(crate) fn time_step_line(p: &SimParams, s: Option<&DiagSample>) -> (String, bool) {
    if p.adaptive != 0 {
        let now = s.map_or_else(|| "…".to_string(), |s| format!("{:.2e} s", s.diag.dt));
        return (format!("dt adaptive in [{:.1e}, {:.1e}] s, now {now}", p.dt_min, p.dt_max), false);
    }
    if p.solver == SOLVER_DFSPH {
        return (format!("dt = {:.1e} s (fixed)", p.dt), false);
    }
    let cfl = crate::physics::cfl(p.dt as f64, p.sound_speed as f64, p.h as f64);
    let text = format!("CFL dt·c/h = {cfl:.3} (c = {:.1} m/s, dt = {:.1e} s)", p.sound_speed, p.dt);
    if cfl > limits::CFL_RECOMMENDED {
        (format!("Warning: {text}: above {}, the step may be unstable", limits::CFL_RECOMMENDED), true)
    } else {
        (text, false)
    }
}

/// The plain-words warning for a diagnostics sample, if it calls for one.
pub fn overflow_warning(s: &DiagSample) -> Option<String> {
    (s.grid_diagnostics && s.diag.max_per_cell > s.capacity).then(|| {
        format!(
            "cells hold up to {} particles, capacity {}: cell size too large for this density ({} particles over capacity)",
            s.diag.max_per_cell, s.capacity, s.diag.overflows
        )
    })
}

/// The panel (docked side panel, resizable). Returns the actions the user asked for.
pub(crate) fn show(
    ui: &mut egui::Ui,
    state: &mut PanelState,
    controls: &mut Controls,
    view: &mut ViewSettings,
    r: &Readout,
) -> Vec<Action> {
    let mut actions = Vec::new();
    if !state.visible {
        return actions;
    }
    let panel = match state.dock {
        Dock::Left => egui::Panel::left("rillet.panel"),
        Dock::Right => egui::Panel::right("rillet.panel"),
    };
    panel.resizable(true).default_size(330.0).min_size(240.0).show(ui, |ui| {
        // what the user watches while tuning comes first, above the fold of a 720-pixel window:
        // the rates, the grid's counters, the controls that change them, the passes' times;
        // then the solver, the counters' history and the view
        egui::ScrollArea::vertical().show(ui, |ui| {
            header(ui, r, &mut actions);
            ui.separator();
            performance(ui, r);
            ui.separator();
            diagnostics(ui, r, controls);
            ui.separator();
            simulation(ui, controls, r, &mut actions);
            ui.separator();
            pass_times(ui, r, view.view);
            ui.separator();
            solver(ui, r);
            ui.separator();
            egui::CollapsingHeader::new("Grid diagnostics over time").default_open(true).show(ui, |ui| history::show(ui, r.history));
            ui.separator();
            view_settings(ui, state, view, r, &mut actions);
            ui.separator();
            egui::CollapsingHeader::new("Keys and mouse").default_open(false).show(ui, |ui| {
                ui.small(
                    "drag: rotate · right-drag: pan · wheel: zoom · shift-drag: move a floating body · C: frame the scene\n\
                     Space: pause · N: one step · Backspace: reset · F5: reload scene\n\
                     1/2/3: colour by speed/density/pressure · B: boundary particles\n\
                     Tab: hide panel · F12: screenshot · E: export frame · R: record",
                );
            });
        });
    });
    actions
}

fn header(ui: &mut egui::Ui, r: &Readout, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        ui.heading("Rillet");
        ui.label(egui::RichText::new(r.scene_name).strong());
    });
    ui.horizontal(|ui| {
        match r.scene_file {
            Some(f) => ui.small(format!("{f} (watched)")),
            None => ui.small("built-in scene"),
        };
        if ui.button("Reload").on_hover_text("read the scene file again (F5)").clicked() {
            actions.push(Action::Reload);
        }
    });
    if let Some(e) = r.error {
        ui.colored_label(egui::Color32::from_rgb(255, 110, 100), format!("Error: {e}"));
    }
}

fn performance(ui: &mut egui::Ui, r: &Readout) {
    egui::Grid::new("perf").num_columns(2).striped(true).show(ui, |ui| {
        ui.label("frames · steps per second");
        ui.monospace(format!("{:.1} · {:.1}", r.fps, r.steps_per_second));
        ui.end_row();
        ui.label("particles");
        ui.monospace(format!("{} fluid + {} boundary", r.sim.n_fluid, r.sim.n_boundary));
        ui.end_row();
        if let Some(slots) = r.sim.flow {
            ui.label("fluid now (active / capacity)");
            match r.latest {
                Some(s) => ui.monospace(flow_readout(r.sim.n_fluid, slots, s).0),
                None => ui.weak(format!("… / {slots} (first readback after 60 frames)")),
            };
            ui.end_row();
        }
        ui.label("step · simulated time");
        match r.time {
            Some((t, step)) if step == r.steps => ui.monospace(format!("{} · {t:.3} s", r.steps)),
            Some((t, step)) => ui.monospace(format!("{} · {t:.3} s at step {step}", r.steps)),
            None => ui.monospace(format!("{} · … (first readback after 60 frames)", r.steps)),
        };
        ui.end_row();
    });
    ui.small(format!("{} · frame {}", r.adapter, r.frame));
}

/// The rows of "GPU time per step": the passes the step recorded, in step order, with their mean
/// per step over the last profiled frame (a pass the scene does not use is not listed).
pub(crate) fn pass_rows(profile: &ProfileSample) -> Vec<(&'static str, f64)> {
    PASSES.iter().filter_map(|&label| profile.profile.per_step_ms(label).map(|ms| (label, ms))).collect()
}

fn pass_times(ui: &mut egui::Ui, r: &Readout, view: View) {
    egui::CollapsingHeader::new("GPU time per step").default_open(true).show(ui, |ui| {
        let profile = r.profile.filter(|_| r.timestamps);
        egui::Grid::new("passes").num_columns(2).striped(true).show(ui, |ui| {
            for (label, ms) in profile.map(pass_rows).unwrap_or_default() {
                ui.monospace(label);
                ui.monospace(format!("{ms:.3} ms"));
                ui.end_row();
            }
            ui.strong("step");
            ui.monospace(match profile {
                _ if !r.timestamps => "n/a".to_string(),
                Some(p) => format!("{:.3} ms", p.profile.step_ms()),
                None => "…".to_string(),
            });
            ui.end_row();
            for (i, label) in render_timer::PASSES.iter().enumerate() {
                let label = match view {
                    View::Surface if i == 0 => format!("render.surface ({} passes)", crate::render::surface::PASSES.len()),
                    _ => label.to_string(),
                };
                ui.monospace(format!("{label} (per frame)"));
                ui.monospace(match r.render_times {
                    _ if !r.timestamps => "n/a".to_string(),
                    Some((_, ms)) => format!("{:.3} ms", ms[i]),
                    None => "…".to_string(),
                });
                ui.end_row();
            }
        });
        if !r.timestamps {
            ui.small("n/a: this adapter has no timestamp queries");
        } else if let Some(p) = profile {
            ui.small(format!("measured on frame {} ({} steps; every 10 frames)", p.frame, p.profile.steps));
            if r.cpu_adapter {
                // measured: in this window on lavapipe the passes' spans do not bracket their
                // dispatches (the force pass reads 0.2 ms of its 11), while headless on the same
                // adapter they do; the step's span holds in both
                ui.small("CPU adapter: per-pass times are unreliable while it also draws the frame (the step time holds; rillet bench measures passes headless)");
            }
        }
    });
}

fn diagnostics(ui: &mut egui::Ui, r: &Readout, controls: &Controls) {
    ui.strong("Grid diagnostics");
    match r.latest {
        None => {
            ui.weak("waiting for the first readback (every 60 frames)");
        }
        Some(s) => {
            egui::Grid::new("diag").num_columns(2).striped(true).show(ui, |ui| {
                let grid_words = |v: u32| if s.grid_diagnostics { v.to_string() } else { "off".to_string() };
                ui.label("max particles per cell");
                ui.monospace(grid_words(s.diag.max_per_cell));
                ui.end_row();
                ui.label(format!("overflows over capacity {}", s.capacity));
                ui.monospace(grid_words(s.diag.overflows));
                ui.end_row();
                ui.label("wall clamps (total)");
                ui.monospace(s.wall_clamps_total.to_string());
                ui.end_row();
                ui.label("wall clamps per step (lately)");
                ui.monospace(format!("{:.2}", s.delta.clamps_per_step()));
                ui.end_row();
                ui.label("non-finite particle-steps (total)");
                ui.monospace(s.non_finite_total.to_string());
                ui.end_row();
            });
            ui.small(format!("from frame {} (step {})", s.frame, s.step));
            if let Some(w) = overflow_warning(s) {
                ui.colored_label(egui::Color32::from_rgb(255, 190, 80), format!("Warning: {w}"));
            }
            if let Some(w) = r.sim.flow.and_then(|slots| flow_readout(r.sim.n_fluid, slots, s).1) {
                ui.colored_label(egui::Color32::from_rgb(255, 190, 80), format!("Warning: {w}"));
            }
            if let Some(f) = &s.finding {
                ui.colored_label(egui::Color32::from_rgb(255, 110, 100), f.to_string());
            } else if s.non_finite_total > 0 {
                ui.colored_label(
                    egui::Color32::from_rgb(255, 110, 100),
                    format!(
                        "Warning: {} particle updates were not finite and were discarded: the time step is too large for this stiffness",
                        s.non_finite_total
                    ),
                );
            }
        }
    }
    let g = r.sim.grid;
    let order = match g.order {
        CellOrder::Morton => "Morton (Z-order)",
        CellOrder::Linear => "linear (row by row)",
    };
    ui.small(format!(
        "{order} · {}×{}×{} cells ({} indexed) · search ±{} cells",
        g.dims[0], g.dims[1], g.dims[2], g.num_cells, r.sim.params.search_range
    ));
    let skin = r.sim.params.list_skin;
    ui.small(match r.sim.lists {
        Some(max) if skin > 0.0 => format!(
            "neighbour lists kept between grid builds: within {:.2} h, up to {max} neighbours; built again once a particle may have moved {:.3} h (the grid diagnostics are the last build's)",
            1.0 + skin,
            0.5 * skin
        ),
        Some(max) => format!("neighbour lists: one grid walk a step, up to {max} neighbours a particle"),
        None => "neighbour lists off (too many particles for one storage binding): every pass walks the grid".to_string(),
    });
    if !controls.options.diagnostics {
        ui.small("grid diagnostics are off (the grid build runs without them)");
    }
}

/// The solver, the time step and the step's own measurements (from the running simulation's
/// readbacks).
fn solver(ui: &mut egui::Ui, r: &Readout) {
    ui.strong(format!("Solver: {}", running_solver(r.sim.params).name()));
    match r.current {
        None => {
            ui.weak("waiting for the first readback (every 60 frames)");
        }
        Some(s) => {
            egui::Grid::new("step").num_columns(2).striped(true).show(ui, |ui| {
                for (label, value) in step_rows(r.sim.params, s) {
                    ui.label(label);
                    ui.monospace(value);
                    ui.end_row();
                }
            });
        }
    }
    match time_step_line(r.sim.params, r.current) {
        (text, true) => ui.colored_label(egui::Color32::from_rgb(255, 190, 80), text),
        (text, false) => ui.small(text),
    };
}

fn simulation(ui: &mut egui::Ui, c: &mut Controls, r: &Readout, actions: &mut Vec<Action>) {
    ui.strong("Simulation");
    ui.horizontal(|ui| {
        let label = if c.paused { "Run" } else { "Pause" };
        if ui.button(label).on_hover_text("Space").clicked() {
            c.paused = !c.paused;
        }
        if ui.add_enabled(c.paused, egui::Button::new("Step")).on_hover_text("one step (N)").clicked() {
            actions.push(Action::Step);
        }
        if ui.button("Reset").on_hover_text("back to the initial state (Backspace)").clicked() {
            actions.push(Action::Reset);
        }
    });
    ui.add(slider(&mut c.substeps, limits::SUBSTEPS).text("steps per frame"));
    // the solver: taken when the simulation is next built (only an edit is kept: showing the
    // running one changes nothing)
    let running = running_solver(r.sim.params);
    let shown = c.solver.unwrap_or(running);
    let mut choice = shown;
    egui::ComboBox::from_label("pressure solver").selected_text(choice.name()).show_ui(ui, |ui| {
        for s in [Solver::Wcsph, Solver::Dfsph] {
            ui.selectable_value(&mut choice, s, s.name());
        }
    });
    if choice != shown {
        c.solver = Some(choice);
    }
    if choice != running {
        ui.colored_label(
            egui::Color32::from_rgb(255, 190, 80),
            format!("pending: {} from the next reset (Backspace) or reload; {} runs now", choice.name(), running.name()),
        );
    }
    let o = &mut c.options;
    ui.add(slider(&mut o.cell_size, limits::CELL_SIZE).step_by(0.05).text("cell size × h"))
        .on_hover_text(format!("h = {} m; smaller cells search more of them, larger ones hold more particles", r.sim.params.h));
    ui.add(slider(&mut o.reorder_interval, limits::REORDER_INTERVAL).logarithmic(true).text("reorder every (steps)"))
        .on_hover_text(limits::REORDER_INTERVAL.allowed());
    if r.sim.params.list_skin > 0.0 {
        ui.small("the neighbour lists are kept between grid builds: every build reorders, whatever the interval");
    }
    let mut morton = o.order == CellOrder::Morton;
    if ui.checkbox(&mut morton, "Morton cell order").changed() {
        o.order = if morton { CellOrder::Morton } else { CellOrder::Linear };
    }
    ui.checkbox(&mut o.diagnostics, "grid diagnostics (max per cell, overflows)");
    ui.checkbox(&mut o.deterministic, "deterministic (each cell ordered by id)")
        .on_hover_text("the same bits on every run, at the cost of one pass");
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut o.capacity).range(limits::CAPACITY.range()).clamp_existing_to_range(false).speed(1.0));
        ui.label("cell capacity (particles)");
    });
}

/// A slider over the range the scene schema allows. Only the user's edits are clamped (and put
/// on the slider's step): egui's default clamps the value it is shown, which would silently
/// rewrite an allowed value the slider cannot land on (an interval above its end, a cell size
/// off its step) as soon as the panel shows it.
fn slider<T: egui::emath::Numeric + limits::Shown>(value: &mut T, limit: limits::Limit<T>) -> egui::Slider<'_> {
    egui::Slider::new(value, limit.range()).clamping(egui::SliderClamping::Edits)
}

fn view_settings(ui: &mut egui::Ui, state: &mut PanelState, view: &mut ViewSettings, r: &Readout, actions: &mut Vec<Action>) {
    ui.strong("View");
    ui.horizontal(|ui| {
        ui.label("draw");
        for v in View::ALL {
            ui.selectable_value(&mut view.view, v, v.name());
        }
        ui.small("(V)");
    });
    match view.view {
        View::Spheres => {
            ui.horizontal(|ui| {
                ui.label("colour by");
                for mode in ColorMode::ALL {
                    ui.selectable_value(&mut view.color_mode, mode, mode.name());
                }
            });
            let defaults = view.color_mode.default_range(r.sim.params);
            legend::show(ui, view, defaults);
        }
        View::Surface => surface_settings(ui, &mut view.surface),
    }
    ui.checkbox(&mut view.show_boundary, "show boundary particles (B)");
    ui.checkbox(&mut view.show_box, "show the domain box");
    ui.horizontal(|ui| {
        if ui.button("Frame the scene").on_hover_text("C").clicked() {
            actions.push(Action::ResetCamera);
        }
        if ui.button("Screenshot").on_hover_text("F12").clicked() {
            actions.push(Action::Screenshot);
        }
    });
    if let Some(s) = r.screenshots {
        ui.small(s);
    }
    if let Some(e) = &r.export {
        ui.horizontal(|ui| {
            if ui.button("Export frame").on_hover_text("E: the particles of the next frame").clicked() {
                actions.push(Action::ExportFrame);
            }
            let record = if e.recording { "Stop recording" } else { "Record" };
            if ui.button(record).on_hover_text(format!("R: a frame every {} steps", e.every)).clicked() {
                actions.push(Action::ToggleRecording);
            }
        });
        let state = if e.recording { format!("recording every {} steps", e.every) } else { "not recording".into() };
        ui.small(format!("particles to {}: {} frames, {state}", e.dir, e.frames));
        if e.skipped > 0 {
            ui.small(format!("{} frames skipped (the copies or the disk were behind; the window never waits for them)", e.skipped));
        }
        if let Some(err) = e.error {
            ui.colored_label(egui::Color32::from_rgb(255, 110, 100), format!("export stopped: {err}"));
        }
    }
    ui.horizontal(|ui| {
        ui.label("dock panel");
        ui.selectable_value(&mut state.dock, Dock::Left, "left");
        ui.selectable_value(&mut state.dock, Dock::Right, "right");
    });
}

/// The surface view's controls: the depth filter, the water's colour, the environment.
fn surface_settings(ui: &mut egui::Ui, s: &mut SurfaceSettings) {
    ui.horizontal(|ui| {
        ui.add(egui::Slider::new(&mut s.filter_radius, FILTER_RADIUS).clamping(egui::SliderClamping::Edits).step_by(0.25))
            .on_hover_text("radius of the depth filter, in particle spacings (0: the spheres' own bumps)");
        ui.label("smoothing (spacings)");
    });
    ui.horizontal(|ui| {
        // egui's colour button rounds what it is shown through its own colour spaces: only an
        // edit is taken
        let mut color = s.absorption_color;
        if ui.color_edit_button_rgb(&mut color).on_hover_text("the colour of white light after the depth on the right").changed() {
            s.absorption_color = color;
        }
        ui.label("water colour after");
        let speed = s.absorption_depth.abs().max(1e-3) * 0.01;
        ui.add(
            egui::DragValue::new(&mut s.absorption_depth).range(ABSORPTION_DEPTH).clamp_existing_to_range(false).speed(speed).suffix(" m"),
        );
    });
    ui.horizontal(|ui| {
        ui.label("environment");
        for e in Environment::ALL {
            ui.selectable_value(&mut s.environment, e, e.name());
        }
    });
    ui.checkbox(&mut s.spray, "spray as white points")
        .on_hover_text(format!("fluid particles with few neighbours (density below {:.0} % of ρ0)", SPRAY_DENSITY_OVER_REST * 100.0));
}

/// Keyboard shortcuts (ignored while a value is being typed into the panel).
pub(crate) fn keys(ctx: &egui::Context, state: &mut PanelState, controls: &mut Controls, view: &mut ViewSettings) -> Vec<Action> {
    let mut actions = Vec::new();
    if ctx.text_edit_focused() {
        return actions;
    }
    ctx.input(|i| {
        use egui::Key;
        if i.key_pressed(Key::Space) {
            controls.paused = !controls.paused;
        }
        if i.key_pressed(Key::N) {
            controls.paused = true;
            actions.push(Action::Step);
        }
        if i.key_pressed(Key::Backspace) {
            actions.push(Action::Reset);
        }
        if i.key_pressed(Key::F5) {
            actions.push(Action::Reload);
        }
        if i.key_pressed(Key::C) {
            actions.push(Action::ResetCamera);
        }
        if i.key_pressed(Key::F12) {
            actions.push(Action::Screenshot);
        }
        if i.key_pressed(Key::E) {
            actions.push(Action::ExportFrame);
        }
        if i.key_pressed(Key::R) {
            actions.push(Action::ToggleRecording);
        }
        if i.key_pressed(Key::B) {
            view.show_boundary = !view.show_boundary;
        }
        if i.key_pressed(Key::V) {
            view.view = view.view.toggled();
        }
        if i.key_pressed(Key::Tab) {
            state.visible = !state.visible;
        }
        for (key, mode) in [(Key::Num1, ColorMode::Speed), (Key::Num2, ColorMode::Density), (Key::Num3, ColorMode::Pressure)] {
            if i.key_pressed(key) {
                view.color_mode = mode;
            }
        }
    });
    actions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimOptions;
    use glam::Vec3;

    fn params() -> SimParams {
        SimParams { h: 0.04, dt: 1e-4, sound_speed: 30.0, rest_density: 1000.0, domain_max: [1.0; 3], ..Default::default() }
    }

    /// Runs the keys and the panel for a few frames, as the app does each frame, in a headless
    /// context (no window, no GPU); returns the actions asked for.
    fn run_panel(controls: &mut Controls, view: &mut ViewSettings) -> Vec<Action> {
        run_panel_with(controls, view, &params(), None)
    }

    /// [`run_panel`] with these parameters and a diagnostics sample of the running simulation.
    fn run_panel_with(controls: &mut Controls, view: &mut ViewSettings, params: &SimParams, sample: Option<&DiagSample>) -> Vec<Action> {
        let params = *params;
        let grid = GridLayout::new(Vec3::ZERO, Vec3::ONE, params.h, CellOrder::Morton, u64::MAX).unwrap();
        let history = VecDeque::new();
        let readout = Readout {
            scene_name: "test",
            scene_file: None,
            error: None,
            adapter: "none",
            cpu_adapter: false,
            fps: 60.0,
            steps_per_second: 240.0,
            frame: 1,
            steps: 4,
            sim: SimFacts { n_fluid: 100, n_boundary: 50, flow: Some(400), params: &params, grid: &grid, lists: Some(48) },
            timestamps: false,
            profile: None,
            render_times: None,
            latest: sample,
            current: sample,
            time: Some(sample.map_or((0.0004, 4), |s| (s.time, s.step))),
            history: &history,
            screenshots: None,
            export: None,
        };
        let ctx = egui::Context::default();
        let mut state = PanelState::default();
        let mut actions = Vec::new();
        for _ in 0..3 {
            // tall enough that every control is laid out inside the scroll area
            let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 4000.0));
            let raw = egui::RawInput { screen_rect: Some(screen), ..Default::default() };
            let _ = ctx.run_ui(raw, |ui| {
                actions.extend(keys(ui.ctx(), &mut state, controls, view));
                actions.extend(show(ui, &mut state, controls, view, &readout));
            });
        }
        actions
    }

    fn controls(substeps: u32, cell_size: f32, capacity: u32, reorder_interval: u32) -> Controls {
        let options = SimOptions {
            cell_size,
            capacity,
            reorder_interval,
            order: CellOrder::Morton,
            diagnostics: true,
            deterministic: true,
            workgroup_size: 256,
            shader_checks: false,
            list_skin: 0.0,
        };
        Controls { options, substeps, paused: false, solver: None }
    }

    fn sample(diag: crate::sim::params::Diagnostics) -> DiagSample {
        DiagSample {
            frame: 60,
            step: 600,
            time: 0.125,
            diag,
            capacity: 8,
            grid_diagnostics: true,
            at: std::time::Duration::ZERO,
            wall_clamps_total: 0,
            non_finite_total: 0,
            delta: Default::default(),
            finding: None,
        }
    }

    /// The step's rows: dt, speed and compression always, the solves' iterations and reached
    /// error for DFSPH only; the time-step line names what limits dt.
    #[test]
    fn the_step_readout_rows() {
        use crate::sim::params::Diagnostics;
        let d = Diagnostics {
            dt: 2.5e-4,
            max_speed: 1.75,
            density_error: 0.0042,
            pressure_iterations: 9,
            divergence_iterations: 3,
            solver_error: 8.0e-4,
            ..Default::default()
        };
        let s = sample(d);
        let wcsph = params();
        let rows = step_rows(&wcsph, &s);
        assert_eq!(
            rows,
            vec![
                ("dt (last step)", "2.500e-4 s".to_string()),
                ("max speed", "1.750 m/s".to_string()),
                ("mean density error", "0.420 %".to_string()),
            ]
        );
        let dfsph = SimParams { solver: SOLVER_DFSPH, max_iterations: 50, density_tolerance: 1e-3, ..params() };
        let rows = step_rows(&dfsph, &s);
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[3], ("pressure iterations", "9 (at most 50)".to_string()));
        assert_eq!(rows[4], ("divergence iterations", "3 (at most 50)".to_string()));
        assert_eq!(rows[5], ("pressure solve reached", "0.080 % (tolerance 0.100 %)".to_string()));
        // WCSPH with a fixed dt: the CFL number (0.075 here), a warning above the recommended
        let (line, warn) = time_step_line(&wcsph, Some(&s));
        assert!(line.starts_with("CFL dt·c/h = 0.075") && !warn, "{line}");
        let (line, warn) = time_step_line(&SimParams { dt: 1e-3, ..params() }, None);
        assert!(line.starts_with("Warning: CFL dt·c/h = 0.750") && warn, "{line}");
        // adaptive: the range and the last step's dt, whatever the solver
        let adaptive = SimParams { adaptive: 1, dt_min: 1e-5, dt_max: 1e-3, ..dfsph };
        assert_eq!(time_step_line(&adaptive, Some(&s)), ("dt adaptive in [1.0e-5, 1.0e-3] s, now 2.50e-4 s".to_string(), false));
        assert_eq!(time_step_line(&adaptive, None).0, "dt adaptive in [1.0e-5, 1.0e-3] s, now …");
        assert_eq!(time_step_line(&dfsph, None), ("dt = 1.0e-4 s (fixed)".to_string(), false));
    }

    /// "GPU time per step" lists the passes the step recorded and no others (it once showed all
    /// 17 of them, "–" for the ten a WCSPH scene does not run), in step order.
    #[test]
    fn the_pass_rows_are_the_recorded_passes() {
        let mut profile = crate::sim::profiler::Profile { steps: 2, ..Default::default() };
        for (label, ns) in [("sph.force", 4e6), ("grid.count", 2e6)] {
            profile.pass_ns.insert(label, ns);
        }
        let rows = pass_rows(&ProfileSample { frame: 10, profile });
        assert_eq!(rows, vec![("grid.count", 1.0), ("sph.force", 2.0)]);
    }

    /// The panel with a DFSPH sample and a solver chosen but not yet in force: showing it keeps
    /// the choice (and asks for nothing); the running solver is what the parameters say.
    #[test]
    fn a_chosen_solver_waits_for_the_next_build() {
        let dfsph = SimParams { solver: SOLVER_DFSPH, adaptive: 1, dt_min: 1e-5, dt_max: 1e-3, max_iterations: 50, ..params() };
        let s = sample(crate::sim::params::Diagnostics { dt: 2e-4, pressure_iterations: 4, ..Default::default() });
        for choice in [None, Some(Solver::Wcsph), Some(Solver::Dfsph)] {
            let mut c = Controls { solver: choice, ..controls(4, 0.5, 8, 1) };
            let mut view = ViewSettings::new(&dfsph, 16.0 / 9.0);
            let before = (c.clone(), view.clone());
            let actions = run_panel_with(&mut c, &mut view, &dfsph, Some(&s));
            assert_eq!((c, view), before, "showing the panel changed nothing");
            assert!(actions.is_empty(), "{actions:?}");
        }
        assert_eq!(running_solver(&dfsph), Solver::Dfsph);
        assert_eq!(running_solver(&params()), Solver::Wcsph);
    }

    /// The flow line counts what came in and went out; the warning names the room that ran out
    /// and what to change.
    #[test]
    fn flow_readout_counts_and_warns_in_words() {
        let mut s = sample(crate::sim::params::Diagnostics { emitted: 280, outflow: 30, ..Default::default() });
        assert_eq!(flow_readout(100, 400, &s), ("350 / 400 fluid (280 in, 30 out)".to_string(), None));
        s.diag.starved = 56;
        let w = flow_readout(100, 400, &s).1.expect("a warning once particles were not emitted");
        assert!(w.contains("56 particles were not emitted") && w.contains("400 fluid slots") && w.contains("fluid_capacity"), "{w}");
    }

    /// V switches between the sphere and the surface view.
    #[test]
    fn v_switches_the_view() {
        let ctx = egui::Context::default();
        let mut state = PanelState::default();
        let mut c = controls(4, 0.5, 8, 1);
        let mut view = ViewSettings::new(&params(), 16.0 / 9.0);
        assert_eq!(view.view, View::Spheres);
        let press = egui::Event::Key { key: egui::Key::V, physical_key: None, pressed: true, repeat: false, modifiers: Default::default() };
        for expected in [View::Surface, View::Spheres] {
            let raw = egui::RawInput { events: vec![press.clone()], ..Default::default() };
            let _ = ctx.run_ui(raw, |ui| {
                keys(ui.ctx(), &mut state, &mut c, &mut view);
            });
            assert_eq!(view.view, expected);
        }
    }

    /// Every value the scene schema (and `--substeps`) allows stays as it is when the panel shows
    /// it: the sliders and drag values only change what the user edits.
    #[test]
    fn showing_the_panel_keeps_every_allowed_value() {
        use limits::{CAPACITY, CELL_SIZE, REORDER_INTERVAL, SUBSTEPS};
        let cases = [
            // a reorder interval above the old slider's end (64), the others at their maxima
            controls(SUBSTEPS.max, CELL_SIZE.max, CAPACITY.max, 100),
            controls(SUBSTEPS.max, CELL_SIZE.max, CAPACITY.max, REORDER_INTERVAL.max),
            controls(SUBSTEPS.min, CELL_SIZE.min, CAPACITY.min, REORDER_INTERVAL.min),
            // off the slider's 0.05 grid
            controls(7, 0.73, 333, 37),
        ];
        for case in cases {
            for (mode, v) in ColorMode::ALL.into_iter().zip([View::Spheres, View::Surface, View::Spheres]) {
                let mut view = ViewSettings::new(&params(), 16.0 / 9.0);
                view.color_mode = mode;
                view.view = v;
                view.surface.filter_radius = 1.37;
                view.surface.absorption_depth = 0.0123;
                view.ranges = [(0.1234, 7.6543), (987.65, 1012.3), (-123.45, 4567.8)];
                let (mut c, mut v) = (case.clone(), view.clone());
                let actions = run_panel(&mut c, &mut v);
                assert_eq!(c, case, "the controls changed by being shown ({mode:?})");
                assert_eq!(v, view, "the view settings changed by being shown");
                assert!(actions.is_empty(), "{actions:?}");
            }
        }
    }
}
