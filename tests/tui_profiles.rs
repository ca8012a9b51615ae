//! The profile view: profiles read on the worker and compared against the plan, the totals
//! and the attribution, the three tables (op types sortable, segments, breaks), drill-down to
//! the graph, the op list's time column, re-comparing after an edit, ranks, bad profiles, and
//! a run whose results hold profiles opening them by itself.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::app::{App, Msg};
use skope::tui::profile_view::{Sort, Table};
use std::sync::mpsc::Receiver;

const BUNDLED: &str = "assets/examples/prof_result";

/// Asks for `paths` with `p` and waits until they are read (or refused).
fn open(app: &mut App, rx: &Receiver<Msg>, paths: &str) {
    press(app, KeyCode::Char('p'));
    // The prompt guesses a path; replace it.
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('u'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    )));
    keys(app, paths);
    press(app, KeyCode::Enter);
    pump(app, rx, |app| app.profiles_loading.is_none());
}

fn bundled(w: u16, h: u16) -> (App, Receiver<Msg>) {
    let (mut app, rx) = app_with_events(w, h);
    open(&mut app, &rx, BUNDLED);
    assert!((app.up == Some("profiles")), "{:?}", app.status);
    (app, rx)
}

#[test]
fn p_guesses_the_profiles_and_reads_them_into_the_view() {
    let (mut app, rx) = app_with_events(140, 42);
    press(&mut app, KeyCode::Char('p'));
    // Next to the dump: assets/examples/prof_result.
    assert_eq!(app.prompt.as_ref().unwrap().input, BUNDLED);
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    let text = screen(&app);
    assert!(
        text.contains("total          531.50 µs →     473.00 µs   ▼ −58.50 µs (−11.01 %)"),
        "{text}"
    );
    assert!(
        text.contains("benefit 11.01 % (faster with SuperKernel)"),
        "{text}"
    );
    assert!(
        text.contains("fused op types: the plan's segments"),
        "{text}"
    );
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "profiles compared: 531.50 µs → 473.00 µs, benefit 11.01 %"
    );
    // p and esc go back to the graph and p comes back, without reading again.
    press(&mut app, KeyCode::Esc);
    assert_ne!(app.up, Some("profiles"));
    press(&mut app, KeyCode::Char('p'));
    assert!((app.up == Some("profiles")) && app.prompt.is_none());
}

#[test]
fn snapshot_the_profile_view() {
    let (app, _rx) = bundled(140, 42);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn help_in_the_profile_view_starts_with_its_keys() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Char('?'));
    let text = screen(&app);
    assert!(text.contains("In the profile view"), "{text}");
    assert!(text.contains("sort op types by Δ, total, name"), "{text}");
    press(&mut app, KeyCode::Esc);
    assert!((app.up == Some("profiles")) && app.help.is_none());
}

#[test]
fn the_op_types_sort_by_delta_total_and_name() {
    let (mut app, _rx) = bundled(140, 42);
    let first = |app: &App| {
        let view = app.profile_view().unwrap();
        let r = view.type_row(0).unwrap();
        format!("{} {}", r.op_type, r.core_type)
    };
    assert_eq!(app.profile_view().unwrap().sort, Sort::Delta);
    assert_eq!(first(&app), "GroupedMatmul MIX_AIC");
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(first(&app), "SuperKernel MIX_AIC");
    assert!(screen(&app).contains("sorted by total"));
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(first(&app), "Add AI_VECTOR_CORE");
    // The regression (new SuperKernel time) is last by Δ and says so without colour.
    press(&mut app, KeyCode::Char('s'));
    let text = screen(&app);
    assert!(
        text.contains(
            "SuperKernel              MIX_AIC             ·         ·     12    447.66   ▲ +447.66"
        ),
        "{text}"
    );
}

