//! Regenerates `screenshots/`: every main view of the explorer on the bundled example, drawn
//! by the real rendering code into ratatui's `TestBackend` and written as SVG.
//!
//! Run from the repository root: `cargo run --example screenshots`.

mod svg;

/// A comparison of many ranks, made up as the tests make it.
#[path = "../../tests/common/ranks_diff.rs"]
mod ranks_diff;

/// The aclgraph model directories the tests write from the documented formats.
#[path = "../../tests/common/acl_dirs.rs"]
#[allow(dead_code)]
mod acl_dirs;

use anyhow::{Context as _, Result};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use skope::fusion::rules::RuleConfig;
use skope::load::LoadOptions;
use skope::open::{Input, open};
use skope::tui::app::{App, Msg, Stage};
use skope::tui::config::Config;
use skope::tui::loader::Loaded;
use skope::tui::views;
use std::path::{Path, PathBuf};
use std::time::Duration;

const EXAMPLE: &str = "assets/examples/moe_decode.ge_proto.txt";
/// The bundled aclgraph pass output.
const ACLGRAPH_EXAMPLE: &str = "assets/examples/aclgraph";
/// The bundled MindSpore IR after the graph kernel passes.
const MINDSPORE_EXAMPLE: &str = "assets/examples/mindspore/graph_build_0_1.ir";

/// A view: file name, title, terminal size, and the keys that lead to it, typed as text
/// (`\r` is enter, `\t` shift-tab, `»` tab, `\x1b` esc, `«` down).
struct View {
    name: &'static str,
    title: &'static str,
    size: (u16, u16),
    keys: &'static str,
}

const VIEWS: &[View] = &[
    View {
        name: "explorer",
        title: "The explorer on the bundled example",
        size: (140, 42),
        keys: "jjjjjjjjjjjjjjjjjjjj",
    },
    View {
        name: "dataflow",
        title: "The dataflow around a break: segments framed, the cut marked",
        size: (140, 42),
        keys: "/name:layer1_expert_broadcast\rV",
    },
    View {
        name: "break",
        title: "A break with its reason, evidence and fix",
        size: (140, 42),
        keys: "]]",
    },
    View {
        name: "wide",
        title: "Three columns on a wide terminal",
        size: (200, 50),
        keys: "]j",
    },
    View {
        name: "scope",
        title: "A scope selected in the tree",
        size: (140, 42),
        keys: "\t«««",
    },
    View {
        name: "breaks_only",
        title: "Only the breaks",
        size: (140, 42),
        keys: "bj",
    },
    View {
        name: "search",
        title: "Searching by reason",
        size: (140, 42),
        keys: "/reason:simt",
    },
    View {
        name: "help",
        title: "Help, generated from the keymap",
        size: (140, 42),
        keys: "?",
    },
    View {
        name: "small",
        title: "An 80×24 terminal",
        size: (80, 24),
        keys: "]",
    },
    View {
        name: "details_zoomed",
        title: "A break's details over the whole body (z) on an 80×24 terminal",
        size: (80, 24),
        keys: "]z",
    },
    View {
        name: "findings",
        title: "The plan's findings (!), to go to one",
        size: (140, 42),
        keys: "!",
    },
    View {
        name: "edit",
        title: "After an edit: the break healed, the changed rows marked",
        size: (140, 42),
        keys: "/name:layer2_mask_fill\raattn_2\r",
    },
    View {
        name: "picker",
        title: "Putting ops into a scope",
        size: (140, 42),
        keys: "/name:layer3_gate\rvjaroute",
    },
    View {
        name: "options",
        title: "The options editor",
        size: (140, 42),
        keys: "/name:layer1_gate\rojjl",
    },
    View {
        name: "build_fails",
        title: "strict-scope-check=abort on a broken scope: GE fails the whole build",
        size: (140, 42),
        keys: "/name:layer1_gate\rojjll\x1b",
    },
    View {
        name: "suggestions",
        title: "Suggested scopes, ranked (S), with the second one's ops listed",
        size: (140, 42),
        keys: "Sj\r",
    },
    View {
        name: "code",
        title: "The generated entry code of the selected op's segment",
        size: (170, 48),
        keys: "/name:layer0_qkv_proj\re",
    },
    View {
        name: "code_zoomed",
        title: "The code over the whole body (z)",
        size: (140, 42),
        keys: "/name:layer0_qkv_proj\rez",
    },
    View {
        name: "neighbours",
        title: "Going to an op the selected one takes from or gives to",
        size: (140, 42),
        keys: "/name:layer0_rope\r»\r",
    },
    View {
        name: "recipes",
        title: "Picking a recipe",
        size: (140, 42),
        keys: "c",
    },
];

