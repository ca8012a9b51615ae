//! The summary `skope info` prints: format, graphs, op and edge counts, op types, streams,
//! scopes and the notes of reading it.

use crate::graph::{Graph, Input};
use crate::load::Dump;
use crate::load::Format;
use crate::text::sanitize;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One graph of the dump with its op count.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct GraphEntry {
    /// Graph name.
    pub name: String,
    /// Number of ops.
    pub ops: usize,
}

/// Summary of a dump's main graph (plus the list of all graphs).
#[derive(Debug, Serialize)]
pub struct Info {
    /// The file as given.
    pub file: String,
    /// Format id (`ge_proto_text`, `graphdef_text`, `torchair_pbtxt`, `ge_onnx_text`, `ge_json`).
    pub format: &'static str,
    /// Human description of the format.
    pub format_description: &'static str,
    /// Main graph name.
    pub graph: String,
    /// Names of all graphs, the main one first.
    pub graphs: Vec<String>,
    /// All graphs with their op counts.
    pub graph_ops: Vec<GraphEntry>,
    /// Ops in the main graph.
    pub ops: usize,
    /// Data edges.
    pub data_edges: usize,
    /// Control edges.
    pub control_edges: usize,
    /// Input slots with nothing connected.
    pub unconnected_inputs: usize,
    /// Whether the dump carries GE topo ids (else execution order is file order).
    pub has_topo_ids: bool,
    /// Op count per op type.
    pub op_types: BTreeMap<String, usize>,
    /// Op count per GE stream id; empty when the dump predates stream allocation.
    pub streams: BTreeMap<i64, usize>,
    /// Op count per user stream label (`npu_stream_switch`).
    pub stream_labels: BTreeMap<String, usize>,
    /// Member count per SuperKernel scope.
    pub scopes: BTreeMap<String, usize>,
    /// False when the dump cannot show scopes (its writer left out string attributes).
    pub scopes_readable: bool,
    /// Basic-op count per MindSpore composite (fused) kernel.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub composites: BTreeMap<String, usize>,
    /// The notes of reading every graph (what was read around or kept cut).
    pub notes: Vec<String>,
    /// The hardware the graph is built for, and how skope knows it.
    pub target: crate::target::TargetChoice,
}

impl Info {
    /// Summarises `dump`, read from `file`.
    pub fn of(dump: &Dump, file: &str) -> Info {
        Info::of_graphs(dump.main(), &dump.graphs, dump.format, file)
    }

    /// Summarises `main` among `graphs` (all of them, the main one first) of format `format`,
    /// read from `file`.
    pub fn of_graphs(main: &Graph, graphs: &[Graph], format: Format, file: &str) -> Info {
        let g = main;
        let (data_edges, control_edges) = g.edge_counts();
        let mut info = Info {
            file: file.to_string(),
            format: format.id(),
            format_description: format.describe(),
            graph: g.name().to_string(),
            graphs: graphs.iter().map(|g| g.name().to_string()).collect(),
            graph_ops: graphs
                .iter()
                .map(|g| GraphEntry {
                    name: g.name().to_string(),
                    ops: g.len(),
                })
                .collect(),
            ops: g.len(),
            data_edges,
            control_edges,
            unconnected_inputs: 0,
            has_topo_ids: g.has_topo_ids(),
            op_types: BTreeMap::new(),
            streams: BTreeMap::new(),
            stream_labels: BTreeMap::new(),
            scopes: BTreeMap::new(),
            scopes_readable: g.scopes_unreadable().is_none(),
            composites: BTreeMap::new(),
            notes: Vec::new(),
            target: Default::default(),
        };
        for op in g.ops() {
            *info.op_types.entry(op.op_type.clone()).or_default() += 1;
            if let Some(s) = op.stream {
                *info.streams.entry(s).or_default() += 1;
            }
            if let Some(label) = op.stream_label() {
                *info.stream_labels.entry(label.to_string()).or_default() += 1;
            }
            if let Some(scope) = op.scope() {
                *info.scopes.entry(scope.to_string()).or_default() += 1;
            }
            if let Some(kernel) = op.attrs.get_str(crate::load::ms_composite::ATTR_COMPOSITE) {
                *info.composites.entry(kernel.to_string()).or_default() += 1;
            }
            info.unconnected_inputs += op
                .inputs
                .iter()
                .filter(|i| matches!(i, Input::Unconnected))
                .count();
        }
        for (i, graph) in graphs.iter().enumerate() {
            for note in graph.notes() {
                info.notes.push(if i == 0 {
                    note.to_string()
                } else {
                    format!("graph '{}': {note}", graph.name())
                });
            }
        }
        info
    }

