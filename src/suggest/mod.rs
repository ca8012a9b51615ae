//! Scopes suggested for a graph, ranked by the time they would save.
//!
//! Candidates are the maximal runs of fusible ops on each stream (an unsupported op ends a run;
//! ops the pass ignores do not), and the same runs cut where the layer in the op names changes
//! (one scope per decoder layer, as users place them) and between attention and the MoE/MLP
//! block of a layer, and runs of two streams whose ops
//! interleave joined into one scope with `stream-fusion=1`. Every candidate goes through the real
//! planner as a scope of its own, so a suggestion is one of the planner's segments: it never
//! splits. Each is ranked by the saving model ([`saving`]) on the gaps and overheads a profile
//! without SuperKernel measured ([`timing`]); without a profile, by the kernel boundaries it
//! removes — a count, not a time.

pub mod accept;
pub mod estimate;
pub mod output;
pub mod prediction;
pub mod saving;
pub mod templates;
pub mod timing;

use crate::fusion::kernel::KernelType;
use crate::fusion::marks::{Marks, OpMark};
use crate::fusion::plan::Plan;
use crate::fusion::plan::{Context, describe_reason};
use crate::fusion::verdict::Verdict;
use crate::graph::OpId;
use crate::planner::Remedy;
use crate::profile::PlannedFusion;
use crate::profile::account::{Account, Part};
use crate::profile::diff::Judged;
use crate::profile::kernels::KernelTable;
use crate::profile::payoff::PayoffRule;
use crate::profile::runs::Runs;
use crate::workspace::Planning;
use saving::{Coefficients, Features, Observation};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use timing::{NameHash, Timing};

/// How a candidate was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A maximal run of fusible ops on a stream.
    Run,
    /// Such a run cut at layer changes in the op names.
    Layer,
    /// Such a run cut at layer changes and between attention and the MoE/MLP block.
    Part,
    /// Runs on two streams whose ops interleave, as one scope with `stream-fusion=1`.
    TwoStream,
}

/// How a suggestion stands against the user's scopes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Versus {
    /// None of its ops is fused today.
    New,
    /// Exactly one of the user's segments today.
    Same(String),
    /// It takes ops of these segments of the user's (and maybe more).
    Overlaps(Vec<String>),
}

/// A suggested scope.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The scope name it would get.
    pub name: String,
    /// How it was drawn.
    pub kind: Kind,
    /// Its ops, in execution order.
    #[serde(skip)]
    pub ops: Vec<OpId>,
    /// The first op's name.
    pub first_op: String,
    /// The last op's name.
    pub last_op: String,
    /// The streams (their ids) its ops run on: two for a two-stream suggestion.
    pub streams: Vec<i64>,
    /// The options string the scope needs (`stream-fusion=1` across two streams).
    pub options: String,
    /// Kernel boundaries it removes per run.
    pub boundaries: usize,
    /// What a run's inner boundaries add up to (zeros without a profile).
    pub features: Features,
    /// Boundaries whose kernel the profile measured.
    pub measured: usize,
    /// Runs per step (1 without a profile).
    pub per_step: f64,
    /// Estimated saving per step, µs (without a profile: none), less [`Self::serial_loss_us`].
    pub saving_us: Option<f64>,
    /// What its SuperKernel would lose per step by running serially the kernels that
    /// overlapped on its streams without it, µs (a suggestion over two or more streams, with a
    /// profile that gives start times): taken from `saving_us` already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial_loss_us: Option<f64>,
    /// The payoff predicted for its SuperKernel, with the range of the prediction (with a
    /// profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted: Option<Predicted>,
    /// Why it starts where it starts.
    pub starts_after: String,
    /// Why it ends where it ends.
    pub ends_before: String,
    /// Against the user's scopes.
    pub versus: Versus,
    /// Set when its ops span decoder layers: the layers (first, last) of a scope around the
    /// loop over them — it starts at its first layer's first op and ends at its last layer's
    /// last op. A candidate that crosses layers otherwise is not offered: no `with` block in a
    /// layer's `forward` can start in one layer and end in another.
    pub loop_over_layers: Option<(String, String)>,
}

/// The code that marks a scope: what to paste in the model's Python.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Code {
    /// TorchAir: the `with` block, with where it goes.
    pub torchair: String,
    /// aclgraph: the begin/end pair, with where each goes.
    pub aclgraph: String,
}

impl Code {
    /// The code of a scope whose name is the Python expression `name`, with `options`, around
    /// the ops `first` … `last` (names with `{i}` for the layer's index when the code is
    /// written once for every layer).
    fn new(name: &str, options: &str, (first, last): (&str, &str)) -> Code {
        let index = if first.contains(templates::LAYER) {
            "; i: the layer's index"
        } else {
            ""
        };
        Code {
            torchair: format!(
                "with torchair.scope.super_kernel({name}, \"{options}\"):  # around {first} … {last}{index}"
            ),
            aclgraph: format!(
                "torch.npu.super_kernel_scope_begin({name}) before {first}, \
                 torch.npu.super_kernel_scope_end({name}) after {last}"
            ),
        }
    }

    /// Both, one to a line, as copied to the clipboard.
    pub fn both(&self) -> String {
        format!(
            "# TorchAir\n{}\n# aclgraph\n# {}\n",
            self.torchair, self.aclgraph
        )
    }
}

impl Suggestions {
    /// No suggestion, and why: the graph's fusion system takes no scopes.
    pub fn none(why: &'static str) -> Suggestions {
        Suggestions {
            not_offered: Some(why),
            ..Suggestions::empty()
        }
    }

    /// No suggestion (none made yet).
    pub fn empty() -> Suggestions {
        Suggestions {
            not_offered: None,
            ranked_by_boundaries: None,
            templates: Vec::new(),
            templates_adding_nothing: 0,
            list: Vec::new(),
            adding_nothing: 0,
            coefficients: saving::DEFAULTS,
            fitted: false,
            measured: false,
            whole_model: None,
            kernels: (0, 0),
            remedies: Vec::new(),
            today: None,
        }
    }
}

impl Suggestion {
    /// The code to paste: its scope around its first and last op.
    pub fn code(&self) -> Code {
        Code::new(
            &format!("\"{}\"", self.name),
            &self.options,
            (&self.first_op, &self.last_op),
        )
    }

