//! Template suggestions: a region of the repeated unit (a decoder layer) — from one op to
//! another, each named within its layer — written once in the layer's `forward` and so applied
//! to every layer. Each region comes from a per-layer candidate; it is planned in every layer by
//! the real planner, its saving summed over the layers, the layers where it splits named with
//! the planner's cuts, and its SuperKernels counted as the compiler would build them (identical
//! sub-op sequences compile once).

use super::saving::Coefficients;
use super::timing::{Fnv, NameHash, Timing};
use super::{
    NOT_FUSED, PerOp, PlannedSegment, Suggestion, Units, features, part_of, planned,
    saving_over_today, segments_hit,
};
use crate::fusion::plan::Segment;
use crate::graph::{OpId, layer_of};
use crate::workspace::Planning;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::Hasher;

/// What stands for the layer's number in a name made for every layer.
pub const LAYER: &str = "{i}";

/// A region of every decoder layer, as one scope in the layer's code.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Template {
    /// The scope name: `layer`, `attn`, `moe`, or with the region's first op when two share one.
    pub name: String,
    /// Its first op within a layer (the number as [`LAYER`]) and its type.
    pub first: (String, String),
    /// Its last op within a layer and its type.
    pub last: (String, String),
    /// Its options.
    pub options: String,
    /// The layers it is planned in (every layer holding both ends).
    pub layers: Vec<String>,
    /// Layers that lack one of its ends.
    pub missing: Vec<String>,
    /// SuperKernels it makes over all its layers (of one op too).
    pub superkernels: usize,
    /// Distinct SuperKernels among them (identical sub-op types in order compile once).
    pub distinct: usize,
    /// Layers where the planner cuts it (more than one SuperKernel, or a part left unfused),
    /// with the cuts.
    pub splits: Vec<(String, Vec<String>)>,
    /// Kernel boundaries its SuperKernels remove that today's plan does not, over all layers.
    pub boundaries: usize,
    /// What it saves per step over today's plan, over all layers, µs, with a profile.
    pub saving_us: Option<f64>,
    /// The ops it takes in each of its layers (in the order of `layers`), in execution order.
    #[serde(skip)]
    pub units: Vec<Vec<OpId>>,
}

impl Template {
    /// The scope it makes in `layer`: its name with the layer's index, as the code writes it.
    pub fn scope_in(&self, layer: &str) -> String {
        format!("{}_{layer}", self.name)
    }

    /// The code to paste in the layer's `forward`: TorchAir's `with` block around the region,
    /// and aclgraph's begin/end pair (the pass's options are its own).
    pub fn code(&self) -> super::Code {
        super::Code::new(
            &format!("f\"{}_{{i}}\"", self.name),
            &self.options,
            (&self.first.0, &self.last.0),
        )
    }

    /// True when it adds something over today's plan: time saved with a profile (when the
    /// saving is trusted: `by_saving`), boundaries fused without one.
    pub fn adds(&self, by_saving: bool) -> bool {
        match self.saving_us {
            Some(us) if by_saving => us > 0.0,
            _ => self.boundaries > 0,
        }
    }
}

/// `name` with its layer number replaced by [`LAYER`], and the layer; `None` without one.
fn within_layer(name: &str) -> Option<(String, &str)> {
    let layer = layer_of(name)?;
    let at = layer.as_ptr() as usize - name.as_ptr() as usize;
    Some((
        format!("{}{LAYER}{}", &name[..at], &name[at + layer.len()..]),
        layer,
    ))
}

/// What `name` says after its layer number, as a scope name's word (`layer0_input_rmsnorm` →
/// `input_rmsnorm`, `model.layers.1.self_attn.o_proj` → `self_attn_o_proj`); the whole name so
/// made without a layer number; a name made for every layer is read after its [`LAYER`]. At
/// most 32 characters.
pub(super) fn short(name: &str) -> String {
    let rest = match (name.find(LAYER), layer_of(name)) {
        (Some(at), _) => &name[at + LAYER.len()..],
        (None, Some(layer)) => {
            &name[layer.as_ptr() as usize - name.as_ptr() as usize + layer.len()..]
        }
        (None, None) => name,
    };
    let word: String = rest
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .collect();
    word.trim_matches('_').chars().take(32).collect()
}

