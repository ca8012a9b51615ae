//! The plan as the profile comparison needs it: op names and types only, so a profile can be
//! compared with a plan made from a graph dump (exact segments) or from a plan file alone
//! (each scope counted as one segment: an inference, and marked as one).

use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan, describe_reason};
use crate::fusion::verdict::Verdict;
use crate::planfile::PlanFile;
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::HashSet;

/// One op the plan names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedOp {
    /// Its name in the graph (the kernel name in a graph-mode profile).
    pub name: String,
    /// Its type, when known (a plan file alone does not say).
    pub op_type: Option<String>,
    /// Which call of its kernel function it is, when its name is `function#node id` (an
    /// aclgraph task).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<Call>,
}

/// Which call of its kernel function an aclgraph task is in one pass of the graph. The
/// profile names a kernel by its function alone, and several tasks may run one function (a
/// layer's RmsNorm in every layer); the runtime's Task ID is not the graph's node id
/// (reference `aclgraph_superkernel.md` §5), so a task's run is told by its place among its
/// function's runs in a step: run `index`, `index + of`, `index + 2 × of`… are its.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Call {
    /// Its place among the graph's tasks of its function, in execution order, from 0.
    pub index: u32,
    /// How many of the graph's tasks run its function.
    pub of: u32,
}

impl PlannedOp {
    /// The kernel name a profile gives it: its function for an aclgraph task, else its name.
    pub fn kernel_name(&self) -> &str {
        match self.call {
            Some(_) => self.name.rsplit_once('#').map_or(&self.name, |(f, _)| f),
            None => &self.name,
        }
    }
}

/// Each call of a kernel function in `graph`'s execution order, for the ops named
/// `function#node id`.
fn calls(graph: &crate::graph::Graph) -> std::collections::HashMap<crate::graph::OpId, Call> {
    let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut placed = Vec::new();
    for &id in graph.exec_order() {
        if let Some((function, _)) = graph.op(id).name.rsplit_once('#') {
            let n = index.entry(function).or_default();
            placed.push((id, function, *n));
            *n += 1;
        }
    }
    placed
        .into_iter()
        .map(|(id, function, n)| {
            let of = index.get(function).copied().unwrap_or(1);
            (id, Call { index: n, of })
        })
        .collect()
}

/// One segment: the ops that become one SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedSegment {
    /// The scope.
    pub scope: String,
    /// The segment name (`<scope>_split_<a>_<b>`, or the scope name).
    pub segment: String,
    /// The SuperKernel node's name, `sk_<segment>_start_<first>_end_<last>`: the kernel name
    /// the new profile shows.
    pub fused_node: String,
    /// Its sub-ops, in order.
    pub ops: Vec<PlannedOp>,
    /// Its scope's options text, as the plan holds it (empty when none are set).
    pub options: String,
}

/// One break: an op that ends a segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedBreak {
    /// The scope it breaks.
    pub scope: String,
    /// The op.
    pub op: PlannedOp,
    /// Why, in the plan's words.
    pub reason: String,
    /// The ops around it that run unfused because of it: itself and any op on its stream
    /// between the scope's neighbouring members that no segment takes.
    pub unfused: Vec<PlannedOp>,
}

/// What the profile comparison knows of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedFusion {
    /// Where it came from: the graph dump or plan file.
    pub source: String,
    /// Every segment.
    pub segments: Vec<PlannedSegment>,
    /// Every break.
    pub breaks: Vec<PlannedBreak>,
    /// True when segments are inferred (a plan file without its graph: one per scope, uncut).
    pub inferred: bool,
}

impl PlannedFusion {
    /// The workspace's current plan; `source` names the dump (and plan file).
    pub fn from_workspace(ws: &Workspace, source: &str) -> PlannedFusion {
        PlannedFusion::from_plan(ws.context(), ws.marks(), ws.plan(), source)
    }

