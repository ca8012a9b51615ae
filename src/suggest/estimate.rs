//! The whole model if every suggestion that fits were accepted: the scopes made as accepting
//! all would make them ([`Suggestions::all_that_fit`], scopes left without a SuperKernel
//! cleared), planned by the graph's planner, and held against today's plan — SuperKernels,
//! boundaries fused and, with a profile, the saving per step each plan comes to over no
//! SuperKernel at all, by the same model that ranks the suggestions.

use super::accept::{Pick, emptied};
use super::timing::Timing;
use super::{PerOp, Suggestions};
use crate::edit::Edit;
use crate::fusion::marks::{Marks, OpMark};
use crate::fusion::plan::Plan;
use crate::graph::OpId;
use crate::workspace::Planning;
use serde::Serialize;
use std::collections::HashSet;

/// Today's plan against the plan with every suggestion that fits accepted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WholeModel {
    /// The exclusions accepted (that heal a whole-model scope).
    pub exclusions: usize,
    /// The templates accepted, by name.
    pub templates: Vec<String>,
    /// The per-layer suggestions accepted, by name.
    pub suggestions: Vec<String>,
    /// The scopes they make.
    pub scopes: usize,
    /// Scopes of today's that they leave without a SuperKernel, cleared.
    pub cleared: Vec<String>,
    /// SuperKernels (of one kernel too): today, and with all accepted.
    pub superkernels: (usize, usize),
    /// Kernel boundaries fused: today, and with all accepted.
    pub boundaries: (usize, usize),
    /// What each plan saves per step over no SuperKernel, µs, today and with all accepted:
    /// with a profile.
    pub saving_us: Option<(f64, f64)>,
}

impl WholeModel {
    /// What accepting all adds per step over today's plan, µs (with a profile).
    pub fn gain_us(&self) -> Option<f64> {
        self.saving_us.map(|(today, all)| all - today)
    }

    /// In one line: what is accepted and what the model comes to.
    pub fn words(&self) -> String {
        if self.scopes == 0 && self.exclusions == 0 {
            return "all that fit accepted: nothing to accept — every suggestion is fused \
                    already, overlaps, or adds nothing"
                .to_string();
        }
        let value = match self.saving_us {
            Some((today, all)) => format!(
                "{:+.1} µs/step over the current plan · SuperKernels {} → {} · saved over no \
                 SuperKernel: {today:.1} → {all:.1} µs/step",
                all - today,
                self.superkernels.0,
                self.superkernels.1
            ),
            None => format!(
                "{:+} boundaries fused ({} → {}) · SuperKernels {} → {}",
                self.boundaries.1 as i64 - self.boundaries.0 as i64,
                self.boundaries.0,
                self.boundaries.1,
                self.superkernels.0,
                self.superkernels.1
            ),
        };
        let exclusions = match self.exclusions {
            0 => String::new(),
            n => format!("{n} exclusion(s), "),
        };
        format!(
            "all that fit accepted ({exclusions}{} template(s), {} per-layer; {} scope(s)): {value}{}",
            self.templates.len(),
            self.suggestions.len(),
            self.scopes,
            if self.cleared.is_empty() {
                String::new()
            } else {
                format!(
                    " · {} cleared (left without a SuperKernel)",
                    self.cleared.join(", ")
                )
            }
        )
    }
}

/// What a plan comes to: SuperKernels (of one kernel too), boundaries fused, and (with
/// `timing`) its saving per step over no SuperKernel with `s`'s coefficients — `known`, when
/// its SuperKernels were predicted already.
fn measure(
    planning: &Planning,
    plan: &Plan,
    s: &Suggestions,
    (per_op, timing): (&PerOp<'_>, Option<&Timing>),
    known: Option<f64>,
) -> (usize, usize, Option<f64>) {
    let cx = planning.context();
    let (mut superkernels, mut boundaries, mut saving) = (0, 0, 0.0);
    for seg in plan.scopes.iter().flat_map(|scope| &scope.segments) {
        if seg.ops.is_empty() {
            continue;
        }
        // One of one kernel too: it removes no boundary, and pays its entry.
        superkernels += 1;
        boundaries += seg.ops.len() - 1;
        // As each SuperKernel's prediction values it (none for one whose sub-op never ran).
        if let Some((gain, lost, _)) = timing
            .filter(|_| known.is_none())
            .and_then(|t| super::value(cx, &seg.ops, (per_op, t), s.coefficients))
        {
            saving += gain - lost;
        }
    }
    (
        superkernels,
        boundaries,
        timing.map(|_| known.unwrap_or(saving)),
    )
}

/// Today's `marks` and `plan` against the plan with every suggestion of `s` that fits accepted,
/// planned by `planning`; savings from `timing`'s gaps when there is a profile (`per_op`: each
/// op's timing in it, looked up).
pub(super) fn whole_model(
    planning: &Planning,
    (marks, plan): (&Marks, &Plan),
    s: &Suggestions,
    (per_op, timing): (&PerOp<'_>, Option<&Timing>),
) -> WholeModel {
    let (picks, _) = s.all_that_fit();
    let mut names: HashSet<String> = marks.scopes().iter().cloned().collect();
    let mut accepted = marks.clone();
    let mut scopes = 0;
    for &pick in &picks {
        for edit in s.edits(pick, &mut names) {
            // As the accept's edits make them, without a user's edit's checks (the names are
            // fresh, the ops given): thousands of scopes are made without looking each name up.
            // Accepting makes new scopes and exclusions only.
            match edit {
                Edit::NewScope {
                    ops,
                    scope,
                    options,
                } => {
                    let scope = accepted.add_scope(scope);
                    let options = accepted.intern_options(&options);
                    for id in ops {
                        accepted.set(id, OpMark::Member { scope, options });
                    }
                    scopes += 1;
                }
                Edit::DoNotFuse { ops } => {
                    for id in ops {
                        accepted.set(id, OpMark::DoNotFuse);
                    }
                }
                _ => {}
            }
        }
    }
    let mut after = planning.plan(&accepted);
    let cleared = emptied(plan, &after);
    if !cleared.is_empty() {
        // Every op of those scopes out of it, in one pass, as deleting each scope would.
        let names: HashSet<&str> = cleared.iter().map(String::as_str).collect();
        let gone: Vec<bool> = accepted
            .scopes()
            .iter()
            .map(|n| names.contains(n.as_str()))
            .collect();
        for i in 0..planning.graph().len() {
            let id = OpId(i as u32);
            if let OpMark::Member { scope, .. } = accepted.get(id)
                && gone[scope as usize]
            {
                accepted.set(id, OpMark::Unscoped);
            }
        }
        after = planning.plan(&accepted);
    }
    // Today's SuperKernels as predicted already, SuperKernel by SuperKernel: one figure.
    let predicted = s
        .today
        .as_ref()
        .map(|p| p.superkernels.iter().map(|x| x.saving_us).sum());
    let today = measure(planning, plan, s, (per_op, timing), predicted);
    let all = measure(planning, &after, s, (per_op, timing), None);
    let (mut templates, mut suggestions) = (Vec::new(), Vec::new());
    let mut exclusions = 0;
    for pick in picks {
        match pick {
            Pick::Remedy(_) => exclusions += 1,
            Pick::Template(i) => templates.push(s.templates[i].name.clone()),
            Pick::Single(i) => suggestions.push(s.list[i].name.clone()),
        }
    }
    WholeModel {
        exclusions,
        templates,
        suggestions,
        scopes,
        cleared,
        superkernels: (today.0, all.0),
        boundaries: (today.1, all.1),
        saving_us: today.2.zip(all.2),
    }
}
