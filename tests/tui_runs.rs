//! Runs from the explorer: `c` picks a recipe and starts it as a real process, the runs view
//! streams its log with the exit status, a failure shows its first error, `x` stops a run
//! that never ends (its whole process group), quitting asks while runs are going, and the
//! screen is checked against reviewed snapshots.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::compile::batch::Batch;
use skope::compile::job::{ExitStatus, Stream};
use skope::compile::log::LogLine;
use skope::tui::app::{App, Msg};
use skope::tui::effect::Effect;
use skope::tui::runs::RunState;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// A fresh file for a job to write a process id into.
fn pid_file(name: &str) -> PathBuf {
    let dir = runs_dir(&format!("{name}-pid"));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("job.pid")
}

/// Waits until process `pid` (as written by `echo $$`) is gone — not even a zombie; fails
/// after ten seconds.
fn assert_gone(pid: &str) {
    let pid: i32 = pid.trim().parse().unwrap();
    crate::common::assert_gone(pid, Duration::from_secs(10));
}

/// A fresh directory for runs.
fn runs_dir(name: &str) -> PathBuf {
    crate::common::scratch(&format!("tui-runs-{name}")).join("runs")
}

/// The explorer with its event channel, so runs can start, and runs kept in `dir`.
fn app_with_runs(w: u16, h: u16, dir: &str) -> (App, Receiver<Msg>) {
    let (mut app, rx) = app_with_events(w, h);
    app.runs.dir = Some(runs_dir(dir));
    (app, rx)
}

fn ended(app: &App) -> bool {
    app.runs.list.last().is_some_and(|r| !r.is_running())
}

/// Picks the recipe `name` in the picker `c` opens.
fn start(app: &mut App, name: &str) {
    press(app, KeyCode::Char('c'));
    keys(app, name);
    press(app, KeyCode::Enter);
}

#[test]
fn c_picks_a_recipe_and_shows_what_it_runs() {
    let (mut app, _rx) = app_with_runs(120, 40, "picker");
    press(&mut app, KeyCode::Char('c'));
    let text = screen(&app);
    assert!(text.contains("Run a recipe on the current plan"), "{text}");
    assert!(
        text.contains(" check ") && text.contains(" cann "),
        "{text}"
    );
    // The selected recipe says what it is and what it runs.
    assert!(
        text.contains("compile every generated entry source"),
        "{text}"
    );
    assert!(
        text.contains("$ sh -c dir=$1; set -- \"$dir\"/*.cpp;"),
        "{text}"
    );
    keys(&mut app, "zzz");
    assert!(screen(&app).contains("no recipe matches"));
    press(&mut app, KeyCode::Esc);
    assert!(app.dialog.is_none() && app.runs.list.is_empty());
}