/// The key presses `text` stands for.
fn presses(text: &str) -> Vec<KeyCode> {
    text.chars()
        .map(|c| match c {
            '\r' => KeyCode::Enter,
            '\t' => KeyCode::BackTab,
            '»' => KeyCode::Tab,
            '\x1b' => KeyCode::Esc,
            '«' => KeyCode::Down,
            c => KeyCode::Char(c),
        })
        .collect()
}

fn main() -> Result<()> {
    let out = Path::new("screenshots");
    std::fs::create_dir_all(out).context("cannot create screenshots/")?;
    for view in VIEWS {
        let (w, h) = view.size;
        let mut app = explorer(w, h)?;
        press(&mut app, view.keys);
        highlight_code(&mut app);
        write(&app, out, view.name, view.title)?;
    }
    runs(out)?;
    ledger(out)?;
    compare(out)?;
    ranks(out)?;
    aclgraph(out)?;
    mindspore(out)?;
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, 100, 24),
        "ge_proto_00000042_Build.txt",
        PathBuf::from("ge_proto_00000042_Build.txt.skope.json"),
    );
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Progress(
        Stage::Reading {
            done: 61_000_000,
            total: 104_900_000,
        },
    )));
    app.handle(Msg::Tick(Duration::from_millis(300)));
    write(&app, out, "loading", "Loading a large dump")?;
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, 100, 24),
        "broken.txt",
        PathBuf::from("broken.txt.skope.json"),
    );
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(Err(
        "broken.txt:3:1: unexpected end of file inside message `op` (opened at 2:3)\n  hint: the file is truncated; dump the graph again".to_string(),
    ))));
    write(&app, out, "load_error", "A load error, in the UI")?;
    // The edits above went to a journal of their own; it is not needed.
    let plan = std::env::temp_dir().join("skope-screenshots.skope.json");
    let _ = std::fs::remove_file(skope::journal::path(&plan));
    Ok(())
}

/// The explorer on the bundled MindSpore IR, on a kernel left out of every composite, and
/// its graph kernel flags (`o`).
fn mindspore(out: &Path) -> Result<()> {
    let mut app = explorer_on(MINDSPORE_EXAMPLE, 160, 45)?;
    press(
        &mut app,
        "/name:Default/model-Model/layers-CellList/0-DecoderLayer/Softmax-op9\r",
    );
    write(
        &app,
        out,
        "mindspore",
        "MindSpore graph kernel fusion: composites, and why a kernel was left out",
    )?;
    press(&mut app, "o");
    write(
        &app,
        out,
        "mindspore_flags",
        "MindSpore's graph kernel flags and what each would change in this graph",
    )
}

/// The explorer on the bundled aclgraph pass output, on the unsupported attention kernel; and
/// on a whole-model scope over four layers (written by the tests' generator), its first
/// layer's scope selected.
fn aclgraph(out: &Path) -> Result<()> {
    let mut app = explorer_on(ACLGRAPH_EXAMPLE, 160, 45)?;
    press(&mut app, "/FusedInferAttentionScore_30ab9e11#7\r");
    write(
        &app,
        out,
        "aclgraph",
        "What the aclgraph pass did, in the explorer",
    )?;
    press(&mut app, "/name:RmsNorm_5cce7ee1#4\rI");
    write(
        &app,
        out,
        "inside",
        "Inside a SuperKernel: its sub-ops on Cube and Vector, on the device clock",
    )?;
    let root = Path::new("target/screenshots");
    let _ = std::fs::remove_dir_all(root);
    let whole = acl_dirs::whole_model(root);
    let mut app = explorer_on(&whole.dir.to_string_lossy(), 160, 50)?;
    press(&mut app, "\tg");
    write(
        &app,
        out,
        "whole_model",
        "One scope over the whole model: where it split and why, by layer",
    )
}

/// The explorer on the bundled example in a `w`×`h` terminal.
fn explorer(w: u16, h: u16) -> Result<App> {
    explorer_on(EXAMPLE, w, h)
}

