//! Whole processes, as a user waits for them: the optimised binary's `skope info --json` on the
//! generated dumps ([`dumps`]; wall time and peak memory over several runs), the time from
//! starting the explorer on the ~100 MB GE text to its first screen showing the graph, and
//! `skope diff --json` on a generated pair of 16 ranks with a ~200 MB kernel file per rank and
//! side (every rank compared in one pass), in the nine columns a comparison reads and in the
//! profiler's 46.
//!
//! `cargo bench --bench process` prints one line per measure with the bar beside it;
//! the figures are recorded in docs/PERFORMANCE.md. The files stay in the page cache between
//! runs (one untimed run first), as they do for a user who loads a dump again.

#[path = "../tests/common/mod.rs"]
mod common;
mod dumps;
#[path = "../tests/pty/mod.rs"]
mod pty;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Timed runs of each command.
const RUNS: usize = 5;

/// The binary under test, built with the bench profile.
fn skope() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_skope"))
}

/// `path`, written from `generate` unless a file of the generator's output is already there
/// (the load bench writes the same files).
fn ensure(path: PathBuf, generate: fn() -> String) -> PathBuf {
    let text = generate();
    let same = std::fs::metadata(&path).is_ok_and(|m| m.len() == text.len() as u64);
    if !same {
        std::fs::write(&path, text).expect("write the generated dump");
    }
    path
}

/// Resets this process's peak memory: a child's peak starts from it (the kernel carries it over
/// the exec), and the generated files must not count as skope's.
fn reset_peak() {
    if std::fs::write("/proc/self/clear_refs", "5").is_err() {
        eprintln!(
            "cannot reset this process's peak memory: the peaks below may be the generator's"
        );
    }
}

/// One run of `skope args`: its wall time and peak resident memory in bytes.
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4, for its rusage"
)]
fn run_once(args: &[&str]) -> (Duration, u64) {
    let start = Instant::now();
    let child = Command::new(skope())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start skope");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes only into the two
    // locals it is given; the child is reaped here and `child` never waits on it again.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let took = start.elapsed();
    assert_eq!(reaped, pid, "wait for skope");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "skope {args:?} failed"
    );
    (took, usage.ru_maxrss as u64 * 1024)
}

/// Best and median of a set of durations.
fn best_and_median(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[0], times[times.len() / 2])
}

fn seconds(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// What the whole process on the dump `bench` is held against.
fn bar(bench: &str) -> &'static str {
    match bench {
        "ge_proto_text_100MB" => "≥ 300 MB/s, ≤ 2× the file",
        "ge_json_150MB" => "≥ 150 MB/s, ≤ 2.5× the file",
        "torchair_pbtxt_95MB" | "ge_onnx_200MB" => "≤ 2× the file",
        _ => "—",
    }
}

/// `skope info --json FILE`, `RUNS` times after one untimed run.
fn info(label: &str, path: &Path, bar: &str) {
    let file = path.to_string_lossy();
    let args = ["info", "--json", file.as_ref()];
    let size = std::fs::metadata(path).expect("generated dump").len() as f64;
    run_once(&args);
    let runs: Vec<(Duration, u64)> = (0..RUNS).map(|_| run_once(&args)).collect();
    let peak = runs.iter().map(|r| r.1).max().unwrap_or(0) as f64;
    let (best, median) = best_and_median(runs.into_iter().map(|r| r.0).collect());
    println!(
        "info {label:<20} {:>6.1} MB  best {:.3} s ({:>4.0} MB/s)  median {:.3} s ({:>4.0} MB/s)  \
         peak {:>5.0} MB = {:.2}× the file   bar: {bar}",
        size / 1e6,
        seconds(best),
        size / 1e6 / seconds(best),
        seconds(median),
        size / 1e6 / seconds(median),
        peak / 1e6,
        peak / size,
    );
}

/// Start of the explorer on `path` to the first screen that shows its ops.
fn first_screen(path: &Path) -> Duration {
    let file = path.to_string_lossy();
    let start = Instant::now();
    let mut session = pty::Session::spawn(skope(), &[file.as_ref()], &[], 160, 48);
    session.wait_for("the graph", Duration::from_secs(60), |screen| {
        screen.contains("Ops (execution order)")
    });
    let took = start.elapsed();
    session.send(b"q");
    session.wait_exit(Duration::from_secs(10));
    took
}

/// Ranks of the generated multi-rank pair.
const RANKS: usize = 16;

/// What a generated rank's kernel file holds.
#[derive(Clone, Copy)]
struct RankShape {
    /// Steps.
    steps: usize,
    /// Segments of 8 kernels per step.
    segments: usize,
    /// Kernels outside every segment, per step.
    others: usize,
    /// Its columns.
    layout: Layout,
}

