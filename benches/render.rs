//! Explorer speed on a 100k-op graph (`common::graph()`), in a 160×50 terminal drawn with
//! ratatui's `TestBackend`: drawing one frame, and handling a key then drawing (what a user
//! waits for after each key press). Also a graph whose 100k ops are all in one scope
//! (`one_scope_graph()`), where the scopes tree's child lists are long.

mod common;
#[path = "../tests/common/ranks_diff.rs"]
mod ranks_diff;

use common::{OPS, graph};
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;
use skope::fusion::rules::RuleSet;
use skope::graph::{AttrValue, Graph, GraphBuilder, OpBuilder};
use skope::load::Format;
use skope::tui::app::{App, Msg};
use skope::tui::config::Config;
use skope::tui::loader::Loaded;
use skope::tui::views;
use skope::workspace::Workspace;

const WIDTH: u16 = 160;
const HEIGHT: u16 = 50;

/// The explorer on `graph` in a WIDTH×HEIGHT terminal, and the terminal to draw it in.
fn explorer_on(graph: Graph, name: &str) -> (App, Terminal<TestBackend>) {
    let ws = Workspace::new(graph, Format::GeProtoText, name, &RuleSet::bundled());
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, WIDTH, HEIGHT),
        name,
        std::env::temp_dir().join(format!("skope-bench-{name}.skope.json")),
    );
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(Ok(
        Box::new(Loaded::new(ws)),
    ))));
    (app, Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap())
}

/// Bench `name`: press the first of `keys` `half` times, then the second `half` times, and so
/// on, drawing a frame after each press.
fn back_and_forth(
    c: &mut Criterion,
    name: &str,
    (app, terminal): (&mut App, &mut Terminal<TestBackend>),
    half: u32,
    keys: [KeyCode; 2],
) {
    // The count goes on across criterion's calls of the closure (each sample calls it anew), so
    // the keys keep alternating even when a sample is one iteration.
    let mut n = 0u32;
    c.bench_function(name, |b| {
        b.iter(|| {
            n += 1;
            app.handle(Msg::key(keys[usize::from(n % (2 * half) >= half)]));
            terminal.draw(|f| views::render(app, f)).unwrap();
        })
    });
}

