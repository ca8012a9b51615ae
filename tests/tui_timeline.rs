//! The timeline view: a step of the bundled profiles laid out by stream, base above new,
//! opened from the graph and the profile view, zoomed, panned, stepped through gaps and
//! SuperKernels, and back to the graph on the selected kernel's op.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use skope::tui::app::{App, Msg};
use skope::tui::timeline_view::TimelineView;
use std::sync::mpsc::Receiver;

const BUNDLED: &str = "assets/examples/prof_result";

/// Reads the bundled profiles as `p` reads them.
fn read_bundled(app: &mut App, rx: &Receiver<Msg>) {
    press(app, KeyCode::Char('p'));
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    keys(app, BUNDLED);
    press(app, KeyCode::Enter);
    pump(app, rx, |app| app.profiles_loading.is_none());
}

/// The bundled profiles read and the timeline opened on them.
fn timeline(w: u16, h: u16) -> (App, Receiver<Msg>) {
    let (mut app, rx) = app_with_events(w, h);
    read_bundled(&mut app, &rx);
    press(&mut app, KeyCode::Char('T'));
    assert_eq!(app.up(), Some("timeline"), "{:?}", app.status);
    (app, rx)
}

fn view(app: &App) -> &TimelineView {
    app.view_state::<TimelineView>()
        .expect("the timeline's state")
}

#[test]
fn snapshot_the_timeline() {
    let (app, _rx) = timeline(120, 40);
    insta::assert_snapshot!("timeline_120x40", screen(&app));
    let (app, _rx) = timeline(80, 24);
    insta::assert_snapshot!("timeline_80x24", screen(&app));
}

#[test]
fn keys_zoom_pan_and_step_through_gaps_and_superkernels() {
    let (mut app, _rx) = timeline(120, 40);
    let whole = view(&app).ns_per_col;
    assert!(whole > 0.0);
    // Zoom in twice around the selected kernel: a quarter of the time per column.
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Char('+'));
    assert!((view(&app).ns_per_col - whole / 4.0).abs() < 1e-6);
    press(&mut app, KeyCode::Char('-'));
    assert!((view(&app).ns_per_col - whole / 2.0).abs() < 1e-6);
    // The next kernel, then the kernel after the next gap of at least 1 µs on s1 (the shared
    // expert's stream: its kernels come in bursts).
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(view(&app).at.block, 1);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!((view(&app).at.side, view(&app).at.lane), (0, 1));
    let before = view(&app).at.block;
    press(&mut app, KeyCode::Char(']'));
    let v = view(&app);
    let lane = &v.timeline.sides[0].lanes[1];
    let after = v.at.block;
    assert!(after > before, "{before} → {after}");
    assert!(lane.blocks[after].start - lane.blocks[after - 1].end >= 1_000);
    // The selected kernel stays in view.
    let cols = 120 - 2 - 6;
    let b = &lane.blocks[after];
    assert!(b.start >= v.left && (b.start as f64) < v.left as f64 + v.ns_per_col * cols as f64);
    // Down to the new profile's lane, then the next SuperKernel.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(view(&app).at.side, 1);
    press(&mut app, KeyCode::Char('}'));
    let v = view(&app);
    let sk = v.selected().expect("a kernel");
    assert!(
        matches!(sk.mark, skope::profile::timeline::Mark::SuperKernel(_)),
        "{sk:?}"
    );
    assert!(screen(&app).contains("SuperKernel of "), "{}", screen(&app));
    // Marking only longer gaps.
    press(&mut app, KeyCode::Char('>'));
    assert_eq!(view(&app).min_gap, 2_000);
    assert!(screen(&app).contains("gaps ≥ 2.00 µs"));
    // Another step.
    let step = view(&app).timeline.sides[0].step.clone();
    press(&mut app, KeyCode::Char('t'));
    assert_ne!(view(&app).timeline.sides[0].step, step);
    assert!(screen(&app).contains(&format!("base step {}", view(&app).timeline.sides[0].step)));
}

#[test]
fn enter_goes_to_the_kernels_op_and_the_view_opens_on_the_listed_op() {
    let (mut app, _rx) = timeline(120, 40);
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('l'));
    let name = view(&app).selected().expect("a kernel").name.to_string();
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), None);
    let listed = match &app.screen {
        skope::tui::app::Screen::Explorer(ex) => ex
            .selected_op()
            .map(|id| ex.ws.graph().ops()[id.0 as usize].name.clone()),
        _ => None,
    };
    assert_eq!(listed.as_deref(), Some(name.as_str()));
    // Back in the timeline, the op the list has selected is selected.
    press(&mut app, KeyCode::Char('T'));
    assert_eq!(app.up(), Some("timeline"));
    assert_eq!(
        view(&app).selected().map(|b| b.name.to_string()),
        Some(name)
    );
}

#[test]
fn without_profiles_the_timeline_says_what_it_needs_and_t_comes_from_the_profile_view() {
    let (mut app, rx) = app_with_events(120, 40);
    press(&mut app, KeyCode::Char('T'));
    assert_eq!(app.up(), None);
    let status = status(&app);
    assert!(status.contains("read them first with p"), "{status}");
    read_bundled(&mut app, &rx);
    assert_eq!(app.up(), Some("profiles"));
    press(&mut app, KeyCode::Char('T'));
    assert_eq!(app.up(), Some("timeline"));
    press(&mut app, KeyCode::Char('T'));
    assert_eq!(app.up(), None);
}
