//! Frames as PNG files: the rows of a texture copied to a buffer (padded to wgpu's row
//! alignment, RGBA or BGRA) written as 8-bit RGBA, whole (aside, then renamed). The app's
//! screenshots and `rillet render` both write through here.

use std::path::Path;

/// A texture's pixels as copied into a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pixels<'a> {
    pub width: u32,
    pub height: u32,
    /// Bytes per row in `bytes` (a multiple of `wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`).
    pub padded_row: u32,
    /// Blue first (Bgra8 formats).
    pub bgra: bool,
    pub bytes: &'a [u8],
}

/// Bytes per row of a `width`-pixel RGBA8 copy, padded to wgpu's alignment.
pub(crate) fn padded_row(width: u32) -> u32 {
    (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

impl Pixels<'_> {
    /// Tightly packed RGBA, opaque.
    pub(crate) fn rgba(&self) -> Vec<u8> {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut rgba = Vec::with_capacity(w * h * 4);
        for row in 0..h {
            let line = &self.bytes[row * self.padded_row as usize..][..w * 4];
            for px in line.chunks_exact(4) {
                if self.bgra {
                    rgba.extend_from_slice(&[px[2], px[1], px[0], 255]);
                } else {
                    rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
                }
            }
        }
        rgba
    }
}

/// Writes `pixels` to `path` as PNG; the error names the file.
pub(crate) fn write_png(path: &Path, pixels: &Pixels) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let mut encoded = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut encoded, pixels.width, pixels.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| fail(&e))?;
        writer.write_image_data(&pixels.rgba()).map_err(|e| fail(&e))?;
        writer.finish().map_err(|e| fail(&e))?;
    }
    crate::files::write_whole(path, &encoded).map_err(|e| format!("{e:#}"))
}
