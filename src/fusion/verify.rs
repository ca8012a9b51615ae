//! Checking a prediction against what GE did: GE's `AfterSkGraph` dump replaces each fused run
//! by a node of type `SuperKernel` named `sk_<segment>_start_<first>_end_<last>`; the sub-ops
//! carry `sk_parent_node_name` in the separately dumped sub-graphs
//! (reference/ascend_superkernel.md §1.5, §4.1 step 5).

use super::kernel::SUPERKERNEL_TYPE;
use super::plan::{Context, Plan};
use crate::graph::Graph;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Attribute naming a sub-op's SuperKernel node.
pub const ATTR_PARENT: &str = "sk_parent_node_name";

/// One SuperKernel GE made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActualSegment {
    /// The SuperKernel node name.
    pub fused_node: String,
    /// Its sub-ops, in the pre-fusion graph's execution order.
    pub ops: Vec<String>,
    /// True when the sub-ops came from `sk_parent_node_name`; false when they were recovered
    /// from the node name and the ops missing from the fused graph.
    pub from_sub_graphs: bool,
}

/// A difference between the prediction and GE's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mismatch {
    /// Predicted, but GE made no SuperKernel of these ops.
    NotFused {
        /// The predicted fused node name.
        fused_node: String,
        /// The predicted sub-ops.
        ops: Vec<String>,
    },
    /// GE made this SuperKernel, but it was not predicted.
    Unexpected {
        /// GE's fused node name.
        fused_node: String,
        /// Its sub-ops.
        ops: Vec<String>,
    },
    /// The same ops, fused under another name.
    Renamed {
        /// The predicted name.
        predicted: String,
        /// GE's name.
        actual: String,
    },
    /// A SuperKernel node whose sub-ops could not be found.
    Unresolved {
        /// GE's fused node name.
        fused_node: String,
    },
}

/// The result of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// SuperKernels GE made.
    pub actual: Vec<ActualSegment>,
    /// Segments predicted exactly (same ops, same name).
    pub matched: usize,
    /// Every difference.
    pub mismatches: Vec<Mismatch>,
}

/// The SuperKernels in `after` (all graphs of an AfterSkGraph dump and its sub-graph dumps),
/// with their sub-ops resolved against the pre-fusion graph `pre`.
pub fn actual_segments(after: &[&Graph], pre: &Graph) -> (Vec<ActualSegment>, Vec<String>) {
    let mut parents: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut after_names: HashSet<&str> = HashSet::new();
    let mut nodes: Vec<&str> = Vec::new();
    for graph in after {
        for op in graph.ops() {
            after_names.insert(&op.name);
            if op.op_type == SUPERKERNEL_TYPE {
                nodes.push(&op.name);
            }
            if let Some(parent) = op.attrs.get_str(ATTR_PARENT) {
                parents.entry(parent).or_default().push(&op.name);
            }
        }
    }
    // Position of each pre-fusion op in execution order.
    let position: HashMap<&str, usize> = pre
        .exec_order()
        .iter()
        .enumerate()
        .map(|(i, &id)| (pre.op(id).name.as_str(), i))
        .collect();
    let absorbed: HashSet<&str> = position
        .keys()
        .copied()
        .filter(|name| !after_names.contains(name))
        .collect();
    let mut unresolved = Vec::new();
    let mut out = Vec::new();
    for node in nodes {
        let (mut ops, from_sub_graphs) = match parents.get(node) {
            Some(subs) => (subs.clone(), true),
            None => match by_name(node, &absorbed, &position, pre) {
                Some(ops) => (ops, false),
                None => {
                    unresolved.push(node.to_string());
                    continue;
                }
            },
        };
        ops.sort_by_key(|name| position.get(name).copied().unwrap_or(usize::MAX));
        out.push(ActualSegment {
            fused_node: node.to_string(),
            ops: ops.into_iter().map(str::to_string).collect(),
            from_sub_graphs,
        });
    }
    (out, unresolved)
}

