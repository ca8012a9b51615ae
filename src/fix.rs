//! Fixes for a break, each checked by planning it. A fix is offered only when, planned, it
//! heals the break: the op no longer breaks the scope, the scope's ops on either side of it end
//! up in one segment of that scope, no op that was fused leaves fusion (dropping the scope is
//! not a fix), and a graph that built still builds. Candidates are tried cheapest first —
//! the fewest ops changed — and each comes with the scope's segments before and after. When
//! no edit of scopes heals a break (an op that cannot be fused sits between the scope's ops),
//! the answer says that only a model change can: moving the op's code, or an AscendC
//! implementation. (GE's pass reads no option that changes where a scope is cut —
//! `strict-scope-check` only fails the build or drops the scope — so GE-mode fixes are scope
//! edits.)

use crate::edit::{self, Edit};
use crate::fusion::marks::{Marks, OpMark, ScopeIdx};
use crate::fusion::plan::{Break, BreakReason, Context, Plan, ScopePlan, plan_scopes, replan};
use crate::fusion::verdict::{Reason, Verdict};
use crate::graph::OpId;
use crate::planner::Planner;

use std::cell::Cell;
use std::collections::HashSet;

/// Plans edits without making them.
pub struct WhatIf<'a> {
    cx: &'a Context,
    marks: &'a Marks,
    plan: &'a Plan,
    planner: Option<&'a dyn Planner>,
    /// Ops it may still plan (each check plans the members of the scopes it changes); past
    /// that, fixes are not checked.
    budget: Cell<usize>,
    /// The user's operator sources, checked (`--op-sources`): what adapting an op type takes.
    op_check: Option<&'a crate::check_op::Check>,
}

/// A fix that heals a break when planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedFix {
    /// The edit.
    pub edit: Edit,
    /// What to do, in words.
    pub words: String,
    /// The scope's segments before the edit, by name.
    pub before: Vec<String>,
    /// Its segments after.
    pub after: Vec<String>,
}

/// How a break can be healed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Healing {
    /// The cheapest edit that heals it when planned (a list, to offer more than one).
    Fixes(Vec<CheckedFix>),
    /// No edit of scopes heals it: what to change in the model instead.
    ModelChange(String),
    /// What the fusion system itself advises for its reason (the aclgraph pass, MindSpore's
    /// graph kernel fusion), and whose advice it is: skope plans those systems from their
    /// own output and cannot plan a change to their rules.
    Advice(String, &'static str),
    /// Not checked: the plans allowed for this output are spent.
    Unchecked(String),
    /// The op is the user's own and its sources say what adapting it to SuperKernel takes.
    Adapt(String),
}

impl Healing {
    /// The fix in words: the same words in every front end.
    pub fn words(&self) -> String {
        match self {
            Healing::Fixes(fixes) => fixes
                .iter()
                .map(|f| format!("{} ({})", f.words, segments_change(&f.before, &f.after)))
                .collect::<Vec<_>>()
                .join("; or "),
            Healing::ModelChange(what) => format!("only a model change heals it: {what}"),
            Healing::Advice(what, whose) => format!("{what} ({whose} advice, not planned)"),
            Healing::Unchecked(why) => why.clone(),
            Healing::Adapt(what) => format!("adapt the operator: {what}"),
        }
    }
}

/// `planned: moe_1_split_49_54 + moe_1_split_54_56 → moe_1`, or counts when the lists are
/// long.
fn segments_change(before: &[String], after: &[String]) -> String {
    const LISTED: usize = 3;
    let side = |names: &[String]| -> String {
        if names.len() > LISTED {
            format!("{} segments", names.len())
        } else if names.is_empty() {
            "no segment".to_string()
        } else {
            names.join(" + ")
        }
    };
    format!("planned: {} → {}", side(before), side(after))
}

