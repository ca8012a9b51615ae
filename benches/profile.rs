//! Reading speed of a 500 MB `kernel_details.csv` (Level1 columns: shapes, dtypes, formats,
//! a start time with the writer's trailing tab), streamed row by row into per-kernel totals;
//! and of a ~1.2 GB profiler database of 5 M kernels read whole, every run kept, as a profile
//! is read for a comparison (`cargo bench --bench profile -- database`).
//!
//! The files are generated at run time (never committed) and kept under `target/tmp/`
//! (`skope-bench-kernel_details.csv`, `skope-bench-db/…/ascend_pytorch_profiler_0.db`), so
//! whole processes can be measured on the same inputs (`cargo bench --bench process --
//! database`).

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skope::own_files::Links;
use skope::profile::KernelTable;
use skope::profile::runs::Runs;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

const TARGET_BYTES: u64 = 500 << 20;
/// Distinct kernels per step: a decode graph of a large model.
const OPS_PER_STEP: usize = 2000;

const TYPES: [(&str, &str, &str); 6] = [
    ("MatMulV2", "AI_CORE", "\"\"\"8,7168;7168,4096\"\"\""),
    ("RmsNorm", "AI_VECTOR_CORE", "\"\"\"8,7168;7168\"\"\""),
    (
        "GroupedMatmul",
        "MIX_AIC",
        "\"\"\"8,7168;16,7168,4096;16\"\"\"",
    ),
    ("Add", "AI_VECTOR_CORE", "\"\"\"8,7168;8,7168\"\"\""),
    ("SuperKernel", "MIX_AIC", "N/A"),
    ("HcomAllReduce", "COMMUNICATION", "N/A"),
];

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-kernel_details.csv")
}

/// Writes the file line by line; returns its size and row count.
fn generate() -> (u64, u64) {
    let file = std::fs::File::create(path()).expect("create the generated file");
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let header = "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,\
                  Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 \
                  Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data \
                  Types,Output Formats,Context ID,aicore_time(us),aic_total_cycles\n";
    let mut bytes = header.len() as u64;
    out.write_all(header.as_bytes()).expect("write");
    let mut rows = 0u64;
    let mut start = 1_736_413_971_558_000.0f64;
    let mut line = String::new();
    'steps: for step in 1.. {
        for op in 0..OPS_PER_STEP {
            let (ty, core, shapes) = TYPES[op % TYPES.len()];
            let duration = 1.0 + ((op * 7919 + step * 104_729) % 40_000) as f64 / 1000.0;
            line.clear();
            use std::fmt::Write as _;
            let _ = writeln!(
                line,
                "{step},1,{task},2,layer{layer}_{ty}_{op},{ty},static,{core},\"{start:.3}\t\",\
                 {duration:.3},1.000,24,48,NO,{shapes},DT_BF16;DT_BF16,ND;ND,\"\"\"8,4096\"\"\",\
                 DT_BF16,ND,N/A,{aic:.3},{cycles}",
                task = op + 10,
                layer = op / 32,
                aic = duration * 0.98,
                cycles = (duration * 1850.0) as u64,
            );
            start += duration + 1.0;
            out.write_all(line.as_bytes()).expect("write");
            bytes += line.len() as u64;
            rows += 1;
            if bytes >= TARGET_BYTES {
                break 'steps;
            }
        }
    }
    out.flush().expect("flush");
    (bytes, rows)
}

fn bench_read(c: &mut Criterion) {
    let (bytes, rows) = generate();
    let file = path();
    let table = KernelTable::read(std::slice::from_ref(&file)).expect("generated file reads");
    eprintln!(
        "generated {bytes} bytes, {rows} rows, {} kernels, at {}",
        table.len(),
        file.display()
    );
    assert_eq!(table.rows, rows);
    drop(table);

    let mut group = c.benchmark_group("profile");
    group.throughput(Throughput::Bytes(bytes));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(40));
    group.bench_function("kernel_details_500MB", |b| {
        b.iter(|| KernelTable::read(std::slice::from_ref(&file)).expect("reads"))
    });
    // What a comparison reads: the totals and every run (step, stream, shapes, start, time).
    group.bench_function("kernel_details_500MB_every_run", |b| {
        b.iter(|| Runs::read(std::slice::from_ref(&file), None).expect("reads"))
    });
    group.finish();
}

/// Kernels in the generated database.
const DB_KERNELS: usize = 5_000_000;

/// The generated database (shared with the process bench).
fn database() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("skope-bench-db/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db")
}

fn bench_database(c: &mut Criterion) {
    let path = database();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create the database's directory");
    }
    common::profiler_db::ensure_large(&path, DB_KERNELS);
    let files = [path.clone()];
    let (table, runs) = skope::profile::runs::Runs::read(&files, None).expect("the database reads");
    eprintln!(
        "{}: {:.0} MB, {} kernel rows, {} names, {} steps",
        path.display(),
        std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1e6,
        table.rows,
        table.len(),
        runs.steps().len()
    );
    assert_eq!(table.rows, DB_KERNELS as u64);
    drop((table, runs));
    let mut group = c.benchmark_group("profile");
    group.throughput(Throughput::Elements(DB_KERNELS as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(60));
    group.bench_function("database_5M_kernels", |b| {
        b.iter(|| skope::profile::runs::Runs::read(&files, None).expect("reads"))
    });
    group.finish();
}

/// Kernels in the trace export bench.
const TRACE_KERNELS: usize = 1_000_000;

/// A kernel_details.csv of `TRACE_KERNELS` runs over two streams and 500 steps, written once.
fn trace_input() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-trace-kernels.csv");
    if path.is_file() {
        return path;
    }
    let file = std::fs::File::create(&path).expect("create the kernel file");
    let mut out = std::io::BufWriter::new(file);
    out.write_all(b"Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n")
        .expect("write");
    let mut start = 1_736_413_971_558_000_000i64;
    for i in 0..TRACE_KERNELS {
        let (step, op) = (i / 2000 + 1, i % 2000);
        let dur = 1_000 + (op as i64 * 7919) % 30_000;
        writeln!(
            out,
            "{step},{},layer{}_op{op},Add,AI_CORE,\"{}.{:03}\t\",{}.{:03}",
            op % 2,
            op / 40,
            start / 1000,
            start % 1000,
            dur / 1000,
            dur % 1000
        )
        .expect("write");
        start += dur + 500;
    }
    out.flush().expect("flush");
    path
}

fn bench_trace_export(c: &mut Criterion) {
    let input = trace_input();
    let profile = skope::profile::Profile::open(&input, None).expect("the kernel file reads");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-trace.json");
    let sides = [("profile", &profile)];
    let input = skope::profile::trace_out::TraceInput {
        sides: &sides,
        ..Default::default()
    };
    let written = skope::profile::trace_out::write_file(&out, Links::Follow, &input)
        .expect("the trace writes");
    assert_eq!(written.kernels, TRACE_KERNELS as u64);
    eprintln!(
        "{}: {:.0} MB",
        out.display(),
        std::fs::metadata(&out).map_or(0, |m| m.len()) as f64 / 1e6
    );
    let mut group = c.benchmark_group("export");
    group.throughput(Throughput::Elements(TRACE_KERNELS as u64));
    group.sample_size(10);
    group.bench_function("trace_1M_kernels_to_a_file", |b| {
        b.iter(|| {
            skope::profile::trace_out::write_file(&out, Links::Follow, &input).expect("writes")
        })
    });
    group.finish();
}

criterion_group!(benches, bench_read, bench_database, bench_trace_export);
criterion_main!(benches);
