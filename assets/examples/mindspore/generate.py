#!/usr/bin/env python3
"""Writes a MindSpore graph-kernel example for skope: `graph_build_0_1.ir`, the IR text
MindSpore 2.x dumps (MS_DEV_SAVE_GRAPHS=1) after its graph kernel passes, of two decoder
layers, and `akg_kernel_meta/Fused_*.info`, the composite JSON of each fused kernel.

The shapes follow reference/profiling_and_dumps.md §4 and MindSpore's IR dumper
(anf_ir_dump.cc): `subgraph attr:` with `graph_kernel: <fused name>` on graph-kernel
subgraphs, `%N(name) = call @g(...)` for a fused node, a types line (two after kernel select:
host, then device), `# Fullname with scope: (...)` and `# In file ...` comments.

Per layer, what skope should find:
  fused      Cast_Mul_ReduceSum_..._fusion (the RMS norm's basic ops), Mul_Add_fusion
             (residual), Neg_Exp_Add_RealDiv_Mul_fusion (SiLU, expanded)
  left out   MatMul (level-1 type), FlashAttentionScore (not clusterable), Neg (clusterable,
             no clusterable neighbour), Softmax, and in layer 1 an Exp with a dynamic shape
"""

import json
import os
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
H, B, F = 1024, 4, 2816
LAYERS = 2

lines = []
subgraphs = []  # (name, fused_name, params, node lines)
composites = []  # composite JSONs


def t(shape, dtype="Float16"):
    return "<Tensor[%s], (%s)>" % (dtype, ", ".join(str(d) for d in shape))


class Graph:
    def __init__(self, name):
        self.name = name
        self.body = []
        self.n = 0

    def node(self, op, args, ins, out, full, src=None, attrs=""):
        i = self.n
        self.n += 1
        head = "  %%%d(CNode_%d) = %s(%s)%s" % (i, 100 + i + 37 * len(self.body), op, ", ".join(args),
                                               (" " + attrs) if attrs else "")
        types = "      : (%s) -> (%s)" % (", ".join(ins), out)
        self.body.append(head)
        self.body.append(types)
        # After kernel select the device-side types follow the host side.
        self.body.append(types)
        self.body.append("      # Fullname with scope: (%s)" % full)
        if src:
            self.body.append("      # In file %s" % src)
        return "%%%d" % i

    def ret(self, arg, out, full):
        self.body.append("  Return(%s)" % arg)
        self.body.append("      : (%s)" % out)
        self.body.append("      # Fullname with scope: (%s)" % full)


def fused(main, layer, name, ops, args, arg_types, out_shape, scope, src):
    """A graph-kernel subgraph of `ops` ((prim, arg indices or %k of earlier, shape)) called
    from `main`; returns the call's %N."""
    g = Graph("kernel_graph_%d_%s" % (layer, name))
    params = ["%%para%d_p%d" % (100 + len(subgraphs) * 10 + i, i) for i in range(len(args))]
    vals = []
    js_ops = []
    for k, (prim, refs, shape) in enumerate(ops):
        a = [params[r] if isinstance(r, int) else vals[int(r[1:])] for r in refs]
        ins = [arg_types[r] if isinstance(r, int) else t(ops[int(r[1:])][2]) for r in refs]
        vals.append(g.node(prim, a, ins, t(shape), "%s/%s-op%d" % (scope, prim, 900 + k)))
        js_ops.append({
            "attr": None, "impl_path": "",
            "input_desc": [[{"data_type": "float16", "format": "DefaultFormat", "name": "input_%d" % j,
                             "shape": [B, H] if isinstance(r, int) else ops[int(r[1:])][2],
                             "tensor_name": ("input_%d" % r) if isinstance(r, int) else ("output_0_%s" % r[1:])}]
                           for j, r in enumerate(refs)],
            "name": prim,
            "output_desc": [{"data_type": "float16", "format": "DefaultFormat", "name": "output_0",
                             "shape": shape, "tensor_name": "output_0_%d" % k}],
            "ptr_address": "%s/%s-op%d" % (scope, prim, 900 + k),
        })
    g.ret(vals[-1], t(out_shape), "%s/Return-op%d" % (scope, 999))
    subgraphs.append((g.name, name, params, g.body))
    kernel = "Fused_%s_%d" % (name, zlib.crc32(("%d%s" % (layer, name)).encode()))
    composites.append({
        "composite": True, "composite_graph": g.name, "id": 0,
        "input_desc": [[{"data_type": "float16", "format": "DefaultFormat", "shape": [B, H],
                         "tensor_name": "input_%d" % i}] for i in range(len(args))],
        "op": kernel, "op_desc": js_ops,
        "output_desc": [{"data_type": "float16", "format": "DefaultFormat", "shape": out_shape,
                         "tensor_name": "output_0_%d" % (len(ops) - 1)}],
        "platform": "AKG", "process": "aicore", "target_info": {"arch": "Ascend910B2"}, "version": 2,
    })
    return main.node("call @%s" % g.name, args, arg_types, t(out_shape),
                     "%s/GraphKernel_%s-op%d" % (scope, name, main.n), src)


