#!/usr/bin/env python3
"""Writes the bundled aclgraph example: what the aclgraph SuperKernel pass (aclskOptimize)
leaves under sk_meta/<pid>/<model>/ with ASCEND_OP_COMPILE_SAVE_KERNEL_META=1 and
ASCEND_PROF_SK_ON, for a captured two-layer MoE decode step.

    python3 assets/examples/aclgraph/generate.py     # rewrites assets/examples/aclgraph/sk_meta

No real output of the pass is public: every file follows the format strings and JSON writers
of graph-autofusion super_kernel/src/aot (reference/aclgraph_superkernel.md §4), and the outcome
(which tasks fuse, where scopes break) is written by hand from the pass's rules (§3):

  attn_0   FusedInferAttentionScore was built without SuperKernel support
           (OP_UNSUPPORT [BINDMAP_INIT_EMPTY]): the scope breaks there (UNFUSIBLE_NODE)
  moe_0    a notify/wait pair from stream 0 to the shared expert on stream 1: both inside the
           SuperKernel, so the events are cancelled and the streams fuse
  moe_1    GroupedMatmulFinalizeRouting is a ScheMode kernel on 8 cube cores after 24-core
           kernels: SYNCALL_OP_DROP splits before it (core drop) and again before the 40-core
           kernel after it (core rise)
  (None)   an unnamed scope excludes a Cast (IN_UNFUSIBLE_SCOPE)
  kv_sync  a named scope holding only events: no kernel, not launched
  lm_head  outside every named scope (NOT_IN_SCOPE); the sampler is a default task
Quirks real files have: a BOM on one JSON file, null scope names, "none" neighbour ids, value
tasks with all-ones flags, log lines split with [CONT:n], the older sk_event_dev_device name
alongside the newer one is not written (only sk_prof_device_0.json).
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PID = 4711
MODEL = "model_3_1"
ARCH = "dav_2201"

tasks = []  # dicts: id stream kind func ktype blocks ratio scope event sche


def add(stream, kind, func=None, ktype=None, blocks=0, ratio=(0, 0), scope=None, event=None,
        sche=False):
    t = dict(id=len(tasks), stream=stream, kind=kind, func=func, ktype=ktype, blocks=blocks,
             ratio=ratio, scope=scope, event=event, sche=sche)
    tasks.append(t)
    return t["id"]


def begin(name, stream=0):
    add(stream, "KERNEL", f"sk_scope_kernel_begin_{ARCH}", "AIV_ONLY", 1, scope=name)
    add(stream, "KERNEL", f"sk_placeholder_kernel_{ARCH}", "AIV_ONLY", 1, scope=name)
    add(stream, "KERNEL", f"sk_placeholder_kernel_{ARCH}", "AIV_ONLY", 1, scope=name)


def end(name, stream=0):
    add(stream, "KERNEL", f"sk_placeholder_kernel_{ARCH}", "AIV_ONLY", 1, scope=name)
    add(stream, "KERNEL", f"sk_placeholder_kernel_{ARCH}", "AIV_ONLY", 1, scope=name)
    add(stream, "KERNEL", f"sk_scope_kernel_end_{ARCH}", "AIV_ONLY", 1, scope=name)


def aiv(name, blocks=40, stream=0, sche=False):
    return add(stream, "KERNEL", name, "AIV_ONLY", blocks, (0, 1), sche=sche)


def aic(name, blocks=24, stream=0, sche=False):
    return add(stream, "KERNEL", name, "AIC_ONLY", blocks, (1, 0), sche=sche)


def mix(name, blocks=24, stream=0):
    return add(stream, "KERNEL", name, "MIX_1_2", blocks, (1, 2))


# --- the captured step --------------------------------------------------------------------
T = {}
add(0, "DEFAULT")                       # input copy before any scope
begin("attn_0")
T["rms0"] = aiv("RmsNorm_5cce7ee1")
T["qkv0"] = aic("QuantBatchMatmulV3_d237d73d")
T["rope0"] = aiv("ApplyRotaryPosEmb_9ef39792")
T["fia0"] = mix("FusedInferAttentionScore_30ab9e11")
T["o0"] = aic("MatMulV2_8c1f2e77")
T["add0"] = aiv("Add_1a2b3c4d")
end("attn_0")
begin("moe_0")
T["gate0"] = aiv("MoeGatingTopK_7c1d0e42")
T["n0"] = add(0, "NOTIFY", event=11)
T["w0"] = add(1, "WAIT", event=11)
T["sup0"] = aic("MatMulV2_shared_up_41aa", stream=1)
T["sdown0"] = aic("MatMulV2_shared_down_41ab", stream=1)
T["gmm0"] = aic("GroupedMatmul_a1b2c3d4")
T["swi0"] = aiv("SwiGluQuant_0f0e0d0c")
T["gmm0b"] = aic("GroupedMatmul_a1b2c3d5")
T["n0b"] = add(1, "NOTIFY", event=12)
T["w0b"] = add(0, "WAIT", event=12)
T["fin0"] = aiv("MoeFinalizeRouting_77e0")
end("moe_0")
begin(None)
T["cast"] = aiv("Cast_f00d")
end(None)
begin("kv_sync")
T["kvn"] = add(0, "MEMORY_WRITE", event=0x12C0800000)
T["kvw"] = add(0, "MEMORY_WAIT", event=0x12C0800000)
end("kv_sync")
begin("attn_1")
T["rms1"] = aiv("RmsNorm_5cce7ee1")
T["qkv1"] = aic("QuantBatchMatmulV3_d237d73d")
T["rope1"] = aiv("ApplyRotaryPosEmb_9ef39792")
T["fia1"] = mix("FusedInferAttentionScore_30ab9e12")
T["o1"] = aic("MatMulV2_8c1f2e77")
end("attn_1")
begin("moe_1")
T["gate1"] = aiv("MoeGatingTopK_7c1d0e42")
T["gmm1"] = aic("GroupedMatmul_a1b2c3d4")
T["swi1"] = aiv("SwiGluQuant_0f0e0d0c")
T["gmmf1"] = aic("GroupedMatmulFinalizeRouting_9d9d", blocks=8, sche=True)
T["fin1"] = aiv("MoeFinalizeRouting_77e0")
end("moe_1")
T["lm"] = aic("MatMulV2_lm_head_5e5e")
T["sample"] = add(0, "DEFAULT")
N = len(tasks)

# --- the pass's outcome, by hand from its rules -------------------------------------------
SKS = [  # scopeId, names, member task keys, break (reason, trigger key, detail) or None, entry
    (14, "attn_0", ["rms0", "qkv0", "rope0"],
     ("UNFUSIBLE_NODE", "fia0", "unfused node causes scope break"), "sk_entry_mix12"),
    (15, "attn_0", ["o0", "add0"], None, "sk_entry_mix12"),
    (17, "moe_0", ["gate0", "sup0", "sdown0", "gmm0", "swi0", "gmm0b", "fin0"], None,
     "sk_entry_mix12"),
    (21, "attn_1", ["rms1", "qkv1", "rope1", "fia1", "o1"], None, "sk_entry_mix12"),
    (23, "moe_1", ["gate1", "gmm1", "swi1"],
     ("SYNCALL_OP_DROP", "gmmf1", "ScheMode core drop at node {gmmf1}: merged(24,40) -> cur(8,16)"),
     "sk_entry_mix12"),
    (24, "moe_1", ["gmmf1"],
     ("SYNCALL_OP_DROP", "fin1", "ScheMode core rise at node {fin1}: merged(8,16) -> cur(0,40)"),
     "sk_entry_aic"),
    # The rest of moe_1 keeps its scope's own break: lm_head after it is outside every scope.
    (26, "moe_1", ["fin1"], ("UNFUSIBLE_NODE", "lm", "unfused node causes scope break"),
     "sk_entry_aiv"),
]
UNFUSIBLE = {  # key: (reason, detail)
    "fia0": ("OP_UNSUPPORT [BINDMAP_INIT_EMPTY]",
             "Failed to resolve SuperKernel bind map for the operator, bindmap init empty"),
    "cast": ("IN_UNFUSIBLE_SCOPE", "Node is not in any super kernel scope"),
    "lm": ("NOT_IN_SCOPE", "Node is in unfusible scope"),
}
NAMES = ["attn_0", "moe_0", "kv_sync", "attn_1", "moe_1"]


def is_marker(t):
    return t["func"] is not None and (t["func"].startswith("sk_scope_kernel_")
                                      or t["func"].startswith("sk_placeholder_kernel_"))


# --- writers ------------------------------------------------------------------------------
def stamp(n, func="Dump", src="sk_graph.cpp:1319", level="INFO"):
    ms = 100 + n
    return f"2026-07-30 10:00:{1 + ms // 1000:02d}.{ms % 1000:03d} [{PID}:1403] [{level}] [{src}] [{func}] "


def fmt(t):
    per_stream = [x for x in tasks if x["stream"] == t["stream"]]
    head = (f"[nodeId:{t['id']}, streamId:{t['stream'] + 2}, streamIdxInGraph:{t['stream']}, "
            f"nodeIdxInStream:{per_stream.index(t)}")
    if t["kind"] == "KERNEL":
        cube, vec = {"AIC_ONLY": (t["blocks"], 0), "AIV_ONLY": (0, t["blocks"]),
                     "MIX_1_2": (t["blocks"], 2 * t["blocks"])}[t["ktype"]]
        return (head + f"] - KernelInfos{{funcName:{t['func']}, kernelType:{t['ktype']}, "
                f"taskRatio:[{t['ratio'][0]},{t['ratio'][1]}], cap:0x0, numBlocks:{t['blocks']}, "
                f"cubeNum:{cube}, vecNum:{vec}, isScheModeOn:{int(t['sche'])}, "
                f"needMixKernelSplit:0, resolvedNum:1}}")
    if t["kind"] in ("NOTIFY", "WAIT", "RESET"):
        word = {"NOTIFY": "EventNotify", "WAIT": "EventWait", "RESET": "EventReset"}[t["kind"]]
        return head + f", {word}(eventId:{t['event']:#x}, eventFlag:0x0, eventTaskFlag:0x0)]"
    if t["kind"] == "MEMORY_WRITE":
        return head + f", MemoryWrite(value:1, eventId:{t['event']})]"
    if t["kind"] == "MEMORY_WAIT":
        return head + f", MemoryWait(flag:0, value:1, eventId:{t['event']})]"
    return head + ", type: Default]"


def node_json(t, updated, sk_of_launch):
    per_stream = [x for x in tasks if x["stream"] == t["stream"]]
    k = per_stream.index(t)
    info = {"taskId": t["id"], "streamId": t["stream"] + 2,
            "taskType": {"MEMORY_WRITE": "VALUE_WRITE", "MEMORY_WAIT": "VALUE_WAIT"}.get(
                t["kind"], t["kind"]),
            "taskTypeInt": {"KERNEL": 1, "NOTIFY": 2, "WAIT": 3, "DEFAULT": 0}.get(t["kind"], 9)}
    if t["kind"] == "KERNEL":
        # A kernel whose bind map did not resolve (OP_UNSUPPORT) has no resolved entries.
        unresolved = t["id"] == T["fia0"]
        func = t["func"]
        if updated and t["id"] in sk_of_launch:
            func = sk_of_launch[t["id"]][4]
        info["kernelParams"] = {
            "funcName": func, "funcHandle": f"0x7f{t['id']:06x}", "numBlocks": t["blocks"],
            "cap": "0x0", "devargs": "0x0", "argsSize": 64, "isHostArgs": True,
            "launchKernelCfg": None, "binHandle": f"0x55{t['id']:06x}", "kernelTypeInt": 0,
            "kernelType": t["ktype"], "needMixKernelSplit": False, "isSimtOp": False,
            "taskRatio": list(t["ratio"]), "opInfoPtr": "0x0", "opInfoSize": 0,
            "taskGrp": "0x0", "resolvedNum": 0 if unresolved else 1,
            "resolvedFuncs": [] if unresolved else [{"funcAddr": ["0x0", "0x0"],
                                                     "prefetchCnt": [2, 2],
                                                     "funcOffset": [0, 0], "symbolBind": [0, 0]}]}
    elif t["kind"] in ("NOTIFY", "WAIT", "RESET"):
        info["eventParams"] = {"eventId": t["event"], "eventFlag": 0, "eventTaskFlag": 0}
    elif t["kind"] == "MEMORY_WRITE":
        info["valueWriteParams"] = {"devAddr": hex(t["event"]), "value": 1}
    elif t["kind"] == "MEMORY_WAIT":
        info["valueWaitParams"] = {"devAddr": hex(t["event"]), "value": 1, "flag": 0}
    marker = is_marker(t)
    node = {
        "nodeId": t["id"], "streamIdxInGraph": t["stream"], "nodeIdxInStream": k,
        "nodeType": t["kind"] if not (updated and t["kind"].startswith("MEMORY")) else t["kind"],
        "scopeName": t["scope"] if marker else None,
        "isScopeNode": marker,
        "isScopeBegin": marker and "begin" in t["func"],
        "isScopeEnd": marker and "_end_" in t["func"],
        "isScopePlaceholder": marker and "placeholder" in t["func"],
        "preNodeId": per_stream[k - 1]["id"] if k > 0 else "none",
        "nextNodeId": per_stream[k + 1]["id"] if k + 1 < len(per_stream) else "none",
        "taskInfo": [info],
    }
    if updated and t["id"] in sk_of_launch:
        sk = sk_of_launch[t["id"]]
        node["skinfos"] = {"scopeId": sk[0], "scopeName": sk[1],
                           "startKernelFuncName": tasks[T[sk[2][0]]]["func"],
                           "endKernelFuncName": tasks[T[sk[2][-1]]]["func"]}
    return node


def graph_json(updated):
    launch = {T[sk[2][0]]: sk for sk in SKS}
    streams = sorted({t["stream"] for t in tasks})
    return {
        "version": "1.0",
        "description": "SuperKernel Raw Task Information from modelRI",
        "modelId": "3_1", "deviceId": 0,
        "options": {
            "preload_code": {"name": "preload_code", "type": 0, "value": 1},
            "split_mode": {"name": "split_mode", "type": 1, "value": 4},
            "stream_fusion": {"name": "stream_fusion", "type": 2, "value": 1},
            "dcci_after_kernel_end": {"name": "dcci_after_kernel_end", "type": 13,
                                      "value": [".*"]},
            "early_start": {"name": "early_start", "type": 16, "value": 0},
            "inner_options": {"enable_mix_kernel_split": 0, "enable_simt_op_check": 0},
        },
        "totalStreams": len(streams), "totalNodes": N,
        "streams": [{"streamIdxInGraph": s, "nodeCount": sum(t["stream"] == s for t in tasks),
                     "nodes": [node_json(t, updated, launch) for t in tasks if t["stream"] == s]}
                    for s in streams],
    }


def sk_name(sk):
    first, last = tasks[T[sk[2][0]]]["func"], tasks[T[sk[2][-1]]]["func"]
    return f"sk_{sk[0]}_{sk[1]}_start_{first}_end_{last}"


def bits(names):
    return "".join("1" if n in names else "0" for n in NAMES)


def write(path, text, bom=False):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        if bom:
            f.write("\ufeff")
        f.write(text)


def main():
    model = os.path.join(HERE, "sk_meta", str(PID), MODEL)
    os.makedirs(model, exist_ok=True)
    write(os.path.join(model, "sk_graph_origin.json"), json.dumps(graph_json(False), indent=2),
          bom=True)
    write(os.path.join(model, "sk_graph_updated.json"), json.dumps(graph_json(True)))

    lines = [stamp(0, "DumpFusionFailReasons") + "unfusible kernel:"]
    for key, (reason, detail) in UNFUSIBLE.items():
        t = tasks[T[key]]
        lines.append(stamp(1, "DumpFusionFailReasons")
                     + f"Node {fmt(t)}: reason: {reason}, reasonDetail: {detail}")
    lines.append(stamp(2, "PrintOriginalScopes") + "original scopes:")
    for i, name in enumerate(NAMES):
        ids = [t["id"] for t in tasks if not is_marker(t) and scope_of(t) == name]
        lines.append(stamp(3, "PrintOriginalScopes")
                     + f"  scopeId={i}, scopeFlags={bits([name])}, scopeNames=[{name}], "
                       f"totalNodes={len(ids)}")
        lines.append(stamp(3, "PrintOriginalScopes") + f"    nodeIds: {ids}")
    lines.append(stamp(4, "PrintFusedScopes")
                 + "[PrintFusedScopes] scopes after fusion: DEBUG_PER_OP_MAX_CORE=false")
    for sk in SKS:
        ids = [T[k] for k in sk[2]]
        lines.append(stamp(5, "PrintFusedScopes") + f"  scopeId={sk[0]}, scopeBitFlag={bits([sk[1]])}")
        lines.append(stamp(5, "PrintFusedScopes") + f"    fusedNodeIds={ids};")
        lines.append(stamp(5, "PrintFusedScopes") + "    scopeStatus=SUCCESS")
        if sk[3]:
            reason, trig, detail = sk[3]
            t = tasks[T[trig]]
            detail = detail.format(**{k: T[k] for k in T})
            text = (f"    breakReason=[breakReason={reason}, triggerNode={t['id']}, "
                    f"triggerStream={t['stream']}, detail=\"{detail}\"], "
                    f"breakReasonDetail=There exists unfusible node in scope, scopeName=[{sk[1]}]")
            # The logger splits long lines: the rest comes on a [CONT:1] line.
            lines.append(stamp(5, "PrintFusedScopes") + text[:60])
            lines.append(stamp(5, "PrintFusedScopes") + "[CONT:1] " + text[60:])
    write(os.path.join(model, "sk_fusion_fail_reasons.log"), "\n".join(lines) + "\n")

    lines = []
    for sk in SKS:
        lines.append(stamp(6, "PrintFusedNodes", "sk_optimizer.cpp:35")
                     + f"  SK Function: {sk_name(sk)}, scope id: {sk[0]}, Node Count: {len(sk[2])}")
        for i, key in enumerate(sk[2]):
            lines.append(stamp(6, "PrintFusedNodes", "sk_optimizer.cpp:41") + f"    [{i}] {fmt(tasks[T[key]])}")
    write(os.path.join(model, "sk_fused_nodes.log"), "\n".join(lines) + "\n")

    lines = [stamp(7, "Run", "sk_scope_split.cpp:1448") + "==========[ScopeSplitPipeline] iteration 0=========="]
    lines.append(stamp(7, "Run", "sk_scope_split.cpp:160")
                 + f"========== Scope split results begin: pass=ScopeSplitPipelineFinal, totalScopes={len(SKS)} ==========")
    for d, sk in enumerate(SKS):
        members = [tasks[T[k]] for k in sk[2]]
        lines.append(stamp(7, "Print", "sk_scope_split.cpp:170")
                     + f"Scope {d} (scopeId={sk[0]}): {len(members)} nodes, "
                       f"{len({m['stream'] for m in members})} streams, scopeBitFlags={bits([sk[1]])}, "
                       f"scopeNames=[{sk[1]}]")
        if sk[3]:
            reason, trig, detail = sk[3]
            detail = detail.format(**{k: T[k] for k in T})
            lines.append(stamp(7, "Print", "sk_scope_split.cpp:175")
                         + f"  BreakInfo: breakReason={reason}, triggerNode={T[trig]}, "
                           f"triggerStream={tasks[T[trig]]['stream']}, detail=\"{detail}\"")
        else:
            lines.append(stamp(7, "Print", "sk_scope_split.cpp:175") + "  BreakInfo: breakReason=NONE")
        for i, m in enumerate(members):
            lines.append(stamp(7, "Print", "sk_scope_split.cpp:180") + f"    [{i}] {fmt(m)}")
    write(os.path.join(model, "sk_scope_split.log"), "\n".join(lines) + "\n")

    lines = []
    for t in tasks:
        name = scope_of(t)
        # Kernels that resolve, and events with default flags, start fusible; value tasks
        # written and waited on (kv_sync) stay unfusible without value_breaker_bypass, and
        # default tasks without task_breaker_bypass (reference §3.1).
        kernel = t["kind"] == "KERNEL" and not is_marker(t) and t["id"] not in [T[k] for k in UNFUSIBLE]
        fusible = kernel or (t["kind"] in ("NOTIFY", "WAIT") and name is not None)
        lines.append(stamp(8, "TagScopes", "sk_graph.cpp:822")
                     + f"Processed node {fmt(t)}: type={t['kind']}, "
                       f"scopeFlags={bits([name]) if name else '0' * len(NAMES)}, "
                       f"isFusible={int(fusible)}, stackSize={1 if name else 0}")
    write(os.path.join(model, "sk_node_detail.log"), "\n".join(lines) + "\n")

    queues = {"version": "1.0", "description": "SuperKernel Task Queue Information",
              "modelId": "3_1", "scopeCount": len(SKS), "scopes": []}
    for sk in reversed(SKS):  # hash order in real files: join on scopeId
        members = [tasks[T[k]] for k in sk[2]]
        q = {}
        for side, kinds in (("aic", ("AIC_ONLY", "MIX_1_2")), ("aiv", ("AIV_ONLY", "MIX_1_2"))):
            infos = []
            for i, m in enumerate(members):
                if m["ktype"] in kinds:
                    if infos:
                        infos.append({"nodeIndex": 4294967295, "type": "SYNC", "numBlocks": 0,
                                      "entryCnt": 0, "args": "0x2", "debugOptions": 0, "entries": []})
                    infos.append({"nodeIndex": i, "type": "FUNC", "numBlocks": m["blocks"],
                                  "entryCnt": 4, "args": "0x0", "debugOptions": 40,
                                  "entries": ["0x12c0800000", "0x12c0800400", "0x12c0800800", "0x12c0800c00"]})
            funcs = sum(1 for x in infos if x["type"] == "FUNC")
            q[side] = {"numBlocks": max([m["blocks"] for m in members if m["ktype"] in kinds] or [0]),
                       "funcCnt": funcs, "taskQue": {"taskCnt": len(infos), "taskInfos": infos}}
        queues["scopes"].append({"scopeId": sk[0], "taskQueues": q})
    write(os.path.join(model, "sk_task_queue.json"), json.dumps(queues, indent=1))

    lines = [stamp(9, "DumpArgs", "sk_task_builder.cpp:255")
             + "SkHeaderInfo: aicOff=64, aivOff=1088, counterOff=2112, dfxOff=2176, eventConfigOff=2240, nodeCnt=40, totalSize=4096"]
    for sk in SKS:
        members = [tasks[T[k]] for k in sk[2]]
        lines.append(stamp(9, "DumpArgs", "sk_task_builder.cpp:260") + f"AIV TaskQue: cap=64, tasks={len(members)}")
        for i, m in enumerate(members):
            lines.append(stamp(9, "DumpArgs", "sk_task_builder.cpp:270")
                         + f"[{i}] type=FUNC, idx={i}, nodeId={m['id']}, relatedType=NONE, blk={m['blocks']}, "
                           f"entries=4, args=0x0, debugOptions=0x28, extraInfo=0x0")
            lines.append(stamp(9, "DumpArgs", "sk_task_builder.cpp:280") + "   entry[0]=0x12c0800000")
        lines.append(stamp(9, "DumpArgs", "sk_task_builder.cpp:270")
                     + f"[{len(members)}] type=SYNC, idx={len(members)}, nodeId=18446744073709551615, "
                       "relatedType=NONE, blk=0, entries=0, args=0x2, debugOptions=0x0, extraInfo=0x0")
    write(os.path.join(model, "sk_device_args.log"), "\n".join(lines) + "\n")

    records = []
    ts = 1700.0
    for sk in SKS:
        members = [tasks[T[k]] for k in sk[2]]
        start = ts
        for i, m in enumerate(members):
            dur = 2.0 + (m["blocks"] % 7) * 0.5
            for core in range(2):
                records.append({"ph": "X", "name": f"[{core}/{m['blocks']}]{m['func']}",
                                "pid": "AIC" if m["ktype"] == "AIC_ONLY" else "AIV", "tid": core,
                                "ts": round(ts, 6), "dur": round(dur + core * 0.1, 6),
                                "args": {"modelId": "3_1", "skId": sk[0], "nodeId": i}})
            ts += dur + 0.4
        records.append({"ph": "X", "name": f"[0/{members[0]['blocks']}] {sk_name(sk)}", "pid": "AIV",
                        "tid": 0, "ts": round(start, 6), "dur": round(ts - start, 6),
                        "args": {"modelId": "3_1", "skId": sk[0]}})
        ts += 3.0
    records.append({})
    write(os.path.join(HERE, "sk_meta", str(PID), "sk_prof_device_0.json"),
          "[" + ",\n".join(json.dumps(r) for r in records) + "]")


def scope_of(t):
    """The named scope around task t (the example's scopes do not nest)."""
    open_ = None
    for x in tasks:
        if is_marker(x) and "begin" in x["func"]:
            open_ = x["scope"]
        if x is t:
            return open_ if not is_marker(t) else None
        if is_marker(x) and "_end_" in x["func"]:
            open_ = None
    return None


if __name__ == "__main__":
    main()