/// The columns of a generated kernel file.
#[derive(Clone, Copy, PartialEq)]
enum Layout {
    /// The nine a comparison reads: ~70 bytes a row.
    Narrow,
    /// The profiler's Level1 export with the PipeUtilization metrics: 46 columns (the 23 of
    /// reference/profiling_and_dumps.md §1.3's sample, then the metric set), ~330 bytes a row.
    Profiler,
}

/// The header of a [`Layout::Profiler`] file.
const PROFILER_HEADER: &str = "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,\
    Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num,Mix Block Num,HF32 \
    Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output \
    Formats,Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,\
    aic_scalar_time(us),aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),\
    aic_mte2_ratio,aic_fixpipe_time(us),aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),\
    aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,aiv_scalar_time(us),aiv_scalar_ratio,\
    aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,aiv_icache_miss_rate,\
    cube_utilization(%)";

/// The 16 ranks' shape: ~200 MB without SuperKernel.
const BIG_RANK: RankShape = RankShape {
    steps: 120,
    segments: 500,
    others: 20_000,
    layout: Layout::Narrow,
};

/// The 16 ranks' shape in the profiler's own columns: ~200 MB without SuperKernel.
const WIDE_RANK: RankShape = RankShape {
    steps: 34,
    segments: 500,
    others: 20_000,
    layout: Layout::Profiler,
};

/// Writes one rank's side under `dir`, unless a file of the same size is there already.
fn rank_side(dir: &Path, rank: usize, with_sk: bool, shape: RankShape) -> u64 {
    use std::fmt::Write as _;
    use std::io::Write as _;
    let out = dir.join("ASCEND_PROFILER_OUTPUT");
    let path = out.join("kernel_details.csv");
    std::fs::create_dir_all(&out).expect("create the rank directory");
    let mut text = String::with_capacity(256 << 20);
    match shape.layout {
        Layout::Narrow => text.push_str(
            "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Stream ID\n",
        ),
        Layout::Profiler => {
            text.push_str(PROFILER_HEADER);
            text.push('\n');
        }
    }
    let mut t = 1_736_413_971_558_000.0f64;
    let mut task = 0u64;
    let mut row =
        |text: &mut String, step: usize, name: &dyn std::fmt::Display, ty: &str, d: f64| {
            match shape.layout {
                Layout::Narrow => {
                    let _ = writeln!(
                        text,
                        "{step},{rank},{name},{ty},AI_VECTOR_CORE,\"{t:.3}\t\",{d:.3},1.000,2"
                    );
                }
                Layout::Profiler => {
                    let aiv = d * 0.97;
                    let cycles = (aiv * 1850.0) as u64;
                    let _ = writeln!(
                        text,
                        "{step},4294967295,{task},2,{name},{ty},dynamic,AI_VECTOR_CORE,\
                         \"{t:.3}\t\",{d:.3},1.000,48,0,NO,\"\"\"8,4096;8,4096\"\"\",\
                         DT_BF16;DT_BF16,ND;ND,\"\"\"8,4096\"\"\",DT_BF16,ND,N/A,0,0,0,0,0,0,\
                         0,0,0,0,0,0,0,{aiv:.3},{cycles},{:.3},0.412,{:.3},0.118,{:.3},0.301,\
                         {:.3},0.169,0.002,0.000",
                        aiv * 0.412,
                        aiv * 0.118,
                        aiv * 0.301,
                        aiv * 0.169,
                    );
                    task += 1;
                }
            }
            t += d + 1.0;
        };
    for step in 1..=shape.steps {
        for s in 0..shape.segments {
            let d = |k: usize| 2.0 + ((s * 31 + k * 7 + step * 3 + rank) % 50) as f64 / 10.0;
            if with_sk {
                let sum: f64 = (0..8).map(d).sum::<f64>() * 0.95;
                let name = format!("sk_seg{s}_start_seg{s}_op0_end_seg{s}_op7");
                row(&mut text, step, &name, "SuperKernel", sum);
            } else {
                for k in 0..8 {
                    row(&mut text, step, &format_args!("seg{s}_op{k}"), "Add", d(k));
                }
            }
        }
        for o in 0..shape.others {
            let d = 1.0 + ((o * 13 + step) % 30) as f64 / 10.0;
            row(&mut text, step, &format_args!("other_op{o}"), "Cast", d);
        }
    }
    let same = std::fs::metadata(&path).is_ok_and(|m| m.len() == text.len() as u64);
    if !same {
        let mut file = std::fs::File::create(&path).expect("create the kernel file");
        file.write_all(text.as_bytes())
            .expect("write the kernel file");
    }
    text.len() as u64
}

