//! `skope diff A B` on two graphs: a pair made from the bundled example where one op stops
//! being fusible (a scope splits), an op joins the scope it broke (a scope heals), an op is
//! renamed and a scope is removed — the diff names exactly those, in text, JSON and Markdown.

use crate::common::fusion_pair::graph_b;
use crate::common::{example_arg, repo, scratch, skope, skope_stdout};
use serde_json::Value;

const GRAPH: &str = "moe_decode.ge_proto.txt";

#[test]
fn the_diff_names_exactly_the_split_the_heal_the_rename_and_the_removed_scope() {
    let b = graph_b();
    let json: Value = serde_json::from_str(&skope_stdout(&[
        "diff",
        &example_arg(GRAPH),
        &b.to_string_lossy(),
        "--json",
    ]))
    .expect("JSON");
    assert_eq!(
        json["renamed"],
        serde_json::json!([["layer3_o_proj", "layer3_out_proj"]])
    );
    assert_eq!(
        (json["only_a"].as_u64(), json["only_b"].as_u64()),
        (Some(0), Some(0))
    );
    let scopes: Vec<(String, String)> = json["scopes"]
        .as_array()
        .expect("scopes")
        .iter()
        .map(|s| {
            (
                s["scope"].as_str().unwrap_or("").to_string(),
                s["change"].to_string(),
            )
        })
        .collect();
    assert_eq!(scopes.len(), 3, "{scopes:?}");
    assert!(
        scopes[0].0 == "attn_0" && scopes[0].1.contains("fused → split"),
        "{scopes:?}"
    );
    assert!(
        scopes[1].0 == "attn_2" && scopes[1].1.contains("split → fused"),
        "{scopes:?}"
    );
    assert_eq!(scopes[2], ("moe_3".to_string(), "\"removed\"".to_string()));
    let breaks = json["breaks"].as_array().expect("breaks");
    assert_eq!(breaks.len(), 2);
    assert_eq!(
        (&breaks[0]["op"], &breaks[0]["change"]),
        (&Value::from("layer0_rope"), &Value::from("added"))
    );
    assert_eq!(
        (&breaks[1]["op"], &breaks[1]["change"]),
        (&Value::from("layer2_mask_fill"), &Value::from("removed"))
    );
    let segments = json["segments"].as_array().expect("segments");
    assert_eq!(segments.len(), 4);
    // Text and Markdown say the same.
    let text = skope_stdout(&["diff", &example_arg(GRAPH), &b.to_string_lossy()]);
    assert!(
        text.contains("  renamed  layer3_o_proj → layer3_out_proj"),
        "{text}"
    );
    assert!(text.contains("  − moe_3\n"), "{text}");
    assert!(
        text.contains("~ attn_2_split_70_74 (attn_2, 3 ops): grew from 3 to 9 ops as attn_2"),
        "{text}"
    );
    let md = skope_stdout(&[
        "diff",
        &example_arg(GRAPH),
        &b.to_string_lossy(),
        "--markdown",
    ]);
    assert!(md.starts_with("### Fusion diff: `"), "{md}");
    assert!(md.contains("| + | layer0\\_rope | attn\\_0 |"), "{md}");
    assert!(
        md.contains("<details><summary>Renamed ops (1)</summary>"),
        "{md}"
    );
}

#[test]
fn a_graph_against_itself_is_the_same_fusion_and_profiles_still_compare() {
    let text = skope_stdout(&["diff", &example_arg(GRAPH), &example_arg(GRAPH)]);
    assert!(
        text.contains("same fusion: no scope, segment or break differs"),
        "{text}"
    );
    // Profiles are still profiles; --markdown goes with graphs only.
    let profiles = repo("assets/examples/prof_result");
    let out = skope(&["diff", &profiles.to_string_lossy(), "--markdown"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--markdown goes with two graphs"));
}

#[test]
fn hostile_names_in_either_graph_make_no_markup_and_valid_json() {
    let dir = scratch("cli-fusion-diff-hostile");
    let b = dir.join("hostile.txt");
    let evil_op = "a|<img src=x onerror=alert(1)>*b*\u{1b}[2J\u{202e}`";
    let evil_scope = "m|<b>[l](javascript:y)\u{202e}";
    let text = std::fs::read_to_string(repo("assets/examples").join(GRAPH))
        .expect("the example")
        .replace("layer1_expert_broadcast", evil_op)
        .replace("s: \"moe_1\"", &format!("s: \"{evil_scope}\""));
    std::fs::write(&b, text).expect("write B");
    let (a, b) = (example_arg(GRAPH), b.to_string_lossy().into_owned());
    let plain = skope_stdout(&["diff", &a, &b]);
    assert!(
        !plain.contains('\u{1b}') && !plain.contains('\u{202e}'),
        "{plain}"
    );
    assert!(
        plain.contains("moe_1"),
        "the removed scope is named: {plain}"
    );
    let json = skope_stdout(&["diff", &a, &b, "--json"]);
    assert!(!json.contains('\u{1b}') && !json.contains('\u{202e}'));
    let value: Value = serde_json::from_str(&json).expect("valid JSON");
    // The op whose name changed is the renamed one, named as it is (escaped) in B.
    assert_eq!(value["renamed"][0][0], "layer1_expert_broadcast");
    let md = skope_stdout(&["diff", &a, &b, "--markdown"]);
    assert!(!md.contains('\u{202e}') && !md.contains('\u{1b}'), "{md}");
    // Outside code spans (where GitHub shows text as it is), no HTML.
    let outside: String = md.split('`').step_by(2).collect();
    assert!(
        !outside.contains("<img") && !outside.contains("<b>"),
        "{md}"
    );
    // No link: every bracket is escaped.
    assert!(!md.replace("\\]", "").contains("]("), "{md}");
    // Every row has its own table's header's cells (a pipe in a name is escaped).
    let mut header = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let cells = line.replace("\\|", "").matches('|').count();
        let expected = *header.get_or_insert(cells);
        assert_eq!(cells, expected, "a row with another cell count: {line}");
    }
}

#[test]
fn a_plan_that_changes_a_scopes_options_or_members_is_a_scope_change() {
    let dir = scratch("cli-fusion-diff-plan");
    let plan = dir.join("p.json");
    let out = skope(&[
        "export",
        &example_arg(GRAPH),
        "--format",
        "plan",
        "-o",
        &plan.to_string_lossy(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut p: Value = serde_json::from_str(&std::fs::read_to_string(&plan).unwrap()).unwrap();
    // Same count of members in attn_0: its last op out, the next scope's first op in.
    let moved = p["scopes"][1]["ops"].as_array_mut().unwrap().remove(0);
    let attn = &mut p["scopes"][0];
    assert_eq!(attn["name"], "attn_0");
    attn["options"] = "stream-fusion=1".into();
    let ops = attn["ops"].as_array_mut().unwrap();
    let last = ops.pop().unwrap();
    ops.push(moved.clone());
    let changed = dir.join("changed.json");
    std::fs::write(&changed, p.to_string()).unwrap();
    let text = skope_stdout(&["diff", &example_arg(GRAPH), &changed.to_string_lossy()]);
    assert!(
        text.contains(&format!(
            "options none → \"stream-fusion=1\", 8 → 8 ops; in: {}; out: {}",
            moved.as_str().unwrap(),
            last.as_str().unwrap()
        )) && text.contains("\n  ~ attn_0: "),
        "{text}"
    );
}
