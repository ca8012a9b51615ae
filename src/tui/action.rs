//! What a user can ask the explorer to do. Keys map to these through the keymap; the
//! config file names them in snake_case; the help overlay and the key bar describe them.

/// A user command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Move the selection up one row.
    Up,
    /// Move the selection down one row.
    Down,
    /// Move the selection up one page.
    PageUp,
    /// Move the selection down one page.
    PageDown,
    /// Go to the first row.
    Top,
    /// Go to the last row.
    Bottom,
    /// In the scopes tree: close the node, or go to its parent; elsewhere, focus the pane
    /// to the left.
    Collapse,
    /// In the scopes tree: open the node; in the op list, focus the details.
    Expand,
    /// In the scopes tree: open or close the node, or show its op in the list; in the list and
    /// the details, switch between them.
    Toggle,
    /// Focus the next pane.
    NextPane,
    /// Focus the previous pane.
    PrevPane,
    /// Jump to the next break.
    NextBreak,
    /// Jump to the previous break.
    PrevBreak,
    /// Jump to the first op of the next segment.
    NextSegment,
    /// Jump to the first op of the previous segment.
    PrevSegment,
    /// Show or hide the generated entry code of the selected op's segment.
    CodeView,
    /// Copy the code shown to the terminal's clipboard (OSC 52).
    CopyCode,
    /// Write the code shown (and its JSON sidecar) to a file.
    WriteCode,
    /// Give the code view (or, without it, the details) the whole body of the screen, or give
    /// the panes back.
    Zoom,
    /// Show the code held against the entry source the compiler wrote, or the code again.
    CompareCode,
    /// Show or hide the suggested scopes.
    Suggestions,
    /// In the suggestions view: make the selected suggestion a scope.
    AcceptSuggestion,
    /// In the suggestions view: make every suggestion a scope that does not overlap one made
    /// before it, best first.
    AcceptAllSuggestions,
    /// Show or hide the static kernels view (asks for the compile's outputs the first time).
    StaticKernels,
    /// Go back to where the last jump (to a neighbour, a break, a segment) came from.
    JumpBack,
    /// Pick a recipe and run it.
    Compile,
    /// Show or hide the runs view (the history and each run's log).
    Runs,
    /// In the runs view: stop the selected run (its whole process group).
    CancelRun,
    /// Show or hide the profile comparison (asks for the profiles the first time).
    Profiles,
    /// Load other profiles to compare.
    LoadProfiles,
    /// In the profile view: sort by Δ, by total, by name.
    SortProfiles,
    /// Type a search (name, type, scope, reason).
    Search,
    /// Go to the next search match.
    SearchNext,
    /// Go to the previous search match.
    SearchPrev,
    /// Type a filter: the op list keeps only matching ops.
    Filter,
    /// Show only ops that break a scope, or all ops again.
    BreaksOnly,
    /// Drop the filter and the breaks-only view.
    ClearFilter,
    /// Start or stop selecting a range of ops in the list.
    VisualSelect,
    /// Extend the selected range up one row.
    ExtendUp,
    /// Extend the selected range down one row.
    ExtendDown,
    /// Put the selected ops into a scope (picked from a list).
    AssignScope,
    /// Make a new scope of the selected ops.
    NewScope,
    /// Take the selected ops out of their scope.
    RemoveFromScope,
    /// Keep the selected ops out of fusion (`super_kernel(None)`).
    DoNotFuse,
    /// Rename the scope.
    RenameScope,
    /// Merge the scope into another.
    MergeScope,
    /// Delete the scope (its ops stay, outside any scope).
    DeleteScope,
    /// Edit the scope's options.
    EditOptions,
    /// Undo the last edit.
    Undo,
    /// Redo the last undone edit.
    Redo,
    /// Save the scopes to the plan file.
    Save,
    /// Show or hide the help overlay.
    Help,
    /// List the last messages of the bottom line in full.
    Messages,
    /// List the plan's findings; pick one to go to its op.
    Findings,
    /// Close the overlay or prompt, or clear the search.
    Back,
    /// Hand the terminal back to the shell and stop (resume with `fg`).
    Suspend,
    /// Leave skope.
    Quit,
}

/// Groups of actions, in the order the help overlay shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Moving the selection.
    Move,
    /// Panes and the scopes tree.
    Panes,
    /// Walking the plan.
    Plan,
    /// Search and filter.
    Find,
    /// Editing scopes.
    Edit,
    /// Compile and run jobs.
    Run,
    /// Profiles with and without SuperKernel.
    Profile,
    /// Everything else.
    General,
}

impl Group {
    /// Every group, in display order.
    pub const ALL: [Group; 8] = [
        Group::Move,
        Group::Panes,
        Group::Plan,
        Group::Find,
        Group::Edit,
        Group::Run,
        Group::Profile,
        Group::General,
    ];

