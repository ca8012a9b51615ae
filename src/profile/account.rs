//! One account of a pair of profiles: how long a step took on each side, and where the
//! difference went — a waterfall of named parts that add up to it exactly, to the nanosecond.
//! Every output (the diff's text, JSON and Markdown, the profile view, the PR report, the run
//! ledger, suggestions' measured savings) presents this account; none computes its own.
//!
//! - A **step** is one device's step: the kernel runs of one `Step Id` on one device.
//! - **Step time** is a step's span on the device, from its first kernel's start to its last
//!   kernel's end: the time the user waits, and the headline. Without start times (or without
//!   kernel files) the headline is the **busy time** instead, named so: the step's kernels'
//!   durations added up, communication apart unless a segment takes it — parallel work counted
//!   twice, never called a benefit.
//! - **Steps kept**: a step whose step time (busy time, without start times) lies more than
//!   [`OUTLIER_MADS`] median absolute deviations and [`OUTLIER_FLOOR_PCT`] % from the median
//!   step's is left out (a recompile, a page fault) and named. Figures are means over the steps
//!   kept — means add up, medians do not — with the medians beside them.
//! - **Waterfall**: each step's span is partitioned instant by instant: time under one of a
//!   segment's occurrences (its sub-ops' interval without SuperKernel, its SuperKernel's run
//!   with it) is that SuperKernel's; occurrences of several segments at once give the overlap
//!   back (a negative part); then time under a SuperKernel the plan does not predict; under
//!   any other kernel (kernels outside every segment); under a communication kernel only; and
//!   the rest, no kernel running: idle. The parts of each step add up to its span, and their
//!   means over the steps kept, rounded together (largest remainder), to the mean step time.
//!   Without start times the parts are busy time: each SuperKernel's sub-ops' durations (its
//!   duration, with it), and the other kernels'.

use super::payoff::{Binding, Occurrence};
use super::planned::PlannedFusion;
use super::runs::{NameInfo, Runs};
use super::spread::Spread;
use crate::fusion::kernel::SUPERKERNEL_TYPE;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// How far from the median step, in median absolute deviations, a step is left out…
pub const OUTLIER_MADS: f64 = 3.0;

/// …when it is also this far from it in percent (steps a hair apart are not news).
pub const OUTLIER_FLOOR_PCT: f64 = 1.0;

/// What the headline measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// The step's span on the device.
    StepTime,
    /// The step's kernels' durations added up (no start times to measure a span).
    BusyTime,
}

impl Measure {
    /// The measure's name, as every output writes it.
    pub fn name(self) -> &'static str {
        match self {
            Measure::StepTime => "step time",
            Measure::BusyTime => "busy time",
        }
    }
}

/// One side's steps, as the account counts them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideTime {
    /// Steps (device steps) in the profile.
    pub steps: usize,
    /// Steps kept.
    pub kept: usize,
    /// The steps left out, by label (with the device when the profile has several).
    pub left_out: Vec<String>,
    /// The headline measure's mean over the steps kept, ns (the waterfall's end).
    pub mean_ns: i64,
    /// Its median over the steps kept, ns (half a nanosecond for an even count).
    pub median_ns: f64,
    /// Busy time: the mean over the steps kept, ns.
    pub busy_mean_ns: i64,
    /// Busy time: the median over the steps kept, ns.
    pub busy_median_ns: f64,
}

/// What a part of the waterfall is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// One SuperKernel of the plan: its occurrences' intervals without, its runs with.
    Superkernel,
    /// SuperKernels that ran but the plan does not predict.
    Unpredicted,
    /// Occurrences of several segments at the same time: counted once.
    Overlap,
    /// Kernels outside every segment (where no segment's occurrence covers them).
    Outside,
    /// Communication kernels outside every segment, where no other kernel runs.
    Communication,
    /// No kernel running.
    Idle,
}

