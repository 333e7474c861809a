//! GPU time of the frame's two render passes (`render.scene`, `ui.egui`) from timestamp
//! queries, read back asynchronously every 10th frame like the simulation's pass times.

use crate::sim::readback::{self, Readback};

/// Labels of the timed render passes, in query order (the 3D view's, one pass or several; egui's).
pub const PASSES: [&str; 2] = ["render.scene", "ui.egui"];

pub struct RenderTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: Readback<u64>,
    period_ns: f32,
    /// Frame of the last times that arrived, and the milliseconds per pass.
    pub latest: Option<(u64, [f64; 2])>,
}

impl RenderTimer {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("render.timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 4,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render.timestamps.resolve"),
            size: 32,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = Readback::new(device, "app.readback.render_timestamps", 32, 3);
        Self { queries, resolve, readback, period_ns: queue.get_timestamp_period(), latest: None }
    }

    /// Where the 3D view's passes write their times: one figure for all of them (the first
    /// entry of [`PASSES`]).
    pub fn scene_timing(&self) -> crate::render::Timing<'_> {
        crate::render::Timing::Whole { set: &self.queries, begin: 0, end: 1 }
    }

    /// Timestamp writes for pass `i` of [`PASSES`].
    pub fn writes(&self, i: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        }
    }

    /// After both passes: resolves and copies the times out (when a staging buffer is free).
    pub fn record_copy(&mut self, encoder: &mut wgpu::CommandEncoder, frame: u64) {
        let (queries, resolve) = (&self.queries, &self.resolve);
        self.readback.record_with(|dst| {
            encoder.resolve_query_set(queries, 0..4, resolve, 0);
            encoder.copy_buffer_to_buffer(resolve, 0, dst, 0, 32);
            Some(frame)
        });
    }

    pub fn submitted(&mut self) {
        self.readback.submitted();
    }

    /// Takes what has arrived (after a device poll), without waiting.
    pub fn poll(&mut self) {
        for (frame, bytes) in self.readback.take_ready() {
            let t = readback::ticks_from(&bytes);
            let ms = |i: usize| t[2 * i + 1].saturating_sub(t[2 * i]) as f64 * self.period_ns as f64 * 1e-6;
            self.latest = Some((frame, [ms(0), ms(1)]));
        }
    }
}
