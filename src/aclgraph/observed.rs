//! An aclgraph model as a workspace for the explorer and the reports: its tasks as the ops of a
//! graph (one stream each as the pass numbered them, `nodeId` as topo id, a notify's events as
//! edges to its waits), each task's verdict from the pass's files, scopes from the markers, and
//! the plan the pass made — its SuperKernels as segments and its cuts as breaks. Edits to the
//! scopes re-plan with skope's prediction of the pass; undoing them all shows the pass's own
//! result again.

use super::device::SubOp;
use super::graph_json::{Marker, NodeType};
use super::model::{AclModel, OUTSIDE, TaskStatus};
use super::predict;
use super::reasons::{self, ATTR_BREAK};
use crate::edit::Edit;
use crate::fusion::Severity;
use crate::fusion::kernel::{KernelType, SkKernel};
use crate::fusion::marks::{Marks, OpMark};
use crate::fusion::plan::{
    Break, BreakReason, Context, Finding, KernelInfo, Outcome, Plan, ScopePlan, ScopeStatus,
    Segment,
};
use crate::fusion::verdict::{Evidence, OpVerdict, Verdict, Verdicts};
use crate::graph::{AttrValue, Graph, GraphBuilder, OpBuilder, OpId};
use crate::load::Format;
use crate::planner::{OptionsModel, OwnReport, OwnScopeCode, Planner, Remedy};
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use crate::graph::ATTR_DEVICE_US;

/// The attribute of a SuperKernel's launch task holding the SuperKernel's mean device time, µs.
pub const ATTR_SK_DEVICE_US: &str = "_sk_superkernel_device_us";

/// The attribute holding a task's node type (`KERNEL`, `WAIT`…).
pub const ATTR_NODE_TYPE: &str = "_sk_node_type";

/// The op name of a task: its function name (or node type, or for a marker its kind and
/// scope) and `nodeId`, unique in the model.
pub fn op_name(model: &AclModel, i: usize) -> String {
    let t = &model.tasks[i];
    let scope = t.scope_name.as_deref().unwrap_or("(unnamed)");
    match (&t.marker, &t.func_name) {
        (Some(Marker::Begin), _) => format!("begin {scope}#{}", t.node_id),
        (Some(Marker::End), _) => format!("end {scope}#{}", t.node_id),
        (Some(Marker::Placeholder), _) => format!("placeholder#{}", t.node_id),
        (None, Some(f)) => format!("{f}#{}", t.node_id),
        (None, None) => format!("{}#{}", t.node_type.name(), t.node_id),
    }
}

/// The op type of a task: a kernel's function name without the hash the build appends
/// (`RmsNorm_5cce7ee1` → `RmsNorm`, inferred from how kernel names are made), else the node
/// type.
pub fn op_type(model: &AclModel, i: usize) -> String {
    let t = &model.tasks[i];
    match t.marker {
        Some(Marker::Begin) => return "ScopeBegin".to_string(),
        Some(Marker::End) => return "ScopeEnd".to_string(),
        Some(Marker::Placeholder) => return "ScopePlaceholder".to_string(),
        None => {}
    }
    let Some(func) = &t.func_name else {
        return t.node_type.name().to_string();
    };
    match func.rsplit_once('_') {
        Some((head, tail))
            if !head.is_empty()
                && tail.len() >= 4
                && tail.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            head.to_string()
        }
        _ => func.clone(),
    }
}

