//! Hand-checked plans for every rule, on small graphs.

use super::*;
use crate::fusion::testing::{T, graph, op};
use crate::graph::{AttrValue, GraphBuilder, OpBuilder, TensorDesc};

fn plan_of(g: &Graph) -> Plan {
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    plan(&cx, &Marks::from_graph(g))
}

fn names(g: &Graph, ids: &[OpId]) -> Vec<String> {
    ids.iter().map(|&id| g.op(id).name.clone()).collect()
}

/// (segment name, op names) of every segment of scope `i`.
fn segments(g: &Graph, p: &Plan, i: usize) -> Vec<(String, Vec<String>)> {
    p.scopes[i]
        .segments
        .iter()
        .map(|s| (s.name.clone(), names(g, &s.ops)))
        .collect()
}

fn breaks(g: &Graph, p: &Plan, i: usize) -> Vec<(String, &'static str)> {
    p.scopes[i]
        .breaks
        .iter()
        .map(|b| (g.op(b.op).name.clone(), b.reason.code()))
        .collect()
}

fn seg(name: &str, ops: &[&str]) -> (String, Vec<String>) {
    (
        name.to_string(),
        ops.iter().map(|s| s.to_string()).collect(),
    )
}

const S: Option<&str> = Some("s");

#[test]
fn ge_source_example_cuts_on_one_stream_split_every_stream() {
    // Stream 0 holds 1, 5(cut), 6, 8(cut), 10; stream 1 holds 2, 3, 4(cut), 7, 9.
    let g = graph(vec![
        op("n1", 1, 0, S),
        op("n2", 2, 1, S),
        op("n3", 3, 1, S),
        op("n4", 4, 1, None),
        op("n5", 5, 0, S).unsupported(),
        op("n6", 6, 0, S),
        op("n7", 7, 1, S),
        op("n8", 8, 0, S).unsupported(),
        op("n9", 9, 1, S),
        op("n10", 10, 0, S),
    ]);
    let p = plan_of(&g);
    assert_eq!(
        segments(&g, &p, 0),
        vec![
            seg("s_split_0_4", &["n1", "n2", "n3"]),
            seg("s_split_5_8", &["n6", "n7"]),
            seg("s_split_8_11", &["n9", "n10"]),
        ]
    );
    assert_eq!(
        breaks(&g, &p, 0),
        vec![
            ("n4".into(), "unscoped"),
            ("n5".into(), "not_ascendc"),
            ("n8".into(), "not_ascendc")
        ]
    );
    assert_eq!(p.scopes[0].status, ScopeStatus::Split);
    assert_eq!(
        p.scopes[0].segments[0].fused_node,
        "sk_s_split_0_4_start_n1_end_n3"
    );
    // The foreign op's neighbours are the scope's ops around it on its stream.
    let b = &p.scopes[0].breaks[0];
    assert_eq!(
        names(&g, &[b.before.unwrap(), b.after.unwrap()]),
        ["n3", "n7"]
    );
}

#[test]
fn an_uncut_scope_keeps_its_name() {
    let g = graph(vec![
        op("a", 0, 0, S),
        op("b", 1, 0, S),
        op("c", 2, 0, None),
    ]);
    let p = plan_of(&g);
    assert_eq!(segments(&g, &p, 0), vec![seg("s", &["a", "b"])]);
    assert_eq!(p.scopes[0].segments[0].fused_node, "sk_s_start_a_end_b");
    assert_eq!(p.scopes[0].status, ScopeStatus::Fused);
    assert!(p.all_findings().next().is_none(), "{:?}", p.findings);
}

#[test]
fn ops_on_other_streams_and_ignored_ops_do_not_cut() {
    let g = graph(vec![
        op("a", 0, 0, S),
        op("other_stream", 1, 1, None),
        op("send", 2, 0, None).ty("Send"),
        op("weight", 3, 0, None).ty("Const"),
        op("scoped_const", 4, 0, S).ty("Const"),
        op("b", 5, 0, S),
    ]);
    let p = plan_of(&g);
    assert_eq!(segments(&g, &p, 0), vec![seg("s", &["a", "b"])]);
    assert!(p.scopes[0].breaks.is_empty());
    // An ignored op is not a member even when marked.
    assert_eq!(names(&g, &p.scopes[0].members), ["a", "b"]);
}

