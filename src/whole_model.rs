//! One scope over (nearly) the whole model — vLLM-Ascend's `full_model`, or any scope holding
//! at least [`WHOLE_MODEL_SHARE`] of the model's kernel tasks (reference
//! aclgraph_superkernel.md §9.1). Its user asks where it split, why, and what each piece
//! costs: its segments ranked by time when times are known, else by size, each with the break
//! that ended it (its reason and fix, the report's words), grouped by decoder layer as the
//! scope or op names give it (§9.3).

use crate::fix::WhatIf;
use crate::fusion::plan::{ScopePlan, Segment};
use crate::fusion::verdict::Verdict;
use crate::report::BreakReport;
use serde::Serialize;
use std::collections::HashMap;

/// The share of the model's kernel tasks a scope holds to count as the whole model.
pub const WHOLE_MODEL_SHARE: f64 = 0.8;

/// Most segments listed; the rest are counted.
pub const MAX_PIECES: usize = 200;

/// The break that ended a segment.
#[derive(Debug, Clone, Serialize)]
pub struct Ending {
    /// The op (task) that cut.
    pub op: String,
    /// Its type.
    #[serde(rename = "type")]
    pub op_type: String,
    /// The reason in words.
    pub reason: String,
    /// Its stable code.
    pub reason_code: &'static str,
    /// `dump`, `rules`, `assumed`, `inferred` or `edit`.
    pub evidence: &'static str,
    /// What to do about it.
    pub fix: String,
}

/// One segment of the whole-model scope.
#[derive(Debug, Clone, Serialize)]
pub struct Piece {
    /// Its place in the ranking, from 1.
    pub rank: usize,
    /// The segment.
    pub segment: String,
    /// Its SuperKernel's name.
    pub fused_node: String,
    /// The scope it is in (the whole-model scope, or a scope nested in it).
    pub scope: String,
    /// Its sub-ops.
    pub sub_ops: usize,
    /// Its time, µs, when known.
    pub time_us: Option<f64>,
    /// The break that ended it; `None` for the scope's last.
    pub ended_by: Option<Ending>,
}

/// The pieces of one layer.
#[derive(Debug, Clone, Serialize)]
pub struct Layer {
    /// The layer number as the names give it; `None` for pieces no name places.
    pub layer: Option<String>,
    /// Its sub-ops.
    pub sub_ops: usize,
    /// Its pieces' time, µs, when known for all of them.
    pub time_us: Option<f64>,
    /// Its pieces, by rank.
    pub pieces: Vec<Piece>,
}

/// The whole-model scope's summary.
#[derive(Debug, Clone, Serialize)]
pub struct WholeModel {
    /// The scope.
    pub scope: String,
    /// Kernel tasks in it.
    pub members: usize,
    /// Kernel tasks in the model.
    pub of: usize,
    /// Its segments.
    pub segments: usize,
    /// Its breaks.
    pub breaks: usize,
    /// `time` when the pieces are ranked by time, `size` when by sub-ops.
    pub ranked_by: &'static str,
    /// Where the times come from, when they are known.
    pub times_from: Option<&'static str>,
    /// Segments left out of the lists ([`MAX_PIECES`]).
    pub unlisted: usize,
    /// The pieces by layer, in layer order (unplaced last).
    pub layers: Vec<Layer>,
}

/// Times of segments: the time of one, µs, and where such times come from.
pub struct Times<'a> {
    /// The time of a segment, when known.
    pub of: &'a dyn Fn(&Segment) -> Option<f64>,
    /// Where they come from, in words.
    pub from: &'static str,
}

/// The device time of a segment's sub-ops as the graph records it
/// ([`crate::graph::ATTR_DEVICE_US`]).
pub fn graph_time(what_if: &WhatIf, seg: &Segment) -> Option<f64> {
    let graph = what_if.cx().graph();
    let times: Vec<f64> = seg
        .ops
        .iter()
        .filter_map(|&id| graph.op(id).attrs.get_float(crate::graph::ATTR_DEVICE_US))
        .collect();
    (!times.is_empty()).then(|| times.iter().sum())
}

