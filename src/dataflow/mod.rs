//! The dataflow around one op: its producers and consumers up to a number of hops, as a small
//! DAG whose nodes carry what the op list shows of each op (segment, break, ignored, outside
//! every scope) and whose edges say whether they order only, cross streams (an event in the
//! entry code when both ends are in one segment) or are where a break cuts a scope. Fan-in and
//! fan-out over a limit collapse into a "+N more" node. [`layout`] lays it out for a text grid.

pub mod layout;

use crate::fusion::verdict::Verdict;
use crate::graph::{EdgeKind, OpId};
use crate::workspace::Workspace;
use layout::{Edge, EdgeClass};
use std::collections::{HashMap, HashSet, VecDeque};

/// Producers or consumers shown per op before the rest collapse into a "+N more" node.
pub const FAN_LIMIT: usize = 6;

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// An op.
    Op(OpId),
    /// Producers (`upstream`) or consumers of `of` not shown: how many.
    More {
        /// The op they feed or are fed by.
        of: OpId,
        /// True for producers.
        upstream: bool,
        /// How many.
        count: usize,
    },
}

/// How an op sits in the plan, for its glyph and colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Fused into the segment of this ordinal.
    Segment(usize),
    /// It breaks a scope.
    Break,
    /// The pass ignores it.
    Ignored,
    /// In no segment (outside every scope, or not fused).
    Outside,
}

/// A node of the neighbourhood.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it stands for.
    pub kind: NodeKind,
    /// Its name (the op's, or `+N more`).
    pub name: String,
    /// Its op type (empty for a "+N more" node).
    pub op_type: String,
    /// How it sits in the plan.
    pub standing: Standing,
    /// Its stream.
    pub stream: u32,
    /// Hops from the centre: negative above (producers), positive below.
    pub hops: i32,
}

/// An edge of the neighbourhood, with what the drawing says of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The edge laid out.
    pub edge: Edge,
    /// Its label: the two streams of a cross-stream edge (and `event` when the entry code
    /// would use one), the break's scope on a cut.
    pub label: Option<String>,
}

/// The neighbourhood of one op.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbourhood {
    /// Its nodes; the centre is first.
    pub nodes: Vec<Node>,
    /// Its edges.
    pub links: Vec<Link>,
}

impl Neighbourhood {
    /// The node of op `id`, if shown.
    pub fn node_of(&self, id: OpId) -> Option<usize> {
        self.nodes.iter().position(|n| n.kind == NodeKind::Op(id))
    }
}

/// Ops adjacent to `id` upstream (producers) or downstream (consumers), with the edge kind,
/// each once, in execution order.
fn adjacent(ws: &Workspace, id: OpId, upstream: bool) -> Vec<(OpId, EdgeKind)> {
    let graph = ws.graph();
    let mut out: Vec<(OpId, EdgeKind)> = if upstream {
        graph.predecessors(id).collect()
    } else {
        graph.successors(id).collect()
    };
    out.sort_by_key(|(o, _)| graph.exec_position(*o));
    out.dedup_by_key(|(o, _)| *o);
    out
}

/// The ops `hops` steps up and down from `centre`; fans over [`FAN_LIMIT`] collapse unless
/// their op is in `expanded` (`(op, upstream)`).
pub fn neighbourhood(
    ws: &Workspace,
    centre: OpId,
    hops: usize,
    expanded: &HashSet<(OpId, bool)>,
) -> Neighbourhood {
    let cx = ws.context();
    let graph = ws.graph();
    let index = ws.index();
    let standing = |id: OpId| {
        if index.is_break(id) {
            Standing::Break
        } else if let Some(o) = index.segment_ordinal(id) {
            Standing::Segment(o)
        } else if cx.verdicts().get(id).verdict == Verdict::Ignored {
            Standing::Ignored
        } else {
            Standing::Outside
        }
    };
    let op_node = |id: OpId, hops: i32| Node {
        kind: NodeKind::Op(id),
        name: graph.op(id).name.clone(),
        op_type: graph.op(id).op_type.clone(),
        standing: standing(id),
        stream: cx.stream_of(id),
        hops,
    };
    let mut nodes = vec![op_node(centre, 0)];
    let mut at: HashMap<OpId, usize> = HashMap::from([(centre, 0)]);
    let mut more: Vec<(usize, usize, bool)> = Vec::new();
    for upstream in [true, false] {
        let sign = if upstream { -1 } else { 1 };
        let mut queue = VecDeque::from([(centre, 0usize)]);
        while let Some((id, depth)) = queue.pop_front() {
            if depth == hops {
                continue;
            }
            let next = adjacent(ws, id, upstream);
            let open = expanded.contains(&(id, upstream));
            let shown = if open || next.len() <= FAN_LIMIT {
                next.len()
            } else {
                FAN_LIMIT - 1
            };
            for &(other, _) in &next[..shown] {
                if let std::collections::hash_map::Entry::Vacant(slot) = at.entry(other) {
                    slot.insert(nodes.len());
                    nodes.push(op_node(other, sign * (depth as i32 + 1)));
                    queue.push_back((other, depth + 1));
                }
            }
            if shown < next.len() {
                let count = next.len() - shown;
                more.push((at[&id], nodes.len(), upstream));
                nodes.push(Node {
                    kind: NodeKind::More {
                        of: id,
                        upstream,
                        count,
                    },
                    name: format!("+{count} more"),
                    op_type: String::new(),
                    standing: Standing::Outside,
                    stream: cx.stream_of(id),
                    hops: sign * (depth as i32 + 1),
                });
            }
        }
    }
    // Every graph edge between shown ops, then each "+N more" node's.
    let mut links = Vec::new();
    let marks = ws.marks();
    for (&from, &i) in &at {
        for (to, kind) in graph.successors(from) {
            let Some(&j) = at.get(&to) else {
                continue;
            };
            let (sa, sb) = (cx.stream_of(from), cx.stream_of(to));
            let one_segment = index.segment_ordinal(from).is_some()
                && index.segment_ordinal(from) == index.segment_ordinal(to);
            let cut = index.is_break(to)
                && marks.scope_of(from).is_some()
                && index.segment_ordinal(from).is_some();
            let streams = |s: u32| cx.streams()[s as usize].id;
            let (class, label) = if sa != sb {
                let words = if one_segment { "event " } else { "" };
                (
                    EdgeClass::CrossStream,
                    Some(format!("{words}s{}→s{}", streams(sa), streams(sb))),
                )
            } else if cut {
                (EdgeClass::Cut, Some("✂".to_string()))
            } else if matches!(kind, EdgeKind::Control) {
                (EdgeClass::Control, None)
            } else {
                (EdgeClass::Data, None)
            };
            links.push(Link {
                edge: Edge {
                    from: i,
                    to: j,
                    class,
                },
                label,
            });
        }
    }
    for (owner, node, upstream) in more {
        let (from, to) = if upstream {
            (node, owner)
        } else {
            (owner, node)
        };
        links.push(Link {
            edge: Edge {
                from,
                to,
                class: EdgeClass::Data,
            },
            label: None,
        });
    }
    // One edge per pair (an op may feed two inputs of another): the most telling class.
    links.sort_by(|a, b| {
        (a.edge.from, a.edge.to)
            .cmp(&(b.edge.from, b.edge.to))
            .then(b.edge.class.cmp(&a.edge.class))
    });
    links.dedup_by_key(|l| (l.edge.from, l.edge.to));
    Neighbourhood { nodes, links }
}