#[test]
fn interleaved_scopes_cut_each_other() {
    let a = Some("a");
    let b = Some("b");
    let g = graph(vec![
        op("a1", 0, 0, a),
        op("b1", 1, 0, b),
        op("a2", 2, 0, a),
        op("b2", 3, 0, b),
    ]);
    let p = plan_of(&g);
    assert_eq!(
        segments(&g, &p, 0),
        vec![seg("a_split_-1_1", &["a1"]), seg("a_split_1_3", &["a2"])]
    );
    assert_eq!(breaks(&g, &p, 0), vec![("b1".into(), "other_scope")]);
    assert_eq!(
        segments(&g, &p, 1),
        vec![seg("b_split_0_2", &["b1"]), seg("b_split_2_4", &["b2"])]
    );
    assert_eq!(
        describe_reason(&Marks::from_graph(&g), p.scopes[0].breaks[0].reason),
        "op of scope b between this scope's ops on the same stream"
    );
    // Every piece is a single op: nothing saved.
    let single = p
        .all_findings()
        .filter(|f| f.message.contains("single op"))
        .count();
    assert_eq!(single, 4);
}

#[test]
fn do_not_fuse_cuts_like_a_foreign_op() {
    let g = graph(vec![op("a", 0, 0, S), op("x", 1, 0, S), op("b", 2, 0, S)]);
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    let mut marks = Marks::from_graph(&g);
    marks.set_do_not_fuse(OpId(1));
    let p = plan(&cx, &marks);
    assert_eq!(
        segments(&g, &p, 0),
        vec![seg("s_split_-1_1", &["a"]), seg("s_split_1_3", &["b"])]
    );
    assert_eq!(breaks(&g, &p, 0), vec![("x".into(), "do_not_fuse")]);
}

#[test]
fn unsupported_member_at_the_edge_is_still_a_cut() {
    let g = graph(vec![
        op("cast", 3, 0, S).unsupported(),
        op("a", 4, 0, S),
        op("b", 5, 0, S),
    ]);
    let p = plan_of(&g);
    assert_eq!(segments(&g, &p, 0), vec![seg("s_split_3_6", &["a", "b"])]);
    assert_eq!(p.scopes[0].status, ScopeStatus::Split);
    let b = &p.scopes[0].breaks[0];
    assert_eq!(
        (b.before, b.after.map(|id| g.op(id).name.as_str())),
        (None, Some("a"))
    );
}

#[test]
fn strict_scope_check_abort_fails_and_bypass_drops() {
    for (options, status, severity) in [
        (
            "strict-scope-check=abort",
            ScopeStatus::Aborted,
            Severity::Error,
        ),
        (
            "strict-scope-check=bypass",
            ScopeStatus::Dropped,
            Severity::Warning,
        ),
    ] {
        let g = graph(vec![
            op("a", 0, 0, S).options(options),
            op("gap", 1, 0, None),
            op("b", 2, 0, S).options(options),
        ]);
        let p = plan_of(&g);
        let s = &p.scopes[0];
        assert_eq!(s.status, status, "{options}");
        assert!(s.segments.is_empty());
        assert_eq!(s.findings.len(), 1);
        assert_eq!(s.findings[0].severity, severity);
        assert!(
            s.findings[0].message.contains("gap"),
            "{}",
            s.findings[0].message
        );
    }
    // Without a break strict-scope-check changes nothing.
    let g = graph(vec![
        op("a", 0, 0, S).options("strict-scope-check=abort"),
        op("b", 1, 0, S).options("strict-scope-check=abort"),
    ]);
    assert_eq!(plan_of(&g).scopes[0].status, ScopeStatus::Fused);
}

