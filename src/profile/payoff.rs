//! Did each SuperKernel pay? Per occurrence — one execution of a segment in a step — the
//! segment's kernels without SuperKernel against its SuperKernel with it, the way the
//! SuperKernel team judges one (reference aclgraph_superkernel.md §9.4), from the two
//! profiles' kernel files:
//!
//! - **Without**: the *interval* of the occurrence's kernels, from the earliest start to the
//!   latest end over all their streams — the gaps and launches between them count, which is
//!   what SuperKernel removes; the sum of their durations is shown apart, and the gap share is
//!   the interval less that sum.
//! - **With**: the SuperKernel kernel's duration.
//! - **Binding**: an occurrence is the n-th run of the segment's kernels (or of its
//!   SuperKernel) on a device in a step; base and new bind by (device, segment, step, n),
//!   never by a bare op name or task id.
//! - **Payoff**: the medians of each side, their difference against a noise threshold
//!   `max(k × 1.4826 × √(MADbase² + MADnew²), floor × median base)` (defaults k = 3,
//!   floor = 1 %), with at least `min_occurrences` (3) occurrences per side: `beneficial`,
//!   `neutral`, `regressed`, or `insufficient evidence`.
//! - **Action**, as the SuperKernel team maps them (reference `superkernel_ops_2026.md` §1.6):
//!   beneficial → keep, regressed → prune, neutral → prune (no measured gain, and a
//!   SuperKernel adds risk; a rule may keep them instead), insufficient evidence → profile
//!   again; a prune is a `block` when no exact map from the SuperKernel to the model's code
//!   says where to cut: when it is one of several segments of its scope (the scope's name is
//!   what the code holds).
//! - **Why not**: a neutral or regressed SuperKernel's regression classes ([`super::regression`]).

use super::planned::{Call, PlannedFusion, PlannedOp, PlannedSegment};
use super::regression::{Diagnosis, Signals};
use super::runs::{NO_LABEL, Runs};
use super::spread::Spread;
use crate::fusion::kernel::SUPERKERNEL_TYPE;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// SuperKernels with fewer sub-ops are shallow (reference §9.3: the team's
/// `REPLAY_MIN_EFFECTIVE_CHILD_NODES`).
pub const EFFECTIVE_SUB_OPS: usize = 5;

/// The most occurrences a payoff keeps one by one (for its distribution).
const KEPT_TIMES: usize = 256;

/// How payoffs are judged.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PayoffRule {
    /// Occurrences each side needs.
    pub min_occurrences: usize,
    /// Robust standard deviations of the difference a change must pass.
    pub noise_k: f64,
    /// The least change that counts, in percent of the base median.
    pub floor_pct: f64,
    /// What to do with a neutral SuperKernel.
    pub neutral: NeutralAction,
}

/// What to do with a neutral SuperKernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NeutralAction {
    /// Keep it: it costs nothing measurable.
    Keep,
    /// Prune it: no measured gain, and a SuperKernel adds risk (the SuperKernel team's
    /// mapping).
    #[default]
    Prune,
}

impl NeutralAction {
    /// The action named `word` (`keep`, `prune`).
    pub fn named(word: &str) -> Option<NeutralAction> {
        match word {
            "keep" => Some(NeutralAction::Keep),
            "prune" => Some(NeutralAction::Prune),
            _ => None,
        }
    }
}

impl Default for PayoffRule {
    fn default() -> Self {
        PayoffRule {
            min_occurrences: 3,
            noise_k: 3.0,
            floor_pct: 1.0,
            neutral: NeutralAction::default(),
        }
    }
}

impl PayoffRule {
    /// The noise threshold for `base` against `new`, µs.
    pub fn threshold_us(&self, base: &Spread, new: &Spread) -> f64 {
        let sigma = 1.4826 * (base.mad_us.powi(2) + new.mad_us.powi(2)).sqrt();
        (self.noise_k * sigma).max(self.floor_pct / 100.0 * base.median_us)
    }
}

/// What a SuperKernel's measurements say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PayoffClass {
    /// It saves more than the noise.
    Beneficial,
    /// Within the noise.
    Neutral,
    /// It costs more than the noise.
    Regressed,
    /// Too few occurrences on a side to tell.
    InsufficientEvidence,
}

/// What to do about a SuperKernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PayoffAction {
    /// Leave its scope as it is.
    Keep,
    /// Take its ops out of fusion.
    Prune,
    /// Profile more steps before deciding.
    ProfileAgain,
    /// Prune, but no exact map to the model's code says where to cut its scope.
    Block,
}

impl PayoffClass {
    /// The class in words.
    pub fn words(self) -> &'static str {
        match self {
            PayoffClass::Beneficial => "beneficial",
            PayoffClass::Neutral => "neutral",
            PayoffClass::Regressed => "regressed",
            PayoffClass::InsufficientEvidence => "insufficient evidence",
        }
    }
}

