//! The profile view: profiles read on the worker and compared against the plan, the account of
//! the time and the attribution, the four tables (SuperKernels with their payoffs worst first,
//! the waterfall, op types sortable, breaks), a step picked, pruning a regressed SuperKernel,
//! drill-down to the graph, the op list's time column, what an edit leaves of what ran, ranks,
//! bad profiles, and a run whose results hold profiles opening them by itself.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::app::{App, Msg};
use skope::tui::profile_view::{Sort, Table};
use std::sync::mpsc::Receiver;

const BUNDLED: &str = "assets/examples/prof_result";

/// Asks for `paths` with `p` and waits until they are read (or refused).
pub fn open(app: &mut App, rx: &Receiver<Msg>, paths: &str) {
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
    assert!((app.up() == Some("profiles")), "{:?}", app.status);
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
        text.contains(
            "step time      624.94 µs →     501.89 µs   ▼ −123.05 µs   19.69 % faster with SuperKernel"
        ),
        "{text}"
    );
    assert!(text.contains("busy time 531.31 → 473.58 µs"), "{text}");
    assert!(
        text.contains("fused op types: the plan's segments"),
        "{text}"
    );
    assert_eq!(
        app.status.as_ref().unwrap().text,
        "profiles compared: step time  624.94 µs → 501.89 µs   Δ ▼ −123.05 µs   19.69 % faster \
         with SuperKernel"
    );
    // p and esc go back to the graph and p comes back, without reading again.
    press(&mut app, KeyCode::Esc);
    assert_ne!(app.up(), Some("profiles"));
    press(&mut app, KeyCode::Char('p'));
    assert!((app.up() == Some("profiles")) && app.prompt.is_none());
}

#[test]
fn a_database_pair_reads_into_the_view_as_the_csvs_do() {
    let dir = crate::common::scratch("tui-profiles-db");
    let dbs = crate::common::profiler_db::pair_as_databases(&crate::common::repo(BUNDLED), &dir);
    let (mut app, rx) = app_with_events(140, 42);
    open(&mut app, &rx, &dbs.to_string_lossy());
    assert!((app.up() == Some("profiles")), "{:?}", app.status);
    let text = screen(&app);
    assert!(
        text.contains(
            "step time      624.94 µs →     501.89 µs   ▼ −123.05 µs   19.69 % faster with SuperKernel"
        ),
        "{text}"
    );
    assert_eq!(
        app.status.as_ref().map(|s| s.text.as_str()),
        Some(
            "profiles compared: step time  624.94 µs → 501.89 µs   Δ ▼ −123.05 µs   19.69 % \
             faster with SuperKernel"
        )
    );
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
    assert!((app.up() == Some("profiles")) && app.help.is_none());
}

#[test]
fn the_op_types_sort_by_delta_total_and_name() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.profile_view().unwrap().table, Table::Types);
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
            "SuperKernel              MIX_AIC             ·         ·     12    447.07   ▲ +447.07"
        ),
        "{text}"
    );
    // The op type selected stays selected when the rows are sorted again.
    let selected = |app: &App| {
        let view = app.profile_view().unwrap();
        let r = view.type_row(view.selected()).unwrap();
        format!("{} {}", r.op_type, r.core_type)
    };
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let before = selected(&app);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(selected(&app), before);
    assert_ne!(
        app.profile_view().unwrap().selected(),
        2,
        "it moved with its row"
    );
}

#[test]
fn the_waterfall_adds_up_and_a_break_costs_one_number() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.profile_view().unwrap().table, Table::Waterfall);
    let text = screen(&app);
    assert!(text.contains("[where the time went 16]"), "{text}");
    // The base's step time, the biggest change first, the new step time.
    assert!(
        text.contains("step time without SuperKernel            624.94"),
        "{text}"
    );
    assert!(
        text.contains("SuperKernel moe_2                         83.35     62.35   ▼ −21.00"),
        "{text}"
    );
    assert!(
        text.contains("step time with SuperKernel                         501.89  ▼ −123.05"),
        "{text}"
    );
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    let text = screen(&app);
    assert!(
        text.contains(
            "✗ layer1_expert_broadca… moe_1                1     10.11      9.11       1.00         1 communication op"
        ),
        "{text}"
    );
    // enter: the break's op in the graph.
    press(&mut app, KeyCode::Enter);
    assert_ne!(app.up(), Some("profiles"));
    assert_eq!(selected_name(&app), "layer1_expert_broadcast");
}