/// One part of the waterfall: per step, mean over the steps kept, ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// What it is.
    pub kind: PartKind,
    /// Its name: the segment's for a SuperKernel, else the part's in words.
    pub name: String,
    /// The SuperKernel's node (and kernel) name, for a SuperKernel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fused_node: Option<String>,
    /// Without SuperKernel, ns per step.
    pub base_ns: i64,
    /// With SuperKernel, ns per step.
    pub new_ns: i64,
    /// `new − base`, ns per step.
    pub delta_ns: i64,
    /// A SuperKernel's part in each step kept (by the step's label; a side where the step was
    /// not kept has none): what suggestions fit their model on, step by step. Not in JSON.
    #[serde(skip)]
    pub steps: Vec<StepPart>,
}

/// A SuperKernel's part of one step, each side, ns, with its occurrences in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepPart {
    /// The step's label.
    pub step: String,
    /// Without SuperKernel: its part and occurrences, when the base kept the step.
    pub base: Option<(i64, usize)>,
    /// With SuperKernel: its part and occurrences, when the new profile kept the step.
    pub new: Option<(i64, usize)>,
}

/// The account of a pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Account {
    /// What the new profile has that the base has not — `SuperKernel`, or `graph kernel
    /// fusion` for MindSpore profiles — when it ran any; `None` when it ran none (the pair is
    /// then a plain A/B: nothing in it is fusion's doing).
    pub fusion: Option<&'static str>,
    /// What the headline measures.
    pub measure: Measure,
    /// The base profile's steps.
    pub base: SideTime,
    /// The new profile's steps.
    pub new: SideTime,
    /// `(base − new) / base` of the means, in percent: positive when the new profile is
    /// faster; `None` when the base took no time.
    pub change_pct: Option<f64>,
    /// Base → new as parts that add up exactly: `Σ base_ns = base.mean_ns`, `Σ new_ns =
    /// new.mean_ns`. Empty without kernel files.
    pub waterfall: Vec<Part>,
    /// Each SuperKernel's part's place in `waterfall`, by its node: looked up for every payoff,
    /// by the layers, the outputs and each row the profile view draws (12,500 SuperKernels
    /// searched one after the other were 156 M comparisons).
    #[serde(skip)]
    superkernels: foldhash::HashMap<String, usize>,
}

impl Account {
    /// The part of the SuperKernel `fused_node`.
    pub fn superkernel(&self, fused_node: &str) -> Option<&Part> {
        self.waterfall.get(*self.superkernels.get(fused_node)?)
    }

    /// The difference of the means, `new − base`, ns.
    pub fn delta_ns(&self) -> i64 {
        self.new.mean_ns - self.base.mean_ns
    }
}

/// How the kernels of a profile are classed for the account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Cover {
    /// Under a segment's occurrence.
    Segment = 0,
    /// Under a SuperKernel the plan does not predict.
    Unpredicted = 1,
    /// Under another kernel.
    Outside = 2,
    /// Under a communication kernel only.
    Communication = 3,
}

/// One device step of one side, as it is measured.
#[derive(Debug, Default)]
struct Unit<'r> {
    /// Its label.
    label: String,
    /// Its first start and last end, ns.
    first: i64,
    last: i64,
    /// Its busy time, ns.
    busy: i64,
    /// Its kernel runs (indices into the side's runs): their intervals are laid out only
    /// while the unit is swept, one unit at a time, not every run's at once.
    members: &'r [u32],
    /// Each segment's occurrences' intervals (segment index, start, end) and durations.
    occurrences: Vec<(usize, i64, i64, i64)>,
}

/// One side measured: its device steps, its runs, and what covers each kernel name's runs.
struct Measured<'r> {
    units: Vec<Unit<'r>>,
    runs: &'r Runs,
    covers: Vec<Cover>,
}

/// The parts of one side, per unit, before the means: `segments` per plan segment, then the
/// other parts.
#[derive(Debug, Default, Clone)]
struct Totals {
    segments: Vec<i128>,
    /// Per segment, its part and occurrences in each unit kept, by the unit's label.
    by_step: Vec<Vec<(String, i64, usize)>>,
    unpredicted: i128,
    overlap: i128,
    outside: i128,
    communication: i128,
    idle: i128,
}

