//! The aclgraph pass's output: the bundled example read back against the outcome its generator
//! wrote by hand, files missing or broken, the log formats' variants, scope markers (nested,
//! interleaved, unnamed, over 1024 names) and where model directories are found.

use skope::aclgraph::graph_json::{self, Marker, NodeType, Task};
use skope::aclgraph::model::{self, TaskStatus};
use skope::aclgraph::{layout, logs, open};
use std::path::{Path, PathBuf};

fn example() -> PathBuf {
    crate::common::repo("assets/examples/aclgraph")
}

/// A copy of the example's model directory (and its timing file) to change.
fn copy_of_example(tag: &str) -> PathBuf {
    let root = crate::common::scratch(&format!("aclgraph-{tag}"));
    let from = example().join("sk_meta/4711");
    let model = root.join("sk_meta/4711/model_3_1");
    std::fs::create_dir_all(&model).unwrap();
    for entry in std::fs::read_dir(from.join("model_3_1")).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, model.join(p.file_name().unwrap())).unwrap();
    }
    std::fs::copy(
        from.join("sk_prof_device_0.json"),
        root.join("sk_meta/4711/sk_prof_device_0.json"),
    )
    .unwrap();
    model
}

fn names(model: &skope::aclgraph::AclModel, sk: usize) -> Vec<u64> {
    model.sks[sk]
        .tasks
        .iter()
        .map(|&i| model.tasks[i].node_id)
        .collect()
}

#[test]
fn the_example_reads_back_as_its_generator_wrote_it() {
    let (model, others) = open(&example()).expect("the example");
    assert!(others.is_empty());
    assert!(model.missing.is_empty(), "{:?}", model.missing);
    assert!(model.problems.is_empty(), "{:?}", model.problems);
    assert_eq!(model.model_id.as_deref(), Some("3_1"));
    assert_eq!(model.tasks.len(), 69);
    assert_eq!(model.streams, 2);
    assert_eq!(
        model.scope_names,
        ["attn_0", "moe_0", "kv_sync", "attn_1", "moe_1"]
    );
    // Seven SuperKernels, by scope id, with the tasks the generator put in them.
    let ids: Vec<u64> = model.sks.iter().map(|s| s.scope_id).collect();
    assert_eq!(ids, [14, 15, 17, 21, 23, 24, 26]);
    assert_eq!(names(&model, 0), [4, 5, 6]);
    assert_eq!(names(&model, 2), [16, 19, 20, 21, 22, 23, 26]);
    // moe_0 fuses both streams; its events are cancelled, not members.
    let streams: std::collections::BTreeSet<u32> = model.sks[2]
        .tasks
        .iter()
        .map(|&i| model.tasks[i].stream)
        .collect();
    assert_eq!(streams.len(), 2);
    // Breaks: the unsupported attention kernel, the ScheMode core drop.
    let b = model.sks[0].break_info.as_ref().expect("attn_0 is cut");
    assert_eq!(
        (b.reason.as_str(), b.trigger_node),
        ("UNFUSIBLE_NODE", Some(7))
    );
    let b = model.sks[4].break_info.as_ref().expect("moe_1 is cut");
    assert_eq!(b.reason, "SYNCALL_OP_DROP");
    assert_eq!(
        b.detail.as_deref(),
        Some("ScheMode core drop at node 62: merged(24,40) -> cur(8,16)")
    );
    assert!(model.sks[1].break_info.is_none());
    // Launch tasks, entries, queues and timing joined by scope id.
    assert_eq!(model.sks[0].launch.map(|i| model.tasks[i].node_id), Some(4));
    assert_eq!(model.sks[5].entry.as_deref(), Some("sk_entry_aic"));
    let q = model.sks[0].queues.as_ref().expect("queues");
    assert_eq!((q.aic.funcs, q.aiv.funcs), (1, 2));
    assert!(model.sks[0].time.as_ref().is_some_and(|t| t.records == 1));
    // One timing per sub-op position (22) and one per SuperKernel (7).
    assert_eq!(model.timings.len(), 22 + 7);
    // Every unfusible kernel with the pass's reason; markers; the rest said.
    let status = |id: u64| &model.status[model.task_index(id).unwrap()];
    assert_eq!(
        status(7),
        &TaskStatus::Unfusible {
            reason: "OP_UNSUPPORT".into(),
            sub: Some("BINDMAP_INIT_EMPTY".into()),
            detail: "Failed to resolve SuperKernel bind map for the operator, bindmap init empty"
                .into()
        }
    );
    assert!(
        matches!(status(33), TaskStatus::Unfusible { reason, .. } if reason == "IN_UNFUSIBLE_SCOPE")
    );
    assert!(matches!(status(67), TaskStatus::Unfusible { reason, .. } if reason == "NOT_IN_SCOPE"));
    assert_eq!(status(1), &TaskStatus::Marker);
    assert!(matches!(status(17), TaskStatus::NotFused { why } if why.contains("cancelled")));
    assert!(matches!(status(40), TaskStatus::NotFused { why } if why.contains("CAN_FUSE")));
    assert!(matches!(status(0), TaskStatus::NotFused { why } if why.contains("default")));
}

