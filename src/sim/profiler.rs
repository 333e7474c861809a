//! GPU timestamps around every pass of the step, where the adapter offers TIMESTAMP_QUERY.
//! Used by the benchmark (blocking read) and, later, by the panel (asynchronous read).

use std::collections::BTreeMap;

/// Compute passes one step records at most: every pass of [`PASSES`] once, grid.scatter twice
/// when the step is deterministic, and grid.scan twice when it also has emitters.
pub(crate) const MAX_PASSES_PER_STEP: u32 = PASSES.len() as u32 + 2;

/// Pass labels in step order ([`super::shader::STEP`]); the profile reports them in this order.
pub(crate) const PASSES: [&str; super::shader::STEP.len()] = {
    let mut out = [""; super::shader::STEP.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = super::shader::STEP[i].label;
        i += 1;
    }
    out
};

pub(crate) struct Profiler {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    capacity: u32,
    used: u32,
    /// Label of each begin/end pair recorded since the last read.
    labels: Vec<&'static str>,
    /// Step each pair belongs to.
    steps: Vec<u64>,
    period_ns: f32,
    dropped: u32,
}

/// Per-pass totals of a batch of profiled steps.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// Total GPU nanoseconds per pass label.
    pub pass_ns: BTreeMap<&'static str, f64>,
    /// Sum over steps of (last end − first begin): the step's GPU time including gaps.
    pub step_ns: f64,
    pub steps: u64,
    /// Pairs that did not fit the query set.
    pub dropped: u32,
    /// Shortest single pass per label, in nanoseconds.
    pub min_ns: BTreeMap<&'static str, f64>,
}

impl Profile {
    pub fn per_step_ms(&self, label: &str) -> Option<f64> {
        self.pass_ns.get(label).map(|ns| ns / self.steps.max(1) as f64 * 1e-6)
    }
    pub(crate) fn step_ms(&self) -> f64 {
        self.step_ns / self.steps.max(1) as f64 * 1e-6
    }
}

impl Profiler {
    /// Room for `pairs` timed passes (2 queries each) between reads.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue, pairs: u32) -> Self {
        let capacity = (pairs * 2).min(wgpu::QUERY_SET_MAX_QUERIES);
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("sim.timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: capacity,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sim.timestamps.resolve"),
            size: capacity as u64 * 8,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        Self {
            queries,
            resolve,
            capacity,
            used: 0,
            labels: Vec::new(),
            steps: Vec::new(),
            period_ns: queue.get_timestamp_period(),
            dropped: 0,
        }
    }

    /// Reserves the next pair of queries (begin, end) for a pass labelled `label` of step (or
    /// frame) `step`: its begin index, or None when the set is full.
    pub(crate) fn pair(&mut self, label: &'static str, step: u64) -> Option<u32> {
        if self.used + 2 > self.capacity {
            self.dropped += 1;
            return None;
        }
        let i = self.used;
        self.used += 2;
        self.labels.push(label);
        self.steps.push(step);
        Some(i)
    }

    /// The query set the pairs are written to.
    pub(crate) fn query_set(&self) -> &wgpu::QuerySet {
        &self.queries
    }

    /// Timestamp writes for the next compute pass, or None when the set is full.
    pub(crate) fn writes(&mut self, label: &'static str, step: u64) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let i = self.pair(label, step)?;
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        })
    }

    /// Resolves the recorded queries; call once after the profiled steps, before submitting.
    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.used > 0 {
            encoder.resolve_query_set(&self.queries, 0..self.used, &self.resolve, 0);
        }
    }

    /// Reads the resolved timestamps back (blocking) and starts over.
    pub(crate) fn read(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Profile, super::readback::ReadError> {
        let mut profile = Profile { dropped: std::mem::take(&mut self.dropped), ..Default::default() };
        if self.used == 0 {
            return Ok(profile);
        }
        let ticks: Vec<u64> = super::buffers::read_vec(device, queue, &self.resolve, self.used as usize)?;
        summarize(&mut profile, &self.labels, &self.steps, &ticks, self.period_ns);
        self.used = 0;
        self.labels.clear();
        self.steps.clear();
        Ok(profile)
    }
}