/// The graph of `model`'s tasks.
pub fn graph(model: &AclModel) -> Graph {
    let mut b = GraphBuilder::new(
        model
            .model_id
            .as_ref()
            .map_or("aclgraph".to_string(), |id| format!("model_{id}")),
    );
    b.streams_assigned(true);
    // A wait takes its event from the latest notify of the same event before it.
    let mut last_notify: HashMap<u64, usize> = HashMap::new();
    let mut last_on_stream: HashMap<u32, usize> = HashMap::new();
    let mut break_words: HashMap<usize, Vec<String>> = HashMap::new();
    for sk in &model.sks {
        if let Some(info) = &sk.break_info
            && let Some(i) = info.trigger_node.and_then(|n| model.task_index(n))
        {
            let mut words = format!("{}: {}", info.reason, sk.name);
            if let Some(detail) = &info.detail {
                words.push_str(&format!(" — {detail}"));
            }
            break_words.entry(i).or_default().push(words);
        }
    }
    // Device time of each sub-op (by its position in its SuperKernel, or its graph node id)
    // and of each SuperKernel (on the task that launches it), from sk_prof_device_*.json.
    let mut device_us: HashMap<usize, (&'static str, f64)> = HashMap::new();
    for sk in &model.sks {
        for (position, &i) in sk.tasks.iter().enumerate() {
            let mine = |sub_op: Option<SubOp>| match sub_op {
                Some(SubOp::Position(p)) => p == position as u64,
                Some(SubOp::Node(n)) => n == model.tasks[i].node_id,
                None => false,
            };
            if let Some(t) = model
                .timings
                .iter()
                .find(|t| t.sk_id == sk.scope_id && mine(t.sub_op))
            {
                device_us.insert(i, (ATTR_DEVICE_US, t.mean_us()));
            }
        }
    }
    for (i, t) in model.tasks.iter().enumerate() {
        let mut attrs = crate::graph::Attrs::default();
        if let Some(&(key, us)) = device_us.get(&i) {
            attrs.insert(key, AttrValue::Float(us));
        }
        if let Some(sk) = model.sks.iter().find(|sk| sk.launch == Some(i))
            && let Some(time) = &sk.time
        {
            attrs.insert(ATTR_SK_DEVICE_US, AttrValue::Float(time.mean_us()));
        }
        attrs.insert(ATTR_NODE_TYPE, AttrValue::Str(t.node_type.name().into()));
        if let Some(k) = &t.kernel_type {
            attrs.insert("kernelType", AttrValue::Str(k.clone()));
        }
        if let Some(n) = t.num_blocks {
            attrs.insert("numBlocks", AttrValue::Int(n as i64));
        }
        if let Some(f) = &t.func_name {
            attrs.insert("funcName", AttrValue::Str(f.clone()));
        }
        if let Some(cap) = t.cap {
            let (names, others) = super::graph_json::capability_names(cap);
            let mut words = format!("{cap:#x}");
            if !names.is_empty() {
                words.push_str(&format!(" ({})", names.join(", ")));
            }
            if others > 0 {
                words.push_str(&format!(" +{others} bit(s) skope does not know"));
            }
            attrs.insert("cap", AttrValue::Str(words));
        }
        if let Some(e) = t.event_id {
            attrs.insert("eventId", AttrValue::Int(e as i64));
        }
        if let Some(words) = break_words.get(&i) {
            attrs.insert(ATTR_BREAK, AttrValue::Str(words.join("; ")));
        }
        let m = &model.memberships[i];
        let label = model.scope_label(m);
        if t.marker.is_none() && !m.excluded && label != OUTSIDE {
            attrs.insert(crate::graph::ATTR_SCOPE, AttrValue::Str(label.clone()));
        }
        // Tasks of one stream run in its order: each follows the one before it (an ordering
        // edge), and a wait follows the notify of its event.
        let mut inputs = Vec::new();
        if let Some(prev) = last_on_stream.insert(t.stream, i) {
            inputs.push(format!("{}:-1", op_name(model, prev)));
        }
        match t.node_type {
            NodeType::Notify => {
                if let Some(e) = t.event_id {
                    last_notify.insert(e, i);
                }
            }
            NodeType::Wait => {
                if let Some(&n) = t.event_id.and_then(|e| last_notify.get(&e)) {
                    inputs.push(format!("{}:-1", op_name(model, n)));
                }
            }
            _ => {}
        }
        b.push(OpBuilder {
            name: op_name(model, i),
            op_type: op_type(model, i),
            topo_id: Some(t.node_id as i64),
            stream: Some(i64::from(t.stream)),
            attrs,
            inputs,
            ..OpBuilder::default()
        });
    }
    b.build()
}

/// Each task's verdict, from its status.
fn verdicts(model: &AclModel) -> Verdicts {
    let per_op = model
        .status
        .iter()
        .enumerate()
        .map(|(i, status)| {
            let task = &model.tasks[i];
            let (verdict, evidence, detail): (Verdict, Evidence, String) = match status {
                TaskStatus::Marker => (
                    Verdict::Ignored,
                    Evidence::Dump,
                    match task.marker {
                        Some(Marker::Begin) => "scope begin marker (disabled after the pass)",
                        Some(Marker::End) => "scope end marker (disabled after the pass)",
                        _ => "scope placeholder (a slot for syncs, else disabled)",
                    }
                    .to_string(),
                ),
                TaskStatus::Fused(k) => (
                    Verdict::Fusible,
                    Evidence::Dump,
                    format!(
                        "fused into SuperKernel {} ({})",
                        model.sks[*k].scope_id,
                        model.sks[*k].listing.words()
                    ),
                ),
                TaskStatus::Unfusible {
                    reason,
                    sub,
                    detail,
                } => {
                    // The reason's meaning is the verdict's; the detail adds the key, the
                    // sub-reason's meaning and the pass's own words.
                    let key = match sub {
                        Some(s) => match reasons::sub_reason(reason, s) {
                            Some(meaning) => format!("{reason} [{s}]: {meaning}"),
                            None => format!("{reason} [{s}]"),
                        },
                        None => reason.clone(),
                    };
                    (
                        Verdict::Unsupported(reasons::fail_verdict(reason)),
                        Evidence::Dump,
                        format!("{key} ({}: \"{detail}\")", super::layout::FAIL_REASONS),
                    )
                }
                TaskStatus::NotFused { why } if task.node_type == NodeType::Kernel => {
                    (Verdict::Fusible, Evidence::Assumed, why.clone())
                }
                TaskStatus::NotFused { why } => (Verdict::Ignored, Evidence::Assumed, why.clone()),
            };
            OpVerdict::owned(verdict, evidence, detail)
        })
        .collect();
    Verdicts::of_ops(per_op)
}

/// The kernel a SuperKernel of `tasks` runs: from its entry kernel's name (`sk_entry_mix12…`)
/// when known, else by the pass's rule (§3.5: cube or vector only when one queue has
/// functions; MIX_1_2 when a sub-kernel is 1:2 or vector blocks outnumber cube blocks; else
/// MIX_1_1); the block dim is the largest of its tasks'.
fn kernel_of(model: &AclModel, tasks: &[usize], entry: Option<&str>) -> KernelInfo {
    let kernels: Vec<&super::graph_json::Task> = tasks
        .iter()
        .map(|&i| &model.tasks[i])
        .filter(|t| t.node_type == NodeType::Kernel)
        .collect();
    let block_dim = kernels
        .iter()
        .filter_map(|t| t.num_blocks)
        .max()
        .unwrap_or(1);
    let kernel_type = match entry {
        Some(e) if e.starts_with("sk_entry_mix12") => KernelType::MixAic1_2,
        Some(e) if e.starts_with("sk_entry_mix11") => KernelType::MixAic1_1,
        Some(e) if e.starts_with("sk_entry_aic") => KernelType::AicOnly,
        Some(e) if e.starts_with("sk_entry_aiv") => KernelType::AivOnly,
        Some(_) => return KernelInfo::Unknown,
        None => {
            let kind = |k: &str| kernels.iter().any(|t| t.kernel_type.as_deref() == Some(k));
            let (cube, vec) = kernels.iter().fold((0u64, 0u64), |(c, v), t| {
                let n = t.num_blocks.unwrap_or(0);
                match t.kernel_type.as_deref() {
                    Some("AIC_ONLY") => (c + n, v),
                    Some("MIX_1_1") => (c + n, v + n),
                    Some("MIX_1_2") => (c + n, v + 2 * n),
                    _ => (c, v + n),
                }
            });
            let has_cube = kinds_with_cube(&kernels);
            let has_vec = kernels
                .iter()
                .any(|t| t.kernel_type.as_deref() != Some("AIC_ONLY"));
            match (has_cube, has_vec) {
                (true, false) => KernelType::AicOnly,
                (false, _) => KernelType::AivOnly,
                _ if kind("MIX_1_2") || vec > cube => KernelType::MixAic1_2,
                _ => KernelType::MixAic1_1,
            }
        }
    };
    KernelInfo::Known(SkKernel {
        kernel_type,
        block_dim,
        forced: false,
    })
}

fn kinds_with_cube(kernels: &[&super::graph_json::Task]) -> bool {
    kernels.iter().any(|t| {
        matches!(
            t.kernel_type.as_deref(),
            Some("AIC_ONLY" | "MIX_1_1" | "MIX_1_2")
        )
    })
}

/// A SuperKernel as the plan shows it, whether the pass built it or skope predicts it.
struct SkView {
    /// The segment's name.
    name: String,
    /// The SuperKernel's name.
    fused_node: String,
    /// Its tasks.
    tasks: Vec<usize>,
    /// The task that launches it, when known.
    launch: Option<usize>,
    /// Its kernel.
    kernel: KernelInfo,
    /// The `ScopeBreakReason` key of the cut that ends it, and the trigger task.
    cut: Option<(String, usize)>,
}

/// A plan: per scope (as the marks make them, in order of first task), the SuperKernels of
/// `sks` as segments and their cuts and the scope's unfusible kernels as breaks; `findings`
/// are the graph's.
fn build_plan(
    model: &AclModel,
    cx: &Context,
    marks: &Marks,
    edited_from: Option<&Marks>,
    sks: Vec<SkView>,
    findings: Vec<Finding>,
) -> Plan {
    let (graph, verdicts) = (cx.graph(), cx.verdicts());
    let mut scopes: Vec<ScopePlan> = Vec::new();
    let options: Vec<String> = model
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let options = options.join(" ");
    for &id in graph.exec_order() {
        let Some(scope) = marks.scope_of(id) else {
            continue;
        };
        let at = ScopePlan::slot(&mut scopes, marks, scope, &options);
        if verdicts.get(id).verdict != Verdict::Ignored {
            scopes[at].members.push(id);
        }
    }
    let op = |i: usize| OpId(i as u32);
    for sk in sks {
        let Some(&first) = sk.tasks.iter().min_by_key(|&&i| model.tasks[i].node_id) else {
            continue;
        };
        let Some(scope) = marks
            .scope_of(op(first))
            .and_then(|name| scopes.iter_mut().find(|s| s.name == name))
        else {
            continue;
        };
        let mut ops: Vec<OpId> = sk.tasks.iter().map(|&i| op(i)).collect();
        ops.sort_by_key(|id| model.tasks[id.index()].node_id);
        let last = ops.last().copied();
        scope.segments.push(Segment {
            name: sk.name,
            fused_node: sk.fused_node,
            stream: model.tasks[sk.launch.unwrap_or(first)].stream,
            ops,
            options: options.clone(),
            kernel: sk.kernel,
            ratio_assumed: false,
        });
        if let Some((key, trigger)) = sk.cut {
            let edited = edited_from.and_then(|initial| edited_cut(marks, initial, op(trigger)));
            let reason = match (key.as_str(), verdicts.get(op(trigger)).verdict, edited) {
                (_, _, Some(reason)) => reason,
                ("UNFUSIBLE_NODE", Verdict::Unsupported(r), _) => BreakReason::Unsupported(r),
                (key, _, _) => reasons::break_verdict(key),
            };
            scope.breaks.push(Break {
                op: op(trigger),
                stream: model.tasks[trigger].stream,
                reason,
                cuts: true,
                in_range: true,
                before: last,
                after: None,
            });
        }
    }
    for scope in &mut scopes {
        // Unfusible kernels of the scope that cut nothing listed are breaks that cut nothing.
        for &id in &scope.members {
            if let Verdict::Unsupported(r) = verdicts.get(id).verdict
                && !scope.breaks.iter().any(|b| b.op == id)
            {
                scope.breaks.push(Break {
                    op: id,
                    stream: model.tasks[id.index()].stream,
                    reason: BreakReason::Unsupported(r),
                    cuts: false,
                    in_range: true,
                    before: None,
                    after: None,
                });
            }
        }
        scope
            .breaks
            .sort_by_key(|b| model.tasks[b.op.index()].node_id);
        scope
            .segments
            .sort_by_key(|s| s.ops.first().map(|id| model.tasks[id.index()].node_id));
        // The next segment of the scope is what follows a cut.
        for b in &mut scope.breaks {
            let at = model.tasks[b.op.index()].node_id;
            b.after = scope
                .segments
                .iter()
                .flat_map(|s| s.ops.iter())
                .find(|id| model.tasks[id.index()].node_id >= at)
                .copied();
        }
        let kernels = scope
            .members
            .iter()
            .filter(|id| model.tasks[id.index()].node_type == NodeType::Kernel)
            .count();
        scope.status = match scope.segments.len() {
            0 => ScopeStatus::Unfused,
            1 if scope.breaks.is_empty() => ScopeStatus::Fused,
            _ => ScopeStatus::Split,
        };
        if kernels == 0 {
            scope.findings.push(Finding {
                severity: Severity::Warning,
                op: None,
                message: "no kernel in this scope: the pass does not launch it (its tasks are \
                          SCOPE_FUSE_PART [NO_TARGET_NODE]; inferred, the logs list only \
                          kernels)"
                    .to_string(),
            });
        }
    }
    Plan::of_scopes(scopes, findings, Outcome::Ok, marks.scopes().len())
}

/// Why task `id` cuts its neighbours' scope when an edit made it do so: kept out of fusion,
/// taken out of every scope, or put in another scope.
fn edited_cut(marks: &Marks, initial: &Marks, id: OpId) -> Option<BreakReason> {
    let now = marks.get(id);
    if now == initial.get(id) {
        return None;
    }
    Some(match now {
        OpMark::DoNotFuse => BreakReason::DoNotFuse,
        OpMark::Unscoped => BreakReason::Unscoped,
        OpMark::Member { scope, .. } => BreakReason::OtherScope(scope),
    })
}

/// The graph's findings: the missing files and the problems between them.
fn file_findings(model: &AclModel) -> Vec<Finding> {
    let per_op = model.per_op_mode.as_ref().map(|how| Finding {
        severity: Severity::Warning,
        op: None,
        message: format!("{} ({how})", super::report::PER_OP_MODE),
    });
    let mut findings: Vec<Finding> = per_op.into_iter().collect();
    findings.extend(model.missing.iter().map(|f| Finding {
        severity: Severity::Warning,
        op: None,
        message: format!("{} is missing: no {}", f.name, f.shows),
    }));
    findings.extend(model.problems.iter().map(|p| Finding {
        severity: Severity::Warning,
        op: None,
        message: format!("{}: {}", p.file.display(), p.message),
    }));
    findings
}

/// The SuperKernels the pass built, each with its cut when that is a break of its scope
/// ([`AclModel::cut_is_the_scopes`]).
fn built(model: &AclModel) -> Vec<SkView> {
    model
        .sks
        .iter()
        .enumerate()
        .map(|(k, sk)| SkView {
            name: format!("sk_{}", sk.scope_id),
            fused_node: sk.name.clone(),
            tasks: sk.tasks.clone(),
            launch: sk.launch,
            kernel: kernel_of(model, &sk.tasks, sk.entry.as_deref()),
            cut: sk.break_info.as_ref().and_then(|b| {
                let trigger = b.trigger_node.and_then(|n| model.task_index(n))?;
                model
                    .cut_is_the_scopes(k)
                    .then(|| (b.reason.clone(), trigger))
            }),
        })
        .collect()
}

/// The SuperKernels skope predicts for the scopes of `marks`.
fn predicted(model: &AclModel, marks: &Marks) -> Vec<SkView> {
    let (memberships, names) = predict::memberships_of(model, marks);
    let prediction = predict::predict_for(model, &memberships, &names);
    let mut count: HashMap<String, usize> = HashMap::new();
    prediction
        .sks
        .into_iter()
        .map(|sk| {
            let n = count.entry(sk.scope.clone()).or_default();
            *n += 1;
            let func = |i: Option<&usize>| {
                i.and_then(|&i| model.tasks[i].func_name.clone())
                    .unwrap_or_default()
            };
            let kernels: Vec<usize> = sk
                .tasks
                .iter()
                .copied()
                .filter(|&i| model.tasks[i].node_type == NodeType::Kernel)
                .collect();
            SkView {
                name: format!("{}_{n}", sk.scope),
                fused_node: format!(
                    "sk_?_{}_start_{}_end_{}",
                    sk.scope,
                    func(kernels.first()),
                    func(kernels.last())
                ),
                kernel: kernel_of(model, &sk.tasks, None),
                launch: None,
                cut: sk.cut.map(|(k, i)| (k.to_string(), i)),
                tasks: sk.tasks,
            }
        })
        .collect()
}

/// True when every task of `a` and `b` is in the same scope (by name) or kept out alike:
/// scope names interned by edits that were undone do not count.
fn same_scopes(a: &Marks, b: &Marks, tasks: usize) -> bool {
    (0..tasks).all(|i| {
        let id = OpId(i as u32);
        a.scope_of(id) == b.scope_of(id)
            && matches!(a.get(id), OpMark::DoNotFuse) == matches!(b.get(id), OpMark::DoNotFuse)
    })
}

/// Why the aclgraph plan takes no options edit.
const OPTIONS_PER_GRAPH: &str = "aclgraph options are given once per graph to \
                                 super_kernel_optimize, not per scope, and skope does not predict \
                                 their effect on the pass: check a set with skope options \
                                 --aclgraph '{...}' (the run's own are in skope report)";

/// The aclgraph pass as a planner: the scopes the markers made plan to what the pass did (read
/// from its files); any other scopes to skope's prediction.
#[derive(Debug)]
pub struct AclPlanner {
    model: AclModel,
    /// Other model directories found beside this one.
    others: Vec<PathBuf>,
    initial: Marks,
    observed: Plan,
    /// The outermost scope of each scope label of more than one name.
    outer: HashMap<String, String>,
}

impl Planner for AclPlanner {
    fn plan(&self, cx: &Context, marks: &Marks) -> Plan {
        if same_scopes(marks, &self.initial, self.model.tasks.len()) {
            return self.observed.clone();
        }
        let mut findings = file_findings(&self.model);
        findings.insert(
            0,
            Finding {
                severity: Severity::Warning,
                op: None,
                message: format!(
                    "skope's prediction after your edits, not what the pass did ({}; undo \
                     every edit to see the pass's result again)",
                    predict::NOT_MODELLED
                ),
            },
        );
        build_plan(
            &self.model,
            cx,
            marks,
            Some(&self.initial),
            predicted(&self.model, marks),
            findings,
        )
    }

    fn refuses(&self, edit: &Edit) -> Option<&'static str> {
        matches!(edit, Edit::SetOptions { .. }).then_some(OPTIONS_PER_GRAPH)
    }

    fn options_model(&self) -> OptionsModel {
        OptionsModel::PerGraph(OPTIONS_PER_GRAPH)
    }

    fn notice(&self) -> Option<String> {
        self.model
            .per_op_mode
            .as_ref()
            .map(|how| format!("{} ({how})", super::report::PER_OP_MODE))
    }

    fn outer_scope(&self, scope: &str) -> Option<String> {
        self.outer.get(scope).cloned()
    }

    fn remedies(&self, marks: &Marks) -> Vec<Remedy> {
        super::heal::remedies(&self.model, marks, &self.outer)
    }

    fn own_report(&self) -> Option<OwnReport> {
        let report = super::report::AclReport::new(&self.model, &self.others);
        let summary = report.summary();
        let raw = |json: String| serde_json::value::RawValue::from_string(json).ok();
        Some(OwnReport {
            text: report.to_text(),
            summary: summary.to_text(),
            json: raw(serde_json::to_string_pretty(&report).ok()?)?,
            summary_json: raw(serde_json::to_string_pretty(&summary).ok()?)?,
        })
    }

    fn own_scope_code(&self) -> Option<OwnScopeCode> {
        Some(OwnScopeCode {
            code: super::export::python(&self.model),
            only: "the aclgraph pass's scopes export as Python only (the default --format \
                   torchair writes super_kernel_scope_begin/end and super_kernel_optimize)",
        })
    }

    fn no_entry_code(&self) -> Option<&'static str> {
        Some(
            "an aclgraph SuperKernel runs the prebuilt sk_entry_* kernel over task queues: \
             there is no generated entry source (skope report shows its queues)",
        )
    }
}

/// The workspace of `model`, named `file`, with `others` the model directories beside it: what
/// the pass did, re-planned by skope's prediction after an edit.
pub fn workspace(model: &AclModel, others: &[PathBuf], file: &str) -> Workspace {
    let graph = graph(model);
    let cx = Context::with_verdicts(graph, verdicts(model)).with_target(model.target.clone());
    let mut marks = Marks::from_graph(cx.graph());
    for (i, m) in model.memberships.iter().enumerate() {
        if m.excluded && model.tasks[i].marker.is_none() {
            marks.set_do_not_fuse(OpId(i as u32));
        }
    }
    let observed = build_plan(model, &cx, &marks, None, built(model), file_findings(model));
    let mut outer = HashMap::new();
    for m in &model.memberships {
        if m.bits.len() > 1 && !m.excluded {
            outer
                .entry(model.scope_label(m))
                .or_insert_with(|| model.scope_names[m.bits[0] as usize].clone());
        }
    }
    let planner = AclPlanner {
        model: model.clone(),
        others: others.to_vec(),
        initial: marks.clone(),
        observed,
        outer,
    };
    Workspace::with_planner(cx, marks, Arc::new(planner), Format::AclgraphPass, file)
}
