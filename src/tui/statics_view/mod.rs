//! The static kernels view: a static kernel compile's outputs (reference/profiling_and_dumps.md
//! §3), asked for with a guess, read on a worker thread, summarised and joined to the graph,
//! laid out as rows — the op types compiled with each input signature (one binary each), the
//! ops left out grouped by why, and the graph's ops of compiled types with whether their shapes
//! got a kernel — with the selection; enter goes from a row to the graph. Its state is kept
//! with the graph's explorer ([`App::set_view_state`]), so another graph drops it.

mod draw;

use super::action::Action;
use super::app::{App, Prompt, Screen};
use super::layout;
use super::list::Selection;
use super::reply::{Reply, Target};
use super::view::ViewSpec;
use crate::graph::Graph;
use crate::static_kernels::{self, ROOT_NAMES, Summary};
use crate::text::sanitize;
use std::path::{Path, PathBuf};

/// The static kernels view: which op types got static kernels, what was left out and why,
/// and the graph's ops of compiled types.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "statics",
    title: "In the static kernels view",
    opens_with: Some(Action::StaticKernels),
    from_graph: &[],
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
    open,
    handle,
    scroll,
    draw: |app, frame, area| {
        if let Some(view) = app.view_state::<StaticsView>() {
            let profiles = app.explorer().and_then(|ex| ex.profiles.as_ref());
            draw::render(app, view, profiles, frame, area);
        }
    },
    text: None,
};

/// Opens the static kernels view, asking for the outputs the first time.
fn open(app: &mut App) {
    if app.view_state::<StaticsView>().is_some() {
        return app.show_view(VIEW.name);
    }
    if app.explorer().is_none() {
        return;
    }
    let guess = guess(app).unwrap_or_default();
    app.prompt = Some(Prompt::new(
        "static kernel outputs: ",
        "enter read · esc cancel · static_kernel_compile_outputs/ (or aclnn_static_shape_kernel_outputs/), one run's ts*_pid*_outputs/, or a directory holding them",
        guess.display().to_string(),
        |app: &mut App, typed| submit(app, &typed),
    ));
}

/// Where the outputs probably are: an outputs root in the working directory, or next to
/// the dump.
fn guess(app: &App) -> Option<PathBuf> {
    let dump = app.explorer().map(|ex| ex.ws.source().file.clone());
    let beside_dump = dump.as_deref().and_then(|f| Path::new(f).parent());
    let dirs = [Some(Path::new("")), beside_dump];
    dirs.into_iter()
        .flatten()
        .flat_map(|dir| ROOT_NAMES.iter().map(move |name| dir.join(name)))
        .find(|p| p.is_dir())
}

/// Reads the outputs the prompt names.
fn submit(app: &mut App, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return app.problem("no directory given".to_string());
    }
    load(app, PathBuf::from(text));
}

/// Reads the outputs at `dir` on a worker (`--static` gives them at the start); the answer
/// opens the view, or says what is wrong.
pub fn load(app: &mut App, dir: PathBuf) {
    app.info(format!(
        "reading the static kernel outputs in {}…",
        sanitize(&dir.display().to_string())
    ));
    let asked = dir.clone();
    app.work(
        "skope-static",
        move || read(asked),
        |app, answer| {
            take(
                app,
                answer.unwrap_or_else(|stopped| StaticsRead {
                    dir,
                    result: Err(format!("reading the outputs stopped: {stopped}")),
                }),
            );
        },
    );
}

/// Takes in the outputs read on the worker: opens the view, or says what is wrong.
fn take(app: &mut App, answer: StaticsRead) {
    let Screen::Explorer(ex) = &app.screen else {
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
            app.set_view_state(view);
            app.show_view(VIEW.name);
            app.info(words);
        }
        Err(why) => app.problem(sanitize(&why.replace('\n', " ")).into_owned()),
    }
}

/// An action with the static kernels view on top.
fn handle(app: &mut App, action: Action) {
    let height = layout::statics_rows(app.areas().body);
    let Some(view) = app.view_state_mut::<StaticsView>() else {
        return;
    };
    let reply = view.action(action, height);
    app.carry_out(reply);
}

/// Moves the selection by `rows` (the mouse wheel).
fn scroll(app: &mut App, rows: isize) {
    let height = layout::statics_rows(app.areas().body);
    if let Some(view) = app.view_state_mut::<StaticsView>() {
        view.move_by(rows, height);
    }
}

/// What the reading worker answers.
#[derive(Debug)]
pub struct StaticsRead {
    /// The directory asked for.
    pub dir: PathBuf,
    /// The summary, or why the outputs could not be read.
    pub result: Result<Summary, String>,
}

/// Reads and summarises the outputs at `dir`.
pub fn read(dir: PathBuf) -> StaticsRead {
    let result = static_kernels::read(&dir)
        .map(|(runs, problems)| static_kernels::summarise(&runs, problems))
        .map_err(|e| e.to_string());
    StaticsRead { dir, result }
}

/// What a row of the view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A section's title.
    Heading,
    /// An op type compiled, or a reason ops were left out.
    Group,
    /// A signature or an op under a group.
    Item,
    /// A graph op whose input shapes got a static kernel.
    WithKernel,
    /// A graph op of a compiled type whose shapes did not.
    OtherShapes,
    /// What the layout shows that the docs say breaks the compile.
    Note,
    /// A file that could not be read.
    Problem,
}

