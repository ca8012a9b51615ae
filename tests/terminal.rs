//! The real `skope` binary in a real pseudo-terminal: keys go in as bytes, the screen is read
//! back through a terminal emulator. Covers what snapshots of the drawing code cannot: raw
//! mode, the alternate screen, the event loop, resize (SIGWINCH), quitting and signals.

mod common;
mod pty;

use pty::Session;
use std::path::Path;
use std::time::Duration;

const LONG: Duration = Duration::from_secs(20);

/// The binary in a fresh working directory of its own, so a journal or plan file one test
/// leaves never reaches another.
fn skope(args: &[&str], cols: u16, rows: u16) -> Session {
    static SESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = common::scratch(&format!("term-{n}"));
    Session::spawn_in(
        &dir,
        Path::new(env!("CARGO_BIN_EXE_skope")),
        args,
        &[],
        cols,
        rows,
    )
}

/// The details pane's first line: the selected op's name.
fn details_title(screen: &str) -> Option<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("┌ Op ─") || l.contains("┏ Op ━"))?;
    let line = lines.get(at + 1)?;
    // The details' left border follows the tree's right one: plain when the pane is not
    // focused, thick when it is.
    let start = line
        .rfind("││")
        .map(|i| i + "││".len())
        .or_else(|| line.find("│┃").map(|i| i + "│┃".len()))
        .or_else(|| line.find("┃┃").map(|i| i + "┃┃".len()))?;
    Some(line[start..].trim_end_matches(['│', '┃', ' ']).to_string())
}

/// Selects op `name` with a search and waits until the details show it.
fn select(s: &mut Session, name: &str) {
    s.send(format!("/name:{name}\r").as_bytes());
    s.wait_for("the op", LONG, |t| {
        details_title(t).as_deref() == Some(name)
    });
}

