//! Generated dumps shared by the load bench and the whole-process bench: a ~100 MB GE
//! `ModelDef` text, a ~150 MB atc JSON, a ~95 MB TorchAir pbtxt, a ~200 MB ge_onnx pbtxt and a
//! ~100 MB MindSpore IR,
//! shaped like real ones
//! (tens of thousands of ops with attributes and tensor descriptions), each kept in
//! `target/tmp` so peak memory can be measured on the same input.

use std::fmt::Write;
use std::path::PathBuf;

/// Bytes of the generated GE text.
const TARGET_BYTES: usize = 100 << 20;

const TYPES: [(&str, &str, i64); 8] = [
    ("MatMulV2", "AIC", 24),
    ("RmsNorm", "AIV", 40),
    ("Add", "AIV", 40),
    ("GroupedMatmul", "MIX_AIC", 24),
    ("DequantSwigluQuant", "AIV", 40),
    ("Cast", "AIV", 8),
    ("FusedInferAttentionScore", "MIX_AIC", 24),
    ("MoeGatingTopK", "AIV", 8),
];

/// The name of the `i`th generated op (its type from [`TYPES`], forty ops per layer).
fn op_name(i: usize) -> String {
    format!("layer{}_{}_{i}", i / 40, TYPES[i % TYPES.len()].0)
}

fn tensor(out: &mut String, indent: &str, kind: &str, name: &str, dims: &[i64]) {
    let _ = writeln!(out, "{indent}{kind} {{");
    let _ = writeln!(out, "{indent}  name: \"{name}\"");
    let _ = writeln!(out, "{indent}  dtype: DT_BF16");
    let _ = writeln!(out, "{indent}  shape {{");
    for d in dims {
        let _ = writeln!(out, "{indent}    dim: {d}");
    }
    let _ = writeln!(out, "{indent}  }}");
    let _ = writeln!(out, "{indent}  layout: \"ND\"");
    let _ = writeln!(
        out,
        "{indent}  attr {{\n{indent}    key: \"origin_format\"\n{indent}    value {{\n{indent}      s: \"ND\"\n{indent}    }}\n{indent}  }}"
    );
    let _ = writeln!(
        out,
        "{indent}  attr {{\n{indent}    key: \"origin_shape\"\n{indent}    value {{\n{indent}      list {{"
    );
    for d in dims {
        let _ = writeln!(out, "{indent}        i: {d}");
    }
    let _ = writeln!(
        out,
        "{indent}        val_type: VT_LIST_INT\n{indent}      }}\n{indent}    }}\n{indent}  }}"
    );
    let _ = writeln!(
        out,
        "{indent}  device_type: \"NPU\"\n{indent}  real_dim_cnt: {}",
        dims.len()
    );
    let _ = writeln!(out, "{indent}}}");
}

fn attr(out: &mut String, key: &str, value: &str) {
    let _ = writeln!(
        out,
        "    attr {{\n      key: \"{key}\"\n      value {{\n        {value}\n      }}\n    }}"
    );
}