/// Recovers a SuperKernel's sub-ops from its name: `sk_<segment>_start_<first>_end_<last>`,
/// where `first` and `last` are ops absorbed into it; the sub-ops are the absorbed ops between
/// them whose scope is the segment's scope.
fn by_name<'a>(
    node: &str,
    absorbed: &HashSet<&'a str>,
    position: &HashMap<&'a str, usize>,
    pre: &'a Graph,
) -> Option<Vec<&'a str>> {
    let rest = node.strip_prefix("sk_")?;
    for (end_at, _) in rest.match_indices("_end_") {
        let last = &rest[end_at + "_end_".len()..];
        let Some(&last) = absorbed.get(last) else {
            continue;
        };
        let head = &rest[..end_at];
        for (start_at, _) in head.match_indices("_start_") {
            let first = &head[start_at + "_start_".len()..];
            let Some(&first) = absorbed.get(first) else {
                continue;
            };
            let segment = &head[..start_at];
            let scope = base_scope(segment);
            let (lo, hi) = (position[first], position[last]);
            if lo > hi {
                continue;
            }
            let ops = pre.exec_order()[lo..=hi]
                .iter()
                .map(|&id| pre.op(id))
                .filter(|op| absorbed.contains(op.name.as_str()))
                .filter(|op| op.scope().map(base_scope) == Some(scope))
                .map(|op| op.name.as_str())
                .collect();
            return Some(ops);
        }
    }
    None
}

/// The scope a segment name belongs to: the name without a trailing `_split_<a>_<b>`.
fn base_scope(segment: &str) -> &str {
    let Some(at) = segment.rfind("_split_") else {
        return segment;
    };
    let tail = &segment[at + "_split_".len()..];
    let numbers: Vec<&str> = tail.splitn(2, '_').collect();
    let is_id = |s: &str| {
        !s.is_empty()
            && s.trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit())
    };
    if numbers.len() == 2 && is_id(numbers[0]) && is_id(numbers[1]) {
        &segment[..at]
    } else {
        segment
    }
}

/// Compares `plan` (made from the pre-fusion graph of `cx`) with GE's SuperKernels.
pub fn verify(cx: &Context, plan: &Plan, after: &[&Graph]) -> Verification {
    let graph = cx.graph();
    let (actual, unresolved) = actual_segments(after, graph);
    let mut by_ops: HashMap<Vec<String>, &str> = actual
        .iter()
        .map(|a| (a.ops.clone(), a.fused_node.as_str()))
        .collect();
    let mut position = vec![0usize; graph.len()];
    for (i, &id) in graph.exec_order().iter().enumerate() {
        position[id.index()] = i;
    }
    let mut matched = 0;
    let mut mismatches = Vec::new();
    for seg in plan.scopes.iter().flat_map(|s| &s.segments) {
        // Actual sub-ops are in execution order; predicted ones in topo order.
        let mut ids = seg.ops.clone();
        ids.sort_by_key(|id| position[id.index()]);
        let ops: Vec<String> = ids.iter().map(|&id| graph.op(id).name.clone()).collect();
        match by_ops.remove(&ops) {
            Some(name) if name == seg.fused_node => matched += 1,
            Some(name) => mismatches.push(Mismatch::Renamed {
                predicted: seg.fused_node.clone(),
                actual: name.to_string(),
            }),
            None => mismatches.push(Mismatch::NotFused {
                fused_node: seg.fused_node.clone(),
                ops,
            }),
        }
    }
    for a in &actual {
        if by_ops.contains_key(&a.ops) {
            mismatches.push(Mismatch::Unexpected {
                fused_node: a.fused_node.clone(),
                ops: a.ops.clone(),
            });
        }
    }
    mismatches.extend(
        unresolved
            .into_iter()
            .map(|fused_node| Mismatch::Unresolved { fused_node }),
    );
    Verification {
        actual,
        matched,
        mismatches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_do_not_resolve_are_reported_not_guessed() {
        use crate::graph::{GraphBuilder, OpBuilder};
        let mut pre = GraphBuilder::new("pre");
        for (i, name) in ["b", "a"].iter().enumerate() {
            pre.push(OpBuilder {
                name: name.to_string(),
                op_type: "Add".into(),
                topo_id: Some(i as i64),
                ..OpBuilder::default()
            });
        }
        let pre = pre.build();
        let mut after = GraphBuilder::new("after");
        for name in ["sk_s_start_a_end_b", "sk_s_start_x_end_y"] {
            after.push(OpBuilder {
                name: name.into(),
                op_type: SUPERKERNEL_TYPE.into(),
                ..OpBuilder::default()
            });
        }
        let after = after.build();
        // "a" runs after "b", and x/y do not exist: neither node resolves.
        let (found, unresolved) = actual_segments(&[&after], &pre);
        assert!(found.is_empty());
        assert_eq!(unresolved, ["sk_s_start_a_end_b", "sk_s_start_x_end_y"]);
    }

    #[test]
    fn split_suffix_is_stripped_only_when_it_is_two_ids() {
        assert_eq!(base_scope("moe_1_split_54_56"), "moe_1");
        assert_eq!(base_scope("attn_split_-1_3"), "attn");
        assert_eq!(base_scope("my_split_scope"), "my_split_scope");
        assert_eq!(base_scope("plain"), "plain");
    }
}
