//! SIGINT and SIGTERM as a request to stop: a run ends between batches of steps with its files
//! written, the app leaves its event loop and writes its `--report`, instead of the process
//! being killed mid-write; a second signal ends the process at once, and so does a first one
//! while the command still loads its scene (nothing is written yet). `main` installs the handler
//! (for every command that writes files); library users and tests do not.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

struct Flags {
    int: Arc<AtomicBool>,
    term: Arc<AtomicBool>,
    /// Either signal: a second one of any kind ends the process at once.
    any: Arc<AtomicBool>,
    /// Set until the command has loaded what it runs ([`loaded`]): a signal then ends the
    /// process at once, since nothing is written yet and a long load has no batch to stop after.
    loading: Arc<AtomicBool>,
}

static FLAGS: OnceLock<Flags> = OnceLock::new();

/// Turns SIGINT and SIGTERM into [`stop_requested`] (once per process).
pub fn stop_on_signals() {
    FLAGS.get_or_init(|| {
        let flags = Flags {
            int: Arc::new(AtomicBool::new(false)),
            term: Arc::new(AtomicBool::new(false)),
            any: Arc::new(AtomicBool::new(false)),
            loading: Arc::new(AtomicBool::new(true)),
        };
        for (signal, flag) in [(signal_hook::consts::SIGINT, &flags.int), (signal_hook::consts::SIGTERM, &flags.term)] {
            // a second signal, while the first is being honoured, ends the process at once (128 +
            // the signal's number, as if it had not been caught)
            let registered = signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, Arc::clone(&flags.loading))
                .and_then(|_| signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, Arc::clone(&flags.any)))
                .and_then(|_| signal_hook::flag::register(signal, Arc::clone(flag)))
                .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&flags.any)));
            if let Err(e) = registered {
                log::warn!("cannot catch signal {signal}: {e}");
            }
        }
        flags
    });
}

/// The command has loaded its scene and is about to write: from now on a first signal asks it
/// to stop between batches ([`stop_requested`]) instead of ending the process.
pub(crate) fn loaded() {
    if let Some(f) = FLAGS.get() {
        f.loading.store(false, Ordering::SeqCst);
    }
}

/// Whether a signal asked the process to stop.
pub fn stop_requested() -> bool {
    FLAGS.get().is_some_and(|f| f.int.load(Ordering::SeqCst) || f.term.load(Ordering::SeqCst))
}

/// The exit code after a stop: 143 for SIGTERM, 130 for SIGINT (128 + the signal's number).
pub fn exit_code() -> u8 {
    match FLAGS.get() {
        Some(f) if f.term.load(Ordering::SeqCst) => 143,
        _ => 130,
    }
}
