//! The suggestions view: open it (suggestions made on a worker of its own for the current
//! plan, with the profiles read when there are, and made again after every edit), move, sort,
//! show the selected one's code and ops, copy its code, and accept one or all of them as
//! ordinary scope edits (undoable, journaled): a template's scopes in every layer, and the
//! scopes they leave without a SuperKernel cleared, are one undo step. Its state, worker
//! included, is kept with the graph's explorer ([`App::set_view_state`]): another graph drops
//! both.

mod draw;
mod state;

use super::action::Action;
use super::app::{App, Msg};
use super::clipboard::osc52;
use super::effect::Effect;
use super::layout;
use super::view::ViewSpec;
use crate::edit::Edit;
use crate::suggest::Suggestions;
use crate::suggest::accept::{Pick, emptied};
use crate::worker::Threads;
pub use state::{Foresight, Sort, SuggestRequest, Suggested, SuggestionsView, TimingCache};
use std::collections::HashSet;
use std::sync::Arc;

/// The suggested scopes: candidates the planner fuses whole, ranked by what they save.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "suggestions",
    title: "In the suggestions view",
    opens_with: Some(Action::Suggestions),
    from_graph: &[],
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
    open,
    handle,
    scroll,
    draw: |app, frame, area| {
        if let Some(view) = app.view_state::<SuggestionsView>() {
            draw::render(app, view, frame, area);
        }
    },
    text: None,
};

/// The suggester's answers, taken in by the view.
impl From<Suggested> for Msg {
    fn from(answer: Suggested) -> Msg {
        App::message(move |app| suggested(app, answer))
    }
}

/// Opens the suggestions view, asking for suggestions when the plan or the profiles
/// changed since they were made.
fn open(app: &mut App) {
    if app.explorer().is_none() {
        return;
    }
    if app.view_state::<SuggestionsView>().is_none() {
        // Until the first answer comes, the view says they are being made.
        let mut view = SuggestionsView::new(Suggestions::empty(), None, u64::MAX, None);
        view.stale = true;
        app.set_view_state(view);
    }
    app.show_view(VIEW.name);
    resuggest(app);
}

/// A request for suggestions for the current plan and profiles, unless the view has them.
fn request(app: &App) -> Option<SuggestRequest> {
    let ex = app.explorer()?;
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
    let current = app
        .view_state::<SuggestionsView>()
        .is_some_and(|v| v.plan_version == request.version && v.profile == request.profile());
    (!current).then_some(request)
}

/// What a run of the current plan records as its prediction, with profiles read: the view's
/// suggestions' when they are of this plan and those profiles, else a request for them.
pub fn foresight(app: &App) -> Option<Foresight> {
    let ex = app.explorer()?;
    ex.profiles.as_ref()?;
    match request(app) {
        None => app
            .view_state::<SuggestionsView>()?
            .suggestions
            .today
            .clone()
            .map(|p| Foresight::Made(Box::new(p))),
        Some(ask) => Some(Foresight::Ask(Box::new(ask))),
    }
}

/// Sends `request` to the view's suggesting worker (only the newest request counts); without
/// an event loop, and once that worker has stopped, they are made on the spot.
fn ask(app: &mut App, request: SuggestRequest) {
    let own = app.workers.threads() == Threads::Own;
    let events = app.workers.sender();
    let Some(view) = app.view_state_mut::<SuggestionsView>() else {
        return;
    };
    view.stale = true;
    if own {
        let worker = view.worker.get_or_insert_with(|| {
            state::spawn_suggester(
                super::msg::events(&events),
                super::msg::failure_sink(&events, "making suggestions"),
            )
        });
        match worker.send(request) {
            Ok(()) => return,
            Err(failed) => return suggested(app, failed.0.serve(&mut None)),
        }
    }
    suggested(app, request.serve(&mut None));
}

/// Takes the worker's suggestions when they are for the current plan and profiles.
fn suggested(app: &mut App, answer: Suggested) {
    let Some(ex) = app.explorer() else {
        return;
    };
    let profile = ex
        .profiles
        .as_ref()
        .map(|p| p.shared_pair().base.files.root.clone());
    if answer.version != ex.ws.version() || answer.profile != profile {
        return;
    }
    let Some(view) = app.view_state_mut::<SuggestionsView>() else {
        return;
    };
    match answer.result {
        Ok((suggestions, fit)) => {
            view.replace(suggestions, fit, answer.version, answer.profile);
        }
        Err(problem) => {
            view.stale = false;
            app.problem(format!("cannot make suggestions: {problem}"));
        }
    }
}

