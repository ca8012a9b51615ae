//! MindSpore graph-kernel fusion, in skope's words. MindSpore (`enable_graph_kernel=True`,
//! graph mode) fuses basic ops into composite kernels by itself; its dumps say which ops each
//! composite holds (`.ir` text after the graph-kernel passes, composite JSON in
//! `akg_kernel_meta/`). The plan of such a graph has one scope per graph — graph kernel fusion
//! covers the whole graph, no one marks scopes — whose segments are the composites and whose
//! breaks are the kernels left outside every composite, with why where it can be told.
//!
//! The readers are in [`crate::load::ms_ir`] and [`crate::load::ms_composite`]; this module
//! judges the ops and plans.

pub mod flags;
pub mod reasons;

use crate::edit::Edit;
use crate::fusion::Severity;
use crate::fusion::marks::Marks;
use crate::fusion::plan::{
    Break, BreakReason, Context, Finding, KernelInfo, Outcome, Plan, ScopePlan, ScopeStatus,
    Segment,
};
use crate::fusion::verdict::{Evidence, OpVerdict, Verdict, Verdicts};
use crate::graph::{Graph, OpId};
use crate::load::Format;
use crate::load::ms_composite::ATTR_COMPOSITE;
use crate::planner::{OptionsModel, Planner};
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::sync::Arc;

/// True for the formats this module plans.
pub fn is_mindspore(format: Format) -> bool {
    matches!(format, Format::MsIr | Format::MsComposite)
}

/// The composite kernel `id` is fused into, if any.
pub fn composite_of(graph: &Graph, id: OpId) -> Option<&str> {
    graph.op(id).attrs.get_str(ATTR_COMPOSITE)
}

/// Each op's verdict: fused (in a composite), not a kernel (virtual ops, parameters), or left
/// out with the reason [`reasons::classify`] gives.
fn verdicts(graph: &Graph) -> Verdicts {
    let per_op = (0..graph.len())
        .map(|i| {
            let id = OpId(i as u32);
            let not_kernel = reasons::NOT_KERNELS.contains(&graph.op(id).op_type.as_str());
            let (verdict, evidence, detail) = match composite_of(graph, id) {
                Some(kernel) if !not_kernel => (
                    Verdict::Fusible,
                    Evidence::Dump,
                    format!("fused into composite {kernel}"),
                ),
                _ => classify(graph, id),
            };
            OpVerdict::owned(verdict, evidence, detail)
        })
        .collect();
    Verdicts::of_ops(per_op)
}

/// The verdict of op `id`, which is in no composite: not a kernel, or left out and why.
fn classify(graph: &Graph, id: OpId) -> (Verdict, Evidence, String) {
    let op = graph.op(id);
    let t = op.op_type.as_str();
    if reasons::NOT_KERNELS.contains(&t) {
        return (
            Verdict::Ignored,
            Evidence::Rules,
            "not a kernel: it carries values, tuples or state between kernels".to_string(),
        );
    }
    let lists = match (
        reasons::AKG_LEVEL_0.contains(&t),
        reasons::DVM_LEVEL_0.contains(&t),
    ) {
        (true, true) => "the AKG and the DVM generator's",
        (true, false) => "the AKG generator's",
        (false, true) => "the DVM generator's",
        (false, false) => "",
    };
    let dynamic = op.output_descs.iter().find(|d| d.is_dynamic());
    let (key, evidence, detail) = match dynamic {
        Some(d) if !lists.is_empty() || reasons::expanded_by(t).is_some() => (
            "gk_dynamic_shape",
            Evidence::Dump,
            format!("its output shape {} is dynamic", d.shape_text()),
        ),
        _ if let Some(expanders) = reasons::expanded_by(t) => (
            "gk_expanded",
            Evidence::Assumed,
            format!(
                "{t} is on {expanders} default expander list (graph_kernel_expander_cloud.cc): \
                 expanded, then clustered; in no composite here, and the dump does not say why"
            ),
        ),
        _ if !lists.is_empty() => (
            "gk_left_out",
            Evidence::Assumed,
            format!(
                "{t} is on {lists} default cluster list, yet in no composite; the dump does \
                 not say why"
            ),
        ),
        _ if reasons::EXPAND_1.contains(&t) => (
            "gk_expand_level_1",
            Evidence::Rules,
            format!("{t} is on a level-1 expander list (graph_kernel_expander_cloud.cc)"),
        ),
        _ if reasons::level_1_only().contains(&t) => (
            "gk_level_1",
            Evidence::Rules,
            format!("{t} is on a level-1 cluster list (graph_kernel_cluster_cloud.cc)"),
        ),
        _ => (
            "gk_not_clusterable",
            Evidence::Rules,
            format!(
                "{t} is on neither the AKG nor the DVM generator's default cluster list \
                 (graph_kernel_cluster_cloud.cc)"
            ),
        ),
    };
    (
        Verdict::Unsupported(reasons::verdict(key)),
        evidence,
        detail,
    )
}

