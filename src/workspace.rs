//! The state a front end works on: one loaded graph with its planning context, the scope marks
//! (which the user edits), and the plan of those marks with its index; the edit history with
//! undo and redo; and what the last change did to the plan. Plain data; no terminal, no
//! threads.

use crate::edit::{self, Edit, EditError, Undo};
use crate::fusion::index::PlanIndex;
use crate::fusion::marks::Marks;
use crate::fusion::marks::ScopeIdx;
use crate::fusion::plan::{AssumedRange, Context, OutcomeKind, Plan, ScopeStatus, plan, replan};
use crate::fusion::rules::RuleSet;
use crate::graph::{Graph, GraphId, OpId};
use crate::kernel_meta::KernelMeta;
use crate::load::Format;
use crate::planner::{OptionsModel, OwnReport, OwnScopeCode, Planner, Remedy};
use std::sync::Arc;

/// Where the graph came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The dump file as the user named it.
    pub file: String,
    /// Its detected format.
    pub format: Format,
    /// The rules files (and CANN install) its ops were judged with, in order.
    pub rules: Vec<String>,
    /// The file as it was loaded, to notice when it changes on disk.
    pub stamp: Option<crate::load::FileStamp>,
    /// The graph's name, size and fingerprint: what its plan files, journals and run records
    /// must match to be its own.
    pub id: GraphId,
}

/// What the last edit, undo or redo did to one op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpChange {
    /// It breaks a scope now and did not before.
    NewBreak,
    /// It broke a scope before and does not now.
    Healed,
    /// It is in a segment that did not exist before.
    NewSegment,
}

/// What the last edit, undo or redo did to the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Looked up for every op drawn and set for every op of a new segment: foldhash.
    per_op: foldhash::HashMap<OpId, OpChange>,
    /// Segments (fused node names) that are new.
    pub added_segments: Vec<String>,
    /// Segments (fused node names) that are gone.
    pub removed_segments: Vec<String>,
    /// Scopes whose status changed: name, status before (`None`: a new scope), status after
    /// (`None`: the scope is gone).
    pub statuses: Vec<(String, Option<ScopeStatus>, Option<ScopeStatus>)>,
    /// Breaks that are new (an op breaking one more scope counts once more).
    pub breaks_added: usize,
    /// Breaks that are gone; `breaks_added − breaks_healed` is the change of the break count.
    pub breaks_healed: usize,
    /// Errors and warnings before and after.
    pub findings: (usize, usize),
    /// The outcome before and after.
    pub outcome: (OutcomeKind, OutcomeKind),
}

impl Changes {
    /// What happened to op `id`, if anything.
    pub fn of(&self, id: OpId) -> Option<OpChange> {
        self.per_op.get(&id).copied()
    }

    /// True when the plan did not change.
    pub fn is_empty(&self) -> bool {
        self.per_op.is_empty()
            && self.breaks_added == 0
            && self.breaks_healed == 0
            && self.added_segments.is_empty()
            && self.removed_segments.is_empty()
            && self.statuses.is_empty()
            && self.findings.0 == self.findings.1
            && self.outcome.0 == self.outcome.1
    }

    /// What changed from the plan `old` digests and indexes to `new` (its index given): the
    /// digest is brought up to `new` on the way.
    fn between(
        graph: &Graph,
        (digest, old): (&mut PlanDigest, &PlanIndex),
        (new, index): (&Plan, &PlanIndex),
    ) -> Changes {
        let mut per_op = foldhash::HashMap::default();
        let (mut breaks_added, mut breaks_healed) = (0, 0);
        for i in 0..graph.len() {
            let id = OpId(i as u32);
            let (was, now) = (old.breaks_of(id).count(), index.breaks_of(id).count());
            breaks_added += now.saturating_sub(was);
            breaks_healed += was.saturating_sub(now);
            match (was > 0, now > 0) {
                (false, true) => {
                    per_op.insert(id, OpChange::NewBreak);
                }
                (true, false) => {
                    per_op.insert(id, OpChange::Healed);
                }
                _ => {}
            }
        }
        for seg in new.scopes.iter().flat_map(|s| &s.segments) {
            if !digest.nodes.contains(&seg.fused_node) {
                for &id in &seg.ops {
                    per_op.entry(id).or_insert(OpChange::NewSegment);
                }
            }
        }
        let findings = (digest.findings, new.all_findings().count());
        let outcome = (digest.outcome, new.outcome.kind());
        let (added_segments, removed_segments, statuses) = digest.update(new);
        Changes {
            per_op,
            added_segments,
            removed_segments,
            statuses,
            breaks_added,
            breaks_healed,
            findings,
            outcome,
        }
    }
}