#[test]
fn drill_down_from_an_op_type_filters_the_graph_and_a_superkernel_shows_the_superkernels() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
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
    assert_eq!(app.profile_view().unwrap().table, Table::SuperKernels);
    // A SuperKernel, worst first: its first op.
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "layer1_init_routing");
}

#[test]
fn the_op_list_shows_each_ops_time_with_a_heat_glyph() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    let text = screen(&app);
    assert!(text.contains("µs base"), "{text}");
    assert!(
        text.contains("layer0_attn_allreduce") && text.contains("17.35█"),
        "{text}"
    );
    assert!(text.contains("2.46▂"), "{text}");
}

#[test]
fn the_details_say_what_an_op_its_segment_and_a_break_cost() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    find(&mut app, "layer0_attention");
    let text = screen(&app);
    assert!(
        text.contains("base      14.74 µs a step without SuperKernel"),
        "{text}"
    );
    assert!(
        text.contains(
            "segment   attn_0: 63.56 µs base → 50.02 µs new (▼ −13.55 µs) a step, its part of the step time"
        ),
        "{text}"
    ); // Its SuperKernel's payoff, measured on the interval of its kernels.
    assert!(
        text.contains("payoff    beneficial — keep: saves 13.70 µs per occurrence"),
        "{text}"
    );

    // The same words as skope diff (its break under the reason and fix).
    find(&mut app, "layer1_expert_broadcast");
    press(&mut app, KeyCode::Char('z'));
    let text = screen(&app);
    assert!(
        text.contains(
            "✗ this break costs 10.11 µs a step (1 unfused launch(es): 9.11 µs running, 1.00 µs waiting): 1 unfused op(s)"
        ),
        "{text}"
    );
}

#[test]
fn after_an_edit_the_view_keeps_what_the_run_built_and_says_what_the_plan_no_longer_has() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Esc);
    let superkernels = |app: &App| app.profile_view().unwrap().rows(Table::SuperKernels);
    assert_eq!(superkernels(&app), 13);
    // Keeping layer0_rope out of fusion splits attn_0 in two: the run built attn_0 whole.
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('p'));
    let view = app.profile_view().unwrap();
    assert_eq!(superkernels(&app), 13);
    assert_eq!(view.not_in_plan, ["attn_0"]);
    assert_eq!(view.not_in_run, 2);
    let text = screen(&app);
    assert!(
        text.contains("1 SuperKernel the run built is not in the current plan"),
        "{text}"
    );
    assert!(!text.contains("profile more steps"), "{text}");
    // The layer totals are the run's, attn_0 in them.
    let layers = &view.diff.payoffs.as_ref().unwrap().layers;
    assert_eq!(layers.len(), 4);
    // Undone, nothing is said.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    let view = app.profile_view().unwrap();
    assert!(view.not_in_plan.is_empty() && view.not_in_run == 0);
    assert!(view.drift_words().is_none());
}

