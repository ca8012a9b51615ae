//! Compile and run from the explorer: `c` picks a recipe and starts it, the runs view follows
//! its log, `x` (or esc, after asking) stops it, and its end is reported.

use super::action::Action;
use super::app::{App, Screen};
use super::dialog::{Answer, Confirm, Dialog, Pick, Picker, Width};
use super::layout;
use super::runs::{Launched, RunState};
use super::view::ViewSpec;
use crate::compile::batch::Batch;
use crate::compile::prepare;
use crate::compile::recipe::{self, Recipe};
use crate::text::sanitize;
use std::path::PathBuf;

/// The runs view: the history of runs on the left, the selected run's log on the right.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "runs",
    title: "In the runs view",
    opens_with: Some(Action::Runs),
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
    open: |app| app.show_view("runs"),
    handle: App::runs_view_action,
    scroll: App::runs_scroll,
    draw: super::views::runs::render,
    text: None,
};

impl App {
    /// Runs a compile-and-run action from the explorer.
    pub(super) fn run_action(&mut self, action: Action) {
        if action == Action::Compile {
            self.pick_recipe();
        }
    }

    /// Opens the recipe picker with every recipe of the config files and the built-in ones.
    fn pick_recipe(&mut self) {
        let cwd = match std::env::current_dir() {
            Ok(dir) => dir,
            Err(e) => return self.problem(format!("no working directory: {e}")),
        };
        match recipe::load(&recipe::search_paths(&cwd)) {
            Ok(recipes) => {
                self.runs.keep_runs = Some(recipes.keep_runs);
                if !recipes.notes.is_empty() {
                    self.info(sanitize(&recipes.notes.join("; ")).into_owned());
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
                    |app: &mut App, recipe: Recipe| app.start_run(&recipe),
                );
                self.dialog = Some(Dialog::Pick(picker.width(Width::Medium)));
            }
            Err(e) => self.problem(e.to_string().replace('\n', " ")),
        }
    }

    /// Where runs of `dump` go (and earlier sessions' are found).
    pub(super) fn runs_dir_of(&self, dump: &str) -> PathBuf {
        self.runs_dir
            .clone()
            .unwrap_or_else(|| prepare::runs_dir(dump))
    }

    /// Where earlier sessions' runs of `dump` may be: its runs directory, and where earlier
    /// releases kept runs (the working directory).
    pub(super) fn run_history_dirs(&self, dump: &str) -> Vec<PathBuf> {
        let mut dirs = vec![self.runs_dir_of(dump)];
        if self.runs_dir.is_none() {
            dirs.extend(crate::paths::DumpFiles::of(dump).earlier_runs());
        }
        dirs
    }

    /// Starts `recipe` on the current plan — after asking, when the dump changed on disk
    /// since it was loaded (the job would get the new file with a plan of the old one).
    pub(super) fn start_run(&mut self, recipe: &Recipe) {
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let source = ex.ws.source();
        let change = source
            .stamp
            .as_ref()
            .and_then(|stamp| stamp.check(std::path::Path::new(&source.file)));
        let Some(change) = change else {
            return self.start_run_anyway(recipe);
        };
        let question = format!(
            "{} changed on disk since it was loaded: {change}. A run gives the job the file on \
             disk ({{graph}}) with the plan on screen, which was made for the old one.",
            sanitize(&source.file)
        );
        let chosen = recipe.clone();
        let mut answers = vec![
            Answer::new('a', "run anyway", move |app: &mut App| {
                app.start_run_anyway(&chosen)
            }),
            Answer::cancel('c', "cancel"),
        ];
        if self.reload.is_some() {
            answers.insert(
                0,
                Answer::new(
                    'r',
                    "reload it (edits not saved come back from the journal)",
                    App::reload_dump,
                ),
            );
        }
        self.dialog = Some(Dialog::Confirm(Confirm::new(question, answers)));
    }

    /// Loads the dump again (it changed on disk) in this session: its unsaved scopes are
    /// carried over by op name and stay unsaved, its journal stays its own.
    pub(super) fn reload_dump(&mut self) {
        if let Some(request) = self.load_again() {
            super::loader::start(
                self.workers.threads(),
                request,
                super::msg::events(&self.workers.sender()),
            );
        }
    }

