//! Planners other than GE's pass (the aclgraph pass's, MindSpore's graph kernel fusion): each
//! plans scope marks its own way, may refuse edits it has no model for, and says what its
//! fusion system has and lacks, so the explorer and the commands ask the planner, never which
//! system a graph came from. The workspace and the fix checker plan through one of them when
//! the graph has one, through GE's otherwise (whose answers are the trait's defaults).

use crate::edit::Edit;
use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};
use crate::graph::OpId;
use serde::Serialize;

/// Where a fusion system's options are set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionsModel {
    /// Per scope, in its options string (GE's `super_kernel(scope, options)`; the aclgraph pass
    /// reads them but takes one set per graph).
    PerScope,
    /// For the whole graph, as flags (MindSpore's `graph_kernel_flags`): no scope has options.
    GraphFlags,
    /// Once per graph, in the call that runs the pass (the aclgraph pass's
    /// `super_kernel_optimize`): the explorer does not edit them, and says why.
    PerGraph(&'static str),
}

/// Scope code a system writes in a form of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnScopeCode {
    /// The code (Python for the aclgraph path: `super_kernel_scope_begin/end` and
    /// `super_kernel_optimize`), written where TorchAir's `super_kernel` blocks would be.
    pub code: String,
    /// Why the other forms (the plan file, C) are not written, in words.
    pub only: &'static str,
}

/// A system's own account of what it did (the aclgraph pass's queues, tasks, options and
/// files): `skope report` and `skope info` print it in place of GE's report.
#[derive(Debug)]
pub struct OwnReport {
    /// As text for a terminal (every string from its files sanitised).
    pub text: String,
    /// Its head alone, for `--summary`: what was read and built, counted.
    pub summary: String,
    /// As JSON, pretty-printed.
    pub json: Box<serde_json::value::RawValue>,
    /// The summary as JSON.
    pub summary_json: Box<serde_json::value::RawValue>,
}

/// What a plan's SuperKernels come to, counted: how many, how many hold one kernel (they
/// remove no boundary and pay an entry), and the kernels fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PlanShape {
    /// SuperKernels.
    pub superkernels: usize,
    /// Of them, those of one kernel.
    pub single: usize,
    /// Kernels in SuperKernels of two kernels or more.
    pub fused: usize,
}

/// A change to a whole-model scope in its system's own terms (the aclgraph pass's exclusion
/// scope) that the planner's prediction says heals some of its worst splits.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Remedy {
    /// The first op it keeps out (in the first place it applies).
    pub first: String,
    /// The last op it keeps out there.
    pub last: String,
    /// The places it applies: one per layer when the same piece recurs in every layer.
    pub places: usize,
    /// Why, in words: the splits it heals.
    pub why: String,
    /// The code to paste.
    pub code: String,
    /// The ops it keeps out of fusion, as a `DoNotFuse` edit makes it.
    #[serde(skip)]
    pub exclude: Vec<OpId>,
    /// The whole-model scope's SuperKernels as predicted now, and with the change.
    pub before: PlanShape,
    /// With the change.
    pub after: PlanShape,
}

impl Remedy {
    /// What to change, in words: `keep A … B out of fusion in every layer (4 places)`.
    pub fn what(&self) -> String {
        let span = if self.first == self.last {
            self.first.clone()
        } else {
            format!("{} … {}", self.first, self.last)
        };
        match self.places {
            1 => format!("keep {span} out of fusion"),
            n => format!("keep {span} out of fusion in every layer ({n} places)"),
        }
    }

    /// What the prediction says it does, in words.
    pub fn effect(&self) -> String {
        let (b, a) = (self.before, self.after);
        format!(
            "SuperKernels {} → {}, of one kernel {} → {}, kernels fused in the others {} → {}",
            b.superkernels, a.superkernels, b.single, a.single, b.fused, a.fused
        )
    }
}

/// A planner other than GE's pass: plans the marks its own way, may refuse edits it has no
/// model for, and says what its system lacks.
pub trait Planner: std::fmt::Debug + Send + Sync {
    /// The plan of `marks` on the graph of `cx`.
    fn plan(&self, cx: &Context, marks: &Marks) -> Plan;
    /// Why `edit` cannot be made, when it cannot.
    fn refuses(&self, edit: &Edit) -> Option<&'static str>;
    /// Why a segment has no generated entry source to show, when the system generates none.
    fn no_entry_code(&self) -> Option<&'static str> {
        None
    }
    /// Where the system's options are set.
    fn options_model(&self) -> OptionsModel {
        OptionsModel::PerScope
    }
    /// Why the scopes cannot be written as code for the model, when the system takes no scopes.
    fn no_scope_code(&self) -> Option<&'static str> {
        None
    }
    /// The scopes as code in the system's own form, when it writes them its own way.
    fn own_scope_code(&self) -> Option<OwnScopeCode> {
        None
    }
    /// The system's own account of what it did, when it gives one.
    fn own_report(&self) -> Option<OwnReport> {
        None
    }
    /// What a user must know before anything else about this result (a debug setting that
    /// removes the benefit of fusion), when there is such a thing.
    fn notice(&self) -> Option<String> {
        None
    }
    /// The scope `scope` is part of when scope names nest (the aclgraph pass names a task's
    /// scopes together, `full_model_layers.0`, outermost first), when it is part of one.
    fn outer_scope(&self, _scope: &str) -> Option<String> {
        None
    }
    /// When one scope holds the whole model: the changes in the system's own terms that heal
    /// its worst splits for `marks`, each checked by planning it.
    fn remedies(&self, _marks: &Marks) -> Vec<Remedy> {
        Vec::new()
    }
}
