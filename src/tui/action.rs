//! What a user can ask the explorer to do, in one table: each action's name in the config
//! file, its default keys, what the help says it does, its group in the help, and whether
//! only the views give it a meaning. A view's own meaning of an action is a row of that view
//! ([`crate::tui::view::ViewSpec::keys`]). The keymap, the config file, the help overlay and the
//! key bar all read this table.

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
    /// Focus the next pane.
    NextPane,
    /// Focus the previous pane.
    PrevPane,
    /// In the scopes tree: close the node, or go to its parent; elsewhere, focus the pane
    /// to the left.
    Collapse,
    /// In the scopes tree: open the node; in the op list, focus the details.
    Expand,
    /// Act on the selected row: in the scopes tree open or close the node (or show its op in
    /// the list), in the list and the details switch between them; in a view, what its help
    /// says (go to a row's ops, the first error, list a suggestion's ops).
    Activate,
    /// Jump to the next break.
    NextBreak,
    /// Jump to the previous break.
    PrevBreak,
    /// Jump to the first op of the next segment.
    NextSegment,
    /// Jump to the first op of the previous segment.
    PrevSegment,
    /// Go back to where the last jump (to a neighbour, a break, a segment) came from.
    JumpBack,
    /// Show or hide the generated entry code of the selected op's segment.
    CodeView,
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
    /// Copy the code shown to the terminal's clipboard (OSC 52).
    CopyCode,
    /// Write the code shown (and its JSON sidecar) to a file.
    WriteCode,
    /// Compare the fusion with another dump's or plan file's (asks which); again: stop.
    CompareWith,
    /// Show or hide the dataflow view: the selected op's neighbourhood as a graph.
    Dataflow,
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
    /// Save the scopes to another file (asks where).
    SaveTo,
    /// Pick a recipe and run it.
    Compile,
    /// Show or hide the runs view (the history and each run's log).
    Runs,
    /// In the runs view: stop the selected run (its whole process group).
    CancelRun,
    /// Show or hide the run ledger (every recorded run compared with a baseline run).
    Ledger,
    /// In the ledger: make the selected run the baseline.
    SetBaseline,
    /// In the ledger: record a profile made elsewhere as a run (asks for its path).
    AddRun,
    /// Show or hide the profile comparison (asks for the profiles the first time).
    Profiles,
    /// Load other profiles to compare.
    LoadProfiles,
    /// In a view with sortable rows (profiles, suggestions): the next order.
    Sort,
    /// In the profile view: prune the selected SuperKernel (its scope deleted when it is the
    /// scope's only segment, else its ops kept out of fusion), planned first.
    Prune,
    /// In the profile view: show one step (or every step's median again).
    PickStep,
    /// In the profile view: show another rank of profiles that hold several.
    PickRank,
    /// Open the timeline of a step of the profiles.
    Timeline,
    /// Zoom the timeline in.
    ZoomIn,
    /// Zoom the timeline out.
    ZoomOut,
    /// Mark only longer gaps in the timeline.
    GapWider,
    /// Mark shorter gaps in the timeline.
    GapNarrower,
    /// Open the inside of the selected SuperKernel (its sk_prof records).
    Inside,
    /// Show or hide the help overlay.
    Help,
    /// List the last messages of the bottom line in full.
    Messages,
    /// The findings view: the plan's, the profiles' and the notes of reading.
    Findings,
    /// The command palette: every action available here, by name.
    Palette,
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

/// One action's row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The action.
    pub action: Action,
    /// Its name in the config file (snake_case).
    pub name: &'static str,
    /// Its default keys, in config-file notation.
    pub keys: &'static [&'static str],
    /// What it does, for the help.
    pub help: &'static str,
    /// Its group in the help.
    pub group: Group,
    /// True when only the views give it a meaning: its keys may be those of a scope edit,
    /// which does not work in a view.
    pub view_only: bool,
}

