//! Plans against hand-checked expectations: small graphs written in every dump format, and the
//! bundled example.

use skope::fusion::marks::Marks;
use skope::fusion::plan::{Context, Plan, ScopeStatus, plan};
use skope::fusion::rules::RuleSet;
use skope::graph::Graph;
use skope::load::{self, Dump};
use skope::report::Report;
use std::path::Path;

/// A small test op: name, type, scope, options, supportSuperKernel (compiled formats only).
pub(crate) struct T {
    pub(crate) name: &'static str,
    pub(crate) ty: &'static str,
    pub(crate) scope: Option<&'static str>,
    pub(crate) options: &'static str,
    pub(crate) support: i64,
}

pub(crate) const fn t(name: &'static str, ty: &'static str, scope: Option<&'static str>) -> T {
    T {
        name,
        ty,
        scope,
        options: "",
        support: 1,
    }
}

/// Attributes of `op` as (key, "s"/"i", value text).
fn attrs(op: &T, compiled: bool) -> Vec<(&'static str, &'static str, String)> {
    let mut out = Vec::new();
    if let Some(scope) = op.scope {
        out.push(("_super_kernel_scope", "s", scope.to_string()));
        out.push(("_super_kernel_options", "s", op.options.to_string()));
    }
    if compiled && op.ty != "Data" {
        out.push(("supportSuperKernel", "i", op.support.to_string()));
    }
    out
}

pub(crate) fn ge_proto(ops: &[T]) -> String {
    let mut s = String::from("graph {\n  name: \"g\"\n");
    for (i, op) in ops.iter().enumerate() {
        s += &format!(
            "  op {{\n    name: \"{}\"\n    type: \"{}\"\n",
            op.name, op.ty
        );
        for (k, kind, v) in attrs(op, true) {
            let v = if kind == "s" { format!("\"{v}\"") } else { v };
            s += &format!("    attr {{ key: \"{k}\" value {{ {kind}: {v} }} }}\n");
        }
        if i > 0 {
            s += &format!("    id: {i}\n");
        }
        s += "  }\n";
    }
    s + "}\n"
}

fn graphdef_txt(ops: &[T]) -> String {
    let mut s = String::from("name: \"g\"\n");
    for op in ops {
        s += &format!("op {{\n  name: \"{}\"\n  type: \"{}\"\n", op.name, op.ty);
        for (k, kind, v) in attrs(op, false) {
            let v = if kind == "s" { format!("\"{v}\"") } else { v };
            s += &format!("  attr {{ key: \"{k}\" value {{ {kind}: {v} }} }}\n");
        }
        s += "}\n";
    }
    s
}

fn torchair_pbtxt(ops: &[T]) -> String {
    let mut s = String::new();
    for op in ops {
        s += &format!(
            "node {{\n    name: \"{}\"\n    op: \"{}\"\n",
            op.name, op.ty
        );
        for (k, kind, v) in attrs(op, false) {
            let v = if kind == "s" { format!("\"{v}\"") } else { v };
            s += &format!(
                "    attr {{\n        key: \"{k}\"\n        value {{\n            s: '{kind}: {v}\\n'\n        }}\n    }}\n"
            );
        }
        s += "}\n";
    }
    s
}

fn ge_onnx(ops: &[T]) -> String {
    let mut s = String::from("ir_version: 3\nproducer_name: \"GE\"\ngraph {\n");
    for (i, op) in ops.iter().enumerate() {
        s += &format!(
            "  node {{\n    name: \"{}\"\n    op_type: \"ge:{}\"\n",
            op.name, op.ty
        );
        for (k, kind, v) in attrs(op, true) {
            s += &match kind {
                "s" => format!("    attribute {{ name: \"{k}\" s: \"{v}\" type: STRING }}\n"),
                _ => format!("    attribute {{ name: \"{k}\" i: {v} type: INT }}\n"),
            };
        }
        s += &format!("    attribute {{ name: \"id\" i: {i} type: INT }}\n  }}\n");
    }
    s + "  name: \"g\"\n}\n"
}

fn ge_json(ops: &[T]) -> String {
    let ops: Vec<serde_json::Value> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let attr: Vec<serde_json::Value> = attrs(op, true)
                .into_iter()
                .map(|(k, kind, v)| {
                    let value = match kind {
                        "s" => serde_json::json!({ "s": v }),
                        _ => serde_json::json!({ "i": v.parse::<i64>().unwrap() }),
                    };
                    serde_json::json!({ "key": k, "value": value })
                })
                .collect();
            serde_json::json!({ "name": op.name, "type": op.ty, "attr": attr, "id": i })
        })
        .collect();
    serde_json::json!({ "graph": [{ "name": "g", "op": ops }] }).to_string()
}