impl PayoffAction {
    /// The action in words.
    pub fn words(self) -> &'static str {
        match self {
            PayoffAction::Keep => "keep",
            PayoffAction::Prune => "prune",
            PayoffAction::ProfileAgain => "profile again",
            PayoffAction::Block => "block",
        }
    }
}

/// One SuperKernel's payoff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Payoff {
    /// Its scope.
    pub scope: String,
    /// Its segment.
    pub segment: String,
    /// Its kernel's name.
    pub fused_node: String,
    /// Its sub-ops.
    pub sub_ops: usize,
    /// The layer its scope (or first sub-op) names, when it names one.
    pub layer: Option<String>,
    /// Without SuperKernel: the intervals of its occurrences.
    pub base: Option<Spread>,
    /// Without SuperKernel: its kernels' durations added up, per occurrence.
    pub base_kernels: Option<Spread>,
    /// Without SuperKernel: the median gap share (interval less the durations), µs.
    pub gap_us: Option<f64>,
    /// With SuperKernel: the SuperKernel's durations.
    pub new: Option<Spread>,
    /// Occurrences found on both sides at the same (device, step, n).
    pub aligned: usize,
    /// Base occurrences left out because some sub-op did not run in them.
    pub incomplete: usize,
    /// Sub-ops no base kernel matches.
    pub missing_ops: Vec<String>,
    /// `median new − median base`, µs.
    pub delta_us: Option<f64>,
    /// The change in percent of the base median.
    pub change_pct: Option<f64>,
    /// The noise threshold the change was held to, µs.
    pub threshold_us: Option<f64>,
    /// What the measurements say.
    pub class: PayoffClass,
    /// Why a neutral or regressed one did not pay: the regression classes its occurrences
    /// show (or one "no class fits"); empty for the others.
    pub why_not: Vec<Diagnosis>,
    /// What to do.
    pub action: PayoffAction,
    /// Why, in words.
    pub why: String,
    /// Its occurrences, bound side by side, in order (at most 256).
    pub occurrences: Vec<OccurrenceTimes>,
}

/// One occurrence of a SuperKernel on both sides.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OccurrenceTimes {
    /// Its device (empty when the profiles name none).
    pub device: String,
    /// Its step (empty when the profiles have no `Step Id`).
    pub step: String,
    /// Which execution of the segment in the step it is, from 0.
    pub n: usize,
    /// Without SuperKernel: its kernels' interval, µs.
    pub base_us: Option<f64>,
    /// With SuperKernel: the SuperKernel's duration, µs.
    pub new_us: Option<f64>,
}

/// Payoffs by decoder layer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerPayoff {
    /// The layer.
    pub layer: String,
    /// Its SuperKernels measured on both sides.
    pub superkernels: usize,
    /// Their time per step without SuperKernel (their parts of the account) added up, µs.
    pub base_us: f64,
    /// Their time per step with SuperKernel added up, µs.
    pub new_us: f64,
    /// Of them, regressed.
    pub regressed: usize,
}

/// Every SuperKernel's payoff.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Payoffs {
    /// How they were judged.
    pub rule: PayoffRule,
    /// The plan they are bound against, in words.
    pub plan: String,
    /// One per segment of the plan, in plan order.
    pub list: Vec<Payoff>,
    /// How many of each class.
    pub classes: BTreeMap<&'static str, usize>,
    /// By decoder layer, when names carry layers.
    pub layers: Vec<LayerPayoff>,
    /// SuperKernels with fewer than five sub-ops (more than one).
    pub shallow: Vec<String>,
    /// SuperKernels with one sub-op.
    pub single: Vec<String>,
    /// Where the profiles and the plan disagree, in words.
    pub findings: Vec<String>,
}

impl Payoff {
    /// Its payoff in words with the classes that explain it: `regressed — serialised`.
    pub fn verdict(&self) -> String {
        if self.why_not.is_empty() {
            return self.class.words().to_string();
        }
        let classes: Vec<&str> = self.why_not.iter().map(|d| d.class.words()).collect();
        format!("{} — {}", self.class.words(), classes.join(" + "))
    }
}

impl Payoffs {
    /// The payoff of the SuperKernel named `fused_node`.
    pub fn get(&self, fused_node: &str) -> Option<&Payoff> {
        self.list.iter().find(|p| p.fused_node == fused_node)
    }

    /// The segments whose action is `action`, in plan order.
    pub fn with_action(&self, action: PayoffAction) -> Vec<&str> {
        self.list
            .iter()
            .filter(|p| p.action == action)
            .map(|p| p.segment.as_str())
            .collect()
    }

