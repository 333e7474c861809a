//! Run folders: the lock a run holds on its folder, clearing (or refusing) an earlier run's
//! files, resuming a run from its checkpoint, and reading a finished run back.

use super::outputs::LEAKS_FILE;
use super::settings::{Outcome, RunSettings};
use super::{EXPORT_FOLDER, RunMeta, RunResult, Start};
use crate::checkpoint::Checkpoint;
use crate::probes::ProfileBin;
use crate::scene::Scene;
use anyhow::Context;
use std::path::Path;

/// The lock file of a run folder, held (an exclusive lock) while a run writes into it.
pub const LOCK_FILE: &str = "rillet.lock";

/// Locks a run folder (creating it) for this process, or refuses it when another run holds it.
/// The lock lasts while the returned file is open.
pub fn lock_run_folder(dir: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "{} is in use: another rillet run is writing into it (it holds {}); wait for it to end, or choose another folder",
            dir.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
    }
}

/// What a run writes into its folder.
const RUN_FILES: [&str; 6] = ["run.json", "probes.csv", "profile.csv", LEAKS_FILE, crate::checkpoint::FILE, EXPORT_FOLDER];

/// A fresh run's folder: refused when it holds an earlier run's files, unless `overwrite`, which
/// removes them first (only those: anything else in the folder stays).
pub(crate) fn clear_or_refuse(dir: &Path, overwrite: bool) -> anyhow::Result<()> {
    let found: Vec<&str> = RUN_FILES.into_iter().filter(|f| dir.join(f).exists()).collect();
    if found.is_empty() {
        return Ok(());
    }
    if !overwrite {
        let what = std::fs::read_to_string(dir.join("run.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<RunMeta>(&t).ok())
            .map(|m| format!(" (a run of {}, {} of {} steps, {})", m.scene, m.steps_done, m.steps, m.outcome))
            .unwrap_or_default();
        anyhow::bail!(
            "{} holds an earlier run{what}: {}. Continue it with `rillet run --resume {}`, choose another --out, or add --overwrite to clear those files first",
            dir.display(),
            found.join(", "),
            dir.display()
        );
    }
    for f in found {
        let path = dir.join(f);
        let removed = if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.with_context(|| format!("--overwrite: cannot remove {}", path.display()))?;
    }
    Ok(())
}

/// A run folder read to be continued.
pub(crate) struct Resumed {
    pub scene: Scene,
    /// The scene as the run named it (run.json's `scene`).
    pub label: String,
    pub settings: RunSettings,
    pub start: Start,
}

/// Reads a run folder to resume: its run.json (scene, settings), the scene (its hash must be
/// the checkpoint's) and the checkpoint.
pub(crate) fn resume_from(dir: &Path, steps: Option<u64>, quiet: bool) -> anyhow::Result<Resumed> {
    let meta_path = dir.join("run.json");
    let text = std::fs::read_to_string(&meta_path)
        .with_context(|| format!("cannot read {} (is {} a run folder?)", meta_path.display(), dir.display()))?;
    let meta: RunMeta = serde_json::from_str(&text).with_context(|| format!("{}: not a run.json of this program", meta_path.display()))?;
    let scene_path = if meta.scene_file.is_empty() { meta.scene.clone() } else { meta.scene_file.clone() };
    let scene = Scene::load(Path::new(&scene_path))?;
    let checkpoint_path = dir.join(crate::checkpoint::FILE);
    let checkpoint = Checkpoint::load(&checkpoint_path)?;
    if let Outcome::Stopped(why) = &meta.outcome {
        eprintln!("note: the run ended with: {why}; resuming from its last checkpoint, at step {}", checkpoint.step);
    }
    check_scene_hash(&checkpoint, &checkpoint_path, Path::new(&scene_path), &scene, &meta.scene, dir)?;
    let steps = steps.unwrap_or(meta.steps);
    anyhow::ensure!(
        steps >= checkpoint.step,
        "--steps {steps}: the checkpoint is at step {} already (allowed: {} or more)",
        checkpoint.step,
        checkpoint.step
    );
    let settings = RunSettings { steps, progress: !quiet, ..meta.run_settings() };
    let scene_file = std::fs::canonicalize(&scene_path).map_or(scene_path, |p| p.display().to_string());
    Ok(Resumed { scene, label: meta.scene, settings, start: Start::Resume { checkpoint: Box::new(checkpoint), scene_file } })
}

/// The checkpoint must be of the scene file and meshes as they are now
/// ([`crate::scene::hash::scene_hash`]). A checkpoint written before that hash carries the
/// older one, over the scene as parsed ([`crate::scene::hash::legacy_scene_hash`]): it is
/// accepted when that one matches, with a note; anything else is refused.
fn check_scene_hash(
    c: &Checkpoint,
    checkpoint_path: &Path,
    scene_path: &Path,
    scene: &Scene,
    label: &str,
    dir: &Path,
) -> anyhow::Result<()> {
    if c.scene_hash == crate::scene::hash::scene_hash(scene_path, scene)? {
        return Ok(());
    }
    if c.scene_hash == crate::scene::hash::legacy_scene_hash(scene) {
        eprintln!(
            "note: {} was written by an older rillet, whose scene hash was taken over the scene as parsed, not its file's bytes; it matches {label}, so the run continues (its next checkpoint carries the new hash)",
            checkpoint_path.display()
        );
        return Ok(());
    }
    let e = crate::checkpoint::CheckpointError::OtherScene { file: checkpoint_path.display().to_string(), scene: label.to_string() };
    Err(anyhow::anyhow!(
        "{e} (or start the run anew: `rillet run {label} --out {} --overwrite`; a checkpoint written by an older rillet from a scene whose file was edited since is refused too)",
        dir.display()
    ))
}

/// The `.pvd` entries of a resumed export up to step `to` (an entry's step is read from its file
/// name, `particles-SSSSSSSS.vtu`, its time from its `timestep`: an adaptive dt's times are no
/// multiple of the step); none when there is no collection. A collection that is not XML is an
/// error naming the file.
pub(crate) fn read_series(pvd: &Path, which: crate::export::Series, to: u64) -> anyhow::Result<Vec<(f64, String)>> {
    let prefix = format!("{}-", which.name());
    let Ok(text) = std::fs::read_to_string(pvd) else { return Ok(vec![]) };
    let doc = roxmltree::Document::parse(&text).with_context(|| format!("{}: not a ParaView collection", pvd.display()))?;
    let mut series = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("DataSet")) {
        let (Some(file), Some(time)) = (node.attribute("file"), node.attribute("timestep")) else { continue };
        let time: f64 = time.parse().with_context(|| format!("{}: DataSet {file}: timestep `{time}` is not a number", pvd.display()))?;
        let Some(step) = file.strip_prefix(prefix.as_str()).and_then(|f| f.strip_suffix(".vtu")).and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        if step <= to {
            series.push((time, file.to_string()));
        }
    }
    Ok(series)
}

/// Reads back a run folder written by [`super::run_scene`].
pub fn read_run(dir: &Path) -> anyhow::Result<RunResult> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
    };
    let meta: RunMeta = serde_json::from_str(&read("run.json")?).with_context(|| format!("{}: bad run.json", dir.display()))?;
    let probes = dir.join("probes.csv");
    let (rows, bad) = crate::probes::columns::read(&read("probes.csv")?).map_err(|e| anyhow::anyhow!("{}: {e}", probes.display()))?;
    if let Some(bad) = bad {
        anyhow::bail!("{}: bad line {}: {}", probes.display(), bad.line, bad.why);
    }
    let profile = read("profile.csv")?
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| ProfileBin::parse(l).with_context(|| format!("{}/profile.csv: bad line {}", dir.display(), i + 2)))
        .collect::<anyhow::Result<_>>()?;
    let sensors = match meta.sensors.is_empty() && meta.forces.is_empty() && meta.flows.is_empty() {
        true => vec![],
        false => {
            let path = dir.join(crate::probes::sensors::FILE);
            let columns = crate::probes::sensors::Columns {
                pressure: meta.sensors.iter().map(|s| s.name.clone()).collect(),
                forces: meta.forces.iter().map(|s| s.name.clone()).collect(),
                flows: meta.flows.iter().map(|s| s.name.clone()).collect(),
            };
            crate::probes::sensors::read(&read(crate::probes::sensors::FILE)?, &columns)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
    };
    Ok(RunResult { meta, rows, sensors, profile, stopped: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checkpoint is of the scene file's bytes (an edited comment makes another scene), or of
    /// the hash older versions wrote, accepted with a note; anything else is refused with the
    /// command that starts the run anew.
    #[test]
    fn a_checkpoint_is_of_the_scene_files_bytes_or_of_the_older_hash() {
        let dir = std::env::temp_dir().join(format!("rillet-scene-hash-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.ron");
        let text = "(domain: (min: (0, 0, 0), max: (1, 1, 1)), fluid: [(min: (0, 0, 0), max: (0.2, 0.2, 0.2))], physics: (spacing: 0.02))";
        std::fs::write(&path, text).unwrap();
        let scene = Scene::load(&path).unwrap();
        let ck = |scene_hash| Checkpoint {
            scene_hash,
            step: 0,
            time: 0.0,
            n_fluid: 0,
            wall_clamps: 0,
            non_finite: 0,
            flow: [0; 3],
            pos_mass: vec![],
            vel_rho: vec![],
            step_state: None,
        };
        let check = |c: &Checkpoint| check_scene_hash(c, &dir.join("checkpoint.bin"), &path, &scene, "s.ron", &dir);
        let hash = crate::scene::hash::scene_hash(&path, &scene).unwrap();
        assert!(check(&ck(hash)).is_ok());
        assert!(check(&ck(crate::scene::hash::legacy_scene_hash(&scene))).is_ok(), "a checkpoint of an older version");
        let err = check(&ck(hash ^ 1)).unwrap_err().to_string();
        assert!(err.contains("checkpoint is of another scene") && err.contains("--overwrite"), "{err}");
        std::fs::write(&path, format!("{text}\n// edited\n")).unwrap();
        assert_ne!(crate::scene::hash::scene_hash(&path, &scene).unwrap(), hash, "an edited file is another scene");
        std::fs::remove_file(&path).unwrap();
        assert!(crate::scene::hash::scene_hash(&path, &scene).unwrap_err().to_string().contains("s.ron"), "an error names the file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A resumed export keeps its frames' times as written (an adaptive dt's are no multiple of
    /// the step), up to the checkpoint's step.
    #[test]
    fn the_export_series_keeps_its_times() {
        let dir = std::env::temp_dir().join(format!("rillet-series-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pvd = dir.join("particles.pvd");
        let frames = vec![
            (0.0, "particles-00000000.vtu".to_string()),
            (0.0123456789, "particles-00000050.vtu".to_string()),
            (0.031, "particles-00000100.vtu".to_string()),
        ];
        std::fs::write(&pvd, crate::export::pvd(&frames)).unwrap();
        assert_eq!(read_series(&pvd, crate::export::Series::Particles, 50).unwrap(), frames[..2]);
        assert_eq!(read_series(&dir.join("none.pvd"), crate::export::Series::Particles, 50).unwrap(), vec![]);
        // a damaged collection is an error naming it
        std::fs::write(&pvd, "<VTKFile><Collection><DataSet timestep=\"0\" file=\"particles-00000000.vtu\"/>").unwrap();
        assert!(read_series(&pvd, crate::export::Series::Particles, 50).unwrap_err().to_string().contains("particles.pvd"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
