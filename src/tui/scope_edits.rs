//! The scope edits' keys on the explorer: selecting a range of ops, and turning the edit keys
//! into what the app then carries out — an edit to apply, a picker or a question, a name to
//! type — or opening the options editor. Undo, redo and saving touch the journal and the plan
//! file, which the app owns.

use super::action::Action;
use super::dialog::{Answer, Confirm, Dialog, NEW_SCOPE_CHOICE, PickFor, Picker};
use super::explorer::{Explorer, Pane};
use super::keymap::Keymap;
use super::options_editor::OptionsEditor;
use super::prompt::{Prompt, PromptKind};
use super::reply::Reply;
use crate::edit::Edit;
use crate::fusion::plan::BreakReason;
use crate::graph::OpId;
use crate::planner::OptionsModel;

impl Explorer {
    /// An edit key (the help's "Edit scopes" group, but undo, redo and save).
    pub fn edit_action(&mut self, action: Action, keymap: &Keymap) -> Reply {
        let ops = self.edit_ops();
        let scope = self.current_scope();
        let need_scope = || {
            Reply::Problem(
                "select a scope in the tree, or an op of a scope in the list".to_string(),
            )
        };
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
            Action::AssignScope => return Reply::Ask(self.assign_picker(ops)),
            Action::NewScope => return Reply::Type(self.new_scope_prompt(ops)),
            Action::RemoveFromScope => return Reply::Apply(Edit::Remove { ops }),
            Action::DoNotFuse => return Reply::Apply(Edit::DoNotFuse { ops }),
            Action::RenameScope => {
                let Some(scope) = scope else {
                    return need_scope();
                };
                return Reply::Type(Prompt::new(PromptKind::Rename(scope.clone()), scope));
            }
            Action::MergeScope => {
                let Some(scope) = scope else {
                    return need_scope();
                };
                let choices: Vec<String> = self
                    .ws
                    .plan()
                    .scopes
                    .iter()
                    .map(|s| s.name.clone())
                    .filter(|s| *s != scope)
                    .collect();
                if choices.is_empty() {
                    return Reply::Problem(format!(
                        "{scope} is the only scope: nothing to merge into"
                    ));
                }
                return Reply::Ask(Dialog::Pick(Picker {
                    purpose: PickFor::Merge(scope),
                    choices,
                    filter: String::new(),
                    selected: 0,
                }));
            }
            Action::DeleteScope => {
                let Some(scope) = scope else {
                    return need_scope();
                };
                return Reply::Ask(Dialog::Confirm(Confirm {
                    question: format!(
                        "Delete scope {scope}? Its ops stay, outside any scope ({} undoes it).",
                        keymap.hint(Action::Undo)
                    ),
                    answers: vec![
                        ('y', "delete".into(), Answer::Delete(scope)),
                        ('n', "keep".into(), Answer::Cancel),
                    ],
                }));
            }
            // Options set for the whole graph as flags: the flags view edits those instead.
            Action::EditOptions if self.ws.options_model() == OptionsModel::GraphFlags => {
                return Reply::Open("flags");
            }
            // Options given once for the graph: said, not edited.
            Action::EditOptions => {
                if let OptionsModel::PerGraph(why) = self.ws.options_model() {
                    return Reply::Problem(why.to_string());
                }
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
                self.options = Some(OptionsEditor::new(&scope, &text, self.editor_sessions));
            }
            _ => {}
        }
        Reply::Done
    }

    /// The prompt for the name of a new scope of `ops`, with a free name typed in.
    pub fn new_scope_prompt(&self, ops: Vec<OpId>) -> Prompt {
        let name = (1..)
            .map(|k| format!("scope_{k}"))
            .find(|n| !self.ws.plan().scopes.iter().any(|s| s.name == *n))
            .unwrap_or_default();
        Prompt::new(PromptKind::NewScope(ops), name)
    }

    /// The picker of scopes to put `ops` into (a new one first), starting on the scope the
    /// first op's break says to add it to, if it says so.
    fn assign_picker(&self, ops: Vec<OpId>) -> Dialog {
        let fix_scope = ops.first().and_then(|&id| {
            self.ws.index().breaks_of(id).find_map(|r| {
                let b = crate::fusion::index::break_at(self.ws.plan(), r);
                matches!(b.reason, BreakReason::Unscoped | BreakReason::OtherScope(_))
                    .then(|| self.ws.plan().scopes[r.scope as usize].name.clone())
            })
        });
        let mut choices = vec![NEW_SCOPE_CHOICE.to_string()];
        choices.extend(self.ws.plan().scopes.iter().map(|s| s.name.clone()));
        let selected = fix_scope
            .and_then(|s| choices.iter().position(|c| *c == s))
            .unwrap_or(0);
        Dialog::Pick(Picker {
            purpose: PickFor::Assign(ops),
            choices,
            filter: String::new(),
            selected,
        })
    }
}
