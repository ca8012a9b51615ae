//! Attribution by op type: which base op types the SuperKernels replaced, and the fused part's
//! own before and after, apart from the unchanged rest.
//!
//! The fused op types come from the plan's segments when there is a plan, checked against the
//! profile: a type the plan fuses whose kernel count did not fall is left out, and a type whose
//! count fell that the plan does not fuse is counted in, marked as inferred. Without a plan,
//! every type whose count fell (when the new profile has `SuperKernel` rows) is taken, all
//! inferred. The fused part is those types' base rows against the new `SuperKernel` rows plus
//! whatever kernels of those types still run unfused; the rest is everything else, so the two
//! parts add up to the totals on each side.

use super::kernels::KernelTable;
use super::op_statistic::OpStatistic;
use super::planned::PlannedFusion;
use crate::fusion::kernel::SUPERKERNEL_TYPE;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Why an op type counts as fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FusedEvidence {
    /// The plan puts ops of this type in a segment, and the profile agrees (fewer kernels of
    /// it run in the new profile).
    Plan,
    /// Inferred from the profile alone: fewer kernels of this type run in the new profile,
    /// which has SuperKernels.
    Inferred,
}

/// How the fused op types were chosen, over all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// Every fused type from the plan.
    Plan,
    /// Some from the plan, some inferred from the profile.
    PlanAndInferred,
    /// All inferred from the profile.
    Inferred,
    /// Nothing fused: the new profile has no SuperKernel rows or no type lost kernels.
    Nothing,
}

impl Basis {
    /// The basis in words.
    pub fn text(self) -> &'static str {
        match self {
            Basis::Plan => "the plan's segments",
            Basis::PlanAndInferred => "the plan's segments, and inferred from the profile",
            Basis::Inferred => "inferred from the profile (op types with fewer kernels)",
            Basis::Nothing => "nothing fused",
        }
    }
}

/// One op type counted as fused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusedType {
    /// The op type.
    pub op_type: String,
    /// Why it counts.
    pub evidence: FusedEvidence,
    /// Its kernels in the base profile, over every core type.
    pub base_count: u64,
    /// Their time in µs.
    pub base_us: f64,
    /// Its kernels that still run unfused in the new profile.
    pub new_count: u64,
    /// Their time in µs.
    pub new_us: f64,
}

/// One `SuperKernel` row of the new profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuperKernelRow {
    /// Its core type (`MIX_AIC`, `MIX_AIV`).
    pub core_type: String,
    /// Launches.
    pub count: u64,
    /// Total time in µs.
    pub total_us: f64,
}

/// A part of the total, before and after.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Part {
    /// Time in the base profile, µs.
    pub base_us: f64,
    /// Time in the new profile, µs.
    pub new_us: f64,
    /// `new − base`, µs.
    pub delta_us: f64,
    /// `(new − base) / base` in percent; `None` when the base is 0.
    pub change_pct: Option<f64>,
}

impl Part {
    /// The part from its two times.
    pub fn new(base_us: f64, new_us: f64) -> Part {
        Part {
            base_us,
            new_us,
            delta_us: new_us - base_us,
            change_pct: (base_us != 0.0).then(|| (new_us - base_us) / base_us * 100.0),
        }
    }
}

/// What the SuperKernels replaced and what they cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attribution {
    /// How the fused types were chosen.
    pub basis: Basis,
    /// True when any fused type is inferred rather than taken from the plan.
    pub inferred: bool,
    /// The fused op types, by base time, longest first.
    pub fused_types: Vec<FusedType>,
    /// The new profile's `SuperKernel` rows.
    pub superkernels: Vec<SuperKernelRow>,
    /// The fused types' base time against the SuperKernels' time plus the fused types' kernels
    /// still running unfused.
    pub fused: Part,
    /// Everything else.
    pub rest: Part,
    /// Where the plan and the profile disagree, and other caveats, in words.
    pub notes: Vec<String>,
}

fn counts_by_type(stats: &OpStatistic) -> BTreeMap<&str, (u64, f64)> {
    let mut out: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    for r in &stats.rows {
        let e = out.entry(r.op_type.as_str()).or_default();
        e.0 += r.count;
        e.1 += r.total_us;
    }
    out
}

