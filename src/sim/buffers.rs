//! GPU buffers: the two particle buffer sets, the per-particle grid arrays, the per-cell grid
//! arrays (reallocated when the cell size or order changes), and blocking readback for tests,
//! tools and the benchmark (never used by the frame loop).

use super::layout::GridLayout;
use super::readback::ReadError;
use super::scan::{GridDiagnostics, ScanLevels, ScanPass};
use super::shader;
use std::time::Duration;

/// One set of per-particle state. Every buffer here is moved by the reorder kernel.
pub struct ParticleSet {
    /// `vec4(position, mass)`; mass < 0 marks a boundary particle (−ψ).
    pub pos_mass: wgpu::Buffer,
    /// `vec4(velocity, density)`.
    pub vel_rho: wgpu::Buffer,
    /// Creation index of the particle in this slot.
    pub id: wgpu::Buffer,
}

impl ParticleSet {
    /// Buffers for `n` particles, not yet written (created inside the caller's error scope, so an
    /// allocation the device cannot make is an error, not a panic on a mapping).
    pub(crate) fn new(device: &wgpu::Device, label: &str, n: u64) -> Self {
        let vertex = wgpu::BufferUsages::VERTEX;
        Self {
            pos_mass: shader::storage_with(device, &format!("{label}.pos_mass"), n * 16, vertex),
            vel_rho: shader::storage_with(device, &format!("{label}.vel_rho"), n * 16, vertex),
            id: shader::storage_with(device, &format!("{label}.id"), n * 4, wgpu::BufferUsages::empty()),
        }
    }

    /// Uploads a state into the set.
    pub(crate) fn write(&self, queue: &wgpu::Queue, pos_mass: &[[f32; 4]], vel_rho: &[[f32; 4]], id: &[u32]) {
        queue.write_buffer(&self.pos_mass, 0, bytemuck::cast_slice(pos_mass));
        queue.write_buffer(&self.vel_rho, 0, bytemuck::cast_slice(vel_rho));
        queue.write_buffer(&self.id, 0, bytemuck::cast_slice(id));
    }
}

/// Per-cell arrays and the scan levels over them, for one [`GridLayout`].
pub(crate) struct CellBuffers {
    pub layout: GridLayout,
    pub lut: wgpu::Buffer,
    /// Particles per cell, `num_cells + 1` entries: the last is the cell of free slots
    /// (particles with `w = 0`), which no neighbour loop visits.
    pub counts: wgpu::Buffer,
    /// Exclusive scan of `counts`, `num_cells + 2` entries: `cell_start[num_cells]` is the
    /// number of particles, `cell_start[num_cells + 1]` the number of slots.
    pub cell_start: wgpu::Buffer,
    pub scan: ScanLevels,
}

impl CellBuffers {
    /// `diagnostics`: what the scan's level 0 binds for the grid diagnostics.
    pub(crate) fn new(
        device: &wgpu::Device,
        scan: &ScanPass,
        layout: GridLayout,
        diagnostics: GridDiagnostics<'_>,
    ) -> Result<Self, super::shader::KernelError> {
        // the cells and the cell of free slots
        let n = layout.num_cells + 1;
        let lut = shader::storage_init(device, "grid.cell_lut", bytemuck::cast_slice(&layout.lut), wgpu::BufferUsages::empty());
        let counts = shader::storage(device, "grid.counts", n as u64 * 4);
        let cell_start = shader::storage(device, "grid.cell_start", (n as u64 + 1) * 4);
        let scan = scan.levels(device, &counts, &cell_start, n, Some(diagnostics))?;
        Ok(Self { layout, lut, counts, cell_start, scan })
    }
}

/// How long a blocking readback waits for the GPU before it calls the device hung.
pub(crate) const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// Copies `size` bytes of `src` from `offset` back to the CPU and waits for them (bounded wait).
pub(crate) fn read_bytes(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, ReadError> {
    read_recorded(device, queue, size, |enc, staging| enc.copy_buffer_to_buffer(src, offset, staging, 0, size.div_ceil(4) * 4))
}

/// Records `record`'s copies into a staging buffer of `size` bytes, submits them and waits
/// (at most [`READ_TIMEOUT`]) for the bytes: one round trip whatever the copies.
pub(crate) fn read_recorded(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    size: u64,
    record: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
) -> Result<Vec<u8>, ReadError> {
    let size = size.div_ceil(4) * 4;
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: size.max(4),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
    record(&mut enc, &staging);
    let idx = queue.submit([enc.finish()]);
    let slice = staging.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    match device.poll(wgpu::PollType::Wait { submission_index: Some(idx), timeout: Some(READ_TIMEOUT) }) {
        Ok(_) => {}
        Err(wgpu::PollError::Timeout) => return Err(ReadError::Timeout(READ_TIMEOUT.as_secs())),
        Err(e) => return Err(ReadError::Device(e.to_string())),
    }
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(ReadError::Map(e.to_string())),
        Err(_) => return Err(ReadError::Map("the mapping did not complete".into())),
    }
    let data = slice.get_mapped_range().map_err(|e| ReadError::Map(e.to_string()))?.to_vec();
    staging.unmap();
    Ok(data)
}

pub(crate) fn read_vec<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    src: &wgpu::Buffer,
    count: usize,
) -> Result<Vec<T>, ReadError> {
    let bytes = read_bytes(device, queue, src, 0, (count * std::mem::size_of::<T>()) as u64)?;
    Ok(bytemuck::cast_slice(&bytes[..count * std::mem::size_of::<T>()]).to_vec())
}
