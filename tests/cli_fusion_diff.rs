//! `skope diff A B` on two graphs: a pair made from the bundled example where one op stops
//! being fusible (a scope splits), an op joins the scope it broke (a scope heals), an op is
//! renamed and a scope is removed — the diff names exactly those, in text, JSON and Markdown.

use crate::common::fusion_pair::graph_b;
use crate::common::{example_arg, repo, skope, skope_stdout};
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