/// The op types the plan's segments fuse; a plan file alone names no types, so they are looked
/// up by op name in the base kernels when there are any. The second list holds ops whose type
/// could not be found.
fn plan_types(plan: &PlannedFusion, kernels: Option<&KernelTable>) -> (BTreeSet<String>, usize) {
    let mut types = BTreeSet::new();
    let mut unknown = 0;
    for op in plan.segments.iter().flat_map(|s| &s.ops) {
        match (&op.op_type, kernels.and_then(|k| k.get(&op.name))) {
            (Some(t), _) => {
                types.insert(t.clone());
            }
            (None, Some(k)) => {
                types.insert(k.op_type.to_string());
            }
            (None, None) => unknown += 1,
        }
    }
    (types, unknown)
}

/// Attributes the change from `base` to `new` to the fused op types and the rest.
pub fn attribute(
    base: &OpStatistic,
    new: &OpStatistic,
    plan: Option<&PlannedFusion>,
    base_kernels: Option<&KernelTable>,
) -> Attribution {
    let before = counts_by_type(base);
    let after = counts_by_type(new);
    let superkernels: Vec<SuperKernelRow> = new
        .rows
        .iter()
        .filter(|r| r.op_type == SUPERKERNEL_TYPE)
        .map(|r| SuperKernelRow {
            core_type: r.core_type.clone(),
            count: r.count,
            total_us: r.total_us,
        })
        .collect();
    let mut notes = Vec::new();
    let fell: BTreeSet<&str> = before
        .iter()
        .filter(|(t, (n, _))| **t != SUPERKERNEL_TYPE && after.get(*t).map_or(0, |a| a.0) < *n)
        .map(|(t, _)| *t)
        .collect();
    let mut chosen: BTreeMap<String, FusedEvidence> = BTreeMap::new();
    if let Some(plan) = plan {
        let (types, unknown) = plan_types(plan, base_kernels);
        if unknown > 0 {
            notes.push(format!(
                "{unknown} op(s) of the plan have no known type (a plan file without its graph, \
                 and no matching kernel in the base kernel file): give --graph for exact types"
            ));
        }
        for t in &types {
            match before.get(t.as_str()) {
                None => notes.push(format!(
                    "the plan fuses {t} ops, but the base profile has no {t} kernels"
                )),
                Some((n, _)) if after.get(t.as_str()).map_or(0, |a| a.0) >= *n => {
                    notes.push(format!(
                        "the plan fuses {t} ops, but the new profile runs as many {t} kernels \
                         as the base ({n}): not counted as fused"
                    ))
                }
                Some(_) => {
                    chosen.insert(t.clone(), FusedEvidence::Plan);
                }
            }
        }
    }
    if superkernels.is_empty() {
        notes.push("the new profile has no SuperKernel rows".to_string());
        chosen.clear();
    } else {
        for t in &fell {
            if !chosen.contains_key(*t) {
                if plan.is_some() {
                    notes.push(format!(
                        "{t}: fewer kernels in the new profile, but the plan fuses no {t} op: \
                         counted as fused (inferred)"
                    ));
                }
                chosen.insert((*t).to_string(), FusedEvidence::Inferred);
            }
        }
    }
    let mut fused_types: Vec<FusedType> = chosen
        .iter()
        .map(|(t, evidence)| {
            let (base_count, base_us) = before.get(t.as_str()).copied().unwrap_or_default();
            let (new_count, new_us) = after.get(t.as_str()).copied().unwrap_or_default();
            FusedType {
                op_type: t.clone(),
                evidence: *evidence,
                base_count,
                base_us,
                new_count,
                new_us,
            }
        })
        .collect();
    fused_types.sort_by(|a, b| b.base_us.total_cmp(&a.base_us));
    let sk_us = super::total(superkernels.iter().map(|r| r.total_us));
    let fused_base = super::total(fused_types.iter().map(|t| t.base_us));
    let fused_new = sk_us + super::total(fused_types.iter().map(|t| t.new_us));
    let fused = if fused_types.is_empty() {
        Part::new(0.0, sk_us)
    } else {
        Part::new(fused_base, fused_new)
    };
    let rest = Part::new(
        base.total_us() - fused.base_us,
        new.total_us() - fused.new_us,
    );
    let plan_count = fused_types
        .iter()
        .filter(|t| t.evidence == FusedEvidence::Plan)
        .count();
    let basis = match (plan_count, fused_types.len() - plan_count) {
        (0, 0) => Basis::Nothing,
        (_, 0) => Basis::Plan,
        (0, _) => Basis::Inferred,
        _ => Basis::PlanAndInferred,
    };
    Attribution {
        basis,
        inferred: matches!(basis, Basis::Inferred | Basis::PlanAndInferred)
            || plan.is_some_and(|p| p.inferred),
        fused_types,
        superkernels,
        fused,
        rest,
        notes,
    }
}