#[test]
fn a_dynamic_shape_graph_gets_no_superkernel() {
    let mut g_ops = vec![op("a", 0, 0, S), op("b", 1, 0, S)];
    g_ops.push(op("c", 2, 0, None));
    let mut g = graph(g_ops);
    // Rebuild with one dynamic output.
    let mut b = GraphBuilder::new("g");
    for o in g.ops() {
        let mut ob = OpBuilder {
            name: o.name.clone(),
            op_type: o.op_type.clone(),
            topo_id: o.topo_id,
            stream: o.stream,
            attrs: o.attrs.clone(),
            ..OpBuilder::default()
        };
        if o.name == "c" {
            ob.output_descs.push(TensorDesc {
                shape: vec![-1, 7168].into(),
                ..TensorDesc::default()
            });
        }
        b.push(ob);
    }
    g = b.build();
    let p = plan_of(&g);
    assert_eq!(p.scopes[0].status, ScopeStatus::Skipped);
    assert_eq!(p.segment_count(), 0);
    let Outcome::NoSuperKernel(d) = &p.outcome else {
        panic!("{:?}", p.outcome)
    };
    assert_eq!(p.outcome.code(), "no_superkernel");
    assert!(
        d.what.contains("MatMulV2 output 0 of c has shape [?,7168]"),
        "{}",
        d.what
    );
    assert_eq!(d.ge_message, "SuperKernelPass only support static graph[g]");
    assert_eq!(d.op.map(|id| g.op(id).name.as_str()), Some("c"));
    // The outcome says it; no finding repeats it.
    assert!(p.findings.is_empty(), "{:?}", p.findings);
}

/// The build-fails outcome's detail, or a panic naming what the outcome is.
fn failure(p: &Plan) -> &OutcomeDetail {
    match &p.outcome {
        Outcome::BuildFails(d) => d,
        other => panic!("the build should fail: {other:?}"),
    }
}

#[test]
fn an_abort_that_trips_fails_the_whole_build() {
    // Scope "moe" aborts at the unscoped `gap`; scope "attn" would fuse whole.
    let g = graph(vec![
        op("q", 0, 0, Some("attn")),
        op("k", 1, 0, Some("attn")),
        op("a", 2, 0, Some("moe")).options("strict-scope-check=abort"),
        op("gap", 3, 0, None).unsupported().ty("Cast"),
        op("b", 4, 0, Some("moe")).options("strict-scope-check=abort"),
    ]);
    let p = plan_of(&g);
    let d = failure(&p);
    assert_eq!(p.outcome.code(), "build_fails");
    assert_eq!(
        d.ge_message,
        "In abort check scene, node gap can not fusion, maybe it is tbe or tik operator, please \
         replace to ascendc operator and specify super_kernel_scope, target scope moe"
    );
    assert_eq!(d.scope.as_deref(), Some("moe"));
    assert_eq!(d.op.map(|id| g.op(id).name.as_str()), Some("gap"));
    assert!(
        d.what
            .contains("scope moe has strict-scope-check=abort and gap (Cast)")
    );
    assert!(
        d.fix.contains("drop strict-scope-check=abort from moe"),
        "{}",
        d.fix
    );
    assert_eq!(
        p.segment_count(),
        0,
        "a failed build has no segments anywhere"
    );
    let statuses: Vec<(&str, ScopeStatus)> = p
        .scopes
        .iter()
        .map(|s| (s.name.as_str(), s.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("attn", ScopeStatus::NotBuilt),
            ("moe", ScopeStatus::Aborted)
        ]
    );
    assert_eq!(
        p.outcome.headline().as_deref(),
        Some(
            "✗ build fails: scope moe has strict-scope-check=abort and gap (Cast) breaks it: \
             op without a scope between this scope's ops on the same stream"
        )
    );
    // A fusible op of another scope gets GE's other wording.
    let g = graph(vec![
        op("a", 0, 0, Some("moe")).options("strict-scope-check=abort"),
        op("x", 1, 0, Some("attn")),
        op("b", 2, 0, Some("moe")).options("strict-scope-check=abort"),
    ]);
    assert_eq!(
        failure(&plan_of(&g)).ge_message,
        "In abort check scene, node x can not fusion, please check your super_kernel_scope, \
         target scope moe"
    );
}

#[test]
fn ge_fails_at_the_first_aborting_scope_by_name_and_stream() {
    // "zeta" comes first in execution order, but GE walks scopes by name: "alpha" fails.
    // Within alpha, stream 0's break comes before stream 1's although its topo id is larger.
    let abort = "strict-scope-check=abort";
    let g = graph(vec![
        op("z1", 0, 0, Some("zeta")).options(abort),
        op("zgap", 1, 0, None),
        op("z2", 2, 0, Some("zeta")).options(abort),
        op("a1", 3, 1, Some("alpha")).options(abort),
        op("s1gap", 4, 1, None),
        op("a2", 5, 1, Some("alpha")).options(abort),
        op("a3", 6, 0, Some("alpha")).options(abort),
        op("s0gap", 7, 0, None),
        op("a4", 8, 0, Some("alpha")).options(abort),
    ]);
    let p = plan_of(&g);
    let d = failure(&p);
    assert_eq!(d.scope.as_deref(), Some("alpha"));
    assert_eq!(d.op.map(|id| g.op(id).name.as_str()), Some("s0gap"));
    // Both scopes fail; each says where.
    assert!(p.scopes.iter().all(|s| s.status == ScopeStatus::Aborted));
}