/// What the changes of an edit need of the plan before it: its segments' fused nodes and its
/// scopes' statuses. Kept from edit to edit and brought up to each new plan in place: a name is
/// copied only when it is new, so an edit of a 100k-op plan does not copy thousands.
#[derive(Debug, Clone, Default)]
struct PlanDigest {
    /// Hashed with foldhash: an edit of a 100k-op plan looks up thousands of names.
    nodes: foldhash::HashSet<String>,
    statuses: foldhash::HashMap<String, ScopeStatus>,
    findings: usize,
    outcome: OutcomeKind,
}

/// Segments added and removed (sorted), and scopes whose status changed (by name).
type DigestChanges = (
    Vec<String>,
    Vec<String>,
    Vec<(String, Option<ScopeStatus>, Option<ScopeStatus>)>,
);

impl PlanDigest {
    fn of(plan: &Plan) -> PlanDigest {
        let mut digest = PlanDigest::default();
        digest.update(plan);
        digest
    }

    /// Brings the digest up to `plan`, saying what changed.
    fn update(&mut self, plan: &Plan) -> DigestChanges {
        let nodes: foldhash::HashSet<&str> = plan
            .scopes
            .iter()
            .flat_map(|s| s.segments.iter().map(|seg| seg.fused_node.as_str()))
            .collect();
        let mut added: Vec<String> = nodes
            .iter()
            .filter(|n| !self.nodes.contains(**n))
            .map(|n| n.to_string())
            .collect();
        let mut removed: Vec<String> = Vec::new();
        self.nodes.retain(|n| {
            let kept = nodes.contains(n.as_str());
            if !kept {
                removed.push(n.clone());
            }
            kept
        });
        self.nodes.extend(added.iter().cloned());
        added.sort();
        removed.sort();
        let now: foldhash::HashMap<&str, ScopeStatus> = plan
            .scopes
            .iter()
            .map(|s| (s.name.as_str(), s.status))
            .collect();
        let mut statuses: Vec<(String, Option<ScopeStatus>, Option<ScopeStatus>)> = Vec::new();
        self.statuses
            .retain(|name, was| match now.get(name.as_str()) {
                Some(&s) => {
                    if s != *was {
                        statuses.push((name.clone(), Some(*was), Some(s)));
                        *was = s;
                    }
                    true
                }
                None => {
                    statuses.push((name.clone(), Some(*was), None));
                    false
                }
            });
        for (name, &s) in &now {
            if !self.statuses.contains_key(*name) {
                statuses.push((name.to_string(), None, Some(s)));
                self.statuses.insert(name.to_string(), s);
            }
        }
        statuses.sort_by(|a, b| a.0.cmp(&b.0));
        self.findings = plan.all_findings().count();
        self.outcome = plan.outcome.kind();
        (added, removed, statuses)
    }
}

/// One step of the history.
#[derive(Debug, Clone)]
struct Step {
    /// Its edits, in the order made, as they were made together (each batch checked against
    /// the plan before it, and planned once): more than one when edits with the same key were made in
    /// a row.
    edits: Vec<Vec<Edit>>,
    /// What undoes all of them.
    undo: Undo,
    /// Steps with the same key in a row are one step (e.g. typing an options value).
    key: Option<u64>,
    /// The version before and after the step.
    before: u64,
    after: u64,
}

