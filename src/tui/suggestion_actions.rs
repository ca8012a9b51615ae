//! The suggestions view's actions: open it (suggestions made for the current plan, with the
//! profiles read when there are), move, sort, list the selected one's ops, and accept one or
//! all of them as ordinary scope edits (undoable, journaled).

use super::action::Action;
use super::app::{App, Screen};
use super::explorer::Explorer;
use super::layout;
use super::suggestions::SuggestionsView;
use crate::edit::Edit;
use crate::suggest::saving::Fit;
use crate::suggest::{Suggestions, Versus};
use std::collections::HashSet;

/// The suggestions for the explorer's current plan, with the profiles it has read.
fn make(ex: &Explorer) -> Result<(Suggestions, Option<Fit>), String> {
    let pair = ex.profiles.as_ref().map(|p| p.pair());
    let base = pair
        .map(|p| p.base.files.kernels.clone())
        .filter(|k| !k.is_empty());
    let new = pair.and_then(|p| p.new.kernels.as_ref());
    crate::suggest::rank(&ex.ws, base.as_deref(), new).map_err(|e| e.to_string())
}

impl App {
    /// Opens the suggestions view, made again when the plan changed since; or closes it.
    pub(super) fn toggle_suggestions(&mut self) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if let Some(view) = &mut ex.suggestions
            && view.open
        {
            view.open = false;
            return;
        }
        if let Err(problem) = refresh(ex) {
            self.problem(format!("cannot make suggestions: {problem}"));
            return;
        }
        if let Some(view) = &mut ex.suggestions {
            view.open = true;
        }
    }

    /// An action with the suggestions view on top.
    pub(super) fn suggestions_action(&mut self, action: Action) {
        let area = self.areas().body;
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let Some(view) = &mut ex.suggestions else {
            return;
        };
        let height = layout::suggestion_rows(area, view.expanded);
        if let Some(rows) = action.rows(height.max(1) as isize) {
            view.move_by(rows, height);
            return;
        }
        match action {
            Action::SortProfiles => view.next_sort(),
            Action::Toggle => view.expanded = !view.expanded,
            Action::Back | Action::Suggestions => view.open = false,
            Action::AcceptSuggestion => {
                let chosen: Vec<usize> =
                    view.order.get(view.selected).copied().into_iter().collect();
                self.accept(chosen);
            }
            Action::AcceptAllSuggestions => {
                let all: Vec<usize> = (0..view.suggestions.list.len()).collect();
                self.accept(all);
            }
            _ => {}
        }
    }

    /// Moves the suggestions view's selection by `rows` (the mouse wheel).
    pub(super) fn suggestions_scroll(&mut self, rows: isize) {
        let area = self.areas().body;
        if let Screen::Explorer(ex) = &mut self.screen
            && let Some(view) = &mut ex.suggestions
        {
            let height = layout::suggestion_rows(area, view.expanded);
            view.move_by(rows, height);
        }
    }

    /// Makes the suggestions `indices` (into the ranked list) scopes, best first, skipping
    /// any already fused as they are, any that would cost time, and any that overlaps one
    /// made before it; each is an undo step of its own.
    fn accept(&mut self, indices: Vec<usize>) {
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let Some(view) = &ex.suggestions else {
            return;
        };
        let single = indices.len() == 1;
        let mut taken: HashSet<crate::graph::OpId> = HashSet::new();
        let mut names: HashSet<String> = ex.ws.marks().scopes().iter().cloned().collect();
        let mut edits = Vec::new();
        let mut skipped = 0;
        for i in indices {
            let Some(s) = view.suggestions.list.get(i) else {
                continue;
            };
            let costs = s.saving_us.is_some_and(|us| us <= 0.0);
            if !single
                && (matches!(s.versus, Versus::Same(_))
                    || costs
                    || s.ops.iter().any(|id| taken.contains(id)))
            {
                skipped += 1;
                continue;
            }
            if single && matches!(s.versus, Versus::Same(_)) {
                self.problem(format!("{} is already fused as it is", s.name));
                return;
            }
            taken.extend(s.ops.iter().copied());
            let mut name = s.name.clone();
            let mut n = 2;
            while names.contains(&name) {
                name = format!("{}_{n}", s.name);
                n += 1;
            }
            names.insert(name.clone());
            edits.push(Edit::NewScope {
                ops: s.ops.clone(),
                scope: name,
                options: String::new(),
            });
        }
        if edits.is_empty() {
            self.problem(
                "no suggestion to accept: each is fused already, overlaps, or costs time"
                    .to_string(),
            );
            return;
        }
        let count = edits.len();
        for edit in edits {
            self.apply_edit(edit, None);
        }
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let _ = refresh(ex);
        if !single {
            self.info(format!(
                "made {count} suggested scope(s){}; u undoes them one at a time",
                if skipped > 0 {
                    format!(" ({skipped} skipped: fused already, overlapping, or costing time)")
                } else {
                    String::new()
                }
            ));
        }
    }
}

/// Makes the explorer's suggestions again when the plan or the profiles read changed since
/// they were made.
fn refresh(ex: &mut Explorer) -> Result<(), String> {
    let version = ex.ws.version();
    let profile = ex
        .profiles
        .as_ref()
        .map(|p| p.pair().base.files.root.clone());
    if ex
        .suggestions
        .as_ref()
        .is_some_and(|v| v.plan_version == version && v.profile == profile)
    {
        return Ok(());
    }
    let (suggestions, fit) = make(ex)?;
    match &mut ex.suggestions {
        Some(view) => view.replace(suggestions, fit, version, profile),
        None => ex.suggestions = Some(SuggestionsView::new(suggestions, fit, version, profile)),
    }
    Ok(())
}
