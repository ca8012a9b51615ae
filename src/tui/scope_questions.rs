//! The scope edits that ask first: a new scope's name, a new name, the scope to put ops into
//! or to merge into, and whether to delete a scope. Each answer goes back here and becomes the
//! edit.

use super::action::Action;
use super::app::{App, Prompt};
use super::dialog::{Answer, Confirm, Dialog, Pick, Picker};
use super::scope_edits::NEED_SCOPE;
use crate::edit::Edit;
use crate::fusion::plan::BreakReason;
use crate::graph::OpId;

impl App {
    /// Asks what an edit of `action` needs, when it is one that asks first; false otherwise.
    pub(super) fn ask_scope_edit(&mut self, action: Action) -> bool {
        let Some(ex) = self.explorer() else {
            return false;
        };
        let (ops, scope) = (ex.edit_ops(), ex.current_scope());
        match (action, scope) {
            (Action::AssignScope, _) => self.pick_scope_for(ops),
            (Action::NewScope, _) => self.ask_new_scope(ops),
            (Action::RenameScope, Some(scope)) => self.ask_rename(scope),
            (Action::MergeScope, Some(scope)) => self.pick_merge_into(scope),
            (Action::DeleteScope, Some(scope)) => self.ask_delete(scope),
            (Action::RenameScope | Action::MergeScope | Action::DeleteScope, None) => {
                self.problem(NEED_SCOPE.to_string())
            }
            _ => return false,
        }
        true
    }

    /// Asks for the name of a new scope of `ops`, with a free name typed in.
    fn ask_new_scope(&mut self, ops: Vec<OpId>) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let plan = ex.ws.plan();
        let name = (1..)
            .map(|k| format!("scope_{k}"))
            .find(|n| !plan.scopes.iter().any(|s| s.name == *n))
            .unwrap_or_default();
        let count = format!("  {} op(s)", ops.len());
        let prompt = Prompt::new(
            "new scope name: ",
            "enter create · esc cancel",
            name,
            move |app: &mut App, scope| {
                let options = String::new();
                app.apply_edit(
                    Edit::NewScope {
                        ops,
                        scope,
                        options,
                    },
                    None,
                );
            },
        );
        self.prompt = Some(prompt.counted(move |_| count.clone()));
    }

    /// Asks for a new name of `scope`, offering its name.
    fn ask_rename(&mut self, scope: String) {
        let was = format!("  (was {})", crate::text::sanitize(&scope));
        let prompt = Prompt::new(
            "rename to: ",
            "enter rename · esc cancel",
            scope.clone(),
            move |app: &mut App, to| app.apply_edit(Edit::Rename { scope, to }, None),
        );
        self.prompt = Some(prompt.counted(move |_| was.clone()));
    }

    /// Offers the scopes to put `ops` into (a new one first), starting on the scope the first
    /// op's break says to add it to, if it says so.
    fn pick_scope_for(&mut self, ops: Vec<OpId>) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let (plan, index) = (ex.ws.plan(), ex.ws.index());
        let fix_scope = ops.first().and_then(|&id| {
            index.breaks_of(id).find_map(|r| {
                let b = crate::fusion::index::break_at(plan, r);
                matches!(b.reason, BreakReason::Unscoped | BreakReason::OtherScope(_))
                    .then(|| plan.scopes[r.scope as usize].name.clone())
            })
        });
        let mut new = Pick::new("+ new scope…");
        new.pinned = true;
        let mut rows = vec![(new, None)];
        rows.extend(
            plan.scopes
                .iter()
                .map(|s| (Pick::new(s.name.clone()), Some(s.name.clone()))),
        );
        let title = format!(" Put {} op(s) into a scope ", ops.len());
        let picker = Picker::new(
            title,
            "no scope matches",
            rows,
            move |app: &mut App, into| match into {
                Some(scope) => app.apply_edit(Edit::Assign { ops, scope }, None),
                None => app.ask_new_scope(ops),
            },
        );
        self.dialog = Some(Dialog::Pick(picker.starting_on(fix_scope.as_deref())));
    }

    /// Offers the scopes `scope` can merge into.
    fn pick_merge_into(&mut self, scope: String) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let rows: Vec<(Pick, String)> = ex
            .ws
            .plan()
            .scopes
            .iter()
            .filter(|s| s.name != scope)
            .map(|s| (Pick::new(s.name.clone()), s.name.clone()))
            .collect();
        if rows.is_empty() {
            return self.problem(format!("{scope} is the only scope: nothing to merge into"));
        }
        let title = format!(" Merge scope {} into ", crate::text::sanitize(&scope));
        let picker = Picker::new(
            title,
            "no scope matches",
            rows,
            move |app: &mut App, into| app.apply_edit(Edit::Merge { scope, into }, None),
        );
        self.dialog = Some(Dialog::Pick(picker));
    }

    /// Asks whether to delete `scope`.
    fn ask_delete(&mut self, scope: String) {
        let question = format!(
            "Delete scope {scope}? Its ops stay, outside any scope ({} undoes it).",
            self.config.keymap.hint(Action::Undo)
        );
        let delete = move |app: &mut App| app.apply_edit(Edit::Delete { scope }, None);
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('y', "delete", delete),
                Answer::cancel('n', "keep"),
            ],
        )));
    }
}
