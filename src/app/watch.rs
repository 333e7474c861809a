//! Watches the scene file for changes by polling its modification time (twice a second, from
//! the frame loop: no thread, no platform watcher, and it keeps working when an editor replaces
//! the file instead of writing it in place).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

const EVERY: Duration = Duration::from_millis(500);

pub struct SceneWatch {
    path: PathBuf,
    seen: Option<SystemTime>,
    last_check: Instant,
}

impl SceneWatch {
    pub fn new(path: &Path) -> Self {
        Self { path: path.to_path_buf(), seen: modified(path), last_check: Instant::now() }
    }

    /// True once per change of the file's modification time (checked at most twice a second).
    pub fn changed(&mut self) -> bool {
        if self.last_check.elapsed() < EVERY {
            return false;
        }
        self.last_check = Instant::now();
        let now = modified(&self.path);
        if now.is_some() && now != self.seen {
            self.seen = now;
            return true;
        }
        false
    }

    /// When the next check is due (for the event loop's wake-up time).
    pub fn next_check(&self) -> Instant {
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
