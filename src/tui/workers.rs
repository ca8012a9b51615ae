//! Where the explorer's work answers. Every piece of work the explorer starts (loading a dump,
//! reading profiles, preparing a run, building the ledger, …) goes through
//! [`crate::worker::Threads::start`] with the [`Threads`] this gives, and every answer reaches
//! the app as a [`Msg`] on the channel this gives — so one policy holds for all of them:
//!
//! - With the event loop of the terminal, work runs on a thread of its own and answers on the
//!   loop's channel.
//! - Without one (an app driven message by message, as tests drive it), work runs on the spot
//!   and answers on a queue of the app's own, which the app empties after each message it
//!   handles: the answer has arrived when the message that asked for it is handled. A run's
//!   output, which comes while the job runs, is handled with the messages after it.
//! - A panic, or a thread that cannot start, is the answer's error ([`crate::worker::Stopped`]),
//!   reported by whoever asked — never dropped. A serving worker (highlighting, suggestions)
//!   that stops is reported on the status line.

use super::highlight::Highlighter;
use super::msg::Msg;
use crate::worker::Threads;
use std::sync::mpsc::{Receiver, Sender, channel};

/// The channel workers answer on and the highlighter (a view's own serving worker, such as the
/// suggester, is kept with its state).
#[derive(Debug)]
pub struct Workers {
    /// The event loop's channel, when there is one.
    pub events: Option<Sender<Msg>>,
    /// The app's own queue, for answers when there is no event loop.
    own: (Sender<Msg>, Receiver<Msg>),
    /// The highlighting worker (without it the code stays plain).
    pub highlighter: Option<Highlighter>,
}

impl Default for Workers {
    fn default() -> Workers {
        Workers {
            events: None,
            own: channel(),
            highlighter: None,
        }
    }
}

impl Workers {
    /// Where work runs: on threads of its own with an event loop, on the spot without.
    pub fn threads(&self) -> Threads {
        if self.events.is_some() {
            Threads::Own
        } else {
            Threads::OnTheSpot
        }
    }

    /// The channel answers go to.
    pub fn sender(&self) -> Sender<Msg> {
        self.events.clone().unwrap_or_else(|| self.own.0.clone())
    }

    /// The next answer waiting in the app's own queue (none with an event loop: its answers
    /// come through the loop).
    pub fn waiting(&self) -> Option<Msg> {
        self.events
            .is_none()
            .then(|| self.own.1.try_recv().ok())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_an_event_loop_answers_wait_in_the_apps_own_queue() {
        let workers = Workers::default();
        assert_eq!(workers.threads(), Threads::OnTheSpot);
        workers.sender().send(Msg::Stop).unwrap_or_default();
        assert!(matches!(workers.waiting(), Some(Msg::Stop)));
        assert!(workers.waiting().is_none());
    }

    #[test]
    fn with_an_event_loop_answers_go_to_it() {
        let (tx, rx) = channel();
        let workers = Workers {
            events: Some(tx),
            ..Workers::default()
        };
        assert_eq!(workers.threads(), Threads::Own);
        workers.sender().send(Msg::Stop).unwrap_or_default();
        assert!(workers.waiting().is_none());
        assert!(matches!(rx.try_recv(), Ok(Msg::Stop)));
    }
}