#[test]
fn a_strict_scope_check_value_ge_rejects_fails_the_whole_build() {
    // The bad value sits on a later member of "moe"; "attn" is fine.
    let g = graph(vec![
        op("q", 0, 0, Some("attn")),
        op("k", 1, 0, Some("attn")),
        op("a", 2, 0, Some("moe")),
        op("b", 3, 0, Some("moe")).options("strict-scope-check=warn"),
    ]);
    let p = plan_of(&g);
    let d = failure(&p);
    assert_eq!(
        d.ge_message,
        "options strict-scope-check, value warn is invalid, only support bypass or abort"
    );
    assert_eq!(d.compiler_message, None);
    assert_eq!(d.op.map(|id| g.op(id).name.as_str()), Some("b"));
    assert_eq!(d.scope.as_deref(), Some("moe"));
    assert_eq!(p.segment_count(), 0);
    let moe = &p.scopes[1];
    assert_eq!(moe.status, ScopeStatus::Aborted);
    assert_eq!(p.scopes[0].status, ScopeStatus::NotBuilt);
    let errors: Vec<&str> = moe
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("b (MatMulV2) has strict-scope-check=\"warn\", which GE rejects")
    );

    // The empty value: GE's message and the compiler's.
    let g = graph(vec![
        op("a", 0, 0, Some("moe")).options("strict-scope-check="),
        op("b", 1, 0, Some("moe")).options("strict-scope-check="),
    ]);
    let p = plan_of(&g);
    let d = failure(&p);
    assert_eq!(
        d.ge_message,
        "options strict-scope-check, value  is invalid, only support bypass or abort"
    );
    assert_eq!(
        d.compiler_message.as_deref(),
        Some(
            "[Super Kernel] Invalid compile option: The key-value pair is missing for the option \
             strict-scope-check=."
        )
    );
    // Only the planner speaks of strict-scope-check: one error, not one per parser.
    let errors = p.scopes[0]
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    assert_eq!(errors, 1, "{:?}", p.scopes[0].findings);

    // GE reads the value before it skips ignored ops? No: ignored ops are skipped first, so a
    // bad value on a Const does nothing.
    let g = graph(vec![
        op("a", 0, 0, Some("moe")),
        op("c", 1, 0, Some("moe"))
            .ty("Const")
            .options("strict-scope-check=warn"),
        op("b", 2, 0, Some("moe")),
    ]);
    let p = plan_of(&g);
    assert_eq!(p.outcome, Outcome::Ok);
    assert_eq!(p.segment_count(), 1);
}

#[test]
fn ge_does_not_trim_strict_scope_check() {
    // A space before the key: GE does not see the option, so it splits automatically; the
    // compiler would accept the string.
    let g = graph(vec![
        op("a", 0, 0, S).options(" strict-scope-check=abort"),
        op("gap", 1, 0, None),
        op("b", 2, 0, S).options(" strict-scope-check=abort"),
    ]);
    let p = plan_of(&g);
    assert_eq!(p.outcome, Outcome::Ok);
    assert_eq!(p.scopes[0].status, ScopeStatus::Split);
    assert_eq!(p.segment_count(), 2);
    // Quotes: GE rejects "abort" with its quotes.
    let g = graph(vec![
        op("a", 0, 0, S).options("strict-scope-check=\"abort\""),
        op("b", 1, 0, S),
    ]);
    assert_eq!(
        failure(&plan_of(&g)).ge_message,
        "options strict-scope-check, value \"abort\" is invalid, only support bypass or abort"
    );
}

