//! The plan: which segments GE's SuperKernel pass forms from each scope, which ops break the
//! scopes and why, and what to warn about. Facts: reference/ascend_superkernel.md §4.1.
//!
//! [`Context`] holds everything that depends only on the graph (streams, verdicts, kernel
//! info), built once; [`plan`] turns it and the current [`Marks`] into a [`Plan`] and is cheap
//! enough to run after every edit.

use super::Severity;
use super::kernel::{self, SkKernel, SubKernel};
use super::marks::{Marks, OpMark, ScopeIdx};
use super::options::{
    InvalidCheck, STRICT_SCOPE_CHECK, SkOptions, StrictScopeCheck, ge_strict_scope_check,
};
use super::rules::RuleSet;
use super::verdict::{Evidence, Reason, Verdict, Verdicts};
use crate::graph::{Graph, OpId};
use crate::target::{Target, TargetChoice};
use std::collections::HashMap;
use std::sync::Arc;

mod gate;
mod outcome;
pub use gate::Gate;
pub use outcome::{Outcome, OutcomeDetail, OutcomeKind};

/// One stream of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    /// GE's stream id; for dumps without stream ids, a number given in order of appearance
    /// (0 = ops without a stream label).
    pub id: i64,
    /// The `_user_stream_label` the stream was derived from, when inferred.
    pub label: Option<String>,
}

/// A tensor whose shape is not fully known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicTensor {
    /// The op.
    pub op: OpId,
    /// `input 0`, `output 1`…
    pub slot: String,
    /// The shape as text (`[?,7168]`).
    pub shape: String,
}

/// Everything the planner needs that does not change when scopes or options are edited.
#[derive(Debug)]
pub struct Context {
    graph: Arc<Graph>,
    verdicts: Verdicts,
    streams: Vec<StreamInfo>,
    streams_inferred: bool,
    op_stream: Vec<u32>,
    /// Non-ignored ops per stream, in execution order.
    by_stream: Vec<Vec<OpId>>,
    /// Position of each op in its stream list (`u32::MAX` for ignored ops).
    stream_pos: Vec<u32>,
    /// Topo id per op (execution position when the dump has none).
    topo: Vec<i64>,
    sub_kernels: Vec<Option<SubKernel>>,
    /// The verdict of each op in one byte, so a re-plan does not walk the verdict structs.
    class: Vec<Class>,
    hccl: Vec<bool>,
    dynamic: Option<DynamicTensor>,
    superkernel_nodes: usize,
    has_topo_ids: bool,
    /// The hardware the graph is built for.
    target: TargetChoice,
}

const NO_POS: u32 = u32::MAX;

/// A verdict reduced to what the planner branches on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Fusible,
    FusibleAssumed,
    Ignored,
    Unsupported,
}

impl Class {
    fn of(v: &super::verdict::OpVerdict) -> Class {
        match (v.verdict, v.evidence) {
            (Verdict::Fusible, Evidence::Assumed) => Class::FusibleAssumed,
            (Verdict::Fusible, _) => Class::Fusible,
            (Verdict::Ignored, _) => Class::Ignored,
            (Verdict::Unsupported(_), _) => Class::Unsupported,
        }
    }

    fn fusible(self) -> bool {
        matches!(self, Class::Fusible | Class::FusibleAssumed)
    }
}

impl Context {
    /// Prepares `graph` for planning with `rules`.
    pub fn new(graph: impl Into<Arc<Graph>>, rules: &RuleSet) -> Context {
        let shared: Arc<Graph> = graph.into();
        let verdicts = Verdicts::compute(&shared, |t| rules.get(t));
        Context::with_verdicts(shared, verdicts).with_target(rules.target().clone())
    }

    /// This context for the graph built for `target`.
    pub fn with_target(self, target: TargetChoice) -> Context {
        Context { target, ..self }
    }

    /// The hardware the graph is built for, and how skope knows it.
    pub fn target(&self) -> &TargetChoice {
        &self.target
    }

    /// This context with every op assumed fusible taken as unfusible
    /// ([`Verdicts::assumed_unfusible`]); `None` when no op is assumed fusible.
    pub fn assumed_unfusible(&self) -> Option<Context> {
        let verdicts = self.verdicts.assumed_unfusible()?;
        let cx = Context::with_verdicts(Arc::clone(&self.graph), verdicts);
        Some(cx.with_target(self.target.clone()))
    }

    /// Prepares `graph` for planning with verdicts known otherwise (read from a pass's own
    /// files).
    pub fn with_verdicts(graph: impl Into<Arc<Graph>>, verdicts: Verdicts) -> Context {
        let shared: Arc<Graph> = graph.into();
        let graph: &Graph = &shared;
        let n = graph.len();
        let mut topo = vec![0i64; n];
        for (pos, &id) in graph.exec_order().iter().enumerate() {
            topo[id.index()] = graph.op(id).topo_id.unwrap_or(pos as i64);
        }
        let (streams, op_stream, streams_inferred) = assign_streams(graph);
        let mut by_stream = vec![Vec::new(); streams.len()];
        let mut stream_pos = vec![NO_POS; n];
        for &id in graph.exec_order() {
            if verdicts.get(id).verdict == Verdict::Ignored {
                continue;
            }
            let list = &mut by_stream[op_stream[id.index()] as usize];
            stream_pos[id.index()] = list.len() as u32;
            list.push(id);
        }
        let ops = graph.ops();
        Context {
            graph: Arc::clone(&shared),
            streams,
            streams_inferred,
            op_stream,
            by_stream,
            stream_pos,
            topo,
            sub_kernels: ops.iter().map(SubKernel::of).collect(),
            class: (0..n)
                .map(|i| Class::of(verdicts.get(OpId(i as u32))))
                .collect(),
            // GE looks at `_hccl` only; dumps taken before compilation lack it, so the Hcom
            // op types count too.
            hccl: ops
                .iter()
                .map(|op| op.attrs.get_int("_hccl") == Some(1) || op.op_type.starts_with("Hcom"))
                .collect(),
            dynamic: find_dynamic(graph),
            superkernel_nodes: ops
                .iter()
                .filter(|op| op.op_type == super::kernel::SUPERKERNEL_TYPE)
                .count(),
            has_topo_ids: graph.has_topo_ids(),
            verdicts,
            target: TargetChoice::default(),
        }
    }