/// Adds the pass and step times of resolved `ticks` (begin, end per pair) to `profile`.
fn summarize(profile: &mut Profile, labels: &[&'static str], steps: &[u64], ticks: &[u64], period_ns: f32) {
    let ns = |t: u64| t as f64 * period_ns as f64;
    let mut step_span: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
    for (k, (label, step)) in labels.iter().zip(steps).enumerate() {
        let (b, e) = (ticks[2 * k], ticks[2 * k + 1]);
        let t = ns(e.saturating_sub(b));
        *profile.pass_ns.entry(label).or_default() += t;
        let m = profile.min_ns.entry(label).or_insert(f64::INFINITY);
        *m = m.min(t);
        let span = step_span.entry(*step).or_insert((b, e));
        span.0 = span.0.min(b);
        span.1 = span.1.max(e);
    }
    profile.steps = step_span.len() as u64;
    profile.step_ns = step_span.values().map(|(b, e)| ns(e.saturating_sub(*b))).sum();
}

/// The passes whose timestamps one [`Profiler::resolve_into`] copied out: turns the ticks read
/// back later (asynchronously) into a [`Profile`].
#[derive(Clone, Debug)]
pub(crate) struct ProfileBatch {
    labels: Vec<&'static str>,
    steps: Vec<u64>,
    period_ns: f32,
    dropped: u32,
}

impl ProfileBatch {
    /// Bytes of resolved timestamps the batch copied.
    pub(crate) fn bytes(&self) -> u64 {
        self.labels.len() as u64 * 16
    }

    /// The profile of the batch from its ticks (`bytes()` bytes read back).
    pub(crate) fn profile(&self, ticks: &[u64]) -> Profile {
        let mut profile = Profile { dropped: self.dropped, ..Default::default() };
        if ticks.len() >= self.labels.len() * 2 {
            summarize(&mut profile, &self.labels, &self.steps, ticks, self.period_ns);
        }
        profile
    }
}

/// Non-blocking use (the app's frame loop): resolve into a buffer the caller maps later.
impl Profiler {
    /// Bytes a [`Profiler::resolve_into`] may copy at most.
    pub(crate) fn capacity_bytes(&self) -> u64 {
        self.capacity as u64 * 8
    }

    /// Resolves the timestamps recorded since the last reset, copies them into `dst` at
    /// `offset` (a `COPY_DST` buffer of at least [`Profiler::capacity_bytes`] from `offset`)
    /// and starts over. None when nothing was recorded.
    pub(crate) fn resolve_into(&mut self, encoder: &mut wgpu::CommandEncoder, dst: &wgpu::Buffer, offset: u64) -> Option<ProfileBatch> {
        if self.used == 0 {
            self.dropped = 0;
            return None;
        }
        encoder.resolve_query_set(&self.queries, 0..self.used, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, dst, offset, self.used as u64 * 8);
        let batch = ProfileBatch {
            labels: std::mem::take(&mut self.labels),
            steps: std::mem::take(&mut self.steps),
            period_ns: self.period_ns,
            dropped: std::mem::take(&mut self.dropped),
        };
        self.used = 0;
        Some(batch)
    }

    /// Forgets the timestamps recorded since the last read (a frame that is not read back).
    pub(crate) fn reset(&mut self) {
        self.used = 0;
        self.labels.clear();
        self.steps.clear();
        self.dropped = 0;
    }
}

/// The GPU times of a frame's passes (the app's render passes, `rillet render`'s), read back
/// without waiting: a [`Profiler`] with a pair per label, resolved every timed frame into a ring
/// of staging buffers (a frame whose buffer is not free goes untimed).
pub(crate) struct FrameTimer {
    profiler: Profiler,
    readback: super::readback::Readback<(u64, ProfileBatch)>,
    labels: &'static [&'static str],
}

impl FrameTimer {
    /// A pair of queries per label; pass k of a frame writes `2k` and `2k + 1`.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue, label: &str, labels: &'static [&'static str]) -> Self {
        let profiler = Profiler::new(device, queue, labels.len() as u32);
        let readback = super::readback::Readback::new(device, label, profiler.capacity_bytes(), 3);
        Self { profiler, readback, labels }
    }

    /// Starts timing frame `frame`: its passes write the pairs from index 0 of [`Self::query_set`].
    pub(crate) fn start(&mut self, frame: u64) {
        self.profiler.reset();
        for label in self.labels {
            self.profiler.pair(label, frame);
        }
    }

    pub(crate) fn query_set(&self) -> &wgpu::QuerySet {
        self.profiler.query_set()
    }

    /// After the frame's passes: resolves the times and copies them out, when a staging buffer
    /// is free.
    pub(crate) fn record_copy(&mut self, encoder: &mut wgpu::CommandEncoder, frame: u64) {
        let profiler = &mut self.profiler;
        self.readback.record_with(|dst| profiler.resolve_into(encoder, dst, 0).map(|batch| (frame, batch)));
        self.profiler.reset();
    }

    pub(crate) fn submitted(&mut self) {
        self.readback.submitted();
    }

    /// The milliseconds of every label, in order, of each frame whose times have arrived (after
    /// a device poll), oldest first.
    pub(crate) fn take_ready(&mut self) -> Vec<(u64, Vec<f64>)> {
        let labels = self.labels;
        self.readback
            .take_ready()
            .into_iter()
            .map(|((frame, batch), bytes)| {
                let profile = batch.profile(&super::readback::ticks_from(&bytes));
                (frame, labels.iter().map(|l| profile.per_step_ms(l).unwrap_or(f64::NAN)).collect())
            })
            .collect()
    }
}