    /// True when it adds something over today's plan: it is not fused already as it is, and
    /// it saves time (with a profile whose saving is trusted: `by_saving`) or fuses boundaries
    /// (without, or when the fitted saving cannot be trusted). One that would serialise
    /// overlapping kernels is kept whatever it saves: what it would cost is worth knowing
    /// before a compile.
    pub fn adds(&self, by_saving: bool) -> bool {
        !matches!(self.versus, Versus::Same(_))
            && (self.serial_loss_us.is_some_and(|l| l > 0.0)
                || match self.saving_us {
                    Some(us) if by_saving => us > 0.0,
                    _ => self.boundaries > 0,
                })
    }

    /// Predicts its SuperKernel's payoff from its saving and the error of the model that
    /// estimated the gain: `error_per_run` µs a run (the fit's error leaving one segment out),
    /// or, with assumed coefficients, the gain itself; the serial loss is measured, so it
    /// shifts the range without widening it. Beneficial when the whole range saves, regressed
    /// when the whole range costs, neutral when it holds zero.
    pub fn predict(&self, error_per_run: Option<f64>) -> Option<Predicted> {
        let saving = self.saving_us?;
        let gain = saving + self.serial_loss_us.unwrap_or(0.0);
        let range = prediction::range(saving, gain, self.per_step, error_per_run);
        Some(Predicted {
            class: range.class,
            low_us: range.low_us,
            high_us: range.high_us,
            basis: match error_per_run {
                Some(_) => "the fitted model ± its error leaving one segment out",
                None => "assumed coefficients: the gain ± itself",
            },
        })
    }
}

/// A suggestion's predicted payoff: the class the SuperKernel team would judge it, from the
/// range of its predicted saving per step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Predicted {
    /// Beneficial, neutral or regressed.
    pub class: crate::profile::payoff::PayoffClass,
    /// The least saving per step the prediction allows, µs.
    pub low_us: f64,
    /// The most, µs.
    pub high_us: f64,
    /// What the range rests on.
    pub basis: &'static str,
}

/// The suggestions for a graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestions {
    /// Why nothing is suggested for this graph: its fusion system takes no scopes.
    pub not_offered: Option<&'static str>,
    /// Why the suggestions are ranked by boundaries removed though savings were estimated:
    /// the fitted model's error is not below the differences it would rank by.
    pub ranked_by_boundaries: Option<String>,
    /// Regions of the repeated unit, each one scope in every decoder layer, best first: those
    /// that add something over today's plan.
    pub templates: Vec<templates::Template>,
    /// Regions left out because over today's plan they add nothing (no time saved, or no
    /// boundary fused that is not fused already).
    pub templates_adding_nothing: usize,
    /// Per-layer suggestions (and runs outside the layers), best first: those that add
    /// something over today's plan.
    pub list: Vec<Suggestion>,
    /// Per-layer candidates left out because they add nothing over today's plan (fused
    /// already as they are, or no time saved).
    pub adding_nothing: usize,
    /// The coefficients used.
    pub coefficients: Coefficients,
    /// True when they were fitted on a profile pair (else skope's assumed defaults).
    pub fitted: bool,
    /// True when a profile gave the gaps (else the ranking counts boundaries).
    pub measured: bool,
    /// What accepting all that fit would make of the whole model (set by [`rank`]).
    pub whole_model: Option<estimate::WholeModel>,
    /// The graph's ops that launch a kernel (the only ones that make boundaries), and how
    /// many of them are only assumed fusible (their kernel type unknown).
    pub kernels: (usize, usize),
    /// When one scope holds the whole model and its system has means of its own (the aclgraph
    /// pass's exclusion scopes and options): what heals its worst splits, each checked by
    /// planning it (set by [`rank`]).
    pub remedies: Vec<Remedy>,
    /// What each SuperKernel of today's plan is predicted to save, with a profile (set by
    /// [`rank`]): what a run of the plan records, to be checked against what it measures.
    pub today: Option<prediction::PlanPrediction>,
}

/// The core kind a kernel runs on: cube, vector, or both (`None` when unknown).
fn core_kind(cx: &Context, id: OpId) -> Option<u8> {
    Some(match cx.sub_kernel(id)?.kernel_type {
        KernelType::AicOnly | KernelType::MixAic1_0 => 0,
        KernelType::AivOnly | KernelType::MixAiv1_0 => 1,
        _ => 2,
    })
}

/// Op types that move data between a graph's parts and launch no kernel: GE's partition ends
/// (`PlaceHolder`, `End`), the graph's output (`NetOutput`) and reference inputs (`RefData`).
/// Not on the pass's ignored list, so their verdict may be fusible by assumption; never a
/// kernel boundary (*inferred* from how GE builds partitions: these ops carry no task).
const PLUMBING: &[&str] = &["PlaceHolder", "End", "NetOutput", "RefData"];

/// True when op `id` launches a kernel: neither an op the pass ignores nor graph plumbing.
fn launches_kernel(cx: &Context, id: OpId) -> bool {
    cx.verdicts().get(id).verdict != Verdict::Ignored
        && !PLUMBING.contains(&cx.graph().op(id).op_type.as_str())
}

/// The ops that launch a kernel, and how many of them the pass's verdict only assumes
/// fusible (their kernel type unknown).
fn kernels(cx: &Context) -> (usize, usize) {
    let graph = cx.graph();
    (0..graph.len() as u32)
        .map(OpId)
        .filter(|&id| launches_kernel(cx, id))
        .fold((0, 0), |(all, assumed), id| {
            let v = cx.verdicts().get(id);
            let guessed = v.verdict == Verdict::Fusible
                && v.evidence == crate::fusion::verdict::Evidence::Assumed;
            (all + 1, assumed + usize::from(guessed))
        })
}

/// The runs of fusible ops on each stream, in execution order (ignored ops and graph plumbing
/// left out: only kernels make boundaries).
fn runs(cx: &Context) -> Vec<Vec<OpId>> {
    let graph = cx.graph();
    let mut open: HashMap<u32, Vec<OpId>> = HashMap::new();
    let mut out = Vec::new();
    for &id in graph.exec_order() {
        match cx.verdicts().get(id).verdict {
            Verdict::Ignored => {}
            _ if !launches_kernel(cx, id) => {}
            Verdict::Fusible => open.entry(cx.stream_of(id)).or_default().push(id),
            Verdict::Unsupported(_) => {
                if let Some(run) = open.remove(&cx.stream_of(id)) {
                    out.push(run);
                }
            }
        }
    }
    let mut rest: Vec<Vec<OpId>> = open.into_values().collect();
    rest.sort_by_key(|r| r.first().map(|id| graph.exec_position(*id)));
    out.extend(rest);
    out.retain(|r| r.len() >= 2);
    out
}

