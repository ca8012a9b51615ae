//! The graph-level outcome of GE's SuperKernel pass: the build goes on with its SuperKernels,
//! the build fails (and then no scope gets a SuperKernel), or the pass is skipped for the whole
//! graph. Facts: reference/ascend_superkernel.md §3.1 (GE's own `strict-scope-check` parse)
//! and §4.1 (static graphs only; `abort` asserts; `GE_ASSERT` fails the graph build).

use super::{Break, Context, Finding, ScopePlan, ScopeStatus, describe_reason, first_trigger};
use crate::fusion::marks::{Marks, OpMark};
use crate::fusion::options::{InvalidCheck, STRICT_SCOPE_CHECK};
use crate::graph::OpId;

/// What becomes of the graph's build as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Outcome {
    /// GE's pass runs and builds the plan's SuperKernels.
    #[default]
    Ok,
    /// GE's pass fails the whole graph build: no SuperKernel for any scope.
    BuildFails(OutcomeDetail),
    /// GE skips the pass for the whole graph (dynamic shape): no SuperKernel for any scope.
    NoSuperKernel(OutcomeDetail),
}

/// Why the outcome is not `Ok`, in words that say what to change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeDetail {
    /// The op it happens at.
    pub op: Option<OpId>,
    /// The scope it happens in.
    pub scope: Option<String>,
    /// What happens, in words.
    pub what: String,
    /// GE's own message, word for word.
    pub ge_message: String,
    /// The SuperKernel compiler's message for the same input, where it would give one.
    pub compiler_message: Option<String>,
    /// What to change.
    pub fix: String,
}

/// Which outcome a plan has, without its detail.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OutcomeKind {
    /// See [`Outcome::Ok`].
    #[default]
    Ok,
    /// See [`Outcome::BuildFails`].
    BuildFails,
    /// See [`Outcome::NoSuperKernel`].
    NoSuperKernel,
}

impl Outcome {
    /// Which outcome it is.
    pub fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Ok => OutcomeKind::Ok,
            Outcome::BuildFails(_) => OutcomeKind::BuildFails,
            Outcome::NoSuperKernel(_) => OutcomeKind::NoSuperKernel,
        }
    }

    /// A stable code for JSON: `ok`, `build_fails` or `no_superkernel`.
    pub fn code(&self) -> &'static str {
        match self.kind() {
            OutcomeKind::Ok => "ok",
            OutcomeKind::BuildFails => "build_fails",
            OutcomeKind::NoSuperKernel => "no_superkernel",
        }
    }

    /// The detail, unless the outcome is `Ok`.
    pub fn detail(&self) -> Option<&OutcomeDetail> {
        match self {
            Outcome::Ok => None,
            Outcome::BuildFails(d) | Outcome::NoSuperKernel(d) => Some(d),
        }
    }

    /// `✗ build fails: …` or `✗ no SuperKernel: …`; `None` when the outcome is `Ok`.
    pub fn headline(&self) -> Option<String> {
        let label = match self {
            Outcome::Ok => return None,
            Outcome::BuildFails(_) => "build fails",
            Outcome::NoSuperKernel(_) => "no SuperKernel",
        };
        self.detail().map(|d| format!("✗ {label}: {}", d.what))
    }
}

