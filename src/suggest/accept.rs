//! Accepting suggestions as scope edits. An exclusion that heals a whole-model scope keeps its
//! ops out of fusion (what an unnamed scope does). A template makes one scope in every layer it was
//! planned in — named as its code names them, `{name}_{layer}` — and a per-layer suggestion one
//! scope; accepting all that fit takes templates first, then per-layer suggestions, none that
//! overlaps one taken before it, none already fused as it is, none that adds nothing. A scope an
//! accept leaves without a SuperKernel (its fused ops taken, the rest unfusible) is cleared,
//! in the same step.

use super::Suggestions;
use crate::edit::Edit;
use crate::fusion::plan::{Plan, ScopePlan};
use crate::graph::OpId;
use std::collections::HashSet;

/// One suggestion to accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// An exclusion that heals a whole-model scope: its index in [`Suggestions::remedies`].
    Remedy(usize),
    /// A template: its index in [`Suggestions::templates`].
    Template(usize),
    /// A per-layer suggestion: its index in [`Suggestions::list`].
    Single(usize),
}

impl Suggestions {
    /// The ops each scope of `pick` takes: one set per layer for a template.
    pub fn units(&self, pick: Pick) -> Vec<&[OpId]> {
        match pick {
            Pick::Remedy(i) => self
                .remedies
                .get(i)
                .map_or(Vec::new(), |r| vec![r.exclude.as_slice()]),
            Pick::Template(i) => self
                .templates
                .get(i)
                .map_or(Vec::new(), |t| t.units.iter().map(Vec::as_slice).collect()),
            Pick::Single(i) => self
                .list
                .get(i)
                .map_or(Vec::new(), |s| vec![s.ops.as_slice()]),
        }
    }

    /// True when `pick` adds something over today's plan: time saved (with a profile) or
    /// boundaries fused, and not already fused as it is.
    pub fn adds(&self, pick: Pick) -> bool {
        // A saving the fit cannot vouch for ranks nothing: then boundaries fused count.
        let by_saving = self.ranked_by_boundaries.is_none();
        match pick {
            // Offered only when its prediction builds fewer SuperKernels of one kernel.
            Pick::Remedy(i) => i < self.remedies.len(),
            Pick::Template(i) => self.templates.get(i).is_some_and(|t| t.adds(by_saving)),
            Pick::Single(i) => self.list.get(i).is_some_and(|s| s.adds(by_saving)),
        }
    }

    /// What accepting all that fit takes, best first: the exclusions that heal a whole-model
    /// scope, the templates that add, then the per-layer suggestions that add, each skipped
    /// when it overlaps one taken before it; and how many were skipped.
    pub fn all_that_fit(&self) -> (Vec<Pick>, usize) {
        let candidates = (0..self.remedies.len())
            .map(Pick::Remedy)
            .chain((0..self.templates.len()).map(Pick::Template))
            .chain((0..self.list.len()).map(Pick::Single));
        let mut taken: HashSet<OpId> = HashSet::new();
        let (mut picks, mut skipped) = (Vec::new(), 0);
        for pick in candidates {
            let units = self.units(pick);
            if !self.adds(pick)
                || units
                    .iter()
                    .flat_map(|u| u.iter())
                    .any(|id| taken.contains(id))
            {
                skipped += 1;
                continue;
            }
            taken.extend(units.iter().flat_map(|u| u.iter().copied()));
            picks.push(pick);
        }
        (picks, skipped)
    }

    /// The edits that make `pick` scopes: new scopes whose names are not in `names` (the names
    /// given are added to it). A template's scopes share one name with each layer's index, so
    /// when one of them is taken, all take the next free number (`layer2_0`, `layer2_1`, …).
    pub fn edits(&self, pick: Pick, names: &mut HashSet<String>) -> Vec<Edit> {
        let (base, options, scopes): (&str, &str, Vec<(String, &[OpId])>) = match pick {
            Pick::Remedy(i) => {
                return self
                    .remedies
                    .get(i)
                    .map(|r| Edit::DoNotFuse {
                        ops: r.exclude.clone(),
                    })
                    .into_iter()
                    .collect();
            }
            Pick::Template(i) => {
                let Some(t) = self.templates.get(i) else {
                    return Vec::new();
                };
                (
                    &t.name,
                    &t.options,
                    t.layers
                        .iter()
                        .zip(&t.units)
                        .map(|(layer, ops)| (format!("_{layer}"), ops.as_slice()))
                        .collect(),
                )
            }
            Pick::Single(i) => {
                let Some(s) = self.list.get(i) else {
                    return Vec::new();
                };
                (&s.name, &s.options, vec![(String::new(), s.ops.as_slice())])
            }
        };
        let free = |stem: &str| {
            scopes
                .iter()
                .all(|(suffix, _)| !names.contains(&format!("{stem}{suffix}")))
        };
        let stem = std::iter::once(base.to_string())
            .chain((2..).map(|n| format!("{base}{n}")))
            .find(|stem| free(stem))
            .unwrap_or_else(|| base.to_string());
        scopes
            .into_iter()
            .map(|(suffix, ops)| {
                let scope = format!("{stem}{suffix}");
                names.insert(scope.clone());
                Edit::NewScope {
                    ops: ops.to_vec(),
                    scope,
                    options: options.to_string(),
                }
            })
            .collect()
    }
}

/// The scopes that had a SuperKernel in `before` and have none in `after` (their fused ops
/// taken by an accept, the rest left unfusible): what to clear.
pub fn emptied(before: &Plan, after: &Plan) -> Vec<String> {
    let fuses = |s: &&ScopePlan| s.segments.iter().any(|seg| seg.ops.len() >= 2);
    let fused_before: HashSet<&str> = before
        .scopes
        .iter()
        .filter(fuses)
        .map(|s| s.name.as_str())
        .collect();
    after
        .scopes
        .iter()
        .filter(|s| fused_before.contains(s.name.as_str()) && !fuses(s))
        .map(|s| s.name.clone())
        .collect()
}
