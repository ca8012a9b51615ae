//! Payoffs against generated truths: profile pairs written from a workload whose every
//! SuperKernel is known to save, regress or lack evidence (`common::profile_pair`), read back
//! and judged as a user's would be.

use crate::common::profile_pair::{Seg, Sk, Workload, write};
use skope::profile::payoff::{NeutralAction, PayoffAction, PayoffClass, PayoffRule, Payoffs};
use skope::profile::regression::{EvidenceLevel, RegressionClass};
use skope::profile::{Diff, diff, load_pair};
use std::path::PathBuf;

fn judged(w: &Workload, tag: &str) -> Diff {
    let dir = crate::common::scratch(tag);
    let (root, plan) = write(w, &dir);
    let pair = load_pair(&root, None, None).unwrap_or_else(|e| panic!("{e}"));
    diff(&pair, Some(&plan))
}

fn payoffs(d: &Diff) -> &Payoffs {
    d.payoffs
        .as_ref()
        .unwrap_or_else(|| panic!("payoffs: {:?}", d.notes))
}

/// The workload of most tests: five steps, light jitter.
fn workload(segments: Vec<Seg>) -> Workload {
    Workload {
        steps: 5,
        segments,
        jitter_pct: 1.0,
        slow_step: None,
        side_kernels: false,
    }
}

#[test]
fn a_superkernel_that_only_removes_gaps_is_beneficial_though_its_durations_say_neutral() {
    // Six 4 µs sub-ops 1.5 µs apart: the interval is 31.5 µs, the durations add up to 24 µs,
    // and the SuperKernel takes 24 µs.
    let w = workload(vec![Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps)]);
    let d = judged(&w, "payoff-gaps");
    let p = &payoffs(&d).list[0];
    let (base, kernels, new) = (
        p.base.unwrap_or_else(|| panic!("base")),
        p.base_kernels.unwrap_or_else(|| panic!("kernels")),
        p.new.unwrap_or_else(|| panic!("new")),
    );
    assert!((base.median_us - 31.5).abs() < 0.6, "{base:?}");
    assert!((kernels.median_us - 24.0).abs() < 0.6, "{kernels:?}");
    // By durations alone the SuperKernel changes nothing…
    assert!((new.median_us - kernels.median_us).abs() < 0.6);
    // …by the interval it saves the gaps, and says so.
    assert_eq!(p.class, PayoffClass::Beneficial, "{}", p.why);
    assert_eq!(p.action, PayoffAction::Keep);
    assert!(
        (p.gap_us.unwrap_or(0.0) - 7.5).abs() < 0.2,
        "{:?}",
        p.gap_us
    );
    assert!(
        p.delta_us.is_some_and(|d| (d + 7.5).abs() < 0.8),
        "{:?}",
        p.delta_us
    );
    assert_eq!((base.count, new.count, p.aligned), (5, 5, 5));
    assert!(p.why.starts_with("saves "), "{}", p.why);
}

