//! What heals a whole-model scope's worst splits, in the pass's own terms
//! (reference/aclgraph_superkernel.md §1.5, §2.1, §3.1, §9.1, §9.3). vLLM-Ascend wraps the whole
//! capture in one scope, `full_model`, so the user does not choose where SuperKernels start and
//! end: the pass's cuts do, and the pieces they leave of one kernel remove no boundary and pay a
//! SuperKernel's entry. An **exclusion** (an unnamed scope, `super_kernel_scope_begin(None)` …
//! `end(None)`) around such pieces keeps their kernels out, so no SuperKernel of one kernel is
//! built — one exclusion in a decoder layer's code when the same piece recurs in every layer —
//! and each is checked by skope's prediction of the pass before it is offered.
//!
//! The pass's options that make cutting tasks fusible (`aggressive_opt_strategies`:
//! `task_breaker_bypass`, `value_breaker_bypass`) are not offered: the prediction does not
//! model `DefaultNodeProcessPass` (which re-splits at default tasks on a stream with kernels)
//! nor the two value-wait bits apart, so it cannot check them.

use super::graph_json::NodeType;
use super::model::{AclModel, Membership};
use super::predict::{self, Prediction};
use crate::fusion::marks::Marks;
use crate::graph::{OpId, layer_of};
use crate::planner::{PlanShape, Remedy};
use crate::suggest::templates::LAYER;
use crate::whole_model::WHOLE_MODEL_SHARE;
use std::collections::{BTreeMap, HashMap};

/// The remedies for the whole-model scope of `marks` on `model` (`outer`: the outermost scope
/// of each nested scope's name), best first; none when no scope holds the whole model.
pub fn remedies(model: &AclModel, marks: &Marks, outer: &HashMap<String, String>) -> Vec<Remedy> {
    let (memberships, names) = predict::memberships_of(model, marks);
    let family = |scope: &str| {
        outer
            .get(scope)
            .cloned()
            .unwrap_or_else(|| scope.to_string())
    };
    let Some(whole) = whole_model(model, &memberships, &names, &family) else {
        return Vec::new();
    };
    let in_whole = |scope: &str| family(scope) == whole;
    let now = predict::predict_for(model, &memberships, &names);
    let before = shape(model, &now, &in_whole);
    exclusions(model, (&memberships, &names), &now, &in_whole, before)
}

/// The scope (by its outermost name) holding at least [`WHOLE_MODEL_SHARE`] of the model's
/// kernel tasks that no exclusion keeps out (an exclusion inside the scope leaves it whole).
fn whole_model(
    model: &AclModel,
    memberships: &[Membership],
    names: &[String],
    family: &dyn Fn(&str) -> String,
) -> Option<String> {
    let mut held: BTreeMap<String, usize> = BTreeMap::new();
    let mut kernels = 0;
    for (task, m) in model.tasks.iter().zip(memberships) {
        if task.node_type != NodeType::Kernel || task.marker.is_some() || m.excluded {
            continue;
        }
        kernels += 1;
        if let Some(name) = m.bits.first().and_then(|&b| names.get(b as usize)) {
            *held.entry(family(name)).or_default() += 1;
        }
    }
    let (name, n) = held.into_iter().max_by_key(|(_, n)| *n)?;
    (kernels > 0 && n as f64 >= WHOLE_MODEL_SHARE * kernels as f64).then_some(name)
}

/// The kernel tasks of a predicted SuperKernel.
fn kernels<'p>(model: &'p AclModel, tasks: &'p [usize]) -> impl Iterator<Item = usize> + 'p {
    tasks
        .iter()
        .copied()
        .filter(|&i| model.tasks[i].node_type == NodeType::Kernel)
}

/// The whole-model scope's SuperKernels in `p`, counted.
fn shape(model: &AclModel, p: &Prediction, in_whole: &dyn Fn(&str) -> bool) -> PlanShape {
    let mut out = PlanShape::default();
    for sk in p.sks.iter().filter(|sk| in_whole(&sk.scope)) {
        let n = kernels(model, &sk.tasks).count();
        out.superkernels += 1;
        if n == 1 {
            out.single += 1;
        } else {
            out.fused += n;
        }
    }
    out
}