/// The summary of the plan's whole-model scope, when one scope (with the scopes nested in it,
/// as `outer` tells) holds at least [`WHOLE_MODEL_SHARE`] of the model's kernel tasks.
pub fn whole_model(
    what_if: &WhatIf,
    outer: &dyn Fn(&str) -> Option<String>,
    times: &Times,
) -> Option<WholeModel> {
    let (cx, plan) = (what_if.cx(), what_if.plan());
    let verdicts = cx.verdicts();
    let kernels = (0..cx.graph().len())
        .filter(|&i| verdicts.get(crate::graph::OpId(i as u32)).verdict != Verdict::Ignored)
        .count();
    if kernels == 0 {
        return None;
    }
    let family = |s: &ScopePlan| outer(&s.name).unwrap_or_else(|| s.name.clone());
    let mut sizes: Vec<(String, usize)> = Vec::new();
    for s in &plan.scopes {
        let name = family(s);
        match sizes.iter_mut().find(|(n, _)| *n == name) {
            Some((_, n)) => *n += s.members.len(),
            None => sizes.push((name, s.members.len())),
        }
    }
    let (scope, members) = sizes.into_iter().max_by_key(|(_, n)| *n)?;
    if (members as f64) < WHOLE_MODEL_SHARE * kernels as f64 {
        return None;
    }
    let scopes: Vec<&ScopePlan> = plan.scopes.iter().filter(|s| family(s) == scope).collect();
    // Each segment with the break that ended it: the first cutting break after one of its ops.
    let mut found: Vec<(Piece, Option<(&ScopePlan, &crate::fusion::plan::Break)>)> = Vec::new();
    for s in &scopes {
        let mut segment_of: HashMap<crate::graph::OpId, usize> = HashMap::new();
        for (k, seg) in s.segments.iter().enumerate() {
            segment_of.extend(seg.ops.iter().map(|&op| (op, k)));
        }
        let mut ending: Vec<Option<&crate::fusion::plan::Break>> = vec![None; s.segments.len()];
        for b in s.breaks.iter().filter(|b| b.cuts) {
            if let Some(&k) = b.before.and_then(|op| segment_of.get(&op))
                && ending[k].is_none_or(|e| cx.topo(b.op) < cx.topo(e.op))
            {
                ending[k] = Some(b);
            }
        }
        for (seg, end) in s.segments.iter().zip(ending) {
            found.push((
                Piece {
                    rank: 0,
                    segment: seg.name.clone(),
                    fused_node: seg.fused_node.clone(),
                    scope: s.name.clone(),
                    sub_ops: seg.ops.len(),
                    time_us: (times.of)(seg),
                    ended_by: None,
                },
                end.map(|b| (*s, b)),
            ));
        }
    }
    let timed = found.iter().any(|(p, _)| p.time_us.is_some());
    if timed {
        found.sort_by(|(a, _), (b, _)| {
            b.time_us
                .unwrap_or(-1.0)
                .total_cmp(&a.time_us.unwrap_or(-1.0))
                .then(b.sub_ops.cmp(&a.sub_ops))
        });
    } else {
        found.sort_by_key(|(p, _)| std::cmp::Reverse(p.sub_ops));
    }
    let segments = found.len();
    found.truncate(MAX_PIECES);
    // The listed segments' breaks in words (each fix checked by planning it, as far as the
    // plans allowed go).
    let pieces: Vec<Piece> = found
        .into_iter()
        .enumerate()
        .map(|(i, (mut p, end))| {
            p.rank = i + 1;
            p.ended_by = end.map(|(s, b)| {
                let r = BreakReport::new(what_if, s, b);
                Ending {
                    op: r.op,
                    op_type: r.op_type,
                    reason: r.reason,
                    reason_code: r.reason_code,
                    evidence: r.evidence,
                    fix: r.suggestion,
                }
            });
            p
        })
        .collect();
    let graph = cx.graph();
    let first_op = |p: &Piece| {
        scopes
            .iter()
            .flat_map(|s| &s.segments)
            .find(|s| s.name == p.segment && s.fused_node == p.fused_node)
            .and_then(|s| s.ops.first())
            .map(|&id| graph.op(id).name.as_str())
    };
    let mut layers: Vec<Layer> = Vec::new();
    for p in pieces {
        let layer = crate::graph::layer_of(&p.scope)
            .or_else(|| crate::graph::layer_of(&p.fused_node))
            .or_else(|| first_op(&p).and_then(crate::graph::layer_of))
            .map(str::to_string);
        let at = match layers.iter().position(|l| l.layer == layer) {
            Some(at) => at,
            None => {
                layers.push(Layer {
                    layer,
                    sub_ops: 0,
                    time_us: Some(0.0),
                    pieces: Vec::new(),
                });
                layers.len() - 1
            }
        };
        let l = &mut layers[at];
        l.sub_ops += p.sub_ops;
        l.time_us = l.time_us.zip(p.time_us).map(|(a, b)| a + b);
        l.pieces.push(p);
    }
    layers.sort_by_key(|l| {
        (
            l.layer.is_none(),
            l.layer.as_deref().and_then(|n| n.parse::<u64>().ok()),
        )
    });
    Some(WholeModel {
        scope,
        members,
        of: kernels,
        segments,
        breaks: scopes.iter().map(|s| s.breaks.len()).sum(),
        ranked_by: if timed { "time" } else { "size" },
        times_from: timed.then_some(times.from),
        unlisted: segments.saturating_sub(MAX_PIECES),
        layers,
    })
}