/// A `ModelDef` text of about `TARGET_BYTES`, in GE's printer layout.
pub fn generate() -> String {
    let mut out = String::with_capacity(TARGET_BYTES + (1 << 20));
    out.push_str("graph {\n  name: \"bench_graph\"\n");
    let mut i = 0usize;
    while out.len() < TARGET_BYTES {
        let (ty, core, block_dim) = TYPES[i % TYPES.len()];
        let layer = i / 40;
        let _ = writeln!(
            out,
            "  op {{\n    name: \"{}\"\n    type: \"{ty}\"",
            op_name(i)
        );
        if i > 0 {
            let _ = writeln!(out, "    input: \"{}:0\"", op_name(i - 1));
        }
        if i > 1 {
            let _ = writeln!(out, "    input: \"{}:-1\"", op_name(i - 2));
        }
        attr(
            &mut out,
            "_super_kernel_scope",
            &format!("s: \"scope_{}\"", layer % 64),
        );
        attr(
            &mut out,
            "_super_kernel_options",
            "s: \"stream-fusion=1:early-start=1\"",
        );
        attr(
            &mut out,
            "_cube_vector_core_type",
            &format!("s: \"{core}\""),
        );
        attr(&mut out, "tvm_blockdim", &format!("i: {block_dim}"));
        attr(&mut out, "supportSuperKernel", "i: 1");
        attr(&mut out, "_fe_imply_type", "i: 6");
        attr(
            &mut out,
            "_kernelname",
            &format!(
                "s: \"te_{}_{:016x}_kernel0\"",
                ty.to_lowercase(),
                i * 2654435761
            ),
        );
        attr(&mut out, "transpose_x2", "b: false");
        attr(&mut out, "epsilon", "f: 1e-06");
        attr(
            &mut out,
            "_op_compile_strategy",
            "s: \"{\\\"keep_precision\\\": 1}\"",
        );
        attr(
            &mut out,
            "_input_name_key",
            "list {\n          s: \"x1\"\n          s: \"x2\"\n          val_type: VT_LIST_STRING\n        }",
        );
        let _ = writeln!(out, "    id: {i}");
        if i.is_multiple_of(5) {
            out.push_str("    stream_id: 1\n");
        }
        tensor(&mut out, "    ", "input_desc", "x1", &[8, 7168]);
        tensor(&mut out, "    ", "input_desc", "x2", &[7168, 4096]);
        tensor(&mut out, "    ", "output_desc", "y", &[8, 4096]);
        out.push_str("  }\n");
        i += 1;
    }
    out.push_str("}\n");
    out
}

/// Where the generated GE text is kept.
pub fn dump_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-modeldef.txt")
}

/// Bytes of the generated atc JSON (the bar: a JSON dump of 150 MB or more).
const JSON_BYTES: usize = 150 << 20;

/// An atc `--mode=5` JSON `ModelDef` of about `JSON_BYTES`, in GE's printer layout: maps as
/// arrays of `{"key", "value"}`, enums by name, two-space indentation.
pub fn generate_json() -> String {
    let mut out = String::with_capacity(JSON_BYTES + (1 << 20));
    out.push_str("{\n  \"name\": \"bench\",\n  \"graph\": [\n    {\n      \"name\": \"bench_graph\",\n      \"op\": [\n");
    let mut i = 0usize;
    while out.len() < JSON_BYTES {
        let (ty, core, block_dim) = TYPES[i % TYPES.len()];
        let layer = i / 40;
        let name = op_name(i);
        if i > 0 {
            out.push_str(",\n");
        }
        let inputs = if i > 0 {
            format!("\"{}:0\"", op_name(i - 1))
        } else {
            String::new()
        };
        let attr = |key: &str, value: &str| {
            format!(
                "            {{\n              \"key\": \"{key}\",\n              \"value\": {{\n                {value}\n              }}\n            }}"
            )
        };
        let attrs = [
            attr(
                "_super_kernel_scope",
                &format!("\"s\": \"scope_{}\"", layer % 64),
            ),
            attr(
                "_super_kernel_options",
                "\"s\": \"stream-fusion=1:early-start=1\"",
            ),
            attr("_cube_vector_core_type", &format!("\"s\": \"{core}\"")),
            attr("tvm_blockdim", &format!("\"i\": \"{block_dim}\"")),
            attr("supportSuperKernel", "\"i\": \"1\""),
            attr(
                "_kernelname",
                &format!("\"s\": \"te_{}_{i:08x}\"", ty.to_lowercase()),
            ),
        ]
        .join(",\n");
        let desc = |name: &str| {
            format!(
                "            {{\n              \"name\": \"{name}\",\n              \"dtype\": \"DT_BF16\",\n              \"shape\": {{\n                \"dim\": [\n                  \"8\",\n                  \"7168\"\n                ]\n              }},\n              \"layout\": \"ND\",\n              \"attr\": [\n                {{\n                  \"key\": \"origin_format\",\n                  \"value\": {{\n                    \"s\": \"ND\"\n                  }}\n                }}\n              ]\n            }}"
            )
        };
        let _ = write!(
            out,
            "        {{\n          \"name\": \"{name}\",\n          \"type\": \"{ty}\",\n          \"input\": [{inputs}],\n          \"attr\": [\n{attrs}\n          ],\n          \"input_desc\": [\n{}\n          ],\n          \"output_desc\": [\n{}\n          ],\n          \"id\": \"{i}\",\n          \"stream_id\": \"{}\"\n        }}",
            desc("x"),
            desc("y"),
            i % 2
        );
        i += 1;
    }
    out.push_str("\n      ]\n    }\n  ]\n}\n");
    out
}

