//! Two plans compared in the terms that matter for fusion: which scopes, segments and breaks
//! were added, removed or changed between graph A and graph B (two dumps, or one dump under two
//! plan files). Ops are matched by name; an op of A and one of B that match nothing, have the
//! same type and the same matched neighbours are taken as one op renamed. A segment is known by
//! its ops: one of B holding all of an A segment's ops and more grew, one holding fewer shrank.

use crate::fusion::marks::Marks;
use crate::fusion::plan::Plan;
use crate::graph::{Graph, OpId};
use crate::workspace::Workspace;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What became of one thing between A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// In both, different: how.
    Changed(String),
}

impl Change {
    /// The change as a sign: `+`, `−`, `~`.
    pub fn sign(&self) -> &'static str {
        match self {
            Change::Added => "+",
            Change::Removed => "−",
            Change::Changed(_) => "~",
        }
    }
}

/// A scope's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopeChange {
    /// The scope.
    pub scope: String,
    /// What became of it.
    pub change: Change,
}

/// A segment's change, named as the side it is on names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentChange {
    /// Its scope.
    pub scope: String,
    /// Its name in A (removed, changed) or B (added).
    pub segment: String,
    /// Its ops (in A's names), A's for a removed one, B's otherwise.
    pub ops: usize,
    /// What became of it.
    pub change: Change,
}

/// A break's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BreakChange {
    /// The scope it breaks.
    pub scope: String,
    /// The op (its name in A when it has one).
    pub op: String,
    /// Its reason on the side it is on (B's when changed).
    pub reason: String,
    /// What became of it.
    pub change: Change,
}

/// The fusion diff of A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FusionDiff {
    /// What A is.
    pub a: String,
    /// What B is.
    pub b: String,
    /// Ops matched by name.
    pub matched: usize,
    /// Ops of A and of B taken as one op renamed: (A's name, B's name).
    pub renamed: Vec<(String, String)>,
    /// Ops only in A, only in B (not counting the renamed).
    pub only_a: usize,
    /// Ops only in B.
    pub only_b: usize,
    /// Scopes added, removed or changed.
    pub scopes: Vec<ScopeChange>,
    /// Segments added, removed, grown or shrunk.
    pub segments: Vec<SegmentChange>,
    /// Breaks added, removed or with another reason.
    pub breaks: Vec<BreakChange>,
}

impl FusionDiff {
    /// True when A and B fuse the same.
    pub fn is_empty(&self) -> bool {
        self.scopes.is_empty() && self.segments.is_empty() && self.breaks.is_empty()
    }
}

/// One side of a diff: a graph, its marks and the plan they make.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    /// The graph.
    pub graph: &'a Graph,
    /// Its marks (for the breaks' reasons in words).
    pub marks: &'a Marks,
    /// Its plan.
    pub plan: &'a Plan,
}