#[test]
fn a_failed_build_is_planned_whole_again_after_an_edit() {
    let g = graph(vec![
        op("q", 0, 0, Some("attn")),
        op("k", 1, 0, Some("attn")),
        op("a", 2, 0, Some("moe")).options("strict-scope-check=abort"),
        op("gap", 3, 0, None),
        op("b", 4, 0, Some("moe")).options("strict-scope-check=abort"),
    ]);
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    let mut marks = Marks::from_graph(&g);
    let failed = plan(&cx, &marks);
    assert_eq!(failed.segment_count(), 0);
    // Put `gap` into moe: the abort no longer trips, and attn (untouched) fuses again.
    let gap = g.find("gap").expect("gap");
    let moe = marks.scopes().iter().position(|s| s == "moe").expect("moe") as u32;
    let OpMark::Member { options, .. } = marks.get(g.find("a").expect("a")) else {
        panic!("a is a member")
    };
    marks.set(
        gap,
        OpMark::Member {
            scope: moe,
            options,
        },
    );
    let again = replan(&cx, &marks, failed, &[(gap, None)], &[]);
    assert_eq!(again, plan(&cx, &marks));
    assert_eq!(again.outcome, Outcome::Ok);
    assert_eq!(again.segment_count(), 2);
}

#[test]
fn options_come_from_the_first_op_and_differences_are_reported() {
    let g = graph(vec![
        op("a", 0, 0, S).options("stream-fusion=1"),
        op("b", 1, 0, S).options("stream-fusion=1:early-start=0"),
        op("c", 2, 0, S).options("stream-fusion=1"),
    ]);
    let p = plan_of(&g);
    let s = &p.scopes[0];
    assert_eq!(s.options, "stream-fusion=1");
    assert_eq!(s.segments[0].options, "stream-fusion=1");
    assert_eq!(s.findings.len(), 1);
    assert!(
        s.findings[0]
            .message
            .starts_with("1 member(s) carry options different")
    );
    assert_eq!(s.findings[0].op, Some(OpId(1)));
}

#[test]
fn invalid_options_are_errors_with_ge_wording() {
    let g = graph(vec![
        op("a", 0, 0, S).options("stream-funsion=1"),
        op("b", 1, 0, S).options("stream-funsion=1"),
    ]);
    let p = plan_of(&g);
    let f = &p.scopes[0].findings[0];
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.message.contains("did you mean stream-fusion?"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("option is not supported"),
        "{}",
        f.message
    );
}

#[test]
fn kernel_type_and_block_dim_per_segment() {
    let core = |t: T, c: &str, bd: i64| {
        t.attr("_cube_vector_core_type", AttrValue::Str(c.into()))
            .attr("tvm_blockdim", AttrValue::Int(bd))
    };
    let g = graph(vec![
        core(op("mm", 0, 0, S), "AIC", 24),
        core(op("norm", 1, 0, S), "AIV", 40),
        core(op("gap", 2, 0, None), "AIV", 8),
        core(op("v1", 3, 0, S), "AIV", 40),
        core(op("v2", 4, 0, S), "AIV", 8),
    ]);
    let p = plan_of(&g);
    let kernels: Vec<_> = p.scopes[0]
        .segments
        .iter()
        .map(|s| {
            s.kernel
                .known()
                .map(|k| (k.kernel_type.name(), k.block_dim))
        })
        .collect();
    assert_eq!(
        kernels,
        vec![Some(("MIX_AIC_1_2", 24)), Some(("MIX_AIV_1_0", 40))]
    );
    // debug core counts that are too small make the compile fail.
    let g = graph(vec![
        core(op("a", 0, 0, S), "AIV", 40).options("debug-aiv-num=8"),
        core(op("b", 1, 0, S), "AIV", 8).options("debug-aiv-num=8"),
    ]);
    let p = plan_of(&g);
    assert!(matches!(
        p.scopes[0].segments[0].kernel,
        KernelInfo::Fails(_)
    ));
    let f = &p.scopes[0].findings[0];
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.message
            .contains("should not be less than max sub op aiv num 40"),
        "{}",
        f.message
    );
}

#[test]
fn the_superkernel_runs_on_the_first_non_hccl_stream() {
    let g = graph(vec![
        op("allreduce", 0, 2, S)
            .ty("HcomAllReduce")
            .attr("_hccl", AttrValue::Bool(true)),
        op("add", 1, 1, S),
    ]);
    let p = plan_of(&g);
    let seg = &p.scopes[0].segments[0];
    assert_eq!(names(&g, &seg.ops), ["allreduce", "add"]);
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    assert_eq!(cx.streams()[seg.stream as usize].id, 1);
}