#[test]
fn the_payoffs_come_out_as_generated() {
    let mut twice = Seg::new("moe", "moe_split_10_20", 5, 3.0, 1.0, Sk::SavesGaps);
    twice.per_step = 2;
    let mut rare = Seg::new("rare", "rare", 4, 2.0, 1.0, Sk::SavesGaps);
    rare.only_steps = vec![1, 2];
    let single = Seg::new("one", "one", 1, 5.0, 0.0, Sk::Times(0.9));
    let w = workload(vec![
        Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps),
        Seg::new("mlp", "mlp", 5, 6.0, 0.5, Sk::Times(1.3)),
        twice,
        rare,
        single,
        Seg::new("flat", "flat", 6, 5.0, 0.2, Sk::Times(1.0)),
    ]);
    let d = judged(&w, "payoff-truth");
    let p = payoffs(&d);
    let class = |name: &str| {
        p.list
            .iter()
            .find(|x| x.segment == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(class("attn").class, PayoffClass::Beneficial);
    let mlp = class("mlp");
    assert_eq!(mlp.class, PayoffClass::Regressed, "{}", mlp.why);
    assert_eq!(mlp.action, PayoffAction::Prune);
    // Run twice a step: each execution is its own occurrence, bound in order.
    let moe = class("moe_split_10_20");
    assert_eq!(moe.class, PayoffClass::Beneficial);
    assert_eq!(
        (
            moe.base.map(|s| s.count),
            moe.new.map(|s| s.count),
            moe.aligned
        ),
        (Some(10), Some(10), 10)
    );
    let rare = class("rare");
    assert_eq!(rare.class, PayoffClass::InsufficientEvidence);
    assert_eq!(rare.action, PayoffAction::ProfileAgain);
    assert!(
        rare.why
            .contains("the base has 2 occurrence(s), 1 more needed")
            && rare.why.contains("the new profile has 2, 1 more needed"),
        "{}",
        rare.why
    );
    // Within the noise: the SuperKernel takes the interval.
    assert_eq!(
        class("flat").class,
        PayoffClass::Neutral,
        "{}",
        class("flat").why
    );
    // Neutral → prune, as the SuperKernel team maps it, and the why says so.
    assert_eq!(class("flat").action, PayoffAction::Prune);
    assert!(
        class("flat")
            .why
            .contains("neutral → prune: no measured gain"),
        "{}",
        class("flat").why
    );
    // The one-sub-op SuperKernel is listed apart (and it did not make every one single).
    assert_eq!(p.single, vec![w.segments[4].fused_node()]);
    assert!(p.shallow.contains(&w.segments[3].fused_node()));
    assert_eq!(p.classes.get("regressed"), Some(&1));
    assert!(!p.findings.iter().any(|f| f.contains("per-op debug")));
    assert!(p.any_regressed());
}

#[test]
fn a_slow_step_is_pointed_out_and_the_medians_leave_it_out() {
    let mut w = workload(vec![Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps)]);
    w.steps = 7;
    w.slow_step = Some((4, 5.0));
    let d = judged(&w, "payoff-slow");
    let steps = d.steps.as_ref().unwrap_or_else(|| panic!("steps"));
    let outliers: Vec<&str> = steps.base.outliers().map(|s| s.step.as_str()).collect();
    assert_eq!(outliers, ["4"]);
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("base: step 4 left out: its step time lies more than 3")),
        "{:?}",
        d.notes
    );
    assert_eq!(d.account.base.left_out, ["4"]);
    assert_eq!((d.account.base.steps, d.account.base.kept), (7, 6));
    // The step time is the mean of the steps kept, not swollen by the slow one.
    let usual = steps.base.list[0].span_us.unwrap_or_default() * 1000.0;
    let mean = d.account.base.mean_ns as f64;
    assert!(
        (mean - usual).abs() < usual * 0.05,
        "{mean} against {usual}"
    );
    let usual = steps.base.list[0].kernels_us;
    assert!(
        (d.base_total_us - usual).abs() < usual * 0.05,
        "{}",
        d.base_total_us
    );
    assert_eq!(payoffs(&d).list[0].class, PayoffClass::Beneficial);
    assert_eq!(steps.base.list.len(), 7);
    assert!(d.base_span_us.is_some() && d.span_benefit_pct.is_some_and(|b| b > 0.0));
}

#[test]
fn a_scope_repeated_across_layers_groups_by_layer() {
    let segments: Vec<Seg> = (0..4)
        .map(|layer| {
            let mut s = Seg::new(
                "attn",
                &format!("attn_split_{}_{}", layer * 10, layer * 10 + 9),
                5,
                3.0,
                1.0,
                if layer == 2 {
                    Sk::Times(1.4)
                } else {
                    Sk::SavesGaps
                },
            );
            for (i, op) in s.ops.iter_mut().enumerate() {
                op.0 = format!("layer{layer}_attn_op{i}");
            }
            s
        })
        .collect();
    let d = judged(&workload(segments), "payoff-layers");
    let p = payoffs(&d);
    let layers: Vec<(&str, usize, usize)> = p
        .layers
        .iter()
        .map(|l| (l.layer.as_str(), l.superkernels, l.regressed))
        .collect();
    assert_eq!(layers, [("0", 1, 0), ("1", 1, 0), ("2", 1, 1), ("3", 1, 0)]);
    // Every segment of the one scope is judged on its own.
    assert_eq!(p.list.len(), 4);
    assert_eq!(p.list[2].class, PayoffClass::Regressed);
}

