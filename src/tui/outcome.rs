//! What a view's own key handler asks of the app once it has changed its own state: a message,
//! a question, closing, or an action only the app can carry out (it needs the explorer, the
//! prompt or another view).

use super::action::Action;
use super::dialog::Dialog;

/// The answer of a view's key handler.
#[derive(Debug)]
pub enum Outcome {
    /// Nothing more to do.
    Done,
    /// Tell the user something went as asked.
    Info(String),
    /// Tell the user what could not be done.
    Problem(String),
    /// Ask the user first.
    Ask(Dialog),
    /// The app carries out this action (after the view changed what it owns).
    Pass(Action),
}
