//! The runs view, and compile and run from the explorer: `c` (from the graph or here) picks a
//! recipe and starts it, the view follows its log, `x` (or esc, after asking) stops it, and
//! its end is reported. The runs themselves are the app's (`App::runs`, [`super::runs`]):
//! they outlive a graph, and the ledger and the header read them too.

mod draw;

use super::action::Action;
use super::app::{App, Msg, Screen};
use super::dialog::{Answer, Confirm, Dialog, Pick, Picker, Width};
use super::layout;
use super::runs::{Launched, RunEvent, RunState};
use super::view::ViewSpec;
use crate::compile::batch::Batch;
use crate::compile::prepare;
use crate::compile::recipe::{self, Recipe};
use crate::text::sanitize;

/// The runs view: the history of runs on the left, the selected run's log on the right.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "runs",
    title: "In the runs view",
    opens_with: Some(Action::Runs),
    from_graph: &[Action::Compile],
    keys: &[
        (Action::Down, "scroll the log down"),
        (Action::Up, "scroll the log up"),
        (Action::Bottom, "follow the end of the log"),
        (Action::Top, "the log's first line"),
        (Action::Expand, "scroll the log right"),
        (Action::Collapse, "scroll the log left"),
        (Action::NextPane, "an older run"),
        (Action::PrevPane, "a newer run"),
        (Action::Activate, "go to the first error"),
        (Action::CancelRun, "stop the selected run"),
        (Action::Compile, "start another run"),
        (Action::Runs, "back to the graph"),
        (Action::Back, "back (asks while the run goes)"),
    ],
    open: |app| app.show_view(VIEW.name),
    handle,
    scroll,
    draw: draw::render,
    text: None,
};

/// A run's events, taken in by the app's runs: its job started (or why not), its output.
impl From<RunEvent> for Msg {
    fn from(event: RunEvent) -> Msg {
        App::message(move |app| match event {
            RunEvent::Started { id, result } => started(app, id, result),
            RunEvent::Output { id, batch } => output(app, id, batch),
        })
    }
}

/// Opens the recipe picker with every recipe of the config files and the built-in ones.
fn pick_recipe(app: &mut App) {
    let cwd = match std::env::current_dir() {
        Ok(dir) => dir,
        Err(e) => return app.problem(format!("no working directory: {e}")),
    };
    match recipe::load(&recipe::search_paths(&cwd)) {
        Ok(recipes) => {
            app.runs.keep_runs = Some(recipes.keep_runs);
            if !recipes.notes.is_empty() {
                app.info(sanitize(&recipes.notes.join("; ")).into_owned());
            }
            let rows = recipes
                .list
                .into_iter()
                .map(|recipe| (recipe_row(&recipe), recipe))
                .collect();
            let picker = Picker::new(
                " Run a recipe on the current plan ",
                "no recipe matches",
                rows,
                |app: &mut App, recipe: Recipe| start_run(app, &recipe),
            );
            app.dialog = Some(Dialog::Pick(picker.width(Width::Medium)));
        }
        Err(e) => app.problem(e.to_string().replace('\n', " ")),
    }
}

/// Starts `recipe` on the current plan — after asking, when the dump changed on disk
/// since it was loaded (the job would get the new file with a plan of the old one).
fn start_run(app: &mut App, recipe: &Recipe) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let source = ex.ws.source();
    let change = source
        .stamp
        .as_ref()
        .and_then(|stamp| stamp.check(std::path::Path::new(&source.file)));
    let Some(change) = change else {
        return start_run_anyway(app, recipe);
    };
    let question = format!(
        "{} changed on disk since it was loaded: {change}. A run gives the job the file on \
         disk ({{graph}}) with the plan on screen, which was made for the old one.",
        sanitize(&source.file)
    );
    let chosen = recipe.clone();
    let mut answers = vec![
        Answer::new('a', "run anyway", move |app: &mut App| {
            start_run_anyway(app, &chosen)
        }),
        Answer::cancel('c', "cancel"),
    ];
    if app.reload.is_some() {
        answers.insert(
            0,
            Answer::new(
                'r',
                "reload it (edits not saved come back from the journal)",
                reload_dump,
            ),
        );
    }
    app.dialog = Some(Dialog::Confirm(Confirm::new(question, answers)));
}

/// Loads the dump again (it changed on disk) in this session: its unsaved scopes are
/// carried over by op name and stay unsaved, its journal stays its own.
fn reload_dump(app: &mut App) {
    if let Some(request) = app.load_again() {
        super::loader::start(
            app.workers.threads(),
            request,
            super::msg::events(&app.workers.sender()),
        );
    }
}

/// Prepares and starts `recipe` on the current plan, and opens the runs view on it.
fn start_run_anyway(app: &mut App, recipe: &Recipe) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let runs_dir = app.runs.dir_of(&ex.ws.source().file);
    let input = match prepare::RunInput::of(&ex.ws, recipe, app.runs.keep()) {
        Ok(input) => input,
        Err(e) => return app.problem(e),
    };
    let predict = super::suggestions_view::foresight(app)
        .map(|foresight| Box::new(move || foresight.prediction()) as super::runs::Predict);
    let id = app.runs.start(
        app.workers.threads(),
        recipe,
        (input, predict),
        (runs_dir, app.now),
        super::msg::events(&app.workers.sender()),
    );
    app.show_view("runs");
    app.info(format!(
        "run {id}: preparing {} (its directory, plan and entry sources)…",
        sanitize(&recipe.name)
    ));
}