/// A piece of a scope: the scope's name with its layer number as [`LAYER`], and its place
/// among the scope's SuperKernels — the same in every layer.
type Piece = (String, usize);

/// A kernel's name for the code: its function name, or its node id.
fn kernel_name(model: &AclModel, i: usize) -> String {
    let t = &model.tasks[i];
    t.func_name
        .clone()
        .unwrap_or_else(|| format!("task {}", t.node_id))
}

/// Exclusions of the whole-model scope's one-kernel SuperKernels: those next to each other in
/// one scope taken together, and the same piece of every decoder layer (its scope name the same
/// but for the layer number, at the same place among the scope's SuperKernels) as one exclusion
/// in the layer's code. Each is kept when the prediction with it builds fewer one-kernel
/// SuperKernels and fuses no fewer kernels.
fn exclusions(
    model: &AclModel,
    (memberships, names): (&[Membership], &[String]),
    now: &Prediction,
    in_whole: &dyn Fn(&str) -> bool,
    before: PlanShape,
) -> Vec<Remedy> {
    // Runs of one-kernel SuperKernels in a scope: the piece they are (the scope's name with
    // its layer number as `{i}`, and their place among the scope's SuperKernels), the scope,
    // the kernels.
    let mut place: HashMap<&str, usize> = HashMap::new();
    let mut runs: Vec<(Piece, &str, Vec<usize>)> = Vec::new();
    let mut open = false;
    let mut last_scope = "";
    for sk in now.sks.iter().filter(|sk| in_whole(&sk.scope)) {
        let at = place.entry(&sk.scope).or_default();
        let ks: Vec<usize> = kernels(model, &sk.tasks).collect();
        let single = ks.len() == 1;
        match runs.last_mut() {
            Some((_, _, run)) if single && open && last_scope == sk.scope => run.extend(ks),
            _ if single => {
                let key = match layer_of(&sk.scope) {
                    Some(layer) => sk.scope.replacen(layer, LAYER, 1),
                    None => sk.scope.clone(),
                };
                runs.push(((key, *at), &sk.scope, ks));
            }
            _ => {}
        }
        open = single;
        last_scope = &sk.scope;
        *at += 1;
    }
    // The same piece in every layer is one exclusion in the layer's code.
    let mut pieces: BTreeMap<Piece, Vec<(&str, Vec<usize>)>> = BTreeMap::new();
    for (key, scope, run) in runs {
        pieces.entry(key).or_default().push((scope, run));
    }
    let mut out = Vec::new();
    for ((scope, _), places) in pieces {
        let mut with: Vec<Membership> = memberships.to_vec();
        for &i in places.iter().flat_map(|(_, run)| run) {
            with[i] = Membership {
                excluded: true,
                ..Membership::default()
            };
        }
        let after = shape(model, &predict::predict_for(model, &with, names), in_whole);
        if after.single >= before.single || after.fused < before.fused {
            continue;
        }
        let (first_scope, first) = &places[0];
        let (head, tail) = (
            kernel_name(model, first[0]),
            kernel_name(model, first[first.len() - 1]),
        );
        let names = match layer_of(first_scope) {
            Some(layer) if places.len() > 1 => {
                format!(" (the names are those of {first_scope}, layer {layer})")
            }
            _ => String::new(),
        };
        out.push(Remedy {
            first: head.clone(),
            last: tail.clone(),
            places: places.len(),
            why: format!(
                "in scope {scope} the pass builds {} SuperKernel(s) of one kernel here: they \
                 remove no boundary and pay an entry{names}",
                places.iter().map(|(_, run)| run.len()).sum::<usize>()
            ),
            code: format!(
                "torch.npu.super_kernel_scope_begin(None)  # before {head}\n\
                 torch.npu.super_kernel_scope_end(None)  # after {tail}"
            ),
            exclude: places
                .iter()
                .flat_map(|(_, run)| run)
                .map(|&i| OpId(i as u32))
                .collect(),
            before,
            after,
        });
    }
    out.sort_by_key(|r| std::cmp::Reverse(r.before.single - r.after.single));
    out
}
