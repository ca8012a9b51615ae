//! Judging every SuperKernel of a large profile pair: 100,000 distinct kernels run in each of
//! 10 steps without SuperKernel (1,000,000 rows), their 12,500 segments of 8 as SuperKernels
//! in each of 10 steps with it, compared per step and per occurrence with every payoff judged —
//! what the explorer's worker does when profiles are read and after each edit.
//!
//! The pair is generated at run time into `target/tmp/skope-bench-payoff/` (never committed).
//! `cargo bench --bench payoff`; figures in docs/PERFORMANCE.md.

use criterion::{Criterion, criterion_group, criterion_main};
use skope::profile::payoff::PayoffRule;
use skope::profile::{PlannedFusion, PlannedOp, PlannedSegment, diff, load_pair};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

const KERNELS: usize = 100_000;
const STEPS: usize = 10;
const PER_SEGMENT: usize = 8;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-payoff")
}

fn op(i: usize) -> String {
    format!("layer{}_op{i}", i / 2_000)
}

fn fused(s: usize) -> String {
    let (first, last) = (s * PER_SEGMENT, s * PER_SEGMENT + PER_SEGMENT - 1);
    format!("sk_seg{s}_start_{}_end_{}", op(first), op(last))
}

/// Writes one side's kernel_details.csv under `dir`.
fn write_side(dir: &Path, with_sk: bool) {
    let out = dir.join("ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&out).expect("create the bench directory");
    let file = std::fs::File::create(out.join("kernel_details.csv")).expect("create");
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let _ = w.write_all(
        b"Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Stream ID\n",
    );
    let mut t = 1_736_413_971_558_000.0f64;
    let mut line = String::new();
    for step in 1..=STEPS {
        for s in 0..KERNELS / PER_SEGMENT {
            let durs: Vec<f64> = (0..PER_SEGMENT)
                .map(|k| 2.0 + ((s * 31 + k * 7 + step * 3) % 50) as f64 / 10.0)
                .collect();
            if with_sk {
                let d: f64 = durs.iter().sum::<f64>() * 0.95;
                line.clear();
                let _ = writeln!(
                    line,
                    "{step},0,{},SuperKernel,MIX_AIC,\"{t:.3}\t\",{d:.3},1.000,2",
                    fused(s)
                );
                let _ = w.write_all(line.as_bytes());
                t += d + 1.0;
            } else {
                for (k, d) in durs.iter().enumerate() {
                    line.clear();
                    let _ = writeln!(
                        line,
                        "{step},0,{},Add,AI_VECTOR_CORE,\"{t:.3}\t\",{d:.3},1.000,2",
                        op(s * PER_SEGMENT + k)
                    );
                    let _ = w.write_all(line.as_bytes());
                    t += d + 1.0;
                }
            }
        }
    }
    let _ = w.flush();
}

fn plan() -> PlannedFusion {
    PlannedFusion {
        source: "the bench's plan".to_string(),
        segments: (0..KERNELS / PER_SEGMENT)
            .map(|s| PlannedSegment {
                scope: format!("scope{}", s / 100),
                segment: format!("seg{s}"),
                fused_node: fused(s),
                ops: (0..PER_SEGMENT)
                    .map(|k| PlannedOp {
                        name: op(s * PER_SEGMENT + k),
                        op_type: Some("Add".to_string()),
                        call: None,
                    })
                    .collect(),
                options: String::new(),
            })
            .collect(),
        breaks: Vec::new(),
        inferred: false,
    }
}

fn bench_payoffs(c: &mut Criterion) {
    let root = root();
    write_side(&root.join("no_sk_model"), false);
    write_side(&root.join("sk_model"), true);
    let plan = plan();
    let pair = load_pair(&root, None, None).expect("the generated pair reads");
    let d = diff(&pair, Some(&plan));
    let payoffs = d.payoffs.as_ref().expect("payoffs");
    assert_eq!(payoffs.list.len(), KERNELS / PER_SEGMENT);
    assert!(
        payoffs
            .list
            .iter()
            .all(|p| p.base.is_some_and(|b| b.count == STEPS)),
        "every segment has an occurrence a step"
    );
    let mut group = c.benchmark_group("payoff");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    // The account of the time alone (the binding made once, as the judgement makes it), and
    // the judgement: one binding, every payoff and the account.
    let (runs_b, runs_n) = (
        pair.base.runs.as_ref().expect("runs"),
        pair.new.runs.as_ref().expect("runs"),
    );
    let binding = skope::profile::payoff::bind(&plan, runs_b, runs_n);
    let counted = |_: &skope::profile::runs::NameInfo| true;
    group.bench_function("account_100k_kernels_x10_steps", |b| {
        b.iter(|| {
            skope::profile::account::account(
                Some((&plan, &binding)),
                Some((runs_b, runs_n)),
                &counted,
                (0.0, 0.0),
                ((STEPS, STEPS), Some("SuperKernel")),
            )
        })
    });
    group.bench_function("judge_100k_kernels_x10_steps", |b| {
        b.iter(|| skope::profile::diff::judge_runs(&plan, (runs_b, runs_n), PayoffRule::default()))
    });
    group.bench_function("compare_100k_kernels_x10_steps", |b| {
        b.iter(|| diff(&pair, Some(&plan)))
    });
    group.bench_function("read_and_compare_100k_kernels_x10_steps", |b| {
        b.iter(|| {
            let pair = load_pair(&root, None, None).expect("reads");
            diff(&pair, Some(&plan))
        })
    });
    group.finish();
}

criterion_group!(benches, bench_payoffs);
criterion_main!(benches);
