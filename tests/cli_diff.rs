//! `skope diff`: text, JSON and CSV output, rank listing, plan and graph inputs, bad input.

use std::path::PathBuf;
use std::process::Output;

use crate::common::skope;

fn path(rel: &str) -> String {
    crate::common::repo(rel).to_string_lossy().into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const OFFICIAL: &str = "tests/fixtures/profile/official_sample/prof_result";
const BUNDLED: &str = "assets/examples/prof_result";
const GRAPH: &str = "assets/examples/moe_decode.ge_proto.txt";

#[test]
fn text_of_the_bundled_pair_with_its_graph() {
    let out = skope(&["diff", &path(BUNDLED), "--graph", &path(GRAPH)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // The headline is the step time, the mean over the steps kept; busy time is named apart
    // and never called a benefit.
    assert!(
        text.contains(
            "step time  624.94 µs → 501.89 µs   Δ ▼ −123.05 µs   19.69 % faster with SuperKernel"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "the mean over 5 and 5 step(s) kept (medians 625.11 → 502.19 µs) · busy time 531.31 → \
             473.58 µs"
        ),
        "{text}"
    );
    assert!(!text.contains("benefit"), "{text}");
    assert!(
        text.contains("  base 5 step(s): step time median 625.11 µs"),
        "{text}"
    );
    // The waterfall ends where the headline does.
    assert!(
        text.contains("  step time                                624.94   501.89  ▼ −123.05"),
        "{text}"
    );
    // Each SuperKernel's payoff: the one-sub-op SuperKernel has nothing to save and regresses.
    let payoffs = text
        .split_once("superkernels · did each pay?")
        .map_or("", |(_, rest)| rest);
    let row = |segment: &str| {
        payoffs
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{segment} ")))
            .unwrap_or_else(|| panic!("{segment} in\n{text}"))
    };
    assert!(
        row("moe_1_split_54_56").ends_with("regressed — no class fits  block"),
        "{text}"
    );
    assert!(
        row("attn_0")
            .split_whitespace()
            .rev()
            .take(2)
            .eq(["keep", "beneficial"]),
        "{text}"
    );
    assert!(text.contains("  12 beneficial · 1 regressed"), "{text}");
    assert!(
        text.contains("attribution · fused op types: the plan's segments"),
        "{text}"
    );
    assert!(text.contains("sk_") || text.contains("attn_0"), "{text}");
    assert!(
        text.contains("1. layer1_expert_broadcast (HcomBroadcast) breaks moe_1"),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "no escape codes");
}

#[test]
fn a_database_pair_of_the_bundled_kernels_compares_as_the_csvs_do() {
    let dir = crate::common::scratch("cli-diff-db");
    let dbs = crate::common::profiler_db::pair_as_databases(&crate::common::repo(BUNDLED), &dir);
    let out = skope(&["diff", &dbs.to_string_lossy(), "--graph", &path(GRAPH)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("(ascend_pytorch_profiler.db)"), "{text}");
    assert!(
        text.contains(
            "step time  624.94 µs → 501.89 µs   Δ ▼ −123.05 µs   19.69 % faster with SuperKernel"
        ),
        "{text}"
    );
    assert!(text.contains("  12 beneficial · 1 regressed"), "{text}");
    assert!(
        text.contains("note: base: ascend_pytorch_profiler.db: 5 step(s) from STEP_TIME"),
        "{text}"
    );
}

#[test]
fn base_and_new_given_separately_read_the_same() {
    let a = skope(&["diff", &path(BUNDLED), "--json"]);
    let b = skope(&[
        "diff",
        &path(&format!("{BUNDLED}/no_sk_model")),
        &path(&format!("{BUNDLED}/sk_model")),
        "--json",
    ]);
    assert!(a.status.success() && b.status.success(), "{}", stderr(&b));
    let (a, b): (serde_json::Value, serde_json::Value) = (
        serde_json::from_slice(&a.stdout).unwrap(),
        serde_json::from_slice(&b.stdout).unwrap(),
    );
    assert_eq!(a["rows"], b["rows"]);
    assert_eq!(a["attribution"], b["attribution"]);
}

#[test]
fn json_has_the_documented_keys_and_the_sample_numbers() {
    let out = skope(&["diff", &path(OFFICIAL), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let num = |v: &serde_json::Value| v.as_f64().unwrap();
    assert!((num(&v["base_total_us"]) - 407.54).abs() < 1e-6);
    assert!((num(&v["new_total_us"]) - 384.66).abs() < 1e-6);
    assert!((num(&v["benefit_pct"]) - 5.614).abs() < 0.001);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    let gmm = rows
        .iter()
        .find(|r| r["op_type"] == "GroupedMatmul")
        .unwrap();
    assert_eq!(gmm["core_type"], "MIX_AIC");
    assert_eq!(gmm["base"]["count"], 12);
    assert!((num(&gmm["base"]["total_us"]) - 126.26).abs() < 1e-9);
    assert!(gmm["base"]["avg_us"].is_number());
    assert!(gmm["new"].is_null());
    assert!((num(&gmm["delta_us"]) + 126.26).abs() < 1e-9);
    assert_eq!(num(&gmm["ratio"]), 0.0);
    assert_eq!(gmm["status"], "fused_away");
    let sk = rows
        .iter()
        .find(|r| r["op_type"] == "SuperKernel" && r["core_type"] == "MIX_AIC")
        .unwrap();
    assert!(sk["ratio"].is_null());
    assert_eq!(sk["status"], "new_superkernel");
    let a = &v["attribution"];
    assert_eq!(a["basis"], "inferred");
    assert_eq!(a["inferred"], true);
    assert!((num(&a["fused"]["base_us"]) - 218.76).abs() < 1e-6);
    assert!((num(&a["fused"]["new_us"]) - 190.88).abs() < 1e-6);
    assert!((num(&a["fused"]["change_pct"]) + 12.745).abs() < 0.001);
    assert_eq!(a["fused_types"].as_array().unwrap().len(), 3);
    assert_eq!(a["fused_types"][0]["evidence"], "inferred");
    assert!(v["per_op"].is_null());
}

#[test]
fn csv_has_a_header_and_one_line_per_row() {
    let out = skope(&["diff", &path(OFFICIAL), "--csv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "op_type,core_type,status,base_count,base_total_us,base_avg_us,new_count,new_total_us,\
         new_avg_us,delta_us,ratio,change_pct"
    );
    assert_eq!(lines.len(), 17);
    assert!(
        lines.contains(
            &"GroupedMatmul,MIX_AIC,fused_away,12,126.260,10.522,,,,-126.260,0.0000,-100.000"
        ),
        "{text}"
    );
    assert!(
        lines.contains(
            &"Transpose,AI_VECTOR_CORE,both,24,90.020,3.751,24,92.420,3.851,2.400,1.0267,2.666"
        ),
        "{text}"
    );
}

#[test]
fn json_and_csv_together_are_refused() {
    let out = skope(&["diff", &path(OFFICIAL), "--json", "--csv"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn several_ranks_are_compared_together_or_one_by_rank() {
    let ranks = path("tests/fixtures/profile/ranks");
    let out = skope(&["diff", &ranks, &ranks]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("2 ranks compared · slowest with SuperKernel: rank 1"),
        "{text}"
    );
    assert!(
        text.contains(
            "     0                 40.00    40.00  = 0.00  no change  no SuperKernel ran"
        ),
        "{text}"
    );
    let out = skope(&["diff", &ranks, &ranks, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["ranks"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["ranks"][1]["base_total_us"], 44.0);
    // One rank's by-type rows as CSV need the rank.
    let out = skope(&["diff", &ranks, &ranks, "--csv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("give --rank N"), "{}", stderr(&out));
    let out = skope(&["diff", &ranks, &ranks, "--rank", "1", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["base_total_us"], 44.0);
    let out = skope(&["diff", &ranks, &ranks, "--rank", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no rank 5"), "{}", stderr(&out));
}

#[test]
fn a_bad_field_fails_with_file_row_and_column() {
    let bad = path("tests/fixtures/profile/op_statistic/na_total.csv");
    let good = path("tests/fixtures/profile/op_statistic/no_units.csv");
    let out = skope(&["diff", &good, &bad]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("cannot compare the profiles"), "{err}");
    assert!(err.contains("na_total.csv:3: row 2"), "{err}");
    assert!(err.contains("\"Total Time(us)\""), "{err}");
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn a_missing_new_profile_or_path_fails_plainly() {
    let one = path("tests/fixtures/profile/ranks/rank0_ascend_pt");
    let out = skope(&["diff", &one]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("NEW is missing"), "{}", stderr(&out));
    let out = skope(&["diff", "/no/such/profile", &one]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/profile"),
        "{}",
        stderr(&out)
    );
    let empty = path("tests/fixtures/profile/op_statistic/empty.csv");
    let out = skope(&["diff", &empty, &one]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("empty file"), "{}", stderr(&out));
}

#[test]
fn a_plan_file_alone_gives_inferred_segments() {
    let dir = crate::common::scratch("cli-diff");
    let plan: PathBuf = dir.join("moe.skope.json");
    let out = skope(&[
        "export",
        &path(GRAPH),
        "--format",
        "plan",
        "-o",
        &plan.to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = skope(&[
        "diff",
        &path(BUNDLED),
        "--plan",
        &plan.to_string_lossy(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["attribution"]["inferred"], true);
    assert_eq!(v["per_op"]["inferred"], true);
    // Uncut scopes match their SuperKernels by name; split ones cannot without the graph.
    let segments = v["per_op"]["segments"].as_array().unwrap();
    assert_eq!(segments.len(), 8);
    let moe2 = segments.iter().find(|s| s["segment"] == "moe_2").unwrap();
    assert!(moe2["new_us"].is_number());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_graph_the_attribution_says_it_infers() {
    let out = skope(&["diff", &path("assets/examples/prof_result")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("attribution · fused op types: inferred from the profile (op types with fewer kernels) · ~ marks an inference"),
        "{text}"
    );
}

/// True for a character a terminal acts on or that makes text read as something else: a
/// control other than the line break, DEL, a C1 control, a bidi or zero-width format mark, or
/// a line/paragraph separator.
fn terminal_active(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{61c}' | '\u{2028}' | '\u{2029}')
}

/// A directory with `no_sk_model` and `sk_model` op_statistic files holding one row per op
/// type of `types` (the base twice as slow).
fn op_statistic_pair(name: &str, types: &[&str]) -> String {
    let dir = crate::common::scratch(&format!("diff-{name}"));
    for (side, scale) in [("no_sk_model", 2.0), ("sk_model", 1.0)] {
        let out = dir.join(side).join("ASCEND_PROFILER_OUTPUT");
        std::fs::create_dir_all(&out).unwrap();
        let mut csv = String::from(
            "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n",
        );
        for (i, ty) in types.iter().enumerate() {
            let t = scale * (i + 1) as f64;
            csv.push_str(&format!("0,\"{ty}\",AI_CORE,1,{t},{t},{t},{t},10\n"));
        }
        std::fs::write(out.join("op_statistic.csv"), csv).unwrap();
    }
    dir.to_string_lossy().into_owned()
}

#[test]
fn a_huge_op_type_is_cut_in_the_table_not_padded_into_every_row() {
    let huge = format!("Huge{}Type", "x".repeat(4_000_000));
    let mut types: Vec<String> = (0..50).map(|i| format!("Op{i}")).collect();
    types.push(huge.clone());
    let types: Vec<&str> = types.iter().map(String::as_str).collect();
    let dir = op_statistic_pair("huge", &types);
    let out = skope(&["diff", &dir]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    // 51 rows of a few dozen columns, not 51 × 4 MB.
    assert!(text.len() < 64 * 1024, "{} bytes of output", text.len());
    assert!(
        text.contains("Hugexxxx") && text.contains("xxxxType"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() < 200), "{text}");
    assert!(text.contains('…'));
    // The machine-readable outputs keep it cut as a dump's strings are (its start, a hash,
    // its end), not 4 MB a row.
    let json = stdout(&skope(&["diff", &dir, "--json"]));
    assert!(json.len() < 64 * 1024, "{} bytes of JSON", json.len());
    assert!(
        json.contains("Hugexxxx") && json.contains("xxxxType\""),
        "{json}"
    );
}

#[test]
fn every_output_of_a_hostile_profile_is_inert_on_a_terminal() {
    // Op types that set the window title, write the clipboard (OSC 52), clear the screen with
    // a C1 CSI, reverse the text's direction, and split a line for a JavaScript reader.
    let hostile = [
        "Add\x1b]0;owned\x07",
        "Mul\x1b]52;c;ZWNobyBoaQ==\x07",
        "Cast\u{9b}2J",
        "Relu\u{202e}lmth.exe",
        "Sub\u{2028}x",
    ];
    let dir = op_statistic_pair("hostile", &hostile);
    for args in [
        vec!["diff", dir.as_str()],
        vec!["diff", dir.as_str(), "--csv"],
        vec!["diff", dir.as_str(), "--json"],
    ] {
        let out = skope(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("Relu"), "{args:?}: {text}");
        let bad: Vec<char> = text.chars().filter(|c| terminal_active(*c)).collect();
        assert!(bad.is_empty(), "{args:?} writes {bad:?}:\n{text}");
        if args.contains(&"--json") {
            // Still the same values, escaped.
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(value.to_string().contains("Relu\u{202e}lmth.exe"));
            assert!(text.contains("Relu\\u202elmth.exe"), "{text}");
        } else {
            assert!(text.contains("Relu\\u{202e}lmth.exe"), "{args:?}: {text}");
        }
    }
}

#[test]
fn two_profiles_without_a_superkernel_say_so_instead_of_a_regression() {
    // The base profile against a copy of itself with every kernel a little slower.
    let dir = crate::common::scratch("diff-no-sk");
    let base = path(&format!(
        "{BUNDLED}/no_sk_model/npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv"
    ));
    let text = std::fs::read_to_string(&base).unwrap();
    let slower = text.replacen(",40,624.859,", ",40,684.859,", 1);
    assert_ne!(slower, text);
    std::fs::write(dir.join("op_statistic.csv"), slower).unwrap();
    let out = skope(&[
        "diff",
        &base,
        &dir.join("op_statistic.csv").to_string_lossy(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let total = text.lines().find(|l| l.starts_with("busy time")).unwrap();
    assert!(
        total.contains("the new profile is 2.61 % slower (no SuperKernel ran in it: a plain A/B"),
        "{text}"
    );
    assert!(!total.contains("regression"), "{total}");
    // A CI gate does not stay green when fusion silently did not happen.
    let out = skope(&[
        "diff",
        &base,
        &dir.join("op_statistic.csv").to_string_lossy(),
        "--deny",
        "regressed",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--deny regressed: no SuperKernel ran in the new profile"),
        "{}",
        stderr(&out)
    );
}

/// `skope diff` of the bundled pair with its graph and `extra` arguments.
fn bundled_with(extra: &[&str]) -> Output {
    let (pair, graph) = (path(BUNDLED), path(GRAPH));
    let mut args = vec!["diff", pair.as_str(), "--graph", graph.as_str()];
    args.extend(extra);
    skope(&args)
}

#[test]
fn deny_regressed_fails_ci_on_a_regressed_superkernel_and_json_carries_the_payoffs() {
    let out = bundled_with(&["--deny", "regressed"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = bundled_with(&["--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let list = v["payoffs"]["list"].as_array().unwrap();
    assert_eq!(list.len(), 13);
    let single = list
        .iter()
        .find(|p| p["segment"] == "moe_1_split_54_56")
        .unwrap();
    assert_eq!(single["class"], "regressed");
    assert_eq!(single["action"], "block");
    assert_eq!(single["why_not"][0]["class"], "no_class_fits");
    assert_eq!(single["why_not"][0]["level"], "low");
    let occurrences = single["occurrences"].as_array().unwrap();
    assert_eq!(occurrences.len(), 5);
    assert_eq!(occurrences[4]["step"], "5");
    assert!(
        occurrences
            .iter()
            .all(|o| o["base_us"].is_f64() && o["new_us"].is_f64())
    );
    assert_eq!(v["steps"]["base"]["list"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["payoffs"]["rule"]["min_occurrences"], 3);
    // Asking for more occurrences than five steps give: no payoff is judged, nothing regressed.
    let out = bundled_with(&["--deny", "regressed", "--min-occurrences", "6"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("13 insufficient evidence"),
        "{}",
        stdout(&out)
    );
    // Without kernel files the gate cannot be judged: an error, not a pass.
    let stats = |side: &str| {
        path(&format!(
            "{BUNDLED}/{side}/npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv"
        ))
    };
    let out = skope(&[
        "diff",
        &stats("no_sk_model"),
        &stats("sk_model"),
        "--deny",
        "regressed",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--deny regressed needs payoffs"),
        "{}",
        stderr(&out)
    );
}