/// The graph's context and its planner, shared: plans marks on the graph from any thread
/// without the workspace.
#[derive(Debug, Clone)]
pub struct Planning {
    cx: Arc<Context>,
    planner: Option<Arc<dyn Planner>>,
}

impl Planning {
    /// The plan `marks` make, through the graph's planner (GE's when it has none of its own).
    pub fn plan(&self, marks: &Marks) -> Plan {
        match &self.planner {
            Some(planner) => planner.plan(&self.cx, marks),
            None => plan(&self.cx, marks),
        }
    }

    /// The context plans are made in.
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// Why the scopes cannot be written as code for the model, when the system takes none.
    pub fn no_scope_code(&self) -> Option<&'static str> {
        self.planner.as_ref().and_then(|p| p.no_scope_code())
    }

    /// What heals the worst splits of a scope holding the whole model with `marks`, in the
    /// planner's own terms (none for GE's, whose scopes the suggestions place).
    pub fn remedies(&self, marks: &Marks) -> Vec<Remedy> {
        self.planner
            .as_ref()
            .map_or_else(Vec::new, |p| p.remedies(marks))
    }

    /// The context, shared.
    pub fn shared_context(&self) -> Arc<Context> {
        Arc::clone(&self.cx)
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.cx.graph()
    }
}

/// A loaded graph, its marks and plan, and the edit history.
#[derive(Debug)]
pub struct Workspace {
    source: Source,
    cx: Arc<Context>,
    /// What a compile's kernel_meta holds of the graph's kernels (empty unless given).
    kernel_meta: Arc<KernelMeta>,
    /// The user's operator sources, checked (`--op-sources`), when given.
    op_check: Option<Arc<crate::check_op::Check>>,
    marks: Marks,
    plan: Plan,
    /// What the current plan's changes are measured against at the next change.
    summary: PlanDigest,
    index: PlanIndex,
    done: Vec<Step>,
    undone: Vec<Step>,
    version: u64,
    next_version: u64,
    saved_version: u64,
    changes: Changes,
    /// The planner when it is not GE's (the aclgraph pass's, read from its files).
    planner: Option<Arc<dyn Planner>>,
    /// The plan with every op assumed fusible taken as unfusible, and its context: the other
    /// end of what a plan resting on assumed verdicts can be. `None` when nothing is assumed.
    unassumed: Option<(Arc<Context>, Plan)>,
}

impl Workspace {
    /// Plans `graph` with `rules` and the scope marks the dump carries.
    pub fn new(graph: Graph, format: Format, file: &str, rules: &RuleSet) -> Workspace {
        let cx = Context::new(graph, rules);
        let marks = Marks::from_graph(cx.graph());
        let plan = plan(&cx, &marks);
        let mut ws = Workspace::with_plan(cx, marks, plan, format, file);
        ws.source.rules = rules.files().to_vec();
        ws
    }

    /// A workspace planned by `planner` instead of GE's rules.
    pub fn with_planner(
        cx: Context,
        marks: Marks,
        planner: Arc<dyn Planner>,
        format: Format,
        file: &str,
    ) -> Workspace {
        let plan = planner.plan(&cx, &marks);
        let mut ws = Workspace::with_plan(cx, marks, plan, format, file);
        ws.planner = Some(planner);
        // The planner reads what its pass decided: nothing of GE's rules is assumed.
        ws.unassumed = None;
        ws
    }