/// Takes in the worker's answer: the run's job started, or why it could not.
fn started(app: &mut App, id: u64, result: Result<Box<Launched>, String>) {
    let problem = result.as_ref().err().cloned();
    app.runs.started(id, result, app.now);
    let Some(run) = app.runs.list.iter().find(|r| r.id == id) else {
        return;
    };
    let name = format!("run {} ({})", run.id, sanitize(&run.recipe));
    match (problem, &run.out) {
        (Some(problem), _) => {
            app.problem(format!("{name} could not start: {}", sanitize(&problem)))
        }
        (None, Some(out)) if run.state == RunState::Running => {
            let out = sanitize(&out.display().to_string()).into_owned();
            app.info(format!("{name} started; its files are in {out}"));
        }
        // It ended before this answer came in.
        _ => report_end(app, id),
    }
}

/// Takes in a batch of a run's output; at its end, says how it went.
fn output(app: &mut App, id: u64, batch: Batch) {
    if app.runs.output(id, batch, app.now) {
        report_end(app, id);
    }
}

/// Says how run `id` ended, once both its end and its start (which knows where its results
/// are) have come in, in either order; profiles in its results open in the profile view.
fn report_end(app: &mut App, id: u64) {
    let Some(run) = app.runs.list.iter().find(|r| r.id == id) else {
        return;
    };
    if run.out.is_none() {
        return; // the start's answer is still on its way and will report
    }
    let RunState::Ended {
        status, cancelled, ..
    } = run.state
    else {
        return;
    };
    let name = format!("run {} ({})", run.id, sanitize(&run.recipe));
    let time = crate::text::duration(run.elapsed(app.now));
    let results_dir = run.results.clone().filter(|p| p.exists());
    let results = results_dir
        .as_ref()
        .map(|p| format!("; results in {}", sanitize(&p.display().to_string())))
        .unwrap_or_default();
    if cancelled {
        app.info(format!("{name} cancelled after {time}"));
    } else if status.success() {
        // Profiles with and without SuperKernel open in the profile view.
        if !results_dir.is_some_and(|dir| app.open_run_results(&dir)) {
            app.info(format!("{name} passed in {time}{results}"));
        }
    } else if let Some(lost) = &run.lost {
        app.problem(format!("{name} failed after {time}: {}", sanitize(lost)));
    } else {
        let first = match run.log.first_error() {
            Some((n, line)) => format!("; first error, line {}: {}", n + 1, line.text),
            None => String::new(),
        };
        app.problem(format!("{name} failed ({status}) after {time}{first}"));
    }
}

/// An action in the runs view, or a run action from the graph (`c` picks a recipe there
/// too): esc on a running run asks first.
fn handle(app: &mut App, action: Action) {
    if action == Action::Compile {
        return pick_recipe(app);
    }
    if action == Action::Back
        && let Some(run) = app.runs.selected().filter(|r| r.is_running())
    {
        let question = format!(
            "Run {} ({}) is still running. Stop it (SIGTERM to its process group, SIGKILL \
             after {} s)?",
            run.id,
            sanitize(&run.recipe),
            super::runs::GRACE.as_secs()
        );
        app.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('x', "stop the run", cancel_run),
                Answer::new('b', "back, keep it running", App::close_view),
                Answer::cancel('c', "keep watching"),
            ],
        )));
        return;
    }
    let height = log_height(app);
    let reply = app.runs.view_action(action, height);
    app.carry_out(reply);
}

/// Scrolls the selected run's log by `lines` (the mouse wheel).
fn scroll(app: &mut App, lines: isize) {
    let height = log_height(app);
    app.runs.scroll_log(lines, height);
}

/// Stops the selected run.
fn cancel_run(app: &mut App) {
    let reply = app.runs.cancel();
    app.carry_out(reply);
}

/// Log lines the runs view shows for the selected run.
fn log_height(app: &App) -> usize {
    let body = app.areas().body;
    let (_, log) = layout::runs_parts(body, app.runs.list.len());
    app.runs.selected().map_or(0, |run| {
        layout::run_log_rows(log, run.log.first_error().is_some())
    })
}
/// A recipe's row in the picker: its name, where it comes from (standing out when it replaces
/// a built-in), and — while selected — what it is and the command it runs.
fn recipe_row(recipe: &Recipe) -> Pick {
    let mut pick = Pick::new(recipe.name.clone());
    pick.note = Some((sanitize(&recipe.origin()).into_owned(), recipe.overrides));
    pick.about = vec![
        sanitize(&recipe.about).into_owned(),
        // As the user wrote it, with `{{`/`}}` (literal braces) shown as braces.
        format!(
            "$ {}",
            sanitize(&crate::compile::template::shown(&recipe.argv))
        ),
    ];
    pick
}