impl<'a> WhatIf<'a> {
    /// The planner of the graph's fusion system, when it is not GE's.
    pub fn planner(&self) -> Option<&'a dyn Planner> {
        self.planner
    }

    /// Plans edits of `marks` against `plan` (made from them) on `cx`, through `planner` when
    /// the graph has one other than GE's.
    pub fn new(
        cx: &'a Context,
        marks: &'a Marks,
        plan: &'a Plan,
        planner: Option<&'a dyn Planner>,
    ) -> WhatIf<'a> {
        WhatIf {
            cx,
            marks,
            plan,
            planner,
            budget: Cell::new(usize::MAX),
            op_check: None,
        }
    }

    /// With the user's operator sources checked: a break of an op type they define says what
    /// adapting it takes.
    pub fn with_op_check(mut self, check: Option<&'a crate::check_op::Check>) -> WhatIf<'a> {
        self.op_check = check;
        self
    }

    /// What adapting the type of op `op` to SuperKernel takes, from the user's sources.
    fn adapting(&self, op: OpId) -> Option<String> {
        self.op_check?.adapting(&self.cx.graph().op(op).op_type)
    }

    /// The planning context.
    pub fn cx(&self) -> &'a Context {
        self.cx
    }

    /// The marks edits are made to.
    pub fn marks(&self) -> &'a Marks {
        self.marks
    }

    /// The plan of those marks.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// At most `ops` ops are planned over all checks; fixes past them are not checked (a
    /// report of millions of breaks: checking each is planning its scope again).
    pub fn with_budget(self, ops: usize) -> WhatIf<'a> {
        self.budget.set(ops);
        self
    }

    /// The plan after `edit`, or `None` when the edit cannot be made.
    pub fn plan_with(&self, edit: &Edit) -> Option<Plan> {
        if self.planner.is_some_and(|p| p.refuses(edit).is_some()) {
            return None;
        }
        let mut marks = self.marks.clone();
        let undo = edit::apply(&mut marks, self.plan, edit).ok()?;
        Some(match self.planner {
            Some(planner) => planner.plan(self.cx, &marks),
            None => replan(
                self.cx,
                &marks,
                self.plan.clone(),
                &undo.changed(),
                &undo.renamed(),
            ),
        })
    }

    /// How break `b` of `scope` can be healed.
    pub fn heal(&self, scope: &ScopePlan, b: &Break) -> Healing {
        let graph = self.cx.graph();
        let op = &graph.op(b.op).name;
        let stream = self.cx.streams()[b.stream as usize].id;
        let name = &scope.name;
        let span = format!("{name}'s ops on stream {stream}");
        let candidates: Vec<(Edit, String)> = match b.reason {
            // Another fusion system's reason: its own advice, which skope cannot plan.
            BreakReason::Foreign { text, whose }
            | BreakReason::Unsupported(Reason::Foreign { text, whose }) => {
                // A kernel built without its SuperKernel table (the aclgraph pass's
                // OP_UNSUPPORT [BINDMAP_INIT_EMPTY]): the user's sources say why.
                let unbound = text.key == "OP_UNSUPPORT"
                    && self
                        .cx
                        .verdicts()
                        .get(b.op)
                        .detail
                        .contains("BINDMAP_INIT_EMPTY");
                if unbound && let Some(what) = self.adapting(b.op) {
                    return Healing::Adapt(what);
                }
                return Healing::Advice(text.action.to_string(), whose);
            }
            BreakReason::Unscoped => vec![(
                Edit::Assign {
                    ops: vec![b.op],
                    scope: name.clone(),
                },
                format!("add {op} to scope {name}"),
            )],
            BreakReason::DoNotFuse => vec![(
                Edit::Assign {
                    ops: vec![b.op],
                    scope: name.clone(),
                },
                format!("drop the exclusion: put {op} back into scope {name}"),
            )],
            BreakReason::OtherScope(other) => {
                let other = &self.marks.scopes()[other as usize];
                vec![
                    (
                        Edit::Assign {
                            ops: vec![b.op],
                            scope: name.clone(),
                        },
                        format!("move {op} from scope {other} into scope {name}"),
                    ),
                    (
                        Edit::Merge {
                            scope: other.clone(),
                            into: name.clone(),
                        },
                        format!("merge scope {other} into scope {name}"),
                    ),
                ]
            }
            BreakReason::Unsupported(_) => vec![(
                Edit::Remove { ops: vec![b.op] },
                format!("take {op} out of scope {name}"),
            )],
        };
        // The cheapest fix that heals is the one offered.
        for (edit, words) in candidates {
            if self.budget.get() == 0 {
                return Healing::Unchecked(format!(
                    "not checked: this output plans a limited number of fixes; `skope report \
                     --scope {name}` or the explorer checks this one"
                ));
            }
            if let Some(segments) = self.heals(&edit, scope, b) {
                return Healing::Fixes(vec![CheckedFix {
                    edit,
                    words,
                    before: scope.segments.iter().map(|s| s.name.clone()).collect(),
                    after: segments,
                }]);
            }
        }
        // Not adapted, or taken for no AscendC kernel, though the user's sources define it as
        // one: adapting it is the fix.
        if matches!(
            b.reason,
            BreakReason::Unsupported(Reason::Blacklisted | Reason::NotAscendC)
        ) && let Some(what) = self.adapting(b.op)
        {
            return Healing::Adapt(what);
        }
        Healing::ModelChange(match b.reason {
            BreakReason::Unsupported(r) => model_change(r, &span),
            BreakReason::Unscoped => match self.cx.verdicts().get(b.op).verdict {
                Verdict::Unsupported(r) => format!(
                    "{op} cannot be fused ({}): {}",
                    r.text(),
                    model_change(r, &span)
                ),
                _ => format!("move {op}'s code before or after {span}"),
            },
            BreakReason::OtherScope(other) => format!(
                "scopes {name} and {} interleave on stream {stream}: keep their ops apart in \
                 the model",
                self.marks.scopes()[other as usize]
            ),
            BreakReason::DoNotFuse => {
                format!("{op} is kept out of fusion on purpose: accept the split")
            }
            BreakReason::Foreign { .. } => String::new(),
        })
    }

    /// The scope's segments after `edit` when it heals break `b` (see the module's words).
    /// With GE's pass only the scopes whose marks the edit changes are planned again: the
    /// candidate edits move ops between scopes (or out of one), and an op of another scope
    /// or of none cuts a scope alike, so no other scope's plan can change.
    fn heals(&self, edit: &Edit, scope: &ScopePlan, b: &Break) -> Option<Vec<String>> {
        let (before, after): (Vec<&ScopePlan>, Vec<ScopePlan>) = match self.planner {
            Some(_) => {
                self.budget
                    .set(self.budget.get().saturating_sub(self.cx.graph().len()));
                let after = self.plan_with(edit)?;
                if after.outcome.kind() != self.plan.outcome.kind() {
                    return None;
                }
                (self.plan.scopes.iter().collect(), after.scopes)
            }
            None => {
                let mut marks = self.marks.clone();
                let undo = edit::apply(&mut marks, self.plan, edit).ok()?;
                let changed = undo.changed();
                let mut touched: Vec<ScopeIdx> = vec![scope.mark];
                for &(id, was) in &changed {
                    touched.extend(was);
                    if let OpMark::Member { scope, .. } = marks.get(id) {
                        touched.push(scope);
                    }
                }
                touched.sort_unstable();
                touched.dedup();
                let members: Vec<(ScopeIdx, Vec<OpId>)> = touched
                    .iter()
                    .map(|&mark| (mark, self.members_after(&marks, &changed, mark)))
                    .filter(|(_, members)| !members.is_empty())
                    .collect();
                let before = touched
                    .iter()
                    .filter_map(|&m| self.plan.scope_of_mark(m))
                    .map(|i| &self.plan.scopes[i])
                    .collect();
                let planned: usize = members.iter().map(|(_, m)| m.len()).sum();
                self.budget.set(self.budget.get().saturating_sub(planned));
                (before, plan_scopes(self.cx, &marks, members))
            }
        };
        let now = after.iter().find(|s| s.name == scope.name)?;
        if now.segments.is_empty() || now.breaks.iter().any(|x| x.op == b.op) {
            return None;
        }
        if let (Some(first), Some(last)) = (b.before, b.after) {
            now.segments
                .iter()
                .find(|s| s.ops.contains(&first) && s.ops.contains(&last))?;
        }
        let fused = |scopes: &mut dyn Iterator<Item = &ScopePlan>| -> HashSet<OpId> {
            scopes
                .flat_map(|s| &s.segments)
                .flat_map(|s| s.ops.iter().copied())
                .collect()
        };
        let was = fused(&mut before.into_iter());
        if !was.is_subset(&fused(&mut after.iter())) {
            return None;
        }
        Some(now.segments.iter().map(|s| s.name.clone()).collect())
    }

    /// The members of scope `mark` in `marks` (after an edit that changed the marks of the
    /// ops in `changed`), in execution order, ignored ops left out.
    fn members_after(
        &self,
        marks: &Marks,
        changed: &[(OpId, Option<ScopeIdx>)],
        mark: ScopeIdx,
    ) -> Vec<OpId> {
        let graph = self.cx.graph();
        let in_scope =
            |id: OpId| matches!(marks.get(id), OpMark::Member { scope, .. } if scope == mark);
        let old = self
            .plan
            .scope_of_mark(mark)
            .map(|i| self.plan.scopes[i].members.as_slice())
            .unwrap_or_default();
        let mut members: Vec<OpId> = old
            .iter()
            .copied()
            .chain(changed.iter().map(|&(id, _)| id))
            .filter(|&id| in_scope(id))
            .filter(|&id| self.cx.verdicts().get(id).verdict != Verdict::Ignored)
            .collect();
        members.sort_unstable_by_key(|&id| graph.exec_position(id));
        members.dedup();
        members
    }
}

/// The model change that heals a break by an op that cannot be fused, for its reason.
fn model_change(reason: Reason, span: &str) -> String {
    match reason {
        Reason::NotAscendC | Reason::TilingOnAicpu => format!(
            "{}, or move its code before or after {span}",
            reason.suggestion()
        ),
        _ => format!(
            "move its code before or after {span} ({})",
            reason.suggestion()
        ),
    }
}
