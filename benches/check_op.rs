//! `skope check-op` on a directory of 1,000 operator sources (half adapted, half not, each
//! kernel named apart): reading them from disk and checking them.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;

fn sources() -> PathBuf {
    let dir = std::env::temp_dir().join("skope-bench-check-op");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check_op");
    let adapted =
        std::fs::read_to_string(fixtures.join("adapted/add_custom.cpp")).expect("fixture");
    let unadapted =
        std::fs::read_to_string(fixtures.join("unadapted/matmul_custom.cpp")).expect("fixture");
    for i in 0..500 {
        let named = |text: &str, kernel: &str| text.replace(kernel, &format!("{kernel}_{i}"));
        std::fs::write(
            dir.join(format!("a_{i}.cpp")),
            named(&adapted, "add_custom"),
        )
        .expect("write");
        std::fs::write(
            dir.join(format!("m_{i}.cpp")),
            named(&unadapted, "matmul_custom"),
        )
        .expect("write");
    }
    dir
}

fn bench(c: &mut Criterion) {
    let dir = sources();
    let mut group = c.benchmark_group("check_op");
    group.sample_size(20);
    group.bench_function("read_and_check_1000_sources", |b| {
        b.iter(|| {
            let read = skope::check_op::read_sources(std::slice::from_ref(&dir)).expect("reads");
            skope::check_op::check(&read, skope::target::Target::Dav2201)
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