impl<'a> Side<'a> {
    /// The workspace's graph and current plan.
    pub fn of(ws: &'a Workspace) -> Side<'a> {
        Side {
            graph: ws.graph(),
            marks: ws.marks(),
            plan: ws.plan(),
        }
    }
}

/// The op names of one side, each a neighbour list by name.
fn neighbours(graph: &Graph) -> Vec<Vec<OpId>> {
    let mut out: Vec<Vec<OpId>> = vec![Vec::new(); graph.len()];
    for (i, _) in graph.ops().iter().enumerate() {
        let id = OpId(i as u32);
        for (to, _) in graph.successors(id) {
            out[i].push(to);
            out[to.index()].push(id);
        }
    }
    out
}

/// The name each op of B has in A: its own when A has it, A's when it was renamed.
fn match_ops(a: &Graph, b: &Graph) -> (HashMap<OpId, String>, Vec<(String, String)>) {
    let mut in_a: HashMap<OpId, String> = HashMap::new();
    for (i, op) in b.ops().iter().enumerate() {
        if a.find(&op.name).is_some() {
            in_a.insert(OpId(i as u32), op.name.clone());
        }
    }
    let b_names: HashSet<&str> = b.ops().iter().map(|o| o.name.as_str()).collect();
    let (na, nb) = (neighbours(a), neighbours(b));
    // An unmatched op by its type and its matched neighbours' names.
    let key_a = |id: OpId| -> Option<(String, BTreeSet<String>)> {
        let set: BTreeSet<String> = na[id.index()]
            .iter()
            .map(|n| a.op(*n).name.clone())
            .filter(|n| b_names.contains(n.as_str()))
            .collect();
        (!set.is_empty()).then(|| (a.op(id).op_type.clone(), set))
    };
    let mut unmatched_a: HashMap<(String, BTreeSet<String>), Vec<OpId>> = HashMap::new();
    for (i, op) in a.ops().iter().enumerate() {
        if !b_names.contains(op.name.as_str())
            && let Some(k) = key_a(OpId(i as u32))
        {
            unmatched_a.entry(k).or_default().push(OpId(i as u32));
        }
    }
    let mut renamed = Vec::new();
    for (i, op) in b.ops().iter().enumerate() {
        let id = OpId(i as u32);
        if in_a.contains_key(&id) {
            continue;
        }
        let set: BTreeSet<String> = nb[i].iter().filter_map(|n| in_a.get(n).cloned()).collect();
        if set.is_empty() {
            continue;
        }
        // Only a one-to-one candidate counts: two alike would be a guess.
        if let Some(list) = unmatched_a.get_mut(&(op.op_type.clone(), set))
            && list.len() == 1
        {
            let a_id = list.remove(0);
            let a_name = a.op(a_id).name.clone();
            renamed.push((a_name.clone(), op.name.clone()));
            in_a.insert(id, a_name);
        }
    }
    (in_a, renamed)
}

/// Each segment of `plan` as (scope, segment, its ops under `name`).
fn segment_sets<'p>(
    plan: &'p crate::fusion::plan::Plan,
    name: &dyn Fn(OpId) -> String,
) -> Vec<(&'p str, &'p str, BTreeSet<String>)> {
    plan.scopes
        .iter()
        .flat_map(|s| s.segments.iter().map(move |g| (s, g)))
        .map(|(s, g)| {
            let ops = g.ops.iter().map(|o| name(*o)).collect();
            (s.name.as_str(), g.name.as_str(), ops)
        })
        .collect()
}

/// A cutting break: (its scope, its op under a side's naming), its reason in words, its op.
type BreakAt = ((String, String), String, OpId);

/// Every cutting break of `side`, its op named by `name`, in plan order.
fn break_list(side: Side, name: &dyn Fn(OpId) -> String) -> Vec<BreakAt> {
    side.plan
        .scopes
        .iter()
        .flat_map(|s| s.breaks.iter().filter(|b| b.cuts).map(move |b| (s, b)))
        .map(|(s, b)| {
            let reason = crate::fusion::plan::describe_reason(side.marks, b.reason);
            ((s.name.clone(), name(b.op)), reason, b.op)
        })
        .collect()
}

/// A's breaks by (scope, op).
fn break_map(a: Side, name: &dyn Fn(OpId) -> String) -> HashMap<(String, String), String> {
    break_list(a, name)
        .into_iter()
        .map(|(key, reason, _)| (key, reason))
        .collect()
}

/// How a scope's members differ between `a` (named in A) and `b` (named in B, in A's names):
/// the counts, and the ops that came and went, the first few named; `None` when the same ops.
fn membership(
    a: &[OpId],
    b: &[OpId],
    name_a: &impl Fn(OpId) -> String,
    name_b: &impl Fn(OpId) -> String,
) -> Option<String> {
    let (na, nb): (Vec<String>, Vec<String>) = (
        a.iter().map(|&id| name_a(id)).collect(),
        b.iter().map(|&id| name_b(id)).collect(),
    );
    let (sa, sb): (HashSet<&String>, HashSet<&String>) = (na.iter().collect(), nb.iter().collect());
    let came: Vec<&str> = nb
        .iter()
        .filter(|n| !sa.contains(n))
        .map(|n| n.trim_start_matches('+'))
        .collect();
    let went: Vec<&str> = na
        .iter()
        .filter(|n| !sb.contains(n))
        .map(String::as_str)
        .collect();
    if came.is_empty() && went.is_empty() {
        return None;
    }
    let few = |ops: &[&str]| {
        let mut s = ops[..ops.len().min(3)].join(", ");
        if ops.len() > 3 {
            s.push_str(", …");
        }
        s
    };
    let mut words = format!("{} → {} ops", a.len(), b.len());
    if !came.is_empty() {
        words.push_str(&format!("; in: {}", few(&came)));
    }
    if !went.is_empty() {
        words.push_str(&format!("; out: {}", few(&went)));
    }
    Some(words)
}

