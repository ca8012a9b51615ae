//! A prediction made before the compile, checked after it: `skope compile --profiles` records
//! what each SuperKernel of the plan is predicted to save in the run's `run.json`; `skope diff`
//! of the run's profile (found from the profile's place in the run, or from `--plan`) sets each
//! prediction beside what the run measured; the ledger shows how many came true.

use crate::common::ledger_runs::{DUMP, three_runs};
use crate::common::skope_in;
use std::path::{Path, PathBuf};

fn ok(dir: &Path, args: &[&str]) -> (String, String) {
    let out = skope_in(dir, args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// The three runs of the ledger, then a fourth of the tuned plan compiled with the first
/// pair (the baseline and run 2's profile) given: its directory.
fn predicted_run(dir: &Path) -> PathBuf {
    three_runs(dir);
    let args = [
        "compile",
        DUMP,
        "--recipe",
        "tuned",
        "--plan",
        "tuned.plan.json",
        "--profiles",
        "profiles/base",
        "--profiles",
        "profiles/default",
    ];
    let (_, said) = ok(dir, &args);
    assert!(
        said.contains("the current plan's 13 SuperKernel(s), predicted:"),
        "{said}"
    );
    dir.join(format!("{DUMP}.runs/tuned-2"))
}

#[test]
fn a_run_compiled_with_profiles_records_its_prediction_and_diff_checks_it() {
    let dir = crate::common::scratch("foresight-diff");
    let run = predicted_run(&dir);
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    let predicted = &record["predicted"];
    assert_eq!(predicted["fitted"], true, "{predicted}");
    let superkernels = predicted["superkernels"].as_array().unwrap();
    assert_eq!(superkernels.len(), 13);
    assert!(
        predicted["profile"]
            .as_str()
            .unwrap()
            .ends_with("kernel_details.csv")
    );
    let attn = &superkernels[0];
    assert_eq!(attn["segment"], "attn_0");
    let saving = attn["saving_us"].as_f64().unwrap();
    assert!(
        attn["low_us"].as_f64().unwrap() < saving && saving < attn["high_us"].as_f64().unwrap()
    );

    // The run's profile, found by where it is: the run's record holds the prediction.
    let new = run.join("prof");
    let new = new.to_str().unwrap();
    let (text, _) = ok(&dir, &["diff", "profiles/base", new, "--graph", DUMP]);
    assert!(
        text.contains("predicted before the compile · recorded with the run in"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("attn_0 "))
        .filter(|l| l.contains('%'))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(row.contains("beneficial"), "{row}");
    assert!(text.contains("judged as predicted; mean error"), "{text}");
    // The same in JSON: each SuperKernel's prediction beside its row of the account.
    let (json, _) = ok(
        &dir,
        &["diff", "profiles/base", new, "--graph", DUMP, "--json"],
    );
    let diff: serde_json::Value = serde_json::from_str(&json).unwrap();
    let checked = &diff["predicted"];
    assert_eq!(checked["superkernels"].as_array().unwrap().len(), 13);
    let first = &checked["superkernels"][0];
    let part = diff["account"]["waterfall"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["fused_node"] == first["predicted"]["fused_node"])
        .unwrap();
    let measured = first["measured_us"].as_f64().unwrap();
    assert!((measured + part["delta_ns"].as_f64().unwrap() / 1000.0).abs() < 1e-9);
    let error = first["error_pct"].as_f64().unwrap();
    let expected = (first["predicted"]["saving_us"].as_f64().unwrap() - measured).abs()
        / measured.abs()
        * 100.0;
    assert!((error - expected).abs() < 1e-9, "{first}");
    // Given the run's plan instead: the same run.
    let plan = run.join("plan.skope.json");
    let (json_by_plan, _) = ok(
        &dir,
        &[
            "diff",
            "profiles/base",
            new,
            "--graph",
            DUMP,
            "--plan",
            plan.to_str().unwrap(),
            "--json",
        ],
    );
    let by_plan: serde_json::Value = serde_json::from_str(&json_by_plan).unwrap();
    assert_eq!(by_plan["predicted"]["run"], checked["run"]);
    // A profile that lies in the run's directory but is not its results is not that run's.
    let elsewhere = run.join("elsewhere/prof");
    crate::common::ledger_runs::copy_dir(&run.join("prof"), &elsewhere);
    let args = [
        "diff",
        "profiles/base",
        elsewhere.to_str().unwrap(),
        "--graph",
        DUMP,
    ];
    let (text, _) = ok(&dir, &args);
    assert!(!text.contains("predicted before the compile"), "{text}");
    assert!(!text.contains("recorded no prediction"), "{text}");
    // A profile of a run made without profiles: said so, nothing invented.
    let unpredicted = dir.join(format!("{DUMP}.runs/default-1/prof"));
    let (text, _) = ok(
        &dir,
        &[
            "diff",
            "profiles/base",
            unpredicted.to_str().unwrap(),
            "--graph",
            DUMP,
        ],
    );
    assert!(text.contains("recorded no prediction"), "{text}");
    assert!(!text.contains("predicted before the compile"), "{text}");
}

#[test]
fn the_ledger_shows_how_many_predictions_came_true() {
    let dir = crate::common::scratch("foresight-ledger");
    predicted_run(&dir);
    let (json, _) = ok(&dir, &["runs", DUMP, "--json", "--sort", "run"]);
    let ledger: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = ledger["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert!(rows[..3].iter().all(|r| r["predicted"].is_null()));
    let checked = &rows[3]["predicted"];
    let (right, judged) = (
        checked["classes_right"][0].as_u64().unwrap(),
        checked["classes_right"][1].as_u64().unwrap(),
    );
    assert!(judged >= 12 && right <= judged, "{checked}");
    let (text, _) = ok(&dir, &["runs", DUMP, "--sort", "run"]);
    let cell = format!("{right}/{judged} as judged");
    let line = text.lines().find(|l| l.starts_with("4 ")).unwrap();
    assert!(line.contains(&cell), "{text}");
    let (csv, _) = ok(&dir, &["runs", DUMP, "--sort", "run", "--csv"]);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = header
        .iter()
        .position(|h| h == "predicted_as_judged")
        .unwrap();
    let last = reader.records().last().unwrap().unwrap();
    assert_eq!(last[at], right.to_string());
}