#[test]
fn the_plan_and_the_profiles_disagreeing_are_findings() {
    let mut unfused = Seg::new("mlp", "mlp", 4, 3.0, 1.0, Sk::SavesGaps);
    unfused.unfused_in_new = true;
    let planned = workload(vec![
        Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps),
        unfused,
    ]);
    // The new profile also runs a SuperKernel the plan does not know, and another kernel
    // between segments: another workload.
    let mut ran = planned.clone();
    ran.segments
        .push(Seg::new("extra", "extra", 3, 2.0, 1.0, Sk::SavesGaps));
    let (dir_a, dir_b) = (
        crate::common::scratch("payoff-plan"),
        crate::common::scratch("payoff-ran"),
    );
    let (base_root, plan) = write(&planned, &dir_a);
    let (new_root, _) = write(&ran, &dir_b);
    let pair = load_pair(
        &base_root.join("no_sk_model"),
        Some(&new_root.join("sk_model")),
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let d = diff(&pair, Some(&plan));
    let p = payoffs(&d);
    let has = |words: &str| p.findings.iter().any(|f| f.contains(words));
    assert!(
        has("mlp: predicted as one SuperKernel, but 4 of its 4 sub-op(s) ran unfused"),
        "{:?}",
        p.findings
    );
    assert!(
        has(
            "1 SuperKernel(s) ran that the plan does not predict: sk_extra_start_extra_op0_end_extra_op2"
        ),
        "{:?}",
        p.findings
    );
    assert!(has("not the same workload"), "{:?}", p.findings);
    let mlp = p
        .get(&planned.segments[1].fused_node())
        .unwrap_or_else(|| panic!("mlp"));
    assert_eq!(mlp.class, PayoffClass::InsufficientEvidence);
    assert!(
        mlp.why.contains("its SuperKernel did not run"),
        "{}",
        mlp.why
    );
}

#[test]
fn without_kernel_files_payoffs_are_not_guessed() {
    let dir = crate::common::scratch("payoff-stats");
    for variant in ["no_sk_model", "sk_model"] {
        let out = dir.join(variant);
        std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            out.join("op_statistic.csv"),
            "OP Type,Core Type,Count,Total Time(us)\nAdd,AI_VECTOR_CORE,4,8.0\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let pair = load_pair(&dir, None, None).unwrap_or_else(|e| panic!("{e}"));
    let d = diff(&pair, None);
    assert!(d.payoffs.is_none() && d.steps.is_none());
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("payoffs need the kernels of both profiles")),
        "{:?}",
        d.notes
    );
}