/// The fusion diff of `a` and `b`, named `a_name` and `b_name`.
pub fn diff(a: Side, a_name: &str, b: Side, b_name: &str) -> FusionDiff {
    let (ga, gb) = (a.graph, b.graph);
    let (in_a, renamed) = match_ops(ga, gb);
    let name_a = |id: OpId| ga.op(id).name.clone();
    // B's op under its name in A (or `+name` for one only in B, so it matches nothing).
    let name_b = |id: OpId| {
        in_a.get(&id)
            .cloned()
            .unwrap_or_else(|| format!("+{}", gb.op(id).name))
    };
    let mut scopes = Vec::new();
    let (pa, pb) = (a.plan, b.plan);
    let b_scopes: HashMap<&str, &crate::fusion::plan::ScopePlan> =
        pb.scopes.iter().map(|s| (s.name.as_str(), s)).collect();
    let a_scopes: HashMap<&str, &crate::fusion::plan::ScopePlan> =
        pa.scopes.iter().map(|s| (s.name.as_str(), s)).collect();
    for s in &pa.scopes {
        match b_scopes.get(s.name.as_str()) {
            None => scopes.push(ScopeChange {
                scope: s.name.clone(),
                change: Change::Removed,
            }),
            Some(t) => {
                let mut how = Vec::new();
                if s.status.name() != t.status.name() {
                    how.push(format!("{} → {}", s.status.name(), t.status.name()));
                }
                if s.options != t.options {
                    let shown = |o: &str| {
                        if o.is_empty() {
                            "none".to_string()
                        } else {
                            format!("\"{o}\"")
                        }
                    };
                    how.push(format!(
                        "options {} → {}",
                        shown(&s.options),
                        shown(&t.options)
                    ));
                }
                if let Some(moved) = membership(&s.members, &t.members, &name_a, &name_b) {
                    how.push(moved);
                }
                if s.segments.len() != t.segments.len() {
                    how.push(format!(
                        "{} → {} segments",
                        s.segments.len(),
                        t.segments.len()
                    ));
                }
                if !how.is_empty() {
                    scopes.push(ScopeChange {
                        scope: s.name.clone(),
                        change: Change::Changed(how.join(", ")),
                    });
                }
            }
        }
    }
    for s in &pb.scopes {
        if !a_scopes.contains_key(s.name.as_str()) {
            scopes.push(ScopeChange {
                scope: s.name.clone(),
                change: Change::Added,
            });
        }
    }
    // Segments by their op sets (in A's names).
    let a_segs = segment_sets(pa, &name_a);
    let b_segs = segment_sets(pb, &name_b);
    let mut segments = Vec::new();
    for (scope, name, ops) in &a_segs {
        if b_segs.iter().any(|(_, _, o)| o == ops) {
            continue;
        }
        let overlapping: Vec<&(&str, &str, BTreeSet<String>)> = b_segs
            .iter()
            .filter(|(_, _, o)| !o.is_disjoint(ops))
            .collect();
        let change = match overlapping.as_slice() {
            [] => Change::Removed,
            [one] if one.2.is_superset(ops) => Change::Changed(format!(
                "grew from {} to {} ops as {}",
                ops.len(),
                one.2.len(),
                one.1
            )),
            many => Change::Changed(format!(
                "split into {}",
                many.iter()
                    .map(|(_, n, o)| format!("{n} ({} ops)", o.len()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
        segments.push(SegmentChange {
            scope: scope.to_string(),
            segment: name.to_string(),
            ops: ops.len(),
            change,
        });
    }
    for (scope, name, ops) in &b_segs {
        if a_segs.iter().all(|(_, _, o)| o.is_disjoint(ops)) {
            segments.push(SegmentChange {
                scope: scope.to_string(),
                segment: name.to_string(),
                ops: ops.len(),
                change: Change::Added,
            });
        }
    }
    // Breaks by (scope, op).
    let a_breaks = break_map(a, &name_a);
    let mut breaks = Vec::new();
    let mut seen = HashSet::new();
    for (key, reason, _) in break_list(b, &name_b) {
        match a_breaks.get(&key) {
            None => breaks.push(BreakChange {
                scope: key.0.clone(),
                op: key.1.trim_start_matches('+').to_string(),
                reason,
                change: Change::Added,
            }),
            Some(before) if *before != reason => breaks.push(BreakChange {
                scope: key.0.clone(),
                op: key.1.clone(),
                reason: reason.clone(),
                change: Change::Changed(format!("was: {before}")),
            }),
            Some(_) => {}
        }
        seen.insert(key);
    }
    let mut removed: Vec<BreakChange> = a_breaks
        .into_iter()
        .filter(|(k, _)| !seen.contains(k))
        .map(|((scope, op), reason)| BreakChange {
            scope,
            op,
            reason,
            change: Change::Removed,
        })
        .collect();
    removed.sort_by(|x, y| (&x.scope, &x.op).cmp(&(&y.scope, &y.op)));
    breaks.extend(removed);
    let matched = in_a.len() - renamed.len();
    FusionDiff {
        a: a_name.to_string(),
        b: b_name.to_string(),
        matched,
        only_a: ga.len() - in_a.len(),
        only_b: gb.len() - in_a.len(),
        renamed,
        scopes,
        segments,
        breaks,
    }
}

/// What the diff says of one op of B, the most telling first: a break at it added, with
/// another reason, or healed; it left fusion; its segment changed (added, grown, split); it
/// was renamed; it is new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpDiff {
    /// A break at it that A does not have.
    BreakAdded,
    /// A break at it whose reason changed.
    BreakChanged,
    /// A's break at it is gone.
    BreakHealed,
    /// It was in a segment in A and is in none now.
    Unfused,
    /// Its segment is not one of A's.
    SegmentChanged,
    /// A has it under another name.
    Renamed,
    /// A does not have it.
    New,
}

impl OpDiff {
    /// Its glyph in the op list.
    pub fn glyph(self) -> &'static str {
        match self {
            OpDiff::BreakAdded => "+",
            OpDiff::BreakChanged => "~",
            OpDiff::BreakHealed => "−",
            OpDiff::Unfused => "◦",
            OpDiff::SegmentChanged => "*",
            OpDiff::Renamed => "r",
            OpDiff::New => "n",
        }
    }

    /// It in words.
    pub fn words(self) -> &'static str {
        match self {
            OpDiff::BreakAdded => "a break added here",
            OpDiff::BreakChanged => "the break here has another reason",
            OpDiff::BreakHealed => "the break here is healed",
            OpDiff::Unfused => "fused there, not here",
            OpDiff::SegmentChanged => "its segment changed",
            OpDiff::Renamed => "renamed",
            OpDiff::New => "not in the other graph",
        }
    }
}

/// What the diff of `a` and `b` says of each op of B (by its index), for marking the ops that
/// differ.
pub fn op_diffs(a: Side, b: Side) -> Vec<Option<OpDiff>> {
    let (ga, gb) = (a.graph, b.graph);
    let (in_a, renamed) = match_ops(ga, gb);
    let mut out: Vec<Option<OpDiff>> = vec![None; gb.len()];
    let mut mark = |id: OpId, d: OpDiff| {
        let slot = &mut out[id.index()];
        *slot = Some(slot.map_or(d, |had| had.min(d)));
    };
    let renamed_b: HashSet<&str> = renamed.iter().map(|(_, n)| n.as_str()).collect();
    let mut b_of_a: HashMap<&str, OpId> = HashMap::new();
    for i in 0..gb.len() {
        let id = OpId(i as u32);
        match in_a.get(&id) {
            Some(name) => {
                b_of_a.insert(name.as_str(), id);
                if renamed_b.contains(gb.op(id).name.as_str()) {
                    mark(id, OpDiff::Renamed);
                }
            }
            None => mark(id, OpDiff::New),
        }
    }
    let name_a = |id: OpId| ga.op(id).name.clone();
    let name_b = |id: OpId| {
        in_a.get(&id)
            .cloned()
            .unwrap_or_else(|| format!("+{}", gb.op(id).name))
    };
    let a_sets: HashSet<BTreeSet<String>> = segment_sets(a.plan, &name_a)
        .into_iter()
        .map(|(_, _, ops)| ops)
        .collect();
    let mut fused_b: HashSet<OpId> = HashSet::new();
    for seg in b.plan.scopes.iter().flat_map(|s| &s.segments) {
        fused_b.extend(seg.ops.iter().copied());
        let set: BTreeSet<String> = seg.ops.iter().map(|o| name_b(*o)).collect();
        if !a_sets.contains(&set) {
            for op in &seg.ops {
                mark(*op, OpDiff::SegmentChanged);
            }
        }
    }
    for name in a_sets.iter().flatten() {
        if let Some(&id) = b_of_a.get(name.as_str())
            && !fused_b.contains(&id)
        {
            mark(id, OpDiff::Unfused);
        }
    }
    let a_breaks = break_map(a, &name_a);
    let mut seen = HashSet::new();
    for (key, reason, op) in break_list(b, &name_b) {
        match a_breaks.get(&key) {
            None => mark(op, OpDiff::BreakAdded),
            Some(before) if *before != reason => mark(op, OpDiff::BreakChanged),
            Some(_) => {}
        }
        seen.insert(key);
    }
    for (key, _) in a_breaks.iter().filter(|(k, _)| !seen.contains(*k)) {
        if let Some(&id) = b_of_a.get(key.1.as_str()) {
            mark(id, OpDiff::BreakHealed);
        }
    }
    out
}

/// The diff as text for a terminal (names sanitised).
pub fn to_text(d: &FusionDiff) -> String {
    let c = |s: &str| crate::text::sanitize(s).into_owned();
    let mut out = format!(
        "fusion diff  A {}  →  B {}\nops: {} matched by name, {} renamed, {} only in A, {} only in B\n",
        c(&d.a),
        c(&d.b),
        d.matched,
        d.renamed.len(),
        d.only_a,
        d.only_b
    );
    for (a, b) in &d.renamed {
        out.push_str(&format!("  renamed  {} → {}\n", c(a), c(b)));
    }
    if d.is_empty() {
        out.push_str("same fusion: no scope, segment or break differs\n");
        return out;
    }
    let how = |ch: &Change| match ch {
        Change::Changed(h) => format!(": {}", c(h)),
        _ => String::new(),
    };
    let mut section = |title: &str, rows: Vec<(&Change, String)>| {
        out.push_str(&format!("{title} ({}):\n", rows.len()));
        for (change, what) in rows {
            out.push_str(&format!("  {} {what}{}\n", change.sign(), how(change)));
        }
    };
    section(
        "scopes",
        d.scopes.iter().map(|s| (&s.change, c(&s.scope))).collect(),
    );
    section(
        "segments",
        d.segments
            .iter()
            .map(|s| {
                let what = format!("{} ({}, {} ops)", c(&s.segment), c(&s.scope), s.ops);
                (&s.change, what)
            })
            .collect(),
    );
    section(
        "breaks",
        d.breaks
            .iter()
            .map(|b| {
                let what = format!("{} breaks {}: {}", c(&b.op), c(&b.scope), c(&b.reason));
                (&b.change, what)
            })
            .collect(),
    );
    out.push_str("+ in B only · − in A only · ~ in both, changed\n");
    out
}