    /// The kernel type and block dim of `id`, when its dump attributes give them.
    pub fn sub_kernel(&self, id: OpId) -> Option<SubKernel> {
        self.sub_kernels.get(id.index()).copied().flatten()
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The verdict on every op.
    pub fn verdicts(&self) -> &Verdicts {
        &self.verdicts
    }

    /// The streams, by index.
    pub fn streams(&self) -> &[StreamInfo] {
        &self.streams
    }

    /// The stream index of op `id`.
    pub fn stream_of(&self, id: OpId) -> u32 {
        self.op_stream[id.index()]
    }

    /// The topo id of op `id` (its execution position when the dump has no ids).
    pub fn topo(&self, id: OpId) -> i64 {
        self.topo[id.index()]
    }
}

/// Streams from GE stream ids when the dump has them, else from `_user_stream_label`
/// (inferred: GE puts each label on its own stream; unlabelled ops get stream 0, labels 1, 2…
/// in order of appearance), else one stream.
fn assign_streams(graph: &Graph) -> (Vec<StreamInfo>, Vec<u32>, bool) {
    let mut streams: Vec<StreamInfo> = Vec::new();
    let mut index: HashMap<(i64, Option<&str>), u32> = HashMap::new();
    let has_ids = graph.has_streams();
    let mut op_stream = vec![0u32; graph.len()];
    let mut labels = 0i64;
    for &id in graph.exec_order() {
        let op = graph.op(id);
        let key = if has_ids {
            (op.stream.unwrap_or(0), None)
        } else {
            (0, op.stream_label())
        };
        let idx = *index.entry(key).or_insert_with(|| {
            let id = match key {
                (id, None) => id,
                (_, Some(_)) => {
                    labels += 1;
                    labels
                }
            };
            streams.push(StreamInfo {
                id,
                label: key.1.map(str::to_string),
            });
            (streams.len() - 1) as u32
        });
        op_stream[id.index()] = idx;
    }
    if streams.is_empty() {
        streams.push(StreamInfo { id: 0, label: None });
    }
    (streams, op_stream, labels > 0)
}

fn find_dynamic(graph: &Graph) -> Option<DynamicTensor> {
    for &id in graph.exec_order() {
        let op = graph.op(id);
        let sides = [("input", &op.input_descs), ("output", &op.output_descs)];
        for (side, descs) in sides {
            if let Some((i, d)) = descs.iter().enumerate().find(|(_, d)| d.is_dynamic()) {
                return Some(DynamicTensor {
                    op: id,
                    slot: format!("{side} {i}"),
                    shape: d.shape_text(),
                });
            }
        }
    }
    None
}

/// Why an op breaks a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakReason {
    /// A member the pass cannot fuse.
    Unsupported(Reason),
    /// An op of another scope between members on the same stream.
    OtherScope(ScopeIdx),
    /// An op without a scope between members on the same stream.
    Unscoped,
    /// An op kept out of fusion (`super_kernel(None)`) between members on the same stream.
    DoNotFuse,
    /// A cut another fusion system made for a scope-level reason (the aclgraph pass's
    /// `ScopeBreakReason`), in its own table's words; the op is the task that triggered it.
    Foreign {
        /// The reason's key, meaning and next step.
        text: &'static crate::reason_text::ReasonText,
        /// Whose reason it is, in words that read before "advice" (`the runtime pass's`).
        whose: &'static str,
    },
}

impl BreakReason {
    /// A stable code for JSON: a [`Reason`] code, `other_scope`, `unscoped` or `do_not_fuse`.
    pub fn code(self) -> &'static str {
        match self {
            BreakReason::Unsupported(r) => r.code(),
            BreakReason::OtherScope(_) => "other_scope",
            BreakReason::Unscoped => "unscoped",
            BreakReason::DoNotFuse => "do_not_fuse",
            BreakReason::Foreign { text, .. } => text.key,
        }
    }
}

/// An op that cuts a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// The op.
    pub op: OpId,
    /// Its stream index.
    pub stream: u32,
    /// Why it breaks the scope.
    pub reason: BreakReason,
    /// True when its topo id cuts the scope. False for an unsupported member alone on its
    /// stream (left out, nothing to split) and, under strict-scope-check, for an op that only
    /// trips the check.
    pub cuts: bool,
    /// True when it lies between the scope's first and last kept member on its stream (with
    /// strict-scope-check, such an op trips the check).
    pub in_range: bool,
    /// The scope's nearest fusible member before it on the same stream.
    pub before: Option<OpId>,
    /// The scope's nearest fusible member after it on the same stream.
    pub after: Option<OpId>,
}

/// One fused run: the ops that become one SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// GE's name for it: `<scope>_split_<a>_<b>`, or the scope name when the scope is not cut.
    pub name: String,
    /// The SuperKernel node's name: `sk_<name>_start_<first op>_end_<last op>`.
    pub fused_node: String,
    /// Stream index the SuperKernel runs on.
    pub stream: u32,
    /// Sub-ops in topo order.
    pub ops: Vec<OpId>,
    /// The options string of the first sub-op (the one the SuperKernel is compiled with).
    pub options: String,
    /// Kernel type and block dim.
    pub kernel: KernelInfo,
    /// True when a sub-op's AIC:AIV ratio was assumed (the dump said only "mixed").
    pub ratio_assumed: bool,
}