    /// The group's heading.
    pub fn title(self) -> &'static str {
        match self {
            Group::Move => "Move",
            Group::Panes => "Panes and tree",
            Group::Plan => "Plan",
            Group::Find => "Search and filter",
            Group::Edit => "Edit scopes",
            Group::Run => "Compile and run",
            Group::Profile => "Profiles",
            Group::General => "General",
        }
    }
}

impl Action {
    /// Every action, in help order.
    pub const ALL: [Action; 57] = [
        Action::Up,
        Action::Down,
        Action::PageUp,
        Action::PageDown,
        Action::Top,
        Action::Bottom,
        Action::NextPane,
        Action::PrevPane,
        Action::Collapse,
        Action::Expand,
        Action::Toggle,
        Action::NextBreak,
        Action::PrevBreak,
        Action::NextSegment,
        Action::PrevSegment,
        Action::JumpBack,
        Action::CodeView,
        Action::Zoom,
        Action::CompareCode,
        Action::Suggestions,
        Action::AcceptSuggestion,
        Action::AcceptAllSuggestions,
        Action::StaticKernels,
        Action::CopyCode,
        Action::WriteCode,
        Action::Search,
        Action::SearchNext,
        Action::SearchPrev,
        Action::Filter,
        Action::BreaksOnly,
        Action::ClearFilter,
        Action::VisualSelect,
        Action::ExtendUp,
        Action::ExtendDown,
        Action::AssignScope,
        Action::NewScope,
        Action::RemoveFromScope,
        Action::DoNotFuse,
        Action::RenameScope,
        Action::MergeScope,
        Action::DeleteScope,
        Action::EditOptions,
        Action::Undo,
        Action::Redo,
        Action::Save,
        Action::Compile,
        Action::Runs,
        Action::CancelRun,
        Action::Profiles,
        Action::LoadProfiles,
        Action::SortProfiles,
        Action::Help,
        Action::Messages,
        Action::Findings,
        Action::Back,
        Action::Suspend,
        Action::Quit,
    ];