/// The explorer on `file` in a `w`×`h` terminal.
fn explorer_on(file: &str, w: u16, h: u16) -> Result<App> {
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, w, h),
        file,
        std::env::temp_dir().join("skope-screenshots.skope.json"),
    );
    let input = Input::File(PathBuf::from(file));
    let ws = open(
        &input,
        LoadOptions::default(),
        &RuleConfig::default(),
        &mut |_| {},
    )
    .map_err(|e| e.to_string())
    .map_err(anyhow::Error::msg)?;
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(Ok(
        Box::new(Loaded::new(ws.0)),
    ))));
    Ok(app)
}

/// The runs view after a real run of the built-in `check` recipe.
fn runs(out: &Path) -> Result<()> {
    let mut app = explorer(140, 42)?;
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    // A fresh directory, so the run is always check-1.
    let runs = std::env::temp_dir().join("skope-screenshots.runs");
    let _ = std::fs::remove_dir_all(&runs);
    app.runs.dir = Some(runs);
    press(&mut app, "ccheck\r");
    wait(&mut app, &rx, "the check run", |app| {
        app.runs.running() == 0
    })?;
    write(&app, out, "runs", "The runs view after the check recipe")
}

/// Writes a run record into a fresh `dir` of `runs`: `plan` made, profile at `results`.
fn record(
    runs: &Path,
    dir: &str,
    (plan, predicted): (
        &skope::planfile::PlanFile,
        Option<skope::suggest::prediction::PlanPrediction>,
    ),
    results: &Path,
    (started_ms, recipe): (u64, &str),
) -> Result<()> {
    use skope::compile::record::{self, Ending, RunRecord};
    let dir = runs.join(dir);
    std::fs::create_dir_all(&dir)?;
    plan.write(&dir.join(record::PLAN))?;
    std::fs::write(dir.join(record::LOG), "")?;
    RunRecord {
        recipe: recipe.to_string(),
        recipe_file: None,
        argv: vec!["python3".into(), "run_model.py".into()],
        cwd: ".".into(),
        env: Vec::new(),
        dump: skope::example::DUMP_NAME.into(),
        graph: Some(plan.graph.clone()),
        plan: record::PLAN.into(),
        log: record::LOG.into(),
        results: Some(results.display().to_string()),
        started_ms,
        ended_ms: Some(started_ms + 95_000),
        ending: Some(Ending::Passed),
        exit_code: Some(0),
        signal: None,
        error: None,
        predicted,
    }
    .write(&dir)?;
    Ok(())
}

/// The run ledger over three recorded runs: a baseline without scopes, the example's plan,
/// and a run with other options whose profile has gone.
fn ledger(out: &Path) -> Result<()> {
    let mut app = explorer(140, 42)?;
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    let runs = std::env::temp_dir().join("skope-screenshots-ledger.runs");
    let _ = std::fs::remove_dir_all(&runs);
    app.runs.dir = Some(runs.clone());
    let ex = app.explorer().context("no explorer")?;
    let plan = skope::planfile::PlanFile::of(&ex.ws);
    let mut base = plan.clone();
    base.scopes.clear();
    let mut tuned = plan.clone();
    tuned.scopes[0].options = "stream-fusion=1".into();
    let prof = Path::new("assets/examples/prof_result");
    // What the example's plan was predicted to save before its run, from the pair.
    let predicted = skope::commands::suggest::ranked(&ex.ws, &[prof.to_path_buf()], None)?
        .0
        .today;
    let day = 1_795_600_000_000;
    let base_run = (&base, None);
    record(
        &runs,
        "base-1",
        base_run,
        &prof.join("no_sk_model"),
        (day, "base"),
    )?;
    let model_run = (&plan, predicted);
    let model = (day + 600_000, "model");
    record(&runs, "model-1", model_run, &prof.join("sk_model"), model)?;
    let gone = runs.join("model-2/prof");
    let tuned_run = (&tuned, None);
    record(
        &runs,
        "model-2",
        tuned_run,
        &gone,
        (day + 1_200_000, "model"),
    )?;
    press(&mut app, "C");
    wait(&mut app, &rx, "the ledger", |app| {
        app.view_state::<skope::tui::ledger_view::LedgerView>()
            .is_some_and(|v| !v.building && v.ledger.is_some())
    })?;
    press(&mut app, "k");
    write(
        &app,
        out,
        "ledger",
        "The run ledger: every run against the baseline, and what its plan changed",
    )?;
    // The baseline and the run of the example's plan marked: their comparison, each
    // SuperKernel's prediction beside what it measured.
    // By benefit: run 2, the baseline (run 1), the run whose profile has gone.
    press(&mut app, "Gk k ");
    wait(&mut app, &rx, "the run's profiles", |app| {
        app.profiles_loading.is_none() && app.profile_view().is_some()
    })?;
    write(
        &app,
        out,
        "foresight",
        "A run's profile: each SuperKernel's prediction, made before the run, beside what it measured",
    )
}