#[test]
fn segments_and_breaks_with_and_without_superkernel() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.profile_view().unwrap().table, Table::Segments);
    let text = screen(&app);
    assert!(text.contains("[segments 13]"), "{text}");
    assert!(
        text.contains("attn_0                     attn_0          8      56.38     50.08     ▼ −6.30   −11.17 %"),
        "{text}"
    );
    press(&mut app, KeyCode::Tab);
    let text = screen(&app);
    assert!(
        text.contains(
            "✗ layer1_expert_broadca… moe_1                1       9.11      1.00         1 communication op"
        ),
        "{text}"
    );
    // enter: the break's op in the graph.
    press(&mut app, KeyCode::Enter);
    assert_ne!(app.up, Some("profiles"));
    assert_eq!(selected_name(&app), "layer1_expert_broadcast");
}

#[test]
fn drill_down_from_an_op_type_filters_the_graph_and_a_superkernel_shows_the_segments() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Enter);
    let ex = app.explorer().unwrap();
    assert_eq!(ex.filter().unwrap().text(), "type:GroupedMatmul");
    assert_eq!(ex.rows().len(), 8);
    assert!(
        app.status
            .as_ref()
            .unwrap()
            .text
            .starts_with("8 op(s) of type GroupedMatmul")
    );
    press(&mut app, KeyCode::Char('F'));
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Char('G'));
    let view = app.profile_view().unwrap();
    assert_eq!(
        view.type_row(view.selected()).unwrap().op_type,
        "SuperKernel"
    );
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.profile_view().unwrap().table, Table::Segments);
    // A segment: its first op.
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "layer0_input_rmsnorm");
}

#[test]
fn the_op_list_shows_each_ops_time_with_a_heat_glyph() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    let text = screen(&app);
    assert!(text.contains("µs base"), "{text}");
    assert!(
        text.contains("layer0_attn_allreduce") && text.contains("17.36█"),
        "{text}"
    );
    assert!(text.contains("2.45▂"), "{text}");
}

#[test]
fn the_details_say_what_an_op_its_segment_and_a_break_cost() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    find(&mut app, "layer0_attention");
    let text = screen(&app);
    assert!(
        text.contains("base      14.67 µs without SuperKernel"),
        "{text}"
    );
    assert!(
        text.contains("segment   attn_0: 56.38 µs base → 50.08 µs new (▼ −6.30 µs, −11.17 %)"),
        "{text}"
    );
    // The same words as skope diff (its break under the reason and fix).
    find(&mut app, "layer1_expert_broadcast");
    press(&mut app, KeyCode::Char('z'));
    let text = screen(&app);
    assert!(
        text.contains(
            "✗ this break costs 9.11 µs in 1 unfused launch(es) (+1.00 µs wait): 1 unfused op(s)"
        ),
        "{text}"
    );
}

#[test]
fn an_edit_compares_again_against_the_new_plan() {
    let (mut app, rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    let segments = |app: &App| app.profile_view().unwrap().rows(Table::Segments);
    let current = |app: &App| !app.profile_view().unwrap().stale;
    assert_eq!(segments(&app), 13);
    // Keeping layer0_rope out of fusion splits attn_0 in two; the worker compares again and
    // until it answers, the view says so.
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('p'));
    assert!(
        !current(&app) && screen(&app).contains("comparing with the edited plan…"),
        "{}",
        screen(&app)
    );
    pump(&mut app, &rx, current);
    assert_eq!(segments(&app), 14);
    assert!(!screen(&app).contains("comparing with the edited plan"));
    // Undo and redo in a row: only the newest comparison counts.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('r'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    )));
    press(&mut app, KeyCode::Char('u'));
    pump(&mut app, &rx, current);
    assert_eq!(segments(&app), 13);
}

