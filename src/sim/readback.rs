//! Non-blocking readback for the frame loop: a small ring of staging buffers. A frame records a
//! copy into a free buffer, submits, then asks for the mapping; later frames poll the device
//! without waiting and take the data whose mapping has completed. Nothing here ever waits on
//! the GPU (the blocking helpers for tests and tools are in [`super::buffers`]).

use super::params::Diagnostics;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

const PENDING: u8 = 0;
const MAPPED: u8 = 1;
const FAILED: u8 = 2;

enum State<T> {
    Free,
    /// A copy into the buffer is recorded; the mapping is asked for after the submit.
    Recorded(T),
    /// `map_async` asked for; the callback sets the flag.
    Mapping(T, Arc<AtomicU8>),
}

struct Slot<T> {
    buffer: wgpu::Buffer,
    state: State<T>,
    /// Order in which slots were recorded, so results come out in that order.
    seq: u64,
}

/// A ring of `MAP_READ` staging buffers of one size, each carrying a tag `T` that says what
/// was copied into it (e.g. the frame number).
pub struct Readback<T> {
    slots: Vec<Slot<T>>,
    size: u64,
    next_seq: u64,
}

impl<T> Readback<T> {
    /// `slots` buffers of `size` bytes each, labelled `label.0`, `label.1`, …
    pub fn new(device: &wgpu::Device, label: &str, size: u64, slots: usize) -> Self {
        let size = size.max(4).div_ceil(4) * 4;
        let slots = (0..slots.max(1))
            .map(|i| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("{label}.{i}")),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: State::Free,
                seq: 0,
            })
            .collect();
        Self { slots, size, next_seq: 0 }
    }

    /// Bytes per staging buffer.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Reserves a free buffer for a copy tagged `tag` and returns it; the caller records the
    /// copy into the frame's encoder and calls [`Readback::submitted`] after the submit.
    /// None when every buffer is still in flight (the caller skips this readback).
    pub fn reserve(&mut self, tag: T) -> Option<&wgpu::Buffer> {
        let seq = self.next_seq;
        let slot = self.slots.iter_mut().find(|s| matches!(s.state, State::Free))?;
        self.next_seq += 1;
        slot.state = State::Recorded(tag);
        slot.seq = seq;
        Some(&slot.buffer)
    }

    /// Like [`Readback::reserve`] when the tag comes out of recording the copy: `record` gets
    /// a free buffer and returns the tag, or None when it recorded nothing. False when no
    /// buffer was free or nothing was recorded.
    pub fn record_with(&mut self, record: impl FnOnce(&wgpu::Buffer) -> Option<T>) -> bool {
        let seq = self.next_seq;
        let Some(slot) = self.slots.iter_mut().find(|s| matches!(s.state, State::Free)) else { return false };
        match record(&slot.buffer) {
            Some(tag) => {
                self.next_seq += 1;
                slot.state = State::Recorded(tag);
                slot.seq = seq;
                true
            }
            None => false,
        }
    }

    /// Asks for the mapping of every buffer whose copy was just submitted.
    pub fn submitted(&mut self) {
        for slot in &mut self.slots {
            if let State::Recorded(_) = slot.state {
                let State::Recorded(tag) = std::mem::replace(&mut slot.state, State::Free) else { unreachable!() };
                let flag = Arc::new(AtomicU8::new(PENDING));
                let done = flag.clone();
                slot.buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                    done.store(if r.is_ok() { MAPPED } else { FAILED }, Ordering::Release);
                });
                slot.state = State::Mapping(tag, flag);
            }
        }
    }

    /// Copies in flight (recorded or mapping).
    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| !matches!(s.state, State::Free)).count()
    }

    /// Takes every completed readback, oldest first, without waiting. Call after
    /// `device.poll(wgpu::PollType::Poll)` (which runs the map callbacks).
    pub fn take_ready(&mut self) -> Vec<(T, Vec<u8>)> {
        let mut ready = Vec::new();
        for slot in &mut self.slots {
            let status = match &slot.state {
                State::Mapping(_, flag) => flag.load(Ordering::Acquire),
                _ => continue,
            };
            if status == PENDING {
                continue;
            }
            let State::Mapping(tag, _) = std::mem::replace(&mut slot.state, State::Free) else { unreachable!() };
            if status == MAPPED {
                let bytes = match slot.buffer.slice(..).get_mapped_range() {
                    Ok(view) => view.to_vec(),
                    Err(e) => {
                        log::warn!("readback: mapped range unavailable: {e}");
                        slot.buffer.unmap();
                        continue;
                    }
                };
                slot.buffer.unmap();
                ready.push((slot.seq, tag, bytes));
            } else {
                log::warn!("readback: a staging buffer could not be mapped; that sample is lost");
            }
        }
        ready.sort_by_key(|r| r.0);
        ready.into_iter().map(|(_, t, b)| (t, b)).collect()
    }
}

/// Reads the [`Diagnostics`] words out of a completed readback.
pub fn diagnostics_from(bytes: &[u8]) -> Diagnostics {
    let n = std::mem::size_of::<Diagnostics>();
    bytemuck::pod_read_unaligned(&bytes[..n])
}

/// Reads resolved timestamps out of a completed readback.
pub fn ticks_from(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}
