//! A model from the logs alone, for result directories without a graph file: the tasks are
//! the ones the logs print (`nodeId`, stream, kernel fields where a line gives them; known
//! only by id where a line lists just the number), and the scopes are the ones the logs name
//! (the fail-reasons log's original scopes, else the split log's scopes, else the SuperKernel
//! names). Reference/aclgraph_superkernel.md §4.4, §9.3.

use super::graph_json::{self, GraphFile, Marker, NodeType, Task};
use super::logs::{self, NodeRef};
use super::scopes::Membership;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The logs of a model directory, as read.
#[derive(Debug, Default)]
pub struct Logs {
    /// `sk_fused_nodes.log`.
    pub fused: Vec<logs::SkFunction>,
    /// `sk_fusion_fail_reasons.log`.
    pub fail: Option<logs::FailReasons>,
    /// `sk_scope_split.log`.
    pub split: Option<logs::ScopeSplit>,
    /// `sk_node_detail.log`.
    pub detail: Option<Vec<logs::NodeDetail>>,
}

/// The tasks the logs print, as a graph without options; `None` when no log names a task.
pub fn graph(dir: &Path, logs: &Logs) -> Option<GraphFile> {
    let mut nodes: BTreeMap<u64, NodeRef> = BTreeMap::new();
    let mut add = |node: &NodeRef| {
        nodes
            .entry(node.node_id)
            .and_modify(|known| known.fill_from(node))
            .or_insert_with(|| node.clone());
    };
    for d in logs.detail.iter().flatten() {
        let mut node = d.node.clone();
        node.node_type = node
            .node_type
            .or_else(|| Some(NodeType::parse(&d.node_type)));
        add(&node);
    }
    logs.fused.iter().flat_map(|f| &f.nodes).for_each(&mut add);
    if let Some(fail) = &logs.fail {
        fail.unfusible.iter().for_each(|u| add(&u.node));
    }
    if let Some(split) = &logs.split {
        split
            .scopes
            .iter()
            .flat_map(|s| &s.nodes)
            .for_each(&mut add);
    }
    let bare = |id: u64| NodeRef {
        node_id: id,
        ..NodeRef::default()
    };
    if let Some(fail) = &logs.fail {
        for id in fail
            .original
            .iter()
            .flat_map(|s| &s.node_ids)
            .chain(fail.fused.iter().flat_map(|s| &s.node_ids))
        {
            add(&bare(*id));
        }
    }
    if nodes.is_empty() {
        return None;
    }
    let streams = stream_indices(nodes.values());
    let mut next_in_stream: HashMap<u32, u32> = HashMap::new();
    let tasks: Vec<Task> = nodes
        .into_values()
        .map(|n| {
            let stream = n
                .stream_idx
                .map(|s| s as u32)
                .or_else(|| n.stream_id.and_then(|s| streams.get(&s).copied()))
                .unwrap_or(0);
            let counter = next_in_stream.entry(stream).or_default();
            let index_in_stream = n.index_in_stream.map_or(*counter, |i| i as u32);
            *counter = index_in_stream.saturating_add(1);
            task(n, stream, index_in_stream)
        })
        .collect();
    Some(GraphFile {
        model_id: model_id_of(dir),
        device_id: None,
        options: Vec::new(),
        streams: tasks
            .iter()
            .map(|t| t.stream.saturating_add(1))
            .max()
            .unwrap_or(0),
        tasks,
    })
}

/// Dense stream indices for the runtime stream ids of tasks whose lines leave out
/// `streamIdxInGraph`: the index a line gives for the same stream id, else the next free one.
fn stream_indices<'a>(nodes: impl Iterator<Item = &'a NodeRef> + Clone) -> HashMap<u64, u32> {
    let mut out: HashMap<u64, u32> = HashMap::new();
    for n in nodes.clone() {
        if let (Some(id), Some(idx)) = (n.stream_id, n.stream_idx) {
            out.entry(id).or_insert(idx as u32);
        }
    }
    let mut next = out.values().map(|i| i.saturating_add(1)).max().unwrap_or(0);
    let mut ids: Vec<u64> = nodes.filter_map(|n| n.stream_id).collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        out.entry(id).or_insert_with(|| {
            next = next.saturating_add(1);
            next - 1
        });
    }
    out
}

fn task(n: NodeRef, stream: u32, index_in_stream: u32) -> Task {
    let node_type = n.node_type.unwrap_or(if n.func_name.is_some() {
        NodeType::Kernel
    } else {
        NodeType::Unknown
    });
    Task {
        node_id: n.node_id,
        stream,
        index_in_stream,
        runtime_stream: n.stream_id.and_then(|s| i64::try_from(s).ok()),
        node_type,
        scope_name: None,
        marker: n.func_name.as_deref().and_then(graph_json::marker_of_func),
        num_blocks: n.num_blocks,
        kernel_type: n.kernel_type,
        task_ratio: n.task_ratio,
        simt: false,
        event_id: None,
        event_flags: None,
        resolved: None,
        cap: n.cap,
        sche_mode: n.sche_mode,
        func_name: n.func_name,
        sk: None,
    }
}

/// `3_1` of a model directory named `model_3_1` (the pass's `<modelLabel>`).
fn model_id_of(dir: &Path) -> Option<String> {
    let name = dir.file_name()?.to_str()?;
    name.strip_prefix("model_")
        .filter(|id| !id.is_empty())
        .map(str::to_string)
}

