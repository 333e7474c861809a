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
pub(crate) struct Readback<T> {
    slots: Vec<Slot<T>>,
    next_seq: u64,
}

impl<T> Readback<T> {
    /// `slots` buffers of `size` bytes each, labelled `label.0`, `label.1`, …
    pub(crate) fn new(device: &wgpu::Device, label: &str, size: u64, slots: usize) -> Self {
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
        Self { slots, next_seq: 0 }
    }

    /// Reserves a free buffer for a copy tagged `tag` and returns it; the caller records the
    /// copy into the frame's encoder and calls [`Readback::submitted`] after the submit.
    /// None when every buffer is still in flight (the caller skips this readback).
    pub(crate) fn reserve(&mut self, tag: T) -> Option<&wgpu::Buffer> {
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
    pub(crate) fn record_with(&mut self, record: impl FnOnce(&wgpu::Buffer) -> Option<T>) -> bool {
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
    pub(crate) fn submitted(&mut self) {
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
    pub(crate) fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| !matches!(s.state, State::Free)).count()
    }

    /// Takes every completed readback, oldest first, without waiting. Call after
    /// `device.poll(wgpu::PollType::Poll)` (which runs the map callbacks).
    pub(crate) fn take_ready(&mut self) -> Vec<(T, Vec<u8>)> {
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
pub(crate) fn diagnostics_from(bytes: &[u8]) -> Diagnostics {
    let n = std::mem::size_of::<Diagnostics>();
    bytemuck::pod_read_unaligned(&bytes[..n])
}

/// Reads resolved timestamps out of a completed readback.
pub(crate) fn ticks_from(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

/// Why a readback brought nothing back.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReadError {
    #[error("the GPU did not finish the work before the readback within {0} s (the device is hung or lost)")]
    Timeout(u64),
    #[error("the device was lost or refused the readback: {0}")]
    Device(String),
    #[error("a staging buffer could not be mapped: {0}")]
    Map(String),
    #[error("a readback of {got} bytes is shorter than the {expected} bytes its layout holds")]
    Short { got: usize, expected: usize },
}

/// The layout of one copy of the simulation's state ([`super::Sim::record_particle_copy`]), the
/// one place that says where each array lies in its bytes: `pos_mass` and `vel_rho` (16 B a
/// particle each), `id` (4 B), the [`Diagnostics`] words, then with `solver` DFSPH's two solve
/// totals by particle id (`warm_pressure`, `warm_divergence`, 4 B a particle each), from which
/// [`ParticleCopy::decode`] makes the pressure the step applied, then the moving solids' states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParticleCopy {
    /// Slots copied.
    pub n: u32,
    /// DFSPH's solve totals follow the diagnostics.
    pub solver: bool,
    /// Moving solids: their [`super::motion::BodyState`]s come last.
    pub bodies: u32,
}

impl ParticleCopy {
    const DIAGNOSTICS: u64 = std::mem::size_of::<Diagnostics>() as u64;

    fn n64(&self) -> u64 {
        self.n as u64
    }
    /// Byte offsets of `vel_rho`, `id`, the diagnostics and the solve totals.
    pub(crate) fn vel_rho_at(&self) -> u64 {
        self.n64() * 16
    }
    pub(crate) fn id_at(&self) -> u64 {
        self.n64() * 32
    }
    pub(crate) fn diagnostics_at(&self) -> u64 {
        self.n64() * 36
    }
    pub(crate) fn solver_at(&self) -> u64 {
        self.diagnostics_at() + Self::DIAGNOSTICS
    }

    pub(crate) fn bodies_at(&self) -> u64 {
        self.solver_at() + if self.solver { self.n64() * 8 } else { 0 }
    }

    /// Bytes of the copy.
    pub(crate) fn bytes(&self) -> u64 {
        self.bodies_at() + self.bodies as u64 * std::mem::size_of::<super::motion::BodyState>() as u64
    }

    /// The particles (with DFSPH's pressure, made with the copied step's dt) and the
    /// diagnostics of a completed copy.
    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<(super::Particles, Diagnostics), ReadError> {
        if (bytes.len() as u64) < self.bytes() {
            return Err(ReadError::Short { got: bytes.len(), expected: self.bytes() as usize });
        }
        let at = |a: u64, b: u64| &bytes[a as usize..b as usize];
        let diag: Diagnostics = bytemuck::pod_read_unaligned(at(self.diagnostics_at(), self.solver_at()));
        let vel_rho: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(at(self.vel_rho_at(), self.id_at()));
        let id: Vec<u32> = bytemuck::pod_collect_to_vec(at(self.id_at(), self.diagnostics_at()));
        let pressure = self.solver.then(|| {
            let (p, v) = (self.solver_at(), self.solver_at() + self.n64() * 4);
            let wp: Vec<f32> = bytemuck::pod_collect_to_vec(at(p, v));
            let wv: Vec<f32> = bytemuck::pod_collect_to_vec(at(v, v + self.n64() * 4));
            super::dfsph_pressure(&vel_rho, &id, &wp, &wv, diag.dt)
        });
        let pos_mass = bytemuck::pod_collect_to_vec(at(0, self.vel_rho_at()));
        let bodies = self.bodies(bytes);
        Ok((super::Particles { pos_mass, vel_rho, id, pressure, bodies }, diag))
    }

    /// The moving solids' states of a completed copy, without decoding the particles (empty
    /// when the copy is short).
    pub(crate) fn bodies(&self, bytes: &[u8]) -> Vec<super::motion::BodyState> {
        bytes.get(self.bodies_at() as usize..self.bytes() as usize).map_or(vec![], bytemuck::pod_collect_to_vec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy's bytes, laid out by hand as the GPU copies them, decode to the same arrays; a
    /// short one is an error, not a panic.
    #[test]
    fn a_particle_copy_decodes_what_its_layout_holds() {
        let pos_mass = [[1.0f32, 2.0, 3.0, 0.5], [4.0, 5.0, 6.0, -0.5]];
        let vel_rho = [[0.1f32, 0.2, 0.3, 1000.0], [0.0, 0.0, 0.0, 1010.0]];
        let id = [1u32, 0];
        let diag = Diagnostics { dt: 0.002, ..Default::default() };
        let (wp, wv) = ([4e-6f32, 8e-6], [1e-3f32, 2e-3]);
        let body = crate::sim::motion::BodyState { position: [1.0, 2.0, 3.0], mass: 4.0, ..Default::default() };
        for (solver, bodies) in [(false, 0u32), (true, 0), (false, 1), (true, 1)] {
            let copy = ParticleCopy { n: 2, solver, bodies };
            let mut bytes = Vec::new();
            bytes.extend_from_slice(bytemuck::cast_slice(&pos_mass));
            bytes.extend_from_slice(bytemuck::cast_slice(&vel_rho));
            bytes.extend_from_slice(bytemuck::cast_slice(&id));
            bytes.extend_from_slice(bytemuck::bytes_of(&diag));
            if solver {
                bytes.extend_from_slice(bytemuck::cast_slice(&wp));
                bytes.extend_from_slice(bytemuck::cast_slice(&wv));
            }
            if bodies == 1 {
                bytes.extend_from_slice(bytemuck::bytes_of(&body));
            }
            assert_eq!(bytes.len() as u64, copy.bytes());
            let (p, d) = copy.decode(&bytes).unwrap();
            assert_eq!((p.pos_mass, p.vel_rho, p.id.clone()), (pos_mass.to_vec(), vel_rho.to_vec(), id.to_vec()));
            assert_eq!(d.dt, diag.dt);
            assert_eq!(p.pressure, solver.then(|| super::super::dfsph_pressure(&vel_rho, &id, &wp, &wv, diag.dt)));
            assert_eq!(p.bodies, if bodies == 1 { vec![body] } else { vec![] });
            assert!(matches!(copy.decode(&bytes[..bytes.len() - 4]), Err(ReadError::Short { .. })));
        }
    }
}
