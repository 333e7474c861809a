//! Watches the scene file, and the mesh files it names, for changes by polling their
//! modification times (twice a second, from the frame loop: no thread, no platform watcher, and
//! it keeps working when an editor replaces a file instead of writing it in place).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

const EVERY: Duration = Duration::from_millis(500);

pub(crate) struct SceneWatch {
    /// The scene file first, then its meshes, with the modification time last seen.
    files: Vec<(PathBuf, Option<SystemTime>)>,
    last_check: Instant,
}

impl SceneWatch {
    pub(crate) fn new(path: &Path) -> Self {
        Self { files: vec![(path.to_path_buf(), modified(path))], last_check: Instant::now() }
    }

    /// Watches these mesh files too (replacing the ones watched before), from their present
    /// state.
    pub(crate) fn set_meshes(&mut self, meshes: &[PathBuf]) {
        self.files.truncate(1);
        self.files.extend(meshes.iter().map(|m| (m.clone(), modified(m))));
    }

    /// True once per change of a file's modification time (checked at most twice a second).
    pub(crate) fn changed(&mut self) -> bool {
        if self.last_check.elapsed() < EVERY {
            return false;
        }
        self.last_check = Instant::now();
        let mut changed = false;
        for (path, seen) in &mut self.files {
            let now = modified(path);
            if now.is_some() && now != *seen {
                *seen = now;
                changed = true;
            }
        }
        changed
    }

    /// When the next check is due (for the event loop's wake-up time).
    pub(crate) fn next_check(&self) -> Instant {
        self.last_check + EVERY
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_a_rewrite() {
        let dir = std::env::temp_dir().join(format!("rillet-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("scene.ron");
        std::fs::write(&file, "a").unwrap();
        let mut w = SceneWatch::new(&file);
        w.last_check -= EVERY;
        assert!(!w.changed());
        let later = SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options().write(true).open(&file).unwrap().set_modified(later).unwrap();
        w.last_check -= EVERY;
        assert!(w.changed());
        w.last_check -= EVERY;
        assert!(!w.changed());
        // a mesh the scene names
        let mesh = dir.join("bowl.obj");
        std::fs::write(&mesh, "v 0 0 0").unwrap();
        w.set_meshes(std::slice::from_ref(&mesh));
        w.last_check -= EVERY;
        assert!(!w.changed());
        std::fs::File::options().write(true).open(&mesh).unwrap().set_modified(later + Duration::from_secs(5)).unwrap();
        w.last_check -= EVERY;
        assert!(w.changed(), "a change of a mesh file is seen");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
