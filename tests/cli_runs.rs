//! `skope runs`: the run ledger of three runs of the bundled example made with different
//! plans — ordered by benefit against the baseline run, the differing option named, the same
//! on every invocation — in text, JSON, Markdown and CSV; a profile added by path, and one that
//! has gone.

use crate::common::ledger_runs::{DUMP, copy_dir, three_runs};
use crate::common::{repo, scratch, skope_in};
use std::path::Path;

fn runs(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["runs", DUMP];
    all.extend_from_slice(args);
    let out = skope_in(dir, &all, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn three_runs_are_ordered_by_benefit_with_the_differing_option_named() {
    let dir = scratch("ledger");
    three_runs(&dir);
    let json = runs(&dir, &["--json"]);
    let ledger: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(ledger["baseline"], 1, "{json}");
    assert_eq!(ledger["sort"], "benefit");
    let rows = ledger["rows"].as_array().unwrap();
    let order: Vec<(u64, &str)> = rows
        .iter()
        .map(|r| (r["number"].as_u64().unwrap(), r["recipe"].as_str().unwrap()))
        .collect();
    assert_eq!(order, [(3, "tuned"), (2, "default"), (1, "base")]);
    // The example's own pair: 624.94 µs → 501.89 µs a step, as the profile comparison says.
    let default = &rows[1];
    assert!((default["benefit"]["baseline_us"].as_f64().unwrap() - 624.938).abs() < 0.001);
    assert!((default["benefit"]["run_us"].as_f64().unwrap() - 501.888).abs() < 0.001);
    assert!((default["benefit"]["pct"].as_f64().unwrap() - 19.69).abs() < 0.01);
    assert!((default["step_time_us"].as_f64().unwrap() - 501.888).abs() < 0.001);
    assert_eq!(default["payoffs"]["beneficial"], 12);
    // One of its scope's three segments: no exact map to the code, so the prune is blocked.
    assert_eq!(default["payoffs"]["block"][0], "moe_1_split_54_56");
    assert_eq!(default["plan"]["segments"], 13);
    let tuned = &rows[0];
    assert!(tuned["benefit"]["saved_us"].as_f64().unwrap() > 123.05 + 20.0);
    assert_eq!(tuned["changes"][0], "attn_0: stream-fusion=1 set");
    assert_eq!(rows[2]["plan"]["segments"], 0);
    assert_eq!(rows[2]["profile"]["state"], "found");

    let text = runs(&dir, &[]);
    assert!(text.contains("baseline: run 1, the newest whose plan builds no SuperKernel"));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[4].starts_with("3 ") && lines[4].contains("attn_0: stream-fusion=1 set"));
    assert!(lines[5].starts_with("2 ") && lines[5].contains("+123.05 µs (19.69 %)"));
    assert!(lines[5].contains("12✓ 1✗ 0~ 0?"), "{text}");
    assert!(lines[6].starts_with("*1 ") && lines[6].contains("baseline"));
    assert!(text.contains("run 2: block: moe_1_split_54_56"), "{text}");

    // Another invocation (a restart) reads the same records into the same ledger.
    assert_eq!(runs(&dir, &["--json"]), json);
    // Other orders and another baseline.
    let by_run = runs(&dir, &["--sort", "run", "--csv"]);
    let first: Vec<&str> = by_run
        .lines()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(first, ["run", "1", "2", "3"]);
    let against_two: serde_json::Value =
        serde_json::from_str(&runs(&dir, &["--baseline", "2", "--json"])).unwrap();
    assert_eq!(against_two["baseline"], 2);
    assert!(
        against_two["baseline_why"]
            .as_str()
            .unwrap()
            .contains("its plan builds SuperKernels")
    );
    let md = runs(&dir, &["--markdown"]);
    assert!(md.starts_with("### Runs of "), "{md}");
    assert!(md.contains("| 3 | "), "{md}");
}

#[test]
fn an_added_profile_is_a_run_and_a_gone_one_is_said() {
    let dir = scratch("ledger-add");
    three_runs(&dir);
    let elsewhere = dir.join("elsewhere");
    copy_dir(&repo("assets/examples/prof_result/sk_model"), &elsewhere);
    let out = skope_in(
        &dir,
        &[
            "runs",
            DUMP,
            "--add",
            "elsewhere",
            "--plan",
            "default.plan.json",
            "--json",
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("added elsewhere as a run in"), "{stderr}");
    let ledger: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let added = ledger["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["number"] == 4)
        .unwrap();
    assert_eq!(added["recipe"], "added");
    assert_eq!(added["status"], "added");
    assert_eq!(added["plan"]["segments"], 13);
    assert!((added["benefit"]["pct"].as_f64().unwrap() - 19.69).abs() < 0.01);
    // Adding it again is refused, naming the run it is.
    let again = skope_in(&dir, &["runs", DUMP, "--add", "elsewhere"], &[]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("is already in the ledger"));
    // A path without a profile is refused with what was looked for.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let none = skope_in(&dir, &["runs", DUMP, "--add", "empty"], &[]);
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("kernel_details.csv"));

    std::fs::remove_dir_all(&elsewhere).unwrap();
    let text = runs(&dir, &[]);
    assert!(text.contains("run 4: its profile has gone: "), "{text}");
}

#[test]
fn without_a_baseline_run_the_ledger_says_what_to_do() {
    let dir = scratch("ledger-nobase");
    let dump = dir.join(DUMP);
    std::fs::copy(repo(&format!("assets/examples/{DUMP}")), &dump).unwrap();
    let text = runs(&dir, &[]);
    assert!(text.contains("no runs recorded"), "{text}");
    assert!(text.contains("run the model once without scopes"), "{text}");
}

#[test]
fn hostile_names_in_a_record_cannot_break_the_outputs() {
    let dir = scratch("ledger-hostile");
    three_runs(&dir);
    let hostile = "<b>x</b>|`y`*z*\u{1b}[31m\u{202e}=cmd";
    let runs_dir = dir.join(format!("{DUMP}.runs"));
    let record = runs_dir.join("default-1/run.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    value["recipe"] = hostile.into();
    std::fs::write(&record, value.to_string()).unwrap();

    let md = runs(&dir, &["--markdown"]);
    assert!(!md.contains("<b>") && !md.contains('\u{1b}') && !md.contains('\u{202e}'));
    let row = md.lines().find(|l| l.starts_with("| 2 |")).unwrap();
    assert_eq!(
        row.matches(" | ").count() + 2,
        11,
        "one cell per column: {row}"
    );
    let text = runs(&dir, &[]);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
    let csv = runs(&dir, &["--csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let recipes: Vec<String> = reader
        .records()
        .map(|r| r.unwrap()[3].to_string())
        .collect();
    assert!(recipes.iter().all(|r| !r.contains('\u{1b}')));
    let json = runs(&dir, &["--json"]);
    assert!(!json.contains('\u{1b}'));
    serde_json::from_str::<serde_json::Value>(&json).unwrap();
}