/// Where the scopes of a logs-only model come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeSource {
    /// The fail-reasons log's original scopes (before splitting).
    OriginalScopes,
    /// The split log's scopes (after splitting: parts of one scope share its names).
    SplitScopes,
    /// The SuperKernel names (`sk_<id>_<names>_start_…`; names joined by `_` read as one).
    SuperKernelNames,
}

impl ScopeSource {
    /// In words, for the report.
    pub fn words(self) -> &'static str {
        match self {
            ScopeSource::OriginalScopes => {
                "scopes from sk_fusion_fail_reasons.log's original scopes"
            }
            ScopeSource::SplitScopes => "scopes from sk_scope_split.log",
            ScopeSource::SuperKernelNames => {
                "scopes read from the SuperKernel names (no log lists the scopes; names joined \
                 by _ are read as one)"
            }
        }
    }
}

/// The scope names and each task's scopes of a logs-only model (`tasks` in `nodeId` order),
/// from what the logs list, since its markers carry no scope names; `None` when no log names a
/// scope.
pub fn scopes(tasks: &[Task], logs: &Logs) -> Option<(ScopeSource, Vec<String>, Vec<Membership>)> {
    let mut listed: Vec<(Vec<String>, Vec<u64>)> = Vec::new();
    let source = if let Some(fail) = logs.fail.as_ref().filter(|f| !f.original.is_empty()) {
        for s in &fail.original {
            listed.push((s.names.clone(), s.node_ids.clone()));
        }
        ScopeSource::OriginalScopes
    } else if let Some(split) = logs.split.as_ref().filter(|s| !s.scopes.is_empty()) {
        for s in &split.scopes {
            listed.push((s.names.clone(), s.node_ids.clone()));
        }
        ScopeSource::SplitScopes
    } else if !logs.fused.is_empty() {
        for f in &logs.fused {
            let names = scope_of_sk_name(&f.name).map(|n| vec![n.to_string()]);
            listed.push((names.unwrap_or_default(), f.node_ids.clone()));
        }
        ScopeSource::SuperKernelNames
    } else {
        return None;
    };
    let mut names: Vec<String> = Vec::new();
    let mut memberships = vec![Membership::default(); tasks.len()];
    for (scope_names, ids) in listed {
        let bits: Vec<u16> = scope_names
            .iter()
            .filter(|n| n.as_str() != "none")
            .map(|n| match names.iter().position(|x| x == n) {
                Some(b) => b as u16,
                None => {
                    names.push(n.clone());
                    (names.len() - 1) as u16
                }
            })
            .collect();
        for id in ids {
            if let Ok(i) = tasks.binary_search_by_key(&id, |t| t.node_id) {
                let m = &mut memberships[i];
                m.bits.extend(&bits);
                m.bits.sort_unstable();
                m.bits.dedup();
            }
        }
    }
    Some((source, names, memberships))
}

/// Names the scope markers of a logs-only model from the scopes of the tasks around them on
/// their stream (the logs do not print a marker's scope): a begin opens a scope its next task
/// is in and its previous task is not, an end closes one its previous task is in and its next
/// is not. A marker whose scope this does not tell keeps no name.
pub fn name_markers(tasks: &mut [Task], names: &[String], memberships: &[Membership]) {
    let neighbour = |i: usize, forward: bool| -> Option<usize> {
        let stream = tasks[i].stream;
        let pick = |j: &usize| tasks[*j].stream == stream && tasks[*j].marker.is_none();
        if forward {
            (i + 1..tasks.len()).find(pick)
        } else {
            (0..i).rev().find(pick)
        }
    };
    let bits = |j: Option<usize>| j.map(|j| &memberships[j].bits[..]).unwrap_or(&[]);
    let named: Vec<(usize, Option<String>)> = (0..tasks.len())
        .filter_map(|i| {
            let (inside, outside) = match tasks[i].marker {
                Some(Marker::Begin) => (bits(neighbour(i, true)), bits(neighbour(i, false))),
                Some(Marker::End) => (bits(neighbour(i, false)), bits(neighbour(i, true))),
                _ => return None,
            };
            let opened = inside.iter().rfind(|b| !outside.contains(b));
            Some((i, opened.map(|&b| names[b as usize].clone())))
        })
        .collect();
    for (i, name) in named {
        tasks[i].scope_name = name;
    }
}

/// The scope part of a SuperKernel name: `full_model` of `sk_7_full_model_start_A_end_B`.
pub fn scope_of_sk_name(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("sk_")?;
    let rest = &rest[rest.find('_')? + 1..];
    let end = rest.find("_start_")?;
    Some(&rest[..end]).filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scope_of_a_superkernel_name() {
        assert_eq!(
            scope_of_sk_name("sk_7_full_model_start_A_end_B"),
            Some("full_model")
        );
        assert_eq!(
            scope_of_sk_name("sk_0_none_start_x_end_clear_ops"),
            Some("none")
        );
        assert_eq!(scope_of_sk_name("sk_entry_aiv"), None);
    }

    #[test]
    fn model_ids_come_from_the_directory_name() {
        assert_eq!(model_id_of(Path::new("a/model_3_1")), Some("3_1".into()));
        assert_eq!(model_id_of(Path::new("a/graph")), None);
    }
}
