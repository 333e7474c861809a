//! The running scene: the scene as loaded, its simulation (through the [`Driver`]), the file
//! watch, and the panel's [`Controls`]. Everything that replaces or changes the simulation goes
//! through here, between frames: a reload (by hand or when the file changes), a reset, new
//! options. A failure never ends the run: the old scene or options keep running and the error
//! is kept for the panel.

use super::driver::Driver;
use super::panel::Controls;
use super::watch::SceneWatch;
use crate::gpu::Gpu;
use crate::scene::setup;
use crate::scene::{Scene, Solver};
use crate::sim::InitialState;
use crate::sim::Sim;
use anyhow::Context as _;
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A scene file as read and validated (no particle built yet).
pub struct SceneFile {
    pub scene: Scene,
    /// The file, or "… (built in)", for messages.
    pub name: String,
    /// The file, when the scene came from one.
    pub path: Option<PathBuf>,
}

impl SceneFile {
    pub(crate) fn load(path: Option<&std::path::Path>) -> Result<Self, crate::scene::SceneError> {
        let (scene, name) = crate::scene::load_or_default(path)?;
        Ok(Self { scene, name, path: path.map(|p| p.to_path_buf()) })
    }

    /// The scene's own `name` with its file, for the title bar and the panel.
    pub(crate) fn title(&self) -> String {
        if self.scene.name.is_empty() { self.name.clone() } else { format!("{} — {}", self.scene.name, self.name) }
    }
}

/// A scene as loaded, with its initial state (kept for resets).
pub struct LoadedScene {
    pub scene: Scene,
    /// What the log calls it (the file, or "… (built in)").
    pub name: String,
    /// The scene's `name` and its file: the title bar and the panel show this.
    pub title: String,
    /// The file, when the scene came from one.
    pub path: Option<PathBuf>,
    pub state: InitialState,
}

impl LoadedScene {
    /// Builds the initial state, refusing (before allocating it) a scene that the device or the
    /// host's memory cannot hold.
    pub fn build(file: SceneFile, gpu: &Gpu) -> Result<Self, setup::SetupError> {
        let state = setup::build_checked(&file.scene, gpu)?;
        let title = file.title();
        Ok(Self { scene: file.scene, name: file.name, title, path: file.path, state })
    }

    pub(crate) fn load(path: Option<&std::path::Path>, gpu: &Gpu) -> anyhow::Result<Self> {
        let file = SceneFile::load(path)?;
        let name = file.name.clone();
        Self::build(file, gpu).with_context(|| format!("{name}: the scene does not fit this device"))
    }

    /// The initial state with `solver` in place of the scene's `physics.solver` (the panel's
    /// choice; None: the scene's own), the scene being checked again with it (a dt fit for DFSPH
    /// may be beyond the CFL limit of WCSPH).
    pub(crate) fn state_with(&self, solver: Option<Solver>) -> anyhow::Result<Cow<'_, InitialState>> {
        let Some(solver) = solver.filter(|s| *s != self.scene.physics.solver) else { return Ok(Cow::Borrowed(&self.state)) };
        let mut scene = self.scene.clone();
        scene.physics.solver = solver;
        // the checks that read the solver (its settings, and the CFL limit of WCSPH's count check)
        scene
            .validate(&self.name)
            .and_then(|()| scene.validate_count(&self.name))
            .with_context(|| format!("with the solver {} chosen in the panel", solver.name()))?;
        let mut state = self.state.clone();
        state.params = setup::with_solver(state.params, &scene.physics);
        Ok(Cow::Owned(state))
    }
}

/// A new scene replaced the running one.
pub(crate) struct Reloaded {
    /// Its domain differs from the old one's (the camera frames it again).
    pub domain_changed: bool,
}

/// The running scene and its simulation, changed only between frames.
pub struct Session {
    pub scene: LoadedScene,
    pub driver: Driver,
    /// What the panel edits; the options are applied by [`Session::apply_options`].
    pub controls: Controls,
    /// The last failed reload or option change, shown in the panel.
    pub error: Option<String>,
    watch: Option<SceneWatch>,
    /// One step was asked for while paused.
    step_once: bool,
    /// The pause came from a blow-up: a successful reset or reload runs again.
    paused_by_blow_up: bool,
}

impl Session {
    /// Starts `scene` with its own options and `substeps` steps per frame.
    pub fn new(gpu: &Gpu, scene: LoadedScene, substeps: u32) -> anyhow::Result<Self> {
        let options = setup::sim_options(&scene.scene);
        let sim = Sim::new(gpu, &scene.state, options.clone()).map_err(|e| e.for_scene(&scene.name))?;
        let driver = Driver::new(&gpu.device, sim, gpu.has_timestamps());
        let controls = Controls { options, substeps, paused: false, solver: None };
        let mut watch = scene.path.as_deref().map(SceneWatch::new);
        if let Some(w) = &mut watch {
            w.set_meshes(&scene.scene.meshes.files);
        }
        log::info!("{}: {} fluid + {} boundary particles", scene.name, scene.state.n_fluid, scene.state.n_boundary());
        Ok(Self { scene, driver, controls, error: None, watch, step_once: false, paused_by_blow_up: false })
    }

