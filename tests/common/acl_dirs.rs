//! Model directories of the aclgraph pass as users hand them over, written from the documented
//! formats (reference/aclgraph_superkernel.md §4.2, §4.4, §9.2–9.3) with the quirks real and
//! team-written files have: log lines with and without the file logger's prefix, node lines
//! with and without the `[i]` index and the stream indices, comment-only logs, repeated split
//! snapshots, a header whose node count is not its lines', reasons by key, by number and in
//! free text.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A kernel task.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub node_id: u64,
    pub func: String,
    pub kernel_type: &'static str,
    pub blocks: u64,
    pub sche_mode: bool,
    pub cap: u64,
    /// False for a kernel whose bind map resolved nothing (`resolvedNum` 0: `OP_UNSUPPORT`).
    pub supported: bool,
}

/// A task of a graph: a kernel or a scope marker.
#[derive(Debug, Clone)]
pub enum Node {
    Kernel(Kernel),
    Begin(u64, String),
    End(u64, String),
}

impl Node {
    fn id(&self) -> u64 {
        match self {
            Node::Kernel(k) => k.node_id,
            Node::Begin(id, _) | Node::End(id, _) => *id,
        }
    }
}

/// The runtime stream id every task of these graphs is on.
pub const STREAM_ID: u64 = 2;

fn ratio(kernel_type: &str) -> (u64, u64) {
    match kernel_type {
        "AIC_ONLY" => (1, 0),
        "AIV_ONLY" => (0, 1),
        "MIX_1_1" => (1, 1),
        _ => (1, 2),
    }
}

/// A kernel's `Format()` text: the C++ shape (`[nodeId:…, streamId:…, streamIdxInGraph:…,
/// nodeIdxInStream:…] - KernelInfos{…}`), or the team's shorter one without the stream
/// indices.
pub fn node_text(k: &Kernel, full: bool) -> String {
    let (c, v) = ratio(k.kernel_type);
    let head = if full {
        format!(
            "[nodeId:{}, streamId:{STREAM_ID}, streamIdxInGraph:0, nodeIdxInStream:{}]",
            k.node_id, k.node_id
        )
    } else {
        format!("nodeId:{}, streamId:{STREAM_ID}", k.node_id)
    };
    format!(
        "{head} - KernelInfos{{funcName:{}, kernelType:{}, taskRatio:[{c},{v}], cap:{:#x}, \
         numBlocks:{}, cubeNum:0, vecNum:0, isScheModeOn:{}, needMixKernelSplit:0, resolvedNum:1}}",
        k.func,
        k.kernel_type,
        k.cap,
        k.blocks,
        u8::from(k.sche_mode)
    )
}

/// `line` with the file logger's prefix for function `func`.
pub fn prefixed(func: &str, line: &str) -> String {
    format!("2026-09-20 08:00:01.123 [4242:4243] [INFO] [sk_graph.cpp:1319] [{func}] {line}")
}