/// Every action, in the order of [`Action`]'s variants (so an action's row is at its index),
/// which is the order the help lists them in.
pub const TABLE: &[Spec] = &[
    Spec {
        action: Action::Up,
        name: "up",
        keys: &["k", "up"],
        help: "move up",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::Down,
        name: "down",
        keys: &["j", "down"],
        help: "move down",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::PageUp,
        name: "page_up",
        keys: &["pageup", "ctrl-b"],
        help: "page up",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::PageDown,
        name: "page_down",
        keys: &["pagedown", "ctrl-f"],
        help: "page down",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::Top,
        name: "top",
        keys: &["g", "home"],
        help: "first row",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::Bottom,
        name: "bottom",
        keys: &["G", "end"],
        help: "last row",
        group: Group::Move,
        view_only: false,
    },
    Spec {
        action: Action::NextPane,
        name: "next_pane",
        keys: &["tab"],
        help: "next pane",
        group: Group::Panes,
        view_only: false,
    },
    Spec {
        action: Action::PrevPane,
        name: "prev_pane",
        keys: &["backtab"],
        help: "previous pane",
        group: Group::Panes,
        view_only: false,
    },
    Spec {
        action: Action::Collapse,
        name: "collapse",
        keys: &["h", "left"],
        help: "close node / go to parent",
        group: Group::Panes,
        view_only: false,
    },
    Spec {
        action: Action::Expand,
        name: "expand",
        keys: &["l", "right"],
        help: "open node",
        group: Group::Panes,
        view_only: false,
    },
    Spec {
        action: Action::Activate,
        name: "activate",
        keys: &["enter", "space"],
        help: "open or close node / show op",
        group: Group::Panes,
        view_only: false,
    },
    Spec {
        action: Action::NextBreak,
        name: "next_break",
        keys: &["]"],
        help: "next break",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::PrevBreak,
        name: "prev_break",
        keys: &["["],
        help: "previous break",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::NextSegment,
        name: "next_segment",
        keys: &["}"],
        help: "next segment",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::PrevSegment,
        name: "prev_segment",
        keys: &["{"],
        help: "previous segment",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::JumpBack,
        name: "jump_back",
        keys: &["ctrl-o", "backspace"],
        help: "back from the last jump",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::CodeView,
        name: "code_view",
        keys: &["e"],
        help: "code of the segment (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::Zoom,
        name: "zoom",
        keys: &["z"],
        help: "code or details over the body",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::CompareCode,
        name: "compare_code",
        keys: &["="],
        help: "code vs the compiler's source (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::Suggestions,
        name: "suggestions",
        keys: &["S"],
        help: "suggested scopes (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::AcceptSuggestion,
        name: "accept_suggestion",
        keys: &["a"],
        help: "accept the suggestion",
        group: Group::Plan,
        view_only: true,
    },
    Spec {
        action: Action::AcceptAllSuggestions,
        name: "accept_all_suggestions",
        keys: &["A"],
        help: "accept all that fit",
        group: Group::Plan,
        view_only: true,
    },
    Spec {
        action: Action::StaticKernels,
        name: "static_kernels",
        keys: &["K"],
        help: "static kernels view (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::CopyCode,
        name: "copy_code",
        keys: &["y"],
        help: "copy the code to the clipboard",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::WriteCode,
        name: "write_code",
        keys: &["W"],
        help: "write the code to <dump>.codegen/",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::CompareWith,
        name: "compare_with",
        keys: &["O"],
        help: "compare with a dump or plan (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::Dataflow,
        name: "dataflow",
        keys: &["V"],
        help: "the op's dataflow as a graph (toggle)",
        group: Group::Plan,
        view_only: false,
    },
    Spec {
        action: Action::Search,
        name: "search",
        keys: &["/"],
        help: "search name, type, scope, reason",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::SearchNext,
        name: "search_next",
        keys: &["n"],
        help: "next match",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::SearchPrev,
        name: "search_prev",
        keys: &["N"],
        help: "previous match",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::Filter,
        name: "filter",
        keys: &["f"],
        help: "filter the op list",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::BreaksOnly,
        name: "breaks_only",
        keys: &["b"],
        help: "show only breaks (toggle)",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::ClearFilter,
        name: "clear_filter",
        keys: &["F"],
        help: "clear filter and breaks-only",
        group: Group::Find,
        view_only: false,
    },
    Spec {
        action: Action::VisualSelect,
        name: "visual_select",
        keys: &["v"],
        help: "select a range of ops (toggle)",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::ExtendUp,
        name: "extend_up",
        keys: &["shift-up"],
        help: "extend the range up",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::ExtendDown,
        name: "extend_down",
        keys: &["shift-down"],
        help: "extend the range down",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::AssignScope,
        name: "assign_scope",
        keys: &["a"],
        help: "put the ops into a scope",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::NewScope,
        name: "new_scope",
        keys: &["s"],
        help: "new scope of the ops",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::RemoveFromScope,
        name: "remove_from_scope",
        keys: &["x"],
        help: "take the ops out of their scope",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::DoNotFuse,
        name: "do_not_fuse",
        keys: &["d"],
        help: "keep the ops out of fusion",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::RenameScope,
        name: "rename_scope",
        keys: &["r"],
        help: "rename the scope",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::MergeScope,
        name: "merge_scope",
        keys: &["m"],
        help: "merge the scope into another",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::DeleteScope,
        name: "delete_scope",
        keys: &["D"],
        help: "delete the scope",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::EditOptions,
        name: "edit_options",
        keys: &["o"],
        help: "edit the scope's options",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::Undo,
        name: "undo",
        keys: &["u"],
        help: "undo",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::Redo,
        name: "redo",
        keys: &["ctrl-r"],
        help: "redo",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::Save,
        name: "save",
        keys: &["w"],
        help: "save the plan file",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::SaveTo,
        name: "save-to",
        keys: &["ctrl-s"],
        help: "save the plan elsewhere (asks where)",
        group: Group::Edit,
        view_only: false,
    },
    Spec {
        action: Action::Compile,
        name: "compile",
        keys: &["c"],
        help: "run a recipe (pick one)",
        group: Group::Run,
        view_only: false,
    },
    Spec {
        action: Action::Runs,
        name: "runs",
        keys: &["L"],
        help: "runs and their logs (toggle)",
        group: Group::Run,
        view_only: false,
    },
    Spec {
        action: Action::CancelRun,
        name: "cancel_run",
        keys: &["x"],
        help: "runs view: stop the selected run",
        group: Group::Run,
        view_only: true,
    },
    Spec {
        action: Action::Ledger,
        name: "ledger",
        keys: &["C"],
        help: "the run ledger (toggle)",
        group: Group::Run,
        view_only: false,
    },
    Spec {
        action: Action::SetBaseline,
        name: "set_baseline",
        keys: &["B"],
        help: "ledger: selected run as baseline",
        group: Group::Run,
        view_only: true,
    },
    Spec {
        action: Action::AddRun,
        name: "add_run",
        keys: &["o"],
        help: "ledger: add a run by its profile",
        group: Group::Run,
        view_only: true,
    },
    Spec {
        action: Action::Profiles,
        name: "profiles",
        keys: &["p"],
        help: "profile comparison (toggle)",
        group: Group::Profile,
        view_only: false,
    },
    Spec {
        action: Action::LoadProfiles,
        name: "load_profiles",
        keys: &["P"],
        help: "load profiles to compare",
        group: Group::Profile,
        view_only: false,
    },
    Spec {
        action: Action::Sort,
        name: "sort",
        keys: &["s"],
        help: "sort the view's rows",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::Prune,
        name: "prune",
        keys: &["d"],
        help: "prune the SuperKernel (planned first)",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::PickStep,
        name: "pick_step",
        keys: &["t"],
        help: "show one step of the profiles",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::PickRank,
        name: "pick_rank",
        keys: &["R"],
        help: "show another rank of the profiles",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::Timeline,
        name: "timeline",
        keys: &["T"],
        help: "timeline of a step of the profiles",
        group: Group::Profile,
        view_only: false,
    },
    Spec {
        action: Action::ZoomIn,
        name: "zoom_in",
        keys: &["+"],
        help: "zoom the timeline in",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::ZoomOut,
        name: "zoom_out",
        keys: &["-"],
        help: "zoom the timeline out",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::GapWider,
        name: "gap_wider",
        keys: &[">"],
        help: "mark only gaps twice as long",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::GapNarrower,
        name: "gap_narrower",
        keys: &["<"],
        help: "mark gaps half as long",
        group: Group::Profile,
        view_only: true,
    },
    Spec {
        action: Action::Inside,
        name: "inside",
        keys: &["I"],
        help: "inside the SuperKernel (sk_prof)",
        group: Group::Profile,
        view_only: false,
    },
    Spec {
        action: Action::Help,
        name: "help",
        keys: &["?", "f1"],
        help: "this help",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Messages,
        name: "messages",
        keys: &["M"],
        help: "the last messages, in full",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Findings,
        name: "findings",
        keys: &["!"],
        help: "the findings view; go to one",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Palette,
        name: "palette",
        keys: &[":", "ctrl-k"],
        help: "the command palette",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Back,
        name: "back",
        keys: &["esc"],
        help: "close / cancel / clear search",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Suspend,
        name: "suspend",
        keys: &["ctrl-z"],
        help: "suspend to the shell (fg resumes)",
        group: Group::General,
        view_only: false,
    },
    Spec {
        action: Action::Quit,
        name: "quit",
        keys: &["q", "ctrl-c"],
        help: "quit",
        group: Group::General,
        view_only: false,
    },
];

