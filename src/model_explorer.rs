//! The plan as Google Model Explorer reads it: a graph collection whose namespaces are scope →
//! segment (collapsible layers; a break sits at its scope's level, outlined), each op with its
//! type, stream, core type, verdict, reason and evidence as attributes, edges on their targets
//! with output and input ids; and node-data files, one per value (verdict, segment, and with
//! profiles each op's time without and with SuperKernel and the change), that Model Explorer's
//! overlay colours by. [`check`] holds an export to the documented schema. Facts:
//! reference/bridges.md §1.

use crate::fusion::marks::OpMark;
use crate::graph::OpId;
use crate::workspace::Workspace;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// The graph's id in the collection (node data files are keyed by it).
pub const GRAPH_ID: &str = "plan";

/// `name` as one level of a namespace: a slash escaped.
fn level(name: &str) -> String {
    crate::text::sanitize(name).replace('/', "\\/")
}

/// Each op's time without and with SuperKernel, µs (a segment's ops share its SuperKernel's).
pub type OpTimes = HashMap<String, (Option<f64>, Option<f64>)>;

/// The graph collection of `ws`'s plan.
pub fn graph(ws: &Workspace) -> Value {
    let (cx, plan, marks) = (ws.context(), ws.plan(), ws.marks());
    let graph = cx.graph();
    let mut namespace: Vec<String> = vec![String::new(); graph.len()];
    let mut segment_of: HashMap<OpId, (String, String)> = HashMap::new();
    let mut breaks: HashMap<OpId, String> = HashMap::new();
    let mut groups = serde_json::Map::new();
    let summary = format!(
        "{} scope(s) → {} segment(s), {} break(s)",
        plan.scopes.len(),
        plan.segment_count(),
        plan.break_count()
    );
    groups.insert(
        String::new(),
        json!({"file": crate::text::sanitize(&ws.source().file), "plan": summary}),
    );
    for s in &plan.scopes {
        let scope = level(&s.name);
        groups.insert(
            scope.clone(),
            json!({
                "status": s.status.name(),
                "segments": s.segments.len().to_string(),
                "breaks": s.breaks.len().to_string(),
            }),
        );
        for m in &s.members {
            namespace[m.index()] = scope.clone();
        }
        for seg in &s.segments {
            let ns = format!("{scope}/{}", level(&seg.name));
            groups.insert(
                ns.clone(),
                json!({
                    "SuperKernel": crate::text::sanitize(&seg.fused_node),
                    "ops": seg.ops.len().to_string(),
                    "stream": seg.stream.to_string(),
                }),
            );
            for op in &seg.ops {
                namespace[op.index()] = ns.clone();
                segment_of.insert(*op, (s.name.clone(), seg.name.clone()));
            }
        }
        for b in s.breaks.iter().filter(|b| b.cuts) {
            namespace[b.op.index()] = scope.clone();
            breaks.insert(b.op, crate::fusion::plan::describe_reason(marks, b.reason));
        }
    }
    // Edges on their targets, with the graph's output and input indices; ordering edges
    // apart, numbered on their target.
    let mut incoming: Vec<Vec<Value>> = vec![Vec::new(); graph.len()];
    let mut controls = vec![0usize; graph.len()];
    for (i, op) in graph.ops().iter().enumerate() {
        let source = id(&op.name);
        for (to, kind) in graph.successors(OpId(i as u32)) {
            let edge = match kind {
                crate::graph::EdgeKind::Data { out, input } => json!({
                    "sourceNodeId": source,
                    "sourceNodeOutputId": out.to_string(),
                    "targetNodeInputId": input.to_string(),
                }),
                _ => {
                    let n = controls[to.index()];
                    controls[to.index()] += 1;
                    json!({
                        "sourceNodeId": source,
                        "sourceNodeOutputId": "control",
                        "targetNodeInputId": format!("control{n}"),
                        "metadata": {"kind": "control"},
                    })
                }
            };
            incoming[to.index()].push(edge);
        }
    }
    let verdicts = cx.verdicts();
    let nodes: Vec<Value> = graph
        .ops()
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let oid = OpId(i as u32);
            let v = verdicts.get(oid);
            let mut attrs = vec![
                attr("type", &op.op_type),
                attr("stream", &cx.stream_of(oid).to_string()),
                attr("verdict", v.verdict.name()),
                attr("evidence", v.evidence.name()),
            ];
            if let Some(core) = op.attrs.get_str("_cube_vector_core_type") {
                attrs.push(attr("core type", core));
            }
            if let Some((scope, segment)) = segment_of.get(&oid) {
                attrs.push(attr("scope", scope));
                attrs.push(attr("segment", segment));
            } else if let OpMark::Member { .. } = marks.get(oid) {
                attrs.push(attr("segment", "none: not fused"));
            }
            if let Some(reason) = breaks.get(&oid) {
                attrs.push(attr("breaks its scope", reason));
            } else if !v.detail.is_empty() {
                attrs.push(attr("reason", &v.detail));
            }
            let mut node = json!({
                "id": id(&op.name),
                "label": crate::text::sanitize(&op.name),
                "namespace": namespace[i],
                "attrs": attrs,
                "incomingEdges": incoming[i],
            });
            if breaks.contains_key(&oid) {
                node["style"] = json!({"borderColor": "#d73027", "borderWidth": 3});
            }
            node
        })
        .collect();
    json!({
        "label": format!("skope: {}", crate::text::sanitize(&ws.source().file)),
        "graphs": [{
            "id": GRAPH_ID,
            "nodes": nodes,
            "groupNodeAttributes": groups,
        }],
    })
}

