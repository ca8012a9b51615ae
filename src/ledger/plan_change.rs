//! What changed from one run's plan to the next, in words: scopes added and removed, options
//! set, changed and unset (key by key), ops moved in or out of a scope, ops kept out of fusion
//! or let back in. The ledger shows it beside each run so that a row's time can be read
//! against the edit that made it.

use crate::planfile::{PlanFile, ScopeEntry};
use std::collections::{BTreeMap, BTreeSet};

/// The most changes named for one run; the rest are counted.
const SHOWN: usize = 4;

/// The options string as key → value (`k1=v1:k2=v2`; a key without `=` has an empty value).
fn options(text: &str) -> BTreeMap<&str, &str> {
    text.split(':')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| part.split_once('=').unwrap_or((part, "")))
        .collect()
}

/// The option changes of one scope, as `key a → b`, `key=v set`, `key unset`.
fn option_changes(before: &str, after: &str) -> Vec<String> {
    let (a, b) = (options(before), options(after));
    let keys: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    keys.into_iter()
        .filter_map(|key| match (a.get(key), b.get(key)) {
            (Some(x), Some(y)) if x == y => None,
            (Some(x), Some(y)) => Some(format!("{key} {x} → {y}")),
            (None, Some(y)) => Some(format!("{key}={y} set")),
            (Some(_), None) => Some(format!("{key} unset")),
            (None, None) => None,
        })
        .collect()
}

/// One scope's changes: options, then ops in and out, then ops whose own options changed.
fn scope_changes(before: &ScopeEntry, after: &ScopeEntry, out: &mut Vec<String>) {
    let name = &after.name;
    let options = option_changes(&before.options, &after.options);
    if !options.is_empty() {
        out.push(format!("{name}: {}", options.join(", ")));
    }
    let (a, b): (BTreeSet<&String>, BTreeSet<&String>) =
        (before.ops.iter().collect(), after.ops.iter().collect());
    let (gained, lost) = (b.difference(&a).count(), a.difference(&b).count());
    if gained + lost > 0 {
        let mut parts = Vec::new();
        if gained > 0 {
            parts.push(format!("+{gained} op(s)"));
        }
        if lost > 0 {
            parts.push(format!("−{lost} op(s)"));
        }
        out.push(format!("{name}: {}", parts.join(", ")));
    }
    if before.op_options != after.op_options {
        let changed = before
            .op_options
            .keys()
            .chain(after.op_options.keys())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|op| before.op_options.get(*op) != after.op_options.get(*op))
            .count();
        out.push(format!("{name}: options of {changed} op(s) changed"));
    }
}

/// Every change from `before` to `after`, in the order a reader checks them: scopes removed,
/// added, changed; then ops kept out of fusion.
pub fn changes(before: &PlanFile, after: &PlanFile) -> Vec<String> {
    let by_name = |p: &PlanFile| -> BTreeMap<String, ScopeEntry> {
        p.scopes
            .iter()
            .map(|s| (s.name.clone(), s.clone()))
            .collect()
    };
    let (a, b) = (by_name(before), by_name(after));
    let mut out = Vec::new();
    for name in a.keys().filter(|n| !b.contains_key(*n)) {
        out.push(format!("scope {name} removed"));
    }
    for (name, scope) in b.iter().filter(|(n, _)| !a.contains_key(*n)) {
        let options = if scope.options.is_empty() {
            String::new()
        } else {
            format!(", options {}", scope.options)
        };
        out.push(format!(
            "scope {name} added ({} op(s){options})",
            scope.ops.len()
        ));
    }
    for (name, scope) in &b {
        if let Some(old) = a.get(name) {
            scope_changes(old, scope, &mut out);
        }
    }
    let (kept_a, kept_b): (BTreeSet<&String>, BTreeSet<&String>) = (
        before.do_not_fuse.iter().collect(),
        after.do_not_fuse.iter().collect(),
    );
    let (out_now, back) = (
        kept_b.difference(&kept_a).count(),
        kept_a.difference(&kept_b).count(),
    );
    if out_now > 0 {
        out.push(format!("{out_now} op(s) kept out of fusion"));
    }
    if back > 0 {
        out.push(format!("{back} op(s) let back into fusion"));
    }
    out
}

/// The changes in one line: at most [`SHOWN`] named, the rest counted; `same plan` when none.
pub fn summary(changes: &[String]) -> String {
    if changes.is_empty() {
        return "same plan".to_string();
    }
    let mut text = changes
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if changes.len() > SHOWN {
        text.push_str(&format!("; {} more", changes.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planfile::{GraphId, VERSION};

    fn scope(name: &str, options: &str, ops: &[&str]) -> ScopeEntry {
        ScopeEntry {
            name: name.to_string(),
            options: options.to_string(),
            ops: ops.iter().map(|s| s.to_string()).collect(),
            op_options: BTreeMap::new(),
        }
    }

    fn plan(scopes: Vec<ScopeEntry>, kept: &[&str]) -> PlanFile {
        PlanFile {
            skope_plan: VERSION,
            graph: GraphId {
                name: "g".to_string(),
                ops: 0,
                fingerprint: String::new(),
            },
            scopes,
            do_not_fuse: kept.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn names_each_option_scope_and_op_change() {
        let before = plan(
            vec![
                scope("attn", "stream-fusion=1:feed-sync-all=0", &["a", "b"]),
                scope("old", "", &["x"]),
            ],
            &[],
        );
        let after = plan(
            vec![
                scope("attn", "stream-fusion=0:debug-sync-all=1", &["a", "b", "c"]),
                scope("moe", "stream-fusion=1", &["m", "n"]),
            ],
            &["z"],
        );
        assert_eq!(
            changes(&before, &after),
            [
                "scope old removed",
                "scope moe added (2 op(s), options stream-fusion=1)",
                "attn: debug-sync-all=1 set, feed-sync-all unset, stream-fusion 1 → 0",
                "attn: +1 op(s)",
                "1 op(s) kept out of fusion",
            ]
        );
        assert_eq!(summary(&changes(&after, &after)), "same plan");
    }

    #[test]
    fn a_long_list_is_cut_with_a_count() {
        let many: Vec<String> = (0..7).map(|i| format!("c{i}")).collect();
        assert_eq!(summary(&many), "c0; c1; c2; c3; 3 more");
    }
}