    /// True when any SuperKernel regressed (`skope diff --deny regressed`).
    pub fn any_regressed(&self) -> bool {
        self.list.iter().any(|p| p.class == PayoffClass::Regressed)
    }
}

/// One occurrence of a segment on one side: the n-th execution of its kernels (its
/// SuperKernel, with SuperKernel) on a device in a step.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence<'a> {
    /// Its device's label.
    pub device: &'a str,
    /// Its step's label.
    pub step: &'a str,
    /// Its device and step, as label ids of its side's runs.
    pub unit: (u32, u32),
    /// Which execution of the segment in the step it is, from 0.
    pub n: usize,
    /// Its time: its kernels' interval (their durations added up, without start times), or
    /// the SuperKernel's duration, ns.
    pub time_ns: i64,
    /// Its kernels' durations added up, ns.
    pub kernels_ns: i64,
    /// Where it starts, ns (0 without start times).
    pub start_ns: i64,
    /// Where it ends, ns.
    pub end_ns: i64,
    /// The streams its kernels ran on, up to 8 (0 when the profile names none).
    pub streams: u32,
    /// The wait before it on its stream (before its first kernel, without SuperKernel), ns.
    pub wait_ns: i64,
}

/// One segment of the plan bound to both profiles.
#[derive(Debug, Clone)]
pub struct BoundSegment<'a> {
    /// Its occurrences without SuperKernel, in order.
    pub base: Vec<Occurrence<'a>>,
    /// Base occurrences left out because some sub-op did not run in them.
    pub incomplete: usize,
    /// Sub-ops no base kernel matches.
    pub missing: Vec<String>,
    /// Its SuperKernel's runs with SuperKernel, in order.
    pub new: Vec<Occurrence<'a>>,
}

/// Every segment of a plan bound to both profiles: what the payoffs judge and the account of
/// the time adds up, made once.
#[derive(Debug, Clone)]
pub struct Binding<'a> {
    /// One per segment of the plan, in plan order.
    pub segments: Vec<BoundSegment<'a>>,
    /// The device pairs bound (base label, new label).
    pub devices: Vec<(u32, u32)>,
}

/// Pairs of device labels to bind: by text when both sides name devices, else everything on
/// one side against everything on the other (when one side has one device or none).
fn device_pairs(base: &Runs, new: &Runs) -> Vec<(u32, u32)> {
    let (b, n) = (base.devices(), new.devices());
    let named = |d: &[u32]| d.iter().all(|&x| x != NO_LABEL);
    if named(b) && named(n) {
        return b
            .iter()
            .filter_map(|&bd| Some((bd, new.label_id(base.label(bd))?)))
            .collect();
    }
    match (b, n) {
        ([bd], [nd]) => vec![(*bd, *nd)],
        _ => Vec::new(),
    }
}

/// Which of its kernel's runs are `op`'s: every one, or for an aclgraph task one in
/// [`Call::of`] from its place.
fn call_of(op: &PlannedOp) -> Call {
    op.call.unwrap_or(Call { index: 0, of: 1 })
}

/// The base occurrences of `seg` on `device`: per step, the n-th run of each sub-op (of its
/// kernel's runs, those that are its), when every sub-op that ran anywhere ran an n-th time;
/// the second number counts those left out.
fn base_occurrences<'a>(
    base: &'a Runs,
    device: u32,
    ops: &[(u32, Call)],
) -> (Vec<Occurrence<'a>>, usize) {
    let mut out = Vec::new();
    let mut incomplete = 0;
    if ops.is_empty() {
        return (out, 0);
    }
    for &step in base.steps() {
        let lists: Vec<Vec<_>> = ops
            .iter()
            .map(|&(op, call)| {
                base.of(device, step, op)
                    .skip(call.index as usize)
                    .step_by(call.of.max(1) as usize)
                    .collect()
            })
            .collect();
        let most = lists.iter().map(Vec::len).max().unwrap_or(0);
        let least = lists.iter().map(Vec::len).min().unwrap_or(0);
        incomplete += most - least;
        for n in 0..least {
            let (mut first, mut last, mut kernels) = (i64::MAX, i64::MIN, 0i64);
            let mut wait_ns = 0;
            // The distinct streams, counted up to eight (two tell overlap is possible).
            let (mut streams, mut distinct) = ([NO_LABEL; 8], 0usize);
            for list in &lists {
                let r = list[n];
                if r.start_ns < first {
                    wait_ns = i64::from(r.wait_ns);
                }
                first = first.min(r.start_ns);
                last = last.max(r.end_ns());
                kernels = kernels.saturating_add(r.dur_ns);
                if r.stream != NO_LABEL && distinct < 8 && !streams[..distinct].contains(&r.stream)
                {
                    streams[distinct] = r.stream;
                    distinct += 1;
                }
            }
            out.push(Occurrence {
                device: base.label(device),
                step: base.label(step),
                unit: (device, step),
                n,
                time_ns: if base.has_starts {
                    last.saturating_sub(first)
                } else {
                    kernels
                },
                kernels_ns: kernels,
                start_ns: first,
                end_ns: last,
                streams: distinct as u32,
                wait_ns,
            });
        }
    }
    (out, incomplete)
}