#[test]
fn every_rank_is_compared_and_the_straggler_is_named() {
    use crate::common::profile_pair::write_ranks;
    use skope::profile::ranks::compare_ranks;
    let rank = |slow: bool| {
        workload(vec![
            Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps),
            Seg::new(
                "moe",
                "moe",
                5,
                6.0,
                0.5,
                if slow { Sk::Times(1.5) } else { Sk::SavesGaps },
            ),
        ])
    };
    let ranks: Vec<Workload> = (0..4).map(|r| rank(r == 2)).collect();
    let dir = crate::common::scratch("payoff-ranks");
    let (root, plan) = write_ranks(&ranks, &dir);
    let sides = skope::profile::Sides::find(&root, None).unwrap_or_else(|e| panic!("{e}"));
    let found = sides.ranks().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(found.as_deref(), Some(&[0, 1, 2, 3][..]));
    let progress = skope::profile::ranks::RankProgress::default();
    let r = compare_ranks(
        &sides,
        &[0, 1, 2, 3],
        Some(&plan),
        Default::default(),
        &progress,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(progress.get(), (4, 4), "every rank counted once");
    assert_eq!(
        r.ranks.iter().map(|k| k.rank).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert_eq!(r.slowest_rank, Some(2));
    let moe = &r.superkernels[1];
    assert_eq!(moe.segment, "moe");
    assert_eq!(moe.regressed_ranks, [2]);
    assert_eq!(moe.slowest.map(|(rank, _)| rank), Some(2));
    assert_eq!(moe.ranks_measured, 4);
    // The median over the ranks is the usual rank's: the straggler does not drag it.
    assert!(moe.median_delta_us.is_some_and(|d| d < 0.0), "{moe:?}");
    assert!(r.superkernels[0].regressed_ranks.is_empty());
    assert!(r.any_regressed());
    // The command line compares every rank when none is chosen, and gates on any.
    let root = root.to_string_lossy();
    let out = crate::common::skope(&["diff", &root, "--deny", "regressed"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("4 ranks compared · slowest with SuperKernel: rank 2"),
        "{text}"
    );
    assert!(text.contains("  moe: regressed on rank 2"), "{text}");
    // How far it has come is told beside the output, never in it.
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("4 of 4 ranks compared"), "{told}");
    assert!(!text.contains("of 4 ranks compared"), "{text}");
    let one = crate::common::skope(&["diff", &root, "--rank", "1", "--deny", "regressed"]);
    assert_eq!(
        one.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
}

/// `w`'s pair judged by `rule`.
fn judged_by(w: &Workload, tag: &str, rule: PayoffRule) -> Diff {
    let dir = crate::common::scratch(tag);
    let (root, plan) = write(w, &dir);
    let pair = load_pair(&root, None, None).unwrap_or_else(|e| panic!("{e}"));
    skope::profile::diff::diff_with(&pair, Some(&plan), rule)
}

#[test]
fn neutral_is_kept_when_asked_and_a_prune_inside_a_split_scope_is_blocked() {
    let w = workload(vec![
        Seg::new("flat", "flat", 6, 5.0, 0.2, Sk::Times(1.0)),
        // Two segments of one scope: cutting one out of the code needs a map nobody has.
        Seg::new("moe", "moe_split_1_4", 4, 4.0, 0.5, Sk::Times(1.3)),
        Seg::new("moe", "moe_split_4_9", 5, 4.0, 1.5, Sk::SavesGaps),
        Seg::new("mlp", "mlp", 5, 6.0, 0.5, Sk::Times(1.3)),
    ]);
    let keep = PayoffRule {
        neutral: NeutralAction::Keep,
        ..PayoffRule::default()
    };
    let d = judged_by(&w, "payoff-neutral-keep", keep);
    let p = payoffs(&d);
    let get = |name: &str| p.list.iter().find(|x| x.segment == name).unwrap();
    assert_eq!(get("flat").class, PayoffClass::Neutral);
    assert_eq!(get("flat").action, PayoffAction::Keep);
    assert!(get("flat").why.contains("neutral → keep, as asked"));
    let split = get("moe_split_1_4");
    assert_eq!(split.class, PayoffClass::Regressed, "{}", split.why);
    assert_eq!(split.action, PayoffAction::Block);
    assert!(
        split
            .why
            .contains("prune → block: it is one of the 2 segments of its scope"),
        "{}",
        split.why
    );
    // A scope of one segment is cut out whole: its name is the map.
    assert_eq!(get("mlp").action, PayoffAction::Prune);
    assert_eq!(p.with_action(PayoffAction::Block), ["moe_split_1_4"]);
}

#[test]
fn overlapped_sub_ops_run_serially_are_regressed_serialised_in_every_output() {
    let mut seg = Seg::new("moe", "moe", 6, 4.0, 0.5, Sk::Serial(1.02));
    seg.parallel = true;
    let d = judged(&workload(vec![seg]), "payoff-serialised");
    let p = &payoffs(&d).list[0];
    assert_eq!(p.class, PayoffClass::Regressed, "{}", p.why);
    assert_eq!(p.verdict(), "regressed — serialised");
    let serialised = &p.why_not[0];
    assert_eq!(serialised.class, RegressionClass::Serialised);
    assert_eq!(serialised.level, EvidenceLevel::Medium);
    assert!(
        serialised.rests_on.contains("overlapped on 2 streams"),
        "{}",
        serialised.rests_on
    );
    // The text, the JSON and the pull-request report say the same.
    let text = skope::profile::output::to_text(&d);
    assert!(text.contains("regressed — serialised"), "{text}");
    assert!(text.contains("serialised (evidence medium)"), "{text}");
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(
        json["payoffs"]["list"][0]["why_not"][0]["class"],
        "serialised"
    );
    assert_eq!(json["payoffs"]["list"][0]["why_not"][0]["level"], "medium");
    let ws = crate::common::workspace(&crate::common::example_arg("moe_decode.ge_proto.txt"));
    let what_if = ws.what_if();
    let report = skope::report::Report::new(
        &what_if,
        &ws.source().file,
        ws.source().format.id(),
        &ws.source().rules,
        skope::report::Detail::Summary,
    );
    let markdown = skope::markdown::pr_report(&report, &what_if, Some(&d));
    assert!(markdown.contains("regressed — serialised"), "{markdown}");
    assert!(
        markdown.contains("- moe: serialised (evidence medium)"),
        "{markdown}"
    );
}

#[test]
fn a_longer_wait_before_the_superkernel_is_sync_wait_and_flushing_options_a_cache_flush() {
    // Neutral on its own duration, but it waits 3 µs longer before it starts.
    // (Long enough that the start times' resolution, 0.25 µs at their size, stays in the
    // noise.)
    let mut waits = Seg::new("attn", "attn", 6, 10.0, 0.2, Sk::Times(1.0));
    waits.sk_waits_us = 3.0;
    // Slower than its sub-ops added up, with the data cache flushed after each.
    let mut flushes = Seg::new("mlp", "mlp", 5, 6.0, 0.2, Sk::Times(1.3));
    flushes.options = "dcci-after-kernel-end=Add:early-start=1".to_string();
    // Little jitter: the neutral one stays well within the noise threshold.
    let mut w = workload(vec![waits, flushes]);
    w.jitter_pct = 0.2;
    let d = judged(&w, "payoff-wait-flush");
    let p = payoffs(&d);
    assert_eq!(p.list[0].class, PayoffClass::Neutral, "{}", p.list[0].why);
    assert_eq!(
        p.list[0].verdict(),
        "neutral — sync/wait",
        "{:?}",
        p.list[0].why_not
    );
    assert!(
        // The step's 50 µs pause and 1 µs before it, then 3 µs more with SuperKernel.
        p.list[0].why_not[0]
            .rests_on
            .contains("it waits 54.00 µs on its stream before it starts, against 51.00 µs"),
        "{:?}",
        p.list[0].why_not
    );
    assert_eq!(
        p.list[1].verdict(),
        "regressed — cache flush",
        "{:?}",
        p.list[1].why_not
    );
    assert!(
        p.list[1].why_not[0]
            .rests_on
            .contains("dcci-after-kernel-end=Add")
    );
    // Without the option, no class fits: the flushes are read from the options only.
    let mut plain = Seg::new("mlp", "mlp", 5, 6.0, 0.2, Sk::Times(1.3));
    plain.options = String::new();
    let d = judged(&workload(vec![plain]), "payoff-no-class");
    let p = &payoffs(&d).list[0];
    assert_eq!(p.verdict(), "regressed — no class fits");
    assert_eq!(p.why_not[0].level, EvidenceLevel::Low);
}

#[test]
fn a_diagnostic_run_is_not_clean_timing() {
    let mut seg = Seg::new("attn", "attn", 6, 4.0, 1.5, Sk::SavesGaps);
    seg.options = "profiling=1".to_string();
    let d = judged(&workload(vec![seg]), "payoff-diagnostic");
    let findings = &payoffs(&d).findings;
    assert!(
        findings
            .iter()
            .any(|f| f
                .starts_with("not clean timing: the plan's options set profiling=1 (scope attn)")),
        "{findings:?}"
    );
    let text = skope::profile::output::to_text(&d);
    assert!(text.contains("not clean timing"), "{text}");
}

/// The aclgraph example's profiles: without SuperKernel every kernel task runs under its
/// function's name (as the profiler names it: no node id), sub-op `k` of the run order taking
/// `2 + k` µs, 1 µs apart; with it, each SuperKernel the pass built runs once, in place of its
/// tasks, taking 0.8 of its tasks' interval. Returns the directory holding both.
fn aclgraph_pair(
    ws: &skope::workspace::Workspace,
    plan: &skope::profile::PlannedFusion,
) -> PathBuf {
    let graph = ws.graph();
    let kernels: Vec<&str> = graph
        .exec_order()
        .iter()
        .map(|&id| graph.op(id))
        .filter(|op| op.op_type.chars().any(|c| c.is_ascii_lowercase()))
        .map(|op| op.name.as_str())
        .collect();
    let dur = |name: &str| 2.0 + kernels.iter().position(|k| *k == name).unwrap() as f64;
    let header = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)\n";
    let dir = crate::common::scratch("payoff-aclgraph");
    for (side, fused) in [("no_sk_model", false), ("sk_model", true)] {
        let mut text = header.to_string();
        let mut t = 1000.0;
        for step in 1..=5 {
            let mut done: Vec<&str> = Vec::new();
            for name in &kernels {
                if done.contains(name) {
                    continue;
                }
                let function = name.split('#').next().unwrap();
                let seg = plan
                    .segments
                    .iter()
                    .find(|s| s.ops.iter().any(|o| o.name == *name))
                    .filter(|_| fused);
                let (row, d) = match seg {
                    Some(seg) => {
                        done.extend(seg.ops.iter().map(|o| o.name.as_str()));
                        let sum: f64 = seg.ops.iter().map(|o| dur(&o.name)).sum();
                        let interval = sum + (seg.ops.len() - 1) as f64;
                        (seg.fused_node.as_str(), 0.8 * interval)
                    }
                    None => (function, dur(name)),
                };
                let ty = if seg.is_some() { "SuperKernel" } else { "N/A" };
                text.push_str(&format!("{step},{row},{ty},AI_CORE,{t:.3},{d:.3},1.0\n"));
                t += d + 1.0;
            }
            t += 100.0;
        }
        let out = dir.join(side).join("ASCEND_PROFILER_OUTPUT");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("kernel_details.csv"), text).unwrap();
    }
    dir
}