#[test]
fn missing_files_are_named_with_what_they_would_show() {
    let dir = copy_of_example("missing");
    for name in [
        layout::FUSED_NODES,
        layout::TASK_QUEUE,
        layout::GRAPH_ORIGIN,
    ] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    std::fs::remove_file(dir.parent().unwrap().join("sk_prof_device_0.json")).unwrap();
    let (model, _) = open(&dir.join(layout::FAIL_REASONS)).expect("any file opens its model");
    assert_eq!(model.graph_file, layout::GRAPH_UPDATED);
    let missing: Vec<&str> = model.missing.iter().map(|f| f.name).collect();
    assert_eq!(
        missing,
        [
            layout::GRAPH_ORIGIN,
            layout::FUSED_NODES,
            layout::TASK_QUEUE,
            layout::TIMING
        ]
    );
    assert!(model.missing.iter().all(|f| !f.shows.is_empty()));
    // The SuperKernels come from the fail-reasons log's listing instead.
    assert_eq!(model.sks.len(), 7);
    assert_eq!(names(&model, 0), [4, 5, 6]);
    assert!(
        model
            .sks
            .iter()
            .all(|s| s.queues.is_none() && s.time.is_none())
    );
    let text = skope::aclgraph::report::AclReport::new(&model, &[]).to_text();
    assert!(
        text.contains("missing files (what they would have shown):"),
        "{text}"
    );
    assert!(
        text.contains("sk_fused_nodes.log: the SuperKernels that were built"),
        "{text}"
    );

    // Without either graph file the logs' node lines give the tasks: the same SuperKernels,
    // scopes from the original-scopes listing, the graph files said missing.
    std::fs::remove_file(dir.join(layout::GRAPH_UPDATED)).unwrap();
    let (model, _) = open(&dir).unwrap();
    assert_eq!(model.graph_file, layout::LOGS_ONLY);
    assert_eq!(model.model_id.as_deref(), Some("3_1"));
    assert_eq!(model.sks.len(), 7);
    assert_eq!(names(&model, 0), [4, 5, 6]);
    assert!(model.scope_names.contains(&"attn_0".to_string()));
    let missing: Vec<&str> = model.missing.iter().map(|f| f.name).collect();
    assert!(missing.contains(&layout::GRAPH_UPDATED), "{missing:?}");

    // With no log naming a task either, there is nothing to show: an error that says so.
    for f in std::fs::read_dir(&dir).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    std::fs::write(dir.join(layout::FAIL_REASONS), "# no failures\n").unwrap();
    let e = open(&dir).expect_err("no tasks").to_string();
    assert!(
        e.contains("neither sk_graph_origin.json nor sk_graph_updated.json"),
        "{e}"
    );
    assert!(e.contains("hint: pass the model directory"), "{e}");
}

#[test]
fn broken_files_are_errors_or_problems_with_their_place() {
    let dir = copy_of_example("broken");
    let graph = std::fs::read_to_string(dir.join(layout::GRAPH_ORIGIN)).unwrap();
    // A truncated graph file: an error at its end.
    std::fs::write(dir.join(layout::GRAPH_ORIGIN), &graph[..graph.len() / 2]).unwrap();
    let e = open(&dir).expect_err("truncated").to_string();
    assert!(e.contains("sk_graph_origin.json:"), "{e}");
    assert!(e.contains("not a graph file of the aclgraph pass"), "{e}");
    // A wrong type where a number belongs: the line of it.
    let wrong = graph.replacen("\"nodeId\": 0,", "\"nodeId\": \"zero\",", 1);
    std::fs::write(dir.join(layout::GRAPH_ORIGIN), &wrong).unwrap();
    let e = open(&dir).expect_err("wrong type").to_string();
    let line = wrong.lines().position(|l| l.contains("\"zero\"")).unwrap() + 1;
    assert!(e.contains(&format!("sk_graph_origin.json:{line}:")), "{e}");
    std::fs::write(dir.join(layout::GRAPH_ORIGIN), &graph).unwrap();
    // A broken task queue or timing file is a problem; the rest still reads.
    std::fs::write(dir.join(layout::TASK_QUEUE), "{\"scopes\": [").unwrap();
    std::fs::write(dir.join(layout::FUSED_NODES), b"\xff\xfe garbage").unwrap();
    let (model, _) = open(&dir).expect("still readable");
    assert_eq!(model.problems.len(), 2, "{:?}", model.problems);
    let about = |file: &str| {
        model
            .problems
            .iter()
            .find(|p| p.file.ends_with(file))
            .map(|p| p.message.clone())
            .unwrap_or_default()
    };
    assert!(
        about(layout::TASK_QUEUE).starts_with("line 1, column "),
        "{:?}",
        model.problems
    );
    assert!(
        about(layout::FUSED_NODES).contains("line 1"),
        "{:?}",
        model.problems
    );
    assert_eq!(model.sks.len(), 7, "the fail-reasons listing stands in");
    // Garbage lines in a log are passed over.
    let log = std::fs::read_to_string(dir.join(layout::FAIL_REASONS)).unwrap();
    std::fs::write(
        dir.join(layout::FAIL_REASONS),
        format!("\u{1b}[31mjunk\nNode [nodeId:x: reason: \n{log}"),
    )
    .unwrap();
    let (model, _) = open(&dir).expect("junk passed over");
    assert_eq!(model.sks.len(), 7);
}

#[test]
fn files_that_disagree_are_said() {
    let dir = copy_of_example("disagree");
    let log = std::fs::read_to_string(dir.join(layout::FUSED_NODES)).unwrap();
    // The fused listing names a task the graph does not have, and loses one of SK 14's.
    let changed = log.replacen("[nodeId:5,", "[nodeId:999,", 1);
    std::fs::write(dir.join(layout::FUSED_NODES), changed).unwrap();
    let (model, _) = open(&dir).unwrap();
    let problems: Vec<&str> = model.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(
        problems.iter().any(|p| p.contains("lists task 999")),
        "{problems:?}"
    );
}

fn task(id: u64, marker: Option<Marker>, scope: Option<&str>) -> Task {
    Task {
        node_id: id,
        stream: 0,
        index_in_stream: id as u32,
        runtime_stream: None,
        node_type: NodeType::Kernel,
        scope_name: scope.map(str::to_string),
        marker,
        func_name: Some(format!("k{id}")),
        kernel_type: Some("AIV_ONLY".into()),
        num_blocks: Some(8),
        task_ratio: None,
        simt: false,
        event_id: None,
        event_flags: None,
        resolved: Some(1),
        cap: None,
        sche_mode: None,
        sk: None,
    }
}

