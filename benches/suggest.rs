//! Suggestions on a 100k-op graph with a matching 100k-row kernel_details: candidates planned
//! and ranked (the worker's part), and reading the profile's gaps.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use skope::fusion::rules::RuleSet;
use skope::load::Format;
use skope::suggest::{saving, suggest, timing};
use skope::workspace::Workspace;
use std::fmt::Write;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let graph = common::graph();
    let ws = Workspace::new(graph, Format::GeProtoText, "bench", &RuleSet::bundled());
    // One row per op, 1–6 µs gaps, a core time on every row.
    let dir = std::env::temp_dir().join(format!("skope-bench-suggest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let csv = dir.join("kernel_details.csv");
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
    let files = vec![csv];
    let profile = timing::read(&files, Some(ws.context())).expect("read");
    let mut group = c.benchmark_group("suggest");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("candidates_and_ranking_100k_ops", |b| {
        b.iter(|| {
            suggest(
                ws.context(),
                ws.plan(),
                Some(&profile),
                saving::DEFAULTS,
                false,
            )
            .list
            .len()
        })
    });
    group.bench_function("gaps_from_100k_rows", |b| {
        b.iter(|| timing::read(&files, Some(ws.context())).map(|t| t.kernels.len()))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