/// Writes the 16 ranks of `shape` (unless there already) under `root`; each side's bytes.
fn big_ranks(root: &Path, shape: RankShape) -> [u64; 2] {
    let mut bytes = [0u64; 2];
    for rank in 0..RANKS {
        for (side, with_sk) in [("no_sk_model", false), ("sk_model", true)] {
            let dir = root.join(side).join(format!("rank{rank}_ascend_pt"));
            bytes[usize::from(with_sk)] += rank_side(&dir, rank, with_sk, shape);
        }
    }
    bytes
}

/// `skope diff ROOT --json`, once untimed and then `times` times: best, median, peak bytes.
fn timed_diff(root: &Path, times: usize) -> (Duration, Duration, f64) {
    let file = root.to_string_lossy();
    let args = ["diff", file.as_ref(), "--json"];
    run_once(&args);
    let runs: Vec<(Duration, u64)> = (0..times).map(|_| run_once(&args)).collect();
    let peak = runs.iter().map(|r| r.1).max().unwrap_or(0) as f64;
    let (best, median) = best_and_median(runs.into_iter().map(|r| r.0).collect());
    (best, median, peak)
}

/// `skope diff ROOT --json` on the generated ranks of `shape`, after one untimed run.
fn ranks(shape: RankShape) {
    let (folder, columns) = match shape.layout {
        Layout::Narrow => ("skope-bench-ranks", 9),
        Layout::Profiler => ("skope-bench-ranks-wide", 46),
    };
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(folder);
    let bytes = big_ranks(&root, shape);
    reset_peak();
    let (best, median, peak) = timed_diff(&root, 2);
    println!(
        "diff of {RANKS} ranks of {columns} columns, {:.0} MB + {:.0} MB of kernel files (about \
         {:.0} MB a rank and side): best {:.2} s  median {:.2} s  peak {:.0} MB   bar: ≤ 8 s, \
         ≤ 1 GB",
        bytes[0] as f64 / 1e6,
        bytes[1] as f64 / 1e6,
        (bytes[0] + bytes[1]) as f64 / 1e6 / (2 * RANKS) as f64,
        seconds(best),
        seconds(median),
        peak / 1e6
    );
}

/// Kernels in the generated database (the profile bench's, same file) unless the command
/// line gives another count after `database`.
const DB_KERNELS: usize = 5_000_000;

/// `skope diff DB DB --json` on a ~1.2 GB profiler database of 5 M kernels (or
/// `-- database N` kernels, in a file of its own), both sides read whole with every run kept;
/// peak memory against the runs kept.
fn database() {
    let args: Vec<String> = std::env::args().collect();
    let count = args
        .iter()
        .position(|a| a == "database")
        .and_then(|at| args.get(at + 1))
        .and_then(|n| n.parse::<usize>().ok());
    let (folder, kernels) = match count {
        Some(n) if n != DB_KERNELS => (format!("skope-bench-db-{n}"), n),
        _ => ("skope-bench-db".to_string(), DB_KERNELS),
    };
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(folder)
        .join("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create the database's directory");
    }
    common::profiler_db::ensure_large(&path, kernels);
    reset_peak();
    let file = path.to_string_lossy();
    let args = ["diff", file.as_ref(), file.as_ref(), "--json"];
    run_once(&args);
    let runs: Vec<(Duration, u64)> = (0..3).map(|_| run_once(&args)).collect();
    let peak = runs.iter().map(|r| r.1).max().unwrap_or(0) as f64;
    let (best, median) = best_and_median(runs.into_iter().map(|r| r.0).collect());
    let kept = 2.0 * kernels as f64 * skope::profile::kernels::BYTES_PER_RUN as f64;
    println!(
        "diff of a {:.0} MB database against itself ({kernels} kernels a side): best {:.2} s \
         ({:.2} M kernels/s)  median {:.2} s  peak {:.0} MB = {:.2}× the {:.0} MB of runs kept   \
         bar: ≥ 1 M kernels/s, ≤ 1.5×",
        std::fs::metadata(&path).map_or(0, |m| m.len()) as f64 / 1e6,
        seconds(best),
        2.0 * kernels as f64 / seconds(best) / 1e6,
        seconds(median),
        peak / 1e6,
        peak / kept,
        kept / 1e6
    );
}