/// A node id: the op's name, control characters made visible (ids are matched by name across
/// exports, so fused and unfused views line up).
fn id(name: &str) -> String {
    crate::text::sanitize(name).into_owned()
}

fn attr(key: &str, value: &str) -> Value {
    // Model Explorer strips double quotes from values: keep them as typographic ones.
    json!({"key": key, "value": crate::text::sanitize(value).replace('"', "”")})
}

/// The node-data files of `ws` (and of `times` when profiles were compared): (file stem, its
/// JSON), each keyed by [`GRAPH_ID`].
pub fn node_data(ws: &Workspace, times: Option<&OpTimes>) -> Vec<(String, Value)> {
    let (cx, plan) = (ws.context(), ws.plan());
    let graph = cx.graph();
    let verdicts = cx.verdicts();
    let mut out = Vec::new();
    let mut verdict = serde_json::Map::new();
    let colours = |v: &str| match v {
        "fusible" => "#1a9850",
        "ignored" => "#bdbdbd",
        _ => "#d73027",
    };
    for (i, op) in graph.ops().iter().enumerate() {
        let v = verdicts.get(OpId(i as u32)).verdict.name();
        verdict.insert(id(&op.name), json!({"value": v, "bgColor": colours(v)}));
    }
    out.push((
        "verdict".to_string(),
        json!({GRAPH_ID: {"name": "verdict", "results": verdict}}),
    ));
    let mut segment = serde_json::Map::new();
    for (k, seg) in plan.scopes.iter().flat_map(|s| &s.segments).enumerate() {
        for op in &seg.ops {
            segment.insert(
                id(&graph.op(*op).name),
                json!({"value": crate::text::sanitize(&seg.name), "bgColor": BANDS[k % BANDS.len()]}),
            );
        }
    }
    out.push((
        "segment".to_string(),
        json!({GRAPH_ID: {"name": "segment", "results": segment}}),
    ));
    if let Some(times) = times {
        let gradient =
            json!([{"stop": 0, "bgColor": "#ffffff"}, {"stop": 1, "bgColor": "#d73027"}]);
        let diverging = json!([
            {"stop": 0, "bgColor": "#1a9850"},
            {"stop": 0.5, "bgColor": "#ffffff"},
            {"stop": 1, "bgColor": "#d73027"}
        ]);
        for (stem, name, pick, colours) in [
            ("base_time", "time without SuperKernel (µs)", 0, &gradient),
            ("new_time", "time with SuperKernel (µs)", 1, &gradient),
            ("delta", "Δ with − without (µs)", 2, &diverging),
        ] {
            let mut results = serde_json::Map::new();
            for op in graph.ops() {
                let Some(&(base, new)) = times.get(&op.name) else {
                    continue;
                };
                let value = match pick {
                    0 => base,
                    1 => new,
                    _ => base.zip(new).map(|(b, n)| n - b),
                };
                if let Some(v) = value.filter(|v| v.is_finite()) {
                    results.insert(
                        id(&op.name),
                        json!({"value": (v * 1000.0).round() / 1000.0}),
                    );
                }
            }
            out.push((
                stem.to_string(),
                json!({GRAPH_ID: {"name": name, "results": results, "gradient": colours}}),
            ));
        }
    }
    out
}

