//! What a view's own key handler answers once it has changed its own state: a message,
//! closing the view, or an action only the app can carry out (it needs the
//! explorer, the prompt or another view), such as showing a row's ops in the graph. (The plan's
//! `outcome` is another thing: what becomes of a graph's build.)

use super::action::Action;
use crate::edit::Edit;

/// The answer of a view's key handler.
#[derive(Debug)]
pub enum Reply {
    /// Nothing more to do.
    Done,
    /// Close the view: the graph's panes again.
    Close,
    /// Open the view of this name (`tui::view`) over the panes.
    Open(&'static str),
    /// Tell the user something went as asked.
    Info(String),
    /// Tell the user what could not be done.
    Problem(String),
    /// Apply this edit to the plan (an undo step of its own, journaled).
    Apply(Edit),
    /// The app carries out this action (after the view changed what it owns).
    Pass(Action),
    /// Show this in the graph's panes, closing the views over them.
    GoTo(Target),
}

/// Where a drill-down from a view's row goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The ops of this type.
    Type(String),
    /// The op of this name.
    Op(String),
}
