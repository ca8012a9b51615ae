//! The line of text typed at the bottom: what it is for, and what to restore on cancel.

/// A text prompt at the bottom line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// What the text is for.
    pub kind: PromptKind,
    /// The text typed so far.
    pub input: String,
    /// The selected op and the prompt's query before it opened (restored on cancel).
    pub(super) before_op: Option<crate::graph::OpId>,
    pub(super) before_text: Option<String>,
}

impl Prompt {
    /// A prompt for `kind` starting with `input`.
    pub fn new(kind: PromptKind, input: String) -> Prompt {
        Prompt {
            kind,
            input,
            before_op: None,
            before_text: None,
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
}