/// The new occurrences of the SuperKernel `sk` on `device`: its runs per step, in order.
fn new_occurrences(new: &Runs, device: u32, sk: u32) -> Vec<Occurrence<'_>> {
    let mut out = Vec::new();
    for &step in new.steps() {
        for (n, r) in new.of(device, step, sk).enumerate() {
            out.push(Occurrence {
                device: new.label(device),
                step: new.label(step),
                unit: (device, step),
                n,
                time_ns: r.dur_ns,
                kernels_ns: r.dur_ns,
                start_ns: r.start_ns,
                end_ns: r.end_ns(),
                streams: u32::from(r.stream != NO_LABEL),
                wait_ns: i64::from(r.wait_ns),
            });
        }
    }
    out
}

/// What `class` calls for under `rule`, for a segment that is one of `in_scope` segments of
/// its scope, with the words the action adds to the why (empty for none).
fn action(class: PayoffClass, rule: &PayoffRule, in_scope: usize) -> (PayoffAction, String) {
    let (action, mut words) = match class {
        PayoffClass::Beneficial => (PayoffAction::Keep, String::new()),
        PayoffClass::Regressed => (PayoffAction::Prune, String::new()),
        PayoffClass::InsufficientEvidence => (PayoffAction::ProfileAgain, String::new()),
        PayoffClass::Neutral => match rule.neutral {
            NeutralAction::Keep => (
                PayoffAction::Keep,
                "; neutral → keep, as asked (--neutral keep)".to_string(),
            ),
            NeutralAction::Prune => (
                PayoffAction::Prune,
                "; neutral → prune: no measured gain, and a SuperKernel adds risk (the \
                 SuperKernel team's mapping; --neutral keep keeps it)"
                    .to_string(),
            ),
        },
    };
    if action == PayoffAction::Prune && in_scope > 1 {
        words.push_str(&format!(
            "; prune → block: it is one of the {in_scope} segments of its scope, and no exact \
             map to the model's code says where to cut the scope (the team blocks such a \
             prune; pruning it in skope keeps its ops out of fusion, and the code must follow \
             by hand)"
        ));
        return (PayoffAction::Block, words);
    }
    (action, words)
}

/// What `seg`'s occurrences show of why it did not pay, for its regression classes.
fn signals(base: &[Occurrence], new: &[Occurrence], threshold_us: f64, timed: bool) -> Signals {
    let median = |of: fn(&Occurrence) -> i64, o: &[Occurrence]| {
        super::spread::median_ns(&o.iter().map(of).collect::<Vec<_>>())
    };
    let streams = base.iter().map(|o| o.streams).max().unwrap_or(0);
    Signals {
        base_interval_ns: median(|o| o.time_ns, base),
        base_kernels_ns: median(|o| o.kernels_ns, base),
        base_streams: (streams > 0).then_some(streams as usize),
        base_wait_ns: median(|o| o.wait_ns, base),
        new_ns: median(|o| o.time_ns, new),
        new_wait_ns: median(|o| o.wait_ns, new),
        timed,
        threshold_ns: threshold_us * 1000.0,
    }
}