/// Names earlier releases gave actions, still read from config files: (old, action).
pub const OLD_NAMES: &[(&str, Action)] = &[
    ("toggle", Action::Activate),
    ("sort_profiles", Action::Sort),
    ("zoom_code", Action::Zoom),
];

impl Action {
    /// Every action, in table order.
    pub fn all() -> impl Iterator<Item = Action> {
        TABLE.iter().map(|s| s.action)
    }

    /// Its row of the table.
    pub fn spec(self) -> &'static Spec {
        &TABLE[self as usize]
    }

    /// Its name in the config file.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// What it does, for the help.
    pub fn description(self) -> &'static str {
        self.spec().help
    }

    /// Its group in the help overlay.
    pub fn group(self) -> Group {
        self.spec().group
    }

    /// True for an action that only the views give a meaning; its keys may be the same as
    /// those of the scope edits, which do not work there.
    pub fn view_only(self) -> bool {
        self.spec().view_only
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

    /// The action named `name` in the config file, and whether that is an old name of it.
    pub fn from_name(name: &str) -> Option<(Action, bool)> {
        if let Some(spec) = TABLE.iter().find(|s| s.name == name) {
            return Some((spec.action, false));
        }
        OLD_NAMES
            .iter()
            .find(|(old, _)| *old == name)
            .map(|(_, action)| (*action, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_variant_order_and_names_are_unique() {
        for (i, spec) in TABLE.iter().enumerate() {
            assert_eq!(spec.action as usize, i, "{}", spec.name);
            assert_eq!(Action::from_name(spec.name), Some((spec.action, false)));
            assert!(!spec.help.is_empty());
        }
        let mut names: Vec<&str> = TABLE.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TABLE.len());
        for (old, action) in OLD_NAMES {
            assert_eq!(Action::from_name(old), Some((*action, true)));
        }
    }
}
