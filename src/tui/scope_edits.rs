//! The scope edits' keys on the explorer: selecting a range of ops, and turning the edit keys
//! into what the app then carries out — an edit to apply — or opening the options editor.
//! Undo, redo and saving touch the journal and the plan file, which the app owns; the edits
//! that first ask something (a name, a scope, a yes) ask it in `scope_questions`.

use super::action::Action;
use super::explorer::{Explorer, Pane};
use super::options_editor::OptionsEditor;
use super::reply::Reply;
use crate::edit::Edit;
use crate::planner::OptionsModel;

/// What an edit of a scope says when none is selected.
pub const NEED_SCOPE: &str = "select a scope in the tree, or an op of a scope in the list";

impl Explorer {
    /// An edit key (the help's "Edit scopes" group, but undo, redo, save and the edits that ask
    /// first).
    pub fn edit_action(&mut self, action: Action) -> Reply {
        let ops = self.edit_ops();
        let scope = self.current_scope();
        let need_scope = || Reply::Problem(NEED_SCOPE.to_string());
        match action {
            Action::VisualSelect => {
                self.focus = Pane::Ops;
                self.toggle_range();
            }
            Action::ExtendUp | Action::ExtendDown => {
                self.focus = Pane::Ops;
                self.start_range();
                self.move_cursor(if action == Action::ExtendUp { -1 } else { 1 });
            }
            Action::RemoveFromScope => return Reply::Apply(Edit::Remove { ops }),
            Action::DoNotFuse => return Reply::Apply(Edit::DoNotFuse { ops }),
            // Options set for the whole graph as flags: the flags view edits those instead.
            Action::EditOptions if self.ws.options_model() == OptionsModel::GraphFlags => {
                return Reply::Open("flags");
            }
            // Options given once for the graph are offered as presets by the app.
            Action::EditOptions => {
                let Some(scope) = scope else {
                    return need_scope();
                };
                let text = self
                    .ws
                    .plan()
                    .scopes
                    .iter()
                    .find(|s| s.name == scope)
                    .map(|s| s.options.clone())
                    .unwrap_or_default();
                self.editor_sessions += 1;
                let editor = OptionsEditor::new(&scope, &text, self.editor_sessions);
                self.options = Some(editor.for_target(self.ws.target().target));
            }
            _ => {}
        }
        Reply::Done
    }
}