/// Colours of the segments.
const BANDS: [&str; 6] = [
    "#4575b4", "#f46d43", "#66bd63", "#9e0142", "#fdae61", "#5e4fa2",
];

/// What in `collection` departs from Model Explorer's documented graph schema (empty when
/// nothing): the collection's `label` and `graphs`, each graph's `id` and `nodes`, each
/// node's required strings, attributes and edges (whose sources must be nodes).
pub fn check(collection: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let is_str = |v: &Value| v.is_string();
    if !collection.get("label").is_some_and(is_str) {
        problems.push("the collection has no string label".to_string());
    }
    let Some(graphs) = collection.get("graphs").and_then(Value::as_array) else {
        problems.push("the collection has no graphs array".to_string());
        return problems;
    };
    for g in graphs {
        let gid = g.get("id").and_then(Value::as_str).unwrap_or_default();
        if gid.is_empty() {
            problems.push("a graph without an id".to_string());
        }
        let Some(nodes) = g.get("nodes").and_then(Value::as_array) else {
            problems.push(format!("graph {gid}: no nodes array"));
            continue;
        };
        let ids: HashSet<&str> = nodes
            .iter()
            .filter_map(|n| n.get("id").and_then(Value::as_str))
            .collect();
        if ids.len() != nodes.len() {
            problems.push(format!("graph {gid}: node ids missing or not unique"));
        }
        for n in nodes {
            let nid = n.get("id").and_then(Value::as_str).unwrap_or_default();
            if nid.is_empty() {
                problems.push(format!("graph {gid}: a node with an empty id"));
            }
            for key in ["label", "namespace"] {
                if !n.get(key).is_some_and(is_str) {
                    problems.push(format!("node {nid}: {key} is not a string"));
                }
            }
            for a in n
                .get("attrs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if !(a.get("key").is_some_and(is_str) && a.get("value").is_some_and(is_str)) {
                    problems.push(format!(
                        "node {nid}: an attribute without a string key and value"
                    ));
                }
            }
            for e in n
                .get("incomingEdges")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for key in ["sourceNodeId", "sourceNodeOutputId", "targetNodeInputId"] {
                    if !e.get(key).is_some_and(is_str) {
                        problems.push(format!("node {nid}: an edge whose {key} is not a string"));
                    }
                }
                let source = e
                    .get("sourceNodeId")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !ids.contains(source) {
                    problems.push(format!(
                        "node {nid}: an edge from {source}, which is no node"
                    ));
                }
            }
        }
    }
    problems
}

/// What in a node-data file departs from the documented shape: per graph, `results` of
/// `{value}` objects, and a gradient with stops 0 and 1.
pub fn check_node_data(data: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(graphs) = data.as_object() else {
        return vec!["node data is not an object keyed by graph id".to_string()];
    };
    for (gid, d) in graphs {
        let Some(results) = d.get("results").and_then(Value::as_object) else {
            problems.push(format!("{gid}: no results object"));
            continue;
        };
        for (k, r) in results {
            if !r
                .get("value")
                .is_some_and(|v| v.is_number() || v.is_string())
            {
                problems.push(format!("{gid}: result {k} has no number or string value"));
            }
        }
        if let Some(stops) = d.get("gradient").and_then(Value::as_array) {
            let at = |s: f64| {
                stops
                    .iter()
                    .any(|g| g.get("stop").and_then(Value::as_f64) == Some(s))
            };
            if !(at(0.0) && at(1.0)) {
                problems.push(format!("{gid}: a gradient without stops 0 and 1"));
            }
        }
    }
    problems
}