#[test]
fn markers_nest_interleave_exclude_and_stop_at_1024_names() {
    use Marker::{Begin, End};
    // A-B-A-B interleaving: ends match by name; A∩B differs from A alone.
    let tasks = vec![
        task(0, Some(Begin), Some("A")),
        task(1, None, None),
        task(2, Some(Begin), Some("B")),
        task(3, None, None),
        task(4, Some(End), Some("A")),
        task(5, None, None),
        task(6, Some(End), Some("B")),
        task(7, None, None),
        task(8, Some(Begin), None),
        task(9, Some(Begin), Some("A")),
        task(10, None, None),
        task(11, Some(End), Some("A")),
        task(12, Some(End), None),
    ];
    let (names, m) = model::memberships(&tasks);
    assert_eq!(names, ["A", "B"]);
    assert_eq!(m[1].bits, [0]);
    assert_eq!(m[3].bits, [0, 1]);
    assert_eq!(m[5].bits, [1]);
    assert!(m[7].bits.is_empty() && !m[7].excluded);
    // An enclosing unnamed scope excludes even inside a named one.
    assert!(m[10].excluded && m[10].bits == [0]);

    let mut many = Vec::new();
    for n in 0..1026u64 {
        let name = format!("s{n}");
        many.push(task(3 * n, Some(Begin), Some(&name)));
        many.push(task(3 * n + 1, None, None));
        many.push(task(3 * n + 2, Some(End), Some(&name)));
    }
    let (names, m) = model::memberships(&many);
    assert_eq!(names.len(), model::MAX_SCOPE_NAMES);
    assert!(!m[3 * 1023 + 1].over_limit);
    assert!(m[3 * 1024 + 1].over_limit && m[3 * 1024 + 1].bits.is_empty());
}

#[test]
fn graph_files_with_nulls_numbers_and_a_bom_read() {
    let text = "\u{feff}{\"modelId\": 7, \"deviceId\": null, \"options\": {\"early_start\": \
                {\"name\": \"early_start\", \"type\": 16, \"value\": 1}, \"inner_options\": {}},\
                \"streams\": [{\"streamIdxInGraph\": 0, \"nodes\": [\
                {\"nodeId\": 3, \"nodeType\": \"KERNEL\", \"scopeName\": null, \"preNodeId\": \"none\",\
                 \"taskInfo\": [{\"streamId\": 9, \"taskType\": \"KERNEL\", \"kernelParams\": \
                 {\"funcName\": \"sk_scope_kernel_begin_dav_3510\", \"isSimtOp\": 1, \"taskRatio\": [1, 2],\
                  \"unknownField\": {\"deep\": [1, 2]}}}]},\
                {\"nodeId\": 1, \"nodeType\": \"VALUE_WAIT\", \"taskInfo\": null}]}]}";
    let g = graph_json::parse(text.as_bytes()).expect("parses");
    assert_eq!(g.model_id.as_deref(), Some("7"));
    assert_eq!(g.options, [("early_start".to_string(), "1".to_string())]);
    assert_eq!(g.tasks[0].node_id, 1, "sorted by nodeId");
    assert_eq!(g.tasks[0].node_type, NodeType::MemoryWait);
    assert_eq!(g.tasks[1].marker, Some(Marker::Begin));
    assert!(g.tasks[1].simt);
    assert_eq!(g.tasks[1].task_ratio, Some((1, 2)));
    assert_eq!(g.tasks[1].runtime_stream, Some(9));
    for bad in [
        "",
        "[]",
        "{\"streams\": [{\"nodes\": [{}]}]}",
        "{\"streams\": 3}",
    ] {
        let e = graph_json::parse(bad.as_bytes()).expect_err(bad);
        assert!(!e.message.is_empty());
    }
}

