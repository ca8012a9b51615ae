//! Jobs as real subprocesses: output order and streams, a huge output kept bounded, cancelling
//! a job that never ends (its whole process group, no zombie), a failing job, escape sequences,
//! and arguments that look like shell syntax or paths out of the directory.

use skope::compile::job::{ExitStatus, Job, JobEvent, Launch, MAX_LINE, Stream, Streams};
use skope::compile::log::{Log, LogLine};
use skope::compile::template::{Values, expand};
use std::path::Path;
use std::sync::mpsc::{Receiver, sync_channel};
use std::time::Duration;

const LONG: Duration = Duration::from_secs(60);

fn sh(script: &str) -> (Job, Receiver<((), JobEvent)>) {
    sh_with(script, Streams::Merged)
}

fn sh_with(script: &str, streams: Streams) -> (Job, Receiver<((), JobEvent)>) {
    let (tx, rx) = sync_channel(1024);
    let argv = ["sh".to_string(), "-c".to_string(), script.to_string()];
    let launch = Launch {
        streams,
        ..Launch::new(&argv, Path::new("."))
    };
    let job = Job::spawn(launch, tx, ()).unwrap();
    (job, rx)
}

/// Every event until the exit, and the exit.
fn run_to_end(rx: &Receiver<((), JobEvent)>, log: &mut Log) -> ExitStatus {
    loop {
        match rx.recv_timeout(LONG).expect("the job reports").1 {
            JobEvent::Line { stream, text, cut } => log.push(LogLine { stream, text, cut }),
            JobEvent::Exited(status) => return status,
        }
    }
}

#[test]
fn stdout_and_stderr_keep_the_order_the_job_wrote_them_in() {
    // Two pipes lost this order in 2 of 3 runs; one pipe cannot.
    for _ in 0..20 {
        let (_job, rx) = sh("for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done");
        let mut log = Log::new(100);
        assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
        let lines: Vec<(Stream, &str)> = log.lines().map(|l| (l.stream, l.text.as_str())).collect();
        let expected: Vec<(Stream, String)> = (1..=5)
            .flat_map(|i| [format!("out{i}"), format!("err{i}")])
            .map(|t| (Stream::Merged, t))
            .collect();
        let expected: Vec<(Stream, &str)> =
            expected.iter().map(|(s, t)| (*s, t.as_str())).collect();
        assert_eq!(lines, expected);
    }
}

#[test]
fn separate_streams_tell_each_lines_stream() {
    let (_job, rx) = sh_with(
        "echo one; echo two >&2; sleep 0.2; echo three; printf 'no newline'",
        Streams::Separate,
    );
    let mut log = Log::new(100);
    assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
    let lines: Vec<(Stream, &str)> = log.lines().map(|l| (l.stream, l.text.as_str())).collect();
    let stdout: Vec<&str> = lines
        .iter()
        .filter(|(s, _)| *s == Stream::Stdout)
        .map(|(_, t)| *t)
        .collect();
    assert_eq!(stdout, ["one", "three", "no newline"]);
    assert!(lines.contains(&(Stream::Stderr, "two")));
    // stdout's "three" comes after stderr's "two" (it was printed 0.2 s later)
    let two = lines.iter().position(|l| l.1 == "two").unwrap();
    let three = lines.iter().position(|l| l.1 == "three").unwrap();
    assert!(two < three);
}