fn bench(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(graph(), "bench.txt");
    // Somewhere in the middle, with the tree following the list.
    app.handle(Msg::key(KeyCode::Char('G')));
    app.handle(Msg::key(KeyCode::PageUp));

    c.bench_function("render/frame_100k", |b| {
        b.iter(|| {
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
    back_and_forth(
        c,
        "render/key_down_and_frame_100k",
        (&mut app, &mut terminal),
        1000,
        [KeyCode::Up, KeyCode::Down],
    );
    back_and_forth(
        c,
        "render/next_break_and_frame_100k",
        (&mut app, &mut terminal),
        500,
        [KeyCode::Char(']'), KeyCode::Char('[')],
    );
    c.bench_function("render/breaks_only_toggle_and_frame_100k", |b| {
        b.iter(|| {
            app.handle(Msg::key(KeyCode::Char('b')));
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
    // Typing into the search: every key searches all 100k ops from the selection.
    app.handle(Msg::key(KeyCode::Char('/')));
    for ch in "op_7".chars() {
        app.handle(Msg::key(KeyCode::Char(ch)));
    }
    back_and_forth(
        c,
        "render/search_keystroke_and_frame_100k",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Backspace, KeyCode::Char('9')],
    );
    app.handle(Msg::key(KeyCode::Esc));
    // An edit: keep the selected op out of fusion, then undo it, in turn; each is an edit,
    // a re-plan of the 100k ops, the list, tree and strip refreshed, the journal written,
    // and a frame.
    back_and_forth(
        c,
        "render/edit_or_undo_and_frame_100k",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Char('u'), KeyCode::Char('d')],
    );
    // The tree: open and close a scope (the items are rebuilt each time).
    app.handle(Msg::key(KeyCode::BackTab));
    c.bench_function("render/tree_toggle_and_frame_100k", |b| {
        b.iter(|| {
            app.handle(Msg::key(KeyCode::Enter));
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
}

/// A 100,000-op graph in one scope: every 1,000th op is a TBE op, so the scope splits into 100
/// segments of ~1,000 ops — long child lists in the scopes tree.
pub fn one_scope_graph() -> Graph {
    let mut b = GraphBuilder::new("one_scope");
    b.streams_assigned(true);
    for i in 0..OPS {
        let mut op = OpBuilder {
            name: format!("op_{i}"),
            op_type: "MatMulV2".into(),
            topo_id: Some(i as i64),
            stream: Some(0),
            ..OpBuilder::default()
        };
        let support = i64::from(i % 1000 != 999);
        op.attrs
            .insert("supportSuperKernel", AttrValue::Int(support));
        op.attrs
            .insert("_super_kernel_scope", AttrValue::Str("all".into()));
        b.push(op);
    }
    b.build()
}

fn bench_one_scope(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(one_scope_graph(), "one_scope.txt");
    app.handle(Msg::key(KeyCode::Char('G')));
    // `}` walks from segment to segment: the tree moves its windows and rebuilds each time.
    back_and_forth(
        c,
        "render/one_scope_next_segment_and_frame_100k",
        (&mut app, &mut terminal),
        100,
        [KeyCode::Char('{'), KeyCode::Char('}')],
    );
    back_and_forth(
        c,
        "render/one_scope_key_down_and_frame_100k",
        (&mut app, &mut terminal),
        1000,
        [KeyCode::Up, KeyCode::Down],
    );
    // The scope in the tree: its details open with the whole-model summary (100 segments
    // ranked, each with the break that ended it); down and up step between it and a segment.
    let (mut app, mut terminal) = explorer_on(one_scope_graph(), "one_scope.txt");
    app.handle(Msg::key(KeyCode::BackTab));
    app.handle(Msg::key(KeyCode::Char('g')));
    back_and_forth(
        c,
        "render/whole_model_scope_details_and_frame_100k",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Down, KeyCode::Up],
    );
}

/// The code view on the one-scope graph: each segment's entry code has ~1,000 sub-op calls
/// (~30,000 lines).
fn bench_code_view(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(one_scope_graph(), "one_scope.txt");
    app.handle(Msg::key(KeyCode::Char('G')));
    app.handle(Msg::key(KeyCode::Char('{')));
    app.handle(Msg::key(KeyCode::Char('e')));
    assert!(
        app.explorer().is_some_and(|ex| ex.code.is_some()),
        "the code view is on"
    );
    // `}`/`{`: another segment, so its code is generated again.
    back_and_forth(
        c,
        "render/code_view_next_segment_and_frame_1000_op_segment",
        (&mut app, &mut terminal),
        10,
        [KeyCode::Char('{'), KeyCode::Char('}')],
    );
    // ↓ in the list within a segment: the code view moves to the op's call.
    back_and_forth(
        c,
        "render/code_view_key_down_and_frame_1000_op_segment",
        (&mut app, &mut terminal),
        500,
        [KeyCode::Down, KeyCode::Up],
    );
    let source = app
        .explorer()
        .and_then(|ex| ex.code.as_ref())
        .and_then(|view| view.code.as_ref())
        .map(|code| code.source.clone())
        .expect("the code view shows a segment's code");
    let middle = source.lines().count() / 2;
    let mut group = c.benchmark_group("highlight");
    group.sample_size(20);
    // What the worker does when the view moves: the 38 lines shown and 100 either side.
    group.bench_function("highlight/cpp_window_238_lines", |b| {
        b.iter(|| skope::tui::highlight::highlight_lines(&source, middle..middle + 238))
    });
    group.finish();
}

/// Writes kernel_details.csv files for `ws` into `dir`: without SuperKernel every op of the
/// graph runs as its own kernel; with it, every segment runs as its SuperKernel and the other
/// ops as before. With `timed`, one step with start times on the ops' streams. Returns the
/// two paths.
fn kernel_files(
    ws: &Workspace,
    dir: &std::path::Path,
    timed: bool,
) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir).unwrap();
    let header = if timed {
        "Step Id,Stream ID,Start Time(us),Name,Type,Accelerator Core,Duration(us),Wait Time(us)\n"
    } else {
        "Name,Type,Accelerator Core,Duration(us),Wait Time(us)\n"
    };
    let mut clock = [1_736_413_971_558_000.0f64; 2];
    let mut at = |stream: usize, us: f64| {
        let c = &mut clock[stream.min(1)];
        let start = *c;
        *c += us + 0.5 + if stream == 0 { 0.0 } else { 3.0 };
        format!("1,{stream},\"{start:.3}\t\",")
    };
    let graph = ws.graph();
    let planned = skope::profile::PlannedFusion::from_workspace(ws, "bench");
    let fused: std::collections::HashSet<&str> = planned
        .segments
        .iter()
        .flat_map(|s| s.ops.iter().map(|o| o.name.as_str()))
        .collect();
    let (mut base, mut new) = (header.to_string(), header.to_string());
    let cx = ws.context();
    for (i, op) in graph.ops().iter().enumerate() {
        let us = 1.0 + (i % 17) as f64;
        let stream = cx.stream_of(skope::graph::OpId(i as u32)) as usize;
        let when = if timed { at(stream, us) } else { String::new() };
        let line = format!("{when}{},{},AI_CORE,{us:.3},0.500\n", op.name, op.op_type);
        base.push_str(&line);
        if !fused.contains(op.name.as_str()) {
            new.push_str(&line);
        }
    }
    for s in &planned.segments {
        let us = s.ops.len() as f64 * 0.9;
        let when = if timed { at(0, us) } else { String::new() };
        let _ = writeln!(
            new,
            "{when}{},SuperKernel,MIX_AIC,{us:.3},0.500",
            s.fused_node
        );
    }
    let (b, n) = (dir.join("base.csv"), dir.join("new.csv"));
    std::fs::write(&b, base).unwrap();
    std::fs::write(&n, new).unwrap();
    (b, n)
}

/// Gives the app `pair`, compared with `planned`, as if its worker had read `request`.
fn hand_over(
    app: &mut App,
    request: skope::tui::profiles::ProfilesRequest,
    pair: skope::profile::Pair,
    planned: &skope::profile::PlannedFusion,
) {
    let compared = skope::tui::profiles::Compared::new(&pair, planned);
    app.profiles_loading = Some(skope::tui::profiles::ProfilesLoading {
        request: request.clone(),
        progress: Default::default(),
        told: (0, 0),
    });
    let version = app.explorer().unwrap().ws.version();
    app.profiles_loaded(
        request,
        Ok(Box::new(skope::tui::profiles::LoadedProfiles {
            pair,
            compared,
            plan_version: version,
            run_plan: std::sync::Arc::new((
                app.explorer().unwrap().ws.marks().clone(),
                app.explorer().unwrap().ws.plan().clone(),
            )),
            ranks: None,
            rank: None,
            foresight: None,
        })),
    );
}

/// The profile view and the op list's time column on the 100k-op graph, with profiles of
/// every op (and of every segment's SuperKernel).
fn bench_profiles(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(graph(), "bench.txt");
    let dir = std::env::temp_dir().join("skope-bench-profiles");
    let (base, new) = kernel_files(&app.explorer().unwrap().ws, &dir, false);
    let request = skope::tui::profiles::ProfilesRequest {
        base: base.clone(),
        new: Some(new.clone()),
        rank: None,
        made_with: None,
    };
    // What the worker does: read both files and compare them against the plan.
    let snapshot = || skope::tui::profiles::PlanSnapshot::of(&app.explorer().unwrap().ws);
    let planned = snapshot().planned();
    let mut group = c.benchmark_group("profiles");
    group.sample_size(10);
    group.bench_function("profiles/read_and_compare_100k", |b| {
        b.iter(|| {
            let pair = skope::profile::load_pair(&base, Some(&new), None).unwrap();
            skope::tui::profiles::Compared::new(&pair, &planned)
        })
    });
    let pair = skope::profile::load_pair(&base, Some(&new), None).unwrap();
    group.bench_function("profiles/compare_100k", |b| {
        b.iter(|| skope::tui::profiles::Compared::new(&pair, &planned))
    });
    // What an edit costs the UI thread for the comparison: a snapshot of the plan.
    group.bench_function("profiles/plan_snapshot_100k", |b| b.iter(snapshot));
    group.bench_function("profiles/plan_names_100k", |b| {
        b.iter(|| snapshot().planned())
    });
    group.finish();
    hand_over(&mut app, request, pair, &planned);
    assert!(
        (app.up() == Some("profiles")),
        "the profile view is up: {:?}",
        app.status
    );
    c.bench_function("render/profile_view_frame_100k", |b| {
        b.iter(|| {
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
    // The SuperKernels table: 100k ops make thousands of SuperKernels.
    back_and_forth(
        c,
        "render/profile_superkernels_key_down_and_frame_100k",
        (&mut app, &mut terminal),
        500,
        [KeyCode::Down, KeyCode::Up],
    );
    // The waterfall: a part per SuperKernel, with its bars.
    app.handle(Msg::key(KeyCode::Tab));
    assert_eq!(
        app.profile_view().map(|v| v.table),
        Some(skope::tui::profile_view::Table::Waterfall)
    );
    c.bench_function("render/profile_view_waterfall_frame_100k", |b| {
        b.iter(|| {
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
    back_and_forth(
        c,
        "render/profile_waterfall_key_down_and_frame_100k",
        (&mut app, &mut terminal),
        500,
        [KeyCode::Down, KeyCode::Up],
    );
    // The op list with its time column, and an edit: the comparison stays the run's, and the
    // view says what the plan no longer builds.
    app.handle(Msg::key(KeyCode::Esc));
    app.handle(Msg::key(KeyCode::Char('G')));
    app.handle(Msg::key(KeyCode::PageUp));
    back_and_forth(
        c,
        "render/op_list_with_times_key_down_and_frame_100k",
        (&mut app, &mut terminal),
        1000,
        [KeyCode::Up, KeyCode::Down],
    );
    // An op in the middle of a segment: keeping it out of fusion splits the segment.
    for key in "/name:op_50010\r".chars() {
        let code = if key == '\r' {
            KeyCode::Enter
        } else {
            KeyCode::Char(key)
        };
        app.handle(Msg::key(code));
    }
    let gone = |app: &App| app.profile_view().map_or(0, |v| v.not_in_plan.len());
    app.handle(Msg::key(KeyCode::Char('d')));
    assert_eq!(gone(&app), 1, "the edit splits a SuperKernel the run built");
    app.handle(Msg::key(KeyCode::Char('u')));
    assert_eq!(gone(&app), 0);
    // What an edit costs with profiles loaded: the plan again, and what it no longer builds.
    back_and_forth(
        c,
        "render/edit_or_undo_with_profiles_and_frame_100k",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Char('d'), KeyCode::Char('u')],
    );
}

/// The timeline of one step of 100k kernels (every op of the 100k-op graph, on its stream)
/// against its SuperKernels: laying it out when it opens, a frame, zooming and panning.
fn bench_timeline(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(graph(), "bench.txt");
    let dir = std::env::temp_dir().join("skope-bench-timeline");
    let (base, new) = kernel_files(&app.explorer().unwrap().ws, &dir, true);
    let request = skope::tui::profiles::ProfilesRequest {
        base: base.clone(),
        new: Some(new.clone()),
        rank: None,
        made_with: None,
    };
    let planned =
        skope::profile::PlannedFusion::from_workspace(&app.explorer().unwrap().ws, "bench");
    let pair = skope::profile::load_pair(&base, Some(&new), None).unwrap();
    hand_over(&mut app, request, pair, &planned);
    let view = app.profile_view().expect("the profiles are read");
    let (pair, diff) = (view.shared_pair(), view.diff.clone());
    let steps = diff.steps.as_ref().map(|s| (&s.base, &s.new));
    c.bench_function("timeline/lay_out_step_of_100k_kernels", |b| {
        b.iter(|| {
            skope::profile::timeline::timeline(&pair, steps, None, diff.per_op.as_ref(), None)
        })
    });
    app.handle(Msg::key(KeyCode::Char('T')));
    assert_eq!(
        app.up(),
        Some("timeline"),
        "the timeline is up: {:?}",
        app.status
    );
    let kernels: usize = app
        .view_state::<skope::tui::timeline_view::TimelineView>()
        .map_or(0, |v| {
            v.timeline
                .sides
                .iter()
                .flat_map(|s| &s.lanes)
                .map(|l| l.blocks.len())
                .sum()
        });
    assert!(kernels >= 100_000, "{kernels} kernels laid out");
    c.bench_function("render/timeline_frame_100k", |b| {
        b.iter(|| {
            terminal.draw(|f| views::render(&app, f)).unwrap();
        })
    });
    back_and_forth(
        c,
        "render/timeline_zoom_and_frame_100k",
        (&mut app, &mut terminal),
        8,
        [KeyCode::Char('+'), KeyCode::Char('-')],
    );
    back_and_forth(
        c,
        "render/timeline_pan_and_frame_100k",
        (&mut app, &mut terminal),
        20,
        [KeyCode::PageDown, KeyCode::PageUp],
    );
}

/// The dataflow view on the 100k-op graph: moving along an edge (which lays the new
/// neighbourhood out on the UI thread) and drawing; and the layout alone of a 2-hop star of
/// about 200 nodes.
fn bench_dataflow(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(graph(), "bench.txt");
    app.handle(Msg::key(KeyCode::Char('G')));
    app.handle(Msg::key(KeyCode::PageUp));
    app.handle(Msg::key(KeyCode::Char('V')));
    assert_eq!(app.up(), Some("dataflow"));
    back_and_forth(
        c,
        "render/dataflow_move_and_frame_100k",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Char('j'), KeyCode::Char('k')],
    );
    // A star: 96 producers and 96 consumers around one op, each with one more hop.
    let mut widths = vec![30];
    let mut edges = Vec::new();
    let class = skope::dataflow::layout::EdgeClass::Data;
    for i in 0..96 {
        let (up, down) = (widths.len(), widths.len() + 1);
        widths.extend([24, 24]);
        edges.push(skope::dataflow::layout::Edge {
            from: up,
            to: 0,
            class,
        });
        edges.push(skope::dataflow::layout::Edge {
            from: 0,
            to: down,
            class,
        });
        if i % 2 == 0 {
            widths.push(20);
            let far = widths.len() - 1;
            edges.push(skope::dataflow::layout::Edge {
                from: down,
                to: far,
                class,
            });
        }
    }
    let rank: Vec<usize> = (0..widths.len()).collect();
    println!(
        "dataflow star: {} nodes, {} edges",
        widths.len(),
        edges.len()
    );
    c.bench_function("dataflow/layout_200_nodes", |b| {
        b.iter(|| skope::dataflow::layout::layout(&widths, &edges, &rank))
    });
}

/// The ranks view of 1,024 ranks × 64 SuperKernels over the 100k-op graph: moving a row, and
/// sorting by a SuperKernel's column (each press the other way), each with a frame.
fn bench_ranks(c: &mut Criterion) {
    let (mut app, mut terminal) = explorer_on(graph(), "bench.txt");
    ranks_diff::show(&mut app, 1024, 64);
    app.handle(Msg::key(KeyCode::Char('j')));
    back_and_forth(
        c,
        "render/ranks_move_and_frame_1024x64",
        (&mut app, &mut terminal),
        8,
        [KeyCode::Char('j'), KeyCode::Char('k')],
    );
    for _ in 0..5 {
        app.handle(Msg::key(KeyCode::Char('l')));
    }
    back_and_forth(
        c,
        "render/ranks_sort_and_frame_1024x64",
        (&mut app, &mut terminal),
        1,
        [KeyCode::Char('s'), KeyCode::Char('s')],
    );
}

criterion_group!(
    benches,
    bench_ranks,
    bench,
    bench_one_scope,
    bench_code_view,
    bench_profiles,
    bench_timeline,
    bench_dataflow
);
criterion_main!(benches);
