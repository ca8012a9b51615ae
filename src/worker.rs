//! Work on threads of its own that never vanishes silently: a panic is caught and turned into
//! its message, for the caller to report (a run ends as failed, a load as an error, a worker
//! of the explorer as the answer to whoever asked for it).

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

/// Why work handed to [`Threads::start`] gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// It panicked, with this message: a bug in skope.
    Panicked(String),
    /// No thread could be started for it (the system's reason).
    NoThread(String),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Panicked(message) => write!(
                f,
                "it failed unexpectedly ({message}; a bug in skope, please report it)"
            ),
            Stopped::NoThread(why) => write!(f, "no thread could be started for it ({why})"),
        }
    }
}

/// Where work runs: on a thread of its own while an event loop waits for its answer, or on the
/// spot where none does (an explorer driven message by message, as tests drive it). The one
/// policy for both: the answer always comes, to whoever asked — the result, or why there is
/// none ([`Stopped`]); it is never dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threads {
    /// A thread of its own.
    Own,
    /// On the caller's thread, before `start` returns.
    OnTheSpot,
}

impl Threads {
    /// Runs `work` (on a thread named `name` when [`Threads::Own`]); `answer` gets what it
    /// returns, or why it stopped.
    pub fn start<R: 'static>(
        self,
        name: &str,
        work: impl FnOnce() -> R + Send + 'static,
        answer: impl FnOnce(Result<R, Stopped>) + Send + 'static,
    ) {
        if self == Threads::OnTheSpot {
            return answer(guarded(work).map_err(Stopped::Panicked));
        }
        // The answer is kept where both the thread and a failed start can reach it.
        let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(answer)));
        let on_thread = std::sync::Arc::clone(&slot);
        let started = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let result = guarded(work).map_err(Stopped::Panicked);
                if let Some(answer) = take(&on_thread) {
                    answer(result);
                }
            });
        if let Err(why) = started
            && let Some(answer) = take(&slot)
        {
            answer(Err(Stopped::NoThread(why.to_string())));
        }
    }
}

/// What `slot` holds, taken out (also from a lock a panic poisoned: the answer must come).
fn take<T>(slot: &std::sync::Mutex<Option<T>>) -> Option<T> {
    match slot.lock() {
        Ok(mut held) => held.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_panic_on_a_worker_reaches_the_caller_with_its_message() {
        let (tx, rx) = channel();
        let n = 7;
        Threads::Own.start(
            "test-worker",
            move || -> u8 { panic!("worker broke on {n}") },
            move |answer: Result<u8, Stopped>| tx.send(answer.err()).unwrap_or_default(),
        );
        let message = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .ok()
            .flatten();
        assert_eq!(
            message,
            Some(Stopped::Panicked("worker broke on 7".to_string()))
        );
    }

    #[test]
    fn on_the_spot_the_answer_comes_before_start_returns() {
        let answer = std::sync::Arc::new(std::sync::Mutex::new(None));
        let kept = std::sync::Arc::clone(&answer);
        Threads::OnTheSpot.start(
            "test-spot",
            || 6 * 7,
            move |result| *kept.lock().unwrap() = Some(result),
        );
        assert_eq!(*answer.lock().unwrap(), Some(Ok(42)));
        let kept = std::sync::Arc::clone(&answer);
        Threads::OnTheSpot.start(
            "test-spot",
            || -> i32 { panic!("spot") },
            move |result| *kept.lock().unwrap() = Some(result),
        );
        assert_eq!(
            *answer.lock().unwrap(),
            Some(Err(Stopped::Panicked("spot".to_string())))
        );
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