/// One row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// What it is.
    pub kind: RowKind,
    /// Its text (from the outputs: sanitised when drawn).
    pub text: String,
    /// The graph op it stands for, whose time the view shows when profiles are read.
    pub op: Option<String>,
    /// Where enter goes.
    pub target: Option<Target>,
}

impl Row {
    fn new(kind: RowKind, text: String, target: Option<Target>) -> Row {
        Row {
            kind,
            text,
            op: None,
            target,
        }
    }
}

/// The static kernels view.
#[derive(Debug)]
pub struct StaticsView {
    /// The directory read.
    pub dir: PathBuf,
    /// What the outputs say, joined to the graph.
    pub summary: Summary,
    /// The rows shown.
    pub rows: Vec<Row>,
    /// The selected row, and the first shown.
    pub list: Selection,
}

impl StaticsView {
    /// The view of `summary` (read from `dir`), joined to `graph`.
    pub fn new(dir: PathBuf, mut summary: Summary, graph: &Graph) -> StaticsView {
        summary.join(graph);
        let rows = rows(&summary, graph);
        StaticsView {
            dir,
            summary,
            rows,
            list: Selection::default(),
        }
    }

    /// Binaries compiled: one per op type and input signature.
    pub fn binaries(&self) -> usize {
        self.summary
            .compiled
            .iter()
            .map(|c| c.signatures.len())
            .sum()
    }

    /// Moves the selection by `step` rows, keeping it in a view of `height` rows.
    pub fn move_by(&mut self, step: isize, height: usize) {
        let len = self.rows.len();
        self.list.move_by(step, len, height);
    }

    /// Where enter on the selected row goes.
    pub fn target(&self) -> Option<Target> {
        self.rows
            .get(self.list.selected)
            .and_then(|r| r.target.clone())
    }

    /// The view's keys: moving, going to the selected row's ops in the graph, closing.
    /// `height` is the list's height in rows.
    pub fn action(&mut self, action: Action, height: usize) -> Reply {
        if let Some(rows) = action.rows(height.max(1) as isize) {
            self.move_by(rows, height);
            return Reply::Done;
        }
        match action {
            Action::Activate => {
                return match self.target() {
                    Some(target) => Reply::GoTo(target),
                    None => Reply::Problem("nothing in the graph for this row".to_string()),
                };
            }
            Action::Back => return Reply::Close,
            // Profiles give the rows their time (the view's hint says so).
            Action::LoadProfiles => return Reply::Pass(action),
            _ => {}
        }
        Reply::Done
    }
}

/// The rows of `summary` (already joined) over `graph`.
fn rows(summary: &Summary, graph: &Graph) -> Vec<Row> {
    let mut out = Vec::new();
    for note in &summary.notes {
        out.push(Row::new(RowKind::Note, format!("! {note}"), None));
    }
    for p in &summary.problems {
        out.push(Row::new(RowKind::Problem, format!("✗ {p}"), None));
    }
    out.push(Row::new(
        RowKind::Heading,
        format!(
            "Compiled: {} op type(s), one binary per input signature",
            summary.compiled.len()
        ),
        None,
    ));
    for c in &summary.compiled {
        let target = Some(Target::Type(c.op_type.clone()));
        out.push(Row::new(
            RowKind::Group,
            format!("{} · {} binary(ies)", c.op_type, c.signatures.len()),
            target.clone(),
        ));
        for s in &c.signatures {
            out.push(Row::new(RowKind::Item, s.clone(), target.clone()));
        }
    }
    out.push(Row::new(
        RowKind::Heading,
        format!(
            "Filtered out: {} op signature(s) the compile saw and did not build",
            summary.filtered.len()
        ),
        None,
    ));
    let mut reasons: Vec<&str> = summary.filtered.iter().map(|f| f.reason).collect();
    reasons.sort_unstable();
    reasons.dedup();
    for reason in reasons {
        let of: Vec<_> = summary
            .filtered
            .iter()
            .filter(|f| f.reason == reason)
            .collect();
        out.push(Row::new(
            RowKind::Group,
            format!("{reason} · {}", of.len()),
            None,
        ));
        for f in of {
            out.push(Row::new(
                RowKind::Item,
                format!("{}  {}", f.op_type, f.signature),
                Some(Target::Type(f.op_type.clone())),
            ));
        }
    }
    if let Some(join) = &summary.graph {
        out.push(Row::new(
            RowKind::Heading,
            format!(
                "Graph: {} op(s) with a static kernel, {} of a compiled type without one for \
                 their shapes (joined by type and shapes: a guess)",
                join.with_kernel.len(),
                join.other_shapes.len(),
            ),
            None,
        ));
        let ops = join
            .other_shapes
            .iter()
            .map(|n| (RowKind::OtherShapes, n))
            .chain(join.with_kernel.iter().map(|n| (RowKind::WithKernel, n)));
        for (kind, name) in ops {
            let Some(id) = graph.find(name) else {
                continue;
            };
            let op = graph.op(id);
            let shapes: Vec<String> = op.input_descs.iter().map(|d| d.shape_text()).collect();
            let mark = if kind == RowKind::WithKernel {
                "✓ static kernel"
            } else {
                "✗ no kernel for these shapes"
            };
            out.push(Row {
                kind,
                text: format!("{mark}  {name}  {}  {}", op.op_type, shapes.join(", ")),
                op: Some(name.clone()),
                target: Some(Target::Op(name.clone())),
            });
        }
    }
    out
}
