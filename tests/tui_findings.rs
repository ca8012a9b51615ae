//! The findings view (`!`): the plan's findings with their severity, scope and op, the
//! profiles' when they are loaded and the notes of reading, one severity at a time with `s`,
//! `enter` going to the op, and `!` or `esc` closing it.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::findings_view::{FindingsView, Severity};

#[test]
fn bang_lists_the_findings_and_enter_goes_to_the_op() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.up(), Some("findings"));
    let text = screen(&app);
    assert!(
        text.contains("Findings · 0 error(s), 2 warning(s), 0 note(s) · showing all"),
        "{text}"
    );
    assert!(
        text.contains("! warning  plan      scope moe_1 · layer1_init_routing"),
        "{text}"
    );
    insta::assert_snapshot!("findings_120x40", text);
    // Enter on the second goes to its op, and the graph shows again.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), None);
    assert_eq!(selected_name(&app), "layer3_shared_up");
    // s shows one severity at a time: no errors here.
    press(&mut app, KeyCode::Char('!'));
    press(&mut app, KeyCode::Char('s'));
    let view = app.view_state::<FindingsView>().unwrap();
    assert_eq!(view.shown, Some(Severity::Error));
    assert!(screen(&app).contains("showing errors only"));
    assert!(screen(&app).contains("nothing to show"));
    // ! closes it again, from inside; so does esc.
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.up(), None);
    press(&mut app, KeyCode::Char('!'));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.up(), None);
}

#[test]
fn with_profiles_their_findings_and_notes_are_there_too() {
    let (mut app, rx) = app_with_events(140, 42);
    // Op statistics alone: the comparison notes that payoffs need the kernels.
    let ranks = "tests/fixtures/profile/ranks";
    crate::tui_profiles::open(&mut app, &rx, &format!("{ranks} {ranks}"));
    assert_eq!(app.up(), Some("profiles"));
    // From the profile view too: ! works on every layer.
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.up(), Some("findings"));
    let view = app.view_state::<FindingsView>().unwrap();
    assert!(
        view.items
            .iter()
            .any(|i| i.source == "profiles" && i.words.contains("payoffs need the kernels")),
        "{:?}",
        view.items
    );
    assert!(view.items.iter().all(|i| i.severity != Severity::Error));
    // Errors first, then warnings, then notes.
    assert!(
        view.items
            .windows(2)
            .all(|w| w[0].severity <= w[1].severity)
    );
}

#[test]
fn at_80_columns_it_still_reads() {
    let mut app = app(80, 24);
    press(&mut app, KeyCode::Char('!'));
    insta::assert_snapshot!("findings_80x24", screen(&app));
}