#[test]
fn log_variants_of_real_runs_read() {
    // The older split form without scopeId, a root-level taskQueues, the older timing name.
    let split = "Scope split results begin: pass=InitialScopeSplitPass, totalScopes=1\n\
                 Scope 0: 2 nodes, 1 streams, scopeBitFlags=1, scopeNames=[a]\n\
                 \x20 BreakInfo: breakReason=NONE\n\
                 \x20   [0] [nodeId:4, streamId:2, streamIdxInGraph:0, nodeIdxInStream:4] - KernelInfos{funcName:x}\n\
                 Scope split results begin: pass=ScopeSplitPipelineFinal, totalScopes=1\n\
                 Scope 0 (scopeId=9): 1 nodes, 1 streams, scopeBitFlags=1, scopeNames=[a]\n\
                 \x20 BreakInfo: breakReason=DEADLOCK_DETECTED, triggerNode=6, detail=\"Deadlock at node 6, split at Wait node 5\"\n\
                 \x20   [0] [nodeId:4, streamId:2, streamIdxInGraph:0, nodeIdxInStream:4] - KernelInfos{funcName:x}\n";
    let logs::ScopeSplit { pass, scopes, .. } = logs::scope_split(split);
    assert_eq!(pass, "ScopeSplitPipelineFinal");
    assert_eq!(scopes[0].scope_id, Some(9));
    assert_eq!(scopes[0].node_ids, [4]);
    assert_eq!(
        scopes[0].break_info.as_ref().unwrap().reason,
        "DEADLOCK_DETECTED"
    );
    let old = "Scope split results begin: pass=X, totalScopes=1\nScope 3: 1 nodes, 1 streams, scopeBitFlags=1, scopeNames=[a]\n";
    let scopes = logs::scope_split(old).scopes;
    assert_eq!((scopes[0].display, scopes[0].scope_id), (3, None));

    let q = skope::aclgraph::device::task_queues(
        br#"{"taskQueues": {"aiv": {"numBlocks": 40, "funcCnt": 2, "taskQue": {"taskCnt": 3,
            "taskInfos": [{"type": "FUNC"}, {"type": "SYNC"}, {"type": "FUNC"}]}}}}"#,
    )
    .unwrap();
    assert_eq!(q.len(), 1);
    assert_eq!(
        (q[0].scope_id, q[0].aiv.funcs, q[0].aiv.tasks()),
        (None, 2, 3)
    );
    assert_eq!(q[0].aic.tasks(), 0);
    assert!(layout::timing_file("sk_event_dev_device_1.json"));

    let t = skope::aclgraph::device::timings(
        br#"[{"ph":"X","name":"[1/40]Add","pid":"AIV","tid":1,"ts":1.0,"dur":2.0,"args":{"modelId":"3_1","skId":7,"nodeId":0}},
             {"ph":"X","name":"[2/40]Add","pid":"AIV","tid":2,"ts":1.0,"dur":4.0,"args":{"modelId":"3_1","skId":7,"nodeId":0}},
             {"ph":"X","name":"[0/40] sk_7_a","pid":"AIV","tid":0,"ts":1.0,"dur":9.0,"args":{"modelId":"3_1","skId":7,"nodeId":4294967295}},
             {}]"#,
    )
    .unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(
        (t[0].name.as_str(), t[0].records, t[0].mean_us()),
        ("Add", 2, 3.0)
    );
    assert_eq!((t[1].sub_op, t[1].max_us), (None, 9.0));
    assert!(skope::aclgraph::device::timings(b"[{\"dur\": ").is_err());

    let d = logs::device_args(
        "AIV TaskQue: cap=64, tasks=2\n[0] type=FUNC, idx=0, nodeId=12, relatedType=NONE, blk=40\n\
         [1] type=SYNC, idx=1, nodeId=18446744073709551615, relatedType=NONE, blk=0\n",
    );
    assert_eq!(d.len(), 2);
    assert_eq!(
        (d[0].queue.as_str(), d[0].node_id, d[1].node_id),
        ("AIV", Some(12), None)
    );
}