    /// When the file watch wants to look next (for a sleeping event loop).
    pub(crate) fn wake_at(&self) -> Instant {
        self.watch.as_ref().map_or(Instant::now() + Duration::from_secs(1), |w| w.next_check())
    }

    /// Reloads the scene when its file changed (checked at most twice a second).
    pub(crate) fn check_file(&mut self, gpu: &Gpu) -> Option<Reloaded> {
        if self.watch.as_mut().is_some_and(|w| w.changed()) {
            log::info!("{} changed on disk: reloading", self.scene.name);
            return self.reload(gpu);
        }
        None
    }

    /// Reads the scene again; on any error the running scene stays and the error is shown.
    pub(crate) fn reload(&mut self, gpu: &Gpu) -> Option<Reloaded> {
        let loaded = match LoadedScene::load(self.scene.path.as_deref(), gpu) {
            Ok(l) => l,
            Err(e) => {
                log::error!("{e:#}");
                self.error = Some(format!("reload failed, the previous scene keeps running: {e:#}"));
                return None;
            }
        };
        let options = setup::sim_options(&loaded.scene);
        let state = match loaded.state_with(self.controls.solver) {
            Ok(s) => s,
            Err(e) => {
                log::error!("{e:#}");
                self.error = Some(format!("reload failed, the previous scene keeps running: {e:#}"));
                return None;
            }
        };
        match Sim::new(gpu, &state, options.clone()) {
            Ok(sim) => {
                drop(state);
                let (old, new) = (self.driver.sim().params(), sim.params());
                let domain_changed = new.domain_min != old.domain_min || new.domain_max != old.domain_max;
                self.driver.replace_sim(sim);
                self.controls.options = options;
                log::info!("{}: reloaded, {} fluid + {} boundary particles", loaded.name, loaded.state.n_fluid, loaded.state.n_boundary());
                if let Some(w) = &mut self.watch {
                    w.set_meshes(&loaded.scene.meshes.files);
                }
                self.scene = loaded;
                self.error = None;
                self.resume_after_blow_up();
                Some(Reloaded { domain_changed })
            }
            Err(e) => {
                log::error!("{}: {e}", loaded.name);
                self.error = Some(format!("reload failed, the previous scene keeps running: {}: {e}", loaded.name));
                None
            }
        }
    }

    /// Back to the scene's initial state, with the options in force and the solver chosen in the
    /// panel; true when it was reset.
    pub fn reset(&mut self, gpu: &Gpu) -> bool {
        let state = match self.scene.state_with(self.controls.solver) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(format!("reset failed: {e:#}"));
                return false;
            }
        };
        match Sim::new(gpu, &state, self.controls.options.clone()) {
            Ok(sim) => {
                self.driver.replace_sim(sim);
                self.error = None;
                self.resume_after_blow_up();
                true
            }
            Err(e) => {
                self.error = Some(format!("reset failed: {e}"));
                false
            }
        }
    }

    /// Pauses because the simulation blew up; `what` is shown until a reset or reload.
    pub(crate) fn pause_for_blow_up(&mut self, what: String) {
        self.controls.paused = true;
        self.paused_by_blow_up = true;
        self.error = Some(what);
    }

    /// A fresh simulation replaced the one that blew up: it runs again.
    fn resume_after_blow_up(&mut self) {
        if std::mem::take(&mut self.paused_by_blow_up) {
            self.controls.paused = false;
        }
    }

    /// Runs one step on the next frame (while paused).
    pub(crate) fn step_once(&mut self) {
        self.step_once = true;
    }

    /// Applies the panel's simulation options between frames (particles are kept).
    pub(crate) fn apply_options(&mut self) {
        if self.controls.options == *self.driver.sim().options() {
            return;
        }
        if let Err(e) = self.driver.sim_mut().set_options(self.controls.options.clone()) {
            log::warn!("options not applied: {e}");
            self.error = Some(format!("options not applied: {e}"));
            self.controls.options = self.driver.sim().options().clone();
        }
    }

    /// Records the next frame's steps (none while paused, unless one was asked for); returns
    /// how many.
    pub(crate) fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder, stops: &mut dyn crate::app::driver::StepStops) -> u32 {
        let steps = if self.controls.paused { std::mem::take(&mut self.step_once) as u32 } else { self.controls.substeps };
        self.driver.record_frame_stopping(encoder, steps, stops);
        steps
    }
}
