//! Where each op stands in a [`Plan`]: the segment it is fused into, the break it causes, the
//! findings that name it. Built once per plan in one pass, so a front end can answer "what is
//! this op" for any row of a 100k-op list without searching the plan.

use super::plan::{Break, Plan, Segment};
use crate::graph::{Graph, OpId};

/// A segment of the plan: scope `scope`, segment `index` within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SegmentRef {
    /// Index of the scope in [`Plan::scopes`].
    pub scope: u32,
    /// Index of the segment in that scope's segments.
    pub index: u32,
}

/// A break of the plan: scope `scope`, break `index` within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BreakRef {
    /// Index of the scope in [`Plan::scopes`].
    pub scope: u32,
    /// Index of the break in that scope's breaks.
    pub index: u32,
}

const NONE: u32 = u32::MAX;

/// Per-op facts, compact: a 100k-op graph costs 1.2 MB.
#[derive(Debug, Clone, Copy)]
struct Place {
    /// Ordinal of the op's segment in [`PlanIndex::segments`], or `NONE`.
    segment: u32,
    /// First entry of the op in [`PlanIndex::breaks`], or `NONE`.
    first_break: u32,
    /// Number of findings naming the op.
    findings: u32,
}

/// Lookup tables from ops to the parts of a plan that concern them.
#[derive(Debug, Clone)]
pub struct PlanIndex {
    places: Vec<Place>,
    /// Every segment, ordered by the execution position of its first op.
    segments: Vec<SegmentRef>,
    /// Every break, ordered by the execution position of its op (an op that breaks several
    /// scopes has consecutive entries).
    breaks: Vec<(OpId, BreakRef)>,
}

impl PlanIndex {
    /// Indexes `plan`, made for `graph`.
    pub fn new(graph: &Graph, plan: &Plan) -> PlanIndex {
        let none = Place {
            segment: NONE,
            first_break: NONE,
            findings: 0,
        };
        let mut places = vec![none; graph.len()];
        let first_position = |seg: &Segment| seg.ops.first().map(|&id| graph.exec_position(id));
        let mut segments: Vec<SegmentRef> = plan
            .scopes
            .iter()
            .enumerate()
            .flat_map(|(s, scope)| {
                (0..scope.segments.len()).map(move |k| SegmentRef {
                    scope: s as u32,
                    index: k as u32,
                })
            })
            .collect();
        segments.sort_by_key(|r| first_position(segment_at(plan, *r)));
        for (ordinal, r) in segments.iter().enumerate() {
            for &id in &segment_at(plan, *r).ops {
                places[id.index()].segment = ordinal as u32;
            }
        }
        let mut breaks: Vec<(OpId, BreakRef)> = plan
            .scopes
            .iter()
            .enumerate()
            .flat_map(|(s, scope)| {
                scope.breaks.iter().enumerate().map(move |(k, b)| {
                    (
                        b.op,
                        BreakRef {
                            scope: s as u32,
                            index: k as u32,
                        },
                    )
                })
            })
            .collect();
        breaks.sort_by_key(|(id, r)| (graph.exec_position(*id), r.scope));
        for (i, (id, _)) in breaks.iter().enumerate().rev() {
            places[id.index()].first_break = i as u32;
        }
        for id in plan.all_findings().filter_map(|f| f.op) {
            places[id.index()].findings += 1;
        }
        PlanIndex {
            places,
            segments,
            breaks,
        }
    }

    /// Every segment, in execution order of its first op. The position in this list (the
    /// segment's ordinal) tells neighbouring segments apart.
    pub fn segments(&self) -> &[SegmentRef] {
        &self.segments
    }

    /// The ordinal (in [`PlanIndex::segments`]) of the segment op `id` is fused into.
    pub fn segment_ordinal(&self, id: OpId) -> Option<usize> {
        some(self.places[id.index()].segment)
    }

    /// The segment op `id` is fused into.
    pub fn segment_of(&self, id: OpId) -> Option<SegmentRef> {
        self.segment_ordinal(id).map(|o| self.segments[o])
    }