/// The payoff of `seg`, one of `in_scope` segments of its scope, from its occurrences.
fn judge(
    seg: &PlannedSegment,
    (base, incomplete, missing): (&[Occurrence], usize, Vec<String>),
    new: &[Occurrence],
    (rule, in_scope): (&PayoffRule, usize),
    gaps_measured: bool,
) -> Payoff {
    let times = |o: &[Occurrence]| o.iter().map(|o| o.time_ns).collect::<Vec<_>>();
    let base_spread = Spread::of(&times(base));
    let kernels: Vec<i64> = base.iter().map(|o| o.kernels_ns).collect();
    let gaps: Vec<i64> = base.iter().map(|o| o.time_ns - o.kernels_ns).collect();
    let new_spread = Spread::of(&times(new));
    let keys: HashSet<(&str, &str, usize)> = base.iter().map(|o| (o.device, o.step, o.n)).collect();
    let aligned = new
        .iter()
        .filter(|o| keys.contains(&(o.device, o.step, o.n)))
        .count();
    let (nb, nn) = (base.len(), new.len());
    let need = rule.min_occurrences;
    let (class, delta, threshold, why) = match (base_spread, new_spread) {
        (Some(b), Some(n)) if nb >= need && nn >= need => {
            let delta = n.median_us - b.median_us;
            let threshold = rule.threshold_us(&b, &n);
            let class = if delta < -threshold {
                PayoffClass::Beneficial
            } else if delta > threshold {
                PayoffClass::Regressed
            } else {
                PayoffClass::Neutral
            };
            let what = match class {
                PayoffClass::Beneficial => format!("saves {:.2} µs", -delta),
                PayoffClass::Regressed => format!("costs {:.2} µs more", delta),
                _ => format!("changes it by {delta:+.2} µs, within"),
            };
            let against = if gaps_measured {
                "its kernels' interval"
            } else {
                "its kernels' durations (no start times: the gaps are not measured)"
            };
            let why = format!(
                "{what} per occurrence (median {:.2} → {:.2} µs over {nb} and {nn} occurrences, \
                 against {against}){} the noise threshold {threshold:.2} µs",
                b.median_us,
                n.median_us,
                if class == PayoffClass::Neutral {
                    ""
                } else {
                    ", beyond"
                },
            );
            (class, Some(delta), Some(threshold), why)
        }
        _ => {
            let mut lacks = Vec::new();
            if nb < need {
                lacks.push(if missing.len() == seg.ops.len() {
                    "no base kernel matches its sub-ops".to_string()
                } else {
                    format!("the base has {nb} occurrence(s), {} more needed", need - nb)
                });
            }
            if nn < need {
                lacks.push(if nn == 0 {
                    "its SuperKernel did not run in the new profile".to_string()
                } else {
                    format!("the new profile has {nn}, {} more needed", need - nn)
                });
            }
            let why = format!(
                "{} (at least {need} occurrences a side: profile more steps)",
                lacks.join("; ")
            );
            (PayoffClass::InsufficientEvidence, None, None, why)
        }
    };
    let base_median = base_spread.map(|b| b.median_us);
    let layer = crate::graph::layer_of(&seg.scope)
        .or_else(|| {
            seg.ops
                .first()
                .and_then(|o| crate::graph::layer_of(&o.name))
        })
        .map(str::to_string);
    let occurrences = bound(base, new);
    let why_not = match (class, threshold) {
        (PayoffClass::Neutral | PayoffClass::Regressed, Some(t)) => {
            super::regression::diagnose(&signals(base, new, t, gaps_measured), &seg.options)
        }
        _ => Vec::new(),
    };
    let (action, action_words) = action(class, rule, in_scope);
    Payoff {
        scope: seg.scope.clone(),
        segment: seg.segment.clone(),
        fused_node: seg.fused_node.clone(),
        sub_ops: seg.ops.len(),
        layer,
        base: base_spread,
        base_kernels: Spread::of(&kernels),
        gap_us: Spread::of(&gaps)
            .filter(|_| gaps_measured)
            .map(|g| g.median_us),
        new: new_spread,
        aligned,
        incomplete,
        missing_ops: missing,
        delta_us: delta,
        change_pct: delta
            .zip(base_median)
            .filter(|(_, b)| *b != 0.0)
            .map(|(d, b)| d / b * 100.0),
        threshold_us: threshold,
        class,
        why_not,
        action,
        why: why + &action_words,
        occurrences,
    }
}

/// The occurrences of both sides bound by (device, step, n), base order first, then the new
/// profile's that the base lacks; at most [`KEPT_TIMES`].
fn bound(base: &[Occurrence], new: &[Occurrence]) -> Vec<OccurrenceTimes> {
    let us = |o: &Occurrence| o.time_ns as f64 / 1000.0;
    let at: HashMap<(&str, &str, usize), &Occurrence> =
        new.iter().map(|o| ((o.device, o.step, o.n), o)).collect();
    let mut out: Vec<OccurrenceTimes> = base
        .iter()
        .map(|b| OccurrenceTimes {
            device: b.device.to_string(),
            step: b.step.to_string(),
            n: b.n,
            base_us: Some(us(b)),
            new_us: at.get(&(b.device, b.step, b.n)).map(|n| us(n)),
        })
        .collect();
    let keys: HashSet<(&str, &str, usize)> = base.iter().map(|o| (o.device, o.step, o.n)).collect();
    out.extend(
        new.iter()
            .filter(|o| !keys.contains(&(o.device, o.step, o.n)))
            .map(|n| OccurrenceTimes {
                device: n.device.to_string(),
                step: n.step.to_string(),
                n: n.n,
                base_us: None,
                new_us: Some(us(n)),
            }),
    );
    out.truncate(KEPT_TIMES);
    out
}