#[test]
fn navigate_search_jump_help_resize_and_quit_in_a_real_terminal() {
    let mut s = skope(&[], 120, 40);
    s.wait_for("the bundled example", LONG, |t| {
        t.contains("moe_decode.ge_proto.txt") && t.contains("Ops (execution order) 137")
    });
    // Navigate: five rows down lands on the first fused op.
    s.send(b"jjjjj");
    s.wait_for("layer0_input_rmsnorm selected", LONG, |t| {
        details_title(t).as_deref() == Some("layer0_input_rmsnorm")
    });
    // Jump to the first break: the details pane explains it.
    s.send(b"]");
    let screen = s.wait_for("the first break", LONG, |t| {
        t.contains("✗ breaks scope moe_0")
    });
    assert!(
        screen.contains("✗ breaks scope moe_0: type not adapted to SuperKernel"),
        "{screen}"
    );
    // Search by type.
    s.send(b"/type:Cast");
    s.wait_for("one match", LONG, |t| {
        t.contains("/type:Cast▏  1 match(es)")
    });
    s.send(b"\r");
    s.wait_for("the Cast selected", LONG, |t| {
        details_title(t).as_deref() == Some("layer1_expert_ids_cast")
    });
    // Arrow keys work like vim keys.
    s.send(b"\x1b[B");
    s.wait_for("the next op", LONG, |t| {
        details_title(t).as_deref() == Some("layer1_init_routing")
    });
    // Help opens over the screen and Esc closes it.
    s.send(b"?");
    s.wait_for("help", LONG, |t| {
        t.contains("Help — ") && t.contains("next break")
    });
    s.send(b"\x1b");
    s.wait_for("help closed", LONG, |t| !t.contains("Help — "));
    // Resize: the layout follows at once; too small says so; back again.
    s.resize(80, 24);
    s.wait_for("the 80×24 layout", LONG, |t| {
        t.contains("8 scopes → 13 seg · ✗ 5 breaks")
    });
    s.resize(40, 10);
    s.wait_for("too small", LONG, |t| t.contains("terminal too small"));
    s.resize(120, 40);
    s.wait_for("the 120×40 layout", LONG, |t| {
        t.contains("13 segments · ✗ 5 breaks")
    });
    // Quit: exit status 0 and the terminal given back.
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn no_color_in_the_environment_draws_without_colour() {
    let mut s = Session::spawn(
        Path::new(env!("CARGO_BIN_EXE_skope")),
        &[],
        &[("NO_COLOR", "1")],
        120,
        40,
    );
    s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    s.send(b"]");
    s.wait_for("a break", LONG, |t| t.contains("✗ breaks scope moe_0"));
    assert_eq!(s.coloured_cells(), 0, "{}", s.screen());
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    // And with colour, as a check that the count sees colour at all.
    let mut s = skope(&[], 120, 40);
    s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    assert!(s.coloured_cells() > 100, "{}", s.coloured_cells());
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

#[test]
fn sigterm_stops_it_cleanly_and_restores_the_terminal() {
    let mut s = skope(&[], 100, 30);
    s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    let pid = s.pid().expect("skope runs");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    assert_eq!(
        s.wait_exit(LONG),
        Some(128 + 15),
        "128 + SIGTERM, as shells say"
    );
    assert!(s.terminal_restored());
}

#[test]
fn a_signal_stops_a_running_recipe_and_its_record_gets_its_ending() {
    let dir = common::scratch("term-signal-run");
    let dump = example_in(&dir);
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"slow\"\nargv = [\"sh\", \"-c\", \"echo going; sleep 1000\"]\n",
    )
    .unwrap();
    let mut s = skope_in(&dir, &[&dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    pick_recipe(&mut s, "slow");
    s.wait_for("the run", LONG, |t| t.contains("started; its files are in"));
    let pid = s.pid().unwrap();
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(pid as i32, libc::SIGHUP) };
    assert_eq!(s.wait_exit(LONG), Some(128 + 1));
    let runs = dir.join(format!("{dump}.runs"));
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let record = skope::compile::record::RunRecord::read(&run).unwrap();
    assert!(record.ended_ms.is_some(), "{record:?}");
    assert_eq!(
        record.ending,
        Some(skope::compile::record::Ending::Cancelled)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_abort_gives_the_terminal_back() {
    let mut s = skope(&[], 100, 30);
    s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    assert!(!s.terminal_restored());
    // What a failed allocation does: abort, without unwinding.
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(s.pid().unwrap() as i32, libc::SIGABRT) };
    assert!(s.wait_exit(LONG).is_some(), "it ends");
    assert!(s.terminal_restored(), "{}", s.screen());
}

#[test]
fn a_stop_and_continue_from_outside_takes_the_terminal_again() {
    let mut s = Session::spawn(
        Path::new("/bin/bash"),
        &["--norc", "--noprofile", "-i"],
        &[("PS1", "$ ")],
        100,
        30,
    );
    let prompt = |t: &str| t.lines().rev().find(|l| !l.is_empty()) == Some("$");
    s.wait_for("the prompt", LONG, prompt);
    s.send(format!("{} & echo pid=$!; fg\r", env!("CARGO_BIN_EXE_skope")).as_bytes());
    let screen = s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    let _ = screen;
    let pid = pid_of_skope(&s);
    // SAFETY: a signal to a process this test started.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    s.wait_for("the shell's job report", LONG, |t| t.contains("Stopped"));
    s.send(b"fg\r");
    s.wait_for("the explorer again", LONG, |t| {
        t.contains("Ops (execution order)") && !t.contains("Stopped")
    });
    s.send(b"]");
    s.wait_for("keys work, one at a time, after continuing", LONG, |t| {
        t.contains("✗ breaks scope moe_0")
    });
    s.send(b"q");
    s.wait_for("the prompt again", LONG, prompt);
    assert!(s.terminal_restored());
    s.send(b"exit\r");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

/// The pid of the `skope` a shell in `s` started (its child).
fn pid_of_skope(s: &Session) -> i32 {
    let shell = s.pid().unwrap();
    let children =
        std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap_or_default();
    children
        .split_whitespace()
        .filter_map(|p| p.parse::<i32>().ok())
        .find(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "skope")
        })
        .expect("the shell started skope")
}

#[test]
fn under_an_address_space_limit_the_explorer_says_the_dump_is_too_big_and_gives_the_terminal_back()
{
    let dir = common::scratch("term-ulimit");
    let big = dir.join("big.txt");
    let mut text =
        std::fs::read_to_string(common::example_path("moe_decode.ge_proto.txt")).unwrap();
    text.push_str(&format!("# {}\n", "x".repeat(1000)).repeat(150_000));
    std::fs::write(&big, text).unwrap();
    let mut s = Session::spawn_in(
        &dir,
        Path::new("/bin/sh"),
        &[
            "-c",
            &format!(
                "ulimit -v 400000 && exec {} big.txt",
                env!("CARGO_BIN_EXE_skope")
            ),
        ],
        &[],
        120,
        40,
    );
    s.wait_for("the refusal", LONG, |t| {
        t.contains("is free under the") && t.contains("address-space limit (ulimit -v)")
    });
    s.send(b"q");
    assert!(s.wait_exit(LONG).is_some_and(|code| code < 128), "no abort");
    assert!(s.terminal_restored());
}

#[test]
fn a_missing_file_is_reported_in_the_ui_not_as_a_crash() {
    let mut s = skope(&["no/such/dump.txt"], 100, 30);
    let screen = s.wait_for("the error", LONG, |t| {
        t.contains("cannot open no/such/dump.txt")
    });
    assert!(screen.contains("No such file or directory"), "{screen}");
    s.send(b"q");
    // As the command line does on an error: status 2, the message said again on stderr.
    assert_eq!(s.wait_exit(LONG), Some(2));
    assert!(s.terminal_restored());
    assert!(
        s.screen().contains("error: no/such/dump.txt"),
        "{}",
        s.screen()
    );
}

#[test]
fn ctrl_z_gives_the_terminal_back_to_the_shell_and_fg_takes_it_again() {
    let mut s = Session::spawn(
        Path::new("/bin/bash"),
        &["--norc", "--noprofile", "-i"],
        &[("PS1", "$ ")],
        100,
        30,
    );
    let prompt = |t: &str| t.lines().rev().find(|l| !l.is_empty()) == Some("$");
    s.wait_for("the prompt", LONG, prompt);
    s.send(format!("{}\r", env!("CARGO_BIN_EXE_skope")).as_bytes());
    s.wait_for("the explorer", LONG, |t| {
        t.contains("Ops (execution order)")
    });
    assert!(!s.terminal_restored());
    s.send(b"\x1a");
    s.wait_for("the shell's job report", LONG, |t| t.contains("Stopped"));
    assert!(s.terminal_restored(), "{}", s.screen());
    s.send(b"fg\r");
    s.wait_for("the explorer again", LONG, |t| {
        t.contains("Ops (execution order)") && !t.contains("Stopped")
    });
    assert!(!s.terminal_restored());
    s.send(b"]");
    s.wait_for("keys work after resuming", LONG, |t| {
        t.contains("✗ breaks scope moe_0")
    });
    s.send(b"q");
    s.wait_for("the prompt again", LONG, prompt);
    assert!(s.terminal_restored());
    s.send(b"exit\r");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

#[test]
fn editing_scopes_and_options_changes_the_plan_on_screen() {
    let dir = common::scratch("pty-edit");
    let plan = dir.join("edited.skope.json");
    let mut s = skope(&["--plan", plan.to_str().unwrap()], 120, 40);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    // Put the unscoped MaskedFill into attn_2: its break goes.
    select(&mut s, "layer2_mask_fill");
    s.send(b"a");
    s.wait_for("the picker", LONG, |t| {
        t.contains("Put 1 op(s) into a scope")
    });
    s.send(b"attn_2\r");
    s.wait_for("the break healed", LONG, |t| {
        t.contains("✗ 4 breaks") && t.contains("1 break(s) healed") && t.contains("● unsaved")
    });
    // Undo brings it back.
    s.send(b"u");
    s.wait_for("the break back", LONG, |t| t.contains("✗ 5 breaks"));
    // An option: strict-scope-check=abort on moe_1 fails the build; undo clears the error.
    select(&mut s, "layer1_gate");
    s.send(b"ojjll");
    s.wait_for("the error", LONG, |t| {
        t.contains("1 error") && t.contains("strict-scope-check=abort")
    });
    s.send(b"u");
    s.wait_for("no error", LONG, |t| !t.contains("1 error"));
    // Esc alone (a key right after it would read as alt-key).
    s.send(b"\x1b");
    s.wait_for("the editor closed", LONG, |t| {
        !t.contains("Options · scope")
    });
    // Save and quit: the plan file is written, nothing is left unsaved.
    s.send(b"d");
    s.wait_for("an edit", LONG, |t| t.contains("kept out of fusion"));
    s.send(b"w");
    s.wait_for("saved", LONG, |t| t.contains("saved 8 scope(s) to"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
    let text = std::fs::read_to_string(&plan).unwrap();
    assert!(
        text.contains("\"do_not_fuse\": [\n    \"layer1_gate\""),
        "{text}"
    );
    assert!(!dir.join("edited.skope.json.journal").exists());
}

#[test]
fn the_code_view_highlights_and_follows_an_option_change() {
    // Tall enough for the op's call, the next op's preload and the barrier before the call.
    let mut s = skope(&[], 120, 64);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut s, "layer0_qkv_proj");
    assert_eq!(s.italic_cells(), 0);
    s.send(b"e");
    s.wait_for("the code", LONG, |t| {
        t.contains("Code · attn_0.cpp") && t.contains("calls layer0_qkv_proj")
    });
    // The highlighter's answer arrives on its own: comments are drawn in italics.
    let deadline = std::time::Instant::now() + LONG;
    while s.italic_cells() == 0 {
        assert!(std::time::Instant::now() < deadline, "{}", s.screen());
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(s.screen().contains("begin inter ops barrier"));
    // early-start=0 from the options editor: the barrier becomes a full sync.
    s.send(b"ojjjjjjjjjl");
    s.wait_for("the new barrier", LONG, |t| {
        t.contains("EarlyStartDisable") && !t.contains("WaitPreTaskEndImpl")
    });
    s.send(b"u");
    s.wait_for("the barrier back", LONG, |t| {
        t.contains("WaitPreTaskEndImpl") && !t.contains("EarlyStartDisable")
    });
    s.send(b"\x1b");
    s.wait_for("the editor closed", LONG, |t| {
        !t.contains("Options · scope")
    });
    s.send(b"y");
    s.wait_for("copied", LONG, |t| t.contains("copied attn_0.cpp"));
    // The edit was undone: nothing unsaved, q quits at once.
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn runs_start_stream_stop_and_end_with_skope() {
    // A working directory of its own: the runs' files go there, and its skope.toml adds a
    // profile that never ends.
    let dir = common::scratch("pty-runs");
    let pid_file = dir.join("forever.pid");
    std::fs::write(
        dir.join("skope.toml"),
        format!(
            "[[recipe]]\nname = \"forever\"\nabout = \"never ends\"\n\
             argv = [\"sh\", \"-c\", \"echo $$ > {}; echo started; sleep 1000\"]\n",
            pid_file.display()
        ),
    )
    .unwrap();
    // The bundled example is written out under XDG_DATA_HOME, its runs beside it.
    let data = dir.join("data");
    let mut s = Session::spawn_in(
        &dir,
        Path::new(env!("CARGO_BIN_EXE_skope")),
        &[],
        &[("XDG_DATA_HOME", data.to_str().unwrap())],
        120,
        40,
    );
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    // c → the picker; the built-in check compiles every entry source and passes.
    pick_recipe(&mut s, "check");
    let text = s.wait_for("the check run to pass", Duration::from_secs(120), |t| {
        t.contains("all 13 entry sources compile") && t.contains("passed in")
    });
    assert!(text.contains("run 1 · check"), "{text}");
    assert!(
        data.join("skope/example/moe_decode.ge_proto.txt.runs/check-1/codegen")
            .is_dir()
    );
    // A run that never ends: x stops it.
    pick_recipe(&mut s, "forever");
    s.wait_for("the output", LONG, |t| {
        t.contains("started") && t.contains("1 run going")
    });
    s.send(b"x");
    s.wait_for("the run stopped", LONG, |t| {
        t.contains("cancelled after") && !t.contains("run going")
    });
    // Another: quitting asks, then stops it with skope.
    pick_recipe(&mut s, "forever");
    s.wait_for("the output", LONG, |t| {
        t.contains("run 3 · forever") && t.contains("started")
    });
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    s.send(b"q");
    s.wait_for("the question", LONG, |t| {
        t.contains("1 run(s) still running")
    });
    // The quit key again is not an answer: the runs go on until s says stop them.
    s.send(b"q");
    s.wait_for("still asking", LONG, |t| {
        t.contains("1 run(s) still running")
    });
    s.send(b"s");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
    // The run's process is gone (its group was stopped before skope exited).
    common::assert_gone(pid, LONG);
}

#[test]
fn profiles_given_on_the_command_line_open_in_the_profile_view() {
    let profiles = common::repo("assets/examples/prof_result");
    let mut s = skope(&["--profiles", profiles.to_str().unwrap()], 140, 42);
    s.wait_for("the payoffs", LONG, |t| {
        t.contains("19.69 % faster with SuperKernel")
            && t.contains("[superkernels 13]")
            && t.contains("12 beneficial, 1 regressed")
    });
    s.send(b"\t");
    s.wait_for("the waterfall", LONG, |t| {
        t.contains("[where the time went 16]") && t.contains("83.35     62.35")
    });
    // esc: the graph, with each op's time a step.
    s.send(b"\x1b");
    s.wait_for("the op list", LONG, |t| {
        t.contains("µs base") && t.contains("17.35█")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn the_dataflow_view_follows_a_producer_and_comes_back_in_a_real_terminal() {
    let mut s = skope(&[], 120, 40);
    s.wait_for("the bundled example", LONG, |t| {
        t.contains("Ops (execution order) 137")
    });
    select(&mut s, "layer0_rope");
    s.send(b"V");
    s.wait_for("the dataflow view", LONG, |t| {
        t.contains("Dataflow · layer0_rope · 2 hop(s)") && t.contains("layer0_qkv_proj")
    });
    // Up to a producer: the view re-centres on it.
    s.send(b"k");
    s.wait_for("a producer at the centre", LONG, |t| {
        t.contains("Dataflow · layer0_qkv_proj") || t.contains("Dataflow · input_positions")
    });
    // ctrl-o: back to the op before.
    s.send(b"\x0f");
    s.wait_for("back on the op", LONG, |t| {
        t.contains("Dataflow · layer0_rope")
    });
    s.send(b"\r");
    s.wait_for("the op selected in the list", LONG, |t| {
        t.contains("Ops (execution order)") && details_title(t).as_deref() == Some("layer0_rope")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn a_template_is_accepted_in_every_layer_and_undone_in_one_step_in_a_real_terminal() {
    let dir = common::scratch("pty-template");
    let plan = dir.join("template.skope.json");
    let mut s = skope(&["--plan", plan.to_str().unwrap()], 160, 40);
    s.wait_for("the explorer", LONG, |t| {
        t.contains("8 scopes → 13 segments")
    });
    s.send(b"S");
    s.wait_for("the templates first", LONG, |t| {
        t.contains("Suggested scopes · 5 template(s)") && t.contains("layer_{i}")
    });
    // The whole layer in all four: four scopes, one step; the scopes it empties go.
    s.send(b"a");
    s.wait_for("the scopes made", LONG, |t| {
        t.contains("4 new scopes layer_0 … layer_3") && t.contains("one undo step")
    });
    s.send(b"\x1b");
    s.wait_for("the graph, its plan changed", LONG, |t| {
        !t.contains("Suggested scopes")
            && t.contains("4 scopes → 8 segments")
            && t.contains("● unsaved")
    });
    s.send(b"u");
    s.wait_for("all four undone", LONG, |t| {
        t.contains("8 scopes → 13 segments") && !t.contains("● unsaved")
    });
    // Nothing left unsaved: it quits without asking.
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn the_timeline_opens_on_the_bundled_profiles_and_zooms_in_a_real_terminal() {
    let profiles = common::repo("assets/examples/prof_result");
    let mut s = skope(&["--profiles", profiles.to_str().unwrap()], 120, 40);
    s.wait_for("the payoffs", LONG, |t| t.contains("[superkernels 13]"));
    s.send(b"T");
    s.wait_for("the timeline", LONG, |t| {
        t.contains("Timeline · base step 3 · new step 3")
            && t.contains("┊100.00 µs")
            && t.contains("143.93 µs")
    });
    // Zoomed in four times around the first kernel: the ruler's ticks are finer.
    s.send(b"++++");
    s.wait_for("the zoomed ruler", LONG, |t| {
        t.contains("┊10.00 µs") && !t.contains("┊100.00 µs")
    });
    s.send(b"\x1b");
    s.wait_for("the graph", LONG, |t| t.contains("Ops (execution order)"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn a_regressed_superkernel_is_pruned_from_the_profile_view_and_the_plan_changes() {
    let profiles = common::repo("assets/examples/prof_result");
    let mut s = skope(&["--profiles", profiles.to_str().unwrap()], 120, 40);
    s.wait_for("the payoffs", LONG, |t| {
        t.contains("[superkernels 13]") && t.contains("8 scopes → 13 segments")
    });
    // Worst first: the regressed SuperKernel tops the table; move away and back to it.
    s.send(b"jk");
    s.wait_for("it selected", LONG, |t| {
        t.contains("✗ moe_1_split_54_56: regressed — no class fits — costs 1.17 µs more")
    });
    s.send(b"d");
    s.wait_for("the planned result", LONG, |t| {
        t.contains("Prune moe_1_split_54_56") && t.contains("y prune")
    });
    s.send(b"y");
    // The plan changed; the profiles stay what the run built, and the view says so.
    s.wait_for("the plan changed", LONG, |t| {
        t.contains("8 scopes → 12 segments")
            && t.contains("[superkernels 13]")
            && t.contains("1 SuperKernel the run built is not in the current plan")
    });
    // u undoes it like any edit (on the graph: esc first, alone, or it reads as alt-u).
    s.send(b"\x1b");
    s.wait_for("the graph", LONG, |t| !t.contains("[superkernels"));
    s.send(b"u");
    s.wait_for("undone", LONG, |t| t.contains("8 scopes → 13 segments"));
    // Undone, nothing is left to save: q quits at once.
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

/// `skope DUMP` in `dir`, a 120×40 terminal.
/// Opens the recipe picker (`c`) and starts recipe `name`.
fn pick_recipe(s: &mut Session, name: &str) {
    s.send(b"c");
    s.wait_for("the picker", LONG, |t| t.contains("Run a recipe"));
    s.send(format!("{name}\r").as_bytes());
}

/// A copy of the bundled example dump in `dir` (plans, journals and runs are kept beside the
/// dump): its file name, for a session working in `dir`.
fn example_in(dir: &Path) -> String {
    let name = "moe_decode.ge_proto.txt";
    std::fs::copy(common::example_path(name), dir.join(name)).unwrap();
    name.to_string()
}

fn skope_in(dir: &Path, args: &[&str]) -> Session {
    Session::spawn_in(
        dir,
        Path::new(env!("CARGO_BIN_EXE_skope")),
        args,
        &[],
        120,
        40,
    )
}

#[test]
fn a_saved_plan_is_offered_and_never_replaced_without_asking() {
    let dir = common::scratch("term-plan");
    let dump = example_in(&dir);
    let dump = dump.as_str();
    let plan = dir.join("moe_decode.ge_proto.txt.skope.json");
    // An edit, saved: the plan file is named after the whole dump file name.
    let mut s = skope_in(&dir, &[dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut s, "layer2_mask_fill");
    s.send(b"aattn_2\r");
    s.wait_for("the edit", LONG, |t| t.contains("✗ 4 breaks"));
    s.send(b"w");
    s.wait_for("saved", LONG, |t| t.contains("saved 8 scope(s)"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(plan.is_file());
    let saved = std::fs::read(&plan).unwrap();
    // Next time the explorer offers it; o opens it.
    let mut s = skope_in(&dir, &[dump]);
    s.wait_for("the offer", LONG, |t| {
        t.contains("A plan saved for this dump exists") && t.contains("8 scope(s)")
    });
    s.send(b"o");
    s.wait_for("the saved plan", LONG, |t| {
        t.contains("opened moe_decode.ge_proto.txt.skope.json") && t.contains("✗ 4 breaks")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    // Keeping the dump's scopes, w asks before replacing the file; c leaves it as it was.
    let mut s = skope_in(&dir, &[dump]);
    s.wait_for("the offer", LONG, |t| {
        t.contains("A plan saved for this dump exists")
    });
    s.send(b"d");
    s.wait_for("the dump's scopes", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut s, "layer0_qkv_proj");
    s.send(b"x");
    s.wait_for("the edit", LONG, |t| t.contains("unsaved"));
    s.send(b"w");
    s.wait_for("the question", LONG, |t| {
        t.contains("This session did not open") && t.contains("overwrite it")
    });
    s.send(b"c");
    s.wait_for("the question gone", LONG, |t| {
        !t.contains("This session did not open")
    });
    assert_eq!(
        std::fs::read(&plan).unwrap(),
        saved,
        "cancel keeps the file"
    );
    s.send(b"w");
    s.wait_for("the question", LONG, |t| {
        t.contains("This session did not open")
    });
    s.send(b"o");
    s.wait_for("saved", LONG, |t| t.contains("saved 8 scope(s)"));
    assert_ne!(
        std::fs::read(&plan).unwrap(),
        saved,
        "overwrite replaces it"
    );
    // Written by this session now: w saves without asking.
    s.send(b"u");
    s.wait_for("undone", LONG, |t| t.contains("unsaved"));
    s.send(b"w");
    s.wait_for("saved again", LONG, |t| !t.contains("unsaved"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

#[test]
fn the_explorer_refuses_a_plan_made_for_another_graph() {
    let dir = common::scratch("term-other");
    std::fs::write(
        dir.join("other.skope.json"),
        r#"{"skope_plan": 1, "graph": {"name": "other", "ops": 2, "fingerprint": "0"},
            "scopes": [{"name": "s", "options": "", "ops": ["x1", "x2"]}]}"#,
    )
    .unwrap();
    let dump = example_in(&dir);
    let mut s = skope_in(&dir, &[&dump, "--plan", "other.skope.json"]);
    s.wait_for("the refusal", LONG, |t| {
        t.contains("none of the 2 ops it names") && t.contains("--force")
    });
    s.send(b"q");
    // Nothing was loaded: an error, as on the command line.
    assert_eq!(s.wait_exit(LONG), Some(2));
}

#[test]
fn breaks_only_code_view_neighbours_and_help_in_a_real_terminal() {
    let mut s = skope(&[], 120, 40);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    // Breaks only: the scope each op breaks has its column.
    s.send(b"b");
    s.wait_for("breaks only", LONG, |t| {
        t.contains("breaks only") && t.contains("layer2_mask_fill        attn_2")
    });
    s.send(b"b");
    // The code view: h/l sideways, z zoom, help of the code view, esc back.
    select(&mut s, "layer0_qkv_proj");
    s.send(b"e\t");
    s.wait_for("the code", LONG, |t| t.contains("Code · attn_0.cpp"));
    s.send(b"ll");
    s.wait_for("sideways", LONG, |t| t.contains("from column 17"));
    s.send(b"z");
    s.wait_for("zoomed", LONG, |t| {
        t.contains("Code · attn_0.cpp") && !t.contains("Ops (execution order)")
    });
    s.send(b"?");
    s.wait_for("the code view's keys", LONG, |t| {
        t.contains("In the code view") && t.contains("scroll the code right")
    });
    s.send(b"\x1b");
    s.wait_for("help closed", LONG, |t| !t.contains("In the code view"));
    s.send(b"\x1b");
    s.wait_for("unzoomed", LONG, |t| t.contains("Ops (execution order)"));
    s.send(b"e");
    // Enter in the details offers the neighbours; backspace comes back.
    select(&mut s, "layer0_rope");
    s.send(b"\t\r");
    s.wait_for("the neighbours", LONG, |t| {
        t.contains("Go to an op it takes from or gives to")
    });
    s.send(b"kv_scatter\r");
    s.wait_for("the neighbour", LONG, |t| {
        details_title(t).as_deref() == Some("layer0_kv_scatter")
    });
    s.send(b"\x7f");
    s.wait_for("back", LONG, |t| {
        details_title(t).as_deref() == Some("layer0_rope")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

#[test]
fn earlier_runs_are_listed_after_a_restart() {
    let dir = common::scratch("term-history");
    let dump = example_in(&dir);
    let dump = dump.as_str();
    let mut s = skope_in(&dir, &[dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    pick_recipe(&mut s, "check");
    s.wait_for("the run", Duration::from_secs(120), |t| {
        t.contains("passed in")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    // A new session lists it, from its record, with its log.
    let mut s = skope_in(&dir, &[dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    s.send(b"L");
    s.wait_for("the earlier run", LONG, |t| {
        t.contains("✓  1 check  passed") && t.contains("all 13 entry sources compile")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
}

#[test]
fn a_local_recipe_replacing_the_built_in_check_is_shown_as_such() {
    let dir = common::scratch("term-override");
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"check\"\nargv = [\"echo\", \"anything at all\"]\n",
    )
    .unwrap();
    let dump = example_in(&dir);
    let mut s = skope_in(&dir, &[&dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    s.send(b"c");
    s.wait_for("the picker with origins", LONG, |t| {
        t.contains("check  from ./skope.toml, overrides the built-in")
            && t.contains("cann  built in")
    });
    s.send(b"\x1b");
    s.wait_for("the picker closed", LONG, |t| !t.contains("Run a recipe"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dump_changed_on_disk_is_noticed_before_a_run_and_can_be_reloaded() {
    let dir = common::scratch("term-changed");
    let original =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/moe_decode.ge_proto.txt");
    let dump = dir.join("model.txt");
    std::fs::copy(&original, &dump).unwrap();
    let mut s = skope_in(&dir, &["model.txt"]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    // Another tool rewrites the dump: one op fewer.
    let text = std::fs::read_to_string(&dump).unwrap();
    let cut = text.replacen(
        "name: \"layer1_expert_broadcast\"",
        "name: \"renamed_op\"",
        1,
    );
    assert_ne!(cut, text);
    std::fs::write(&dump, cut).unwrap();
    pick_recipe(&mut s, "check");
    s.wait_for("the question", LONG, |t| {
        t.contains("changed on disk since it was loaded") && t.contains("reload it")
    });
    s.send(b"r");
    // Loaded again: the new name is there, and a run no longer asks.
    s.wait_for("the explorer again", LONG, |t| {
        t.contains("breaks") && !t.contains("Loading")
    });
    s.send(b"/renamed_op\r");
    s.wait_for("the renamed op", LONG, |t| t.contains("renamed_op"));
    pick_recipe(&mut s, "check");
    s.wait_for("the run", Duration::from_secs(120), |t| {
        t.contains("passed in")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_aclgraph_model_directory_opens_in_the_explorer() {
    let model = common::repo("assets/examples/aclgraph/sk_meta/4711/model_3_1");
    let mut s = skope(&[&model.to_string_lossy()], 140, 40);
    s.wait_for("the model", LONG, |t| {
        t.contains("aclgraph · 69 ops") && t.contains("sk_14 3 ops")
    });
    select(&mut s, "Cast_f00d#33");
    let screen = s.wait_for("its reason", LONG, |t| t.contains("IN_UNFUSIBLE_SCOPE"));
    assert!(screen.contains("inside an unnamed scope"), "{screen}");
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn static_kernel_outputs_given_on_the_command_line_open_in_their_view() {
    let outputs = common::repo("assets/examples/static_kernel_compile_outputs");
    let mut s = skope(&["--static", outputs.to_str().unwrap()], 140, 42);
    s.wait_for("the view", LONG, |t| {
        t.contains("Static kernels · 4 op type(s), 5 binary(ies)")
            && t.contains("MatMulV2 · 2 binary(ies)")
    });
    // To the bottom, then enter on the last op: the graph, with the op selected.
    s.send(b"G");
    s.wait_for("the graph's ops", LONG, |t| {
        t.contains("✓ static kernel  lm_head  MatMulV2  [8,7168]")
    });
    s.send(b"\r");
    let screen = s.wait_for("the op", LONG, |t| {
        details_title(t).is_some_and(|d| d.contains("lm_head"))
    });
    assert!(!screen.contains("Static kernels ·"), "{screen}");
    // K brings the view back as it was.
    s.send(b"K");
    s.wait_for("the view again", LONG, |t| t.contains("Static kernels ·"));
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

#[test]
fn a_mindspore_ir_dump_shows_its_composites_and_why_kernels_were_left_out() {
    let ir = common::repo("assets/examples/mindspore/graph_build_0_1.ir");
    let mut s = skope(&[&ir.to_string_lossy()], 160, 44);
    s.wait_for("the graph", LONG, |t| {
        t.contains("mindspore_ir") && t.contains("6 segments") && t.contains("15 breaks")
    });
    // The scope tree lists the composites of the graph.
    s.wait_for("a composite", LONG, |t| {
        t.contains("graph kernel: kernel_graph_0")
    });
    s.send(b"/name:0-DecoderLayer/Softmax\r");
    s.wait_for("the left-out op's reason", LONG, |t| {
        t.contains("(left out; no cut)") && t.contains("rules — Softmax is on neither the")
    });
    // e: no entry source, said plainly.
    s.send(b"/name:GraphKernel_Mul_Add_fusion-op4/Add\re");
    s.wait_for("the code view's note", LONG, |t| {
        t.contains("MindSpore composite")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}

/// The bundled example dump with every op whose name holds `from` renamed to hold `to`
/// instead: another graph of the same shape, written to `path`.
fn renamed_example(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(common::example_path("moe_decode.ge_proto.txt")).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text.replace(from, to)).unwrap();
}

#[test]
fn a_plan_saved_for_another_dump_of_the_same_name_is_neither_applied_nor_overwritten() {
    let dir = common::scratch("term-same-name");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rank1")).unwrap();
    // m.txt (the MoE example) with its 8-scope plan saved, as an earlier skope kept it in the
    // working directory.
    std::fs::copy(
        common::example_path("moe_decode.ge_proto.txt"),
        dir.join("m.txt"),
    )
    .unwrap();
    let mut s = skope_in(&dir, &["m.txt"]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    s.send(b"w");
    s.wait_for("saved", LONG, |t| {
        t.contains("saved 8 scope(s) to m.txt.skope.json")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let saved = std::fs::read(dir.join("m.txt.skope.json")).unwrap();
    // rank1/m.txt: another graph of the same file name. Its plan file is its own
    // (rank1/m.txt.skope.json); the working directory's is not offered.
    renamed_example(&dir.join("rank1/m.txt"), "layer", "blk");
    let mut s = skope_in(&dir, &["rank1/m.txt"]);
    let text = s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    assert!(!text.contains("A plan saved"), "{text}");
    select(&mut s, "blk0_rope");
    s.send(b"x");
    s.wait_for("the edit", LONG, |t| t.contains("unsaved"));
    s.send(b"w");
    s.wait_for("saved", LONG, |t| {
        t.contains("saved 8 scope(s) to rank1/m.txt.skope.json")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert_eq!(std::fs::read(dir.join("m.txt.skope.json")).unwrap(), saved);
    // A plan file beside the dump made for another graph of which some ops are here is
    // offered only as that, applied on o, and w asks before replacing it.
    renamed_example(&dir.join("rank1/m.txt"), "layer3", "blk3");
    std::fs::copy(
        dir.join("m.txt.skope.json"),
        dir.join("rank1/m.txt.skope.json"),
    )
    .unwrap();
    let mut s = skope_in(&dir, &["rank1/m.txt"]);
    s.wait_for("the offer", LONG, |t| {
        t.contains("holds a plan made for another graph") && t.contains("found here")
    });
    s.send(b"o");
    s.wait_for("applied", LONG, |t| {
        t.contains("opened rank1/m.txt.skope.json")
    });
    s.send(b"w");
    s.wait_for("the question", LONG, |t| {
        t.contains("A plan made for another graph is in")
    });
    s.send(b"c");
    s.wait_for("cancelled", LONG, |t| !t.contains("Question"));
    assert_eq!(
        std::fs::read(dir.join("rank1/m.txt.skope.json")).unwrap(),
        saved
    );
    // Applying a plan file is not an unsaved edit: q quits.
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_earlier_skopes_plan_in_the_working_directory_moves_beside_the_dump_when_it_matches() {
    let dir = common::scratch("term-migrate");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("rank0")).unwrap();
    std::fs::copy(
        common::example_path("moe_decode.ge_proto.txt"),
        dir.join("rank0/m.txt"),
    )
    .unwrap();
    // As an earlier skope saved it: m.txt.skope.json in the working directory, one edit in.
    let mut s = skope_in(&dir, &["rank0/m.txt", "--plan", "m.txt.skope.json"]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut s, "layer2_mask_fill");
    s.send(b"aattn_2\r");
    s.wait_for("the edit", LONG, |t| t.contains("✗ 4 breaks"));
    s.send(b"w");
    s.wait_for("saved", LONG, |t| {
        t.contains("saved 8 scope(s) to m.txt.skope.json")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let mut s = skope_in(&dir, &["rank0/m.txt"]);
    s.wait_for("the offer", LONG, |t| {
        t.contains("A plan saved for this dump by an earlier skope exists")
    });
    s.send(b"o");
    s.wait_for("opened", LONG, |t| {
        t.contains("✗ 4 breaks") && t.contains("w saves to rank0/m.txt.skope.json")
    });
    s.send(b"w");
    s.wait_for("saved", LONG, |t| {
        t.contains("saved 8 scope(s) to rank0/m.txt.skope.json")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(
        dir.join("m.txt.skope.json").is_file(),
        "the earlier file stays"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_windows_on_one_dump_keep_their_own_journals_and_a_killed_one_is_recovered() {
    let dir = common::scratch("term-two-windows");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let dump = example_in(&dir);
    // Window C edits.
    let mut c = skope_in(&dir, &[&dump]);
    c.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut c, "layer2_mask_fill");
    c.send(b"aattn_2\r");
    c.wait_for("the edit", LONG, |t| t.contains("✗ 4 breaks"));
    let c_pid = c.pid().unwrap();
    // Window D on the same dump: C's journal is not offered (C is alive); D says who holds
    // it and journals apart.
    let mut d = skope_in(&dir, &[&dump]);
    let text = d.wait_for("the other window named", LONG, |t| {
        t.contains("✗ 5 breaks") && t.contains(&format!("in use by skope pid {c_pid}"))
    });
    assert!(!text.contains("did not end cleanly"), "{text}");
    select(&mut d, "layer0_rope");
    d.send(b"x");
    d.wait_for("the edit", LONG, |t| t.contains("unsaved"));
    assert!(
        dir.join("moe_decode.ge_proto.txt.skope.json.journal.2")
            .is_file()
    );
    d.send(b"q");
    d.wait_for("the question", LONG, |t| t.contains("unsaved edits"));
    d.send(b"d");
    assert_eq!(d.wait_exit(LONG), Some(0));
    // C goes on journaling; then it is killed.
    select(&mut c, "layer3_gate");
    c.send(b"x");
    c.wait_for("the second edit", LONG, |t| {
        t.contains("1 op out of their scope")
    });
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(c_pid as i32, libc::SIGKILL) };
    let _ = c.wait_exit(LONG);
    // The next start offers both of C's edits, saying whose they were.
    let mut e = skope_in(&dir, &[&dump]);
    e.wait_for("the recovery", LONG, |t| {
        t.contains("did not end cleanly") && t.contains(&format!("pid {c_pid}"))
    });
    e.send(b"r");
    e.wait_for("recovered", LONG, |t| t.contains("recovered 2 edit(s)"));
    e.send(b"q");
    e.wait_for("the question", LONG, |t| t.contains("unsaved edits"));
    e.send(b"d");
    assert_eq!(e.wait_exit(LONG), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_session_recovered_from_a_sibling_folder_replays_and_saves_onto_its_own_plan_file() {
    let dir = common::scratch("term-sibling");
    let (r0, r1) = (dir.join("r0"), dir.join("r1"));
    for r in [&r0, &r1] {
        std::fs::create_dir_all(r).unwrap();
        std::fs::copy(
            common::example_path("moe_decode.ge_proto.txt"),
            r.join("m.txt"),
        )
        .unwrap();
    }
    // r1 has a plan file of its own for the same graph.
    let out = common::skope_in(
        &r1,
        &[
            "export",
            "m.txt",
            "--format",
            "plan",
            "-o",
            "m.txt.skope.json",
        ],
        &[],
    );
    assert!(out.status.success());
    let r1_plan = std::fs::read(r1.join("m.txt.skope.json")).unwrap();
    // A window in r0 saves one edit, makes another and is killed.
    let mut first = skope_in(&r0, &["m.txt"]);
    first.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut first, "layer2_mask_fill");
    first.send(b"d");
    first.wait_for("the edit", LONG, |t| t.contains("unsaved"));
    first.send(b"w");
    first.wait_for("the save", LONG, |t| t.contains("saved 8 scope(s)"));
    select(&mut first, "layer0_rope");
    first.send(b"d");
    first.wait_for("the second edit", LONG, |t| t.contains("unsaved"));
    let pid = first.pid().unwrap();
    // SAFETY: a signal to the child this test started.
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let _ = first.wait_exit(LONG);
    // From r1, the same dump by a relative path: its edit is offered on r0's plan file.
    let mut second = skope_in(&r1, &["../r0/m.txt"]);
    second.wait_for("the recovery", LONG, |t| t.contains("did not end cleanly"));
    second.send(b"r");
    second.wait_for("recovered", LONG, |t| t.contains("recovered 1 edit(s)"));
    second.send(b"q");
    second.wait_for("the question", LONG, |t| t.contains("unsaved edits"));
    second.send(b"s");
    assert_eq!(second.wait_exit(LONG), Some(0));
    assert_eq!(
        std::fs::read(r1.join("m.txt.skope.json")).unwrap(),
        r1_plan,
        "r1's plan file is not touched"
    );
    let saved = skope::planfile::PlanFile::read(&r0.join("m.txt.skope.json")).unwrap();
    for op in ["layer2_mask_fill", "layer0_rope"] {
        assert!(saved.do_not_fuse.contains(&op.to_string()), "{op}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_bundled_example_works_from_any_directory_with_its_profiles_and_a_real_graph_file() {
    let dir = common::scratch("term-anywhere");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data");
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"where\"\nargv = [\"sh\", \"-c\", \"test -f \\\"$1\\\" && echo graph-is-a-file\", \"sh\", \"{graph}\"]\n",
    )
    .unwrap();
    let mut s = Session::spawn_in(
        &dir,
        Path::new(env!("CARGO_BIN_EXE_skope")),
        &[],
        &[("XDG_DATA_HOME", data.to_str().unwrap())],
        140,
        42,
    );
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    // p, enter: the guess is the bundled pair beside the written-out example.
    s.send(b"p");
    s.wait_for("the prompt", LONG, |t| t.contains("prof_result"));
    s.send(b"\r");
    s.wait_for("the comparison", LONG, |t| {
        t.contains("19.69 % faster with SuperKernel")
    });
    s.send(b"\x1b");
    s.wait_for("the graph", LONG, |t| !t.contains("19.69 % faster"));
    pick_recipe(&mut s, "where");
    s.wait_for("the recipe's answer", LONG, |t| {
        t.contains("graph-is-a-file") && t.contains("passed in")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(data.join("skope/example/moe_decode.ge_proto.txt").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_first_key_typed_replaces_the_name_a_prompt_offers() {
    let dir = common::scratch("term-prompt");
    let dump = example_in(&dir);
    let mut s = skope_in(&dir, &[&dump]);
    s.wait_for("the explorer", LONG, |t| t.contains("✗ 5 breaks"));
    select(&mut s, "layer3_gate");
    s.send(b"s");
    s.wait_for("the offered name", LONG, |t| {
        t.contains("new scope name: scope_1") && t.contains("typing replaces it")
    });
    s.send(b"attn_1b\r");
    s.wait_for("the new scope", LONG, |t| {
        t.contains("attn_1b") && !t.contains("scope_1attn_1b")
    });
    s.send(b"q");
    s.wait_for("the question", LONG, |t| t.contains("unsaved edits"));
    s.send(b"d");
    assert_eq!(s.wait_exit(LONG), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_with_only_the_logs_opens_in_a_real_terminal() {
    let root = common::scratch("term-acl-logs");
    let fx = common::acl_dirs::logs_only(&root);
    let dir = fx.dir.to_string_lossy().into_owned();
    let mut s = skope(&[&dir], 140, 40);
    s.wait_for("the logs-only model", LONG, |t| {
        t.contains("1 scope → 3 segments") && t.contains("sk_3")
    });
    // A break of the pass, its reason and next step.
    s.send(b"]");
    s.wait_for("the first break", LONG, |t| {
        t.contains("✗ breaks scope full_model") && t.contains("inspect the task")
    });
    s.send(b"q");
    assert_eq!(s.wait_exit(LONG), Some(0));
    assert!(s.terminal_restored());
}