#[test]
fn precompile_dumps_use_positions_labels_and_rules() {
    let label = |t: T| t.attr("_user_stream_label", AttrValue::Str("1".into()));
    let g = graph(vec![
        op("a", 0, 0, S).precompile(),
        label(op("side", 0, 0, None).precompile()),
        op("routing", 0, 0, S).precompile().ty("MoeInitRoutingV2"),
        label(op("b", 0, 0, S).precompile()),
        op("c", 0, 0, S).precompile(),
    ]);
    let p = plan_of(&g);
    // "side" is on the labelled stream, so it does not cut; the blacklisted type does.
    assert_eq!(
        segments(&g, &p, 0),
        vec![seg("s_split_-1_2", &["a"]), seg("s_split_2_5", &["b", "c"])]
    );
    let b = &p.scopes[0].breaks[0];
    assert_eq!(b.reason, BreakReason::Unsupported(Reason::Blacklisted));
    let cx = Context::new(g.clone(), &RuleSet::bundled());
    assert_eq!(cx.verdicts().get(b.op).evidence, Evidence::Rules);
    assert_eq!(cx.streams()[cx.stream_of(OpId(1)) as usize].id, 1);
    assert_eq!(cx.streams()[cx.stream_of(OpId(0)) as usize].id, 0);
    let text: Vec<&str> = p.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(text.iter().any(|m| m.contains("no topo ids")), "{text:?}");
    assert!(
        text.iter().any(|m| m.contains("_user_stream_label")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|m| m.starts_with("3 scoped op(s) are assumed")),
        "{text:?}"
    );
    assert!(
        p.scopes[0]
            .segments
            .iter()
            .all(|s| s.kernel == KernelInfo::Unknown)
    );
}

#[test]
fn a_scope_without_fusible_members_is_unfused() {
    let g = graph(vec![op("x", 0, 0, S).unsupported(), op("y", 1, 0, None)]);
    let p = plan_of(&g);
    assert_eq!(p.scopes[0].status, ScopeStatus::Unfused);
    assert_eq!(breaks(&g, &p, 0), vec![("x".into(), "not_ascendc")]);
    assert!(
        p.scopes[0].findings[0]
            .message
            .contains("no member can be fused")
    );
}

#[test]
fn an_unsupported_member_alone_on_its_stream_does_not_cut() {
    let g = graph(vec![
        op("a", 0, 0, S),
        op("side", 1, 1, S).unsupported(),
        op("b", 2, 0, S),
    ]);
    let p = plan_of(&g);
    assert_eq!(segments(&g, &p, 0), vec![seg("s", &["a", "b"])]);
    let b = &p.scopes[0].breaks[0];
    assert!(!b.cuts && b.reason == BreakReason::Unsupported(Reason::NotAscendC));
    assert_eq!(p.scopes[0].status, ScopeStatus::Split);
}

#[test]
fn bypass_with_a_removed_member_splits_only_there() {
    // "x" is unsupported and has no strict-scope-check of its own, so GE removes it and cuts
    // at it; the foreign "gap" only trips the bypass check, which then adds no cut.
    let bypass = "strict-scope-check=bypass";
    let g = graph(vec![
        op("a", 0, 0, S).options(bypass),
        op("gap", 1, 0, None),
        op("b", 2, 0, S).options(bypass),
        op("x", 3, 0, S).unsupported(),
        op("c", 4, 0, S).options(bypass),
    ]);
    let p = plan_of(&g);
    assert_eq!(
        segments(&g, &p, 0),
        vec![seg("s_split_-1_3", &["a", "b"]), seg("s_split_3_5", &["c"])]
    );
    let f: Vec<&str> = p.scopes[0]
        .findings
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        f.iter()
            .any(|m| m.contains("splits the scope at those only")),
        "{f:?}"
    );
    // With abort, the foreign op fails the build.
    let abort = "strict-scope-check=abort";
    let g = graph(vec![
        op("a", 0, 0, S).options(abort),
        op("x", 1, 0, S).unsupported(),
        op("b", 2, 0, S).options(abort),
    ]);
    let p = plan_of(&g);
    // x loses its scope, so between a and b it is an op of no scope: it trips the check.
    assert_eq!(p.scopes[0].status, ScopeStatus::Aborted);
    assert!(
        p.scopes[0]
            .findings
            .iter()
            .any(|f| f.message.contains("fails at x"))
    );
}
