//! One account, every output: the bundled pair rendered by every command that shows it — the
//! diff's text, JSON and the PR report's Markdown, suggestions' measured savings, the run
//! ledger — gives the same step time, waterfall and per-SuperKernel figures, written the same
//! way (the TUI's profile view is held to the same figures in `tui_profiles`).

use crate::common::{repo, skope_in, skope_stdout};
use serde_json::Value;

const PAIR: &str = "assets/examples/prof_result";
const GRAPH: &str = "assets/examples/moe_decode.ge_proto.txt";

/// `ns` as every output writes µs.
fn us(ns: i64) -> String {
    skope::profile::output::micros(ns)
}

#[test]
fn every_output_of_the_bundled_pair_gives_the_same_figures() {
    let (pair, graph) = (
        repo(PAIR).to_string_lossy().into_owned(),
        repo(GRAPH).to_string_lossy().into_owned(),
    );
    let json: Value =
        serde_json::from_str(&skope_stdout(&["diff", &pair, "--graph", &graph, "--json"]))
            .expect("JSON");
    let a = &json["account"];
    let ns = |v: &Value| v.as_i64().expect("ns");
    let (base, new) = (ns(&a["base"]["mean_ns"]), ns(&a["new"]["mean_ns"]));
    // The waterfall adds up, in the JSON itself.
    let parts = a["waterfall"].as_array().expect("parts");
    let sum = |key: &str| parts.iter().map(|p| ns(&p[key])).sum::<i64>();
    assert_eq!((sum("base_ns"), sum("new_ns")), (base, new));
    assert_eq!(sum("delta_ns"), new - base);

    let text = skope_stdout(&["diff", &pair, "--graph", &graph]);
    let markdown = skope_stdout(&["report", &graph, "--markdown", "--profiles", &pair]);
    let headline = format!("{} µs → {} µs", us(base), us(new));
    let change = skope::profile::output::fixed(a["change_pct"].as_f64().expect("%"), 2);
    for (name, out) in [("text", &text), ("markdown", &markdown)] {
        assert!(out.contains(&headline), "{name}: {headline}\n{out}");
        assert!(
            out.contains(&format!("{change} % faster with SuperKernel")),
            "{name}\n{out}"
        );
        assert!(
            !out.contains("benefit"),
            "{name} calls nothing a benefit\n{out}"
        );
    }
    // Every part, in the text's and the Markdown's waterfalls alike.
    for p in parts {
        let name = match p["kind"].as_str() {
            Some("superkernel") => format!("SuperKernel {}", p["name"].as_str().unwrap()),
            _ => p["name"].as_str().unwrap().to_string(),
        };
        let (b, n) = (us(ns(&p["base_ns"])), us(ns(&p["new_ns"])));
        let row = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in the text"));
        assert!(row.contains(&b) && row.contains(&n), "{row}");
        let escaped = skope::markdown::text(&name);
        assert!(
            markdown.contains(&format!("| {escaped} | {b} µs | {n} µs |")),
            "{name} in the Markdown"
        );
    }
    // Each SuperKernel's part per step: in the payoff tables, and as suggestions' measured
    // saving.
    let suggest = skope_stdout(&["suggest", &graph, "--profiles", &pair]);
    for p in parts.iter().filter(|p| p["kind"] == "superkernel") {
        let delta = skope::profile::output::delta_micros(ns(&p["delta_ns"]));
        let segment = p["name"].as_str().unwrap();
        let row = text
            .split_once("superkernels · did each pay?")
            .map_or("", |(_, rest)| rest)
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{segment} ")))
            .unwrap_or_else(|| panic!("{segment} in the payoffs"));
        assert!(row.contains(&delta), "{row}");
        assert!(
            markdown.contains(&format!("| {delta} µs |")),
            "{segment}: {delta} in the Markdown"
        );
        // (Suggestions fit SuperKernels of two sub-ops or more.)
        let saved = us(-ns(&p["delta_ns"]));
        if let Some(line) = suggest
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{segment}: predicted")))
        {
            assert!(line.ends_with(&format!("measured {saved} µs")), "{line}");
        }
    }
    // A break's cost: one number.
    let cost = json["per_op"]["breaks"][0]["unfused_us"].as_f64().unwrap()
        + json["per_op"]["breaks"][0]["wait_us"].as_f64().unwrap();
    let cost = format!("{} µs", skope::profile::output::fixed(cost, 2));
    assert!(
        text.contains(&format!("costs {cost} a step")),
        "{cost}\n{text}"
    );
    assert!(
        markdown.contains(&format!("{cost} |")),
        "{cost}\n{markdown}"
    );
}

#[test]
fn the_ledger_gives_the_pairs_step_times() {
    let dir = crate::common::scratch("account-ledger");
    crate::common::ledger_runs::three_runs(&dir);
    let out = skope_in(&dir, &["runs", "moe_decode.ge_proto.txt", "--json"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ledger: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = ledger["rows"].as_array().unwrap();
    let row = |n: u64| rows.iter().find(|r| r["number"] == n).unwrap();
    // The bundled pair is runs 1 (base) and 2 (default): the same step times as the diff.
    let json: Value = serde_json::from_str(&skope_stdout(&[
        "diff",
        &repo(PAIR).to_string_lossy(),
        "--graph",
        &repo(GRAPH).to_string_lossy(),
        "--json",
    ]))
    .unwrap();
    let mean = |side: &str| json["account"][side]["mean_ns"].as_i64().unwrap() as f64 / 1000.0;
    assert_eq!(row(1)["step_time_us"].as_f64(), Some(mean("base")));
    assert_eq!(row(2)["step_time_us"].as_f64(), Some(mean("new")));
    assert_eq!(
        row(2)["benefit"]["baseline_us"].as_f64(),
        Some(mean("base"))
    );
    assert_eq!(row(2)["benefit"]["run_us"].as_f64(), Some(mean("new")));
}
