//! The built-in `check` recipe on 256 entry sources of the 100k-op graph: its script
//! (batches of 64 sources, one compiler call each, on every core) against the serial loop it
//! replaced (one compiler call per source). Both are whole processes, as a user waits for them.

mod common;

use criterion::{Criterion, criterion_group, criterion_main};
use skope::compile::prepare::SHIM_HEADER;
use skope::compile::recipe;
use skope::compile::template::{Values, expand};
use skope::fusion::marks::Marks;
use skope::fusion::plan::{Context, plan};
use skope::fusion::rules::RuleSet;
use std::path::Path;
use std::process::Command;

/// How many entry sources each run checks.
const SOURCES: usize = 256;

/// The loop the `check` recipe ran before: one compiler call per source.
const SERIAL: &str = "for f in \"$1\"/*.cpp; do \"${CXX:-c++}\" -std=c++17 -fsyntax-only \
                      -I \"$1\" \"$f\" || exit 1; done";

fn run(argv: &[String]) {
    let status = Command::new(&argv[0])
        .args(&argv[1..])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run the check");
    assert!(status.success(), "{argv:?}");
}

fn bench(c: &mut Criterion) {
    let g = common::graph();
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    let p = plan(&cx, &Marks::from_graph(&g));
    let meta = skope::kernel_meta::KernelMeta::default();
    let dir = std::env::temp_dir().join(format!("skope-bench-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let codes: Vec<_> = p
        .scopes
        .iter()
        .flat_map(|s| &s.segments)
        .take(SOURCES)
        .map(|s| skope::codegen::entry(&cx, &meta, s))
        .collect();
    skope::codegen::files::write_all(&dir, skope::own_files::Links::Follow, &codes, &g)
        .expect("write the sources");
    std::fs::write(dir.join("kernel_operator.h"), SHIM_HEADER).expect("write the shim");
    let values = Values {
        codegen_dir: dir.to_string_lossy().into_owned(),
        ..Values::default()
    };
    let check = recipe::builtin()
        .into_iter()
        .find(|p| p.name == "check")
        .expect("the built-in check");
    let batched = expand(&check.argv, &values).expect("expand");
    let serial: Vec<String> = ["sh", "-c", SERIAL, "serial", &values.codegen_dir]
        .map(String::from)
        .to_vec();
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    group.bench_function("serial_loop_256_sources", |b| b.iter(|| run(&serial)));
    group.bench_function("batched_on_every_core_256_sources", |b| {
        b.iter(|| run(&batched))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}

criterion_group!(benches, bench);
criterion_main!(benches);
