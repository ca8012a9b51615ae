//! The comparison by op type (key: OP Type + Core Type, as msprof-analyze and MindStudio
//! Insight key it), with totals, the overall benefit, the attribution and, when both kernel
//! files are there, the per-segment view. Facts: reference/profiling_and_dumps.md §2.

use super::account::{Account, account};
use super::attribution::{Attribution, attribute};
use super::op_statistic::{OpStatistic, TypeStat};
use super::payoff::{PayoffRule, Payoffs, bind, payoffs};
use super::per_op::{PerOp, infer_plan, per_op};
use super::planned::PlannedFusion;
use super::runs::{NameInfo, Runs};
use super::steps::Steps;
use super::{Pair, Profile};
use crate::fusion::kernel::SUPERKERNEL_TYPE;
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
    /// A communication kernel: compared on its own line, outside the totals.
    Communication,
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
            RowStatus::Communication => "communication",
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
    /// For a digest (`root`), the profile it was made from, where it was on its node.
    pub digest_of: Option<String>,
}

impl SideSource {
    /// Where the profile was written: its root, or the profile a digest was made from.
    pub fn profile_root(&self) -> &std::path::Path {
        std::path::Path::new(self.digest_of.as_deref().unwrap_or(&self.root))
    }

    fn of(p: &Profile, from_kernels: bool) -> SideSource {
        let s = |v: &[std::path::PathBuf]| -> Vec<String> {
            v.iter().map(|p| p.to_string_lossy().into_owned()).collect()
        };
        SideSource {
            root: p.files.root.to_string_lossy().into_owned(),
            op_statistic: if from_kernels {
                Vec::new()
            } else {
                s(&p.files.op_statistic)
            },
            kernels: s(&p.files.kernels),
            by_type_from_kernels: from_kernels,
            digest_of: p
                .files
                .origin
                .as_ref()
                .map(|o| o.to_string_lossy().into_owned()),
        }
    }
}

/// Communication kernels (HCCL), base against new. They are not computation SuperKernel fuses
/// (unless the plan puts a communication op into a segment), and a profile taken with a
/// different collective schedule or rank count would otherwise show as a fusion benefit, so
/// they stay out of the totals and the benefit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Communication {
    /// All communication kernels of the base, added up.
    pub base: Option<Side>,
    /// All communication kernels of the new profile, added up.
    pub new: Option<Side>,
    /// `new − base`, µs.
    pub delta_us: f64,
    /// By op type and core type.
    pub rows: Vec<DiffRow>,
}

pub use super::row::is_communication;

/// The steps of both profiles.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepsPair {
    /// The base profile's.
    pub base: Steps,
    /// The new profile's.
    pub new: Steps,
}

/// The whole comparison. Times are per step: with kernel files, the totals are the median
/// step's and the by-type rows each profile's sums divided by its steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// Base files.
    pub base_source: SideSource,
    /// New files.
    pub new_source: SideSource,
    /// Base kernel time per step (the median step's; communication apart), µs.
    pub base_total_us: f64,
    /// New kernel time per step, µs.
    pub new_total_us: f64,
    /// `new − base`, µs.
    pub delta_us: f64,
    /// `(base − new) / base` in percent: positive when the new profile is faster; `None` when
    /// the base is 0. The headline.
    pub benefit_pct: Option<f64>,
    /// The median step's span (first kernel's start → last kernel's end) of the base, µs,
    /// when both kernel files give start times.
    pub base_span_us: Option<f64>,
    /// The same of the new profile, µs.
    pub new_span_us: Option<f64>,
    /// The benefit on the spans, in percent.
    pub span_benefit_pct: Option<f64>,
    /// Each profile's steps, when both have kernel files.
    pub steps: Option<StepsPair>,
    /// Each SuperKernel's payoff, when both profiles have kernel files and there is a plan
    /// (or one can be inferred).
    pub payoffs: Option<Payoffs>,
    /// By op type and core type, longest (on either side) first; communication kernels are in
    /// [`Diff::communication`] instead.
    pub rows: Vec<DiffRow>,
    /// Communication kernels, when either side has any.
    pub communication: Option<Communication>,
    /// The fused part against the rest.
    pub attribution: Attribution,
    /// Per segment, op and break, when both profiles have kernel files (or the base has and a
    /// plan is given).
    pub per_op: Option<PerOp>,
    /// Caveats about the input, in words.
    pub notes: Vec<String>,
    /// The account of the time: the step time each side took (busy time without start
    /// times) and the waterfall of where the difference went. Every output's headline.
    pub account: Account,
}

