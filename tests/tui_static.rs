//! The static kernels view: `K` guesses where a static kernel compile's outputs are, reads
//! them, and lists the op types compiled with their signatures, what was left out grouped by
//! why, and the graph's ops joined by type and shapes (said to be a guess); enter goes to the
//! graph; with profiles read, each op shows its time; bad directories are refused plainly.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use skope::tui::app::{App, Msg};
use skope::tui::statics_view::StaticsView;

const BUNDLED: &str = "assets/examples/static_kernel_compile_outputs";

fn view(app: &App) -> &StaticsView {
    app.view_state::<StaticsView>().unwrap()
}

/// Selects the first row whose text holds `words`.
fn select(app: &mut App, words: &str) {
    let at = view(app)
        .rows
        .iter()
        .position(|r| r.text.contains(words))
        .unwrap_or_else(|| panic!("no row with {words}"));
    press(app, KeyCode::Char('g'));
    for _ in 0..at {
        press(app, KeyCode::Char('j'));
    }
    assert_eq!(view(app).list.selected, at);
}

/// Types `path` into the open prompt in place of its guess, and submits it.
fn submit(app: &mut App, path: &str) {
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    keys(app, path);
    press(app, KeyCode::Enter);
}

#[test]
fn k_guesses_the_outputs_and_shows_what_was_compiled_left_out_and_joined() {
    let mut app = app(130, 40);
    press(&mut app, KeyCode::Char('K'));
    // Next to the dump: the bundled example's outputs.
    assert_eq!(app.prompt.as_ref().unwrap().input, BUNDLED);
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), Some("statics"));
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "static kernels: 4 op type(s), 5 binary(ies); 0 problem(s) reading files"
    );
    let text = screen(&app);
    for words in [
        "Static kernels · 4 op type(s), 5 binary(ies) · assets/examples/static_kernel_compile_outputs",
        "ops joined by type and input shapes (a guess: the outputs do not name the graph's ops)",
        "Compiled: 4 op type(s), one binary per input signature",
        "MatMulV2 · 2 binary(ies)",
        "bfloat16[8,1024] ND",
        "Filtered out: 4 op signature(s) the compile saw and did not build",
        "a dynamic shape: no static kernel for it · 1",
        "GroupedMatmul  bfloat16[-1,7168] ND",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    insta::assert_snapshot!("statics_130x40", text);
    // The graph's section: the ops of compiled types without a kernel for their shapes first.
    let rows = &view(&app).rows;
    let graph = rows
        .iter()
        .position(|r| {
            r.text
                == "Graph: 34 op(s) with a static kernel, 4 of a compiled type without one for \
                    their shapes (joined by type and shapes: a guess)"
        })
        .expect("the graph section");
    assert_eq!(
        rows[graph + 1].text,
        "✗ no kernel for these shapes  layer0_shared_down  MatMulV2  [8,2048]"
    );
    assert!(
        rows[graph + 5]
            .text
            .starts_with("✓ static kernel  layer0_input_rmsnorm  RmsNorm")
    );
    assert_eq!(rows.len(), graph + 1 + 38);
    // The help names the view's keys; K closes it and opens it again without reading.
    press(&mut app, KeyCode::Char('?'));
    assert!(screen(&app).contains("In the static kernels view"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('K'));
    assert_ne!(app.up(), Some("statics"));
    assert!(screen(&app).contains("Ops (execution order) 137"));
    press(&mut app, KeyCode::Char('K'));
    assert!((app.up() == Some("statics")) && app.prompt.is_none());
    // The key bar shows the view's keys, those that do the same sharing an entry.
    let text = screen(&app);
    let bar = text.lines().last().unwrap_or_default();
    assert!(bar.contains("K/esc back to the graph"), "{bar}");
}

#[test]
fn enter_goes_to_an_op_or_to_the_ops_of_a_type() {
    let mut app = app(130, 40);
    press(&mut app, KeyCode::Char('K'));
    press(&mut app, KeyCode::Enter);
    select(&mut app, "layer2_shared_down");
    press(&mut app, KeyCode::Enter);
    assert_ne!(app.up(), Some("statics"));
    assert_eq!(selected_name(&app), "layer2_shared_down");
    // A type row filters the op list to that type.
    press(&mut app, KeyCode::Char('K'));
    select(&mut app, "SwiGlu · 1 binary(ies)");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "4 op(s) of type SwiGlu in the graph; F clears the filter"
    );
    // A heading goes nowhere, and says so.
    press(&mut app, KeyCode::Char('K'));
    select(&mut app, "Compiled: ");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), Some("statics"));
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "nothing in the graph for this row"
    );
}

#[test]
fn a_directory_without_outputs_is_refused_and_the_view_stays_closed() {
    let mut app = app(130, 40);
    press(&mut app, KeyCode::Char('K'));
    submit(&mut app, "assets/examples/prof_result");
    assert!(app.view_state::<StaticsView>().is_none());
    let status = app.status.as_ref().unwrap();
    assert!(status.problem);
    assert!(
        status
            .text
            .contains("no static kernel compile outputs here"),
        "{}",
        status.text
    );
    assert!(!status.text.contains('\n'));
}

#[test]
fn with_profiles_read_each_op_shows_its_time_on_the_worker_path() {
    let (mut app, rx) = app_with_events(140, 42);
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Char('K'));
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| {
        app.view_state::<StaticsView>().is_some()
    });
    let text = screen(&app);
    assert!(
        text.contains("base profile: ") && text.contains("µs in ops with a static kernel"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("✓ static kernel  layer0_input_rmsnorm"))
        .expect("the op's row");
    assert!(line.contains(" µs"), "{line}");
}

#[test]
fn the_hinted_key_asks_for_profiles_from_the_view() {
    let mut app = app(130, 40);
    press(&mut app, KeyCode::Char('K'));
    press(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("P reads profiles for their time"));
    press(&mut app, KeyCode::Char('P'));
    assert!(
        matches!(&app.prompt, Some(p) if p.label == "profiles: "),
        "{}",
        screen(&app)
    );
}
