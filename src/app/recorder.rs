//! "Export frame" and "Record" in the app: the particle buffers are copied into a staging buffer
//! in the frame's own encoder, mapped asynchronously (the frame loop never waits for them), and
//! handed to the same writer as `rillet run --export` ([`crate::export`]), which writes them on
//! its own thread. The diagnostics words ride along after the particles: a frame's time is the
//! simulation's clock at its step ([`Sim::time_at`]), which an adaptive dt keeps on the GPU.

use crate::export::{ExportStats, Exporter, Format, Job};
use crate::sim::Sim;
use crate::sim::readback::{self, ParticleCopy, Readback};
use std::path::PathBuf;

/// What a readback of the particle buffers carries.
#[derive(Clone, Copy, Debug)]
struct Tag {
    step: u64,
    /// Where the copy's arrays lie.
    copy: ParticleCopy,
    rest_density: f32,
    stiffness: f32,
}

pub(crate) struct Recorder {
    pub dir: PathBuf,
    formats: Vec<Format>,
    /// Record every this many steps.
    pub every: u64,
    boundary: bool,
    /// Recording: a frame at every multiple of `every` steps (at the frame that passes it).
    pub recording: bool,
    /// One frame asked for ("Export frame").
    one_shot: bool,
    next_step: u64,
    readback: Option<(Readback<Tag>, ParticleCopy)>,
    exporter: Option<Exporter>,
    /// Frames handed to the writer, and frames skipped because the staging buffers or the
    /// writer's queue were full (the frame loop never waits for the disk).
    pub frames: u64,
    pub skipped: u64,
    pub error: Option<String>,
    /// Each moving solid's scene index, motion and keyframes (the frames' transforms).
    motions: crate::sim::motion::Motions,
}

impl Recorder {
    pub(crate) fn new(dir: PathBuf, formats: Vec<Format>, every: u64, boundary: bool) -> Self {
        Self {
            dir,
            formats,
            every: every.max(1),
            boundary,
            recording: false,
            one_shot: false,
            next_step: 0,
            readback: None,
            exporter: None,
            frames: 0,
            skipped: 0,
            error: None,
            motions: vec![],
        }
    }

    /// The moving solids of the scene that runs ([`crate::scene::Scene::moving_motions`]): each
    /// recorded frame's transforms go to `transforms.csv` beside it.
    pub(crate) fn set_motions(&mut self, motions: crate::sim::motion::Motions) {
        self.motions = motions;
    }

    /// "Export frame": the state after the next frame's steps.
    pub(crate) fn export_frame(&mut self) {
        self.one_shot = true;
    }

    /// "Record" / "Stop": from the current step on, a frame every `every` steps.
    pub(crate) fn toggle(&mut self, step: u64) {
        self.recording = !self.recording;
        self.next_step = step;
        log::info!("recording {} ({})", if self.recording { "on" } else { "off" }, self.dir.display());
    }

    /// While recording: the step of the next frame to record (a multiple of `every`, or the step
    /// recording started at). The frame's steps stop there ([`Recorder::stops`]), so the series
    /// keeps exact intervals whatever the steps per frame.
    pub(crate) fn due(&self) -> Option<u64> {
        (self.recording && self.error.is_none()).then_some(self.next_step)
    }

    /// The recorder as the frame's step stops ([`crate::app::driver::StepStops`]).
    pub(crate) fn stops<'a>(&'a mut self, device: &'a wgpu::Device) -> RecorderStops<'a> {
        RecorderStops { recorder: self, device }
    }

    /// After the frame's steps, in its encoder: the copy of the particle buffers when a frame is
    /// due ("Export frame", or a recorded step the frame's stops did not take). Never waits; a
    /// frame due while every staging buffer is in flight is skipped (and counted).
    pub(crate) fn record(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, sim: &Sim) {
        let shot = std::mem::take(&mut self.one_shot);
        self.copy_if_due(device, encoder, sim, shot);
    }