    /// Prepares and starts `recipe` on the current plan, and opens the runs view on it.
    pub(super) fn start_run_anyway(&mut self, recipe: &Recipe) {
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let runs_dir = self.runs_dir_of(&ex.ws.source().file);
        let input = match prepare::RunInput::of(&ex.ws, recipe, self.runs.keep()) {
            Ok(input) => input,
            Err(e) => return self.problem(e),
        };
        let id = self.runs.start(
            self.workers.threads(),
            recipe,
            input,
            (runs_dir, self.now),
            super::msg::events(&self.workers.sender()),
        );
        self.show_view("runs");
        self.info(format!(
            "run {id}: preparing {} (its directory, plan and entry sources)…",
            sanitize(&recipe.name)
        ));
    }

    /// Takes in the worker's answer: the run's job started, or why it could not.
    pub(super) fn run_started(&mut self, id: u64, result: Result<Box<Launched>, String>) {
        let problem = result.as_ref().err().cloned();
        self.runs.started(id, result, self.now);
        let Some(run) = self.runs.list.iter().find(|r| r.id == id) else {
            return;
        };
        let name = format!("run {} ({})", run.id, sanitize(&run.recipe));
        match (problem, &run.out) {
            (Some(problem), _) => {
                self.problem(format!("{name} could not start: {}", sanitize(&problem)))
            }
            (None, Some(out)) if run.state == RunState::Running => {
                let out = sanitize(&out.display().to_string()).into_owned();
                self.info(format!("{name} started; its files are in {out}"));
            }
            // It ended before this answer came in.
            _ => self.report_end(id),
        }
    }

    /// Takes in a batch of a run's output; at its end, says how it went.
    pub(super) fn run_output(&mut self, id: u64, batch: Batch) {
        if self.runs.output(id, batch, self.now) {
            self.report_end(id);
        }
    }

    /// Says how run `id` ended, once both its end and its start (which knows where its results
    /// are) have come in, in either order; profiles in its results open in the profile view.
    fn report_end(&mut self, id: u64) {
        let Some(run) = self.runs.list.iter().find(|r| r.id == id) else {
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
        let time = crate::text::duration(run.elapsed(self.now));
        let results_dir = run.results.clone().filter(|p| p.exists());
        let results = results_dir
            .as_ref()
            .map(|p| format!("; results in {}", sanitize(&p.display().to_string())))
            .unwrap_or_default();
        if cancelled {
            self.info(format!("{name} cancelled after {time}"));
        } else if status.success() {
            // Profiles with and without SuperKernel open in the profile view.
            if !results_dir.is_some_and(|dir| self.open_run_results(&dir)) {
                self.info(format!("{name} passed in {time}{results}"));
            }
        } else if let Some(lost) = &run.lost {
            self.problem(format!("{name} failed after {time}: {}", sanitize(lost)));
        } else {
            let first = match run.log.first_error() {
                Some((n, line)) => format!("; first error, line {}: {}", n + 1, line.text),
                None => String::new(),
            };
            self.problem(format!("{name} failed ({status}) after {time}{first}"));
        }
    }

    /// An action in the runs view: esc on a running run asks first.
    fn runs_view_action(&mut self, action: Action) {
        if action == Action::Back
            && let Some(run) = self.runs.selected().filter(|r| r.is_running())
        {
            let question = format!(
                "Run {} ({}) is still running. Stop it (SIGTERM to its process group, SIGKILL \
                 after {} s)?",
                run.id,
                sanitize(&run.recipe),
                super::runs::GRACE.as_secs()
            );
            self.dialog = Some(Dialog::Confirm(Confirm::new(
                question,
                vec![
                    Answer::new('x', "stop the run", App::cancel_run),
                    Answer::new('b', "back, keep it running", App::close_view),
                    Answer::cancel('c', "keep watching"),
                ],
            )));
            return;
        }
        let height = self.runs_log_height();
        let reply = self.runs.view_action(action, height);
        self.carry_out(reply);
    }

    /// Scrolls the selected run's log by `lines` (the mouse wheel).
    fn runs_scroll(&mut self, lines: isize) {
        let height = self.runs_log_height();
        self.runs.scroll_log(lines, height);
    }

    /// Stops the selected run.
    pub(super) fn cancel_run(&mut self) {
        let reply = self.runs.cancel();
        self.carry_out(reply);
    }

    /// Log lines the runs view shows for the selected run.
    fn runs_log_height(&self) -> usize {
        let body = self.areas().body;
        let (_, log) = layout::runs_parts(body, self.runs.list.len());
        self.runs.selected().map_or(0, |run| {
            layout::run_log_rows(log, run.log.first_error().is_some())
        })
    }
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