/// A region of the layer in every layer holding both its ends.
struct Region {
    /// Its first op within a layer.
    first: String,
    /// Its last op within a layer.
    last: String,
    /// Its options.
    options: String,
    /// Its ops in each layer it is planned in.
    runs: Vec<Vec<OpId>>,
    /// Where they span in each of those layers: the first and last op's execution positions.
    spans: Vec<(usize, usize)>,
    /// The layers.
    planned_in: Vec<String>,
    /// The layers that lack one of its ends.
    missing: Vec<String>,
}

/// `regions` in batches to plan together: the same options, and spans that never meet (no op
/// of one inside another's range in any layer), so that each plans as it would alone.
fn batches(regions: &[Region]) -> Vec<Vec<usize>> {
    let mut out: Vec<(Vec<usize>, BTreeMap<usize, usize>)> = Vec::new();
    let meets = |taken: &BTreeMap<usize, usize>, &(from, to): &(usize, usize)| {
        taken
            .range(..=to)
            .next_back()
            .is_some_and(|(_, &end)| end >= from)
    };
    // In order of where they start (first fit in that order colours intervals with the fewest
    // batches).
    let mut order: Vec<usize> = (0..regions.len()).collect();
    order.sort_by_key(|&r| regions[r].spans.first().copied());
    for r in order {
        let region = &regions[r];
        let fits = out.iter().position(|(members, taken)| {
            regions[members[0]].options == region.options
                && !region.spans.iter().any(|span| meets(taken, span))
        });
        let (members, taken) = match fits {
            Some(b) => &mut out[b],
            None => {
                out.push((Vec::new(), BTreeMap::new()));
                let last = out.len() - 1;
                &mut out[last]
            }
        };
        members.push(r);
        taken.extend(region.spans.iter().copied());
    }
    out.into_iter().map(|(members, _)| members).collect()
}

