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
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The graph's id in the collection (node data files are keyed by it).
pub const GRAPH_ID: &str = "plan";

/// `name` as one level of a namespace: a slash escaped.
fn level(name: &str) -> String {
    crate::text::sanitize(name).replace('/', "\\/")
}

/// Each op's time without and with SuperKernel, µs (a segment's ops share its SuperKernel's).
pub type OpTimes = HashMap<String, (Option<f64>, Option<f64>)>;

/// A graph collection: what Model Explorer's JSON adapter reads. Typed, so a 100k-op graph is
/// written without building a JSON tree first.
#[derive(Debug, Serialize)]
pub struct Collection {
    label: String,
    graphs: [MeGraph; 1],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MeGraph {
    id: &'static str,
    nodes: Vec<Node>,
    #[serde(serialize_with = "group_attrs")]
    group_node_attributes: BTreeMap<String, Vec<(&'static str, String)>>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Node {
    id: String,
    label: String,
    #[serde(serialize_with = "shared_str")]
    namespace: Arc<str>,
    attrs: Vec<Attr>,
    incoming_edges: Vec<Edge>,
    #[serde(skip_serializing_if = "Option::is_none")]
    style: Option<Style>,
}

#[derive(Debug, Serialize)]
struct Attr {
    key: &'static str,
    value: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Edge {
    #[serde(serialize_with = "shared_str")]
    source_node_id: Arc<str>,
    source_node_output_id: String,
    target_node_input_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<EdgeKind>,
}

#[derive(Debug, Serialize)]
struct EdgeKind {
    kind: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Style {
    border_color: &'static str,
    border_width: u32,
}

/// A string shared by many nodes or edges, written as a string.
fn shared_str<S: serde::Serializer>(text: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(text)
}

/// The group attributes: each group's key → value pairs, written as an object.
fn group_attrs<S: serde::Serializer>(
    groups: &BTreeMap<String, Vec<(&'static str, String)>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    struct Pairs<'a>(&'a [(&'static str, String)]);
    impl Serialize for Pairs<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(self.0.len()))?;
            for (k, v) in self.0 {
                m.serialize_entry(k, v)?;
            }
            m.end()
        }
    }
    let mut m = s.serialize_map(Some(groups.len()))?;
    for (k, v) in groups {
        m.serialize_entry(k, &Pairs(v))?;
    }
    m.end()
}

/// The graph collection of `ws`'s plan.
pub fn graph(ws: &Workspace) -> Collection {
    let (cx, plan, marks) = (ws.context(), ws.plan(), ws.marks());
    let graph = cx.graph();
    let top: Arc<str> = Arc::from("");
    let mut namespace: Vec<Arc<str>> = vec![top; graph.len()];
    let mut segment_of: HashMap<OpId, (&str, &str)> = HashMap::new();
    let mut breaks: HashMap<OpId, String> = HashMap::new();
    let mut groups: BTreeMap<String, Vec<(&'static str, String)>> = BTreeMap::new();
    let summary = format!(
        "{} scope(s) → {} segment(s), {} break(s)",
        plan.scopes.len(),
        plan.segment_count(),
        plan.break_count()
    );
    groups.insert(
        String::new(),
        vec![
            (
                "file",
                crate::text::sanitize(&ws.source().file).into_owned(),
            ),
            ("plan", summary),
        ],
    );
    for s in &plan.scopes {
        let scope: Arc<str> = Arc::from(level(&s.name));
        groups.insert(
            scope.to_string(),
            vec![
                ("status", s.status.name().to_string()),
                ("segments", s.segments.len().to_string()),
                ("breaks", s.breaks.len().to_string()),
            ],
        );
        for m in &s.members {
            namespace[m.index()] = Arc::clone(&scope);
        }
        for seg in &s.segments {
            let ns: Arc<str> = Arc::from(format!("{scope}/{}", level(&seg.name)));
            groups.insert(
                ns.to_string(),
                vec![
                    (
                        "SuperKernel",
                        crate::text::sanitize(&seg.fused_node).into_owned(),
                    ),
                    ("ops", seg.ops.len().to_string()),
                    ("stream", seg.stream.to_string()),
                ],
            );
            for op in &seg.ops {
                namespace[op.index()] = Arc::clone(&ns);
                segment_of.insert(*op, (&s.name, &seg.name));
            }
        }
        for b in s.breaks.iter().filter(|b| b.cuts) {
            namespace[b.op.index()] = Arc::clone(&scope);
            breaks.insert(b.op, crate::fusion::plan::describe_reason(marks, b.reason));
        }
    }
    let ids: Vec<Arc<str>> = graph
        .ops()
        .iter()
        .map(|op| Arc::from(id(&op.name)))
        .collect();
    // Edges on their targets, with the graph's output and input indices; ordering edges
    // apart, numbered on their target.
    let mut incoming: Vec<Vec<Edge>> = (0..graph.len()).map(|_| Vec::new()).collect();
    let mut controls = vec![0usize; graph.len()];
    for (i, source) in ids.iter().enumerate() {
        for (to, kind) in graph.successors(OpId(i as u32)) {
            let edge = match kind {
                crate::graph::EdgeKind::Data { out, input } => Edge {
                    source_node_id: Arc::clone(source),
                    source_node_output_id: out.to_string(),
                    target_node_input_id: input.to_string(),
                    metadata: None,
                },
                _ => {
                    let n = controls[to.index()];
                    controls[to.index()] += 1;
                    Edge {
                        source_node_id: Arc::clone(source),
                        source_node_output_id: "control".to_string(),
                        target_node_input_id: format!("control{n}"),
                        metadata: Some(EdgeKind { kind: "control" }),
                    }
                }
            };
            incoming[to.index()].push(edge);
        }
    }
    let verdicts = cx.verdicts();
    let nodes: Vec<Node> = graph
        .ops()
        .iter()
        .zip(incoming)
        .enumerate()
        .map(|(i, (op, incoming_edges))| {
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
            let cut = breaks.get(&oid);
            if let Some(reason) = cut {
                attrs.push(attr("breaks its scope", reason));
            } else if !v.detail.is_empty() {
                attrs.push(attr("reason", &v.detail));
            }
            Node {
                id: ids[i].to_string(),
                label: crate::text::sanitize(&op.name).into_owned(),
                namespace: Arc::clone(&namespace[i]),
                attrs,
                incoming_edges,
                style: cut.map(|_| Style {
                    border_color: "#d73027",
                    border_width: 3,
                }),
            }
        })
        .collect();
    Collection {
        label: format!("skope: {}", crate::text::sanitize(&ws.source().file)),
        graphs: [MeGraph {
            id: GRAPH_ID,
            nodes,
            group_node_attributes: groups,
        }],
    }
}

/// A node id: the op's name as the graph has it — the one rule for ids in every output: the
/// name itself, written through the JSON escape ([`crate::text::json_safe`]), so that it is
/// the same string as in the report's JSON, plan files and traces, and matches across
/// exports (fused and unfused views line up).
fn id(name: &str) -> String {
    name.to_string()
}

fn attr(key: &'static str, value: &str) -> Attr {
    // Model Explorer strips double quotes from values: keep them as typographic ones.
    Attr {
        key,
        value: crate::text::sanitize(value).replace('"', "”"),
    }
}

/// One node's entry in a node-data file.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    value: EntryValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    bg_color: Option<&'static str>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum EntryValue {
    Text(String),
    Number(f64),
}