/// A graph file of `nodes` (one stream) with `options` (name → value) and, for the updated
/// file, `launches` (node id → skinfos) whose tasks become `entry` kernels.
pub fn graph_json(
    model_id: &str,
    nodes: &[Node],
    options: &[(&str, Value)],
    launches: &[(u64, Value, &str)],
) -> String {
    let mut opts = serde_json::Map::new();
    for (name, value) in options {
        opts.insert(
            name.to_string(),
            json!({"name": name, "type": 0, "value": value}),
        );
    }
    opts.insert(
        "inner_options".into(),
        json!({"enable_mix_kernel_split": 0}),
    );
    let json_nodes: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(k, n)| {
            let mut node = json!({
                "nodeId": n.id(), "streamIdxInGraph": 0, "nodeIdxInStream": k,
                "nodeType": "KERNEL", "scopeName": null, "isScopeNode": false,
                "isScopeBegin": false, "isScopeEnd": false, "isScopePlaceholder": false,
                "preNodeId": "none", "nextNodeId": "none",
            });
            let (func, kernel_type, blocks, cap, resolved) = match n {
                Node::Kernel(kernel) => (
                    kernel.func.clone(),
                    kernel.kernel_type,
                    kernel.blocks,
                    kernel.cap,
                    u8::from(kernel.supported),
                ),
                Node::Begin(_, scope) => {
                    node["isScopeNode"] = json!(true);
                    node["isScopeBegin"] = json!(true);
                    node["scopeName"] = json!(scope);
                    ("sk_scope_kernel_begin_dav_2201".into(), "AIV_ONLY", 1, 0, 1)
                }
                Node::End(_, scope) => {
                    node["isScopeNode"] = json!(true);
                    node["isScopeEnd"] = json!(true);
                    node["scopeName"] = json!(scope);
                    ("sk_scope_kernel_end_dav_2201".into(), "AIV_ONLY", 1, 0, 1)
                }
            };
            let launch = launches.iter().find(|(id, ..)| *id == n.id());
            let func = launch.map_or(func, |(_, _, entry)| entry.to_string());
            let (c, v) = ratio(kernel_type);
            node["taskInfo"] = json!([{
                "taskId": n.id(), "streamId": STREAM_ID, "taskType": "KERNEL", "taskTypeInt": 1,
                "kernelParams": {"funcName": func, "numBlocks": blocks, "cap": format!("{cap:#x}"),
                    "kernelType": kernel_type, "taskRatio": [c, v], "isSimtOp": 0,
                    "taskGrp": "0x0", "resolvedNum": resolved}
            }]);
            if let Some((_, skinfo, _)) = launch {
                node["skinfos"] = skinfo.clone();
            }
            node
        })
        .collect();
    serde_json::to_string_pretty(&json!({
        "version": "1.0", "description": "SuperKernel Raw Task Information from modelRI",
        "modelId": model_id, "deviceId": 0, "options": opts,
        "totalStreams": 1, "totalNodes": nodes.len(),
        "streams": [{"streamIdxInGraph": 0, "nodeCount": nodes.len(), "nodes": json_nodes}]
    }))
    .unwrap_or_default()
}

