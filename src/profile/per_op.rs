//! Per segment and per op, from the kernel files: each segment's time without SuperKernel (its
//! ops' kernels in the base profile) and with (its `sk_<segment>_start_<a>_end_<b>` kernel in
//! the new profile), and the breaks ranked by the time of the unfused ops around them.
//!
//! Kernels join graph ops by name: in graph mode a kernel's `Name` is the GE op's name, and a
//! SuperKernel's is its fused node's name. Without a plan, segments are inferred from the new
//! profile's SuperKernel names, their ops from the base profile's order, and breaks from the
//! unfused kernels that run between two segments of one scope.

use super::fused_name::FusedName;
use super::kernels::{KernelStat, KernelTable};
use super::planned::{PlannedBreak, PlannedFusion, PlannedOp, PlannedSegment};
use crate::fusion::kernel::SUPERKERNEL_TYPE;
use serde::Serialize;
use std::collections::HashSet;

/// One op's time, per step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpTime {
    /// The op (kernel) name.
    pub name: String,
    /// Its type, when known.
    pub op_type: Option<String>,
    /// Runs per step in the profile the time is from (rounded).
    pub count: u64,
    /// Its time per step in µs; `None` when no kernel of that name ran.
    pub total_us: Option<f64>,
    /// Its wait before its launches per step, in µs.
    pub wait_us: f64,
}

impl OpTime {
    /// `op`'s time in `kernels`, a profile of `steps` steps.
    fn of(op: &PlannedOp, kernels: &KernelTable, steps: usize) -> OpTime {
        let k = kernels.get(&op.name);
        let n = steps.max(1) as f64;
        OpTime {
            name: op.name.clone(),
            op_type: op
                .op_type
                .clone()
                .or_else(|| k.map(|k| k.op_type.to_string())),
            count: k.map_or(0, |k| per_step_count(k.count, steps)),
            total_us: k.map(|k| k.total_us / n),
            wait_us: k.map_or(0.0, |k| k.wait_us / n),
        }
    }
}

/// `count` runs of a profile of `steps` steps, per step (rounded; at least 1 when any ran).
fn per_step_count(count: u64, steps: usize) -> u64 {
    ((count as f64 / steps.max(1) as f64).round() as u64).max(u64::from(count > 0))
}

/// One segment, without and with SuperKernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SegmentTime {
    /// The scope.
    pub scope: String,
    /// The segment.
    pub segment: String,
    /// The SuperKernel node (and kernel) name.
    pub fused_node: String,
    /// Its ops' base times, in order.
    pub ops: Vec<OpTime>,
    /// Without SuperKernel: the sum of its ops' base times per step, µs (the durations only:
    /// the payoff measures the interval).
    pub base_us: f64,
    /// Its ops that no base kernel matches.
    pub base_missing: Vec<String>,
    /// With SuperKernel: the SuperKernel's time per step in the new profile, µs; `None` when
    /// no new kernel has that name.
    pub new_us: Option<f64>,
    /// SuperKernel launches per step in the new profile.
    pub new_count: u64,
    /// `new − base`, µs.
    pub delta_us: Option<f64>,
    /// `(new − base) / base` in percent.
    pub change_pct: Option<f64>,
}

/// What one break costs: the ops around it that run unfused.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BreakCost {
    /// The scope it breaks.
    pub scope: String,
    /// The op.
    pub op: String,
    /// Its type, when known.
    pub op_type: Option<String>,
    /// Why it breaks the scope.
    pub reason: String,
    /// The unfused ops counted (itself first) with their times.
    pub unfused: Vec<OpTime>,
    /// Their total time, µs.
    pub unfused_us: f64,
    /// Their total wait before launch, µs.
    pub wait_us: f64,
    /// Their launches.
    pub launches: u64,
    /// True when the times are the base profile's (the new profile has no kernel file).
    pub from_base: bool,
}

impl BreakCost {
    /// A break's cost, one number everywhere: the time its unfused ops take a step, running
    /// and waiting to launch, µs.
    pub fn cost_us(&self) -> f64 {
        self.unfused_us + self.wait_us
    }

    /// The cost in words, the same in every front end: `10.11 µs a step (1 unfused
    /// launch(es): 9.11 µs running, 1.00 µs waiting)`.
    pub fn words(&self) -> String {
        format!(
            "{:.2} µs a step ({} unfused launch(es): {:.2} µs running, {:.2} µs waiting)",
            self.cost_us(),
            self.launches,
            self.unfused_us,
            self.wait_us
        )
    }
}

/// Per-segment and per-break times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PerOp {
    /// Every segment, in plan order.
    pub segments: Vec<SegmentTime>,
    /// Every break, costliest first.
    pub breaks: Vec<BreakCost>,
    /// Base kernels whose names match an op of the plan's segments or breaks.
    pub matched_base: usize,
    /// New SuperKernel kernels whose names match no segment of the plan.
    pub unmatched_superkernels: Vec<String>,
    /// True when segments and breaks are inferred (no plan, or a plan file alone).
    pub inferred: bool,
}