/// An action with the suggestions view on top.
fn handle(app: &mut App, action: Action) {
    let area = app.areas().body;
    let Some(view) = app.view_state_mut::<SuggestionsView>() else {
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
        Action::Back => app.close_view(),
        Action::AcceptSuggestion => {
            if let Some(pick) = view.current() {
                accept(app, pick);
            }
        }
        Action::AcceptAllSuggestions => accept_all(app),
        Action::CopyCode => copy_code(app),
        _ => {}
    }
}

/// Moves the suggestions view's selection by `rows` (the mouse wheel).
fn scroll(app: &mut App, rows: isize) {
    let area = app.areas().body;
    if let Some(view) = app.view_state_mut::<SuggestionsView>() {
        let height = layout::suggestion_rows(area, view.expanded);
        view.move_by(rows, height);
    }
}

/// Accepts `pick` as one undo step, and asks for suggestions again.
fn accept(app: &mut App, pick: Pick) {
    let Some(ex) = app.explorer() else {
        return;
    };
    let Some(view) = app.view_state::<SuggestionsView>() else {
        return;
    };
    if !view.suggestions.adds(pick) {
        app.problem("it adds nothing over the current plan".to_string());
        return;
    }
    let mut names: HashSet<String> = ex.ws.marks().scopes().iter().cloned().collect();
    let edits = view.suggestions.edits(pick, &mut names);
    let words = crate::edit::describe_all(&edits);
    if make_step(app, edits) {
        app.info(format!("{words}: one undo step (u)"));
    }
    resuggest(app);
}

/// Makes `edits` (one accept's new scopes) one undo step, with any of today's scopes they
/// leave without a SuperKernel cleared in it; false when one could not be made (said why;
/// those made before it stay, in the same step).
fn make_step(app: &mut App, edits: Vec<Edit>) -> bool {
    let Some(ex) = app.explorer() else {
        return false;
    };
    let key = Some(ACCEPT_KEY | ex.ws.version());
    let before = ex.ws.plan().clone();
    // Planned once for all of them, and once more for the scopes they empty.
    if !app.apply_edits(edits, key) {
        return false;
    }
    let Some(ex) = app.explorer() else {
        return false;
    };
    let clear: Vec<Edit> = emptied(&before, ex.ws.plan())
        .into_iter()
        .map(|scope| Edit::Delete { scope })
        .collect();
    if !clear.is_empty() {
        app.apply_edits(clear, key);
    }
    true
}

/// Accepts all that fit, best first (templates, then per-layer suggestions), each an undo
/// step of its own.
fn accept_all(app: &mut App) {
    let Some(ex) = app.explorer() else {
        return;
    };
    let Some(view) = app.view_state::<SuggestionsView>() else {
        return;
    };
    let (picks, skipped) = view.suggestions.all_that_fit();
    if picks.is_empty() {
        app.problem(
            "no suggestion to accept: each is fused already, overlaps, or adds nothing".to_string(),
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
        made += usize::from(make_step(app, edits));
    }
    resuggest(app);
    app.info(format!(
        "accepted {made} suggestion(s){}; u undoes them one at a time",
        if skipped > 0 {
            format!(" ({skipped} skipped: overlapping one taken, or adding nothing)")
        } else {
            String::new()
        }
    ));
}

/// Asks for suggestions for the plan as it is now.
fn resuggest(app: &mut App) {
    if let Some(request) = request(app) {
        ask(app, request);
    }
}

/// Copies the selected row's code (TorchAir and aclgraph) to the clipboard.
fn copy_code(app: &mut App) {
    let Some(view) = app.view_state::<SuggestionsView>() else {
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
        app.problem("no suggestion selected".to_string());
        return;
    };
    let text = crate::text::sanitize_lines(&code);
    app.effects.push(Effect::Copy(osc52(&text)));
    app.info(format!(
        "copied the code of {} to the clipboard (OSC 52: the terminal must allow it)",
        crate::text::sanitize(&name)
    ));
}
/// The high bit of an accept's step key (its low bits are the version it started from): apart
/// from the options editor's keys.
const ACCEPT_KEY: u64 = 1 << 63;