/// A segment's SuperKernel kernel type and block dim, as far as the dump tells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelInfo {
    /// Computed from every sub-op's core type and block dim.
    Known(SkKernel),
    /// A sub-op lacks `_cube_vector_core_type` or a block dim (dump taken before compiling).
    Unknown,
    /// The compiler rejects the debug core counts; the message is the compiler's.
    Fails(String),
    /// Not a SuperKernel: a MindSpore composite, built by its kernel generator (AKG or DVM).
    Composite,
}

impl KernelInfo {
    /// The kernel, when known.
    pub fn known(&self) -> Option<&SkKernel> {
        match self {
            KernelInfo::Known(k) => Some(k),
            _ => None,
        }
    }

    /// `MIX_AIC_1_2 × 24`, when known.
    pub fn label(&self) -> Option<String> {
        self.known().map(SkKernel::label)
    }
}

/// What GE does with a scope as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeStatus {
    /// All members fuse into one SuperKernel.
    Fused,
    /// Breaks cut the scope; the segments are what is left.
    Split,
    /// No member can be fused.
    Unfused,
    /// `strict-scope-check=bypass` and a break: the scope gets no SuperKernel.
    Dropped,
    /// The graph build fails at this scope: `strict-scope-check=abort` and a break, or a
    /// `strict-scope-check` value GE rejects.
    Aborted,
    /// The graph build fails at another scope, so this one gets no SuperKernel either.
    NotBuilt,
    /// The graph is dynamic-shape: GE skips SuperKernel entirely.
    Skipped,
}

impl ScopeStatus {
    /// A stable code for JSON.
    pub fn name(self) -> &'static str {
        match self {
            ScopeStatus::Fused => "fused",
            ScopeStatus::Split => "split",
            ScopeStatus::Unfused => "unfused",
            ScopeStatus::Dropped => "dropped",
            ScopeStatus::Aborted => "aborted",
            ScopeStatus::NotBuilt => "not_built",
            ScopeStatus::Skipped => "skipped",
        }
    }

    /// The same in words for people (`not built` for `not_built`).
    pub fn label(self) -> &'static str {
        match self {
            ScopeStatus::NotBuilt => "not built",
            other => other.name(),
        }
    }
}

/// Something the user should know about a scope or the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// `Error` when the build fails.
    pub severity: Severity,
    /// The op concerned, if any.
    pub op: Option<OpId>,
    /// What happens, in words.
    pub message: String,
}

/// The plan of one scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopePlan {
    /// The scope's index in the marks.
    pub mark: ScopeIdx,
    /// The scope name.
    pub name: String,
    /// The options string of its first op.
    pub options: String,
    /// Members (ops marked with the scope that the pass does not ignore), in execution order.
    pub members: Vec<OpId>,
    /// What happens to it.
    pub status: ScopeStatus,
    /// The fused runs, in topo order of their first op.
    pub segments: Vec<Segment>,
    /// The ops that cut it, in execution order.
    pub breaks: Vec<Break>,
    /// Warnings and errors about it.
    pub findings: Vec<Finding>,
    /// Members whose fusibility is assumed (nothing in the dump or rules says): the plan
    /// holds if they are AscendC kernels.
    pub assumed: usize,
}

impl ScopePlan {
    /// The status in words, saying what it rests on: `fused if 3 assumed ops are AscendC`,
    /// `split (2 assumed AscendC)`.
    pub fn status_words(&self) -> String {
        let label = self.status.label();
        match (self.assumed, self.status) {
            (0, _) => label.to_string(),
            (n, ScopeStatus::Fused) => format!(
                "fused if {n} assumed op{} AscendC",
                if n == 1 { " is" } else { "s are" }
            ),
            (n, _) => format!("{label} ({n} assumed AscendC)"),
        }
    }

    /// The index in `scopes` of the plan of scope `name` (of `marks`), adding an empty,
    /// unfused one with `options` when there is none yet: for planners that read what another
    /// pass did and fill the plans in.
    pub fn slot(scopes: &mut Vec<ScopePlan>, marks: &Marks, name: &str, options: &str) -> usize {
        if let Some(at) = scopes.iter().position(|s| s.name == name) {
            return at;
        }
        scopes.push(ScopePlan {
            mark: marks.scope_named(name).unwrap_or(0),
            name: name.to_string(),
            options: options.to_string(),
            members: Vec::new(),
            status: ScopeStatus::Unfused,
            segments: Vec::new(),
            breaks: Vec::new(),
            findings: Vec::new(),
            assumed: 0,
        });
        scopes.len() - 1
    }
}

/// How far a plan resting on assumed verdicts can be off: the plan as made takes every op
/// whose fusibility nothing in the dump or rules says as fusible (an AscendC kernel); this is
/// the plan if none of them is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct AssumedRange {
    /// Scope members assumed fusible.
    pub ops: usize,
    /// Segments if none of them is fusible.
    pub segments: usize,
    /// Breaks if none of them is fusible.
    pub breaks: usize,
}

/// The plan of a graph: every scope's segments, breaks and findings.
#[derive(Debug, Clone, Default, Eq)]
pub struct Plan {
    /// For each scope of the marks, its index in `scopes` (`NO_SCOPE` when it marks no op).
    by_mark: Vec<u32>,
    /// The scopes that mark at least one op, in order of their first marked op.
    /// [`Plan::scope_of_mark`] finds a scope of the marks here; [`ScopePlan::mark`] goes back.
    pub scopes: Vec<ScopePlan>,
    /// Findings about the graph as a whole.
    pub findings: Vec<Finding>,
    /// Whether the graph builds with its SuperKernels. When it does not, no scope has segments.
    pub outcome: Outcome,
}