/// Where the generated JSON is kept, for measuring peak memory on it.
pub fn json_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-modeldef.json")
}

/// Bytes of the generated MindSpore IR (the bar: a 100 MB `.ir`).
const IR_BYTES: usize = 100 << 20;

/// MindSpore 2.x IR of about `IR_BYTES`, as `graph_build_*.ir` writes it after the graph
/// kernel passes: per layer a graph-kernel subgraph (`graph_kernel: …` attribute) called from
/// the kernel graph, then MatMul, Softmax and Neg nodes left out; two types lines per node
/// (host, device), the full scope name and the source line after each.
pub fn generate_ir() -> String {
    let t = "<Tensor[Float16], (8, 7168)>";
    let mut kernels = String::with_capacity(IR_BYTES / 3);
    let mut main = String::with_capacity(IR_BYTES);
    let (mut n, mut layer) = (0usize, 0usize);
    while kernels.len() + main.len() < IR_BYTES {
        let scope = format!("Default/model-Model/layers-CellList/{layer}-DecoderLayer");
        kernels.push_str(&format!(
            "subgraph attr:\ngraph_kernel: Mul_Add_fusion\nsubgraph instance: kernel_graph_{layer}_1 : 0x55d1\nsubgraph @kernel_graph_{layer}_1(%para{a}_p0, %para{b}_p1) {{\n",
            a = 2 * layer + 10,
            b = 2 * layer + 11
        ));
        for (k, (op, args)) in [
            (
                "Mul",
                format!("%para{}_p0, %para{}_p1", 2 * layer + 10, 2 * layer + 11),
            ),
            ("Add", format!("%0, %para{}_p1", 2 * layer + 11)),
        ]
        .iter()
        .enumerate()
        {
            kernels.push_str(&format!(
                "  %{k}(CNode_{k}) = {op}({args}) primitive_attrs: {{output_names: [output], input_names: [x, y]}}\n      : ({t}, {t}) -> ({t})\n      : ({t}, {t}) -> ({t})\n      # Fullname with scope: ({scope}/{op}-op{k})\n"
            ));
        }
        kernels.push_str(&format!(
            "  Return(%1)\n      : ({t})\n      # Fullname with scope: ({scope}/Return-op2)\n}}\n\n"
        ));
        let prev = if n == 0 {
            "%para1_x".to_string()
        } else {
            format!("%{}", n - 1)
        };
        main.push_str(&format!(
            "  %{n}(CNode_{n}) = call @kernel_graph_{layer}_1({prev}, %para1_x)\n      : ({t}, {t}) -> ({t})\n      # Fullname with scope: ({scope}/GraphKernel_Mul_Add_fusion-op{n})\n      # In file llama.py:{layer}, 8~40/        h = self.residual(x, h)/\n"
        ));
        n += 1;
        for op in ["MatMul", "Softmax", "Neg"] {
            main.push_str(&format!(
                "  %{n}(CNode_{n}) = PrimFunc_{op}(%{p}, %para1_x) primitive_attrs: {{transpose_a: Bool(0)}} cnode_attrs: {{checkpoint: Bool(1)}}\n      : ({t}, {t}) -> ({t})\n      : ({t}, {t}) -> ({t})\n      # Fullname with scope: ({scope}/{op}-op{n})\n      # In file llama.py:{layer}, 8~40/        h = self.{op}(h)/\n",
                p = n - 1
            ));
            n += 1;
        }
        layer += 1;
    }
    format!(
        "# IR entry: @kernel_graph_0\n# Total subgraphs: {}\n\n# Params:\n%para1_x: {t} : []\n\n{kernels}subgraph attr:\nsubgraph instance: kernel_graph_0 : 0x55d0\nsubgraph @kernel_graph_0(%para1_x) {{\n{main}  Return(%{})\n      : ({t})\n}}\n",
        layer + 1,
        n - 1
    )
}

