//! The account of the time against generated truths: on every kind of pair — one stream or
//! sub-ops overlapping on two, kernels hidden under a segment and communication exposed after
//! it, a slow step, a segment that did not fuse, no SuperKernel at all, several ranks — the
//! waterfall's parts add up to the step time to the nanosecond, and the step time is the mean
//! of the kept steps' spans computed apart.

use crate::common::profile_pair::{Seg, Sk, Workload, write, write_ranks};
use skope::profile::account::{Account, Measure, PartKind};
use skope::profile::{Diff, diff, load_pair};

fn workload(segments: Vec<Seg>) -> Workload {
    Workload {
        steps: 6,
        segments,
        jitter_pct: 1.0,
        slow_step: None,
        side_kernels: false,
    }
}

fn judged(w: &Workload, tag: &str) -> Diff {
    let dir = crate::common::scratch(tag);
    let (root, plan) = write(w, &dir);
    let pair = load_pair(&root, None, None).unwrap_or_else(|e| panic!("{e}"));
    diff(&pair, Some(&plan))
}

/// The waterfall's columns add up to each side's mean, its deltas to the difference.
fn adds_up(a: &Account) {
    let sum =
        |f: fn(&skope::profile::account::Part) -> i64| -> i64 { a.waterfall.iter().map(f).sum() };
    assert_eq!(sum(|p| p.base_ns), a.base.mean_ns, "{a:#?}");
    assert_eq!(sum(|p| p.new_ns), a.new.mean_ns, "{a:#?}");
    assert_eq!(sum(|p| p.delta_ns), a.delta_ns(), "{a:#?}");
    assert!(
        a.waterfall
            .iter()
            .all(|p| p.delta_ns == p.new_ns - p.base_ns)
    );
}

/// The step time is the mean of the kept steps' spans, as the per-step list gives them.
fn is_the_mean_span(d: &Diff) {
    let steps = d.steps.as_ref().expect("steps");
    for (list, side) in [(&steps.base, &d.account.base), (&steps.new, &d.account.new)] {
        let kept: Vec<f64> = list
            .list
            .iter()
            .filter(|s| !s.outlier)
            .map(|s| s.span_us.expect("start times") * 1000.0)
            .collect();
        let mean = kept.iter().sum::<f64>() / kept.len() as f64;
        assert!(
            (mean - side.mean_ns as f64).abs() <= 1.0,
            "{mean} against {}",
            side.mean_ns
        );
        assert_eq!(side.kept, kept.len());
    }
}

#[test]
fn the_waterfall_adds_up_to_the_nanosecond_on_every_kind_of_pair() {
    let mut parallel = Seg::new("moe", "moe", 6, 4.0, 1.0, Sk::SavesGaps);
    parallel.parallel = true;
    let mut twice = Seg::new("attn", "attn_b", 3, 2.0, 1.5, Sk::Times(0.8));
    twice.per_step = 2;
    let mut unfused = Seg::new("moe", "moe_c", 4, 3.0, 1.0, Sk::SavesGaps);
    unfused.unfused_in_new = true;
    let cases: Vec<(&str, Workload)> = vec![
        (
            "one stream",
            workload(vec![
                Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps),
                Seg::new("moe", "moe", 4, 6.0, 2.0, Sk::Times(1.3)),
            ]),
        ),
        ("two streams", workload(vec![parallel.clone(), twice])),
        ("a slow step", {
            let mut w = workload(vec![Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps)]);
            w.slow_step = Some((3, 4.0));
            w
        }),
        ("side kernels", {
            let mut w = workload(vec![
                Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps),
                parallel.clone(),
            ]);
            w.side_kernels = true;
            w
        }),
        (
            "a segment that did not fuse",
            workload(vec![
                Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps),
                unfused,
            ]),
        ),
    ];
    for (what, w) in &cases {
        let d = judged(w, "account-cases");
        let a = &d.account;
        assert_eq!(a.measure, Measure::StepTime, "{what}");
        adds_up(a);
        is_the_mean_span(&d);
        assert_eq!(a.fusion, Some("SuperKernel"), "{what}");
    }
    // Hidden and exposed kernels land where they belong.
    let d = judged(&cases[3].1, "account-side");
    let part = |kind| d.account.waterfall.iter().find(|p| p.kind == kind);
    assert!(part(PartKind::Communication).is_some_and(|p| p.base_ns > 2_900));
    let outside = part(PartKind::Outside).expect("the unfused kernel between segments");
    assert!(
        outside.base_ns < 2_200,
        "the side kernel is hidden: {outside:?}"
    );
    // The slow step is left out and named, on both sides.
    let d = judged(&cases[2].1, "account-slow");
    assert_eq!(d.account.base.left_out, ["3"]);
    assert_eq!(d.account.new.left_out, ["3"]);
}