#[test]
fn model_directories_are_found_below_a_result_root() {
    let root = crate::common::scratch("aclgraph-root");
    let _ = std::fs::remove_dir_all(&root);
    let graph = example().join("sk_meta/4711/model_3_1/sk_graph_origin.json");
    for rank in ["0", "1"] {
        let dir = root.join(format!("runs/sk_meta/{rank}/model_3_1"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(&graph, dir.join("sk_graph_origin.json")).unwrap();
    }
    std::fs::create_dir_all(root.join("log")).unwrap();
    let dirs = layout::model_dirs(&root);
    assert_eq!(dirs.len(), 2);
    assert!(dirs[0].ends_with("runs/sk_meta/0/model_3_1"));
    assert!(layout::looks_like_output(&root));
    let (model, others) = open(&root).unwrap();
    assert!(model.dir.ends_with("0/model_3_1"));
    assert_eq!(others.len(), 1);
    // Without the logs the SuperKernels are unknown, and that is said.
    assert!(model.sks.is_empty());
    assert!(matches!(&model.status[4], TaskStatus::NotFused { why } if why.contains("missing")));
    let empty = crate::common::scratch("aclgraph-empty");
    assert!(!layout::looks_like_output(&empty));
    let e = open(&empty).expect_err("nothing").to_string();
    assert!(
        e.contains("no output of the aclgraph SuperKernel pass"),
        "{e}"
    );
    assert!(!layout::looks_like_output(Path::new(
        "assets/examples/moe_decode.ge_proto.txt"
    )));
}

mod prediction {
    //! The predictor against hand-checked expectations, one rule at a time.

    use super::task;
    use skope::aclgraph::AclModel;
    use skope::aclgraph::graph_json::{Marker, NodeType, Task};
    use skope::aclgraph::predict::{check, predict};

    fn model(tasks: Vec<Task>, options: &[(&str, &str)]) -> AclModel {
        let graph = skope::aclgraph::graph_json::GraphFile {
            model_id: None,
            device_id: None,
            options: options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            streams: 2,
            tasks,
        };
        AclModel::of_graph(std::path::Path::new("test"), "sk_graph_origin.json", graph)
    }

    /// Kernel `id` on `stream` with `blocks` cores of `kind`.
    fn kernel(id: u64, stream: u32, kind: &str, blocks: u64) -> Task {
        let mut t = task(id, None, None);
        t.stream = stream;
        t.kernel_type = Some(kind.into());
        t.num_blocks = Some(blocks);
        t
    }

    fn event(id: u64, stream: u32, node_type: NodeType, event: u64) -> Task {
        let mut t = task(id, None, None);
        t.stream = stream;
        t.node_type = node_type;
        t.func_name = None;
        t.kernel_type = None;
        t.event_id = Some(event);
        t.event_flags = Some((0, 0));
        t
    }

    fn marker(id: u64, m: Marker, name: Option<&str>) -> Task {
        task(id, Some(m), name)
    }

    /// The predicted SuperKernels as lists of node ids.
    fn sks(m: &AclModel) -> Vec<Vec<u64>> {
        predict(m)
            .sks
            .iter()
            .map(|s| s.tasks.iter().map(|&i| m.tasks[i].node_id).collect())
            .collect()
    }

    #[test]
    fn without_markers_the_whole_graph_is_one_region_cut_by_unfusible_kernels() {
        let mut bad = kernel(2, 0, "AIV_ONLY", 40);
        bad.resolved = Some(0);
        let m = model(
            vec![
                kernel(0, 0, "AIV_ONLY", 40),
                kernel(1, 0, "AIC_ONLY", 24),
                bad,
                kernel(3, 0, "AIV_ONLY", 40),
            ],
            &[],
        );
        assert_eq!(sks(&m), [vec![0, 1], vec![3]]);
        let p = predict(&m);
        assert_eq!(p.sks[0].scope, "none");
        assert_eq!(p.sks[0].cut, Some(("UNFUSIBLE_NODE", 2)));
        let u = p.unfusible[2].unwrap();
        assert_eq!((u.key, u.inferred), ("OP_UNSUPPORT", true));
    }

    #[test]
    fn named_scopes_fuse_their_tasks_and_leave_the_rest_out() {
        use Marker::{Begin, End};
        let m = model(
            vec![
                kernel(0, 0, "AIV_ONLY", 40),
                marker(1, Begin, Some("a")),
                kernel(2, 0, "AIV_ONLY", 40),
                kernel(3, 0, "AIV_ONLY", 40),
                marker(4, Begin, None),
                kernel(5, 0, "AIV_ONLY", 40),
                marker(6, End, None),
                kernel(7, 0, "AIV_ONLY", 40),
                marker(8, End, Some("a")),
                marker(9, Begin, Some("b")),
                kernel(10, 0, "AIV_ONLY", 40),
                marker(11, End, Some("b")),
            ],
            &[],
        );
        // The excluded kernel cuts scope a; b is a SuperKernel of its own.
        assert_eq!(sks(&m), [vec![2, 3], vec![7], vec![10]]);
        let p = predict(&m);
        assert_eq!(p.unfusible[0].unwrap().key, "NOT_IN_SCOPE");
        assert_eq!(p.unfusible[5].unwrap().key, "IN_UNFUSIBLE_SCOPE");
        assert_eq!(p.sks[2].scope, "b");
    }

    #[test]
    fn streams_of_one_scope_merge_and_their_events_are_cancelled() {
        let m = model(
            vec![
                kernel(0, 0, "AIV_ONLY", 40),
                event(1, 0, NodeType::Notify, 5),
                event(2, 1, NodeType::Wait, 5),
                kernel(3, 1, "AIC_ONLY", 24),
                kernel(4, 0, "AIV_ONLY", 40),
            ],
            &[],
        );
        assert_eq!(sks(&m), [vec![0, 3, 4]]);
        // A stream whose share is only sync tasks is removed.
        let m = model(
            vec![
                kernel(0, 0, "AIV_ONLY", 40),
                event(1, 1, NodeType::Notify, 6),
                kernel(2, 0, "AIV_ONLY", 40),
            ],
            &[],
        );
        assert_eq!(sks(&m), [vec![0, 2]]);
    }

    #[test]
    fn sync_and_default_tasks_follow_the_aggressive_strategies() {
        let mut value_wait = event(1, 0, NodeType::Wait, 9);
        value_wait.event_flags = Some((0xFFFF_FFFF, 0xFFFF_FFFF));
        let mut default = task(2, None, None);
        default.node_type = NodeType::Default;
        let tasks = vec![
            kernel(0, 0, "AIV_ONLY", 40),
            value_wait,
            default,
            kernel(3, 0, "AIV_ONLY", 40),
        ];
        let m = model(tasks.clone(), &[]);
        assert_eq!(sks(&m), [vec![0], vec![3]]);
        let p = predict(&m);
        assert_eq!(p.unfusible[1].unwrap().key, "CAN_FUSE");
        assert_eq!(p.unfusible[2].unwrap().key, "CAN_FUSE");
        let m = model(
            tasks,
            &[(
                "aggressive_opt_strategies",
                r#"{"value_breaker_bypass": 3, "task_breaker_bypass": 1}"#,
            )],
        );
        // The writer-less wait stays a task of the SuperKernel: nothing in it cancels it.
        assert_eq!(sks(&m), [vec![0, 1, 2, 3]]);
    }

    #[test]
    fn schemode_kernels_split_where_cores_drop_and_rise() {
        let mut sche = kernel(2, 0, "AIC_ONLY", 8);
        sche.sche_mode = Some(true);
        let m = model(
            vec![
                kernel(0, 0, "AIV_ONLY", 40),
                kernel(1, 0, "AIC_ONLY", 24),
                sche,
                kernel(3, 0, "AIV_ONLY", 40),
            ],
            &[],
        );
        assert_eq!(sks(&m), [vec![0, 1], vec![2], vec![3]]);
        let p = predict(&m);
        assert_eq!(p.sks[0].cut, Some(("SYNCALL_OP_DROP", 2)));
        assert_eq!(p.sks[1].cut, Some(("SYNCALL_OP_DROP", 3)));
    }

    #[test]
    fn the_prediction_matches_the_example_and_says_where_it_does_not() {
        let (model, _) = skope::aclgraph::open(&super::example()).unwrap();
        let c = check(&model, &predict(&model));
        assert_eq!(
            (c.matched, c.actual, c.predicted),
            (7, 7, 7),
            "{:?}",
            c.differences
        );
        // Had the pass fused moe_1 whole, the prediction would differ, and say how.
        let mut other = model.clone();
        let merged: Vec<usize> = other.sks[4..7]
            .iter()
            .flat_map(|s| s.tasks.clone())
            .collect();
        other.sks.truncate(4);
        other.sks[3].tasks = merged;
        let c = check(&other, &predict(&other));
        assert_eq!(c.matched, 3);
        assert!(
            c.differences
                .iter()
                .any(|d| d.contains("predicted a SuperKernel of tasks 62")),
            "{:?}",
            c.differences
        );
    }
}

#[test]
fn edits_re_plan_with_the_prediction_and_undo_brings_the_pass_back() {
    use skope::edit::{Edit, EditError};
    let (model, _) = open(&example()).unwrap();
    let mut ws = skope::aclgraph::observed::workspace(&model, &[], "example");
    let observed = ws.plan().clone();
    assert_eq!(observed.segment_count(), 7);
    let op = |ws: &skope::workspace::Workspace, name: &str| {
        ws.graph()
            .ops()
            .iter()
            .position(|o| o.name == name)
            .map(|i| skope::graph::OpId(i as u32))
            .unwrap()
    };
    // lm_head into moe_1: it joins the SuperKernel of the 40-core kernel before it.
    let lm = op(&ws, "MatMulV2_lm_head_5e5e#67");
    ws.apply(
        Edit::Assign {
            ops: vec![lm],
            scope: "moe_1".into(),
        },
        None,
    )
    .unwrap();
    let plan = ws.plan();
    let moe_1 = plan.scopes.iter().find(|s| s.name == "moe_1").unwrap();
    let last = moe_1.segments.last().unwrap();
    let ids: Vec<String> = last
        .ops
        .iter()
        .map(|&id| ws.graph().op(id).name.clone())
        .collect();
    assert_eq!(
        ids,
        ["MoeFinalizeRouting_77e0#63", "MatMulV2_lm_head_5e5e#67"]
    );
    assert_eq!(last.name, "moe_1_3");
    assert!(
        plan.findings[0]
            .message
            .starts_with("skope's prediction after your edits")
    );
    // The Cast kept out by its unnamed scope fuses once it is put into a scope.
    let cast = op(&ws, "Cast_f00d#33");
    ws.apply(
        Edit::NewScope {
            ops: vec![cast],
            scope: "cast".into(),
            options: String::new(),
        },
        None,
    )
    .unwrap();
    let cast_scope = ws.plan().scopes.iter().find(|s| s.name == "cast").unwrap();
    assert_eq!(cast_scope.segments.len(), 1);
    // Options are per graph here: an options edit is refused with what to do instead.
    let e = ws
        .apply(
            Edit::SetOptions {
                scope: "moe_1".into(),
                options: "early-start=1".into(),
            },
            None,
        )
        .unwrap_err();
    assert!(matches!(e, EditError::Refused(_)));
    assert!(e.to_string().contains("skope options --aclgraph"));
    // Undoing every edit shows what the pass did again.
    ws.undo();
    ws.undo();
    assert_eq!(ws.plan(), &observed);
}

#[test]
fn device_time_and_profiles_join_the_superkernels() {
    use skope::aclgraph::observed::{ATTR_DEVICE_US, ATTR_SK_DEVICE_US};
    use skope::profile::kernels::KernelTable;
    use skope::profile::per_op::per_op;
    use skope::profile::planned::PlannedFusion;
    let (model, _) = open(&example()).unwrap();
    let ws = skope::aclgraph::observed::workspace(&model, &[], "example");
    let op = |name: &str| ws.graph().ops().iter().find(|o| o.name == name).unwrap();
    // Per-sub-op device time on each fused task; the SuperKernel's on its launch task.
    let rms = op("RmsNorm_5cce7ee1#4");
    let us = match rms.attrs.get(ATTR_DEVICE_US) {
        Some(skope::graph::AttrValue::Float(us)) => *us,
        other => panic!("{other:?}"),
    };
    // Two cores ran it: 4.5 and 4.6 µs.
    assert!((us - 4.55).abs() < 1e-9, "{us}");
    assert!(rms.attrs.get(ATTR_SK_DEVICE_US).is_some());
    assert!(op("Cast_f00d#33").attrs.get(ATTR_DEVICE_US).is_none());
    // kernel_details rows of type SuperKernel join their SuperKernel by its name.
    let dir = crate::common::scratch("aclgraph-prof");
    let csv = dir.join("kernel_details.csv");
    std::fs::write(
        &csv,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n\
         1,sk_14_attn_0_start_RmsNorm_5cce7ee1_end_ApplyRotaryPosEmb_9ef39792,SuperKernel,MIX_AIC,\"1.0\t\",12.5,0.5,24\n\
         1,sk_99_gone,SuperKernel,MIX_AIC,\"20.0\t\",3.0,0.5,24\n",
    )
    .unwrap();
    let table = KernelTable::read(&[csv]).unwrap();
    let planned = PlannedFusion::from_workspace(&ws, "example");
    let joined = per_op(&planned, &table, Some(&table), (1, 1));
    let sk14 = joined
        .segments
        .iter()
        .find(|s| s.segment == "sk_14")
        .unwrap();
    assert_eq!(sk14.new_us, Some(12.5));
    assert_eq!(joined.unmatched_superkernels, ["sk_99_gone"]);
}

/// Writes a model directory of `tasks` (kind, stream, func or event, numBlocks) and the given
/// fused-nodes and fail-reasons log lines.
fn write_model(tag: &str, tasks: &[(&str, u32, &str, u64)], fused: &str, fail: &str) -> PathBuf {
    use serde_json::json;
    let dir = crate::common::scratch(&format!("aclgraph-{tag}")).join("sk_meta/1/model_1_1");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let node = |(id, (kind, stream, what, blocks)): (usize, &(&str, u32, &str, u64))| {
        let info = match *kind {
            "KERNEL" => json!({"taskId": id, "streamId": stream, "taskType": "KERNEL",
                "kernelParams": {"funcName": what, "numBlocks": blocks, "kernelType": "AIV_ONLY",
                "resolvedNum": 1, "taskRatio": [0, 1]}}),
            _ => json!({"taskId": id, "streamId": stream, "taskType": kind,
                "eventParams": {"eventId": what.parse::<u64>().unwrap(), "eventFlag": 0, "eventTaskFlag": 0}}),
        };
        let marker = what.starts_with("sk_scope_kernel_begin");
        json!({"nodeId": id, "streamIdxInGraph": stream, "nodeType": kind,
            "scopeName": if marker || what.starts_with("sk_scope_kernel_end") { json!("full_model") } else { json!(null) },
            "taskInfo": [info]})
    };
    let streams: Vec<serde_json::Value> = (0..2u32)
        .map(|s| {
            let nodes: Vec<serde_json::Value> = tasks
                .iter()
                .enumerate()
                .filter(|(_, t)| t.1 == s)
                .map(node)
                .collect();
            json!({"streamIdxInGraph": s, "nodes": nodes})
        })
        .collect();
    let graph = json!({"version": "1.0", "modelId": "1_1", "deviceId": 0, "options": {}, "streams": streams});
    std::fs::write(dir.join(layout::GRAPH_ORIGIN), graph.to_string()).unwrap();
    std::fs::write(dir.join(layout::FUSED_NODES), fused).unwrap();
    std::fs::write(dir.join(layout::FAIL_REASONS), fail).unwrap();
    dir
}

#[test]
fn a_deadlock_split_is_shown_and_the_prediction_says_it_does_not_model_it() {
    // vLLM-Ascend wraps the whole capture in one scope; stream 1 waits (task 4) for a notify
    // (task 6) that comes later on stream 0: the pass splits at the wait.
    let tasks = [
        ("KERNEL", 0, "sk_scope_kernel_begin_dav_2201", 1),
        ("KERNEL", 0, "Add_aaaa", 40),
        ("KERNEL", 0, "Mul_bbbb", 40),
        ("KERNEL", 1, "Cast_cccc", 40),
        ("WAIT", 1, "7", 0),
        ("KERNEL", 0, "Sub_dddd", 40),
        ("NOTIFY", 0, "7", 0),
        ("KERNEL", 1, "Div_eeee", 40),
        ("KERNEL", 0, "sk_scope_kernel_end_dav_2201", 1),
    ];
    let fmt = |id: u64, s: u32| {
        format!("[nodeId:{id}, streamId:{s}, streamIdxInGraph:{s}, nodeIdxInStream:0]")
    };
    let fused = format!(
        "  SK Function: sk_3_full_model_start_Add_aaaa_end_Cast_cccc, scope id: 3, Node Count: 3\n    [0] {}\n    [1] {}\n    [2] {}\n\
         \x20 SK Function: sk_5_full_model_start_Sub_dddd_end_Div_eeee, scope id: 5, Node Count: 2\n    [0] {}\n    [1] {}\n",
        fmt(1, 0),
        fmt(2, 0),
        fmt(3, 1),
        fmt(5, 0),
        fmt(7, 1)
    );
    let fail = "unfusible kernel:\n[PrintFusedScopes] scopes after fusion: DEBUG_PER_OP_MAX_CORE=false\n\
                \x20 scopeId=3, scopeBitFlag=1\n    fusedNodeIds=[1, 2, 3];\n    scopeStatus=SUCCESS\n\
                \x20   breakReason=[breakReason=DEADLOCK_DETECTED, triggerNode=7, triggerStream=1, detail=\"Deadlock at node 7, split at Wait node 4\"], breakReasonDetail=deadlock, scopeName=[full_model]\n\
                \x20 scopeId=5, scopeBitFlag=1\n    fusedNodeIds=[5, 7];\n    scopeStatus=SUCCESS\n";
    let dir = write_model("deadlock", &tasks, &fused, fail);
    let (model, _) = open(&dir).unwrap();
    assert_eq!(model.sks.len(), 2);
    let report = skope::aclgraph::report::AclReport::new(&model, &[]);
    let text = report.to_text();
    assert!(
        text.contains("cut at task 7 Div_eeee (stream 1): DEADLOCK_DETECTED — the deadlock check split the scope at a wait"),
        "{text}"
    );
    assert!(
        text.contains("Deadlock at node 7, split at Wait node 4"),
        "{text}"
    );
    // Without the deadlock check the prediction fuses the whole scope, and says so.
    assert_eq!(report.prediction.matched, 0);
    assert_eq!(report.prediction.predicted, 1);
    assert!(text.contains("not modelled: the deadlock check"), "{text}");
    // The graph opens in the explorer's plan with the deadlock cut as a break.
    let ws = skope::aclgraph::observed::workspace(&model, &[], "deadlock");
    let b = &ws.plan().scopes[0].breaks[0];
    assert_eq!(b.reason.code(), "DEADLOCK_DETECTED");
}

#[test]
fn the_simplified_sk_prof_trace_reads_by_graph_node_and_is_found_at_the_run_root() {
    use skope::aclgraph::device::{SubOp, records};
    // The SuperKernel team's form: wrapped in traceEvents, kernelType beside the graph node id.
    let simplified = br#"{"traceEvents": [
        {"ph":"X","name":"RmsNorm_5cce7ee1","ts":10.0,"dur":4.0,"args":{"skId":14,"nodeId":4,"kernelType":"AIV_ONLY"}},
        {"ph":"X","name":"QuantBatchMatmulV3_d237d73d","ts":15.0,"dur":6.0,"args":{"skId":14,"nodeId":5,"kernelType":"AIC_ONLY"}},
        {"ph":"X","name":"sk_14_attn_0_start_RmsNorm_5cce7ee1_end_ApplyRotaryPosEmb_9ef39792","ts":9.0,"dur":14.0,"args":{"skId":14,"nodeId":4294967295,"kernelType":"MIX_AIC"}}
    ], "displayTimeUnit": "us"}"#;
    let r = records(simplified).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!((r[0].sub_op, r[0].cube), (Some(SubOp::Node(4)), false));
    assert_eq!((r[1].sub_op, r[1].cube), (Some(SubOp::Node(5)), true));
    assert_eq!(r[2].sub_op, None);
    assert_eq!(SubOp::Node(812).label(), "#812");
    // The per-core list keeps positions.
    let listed = br#"[{"ph":"X","name":"[0/40]Add","pid":"AIV","tid":1,"ts":1.0,"dur":2.0,"args":{"skId":7,"nodeId":3}},{}]"#;
    assert_eq!(records(listed).unwrap()[0].sub_op, Some(SubOp::Position(3)));

    // Where the team's pipeline keeps it: the run's root, beside sk_meta/.
    let model = copy_of_example("simplified");
    std::fs::remove_file(model.parent().unwrap().join("sk_prof_device_0.json")).unwrap();
    let root = model.parent().unwrap().parent().unwrap().parent().unwrap();
    std::fs::write(root.join("sk_prof_simplified.json"), simplified).unwrap();
    assert_eq!(
        layout::timing_files(&model),
        [root.join("sk_prof_simplified.json")]
    );
    // Sub-op device time joins the graph's task by its node id.
    let (m, _) = open(root).unwrap();
    let ws = skope::aclgraph::observed::workspace(&m, &[], "example");
    let rms = ws
        .graph()
        .ops()
        .iter()
        .find(|o| o.name == "RmsNorm_5cce7ee1#4")
        .unwrap();
    assert_eq!(
        rms.attrs.get(skope::aclgraph::observed::ATTR_DEVICE_US),
        Some(&skope::graph::AttrValue::Float(4.0))
    );
}