/// The graph in every format, with the format name.
fn every_format(ops: &[T]) -> Vec<(&'static str, Dump)> {
    let texts = [
        ("ge_proto", ge_proto(ops)),
        ("ge_onnx", ge_onnx(ops)),
        ("atc json", ge_json(ops)),
        ("torchair txt", graphdef_txt(ops)),
        ("torchair pbtxt", torchair_pbtxt(ops)),
    ];
    texts
        .into_iter()
        .map(|(name, text)| {
            let dump = load::load_bytes(Path::new(name), text.as_bytes())
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            (name, dump)
        })
        .collect()
}

fn plan_graph(graph: &Graph, rules: &RuleSet) -> Plan {
    plan(
        &Context::new(graph.clone(), rules),
        &Marks::from_graph(graph),
    )
}

/// (segment name, op names) of each segment of a scope.
type Segments = Vec<(String, Vec<String>)>;

/// (scope name, status, segments) per scope.
fn shape(graph: &Graph, plan: &Plan) -> Vec<(String, &'static str, Segments)> {
    plan.scopes
        .iter()
        .map(|s| {
            let segs = s
                .segments
                .iter()
                .map(|seg| {
                    let ops = seg
                        .ops
                        .iter()
                        .map(|&id| graph.op(id).name.clone())
                        .collect();
                    (seg.name.clone(), ops)
                })
                .collect();
            (s.name.clone(), s.status.name(), segs)
        })
        .collect()
}

fn seg(name: &str, ops: &[&str]) -> (String, Vec<String>) {
    (name.into(), ops.iter().map(|s| s.to_string()).collect())
}

const S: Option<&str> = Some("s");
const U: Option<&str> = Some("t");

#[test]
fn foreign_and_blacklisted_ops_split_the_same_way_in_every_format() {
    let ops = [
        t("x", "Data", None),
        t("a", "MatMulV2", S),
        t("gap", "Add", None),
        t("b", "MatMulV2", S),
        t("t1", "MatMulV2", U),
        T {
            support: 0,
            ..t("routing", "MoeInitRoutingV2", U)
        },
        t("t2", "MatMulV2", U),
    ];
    for (format, dump) in every_format(&ops) {
        let g = dump.main();
        let p = plan_graph(g, &RuleSet::bundled());
        assert_eq!(
            shape(g, &p),
            vec![
                (
                    "s".into(),
                    "split",
                    vec![seg("s_split_0_2", &["a"]), seg("s_split_2_4", &["b"])]
                ),
                (
                    "t".into(),
                    "split",
                    vec![seg("t_split_3_5", &["t1"]), seg("t_split_5_7", &["t2"])]
                ),
            ],
            "{format}"
        );
        let codes: Vec<_> = p
            .scopes
            .iter()
            .map(|s| s.breaks.iter().map(|b| b.reason.code()).collect::<Vec<_>>())
            .collect();
        assert_eq!(
            codes,
            vec![vec!["unscoped"], vec!["blacklisted"]],
            "{format}"
        );
    }
}

#[test]
fn strict_scope_check_in_every_format() {
    let abort = "strict-scope-check=abort";
    let bypass = "strict-scope-check=bypass";
    let ops = [
        T {
            options: abort,
            ..t("a", "MatMulV2", S)
        },
        t("gap", "Add", None),
        T {
            options: abort,
            ..t("b", "MatMulV2", S)
        },
        T {
            options: bypass,
            ..t("t1", "MatMulV2", U)
        },
        T {
            options: bypass,
            support: 0,
            ..t("routing", "MoeInitRoutingV3", U)
        },
        T {
            options: bypass,
            ..t("t2", "MatMulV2", U)
        },
    ];
    for (format, dump) in every_format(&ops) {
        let g = dump.main();
        let p = plan_graph(g, &RuleSet::bundled());
        let status: Vec<_> = p.scopes.iter().map(|s| s.status).collect();
        assert_eq!(
            status,
            [ScopeStatus::Aborted, ScopeStatus::Dropped],
            "{format}"
        );
        assert_eq!(p.segment_count(), 0, "{format}");
        assert!(
            p.scopes[0].findings[0].message.contains("fails at gap"),
            "{format}"
        );
    }
}