    /// The copy of the state where the simulation stands, if `shot` or a recorded step is due;
    /// a recorded step moves `next_step` on to the next multiple of `every`.
    fn copy_if_due(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, sim: &Sim, shot: bool) {
        let step = sim.steps();
        let recorded_step = self.recording && step >= self.next_step;
        if !(shot || recorded_step) || self.error.is_some() {
            return;
        }
        if recorded_step {
            self.next_step = (step / self.every + 1) * self.every;
        }
        let copy = sim.particle_copy();
        if self.readback.as_ref().is_none_or(|(_, made)| *made != copy) {
            // three staging buffers: a frame of many steps may record more than one
            self.readback = Some((Readback::new(device, "app.export", copy.bytes(), 3), copy));
        }
        let (readback, _) = self.readback.as_mut().expect("made above");
        let p = sim.params();
        let tag = Tag { step, copy, rest_density: p.rest_density, stiffness: p.stiffness };
        let Some(dst) = readback.reserve(tag) else {
            self.skipped += 1;
            return;
        };
        sim.record_particle_copy(encoder, dst, 0);
    }

    pub(crate) fn submitted(&mut self) {
        if let Some((r, _)) = &mut self.readback {
            r.submitted();
        }
    }

    /// Hands the copies that arrived to the writer (started on first use). `sim` is the running
    /// simulation, whose copies these are (a restart drops the ones in flight).
    pub(crate) fn poll(&mut self, sim: &Sim) {
        let Some((readback, _)) = &mut self.readback else { return };
        for (tag, bytes) in readback.take_ready() {
            let diag = readback::diagnostics_from(&bytes[tag.copy.diagnostics_at() as usize..]);
            let time = sim.time_at(tag.step, &diag);
            let poses = crate::sim::motion::poses_now(&self.motions, time, &tag.copy.bodies(&bytes));
            if self.exporter.is_none() {
                let params = sim.params();
                let spacing = params.h / crate::physics::SUPPORT_OVER_SPACING;
                let surface = crate::export::SurfaceParams::new(spacing, params.rest_density);
                match Exporter::start(&self.dir, &self.formats, [vec![], vec![]], sim.objects().clone(), sim.has_moving_solids(), surface) {
                    Ok(e) => self.exporter = Some(e),
                    Err(e) => {
                        self.fail(format!("{e:#}"));
                        return;
                    }
                }
            }
            let job = Job::Raw {
                bytes,
                copy: tag.copy,
                step: tag.step,
                time,
                rest_density: tag.rest_density,
                stiffness: tag.stiffness,
                boundary: self.boundary,
                poses,
            };
            match self.exporter.as_mut().expect("started above").try_send(job) {
                Ok(None) => self.frames += 1,
                // the disk is behind: this frame is skipped rather than the window held up
                Ok(Some(_)) => self.skipped += 1,
                Err(_) => {
                    let e = self.exporter.take().map(|e| e.finish());
                    self.fail(match e {
                        Some(Err(e)) => format!("{e:#}"),
                        _ => "the export writer stopped".into(),
                    });
                    return;
                }
            }
        }
    }

    /// The simulation started again (reset, reload): the frames written so far are a series of
    /// their own; a new one starts (a recording goes on from step 0).
    pub(crate) fn restarted(&mut self) {
        self.readback = None;
        self.next_step = 0;
        if let Some(e) = self.exporter.take()
            && let Err(e) = e.finish()
        {
            self.fail(format!("{e:#}"));
        }
    }

    fn fail(&mut self, e: String) {
        log::error!("export: {e}");
        self.recording = false;
        self.error = Some(e);
    }

    /// Readbacks still in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.readback.as_ref().map_or(0, |(r, _)| r.in_flight())
    }

    /// At exit: waits for the writer; what it wrote.
    pub(crate) fn finish(&mut self) -> anyhow::Result<Option<ExportStats>> {
        match self.exporter.take() {
            Some(e) => Ok(Some(e.finish()?)),
            None => Ok(None),
        }
    }
}

/// The recorder stopping a frame's steps at its recorded steps.
pub(crate) struct RecorderStops<'a> {
    recorder: &'a mut Recorder,
    device: &'a wgpu::Device,
}

impl crate::app::driver::StepStops for RecorderStops<'_> {
    fn due(&self) -> Option<u64> {
        self.recorder.due()
    }
    /// The recorded step only: "Export frame" waits for the end of the frame's steps.
    fn at(&mut self, encoder: &mut wgpu::CommandEncoder, sim: &Sim) {
        self.recorder.copy_if_due(self.device, encoder, sim, false);
    }
}