#[test]
fn the_newer_split_log_framing_reads_and_a_split_marker_keeps_its_trigger_inside() {
    let split = "========== Scope split results begin: pass=InitialScopeSplitPass, totalScopes=2 ==========\n\
                 Scope 0 (scopeId=5): 2 nodes, 1 streams, scopeBitFlags=1, scopeNames=[attn]\n\
                 \x20 BreakInfo: breakReason=UNFUSIBLE_NODE, triggerNode=12, triggerStream=94\n\
                 \x20   [0] [nodeId:10, streamId:94] - KernelInfos{funcName:DynamicQuant}\n\
                 \x20   [1] [nodeId:11, streamId:94] - EventNotify(eventId:1)\n\
                 Scope 1 (scopeId=6): 1 nodes, 1 streams, scopeBitFlags=1, scopeNames=[attn]\n\
                 \x20 BreakInfo: breakReason=NONE\n\
                 \x20   [0] [nodeId:13, streamId:94] - KernelInfos{funcName:MatMulV2}\n\
                 ========== Scope split results end: pass=InitialScopeSplitPass ==========\n";
    let logs::ScopeSplit {
        pass,
        scopes,
        snapshots,
        ..
    } = logs::scope_split(split);
    assert_eq!((pass.as_str(), snapshots), ("InitialScopeSplitPass", 1));
    assert_eq!(scopes.len(), 2, "{scopes:?}");
    assert_eq!(scopes[0].node_ids, [10, 11]);
    assert_eq!(
        scopes[0].nodes[1].node_type,
        Some(skope::aclgraph::graph_json::NodeType::Notify)
    );
    assert_eq!(scopes[1].node_ids, [13]);
    // The same without the rules around the begin and end lines.
    let bare = split.replace("========== ", "").replace(" ==========", "");
    let again = logs::scope_split(&bare);
    assert_eq!(again.scopes, scopes);
    assert_eq!(again.snapshots, 1);
}

