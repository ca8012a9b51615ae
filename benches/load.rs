//! Loading speed: generated dumps ([`dumps`]) loaded from disk into the graph. The whole
//! process on the same files is measured by the `process` bench.

mod dumps;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skope::load::{LoadOptions, load_file};
use std::path::PathBuf;
use std::time::Duration;

/// Writes `text` to `path`, says what it holds, and times loading it as `name`.
fn bench_file(c: &mut Criterion, name: &str, text: &str, path: &PathBuf, seconds: u64) {
    std::fs::write(path, text).expect("write the generated dump");
    let dump = load_file(path, LoadOptions::default()).expect("generated dump loads");
    eprintln!(
        "generated {} bytes, {} ops, at {}",
        text.len(),
        dump.main().len(),
        path.display()
    );
    drop(dump);
    let mut group = c.benchmark_group("load");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(seconds));
    // Freeing the graph is not part of loading it: the result is dropped outside the timing.
    group.bench_function(name, |b| {
        b.iter_with_large_drop(|| load_file(path, LoadOptions::default()).expect("loads"))
    });
    group.finish();
}

fn bench_load(c: &mut Criterion) {
    for dump in &dumps::ALL {
        // The bigger files get more time for their ten samples.
        let seconds = if dump.bench.ends_with("_100MB") || dump.bench.ends_with("_95MB") {
            20
        } else {
            30
        };
        bench_file(c, dump.bench, &(dump.generate)(), &(dump.path)(), seconds);
    }
}

criterion_group!(benches, bench_load);
criterion_main!(benches);
