//! Driving the explorer in tests: an app on a dump, keys and mouse events, the screen as text.

// Shared by several test files, each of which uses only part of it.
#![allow(dead_code)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use skope::fusion::rules::RuleConfig;
use skope::load::LoadOptions;
use skope::open::{Input, open};
use skope::tui::app::{App, Msg};
use skope::tui::config::Config;
use skope::tui::loader::Loaded;
use skope::tui::views;
use std::path::PathBuf;

/// The bundled example.
pub const EXAMPLE: &str = "assets/examples/moe_decode.ge_proto.txt";

/// A plan file path of its own for each app (tests run in parallel).
pub fn scratch_plan() -> PathBuf {
    crate::common::scratch("tui").join("plan.skope.json")
}

/// An app that has loaded `file` in a `w`×`h` terminal.
pub fn app_on(file: &str, w: u16, h: u16, config: Config) -> App {
    let mut app = skope::tui::new_app(config, Rect::new(0, 0, w, h), file, scratch_plan());
    // Runs of its own, so none from outside the test shows.
    app.runs.dir = Some(scratch_plan().with_extension("runs"));
    let input = Input::File(PathBuf::from(file));
    let result = open(
        &input,
        LoadOptions::default(),
        &RuleConfig::default(),
        &mut |_| {},
    )
    .map_err(|e| e.to_string());
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(
        result.map(|(ws, _)| Box::new(Loaded::new(ws))),
    )));
    app
}

/// An app on the bundled example with a compile's kernel_meta at `meta`, as
/// `--kernel-meta` gives it.
pub fn app_with_kernel_meta(meta: &std::path::Path, w: u16, h: u16) -> App {
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, w, h),
        EXAMPLE,
        scratch_plan(),
    );
    app.runs.dir = Some(scratch_plan().with_extension("runs"));
    let input = Input::File(PathBuf::from(EXAMPLE));
    let (mut ws, _) = open(
        &input,
        LoadOptions::default(),
        &RuleConfig::default(),
        &mut |_| {},
    )
    .unwrap();
    let problems = skope::open::use_kernel_meta(&mut ws, &[meta.to_path_buf()]).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(Ok(
        Box::new(Loaded::new(ws)),
    ))));
    app
}

/// Writes a dump named `name` holding `text` to a temporary directory; returns its path.
pub fn temp_dump(name: &str, text: &str) -> String {
    let path = crate::common::scratch("tui-dump").join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

/// An app on the bundled example.
pub fn app(w: u16, h: u16) -> App {
    app_on(EXAMPLE, w, h, Config::default())
}

/// The app drawn into a buffer of its size.
pub fn buffer(app: &App) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    terminal.draw(|f| views::render(app, f)).unwrap();
    terminal.backend().buffer().clone()
}

/// The screen as text, one line per row.
pub fn screen(app: &App) -> String {
    let buf = buffer(app);
    (0..buf.area.height)
        .map(|y| {
            let mut line = String::new();
            for x in 0..buf.area.width {
                line.push_str(buf[(x, y)].symbol());
            }
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Presses one key.
pub fn press(app: &mut App, code: KeyCode) {
    app.handle(Msg::key(code));
}

/// Types `text`, one key per character.
pub fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

/// A mouse event at (`column`, `row`).
pub fn click(app: &mut App, column: u16, row: u16, kind: MouseEventKind) {
    app.handle(Msg::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    }));
}

/// Selects op `name` with a search.
pub fn find(app: &mut App, name: &str) {
    press(app, KeyCode::Char('/'));
    keys(app, &format!("name:{name}"));
    press(app, KeyCode::Enter);
    assert_eq!(selected_name(app), name);
}

/// The status line's text (empty without one).
pub fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

/// The name of the op selected in the list.
pub fn selected_name(app: &App) -> String {
    let ex = app.explorer().unwrap();
    ex.ws.graph().op(ex.selected_op().unwrap()).name.clone()
}

/// An app on the bundled example saving to `plan` (and finding its journal there), as
/// `skope --plan PLAN` starts.
pub fn app_with_plan(plan: &std::path::Path, w: u16, h: u16) -> App {
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, w, h),
        EXAMPLE,
        plan.to_path_buf(),
    );
    app.runs.dir = Some(plan.with_extension("runs"));
    let input = Input::File(PathBuf::from(EXAMPLE));
    let result = open(
        &input,
        LoadOptions::default(),
        &RuleConfig::default(),
        &mut |_| {},
    )
    .map_err(|e| e.to_string());
    let path = skope::tui::loader::PlanPath::given(plan.to_path_buf(), false);
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(
        result.and_then(|(ws, _)| skope::tui::loader::with_plan(ws, &path).map(Box::new)),
    )));
    app
}

/// The explorer with its event channel, so work on threads (runs, profiles) reaches it.
pub fn app_with_events(w: u16, h: u16) -> (App, std::sync::mpsc::Receiver<skope::tui::app::Msg>) {
    let mut app = app(w, h);
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    (app, rx)
}

/// Feeds the app its messages (with a clock) until `done` holds; fails after two minutes.
pub fn pump(
    app: &mut App,
    rx: &std::sync::mpsc::Receiver<skope::tui::app::Msg>,
    done: impl Fn(&App) -> bool,
) {
    let start = std::time::Instant::now();
    while !done(app) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "timed out"
        );
        if let Ok(msg) = rx.recv_timeout(std::time::Duration::from_millis(50)) {
            app.now = start.elapsed();
            app.handle(msg);
        }
    }
}

/// Opens the compile recipe picker (`c`) with `recipe` offered first.
pub fn offer(app: &mut App, recipe: skope::compile::recipe::Recipe) {
    app.handle(Msg::key(KeyCode::Char('c')));
    let Some(skope::tui::dialog::Dialog::Pick(picker)) = &mut app.dialog else {
        panic!("no picker");
    };
    let row = skope::tui::dialog::Pick::new(recipe.name.clone());
    assert!(
        picker.insert(0, row, recipe),
        "the recipe picker holds recipes"
    );
}
