//! The comparison by op type (key: OP Type + Core Type, as msprof-analyze and MindStudio
//! Insight key it), with totals, the overall benefit, the attribution and, when both kernel
//! files are there, the per-segment view. Facts: reference/profiling_and_dumps.md §2.

use super::attribution::{Attribution, attribute};
use super::op_statistic::{OpStatistic, TypeStat};
use super::per_op::{PerOp, infer_plan, per_op};
use super::planned::PlannedFusion;
use super::{Pair, Profile};
use crate::fusion::verify::SUPERKERNEL_TYPE;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// One side of a row.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Side {
    /// Kernels run.
    pub count: u64,
    /// Their total time, µs.
    pub total_us: f64,
    /// Their average time, µs.
    pub avg_us: f64,
}

impl Side {
    fn of(s: &TypeStat) -> Side {
        Side {
            count: s.count,
            total_us: s.total_us,
            avg_us: s.avg_us(),
        }
    }
}

/// Which sides a row is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// On both sides.
    Both,
    /// Only in the base, and an op type the attribution counts as fused.
    FusedAway,
    /// Only in the base, not counted as fused.
    BaseOnly,
    /// Only in the new profile: a `SuperKernel` row.
    NewSuperkernel,
    /// Only in the new profile, not a SuperKernel.
    NewOnly,
}

impl RowStatus {
    /// The status in words, for the text table.
    pub fn text(self) -> &'static str {
        match self {
            RowStatus::Both => "",
            RowStatus::FusedAway => "fused away",
            RowStatus::BaseOnly => "base only",
            RowStatus::NewSuperkernel => "new SuperKernel",
            RowStatus::NewOnly => "new only",
        }
    }
}

/// One op type on one core type, base against new.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffRow {
    /// `OP Type`.
    pub op_type: String,
    /// `Core Type`.
    pub core_type: String,
    /// The base side, when the type ran there.
    pub base: Option<Side>,
    /// The new side, when the type ran there.
    pub new: Option<Side>,
    /// `new − base` total, µs (a missing side counts as 0).
    pub delta_us: f64,
    /// `new / base` total (msprof-analyze's "Diff Ratio"); `None` when the base is 0.
    pub ratio: Option<f64>,
    /// `(new − base) / base` in percent; `None` when the base is 0.
    pub change_pct: Option<f64>,
    /// Which sides it is on.
    pub status: RowStatus,
}

/// Which files one side was read from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSource {
    /// The profile's directory or file.
    pub root: String,
    /// The op statistic files; empty when the by-type table was built from the kernel file.
    pub op_statistic: Vec<String>,
    /// The kernel files.
    pub kernels: Vec<String>,
    /// True when the by-type table was added up from the kernel file (no op_statistic.csv).
    pub by_type_from_kernels: bool,
}

impl SideSource {
    fn of(p: &Profile) -> SideSource {
        let s = |v: &[std::path::PathBuf]| -> Vec<String> {
            v.iter().map(|p| p.to_string_lossy().into_owned()).collect()
        };
        SideSource {
            root: p.files.root.to_string_lossy().into_owned(),
            op_statistic: if p.stats_from_kernels {
                Vec::new()
            } else {
                s(&p.files.op_statistic)
            },
            kernels: s(&p.files.kernels),
            by_type_from_kernels: p.stats_from_kernels,
        }
    }
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// Base files.
    pub base_source: SideSource,
    /// New files.
    pub new_source: SideSource,
    /// Base total, µs.
    pub base_total_us: f64,
    /// New total, µs.
    pub new_total_us: f64,
    /// `new − base`, µs.
    pub delta_us: f64,
    /// `(base − new) / base` in percent: positive when the new profile is faster; `None` when
    /// the base is 0.
    pub benefit_pct: Option<f64>,
    /// By op type and core type, longest (on either side) first.
    pub rows: Vec<DiffRow>,
    /// The fused part against the rest.
    pub attribution: Attribution,
    /// Per segment, op and break, when both profiles have kernel files (or the base has and a
    /// plan is given).
    pub per_op: Option<PerOp>,
    /// Caveats about the input, in words.
    pub notes: Vec<String>,
}