/// Binds every segment of `plan` to the runs of both profiles: its occurrences on each side,
/// device by device.
pub fn bind<'a>(plan: &PlannedFusion, base: &'a Runs, new: &'a Runs) -> Binding<'a> {
    let devices = device_pairs(base, new);
    let segments = plan
        .segments
        .iter()
        .map(|seg| {
            let ops: Vec<(u32, Call)> = seg
                .ops
                .iter()
                .filter_map(|o| Some((base.name_id(o.kernel_name())?, call_of(o))))
                .collect();
            let missing: Vec<String> = seg
                .ops
                .iter()
                .filter(|o| base.name_id(o.kernel_name()).is_none())
                .map(|o| o.name.clone())
                .collect();
            let sk = new.name_id(&seg.fused_node);
            let mut bound = BoundSegment {
                base: Vec::new(),
                incomplete: 0,
                missing,
                new: Vec::new(),
            };
            for &(bd, nd) in &devices {
                let (occ, left) = base_occurrences(base, bd, &ops);
                bound.base.extend(occ);
                bound.incomplete += left;
                if let Some(sk) = sk {
                    bound.new.extend(new_occurrences(new, nd, sk));
                }
            }
            bound
        })
        .collect();
    Binding { segments, devices }
}

/// The payoff of every segment of `plan` from its occurrences on both sides (`binding`, made
/// by [`bind`] from the runs `base` and `new`), judged by `rule`.
pub fn payoffs(
    plan: &PlannedFusion,
    binding: &Binding<'_>,
    (base, new): (&Runs, &Runs),
    rule: PayoffRule,
) -> Payoffs {
    let devices = &binding.devices;
    let mut list = Vec::with_capacity(plan.segments.len());
    let mut findings = Vec::new();
    let mut segments_of: HashMap<&str, usize> = HashMap::new();
    for seg in &plan.segments {
        *segments_of.entry(seg.scope.as_str()).or_default() += 1;
    }
    for (seg, bound) in plan.segments.iter().zip(&binding.segments) {
        let (b, n, incomplete) = (&bound.base, &bound.new, bound.incomplete);
        let missing = bound.missing.clone();
        if new.name_id(&seg.fused_node).is_none() {
            let unfused = seg
                .ops
                .iter()
                .filter(|o| new.name_id(o.kernel_name()).is_some())
                .count();
            if unfused > 0 {
                findings.push(format!(
                    "{}: predicted as one SuperKernel, but {unfused} of its {} sub-op(s) ran \
                     unfused in the new profile",
                    seg.segment,
                    seg.ops.len()
                ));
            }
        }
        let in_scope = segments_of.get(seg.scope.as_str()).copied().unwrap_or(1);
        list.push(judge(
            seg,
            (b, incomplete, missing),
            n,
            (&rule, in_scope),
            base.has_starts,
        ));
    }
    if devices.is_empty() && !base.is_empty() && !new.is_empty() {
        findings.push(
            "the profiles' devices do not pair (one names several devices and the other none, \
             or they name different ones): no occurrence could be bound"
                .to_string(),
        );
    }
    for (side, runs) in [("base", base), ("new", new)] {
        if runs.models.len() > 1 {
            findings.push(format!(
                "the {side} profile holds {} models (Model ID): occurrences are bound in order \
                 within a device and step, so segments of one name in two models would mix",
                runs.models.len()
            ));
        }
    }
    if let Some(note) = diagnostic_run(plan) {
        findings.push(note);
    }
    unpredicted(plan, new, &mut findings);
    split_regressions(plan, &list, &mut findings);
    if let Some(note) = other_workload(plan, base, new) {
        findings.push(note);
    }
    let mut classes = BTreeMap::new();
    for p in &list {
        *classes.entry(p.class.words()).or_insert(0) += 1;
    }
    let measured: Vec<&Payoff> = list.iter().filter(|p| p.new.is_some()).collect();
    let shallow = measured
        .iter()
        .filter(|p| p.sub_ops > 1 && p.sub_ops < EFFECTIVE_SUB_OPS)
        .map(|p| p.fused_node.clone())
        .collect();
    let single: Vec<String> = measured
        .iter()
        .filter(|p| p.sub_ops == 1)
        .map(|p| p.fused_node.clone())
        .collect();
    if !single.is_empty() && single.len() == measured.len() {
        findings.push(
            "every SuperKernel that ran has one sub-op: the per-op debug mode \
             (debug_per_op_max_core_num=1) makes them so, and says nothing of fusion's payoff"
                .to_string(),
        );
    }
    Payoffs {
        rule,
        plan: plan.source.clone(),
        // By layer from the account of the time, once it is made ([`by_layer`]).
        layers: Vec::new(),
        list,
        classes,
        shallow,
        single,
        findings,
    }
}

