//! The suggestions view: it lists the suggested scopes of the current plan, says how their
//! saving is estimated, lists a suggestion's ops, and accepts one or all as ordinary edits that
//! undo and that the plan follows.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;

fn view(app: &skope::tui::app::App) -> &skope::tui::suggestions::SuggestionsView {
    app.explorer().unwrap().suggestions.as_ref().unwrap()
}

#[test]
fn the_view_lists_suggestions_and_says_they_are_counted_without_profiles() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char('S'));
    let text = screen(&app);
    assert!(
        text.contains("Suggested scopes · 20 · by saving · the saving is an estimate"),
        "{text}"
    );
    assert!(
        text.contains("ranked by kernel boundaries removed — a count, not a time"),
        "{text}"
    );
    // Nothing that crosses a layer: layer 2 whole comes first.
    assert!(!text.contains("layer1_gmm_up … layer3_rope"), "{text}");
    assert!(
        text.contains("layer2_input_rmsnorm … layer2_moe_add"),
        "{text}"
    );
    insta::assert_snapshot!("suggestions_120x40", text);
    // enter lists the selected one's ops; s sorts; the help names the view's keys.
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(view(&app).expanded);
    assert!(
        text.contains("sk_layer2_part_s0_71 · 10 ops · starts after layer1_moe_add"),
        "{text}"
    );
    press(&mut app, KeyCode::Char('s'));
    assert!(screen(&app).contains("by ops"));
    press(&mut app, KeyCode::Char('?'));
    assert!(screen(&app).contains("In the suggestions view"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert_ne!(app.up, Some("suggestions"));
    assert!(screen(&app).contains("Ops (execution order) 137"));
}

#[test]
fn accepting_makes_scopes_the_plan_follows_and_undo_takes_them_back() {
    let mut app = app(120, 40);
    let before = app.explorer().unwrap().ws.plan().clone();
    press(&mut app, KeyCode::Char('S'));
    let top = view(&app).current().unwrap().clone();
    press(&mut app, KeyCode::Char('a'));
    let plan = app.explorer().unwrap().ws.plan();
    let scope = plan
        .scopes
        .iter()
        .find(|s| s.name == top.name)
        .expect("the new scope");
    assert_eq!(scope.segments.len(), 1);
    assert_eq!(scope.segments[0].ops, top.ops);
    // The list follows: the accepted one is fused as it is now.
    let again = view(&app)
        .suggestions
        .list
        .iter()
        .find(|s| s.ops == top.ops)
        .unwrap();
    assert!(matches!(again.versus, skope::suggest::Versus::Same(_)));
    // Accepting it again says so.
    press(&mut app, KeyCode::Char('g'));
    let row = view(&app)
        .order
        .iter()
        .position(|&i| view(&app).suggestions.list[i].ops == top.ops)
        .unwrap();
    for _ in 0..row {
        press(&mut app, KeyCode::Char('j'));
    }
    press(&mut app, KeyCode::Char('a'));
    assert!(screen(&app).contains("is already fused as it is"));
    // Accept all: each an undo step of its own; back in the graph, u takes them back.
    press(&mut app, KeyCode::Char('A'));
    assert!(
        screen(&app).contains("u undoes them one at a time"),
        "{}",
        screen(&app)
    );
    // At least one more edit than the first accept; the scopes it emptied are gone.
    let (done, _) = app.explorer().unwrap().ws.history_len();
    assert!(done >= 2, "{done}");
    press(&mut app, KeyCode::Esc);
    let (done, _) = app.explorer().unwrap().ws.history_len();
    for _ in 0..done {
        press(&mut app, KeyCode::Char('u'));
    }
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
}

#[test]
fn with_the_profiles_read_the_saving_is_in_microseconds_and_the_fit_is_said() {
    let (mut app, rx) = app_with_events(120, 40);
    press(&mut app, KeyCode::Char('p'));
    app.handle(skope::tui::app::Msg::Key(
        ratatui::crossterm::event::KeyEvent::new(
            KeyCode::Char('u'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ),
    ));
    keys(&mut app, "assets/examples/prof_result");
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('S'));
    // They are made on the worker; the view says so until they come.
    assert!(screen(&app).contains("making them for the current plan"));
    pump(&mut app, &rx, |app| !view(app).stale);
    let text = screen(&app);
    assert!(text.contains("µs/step"), "{text}");
    assert!(
        text.contains("coefficients fitted on 12 segments: leave-one-out error"),
        "{text}"
    );
    // The bundled pair cannot tell the gap from the sync costs: they come out negative, and
    // the view says they were left out.
    assert!(text.contains("· refitted without c"), "{text}");
    let fit = view(&app).fit.as_ref().expect("a fit");
    assert!(fit.rejected.iter().any(|r| r == "c_same=-0.91"), "{fit:?}");
    assert!(view(&app).suggestions.measured && view(&app).fit.is_some());
}
