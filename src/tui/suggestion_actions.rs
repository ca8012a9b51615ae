//! The suggestions view's actions: open it (suggestions made on a worker for the current plan,
//! with the profiles read when there are, and made again after every edit), move, sort, list the selected one's ops, and accept one or
//! all of them as ordinary scope edits (undoable, journaled).

use super::action::Action;
use super::app::{App, Screen};
use super::layout;
use super::suggestions::{SuggestRequest, Suggested, SuggestionsView};
use super::view::ViewSpec;
use crate::edit::Edit;
use crate::suggest::{Suggestions, Versus};
use std::collections::HashSet;

/// The suggested scopes: candidates the planner fuses whole, ranked by what they save.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "suggestions",
    title: "In the suggestions view",
    opens_with: Some(Action::Suggestions),
    keys: &[
        (Action::Down, "next suggestion"),
        (Action::Up, "previous suggestion"),
        (Action::AcceptSuggestion, "make it a scope"),
        (
            Action::AcceptAllSuggestions,
            "make all that fit scopes (one undo step each)",
        ),
        (Action::Activate, "its ops (toggle)"),
        (Action::Sort, "order by saving, ops, graph order"),
        (Action::Suggestions, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open: App::open_suggestions,
    handle: App::suggestions_action,
    scroll: App::suggestions_scroll,
    draw: |app, frame, area| {
        if let Some(view) = app.explorer().and_then(|ex| ex.suggestions.as_ref()) {
            super::views::suggestions::render(app, view, frame, area);
        }
    },
};

impl App {
    /// Opens the suggestions view, asking for suggestions when the plan or the profiles
    /// changed since they were made.
    fn open_suggestions(&mut self) {
        let request = self.suggestions_request();
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if ex.suggestions.is_none() {
            // Until the first answer comes, the view says they are being made.
            let empty = Suggestions {
                ranked_by_boundaries: None,
                templates: Vec::new(),
                list: Vec::new(),
                coefficients: crate::suggest::saving::DEFAULTS,
                fitted: false,
                measured: false,
            };
            let mut view = SuggestionsView::new(empty, None, u64::MAX, None);
            view.stale = true;
            ex.suggestions = Some(view);
        }
        self.show_view("suggestions");
        if let Some(request) = request {
            self.ask_for_suggestions(request);
        }
    }

    /// A request for suggestions for the current plan and profiles, unless the view has them.
    fn suggestions_request(&self) -> Option<SuggestRequest> {
        let Screen::Explorer(ex) = &self.screen else {
            return None;
        };
        let profiles = ex.profiles.as_ref().map(|p| p.shared_pair());
        let request = SuggestRequest {
            version: ex.ws.version(),
            cx: ex.ws.shared_context(),
            plan: ex.ws.plan().clone(),
            profiles,
        };
        let current = ex
            .suggestions
            .as_ref()
            .is_some_and(|v| v.plan_version == request.version && v.profile == request.profile());
        (!current).then_some(request)
    }

    /// Sends `request` to the suggesting worker; without an event loop, serves it here.
    fn ask_for_suggestions(&mut self, request: SuggestRequest) {
        if let Screen::Explorer(ex) = &mut self.screen
            && let Some(view) = &mut ex.suggestions
        {
            view.stale = true;
        }
        let request = match self.workers.events.clone() {
            Some(events) => {
                let worker = self.workers.suggester.get_or_insert_with(|| {
                    super::suggestions::spawn_suggester(
                        super::msg::suggestions_sink(&events),
                        super::msg::failure_sink(&events, "making suggestions"),
                    )
                });
                match worker.send(request) {
                    Ok(()) => return,
                    Err(failed) => failed.0,
                }
            }
            None => request,
        };
        self.suggested(request.serve(&mut None));
    }

    /// Takes the worker's suggestions when they are for the current plan and profiles.
    pub(super) fn suggested(&mut self, answer: Suggested) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let profile = ex
            .profiles
            .as_ref()
            .map(|p| p.shared_pair().base.files.root.clone());
        if answer.version != ex.ws.version() || answer.profile != profile {
            return;
        }
        let Some(view) = &mut ex.suggestions else {
            return;
        };
        match answer.result {
            Ok((suggestions, fit)) => {
                view.replace(suggestions, fit, answer.version, answer.profile);
            }
            Err(problem) => {
                view.stale = false;
                self.problem(format!("cannot make suggestions: {problem}"));
            }
        }
    }

    /// An action with the suggestions view on top.
    fn suggestions_action(&mut self, action: Action) {
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
            Action::Sort => view.next_sort(),
            Action::Activate => view.expanded = !view.expanded,
            Action::Back => self.up = None,
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
    fn suggestions_scroll(&mut self, rows: isize) {
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
                options: s.options.clone(),
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
        if let Some(request) = self.suggestions_request() {
            self.ask_for_suggestions(request);
        }
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
