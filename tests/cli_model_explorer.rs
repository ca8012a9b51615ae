//! `skope export --format model-explorer`: the graph and node data held to Model Explorer's
//! documented schema, on the bundled example with its profiles and on a hostile dump.

use crate::common::{example_arg, repo, scratch, skope, skope_stdout};
use serde_json::Value;

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

#[test]
fn the_bundled_example_exports_scopes_as_layers_with_node_data() {
    let dir = scratch("cli-model-explorer");
    skope_stdout(&[
        "export",
        &example_arg("moe_decode.ge_proto.txt"),
        "--format",
        "model-explorer",
        "-o",
        &dir.to_string_lossy(),
        "--profiles",
        &repo("assets/examples/prof_result").to_string_lossy(),
    ]);
    let graph = read(&dir.join("graph.json"));
    assert!(skope::model_explorer::check(&graph).is_empty());
    let nodes = graph["graphs"][0]["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 137);
    let rms = nodes
        .iter()
        .find(|n| n["id"] == "layer0_input_rmsnorm")
        .expect("an op");
    assert_eq!(rms["namespace"], "attn_0/attn_0");
    let attrs = rms["attrs"].as_array().expect("attrs");
    assert!(
        attrs
            .iter()
            .any(|a| a["key"] == "verdict" && a["value"] == "fusible")
    );
    // A break sits at its scope's level, outlined, with its reason.
    let brk = nodes
        .iter()
        .find(|n| n["id"] == "layer1_expert_broadcast")
        .expect("a break");
    assert_eq!(brk["namespace"], "moe_1");
    assert!(brk["style"]["borderColor"].is_string());
    assert!(
        brk["attrs"]
            .as_array()
            .expect("attrs")
            .iter()
            .any(|a| a["key"] == "breaks its scope")
    );
    assert!(rms["incomingEdges"].as_array().is_some());
    for stem in ["verdict", "segment", "base_time", "new_time", "delta"] {
        let data = read(&dir.join(format!("nodedata_{stem}.json")));
        assert!(
            skope::model_explorer::check_node_data(&data).is_empty(),
            "{stem}"
        );
        assert!(
            data["plan"]["results"]
                .as_object()
                .is_some_and(|r| !r.is_empty()),
            "{stem}"
        );
    }
}

#[test]
fn hostile_names_stay_valid_json_and_the_checker_catches_a_broken_graph() {
    let dir = scratch("cli-model-explorer-hostile");
    let dump = dir.join("hostile.txt");
    let text = std::fs::read_to_string(repo("assets/examples/moe_decode.ge_proto.txt"))
        .expect("the example")
        .replace("layer1_expert_broadcast", "a/b<i>c\u{1b}[2J\u{202e}");
    std::fs::write(&dump, text).expect("write");
    let out = dir.join("out");
    skope_stdout(&[
        "export",
        &dump.to_string_lossy(),
        "--format",
        "model-explorer",
        "-o",
        &out.to_string_lossy(),
    ]);
    let graph = read(&out.join("graph.json"));
    assert!(skope::model_explorer::check(&graph).is_empty());
    let raw = std::fs::read_to_string(out.join("graph.json")).expect("read");
    assert!(!raw.contains('\u{1b}') && !raw.contains('\u{202e}'));
    // One rule for ids: the op's name itself, JSON-escaped — the same string in the report's
    // JSON, the plan file and the trace as the Model Explorer node id.
    let name = "a/b<i>c\u{1b}[2J\u{202e}";
    let nodes = graph["graphs"][0]["nodes"].as_array().expect("nodes");
    assert!(
        nodes.iter().any(|n| n["id"] == name),
        "the node id is the name"
    );
    let report: Value = serde_json::from_str(&skope_stdout(&[
        "report",
        &dump.to_string_lossy(),
        "--json",
    ]))
    .expect("JSON");
    assert!(report.to_string().contains(&Value::from(name).to_string()));
    let plan = dir.join("plan.json");
    skope_stdout(&[
        "export",
        &dump.to_string_lossy(),
        "--format",
        "plan",
        "-o",
        &plan.to_string_lossy(),
    ]);
    let plan = skope::planfile::PlanFile::read(&plan).expect("a plan");
    assert!(plan.scopes.iter().any(|s| s.ops.iter().any(|o| o == name)));
    let trace = dir.join("trace.json");
    skope_stdout(&[
        "export",
        &dump.to_string_lossy(),
        "--format",
        "trace",
        "-o",
        &trace.to_string_lossy(),
        "--profiles",
        &repo("assets/examples/prof_result").to_string_lossy(),
    ]);
    let raw_trace = std::fs::read_to_string(&trace).expect("read");
    assert!(!raw_trace.contains('\u{1b}') && !raw_trace.contains('\u{202e}'));
    // The checker fails a graph that breaks the schema.
    let mut broken = graph.clone();
    broken["graphs"][0]["nodes"][0]["incomingEdges"] = serde_json::json!([{"sourceNodeId": "nowhere", "sourceNodeOutputId": "0", "targetNodeInputId": 0}]);
    let problems = skope::model_explorer::check(&broken);
    assert_eq!(problems.len(), 2, "{problems:?}");
    // A directory is needed.
    let no_dir = skope(&[
        "export",
        &dump.to_string_lossy(),
        "--format",
        "model-explorer",
    ]);
    assert!(!no_dir.status.success());
}
