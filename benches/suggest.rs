//! Suggestions on a 100k-op graph with a matching 100k-row kernel_details: candidates planned
//! and ranked, alone and with the whole-model estimate (all the worker does), on ops named
//! without layers and on the same graph named as 34 and as 2,000 decoder layers (templates found
//! and planned in every layer); and reading the profile's gaps.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use skope::fusion::rules::RuleSet;
use skope::load::Format;
use skope::suggest::{Measured, rank, saving, suggest, timing};
use skope::workspace::Workspace;
use std::fmt::Write;
use std::time::Duration;

/// A kernel_details.csv for the ops of `ws` in `dir`: one row per op, 1–6 µs gaps, a core time
/// on every row.
fn profile(ws: &Workspace, dir: &std::path::Path) -> std::path::PathBuf {
    let csv = dir.join(format!(
        "kernel_details_{}.csv",
        ws.graph().op(skope::graph::OpId(0)).name
    ));
    let mut text = String::from(
        "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim,aicore_time(us),aiv_time(us)\n",
    );
    let mut t = 0.0;
    for (i, op) in ws.graph().ops().iter().enumerate() {
        let dur = 5.0 + (i % 7) as f64;
        t += 1.0 + (i % 6) as f64;
        let stream = op.stream.unwrap_or(0);
        let _ = writeln!(
            text,
            "1,{stream},{},{},AI_CORE,\"{t:.3}\t\",{dur:.3},0,24,0,{:.3}",
            op.name,
            op.op_type,
            dur - 1.0
        );
        t += dur;
    }
    std::fs::write(&csv, text).expect("write the profile");
    csv
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("skope-bench-suggest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let rules = RuleSet::bundled();
    let plain = Workspace::new(common::graph(), Format::GeProtoText, "bench", &rules);
    // Named as decoder layers: of 3,000 ops, the period of the graph's patterns, so that 33
    // layers are alike and a 34th of 1,000 ops is not (as a model's last or MTP layer); and of
    // 50, one per scope: 2,000 layers, the most planned per template.
    let named = |per_layer: usize| {
        let graph = common::build(&|i| format!("layer{}_op_{}", i / per_layer, i % per_layer));
        Workspace::new(graph, Format::GeProtoText, "bench", &rules)
    };
    let (layers_34, layers_2000) = (named(3000), named(common::SCOPE_LEN));
    let mut group = c.benchmark_group("suggest");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (name, ws) in [
        ("100k_ops", &plain),
        ("100k_ops_34_layers", &layers_34),
        ("100k_ops_2000_layers", &layers_2000),
    ] {
        let files = vec![profile(ws, &dir)];
        let base = timing::read(&files, Some(ws.context())).expect("read");
        let measured = Measured {
            base: Some(&base),
            ..Measured::default()
        };
        let planning = ws.planning();
        let (s, _) = rank(&planning, (ws.marks(), ws.plan()), measured);
        eprintln!(
            "{name}: {} template(s), {} per-layer suggestion(s) ({} more add nothing); {}",
            s.templates.len(),
            s.list.len(),
            s.adding_nothing,
            s.whole_model
                .as_ref()
                .map(|w| w.words())
                .unwrap_or_default()
        );
        // Candidates, templates and ranking: the list the view shows.
        group.bench_function(format!("candidates_templates_ranking_{name}"), |b| {
            b.iter(|| {
                suggest(&planning, ws.plan(), Some(&base), saving::DEFAULTS, false)
                    .list
                    .len()
            })
        });
        // All the worker does: with the whole model if all that fit were accepted.
        group.bench_function(format!("worker_{name}"), |b| {
            b.iter(|| {
                rank(&planning, (ws.marks(), ws.plan()), measured)
                    .0
                    .list
                    .len()
            })
        });
    }
    let files = vec![profile(&plain, &dir)];
    group.bench_function("gaps_from_100k_rows", |b| {
        b.iter(|| timing::read(&files, Some(plain.context())).map(|t| t.kernels.len()))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