/// Plans are equal when their scopes, findings and outcomes are (the lookup from marks follows
/// from the scopes; the marks' name table may hold names no op uses any more).
impl PartialEq for Plan {
    fn eq(&self, other: &Plan) -> bool {
        self.scopes == other.scopes
            && self.findings == other.findings
            && self.outcome == other.outcome
    }
}

impl Plan {
    /// A plan of `scopes` made elsewhere (read from a pass's own files) for marks with
    /// `mark_count` scopes.
    pub fn of_scopes(
        scopes: Vec<ScopePlan>,
        findings: Vec<Finding>,
        outcome: Outcome,
        mark_count: usize,
    ) -> Plan {
        let mut by_mark = vec![NO_SCOPE; mark_count];
        for (i, scope) in scopes.iter().enumerate() {
            if let Some(slot) = by_mark.get_mut(scope.mark as usize) {
                *slot = i as u32;
            }
        }
        Plan {
            by_mark,
            scopes,
            findings,
            outcome,
        }
    }

    /// The index in [`Plan::scopes`] of the scope with index `mark` in the marks, when it
    /// marks any op.
    pub fn scope_of_mark(&self, mark: ScopeIdx) -> Option<usize> {
        self.by_mark
            .get(mark as usize)
            .filter(|&&i| i != NO_SCOPE)
            .map(|&i| i as usize)
    }

    /// Number of segments.
    pub fn segment_count(&self) -> usize {
        self.scopes.iter().map(|s| s.segments.len()).sum()
    }

    /// Number of breaks.
    pub fn break_count(&self) -> usize {
        self.scopes.iter().map(|s| s.breaks.len()).sum()
    }

    /// The errors of the plan: error findings, and a graph-level outcome without one (a
    /// dynamic-shape graph gets no SuperKernel; a failed build's findings are errors already).
    pub fn errors(&self) -> usize {
        let findings = self
            .all_findings()
            .filter(|f| f.severity == Severity::Error)
            .count();
        findings + usize::from(matches!(self.outcome, Outcome::NoSuperKernel(_)))
    }

    /// Every finding: the graph's, then each scope's.
    pub fn all_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .chain(self.scopes.iter().flat_map(|s| s.findings.iter()))
    }
}

/// Plans every scope of `marks` on the graph of `cx`: the scopes that mark at least one op,
/// in order of their first marked op.
pub fn plan(cx: &Context, marks: &Marks) -> Plan {
    plan_keeping(cx, marks, Vec::new())
}

/// Plans again after an edit, keeping the plans of the scopes the edit cannot have changed;
/// the result equals [`plan`]'s. `changed` lists the ops whose marks changed, each with the
/// scope it was in before; `touched` the scopes renamed or given new options.
///
/// A scope's plan depends on its own members and options, on the ops between its members on
/// each stream, and (in its findings' words) on the names of the scopes those ops belong to.
/// So a scope is planned again when it gained or lost a member, was touched, has a changed op
/// between its first and last member on that op's stream, or is broken by a touched scope.
pub fn replan(
    cx: &Context,
    marks: &Marks,
    old: Plan,
    changed: &[(OpId, Option<ScopeIdx>)],
    touched: &[ScopeIdx],
) -> Plan {
    // A failed build strips every scope's segments: plan them all again.
    if matches!(old.outcome, Outcome::BuildFails(_)) {
        return plan(cx, marks);
    }
    let mut affected = vec![false; marks.scopes().len()];
    let mut mark = |s: ScopeIdx| {
        if let Some(a) = affected.get_mut(s as usize) {
            *a = true;
        }
    };
    touched.iter().for_each(|&s| mark(s));
    for &(id, before) in changed {
        before.into_iter().for_each(&mut mark);
        if let OpMark::Member { scope, .. } = marks.get(id) {
            mark(scope);
        }
    }
    let graph = cx.graph();
    let at: Vec<(u32, usize)> = changed
        .iter()
        .map(|&(id, _)| (cx.stream_of(id), graph.exec_position(id)))
        .collect();
    let mut kept: Vec<Option<ScopePlan>> = Vec::new();
    kept.resize_with(marks.scopes().len(), || None);
    for scope in old.scopes {
        let s = scope.mark as usize;
        let named = scope
            .breaks
            .iter()
            .any(|b| matches!(b.reason, BreakReason::OtherScope(o) if touched.contains(&o)));
        if named || affected.get(s).copied().unwrap_or(true) {
            continue;
        }
        // The scope's span on each stream it has members on: (stream, first, last).
        let mut spans: Vec<(u32, usize, usize)> = Vec::new();
        for &id in &scope.members {
            let (stream, pos) = (cx.stream_of(id), graph.exec_position(id));
            match spans.iter_mut().find(|(st, _, _)| *st == stream) {
                Some(span) => {
                    span.1 = span.1.min(pos);
                    span.2 = span.2.max(pos);
                }
                None => spans.push((stream, pos, pos)),
            }
        }
        let inside = at.iter().any(|&(stream, pos)| {
            spans
                .iter()
                .any(|&(st, first, last)| st == stream && first < pos && pos < last)
        });
        if !inside {
            kept[s] = Some(scope);
        }
    }
    plan_keeping(cx, marks, kept)
}

/// The plans of the scopes `scopes` of `marks` alone, each given with its members (in
/// execution order, ignored ops left out), as [`plan`] makes them: for checking an edit that
/// changes those scopes only, without planning the rest of the graph.
pub fn plan_scopes(
    cx: &Context,
    marks: &Marks,
    scopes: Vec<(ScopeIdx, Vec<OpId>)>,
) -> Vec<ScopePlan> {
    let mut parsed: Vec<Option<Parsed>> = Vec::new();
    parsed.resize_with(marks.options_count(), || None);
    for &id in scopes.iter().flat_map(|(_, members)| members) {
        if let Some(i) = options_index(marks, id) {
            parsed[i as usize].get_or_insert_with(|| Parsed::new(marks.options_text(i)));
        }
    }
    scopes
        .into_iter()
        .map(|(mark, members)| plan_scope(cx, marks, &parsed, mark, members))
        .collect()
}