/// Accounts for the pair: `base` and `new` runs (either may be missing: then the headline is
/// the busy time of `stats`, the by-type totals per step, with no waterfall), `plan` and its
/// `binding` to the runs; `counted` says which kernels busy time counts (communication apart).
pub fn account(
    plan: Option<(&PlannedFusion, &Binding<'_>)>,
    runs: Option<(&Runs, &Runs)>,
    counted: &dyn Fn(&NameInfo) -> bool,
    stats_busy_us: (f64, f64),
    (step_counts, fusion): ((usize, usize), Option<&'static str>),
) -> Account {
    let Some((base, new)) = runs else {
        let side = |us: f64, steps: usize| SideTime {
            steps,
            kept: steps,
            left_out: Vec::new(),
            mean_ns: (us * 1000.0).round() as i64,
            median_ns: (us * 1000.0).round(),
            busy_mean_ns: (us * 1000.0).round() as i64,
            busy_median_ns: (us * 1000.0).round(),
        };
        let (base, new) = (
            side(stats_busy_us.0, step_counts.0),
            side(stats_busy_us.1, step_counts.1),
        );
        return Account {
            fusion,
            measure: Measure::BusyTime,
            change_pct: change(base.mean_ns, new.mean_ns),
            base,
            new,
            waterfall: Vec::new(),
            superkernels: foldhash::HashMap::default(),
        };
    };
    let measure = if base.has_starts && new.has_starts {
        Measure::StepTime
    } else {
        Measure::BusyTime
    };
    let segments = plan.map_or(0, |(p, _)| p.segments.len());
    let predicted: HashSet<&str> = plan
        .map(|(p, _)| p.segments.iter().map(|s| s.fused_node.as_str()).collect())
        .unwrap_or_default();
    let occurrences = |with: bool| -> Vec<(usize, Occurrence<'_>)> {
        plan.map(|(_, b)| {
            b.segments
                .iter()
                .enumerate()
                .flat_map(|(i, s)| {
                    let side = if with { &s.new } else { &s.base };
                    side.iter().map(move |o| (i, *o))
                })
                .collect()
        })
        .unwrap_or_default()
    };
    let base_units = units(base, &occurrences(false), counted, &predicted, false);
    let new_units = units(new, &occurrences(true), counted, &predicted, true);
    let (base_side, base_totals) = side(&base_units, measure, segments);
    let (new_side, new_totals) = side(&new_units, measure, segments);
    let mut waterfall = Vec::new();
    if let Some((plan, _)) = plan {
        for (i, seg) in plan.segments.iter().enumerate() {
            let mut p = part(
                PartKind::Superkernel,
                seg.segment.clone(),
                Some(seg.fused_node.clone()),
                (base_totals.segments[i], new_totals.segments[i]),
            );
            p.steps = step_parts(&base_totals.by_step[i], &new_totals.by_step[i]);
            waterfall.push(p);
        }
    }
    let others = [
        (
            PartKind::Unpredicted,
            "SuperKernels the plan does not predict",
            base_totals.unpredicted,
            new_totals.unpredicted,
        ),
        (
            PartKind::Overlap,
            "segments at the same time (counted once)",
            -base_totals.overlap,
            -new_totals.overlap,
        ),
        (
            PartKind::Outside,
            "kernels outside every segment",
            base_totals.outside,
            new_totals.outside,
        ),
        (
            PartKind::Communication,
            "communication outside every segment",
            base_totals.communication,
            new_totals.communication,
        ),
        (
            PartKind::Idle,
            "idle (no kernel running)",
            base_totals.idle,
            new_totals.idle,
        ),
    ];
    for (kind, name, b, n) in others {
        // A part that is nothing on both sides is left out; an idle line stays with spans.
        let shown = b != 0 || n != 0 || (kind == PartKind::Idle && measure == Measure::StepTime);
        if shown && !(kind == PartKind::Idle && measure == Measure::BusyTime) {
            waterfall.push(part(kind, name.to_string(), None, (b, n)));
        }
    }
    // Per step, rounded together so each column still adds up to its mean.
    let base_ns = round_together(
        &waterfall
            .iter()
            .map(|p| p.base_ns as i128)
            .collect::<Vec<_>>(),
        base_side.kept,
    );
    let new_ns = round_together(
        &waterfall
            .iter()
            .map(|p| p.new_ns as i128)
            .collect::<Vec<_>>(),
        new_side.kept,
    );
    for ((p, b), n) in waterfall.iter_mut().zip(base_ns).zip(new_ns) {
        p.base_ns = b;
        p.new_ns = n;
        p.delta_ns = n - b;
    }
    Account {
        fusion,
        measure,
        change_pct: change(base_side.mean_ns, new_side.mean_ns),
        base: base_side,
        new: new_side,
        superkernels: super::first_places(
            (waterfall.iter().enumerate()).filter_map(|(i, p)| Some((i, p.fused_node.clone()?))),
        ),
        waterfall,
    }
}

/// One profile's steps alone, as the account of any pair it is in counts them: what the
/// headline measures (step time when the runs have start times) and its figures.
pub fn side_time(runs: &Runs, counted: &dyn Fn(&NameInfo) -> bool) -> (Measure, SideTime) {
    let measure = if runs.has_starts {
        Measure::StepTime
    } else {
        Measure::BusyTime
    };
    let units = units(runs, &[], counted, &HashSet::new(), false);
    (measure, side(&units, measure, 0).0)
}

/// A SuperKernel's parts step by step, both sides joined by the step's label, in the base's
/// order and then the new profile's steps the base lacks.
fn step_parts(base: &[(String, i64, usize)], new: &[(String, i64, usize)]) -> Vec<StepPart> {
    let at: HashMap<&str, (i64, usize)> =
        new.iter().map(|(s, v, n)| (s.as_str(), (*v, *n))).collect();
    let mut out: Vec<StepPart> = base
        .iter()
        .map(|(step, v, n)| StepPart {
            step: step.clone(),
            base: Some((*v, *n)),
            new: at.get(step.as_str()).copied(),
        })
        .collect();
    let seen: HashSet<&str> = base.iter().map(|(s, _, _)| s.as_str()).collect();
    out.extend(
        new.iter()
            .filter(|(s, _, _)| !seen.contains(s.as_str()))
            .map(|(step, v, n)| StepPart {
                step: step.clone(),
                base: None,
                new: Some((*v, *n)),
            }),
    );
    out
}

/// `(base − new) / base` in percent.
fn change(base: i64, new: i64) -> Option<f64> {
    (base != 0).then(|| (base - new) as f64 / base as f64 * 100.0)
}

/// A part with its totals over the steps kept (made per step later).
fn part(kind: PartKind, name: String, fused_node: Option<String>, (b, n): (i128, i128)) -> Part {
    let clamp = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
    Part {
        kind,
        name,
        fused_node,
        base_ns: clamp(b),
        new_ns: clamp(n),
        delta_ns: 0,
        steps: Vec::new(),
    }
}

/// The device steps of `runs`, each with its kernels classed and the occurrences on it, in
/// the order the runs first met them.
fn units<'r>(
    runs: &'r Runs,
    occurrences: &[(usize, Occurrence<'_>)],
    counted: &dyn Fn(&NameInfo) -> bool,
    predicted: &HashSet<&str>,
    with_superkernel: bool,
) -> Measured<'r> {
    let devices = runs.devices().len();
    let all = runs.all();
    // Per name: what covers its runs, and whether busy time counts them.
    let classes: Vec<(Cover, bool)> = (0..runs.names() as u32)
        .map(|id| {
            let info = runs.name(id);
            let communication = super::row::is_communication(&info.op_type, &info.core_type);
            let cover = if with_superkernel
                && *info.op_type == *SUPERKERNEL_TYPE
                && !predicted.contains(&*info.name)
            {
                Cover::Unpredicted
            } else if communication {
                Cover::Communication
            } else {
                Cover::Outside
            };
            (cover, counted(info))
        })
        .collect();
    let mut out: Vec<(u32, Unit<'r>)> = runs
        .units()
        .map(|members| {
            let r = &all[members[0] as usize];
            let label = match devices {
                0 | 1 => runs.label(r.step).to_string(),
                _ => format!("{}@{}", runs.label(r.step), runs.label(r.device)),
            };
            let mut unit = Unit {
                label,
                first: i64::MAX,
                last: i64::MIN,
                members,
                ..Unit::default()
            };
            for &i in members {
                let r = &all[i as usize];
                unit.first = unit.first.min(r.start_ns);
                unit.last = unit.last.max(r.end_ns());
                if classes[r.name as usize].1 {
                    unit.busy = unit.busy.saturating_add(r.dur_ns);
                }
            }
            // A step's runs come in file order: its first is the one met first.
            (members[0], unit)
        })
        .collect();
    out.sort_by_key(|(first_met, _)| *first_met);
    let mut units: Vec<Unit<'r>> = out.into_iter().map(|(_, u)| u).collect();
    // Looked up for every occurrence: foldhash, not SipHash.
    let at: foldhash::HashMap<(u32, u32), usize> = units
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let r = &all[u.members[0] as usize];
            ((r.device, r.step), i)
        })
        .collect();
    for (seg, o) in occurrences {
        if let Some(&i) = at.get(&o.unit) {
            units[i]
                .occurrences
                .push((*seg, o.start_ns, o.end_ns, o.kernels_ns));
        }
    }
    Measured {
        units,
        runs,
        covers: classes.into_iter().map(|(c, _)| c).collect(),
    }
}

/// One side's steps kept and their parts' totals over them.
fn side(measured: &Measured<'_>, measure: Measure, segments: usize) -> (SideTime, Totals) {
    let units = &measured.units;
    let value = |u: &Unit<'_>| match measure {
        Measure::StepTime => u.last.saturating_sub(u.first).max(0),
        Measure::BusyTime => u.busy,
    };
    let values: Vec<i64> = units.iter().map(value).collect();
    let spread = Spread::of(&values);
    let left = |v: i64| {
        spread.is_some_and(|s| {
            let us = v as f64 / 1000.0;
            s.is_outlier(us, OUTLIER_MADS)
                && (us - s.median_us).abs() > OUTLIER_FLOOR_PCT / 100.0 * s.median_us
        })
    };
    let kept: Vec<&Unit<'_>> = units.iter().filter(|u| !left(value(u))).collect();
    let mut totals = Totals {
        segments: vec![0; segments],
        by_step: vec![Vec::new(); segments],
        ..Totals::default()
    };
    // One unit's kernels laid out at a time, in a buffer kept from unit to unit.
    let mut kernels = Vec::new();
    for unit in &kept {
        kernels.clear();
        let all = measured.runs.all();
        kernels.extend(unit.members.iter().map(|&i| {
            let r = &all[i as usize];
            (r.start_ns, r.end_ns(), measured.covers[r.name as usize])
        }));
        add_unit(unit, &kernels, measure, &mut totals);
    }
    let measured: Vec<i64> = kept.iter().map(|u| value(u)).collect();
    let busy: Vec<i64> = kept.iter().map(|u| u.busy).collect();
    let n = kept.len().max(1) as i128;
    let mean = |v: &[i64]| {
        let sum: i128 = v.iter().map(|&x| i128::from(x)).sum();
        i64::try_from((2 * sum + n) / (2 * n)).unwrap_or(i64::MAX)
    };
    let median = |v: &[i64]| super::spread::median_ns(v);
    let time = SideTime {
        steps: units.len(),
        kept: kept.len(),
        left_out: units
            .iter()
            .filter(|u| left(value(u)))
            .map(|u| u.label.clone())
            .collect(),
        mean_ns: mean(&measured),
        median_ns: median(&measured),
        busy_mean_ns: mean(&busy),
        busy_median_ns: median(&busy),
    };
    (time, totals)
}