#[test]
fn the_check_recipe_runs_from_the_explorer_and_passes() {
    let (mut app, rx) = app_with_runs(120, 40, "check");
    start(&mut app, "check");
    assert!((app.up() == Some("runs")), "the runs view opens");
    assert_eq!(app.runs.list.len(), 1);
    // Its files are written on a worker: the screen goes on meanwhile.
    let text = screen(&app);
    assert!(text.contains("run 1 · check · preparing…"), "{text}");
    assert!(text.contains("files: (not yet written)"), "{text}");
    pump(&mut app, &rx, ended);
    let run = &app.runs.list[0];
    assert!(
        matches!(run.state, RunState::Ended { status, cancelled: false, .. } if status.success()),
        "{:?}: {:?}",
        run.state,
        run.log.lines().collect::<Vec<_>>()
    );
    let lines: Vec<&str> = run.log.lines().map(|l| l.text.as_str()).collect();
    assert!(
        lines.contains(&"checking 13 entry sources: 1 part(s) of up to 64 on 2 core(s)")
            || lines
                .iter()
                .any(|l| l.starts_with("checking 13 entry sources")),
        "{lines:?}"
    );
    assert!(lines.contains(&"checked part 1 of 1"), "{lines:?}");
    assert_eq!(lines.last(), Some(&"all 13 entry sources compile"));
    let text = screen(&app);
    assert!(text.contains("✓  1 check  passed"), "{text}");
    assert!(text.contains("all 13 entry sources compile"), "{text}");
    let status = app.status.as_ref().unwrap();
    assert!(
        !status.problem && status.text.starts_with("run 1 (check) passed in"),
        "{status:?}"
    );
    // Esc goes back to the explorer, L comes back to the runs.
    press(&mut app, KeyCode::Esc);
    assert_ne!(app.up(), Some("runs"));
    press(&mut app, KeyCode::Char('L'));
    assert_eq!(app.up(), Some("runs"));
    // The run left its record, its plan and its whole log.
    let out = app.runs.list[0].out.clone().unwrap();
    let record = skope::compile::record::RunRecord::read(&out).expect("run.json");
    assert_eq!(record.recipe, "check");
    assert_eq!(record.ending, Some(skope::compile::record::Ending::Passed));
    assert_eq!(record.exit_code, Some(0));
    assert!(record.ended_ms.unwrap() >= record.started_ms);
    assert_eq!(record.argv[0], "sh");
    assert!(
        record.dump.ends_with("moe_decode.ge_proto.txt"),
        "{}",
        record.dump
    );
    assert!(out.join("plan.skope.json").is_file());
    let log = std::fs::read_to_string(out.join("log.txt")).unwrap();
    assert!(
        log.ends_with("job| all 13 entry sources compile\n"),
        "{log}"
    );
    // A new session lists it from its record, with its log.
    let runs = app.runs.dir.clone().unwrap();
    let (mut again, _rx) = app_with_events(120, 40);
    again.runs.dir = Some(runs.clone());
    let graph = again.explorer().unwrap().ws.source().id.clone();
    again.runs.load_history(std::slice::from_ref(&runs), &graph);
    let past = &again.runs.list[0];
    assert_eq!(past.state, RunState::Recorded);
    assert_eq!(past.status(), skope::tui::runs::RunStatus::Passed);
    assert!(
        past.log
            .lines()
            .any(|l| l.text == "all 13 entry sources compile"),
        "{:?}",
        past.log.lines().collect::<Vec<_>>()
    );
    press(&mut again, KeyCode::Char('L'));
    let text = screen(&again);
    assert!(text.contains("✓  1 check  passed"), "{text}");
}

#[test]
fn old_runs_are_pruned_to_keep_runs() {
    use skope::compile::record::{RunRecord, prune};
    let dir = runs_dir("prune");
    let record = |started_ms, ended: bool| RunRecord {
        recipe: "p".into(),
        recipe_file: None,
        argv: vec!["true".into()],
        cwd: ".".into(),
        env: Vec::new(),
        dump: "d".into(),
        graph: None,
        plan: "plan.skope.json".into(),
        log: "log.txt".into(),
        results: None,
        started_ms,
        ended_ms: ended.then_some(started_ms + 5),
        ending: None,
        exit_code: None,
        signal: None,
        error: None,
        predicted: None,
    };
    for (i, ended) in [true, false, true, true, true].into_iter().enumerate() {
        let run = dir.join(format!("p-{}", i + 1));
        std::fs::create_dir_all(&run).unwrap();
        record(1_000 + i as u64, ended).write(&run).unwrap();
    }
    // Keep 3: the two oldest ended runs go; the unended one stays.
    let removed = prune(&dir, 3);
    assert_eq!(removed, [dir.join("p-1"), dir.join("p-3")]);
    assert!(dir.join("p-2").is_dir() && dir.join("p-5").is_dir());
}

/// Starts `sh -c script` as recipe `name`, the way the app starts any run.
fn start_script(app: &mut App, name: &str, script: &str) {
    let recipe = skope::compile::recipe::Recipe {
        name: name.into(),
        about: String::new(),
        argv: ["sh", "-c", script].map(String::from).to_vec(),
        cwd: None,
        env: Vec::new(),
        results: None,
        streams: skope::compile::job::Streams::Merged,
        file: None,
        overrides: false,
    };
    offer(app, recipe);
    press(app, KeyCode::Enter);
}

