//! Screenshots of the window: the frame's surface texture is copied into a staging buffer in
//! the frame's own encoder, mapped asynchronously, and written as PNG on a worker thread. The
//! frame loop never waits for them; only [`Screenshots::finish`] (at exit) does, bounded.

use crate::render::image::{self, Pixels};
use crate::sim::readback::Readback;
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct Shot {
    path: PathBuf,
    width: u32,
    height: u32,
    padded_row: u32,
    bgra: bool,
}

#[derive(Default)]
pub(crate) struct Screenshots {
    pending: Vec<Readback<Shot>>,
    writers: Vec<JoinHandle<Result<PathBuf, String>>>,
    pub written: Vec<PathBuf>,
    pub errors: Vec<String>,
}

impl Screenshots {
    /// Whether a surface of this format can be captured (8-bit RGBA or BGRA).
    pub(crate) fn supports(format: wgpu::TextureFormat) -> bool {
        use wgpu::TextureFormat::*;
        matches!(format, Rgba8Unorm | Rgba8UnormSrgb | Bgra8Unorm | Bgra8UnormSrgb)
    }

    /// Records the copy of `texture` (a `COPY_SRC` surface texture) into a new staging buffer.
    pub(crate) fn record(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture, path: PathBuf) {
        let (width, height) = (texture.width(), texture.height());
        let padded_row = image::padded_row(width);
        let bgra = matches!(texture.format(), wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb);
        let mut rb = Readback::new(device, "app.screenshot", padded_row as u64 * height as u64, 1);
        let Some(buffer) = rb.reserve(Shot { path, width, height, padded_row, bgra }) else { return };
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded_row), rows_per_image: Some(height) },
            },
            wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        );
        self.pending.push(rb);
    }

    /// Asks for the mappings of the copies just submitted.
    pub(crate) fn submitted(&mut self) {
        for rb in &mut self.pending {
            rb.submitted();
        }
    }

    /// Hands the captures that have arrived to PNG writer threads (call after a device poll).
    pub(crate) fn poll(&mut self) {
        let mut still = Vec::new();
        for mut rb in self.pending.drain(..) {
            let ready = rb.take_ready();
            if ready.is_empty() && rb.in_flight() > 0 {
                still.push(rb);
            }
            for (shot, bytes) in ready {
                self.writers.push(std::thread::spawn(move || write_png(&shot, &bytes)));
            }
        }
        self.pending = still;
        let (done, running): (Vec<_>, Vec<_>) = self.writers.drain(..).partition(|w| w.is_finished());
        self.writers = running;
        for w in done {
            self.collect(w);
        }
    }

    fn collect(&mut self, w: JoinHandle<Result<PathBuf, String>>) {
        match w.join() {
            Ok(Ok(path)) => {
                log::info!("screenshot written: {}", path.display());
                self.written.push(path);
            }
            Ok(Err(e)) => {
                log::error!("{e}");
                self.errors.push(e);
            }
            Err(_) => self.errors.push("screenshot writer thread panicked".into()),
        }
    }

    pub(crate) fn busy(&self) -> bool {
        !self.pending.is_empty() || !self.writers.is_empty()
    }

    /// Waits (at most `timeout`) for every capture to be written: used once, at exit.
    pub(crate) fn finish(&mut self, device: &wgpu::Device, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while !self.pending.is_empty() && Instant::now() < deadline {
            let _ = device.poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_millis(100)) });
            self.poll();
        }
        for w in std::mem::take(&mut self.writers) {
            self.collect(w);
        }
        if !self.pending.is_empty() {
            self.errors.push(format!("{} screenshot(s) did not arrive within {timeout:?}", self.pending.len()));
        }
    }
}

fn write_png(shot: &Shot, bytes: &[u8]) -> Result<PathBuf, String> {
    let pixels = Pixels { width: shot.width, height: shot.height, padded_row: shot.padded_row, bgra: shot.bgra, bytes };
    image::write_png(&shot.path, &pixels).map_err(|e| format!("screenshot {e}"))?;
    Ok(shot.path.clone())
}
