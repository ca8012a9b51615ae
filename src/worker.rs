//! Work on threads of its own that never vanishes silently: a panic is caught and turned into
//! its message, for the caller to report (a run ends as failed, a load as an error, a worker
//! of the explorer as a problem on the status line).

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `work`; a panic comes back as its message.
pub fn guarded<R>(work: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| panic_message(payload.as_ref()))
}

/// The message a panic was raised with.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Starts `work` on a thread named `name`; `answer` gets what it returns, or the message it
/// panicked with (on the same thread). False when the thread could not be started. The one way
/// the explorer starts a worker (a worker that serves requests, newest first, is built on it:
/// `tui::latest`).
pub fn spawn<R>(
    name: &str,
    work: impl FnOnce() -> R + Send + 'static,
    answer: impl FnOnce(Result<R, String>) + Send + 'static,
) -> bool {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || answer(guarded(work)))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_panic_on_a_worker_reaches_the_caller_with_its_message() {
        let (tx, rx) = channel();
        let n = 7;
        assert!(spawn(
            "test-worker",
            move || -> u8 { panic!("worker broke on {n}") },
            move |answer: Result<u8, String>| {
                tx.send(answer.err().unwrap_or_default())
                    .unwrap_or_default()
            },
        ));
        let message = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .unwrap_or_default();
        assert_eq!(message, "worker broke on 7");
    }

    #[test]
    fn work_that_does_not_panic_gives_its_result() {
        assert_eq!(guarded(|| 4 + 1), Ok(5));
        assert_eq!(
            guarded(|| -> u8 { panic!("static") }),
            Err("static".to_string())
        );
    }
}
