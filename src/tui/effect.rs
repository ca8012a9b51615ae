//! What the state asks of the world outside it: the terminal's clipboard, suspending the
//! process, ending the loop. Handlers queue these; only the event loop carries them out, so
//! the state stays testable without a terminal.

/// One thing for the event loop to do after the messages it is handling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Write this text to the terminal (an OSC 52 clipboard sequence).
    Copy(String),
    /// Give the terminal back, stop the process, and take the terminal again on resume.
    Suspend,
    /// Take the terminal again and draw everything anew (the process was stopped and continued:
    /// the shell may have reset the terminal meanwhile).
    Retake,
    /// End the event loop (after the effects queued before it; none after it is carried out).
    Quit,
    /// End the event loop because this signal asked: skope exits with 128 + it.
    Stopped(i32),
}

/// The effects queued since the event loop last took them, in order.
#[derive(Debug, Default)]
pub struct Effects(Vec<Effect>);

impl Effects {
    /// Queues `effect`.
    pub fn push(&mut self, effect: Effect) {
        self.0.push(effect);
    }

    /// True when `effect` is queued (what tests look at).
    pub fn contains(&self, effect: &Effect) -> bool {
        self.0.contains(effect)
    }

    /// The queued effects, in order; the queue is left empty.
    pub fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.0)
    }
}