use crate::common::example_dump as example;

fn site_rules() -> RuleSet {
    let mut rules = RuleSet::bundled();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/site_rules.json");
    rules.add_file(&path).unwrap();
    rules
}

/// The bundled example as GE compiled it, checked by hand against `generate.py`: topo ids are
/// the op positions there (layer 0's MoE block runs from post_rmsnorm = 18 to moe_add = 33).
#[test]
fn bundled_example_plan_is_the_hand_checked_one() {
    let dump = example("moe_decode.ge_proto.txt");
    let g = dump.main();
    let p = plan_graph(g, &RuleSet::bundled());
    let got = shape(g, &p);
    let names: Vec<(&str, &str, Vec<&str>)> = got
        .iter()
        .map(|(s, status, segs)| {
            (
                s.as_str(),
                *status,
                segs.iter().map(|(n, _)| n.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        names,
        vec![
            ("attn_0", "fused", vec!["attn_0"]),
            (
                "moe_0",
                "split",
                vec!["moe_0_split_17_22", "moe_0_split_22_34"]
            ),
            ("attn_1", "fused", vec!["attn_1"]),
            (
                "moe_1",
                "split",
                vec![
                    "moe_1_split_49_54",
                    "moe_1_split_54_56",
                    "moe_1_split_56_68"
                ]
            ),
            (
                "attn_2",
                "split",
                vec!["attn_2_split_70_74", "attn_2_split_74_80"]
            ),
            ("moe_2", "fused", vec!["moe_2"]),
            (
                "attn_3",
                "split",
                vec!["attn_3_split_103_107", "attn_3_split_107_112"]
            ),
            ("moe_3", "fused", vec!["moe_3"]),
        ]
    );
    // moe_0: the blacklisted MoeInitRoutingV2 (22) cuts; the shared expert on stream 1 lands
    // in the second segment with the routed experts.
    assert_eq!(
        got[1].2[1].1,
        [
            "layer0_gmm_up",
            "layer0_swiglu_quant",
            "layer0_gmm_down",
            "layer0_finalize_routing",
            "layer0_shared_up",
            "layer0_shared_swiglu",
            "layer0_shared_down",
            "layer0_moe_add"
        ]
    );
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    let breaks: Vec<(String, &str, &str)> = p
        .scopes
        .iter()
        .flat_map(|s| {
            s.breaks.iter().map(|b| {
                let evidence = cx.verdicts().get(b.op).evidence.name();
                (g.op(b.op).name.clone(), b.reason.code(), evidence)
            })
        })
        .collect();
    assert_eq!(
        breaks,
        vec![
            ("layer0_init_routing".into(), "blacklisted", "dump"),
            ("layer1_expert_ids_cast".into(), "not_ascendc", "dump"),
            (
                "layer1_expert_broadcast".into(),
                "comm_not_supported",
                "dump"
            ),
            ("layer2_mask_fill".into(), "unscoped", "dump"),
            ("layer3_kv_scatter".into(), "simt", "dump"),
        ]
    );
    // Kernel type of the first moe_0 segment: RmsNorm AIV×40, MatMulV2 AIC×8, MoeGatingTopK
    // AIV×8 → cube and vector mixed, AIV 40 > AIC 8 → MIX_AIC_1_2 at max(8, ceil(40/2)) = 20.
    let k = p.scopes[1].segments[0].kernel.known().unwrap();
    assert_eq!((k.kernel_type.name(), k.block_dim), ("MIX_AIC_1_2", 20));
    // The one-op segment and the differing options of moe_3 are the two warnings.
    let warnings: Vec<&str> = p.all_findings().map(|f| f.message.as_str()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("moe_1_split_54_56 has a single op"));
    assert!(warnings[1].contains("e.g. \"stream-fusion=1:early-start=0\""));
}

/// JSON reports without the file and format lines.
fn report_json(dump: &Dump, rules: &RuleSet) -> serde_json::Value {
    let g = dump.main();
    let cx = Context::new(g.clone(), rules);
    let marks = Marks::from_graph(g);
    let p = plan(&cx, &marks);
    let what_if = skope::fix::WhatIf::new(&cx, &marks, &p, None);
    let mut v = serde_json::to_value(Report::new(
        &what_if,
        "-",
        "-",
        rules.files(),
        skope::report::Detail::Full,
    ))
    .unwrap();
    v.as_object_mut().unwrap().remove("ops");
    v
}

#[test]
fn compiled_formats_give_identical_reports() {
    let rules = RuleSet::bundled();
    let base = report_json(&example("moe_decode.ge_proto.txt"), &rules);
    for other in ["moe_decode.ge_onnx.pbtxt", "moe_decode.json"] {
        assert_eq!(report_json(&example(other), &rules), base, "{other}");
    }
}

#[test]
fn torchair_dumps_with_site_rules_fuse_the_same_ops_as_ge() {
    let rules = site_rules();
    let ge = example("moe_decode.ge_proto.txt");
    let ge_plan = plan_graph(ge.main(), &RuleSet::bundled());
    let op_lists = |g: &Graph, p: &Plan| -> Vec<Vec<String>> {
        shape(g, p)
            .into_iter()
            .flat_map(|(_, _, segs)| segs.into_iter().map(|(_, ops)| ops))
            .collect()
    };
    let expected = op_lists(ge.main(), &ge_plan);
    let txt = report_json(&example("moe_decode.txt"), &rules);
    assert_eq!(txt, report_json(&example("moe_decode.pbtxt"), &rules));
    let dump = example("moe_decode.txt");
    let p = plan_graph(dump.main(), &rules);
    assert_eq!(op_lists(dump.main(), &p), expected);
    // Without the site rules the TBE Cast is assumed fusible, and the report says so.
    let p = plan_graph(dump.main(), &RuleSet::bundled());
    assert_eq!(p.scopes[3].segments.len(), 2);
    assert!(
        p.findings
            .iter()
            .any(|f| f.message.contains("are assumed fusible"))
    );
}

fn verify_against_after_sk(dump: &Dump, rules: &RuleSet) -> skope::fusion::verify::Verification {
    let after = example("moe_decode.after_sk.ge_proto.txt");
    let g = dump.main();
    let cx = Context::new(g.clone(), rules);
    let p = plan(&cx, &Marks::from_graph(g));
    let graphs: Vec<&Graph> = after.graphs.iter().collect();
    skope::fusion::verify::verify(&cx, &p, &graphs)
}

#[test]
fn verify_matches_ge_after_sk_graph_for_the_compiled_dump() {
    let v = verify_against_after_sk(&example("moe_decode.ge_proto.txt"), &RuleSet::bundled());
    assert_eq!((v.actual.len(), v.matched), (13, 13));
    assert!(v.mismatches.is_empty(), "{:?}", v.mismatches);
    // The AfterSkGraph holds no sub-graphs: sub-ops were recovered from the node names.
    assert!(v.actual.iter().all(|a| !a.from_sub_graphs));
    let moe0 = v
        .actual
        .iter()
        .find(|a| a.fused_node.starts_with("sk_moe_0_split_22_34"))
        .unwrap();
    assert_eq!(moe0.ops.len(), 8);
}

#[test]
fn verify_lists_every_difference() {
    use skope::fusion::verify::Mismatch;
    let txt = example("moe_decode.txt");
    // With the site rules only the names differ (positions instead of GE topo ids).
    let v = verify_against_after_sk(&txt, &site_rules());
    assert!(
        v.mismatches
            .iter()
            .all(|m| matches!(m, Mismatch::Renamed { .. })),
        "{:?}",
        v.mismatches
    );
    assert_eq!(v.matched + v.mismatches.len(), 13);
    // Without them the TBE Cast is assumed fusible: moe_1 is predicted wrongly.
    let v = verify_against_after_sk(&txt, &RuleSet::bundled());
    let not_fused: Vec<&Vec<String>> = v
        .mismatches
        .iter()
        .filter_map(|m| match m {
            Mismatch::NotFused { ops, .. } => Some(ops),
            _ => None,
        })
        .collect();
    assert_eq!(not_fused.len(), 1);
    assert!(not_fused[0].contains(&"layer1_expert_ids_cast".to_string()));
    let unexpected = v
        .mismatches
        .iter()
        .filter(|m| matches!(m, Mismatch::Unexpected { .. }))
        .count();
    assert_eq!(unexpected, 2);
}

#[test]
fn verify_reads_sub_ops_from_sub_graph_dumps() {
    let pre = "graph {\n name: \"g\"\n\
        op { name: \"a\" type: \"MatMulV2\" attr { key: \"_super_kernel_scope\" value { s: \"s\" } } attr { key: \"supportSuperKernel\" value { i: 1 } } id: 1 }\n\
        op { name: \"b\" type: \"Add\" attr { key: \"_super_kernel_scope\" value { s: \"s\" } } attr { key: \"supportSuperKernel\" value { i: 1 } } id: 2 }\n}\n";
    let after = "graph {\n name: \"g\"\n op { name: \"sk_s_start_a_end_b\" type: \"SuperKernel\" id: 1 }\n}\n\
        graph {\n name: \"super_kernel_sub_graph0\"\n\
        op { name: \"a\" type: \"MatMulV2\" attr { key: \"sk_parent_node_name\" value { s: \"sk_s_start_a_end_b\" } } id: 1 }\n\
        op { name: \"b\" type: \"Add\" attr { key: \"sk_parent_node_name\" value { s: \"sk_s_start_a_end_b\" } } id: 2 }\n}\n";
    let pre = load::load_bytes(Path::new("pre.txt"), pre.as_bytes()).unwrap();
    let after = load::load_bytes(Path::new("after.txt"), after.as_bytes()).unwrap();
    let g = pre.main();
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    let p = plan(&cx, &Marks::from_graph(g));
    let graphs: Vec<&Graph> = after.graphs.iter().collect();
    let v = skope::fusion::verify::verify(&cx, &p, &graphs);
    assert_eq!(v.matched, 1, "{v:?}");
    assert!(v.actual[0].from_sub_graphs);
    assert_eq!(v.actual[0].ops, ["a", "b"]);
}

#[test]
fn ai_cpu_ops_split_a_scope_in_every_format() {
    // NonZero (TIK or AI CPU) and Where (AI CPU) inside one scope: GE cuts at both. Dumps
    // taken before compiling have no supportSuperKernel, so the bundled rules must say it.
    let ops = [
        t("a", "MatMulV2", S),
        T {
            support: 0,
            ..t("nz", "NonZero", S)
        },
        t("b", "MatMulV2", S),
        T {
            support: 0,
            ..t("w", "Where", S)
        },
        t("c", "MatMulV2", S),
        T {
            support: 0,
            ..t("u", "UniqueWithCounts", S)
        },
        t("d", "MatMulV2", S),
    ];
    for (format, dump) in every_format(&ops) {
        let g = dump.main();
        let p = plan_graph(g, &RuleSet::bundled());
        let segments: Vec<Vec<String>> = p.scopes[0]
            .segments
            .iter()
            .map(|s| s.ops.iter().map(|&id| g.op(id).name.clone()).collect())
            .collect();
        assert_eq!(
            segments,
            [["a"], ["b"], ["c"], ["d"]].map(|s| s.map(String::from).to_vec()),
            "{format}"
        );
        let cx = Context::new(g.clone(), &RuleSet::bundled());
        let breaks: Vec<(&str, &str)> = p.scopes[0]
            .breaks
            .iter()
            .map(|b| (b.reason.code(), cx.verdicts().get(b.op).evidence.name()))
            .collect();
        let evidence = if format.starts_with("torchair") {
            "rules"
        } else {
            "dump"
        };
        assert_eq!(
            breaks,
            [
                ("not_ascendc", evidence),
                ("ai_cpu", evidence),
                ("ai_cpu", evidence)
            ],
            "{format}"
        );
    }
}

#[test]
fn the_full_report_written_scope_by_scope_reads_as_the_built_one() {
    let rules = RuleSet::bundled();
    let dump = example("moe_decode.ge_proto.txt");
    let g = dump.main();
    let cx = Context::new(g.clone(), &rules);
    let marks = Marks::from_graph(g);
    let p = plan(&cx, &marks);
    let what_if = skope::fix::WhatIf::new(&cx, &marks, &p, None);
    let build = |detail| Report::new(&what_if, "f", "ge_proto_text", &[], detail);
    for keep in [None, Some("moe_1")] {
        let mut full = build(skope::report::Detail::Full);
        let mut summary = build(skope::report::Detail::Summary);
        if let Some(name) = keep {
            full.keep_scope(name).unwrap();
            summary.keep_scope(name).unwrap();
        }
        let mut streamed = String::new();
        summary.write_full_text(&mut streamed, &what_if).unwrap();
        assert!(streamed.contains("┃ segment"), "{streamed}");
        assert_eq!(streamed, full.to_text(), "kept {keep:?}");
        let as_written = serde_json::to_string(&summary.full_json(&what_if)).unwrap();
        assert!(as_written.contains("\"breaks\":[{"), "{as_written}");
        assert_eq!(
            as_written,
            serde_json::to_string(&full).unwrap(),
            "kept {keep:?}"
        );
    }
}