def main():
    m = Graph("kernel_graph_0")
    x = "%para1_hidden_states"
    params = [(x, t([B, H]))]
    for layer in range(LAYERS):
        w_qkv = "%%para%d_layers.%d.qkv.weight" % (10 + 4 * layer, layer)
        w_o = "%%para%d_layers.%d.o.weight" % (11 + 4 * layer, layer)
        w_up = "%%para%d_layers.%d.up.weight" % (12 + 4 * layer, layer)
        w_down = "%%para%d_layers.%d.down.weight" % (13 + 4 * layer, layer)
        params += [(w_qkv, t([H, 3 * H])), (w_o, t([H, H])), (w_up, t([H, 2 * F])), (w_down, t([F, H]))]
        s = "Default/model-Model/layers-CellList/%d-DecoderLayer" % layer
        src = "llama.py:%d, 8~40/        h = self.attention_norm(x)/" % (120 + layer)
        norm = fused(m, layer, "Cast_Mul_ReduceSum_RealDiv_Add_Rsqrt_Mul_Mul_fusion",
                     [("Cast", [0], [B, H]), ("Mul", ["%0", "%0"], [B, H]), ("ReduceSum", ["%1"], [B, 1]),
                      ("RealDiv", ["%2"], [B, 1]), ("Add", ["%3"], [B, 1]), ("Rsqrt", ["%4"], [B, 1]),
                      ("Mul", ["%0", "%5"], [B, H]), ("Mul", ["%6", 0], [B, H])],
                     [x], [t([B, H])], [B, H], s + "/attention_norm-RMSNorm", src)
        qkv = m.node("MatMul", [norm, w_qkv], [t([B, H]), t([H, 3 * H])], t([B, 3 * H]),
                     s + "/attention-Attention/wqkv-Linear/MatMul-op%d" % m.n,
                     attrs="primitive_attrs: {transpose_a: Bool(0), transpose_b: Bool(0)}")
        fa = m.node("FlashAttentionScore", [qkv, qkv, qkv], [t([B, 3 * H])] * 3, t([B, H]),
                    s + "/attention-Attention/FlashAttentionScore-op%d" % m.n,
                    attrs="primitive_attrs: {head_num: I64(8), input_layout: \"BSH\"}")
        o = m.node("MatMul", [fa, w_o], [t([B, H]), t([H, H])], t([B, H]),
                   s + "/attention-Attention/wo-Linear/MatMul-op%d" % m.n)
        res = fused(m, layer, "Mul_Add_fusion", [("Mul", [0], [B, H]), ("Add", ["%0", 1], [B, H])],
                    [o, x], [t([B, H]), t([B, H])], [B, H], s, None)
        up = m.node("MatMul", [res, w_up], [t([B, H]), t([H, 2 * F])], t([B, 2 * F]),
                    s + "/feed_forward-FeedForward/w1-Linear/MatMul-op%d" % m.n)
        silu = fused(m, layer, "Neg_Exp_Add_RealDiv_Mul_fusion",
                     [("Neg", [0], [B, F]), ("Exp", ["%0"], [B, F]), ("Add", ["%1"], [B, F]),
                      ("RealDiv", [0, "%2"], [B, F]), ("Mul", ["%3", 0], [B, F])],
                     [up], [t([B, 2 * F])], [B, F], s + "/feed_forward-FeedForward/silu-SiLU", None)
        down = m.node("MatMul", [silu, w_down], [t([B, F]), t([F, H])], t([B, H]),
                      s + "/feed_forward-FeedForward/w2-Linear/MatMul-op%d" % m.n)
        # A clusterable op with no clusterable neighbour: left out.
        neg = m.node("Neg", [down], [t([B, H])], t([B, H]), s + "/Neg-op%d" % m.n)
        if layer == 1:
            # A dynamic shape: not clustered without enable_dynamic_shape_fusion.
            neg = m.node("Exp", [neg], [t([B, H])], t([-1, H]), s + "/Exp-op%d" % m.n)
        x = m.node("Softmax", [neg], [t([B, H])], t([B, H]), s + "/Softmax-op%d" % m.n,
                   attrs="primitive_attrs: {axis: (-1)}")
    m.ret(x, t([B, H]), "Default/Return-op%d" % m.n)

    out = ["# IR entry: @kernel_graph_0", "# Total subgraphs: %d" % (len(subgraphs) + 1), "",
           "# Attrs:", "is_dynamic_shape: 0", "", "# Total params: %d" % len(params), "# Params:"]
    out += ["%s: %s : []" % (p, ty) for p, ty in params]
    out += ["", "Node counting information:", "Total number of nodes: %d" % (m.n + 1), ""]
    for name, fused_name, ps, body in subgraphs:
        out += ["subgraph attr:", "graph_kernel: %s" % fused_name, "composite_type: ",
                "subgraph instance: %s : 0x55d1%04x" % (name, len(out) % 65536),
                "subgraph @%s(%s) {" % (name, ", ".join(ps))] + body + ["}", ""]
    out += ["subgraph attr:", "subgraph instance: kernel_graph_0 : 0x55d10000",
            "subgraph @kernel_graph_0(%s) {" % ", ".join(p for p, _ in params)] + m.body + ["}", ""]
    with open(os.path.join(HERE, "graph_build_0_1.ir"), "w") as f:
        f.write("\n".join(out))
    meta = os.path.join(HERE, "akg_kernel_meta")
    os.makedirs(meta, exist_ok=True)
    for c in composites:
        with open(os.path.join(meta, c["op"] + ".info"), "w") as f:
            json.dump(c, f, sort_keys=True)


if __name__ == "__main__":
    main()