/// SuperKernels the new profile ran that the plan does not predict.
fn unpredicted(plan: &PlannedFusion, new: &Runs, findings: &mut Vec<String>) {
    let known: HashSet<&str> = plan
        .segments
        .iter()
        .map(|s| s.fused_node.as_str())
        .collect();
    let mut seen = HashSet::new();
    let extra: Vec<&str> = new
        .all()
        .iter()
        .map(|r| new.name(r.name))
        .filter(|info| *info.op_type == *SUPERKERNEL_TYPE && !known.contains(&*info.name))
        .filter(|info| seen.insert(info.name.clone()))
        .map(|info| &*info.name)
        .collect();
    if !extra.is_empty() {
        findings.push(format!(
            "{} SuperKernel(s) ran that the plan does not predict: {}{}",
            extra.len(),
            extra.iter().take(5).copied().collect::<Vec<_>>().join(", "),
            if extra.len() > 5 { ", …" } else { "" }
        ));
    }
}

/// A scope split by breaks whose segments regress together points at its breaks.
fn split_regressions(plan: &PlannedFusion, list: &[Payoff], findings: &mut Vec<String>) {
    let mut by_scope: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for p in list {
        let e = by_scope.entry(p.scope.as_str()).or_default();
        e.0 += 1;
        e.1 += usize::from(p.class == PayoffClass::Regressed);
    }
    for (scope, (segments, regressed)) in by_scope {
        if segments < 2 || regressed < 2 {
            continue;
        }
        let breaks: Vec<&str> = plan
            .breaks
            .iter()
            .filter(|b| b.scope == scope)
            .map(|b| b.op.name.as_str())
            .collect();
        if breaks.is_empty() {
            continue;
        }
        findings.push(format!(
            "{scope}: {regressed} of its {segments} segments regress: the breaks between them \
             ({}) cost more than the fusion gains, look at them first",
            breaks.join(", ")
        ));
    }
}

/// When the kernels outside every segment differ between the profiles — per step: which names
/// ran, how often, with which input shapes — the pair is not the same workload.
/// Says so when `plan`'s options make the run a diagnostic one: its timing is not clean (the
/// team takes no result of a diagnostic mode as performance evidence).
fn diagnostic_run(plan: &PlannedFusion) -> Option<String> {
    let mut set: Vec<(String, &str)> = Vec::new();
    for seg in &plan.segments {
        for option in super::regression::diagnostic_options(&seg.options) {
            if !set
                .iter()
                .any(|(o, scope)| *o == option && *scope == seg.scope)
            {
                set.push((option, &seg.scope));
            }
        }
    }
    let scope = set.first()?.1;
    let mut options: Vec<&str> = set.iter().map(|(o, _)| o.as_str()).collect();
    options.sort_unstable();
    options.dedup();
    Some(format!(
        "not clean timing: the plan's options set {} (scope {scope}{}): a diagnostic run, whose \
         payoffs are not SuperKernel's performance; judge on a run without them{}",
        options.join(", "),
        if set.len() > 1 { " and others" } else { "" },
        if options.iter().any(|o| o.starts_with("profiling=")) {
            " (sk_prof's profiling=1 records every sub-op)"
        } else {
            ""
        }
    ))
}

/// How many of the ops in `plan`'s segments appear in either profile (as kernels, or fused
/// into a SuperKernel of the plan's name), of how many: none means the profiles ran another
/// model or another graph than the plan's.
pub fn ops_appearing(plan: &PlannedFusion, base: &Runs, new: &Runs) -> (usize, usize) {
    let mut names = HashSet::new();
    let mut appearing = 0;
    for seg in &plan.segments {
        let fused = new.name_id(&seg.fused_node).is_some();
        for op in &seg.ops {
            let kernel = op.kernel_name();
            if names.insert(op.name.as_str())
                && (fused || base.name_id(kernel).is_some() || new.name_id(kernel).is_some())
            {
                appearing += 1;
            }
        }
    }
    (appearing, names.len())
}