/// Where the generated MindSpore IR is kept.
pub fn ir_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-graph_build.ir")
}

/// Bytes of the generated TorchAir pbtxt.
const PBTXT_BYTES: usize = 95_000_000;

/// One TorchAir pbtxt attribute: its value is the quoted text of a GE `AttrDef` or
/// `TensorDescriptor`, written as Python writes `repr(bytes)` (single quotes, `\n` escaped).
fn pbtxt_attr(out: &mut String, key: &str, text: &str) {
    let _ = writeln!(
        out,
        "    attr {{\n        key: \"{key}\"\n        value {{\n            s: '{}'\n        }}\n    }}",
        text.replace('\n', "\\n")
    );
}

fn pbtxt_desc(name: &str, dims: &[i64]) -> String {
    let dims: String = dims.iter().map(|d| format!("  dim: {d}\n")).collect();
    format!(
        "name: \"{name}\"\ndtype: DT_BF16\nshape {{\n{dims}}}\nlayout: \"ND\"\nattr {{\n  key: \
         \"origin_format\"\n  value {{\n    s: \"ND\"\n  }}\n}}\ndevice_type: \"NPU\"\n"
    )
}

/// A TorchAir `pbtxt` dump of about `PBTXT_BYTES`, as TorchAir writes it: nodes with
/// name, op and inputs, every attribute (scope, options, core type, block dim, kernel name, a
/// string list) and each input and output description as embedded protobuf text.
pub fn generate_pbtxt() -> String {
    let mut out = String::with_capacity(PBTXT_BYTES + (1 << 20));
    let mut i = 0usize;
    while out.len() < PBTXT_BYTES {
        let (ty, core, block_dim) = TYPES[i % TYPES.len()];
        let layer = i / 40;
        let _ = writeln!(
            out,
            "node {{\n    name: \"{}\"\n    op: \"{ty}\"",
            op_name(i)
        );
        if i > 0 {
            let _ = writeln!(out, "    input: \"{}\"", op_name(i - 1));
        }
        pbtxt_attr(
            &mut out,
            "_super_kernel_scope",
            &format!("s: \"scope_{}\"\n", layer % 64),
        );
        pbtxt_attr(
            &mut out,
            "_super_kernel_options",
            "s: \"stream-fusion=1:early-start=1\"\n",
        );
        pbtxt_attr(
            &mut out,
            "_cube_vector_core_type",
            &format!("s: \"{core}\"\n"),
        );
        pbtxt_attr(&mut out, "tvm_blockdim", &format!("i: {block_dim}\n"));
        pbtxt_attr(
            &mut out,
            "_kernelname",
            &format!(
                "s: \"te_{}_{:016x}_kernel0\"\n",
                ty.to_lowercase(),
                i * 2654435761
            ),
        );
        pbtxt_attr(
            &mut out,
            "_input_name_key",
            "list {\n  s: \"x1\"\n  s: \"x2\"\n  val_type: VT_LIST_STRING\n}\n",
        );
        pbtxt_attr(&mut out, "[i]x1", &pbtxt_desc("x1", &[8, 7168]));
        pbtxt_attr(&mut out, "[i]x2", &pbtxt_desc("x2", &[7168, 4096]));
        pbtxt_attr(&mut out, "[o]y", &pbtxt_desc("y", &[8, 4096]));
        out.push_str("}\n");
        i += 1;
    }
    out
}

/// Where the generated TorchAir pbtxt is kept.
pub fn pbtxt_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-graph.pbtxt")
}

/// Bytes of the generated ge_onnx pbtxt (GE's ONNX text is the wordiest of its dumps).
const ONNX_BYTES: usize = 200 << 20;

/// One ge_onnx node attribute.
fn onnx_attr(out: &mut String, name: &str, value: &str, kind: &str) {
    let _ = writeln!(
        out,
        "    attribute {{\n      name: \"{name}\"\n      {value}\n      type: {kind}\n    }}"
    );
}

