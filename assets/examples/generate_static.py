#!/usr/bin/env python3
"""Writes static_kernel_compile_outputs/, a static kernel compile's outputs for the bundled
moe_decode example (the layout and op-info JSON of reference/profiling_and_dumps.md §3, as
opbase's writer lays them out: keys in alphabetical order, two-space indent, null for an absent
optional input, "deterministic" as a string).

The op-info inputs list the input descs the example dump gives each op, so `skope static
--graph` and the explorer's static kernels view can join them:
  compiled   RmsNorm [8,7168], Add [8,7168]x2, SwiGlu [8,4096], MatMulV2 [8,1024] and [8,7168]
  filtered   MatMulV2 [8,2048] (eligible, not selected), FusedInferAttentionScore (blacklist),
             GroupedMatmul [-1,7168] (dynamic shape), MoeGatingTopK (not in the compile set)
So shared_down (MatMulV2 [8,2048]) is an op of a compiled type with no kernel for its shape.
"""

import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "static_kernel_compile_outputs")
RUN = os.path.join(ROOT, "ts1764000000_pid4242_outputs")
PID = "4242"


def tensor(name, shape, dtype="bfloat16", param="required", index=0):
    return {"dtype": dtype, "format": "ND", "index": index, "is_view": False, "name": name,
            "origin_format": "ND", "origin_shape": shape, "param_type": param,
            "shape": shape, "value_depend": False}


def info(op_type, inputs, outputs, attrs=()):
    return {"attrs": list(attrs), "deterministic": "false", "deterministic_level": 0,
            "impl_mode": "high_performance", "inputs": inputs, "op_type": op_type,
            "outputs": outputs, "platform_info": {"cube_core_cnt": 24, "vector_core_cnt": 48},
            "tune_mode": "all"}


H = [8, 7168]
OPS = {
    "RmsNorm_8_7168": info("RmsNorm", [tensor("x", H)], [tensor("y", H)],
                           [{"dtype": "float", "index": 0, "name": "epsilon", "value": 1e-6}]),
    "Add_8_7168": info("Add", [tensor("x1", H), tensor("x2", H, index=1)], [tensor("y", H)]),
    "SwiGlu_8_4096": info("SwiGlu", [tensor("x", [8, 4096])], [tensor("y", [8, 2048])],
                          [{"dtype": "int", "index": 0, "name": "dim", "value": -1}]),
    "MatMulV2_8_1024": info("MatMulV2", [tensor("x1", [8, 1024]), None], [tensor("y", H)],
                            [{"dtype": "bool", "index": 0, "name": "transpose_x1", "value": False}]),
    "MatMulV2_8_7168": info("MatMulV2", [tensor("x1", H), None], [tensor("y", [8, 4096])],
                            [{"dtype": "bool", "index": 0, "name": "transpose_x1", "value": False}]),
    "MatMulV2_8_2048": info("MatMulV2", [tensor("x1", [8, 2048]), None], [tensor("y", H)],
                            [{"dtype": "bool", "index": 0, "name": "transpose_x1", "value": False}]),
    "FusedInferAttentionScore_8_1_3072": info(
        "FusedInferAttentionScore", [tensor("query", [8, 1, 3072])],
        [tensor("attention_out", [8, 1, 1024])]),
    "GroupedMatmul_dyn": info("GroupedMatmul", [[tensor("x0", [-1, 7168])]],
                              [[tensor("y0", [-1, 4096])]]),
    "MoeGatingTopK_8_16": info("MoeGatingTopK", [tensor("x", [8, 16])],
                               [tensor("y", [8, 8]), tensor("expert_idx", [8, 8], "int32", index=1)]),
}
TARGET = ["RmsNorm_8_7168", "Add_8_7168", "SwiGlu_8_4096", "MatMulV2_8_1024", "MatMulV2_8_7168",
          "MatMulV2_8_2048", "FusedInferAttentionScore_8_1_3072"]
OPCOMPILE = [k for k in TARGET if not k.startswith("FusedInferAttentionScore")]
SELECTED = [k for k in OPCOMPILE if k != "MatMulV2_8_2048"]
BLACKLIST = ["FusedInferAttentionScore_8_1_3072"]


def write_set(suffix, keys):
    d = os.path.join(RUN, PID + suffix)
    os.makedirs(d)
    for k in keys:
        with open(os.path.join(d, k + ".json"), "w") as f:
            json.dump(OPS[k], f, indent=2, sort_keys=True)
            f.write("\n")


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    write_set("", TARGET)
    write_set("_debug", list(OPS))
    write_set("_opcompile", OPCOMPILE)
    write_set("_opcompile_selected", SELECTED)
    write_set("_opcompile_blacklist", BLACKLIST)
    with open(os.path.join(RUN, "static_kernel_20261124083000.run"), "w") as f:
        f.write("#!/bin/sh\n# stands in for the compiled kernel package (no kernels inside)\nexit 0\n")


if __name__ == "__main__":
    main()