#[test]
fn aclgraph_tasks_bind_by_their_function_name_in_their_place() {
    let (model, _) =
        skope::aclgraph::open(&crate::common::repo("assets/examples/aclgraph")).unwrap();
    let ws = skope::aclgraph::observed::workspace(&model, &[], "example");
    let plan = skope::profile::PlannedFusion::from_workspace(&ws, "example");
    let dir = aclgraph_pair(&ws, &plan);
    let d = diff(&load_pair(&dir, None, None).unwrap(), Some(&plan));
    let p = payoffs(&d);
    assert_eq!(p.list.len(), plan.segments.len());
    for x in &p.list {
        assert!(
            x.missing_ops.is_empty(),
            "{}: {:?}",
            x.segment,
            x.missing_ops
        );
        // Each 0.8 of its interval: beneficial, every one.
        assert_eq!(x.class, PayoffClass::Beneficial, "{}: {}", x.segment, x.why);
        let seg = plan
            .segments
            .iter()
            .find(|s| s.segment == x.segment)
            .unwrap();
        assert_eq!(x.base.map(|s| s.count), Some(5), "{}", x.segment);
        // Its own tasks' interval, not another layer's calls of the same functions.
        let interval = x.base.unwrap().median_us;
        let new = x.new.unwrap().median_us;
        assert!(
            (new - 0.8 * interval).abs() < 0.01,
            "{}: {interval} → {new}",
            seg.segment
        );
    }
    // RmsNorm runs in both layers: layer 1's SuperKernel times its own call.
    let sk21 = p.list.iter().find(|x| x.segment == "sk_21").unwrap();
    let sk14 = p.list.iter().find(|x| x.segment == "sk_14").unwrap();
    assert!(
        sk21.base.unwrap().median_us > sk14.base.unwrap().median_us,
        "{:?} against {:?}",
        sk21.base,
        sk14.base
    );
}
