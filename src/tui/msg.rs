//! The messages the event loop feeds the explorer: terminal events, and what its workers
//! report — every piece of work done for the app and every event of a worker's stream (the
//! loader's stages, the highlighter's lines, a run's output, the suggester's answers) as one
//! kind of message, [`Msg::Answered`], which carries what it does on the app. The workers do
//! not know this type: each reports through a [`Sink`] of its own events, which [`events`]
//! maps into a message — so the workers sit below the state that receives them.

use super::sink::Sink;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent};
use std::any::Any;
use std::sync::Arc;
use std::time::Duration;

/// A sink that wraps each item into a message for `tx`.
pub fn sink<T: 'static>(
    tx: &std::sync::mpsc::Sender<Msg>,
    wrap: impl Fn(T) -> Msg + Send + Sync + 'static,
) -> Sink<T> {
    let tx = tx.clone();
    Arc::new(move |item| tx.send(wrap(item)).is_ok())
}

/// A worker's panic as a message saying which `work` stopped.
pub fn failure_sink(tx: &std::sync::mpsc::Sender<Msg>, work: &'static str) -> Sink<String> {
    sink(tx, move |message| Msg::WorkerFailed { work, message })
}

/// The events of a worker as messages for `tx` (each event type says, where the app is
/// declared, what it does on the app: `From<event> for Msg`).
pub fn events<T: 'static>(tx: &std::sync::mpsc::Sender<Msg>) -> Sink<T>
where
    Msg: From<T>,
{
    sink(tx, Msg::from)
}

/// The highlighter, its results and its failure, for `tx`.
pub fn highlighter(tx: &std::sync::mpsc::Sender<Msg>) -> super::highlight::Highlighter {
    super::highlight::Highlighter::spawn(events(tx), failure_sink(tx, "highlighting the code"))
}

/// The answer of work done for the app (`App::work`): what it does with its result, run on the
/// app when the message arrives. It is held here as `Any` because the app's type sits above
/// this module; only the app makes and opens it, so it always holds what the app expects.
pub struct Answered(Box<dyn Any + Send>);

impl Answered {
    /// Holds `then`.
    pub fn new<T: Any + Send>(then: T) -> Answered {
        Answered(Box::new(then))
    }

    /// What it holds, if it is a `T`.
    pub fn take<T: Any>(self) -> Option<T> {
        self.0.downcast().ok().map(|then| *then)
    }
}

impl std::fmt::Debug for Answered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answered")
    }
}

/// Everything the event loop feeds the app.
#[derive(Debug)]
pub enum Msg {
    /// A key press.
    Key(KeyEvent),
    /// A mouse event.
    Mouse(MouseEvent),
    /// Text pasted into the terminal.
    Paste(String),
    /// The terminal has a new size.
    Resize(u16, u16),
    /// Time passed (drives the spinner and the elapsed time while loading).
    Tick(Duration),
    /// A worker of the explorer stopped on a panic: which work it did, and the message.
    WorkerFailed {
        /// What the worker did, in words ("highlighting the code").
        work: &'static str,
        /// The panic's message.
        message: String,
    },
    /// Work done for the app answered, or a worker's event came: what it does (see
    /// [`Answered`]).
    Answered(Answered),
    /// The terminal's input ended: nothing more can come.
    Stop,
    /// A signal came: SIGTERM, SIGHUP, SIGINT or SIGQUIT stop skope (it exits with 128 + the
    /// signal), SIGTSTP suspends it, SIGCONT (it was stopped and continues) takes the
    /// terminal again.
    Signal(i32),
}

impl Msg {
    /// A press of `code` without modifiers (capital letters carry Shift, as terminals send
    /// them).
    pub fn key(code: KeyCode) -> Msg {
        let modifiers = match code {
            KeyCode::Char(c) if c.is_uppercase() => KeyModifiers::SHIFT,
            _ => KeyModifiers::NONE,
        };
        Msg::Key(KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: ratatui::crossterm::event::KeyEventState::NONE,
        })
    }
}