/// [`plan`], taking `kept[mark]` as the plan of scope `mark` where it is given.
fn plan_keeping(cx: &Context, marks: &Marks, mut kept: Vec<Option<ScopePlan>>) -> Plan {
    let graph = cx.graph();
    kept.resize_with(marks.scopes().len(), || None);
    let mut members: Vec<Vec<OpId>> = vec![Vec::new(); marks.scopes().len()];
    let mut order: Vec<ScopeIdx> = Vec::new();
    let mut seen = vec![false; marks.scopes().len()];
    let mut options_used = vec![false; marks.options_count()];
    for &id in graph.exec_order() {
        if let OpMark::Member { scope, options } = marks.get(id) {
            if !std::mem::replace(&mut seen[scope as usize], true) {
                order.push(scope);
            }
            if kept[scope as usize].is_none() {
                options_used[options as usize] = true;
                if cx.class[id.index()] != Class::Ignored {
                    members[scope as usize].push(id);
                }
            }
        }
    }
    // Each distinct options string in use is parsed once per plan.
    let parsed: Vec<Option<Parsed>> = options_used
        .iter()
        .enumerate()
        .map(|(i, used)| used.then(|| Parsed::new(marks.options_text(i as u32))))
        .collect();
    // GE reads strict-scope-check from every member's options in execution order before it
    // plans anything, and the first value it rejects fails the build. (Kept scopes come from a
    // plan whose build did not fail, so none of them holds such a value.)
    let invalid_check = members
        .iter()
        .flatten()
        .filter_map(|&id| Some((id, own_check(marks, &parsed, id).err()?)))
        .min_by_key(|(id, _)| graph.exec_position(*id));
    let mut by_mark = vec![NO_SCOPE; marks.scopes().len()];
    let scopes = order
        .iter()
        .enumerate()
        .map(|(at, &mark)| {
            by_mark[mark as usize] = at as u32;
            kept[mark as usize].take().unwrap_or_else(|| {
                let members = std::mem::take(&mut members[mark as usize]);
                plan_scope(cx, marks, &parsed, mark, members)
            })
        })
        .collect::<Vec<_>>();
    let outcome = outcome::of(cx, marks, &scopes, invalid_check);
    let mut plan = Plan {
        findings: graph_findings(cx, marks, !scopes.is_empty()),
        scopes,
        by_mark,
        outcome,
    };
    if let Outcome::BuildFails(failure) = &plan.outcome {
        for scope in &mut plan.scopes {
            outcome::not_built(scope, failure.scope.as_deref());
        }
    }
    plan
}

/// An options string as the SuperKernel compiler parses it and as GE reads
/// `strict-scope-check` from it.
struct Parsed {
    options: SkOptions,
    check: Result<Option<StrictScopeCheck>, InvalidCheck>,
}

impl Parsed {
    fn new(text: &str) -> Parsed {
        Parsed {
            options: SkOptions::parse(text),
            check: ge_strict_scope_check(text),
        }
    }
}

const NO_SCOPE: u32 = u32::MAX;

/// The finding for a dump that already holds SuperKernel nodes.
fn superkernel_nodes_finding(cx: &Context, warn: &mut impl FnMut(Option<OpId>, String)) {
    if cx.superkernel_nodes > 0 {
        warn(
            None,
            format!(
                "the graph already holds {} SuperKernel node(s) (an AfterSkGraph dump?): compare \
                 it with the pre-fusion dump using `skope report PRE_FUSION --verify THIS_FILE`",
                cx.superkernel_nodes
            ),
        );
    }
}

fn graph_findings(cx: &Context, marks: &Marks, any_scope: bool) -> Vec<Finding> {
    let graph = cx.graph();
    let unreadable = graph.scopes_unreadable();
    let mut out: Vec<Finding> = unreadable
        .map(|why| Finding {
            severity: Severity::Error,
            op: None,
            message: format!("scopes unreadable: skope cannot judge this graph: {why}"),
        })
        .into_iter()
        .collect();
    let mut warn = |op, message| {
        out.push(Finding {
            severity: Severity::Warning,
            op,
            message,
        })
    };
    superkernel_nodes_finding(cx, &mut warn);
    if cx.target.target == Target::Dav3510 {
        // superkernel_ops_2026.md §1.1: the op compiler's --enable_super_kernel and SK_BIND are
        // "不支持" on 950PR/950DT; the aclgraph runtime fuses there (experimental).
        warn(
            None,
            format!(
                "the target is {}: GE mode's SuperKernel path (the op compiler's \
                 --enable_super_kernel) and SK_BIND are not supported on Ascend 950, so this \
                 plan follows GE's rules but the build may make no SuperKernel; on Ascend 950 \
                 the aclgraph path (npugraph_ex, super_kernel_optimize) fuses, experimentally",
                cx.target.words()
            ),
        );
    }
    if unreadable.is_some() {
        return out;
    }
    if !any_scope {
        warn(
            None,
            "no scope marked: GE builds no SuperKernel for this graph (mark ops with \
             torchair.scope.super_kernel, or super_kernel_scope_begin/end on the aclgraph path)"
                .to_string(),
        );
        return out;
    }
    if !cx.has_topo_ids {
        warn(
            None,
            "the dump has no topo ids (taken before GE compiles): split names use execution \
             positions and will differ from the names GE gives"
                .to_string(),
        );
    }
    if cx.streams_inferred {
        warn(
            None,
            "the dump has no stream ids: streams are inferred from _user_stream_label (one \
             stream per label)"
                .to_string(),
        );
    }
    let assumed = graph
        .exec_order()
        .iter()
        .filter(|&&id| {
            matches!(marks.get(id), OpMark::Member { .. })
                && cx.class[id.index()] == Class::FusibleAssumed
        })
        .count();
    if assumed > 0 {
        warn(
            None,
            format!(
                "{assumed} scoped op(s) are assumed fusible: the dump has no supportSuperKernel and \
                 the rules table does not list their types (add them with --rules FILE)"
            ),
        );
    }
    out
}