fn other_workload(plan: &PlannedFusion, base: &Runs, new: &Runs) -> Option<String> {
    let fused: HashSet<&str> = plan
        .segments
        .iter()
        .flat_map(|s| s.ops.iter().map(PlannedOp::kernel_name))
        .collect();
    let profile = |runs: &Runs| -> HashMap<(String, String), f64> {
        let steps = runs.steps().len().max(1) as f64;
        // Counted by (name, shapes) ids first: a million runs, a few thousand keys. A name's
        // runs mostly share its first run's shapes, counted by the name alone; others hashed.
        let mut outside: Vec<Option<bool>> = vec![None; runs.names()];
        let mut first: Vec<Option<(u32, u64)>> = vec![None; runs.names()];
        let mut count: foldhash::HashMap<(u32, u32), u64> = Default::default();
        for r in runs.all() {
            let keep = *outside[r.name as usize].get_or_insert_with(|| {
                let info = runs.name(r.name);
                *info.op_type != *SUPERKERNEL_TYPE && !fused.contains(&*info.name)
            });
            if !keep {
                continue;
            }
            match &mut first[r.name as usize] {
                Some((shapes, n)) if *shapes == r.shapes => *n += 1,
                Some(_) => *count.entry((r.name, r.shapes)).or_default() += 1,
                slot @ None => *slot = Some((r.shapes, 1)),
            }
        }
        let firsts = first
            .into_iter()
            .enumerate()
            .filter_map(|(name, seen)| seen.map(|(shapes, n)| ((name as u32, shapes), n)));
        count
            .into_iter()
            .chain(firsts)
            .map(|((name, shapes), n)| {
                let key = (
                    runs.name(name).name.to_string(),
                    runs.label(shapes).to_string(),
                );
                (key, n as f64 / steps)
            })
            .collect()
    };
    let (b, n) = (profile(base), profile(new));
    if b.is_empty() || n.is_empty() {
        return None;
    }
    let keys: HashSet<&(String, String)> = b.keys().chain(n.keys()).collect();
    let mut differing: Vec<&str> = keys
        .iter()
        .filter(|k| {
            let (x, y) = (b.get(*k).copied(), n.get(*k).copied());
            x.zip(y).is_none_or(|(x, y)| (x - y).abs() > 0.5)
        })
        .map(|k| k.0.as_str())
        .collect();
    differing.sort_unstable();
    differing.dedup();
    if differing.is_empty() {
        return None;
    }
    Some(format!(
        "not the same workload: {} kernel(s) outside every segment ran differently per step \
         (names, counts or input shapes), e.g. {}: payoffs compare runs of different work",
        differing.len(),
        differing
            .iter()
            .take(3)
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The payoffs added up by layer, in layer order: each SuperKernel's time per step on both
/// sides as `per_step` gives it (ns: the account's parts), for those measured on both.
pub fn by_layer(
    list: &[Payoff],
    per_step: &dyn Fn(&Payoff) -> Option<(i64, i64)>,
) -> Vec<LayerPayoff> {
    let mut layers: BTreeMap<u64, LayerPayoff> = BTreeMap::new();
    for p in list {
        let Some(layer) = &p.layer else { continue };
        let (Some(_), Some(_), Some((b, n))) = (p.base, p.new, per_step(p)) else {
            continue;
        };
        let e = layers
            .entry(layer.parse().unwrap_or(u64::MAX))
            .or_insert_with(|| LayerPayoff {
                layer: layer.clone(),
                superkernels: 0,
                base_us: 0.0,
                new_us: 0.0,
                regressed: 0,
            });
        e.superkernels += 1;
        e.base_us += b as f64 / 1000.0;
        e.new_us += n as f64 / 1000.0;
        e.regressed += usize::from(p.class == PayoffClass::Regressed);
    }
    layers.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of a kernel file of `rows` (name, input shapes), two steps of them.
    fn runs_of(tag: &str, rows: &[(&str, &str)]) -> Runs {
        let mut text = String::from("Step Id,Name,Type,Start Time(us),Duration(us),Input Shapes\n");
        for step in 1..=2 {
            for (k, (name, shapes)) in rows.iter().enumerate() {
                text.push_str(&format!(
                    "{step},{name},Add,{},1.0,\"{shapes}\"\n",
                    step * 100 + k
                ));
            }
        }
        let path =
            std::env::temp_dir().join(format!("skope-workload-{}-{tag}.csv", std::process::id()));
        std::fs::write(&path, text).expect("a scratch file");
        let (_, runs) = Runs::read(std::slice::from_ref(&path), None).expect("runs");
        let _ = std::fs::remove_file(&path);
        runs
    }

    #[test]
    fn a_kernel_run_with_other_shapes_is_other_work_and_its_shapes_in_another_order_are_not() {
        let plan = PlannedFusion {
            source: "test".into(),
            segments: Vec::new(),
            breaks: Vec::new(),
            inferred: false,
        };
        let base = runs_of("base", &[("mm", "8,16"), ("mm", "8,32"), ("add", "8")]);
        let same = runs_of("same", &[("mm", "8,32"), ("add", "8"), ("mm", "8,16")]);
        assert_eq!(other_workload(&plan, &base, &same), None);
        let other = runs_of("other", &[("mm", "8,16"), ("mm", "8,16"), ("add", "8")]);
        let said = other_workload(&plan, &base, &other).unwrap_or_default();
        assert!(
            said.contains("1 kernel(s)") && said.contains("e.g. mm"),
            "{said}"
        );
        let third = runs_of("third", &[("mm", "8,16"), ("mm", "8,32"), ("add", "4")]);
        let said = other_workload(&plan, &base, &third).unwrap_or_default();
        assert!(said.contains("e.g. add"), "{said}");
    }
}