    /// The summary as text for a terminal; every string from the dump is sanitised.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let s = |t: &str| sanitize(t).into_owned();
        let _ = writeln!(out, "file      {}", s(&self.file));
        let _ = writeln!(
            out,
            "format    {} [{}]",
            self.format_description, self.format
        );
        let _ = writeln!(out, "graph     {} (main)", s(&self.graph));
        if self.graph_ops.len() > 1 {
            let others: Vec<String> = self.graph_ops[1..]
                .iter()
                .map(|g| format!("{} ({} ops)", s(&g.name), g.ops))
                .collect();
            let _ = writeln!(out, "          also: {}", others.join(", "));
        }
        let _ = writeln!(
            out,
            "ops       {} · {} · {}",
            self.ops,
            crate::text::counted(self.data_edges, "data edge"),
            crate::text::counted(self.control_edges, "control edge")
        );
        if self.unconnected_inputs > 0 {
            let _ = writeln!(
                out,
                "          {} unconnected input(s): input slots the dump writes as \"\" (an \
                 optional input left out), not a problem",
                self.unconnected_inputs
            );
        }
        if !self.format.starts_with("mindspore") {
            let _ = writeln!(out, "target    {}", self.target.words());
        }
        let _ = writeln!(
            out,
            "order     {}",
            if self.has_topo_ids {
                "GE topo ids"
            } else {
                "file order (the dump has no topo ids)"
            }
        );
        if self.streams.is_empty() {
            let _ = writeln!(
                out,
                "streams   not assigned (dump taken before GE allocated streams)"
            );
        } else {
            let _ = writeln!(
                out,
                "streams   {}",
                join_counts(self.streams.iter().map(|(k, v)| (k.to_string(), *v)))
            );
        }
        if !self.stream_labels.is_empty() {
            let _ = writeln!(
                out,
                "labels    {}",
                join_counts(self.stream_labels.iter().map(|(k, v)| (s(k), *v)))
            );
        }
        if self.format.starts_with("mindspore") {
            let _ = writeln!(
                out,
                "composites {}",
                if self.composites.is_empty() {
                    "none (graph kernel fusion was off, or the IR was dumped before its passes)"
                        .to_string()
                } else {
                    format!(
                        "{}: {}",
                        self.composites.len(),
                        join_counts(self.composites.iter().map(|(k, v)| (s(k), *v)))
                    )
                }
            );
        } else if !self.scopes_readable {
            let _ = writeln!(
                out,
                "scopes    cannot be read: the dump has no string attributes (see the notes)"
            );
        } else if self.scopes.is_empty() {
            let _ = writeln!(out, "scopes    none (no op carries _super_kernel_scope)");
        } else {
            write_scopes(&mut out, &self.scopes);
        }
        let mut types: Vec<(&String, &usize)> = self.op_types.iter().collect();
        types.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let _ = writeln!(out, "op types  {} distinct, by count:", types.len());
        for (name, count) in types {
            let _ = writeln!(out, "  {count:>7}  {}", s(name));
        }
        if self.notes.is_empty() {
            let _ = writeln!(out, "notes     none");
        } else {
            let _ = writeln!(out, "notes     {}", self.notes.len());
            const SHOWN: usize = 20;
            for note in self.notes.iter().take(SHOWN) {
                let _ = writeln!(out, "  ! {}", s(note));
            }
            if self.notes.len() > SHOWN {
                let _ = writeln!(
                    out,
                    "  … and {} more (all of them with --json)",
                    self.notes.len() - SHOWN
                );
            }
        }
        out
    }
}

/// Scopes listed in the summary; more are summed up (`--json` lists them all).
const SCOPES_LISTED: usize = 40;

/// The scopes with their member counts, a few per line, at most [`SCOPES_LISTED`] of them: a
/// model with a scope per layer has thousands.
fn write_scopes(out: &mut String, scopes: &BTreeMap<String, usize>) {
    const PER_LINE: usize = 6;
    let members: usize = scopes.values().sum();
    let _ = writeln!(
        out,
        "scopes    {} scope(s), {members} member op(s){}",
        scopes.len(),
        if scopes.len() > SCOPES_LISTED {
            format!(" (the first {SCOPES_LISTED} by name; all of them with --json)")
        } else {
            String::new()
        }
    );
    let listed: Vec<(String, usize)> = scopes
        .iter()
        .take(SCOPES_LISTED)
        .map(|(k, v)| (sanitize(k).into_owned(), *v))
        .collect();
    for line in listed.chunks(PER_LINE) {
        let _ = writeln!(out, "          {}", join_counts(line.iter().cloned()));
    }
    if scopes.len() > SCOPES_LISTED {
        let _ = writeln!(out, "          … and {} more", scopes.len() - SCOPES_LISTED);
    }
}

fn join_counts(items: impl Iterator<Item = (String, usize)>) -> String {
    items
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(" · ")
}
