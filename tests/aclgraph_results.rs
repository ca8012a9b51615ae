//! The aclgraph results users have today (reference/aclgraph_superkernel.md §9): a directory
//! with the logs alone, one whole-model scope over the decoder layers, the per-op debug mode,
//! the two graph files alone with the newer runtime's options — each read back against what
//! its generator wrote.

use crate::common::acl_dirs;
use skope::aclgraph::model::{Listing, TaskStatus};
use skope::aclgraph::report::AclReport;
use skope::aclgraph::{graph_json::NodeType, layout, open, reasons};

#[test]
fn a_directory_with_only_the_logs_shows_what_they_hold() {
    let root = crate::common::scratch("acl-logs-only");
    let fx = acl_dirs::logs_only(&root);
    let (model, _) = open(&fx.dir).unwrap();
    assert_eq!(model.graph_file, layout::LOGS_ONLY);
    assert_eq!(model.model_id.as_deref(), Some("7_1"));
    // Counted as the SuperKernel team's parser counts them.
    let c = model.log_counts;
    assert_eq!(
        (c.superkernels, c.nodes, c.scopes, c.breaks, c.untrusted),
        (fx.superkernels, fx.nodes, fx.scopes, fx.breaks, 1)
    );
    assert_eq!(model.split_snapshots, Some(fx.snapshots));
    // Every SuperKernel with its tasks, whichever shape its lines have.
    let ids = |k: usize| -> Vec<u64> {
        model.sks[k]
            .tasks
            .iter()
            .map(|&i| model.tasks[i].node_id)
            .collect()
    };
    assert_eq!(model.sks.len(), 3);
    assert_eq!(
        (ids(0), ids(1), ids(2)),
        (vec![2, 3, 4], vec![6, 7, 8], vec![10, 11, 12])
    );
    assert!(model.sks.iter().all(|s| s.listing == Listing::FusedNodes));
    let untrusted: Vec<(u64, Option<u64>)> = model
        .sks
        .iter()
        .map(|s| (s.scope_id, s.untrusted))
        .collect();
    assert_eq!(untrusted, [(3, None), (6, None), (fx.untrusted, Some(4))]);
    // Tasks as the lines print them: stream, kernel type, blocks; the others by id only.
    let task = |id: u64| &model.tasks[model.task_index(id).unwrap()];
    assert_eq!(task(4).kernel_type.as_deref(), Some("MIX_1_2"));
    assert_eq!(task(7).runtime_stream, Some(acl_dirs::STREAM_ID as i64));
    assert_eq!(task(7).num_blocks, Some(40));
    assert_eq!(task(0).node_type, NodeType::Unknown);
    assert_eq!(model.scope_names, ["full_model"]);
    // Reasons by key, by number (never mapped) and in free text (read as its key).
    let reason = |id: u64| match &model.status[model.task_index(id).unwrap()] {
        TaskStatus::Unfusible { reason, detail, .. } => (reason.clone(), detail.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(reason(5).0, "OP_UNSUPPORT");
    assert_eq!(reason(9).0, "15");
    assert!(reasons::describe("15", None).contains("does not map numbers to reasons"));
    let (key, detail) = reason(13);
    assert_eq!(key, "OP_UNSUPPORT");
    assert!(
        detail.contains("does not support the operation of fusing"),
        "{detail}"
    );
    // In words: the counts, the snapshots, the untrusted listing, each cut with its fix.
    let report = AclReport::new(&model, &[]);
    let text = report.to_text();
    for said in [
        "(from the logs (no graph file))",
        "logs: 3 SuperKernel(s) with 9 node line(s), 1 untrusted; 3 scope(s), 3 break(s)",
        "3 result block(s) written, 2 different",
        "! untrusted: its header states Node Count 4, 3 node line(s) follow",
        "cut at task 5 MoeGatingTopK_dd44 (stream 0): UNFUSIBLE_NODE",
        "    task 4 FusedInferAttentionScore_cc33 · stream 0 (id 2) · MIX_1_2 × 40 · ratio 1:2",
        "→ inspect the task in sk_node_detail.log and its kernel",
        "15: reason 15: a reason given by number only",
        "missing files (what they would have shown):",
        "sk_graph_origin.json: the tasks per stream",
    ] {
        assert!(text.contains(said), "{said}\n{text}");
    }
}

#[test]
fn a_whole_model_scope_is_summed_up_by_its_pieces_per_layer() {
    let root = crate::common::scratch("acl-whole");
    let fx = acl_dirs::whole_model(&root);
    let (model, others) = open(&fx.dir).unwrap();
    assert_eq!(model.sks.len(), fx.superkernels);
    let ws = skope::aclgraph::observed::workspace(&model, &others, "model_9_1");
    let whole = ws
        .whole_model(None, 1_000_000)
        .expect("a whole-model scope");
    assert_eq!(whole.scope, "full_model");
    assert_eq!(whole.segments, fx.superkernels);
    assert_eq!(whole.ranked_by, "size");
    // One group per layer, in order, then the LM head no layer name places.
    let layers: Vec<Option<&str>> = whole.layers.iter().map(|l| l.layer.as_deref()).collect();
    assert_eq!(layers, [Some("0"), Some("1"), Some("2"), Some("3"), None]);
    assert_eq!(whole.layers.len() as u64, fx.layers + 1);
    // The biggest pieces first; each ended by its cut, in the pass's words.
    let l0 = &whole.layers[0];
    assert_eq!(l0.pieces.len(), 4);
    assert_eq!(l0.sub_ops, 8);
    let first = &l0.pieces[0];
    assert_eq!(first.sub_ops, 3);
    let ended = first.ended_by.as_ref().expect("a cut");
    assert_eq!(ended.reason_code, "OP_UNSUPPORT");
    assert!(ended.op.starts_with("MoeGatingTopK_l0"), "{}", ended.op);
    let drops: Vec<&str> = l0
        .pieces
        .iter()
        .filter_map(|p| p.ended_by.as_ref())
        .map(|e| e.reason_code)
        .collect();
    assert_eq!(drops.iter().filter(|c| **c == "SYNCALL_OP_DROP").count(), 2);
    let text = whole.lines().join("\n");
    assert!(
        text.starts_with("whole-model scope full_model: 37 of the model's 37 kernel tasks (100 %) → 17 segment(s)"),
        "{text}"
    );
    assert!(
        text.contains("  layer 2 · 4 segment(s) · 8 sub-op(s)"),
        "{text}"
    );
}

#[test]
fn the_per_op_debug_mode_is_said_first() {
    let root = crate::common::scratch("acl-per-op");
    let dir = acl_dirs::per_op(&root);
    let (model, _) = open(&dir).unwrap();
    let how = model.per_op_mode.as_deref().expect("per-op mode");
    assert!(how.contains("debug_per_op_max_core_num=1"), "{how}");
    // The comment-only split log is empty, not an error.
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    assert_eq!(model.split_snapshots, Some((0, 0)));
    let text = AclReport::new(&model, &[]).to_text();
    let second = text.lines().nth(1).unwrap_or_default();
    assert!(second.starts_with("! per-op debug mode"), "{text}");
}

#[test]
fn the_graph_files_alone_give_the_superkernels_their_skinfos_record() {
    let root = crate::common::scratch("acl-graph-only");
    let dir = acl_dirs::graph_only(&root);
    let (model, _) = open(&dir).unwrap();
    let sks: Vec<(u64, Listing, Vec<u64>)> = model
        .sks
        .iter()
        .map(|s| {
            (
                s.scope_id,
                s.listing,
                s.tasks.iter().map(|&i| model.tasks[i].node_id).collect(),
            )
        })
        .collect();
    assert_eq!(
        sks,
        [
            (31, Listing::Skinfos, vec![2, 3, 4]),
            (32, Listing::Skinfos, vec![6, 7])
        ]
    );
    assert!(
        !model
            .problems
            .iter()
            .any(|p| p.message.contains("no SuperKernel listing")),
        "{:?}",
        model.problems
    );
    let report = AclReport::new(&model, &[]);
    let text = report.to_text();
    for said in [
        "2 SuperKernel(s) built",
        "sk_entry_mix12_simt (SIMT kernels fused: simt_op_support=1)",
        "listed by sk_graph_updated.json's skinfos",
        "opt_extend: future_knob=2: unknown to skope",
        "opt_extend: simt_op_support=1: 1 fuses SIMT kernels",
        "4 kernel(s) carry capability BLOCKDIM_SCALE_UP",
    ] {
        assert!(text.contains(said), "{said}\n{text}");
    }
    assert!(!text.contains("that the pass did not build"), "{text}");
}

#[test]
fn a_stream_id_as_large_as_u32_goes_is_a_stream_not_an_allocation() {
    // Logs whose tasks give stream index 4294967295: the prediction numbers streams densely (it
    // once made a list per possible stream id, 34 GB, and aborted).
    let dir = crate::common::scratch("acl-huge-stream").join("model_9_1");
    std::fs::create_dir_all(&dir).unwrap();
    let example = crate::common::repo("assets/examples/aclgraph/sk_meta/4711/model_3_1");
    for name in ["sk_fused_nodes.log", "sk_fusion_fail_reasons.log"] {
        let text = std::fs::read_to_string(example.join(name)).unwrap();
        std::fs::write(
            dir.join(name),
            text.replace("streamIdxInGraph:0", "streamIdxInGraph:4294967295"),
        )
        .unwrap();
    }
    let model = skope::aclgraph::model::read(&dir).expect("the logs read");
    assert!(
        model.tasks.iter().any(|t| t.stream == u32::MAX),
        "{:?}",
        model.tasks.len()
    );
    let report = skope::aclgraph::report::AclReport::new(&model, &[]).to_text();
    assert!(report.contains("SuperKernel"), "{report}");
}

#[test]
fn a_whole_model_scope_s_one_kernel_pieces_are_excluded_once_per_layer_checked_by_prediction() {
    let root = crate::common::scratch("acl-whole-heal");
    let fx = acl_dirs::whole_model(&root);
    let (model, others) = open(&fx.dir).unwrap();
    let mut ws = skope::aclgraph::observed::workspace(&model, &others, "model_9_1");
    let remedies = ws.planning().remedies(ws.marks());
    let what: Vec<String> = remedies.iter().map(|r| r.what()).collect();
    // In every layer the ScheMode kernel's drop and rise leave two one-kernel SuperKernels
    // side by side: one exclusion in the layer's code removes both, in all four layers; the
    // LM head alone is another.
    assert_eq!(
        what,
        [
            "keep GroupedMatmulFinalizeRouting_l0 … MoeFinalizeRouting_l0 out of fusion in every \
             layer (4 places)",
            "keep MatMulV2_lm_head out of fusion",
        ],
        "{remedies:#?}"
    );
    let layers = &remedies[0];
    // 17 SuperKernels, 9 of one kernel; without the finalize pieces 9, of which one is the
    // head; the 24 kernels fused in the others stay fused.
    assert_eq!(
        (
            layers.before.superkernels,
            layers.before.single,
            layers.before.fused
        ),
        (17, 9, 24)
    );
    assert_eq!(
        (
            layers.after.superkernels,
            layers.after.single,
            layers.after.fused
        ),
        (9, 1, 24)
    );
    assert!(layers.code.starts_with(
        "torch.npu.super_kernel_scope_begin(None)  # before GroupedMatmulFinalizeRouting_l0"
    ));
    // Made as exclusions (what an unnamed scope does), the plan has what the prediction said.
    ws.apply(
        skope::edit::Edit::DoNotFuse {
            ops: layers.exclude.clone(),
        },
        None,
    )
    .unwrap();
    let sks: Vec<usize> = ws
        .plan()
        .scopes
        .iter()
        .flat_map(|s| &s.segments)
        .map(|seg| seg.ops.len())
        .collect();
    assert_eq!(sks.len(), 9, "{sks:?}");
    // And it is not offered again.
    let again = ws.planning().remedies(ws.marks());
    assert_eq!(again.len(), 1, "{again:#?}");
}