/// Adds one step's parts to `totals`: its span partitioned (step time), or its busy time
/// split (busy time); `kernels` are its runs' intervals and what covers each.
fn add_unit(unit: &Unit<'_>, kernels: &[(i64, i64, Cover)], measure: Measure, totals: &mut Totals) {
    let mut in_segments: i128 = 0;
    for &(seg, start, end, kernels) in &unit.occurrences {
        let time = match measure {
            Measure::StepTime => end.saturating_sub(start),
            Measure::BusyTime => kernels,
        };
        totals.segments[seg] += i128::from(time);
        in_segments += i128::from(time);
        let steps = &mut totals.by_step[seg];
        match steps.last_mut() {
            Some((label, sum, n)) if *label == unit.label => {
                *sum = sum.saturating_add(time);
                *n += 1;
            }
            _ => steps.push((unit.label.clone(), time, 1)),
        }
    }
    if measure == Measure::BusyTime {
        let unpredicted: i128 = kernels
            .iter()
            .filter(|k| k.2 == Cover::Unpredicted)
            .map(|k| i128::from(k.1 - k.0))
            .sum();
        totals.unpredicted += unpredicted;
        totals.outside += i128::from(unit.busy) - in_segments - unpredicted;
        return;
    }
    // Sweep the step's span: at each instant, the first cover that holds wins.
    let mut events: Vec<(i64, i8, u8)> = Vec::with_capacity(2 * (kernels.len() + 8));
    for &(_, start, end, _) in &unit.occurrences {
        events.push((start, 1, Cover::Segment as u8));
        events.push((end, -1, Cover::Segment as u8));
    }
    for &(start, end, cover) in kernels {
        events.push((start, 1, cover as u8));
        events.push((end, -1, cover as u8));
    }
    // A step's kernels come in the order they started (`Runs::units`), so the events fall in
    // a few ascending runs, which the stable sort finds and merges (the unstable one sorts
    // them again from scratch).
    events.sort();
    let mut open = [0i64; 4];
    let mut covered = [0i128; 5];
    let mut at = unit.first;
    for (time, change, cover) in events {
        if time > at {
            let holder = open.iter().position(|&n| n > 0).unwrap_or(4);
            covered[holder] += i128::from(time - at);
            at = time;
        }
        open[cover as usize] += i64::from(change);
    }
    if unit.last > at {
        covered[4] += i128::from(unit.last - at);
    }
    totals.overlap += in_segments - covered[Cover::Segment as usize];
    totals.unpredicted += covered[Cover::Unpredicted as usize];
    totals.outside += covered[Cover::Outside as usize];
    totals.communication += covered[Cover::Communication as usize];
    totals.idle += covered[4];
}

