//! The line of text typed at the bottom: what it is for, and what to restore on cancel.

/// A text prompt at the bottom line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What the text is for.
    pub kind: PromptKind,
    /// The text typed so far.
    pub input: String,
    /// True while `input` is what the prompt offered, untouched: the first key typed (or
    /// pasted) replaces it, a deleting key clears it, enter takes it as it is.
    pub offered: bool,
    /// The selected op and the prompt's query before it opened (restored on cancel).
    pub(super) before_op: Option<crate::graph::OpId>,
    pub(super) before_text: Option<String>,
}

impl Prompt {
    /// A prompt for `kind` offering `input` (a default or a guess): typing replaces it.
    pub fn new(kind: PromptKind, input: String) -> Prompt {
        Prompt {
            kind,
            offered: !input.is_empty(),
            input,
            before_op: None,
            before_text: None,
        }
    }

    /// Takes what was offered out of the way of a typed or pasted text.
    pub fn typing(&mut self) {
        if std::mem::take(&mut self.offered) {
            self.input.clear();
        }
    }
}

/// What a prompt's text is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptKind {
    /// A search: the selection jumps to matches.
    Search,
    /// A search of the code view's lines, from the line the cursor was on.
    CodeSearch(usize),
    /// A filter: the list keeps only matches.
    Filter,
    /// The name of a new scope of these ops.
    NewScope(Vec<crate::graph::OpId>),
    /// A new name for this scope.
    Rename(String),
    /// The profiles to compare: one directory holding both, or base and new.
    Profiles,
    /// A static kernel compile's outputs directory.
    Statics,
    /// A profile made elsewhere, to add to the run ledger.
    AddRun,
    /// A dump or plan file to compare the fusion with.
    CompareWith,
    /// Another file to save the plan to (then quit, when `quit`).
    SaveTo {
        /// Quit once saved.
        quit: bool,
    },
}