fn kernel(node_id: u64, func: &str, kernel_type: &'static str, blocks: u64) -> Kernel {
    Kernel {
        node_id,
        func: func.to_string(),
        kernel_type,
        blocks,
        sche_mode: false,
        cap: 0,
        supported: true,
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn model_dir(root: &Path, model: &str) -> PathBuf {
    let dir = root.join("sk_meta").join("4242").join(model);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// What the logs-only directory holds, for the tests to hold skope's answers against.
pub struct LogsOnly {
    /// The model directory.
    pub dir: PathBuf,
    /// `SK Function:` headers.
    pub superkernels: usize,
    /// Node lines under them.
    pub nodes: usize,
    /// Scopes of the final split block.
    pub scopes: usize,
    /// Their breaks other than NONE.
    pub breaks: usize,
    /// Split result blocks as written, and the different ones.
    pub snapshots: (usize, usize),
    /// The scope id of the SuperKernel whose header's count is wrong.
    pub untrusted: u64,
}

/// A model directory with only the logs (no graph file): three SuperKernels of one
/// `full_model` scope — one listed in the C++ shape with prefixes, one in the team's shape, one
/// whose header says 4 nodes over 3 lines — unfusible kernels with a reason by key, by number
/// and in free text, three split snapshots of which two are the same, and a comment-only node
/// detail log.
pub fn logs_only(root: &Path) -> LogsOnly {
    let dir = model_dir(root, "model_7_1");
    let k = |id, f: &str, t| kernel(id, f, t, 40);
    let sk3 = [
        k(2, "RmsNorm_aa11", "AIV_ONLY"),
        k(3, "QuantBatchMatmulV3_bb22", "AIC_ONLY"),
        k(4, "FusedInferAttentionScore_cc33", "MIX_1_2"),
    ];
    let unfusible = [
        (
            k(5, "MoeGatingTopK_dd44", "AIV_ONLY"),
            "OP_UNSUPPORT [BINDMAP_INIT_EMPTY]",
            "Failed to resolve SuperKernel bind map for the operator, bindmap init empty",
        ),
        (
            k(9, "SimtGather_ee55", "AIV_ONLY"),
            "15",
            "the kernel is a SIMT kernel",
        ),
        (
            k(13, "CustomScatter_ff66", "AIV_ONLY"),
            "The operator does not support the operation of fusing SuperKernel",
            "",
        ),
    ];
    let sk6 = [
        k(6, "GroupedMatmul_a1", "AIC_ONLY"),
        k(7, "SwiGluQuant_a2", "AIV_ONLY"),
        k(8, "GroupedMatmul_a3", "AIC_ONLY"),
    ];
    let sk11 = [
        k(10, "MoeFinalizeRouting_a4", "AIV_ONLY"),
        k(11, "Add_a5", "AIV_ONLY"),
        k(12, "MatMulV2_a6", "AIC_ONLY"),
    ];
    let sk_name = |id: u64, ks: &[Kernel]| {
        format!(
            "sk_{id}_full_model_start_{}_end_{}",
            ks[0].func,
            ks[ks.len() - 1].func
        )
    };
    // sk_fused_nodes.log: the C++ shape with prefixes, the team's shape without, a wrong count.
    let mut fused = String::new();
    let f = "DumpFusedNodes";
    fused += &prefixed(
        f,
        &format!(
            "  SK Function: {}, scope id: 3, Node Count: 3\n",
            sk_name(3, &sk3)
        ),
    );
    for (i, n) in sk3.iter().enumerate() {
        fused += &prefixed(f, &format!("    [{i}] {}\n", node_text(n, true)));
    }
    fused += &format!(
        "SK Function: {}, scope id: 6, Node Count: 3\n",
        sk_name(6, &sk6)
    );
    for n in &sk6 {
        fused += &format!("{}\n", node_text(n, false));
    }
    fused += &format!(
        "  SK Function: {}, scope id: 11, Node Count: 4\n",
        sk_name(11, &sk11)
    );
    for (i, n) in sk11.iter().enumerate() {
        fused += &format!("    [{i}] {}\n", node_text(n, i % 2 == 0));
    }
    write(&dir, "sk_fused_nodes.log", &fused);

    // sk_fusion_fail_reasons.log: unfusible kernels, the original scope, the fused scopes.
    let mut fail = String::from("# reasons as the runtime wrote them\n");
    let d = "DumpFusionFailReasons";
    fail += &prefixed(d, "unfusible kernel:\n");
    for (n, reason, detail) in &unfusible {
        let tail = if detail.is_empty() {
            String::new()
        } else {
            format!(", reasonDetail: {detail}")
        };
        fail += &prefixed(
            d,
            &format!("Node {}: reason: {reason}{tail}\n", node_text(n, true)),
        );
    }
    let all: Vec<String> = (0..=14).map(|i| i.to_string()).collect();
    fail += &prefixed(
        "PrintOriginalScopes",
        "  scopeId=0, scopeFlags=1, scopeNames=[full_model], totalNodes=15\n",
    );
    fail += &prefixed(
        "PrintOriginalScopes",
        &format!("    nodeIds: [{}]\n", all.join(", ")),
    );
    let p = "PrintFusedScopes";
    fail += &prefixed(p, "scopes after fusion: DEBUG_PER_OP_MAX_CORE=false\n");
    let breaks = [
        (3, &sk3[..], Some((5, "UNFUSIBLE_NODE"))),
        (6, &sk6[..], Some((9, "UNFUSIBLE_NODE"))),
        (11, &sk11[..], Some((13, "UNFUSIBLE_NODE"))),
    ];
    for (id, ks, cut) in &breaks {
        let ids: Vec<String> = ks.iter().map(|k| k.node_id.to_string()).collect();
        fail += &prefixed(p, &format!("  scopeId={id}, scopeBitFlag=1\n"));
        fail += &prefixed(p, &format!("    fusedNodeIds=[{}];\n", ids.join(", ")));
        fail += &prefixed(p, "    scopeStatus=SUCCESS\n");
        if let Some((trigger, reason)) = cut {
            fail += &prefixed(
                p,
                &format!(
                    "    breakReason=[breakReason={reason}, triggerNode={trigger}, triggerStream=0, \
                     detail=\"unfused node causes scope break\"], breakReasonDetail=There exists \
                     unfusible node in scope, scopeName=[full_model]\n"
                ),
            );
        }
    }
    write(&dir, "sk_fusion_fail_reasons.log", &fail);

    // sk_scope_split.log: the first block twice (the pass writes it again), then the final one.
    let block = |pass: &str, scopes: &[(u64, &[Kernel], &str)]| {
        let mut out = prefixed(
            "ScopeSplit",
            &format!(
                "========== Scope split results begin: pass={pass}, totalScopes={} ==========\n",
                scopes.len()
            ),
        );
        for (k, (id, ks, info)) in scopes.iter().enumerate() {
            out += &format!(
                "Scope {k} (scopeId={id}): {} nodes, 1 streams, scopeBitFlags=1, scopeNames=[full_model]\n",
                ks.len()
            );
            out += &format!("  BreakInfo: {info}\n");
            for (i, n) in ks.iter().enumerate() {
                out += &format!("    [{i}] {}\n", node_text(n, true));
            }
            out += &format!(
                "  Scope {k} StreamInfo[0]: streamIdx=0, headNode={}, tailNode={}, nodeSize={}\n",
                ks[0].node_id,
                ks[ks.len() - 1].node_id,
                ks.len()
            );
        }
        out
    };
    let whole: Vec<Kernel> = sk3
        .iter()
        .chain(sk6.iter())
        .chain(sk11.iter())
        .cloned()
        .collect();
    let first = block("InitialScopeSplitPass", &[(1, &whole, "breakReason=NONE")]);
    let cut = |t: u64| {
        format!(
            "breakReason=UNFUSIBLE_NODE, triggerNode={t}, triggerStream=0, detail=\"unfused node causes scope break\""
        )
    };
    let (c5, c9, c13) = (cut(5), cut(9), cut(13));
    let last = block(
        "ScopeSplitPipelineFinal",
        &[(3, &sk3, &c5), (6, &sk6, &c9), (11, &sk11, &c13)],
    );
    write(
        &dir,
        "sk_scope_split.log",
        &format!("==========[ScopeSplitPipeline] iteration 0==========\n{first}{first}{last}"),
    );
    write(&dir, "sk_node_detail.log", "# no node detail\n");
    LogsOnly {
        dir,
        superkernels: 3,
        nodes: 9,
        scopes: 3,
        breaks: 3,
        snapshots: (3, 2),
        untrusted: 11,
    }
}

/// The kernels of decoder layer `l` (node ids from `base`): attention, an unsupported gating
/// kernel, the experts, a ScheMode kernel that drops the cores, the finalize.
fn layer_kernels(l: u64, base: u64) -> Vec<Kernel> {
    let mut ks = vec![
        kernel(base, &format!("RmsNorm_l{l}"), "AIV_ONLY", 40),
        kernel(base + 1, &format!("QkvMatmul_l{l}"), "AIC_ONLY", 24),
        kernel(
            base + 2,
            &format!("FusedInferAttentionScore_l{l}"),
            "MIX_1_2",
            24,
        ),
        kernel(base + 3, &format!("MoeGatingTopK_l{l}"), "AIV_ONLY", 40),
        kernel(base + 4, &format!("GroupedMatmul_up_l{l}"), "AIC_ONLY", 24),
        kernel(base + 5, &format!("SwiGluQuant_l{l}"), "AIV_ONLY", 40),
        kernel(
            base + 6,
            &format!("GroupedMatmul_down_l{l}"),
            "AIC_ONLY",
            24,
        ),
        kernel(
            base + 7,
            &format!("GroupedMatmulFinalizeRouting_l{l}"),
            "AIC_ONLY",
            8,
        ),
        kernel(
            base + 8,
            &format!("MoeFinalizeRouting_l{l}"),
            "AIV_ONLY",
            40,
        ),
    ];
    ks[3].supported = false;
    ks[7].sche_mode = true;
    ks
}

/// A SuperKernel the fixture builds: its scope id, name, kernels and the cut that ends it
/// (trigger, reason, detail).
type Built = (
    u64,
    String,
    Vec<Kernel>,
    Option<(u64, &'static str, String)>,
);

/// What the whole-model directory holds.
pub struct WholeModel {
    /// The model directory.
    pub dir: PathBuf,
    /// Layers.
    pub layers: u64,
    /// SuperKernels built (segments of `full_model`).
    pub superkernels: usize,
}

/// A model directory of one `full_model` scope over four decoder layers (each a scope nested in
/// it), split into 17 SuperKernels: per layer at an unsupported gating kernel and where a
/// ScheMode kernel drops and raises the cores, and at each layer's end; the LM head closes it.
pub fn whole_model(root: &Path) -> WholeModel {
    let dir = model_dir(root, "model_9_1");
    let layers = 4;
    let mut nodes = vec![Node::Begin(0, "full_model".into())];
    let mut next = 1;
    let mut sks: Vec<Built> = Vec::new();
    let mut unfusible = Vec::new();
    let mut scope_id = 100;
    for l in 0..layers {
        let scope = format!("layers.{l}");
        nodes.push(Node::Begin(next, scope.clone()));
        let ks = layer_kernels(l, next + 1);
        next += 1 + ks.len() as u64;
        nodes.extend(ks.iter().cloned().map(Node::Kernel));
        nodes.push(Node::End(next, scope.clone()));
        next += 1;
        let label = format!("full_model_{scope}");
        let mut push = |part: &[Kernel], cut: Option<(u64, &'static str, String)>| {
            scope_id += 1;
            let name = format!(
                "sk_{scope_id}_{label}_start_{}_end_{}",
                part[0].func,
                part[part.len() - 1].func
            );
            sks.push((scope_id, name, part.to_vec(), cut));
        };
        push(
            &ks[0..3],
            Some((
                ks[3].node_id,
                "UNFUSIBLE_NODE",
                "unfused node causes scope break".into(),
            )),
        );
        unfusible.push(ks[3].clone());
        push(
            &ks[4..7],
            Some((
                ks[7].node_id,
                "SYNCALL_OP_DROP",
                format!(
                    "ScheMode core drop at node {}: merged(24,40) -> cur(8,16)",
                    ks[7].node_id
                ),
            )),
        );
        push(
            &ks[7..8],
            Some((
                ks[8].node_id,
                "SYNCALL_OP_DROP",
                format!(
                    "ScheMode core rise at node {}: merged(8,16) -> cur(0,40)",
                    ks[8].node_id
                ),
            )),
        );
        push(&ks[8..9], None);
    }
    let head = kernel(next, "MatMulV2_lm_head", "AIC_ONLY", 24);
    nodes.push(Node::Kernel(head.clone()));
    nodes.push(Node::End(next + 1, "full_model".into()));
    scope_id += 1;
    sks.push((
        scope_id,
        format!("sk_{scope_id}_full_model_start_{0}_end_{0}", head.func),
        vec![head],
        None,
    ));
    write(
        &dir,
        "sk_graph_origin.json",
        &graph_json("9_1", &nodes, &[("preload_code", json!(1))], &[]),
    );
    let mut fused = String::new();
    let mut fail = prefixed("DumpFusionFailReasons", "unfusible kernel:\n");
    for n in &unfusible {
        fail += &prefixed(
            "DumpFusionFailReasons",
            &format!(
                "Node {}: reason: OP_UNSUPPORT [BINDMAP_INIT_EMPTY], reasonDetail: Failed to \
                 resolve SuperKernel bind map for the operator, bindmap init empty\n",
                node_text(n, true)
            ),
        );
    }
    fail += &prefixed(
        "PrintFusedScopes",
        "scopes after fusion: DEBUG_PER_OP_MAX_CORE=false\n",
    );
    for (id, name, ks, cut) in &sks {
        fused += &format!(
            "  SK Function: {name}, scope id: {id}, Node Count: {}\n",
            ks.len()
        );
        for (i, k) in ks.iter().enumerate() {
            fused += &format!("    [{i}] {}\n", node_text(k, true));
        }
        let ids: Vec<String> = ks.iter().map(|k| k.node_id.to_string()).collect();
        fail += &format!("  scopeId={id}, scopeBitFlag=11\n");
        fail += &format!("    fusedNodeIds=[{}];\n", ids.join(", "));
        fail += "    scopeStatus=SUCCESS\n";
        if let Some((trigger, reason, detail)) = cut {
            fail += &format!(
                "    breakReason=[breakReason={reason}, triggerNode={trigger}, triggerStream=0, \
                 detail=\"{detail}\"], breakReasonDetail=x, scopeName=[full_model]\n"
            );
        }
    }
    write(&dir, "sk_fused_nodes.log", &fused);
    write(&dir, "sk_fusion_fail_reasons.log", &fail);
    WholeModel {
        dir,
        layers,
        superkernels: sks.len(),
    }
}

/// A directory of the per-op debug mode: the option in the graph file, the flag in the fused
/// listing, one kernel per SuperKernel on the `_op_trace` entry, a comment-only split log.
pub fn per_op(root: &Path) -> PathBuf {
    let dir = model_dir(root, "model_5_1");
    let ks = layer_kernels(0, 2);
    let mut nodes = vec![Node::Begin(1, "full_model".into())];
    nodes.extend(ks.iter().cloned().map(Node::Kernel));
    nodes.push(Node::End(11, "full_model".into()));
    let options = [
        ("preload_code", json!(1)),
        ("debug_per_op_max_core_num", json!(1)),
    ];
    write(
        &dir,
        "sk_graph_origin.json",
        &graph_json("5_1", &nodes, &options, &[]),
    );
    let mut fused = String::new();
    let mut fail = prefixed(
        "PrintFusedScopes",
        "scopes after fusion: DEBUG_PER_OP_MAX_CORE=true\n",
    );
    for (i, k) in ks.iter().enumerate() {
        let id = 20 + i as u64;
        fused += &format!(
            "  SK Function: sk_{id}_full_model_start_{0}_end_{0}, scope id: {id}, Node Count: 1\n    [0] {1}\n",
            k.func,
            node_text(k, true)
        );
        fail += &format!(
            "  scopeId={id}, scopeBitFlag=1\n    fusedNodeIds=[{}];\n    scopeStatus=SUCCESS\n",
            k.node_id
        );
    }
    write(&dir, "sk_fused_nodes.log", &fused);
    write(&dir, "sk_fusion_fail_reasons.log", &fail);
    write(&dir, "sk_scope_split.log", "# no scope breaks\n");
    dir
}

/// A directory with the two graph files only: the updated graph's `skinfos` are the only
/// record of the two SuperKernels built (one on the `_simt` entry), its options carry
/// `opt_extend_option` with a key skope does not know, its kernels the `BLOCKDIM_SCALE_UP`
/// capability.
pub fn graph_only(root: &Path) -> PathBuf {
    let dir = model_dir(root, "model_4_1");
    let mut ks = layer_kernels(0, 2);
    ks.truncate(3);
    for k in &mut ks {
        k.cap = 1 << 4;
    }
    let mut tail = [
        kernel(6, "GroupedMatmul_t1", "AIC_ONLY", 24),
        kernel(7, "SwiGluQuant_t2", "AIV_ONLY", 40),
    ];
    tail[1].cap = 1 << 4;
    let mut nodes = vec![Node::Begin(1, "full_model".into())];
    nodes.extend(ks.iter().cloned().map(Node::Kernel));
    let mut gating = kernel(5, "MoeGatingTopK_t0", "AIV_ONLY", 40);
    gating.supported = false;
    nodes.push(Node::Kernel(gating));
    nodes.extend(tail.iter().cloned().map(Node::Kernel));
    nodes.push(Node::End(8, "full_model".into()));
    let options = [
        ("preload_code", json!(1)),
        (
            "opt_extend_option",
            json!({"mix_kernel_split": ["1"], "simt_op_support": ["1"], "future_knob": ["2"]}),
        ),
    ];
    write(
        &dir,
        "sk_graph_origin.json",
        &graph_json("4_1", &nodes, &options, &[]),
    );
    let skinfo = |id: u32, a: &Kernel, z: &Kernel| {
        json!({"scopeId": id, "scopeName": "full_model",
               "startKernelFuncName": a.func, "endKernelFuncName": z.func})
    };
    let launches = [
        (2, skinfo(31, &ks[0], &ks[2]), "sk_entry_mix12_simt"),
        (6, skinfo(32, &tail[0], &tail[1]), "sk_entry_mix12"),
    ];
    write(
        &dir,
        "sk_graph_updated.json",
        &graph_json("4_1", &nodes, &options, &launches),
    );
    dir
}