/// The plan: one scope per graph the ops came from, its composites as segments (in execution
/// order of their first op) and its kernels left out of every composite as breaks.
fn plan(cx: &Context, marks: &Marks) -> Plan {
    let (graph, verdicts) = (cx.graph(), cx.verdicts());
    let mut scopes: Vec<ScopePlan> = Vec::new();
    let mut segment_of: HashMap<(usize, String), usize> = HashMap::new();
    for &id in graph.exec_order() {
        let Some(scope) = marks.scope_of(id) else {
            continue;
        };
        let at = ScopePlan::slot(&mut scopes, marks, scope, "");
        let verdict = verdicts.get(id).verdict;
        if verdict == Verdict::Ignored {
            continue;
        }
        let s = &mut scopes[at];
        s.members.push(id);
        match (composite_of(graph, id), verdict) {
            (Some(kernel), _) => {
                let key = (at, kernel.to_string());
                let k = *segment_of.entry(key).or_insert_with(|| {
                    s.segments.push(Segment {
                        name: kernel.to_string(),
                        fused_node: kernel.to_string(),
                        stream: 0,
                        ops: Vec::new(),
                        options: String::new(),
                        kernel: KernelInfo::Composite,
                        ratio_assumed: false,
                    });
                    s.segments.len() - 1
                });
                s.segments[k].ops.push(id);
            }
            (None, Verdict::Unsupported(r)) => s.breaks.push(Break {
                op: id,
                stream: 0,
                reason: BreakReason::Unsupported(r),
                cuts: false,
                in_range: false,
                before: None,
                after: None,
            }),
            _ => {}
        }
    }
    let position: HashMap<OpId, usize> = graph
        .exec_order()
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let at = |id: &OpId| position.get(id).copied().unwrap_or(usize::MAX);
    for s in &mut scopes {
        // The fused ops just before and after each op left out, in execution order.
        let mut fused: Vec<OpId> = s
            .segments
            .iter()
            .flat_map(|g| g.ops.iter().copied())
            .collect();
        fused.sort_by_key(at);
        for b in &mut s.breaks {
            let here = at(&b.op);
            let split = fused.partition_point(|id| at(id) < here);
            b.before = split.checked_sub(1).map(|i| fused[i]);
            b.after = fused.get(split).copied();
        }
        // Fused when every kernel is in a composite, split when some are left out.
        s.status = match (s.segments.len(), s.breaks.len()) {
            (0, _) => ScopeStatus::Unfused,
            (_, 0) => ScopeStatus::Fused,
            _ => ScopeStatus::Split,
        };
    }
    let mut findings = Vec::new();
    if scopes.iter().all(|s| s.segments.is_empty()) {
        // Nothing was fused at all: one finding says so, not a break per kernel.
        let kernels: usize = scopes.iter().map(|s| s.breaks.len()).sum();
        for s in &mut scopes {
            s.breaks.clear();
        }
        findings.push(Finding {
            severity: Severity::Warning,
            op: None,
            message: format!(
                "no composite in this graph ({kernels} kernel(s) in none): graph kernel fusion \
                 was off (enable_graph_kernel=True turns it on), or this IR was dumped before \
                 its passes (graph_build_*.ir or hwopt_* dumps come after them)"
            ),
        });
    }
    Plan::of_scopes(scopes, findings, Outcome::Ok, marks.scopes().len())
}

/// Why the plan of a MindSpore graph takes no edit.
const DECIDED_BY_MINDSPORE: &str = "MindSpore's graph kernel fusion chooses its composites \
                                    itself (no scopes to mark): change them with \
                                    graph_kernel_flags (skope options --graph-kernel)";

/// MindSpore's graph kernel fusion as a planner: the composites the dump shows. It takes no
/// edit: there is nothing to mark.
#[derive(Debug)]
pub struct GraphKernelPlanner;

impl Planner for GraphKernelPlanner {
    fn plan(&self, cx: &Context, marks: &Marks) -> Plan {
        plan(cx, marks)
    }

    fn refuses(&self, _edit: &Edit) -> Option<&'static str> {
        Some(DECIDED_BY_MINDSPORE)
    }

    fn no_entry_code(&self) -> Option<&'static str> {
        Some(
            "a MindSpore composite is compiled by the graph kernel generator (AKG or DVM) \
             from its composite JSON (akg_kernel_meta/Fused_*.info, open it with skope): \
             there is no SuperKernel entry source",
        )
    }

    fn options_model(&self) -> OptionsModel {
        OptionsModel::GraphFlags
    }

    fn no_scope_code(&self) -> Option<&'static str> {
        Some(
            "MindSpore's graph kernel fusion is not marked with scopes, so there is no scope \
             code to write: its composites come from the graph kernel flags",
        )
    }
}

/// The workspace of a MindSpore graph read from `file` in `format`: every op in the scope of
/// the graph it came from, planned as MindSpore fused it.
pub fn workspace(graph: Graph, format: Format, file: &str) -> Workspace {
    let verdicts = verdicts(&graph);
    let cx = Context::with_verdicts(graph, verdicts);
    let graph = cx.graph();
    let mut marks = Marks::unmarked(graph.len());
    for &id in graph.exec_order() {
        if cx.verdicts().get(id).verdict == Verdict::Ignored {
            continue;
        }
        let name = scope_name(graph, id);
        let scope = marks.intern_scope(&name);
        marks.set(
            id,
            crate::fusion::marks::OpMark::Member { scope, options: 0 },
        );
    }
    Workspace::with_planner(cx, marks, Arc::new(GraphKernelPlanner), format, file)
}

/// The scope an op is shown in: the graph it was read from (the file's graph unless it has
/// several).
fn scope_name(graph: &Graph, id: OpId) -> String {
    let from = graph
        .op(id)
        .attrs
        .get_str(crate::load::ms_ir::ATTR_GRAPH)
        .unwrap_or(graph.name());
    format!("graph kernel: {from}")
}
