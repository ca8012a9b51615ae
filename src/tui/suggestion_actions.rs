//! The suggestions view's actions: open it (suggestions made on a worker for the current plan,
//! with the profiles read when there are, and made again after every edit), move, sort, show
//! the selected one's code and ops, copy its code, and accept one or all of them as ordinary
//! scope edits (undoable, journaled): a template's scopes in every layer, and the scopes they
//! leave without a SuperKernel cleared, are one undo step.

use super::action::Action;
use super::app::{App, Screen};
use super::clipboard::osc52;
use super::effect::Effect;
use super::layout;
use super::suggestions::{SuggestRequest, Suggested, SuggestionsView};
use super::view::ViewSpec;
use crate::edit::Edit;
use crate::suggest::Suggestions;
use crate::suggest::accept::{Pick, emptied};
use crate::worker::Threads;
use std::collections::HashSet;
use std::sync::Arc;

/// The suggested scopes: candidates the planner fuses whole, ranked by what they save.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "suggestions",
    title: "In the suggestions view",
    opens_with: Some(Action::Suggestions),
    keys: &[
        (Action::Down, "next suggestion"),
        (Action::Up, "previous suggestion"),
        (
            Action::AcceptSuggestion,
            "make it scopes: a template one in every layer (one undo step)",
        ),
        (
            Action::AcceptAllSuggestions,
            "make all that fit scopes (one undo step each)",
        ),
        (Action::Activate, "its code, splits or ops (toggle)"),
        (Action::CopyCode, "copy its code (TorchAir and aclgraph)"),
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
    text: None,
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
            let empty = Suggestions::empty();
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
        let calibration = ex.profiles.as_ref().map(|p| Arc::clone(&p.run_plan));
        let request = SuggestRequest {
            version: ex.ws.version(),
            planning: ex.ws.planning(),
            marks: ex.ws.marks().clone(),
            plan: ex.ws.plan().clone(),
            profiles,
            calibration,
        };
        let current = ex
            .suggestions
            .as_ref()
            .is_some_and(|v| v.plan_version == request.version && v.profile == request.profile());
        (!current).then_some(request)
    }

    /// Sends `request` to the suggesting worker.
    fn ask_for_suggestions(&mut self, request: SuggestRequest) {
        if let Screen::Explorer(ex) = &mut self.screen
            && let Some(view) = &mut ex.suggestions
        {
            view.stale = true;
        }
        // Suggestions are served by a worker of their own (only the newest request counts);
        // without an event loop, and once that worker has stopped, they are made on the spot.
        if self.workers.threads() == Threads::Own {
            let events = self.workers.sender();
            let worker = self.workers.suggester.get_or_insert_with(|| {
                super::suggestions::spawn_suggester(
                    super::msg::events(&events),
                    super::msg::failure_sink(&events, "making suggestions"),
                )
            });
            match worker.send(request) {
                Ok(()) => return,
                Err(failed) => return self.suggested(failed.0.serve(&mut None)),
            }
        }
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
            Action::Back => self.close_view(),
            Action::AcceptSuggestion => {
                if let Some(pick) = view.current() {
                    self.accept(pick);
                }
            }
            Action::AcceptAllSuggestions => self.accept_all(),
            Action::CopyCode => self.copy_suggestion_code(),
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

    /// Accepts `pick` as one undo step, and asks for suggestions again.
    fn accept(&mut self, pick: Pick) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let Some(view) = &ex.suggestions else {
            return;
        };
        if !view.suggestions.adds(pick) {
            self.problem("it adds nothing over the current plan".to_string());
            return;
        }
        let mut names: HashSet<String> = ex.ws.marks().scopes().iter().cloned().collect();
        let edits = view.suggestions.edits(pick, &mut names);
        let words = crate::edit::describe_all(&edits);
        if self.make_step(edits) {
            self.info(format!("{words}: one undo step (u)"));
        }
        self.resuggest();
    }

    /// Makes `edits` (one accept's new scopes) one undo step, with any of today's scopes they
    /// leave without a SuperKernel cleared in it; false when one could not be made (said why;
    /// those made before it stay, in the same step).
    fn make_step(&mut self, edits: Vec<Edit>) -> bool {
        let Some(ex) = self.explorer() else {
            return false;
        };
        let key = Some(ACCEPT_KEY | ex.ws.version());
        let before = ex.ws.plan().clone();
        // Planned once for all of them, and once more for the scopes they empty.
        if !self.apply_edits(edits, key) {
            return false;
        }
        let Some(ex) = self.explorer() else {
            return false;
        };
        let clear: Vec<Edit> = emptied(&before, ex.ws.plan())
            .into_iter()
            .map(|scope| Edit::Delete { scope })
            .collect();
        if !clear.is_empty() {
            self.apply_edits(clear, key);
        }
        true
    }

    /// Accepts all that fit, best first (templates, then per-layer suggestions), each an undo
    /// step of its own.
    fn accept_all(&mut self) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let Some(view) = &ex.suggestions else {
            return;
        };
        let (picks, skipped) = view.suggestions.all_that_fit();
        if picks.is_empty() {
            self.problem(
                "no suggestion to accept: each is fused already, overlaps, or adds nothing"
                    .to_string(),
            );
            return;
        }
        // Every accept's edits from the list shown, before the first changes the plan.
        let mut names: HashSet<String> = ex.ws.marks().scopes().iter().cloned().collect();
        let steps: Vec<Vec<Edit>> = picks
            .iter()
            .map(|&pick| view.suggestions.edits(pick, &mut names))
            .collect();
        let mut made = 0;
        for edits in steps {
            made += usize::from(self.make_step(edits));
        }
        self.resuggest();
        self.info(format!(
            "accepted {made} suggestion(s){}; u undoes them one at a time",
            if skipped > 0 {
                format!(" ({skipped} skipped: overlapping one taken, or adding nothing)")
            } else {
                String::new()
            }
        ));
    }

    /// Asks for suggestions for the plan as it is now.
    fn resuggest(&mut self) {
        if let Some(request) = self.suggestions_request() {
            self.ask_for_suggestions(request);
        }
    }

    /// Copies the selected row's code (TorchAir and aclgraph) to the clipboard.
    fn copy_suggestion_code(&mut self) {
        let Some(view) = self.explorer().and_then(|ex| ex.suggestions.as_ref()) else {
            return;
        };
        let s = &view.suggestions;
        let code = match view.current() {
            Some(Pick::Remedy(i)) => s.remedies.get(i).map(|r| {
                (
                    "the exclusion".to_string(),
                    format!("# aclgraph\n{}\n", r.code),
                )
            }),
            Some(Pick::Template(i)) => s
                .templates
                .get(i)
                .map(|t| (t.name.clone(), t.code().both())),
            Some(Pick::Single(i)) => s.list.get(i).map(|x| (x.name.clone(), x.code().both())),
            None => None,
        };
        let Some((name, code)) = code else {
            self.problem("no suggestion selected".to_string());
            return;
        };
        let text = crate::text::sanitize_lines(&code);
        self.effects.push(Effect::Copy(osc52(&text)));
        self.info(format!(
            "copied the code of {} to the clipboard (OSC 52: the terminal must allow it)",
            crate::text::sanitize(&name)
        ));
    }
}

/// The high bit of an accept's step key (its low bits are the version it started from): apart
/// from the options editor's keys.
const ACCEPT_KEY: u64 = 1 << 63;