fn index(s: &OpStatistic) -> HashMap<(&str, &str), Side> {
    s.rows
        .iter()
        .map(|r| ((r.op_type.as_str(), r.core_type.as_str()), Side::of(r)))
        .collect()
}

/// The rows of `base` against `new`.
pub fn by_type(base: &OpStatistic, new: &OpStatistic) -> Vec<DiffRow> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    let mut seen = HashSet::new();
    for r in base.rows.iter().chain(&new.rows) {
        if seen.insert((r.op_type.as_str(), r.core_type.as_str())) {
            keys.push((r.op_type.as_str(), r.core_type.as_str()));
        }
    }
    let (b, n) = (index(base), index(new));
    let mut rows: Vec<DiffRow> = keys
        .into_iter()
        .map(|key| {
            let (base, new) = (b.get(&key).copied(), n.get(&key).copied());
            let bt = base.map_or(0.0, |s| s.total_us);
            let nt = new.map_or(0.0, |s| s.total_us);
            DiffRow {
                op_type: key.0.to_string(),
                core_type: key.1.to_string(),
                base,
                new,
                delta_us: nt - bt,
                ratio: (bt != 0.0).then(|| nt / bt),
                change_pct: (bt != 0.0).then(|| (nt - bt) / bt * 100.0),
                status: match (base.is_some(), new.is_some()) {
                    (true, true) => RowStatus::Both,
                    (true, false) => RowStatus::BaseOnly,
                    _ if key.0 == SUPERKERNEL_TYPE => RowStatus::NewSuperkernel,
                    _ => RowStatus::NewOnly,
                },
            }
        })
        .collect();
    let size = |r: &DiffRow| {
        r.base
            .map_or(0.0, |s| s.total_us)
            .max(r.new.map_or(0.0, |s| s.total_us))
    };
    rows.sort_by(|a, b| size(b).total_cmp(&size(a)));
    rows
}

/// Compares the pair; `plan` (from a graph dump or plan file) makes the attribution and the
/// per-segment view exact where the profile agrees with it.
pub fn diff(pair: &Pair, plan: Option<&PlannedFusion>) -> Diff {
    let (base, new) = (&pair.base, &pair.new);
    let attribution = attribute(&base.stats, &new.stats, plan, base.kernels.as_ref());
    let fused: HashSet<&str> = attribution
        .fused_types
        .iter()
        .map(|t| t.op_type.as_str())
        .collect();
    let mut rows = by_type(&base.stats, &new.stats);
    for row in &mut rows {
        if row.status == RowStatus::BaseOnly && fused.contains(row.op_type.as_str()) {
            row.status = RowStatus::FusedAway;
        }
    }
    let mut notes = Vec::new();
    for (side, p) in [("base", base), ("new", new)] {
        if p.stats_from_kernels {
            notes.push(format!(
                "{side}: no op_statistic.csv (a Level0 profile?): by-type times added up from \
                 the kernel file"
            ));
        }
        if let Some(k) = &p.kernels
            && k.without_duration > 0
        {
            notes.push(format!(
                "{side}: {} kernel row(s) without a duration (N/A) left out",
                k.without_duration
            ));
        }
    }
    let per_op = match (&base.kernels, plan) {
        (Some(b), Some(plan)) => Some(per_op(plan, b, new.kernels.as_ref())),
        (Some(b), None) => new.kernels.as_ref().map(|n| {
            let inferred = infer_plan(b, n);
            per_op(&inferred, b, Some(n))
        }),
        (None, _) => None,
    };
    let (bt, nt) = (base.stats.total_us(), new.stats.total_us());
    Diff {
        base_source: SideSource::of(base),
        new_source: SideSource::of(new),
        base_total_us: bt,
        new_total_us: nt,
        delta_us: nt - bt,
        benefit_pct: (bt != 0.0).then(|| (bt - nt) / bt * 100.0),
        rows,
        attribution,
        per_op,
        notes,
    }
}