#[test]
fn the_markers_record_the_target_and_on_dav_3510_a_simt_kernel_is_predicted_unfused() {
    let model_for = |arch: &str| {
        let tasks = [
            (
                "KERNEL",
                0,
                &*format!("sk_scope_kernel_begin_dav_{arch}"),
                1,
            ),
            ("KERNEL", 0, "Add_aaaa", 40),
            ("KERNEL", 0, "Simt_ffff", 40),
            ("KERNEL", 0, "Mul_bbbb", 40),
            ("KERNEL", 0, &*format!("sk_scope_kernel_end_dav_{arch}"), 1),
        ];
        let dir = write_model(&format!("simt-{arch}"), &tasks, "", "");
        let graph = dir.join(layout::GRAPH_ORIGIN);
        let text = std::fs::read_to_string(&graph).unwrap();
        let simt = text.replace(
            "\"funcName\":\"Simt_ffff\"",
            "\"funcName\":\"Simt_ffff\",\"isSimtOp\":1",
        );
        assert_ne!(simt, text, "the SIMT flag is written");
        std::fs::write(&graph, simt).unwrap();
        open(&dir).unwrap().0
    };
    let simt_reason = |model: &skope::aclgraph::AclModel| {
        let p = skope::aclgraph::predict::predict(model);
        p.unfusible[2].map(|u| u.key)
    };
    // A2/A3: the SIMT check is off, the kernel fuses.
    let a2 = model_for("2201");
    assert_eq!(a2.target.target, skope::target::Target::Dav2201);
    assert!(
        a2.target
            .words()
            .contains("recorded in sk_graph_origin.json"),
        "{}",
        a2.target.words()
    );
    assert_eq!(simt_reason(&a2), None);
    // Ascend 950: the runtime forces the SIMT check on (and says what it forces).
    let a5 = model_for("3510");
    assert_eq!(a5.target.target, skope::target::Target::Dav3510);
    assert_eq!(simt_reason(&a5), Some("SIMT_OP_UNSUPPORT"));
    let text = skope::aclgraph::report::AclReport::new(&a5, &[]).to_text();
    assert!(text.contains("target: dav-3510 (Ascend 950"), "{text}");
    assert!(text.contains("forces enable_mix_kernel_split"), "{text}");
}