impl Diff {
    /// What the new side has that the base has not: `graph kernel fusion` when both profiles
    /// are MindSpore's (`*_ascend_ms`), else `SuperKernel`.
    pub fn fusion(&self) -> &'static str {
        fusion_of(
            self.base_source.profile_root(),
            self.new_source.profile_root(),
        )
    }
}

/// What a new profile at `new` has that the base at `base` has not: `graph kernel fusion`
/// when both are MindSpore's (`*_ascend_ms`), else `SuperKernel`.
fn fusion_of(base: &std::path::Path, new: &std::path::Path) -> &'static str {
    let mindspore = |root: &std::path::Path| {
        root.ancestors().any(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("_ascend_ms"))
        })
    };
    if mindspore(base) && mindspore(new) {
        "graph kernel fusion"
    } else {
        "SuperKernel"
    }
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

/// The by-type tables to compare, read the same way on both sides: op_statistic.csv and the
/// kernel file of one run count different rows, so when one side has only a kernel file both
/// are added up from their kernel files; when that cannot be done, a note says the two differ.
fn same_kind(
    base: &Profile,
    new: &Profile,
    notes: &mut Vec<String>,
) -> (OpStatistic, bool, OpStatistic, bool) {
    if base.stats_from_kernels == new.stats_from_kernels {
        return (
            base.stats.clone(),
            base.stats_from_kernels,
            new.stats.clone(),
            new.stats_from_kernels,
        );
    }
    if let (Some(b), Some(n)) = (&base.kernels, &new.kernels) {
        notes.push(
            "one side has no op_statistic.csv: both sides' by-type times are added up from their \
             kernel files, so they count the same rows"
                .to_string(),
        );
        return (b.type_statistic(), true, n.type_statistic(), true);
    }
    let (with, without) = if base.stats_from_kernels {
        ("new", "base")
    } else {
        ("base", "new")
    };
    notes.push(format!(
        "the {with} side's by-type times come from op_statistic.csv and the {without} side's \
         from its kernel file, which count different rows: differences may come from the \
         files rather than the runs (profile both at the same level)"
    ));
    (
        base.stats.clone(),
        base.stats_from_kernels,
        new.stats.clone(),
        new.stats_from_kernels,
    )
}

/// `stats` without its communication rows (but with those of `keep` types), and those rows.
fn split_communication(stats: &OpStatistic, keep: &HashSet<&str>) -> (OpStatistic, OpStatistic) {
    let (comm, rest): (Vec<TypeStat>, Vec<TypeStat>) = stats.rows.iter().cloned().partition(|r| {
        is_communication(&r.op_type, &r.core_type) && !keep.contains(r.op_type.as_str())
    });
    let with_devices = |rows| OpStatistic {
        devices: stats.devices.clone(),
        ..OpStatistic::from_rows(rows)
    };
    (with_devices(rest), with_devices(comm))
}