/// The templates the per-layer candidates among `list` give, for every layer of the graph of
/// `planning` (`units`: each op's layer); savings per step with `coefficients` and the
/// gaps `timing` measured, when there is one.
pub(super) fn templates(
    planning: &Planning,
    list: &[Suggestion],
    (per_op, (today, fused)): (&PerOp<'_>, (&[&Segment], &[u32])),
    units: &Units<'_>,
    (timing, coefficients): (Option<&Timing>, Coefficients),
) -> Vec<Template> {
    let cx = planning.context();
    let graph = cx.graph();
    let layers = units.layers();
    // Regions, once each: (kind, first, last, options) within a layer.
    let mut regions: BTreeSet<(String, String, String)> = BTreeSet::new();
    // Only regions some layer's candidate adds something with: planned in every layer, a
    // region adds in each layer what its candidate there adds.
    for s in list
        .iter()
        .filter(|s| s.loop_over_layers.is_none() && s.adds(false))
    {
        let (Some((first, _)), Some((last, _))) =
            (within_layer(&s.first_op), within_layer(&s.last_op))
        else {
            continue;
        };
        regions.insert((first, last, s.options.clone()));
    }
    let mut out = Vec::new();
    if regions.is_empty() {
        return out;
    }
    // Each op's type as a number (its FNV-1a hash), so that SuperKernels compare by their
    // sub-ops' types without comparing strings.
    let type_of_op: Vec<u64> = graph
        .ops()
        .iter()
        .map(|op| {
            let mut h = Fnv::default();
            h.write(op.op_type.as_bytes());
            h.finish()
        })
        .collect();
    let at = |layer: &str, name: &str| graph.find(&name.replace(LAYER, layer));
    // Each region in every layer holding both its ends: its ops there, and where they span.
    let mut drawn: Vec<Region> = Vec::new();
    for (first, last, options) in regions {
        let mut region = Region {
            first,
            last,
            options,
            runs: Vec::new(),
            spans: Vec::new(),
            planned_in: Vec::new(),
            missing: Vec::new(),
        };
        for &unit in &layers {
            let layer = units.names[unit as usize];
            match (at(layer, &region.first), at(layer, &region.last)) {
                (Some(a), Some(b)) if graph.exec_position(a) <= graph.exec_position(b) => {
                    let (from, to) = (graph.exec_position(a), graph.exec_position(b));
                    region.runs.push(
                        graph.exec_order()[from..=to]
                            .iter()
                            .copied()
                            .filter(|&id| units.of_op[id.index()] == unit)
                            .collect(),
                    );
                    region.spans.push((from, to));
                    region.planned_in.push(layer.to_string());
                }
                _ => region.missing.push(layer.to_string()),
            }
        }
        if region.planned_in.len() >= 2 {
            drawn.push(region);
        }
    }
    // Planned in batches of regions whose spans never meet in any layer (so each is planned as
    // it would be alone): one planner run per batch, not per region.
    let mut planned_segments: Vec<Vec<PlannedSegment>> = vec![Vec::new(); drawn.len()];
    for batch in batches(&drawn) {
        let mut runs: Vec<Vec<OpId>> = Vec::new();
        let mut owner: Vec<(usize, usize)> = Vec::new();
        for &r in &batch {
            for (layer, run) in drawn[r].runs.iter().enumerate() {
                runs.push(run.clone());
                owner.push((r, layer));
            }
        }
        let options = &drawn[batch[0]].options;
        for (k, name, ops, cuts) in planned(planning, &runs, "template_", options) {
            if let Some(&(r, layer)) = owner.get(k) {
                planned_segments[r].push((layer, name, ops, cuts));
            }
        }
    }
    for (region, segments) in drawn.into_iter().zip(planned_segments) {
        let Region {
            first,
            last,
            options,
            runs,
            planned_in,
            missing,
            ..
        } = region;
        let mut per_layer: Vec<(usize, Vec<String>)> = vec![(0, Vec::new()); runs.len()];
        let mut kinds: HashSet<Vec<u64>, NameHash> = HashSet::default();
        let (mut boundaries, mut saving) = (0usize, 0.0);
        for (k, _, ops, cuts) in &segments {
            let Some(slot) = per_layer.get_mut(*k) else {
                continue;
            };
            slot.0 += 1;
            slot.1.extend(cuts.iter().cloned());
            boundaries += ops
                .windows(2)
                .filter(|p| {
                    fused[p[0].index()] == NOT_FUSED || fused[p[0].index()] != fused[p[1].index()]
                })
                .count();
            kinds.insert(ops.iter().map(|&id| type_of_op[id.index()]).collect());
            // Over today's plan, as the per-layer suggestions are.
            let (f, _) = features(cx, ops, per_op, Some(fused));
            let hit = segments_hit(fused, ops);
            let same = matches!(hit.as_slice(), [(one, _)] if today[*one as usize].ops == *ops);
            let per_step = timing.map_or(1.0, |t| t.per_step(&graph.op(ops[0]).name).max(1.0));
            if !same {
                let lost = super::serial_loss(cx, ops, (per_op, timing)).unwrap_or(0.0);
                saving += saving_over_today(today, &hit, coefficients, &f) * per_step - lost;
            }
        }
        let splits = per_layer
            .into_iter()
            .zip(&planned_in)
            .filter(|((n, cuts), _)| *n > 1 || !cuts.is_empty())
            .map(|((_, mut cuts), layer)| {
                cuts.sort();
                cuts.dedup();
                (layer.clone(), cuts)
            })
            .collect();
        // Named as the code would name it: the part both ends are in (`attn`, `moe`), else
        // `layer`.
        let name = match (part_of(&first), part_of(&last)) {
            (Some(a), Some(b)) if a == b => a.to_string(),
            _ => "layer".to_string(),
        };
        let type_of = |name: &str| {
            at(&planned_in[0], name).map_or(String::new(), |id| graph.op(id).op_type.clone())
        };
        out.push(Template {
            first: (first.clone(), type_of(&first)),
            last: (last.clone(), type_of(&last)),
            name,
            options,
            layers: planned_in,
            missing,
            superkernels: segments.len(),
            distinct: kinds.len(),
            splits,
            boundaries,
            saving_us: timing.map(|_| saving),
            units: runs,
        });
    }
    out.sort_by(|a, b| {
        match (a.saving_us, b.saving_us) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            _ => b.boundaries.cmp(&a.boundaries),
        }
        // Ties: the larger region first.
        .then(b.superkernels.cmp(&a.superkernels))
    });
    // Names as a user would write them: the best of a name keeps it; the others say where
    // they start and end.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for t in &mut out {
        let mut name = t.name.clone();
        if taken.contains(&name) {
            name = format!("{}_{}_to_{}", t.name, short(&t.first.0), short(&t.last.0));
        }
        taken.insert(name.clone());
        t.name = name;
    }
    out
}