/// Joins the kernels to the plan; `steps` are the base's and the new profile's steps (times
/// are per step).
pub fn per_op(
    plan: &PlannedFusion,
    base: &KernelTable,
    new: Option<&KernelTable>,
    (base_steps, new_steps): (usize, usize),
) -> PerOp {
    let mut matched: HashSet<&str> = HashSet::new();
    let segments: Vec<SegmentTime> = plan
        .segments
        .iter()
        .map(|seg| {
            let ops: Vec<OpTime> = seg
                .ops
                .iter()
                .map(|op| OpTime::of(op, base, base_steps))
                .collect();
            for op in &seg.ops {
                if base.get(&op.name).is_some() {
                    matched.insert(op.name.as_str());
                }
            }
            let base_us = super::total(ops.iter().filter_map(|o| o.total_us));
            let sk: Option<&KernelStat> = new.and_then(|n| n.get(&seg.fused_node));
            let new_us = sk.map(|k| k.total_us / new_steps.max(1) as f64);
            SegmentTime {
                scope: seg.scope.clone(),
                segment: seg.segment.clone(),
                fused_node: seg.fused_node.clone(),
                base_missing: ops
                    .iter()
                    .filter(|o| o.total_us.is_none())
                    .map(|o| o.name.clone())
                    .collect(),
                ops,
                base_us,
                new_us,
                new_count: sk.map_or(0, |k| per_step_count(k.count, new_steps)),
                delta_us: new_us.map(|n| n - base_us),
                change_pct: new_us
                    .filter(|_| base_us != 0.0)
                    .map(|n| (n - base_us) / base_us * 100.0),
            }
        })
        .collect();
    let (from, from_steps) = match new {
        Some(new) => (new, new_steps),
        None => (base, base_steps),
    };
    let mut breaks: Vec<BreakCost> = plan
        .breaks
        .iter()
        .map(|b| {
            for op in &b.unfused {
                if base.get(&op.name).is_some() {
                    matched.insert(op.name.as_str());
                }
            }
            let unfused: Vec<OpTime> = b
                .unfused
                .iter()
                .map(|op| OpTime::of(op, from, from_steps))
                .collect();
            BreakCost {
                scope: b.scope.clone(),
                op: b.op.name.clone(),
                op_type: b.op.op_type.clone(),
                reason: b.reason.clone(),
                unfused_us: super::total(unfused.iter().filter_map(|o| o.total_us)),
                wait_us: super::total(unfused.iter().map(|o| o.wait_us)),
                launches: unfused.iter().map(|o| o.count).sum(),
                unfused,
                from_base: new.is_none(),
            }
        })
        .collect();
    breaks.sort_by(|a, b| b.cost_us().total_cmp(&a.cost_us()));
    let known: HashSet<&str> = plan
        .segments
        .iter()
        .map(|s| s.fused_node.as_str())
        .collect();
    let mut unmatched_superkernels: Vec<String> = new
        .map(|n| {
            n.iter()
                .filter(|(name, k)| *k.op_type == *SUPERKERNEL_TYPE && !known.contains(name))
                .map(|(name, _)| name.to_string())
                .collect()
        })
        .unwrap_or_default();
    unmatched_superkernels.sort();
    PerOp {
        segments,
        breaks,
        matched_base: matched.len(),
        unmatched_superkernels,
        inferred: plan.inferred,
    }
}

/// Segments and breaks inferred from the profiles alone: each SuperKernel kernel of `new` named
/// `sk_<segment>_start_<a>_end_<b>` takes the base kernels from `a` to `b` in execution order;
/// the unfused kernels that run between two segments of one scope in `new` are its breaks.
pub fn infer_plan(base: &KernelTable, new: &KernelTable) -> PlannedFusion {
    let base_order = base.exec_order();
    let at: std::collections::HashMap<&str, usize> = base_order
        .iter()
        .enumerate()
        .map(|(i, n)| (*n, i))
        .collect();
    let position = |name: &str| at.get(name).copied();
    let op = |name: &str, kernels: &KernelTable| PlannedOp {
        name: name.to_string(),
        op_type: kernels.get(name).map(|k| k.op_type.to_string()),
        call: None,
    };
    let mut segments = Vec::new();
    let mut last_segment: Option<String> = None;
    let mut pending: Vec<&str> = Vec::new();
    let mut breaks = Vec::new();
    for name in new.exec_order() {
        let Some(k) = new.get(name) else { continue };
        let parsed = (*k.op_type == *SUPERKERNEL_TYPE)
            .then(|| FusedName::parse(name))
            .flatten()
            .and_then(|f| Some((f, f.first_and_last(|n| base.get(n).is_some())?)));
        let Some((fused, (a, b))) = parsed else {
            if last_segment.is_some() {
                pending.push(name);
            }
            continue;
        };
        let (segment, scope) = (fused.segment, fused.scope());
        if last_segment.as_deref() == Some(scope)
            && let Some((&first, _)) = pending.split_first()
        {
            breaks.push(PlannedBreak {
                scope: scope.to_string(),
                op: op(first, new),
                reason: "runs unfused between two segments of the scope in the new profile \
                         (inferred)"
                    .to_string(),
                unfused: pending.iter().map(|n| op(n, new)).collect(),
            });
        }
        pending.clear();
        last_segment = Some(scope.to_string());
        let ops = match (position(a), position(b)) {
            (Some(i), Some(j)) if i <= j => base_order[i..=j].iter().map(|n| op(n, base)).collect(),
            _ => vec![op(a, base), op(b, base)],
        };
        segments.push(PlannedSegment {
            scope: scope.to_string(),
            segment: segment.to_string(),
            fused_node: name.to_string(),
            ops,
            options: String::new(),
        });
    }
    PlannedFusion {
        source: "inferred from the SuperKernel names in the new profile".to_string(),
        segments,
        breaks,
        inferred: true,
    }
}