/// What to know about where communication kernels went: those kept with the computation on
/// an inferred plan's word, and those that ran only without SuperKernel although no segment
/// takes them.
fn communication_notes(
    computation: &OpStatistic,
    base_comm: &OpStatistic,
    new_comm: &OpStatistic,
    inferred: bool,
    notes: &mut Vec<String>,
) {
    let mut kept: Vec<&str> = computation
        .rows
        .iter()
        .filter(|r| is_communication(&r.op_type, &r.core_type))
        .map(|r| r.op_type.as_str())
        .collect();
    kept.dedup();
    if inferred && !kept.is_empty() {
        notes.push(format!(
            "{} counted with the computation: the new profile's SuperKernel names place these \
             kernels inside segments (inferred; give --graph to be exact)",
            kept.join(", ")
        ));
    }
    for row in &base_comm.rows {
        if !new_comm.rows.iter().any(|n| n.op_type == row.op_type) {
            notes.push(format!(
                "{} ran {} time(s) without SuperKernel and not at all with it, but no segment \
                 takes it: it stays out of the totals (if SuperKernel fused it, give --graph)",
                row.op_type, row.count
            ));
        }
    }
}

/// The communication line, when either side has communication kernels.
fn communication(base: &OpStatistic, new: &OpStatistic) -> Option<Communication> {
    if base.rows.is_empty() && new.rows.is_empty() {
        return None;
    }
    let side = |s: &OpStatistic| {
        (!s.rows.is_empty()).then(|| {
            Side::of(&TypeStat {
                op_type: String::new(),
                core_type: String::new(),
                count: s.rows.iter().map(|r| r.count).sum(),
                total_us: s.total_us(),
                min_us: None,
                max_us: None,
            })
        })
    };
    let mut rows = by_type(base, new);
    for row in &mut rows {
        row.status = RowStatus::Communication;
    }
    Some(Communication {
        base: side(base),
        new: side(new),
        delta_us: new.total_us() - base.total_us(),
        rows,
    })
}

/// What the steps say that the totals do not: different step counts, and steps far from the
/// others, which the account leaves out.
fn step_notes(steps: &StepsPair, account: &Account, notes: &mut Vec<String>) {
    let (b, n) = (steps.base.list.len(), steps.new.list.len());
    if b != n {
        notes.push(format!(
            "the base has {b} step(s) and the new profile {n}: times are per step (means over \
             the steps kept; by type, each profile's sums divided by its steps)"
        ));
    }
    let measure = account.measure.name();
    for (side, time) in [("base", &account.base), ("new", &account.new)] {
        if time.left_out.is_empty() {
            continue;
        }
        notes.push(format!(
            "{side}: step {} left out: its {measure} lies more than {} deviations (and {} %) \
             from the median step's {} µs (a recompile, a page fault?)",
            time.left_out.join(", "),
            super::account::OUTLIER_MADS,
            super::account::OUTLIER_FLOOR_PCT,
            super::figures::fixed(time.median_ns / 1000.0, 2)
        ));
    }
}

/// The op types of `plan`'s segments: a communication op a segment takes (AllReduce and its
/// kin can join a SuperKernel) stays with the computation.
fn planned_types(plan: &PlannedFusion) -> HashSet<&str> {
    plan.segments
        .iter()
        .flat_map(|s| s.ops.iter().filter_map(|o| o.op_type.as_deref()))
        .collect()
}

/// True when a SuperKernel kernel ran in `runs`.
fn superkernels_ran(runs: &Runs) -> bool {
    (0..runs.names() as u32).any(|i| *runs.name(i).op_type == *SUPERKERNEL_TYPE)
}

/// What both profiles' runs say of a plan: each SuperKernel's payoff and the account of the
/// time, made once from one binding — what the diff, suggestions and the ledger all present.
#[derive(Debug, Clone)]
pub struct Judged {
    /// Each SuperKernel's payoff (by layer from the account's parts).
    pub payoffs: Payoffs,
    /// The account of the time.
    pub account: Account,
}

