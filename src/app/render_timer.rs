//! GPU time of the frame's two render passes (`render.scene`, `ui.egui`), read back
//! asynchronously every 10th frame like the simulation's pass times (a [`FrameTimer`]).

use crate::sim::profiler::FrameTimer;

/// Labels of the timed render passes, in query order (the 3D view's, one pass or several; egui's).
pub(crate) const PASSES: [&str; 2] = ["render.scene", "ui.egui"];

pub(crate) struct RenderTimer {
    timer: FrameTimer,
    /// Frame of the last times that arrived, and the milliseconds per pass.
    pub latest: Option<(u64, [f64; 2])>,
}

impl RenderTimer {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self { timer: FrameTimer::new(device, queue, "app.readback.render_timestamps", &PASSES), latest: None }
    }

    /// Starts timing frame `frame` (before its passes are recorded).
    pub(crate) fn start(&mut self, frame: u64) {
        self.timer.start(frame);
    }

    /// Where the 3D view's passes write their times: one figure for all of them (the first
    /// entry of [`PASSES`]).
    pub(crate) fn scene_timing(&self) -> crate::render::Timing<'_> {
        crate::render::Timing::Whole { set: self.timer.query_set(), begin: 0, end: 1 }
    }

    /// Timestamp writes for pass `i` of [`PASSES`].
    pub(crate) fn writes(&self, i: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: self.timer.query_set(),
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        }
    }

    /// After both passes: resolves and copies the times out (when a staging buffer is free).
    pub(crate) fn record_copy(&mut self, encoder: &mut wgpu::CommandEncoder, frame: u64) {
        self.timer.record_copy(encoder, frame);
    }

    pub(crate) fn submitted(&mut self) {
        self.timer.submitted();
    }

    /// Takes what has arrived (after a device poll), without waiting.
    pub(crate) fn poll(&mut self) {
        if let Some((frame, ms)) = self.timer.take_ready().pop() {
            self.latest = Some((frame, [ms[0], ms[1]]));
        }
    }
}