/// The part of a decoder layer an op name names: attention or the MoE/MLP block (`None`
/// when the name says neither).
fn part_of(name: &str) -> Option<&'static str> {
    // One pass over the bytes, without allocating: this runs on every op of the graph.
    let b = name.as_bytes();
    let at = |i: usize, token: &[u8]| {
        b.get(i..i + token.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(token))
    };
    let mut moe = false;
    for (i, c) in b.iter().enumerate() {
        match c.to_ascii_lowercase() {
            b'a' if at(i, b"attn") || at(i, b"attention") => return Some("attn"),
            b'm' => moe |= at(i, b"moe") || at(i, b"mlp"),
            b'e' => moe |= at(i, b"expert"),
            b'g' => moe |= at(i, b"gate") || at(i, b"gmm"),
            b'f' => moe |= at(i, b"ffn"),
            _ => {}
        }
    }
    moe.then_some("moe")
}

/// `runs` cut where the layer in the op names changes, and the same cut also where the names go
/// from attention to the MoE/MLP block or back (a name that says neither stays with the part
/// before it); each `None` when it cut nothing.
type Cuts = (Option<Vec<Vec<OpId>>>, Option<Vec<Vec<OpId>>>);

fn cut_runs(cx: &Context, runs: &[Vec<OpId>], layers: &[Option<&str>]) -> Cuts {
    let graph = cx.graph();
    let (mut by_layer, mut by_part) = (Vec::new(), Vec::new());
    let (mut layer_cut, mut part_cut) = (false, false);
    for run in runs {
        let (mut layer_piece, mut part_piece): (Vec<OpId>, Vec<OpId>) = (Vec::new(), Vec::new());
        let (mut layer, mut part): (Option<&str>, Option<&str>) = (None, None);
        for &id in run {
            let name = &graph.op(id).name;
            let (l, p) = (layers[id.index()], part_of(name));
            let new_layer = !layer_piece.is_empty() && l != layer;
            let new_part = matches!((part, p), (Some(a), Some(b)) if a != b);
            if new_layer {
                layer_cut = true;
                by_layer.push(std::mem::take(&mut layer_piece));
                part = None;
            }
            if !part_piece.is_empty() && (new_layer || new_part) {
                part_cut |= new_part;
                by_part.push(std::mem::take(&mut part_piece));
            }
            layer = l;
            part = p.or(part);
            layer_piece.push(id);
            part_piece.push(id);
        }
        by_layer.push(layer_piece);
        by_part.push(part_piece);
    }
    by_layer.retain(|r| r.len() >= 2);
    by_part.retain(|r| r.len() >= 2);
    (layer_cut.then_some(by_layer), part_cut.then_some(by_part))
}

/// Runs on different streams whose ops interleave in execution order, joined (each group
/// holds runs of two streams or more), in execution order.
fn two_stream(cx: &Context, runs: &[Vec<OpId>]) -> Vec<Vec<OpId>> {
    let graph = cx.graph();
    let spans: Vec<(usize, usize)> = runs
        .iter()
        .map(|r| {
            let pos = r.iter().map(|id| graph.exec_position(*id));
            (pos.clone().min().unwrap_or(0), pos.max().unwrap_or(0))
        })
        .collect();
    // Union-find over runs that overlap on different streams, swept in order of start.
    let mut parent: Vec<usize> = (0..runs.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| spans[i].0);
    let mut open: Vec<usize> = Vec::new();
    for &i in &order {
        open.retain(|&j| spans[j].1 >= spans[i].0);
        for &j in &open {
            if cx.stream_of(runs[i][0]) != cx.stream_of(runs[j][0]) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a] = b;
            }
        }
        open.push(i);
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..runs.len() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut out: Vec<Vec<OpId>> = groups
        .into_values()
        .filter(|g| g.len() >= 2)
        .map(|g| {
            let mut ops: Vec<OpId> = g.iter().flat_map(|&i| runs[i].iter().copied()).collect();
            ops.sort_by_key(|id| graph.exec_position(*id));
            ops
        })
        .collect();
    out.sort_by_key(|ops| ops.first().map(|id| graph.exec_position(*id)));
    out
}

/// A segment the planner made of a candidate: the candidate's index, the segment's name, its
/// ops, and the planner's cuts around it in words.
type PlannedSegment = (usize, String, Vec<OpId>, Vec<String>);

/// The segments the graph's planner makes when each of `runs` is a scope of its own with
/// `options` (of one op too: the pass builds those).
fn planned(
    planning: &Planning,
    runs: &[Vec<OpId>],
    prefix: &str,
    options: &str,
) -> Vec<PlannedSegment> {
    let graph = planning.graph();
    let mut marks = Marks::unmarked(graph.len());
    let options = marks.intern_options(options);
    for (k, run) in runs.iter().enumerate() {
        let scope = marks.add_scope(format!("{prefix}{k}"));
        for &id in run {
            marks.set(id, OpMark::Member { scope, options });
        }
    }
    let p = planning.plan(&marks);
    let mut out = Vec::new();
    for scope in &p.scopes {
        let k = scope
            .name
            .strip_prefix(prefix)
            .and_then(|n| n.parse().ok())
            .unwrap_or(usize::MAX);
        for seg in &scope.segments {
            // The planner's cuts around it, in words.
            let cuts: Vec<String> = scope
                .breaks
                .iter()
                .filter(|b| {
                    b.cuts
                        && (b.after == seg.ops.first().copied()
                            || b.before == seg.ops.last().copied())
                })
                .map(|b| {
                    format!(
                        "{}: {}",
                        graph.op(b.op).name,
                        describe_reason(&marks, b.reason)
                    )
                })
                .collect();
            out.push((k, seg.name.clone(), seg.ops.clone(), cuts));
        }
    }
    out
}

/// Why a run of ops starts after (`before` = true: ends before) the neighbour on its stream.
fn edge(cx: &Context, ops: &[OpId], before: bool, cuts: &[String]) -> String {
    let graph = cx.graph();
    let (Some(&first), Some(&last)) = (ops.first(), ops.last()) else {
        return String::new();
    };
    let stream = cx.stream_of(first);
    let order = graph.exec_order();
    let at = graph.exec_position(if before { last } else { first });
    let neighbour = if before {
        order[at + 1..].iter().copied().find(|&id| {
            cx.stream_of(id) == stream && cx.verdicts().get(id).verdict != Verdict::Ignored
        })
    } else {
        order[..at].iter().rev().copied().find(|&id| {
            cx.stream_of(id) == stream && cx.verdicts().get(id).verdict != Verdict::Ignored
        })
    };
    let Some(n) = neighbour else {
        return if before {
            "end of its stream"
        } else {
            "start of its stream"
        }
        .to_string();
    };
    let name = &graph.op(n).name;
    if let Some(r) = cx.verdicts().get(n).verdict.reason() {
        return format!("{name}: {}", r.text());
    }
    if let Some(cut) = cuts.iter().find(|c| c.starts_with(name.as_str())) {
        return format!("the planner cuts at {cut}");
    }
    let layers = graph.op_layers();
    if layers.of(n) != layers.of(if before { last } else { first }) {
        return format!("{name}: another layer");
    }
    format!("{name}: the planner cuts here")
}