#[test]
fn a_gigabyte_of_output_stays_bounded() {
    // The peak is the process's: measured in a process of its own, so other tests running
    // beside it do not count.
    const ALONE: &str = "SKOPE_TEST_ALONE";
    if std::env::var_os(ALONE).is_none() {
        let exe = std::env::current_exe().unwrap();
        let out = std::process::Command::new(exe)
            .args([
                "--exact",
                "jobs::a_gigabyte_of_output_stays_bounded",
                "--test-threads=1",
            ])
            .env(ALONE, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
        return;
    }
    // A 1 GiB line, then 64 MiB in 4 KiB lines: the log keeps its last 1,000 lines of at
    // most MAX_LINE bytes each. (Cleaning each kept line is what costs time in a debug
    // build, hence one huge line rather than a quarter million lines of output.)
    let (_job, rx) = sh("head -c 1073741824 /dev/zero | tr '\\0' x; echo; \
         head -c 67108864 /dev/zero | tr '\\0' y | fold -w 4095");
    let mut log = Log::new(1000);
    assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
    assert_eq!(log.lines().len(), 1000);
    assert!(log.total() > 16_000, "{}", log.total());
    assert!(log.lines().all(|l| l.text.len() <= MAX_LINE));
    assert!(log.lines().all(|l| l.text.starts_with('y')));
    // Nothing near the gigabyte was held: the test process's peak memory stays small.
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let peak_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    assert!(peak_kb < 256 * 1024, "peak {peak_kb} kB");
}

#[test]
fn a_huge_single_line_is_cut_and_counted() {
    let (_job, rx) = sh("head -c 10000000 /dev/zero | tr '\\0' x");
    let mut log = Log::new(10);
    assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
    let line = log.lines().next().unwrap();
    assert_eq!(line.text.len(), MAX_LINE);
    assert_eq!(line.cut, 10_000_000 - MAX_LINE);
}

#[test]
fn cancelling_stops_the_whole_group_and_leaves_no_zombie() {
    // The shell starts a grandchild that would outlive a kill of the shell alone.
    let (job, rx) = sh("sleep 1000 & echo started; wait");
    let first = rx.recv_timeout(LONG).unwrap().1;
    assert!(matches!(first, JobEvent::Line { ref text, .. } if text == "started"));
    job.cancel(Duration::from_millis(500));
    let mut log = Log::new(10);
    let status = run_to_end(&rx, &mut log);
    assert!(!status.success());
    // Nothing of the group is left: kill(-pgid, 0) fails with ESRCH once all are reaped.
    let deadline = std::time::Instant::now() + LONG;
    loop {
        let alive = std::process::Command::new("sh")
            .args(["-c", &format!("kill -0 -- -{} 2>/dev/null", job.pid())])
            .status()
            .unwrap()
            .success();
        if !alive {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the group lives on");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The shell itself was reaped (no zombie): its /proc entry is gone.
    assert!(!Path::new(&format!("/proc/{}", job.pid())).exists());
}

#[test]
fn a_process_that_left_the_group_and_holds_the_output_neither_keeps_the_job_running_nor_outlives_it()
 {
    // The grandchild leaves the job's process group (setsid) and keeps its stdout: the pipe
    // would stay open for 1000 s.
    let (job, rx) = sh("setsid sleep 1000 & echo $!; echo started");
    let started = std::time::Instant::now();
    let mut log = Log::new(10);
    let status = run_to_end(&rx, &mut log);
    assert_eq!(status, ExitStatus::Code(0));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "ended promptly"
    );
    assert!(job.has_ended());
    let lines: Vec<&str> = log.lines().map(|l| l.text.as_str()).collect();
    let stray: i32 = lines[0].parse().unwrap();
    assert_eq!(lines[1], "started");
    assert!(
        lines[2].contains("outside its process group") && lines[2].contains(&stray.to_string()),
        "{lines:?}"
    );
    crate::common::assert_gone(stray, LONG);
}

#[test]
fn a_runs_ending_is_written_to_its_record_even_when_no_one_reads_the_events() {
    use skope::compile::{prepare, recipe, record::RunRecord};
    let dump = "assets/examples/moe_decode.ge_proto.txt";
    let ws = crate::common::workspace(dump);
    let slow = recipe::Recipe {
        name: "slow".into(),
        argv: vec!["sh".into(), "-c".into(), "echo going; sleep 1000".into()],
        ..recipe::builtin().remove(0)
    };
    let runs = crate::common::scratch("jobs-record");
    let mut run = prepare::prepare(&ws, &slow, &runs, 20).unwrap();
    let (tx, rx) = sync_channel(1);
    let job = run.start(tx, ()).unwrap();
    // The reader of the events is gone (the explorer stopped); the job is cancelled.
    drop(rx);
    job.cancel(Duration::from_millis(200));
    let deadline = std::time::Instant::now() + LONG;
    while !job.has_ended() {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    }
    let record = RunRecord::read(&run.out).unwrap();
    assert!(record.ended_ms.is_some(), "{record:?}");
    assert_eq!(
        record.ending,
        Some(skope::compile::record::Ending::Cancelled)
    );
}

#[test]
fn a_failing_job_reports_its_code_and_first_error() {
    let (_job, rx) =
        sh("echo compiling; echo 'a.cpp:3:1: error: expected ;' >&2; echo more; exit 3");
    let mut log = Log::new(10);
    assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(3));
    let (n, line) = log.first_error().unwrap();
    assert_eq!(line.text, "a.cpp:3:1: error: expected ;");
    // One pipe for both streams: the line is exactly where the job wrote it.
    assert_eq!(line.stream, Stream::Merged);
    assert_eq!(n, 1);
}

#[test]
fn escape_sequences_in_the_output_never_come_through() {
    let (_job, rx) =
        sh("printf '\\033[31mred\\033[0m \\033]0;title\\007 \\033]52;c;aGk=\\007done\\n'");
    let mut log = Log::new(10);
    run_to_end(&rx, &mut log);
    let text = &log.lines().next().unwrap().text;
    assert_eq!(text, "red  done");
    assert!(!text.contains('\x1b') && !text.contains('\x07'));
}

#[test]
fn shell_syntax_and_paths_in_values_stay_literal_arguments() {
    let dir = crate::common::scratch("jobs");
    let values = Values {
        graph: "a; touch pwned; $(touch pwned2) `touch pwned3` ../../etc/passwd".into(),
        ..Values::default()
    };
    let argv = expand(
        &[
            "printf".to_string(),
            "[%s]\\n".to_string(),
            "{graph}".to_string(),
            "--x={graph}".to_string(),
        ],
        &values,
    )
    .unwrap();
    let (tx, rx) = sync_channel(1024);
    let _job = Job::spawn(Launch::new(&argv, &dir), tx, ()).unwrap();
    let mut log = Log::new(10);
    assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
    let lines: Vec<&str> = log.lines().map(|l| l.text.as_str()).collect();
    assert_eq!(
        lines,
        [
            "[a; touch pwned; $(touch pwned2) `touch pwned3` ../../etc/passwd]",
            "[--x=a; touch pwned; $(touch pwned2) `touch pwned3` ../../etc/passwd]"
        ]
    );
    for name in ["pwned", "pwned2", "pwned3"] {
        assert!(!dir.join(name).exists(), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_program_is_an_error_not_a_panic() {
    let (tx, _rx) = sync_channel::<((), JobEvent)>(1);
    let missing = ["skope-no-such-program".to_string()];
    let err = Job::spawn(Launch::new(&missing, Path::new(".")), tx.clone(), ()).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    assert!(Job::spawn(Launch::new(&[], Path::new(".")), tx, ()).is_err());
}

#[test]
fn the_check_recipe_fails_with_the_compilers_message_on_a_broken_shim() {
    use skope::compile::{prepare, recipe};
    let dump = "assets/examples/moe_decode.ge_proto.txt";
    let loaded = skope::load::load_file(Path::new(dump), Default::default()).unwrap();
    let format = loaded.format;
    let ws = skope::workspace::Workspace::new(
        loaded.into_main(),
        format,
        dump,
        &skope::fusion::rules::RuleSet::bundled(),
    );
    let check = recipe::builtin()
        .into_iter()
        .find(|p| p.name == "check")
        .unwrap();
    let runs = crate::common::scratch("jobs-runs");
    let run = prepare::prepare(&ws, &check, &runs, 20).unwrap();
    // The shim loses a name the entry code uses.
    let shim = run.out.join("codegen/kernel_operator.h");
    let broken = prepare::SHIM_HEADER.replace("void SetNextTaskStart();", "");
    std::fs::write(&shim, broken).unwrap();
    let (tx, rx) = sync_channel(1024);
    let launch = Launch {
        env: &run.env,
        streams: run.streams,
        ..Launch::new(&run.argv, &run.cwd)
    };
    let _job = Job::spawn(launch, tx, ()).unwrap();
    let mut log = Log::new(1000);
    let status = run_to_end(&rx, &mut log);
    let _ = std::fs::remove_dir_all(&runs);
    assert!(!status.success());
    let (_, line) = log.first_error().unwrap();
    assert!(
        line.text.contains("error") && line.text.contains("SetNextTaskStart"),
        "{}",
        line.text
    );
}

#[test]
fn a_log_file_keeps_every_line_marked_with_its_stream_where_it_is_known() {
    let dir = crate::common::scratch("jobs-log");
    let argv = [
        "sh".to_string(),
        "-c".to_string(),
        "echo building; sleep 0.01; echo 'error: x' >&2; printf '\\033[31mred\\033[0m'".to_string(),
    ];
    for (streams, marks) in [
        (Streams::Merged, ["job| ", "job| ", "job| "]),
        (Streams::Separate, ["out| ", "err| ", "out| "]),
    ] {
        let file = dir.join(format!("{streams:?}.txt"));
        let (tx, rx) = sync_channel(1024);
        let launch = Launch {
            streams,
            log: Some(&file),
            ..Launch::new(&argv, Path::new("."))
        };
        let _job = Job::spawn(launch, tx, ()).unwrap();
        let mut log = Log::new(100);
        assert_eq!(run_to_end(&rx, &mut log), ExitStatus::Code(0));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            format!(
                "{}building\n{}error: x\n{}red\n",
                marks[0], marks[1], marks[2]
            )
        );
        let (lines, before) = skope::compile::record::read_log(&file, 2);
        assert_eq!(before, 1);
        let known = |s| match streams {
            Streams::Merged => Stream::Merged,
            Streams::Separate => s,
        };
        assert_eq!(
            lines,
            [
                (known(Stream::Stderr), "error: x".to_string()),
                (known(Stream::Stdout), "red".to_string())
            ]
        );
    }
}