#[test]
fn several_ranks_are_compared_together_and_r_shows_them_all() {
    let (mut app, rx) = app_with_events(120, 40);
    let ranks = "tests/fixtures/profile/ranks";
    open(&mut app, &rx, &format!("{ranks} {ranks}"));
    // Every rank compared; the slowest shown.
    assert!((app.up() == Some("profiles")), "{:?}", app.status);
    let view = app.profile_view().unwrap();
    assert_eq!(view.request.rank, Some(1));
    assert_eq!(view.ranks.as_ref().unwrap().ranks.len(), 2);
    assert!(
        screen(&app).contains("rank 1 of 2 (the slowest)"),
        "{}",
        screen(&app)
    );
    // R: every rank at a glance, in rank order; enter opens the selected one.
    press(&mut app, KeyCode::Char('R'));
    assert_eq!(app.up(), Some("ranks"));
    let text = screen(&app);
    assert!(
        text.contains("2 rank(s)") && text.contains("⚑ slowest: rank 1"),
        "{text}"
    );
    assert!(text.contains("   1 ⚑") && text.contains("44.00"), "{text}");
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    let view = app.profile_view().unwrap();
    assert_eq!(view.request.rank, Some(0));
    assert!(view.ranks.is_some(), "every rank's comparison is kept");
    assert!(screen(&app).contains("(rank 0)"));
    // P offers the same paths again (every rank is compared again).
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
    assert_ne!(app.up(), Some("profiles"));
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
    app.runs.dir = Some(runs);
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
    pump(&mut app, &rx, |app| app.up() == Some("profiles"));
    assert_ne!(app.up(), Some("runs"));
    let text = screen(&app);
    assert!(text.contains("19.69 % faster with SuperKernel"), "{text}");
    // Bound to the plan the run used (its own copy in the run's directory), not the plan as
    // edited from now on.
    assert!(text.contains("bound to the plan its run used"), "{text}");
    let view = app.profile_view().unwrap();
    let made_with = view.request.made_with.clone().unwrap();
    assert!(made_with.ends_with("plan.skope.json"), "{made_with:?}");
    let plan = &view.diff.payoffs.as_ref().unwrap().plan;
    assert!(
        plan.starts_with("the plan the new profile was made with"),
        "{plan}"
    );
    press(&mut app, KeyCode::Esc);
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('d'));
    let view = app.profile_view().unwrap();
    assert_eq!(view.diff.payoffs.as_ref().unwrap().list.len(), 13);
    assert_eq!(view.not_in_plan, ["attn_0"]);
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
    assert_eq!(app.up(), Some("profiles"));
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
fn at_80_columns_the_payoff_and_the_delta_still_show() {
    let (mut app, _rx) = bundled(80, 24);
    let text = screen(&app);
    assert!(
        text.contains(
            "┃✗ moe_1_split_54_56      1       5.16      6.33    ▲ +1.17 regressed  block   ┃"
        ),
        "{text}"
    );
    press(&mut app, KeyCode::Tab);
    let text = screen(&app);
    assert!(
        text.contains("┃SuperKernel moe_2             83.35     62.35   ▼ −21.00"),
        "{text}"
    );
    press(&mut app, KeyCode::Tab);
    let text = screen(&app);
    assert!(
        text.contains(
            "┃ GroupedMatmul        MIX_AIC      124.97         ·   ▼ −124.97  −100.00 %"
        ),
        "{text}"
    );
}

#[test]
fn snapshot_the_superkernels_at_80_and_120_columns() {
    for (w, h) in [(80, 24), (120, 40)] {
        let (app, _rx) = bundled(w, h);
        insta::assert_snapshot!(format!("superkernels_{w}x{h}"), screen(&app));
    }
}

#[test]
fn snapshot_the_waterfall_at_80_and_120_columns() {
    for (w, h) in [(80, 24), (120, 40)] {
        let (mut app, _rx) = bundled(w, h);
        press(&mut app, KeyCode::Tab);
        insta::assert_snapshot!(format!("waterfall_{w}x{h}"), screen(&app));
    }
}

#[test]
fn a_step_picked_shows_its_times_and_every_step_comes_back() {
    let (mut app, _rx) = bundled(140, 42);
    press(&mut app, KeyCode::Char('t'));
    let text = screen(&app);
    assert!(text.contains("Show one of 5 step(s)"), "{text}");
    assert!(text.contains("every step (median of 5 and 5)"), "{text}");
    keys(&mut app, "step 3");
    press(&mut app, KeyCode::Enter);
    let view = app.profile_view().unwrap();
    assert_eq!(view.step.as_deref(), Some("3"));
    let (base, new) = view.step_times().unwrap();
    let text = screen(&app);
    assert!(
        text.contains(&format!(
            "step time  {:>10.2} µs → {:>10.2} µs",
            base.span_us.unwrap(),
            new.unwrap().span_us.unwrap()
        )),
        "{text}"
    );
    assert!(
        text.contains("step 3 (t picks another) · every step: 19.69 % faster"),
        "{text}"
    );
    assert!(text.contains("· step 3 ━"), "{text}");
    // The table shows that step's occurrence: the one-sub-op SuperKernel's own times.
    let p = view.payoff_row(0).unwrap();
    let third = p.occurrences.iter().find(|o| o.step == "3").unwrap();
    assert_eq!(view.step_occurrences(p), (third.base_us, third.new_us));
    press(&mut app, KeyCode::Char('t'));
    keys(&mut app, "every");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.profile_view().unwrap().step, None);
    assert!(screen(&app).contains("step time      624.94 µs"));
}