#[test]
fn several_ranks_are_offered_in_a_picker() {
    let (mut app, rx) = app_with_events(120, 40);
    let ranks = "tests/fixtures/profile/ranks";
    open(&mut app, &rx, &format!("{ranks} {ranks}"));
    let text = screen(&app);
    assert!(
        text.contains("The profiles hold several ranks: pick one"),
        "{text}"
    );
    assert!(
        text.contains(" rank 0 ") && text.contains(" rank 1 "),
        "{text}"
    );
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    assert!((app.up == Some("profiles")), "{:?}", app.status);
    assert_eq!(app.profile_view().unwrap().request.rank, Some(1));
    assert!(screen(&app).contains("(rank 1)"));
    // P offers the same paths again (without the rank, which the picker asks for).
    press(&mut app, KeyCode::Char('P'));
    assert_eq!(
        app.prompt.as_ref().unwrap().input,
        format!("{ranks} {ranks}")
    );
}

#[test]
fn bad_profiles_are_named_with_file_row_column_and_what_to_do() {
    let (mut app, rx) = app_with_events(120, 40);
    let bad = "tests/fixtures/profile/op_statistic/bad_number.csv";
    open(&mut app, &rx, &format!("{bad} {bad}"));
    assert_ne!(app.up, Some("profiles"));
    let status = app.status.clone().unwrap();
    assert!(status.problem, "{status:?}");
    assert!(status.text.contains("bad_number.csv"), "{status:?}");
    assert!(status.text.contains("row"), "{status:?}");
    open(&mut app, &rx, "/nonexistent/prof");
    let status = app.status.clone().unwrap();
    assert!(
        status.problem && status.text.contains("/nonexistent/prof"),
        "{status:?}"
    );
    // Nothing is lost: the graph is still there, and no view opened.
    assert!(app.explorer().is_some() && app.profile_view().is_none());
}

#[test]
fn a_run_whose_results_hold_profiles_opens_them() {
    let (mut app, rx) = app_with_events(140, 42);
    let runs = crate::common::scratch("tui-profiles");
    app.runs_dir = Some(runs);
    let source = std::path::absolute(BUNDLED).unwrap();
    let profile = skope::compile::recipe::Recipe {
        name: "compare".into(),
        about: String::new(),
        argv: vec![
            "cp".into(),
            "-r".into(),
            source.display().to_string(),
            "{out}/prof_result".into(),
        ],
        cwd: None,
        env: Vec::new(),
        results: Some("{out}/prof_result".into()),
        streams: skope::compile::job::Streams::Merged,
        file: None,
        overrides: false,
    };
    offer(&mut app, profile);
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.up == Some("profiles"));
    assert_ne!(app.up, Some("runs"));
    assert!(screen(&app).contains("benefit 11.01 %"));
}

#[test]
fn the_mouse_scrolls_the_profile_view_and_clicks_do_not_reach_the_hidden_panes() {
    let (mut app, _rx) = bundled(140, 42);
    let before = selected_name(&app);
    // A click where the op list would be, under the view.
    click(
        &mut app,
        60,
        20,
        ratatui::crossterm::event::MouseEventKind::Down(
            ratatui::crossterm::event::MouseButton::Left,
        ),
    );
    assert_eq!(selected_name(&app), before);
    assert_eq!(app.up, Some("profiles"));
    click(
        &mut app,
        60,
        20,
        ratatui::crossterm::event::MouseEventKind::ScrollDown,
    );
    assert_eq!(app.profile_view().unwrap().selected(), 1);
    // The wheel is not a key: with `down` bound elsewhere it still scrolls.
    app.config = skope::tui::config::parse("[keys]\ndown = \"ctrl-j\"\n").unwrap();
    click(
        &mut app,
        60,
        20,
        ratatui::crossterm::event::MouseEventKind::ScrollDown,
    );
    assert_eq!(app.profile_view().unwrap().selected(), 2);
}

#[test]
fn at_80_columns_the_delta_and_change_still_show() {
    let (app, _rx) = bundled(80, 24);
    let text = screen(&app);
    assert!(
        text.contains(
            "┃ GroupedMatmul        MIX_AIC      125.07         ·   ▼ −125.07  −100.00 %"
        ),
        "{text}"
    );
}