/// Judges `plan` on the runs `base` and `new` by `rule`; `fusion` names what the new profile
/// ran (`None`: no SuperKernel, a plain A/B).
pub fn judge(
    plan: &PlannedFusion,
    (base, new): (&Runs, &Runs),
    rule: PayoffRule,
    fusion: Option<&'static str>,
) -> Judged {
    let planned = planned_types(plan);
    let counted = |info: &NameInfo| {
        !is_communication(&info.op_type, &info.core_type) || planned.contains(&*info.op_type)
    };
    let binding = bind(plan, base, new);
    let mut payoffs = payoffs(plan, &binding, (base, new), rule);
    let account = account(
        Some((plan, &binding)),
        Some((base, new)),
        &counted,
        (0.0, 0.0),
        ((base.steps().len(), new.steps().len()), fusion),
    );
    payoffs.layers = super::payoff::by_layer(&payoffs.list, &|x| {
        let part = account.superkernel(&x.fused_node)?;
        Some((part.base_ns, part.new_ns))
    });
    Judged { payoffs, account }
}

/// [`judge`] on runs alone: SuperKernel when one ran in `new`, else a plain A/B.
pub fn judge_runs(plan: &PlannedFusion, (base, new): (&Runs, &Runs), rule: PayoffRule) -> Judged {
    let fusion = superkernels_ran(new).then_some("SuperKernel");
    judge(plan, (base, new), rule, fusion)
}

/// Compares the pair with the default payoff rule (see [`diff_with`]).
pub fn diff(pair: &Pair, plan: Option<&PlannedFusion>) -> Diff {
    diff_with(pair, plan, PayoffRule::default())
}

