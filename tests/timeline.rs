//! A step of a profile pair laid out as a timeline, on hand-made kernels: two streams, a
//! segment's kernels (base) against its SuperKernel (new), a break op, gaps, the step chosen.

use skope::profile::planned::{PlannedBreak, PlannedFusion, PlannedOp, PlannedSegment};
use skope::profile::timeline::{Mark, timeline};
use skope::profile::{diff, load_pair};

fn op(name: &str) -> PlannedOp {
    PlannedOp {
        name: name.to_string(),
        op_type: Some("Add".to_string()),
        call: None,
    }
}

#[test]
fn a_segment_sits_above_its_superkernel_and_gaps_and_breaks_are_marked() {
    let dir = crate::common::scratch("timeline");
    let header = "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    // Two steps; in each, on stream 2: a, b (the segment), then the break op x after a 5 µs
    // gap; on stream 7: y, overlapping them.
    let step = |s: u32, t0: u32, new: bool| {
        let mut rows = String::new();
        if new {
            rows.push_str(&format!(
                "{s},2,sk_seg_start_a_end_b,SuperKernel,MIX_AIC,\"{t0}.000\t\",7.000\n"
            ));
        } else {
            rows.push_str(&format!(
                "{s},2,a,Add,AI_VECTOR_CORE,\"{t0}.000\t\",4.000\n"
            ));
            rows.push_str(&format!(
                "{s},2,b,Add,AI_VECTOR_CORE,\"{}.500\t\",4.000\n",
                t0 + 4
            ));
        }
        rows.push_str(&format!(
            "{s},2,x,Cast,AI_CPU,\"{}.000\t\",2.000\n",
            t0 + 14
        ));
        rows.push_str(&format!("{s},7,y,Mul,AI_CORE,\"{}.000\t\",6.000\n", t0 + 1));
        rows
    };
    let base = dir.join("base.csv");
    let new = dir.join("new.csv");
    std::fs::write(
        &base,
        format!("{header}{}{}", step(1, 100, false), step(2, 500, false)),
    )
    .expect("base");
    std::fs::write(
        &new,
        format!("{header}{}{}", step(1, 100, true), step(2, 500, true)),
    )
    .expect("new");
    let plan = PlannedFusion {
        source: "hand-made".to_string(),
        segments: vec![PlannedSegment {
            scope: "s".to_string(),
            segment: "seg".to_string(),
            fused_node: "sk_seg_start_a_end_b".to_string(),
            ops: vec![op("a"), op("b")],
            options: String::new(),
        }],
        breaks: vec![PlannedBreak {
            scope: "s".to_string(),
            op: op("x"),
            reason: "AI_CPU op".to_string(),
            unfused: vec![op("x")],
        }],
        inferred: false,
    };
    let pair = load_pair(&base, Some(&new), None).unwrap_or_else(|e| panic!("{e}"));
    let d = diff(&pair, Some(&plan));
    let steps = d.steps.as_ref().map(|s| (&s.base, &s.new));
    let t = timeline(&pair, steps, Some("2"), d.per_op.as_ref(), None).expect("a timeline");
    assert_eq!(t.sides.len(), 2);
    let (b, n) = (&t.sides[0], &t.sides[1]);
    assert_eq!((b.step.as_str(), n.step.as_str()), ("2", "2"));
    // Two lanes a side, by stream; times from the step's first kernel.
    assert_eq!(
        b.lanes
            .iter()
            .map(|l| l.stream.as_str())
            .collect::<Vec<_>>(),
        ["2", "7"]
    );
    let s2 = &b.lanes[0];
    assert_eq!(
        s2.blocks
            .iter()
            .map(|k| (&*k.name, k.start, k.end, k.mark))
            .collect::<Vec<_>>(),
        [
            ("a", 0, 4_000, Mark::Segment(0)),
            ("b", 4_500, 8_500, Mark::Segment(0)),
            ("x", 14_000, 16_000, Mark::Break),
        ]
    );
    assert_eq!(t.breaks.get("x").map(String::as_str), Some("AI_CPU op"));
    // The 5.5 µs gap before the break op, not the 0.5 µs one inside the segment.
    let gaps = s2.gaps(1_000, 0, 20_000);
    assert_eq!(gaps.len(), 1);
    assert_eq!((gaps[0].start, gaps[0].end), (8_500, 14_000));
    // The new side's SuperKernel is the segment's, 1.5 µs shorter than its kernels' span.
    let sk = &n.lanes[0].blocks[0];
    assert_eq!(
        (sk.mark, sk.end - sk.start),
        (Mark::SuperKernel(Some(0)), 7_000)
    );
    let spans: Vec<(usize, i64, i64)> = t.spans.iter().map(|s| (s.side, s.start, s.end)).collect();
    assert_eq!(spans, [(0, 0, 8_500), (1, 0, 7_000)]);
    assert_eq!(t.segments, ["seg"]);
    // Without a step asked for, the median step (of two, the second by kernel time order).
    let t = timeline(&pair, steps, None, d.per_op.as_ref(), None).expect("a timeline");
    assert!(["1", "2"].contains(&t.sides[0].step.as_str()));
}