    /// The breaks op `id` causes (several when it lies inside several scopes' ranges).
    pub fn breaks_of(&self, id: OpId) -> impl Iterator<Item = BreakRef> + '_ {
        let start = some(self.places[id.index()].first_break).unwrap_or(self.breaks.len());
        self.breaks[start..]
            .iter()
            .take_while(move |(op, _)| *op == id)
            .map(|(_, r)| *r)
    }

    /// True when op `id` breaks a scope.
    pub fn is_break(&self, id: OpId) -> bool {
        self.places[id.index()].first_break != NONE
    }

    /// Number of findings (warnings or errors) that name op `id`.
    pub fn finding_count(&self, id: OpId) -> usize {
        self.places[id.index()].findings as usize
    }
}

fn some(v: u32) -> Option<usize> {
    (v != NONE).then_some(v as usize)
}

/// The segment `r` refers to.
pub fn segment_at(plan: &Plan, r: SegmentRef) -> &Segment {
    &plan.scopes[r.scope as usize].segments[r.index as usize]
}

/// The break `r` refers to.
pub fn break_at(plan: &Plan, r: BreakRef) -> &Break {
    &plan.scopes[r.scope as usize].breaks[r.index as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::marks::Marks;
    use crate::fusion::plan::{Context, plan};
    use crate::fusion::rules::RuleSet;
    use crate::fusion::testing::{graph, op};

    /// a0 a1 [Cast] a2 · b0 x b1 — scope a split by a TBE Cast, scope b split by unscoped x.
    fn example() -> Graph {
        graph(vec![
            op("a0", 0, 0, Some("a")),
            op("a1", 1, 0, Some("a")),
            op("cast", 2, 0, Some("a")).ty("Cast").unsupported(),
            op("a2", 3, 0, Some("a")),
            op("b0", 4, 0, Some("b")),
            op("x", 5, 0, None),
            op("b1", 6, 0, Some("b")),
        ])
    }

    #[test]
    fn every_op_finds_its_segment_and_break() {
        let g = example();
        let cx = Context::new(g.clone(), &RuleSet::bundled());
        let p = plan(&cx, &Marks::from_graph(&g));
        let ix = PlanIndex::new(&g, &p);
        let id = |n: &str| g.find(n).unwrap();
        // Segments in execution order: a's two halves, then b's two halves.
        let names: Vec<&str> = ix
            .segments()
            .iter()
            .map(|r| segment_at(&p, *r).name.as_str())
            .collect();
        assert_eq!(
            names,
            ["a_split_-1_2", "a_split_2_4", "b_split_3_5", "b_split_5_7"]
        );
        assert_eq!(ix.segment_ordinal(id("a1")), Some(0));
        assert_eq!(ix.segment_ordinal(id("a2")), Some(1));
        assert_eq!(ix.segment_ordinal(id("b1")), Some(3));
        assert_eq!(ix.segment_of(id("cast")), None);
        assert!(ix.is_break(id("cast")) && ix.is_break(id("x")));
        assert!(!ix.is_break(id("a0")));
        let cast_breaks: Vec<BreakRef> = ix.breaks_of(id("cast")).collect();
        assert_eq!(cast_breaks, [BreakRef { scope: 0, index: 0 }]);
        assert_eq!(break_at(&p, cast_breaks[0]).op, id("cast"));
        let x_breaks: Vec<BreakRef> = ix.breaks_of(id("x")).collect();
        assert_eq!(x_breaks, [BreakRef { scope: 1, index: 0 }]);
        assert_eq!(ix.breaks_of(id("a0")).count(), 0);
    }

    #[test]
    fn an_op_between_two_interleaved_scopes_breaks_both() {
        // a0 b0 u a1 b1: u (unscoped) lies inside both ranges; b0 cuts a, a1 cuts b.
        let g = graph(vec![
            op("a0", 0, 0, Some("a")),
            op("b0", 1, 0, Some("b")),
            op("u", 2, 0, None),
            op("a1", 3, 0, Some("a")),
            op("b1", 4, 0, Some("b")),
        ]);
        let cx = Context::new(g.clone(), &RuleSet::bundled());
        let p = plan(&cx, &Marks::from_graph(&g));
        let ix = PlanIndex::new(&g, &p);
        let u = g.find("u").unwrap();
        let scopes: Vec<u32> = ix.breaks_of(u).map(|r| r.scope).collect();
        assert_eq!(scopes, [0, 1]);
        // b0 is fused into b's first segment and also breaks a.
        let b0 = g.find("b0").unwrap();
        assert!(ix.is_break(b0));
        assert!(ix.segment_of(b0).is_some());
    }
}