#[test]
fn d_prunes_the_regressed_superkernel_after_showing_the_planned_result() {
    let (mut app, _rx) = bundled(140, 42);
    // Worst first: the regressed one-sub-op SuperKernel is selected.
    let view = app.profile_view().unwrap();
    assert_eq!(
        view.payoff_row(view.selected()).unwrap().segment,
        "moe_1_split_54_56"
    );
    press(&mut app, KeyCode::Char('d'));
    let Some(skope::tui::dialog::Dialog::Confirm(question)) = &app.dialog else {
        panic!("a question: {}", screen(&app));
    };
    let q = &question.question;
    assert!(
        q.starts_with(
            "Prune moe_1_split_54_56 (regressed — no class fits: costs 1.17 µs more per occurrence"
        ),
        "{q}"
    );
    assert!(
        q.contains(
            "planned: its 1 op(s) kept out of fusion; moe_1 keeps 2 segment(s) · 13 → 12 \
             SuperKernel(s) in the graph. u undoes it."
        ),
        "{q}"
    );
    assert!(screen(&app).contains("y prune    n keep"));
    // n keeps it; d and y prune it: an ordinary edit, undone by u.
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.explorer().unwrap().ws.plan().segment_count(), 13);
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('y'));
    let ws = &app.explorer().unwrap().ws;
    assert_eq!(ws.plan().segment_count(), 12);
    let init = ws.graph().find("layer1_init_routing").unwrap();
    assert_eq!(
        ws.marks().get(init),
        skope::fusion::marks::OpMark::DoNotFuse
    );
    let journal = skope::journal::path(&app.session.plan_path);
    let entries = skope::journal::read(&journal).unwrap().entries;
    assert!(
        entries
            .iter()
            .any(|e| matches!(e, skope::journal::JournalEntry::Edit { .. })),
        "journaled: {entries:?}"
    );
    // The comparison stays what the run built: the pruned SuperKernel keeps its row, and the
    // view says the current plan no longer builds it.
    let view = app.profile_view().unwrap();
    assert_eq!(view.diff.payoffs.as_ref().unwrap().list.len(), 13);
    assert_eq!(view.not_in_plan, ["moe_1_split_54_56"]);
    assert!(
        screen(&app).contains("1 SuperKernel the run built is not in the current plan"),
        "{}",
        screen(&app)
    );
    // u undoes it right here, as the question said, and the view stays up.
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.explorer().unwrap().ws.plan().segment_count(), 13);
    assert_eq!(app.up(), Some("profiles"));
    assert!(app.profile_view().unwrap().not_in_plan.is_empty());
    // ctrl-r redoes it.
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('r'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    )));
    assert_eq!(app.explorer().unwrap().ws.plan().segment_count(), 12);
}

#[test]
fn w_writes_the_pull_request_report_beside_the_dump() {
    let dir = crate::common::scratch("tui-profiles-report");
    let dump = dir.join("moe_decode.ge_proto.txt");
    std::fs::copy(
        crate::common::example_path("moe_decode.ge_proto.txt"),
        &dump,
    )
    .expect("copy");
    let mut app = app_on(
        &dump.to_string_lossy(),
        140,
        42,
        skope::tui::config::Config::default(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    open(
        &mut app,
        &rx,
        &crate::common::repo(BUNDLED).to_string_lossy(),
    );
    assert_eq!(app.up(), Some("profiles"), "{:?}", app.status);
    press(&mut app, KeyCode::Char('W'));
    let written = dir.join("moe_decode.ge_proto.txt.report.md");
    let text = std::fs::read_to_string(&written).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("19.69 % faster with SuperKernel") && text.contains("<details>"),
        "{text}"
    );
    assert!(
        status(&app).starts_with("wrote the pull request report to "),
        "{}",
        status(&app)
    );
}

#[test]
fn without_an_event_loop_profiles_are_read_before_the_key_returns() {
    let mut app = app(140, 42);
    press(&mut app, KeyCode::Char('p'));
    press(&mut app, KeyCode::Enter);
    assert!(app.profiles_loading.is_none());
    assert_eq!(app.up(), Some("profiles"), "{:?}", app.status);
    assert!(
        screen(&app).contains("624.94 µs →     501.89 µs"),
        "{}",
        screen(&app)
    );
}
