//! SIGINT and SIGTERM as a request to stop: a run ends between batches of steps with its files
//! written, the app leaves its event loop and writes its `--report`, instead of the process
//! being killed mid-write. The command line installs the handler; library users and tests do not.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

/// Turns SIGINT and SIGTERM into [`stop_requested`] (once per process; a second call warns).
pub fn stop_on_signals() {
    if let Err(e) = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst)) {
        log::warn!("cannot catch SIGINT/SIGTERM: {e}");
    }
}

/// Whether a signal asked the process to stop.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