fn plan_scope(
    cx: &Context,
    marks: &Marks,
    parsed: &[Option<Parsed>],
    index: ScopeIdx,
    members: Vec<OpId>,
) -> ScopePlan {
    let name = marks.scopes()[index as usize].clone();
    let first_options = members
        .first()
        .map(|&id| options_of(marks, id))
        .unwrap_or("");
    let options = members
        .first()
        .and_then(|&id| options_index(marks, id))
        .and_then(|i| parsed[i as usize].as_ref())
        .map(|p| &p.options);
    let mut findings = option_findings(marks, &members, first_options, options);
    let assumed = members
        .iter()
        .filter(|id| cx.class[id.index()] == Class::FusibleAssumed)
        .count();
    let mut scope = ScopePlan {
        mark: index,
        name,
        options: first_options.to_string(),
        members,
        status: ScopeStatus::Fused,
        segments: Vec::new(),
        breaks: Vec::new(),
        findings: Vec::new(),
        assumed,
    };
    if cx.dynamic.is_some() {
        scope.status = ScopeStatus::Skipped;
        scope.findings = findings;
        return scope;
    }
    if let Some((id, invalid)) = scope
        .members
        .iter()
        .find_map(|&id| Some((id, own_check(marks, parsed, id).err()?)))
    {
        findings.push(invalid_check_finding(cx, id, &invalid));
    }
    // GE keeps the value of the last member whose options set strict-scope-check.
    let check = scope
        .members
        .iter()
        .rev()
        .find_map(|&id| own_check(marks, parsed, id).ok().flatten());
    let found = find_breaks(cx, marks, parsed, index, check.is_some(), &scope.members);
    scope.breaks = found.breaks;
    let first_trigger = first_trigger(cx, &scope.breaks);
    // Without strict-scope-check every kept member is fusible; with it, an unsupported member
    // that keeps its scope trips the check, so it reaches a segment only in the bypass split.
    let kept = found.kept;
    if let (Some(check), Some(trigger)) = (check, first_trigger) {
        let op = cx.graph().op(trigger.op);
        let what = describe_reason(marks, trigger.reason);
        let cuts = scope.breaks.iter().any(|b| b.cuts);
        if check == StrictScopeCheck::Abort {
            findings.push(Finding {
                severity: Severity::Error,
                op: Some(trigger.op),
                message: format!(
                    "strict-scope-check=abort: the build fails at {} ({}): {what}",
                    op.name, op.op_type
                ),
            });
            scope.status = ScopeStatus::Aborted;
            scope.findings = findings;
            return scope;
        }
        if !cuts {
            findings.push(Finding {
                severity: Severity::Warning,
                op: Some(trigger.op),
                message: format!(
                    "strict-scope-check=bypass: GE drops the whole scope because of {} ({}): \
                     {what}; none of its ops is fused",
                    op.name, op.op_type
                ),
            });
            scope.status = ScopeStatus::Dropped;
            scope.findings = findings;
            return scope;
        }
        findings.push(Finding {
            severity: Severity::Warning,
            op: Some(trigger.op),
            message: format!(
                "strict-scope-check=bypass would drop the scope because of {} ({}), but GE \
                 already removed unsupported members without the option, so it splits the scope \
                 at those only (inferred from GE's code)",
                op.name, op.op_type
            ),
        });
    }
    let cut_ids: Vec<i64> = scope
        .breaks
        .iter()
        .filter(|b| b.cuts)
        .map(|b| cx.topo(b.op))
        .collect();
    scope.segments = split(cx, marks, parsed, &scope.name, &kept, &cut_ids);
    scope.status = if scope.segments.is_empty() {
        ScopeStatus::Unfused
    } else if scope.breaks.is_empty() {
        ScopeStatus::Fused
    } else {
        ScopeStatus::Split
    };
    if scope.status == ScopeStatus::Unfused && !scope.members.is_empty() {
        findings.push(Finding {
            severity: Severity::Warning,
            op: None,
            message: "no member can be fused: the scope gets no SuperKernel".to_string(),
        });
    }
    for seg in &scope.segments {
        findings.extend(segment_findings(seg));
    }
    scope.findings = findings;
    scope
}

/// The `strict-scope-check` value in op `id`'s own options, as GE reads it.
fn own_check(
    marks: &Marks,
    parsed: &[Option<Parsed>],
    id: OpId,
) -> Result<Option<StrictScopeCheck>, InvalidCheck> {
    match options_index(marks, id).and_then(|i| parsed[i as usize].as_ref()) {
        Some(p) => p.check.clone(),
        None => Ok(None),
    }
}

/// The break at which GE's strict-scope-check trips: the first op in range in GE's order
/// (streams by id, then position on the stream).
fn first_trigger<'a>(cx: &Context, breaks: &'a [Break]) -> Option<&'a Break> {
    breaks.iter().filter(|b| b.in_range).min_by_key(|b| {
        (
            cx.streams[b.stream as usize].id,
            cx.stream_pos[b.op.index()],
        )
    })
}