/// Compares the pair; `plan` (from a graph dump or plan file) makes the attribution, the
/// per-segment view and the payoffs exact where the profile agrees with it; payoffs are
/// judged by `rule`.
pub fn diff_with(pair: &Pair, plan: Option<&PlannedFusion>, rule: PayoffRule) -> Diff {
    let (base, new) = (&pair.base, &pair.new);
    let mut notes = Vec::new();
    let (base_stats, base_from_kernels, new_stats, new_from_kernels) =
        same_kind(base, new, &mut notes);
    let (base_steps, new_steps) = (base.step_count(), new.step_count());
    let (base_stats, new_stats) = (
        base_stats.per_step(base_steps),
        new_stats.per_step(new_steps),
    );
    // Without a plan, the new profile's SuperKernel names say which base kernels each one
    // took (an inference).
    let inferred = match (plan, &base.kernels, &new.kernels) {
        (None, Some(b), Some(n)) => Some(infer_plan(b, n)),
        _ => None,
    };
    let segments = plan.or(inferred.as_ref());
    // A communication op a segment takes (AllReduce and its kin can join a SuperKernel) stays
    // with the computation.
    let planned_types = segments.map(planned_types).unwrap_or_default();
    let (base_stats, base_comm) = split_communication(&base_stats, &planned_types);
    let (new_stats, new_comm) = split_communication(&new_stats, &planned_types);
    communication_notes(
        &base_stats,
        &base_comm,
        &new_comm,
        inferred.is_some(),
        &mut notes,
    );
    let attribution = attribute(&base_stats, &new_stats, plan, base.kernels.as_ref());
    let fused: HashSet<&str> = attribution
        .fused_types
        .iter()
        .map(|t| t.op_type.as_str())
        .collect();
    let mut rows = by_type(&base_stats, &new_stats);
    for row in &mut rows {
        if row.status == RowStatus::BaseOnly && fused.contains(row.op_type.as_str()) {
            row.status = RowStatus::FusedAway;
        }
    }
    for (side, p) in [("base", base), ("new", new)] {
        notes.extend(p.notes.iter().map(|n| format!("{side}: {n}")));
        let csv = p.files.kernel_form.is_none_or(super::KernelForm::is_csv);
        // A level is named only when the profile says which it is.
        let level = p
            .level
            .as_deref()
            .map_or(String::new(), |l| format!(" ({l} profile)"));
        if p.stats_from_kernels && csv {
            notes.push(format!(
                "{side}: no op_statistic.csv{level}: by-type times added up from the kernel file"
            ));
        }
        if let Some(k) = p.kernels.as_ref().filter(|k| k.types_from_names > 0 && csv) {
            notes.push(format!(
                "{side}: {} kernel name(s) have no op type (Type is N/A){level}: their type is \
                 the name without its index suffix (trans_TransData_0 → trans_TransData)",
                k.types_from_names
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
    let per_op = match (&base.kernels, segments) {
        (Some(b), Some(segments)) => Some(per_op(
            segments,
            b,
            new.kernels.as_ref(),
            (base_steps, new_steps),
        )),
        _ => None,
    };
    let counted = |info: &NameInfo| {
        !is_communication(&info.op_type, &info.core_type) || planned_types.contains(&*info.op_type)
    };
    let steps = match (&base.runs, &new.runs) {
        (Some(b), Some(n)) => Steps::of(b, counted)
            .zip(Steps::of(n, counted))
            .map(|(base, new)| StepsPair { base, new }),
        _ => None,
    };
    let ran =
        !attribution.superkernels.is_empty() || new.runs.as_ref().is_some_and(superkernels_ran);
    // MindSpore's composites are not SuperKernel kernels: graph kernel fusion is taken as run.
    let fusion_ran = match fusion_of(base.files.profile_root(), new.files.profile_root()) {
        "SuperKernel" if !ran => None,
        fusion => Some(fusion),
    };
    let (payoffs, account) = match (&base.runs, &new.runs, segments) {
        (Some(b), Some(n), Some(segments)) => {
            let judged = judge(segments, (b, n), rule, fusion_ran);
            match super::payoff::ops_appearing(segments, b, n) {
                (0, all) if all > 0 => {
                    notes.push(format!(
                        "0 of the {all} ops in the plan's segments appear in these profiles: \
                         they ran another model or graph than {} (no payoff is judged); \
                         compare profiles of this graph, or give the graph they ran",
                        segments.source
                    ));
                    (None, judged.account)
                }
                _ => (Some(judged.payoffs), judged.account),
            }
        }
        (runs_b, runs_n, _) => {
            let account = account(
                None,
                runs_b.as_ref().zip(runs_n.as_ref()),
                &counted,
                (base_stats.total_us(), new_stats.total_us()),
                ((base_steps, new_steps), fusion_ran),
            );
            notes.push(
                "payoffs need the kernels of both profiles (kernel_details.csv, \
                 op_summary_*.csv or the profiler database): with op_statistic.csv alone a SuperKernel's occurrences \
                 cannot be told apart"
                    .to_string(),
            );
            (None, account)
        }
    };
    let benefit = |b: f64, n: f64| (b != 0.0).then(|| (b - n) / b * 100.0);
    if let Some(steps) = &steps {
        step_notes(steps, &account, &mut notes);
    }
    // The keys of earlier releases keep their meaning: busy time, the median over the steps
    // kept; the span's median when the account measures step time.
    let (bt, nt) = match &steps {
        Some(_) => (
            account.base.busy_median_ns / 1000.0,
            account.new.busy_median_ns / 1000.0,
        ),
        None => (base_stats.total_us(), new_stats.total_us()),
    };
    let spans =
        (account.measure == super::account::Measure::StepTime && steps.is_some()).then(|| {
            (
                account.base.median_ns / 1000.0,
                account.new.median_ns / 1000.0,
            )
        });
    Diff {
        base_source: SideSource::of(base, base_from_kernels),
        new_source: SideSource::of(new, new_from_kernels),
        base_total_us: bt,
        new_total_us: nt,
        delta_us: nt - bt,
        benefit_pct: benefit(bt, nt),
        base_span_us: spans.map(|s| s.0),
        new_span_us: spans.map(|s| s.1),
        span_benefit_pct: spans.and_then(|(b, n)| benefit(b, n)),
        steps,
        payoffs,
        rows,
        communication: communication(&base_comm, &new_comm),
        attribution,
        per_op,
        notes,
        account,
    }
}