#[test]
fn without_any_superkernel_the_pair_is_a_plain_a_b_and_still_adds_up() {
    let mut a = Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps);
    a.unfused_in_new = true;
    let d = judged(&workload(vec![a]), "account-no-sk");
    assert_eq!(d.account.fusion, None);
    adds_up(&d.account);
    let words = skope::profile::output::change_words(&d.account);
    assert!(words.contains("a plain A/B"), "{words}");
}

#[test]
fn ranks_each_add_up() {
    let w = workload(vec![Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps)]);
    let mut slower = w.clone();
    slower.segments[0].sk = Sk::Times(1.2);
    let dir = crate::common::scratch("account-ranks");
    let (root, plan) = write_ranks(&[w, slower], &dir);
    for rank in [0, 1] {
        let pair = load_pair(&root, None, Some(rank)).unwrap_or_else(|e| panic!("{e}"));
        let d = diff(&pair, Some(&plan));
        adds_up(&d.account);
        is_the_mean_span(&d);
    }
}

#[test]
fn sub_ops_that_overlapped_and_run_serially_in_the_superkernel_regress() {
    let mut seg = Seg::new("moe", "moe", 6, 4.0, 0.5, Sk::Serial(1.02));
    seg.parallel = true;
    let d = judged(&workload(vec![seg]), "account-serial");
    adds_up(&d.account);
    let p = &d.payoffs.as_ref().expect("payoffs").list[0];
    assert_eq!(
        p.class,
        skope::profile::payoff::PayoffClass::Regressed,
        "{}",
        p.why
    );
    let part = d.account.superkernel(&p.fused_node).expect("its part");
    assert!(part.delta_ns > 0, "{part:?}");
}

#[test]
fn a_plan_of_another_model_says_none_of_its_ops_appear_instead_of_profile_again() {
    let w = workload(vec![Seg::new("attn", "attn", 5, 3.0, 1.0, Sk::SavesGaps)]);
    let dir = crate::common::scratch("account-foreign");
    let (root, _) = write(&w, &dir);
    // The plan of another model: three segments whose ops these profiles never ran.
    let other = workload(vec![
        Seg::new("mlp", "mlp_a", 4, 3.0, 1.0, Sk::SavesGaps),
        Seg::new("mlp", "mlp_b", 4, 3.0, 1.0, Sk::SavesGaps),
        Seg::new("ffn", "ffn", 3, 3.0, 1.0, Sk::SavesGaps),
    ]);
    let (_, plan) = write(&other, &crate::common::scratch("account-foreign-plan"));
    let pair = load_pair(&root, None, None).unwrap_or_else(|e| panic!("{e}"));
    let d = diff(&pair, Some(&plan));
    assert!(d.payoffs.is_none(), "{:?}", d.payoffs);
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("0 of the 11 ops in the plan's segments appear")),
        "{:?}",
        d.notes
    );
    let text = skope::profile::output::to_text(&d);
    assert!(!text.contains("profile more steps"), "{text}");
    adds_up(&d.account);
}