fn invalid_check_finding(cx: &Context, id: OpId, invalid: &InvalidCheck) -> Finding {
    let op = cx.graph().op(id);
    let compiler = invalid
        .compiler_message()
        .map(|c| format!("; the SuperKernel compiler would say: {c}"))
        .unwrap_or_default();
    Finding {
        severity: Severity::Error,
        op: Some(id),
        message: format!(
            "{} ({}) has {STRICT_SCOPE_CHECK}=\"{}\", which GE rejects: the whole graph build \
             fails (GE: {}{compiler})",
            op.name,
            op.op_type,
            invalid.value,
            invalid.ge_message()
        ),
    }
}

/// The index of op `id`'s options string, for a member.
fn options_index(marks: &Marks, id: OpId) -> Option<u32> {
    match marks.get(id) {
        OpMark::Member { options, .. } => Some(options),
        _ => None,
    }
}

fn options_of(marks: &Marks, id: OpId) -> &str {
    match marks.get(id) {
        OpMark::Member { options, .. } => marks.options_text(options),
        _ => "",
    }
}

fn option_findings(
    marks: &Marks,
    members: &[OpId],
    first_options: &str,
    options: Option<&SkOptions>,
) -> Vec<Finding> {
    let mut out: Vec<Finding> = options
        .map(SkOptions::diagnostics)
        .unwrap_or_default()
        .iter()
        // GE reads strict-scope-check itself, before the compiler: the planner reports it.
        .filter(|d| d.key != STRICT_SCOPE_CHECK)
        .map(|d| Finding {
            severity: d.severity,
            op: members.first().copied(),
            message: format!(
                "options \"{first_options}\": {} (GE: {})",
                d.message, d.ge_message
            ),
        })
        .collect();
    let first_index = members.first().and_then(|&id| options_index(marks, id));
    let differing: Vec<OpId> = members
        .iter()
        .copied()
        .filter(|&id| options_index(marks, id) != first_index)
        .collect();
    if let Some(&example) = differing.first() {
        out.push(Finding {
            severity: Severity::Warning,
            op: Some(example),
            message: format!(
                "{} member(s) carry options different from the first op's (\"{first_options}\"), \
                 e.g. \"{}\"; each SuperKernel is compiled with the options of its first op",
                differing.len(),
                options_of(marks, example)
            ),
        });
    }
    out
}

/// Positions of a scope's kept members per stream (ascending), for the few streams a scope
/// touches: a small vector beats a hash map here.
#[derive(Default)]
struct StreamPositions(Vec<(u32, Vec<u32>)>);

impl StreamPositions {
    fn push(&mut self, stream: u32, pos: u32) {
        match self.0.iter_mut().find(|(s, _)| *s == stream) {
            Some((_, list)) => list.push(pos),
            None => self.0.push((stream, vec![pos])),
        }
    }

    fn get(&self, stream: u32) -> Option<&[u32]> {
        self.0
            .iter()
            .find(|(s, _)| *s == stream)
            .map(|(_, l)| l.as_slice())
    }
}

/// The members GE keeps in the scope, and the breaks.
struct Found {
    kept: Vec<OpId>,
    breaks: Vec<Break>,
}

/// GE's collect and select steps for one scope. An unsupported member loses its scope unless
/// its own options set strict-scope-check; its topo id is a cut on every stream where the scope
/// keeps members. Then, per stream, every non-ignored op between the first and last kept
/// member that is not a fusible kept member is a cut — or, with strict-scope-check, trips the
/// check instead (and adds no cut of its own).
fn find_breaks(
    cx: &Context,
    marks: &Marks,
    parsed: &[Option<Parsed>],
    index: ScopeIdx,
    strict_scope: bool,
    members: &[OpId],
) -> Found {
    let mut kept = Vec::with_capacity(members.len());
    let mut removed = Vec::new();
    // Positions of kept members per stream, ascending (members are in execution order).
    let mut positions = StreamPositions::default();
    for &id in members {
        let unsupported = !cx.class[id.index()].fusible();
        if unsupported && !matches!(own_check(marks, parsed, id), Ok(Some(_))) {
            removed.push(id);
            continue;
        }
        kept.push(id);
        positions.push(cx.stream_of(id), cx.stream_pos[id.index()]);
    }
    let removed_at: HashMap<OpId, usize> =
        removed.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut breaks: Vec<Break> = removed
        .iter()
        .map(|&id| {
            let stream = cx.stream_of(id);
            Break {
                op: id,
                stream,
                reason: reason_of(cx, marks, index, id),
                cuts: positions.get(stream).is_some(),
                in_range: false,
                before: None,
                after: None,
            }
        })
        .collect();
    for (stream, pos) in &positions.0 {
        let stream = *stream;
        let list = &cx.by_stream[stream as usize];
        let (first, last) = (pos[0] as usize, pos[pos.len() - 1] as usize);
        for &other in &list[first..=last] {
            let fusible_member = matches!(marks.get(other), OpMark::Member { scope, .. } if scope == index)
                && cx.class[other.index()].fusible();
            if fusible_member {
                continue;
            }
            match removed_at.get(&other) {
                Some(&i) => breaks[i].in_range = true,
                None => breaks.push(Break {
                    op: other,
                    stream,
                    reason: reason_of(cx, marks, index, other),
                    cuts: !strict_scope,
                    in_range: true,
                    before: None,
                    after: None,
                }),
            }
        }
    }
    for b in &mut breaks {
        if let Some(pos) = positions.get(b.stream) {
            let at = cx.stream_pos[b.op.index()];
            let list = &cx.by_stream[b.stream as usize];
            let split = pos.partition_point(|&p| p < at);
            b.before = split.checked_sub(1).map(|i| list[pos[i] as usize]);
            b.after = pos[split..]
                .iter()
                .find(|&&p| p != at)
                .map(|&p| list[p as usize]);
        }
    }
    breaks.sort_by_key(|b| (cx.topo(b.op), b.op));
    Found { kept, breaks }
}