/// The outcome of a plan's scopes: a `strict-scope-check` value GE rejects (`invalid`, the
/// first in execution order) fails the build before anything else; then the first scope in
/// GE's order (by name) whose abort check trips; a dynamic-shape graph skips the pass before
/// either is read.
pub(super) fn of(
    cx: &Context,
    marks: &Marks,
    scopes: &[ScopePlan],
    invalid: Option<(OpId, InvalidCheck)>,
) -> Outcome {
    let graph = cx.graph();
    if let Some(d) = &cx.dynamic {
        let op = graph.op(d.op);
        return Outcome::NoSuperKernel(OutcomeDetail {
            op: Some(d.op),
            scope: None,
            what: format!(
                "the graph is dynamic-shape ({} {} of {} has shape {}), and GE's SuperKernel \
                 pass works on static graphs only",
                op.op_type, d.slot, op.name, d.shape
            ),
            ge_message: format!(
                "SuperKernelPass only support static graph[{}]",
                graph.name()
            ),
            compiler_message: None,
            fix: "give the graph static shapes (for TorchAir: fixed input shapes and \
                  dynamic=False) or no scope is fused"
                .to_string(),
        });
    }
    if let Some((id, invalid)) = invalid {
        let op = graph.op(id);
        let scope = match marks.get(id) {
            OpMark::Member { scope, .. } => marks.scopes().get(scope as usize).cloned(),
            _ => None,
        };
        return Outcome::BuildFails(OutcomeDetail {
            op: Some(id),
            what: format!(
                "{} ({}) in scope {} has {STRICT_SCOPE_CHECK}=\"{}\", which GE rejects",
                op.name,
                op.op_type,
                scope.as_deref().unwrap_or("?"),
                invalid.value
            ),
            scope,
            ge_message: invalid.ge_message(),
            compiler_message: invalid.compiler_message(),
            fix: format!(
                "in the options of {}, write {STRICT_SCOPE_CHECK}=bypass or \
                 {STRICT_SCOPE_CHECK}=abort exactly (no spaces or quotes), or leave the option out",
                op.name
            ),
        });
    }
    let aborted = scopes
        .iter()
        .filter(|s| s.status == ScopeStatus::Aborted)
        .filter_map(|s| Some((s, first_trigger(cx, &s.breaks)?)))
        .min_by(|a, b| a.0.name.as_bytes().cmp(b.0.name.as_bytes()));
    match aborted {
        Some((scope, trigger)) => Outcome::BuildFails(abort_detail(cx, marks, scope, trigger)),
        None => Outcome::Ok,
    }
}

fn abort_detail(cx: &Context, marks: &Marks, scope: &ScopePlan, trigger: &Break) -> OutcomeDetail {
    let op = cx.graph().op(trigger.op);
    // GE's wording depends only on whether the op itself can be fused.
    let ge_reason = if cx.class[trigger.op.index()].fusible() {
        "can not fusion, please check your super_kernel_scope"
    } else {
        "can not fusion, maybe it is tbe or tik operator, please replace to ascendc operator and \
         specify super_kernel_scope"
    };
    OutcomeDetail {
        op: Some(trigger.op),
        scope: Some(scope.name.clone()),
        what: format!(
            "scope {} has {STRICT_SCOPE_CHECK}=abort and {} ({}) breaks it: {}",
            scope.name,
            op.name,
            op.op_type,
            describe_reason(marks, trigger.reason)
        ),
        ge_message: format!(
            "In abort check scene, node {} {ge_reason}, target scope {}",
            op.name, scope.name
        ),
        compiler_message: None,
        fix: format!(
            "take {} out of the scope's range (or make it fusible), or drop \
             {STRICT_SCOPE_CHECK}=abort from {}'s options so GE splits the scope there \
             (=bypass gives the scope no SuperKernel)",
            op.name, scope.name
        ),
    }
}

/// Takes away what a failed build does not make: the scope's segments and what was said of
/// them. `failing` is the scope the build fails at; its status is `Aborted`, and scopes that
/// would have fused are `NotBuilt`.
pub(super) fn not_built(scope: &mut ScopePlan, failing: Option<&str>) {
    let about_segments: Vec<Finding> = scope
        .segments
        .iter()
        .flat_map(super::segment_findings)
        .collect();
    scope.findings.retain(|f| !about_segments.contains(f));
    scope.segments.clear();
    if failing == Some(scope.name.as_str()) {
        scope.status = ScopeStatus::Aborted;
    } else if matches!(scope.status, ScopeStatus::Fused | ScopeStatus::Split) {
        scope.status = ScopeStatus::NotBuilt;
    }
}