/// Totals over `n` steps as per-step values, each rounded so that they still add up to the
/// rounded mean of their sum (largest remainder).
fn round_together(totals: &[i128], n: usize) -> Vec<i64> {
    let n = n.max(1) as i128;
    let sum: i128 = totals.iter().sum();
    let target = (2 * sum + n).div_euclid(2 * n);
    let mut floors: Vec<(i128, i128, usize)> = totals
        .iter()
        .enumerate()
        .map(|(i, &t)| (t.div_euclid(n), t.rem_euclid(n), i))
        .collect();
    let short = target - floors.iter().map(|f| f.0).sum::<i128>();
    // The parts with the largest remainders (the first of equal ones) take a nanosecond each.
    let mut order: Vec<usize> = (0..floors.len()).collect();
    order.sort_by(|&a, &b| floors[b].1.cmp(&floors[a].1).then(a.cmp(&b)));
    for &i in order
        .iter()
        .take(usize::try_from(short.max(0)).unwrap_or(0))
    {
        floors[i].0 += 1;
    }
    floors
        .into_iter()
        .map(|(v, _, _)| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_rounded_together_add_up_to_the_rounded_mean() {
        // Three parts over 3 steps: 10/3, 10/3, 10/3 → 3.33 each, the mean 10.
        assert_eq!(round_together(&[10, 10, 10], 3), vec![4, 3, 3]);
        // A negative part (overlap) is rounded with the rest.
        let v = round_together(&[1001, -7, 5], 2);
        assert_eq!(v.iter().sum::<i64>(), (999 * 2 + 2) / 4);
        assert_eq!(v, vec![501, -3, 2]);
    }
}