#[test]
fn a_failing_run_shows_its_first_error_highlighted() {
    let (mut app, rx) = app_with_runs(120, 30, "fail");
    start_script(
        &mut app,
        "broken",
        "echo building; sleep 0.2; echo 'x.cpp:3:1: error: expected ;' >&2; sleep 0.2; \
         echo more; exit 3",
    );
    pump(&mut app, &rx, ended);
    let run = &app.runs.list[0];
    assert!(matches!(
        run.state,
        RunState::Ended {
            status: ExitStatus::Code(3),
            ..
        }
    ));
    let status = app.status.as_ref().unwrap();
    assert!(status.problem, "{status:?}");
    assert!(
        status.text.contains("failed (exit code 3)")
            && status
                .text
                .contains("first error, line 2: x.cpp:3:1: error: expected ;"),
        "{status:?}"
    );
    let text = screen(&app);
    assert!(
        text.contains("✗ first error, line 2: x.cpp:3:1: error: expected ;"),
        "{text}"
    );
    assert!(text.contains("failed (exit code 3)"), "{text}");
    // The error line itself is marked in the log, in the error style.
    let buf = buffer(&app);
    let row = (0..buf.area.height)
        .find(|&y| {
            let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
            line.contains("✗ x.cpp:3:1")
        })
        .expect("the error line is in the log");
    let x = (0..buf.area.width)
        .find(|&x| buf[(x, row)].symbol() == "x")
        .unwrap();
    assert_eq!(
        buf[(x, row)].style().fg,
        app.config.theme.get(skope::tui::theme::Role::Error).fg
    );
}

#[test]
fn x_stops_a_run_that_never_ends_with_its_whole_process_group() {
    let (mut app, rx) = app_with_runs(120, 30, "cancel");
    let pid_file = pid_file("cancel");
    // A child in the same group that would outlive its parent if only the parent were killed.
    let script = format!(
        "sleep 1000 & echo $! > {}; echo started; wait",
        pid_file.display()
    );
    start_script(&mut app, "forever", &script);
    pump(&mut app, &rx, |app| {
        app.runs.list[0].log.lines().any(|l| l.text == "started")
    });
    assert!(app.animating(), "the clock ticks while a run goes");
    assert!(screen(&app).contains("1 run going"));
    press(&mut app, KeyCode::Char('x'));
    assert!(
        app.status
            .as_ref()
            .unwrap()
            .text
            .starts_with("stopping run 1 (forever)")
    );
    pump(&mut app, &rx, ended);
    assert!(matches!(
        app.runs.list[0].state,
        RunState::Ended {
            cancelled: true,
            status: ExitStatus::Signal(15),
            ..
        }
    ));
    assert!(screen(&app).contains("⊘  1 forever  cancelled"));
    // The grandchild is gone too (not even a zombie: its parent shell reaped it or init did).
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert_gone(&pid);
}

#[test]
fn esc_on_a_running_run_asks_and_quitting_asks_too() {
    let (mut app, rx) = app_with_runs(120, 30, "ask");
    start_script(&mut app, "slow", "echo started; sleep 1000");
    pump(&mut app, &rx, |app| {
        app.runs.list[0].log.lines().any(|l| l.text == "started")
    });
    press(&mut app, KeyCode::Esc);
    let text = screen(&app);
    assert!(text.contains("is still running. Stop it"), "{text}");
    // b: back to the explorer, the run goes on.
    press(&mut app, KeyCode::Char('b'));
    assert!(app.up() != Some("runs") && app.runs.running() == 1);
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.effects.contains(&Effect::Quit));
    assert!(screen(&app).contains("1 run(s) still running"));
    // The quit key again does not stop the runs; s does.
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.effects.contains(&Effect::Quit));
    press(&mut app, KeyCode::Char('s'));
    assert!(app.effects.contains(&Effect::Quit));
    app.runs.stop_all(Duration::from_secs(3));
    pump(&mut app, &rx, ended);
}

