//! Planning speed on a 100k-op graph: building the planning context once, and re-planning
//! after a scope edit (the planner re-plans the whole graph; this measures that it is cheap
//! enough to do on every edit). The graph is `common::graph()`.

mod common;

use common::{OPS, graph};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use skope::fusion::marks::{Marks, OpMark};
use skope::fusion::plan::{Context, plan, replan};
use skope::fusion::rules::RuleSet;
use skope::fusion_diff::Side;
use skope::graph::OpId;
use std::hint::black_box;
use std::sync::Arc;

fn bench(c: &mut Criterion) {
    let g = Arc::new(graph());
    let rules = RuleSet::bundled();
    c.bench_function("plan/context_100k", |b| {
        b.iter(|| black_box(Context::new(Arc::clone(&g), &rules)))
    });
    let cx = Context::new(Arc::clone(&g), &rules);
    let marks = Marks::from_graph(&g);
    let first = plan(&cx, &marks);
    eprintln!(
        "100k-op graph: {} scopes, {} segments, {} breaks",
        first.scopes.len(),
        first.segment_count(),
        first.break_count()
    );
    let mut edited = marks.clone();
    c.bench_function("plan/replan_after_edit_100k", |b| {
        let mut n = 0u32;
        b.iter_with_large_drop(|| {
            // One scope edit (a different op each time), then the full re-plan.
            n = (n + 7919) % OPS as u32;
            edited.set_do_not_fuse(OpId(n));
            plan(&cx, &edited)
        })
    });
    // The same edit, re-planned keeping the scopes it cannot change (what an edit in the
    // explorer does); the old plan is cloned outside the timing.
    c.bench_function("plan/incremental_replan_after_edit_100k", |b| {
        let mut n = 0u32;
        b.iter_batched(
            || {
                n = (n + 7919) % OPS as u32;
                let id = OpId(n);
                let before = match marks.get(id) {
                    OpMark::Member { scope, .. } => Some(scope),
                    _ => None,
                };
                let mut edited = marks.clone();
                edited.set_do_not_fuse(id);
                (edited, first.clone(), id, before)
            },
            |(edited, old, id, before)| replan(&cx, &edited, old, &[(id, before)], &[]),
            BatchSize::LargeInput,
        )
    });
}

/// Two plans of the 100k-op graph compared: the same graph, one scope edited (the fusion diff
/// matches every op by name and every segment by its ops).
fn bench_fusion_diff(c: &mut Criterion) {
    let rules = RuleSet::bundled();
    let a = skope::workspace::Workspace::new(
        graph(),
        skope::load::Format::GeProtoText,
        "a.txt",
        &rules,
    );
    let mut b = skope::workspace::Workspace::new(
        graph(),
        skope::load::Format::GeProtoText,
        "b.txt",
        &rules,
    );
    // An op in the middle of a segment halfway down the graph: keeping it out splits it.
    let inside = a
        .plan()
        .scopes
        .iter()
        .skip(a.plan().scopes.len() / 2)
        .flat_map(|s| &s.segments)
        .find(|g| g.ops.len() >= 3)
        .map(|g| g.ops[g.ops.len() / 2])
        .expect("a segment of three ops");
    b.apply(skope::edit::Edit::DoNotFuse { ops: vec![inside] }, None)
        .expect("an edit");
    let d = skope::fusion_diff::diff(Side::of(&a), "a", Side::of(&b), "b");
    eprintln!(
        "fusion diff of the 100k-op graph and one edit: {} scope(s), {} segment(s), {} break(s) changed",
        d.scopes.len(),
        d.segments.len(),
        d.breaks.len()
    );
    assert!(!d.is_empty());
    let mut group = c.benchmark_group("fusion_diff");
    group.sample_size(10);
    group.bench_function("fusion_diff/100k_ops_one_edit", |bench| {
        bench.iter(|| skope::fusion_diff::diff(Side::of(&a), "a", Side::of(&b), "b"))
    });
    group.finish();
}

/// The Model Explorer export of the 100k-op graph: the graph collection and its node data,
/// made, written as JSON and checked against the schema as the command does.
fn bench_model_explorer(c: &mut Criterion) {
    let rules = RuleSet::bundled();
    let ws = skope::workspace::Workspace::new(
        graph(),
        skope::load::Format::GeProtoText,
        "a.txt",
        &rules,
    );
    let mut group = c.benchmark_group("model_explorer");
    group.sample_size(10);
    group.bench_function("model_explorer/export_100k_ops", |b| {
        b.iter(|| {
            let g = serde_json::to_string(&skope::model_explorer::graph(&ws)).expect("JSON");
            let parsed: serde_json::Value = serde_json::from_str(&g).expect("JSON");
            assert!(skope::model_explorer::check(&parsed).is_empty());
            let mut bytes = g.len();
            for (_, data) in skope::model_explorer::node_data(&ws, None) {
                let d = serde_json::to_string(&data).expect("JSON");
                let parsed: serde_json::Value = serde_json::from_str(&d).expect("JSON");
                assert!(skope::model_explorer::check_node_data(&parsed).is_empty());
                bytes += d.len();
            }
            bytes
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_fusion_diff, bench_model_explorer);
criterion_main!(benches);