/// The ops that wait for another stream — a data or control edge from a kernel that runs on
/// another stream, or from a Recv: the time before them is a dependency wait, which fusing
/// does not remove, not a scheduling gap. A weight or constant input (no kernel) is no wait,
/// whatever stream it is placed on.
fn waiting(cx: &Context) -> Vec<bool> {
    let graph = cx.graph();
    let mut out = vec![false; graph.len()];
    for &u in graph.exec_order() {
        let from_kernel = launches_kernel(cx, u);
        for (v, _) in graph.successors(u) {
            if (from_kernel && cx.stream_of(u) != cx.stream_of(v)) || graph.op(u).op_type == "Recv"
            {
                out[v.index()] = true;
            }
        }
    }
    out
}

/// What the profile says of each op, looked up once: its kernel's timing (by the op's name)
/// and whether it waits for another stream.
struct PerOp<'t> {
    timing: Vec<Option<&'t timing::KernelTiming>>,
    waiting: Vec<bool>,
}

impl<'t> PerOp<'t> {
    fn new(cx: &Context, timing: Option<&'t Timing>) -> PerOp<'t> {
        let graph = cx.graph();
        PerOp {
            timing: match timing {
                // Read for this graph: looked up already.
                Some(t) if t.by_op.len() == graph.len() => {
                    t.by_op.iter().map(Option::as_ref).collect()
                }
                Some(t) => graph.ops().iter().map(|op| t.get(&op.name)).collect(),
                None => vec![None; graph.len()],
            },
            waiting: waiting(cx),
        }
    }
}

/// What one SuperKernel of `ops` (on `cx`) over two or more streams would lose per step by
/// running one after another the kernels that overlapped without it, measured in `timing`
/// (`per_op`: each op's timing in it): in a row, they take their durations and the gaps the
/// model removes a share of (its gain counts those, hidden behind the other stream or not), so
/// the loss is those durations and gaps less the time they spanned together. `None` on one
/// stream (they ran in a row already), or without start times.
fn serial_loss(
    cx: &Context,
    ops: &[OpId],
    (per_op, timing): (&PerOp<'_>, Option<&Timing>),
) -> Option<f64> {
    let first = cx.stream_of(*ops.first()?);
    if ops.iter().all(|&id| cx.stream_of(id) == first) {
        return None;
    }
    let timing = timing?;
    let busy_less_span = timing.busy_less_span_us(ops)?;
    let per_step = timing.per_step(&cx.graph().op(ops[0]).name).max(1.0);
    // The gaps the gain counts ([`features`]' `gap`).
    let gaps: f64 = ops[1..]
        .iter()
        .filter(|id| !per_op.waiting[id.index()])
        .filter_map(|id| per_op.timing[id.index()])
        .map(|k| k.gap())
        .sum();
    Some((gaps * per_step + busy_less_span).max(0.0))
}

/// What one SuperKernel of `ops` (on `cx`) is predicted to do per step with `coefficients` on
/// the gaps `timing` measured (`per_op`: each op's timing in it): its gain, what it loses
/// running serially what overlapped on two streams, and how often it runs. `None` when a sub-op
/// never ran in that profile.
fn value(
    cx: &Context,
    ops: &[OpId],
    (per_op, timing): (&PerOp<'_>, &Timing),
    coefficients: Coefficients,
) -> Option<(f64, f64, f64)> {
    if ops.iter().any(|id| per_op.timing[id.index()].is_none()) {
        return None;
    }
    let (features, _) = features(cx, ops, per_op, None);
    let per_step = timing.per_step(&cx.graph().op(*ops.first()?).name).max(1.0);
    let serial_loss = serial_loss(cx, ops, (per_op, Some(timing))).unwrap_or(0.0);
    Some((
        coefficients.saving(&features) * per_step,
        serial_loss,
        per_step,
    ))
}

/// Today's segments `ops` take ops of, each with how many: sorted by segment.
fn segments_hit(today: &FusedToday, ops: &[OpId]) -> Vec<(u32, usize)> {
    let mut ids: Vec<u32> = ops
        .iter()
        .map(|id| today[id.index()])
        .filter(|&k| k != NOT_FUSED)
        .collect();
    ids.sort_unstable();
    let mut out: Vec<(u32, usize)> = Vec::new();
    for k in ids {
        match out.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => out.push((k, 1)),
        }
    }
    out
}

/// What fusing a run (whose not-yet-fused boundaries add up to `features`) adds over today's
/// plan: those boundaries, its own entry, and the entries of today's SuperKernels it takes
/// whole (`hit`: each with how many of its ops it takes) — they go.
fn saving_over_today(
    segments: &[&crate::fusion::plan::Segment],
    hit: &[(u32, usize)],
    coefficients: Coefficients,
    features: &Features,
) -> f64 {
    let absorbed = hit
        .iter()
        .filter(|&&(k, n)| segments[k as usize].ops.len() == n)
        .count();
    coefficients.saving(features) + coefficients.c0 * absorbed as f64
}

/// Which of today's segments each op is fused into ([`NOT_FUSED`] when none): a boundary
/// between two ops of one segment is fused already, and fusing it again saves nothing.
type FusedToday = [u32];

/// An op in no segment of today's plan.
const NOT_FUSED: u32 = u32::MAX;

/// What a run of `ops` adds up to per run: its features, and how many of its boundaries were
/// measured. The gap before an op that waits for another stream is not counted, nor, with
/// `today`, a boundary today's plan fuses already.
fn features(
    cx: &Context,
    ops: &[OpId],
    per_op: &PerOp<'_>,
    today: Option<&FusedToday>,
) -> (Features, usize) {
    let mut f = Features::default();
    let mut measured = 0;
    for pair in ops.windows(2) {
        if let Some(today) = today {
            let (a, b) = (today[pair[0].index()], today[pair[1].index()]);
            if a != NOT_FUSED && a == b {
                continue;
            }
        }
        match (core_kind(cx, pair[0]), core_kind(cx, pair[1])) {
            (Some(x), Some(y)) if x == y && x != 2 => f.same += 1.0,
            _ => f.cross += 1.0,
        }
        if let Some(k) = per_op.timing[pair[1].index()] {
            measured += 1;
            if !per_op.waiting[pair[1].index()] {
                f.gap += k.gap();
            }
            f.head += k.head();
            f.kernel += k.duration() - k.head();
        }
    }
    (f, measured)
}

/// The suggestions for the graph of `cx` with today's `plan` (to say how each stands against
/// it), ranked: by the saving per step `coefficients` give
/// on `timing`'s gaps, or without timing by the boundaries removed.
pub fn suggest(
    planning: &Planning,
    today: &Plan,
    timing: Option<&Timing>,
    coefficients: Coefficients,
    fitted: bool,
) -> Suggestions {
    let per_op = PerOp::new(planning.context(), timing);
    suggest_on(
        planning,
        today,
        (&per_op, timing),
        (coefficients, fitted),
        true,
    )
}

/// [`suggest`] with each op's timing looked up already (`per_op`, from `timing`); a candidate
/// is kept for the time it saves when `by_saving`, else (a fit not trusted) for the boundaries
/// it fuses.
fn suggest_on(
    planning: &Planning,
    today: &Plan,
    (per_op, timing): (&PerOp<'_>, Option<&Timing>),
    (coefficients, fitted): (Coefficients, bool),
    by_saving: bool,
) -> Suggestions {
    let cx = planning.context();
    let graph = cx.graph();
    let runs = runs(cx);
    // A candidate is one of the planner's segments of two ops or more.
    let mut drawn: Vec<(Kind, String, Vec<OpId>, Vec<String>)> =
        planned(planning, &runs, "suggest_", "")
            .into_iter()
            .filter(|(_, _, ops, _)| ops.len() >= 2)
            .map(|(_, n, o, c)| (Kind::Run, n, o, c))
            .collect();
    let mut more = Vec::new();
    let layers = op_layers(cx);
    let (layer_pieces, part_pieces) = cut_runs(cx, &runs, &layers);
    let groups = [
        (Kind::Layer, layer_pieces, "suggest_layer_", ""),
        (Kind::Part, part_pieces, "suggest_part_", ""),
        (
            Kind::TwoStream,
            Some(two_stream(cx, &runs)),
            "suggest_two_",
            "stream-fusion=1",
        ),
    ];
    for (kind, groups, prefix, options) in groups {
        for (_, n, o, c) in planned(planning, &groups.unwrap_or_default(), prefix, options) {
            if o.len() >= 2 {
                more.push((kind, n, o, c));
            }
        }
    }
    // The same ops drawn twice (a run that is also a layer): kept once. Runs in execution order
    // with the same ends and length are the same ops.
    let key = |ops: &[OpId]| (ops.first().copied(), ops.last().copied(), ops.len());
    let mut seen: HashSet<(Option<OpId>, Option<OpId>, usize)> =
        drawn.iter().map(|d| key(&d.2)).collect();
    for d in more {
        if seen.insert(key(&d.2)) {
            drawn.push(d);
        }
    }
    // Today's segments, to say how each suggestion stands against them.
    let segments: Vec<&crate::fusion::plan::Segment> =
        today.scopes.iter().flat_map(|s| &s.segments).collect();
    let mut segment_of: Vec<u32> = vec![NOT_FUSED; graph.len()];
    for (k, seg) in segments.iter().enumerate() {
        for &id in &seg.ops {
            segment_of[id.index()] = k as u32;
        }
    }
    // Each candidate valued first; its words (names, why it starts and ends where it does,
    // the segments it takes ops of) are made only for those kept.
    let mut valued: Vec<(Suggestion, Vec<String>, Vec<u32>)> = drawn
        .into_iter()
        .map(|(kind, _, ops, cuts)| {
            let (features, measured) = features(cx, &ops, per_op, Some(&segment_of));
            let per_step = timing.map_or(1.0, |t| t.per_step(&graph.op(ops[0]).name).max(1.0));
            let hit_counts = segments_hit(&segment_of, &ops);
            let hit: Vec<u32> = hit_counts.iter().map(|&(k, _)| k).collect();
            // Named below, for the suggestions kept.
            let versus = match hit.as_slice() {
                [] => Versus::New,
                [one] if segments[*one as usize].ops == ops => Versus::Same(String::new()),
                _ => Versus::Overlaps(Vec::new()),
            };
            let mut streams: Vec<i64> = ops
                .iter()
                .map(|&id| cx.streams()[cx.stream_of(id) as usize].id)
                .collect();
            streams.sort_unstable();
            streams.dedup();
            let over_today = if matches!(versus, Versus::Same(_)) {
                0.0
            } else {
                saving_over_today(&segments, &hit_counts, coefficients, &features)
            };
            // One SuperKernel over two streams runs their overlapping kernels one by one.
            let serial_loss_us = serial_loss(cx, &ops, (per_op, timing));
            let suggestion = Suggestion {
                name: String::new(),
                streams,
                kind,
                first_op: String::new(),
                last_op: String::new(),
                options: match kind {
                    Kind::TwoStream => "stream-fusion=1".to_string(),
                    _ => String::new(),
                },
                boundaries: (features.same + features.cross) as usize,
                features,
                measured,
                per_step,
                saving_us: timing.map(|_| over_today * per_step - serial_loss_us.unwrap_or(0.0)),
                serial_loss_us,
                predicted: None,
                loop_over_layers: None,
                starts_after: String::new(),
                ends_before: String::new(),
                versus,
                ops,
            };
            (suggestion, cuts, hit)
        })
        .collect();
    // Only what model code can write: a candidate crossing layers only as a scope around the
    // loop over whole layers.
    let units = Units::of(cx, &layers);
    valued.retain_mut(|(s, _, _)| match units.crossed(&s.ops) {
        None => true,
        Some((first, last)) => {
            let span = |unit: u32| units.spans[unit as usize];
            let whole = first != OUTSIDE
                && last != OUTSIDE
                && span(first).is_some_and(|span| span.0 == s.ops[0])
                && span(last).is_some_and(|span| span.1 == s.ops[s.ops.len() - 1]);
            if whole {
                s.loop_over_layers = Some((
                    units.names[first as usize].to_string(),
                    units.names[last as usize].to_string(),
                ));
            }
            whole
        }
    });
    // Only what adds something over today's plan is offered (and named, and made templates of).
    let drawn = valued.len();
    valued.retain(|(s, _, _)| s.adds(by_saving));
    let adding_nothing = drawn - valued.len();
    let mut list: Vec<Suggestion> = valued
        .into_iter()
        .map(|(mut s, cuts, hit)| {
            let named = |k: &u32| segments[*k as usize].name.clone();
            s.versus = match s.versus {
                Versus::New => Versus::New,
                Versus::Same(_) => Versus::Same(hit.first().map(named).unwrap_or_default()),
                Versus::Overlaps(_) => {
                    let mut v: Vec<String> = hit.iter().map(named).collect();
                    v.sort();
                    Versus::Overlaps(v)
                }
            };
            s.first_op = graph.op(s.ops[0]).name.clone();
            s.last_op = graph.op(s.ops[s.ops.len() - 1]).name.clone();
            s.starts_after = edge(cx, &s.ops, false, &cuts);
            s.ends_before = edge(cx, &s.ops, true, &cuts);
            s
        })
        .collect();
    name_scopes(&mut list, cx, &units);
    list.sort_by(|a, b| {
        match (a.saving_us, b.saving_us) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            _ => b.boundaries.cmp(&a.boundaries),
        }
        .then(a.ops[0].cmp(&b.ops[0]))
    });
    let today_fused = (segments.as_slice(), segment_of.as_slice());
    let mut templates = templates::templates(
        planning,
        &list,
        (per_op, today_fused),
        &units,
        (timing, coefficients),
    );
    let drawn_templates = templates.len();
    templates.retain(|t| t.adds(by_saving));
    // Predicted with the model's own range: a fit's error replaces it where there is one.
    for s in &mut list {
        s.predicted = s.predict(None);
    }
    Suggestions {
        not_offered: None,
        ranked_by_boundaries: None,
        templates_adding_nothing: drawn_templates - templates.len(),
        adding_nothing,
        templates,
        list,
        coefficients,
        fitted,
        measured: timing.is_some(),
        whole_model: None,
        kernels: kernels(cx),
        remedies: Vec::new(),
        today: None,
    }
}

/// Names each suggestion as a user would name its scope: `layer2` for a whole layer,
/// `layer2_attn` / `layer2_moe` for one part of it, `layer0_input_rmsnorm_to_gating_topk` for
/// another region of a layer, `layers0_to_3` for a scope around the loop over layers, the ends'
/// names outside the layers; `_2s` across two streams; a number after a name taken before.
fn name_scopes(list: &mut [Suggestion], cx: &Context, units: &Units<'_>) {
    let graph = cx.graph();
    // Each layer's first and last op on each stream that the pass does not ignore: a
    // suggestion from one to the other is the layer whole.
    let mut whole: HashMap<(u32, u32), (OpId, OpId), NameHash> = HashMap::default();
    for &id in graph.exec_order() {
        let unit = units.of_op[id.index()];
        if unit != OUTSIDE && cx.verdicts().get(id).verdict != Verdict::Ignored {
            whole.entry((unit, cx.stream_of(id))).or_insert((id, id)).1 = id;
        }
    }
    let mut taken: HashSet<String> = HashSet::new();
    for s in list.iter_mut() {
        let (first, last) = (s.ops[0], s.ops[s.ops.len() - 1]);
        let (first_name, last_name) = (&graph.op(first).name, &graph.op(last).name);
        let ends = || {
            format!(
                "{}_to_{}",
                templates::short(first_name),
                templates::short(last_name)
            )
        };
        let unit = units.of_op[first.index()];
        let layer = (unit != OUTSIDE).then(|| units.names[unit as usize]);
        let mut name = match (&s.loop_over_layers, layer) {
            (Some((a, b)), _) => format!("layers{a}_to_{b}"),
            (None, Some(layer))
                if whole.get(&(unit, cx.stream_of(first))) == Some(&(first, last)) =>
            {
                format!("layer{layer}")
            }
            (None, Some(layer)) => match (part_of(first_name), part_of(last_name)) {
                (Some(a), Some(b)) if a == b => format!("layer{layer}_{a}"),
                _ => format!("layer{layer}_{}", ends()),
            },
            (None, None) => ends(),
        };
        if s.kind == Kind::TwoStream {
            name.push_str("_2s");
        }
        let stem = name.clone();
        let mut n = 2;
        while !taken.insert(name.clone()) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        s.name = name;
    }
}

/// Each op's decoder layer: as its name says, else as its scope's name does (an aclgraph task
/// is named by its kernel, its layer by the scope, `full_model_layers.3`); `None` outside the
/// layers. Read once per graph ([`crate::graph::OpLayers`]).
fn op_layers(cx: &Context) -> Vec<Option<&str>> {
    let layers = cx.graph().op_layers();
    (0..cx.graph().len() as u32)
        .map(|i| layers.of(OpId(i)))
        .collect()
}

/// The unit of the ops outside the layers (embedding, head).
const OUTSIDE: u32 = 0;

/// Each op's unit as a number — its layer, or the ops outside the layers (embedding, head) —
/// so that a run's units compare without comparing names, and each layer's first and last op.
pub(super) struct Units<'g> {
    /// Each op's unit.
    pub(super) of_op: Vec<u32>,
    /// Each unit's layer number as the names give it (`""` for [`OUTSIDE`]).
    pub(super) names: Vec<&'g str>,
    /// Each unit's first and last op in execution order (`None` for one without ops).
    pub(super) spans: Vec<Option<(OpId, OpId)>>,
}

impl<'g> Units<'g> {
    /// The units of the ops of `cx`, whose layers are `layers` ([`OUTSIDE`] the layers, named
    /// `""`).
    fn of(cx: &Context, layers: &[Option<&'g str>]) -> Units<'g> {
        let mut names: Vec<&str> = vec![""];
        let mut ids: HashMap<&str, u32, NameHash> = HashMap::default();
        // Ops of one layer come together: the unit before is looked up again only when the
        // layer changes.
        let mut last: Option<(&str, u32)> = None;
        let of_op: Vec<u32> = layers
            .iter()
            .map(|l| match *l {
                None => OUTSIDE,
                Some(name) => match last {
                    Some((before, unit)) if before == name => unit,
                    _ => {
                        let unit = *ids.entry(name).or_insert_with(|| {
                            names.push(name);
                            names.len() as u32 - 1
                        });
                        last = Some((name, unit));
                        unit
                    }
                },
            })
            .collect();
        let mut spans: Vec<Option<(OpId, OpId)>> = vec![None; names.len()];
        for &id in cx.graph().exec_order() {
            let unit = of_op[id.index()];
            if unit != OUTSIDE {
                spans[unit as usize].get_or_insert((id, id)).1 = id;
            }
        }
        Units {
            of_op,
            names,
            spans,
        }
    }

    /// The layers' units, in order of their numbers.
    pub(super) fn layers(&self) -> Vec<u32> {
        let mut out: Vec<u32> = (1..self.names.len() as u32).collect();
        out.sort_by_cached_key(|&u| {
            let name = self.names[u as usize];
            (name.parse::<u64>().unwrap_or(u64::MAX), name)
        });
        out
    }

    /// Where `ops` cross from one unit to another: the first and last unit. `None` when all
    /// are in one.
    fn crossed(&self, ops: &[OpId]) -> Option<(u32, u32)> {
        let unit = |id: &OpId| self.of_op[id.index()];
        let (first, last) = (unit(ops.first()?), unit(ops.last()?));
        (first != last || ops.iter().any(|id| unit(id) != first)).then_some((first, last))
    }
}

/// What the profiles give the ranking.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measured<'a> {
    /// The gaps the profile without SuperKernel measured, read for this graph.
    pub base: Option<&'a Timing>,
    /// The kernels of the profile with SuperKernel.
    pub new: Option<&'a KernelTable>,
    /// Both profiles' runs judged on the segments of the plan they were made with (today's,
    /// unless `calibration` says another): the account of the time, whose SuperKernel parts
    /// are the savings measured, step by step.
    pub judged: Option<&'a Judged>,
    /// The marks and plan the profile with SuperKernel was made with, when not today's (edits
    /// since, an accepted suggestion): the fit is made on its segments, so an edit keeps the
    /// calibration.
    pub calibration: Option<(&'a Marks, &'a Plan)>,
}

/// Both profiles' runs judged on the segments of today's `plan` (made from `marks` on `cx`),
/// as the profile comparison judges them: what [`Measured::judged`] takes.
pub fn bind_runs(cx: &Context, (marks, plan): (&Marks, &Plan), base: &Runs, new: &Runs) -> Judged {
    let planned = PlannedFusion::from_plan(cx, marks, plan, "");
    crate::profile::diff::judge_runs(&planned, (base, new), PayoffRule::default())
}

/// The suggestions for the graph of `cx` and today's marks and plan with what the profiles
/// give (planned by `planning`): the gaps `base` measured and, with `new`, the model fitted on the pair (on per-step
/// medians with `payoffs`); without `base`, ranked by boundaries. With them, what accepting
/// all that fit would make of the whole model.
pub fn rank(
    planning: &Planning,
    (marks, plan): (&Marks, &Plan),
    measured: Measured<'_>,
) -> (Suggestions, Option<saving::Fit>) {
    let cx = planning.context();
    if let Some(why) = planning.no_scope_code() {
        return (Suggestions::none(why), None);
    }
    // Each op's timing looked up once, for the fit, the suggestions and the estimate.
    let per_op = PerOp::new(cx, measured.base);
    // Fitted on the segments the profiles were made with.
    let made_with = measured.calibration.map_or(plan, |(_, p)| p);
    let fit = match (measured.base, measured.new) {
        (Some(t), Some(new)) => saving::fit(&observations_on(
            cx,
            made_with,
            (&per_op, t, new),
            measured.judged.map(|j| &j.account),
        )),
        _ => None,
    };
    let coefficients = fit.as_ref().map_or(saving::DEFAULTS, |f| f.coefficients);
    // With a fit, every candidate that fuses boundaries first: whether the fit can rank them
    // is judged on all their savings, and a candidate is never hidden on a saving the fit
    // cannot vouch for.
    let timed = (&per_op, measured.base);
    let mut suggestions = suggest_on(
        planning,
        plan,
        timed,
        (coefficients, fit.is_some()),
        fit.is_none(),
    );
    match fit.as_ref().map(|f| distrust(&suggestions, f)) {
        Some(Some(why)) => rank_by_boundaries(&mut suggestions, why),
        Some(None) => keep_what_saves(&mut suggestions),
        None => {}
    }
    let error = fit.as_ref().map(|f| f.loo_mean_us);
    for s in &mut suggestions.list {
        s.predicted = s.predict(error);
    }
    suggestions.remedies = planning.remedies(marks);
    suggestions.today = measured
        .base
        .map(|t| predict_plan(cx, plan, (&per_op, t), (coefficients, fit.as_ref())));
    suggestions.whole_model = Some(estimate::whole_model(
        planning,
        (marks, plan),
        &suggestions,
        (&per_op, measured.base),
    ));
    (suggestions, fit)
}

/// What each segment of `plan` (on `cx`) is predicted to save per step, on the gaps `timing`
/// measured without SuperKernel (`per_op` looked up from it), with `coefficients` — fitted by
/// `fit`, whose error leaving one segment out makes each range, or assumed. A segment whose
/// sub-ops span streams loses what its overlapping kernels would run one after another.
fn predict_plan(
    cx: &Context,
    plan: &Plan,
    (per_op, timing): (&PerOp<'_>, &Timing),
    (coefficients, fit): (Coefficients, Option<&saving::Fit>),
) -> prediction::PlanPrediction {
    let error = fit.map(|f| f.loo_mean_us);
    let mut superkernels = Vec::new();
    let mut unpredicted = Vec::new();
    for seg in plan.scopes.iter().flat_map(|s| &s.segments) {
        let Some((gain, serial_loss, per_step)) =
            value(cx, &seg.ops, (per_op, timing), coefficients)
        else {
            unpredicted.push(seg.name.clone());
            continue;
        };
        let saving_us = gain - serial_loss;
        let range = prediction::range(saving_us, gain, per_step, error);
        superkernels.push(prediction::SuperKernelPrediction {
            segment: seg.name.clone(),
            fused_node: seg.fused_node.clone(),
            saving_us,
            low_us: range.low_us,
            high_us: range.high_us,
            class: range.class,
        });
    }
    let basis = match fit {
        Some(f) => format!(
            "the model fitted on a profile pair ({} SuperKernels; error leaving one out \
             {:.2} µs a run)",
            f.segments, f.loo_mean_us
        ),
        None => "assumed coefficients (no profile pair calibrated them): each saving ± its gain"
            .to_string(),
    };
    prediction::PlanPrediction {
        basis,
        fitted: fit.is_some(),
        profile: timing
            .files
            .first()
            .map(|f| {
                let f = std::path::absolute(f).unwrap_or_else(|_| f.clone());
                f.display().to_string()
            })
            .unwrap_or_default(),
        superkernels,
        unpredicted,
    }
}

/// Why the fitted model cannot rank the suggestions, if it cannot: its error leaving one
/// segment out (µs a run) is not below the median difference between consecutive candidates'
/// savings (candidates of equal saving make no difference) — it cannot tell neighbours apart —
/// or not below the median saving it predicts — it cannot tell a saving from none.
fn distrust(s: &Suggestions, fit: &saving::Fit) -> Option<String> {
    let mut per_run: Vec<f64> = s
        .list
        .iter()
        .filter_map(|x| Some(x.saving_us? / x.per_step))
        .collect();
    per_run.sort_by(|a, b| b.total_cmp(a));
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    let error = fit.loo_mean_us;
    let mut savings: Vec<f64> = per_run.iter().map(|x| x.abs()).collect();
    if let Some(saving) = median(&mut savings).filter(|m| error >= *m) {
        return Some(format!(
            "ranked by the boundaries each removes, every candidate kept: the model's error \
             leaving one segment out ({error:.2} µs a run) is not below the median saving it \
             predicts ({saving:.2} µs a run), so it cannot tell a saving from none"
        ));
    }
    // Candidates with the same saving (the same run in each layer) are no step.
    let mut steps: Vec<f64> = per_run
        .windows(2)
        .map(|w| w[0] - w[1])
        .filter(|d| *d > 1e-9)
        .collect();
    let step = median(&mut steps)?;
    (error >= step).then(|| {
        format!(
            "ranked by the boundaries each removes: the model's error leaving one segment out \
             ({error:.2} µs a run) is not below the median difference between consecutive \
             candidates' savings ({step:.2} µs a run), so it cannot tell them apart"
        )
    })
}

/// Keeps the suggestions and templates that save time, the fit being trusted; the others are
/// counted as adding nothing.
fn keep_what_saves(s: &mut Suggestions) {
    let (list, templates) = (s.list.len(), s.templates.len());
    s.list.retain(|x| x.adds(true));
    s.templates.retain(|t| t.adds(true));
    s.adding_nothing += list - s.list.len();
    s.templates_adding_nothing += templates - s.templates.len();
}

/// Ranks the suggestions and templates by the boundaries they remove, saying `why`.
fn rank_by_boundaries(s: &mut Suggestions, why: String) {
    s.ranked_by_boundaries = Some(why);
    s.list.sort_by(|a, b| {
        b.boundaries
            .cmp(&a.boundaries)
            .then(a.ops[0].cmp(&b.ops[0]))
    });
    s.templates.sort_by(|a, b| {
        b.boundaries
            .cmp(&a.boundaries)
            .then(b.superkernels.cmp(&a.superkernels))
    });
}

/// The segments of `plan` (made on `cx`) that both profiles hold, as fit observations: each one's
/// features from the profile without SuperKernel (`base`), and the saving measured — its
/// kernels' durations and inner gaps there, minus its SuperKernel's duration in `new`. With
/// `account` (the pair's account of the time on the plan's segments), the saving measured is
/// the SuperKernel's part of it — per step, a run's share of it — in each step kept and, fitted,
/// its mean over them: the figure every output gives.
pub fn observations(
    cx: &Context,
    plan: &Plan,
    (base, new): (&Timing, &KernelTable),
    account: Option<&Account>,
) -> Vec<Observation> {
    observations_on(cx, plan, (&PerOp::new(cx, Some(base)), base, new), account)
}

/// [`observations`] with each op's timing in `base` looked up already (`per_op`).
fn observations_on(
    cx: &Context,
    plan: &Plan,
    (per_op, base, new): (&PerOp<'_>, &Timing, &KernelTable),
    account: Option<&Account>,
) -> Vec<Observation> {
    let graph = cx.graph();
    let mut out = Vec::new();
    for scope in &plan.scopes {
        for seg in &scope.segments {
            let Some(sk) = new.get(&seg.fused_node).filter(|k| k.count > 0) else {
                continue;
            };
            let timings: Option<Vec<_>> = seg
                .ops
                .iter()
                .map(|&id| base.get(&graph.op(id).name))
                .collect();
            let Some(timings) = timings else { continue };
            if seg.ops.len() < 2 {
                continue;
            }
            let (features, _) = features(cx, &seg.ops, per_op, None);
            let per_step = base.per_step(&graph.op(seg.ops[0]).name).max(1.0);
            let lost = serial_loss(cx, &seg.ops, (per_op, Some(base))).unwrap_or(0.0);
            let serial_loss_us = lost / per_step;
            let unfused: f64 = timings.iter().map(|k| k.duration()).sum::<f64>() + features.gap;
            let part = account.and_then(|a| a.superkernel(&seg.fused_node));
            let by_step = part.map(per_step_savings).unwrap_or_default();
            let mean = unfused - sk.total_us / sk.count as f64;
            // The account's own figure (per step, a run's share), as every output gives it.
            let measured = part
                .filter(|_| !by_step.is_empty())
                .map(|p| -p.delta_ns as f64 / 1000.0 / runs_per_step(p));
            out.push(Observation {
                segment: seg.name.clone(),
                features,
                saving_us: measured.unwrap_or(mean),
                by_step,
                serial_loss_us,
            });
        }
    }
    out
}

/// A SuperKernel's runs a step without SuperKernel, on average over the steps kept (1 when
/// none).
fn runs_per_step(part: &Part) -> f64 {
    let runs: Vec<usize> = part.steps.iter().filter_map(|s| Some(s.base?.1)).collect();
    match runs.len() {
        0 => 1.0,
        n => runs.iter().sum::<usize>() as f64 / n as f64,
    }
}

/// A SuperKernel's saving per run in each step both sides kept, µs: its part of the step
/// without less its part with, over its runs in the step (the account's figures).
fn per_step_savings(part: &Part) -> Vec<(String, f64)> {
    part.steps
        .iter()
        .filter_map(|s| {
            let ((base, runs), (new, _)) = (s.base?, s.new?);
            Some((
                s.step.clone(),
                (base - new) as f64 / 1000.0 / runs.max(1) as f64,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_come_from_the_op_names() {
        use super::part_of;
        assert_eq!(part_of("layer0_attention"), Some("attn"));
        assert_eq!(part_of("model.layers.1.self_attn.o_proj"), Some("attn"));
        assert_eq!(part_of("layer0_gmm_up"), Some("moe"));
        assert_eq!(part_of("layers.2.mlp.down_proj"), Some("moe"));
        assert_eq!(part_of("layer0_residual_add"), None);
    }
}
