//! Regenerates `screenshots/`: every main view of the explorer on the bundled example, drawn
//! by the real rendering code into ratatui's `TestBackend` and written as SVG.
//!
//! Run from the repository root: `cargo run --example screenshots`.

mod svg;

use anyhow::{Context as _, Result};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use skope::fusion::rules::RuleSet;
use skope::load::LoadOptions;
use skope::tui::app::{App, Msg, Stage};
use skope::tui::config::Config;
use skope::tui::loader::{Input, Loaded, load};
use skope::tui::views;
use std::path::{Path, PathBuf};
use std::time::Duration;

const EXAMPLE: &str = "assets/examples/moe_decode.ge_proto.txt";

/// A view: file name, title, terminal size, and the keys that lead to it.
struct View {
    name: &'static str,
    title: &'static str,
    size: (u16, u16),
    keys: &'static [KeyCode],
}

const VIEWS: &[View] = &[
    View {
        name: "explorer",
        title: "The explorer on the bundled example",
        size: (140, 42),
        keys: &[KeyCode::Char('j'); 20],
    },
    View {
        name: "break",
        title: "A break with its reason, evidence and fix",
        size: (140, 42),
        keys: &[KeyCode::Char(']'), KeyCode::Char(']')],
    },
    View {
        name: "wide",
        title: "Three columns on a wide terminal",
        size: (200, 50),
        keys: &[KeyCode::Char(']'), KeyCode::Char('j')],
    },
    View {
        name: "scope",
        title: "A scope selected in the tree",
        size: (140, 42),
        keys: &[
            KeyCode::BackTab,
            KeyCode::Down,
            KeyCode::Down,
            KeyCode::Down,
        ],
    },
    View {
        name: "breaks_only",
        title: "Only the breaks",
        size: (140, 42),
        keys: &[KeyCode::Char('b'), KeyCode::Char('j')],
    },
    View {
        name: "search",
        title: "Searching by reason",
        size: (140, 42),
        keys: &[
            KeyCode::Char('/'),
            KeyCode::Char('r'),
            KeyCode::Char('e'),
            KeyCode::Char('a'),
            KeyCode::Char('s'),
            KeyCode::Char('o'),
            KeyCode::Char('n'),
            KeyCode::Char(':'),
            KeyCode::Char('s'),
            KeyCode::Char('i'),
            KeyCode::Char('m'),
            KeyCode::Char('t'),
        ],
    },
    View {
        name: "help",
        title: "Help, generated from the keymap",
        size: (140, 42),
        keys: &[KeyCode::Char('?')],
    },
    View {
        name: "small",
        title: "An 80×24 terminal",
        size: (80, 24),
        keys: &[KeyCode::Char(']')],
    },
];

fn main() -> Result<()> {
    let out = Path::new("screenshots");
    std::fs::create_dir_all(out).context("cannot create screenshots/")?;
    for view in VIEWS {
        let (w, h) = view.size;
        let mut app = App::new(
            Config::default(),
            Rect::new(0, 0, w, h),
            EXAMPLE,
            PathBuf::from("screenshots.skope.json"),
        );
        let input = Input::File(PathBuf::from(EXAMPLE));
        let ws = load(
            &input,
            LoadOptions::default(),
            &RuleSet::bundled(),
            &mut |_| {},
        )
        .map_err(anyhow::Error::msg)?;
        app.handle(Msg::Loaded(Ok(Box::new(Loaded::new(ws)))));
        for key in view.keys {
            app.handle(Msg::key(*key));
        }
        write(&app, out, view.name, view.title)?;
    }
    let mut app = App::new(
        Config::default(),
        Rect::new(0, 0, 100, 24),
        "ge_proto_00000042_Build.txt",
        PathBuf::from("ge_proto_00000042_Build.txt.skope.json"),
    );
    app.handle(Msg::Progress(Stage::Reading {
        done: 61_000_000,
        total: 104_900_000,
    }));
    app.handle(Msg::Tick(Duration::from_millis(300)));
    write(&app, out, "loading", "Loading a large dump")?;
    let mut app = App::new(
        Config::default(),
        Rect::new(0, 0, 100, 24),
        "broken.txt",
        PathBuf::from("broken.txt.skope.json"),
    );
    app.handle(Msg::Loaded(Err(
        "broken.txt:3:1: unexpected end of file inside message `op` (opened at 2:3)\n  hint: the file is truncated; dump the graph again".to_string(),
    )));
    write(&app, out, "load_error", "A load error, in the UI")?;
    Ok(())
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
