//! The view contract, over the registry: every view over the panes has a unique name, opens on
//! the bundled example (or asks for what it needs first), draws at 80×24 and 200×50 without a
//! panic, closes on `esc`, lists every key it declares in the help, and opens only views
//! that exist.

use crate::ui::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use skope::tui::VIEWS;
use skope::tui::app::App;

fn draw(app: &mut App, w: u16, h: u16) {
    app.handle(skope::tui::app::Msg::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| skope::tui::views::render(app, f))
        .unwrap();
}

#[test]
fn every_view_keeps_the_contract() {
    let mut names: Vec<&str> = VIEWS.iter().map(|v| v.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before, "view names are unique: {names:?}");
    for view in VIEWS {
        let mut app = app(120, 40);
        (view.open)(&mut app);
        // Open, or asking first (a prompt, a question, a message saying what it needs).
        let opened = app.up() == Some(view.name);
        assert!(
            opened || app.prompt.is_some() || app.dialog.is_some() || app.status.is_some(),
            "{}: neither opened nor said why",
            view.name
        );
        for (w, h) in [(80, 24), (200, 50), (120, 40)] {
            draw(&mut app, w, h);
        }
        if opened {
            press(&mut app, KeyCode::Esc);
            assert_ne!(app.up(), Some(view.name), "{}: esc closes it", view.name);
            // And it opens again.
            (view.open)(&mut app);
            draw(&mut app, 80, 24);
        }
        // Every key it declares is in the help, with its words.
        let keymap = &app.config.keymap;
        let help: String = skope::tui::help_text::lines(
            keymap,
            &app.config.theme,
            120,
            Some((view.title, view.keys)),
        )
        .iter()
        .map(|l| l.to_string() + "\n")
        .collect();
        assert!(help.contains(view.title), "{}: {}", view.name, view.title);
        for (action, words) in view.keys {
            assert!(
                help.contains(words),
                "{}: `{words}` is not in the help",
                view.name
            );
            assert!(
                help.contains(&keymap.label(*action)),
                "{}: the keys of {action:?} are not in the help",
                view.name
            );
        }
    }
    // The views a handler opens by name exist.
    let sources = ["src/tui/scope_edits.rs", "src/tui/app.rs"];
    for source in sources {
        let text = std::fs::read_to_string(crate::common::repo(source)).unwrap();
        for opened in text.split("Reply::Open(\"").skip(1) {
            let name = opened.split('"').next().unwrap_or_default();
            assert!(
                VIEWS.iter().any(|v| v.name == name),
                "{source} opens a view named {name} that is not in VIEWS"
            );
        }
    }
}
