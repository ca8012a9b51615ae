//! The static kernels view's actions: asking where a static kernel compile's outputs are (with
//! a guess), reading them on a worker thread, the view's keys, and going from a row to the
//! graph.

use super::action::Action;
use super::app::{App, Prompt, Screen};
use super::layout;
use super::statics::{self, StaticsRead, StaticsView};
use super::view::ViewSpec;
use crate::static_kernels::ROOT_NAMES;
use crate::text::sanitize;
use std::path::{Path, PathBuf};

/// The static kernels view: which op types got static kernels, what was left out and why,
/// and the graph's ops of compiled types.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "statics",
    title: "In the static kernels view",
    opens_with: Some(Action::StaticKernels),
    keys: &[
        (Action::Down, "next row"),
        (Action::Up, "previous row"),
        (
            Action::Activate,
            "go to the graph: the ops of a type, or the op",
        ),
        (Action::StaticKernels, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open: App::open_statics,
    handle: App::statics_action,
    scroll: App::statics_scroll,
    draw: |app, frame, area| {
        if let Some(ex) = app.explorer()
            && let Some(view) = &ex.statics
        {
            super::views::statics::render(app, view, ex.profiles.as_ref(), frame, area);
        }
    },
    text: None,
};

impl App {
    /// Opens the static kernels view, asking for the outputs the first time.
    fn open_statics(&mut self) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match &mut ex.statics {
            Some(_) => self.show_view("statics"),
            None => {
                let guess = self.guess_statics().unwrap_or_default();
                self.prompt = Some(Prompt::new(
                    "static kernel outputs: ",
                    "enter read · esc cancel · static_kernel_compile_outputs/ (or aclnn_static_shape_kernel_outputs/), one run's ts*_pid*_outputs/, or a directory holding them",
                    guess.display().to_string(),
                    |app: &mut App, typed| app.submit_statics(&typed),
                ));
            }
        }
    }

    /// Where the outputs probably are: an outputs root in the working directory, or next to
    /// the dump.
    fn guess_statics(&self) -> Option<PathBuf> {
        let dump = self.explorer().map(|ex| ex.ws.source().file.clone());
        let beside_dump = dump.as_deref().and_then(|f| Path::new(f).parent());
        let dirs = [Some(Path::new("")), beside_dump];
        dirs.into_iter()
            .flatten()
            .flat_map(|dir| ROOT_NAMES.iter().map(move |name| dir.join(name)))
            .find(|p| p.is_dir())
    }

    /// Reads the outputs the prompt names.
    pub(super) fn submit_statics(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return self.problem("no directory given".to_string());
        }
        self.load_statics(PathBuf::from(text));
    }

    /// Reads the outputs at `dir` on a worker; the answer comes back to [`App::statics_read`].
    pub(super) fn load_statics(&mut self, dir: PathBuf) {
        self.info(format!(
            "reading the static kernel outputs in {}…",
            sanitize(&dir.display().to_string())
        ));
        let asked = dir.clone();
        self.work(
            "skope-static",
            move || statics::read(asked),
            |app, answer| {
                app.statics_read(answer.unwrap_or_else(|stopped| StaticsRead {
                    dir,
                    result: Err(format!("reading the outputs stopped: {stopped}")),
                }));
            },
        );
    }

    /// Takes in the outputs read on the worker: opens the view, or says what is wrong.
    pub(super) fn statics_read(&mut self, answer: StaticsRead) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match answer.result {
            Ok(summary) => {
                let view = StaticsView::new(answer.dir, summary, ex.ws.graph());
                let words = format!(
                    "static kernels: {} op type(s), {} binary(ies); {} problem(s) reading files",
                    view.summary.compiled.len(),
                    view.binaries(),
                    view.summary.problems.len()
                );
                ex.statics = Some(view);
                self.show_view("statics");
                self.info(words);
            }
            Err(why) => self.problem(sanitize(&why.replace('\n', " ")).into_owned()),
        }
    }

    /// An action with the static kernels view on top.
    fn statics_action(&mut self, action: Action) {
        let height = layout::statics_rows(self.areas().body);
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let Some(view) = &mut ex.statics else {
            return;
        };
        let reply = view.action(action, height);
        self.carry_out(reply);
    }

    /// Moves the static kernels view's selection by `rows` (the mouse wheel).
    fn statics_scroll(&mut self, rows: isize) {
        let height = layout::statics_rows(self.areas().body);
        if let Screen::Explorer(ex) = &mut self.screen
            && let Some(view) = &mut ex.statics
        {
            view.move_by(rows, height);
        }
    }
}