/// The ranks view of 256 ranks × 32 SuperKernels, sorted by a SuperKernel's Δ.
fn ranks(out: &Path) -> Result<()> {
    let mut app = explorer(140, 42)?;
    ranks_diff::show(&mut app, 256, 32);
    press(&mut app, "llls");
    write(
        &app,
        out,
        "ranks",
        "Every rank at a glance: step time, each SuperKernel's Δ, the straggler",
    )
}

/// The profile view on the bundled profiles, its segments table, and the op list's times.
fn compare(out: &Path) -> Result<()> {
    let mut app = explorer(140, 42)?;
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    // p guesses the bundled profiles beside the dump; enter reads them.
    press(&mut app, "p\r");
    wait(&mut app, &rx, "the profiles", |app| {
        app.profiles_loading.is_none()
    })?;
    anyhow::ensure!(
        (app.up() == Some("profiles")),
        "no profile view: {:?}",
        app.status
    );
    write(
        &app,
        out,
        "compare",
        "Profiles with and without SuperKernel: did each SuperKernel pay?",
    )?;
    app.handle(Msg::key(KeyCode::Tab));
    write(
        &app,
        out,
        "compare_waterfall",
        "Where the step time went: the parts that add up to it, without and with SuperKernel",
    )?;
    press(&mut app, "\x1b/name:layer0_attention\r");
    write(&app, out, "op_times", "The op list with each op's time")?;
    // The timeline of the median step, zoomed in on the first layer's attention.
    press(&mut app, "T++");
    write(
        &app,
        out,
        "timeline",
        "A step of both profiles in time: segments, breaks, gaps, and the time saved",
    )?;
    press(&mut app, "\x1b");
    // K guesses the bundled static kernel outputs beside the dump; enter reads them.
    press(&mut app, "K\r");
    wait(&mut app, &rx, "the static kernel outputs", |app| {
        app.view_state::<skope::tui::statics_view::StaticsView>()
            .is_some()
    })?;
    press(&mut app, "G");
    write(
        &app,
        out,
        "statics",
        "Static kernels: compiled, left out, and the graph's ops with their time",
    )
}

/// Presses the keys `text` stands for.
fn press(app: &mut App, text: &str) {
    for key in presses(text) {
        app.handle(Msg::key(key));
    }
}

/// Feeds `app` the workers' messages (with a clock) until `done` holds; fails after five
/// minutes.
fn wait(
    app: &mut App,
    rx: &std::sync::mpsc::Receiver<Msg>,
    what: &str,
    done: impl Fn(&App) -> bool,
) -> Result<()> {
    let start = std::time::Instant::now();
    while !done(app) {
        anyhow::ensure!(
            start.elapsed() < Duration::from_secs(300),
            "waited too long for {what}: {:?}",
            app.status
        );
        if let Ok(msg) = rx.recv_timeout(Duration::from_millis(50)) {
            app.now = start.elapsed();
            app.handle(msg);
        }
    }
    Ok(())
}

/// Highlights the code view's code here, as the worker thread does in the explorer.
fn highlight_code(app: &mut App) {
    let Some(view) = app.explorer().and_then(|ex| ex.code.as_ref()) else {
        return;
    };
    let Some(code) = &view.code else {
        return;
    };
    let done = skope::tui::highlight::Highlighted {
        generation: view.generation,
        first: 0,
        lines: skope::tui::highlight::highlight(&code.source),
    };
    app.handle(Msg::from(done));
}

fn write(app: &App, dir: &Path, name: &str, title: &str) -> Result<()> {
    let mut terminal = Terminal::new(TestBackend::new(app.size.width, app.size.height))?;
    terminal.draw(|f| views::render(app, f))?;
    let path = dir.join(format!("{name}.svg"));
    std::fs::write(
        &path,
        svg::buffer_to_svg(terminal.backend().buffer(), title),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    println!("wrote {}", path.display());
    Ok(())
}
