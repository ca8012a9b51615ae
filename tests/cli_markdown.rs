//! `skope report --markdown`: a pull request's report of the plan and, with profiles, what it
//! paid — short outside its `<details>`, every name from a dump escaped.

use crate::common::{example_arg, repo, scratch, skope, skope_stdout};

const GRAPH: &str = "moe_decode.ge_proto.txt";

/// Lines outside every `<details>` section; and that the sections open and close in turn.
fn outside_details(text: &str) -> usize {
    let mut inside = false;
    let mut n = 0;
    for line in text.lines() {
        if line.starts_with("<details>") {
            assert!(!inside, "nested details: {line}");
            inside = true;
        } else if line == "</details>" {
            assert!(inside, "a details closed twice");
            inside = false;
        } else if !inside {
            n += 1;
        }
    }
    assert!(!inside, "a details left open");
    n
}

/// The cells of a table row, split at pipes that are not escaped.
fn cells(row: &str) -> usize {
    let mut n: usize = 0;
    let mut escaped = false;
    for c in row.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => n += 1,
            _ => escaped = false,
        }
    }
    n.saturating_sub(1)
}

#[test]
fn the_bundled_example_with_its_profiles_fits_a_pull_request() {
    let text = skope_stdout(&[
        "report",
        &example_arg(GRAPH),
        "--markdown",
        "--profiles",
        &repo("assets/examples/prof_result").to_string_lossy(),
    ]);
    assert!(outside_details(&text) <= 40, "{text}");
    assert!(text.starts_with("### SuperKernel plan of `"));
    assert!(text.contains("| outcome | **ok** — 8 scope(s) → 13 segment(s), 5 break(s) |"));
    assert!(
        text.contains(
            "| step time | 624.94 µs → 501.89 µs (▼ −123.05 µs, 19.69 % faster with SuperKernel) |"
        ),
        "{text}"
    );
    assert!(text.contains("12 beneficial") && text.contains("block `moe_1_split_54_56`"));
    // The costliest break first, with its unfused time.
    let first = text
        .lines()
        .find(|l| l.starts_with("| layer"))
        .expect("a break row");
    assert!(
        first.starts_with("| layer1\\_expert\\_broadcast (HcomBroadcast)"),
        "{first}"
    );
    assert!(first.ends_with("10.11 µs |"), "{first}");
    // Every table row has its header's cells.
    let mut header = 0;
    for line in text.lines().filter(|l| l.starts_with('|')) {
        if line.starts_with("|---") || line.starts_with("|--") {
            continue;
        }
        if header == 0
            || line.starts_with("| op |")
            || line.starts_with("| scope |")
            || line.starts_with("| segment |")
            || line.starts_with("| step |")
            || line == "| | |"
        {
            header = cells(line);
            continue;
        }
        assert_eq!(cells(line), header, "{line}");
    }
    assert!(text.contains("<details><summary>Each SuperKernel's payoff (13)</summary>"));
    assert!(text.contains("<details><summary>Per step (5)</summary>"));
}

#[test]
fn hostile_names_make_no_markup() {
    let dir = scratch("cli-markdown-hostile");
    let dump = dir.join("hostile.txt");
    let evil = "x|<img src=x onerror=alert(1)>*b*[l](javascript:y)\u{202e}`#";
    let text = std::fs::read_to_string(repo("assets/examples").join(GRAPH))
        .expect("the example")
        .replace("layer1_expert_broadcast", evil);
    std::fs::write(&dump, text).expect("write");
    let md = skope_stdout(&["report", &dump.to_string_lossy(), "--markdown"]);
    assert!(!md.contains("<img") && !md.contains('\u{202e}'), "{md}");
    // The brackets escaped: no link.
    assert!(!md.contains("[l](javascript"), "{md}");
    let row = md
        .lines()
        .find(|l| l.contains("onerror"))
        .expect("the hostile break's row");
    assert_eq!(cells(row), 4, "{row}");
    assert!(
        row.contains("x\\|&lt;img src=x onerror=alert(1)&gt;\\*b\\*\\[l\\](javascript\\:y)"),
        "{row}"
    );
    outside_details(&md);
}

#[test]
fn markdown_goes_with_profiles_and_not_with_json() {
    let out = skope(&["report", &example_arg(GRAPH), "--markdown", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let out = skope(&["report", &example_arg(GRAPH), "--profiles", "x"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_aclgraph_model_directory_gets_the_same_pull_request_report() {
    let dir = repo("assets/examples/aclgraph");
    let dir = dir.to_string_lossy();
    let out = skope(&["report", &dir, "--output", "markdown"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.starts_with("### SuperKernel plan of `"), "{text}");
    assert!(
        text.contains("| outcome | **ok** — 5 scope(s) → 7 segment(s), 3 break(s) |")
            && text.contains("<summary>Scopes → segments (5 → 7)</summary>"),
        "{text}"
    );
    // The same with `--markdown`, and with profiles (the time goes in the summary table).
    let legacy = skope(&["report", &dir, "--markdown"]);
    assert_eq!(String::from_utf8_lossy(&legacy.stdout), text);
    let pair = repo("assets/examples/prof_result");
    let out = skope(&[
        "report",
        &dir,
        "--output",
        "markdown",
        "--profiles",
        &pair.to_string_lossy(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("| step time |"));
}