    fn with_plan(cx: Context, marks: Marks, plan: Plan, format: Format, file: &str) -> Workspace {
        let unassumed = cx.assumed_unfusible().map(|other| {
            let other_plan = crate::fusion::plan::plan(&other, &marks);
            (Arc::new(other), other_plan)
        });
        let cx = Arc::new(cx);
        let index = PlanIndex::new(cx.graph(), &plan);
        Workspace {
            source: Source {
                file: file.to_string(),
                format,
                rules: Vec::new(),
                stamp: None,
                id: GraphId::of(cx.graph()),
            },
            cx,
            kernel_meta: Arc::default(),
            op_check: None,
            marks,
            summary: PlanDigest::of(&plan),
            plan,
            index,
            done: Vec::new(),
            undone: Vec::new(),
            version: 0,
            next_version: 1,
            saved_version: 0,
            changes: Changes::default(),
            planner: None,
            unassumed,
        }
    }

    /// Where the graph came from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.cx.graph()
    }

    /// The planning context (verdicts, streams, topo ids).
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// The planning context, shared (it never changes once the graph is loaded), for work on
    /// another thread.
    pub fn shared_context(&self) -> Arc<Context> {
        Arc::clone(&self.cx)
    }

    /// The hardware the graph is built for, and how skope knows it.
    pub fn target(&self) -> &crate::target::TargetChoice {
        self.cx.target()
    }

    /// What was read from a compile's kernel_meta (op-infos, entry sources), shared.
    pub fn kernel_meta(&self) -> &Arc<KernelMeta> {
        &self.kernel_meta
    }

    /// Keeps the user's operator sources, checked: a break of a type they define says what
    /// adapting it takes.
    pub fn set_op_check(&mut self, check: Arc<crate::check_op::Check>) {
        self.op_check = Some(check);
    }

    /// The user's operator sources, checked, when given.
    pub fn op_check(&self) -> Option<&crate::check_op::Check> {
        self.op_check.as_deref()
    }

    /// Uses `meta` for the generated code from now on.
    pub fn set_kernel_meta(&mut self, meta: Arc<KernelMeta>) {
        self.kernel_meta = meta;
    }

    /// The plan if no op assumed fusible is: `None` when the plan rests on no assumption.
    pub fn assumed_range(&self) -> Option<AssumedRange> {
        let (_, other) = self.unassumed.as_ref()?;
        let ops: usize = self.plan.scopes.iter().map(|s| s.assumed).sum();
        (ops > 0).then(|| AssumedRange {
            ops,
            segments: other.segment_count(),
            breaks: other.break_count(),
        })
    }

    /// Why a segment has no generated entry source, when the graph's fusion system makes none.
    pub fn no_entry_code(&self) -> Option<&'static str> {
        self.planner.as_ref().and_then(|p| p.no_entry_code())
    }

    /// Where the options of the graph's fusion system are set.
    pub fn options_model(&self) -> OptionsModel {
        self.planner
            .as_ref()
            .map_or(OptionsModel::PerScope, |p| p.options_model())
    }

    /// What a user must know first about the result, when there is such a thing.
    pub fn notice(&self) -> Option<String> {
        self.planner.as_ref().and_then(|p| p.notice())
    }

    /// The scope `scope` is part of, when scope names nest.
    pub fn outer_scope(&self, scope: &str) -> Option<String> {
        self.planner.as_ref().and_then(|p| p.outer_scope(scope))
    }

    /// Why the scopes cannot be written as code for the model, when the system takes none.
    pub fn no_scope_code(&self) -> Option<&'static str> {
        self.planner.as_ref().and_then(|p| p.no_scope_code())
    }

    /// The account the graph's fusion system gives of what it did, when it gives one.
    pub fn own_report(&self) -> Option<OwnReport> {
        self.planner.as_ref().and_then(|p| p.own_report())
    }

    /// The scopes as code in the form of the graph's fusion system, when it has one of its
    /// own.
    pub fn own_scope_code(&self) -> Option<OwnScopeCode> {
        self.planner.as_ref().and_then(|p| p.own_scope_code())
    }

    /// Plans edits of the current marks without making them (fixes are checked this way).
    pub fn what_if(&self) -> crate::fix::WhatIf<'_> {
        crate::fix::WhatIf::new(&self.cx, &self.marks, &self.plan, self.planner.as_deref())
            .with_op_check(self.op_check.as_deref())
    }

    /// The summary of the plan's whole-model scope, when it has one, with each segment's time
    /// from `time` (else from the graph's device times), its breaks' fixes checked by planning
    /// up to `plans` ops.
    pub fn whole_model(
        &self,
        time: Option<&crate::whole_model::Times>,
        plans: usize,
    ) -> Option<crate::whole_model::WholeModel> {
        let what_if = self.what_if().with_budget(plans);
        let outer = |scope: &str| self.outer_scope(scope);
        let graph_time =
            |seg: &crate::fusion::plan::Segment| crate::whole_model::graph_time(&what_if, seg);
        let from_graph = crate::whole_model::Times {
            of: &graph_time,
            from: "device time of the sub-ops in the dump",
        };
        crate::whole_model::whole_model(&what_if, &outer, time.unwrap_or(&from_graph))
    }

    /// The scope marks the plan was made from.
    pub fn marks(&self) -> &Marks {
        &self.marks
    }

    /// The current plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The current plan's index.
    pub fn index(&self) -> &PlanIndex {
        &self.index
    }

    /// What the last edit, undo or redo did to the plan.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    /// Applies `edit` and plans again. Consecutive edits with the same `key` are one step of
    /// the history (undone together).
    pub fn apply(&mut self, edit: Edit, key: Option<u64>) -> Result<(), EditError> {
        self.apply_all(vec![edit], key)
    }

    /// Applies `edits` in order and plans once, as one step of the history (with the steps of
    /// the same `key` before it). Each is checked against the plan before them all (and redone
    /// the same way), so they are edits that do not depend on one another's plan — new scopes
    /// of distinct names, exclusions; the first that cannot be made leaves the marks as they
    /// were and is the error.
    pub fn apply_all(&mut self, edits: Vec<Edit>, key: Option<u64>) -> Result<(), EditError> {
        if edits.is_empty() {
            return Err(EditError::Unchanged);
        }
        let mut undo = Undo::default();
        for edit in &edits {
            let made = match self.planner.as_ref().and_then(|p| p.refuses(edit)) {
                Some(why) => Err(EditError::Refused(why)),
                None => edit::apply(&mut self.marks, &self.plan, edit),
            };
            match made {
                Ok(done) => undo.then(done),
                Err(e) => {
                    undo.restore(&mut self.marks);
                    return Err(e);
                }
            }
        }
        let (changed, touched) = (undo.changed(), undo.renamed());
        self.undone.clear();
        let after = self.new_version();
        match self.done.last_mut() {
            Some(top) if key.is_some() && top.key == key && top.after == self.version => {
                // One step: its undo restores the marks before the first of them.
                match (top.edits.last_mut(), edits.as_slice()) {
                    // The same value typed on (an options string): the newest stands.
                    (Some(last), [edit]) if matches!(last.as_slice(), [l] if l.replaces(edit)) => {
                        *last = edits;
                    }
                    _ => top.edits.push(edits),
                }
                top.undo.then(undo);
                top.after = after;
            }
            _ => self.done.push(Step {
                edits: vec![edits],
                undo,
                key,
                before: self.version,
                after,
            }),
        }
        self.version = after;
        self.replan(&changed, &touched);
        Ok(())
    }

    /// Undoes the last step; returns it in words, or `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<String> {
        let step = self.done.pop()?;
        let (changed, touched) = (step.undo.changed_back(&self.marks), step.undo.renamed());
        step.undo.restore(&mut self.marks);
        self.version = step.before;
        let words = edit::describe_all(&step.edits.concat());
        self.undone.push(step);
        self.replan(&changed, &touched);
        Some(words)
    }

    /// Redoes the last undone step; returns it in words, or `None` when there is nothing to
    /// redo.
    pub fn redo(&mut self) -> Option<String> {
        let mut step = self.undone.pop()?;
        // The marks are as they were when the step was first made, so its edits apply again
        // as they were made: each batch on the plan the one before it made.
        let mut undo = Undo::default();
        for batch in &step.edits {
            let mut done = Undo::default();
            for e in batch {
                match edit::apply(&mut self.marks, &self.plan, e) {
                    Ok(one) => done.then(one),
                    Err(_) => {
                        done.restore(&mut self.marks);
                        let (back, touched) = (undo.changed_back(&self.marks), undo.renamed());
                        undo.restore(&mut self.marks);
                        self.replan(&back, &touched);
                        self.undone.push(step);
                        return None;
                    }
                }
            }
            let (changed, touched) = (done.changed(), done.renamed());
            undo.then(done);
            self.replan(&changed, &touched);
        }
        step.undo = undo;
        self.version = step.after;
        let words = edit::describe_all(&step.edits.concat());
        self.done.push(step);
        Some(words)
    }

    /// Steps that can be undone, and redone.
    pub fn history_len(&self) -> (usize, usize) {
        (self.done.len(), self.undone.len())
    }

    /// The version of the scopes: every edit, undo and redo gives a new one (an undo returns
    /// to the one before).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// True when the marks differ from the last save (or the dump, before any save).
    pub fn is_dirty(&self) -> bool {
        self.version != self.saved_version
    }

    /// Records that the current marks are saved.
    pub fn mark_saved(&mut self) {
        self.saved_version = self.version;
    }

    /// Notes what the dump file was when it was loaded.
    pub fn set_stamp(&mut self, stamp: Option<crate::load::FileStamp>) {
        self.source.stamp = stamp;
    }

    /// The plan `marks` would make on this graph, through its planner, without making it the
    /// workspace's.
    pub fn plan_of(&self, marks: &Marks) -> Plan {
        self.planning().plan(marks)
    }

    /// What plans marks on this graph, to take to another thread.
    pub fn planning(&self) -> Planning {
        Planning {
            cx: Arc::clone(&self.cx),
            planner: self.planner.clone(),
        }
    }

    /// Starts over from `marks` (read from a plan file): no history, and saved.
    pub fn reset_marks(&mut self, marks: Marks) {
        self.marks = marks;
        self.done.clear();
        self.undone.clear();
        self.version = self.new_version();
        self.saved_version = self.version;
        let plan = self.plan_of(&self.marks);
        if let Some((cx, other)) = &mut self.unassumed {
            *other = crate::fusion::plan::plan(cx, &self.marks);
        }
        self.set_plan(plan);
    }

    /// Starts over from `marks` carried from elsewhere (the unsaved scopes of the same dump
    /// loaded before it changed on disk): no history, and not saved.
    pub fn carry_marks(&mut self, marks: Marks) {
        self.reset_marks(marks);
        self.saved_version = self.new_version();
    }

    fn new_version(&mut self) -> u64 {
        self.next_version += 1;
        self.next_version - 1
    }

    /// Plans again after ops changed their marks (`changed`, with their scopes before) and
    /// scopes were renamed (`touched`), reusing what the change cannot affect.
    fn replan(&mut self, changed: &[(OpId, Option<ScopeIdx>)], touched: &[ScopeIdx]) {
        if let Some((cx, other)) = &mut self.unassumed {
            *other = replan(cx, &self.marks, std::mem::take(other), changed, touched);
        }
        let plan = match &self.planner {
            Some(planner) => planner.plan(&self.cx, &self.marks),
            None => {
                let old = std::mem::take(&mut self.plan);
                replan(&self.cx, &self.marks, old, changed, touched)
            }
        };
        self.set_plan(plan);
    }

    fn set_plan(&mut self, plan: Plan) {
        let index = PlanIndex::new(self.cx.graph(), &plan);
        self.changes = Changes::between(
            self.cx.graph(),
            (&mut self.summary, &self.index),
            (&plan, &index),
        );
        self.plan = plan;
        self.index = index;
    }
}