fn reason_of(cx: &Context, marks: &Marks, index: ScopeIdx, id: OpId) -> BreakReason {
    match marks.get(id) {
        OpMark::Member { scope, .. } if scope == index => match cx.verdicts.get(id).verdict {
            Verdict::Unsupported(r) => BreakReason::Unsupported(r),
            // Unreachable for members the scan skips; keep a sensible answer anyway.
            _ => BreakReason::Unscoped,
        },
        OpMark::Member { scope, .. } => BreakReason::OtherScope(scope),
        OpMark::Unscoped => BreakReason::Unscoped,
        OpMark::DoNotFuse => BreakReason::DoNotFuse,
    }
}

/// Splits the kept members by the cut topo ids (GE's `AutomaticSplitScope`): sentinels first
/// id − 1 and last id + 1, members strictly between two consecutive cuts form a segment named
/// `<scope>_split_<a>_<b>`; a scope without cuts keeps its name.
fn split(
    cx: &Context,
    marks: &Marks,
    parsed: &[Option<Parsed>],
    scope: &str,
    kept: &[OpId],
    cut_ids: &[i64],
) -> Vec<Segment> {
    if kept.is_empty() {
        return Vec::new();
    }
    let mut by_topo: Vec<OpId> = kept.to_vec();
    by_topo.sort_by_key(|&id| (cx.topo(id), id));
    if cut_ids.is_empty() {
        return vec![segment(cx, marks, parsed, scope.to_string(), by_topo)];
    }
    let first = cx.topo(by_topo[0]);
    let last = cx.topo(by_topo[by_topo.len() - 1]);
    let mut cuts: Vec<i64> = cut_ids.to_vec();
    cuts.push(first - 1);
    cuts.push(last + 1);
    cuts.sort_unstable();
    cuts.dedup();
    let mut segments = Vec::new();
    let mut rest = by_topo.as_slice();
    for pair in cuts.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let skip = rest.partition_point(|&id| cx.topo(id) <= a);
        rest = &rest[skip..];
        let take = rest.partition_point(|&id| cx.topo(id) < b);
        if take > 0 {
            let name = format!("{scope}_split_{a}_{b}");
            segments.push(segment(cx, marks, parsed, name, rest[..take].to_vec()));
        }
        rest = &rest[take..];
    }
    segments
}

fn segment(
    cx: &Context,
    marks: &Marks,
    parsed: &[Option<Parsed>],
    name: String,
    ops: Vec<OpId>,
) -> Segment {
    let graph = cx.graph();
    let first = graph.op(ops[0]);
    let last = graph.op(ops[ops.len() - 1]);
    let fused_node = format!("sk_{name}_start_{}_end_{}", first.name, last.name);
    let stream = superkernel_stream(cx, &ops);
    let options = options_of(marks, ops[0]).to_string();
    let subs: Option<Vec<SubKernel>> = ops.iter().map(|id| cx.sub_kernels[id.index()]).collect();
    let ratio_assumed = subs
        .as_ref()
        .is_some_and(|s| s.iter().any(|k| k.ratio_assumed));
    let kernel = match subs {
        None => KernelInfo::Unknown,
        Some(s) => {
            let empty = SkOptions::default();
            let opts = options_index(marks, ops[0])
                .and_then(|i| parsed[i as usize].as_ref())
                .map_or(&empty, |p| &p.options);
            match kernel::superkernel(&s, opts) {
                Ok(k) => KernelInfo::Known(k),
                Err(e) => KernelInfo::Fails(e),
            }
        }
    };
    Segment {
        name,
        fused_node,
        stream,
        ops,
        options,
        kernel,
        ratio_assumed,
    }
}

/// GE runs the SuperKernel on its first sub-op's stream; when that op is a communication op,
/// on the first stream (ascending id) whose first sub-op is not one.
fn superkernel_stream(cx: &Context, ops: &[OpId]) -> u32 {
    let first = cx.stream_of(ops[0]);
    if !cx.hccl[ops[0].index()] {
        return first;
    }
    let mut firsts: Vec<(i64, OpId)> = Vec::new();
    for &id in ops {
        let id_of = cx.streams[cx.stream_of(id) as usize].id;
        if !firsts.iter().any(|(s, _)| *s == id_of) {
            firsts.push((id_of, id));
        }
    }
    firsts.sort_unstable();
    firsts
        .iter()
        .find(|(_, op)| !cx.hccl[op.index()])
        .map_or(first, |(_, op)| cx.stream_of(*op))
}

fn segment_findings(seg: &Segment) -> Vec<Finding> {
    let mut out = Vec::new();
    if seg.ops.len() == 1 {
        out.push(Finding {
            severity: Severity::Warning,
            op: Some(seg.ops[0]),
            message: format!(
                "segment {} has a single op: fusing it saves nothing",
                seg.name
            ),
        });
    }
    if let KernelInfo::Fails(e) = &seg.kernel {
        out.push(Finding {
            severity: Severity::Error,
            op: Some(seg.ops[0]),
            message: format!("segment {}: the SuperKernel compile fails: {e}", seg.name),
        });
    }
    out
}

/// The reason for a break in words, naming the other scope where there is one.
pub fn describe_reason(marks: &Marks, reason: BreakReason) -> String {
    match reason {
        BreakReason::Unsupported(r) => r.text().to_string(),
        BreakReason::OtherScope(s) => format!(
            "op of scope {} between this scope's ops on the same stream",
            marks.scopes()[s as usize]
        ),
        BreakReason::Unscoped => {
            "op without a scope between this scope's ops on the same stream".to_string()
        }
        BreakReason::DoNotFuse => {
            "op marked do-not-fuse between this scope's ops on the same stream".to_string()
        }
        BreakReason::Foreign { text, .. } => text.meaning.to_string(),
    }
}

#[cfg(test)]
mod tests;
