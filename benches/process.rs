//! Whole processes, as a user waits for them: the optimised binary's `skope info --json` on the
//! generated dumps ([`dumps`]; wall time and peak memory over several runs), and the time from
//! starting the explorer on the ~100 MB GE text to its first screen showing the graph.
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

fn main() {
    // `cargo bench` passes `--bench`; a filter argument selects nothing here.
    let paths: Vec<PathBuf> = dumps::ALL
        .iter()
        .map(|dump| ensure((dump.path)(), dump.generate))
        .collect();
    // A child's peak starts from this process's (the kernel carries it over the exec): the
    // generated text must not count as skope's.
    if std::fs::write("/proc/self/clear_refs", "5").is_err() {
        eprintln!(
            "cannot reset this process's peak memory: the peaks below may be the generator's"
        );
    }
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
}