/// Digests every rank of both sides of the pair at `root` into `out` (`skope digest`, one
/// process per rank and side, as a launcher starts them); the time of the slowest and the
/// digests' and the kernel files' bytes.
fn digest_all(root: &Path, out: &Path, ranks: usize) -> (Duration, u64, u64) {
    let (mut slowest, mut digests, mut raw) = (Duration::ZERO, 0, 0);
    for side in ["no_sk_model", "sk_model"] {
        std::fs::create_dir_all(out.join(side)).expect("create the digests' folder");
        for rank in 0..ranks {
            let profile = root.join(side).join(format!("rank{rank}_ascend_pt"));
            let output = out.join(side).join(format!("rank{rank}.skd"));
            let (profile, output) = (profile.to_string_lossy(), output.to_string_lossy());
            let (took, _) = run_once(&["digest", &profile, "-o", &output]);
            slowest = slowest.max(took);
            digests += std::fs::metadata(output.as_ref()).map_or(0, |m| m.len());
            let kernels =
                Path::new(profile.as_ref()).join("ASCEND_PROFILER_OUTPUT/kernel_details.csv");
            raw += std::fs::metadata(kernels).map_or(0, |m| m.len());
        }
    }
    (slowest, digests, raw)
}

/// `skope diff DIGESTS --json` on digests of 1,024 small ranks (merge ≤ 2 s), then on digests of
/// the 16 ranks (made here, a process per rank and side), each after the files are generated
/// and this process's peak is reset.
fn digests() {
    let small = RankShape {
        steps: 3,
        segments: 20,
        others: 100,
        layout: Layout::Narrow,
    };
    let many = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-ranks-1024");
    const MANY: usize = 1024;
    for rank in 0..MANY {
        for (side, with_sk) in [("no_sk_model", false), ("sk_model", true)] {
            let dir = many.join(side).join(format!("rank{rank}_ascend_pt"));
            rank_side(&dir, rank, with_sk, small);
        }
    }
    let merged = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-digests-1024");
    if !merged
        .join("sk_model")
        .join(format!("rank{}.skd", MANY - 1))
        .exists()
    {
        digest_all(&many, &merged, MANY);
    }
    reset_peak();
    let (best, median, peak) = timed_diff(&merged, 3);
    println!(
        "diff of {MANY} ranks' digests: best {:.2} s  median {:.2} s  peak {:.0} MB   bar: ≤ 2 s",
        seconds(best),
        seconds(median),
        peak / 1e6
    );
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-ranks");
    big_ranks(&root, BIG_RANK);
    let big = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-digests-16");
    let (slowest, digests, raw) = digest_all(&root, &big, RANKS);
    reset_peak();
    let (best, median, peak) = timed_diff(&big, 3);
    println!(
        "digests of {RANKS} ranks: slowest rank and side digested in {:.2} s ({:.0} MB/s); {:.0} MB          of digests for {:.0} MB of kernel files ({:.1}%); diff of the digests: best {:.2} s           median {:.2} s  peak {:.0} MB",
        seconds(slowest),
        raw as f64 / (2 * RANKS) as f64 / 1e6 / seconds(slowest),
        digests as f64 / 1e6,
        raw as f64 / 1e6,
        100.0 * digests as f64 / raw as f64,
        seconds(best),
        seconds(median),
        peak / 1e6
    );
}

fn main() {
    // `cargo bench --bench process -- ranks` times the ranks alone (`-- ranks-wide` the same
    // ranks in the profiler's 46 columns), `-- digests` the ranks'
    // digests, `-- database` the profiler database; `cargo bench` passes `--bench`, and other
    // arguments select nothing.
    if std::env::args().any(|a| a == "ranks") {
        return ranks(BIG_RANK);
    }
    if std::env::args().any(|a| a == "ranks-wide") {
        return ranks(WIDE_RANK);
    }
    if std::env::args().any(|a| a == "digests") {
        return digests();
    }
    if std::env::args().any(|a| a == "database") {
        return database();
    }
    let paths: Vec<PathBuf> = dumps::ALL
        .iter()
        .map(|dump| ensure((dump.path)(), dump.generate))
        .collect();
    reset_peak();
    for (dump, path) in dumps::ALL.iter().zip(&paths) {
        info(dump.bench, path, bar(dump.bench));
    }
    // The GE text, first in the list.
    let ge = &paths[0];
    first_screen(ge);
    let screens: Vec<Duration> = (0..RUNS).map(|_| first_screen(ge)).collect();
    let (best, median) = best_and_median(screens);
    println!(
        "explorer first screen, ge_proto text: best {:.3} s  median {:.3} s   bar: ≤ 1 s \
         (polled every 20 ms)",
        seconds(best),
        seconds(median)
    );
    ranks(BIG_RANK);
    ranks(WIDE_RANK);
}