/// A gradient stop.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Stop {
    stop: f64,
    bg_color: &'static str,
}

/// One node-data file: for [`GRAPH_ID`], its name, each node's entry, and a gradient.
#[derive(Debug)]
pub struct NodeData {
    name: &'static str,
    results: Vec<(String, Entry)>,
    gradient: Option<&'static [Stop]>,
}

impl Serialize for NodeData {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Results<'a>(&'a [(String, Entry)]);
        impl Serialize for Results<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        struct Inner<'a>(&'a NodeData);
        impl Serialize for Inner<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let d = self.0;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("name", d.name)?;
                m.serialize_entry("results", &Results(&d.results))?;
                if let Some(g) = d.gradient {
                    m.serialize_entry("gradient", g)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(GRAPH_ID, &Inner(self))?;
        m.end()
    }
}

const GRADIENT: [Stop; 2] = [
    Stop {
        stop: 0.0,
        bg_color: "#ffffff",
    },
    Stop {
        stop: 1.0,
        bg_color: "#d73027",
    },
];

const DIVERGING: [Stop; 3] = [
    Stop {
        stop: 0.0,
        bg_color: "#1a9850",
    },
    Stop {
        stop: 0.5,
        bg_color: "#ffffff",
    },
    Stop {
        stop: 1.0,
        bg_color: "#d73027",
    },
];

/// The node-data files of `ws` (and of `times` when profiles were compared): (file stem, its
/// data), each keyed by [`GRAPH_ID`].
pub fn node_data(ws: &Workspace, times: Option<&OpTimes>) -> Vec<(String, NodeData)> {
    let (cx, plan) = (ws.context(), ws.plan());
    let graph = cx.graph();
    let verdicts = cx.verdicts();
    let mut out = Vec::new();
    let colours = |v: &str| match v {
        "fusible" => "#1a9850",
        "ignored" => "#bdbdbd",
        _ => "#d73027",
    };
    let verdict = graph
        .ops()
        .iter()
        .enumerate()
        .map(|(i, op)| {
            let v = verdicts.get(OpId(i as u32)).verdict.name();
            let entry = Entry {
                value: EntryValue::Text(v.to_string()),
                bg_color: Some(colours(v)),
            };
            (id(&op.name), entry)
        })
        .collect();
    out.push((
        "verdict".to_string(),
        NodeData {
            name: "verdict",
            results: verdict,
            gradient: None,
        },
    ));
    let mut segment = Vec::new();
    for (k, seg) in plan.scopes.iter().flat_map(|s| &s.segments).enumerate() {
        let name = crate::text::sanitize(&seg.name).into_owned();
        for op in &seg.ops {
            let entry = Entry {
                value: EntryValue::Text(name.clone()),
                bg_color: Some(BANDS[k % BANDS.len()]),
            };
            segment.push((id(&graph.op(*op).name), entry));
        }
    }
    out.push((
        "segment".to_string(),
        NodeData {
            name: "segment",
            results: segment,
            gradient: None,
        },
    ));
    if let Some(times) = times {
        for (stem, name, pick, gradient) in [
            (
                "base_time",
                "time without SuperKernel (µs)",
                0,
                &GRADIENT[..],
            ),
            ("new_time", "time with SuperKernel (µs)", 1, &GRADIENT[..]),
            ("delta", "Δ with − without (µs)", 2, &DIVERGING[..]),
        ] {
            let mut results = Vec::new();
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
                    let entry = Entry {
                        value: EntryValue::Number((v * 1000.0).round() / 1000.0),
                        bg_color: None,
                    };
                    results.push((id(&op.name), entry));
                }
            }
            out.push((
                stem.to_string(),
                NodeData {
                    name,
                    results,
                    gradient: Some(gradient),
                },
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
