//! Reading the aclgraph pass's output: a generated ~100 MB `sk_graph_origin.json` in the
//! pass's layout (`streams[].nodes[]`, each with `taskInfo[0].kernelParams` and its
//! `resolvedFuncs`), parsed into tasks; and a model directory with only the logs of 100,000
//! fused tasks (1,000 SuperKernels of 100), read whole: the tasks from the node lines.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write;
use std::time::Duration;

const TARGET_BYTES: usize = 100 << 20;
const FUNCS: [(&str, &str, u64); 6] = [
    ("RmsNorm_5cce7ee1", "AIV_ONLY", 40),
    ("QuantBatchMatmulV3_d237d73d", "AIC_ONLY", 24),
    ("FusedInferAttentionScore_30ab9e11", "MIX_1_2", 24),
    ("GroupedMatmul_a1b2c3d4", "AIC_ONLY", 24),
    ("SwiGluQuant_0f0e0d0c", "AIV_ONLY", 40),
    ("MoeFinalizeRouting_77e0", "AIV_ONLY", 40),
];

/// One stream's nodes of about `TARGET_BYTES`, pretty-printed as the pass writes them.
fn generate() -> String {
    let mut out = String::with_capacity(TARGET_BYTES + (1 << 20));
    out.push_str(
        "{\n  \"version\": \"1.0\",\n  \"description\": \"SuperKernel Raw Task Information from modelRI\",\n  \
         \"modelId\": \"3_1\",\n  \"deviceId\": 0,\n  \"options\": {\"early_start\": {\"name\": \"early_start\", \
         \"type\": 16, \"value\": 0}},\n  \"streams\": [\n    {\n      \"streamIdxInGraph\": 0,\n      \"nodes\": [\n",
    );
    let mut i = 0u64;
    while out.len() < TARGET_BYTES {
        let (func, kind, blocks) = FUNCS[(i % FUNCS.len() as u64) as usize];
        if i > 0 {
            out.push_str(",\n");
        }
        let _ = write!(
            out,
            "        {{\n          \"nodeId\": {i},\n          \"streamIdxInGraph\": 0,\n          \
             \"nodeIdxInStream\": {i},\n          \"nodeType\": \"KERNEL\",\n          \"scopeName\": null,\n          \
             \"isScopeNode\": false,\n          \"preNodeId\": {},\n          \"nextNodeId\": {},\n          \
             \"taskInfo\": [\n            {{\n              \"taskId\": {i},\n              \"streamId\": 2,\n              \
             \"taskType\": \"KERNEL\",\n              \"taskTypeInt\": 1,\n              \"kernelParams\": {{\n                \
             \"funcName\": \"{func}\",\n                \"funcHandle\": \"0x7f{i:08x}\",\n                \
             \"numBlocks\": {blocks},\n                \"cap\": \"0x0\",\n                \"devargs\": \"0x12c08{i:05x}\",\n                \
             \"argsSize\": 64,\n                \"isHostArgs\": true,\n                \"binHandle\": \"0x55{i:08x}\",\n                \
             \"kernelTypeInt\": 0,\n                \"kernelType\": \"{kind}\",\n                \"needMixKernelSplit\": false,\n                \
             \"isSimtOp\": false,\n                \"taskRatio\": [1, 2],\n                \"opInfoPtr\": \"0x0\",\n                \
             \"opInfoSize\": 0,\n                \"taskGrp\": \"0x0\",\n                \"resolvedNum\": 1,\n                \
             \"resolvedFuncs\": [{{\"funcAddr\": [\"0x12c0800000\", \"0x12c0800400\"], \"prefetchCnt\": [2, 2], \
             \"funcOffset\": [0, 1024], \"symbolBind\": [0, 1]}}]\n              }}\n            }}\n          ]\n        }}",
            if i == 0 {
                "\"none\"".to_string()
            } else {
                (i - 1).to_string()
            },
            i + 1,
        );
        i += 1;
    }
    out.push_str("\n      ]\n    }\n  ]\n}\n");
    out
}

fn bench(c: &mut Criterion) {
    let text = generate();
    let mut group = c.benchmark_group("aclgraph");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("sk_graph_origin_100MB", |b| {
        b.iter(|| skope::aclgraph::graph_json::parse(text.as_bytes()).map(|g| g.tasks.len()))
    });
    group.finish();
}

/// SuperKernels and tasks in each of the logs-only directory's.
const SKS: u64 = 1_000;
const PER_SK: u64 = 100;

/// A model directory with the fused-nodes, fail-reasons and split logs of `SKS` × `PER_SK`
/// tasks, every line with the file logger's prefix.
fn logs_only_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-acl-logs/model_3_1");
    let _ = std::fs::create_dir_all(&dir);
    let prefix = "2026-09-20 08:00:01.123 [4242:4243] [INFO] [sk_optimizer.cpp:40] [Dump] ";
    let (mut fused, mut fail, mut split) = (String::new(), String::new(), String::new());
    let _ = writeln!(
        split,
        "{prefix}========== Scope split results begin: pass=ScopeSplitPipelineFinal, totalScopes={SKS} =========="
    );
    let mut ids = Vec::with_capacity((SKS * PER_SK) as usize);
    for sk in 0..SKS {
        let _ = writeln!(
            fused,
            "{prefix}  SK Function: sk_{sk}_full_model_start_a_end_b, scope id: {sk}, Node Count: {PER_SK}"
        );
        let _ = writeln!(
            split,
            "{prefix}Scope {sk} (scopeId={sk}): {PER_SK} nodes, 1 streams, scopeBitFlags=1, scopeNames=[full_model]"
        );
        let _ = writeln!(split, "{prefix}  BreakInfo: breakReason=NONE");
        for k in 0..PER_SK {
            let id = sk * PER_SK + k;
            ids.push(id.to_string());
            let (func, kind, blocks) = FUNCS[(id % FUNCS.len() as u64) as usize];
            let node = format!(
                "[nodeId:{id}, streamId:2, streamIdxInGraph:0, nodeIdxInStream:{id}] - \
                 KernelInfos{{funcName:{func}, kernelType:{kind}, taskRatio:[1,2], cap:0x0, \
                 numBlocks:{blocks}, cubeNum:0, vecNum:0, isScheModeOn:0, needMixKernelSplit:0, resolvedNum:1}}"
            );
            let _ = writeln!(fused, "{prefix}    [{k}] {node}");
            let _ = writeln!(split, "{prefix}    [{k}] {node}");
        }
    }
    let _ = writeln!(
        fail,
        "{prefix}  scopeId=0, scopeFlags=1, scopeNames=[full_model], totalNodes={}",
        ids.len()
    );
    let _ = writeln!(fail, "{prefix}    nodeIds: [{}]", ids.join(", "));
    for (name, text) in [
        ("sk_fused_nodes.log", fused),
        ("sk_fusion_fail_reasons.log", fail),
        ("sk_scope_split.log", split),
    ] {
        let _ = std::fs::write(dir.join(name), text);
    }
    dir
}

fn bench_logs_only(c: &mut Criterion) {
    let dir = logs_only_dir();
    let mut group = c.benchmark_group("aclgraph");
    group.sample_size(10);
    group.bench_function("logs_only_100k_tasks", |b| {
        b.iter(|| {
            skope::aclgraph::model::read(&dir)
                .map(|m| m.sks.len())
                .unwrap_or(0)
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_logs_only);
criterion_main!(benches);