/// A ge_onnx pbtxt of about `ONNX_BYTES`, as GE writes `ge_onnx_*.pbtxt`: nodes with inputs,
/// outputs and `ge:` types; GE's fields (scope, options, core type, block dim, kernel name,
/// id, stream) and each tensor description's fields as flattened attributes.
pub fn generate_onnx() -> String {
    let mut out = String::with_capacity(ONNX_BYTES + (1 << 20));
    out.push_str("ir_version: 3\nproducer_name: \"GE\"\ngraph {\n");
    let mut i = 0usize;
    while out.len() < ONNX_BYTES {
        let (ty, core, block_dim) = TYPES[i % TYPES.len()];
        let name = op_name(i);
        out.push_str("  node {\n");
        if i > 0 {
            let _ = writeln!(out, "    input: \"{}:0\"", op_name(i - 1));
        }
        let _ = writeln!(
            out,
            "    output: \"{name}:0\"\n    name: \"{name}\"\n    \
             op_type: \"ge:{ty}\""
        );
        let scope = format!("s: \"scope_{}\"", i / 40 % 64);
        onnx_attr(&mut out, "_super_kernel_scope", &scope, "STRING");
        let options = "s: \"stream-fusion=1:early-start=1\"";
        onnx_attr(&mut out, "_super_kernel_options", options, "STRING");
        onnx_attr(
            &mut out,
            "_cube_vector_core_type",
            &format!("s: \"{core}\""),
            "STRING",
        );
        onnx_attr(&mut out, "tvm_blockdim", &format!("i: {block_dim}"), "INT");
        let kernel = format!(
            "s: \"te_{}_{:016x}_kernel0\"",
            ty.to_lowercase(),
            i * 2654435761
        );
        onnx_attr(&mut out, "_kernelname", &kernel, "STRING");
        onnx_attr(&mut out, "id", &format!("i: {i}"), "INT");
        onnx_attr(&mut out, "stream_id", &format!("i: {}", i % 2), "INT");
        for (side, slot, dims) in [
            ("input", 0, [8, 7168]),
            ("input", 1, [7168, 4096]),
            ("output", 0, [8, 4096]),
        ] {
            let desc = |field: &str| format!("{side}_desc_{field}:{slot}");
            onnx_attr(&mut out, &desc("dtype"), "s: \"DT_BF16\"", "STRING");
            onnx_attr(&mut out, &desc("layout"), "s: \"ND\"", "STRING");
            onnx_attr(&mut out, &desc("origin_layout"), "s: \"ND\"", "STRING");
            let shape = format!("ints: {}\n      ints: {}", dims[0], dims[1]);
            onnx_attr(&mut out, &desc("shape"), &shape, "INTS");
            onnx_attr(&mut out, &desc("origin_shape"), &shape, "INTS");
        }
        onnx_attr(&mut out, "input_desc_nums", "i: 2", "INT");
        onnx_attr(&mut out, "output_desc_nums", "i: 1", "INT");
        out.push_str("  }\n");
        i += 1;
    }
    out.push_str(
        "  name: \"bench_graph\"\n}\nopset_import {\n  domain: \"ai.onnx\"\n  version: 11\n}\n",
    );
    out
}

/// Where the generated ge_onnx pbtxt is kept.
pub fn onnx_path() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skope-bench-graph.ge_onnx.pbtxt")
}

/// One generated dump as the benches use it.
pub struct Generated {
    /// Its name in the benches' output.
    pub bench: &'static str,
    /// Its text.
    pub generate: fn() -> String,
    /// Where it is kept.
    pub path: fn() -> PathBuf,
}

/// Every generated dump, in the order the benches report them.
pub const ALL: [Generated; 5] = [
    Generated {
        bench: "ge_proto_text_100MB",
        generate,
        path: dump_path,
    },
    Generated {
        bench: "ge_json_150MB",
        generate: generate_json,
        path: json_path,
    },
    Generated {
        bench: "torchair_pbtxt_95MB",
        generate: generate_pbtxt,
        path: pbtxt_path,
    },
    Generated {
        bench: "ge_onnx_200MB",
        generate: generate_onnx,
        path: onnx_path,
    },
    Generated {
        bench: "mindspore_ir_100MB",
        generate: generate_ir,
        path: ir_path,
    },
];
