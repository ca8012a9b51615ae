//! A worker thread that serves only the newest request: when several wait, the older ones are
//! dropped unseen. For work whose answer an edit or a scroll makes stale before it is done
//! (highlighting, comparing profiles against the plan).

use std::sync::mpsc::{Sender, channel};

/// Starts a thread named `name` that calls `serve` on the newest waiting request, until
/// `serve` returns false or every sender is gone. When `serve` panics, the thread ends and
/// `failed` gets why (also when the thread could not start: then requests go nowhere).
pub fn spawn<R: Send + 'static>(
    name: &str,
    mut serve: impl FnMut(R) -> bool + Send + 'static,
    failed: impl FnOnce(String) + Send + 'static,
) -> Sender<R> {
    let (requests, queue) = channel::<R>();
    let serving = move || {
        while let Ok(mut request) = queue.recv() {
            while let Ok(newer) = queue.try_recv() {
                request = newer;
            }
            if !serve(request) {
                return;
            }
        }
    };
    crate::worker::Threads::Own.start(name, serving, |answer| {
        if let Err(stopped) = answer {
            failed(stopped.to_string());
        }
    });
    requests
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    #[test]
    fn only_the_newest_waiting_request_is_served() {
        let (done, results) = channel();
        let requests = spawn(
            "test-latest",
            move |n: u32| {
                std::thread::sleep(Duration::from_millis(50));
                done.send(n).is_ok()
            },
            |_| {},
        );
        for n in 0..10 {
            requests.send(n).unwrap();
        }
        // The first may start before the rest arrive; the last is always served, the ones
        // between are skipped.
        let mut served = Vec::new();
        while served.last() != Some(&9) {
            served.push(results.recv_timeout(Duration::from_secs(10)).unwrap());
        }
        assert!(served.len() <= 2, "{served:?}");
    }

    #[test]
    fn a_panicking_worker_says_why_instead_of_going_quiet() {
        let (told, failures) = channel();
        let requests = spawn(
            "test-latest-panic",
            |n: u32| -> bool { panic!("request {n} broke it") },
            move |message| told.send(message).unwrap_or_default(),
        );
        requests.send(3).unwrap();
        let message = failures.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(
            message,
            "it failed unexpectedly (request 3 broke it; a bug in skope, please report it)"
        );
    }
}