impl WholeModel {
    /// The summary as text lines (strings from files sanitised).
    pub fn lines(&self) -> Vec<String> {
        let clean = |s: &str| crate::text::sanitize(s).into_owned();
        let mut out = vec![format!(
            "whole-model scope {}: {} of the model's {} kernel tasks ({:.0} %) → {} segment(s), \
             {} break(s); ranked by {}{}",
            clean(&self.scope),
            self.members,
            self.of,
            100.0 * self.members as f64 / self.of as f64,
            self.segments,
            self.breaks,
            self.ranked_by,
            self.times_from.map_or(String::new(), |f| format!(" ({f})"))
        )];
        for l in &self.layers {
            let time = l.time_us.map_or(String::new(), |t| format!(" · {t:.1} µs"));
            out.push(format!(
                "  {} · {} segment(s) · {} sub-op(s){time}",
                l.layer
                    .as_deref()
                    .map_or("no layer in the names".to_string(), |n| format!(
                        "layer {n}"
                    )),
                l.pieces.len(),
                l.sub_ops
            ));
            for p in &l.pieces {
                let time = p.time_us.map_or(String::new(), |t| format!(" · {t:.1} µs"));
                out.push(format!(
                    "    #{} {} · {} sub-op(s){time}",
                    p.rank,
                    clean(&p.segment),
                    p.sub_ops
                ));
                match &p.ended_by {
                    Some(e) => {
                        out.push(format!(
                            "      ended by {} ({}): {} [{}]",
                            clean(&e.op),
                            clean(&e.op_type),
                            clean(&e.reason),
                            e.evidence
                        ));
                        if !e.fix.is_empty() {
                            out.push(format!("      → {}", clean(&e.fix)));
                        }
                    }
                    None => out.push("      ended with its scope".to_string()),
                }
            }
        }
        if self.unlisted > 0 {
            out.push(format!(
                "  … and {} more segment(s): skope report lists them all",
                self.unlisted
            ));
        }
        out
    }
}
