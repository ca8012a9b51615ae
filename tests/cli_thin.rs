//! The command line stays thin and keeps its word: `main.rs` only parses and prints (and stays
//! under 600 lines), each subcommand's `--help` lists only what that command takes, and one
//! `--output FORM` writes byte for byte what the older `--json`, `--markdown` and `--csv` write.

use crate::common::{repo, skope, skope_stdout};

const DUMP: &str = "assets/examples/moe_decode.ge_proto.txt";
const PAIR: &str = "assets/examples/prof_result";

#[test]
fn main_rs_stays_under_600_lines() {
    let text = std::fs::read_to_string(repo("src/main.rs")).unwrap();
    let lines = text.lines().count();
    assert!(
        lines <= 600,
        "src/main.rs has {lines} lines: what a command does belongs in commands"
    );
}

/// The `--flags` a help text lists.
fn flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("-h, ").unwrap_or(l);
            l.starts_with("--")
                .then(|| l.split([' ', '<', '=']).next().unwrap_or("").to_string())
        })
        .collect()
}

#[test]
fn each_subcommand_help_lists_only_what_it_takes() {
    let shared = [
        "--plan",
        "--force",
        "--rules",
        "--no-cann",
        "--max-size",
        "--kernel-meta",
        "--profiles",
    ];
    let commands = [
        "info", "report", "export", "codegen", "compile", "diff", "suggest", "runs", "static",
        "config", "options", "check-op",
    ];
    for command in commands {
        let help = skope_stdout(&[command, "--help"]);
        let listed = flags(&help);
        let takes = skope::commands::args::shared_options(command);
        for option in shared {
            assert_eq!(
                listed.iter().any(|f| f == option),
                takes.contains(&option),
                "`skope {command} --help` and {option}:\n{help}"
            );
        }
        // The older flags work, but only --output is offered.
        for old in ["--json", "--markdown", "--csv"] {
            assert!(!listed.iter().any(|f| f == old), "{command}: {old}\n{help}");
        }
        // The explorer's own options are the explorer's.
        for explorer in ["--config", "--no-mouse", "--static"] {
            assert!(
                !listed.iter().any(|f| f == explorer),
                "{command}: {explorer}"
            );
        }
    }
    // The explorer's help still has them all.
    let top = flags(&skope_stdout(&["--help"]));
    for option in shared.iter().chain(&["--config", "--no-mouse", "--static"]) {
        assert!(top.iter().any(|f| f == option), "skope --help: {option}");
    }
}

#[test]
fn output_forms_write_what_the_older_flags_write() {
    let (dump, pair) = (
        repo(DUMP).to_string_lossy().into_owned(),
        repo(PAIR).to_string_lossy().into_owned(),
    );
    let same = |old: &[&str], new: &[&str]| {
        let (a, b) = (skope_stdout(old), skope_stdout(new));
        assert!(!a.is_empty());
        assert_eq!(a, b, "{old:?} against {new:?}");
    };
    same(
        &["info", &dump, "--json"],
        &["info", &dump, "--output", "json"],
    );
    same(
        &["report", &dump, "--json"],
        &["report", &dump, "--output", "json"],
    );
    same(
        &["report", &dump, "--markdown", "--profiles", &pair],
        &["report", &dump, "--output", "markdown", "--profiles", &pair],
    );
    same(
        &["diff", &pair, "--graph", &dump, "--csv"],
        &["diff", &pair, "--graph", &dump, "--output", "csv"],
    );
    same(
        &["diff", &pair, "--json"],
        &["diff", &pair, "--output", "json"],
    );
    same(
        &["diff", &dump, &dump, "--markdown"],
        &["diff", &dump, &dump, "--output", "markdown"],
    );
    same(
        &["suggest", &dump, "--json"],
        &["suggest", &dump, "--output", "json"],
    );
    same(&["info", &dump], &["info", &dump, "--output", "text"]);
    // A form the command does not write is refused, naming what it writes.
    let out = skope(&["info", &dump, "--output", "csv"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--output takes text|json"), "{err}");
    // Two different forms at once are refused too.
    let out = skope(&["info", &dump, "--json", "--output", "text"]);
    assert_eq!(out.status.code(), Some(2));
    // Markdown is a short report: not with --summary.
    let out = skope(&["report", &dump, "--output", "markdown", "--summary"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The subcommands, each with arguments it runs with on the bundled example.
fn runnable(command: &str, dump: &str) -> Vec<String> {
    let out = std::env::temp_dir().join("skope-help-check.json");
    let args: Vec<&str> = match command {
        "export" => vec![dump, "--format", "plan", "-o", out.to_str().unwrap_or("-")],
        "codegen" => vec![dump, "-o", "-"],
        "diff" => vec![dump, dump],
        "static" => vec!["assets/examples/static_kernel_compile_outputs"],
        "options" | "config" => vec![],
        "compile" => vec![dump, "--recipe", "no-such-recipe"],
        _ => vec![dump],
    };
    std::iter::once(command)
        .chain(args)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_shared_option_a_help_lists_is_taken_by_that_command() {
    let dump = repo(DUMP).to_string_lossy().into_owned();
    let pair = repo(PAIR).to_string_lossy().into_owned();
    let value = |option: &str| -> Vec<String> {
        match option {
            "--force" => vec![
                "--plan".into(),
                "/nonexistent/p.json".into(),
                "--force".into(),
            ],
            "--no-cann" => vec![option.into()],
            "--max-size" => vec![option.into(), "10G".into()],
            "--profiles" => vec![option.into(), pair.clone()],
            _ => vec![option.into(), "/nonexistent/x".into()],
        }
    };
    for command in [
        "info", "report", "export", "codegen", "compile", "diff", "suggest", "runs", "static",
    ] {
        for option in skope::commands::args::shared_options(command) {
            let mut args = runnable(command, &dump);
            args.extend(value(option));
            // A report takes profiles for its Markdown form (its help says so).
            match (command, option) {
                ("report", "--profiles") => args.extend(["--output".into(), "markdown".into()]),
                // An export takes them for the forms that carry times.
                ("export", "--profiles") => {
                    let at = args.iter().position(|a| a == "plan").unwrap_or(0);
                    args[at] = "trace".into();
                }
                _ => {}
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = skope(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !err.contains("means nothing to") && !err.contains("unexpected argument"),
                "{args:?}: {err}"
            );
        }
    }
}

#[test]
fn every_option_readme_gives_a_command_is_in_its_help() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    // The older spellings keep working but are no longer offered.
    let hidden = ["--json", "--markdown", "--csv"];
    let mut helps = std::collections::HashMap::new();
    let mut checked = 0;
    for line in readme.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("skope ") else {
            continue;
        };
        let words: Vec<&str> = rest
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let Some(command) = words.first().copied() else {
            continue;
        };
        if command.starts_with('-') || command.contains('.') || command.contains('/') {
            continue; // the explorer
        }
        let help: &String = helps
            .entry(command.to_string())
            .or_insert_with(|| skope_stdout(&[command, "--help"]));
        if help.is_empty() {
            continue; // not a command word (a file named like one)
        }
        let listed = flags(help);
        for flag in words.iter().filter(|w| w.starts_with("--") && w.len() > 2) {
            let flag = flag.split('=').next().unwrap_or(flag);
            if hidden.contains(&flag) {
                continue;
            }
            assert!(
                listed.iter().any(|f| f == flag),
                "README: `skope {rest}` gives {flag}, which `skope {command} --help` does not list"
            );
            checked += 1;
        }
    }
    assert!(
        checked > 30,
        "{checked} options checked: the search is broken"
    );
}