    /// `plan`, made with `cx` from `marks`; `source` names the dump.
    pub fn from_plan(cx: &Context, marks: &Marks, plan: &Plan, source: &str) -> PlannedFusion {
        let graph = cx.graph();
        let calls = calls(graph);
        let op = |id: crate::graph::OpId| PlannedOp {
            name: graph.op(id).name.clone(),
            op_type: Some(graph.op(id).op_type.clone()),
            call: calls.get(&id).copied(),
        };
        let in_segment: HashSet<crate::graph::OpId> = plan
            .scopes
            .iter()
            .flat_map(|s| s.segments.iter().flat_map(|seg| seg.ops.iter().copied()))
            .collect();
        let mut segments = Vec::new();
        let mut breaks = Vec::new();
        for scope in &plan.scopes {
            for seg in &scope.segments {
                segments.push(PlannedSegment {
                    scope: scope.name.clone(),
                    segment: seg.name.clone(),
                    fused_node: seg.fused_node.clone(),
                    ops: seg.ops.iter().map(|&id| op(id)).collect(),
                    options: scope.options.clone(),
                });
            }
            for b in &scope.breaks {
                let mut unfused = vec![op(b.op)];
                if let (Some(before), Some(after)) = (b.before, b.after) {
                    let (from, to) = (graph.exec_position(before), graph.exec_position(after));
                    for &id in &graph.exec_order()[from.min(to) + 1..from.max(to)] {
                        if id != b.op
                            && cx.stream_of(id) == b.stream
                            && !in_segment.contains(&id)
                            && cx.verdicts().get(id).verdict != Verdict::Ignored
                        {
                            unfused.push(op(id));
                        }
                    }
                }
                breaks.push(PlannedBreak {
                    scope: scope.name.clone(),
                    op: op(b.op),
                    reason: describe_reason(marks, b.reason),
                    unfused,
                });
            }
        }
        PlannedFusion {
            source: source.to_string(),
            segments,
            breaks,
            inferred: false,
        }
    }

    /// A plan file without its graph: each scope is taken as one uncut segment (inferred: the
    /// graph would say where it splits), with no op types and no breaks.
    pub fn from_plan_file(plan: &PlanFile, source: &str) -> PlannedFusion {
        let segments = plan
            .scopes
            .iter()
            .filter(|s| !s.ops.is_empty())
            .map(|s| {
                let first = s.ops.first().map_or("", String::as_str);
                let last = s.ops.last().map_or("", String::as_str);
                PlannedSegment {
                    scope: s.name.clone(),
                    segment: s.name.clone(),
                    fused_node: format!("sk_{}_start_{first}_end_{last}", s.name),
                    ops: s
                        .ops
                        .iter()
                        .map(|name| PlannedOp {
                            name: name.clone(),
                            op_type: None,
                            call: None,
                        })
                        .collect(),
                    options: s.options.clone(),
                }
            })
            .collect();
        PlannedFusion {
            source: source.to_string(),
            segments,
            breaks: Vec::new(),
            inferred: true,
        }
    }
}

/// The stream each kernel ran on, from the graph, for profiles that do not say: an op's
/// kernel on its op's stream, a SuperKernel on its first sub-op's.
#[derive(Debug, Clone, Default)]
pub struct KernelStreams {
    by_name: std::collections::HashMap<String, String>,
}

impl KernelStreams {
    /// The streams of `ws`'s ops.
    pub fn of(ws: &Workspace) -> KernelStreams {
        let cx = ws.context();
        let by_name = cx
            .graph()
            .ops()
            .iter()
            .enumerate()
            .map(|(i, op)| {
                let stream = cx.stream_of(crate::graph::OpId(i as u32));
                (op.name.clone(), stream.to_string())
            })
            .collect();
        KernelStreams { by_name }
    }

    /// The stream of the kernel `name`, when the graph knows it.
    pub fn get(&self, name: &str) -> Option<String> {
        self.by_name.get(name).cloned().or_else(|| {
            let fused = super::fused_name::FusedName::parse(name)?;
            let (first, _) = fused.first_and_last(|op| self.by_name.contains_key(op))?;
            self.by_name.get(first).cloned()
        })
    }
}