#[test]
fn the_runs_view_looks_right() {
    let (mut app, rx) = app_with_runs(120, 30, "snapshot");
    // A real run that ends at once; then a known log, fed the way the forwarder feeds it
    // (stdout and stderr of a real job interleave differently from run to run).
    start_script(&mut app, "demo", "exit 1");
    pump(&mut app, &rx, ended);
    let id = app.runs.list[0].id;
    let line = |stream, text: &str| LogLine {
        stream,
        text: text.to_string(),
        cut: 0,
    };
    app.now += Duration::from_millis(4200);
    app.handle(Msg::from(skope::tui::runs::RunEvent::Output {
        id,
        batch: Batch {
            lines: vec![
                line(Stream::Stdout, "check sk_attn_0.cpp"),
                line(Stream::Stderr, "In file included from sk_attn_0.cpp:1:"),
                line(
                    Stream::Stderr,
                    "sk_attn_0.cpp:12:5: error: use of undeclared identifier 'pipe_barrier'",
                ),
                line(Stream::Stderr, "1 error generated."),
            ],
            dropped: 0,
            exited: Some(ExitStatus::Code(1)),
            lost: None,
        },
    }));
    let dir = app.runs.dir.clone().unwrap().display().to_string();
    // The temporary directory's name varies: so does the border after it.
    let text = screen(&app)
        .replace(&dir, "<runs>")
        .lines()
        .map(|l| match l.find("<runs>/demo-1 ") {
            Some(at) => format!("{}━━━┛", &l[..at + "<runs>/demo-1 ".len()]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!(normalise_times(&text));
}

/// Times like `4.2 s` → `t s`: a real run's clock varies.
fn normalise_times(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(" s") {
        let head = &rest[..at];
        let start = head
            .char_indices()
            .rfind(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        if head[start..].contains('.') {
            out.push_str(&head[..start]);
            out.push('t');
        } else {
            out.push_str(head);
        }
        out.push_str(" s");
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

#[test]
fn a_flood_of_output_reaches_the_log_in_bounded_batches() {
    let (mut app, _rx) = app_with_runs(120, 30, "flood");
    start_script(&mut app, "quiet", "sleep 1000");
    let id = app.runs.list[0].id;
    let line = |i: usize| LogLine {
        stream: Stream::Stdout,
        text: format!("line {i}"),
        cut: 0,
    };
    app.handle(Msg::from(skope::tui::runs::RunEvent::Output {
        id,
        batch: Batch {
            lines: (0..30_000).map(line).collect(),
            dropped: 5,
            exited: None,
            lost: None,
        },
    }));
    let log = &app.runs.list[0].log;
    assert_eq!(log.lines().len(), skope::compile::log::DEFAULT_LINES);
    assert_eq!(log.total(), 30_005);
    let text = screen(&app);
    assert!(text.contains("20005 earlier lines not kept"), "{text}");
    assert!(text.contains("30005  line 29999"), "{text}");
    // Scrolling up leaves the end; G follows it again.
    press(&mut app, KeyCode::Char('k'));
    assert!(app.runs.scroll.is_some());
    press(&mut app, KeyCode::Char('g'));
    assert!(screen(&app).contains("20006  line 20000"));
    press(&mut app, KeyCode::Char('G'));
    assert!(app.runs.scroll.is_none());
    app.runs.stop_all(Duration::from_secs(3));
}

#[test]
fn heavy_output_read_while_the_screen_draws_ends_with_its_exit_status() {
    // A job that writes lines as fast as it can while the screen is drawn after every batch:
    // the forwarder must keep going to the exit (it once panicked on a clock read, the pipe
    // closed and the job died of SIGPIPE with the run left "running").
    let (mut app, rx) = app_with_runs(120, 30, "heavy");
    start_script(
        &mut app,
        "heavy",
        "i=0; while [ $i -lt 40 ]; do seq 1 20000; i=$((i+1)); done; exit 4",
    );
    let start = Instant::now();
    while !ended(&app) {
        assert!(start.elapsed() < Duration::from_secs(120), "timed out");
        if let Ok(msg) = rx.recv_timeout(Duration::from_millis(50)) {
            app.now = start.elapsed();
            app.handle(msg);
            let _ = screen(&app);
        }
    }
    let run = &app.runs.list[0];
    assert!(
        matches!(
            run.state,
            RunState::Ended {
                status: ExitStatus::Code(4),
                ..
            }
        ),
        "{:?}",
        run.state
    );
    assert_eq!(run.log.total(), 800_000);
}

#[test]
fn a_run_whose_output_cannot_be_followed_ends_as_failed_and_says_why() {
    let (mut app, rx) = app_with_runs(120, 30, "lost");
    start_script(&mut app, "lost", "echo started; sleep 1000");
    pump(&mut app, &rx, |app| {
        app.runs.list[0].log.lines().any(|l| l.text == "started")
    });
    let id = app.runs.list[0].id;
    // What the forwarder's guard sends when the forwarder panics (it also kills the job).
    app.handle(Msg::from(skope::tui::runs::RunEvent::Output {
        id,
        batch: Batch {
            exited: Some(ExitStatus::Signal(9)),
            lost: Some("skope stopped following the job's output: boom".into()),
            ..Batch::default()
        },
    }));
    let run = &app.runs.list[0];
    assert!(matches!(
        run.state,
        RunState::Ended {
            cancelled: false,
            ..
        }
    ));
    let text = screen(&app);
    assert!(
        text.contains("failed after")
            && text.contains("skope stopped following the job's output: boom"),
        "{text}"
    );
    let record = skope::compile::record::RunRecord::read(run.out.as_ref().unwrap()).unwrap();
    assert_eq!(record.ending, Some(skope::compile::record::Ending::Failed));
    assert_eq!(
        record.error.as_deref(),
        Some("skope stopped following the job's output: boom")
    );
    app.runs.stop_all(Duration::from_secs(3));
}

#[test]
fn a_command_that_cannot_start_says_so() {
    let (mut app, rx) = app_with_runs(120, 30, "unstartable");
    let recipe = skope::compile::recipe::Recipe {
        name: "missing".into(),
        about: String::new(),
        argv: vec!["skope-no-such-program".into()],
        cwd: None,
        env: Vec::new(),
        results: None,
        streams: skope::compile::job::Streams::Merged,
        file: None,
        overrides: false,
    };
    offer(&mut app, recipe);
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, ended);
    let run = &app.runs.list[0];
    assert!(
        matches!(run.state, RunState::Unstarted { .. }),
        "{:?}",
        run.state
    );
    let status = app.status.clone().unwrap();
    assert!(
        status.problem
            && status
                .text
                .starts_with("run 1 (missing) could not start: cannot start skope-no-such-program"),
        "{status:?}"
    );
    let text = screen(&app);
    assert!(text.contains("✗  1 missing  not started"), "{text}");
    assert!(text.contains("could not start"), "{text}");
}

#[test]
fn a_run_cancelled_while_it_is_prepared_stops_as_soon_as_it_starts() {
    let (mut app, rx) = app_with_runs(120, 30, "early-cancel");
    start_script(&mut app, "slow", "echo started; sleep 1000");
    // Still preparing: x marks it; its job is stopped when it starts.
    assert_eq!(app.runs.list[0].state, RunState::Preparing);
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(app.runs.list[0].state, RunState::Cancelling);
    pump(&mut app, &rx, ended);
    assert!(matches!(
        app.runs.list[0].state,
        RunState::Ended {
            cancelled: true,
            ..
        }
    ));
}

#[test]
fn quitting_while_a_run_is_prepared_leaves_no_job_behind() {
    let (mut app, rx) = app_with_runs(120, 30, "quit-preparing");
    let pid_file = pid_file("quit-preparing");
    start_script(
        &mut app,
        "late",
        &format!("echo $$ > {}; sleep 1000", pid_file.display()),
    );
    assert_eq!(app.runs.list[0].state, RunState::Preparing);
    // What the event loop does when skope ends, before the worker's answer is taken in.
    app.runs.stop_all(Duration::from_secs(3));
    pump(&mut app, &rx, |app| {
        app.runs.list[0].state != RunState::Preparing
    });
    let run = &app.runs.list[0];
    match run.state {
        // Its preparation ended after skope began to close: the job never started, and the
        // run says why.
        RunState::Unstarted { .. } => {
            let log: Vec<&str> = run.log.lines().map(|l| l.text.as_str()).collect();
            assert!(
                log.iter().any(|l| l.contains("skope is closing")),
                "{log:?}"
            );
            assert!(!pid_file.exists(), "a job ran: {}", pid_file.display());
        }
        // It started first: it was stopped with skope, and its process is gone.
        RunState::Ended { .. } => {
            if let Ok(pid) = std::fs::read_to_string(&pid_file) {
                assert_gone(&pid);
            }
        }
        ref other => panic!("after stopping every run, the run is {other:?}"),
    }
}

#[test]
fn without_an_event_loop_a_run_starts_and_its_output_arrives_with_later_messages() {
    // An app driven message by message, as a script would drive it: no event loop.
    let mut app = app(120, 40);
    app.runs.dir = Some(runs_dir("no-loop"));
    start_script(&mut app, "no-loop", "echo from-the-job");
    // Prepared on the spot: the run started with the key that asked for it.
    let run = app.runs.list.last().expect("a run");
    assert!(run.out.is_some(), "{:?}", app.status);
    let start = std::time::Instant::now();
    while !ended(&app) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "timed out"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        app.handle(Msg::Tick(start.elapsed()));
    }
    let text = screen(&app);
    assert!(text.contains("from-the-job"), "{text}");
}
