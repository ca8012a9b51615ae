//! The modal questions of the explorer: a picker (scopes, recipes, ranks, neighbours) and
//! one-key questions with their answers.

use crate::graph::OpId;
use std::path::PathBuf;

/// A modal question over the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dialog {
    /// Pick from a list: a scope, a compile recipe or a rank.
    Pick(Picker),
    /// Answer a question with one key.
    Confirm(Confirm),
}

/// What the pick is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickFor {
    /// Put these ops into it (or into a new scope).
    Assign(Vec<OpId>),
    /// Merge this scope into it.
    Merge(String),
    /// Run the picked recipe (one of these).
    Recipe(Vec<crate::compile::recipe::Recipe>),
    /// Read these profiles for the picked rank.
    Rank(super::profiles::ProfilesRequest),
    /// Go to the picked op: one next to the selected one, with the words that name it.
    Neighbour(Vec<(OpId, String)>),
    /// Read the last messages of the bottom line in full (each choice's whole text).
    Message(Vec<String>),
    /// Show the picked step of the profiles: each choice's words with its step label (none:
    /// every step's median).
    Step(Vec<(String, Option<String>)>),
}

/// A list to pick from (scopes, recipes or ranks), narrowed by typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picker {
    /// What the pick is for.
    pub purpose: PickFor,
    /// Every choice.
    pub choices: Vec<String>,
    /// The text typed to narrow the choices.
    pub filter: String,
    /// The selected row among the shown choices.
    pub selected: usize,
}

/// The first choice of the assign picker: a new scope instead of an existing one.
pub const NEW_SCOPE_CHOICE: &str = "+ new scope…";

impl Picker {
    /// The choices the filter keeps; "new scope" is first while nothing is typed, last
    /// after the matches once something is.
    pub fn shown(&self) -> Vec<&str> {
        let filter = self.filter.to_lowercase();
        let new = self.choices.iter().any(|c| c == NEW_SCOPE_CHOICE);
        let mut out: Vec<&str> = self
            .choices
            .iter()
            .map(String::as_str)
            .filter(|c| *c != NEW_SCOPE_CHOICE && c.to_lowercase().contains(&filter))
            .collect();
        if new {
            if filter.is_empty() {
                out.insert(0, NEW_SCOPE_CHOICE);
            } else {
                out.push(NEW_SCOPE_CHOICE);
            }
        }
        out
    }
}

/// What a question's answer does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Delete the scope.
    Delete(String),
    /// Save, then quit.
    SaveAndQuit,
    /// Quit without saving (the edits are lost).
    QuitWithoutSaving,
    /// Replace the plan file although this session did not open it; then quit when asked.
    Overwrite {
        /// Quit after saving.
        quit: bool,
    },
    /// Open the plan file saved for the dump.
    OpenSaved {
        /// The file.
        path: PathBuf,
        /// True when an earlier skope saved it (then `w` saves elsewhere).
        earlier: bool,
    },
    /// Keep the dump's own scopes; the saved plan file stays as it is.
    KeepDumpScopes,
    /// Replay the journal an unfinished session left.
    Recover,
    /// Ask for another file to save the plan to (then quit, when `quit`).
    SaveTo {
        /// Quit once saved.
        quit: bool,
    },
    /// Delete that journal.
    Discard,
    /// Stop the selected run.
    StopRun,
    /// Leave the runs view; the run goes on.
    LeaveRuns,
    /// Quit, stopping the runs still going.
    QuitStoppingRuns,
    /// Load the dump again (it changed on disk).
    ReloadDump,
    /// Start the run although the dump changed on disk.
    RunAnyway(crate::compile::recipe::Recipe),
    /// Make this edit (asked first, so the user sees what it plans to).
    Apply(crate::edit::Edit),
    /// Do nothing.
    Cancel,
}

/// A question with one-key answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// The question, one or more lines.
    pub question: String,
    /// The answers: key, words, what it does.
    pub answers: Vec<(char, String, Answer)>,
}
