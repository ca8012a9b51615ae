//! The command palette (`:`, `ctrl-k`): every action available where it opens, narrowed as
//! you type, run by `enter` where it was opened; typed letters are text, never keys.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use skope::tui::app::Msg;
use skope::tui::palette_view::PaletteView;

fn ctrl_k(app: &mut skope::tui::app::App) {
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('k'),
        KeyModifiers::CONTROL,
    )));
}

#[test]
fn colon_lists_the_graphs_actions_and_enter_runs_the_one_typed() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char(':'));
    assert_eq!(app.up(), Some("palette"));
    let all = app.view_state::<PaletteView>().unwrap().entries.len();
    assert!(all > 40, "{all}");
    insta::assert_snapshot!("palette_120x40", screen(&app));
    // Typed letters narrow the list; `q` is a letter here, not quit.
    keys(&mut app, "qfind");
    let view = app.view_state::<PaletteView>().unwrap();
    assert_eq!(view.filter, "qfind");
    assert!(view.shown().is_empty(), "{:?}", view.shown());
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    keys(&mut app, "findings");
    let shown = app.view_state::<PaletteView>().unwrap().shown().len();
    assert!(shown >= 1 && shown < all, "{shown}");
    assert!(screen(&app).contains("the findings view"));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), Some("findings"));
}

#[test]
fn in_a_view_it_offers_that_views_keys_and_esc_goes_back_to_it() {
    let (mut app, rx) = app_with_events(140, 42);
    crate::tui_profiles::open(&mut app, &rx, "assets/examples/prof_result");
    assert_eq!(app.up(), Some("profiles"));
    ctrl_k(&mut app);
    assert_eq!(app.up(), Some("palette"));
    let view = app.view_state::<PaletteView>().unwrap();
    assert_eq!(view.over, Some("profiles"));
    let names: Vec<&str> = view.entries.iter().map(|e| e.action.name()).collect();
    assert!(
        names.contains(&"prune") && names.contains(&"undo"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"new_scope"),
        "graph-only actions are not offered: {names:?}"
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.up(), Some("profiles"));
    // Run `next table` from it: the profile view's own key.
    ctrl_k(&mut app);
    keys(&mut app, "next table");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), Some("profiles"));
    assert_eq!(
        app.profile_view().unwrap().table,
        skope::tui::profile_view::Table::Waterfall
    );
}