    /// The name used in the config file.
    pub fn name(self) -> &'static str {
        match self {
            Action::Up => "up",
            Action::Down => "down",
            Action::PageUp => "page_up",
            Action::PageDown => "page_down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::Collapse => "collapse",
            Action::Expand => "expand",
            Action::Toggle => "toggle",
            Action::NextPane => "next_pane",
            Action::PrevPane => "prev_pane",
            Action::NextBreak => "next_break",
            Action::PrevBreak => "prev_break",
            Action::NextSegment => "next_segment",
            Action::PrevSegment => "prev_segment",
            Action::CodeView => "code_view",
            Action::CopyCode => "copy_code",
            Action::WriteCode => "write_code",
            Action::Zoom => "zoom",
            Action::CompareCode => "compare_code",
            Action::Suggestions => "suggestions",
            Action::AcceptSuggestion => "accept_suggestion",
            Action::AcceptAllSuggestions => "accept_all_suggestions",
            Action::StaticKernels => "static_kernels",
            Action::JumpBack => "jump_back",
            Action::Compile => "compile",
            Action::Runs => "runs",
            Action::CancelRun => "cancel_run",
            Action::Profiles => "profiles",
            Action::LoadProfiles => "load_profiles",
            Action::SortProfiles => "sort_profiles",
            Action::Search => "search",
            Action::SearchNext => "search_next",
            Action::SearchPrev => "search_prev",
            Action::Filter => "filter",
            Action::BreaksOnly => "breaks_only",
            Action::ClearFilter => "clear_filter",
            Action::VisualSelect => "visual_select",
            Action::ExtendUp => "extend_up",
            Action::ExtendDown => "extend_down",
            Action::AssignScope => "assign_scope",
            Action::NewScope => "new_scope",
            Action::RemoveFromScope => "remove_from_scope",
            Action::DoNotFuse => "do_not_fuse",
            Action::RenameScope => "rename_scope",
            Action::MergeScope => "merge_scope",
            Action::DeleteScope => "delete_scope",
            Action::EditOptions => "edit_options",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Save => "save",
            Action::Help => "help",
            Action::Messages => "messages",
            Action::Findings => "findings",
            Action::Back => "back",
            Action::Suspend => "suspend",
            Action::Quit => "quit",
        }
    }

    /// What it does, for the help overlay.
    pub fn description(self) -> &'static str {
        match self {
            Action::Up => "move up",
            Action::Down => "move down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "first row",
            Action::Bottom => "last row",
            Action::Collapse => "close node / go to parent",
            Action::Expand => "open node",
            Action::Toggle => "open or close node / show op",
            Action::NextPane => "next pane",
            Action::PrevPane => "previous pane",
            Action::NextBreak => "next break",
            Action::PrevBreak => "previous break",
            Action::NextSegment => "next segment",
            Action::PrevSegment => "previous segment",
            Action::CodeView => "code of the segment (toggle)",
            Action::CopyCode => "copy the code to the clipboard",
            Action::WriteCode => "write the code to <dump>.codegen/",
            Action::Zoom => "code or details over the body",
            Action::CompareCode => "code vs the compiler's source (toggle)",
            Action::Suggestions => "suggested scopes (toggle)",
            Action::AcceptSuggestion => "accept the suggestion",
            Action::AcceptAllSuggestions => "accept all that fit",
            Action::StaticKernels => "static kernels view (toggle)",
            Action::JumpBack => "back from the last jump",
            Action::Compile => "run a recipe (pick one)",
            Action::Runs => "runs and their logs (toggle)",
            Action::CancelRun => "runs view: stop the selected run",
            Action::Profiles => "profile comparison (toggle)",
            Action::LoadProfiles => "load profiles to compare",
            Action::SortProfiles => "profile view: sort by Δ, total, name",
            Action::Search => "search name, type, scope, reason",
            Action::SearchNext => "next match",
            Action::SearchPrev => "previous match",
            Action::Filter => "filter the op list",
            Action::BreaksOnly => "show only breaks (toggle)",
            Action::ClearFilter => "clear filter and breaks-only",
            Action::VisualSelect => "select a range of ops (toggle)",
            Action::ExtendUp => "extend the range up",
            Action::ExtendDown => "extend the range down",
            Action::AssignScope => "put the ops into a scope",
            Action::NewScope => "new scope of the ops",
            Action::RemoveFromScope => "take the ops out of their scope",
            Action::DoNotFuse => "keep the ops out of fusion",
            Action::RenameScope => "rename the scope",
            Action::MergeScope => "merge the scope into another",
            Action::DeleteScope => "delete the scope",
            Action::EditOptions => "edit the scope's options",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Save => "save the plan file",
            Action::Help => "this help",
            Action::Messages => "the last messages, in full",
            Action::Findings => "the findings; go to one",
            Action::Back => "close / cancel / clear search",
            Action::Suspend => "suspend to the shell (fg resumes)",
            Action::Quit => "quit",
        }
    }

    /// Its group in the help overlay.
    pub fn group(self) -> Group {
        match self {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => Group::Move,
            Action::NextPane
            | Action::PrevPane
            | Action::Collapse
            | Action::Expand
            | Action::Toggle => Group::Panes,
            Action::NextBreak
            | Action::PrevBreak
            | Action::NextSegment
            | Action::PrevSegment
            | Action::JumpBack
            | Action::CodeView
            | Action::Zoom
            | Action::CompareCode
            | Action::Suggestions
            | Action::AcceptSuggestion
            | Action::AcceptAllSuggestions
            | Action::StaticKernels
            | Action::CopyCode
            | Action::WriteCode => Group::Plan,
            Action::Search
            | Action::SearchNext
            | Action::SearchPrev
            | Action::Filter
            | Action::BreaksOnly
            | Action::ClearFilter => Group::Find,
            Action::VisualSelect
            | Action::ExtendUp
            | Action::ExtendDown
            | Action::AssignScope
            | Action::NewScope
            | Action::RemoveFromScope
            | Action::DoNotFuse
            | Action::RenameScope
            | Action::MergeScope
            | Action::DeleteScope
            | Action::EditOptions
            | Action::Undo
            | Action::Redo
            | Action::Save => Group::Edit,
            Action::Compile | Action::Runs | Action::CancelRun => Group::Run,
            Action::Profiles | Action::LoadProfiles | Action::SortProfiles => Group::Profile,
            Action::Help
            | Action::Messages
            | Action::Findings
            | Action::Back
            | Action::Suspend
            | Action::Quit => Group::General,
        }
    }

    /// True for an action that only works in the runs or the profile view; its keys may be
    /// the same as those of the scope edits, which do not work there.
    pub fn view_only(self) -> bool {
        matches!(
            self,
            Action::CancelRun
                | Action::SortProfiles
                | Action::AcceptSuggestion
                | Action::AcceptAllSuggestions
        )
    }

    /// The rows a movement moves a list selection by, `page` rows to a page; `None` for an
    /// action that is not a movement.
    pub fn rows(self, page: isize) -> Option<isize> {
        Some(match self {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN,
            Action::Bottom => isize::MAX,
            _ => return None,
        })
    }

    /// The action named `name` in the config file.
    pub fn from_name(name: &str) -> Option<Action> {
        match name {
            // Its name until the details could be zoomed too.
            "zoom_code" => Some(Action::Zoom),
            _ => Action::ALL.into_iter().find(|a| a.name() == name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for a in Action::ALL {
            assert_eq!(Action::from_name(a.name()), Some(a));
            assert!(!a.description().is_empty());
        }
        let mut names: Vec<&str> = Action::ALL.iter().map(|a| a.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Action::ALL.len());
    }
}
