//! Every dump format loads the bundled example into the same graph.

use skope::graph::{AttrValue, DType, Graph, Input, OpId};
use skope::load::{Format, load_bytes};
use std::path::Path;

use crate::common::example_dump as example;

/// Ops as (name, type, inputs as text) in execution order, for comparing formats.
fn shape_of(g: &Graph) -> Vec<(String, String, Vec<String>)> {
    g.exec_order()
        .iter()
        .map(|&id| {
            let op = g.op(id);
            let inputs = op
                .inputs
                .iter()
                .map(|i| match i {
                    Input::Data { src, out } => format!("{}:{out}", g.op(*src).name),
                    Input::Control { src } => format!("^{}", g.op(*src).name),
                    Input::Unconnected => String::new(),
                    Input::Dangling { text } => format!("?{text}"),
                })
                .collect();
            (op.name.clone(), op.op_type.clone(), inputs)
        })
        .collect()
}

fn scopes(g: &Graph) -> Vec<(String, Option<String>, Option<String>)> {
    g.ops()
        .iter()
        .map(|o| {
            (
                o.name.clone(),
                o.scope().map(str::to_string),
                o.sk_options().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn formats_are_detected_by_content() {
    assert_eq!(
        example("moe_decode.ge_proto.txt").format,
        Format::GeProtoText
    );
    assert_eq!(example("moe_decode.txt").format, Format::GraphDefText);
    assert_eq!(example("moe_decode.pbtxt").format, Format::TorchairPbtxt);
    assert_eq!(
        example("moe_decode.ge_onnx.pbtxt").format,
        Format::GeOnnxText
    );
    assert_eq!(example("moe_decode.json").format, Format::GeJson);
    // The name does not matter: a ge_proto text under a .json name is still ge_proto text.
    let text = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/moe_decode.ge_proto.txt"),
    )
    .unwrap();
    assert_eq!(
        load_bytes(Path::new("renamed.json"), &text).unwrap().format,
        Format::GeProtoText
    );
}

#[test]
fn compiled_dumps_agree_on_everything() {
    let proto = example("moe_decode.ge_proto.txt");
    let (p, o, j) = (
        proto.main(),
        example("moe_decode.ge_onnx.pbtxt"),
        example("moe_decode.json"),
    );
    for other in [o.main(), j.main()] {
        assert_eq!(shape_of(p), shape_of(other));
        assert_eq!(scopes(p), scopes(other));
        assert_eq!(p.edge_counts(), other.edge_counts());
        for (a, b) in p.ops().iter().zip(other.ops()) {
            assert_eq!((a.topo_id, a.stream), (b.topo_id, b.stream), "{}", a.name);
            assert_eq!(
                a.attrs.get_int("supportSuperKernel"),
                b.attrs.get_int("supportSuperKernel"),
                "{}",
                a.name
            );
            assert_eq!(
                a.attrs.get_str("_cube_vector_core_type"),
                b.attrs.get_str("_cube_vector_core_type")
            );
            let dims = |ds: &[skope::graph::TensorDesc]| {
                ds.iter()
                    .map(|d| {
                        (
                            d.dtype,
                            d.shape.clone(),
                            d.layout.clone(),
                            d.origin_shape.clone(),
                        )
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(dims(&a.input_descs), dims(&b.input_descs), "{}", a.name);
            assert_eq!(dims(&a.output_descs), dims(&b.output_descs), "{}", a.name);
        }
    }
}

#[test]
fn torchair_dumps_agree_with_each_other_and_with_the_compiled_graph() {
    let txt = example("moe_decode.txt");
    let pbtxt = example("moe_decode.pbtxt");
    assert_eq!(shape_of(txt.main()), shape_of(pbtxt.main()));
    assert_eq!(scopes(txt.main()), scopes(pbtxt.main()));
    for (a, b) in txt.main().ops().iter().zip(pbtxt.main().ops()) {
        assert_eq!(a.attrs, b.attrs, "{}", a.name);
        assert_eq!(a.input_descs, b.input_descs, "{}", a.name);
        assert_eq!(a.output_descs, b.output_descs, "{}", a.name);
    }
    // Before GE compiles: no ids, no streams, no Send/Recv, no compile flags.
    let g = txt.main();
    assert!(!g.has_topo_ids() && !g.has_streams());
    assert!(
        g.ops()
            .iter()
            .all(|o| o.op_type != "Send" && o.attrs.get("supportSuperKernel").is_none())
    );
    // Same ops as the compiled graph minus the Send/Recv GE inserts, in the same order.
    let compiled = example("moe_decode.ge_proto.txt");
    let names: Vec<_> = compiled
        .main()
        .exec_order()
        .iter()
        .map(|&i| compiled.main().op(i))
        .filter(|o| o.op_type != "Send" && o.op_type != "Recv")
        .map(|o| o.name.clone())
        .collect();
    let pre: Vec<_> = g
        .exec_order()
        .iter()
        .map(|&i| g.op(i).name.clone())
        .collect();
    assert_eq!(names, pre);
}

#[test]
fn one_op_reads_exactly_as_written() {
    let dump = example("moe_decode.ge_proto.txt");
    let g = dump.main();
    assert_eq!(g.name(), "moe_decode");
    let id = g.find("layer0_shared_up").unwrap();
    let op = g.op(id);
    assert_eq!(op.op_type, "MatMulV2");
    assert_eq!(op.stream, Some(1));
    assert_eq!(op.scope(), Some("moe_0"));
    assert_eq!(op.sk_options(), Some("stream-fusion=1"));
    assert_eq!(op.stream_label(), Some("1"));
    assert_eq!(op.attrs.get_int("tvm_blockdim"), Some(24));
    assert_eq!(op.attrs.get_str("_cube_vector_core_type"), Some("AIC"));
    let post = g.find("layer0_post_rmsnorm").unwrap();
    let recv = g.find("layer0_recv_shared").unwrap();
    assert_eq!(op.inputs[0], Input::Data { src: post, out: 0 });
    assert_eq!(op.inputs[2], Input::Control { src: recv });
    assert_eq!(
        op.input_descs[0].dtype,
        DType::from_name("DT_BF16").unwrap()
    );
    assert_eq!(*op.input_descs[0].shape, [8, 7168]);
    assert_eq!(
        op.input_descs[0].origin_shape.as_deref(),
        Some(&[8, 7168][..])
    );
    let qkv = g.op(g.find("layer0_qkv_proj").unwrap());
    assert_eq!(qkv.attrs.get("transpose_x2"), Some(&AttrValue::Bool(true)));
    assert_eq!(qkv.input_descs[1].layout, "FRACTAL_NZ");
    let rms = g.op(g.find("layer0_input_rmsnorm").unwrap());
    assert_eq!(rms.attrs.get("epsilon"), Some(&AttrValue::Float(1e-6)));
    // The first op has topo id 0, which proto3 omits from the text.
    assert_eq!(g.op(OpId(0)).topo_id, Some(0));
    assert_eq!(g.exec_order()[0], OpId(0));
}

#[test]
fn a_model_with_several_graphs_keeps_the_first_as_main() {
    let src = br#"
name: "model"
graph { name: "main" op { name: "a" type: "Data" } op { name: "b" type: "If" input: "a:0" id: 1
  attr { key: "then_branch" value { g { name: "then_0" op { name: "x" } } } } } }
graph { name: "then_0" op { name: "t" type: "Add" } }
"#;
    let dump = load_bytes(Path::new("m.txt"), src).unwrap();
    assert_eq!(
        dump.graphs.iter().map(|g| g.name()).collect::<Vec<_>>(),
        ["main", "then_0"]
    );
    assert_eq!(dump.main().len(), 2);
    let b = dump.main().op(OpId(1));
    assert_eq!(
        b.attrs.get("then_branch"),
        Some(&AttrValue::Graph("then_0".into()))
    );
}

#[test]
fn torchair_pbtxt_two_level_strings_with_escapes() {
    let src = br#"node {
    name: "MatMul"
    op: "MatMul"
    input: "arg0_1:0"
    input: "^arg1_1"
    attr {
        key: "_super_kernel_scope"
        value {
            s: 's: "\xe4\xb8\x93\xe5\xae\xb6"\n'
        }
    }
    attr {
        key: "_super_kernel_options"
        value {
            s: "s: \"stream-fusion=1:strict-scope-check=bypass\"\n"
        }
    }
    attr {
        key: "note"
        value {
            s: 's: "it\'s \\346\\227\\266"\n'
        }
    }
    attr {
        key: "sizes"
        value {
            s: 'list {\n  i: 1\n  i: -2\n  val_type: VT_LIST_INT\n}\n'
        }
    }
    attr {
        key: "[i]x1"
        value {
            s: 'name: "x1"\ndtype: DT_FLOAT16\nshape {\n  dim: 8\n  dim: -1\n}\nlayout: "ND"\n'
        }
    }
}
node { name: "arg0_1" op: "Data" }
node { name: "arg1_1" op: "Data" }
"#;
    let dump = load_bytes(Path::new("dynamo_optimized_graph_1.pbtxt"), src).unwrap();
    assert_eq!(dump.format, Format::TorchairPbtxt);
    let g = dump.main();
    let m = g.op(OpId(0));
    assert_eq!(m.scope(), Some("专家"));
    assert_eq!(
        m.sk_options(),
        Some("stream-fusion=1:strict-scope-check=bypass")
    );
    assert_eq!(m.attrs.get_str("note"), Some("it's 时"));
    assert_eq!(
        m.attrs.get("sizes"),
        Some(&AttrValue::List(vec![
            AttrValue::Int(1),
            AttrValue::Int(-2)
        ]))
    );
    assert_eq!(&*m.input_descs[0].name, "x1");
    assert!(m.input_descs[0].is_dynamic());
    assert_eq!(
        m.inputs,
        vec![
            Input::Data {
                src: OpId(1),
                out: 0
            },
            Input::Control { src: OpId(2) }
        ]
    );
    assert_eq!(g.name(), "dynamo_optimized_graph_1");
}

#[test]
fn onnx_without_string_attributes_notes_that_scopes_are_invisible() {
    let src = br#"ir_version: 3
producer_name: "GE"
graph {
  node { name: "a" op_type: "ge:Data" attribute { name: "id" i: 0 type: INT } }
  node { input: "a:0" name: "b" op_type: "ge:Relu"
    attribute { name: "id" i: 1 type: INT }
    attribute { name: "stream_id" i: 2 type: INT }
    attribute { name: "input_desc_shape:0" ints: 4 ints: 4 type: INTS }
    attribute { name: "input_desc_dtype:0" s: "DT_FLOAT" type: STRING } }
  name: "g0"
}"#;
    let dump = load_bytes(Path::new("ge_onnx_00000001_graph_0_PreRunBegin.pbtxt"), src).unwrap();
    let g = dump.main();
    assert_eq!(g.name(), "g0");
    assert_eq!(g.op(OpId(1)).op_type, "Relu");
    assert_eq!(g.op(OpId(1)).stream, Some(2));
    assert_eq!(*g.op(OpId(1)).input_descs[0].shape, [4, 4]);
    assert!(
        g.notes()
            .iter()
            .any(|w| w.message.contains("DUMP_GE_GRAPH=1"))
    );
    assert!(g.scopes_unreadable().is_some());
    let info = skope::info::Info::of(&dump, "ge_onnx.pbtxt");
    assert!(!info.scopes_readable);
    assert!(
        info.to_text().contains("scopes    cannot be read"),
        "{}",
        info.to_text()
    );
}

#[test]
fn dangling_inputs_are_notes_not_failures() {
    let src = b"name: \"g\"\nop { name: \"a\" type: \"Add\" input: \"missing:0\" input: \"\" }\n";
    let dump = load_bytes(Path::new("g.txt"), src).unwrap();
    let g = dump.main();
    assert_eq!(
        g.op(OpId(0)).inputs[0],
        Input::Dangling {
            text: "missing:0".into()
        }
    );
    assert_eq!(g.op(OpId(0)).inputs[1], Input::Unconnected);
    assert_eq!(g.notes().len(), 1);
    assert!(
        g.notes()[0]
            .to_string()
            .contains("op 'a': input \"missing:0\"")
    );
}

#[test]
fn json_accepts_numbers_as_strings_and_escaped_bytes() {
    let src = br#"{"graph": [{"name": "g", "op": [
        {"name": "a", "type": "Data", "id": "0"},
        {"name": "b", "type": "Cast", "input": ["a:0"], "id": 1, "stream_id": "3",
         "attr": [{"key": "_super_kernel_scope", "value": {"s": "\\344\\270\\223"}},
                  {"key": "alpha", "value": {"f": "0.5"}},
                  {"key": "dst", "value": {"dt": "DT_INT32"}}],
         "output_desc": [{"dtype": "DT_FLOAT16", "shape": {"dim": [2, "3"]}, "layout": "ND"}]}]}]}"#;
    let dump = load_bytes(Path::new("out.json"), src).unwrap();
    let b = dump.main().op(OpId(1));
    assert_eq!(b.scope(), Some("专"));
    assert_eq!(b.stream, Some(3));
    assert_eq!(b.attrs.get("alpha"), Some(&AttrValue::Float(0.5)));
    assert_eq!(
        b.attrs.get("dst"),
        Some(&AttrValue::DType(DType::from_code(7)))
    );
    assert_eq!(*b.output_descs[0].shape, [2, 3]);
    assert_eq!(dump.main().op(OpId(0)).stream, Some(0));
}

#[test]
fn atc_json_with_nulls_reads_them_as_absent() {
    // The shape `atc --mode=1` gives an om model (GE's Pb2Json): model attributes, a graph
    // whose ops carry input descriptions with attributes whose value prints as null
    // (shape_range and origin_shape_range hold only an empty list), a null element for an
    // empty optional input's description, a map entry whose empty key proto3 left out, a null
    // list in a list value, and ops' own null attribute values (tasks, customized_op_def).
    let src = br#"{
  "name": "resnet50",
  "version": 1,
  "attr": [{"key": "om_version", "value": {"s": "1.79"}}, {"key": "soc_version", "value": {"s": "Ascend910B"}}],
  "graph": [
    {
      "name": "ge_default_20240101",
      "attr": [{"key": "_graph_attr", "value": null}],
      "input": ["data:0"],
      "op": [
        {"name": "data", "type": "Data", "id": 0, "stream_id": 0,
         "output_desc": [{"dtype": "DT_FLOAT16", "layout": "NCHW", "shape": {"dim": [1, 3, 224, 224]},
           "attr": [{"key": "origin_shape_range", "value": null}, {"key": "shape_range", "value": null},
                    {"key": "origin_format", "value": {"s": "NCHW"}}]}]},
        null,
        {"name": "conv1", "type": "Conv2D", "id": 1, "stream_id": 0, "input": ["data:0", "w:0", ""],
         "attr": [{"key": "_super_kernel_scope", "value": {"s": "sk"}},
                  {"key": "tasks", "value": null},
                  {"key": "customized_op_def", "value": null},
                  {"value": {"i": 3}},
                  {"key": "pads", "value": {"list": {"i": [0, 0, 0, 0], "val_type": "VT_LIST_INT"}}},
                  {"key": "empty_list", "value": {"list": null}},
                  {"key": "dilations", "value": {"list": {"i": null, "val_type": "VT_LIST_INT"}}}],
         "input_desc": [
           {"dtype": "DT_FLOAT16", "layout": "NCHW", "shape": {"dim": [1, 3, 224, 224]},
            "attr": [{"key": "shape_range", "value": null}]},
           {"dtype": "DT_FLOAT16", "shape": null, "attr": null},
           null],
         "output_desc": [{"dtype": "DT_FLOAT16", "shape": {"dim": null}, "layout": null}]},
        {"name": "relu", "type": "Relu", "id": 2, "stream_id": null, "input": ["conv1:0"],
         "attr": null, "input_desc": null, "output_desc": [null]}
      ]
    }
  ]
}"#;
    let dump = load_bytes(Path::new("resnet50.json"), src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dump.format, Format::GeJson);
    let g = dump.main();
    assert_eq!(g.name(), "ge_default_20240101");
    assert_eq!(g.len(), 3, "the null op is no op");
    let conv = g.op(g.find("conv1").unwrap());
    assert_eq!(conv.scope(), Some("sk"));
    assert_eq!(conv.attrs.get("tasks"), Some(&AttrValue::Empty));
    assert_eq!(conv.attrs.get(""), Some(&AttrValue::Int(3)));
    assert_eq!(
        conv.attrs.get("dilations"),
        Some(&AttrValue::List(Vec::new()))
    );
    assert_eq!(
        conv.input_descs.len(),
        3,
        "an empty description keeps its place"
    );
    assert!(conv.input_descs[2].shape.is_empty());
    assert_eq!(*conv.input_descs[0].shape, [1, 3, 224, 224]);
    let relu = g.op(g.find("relu").unwrap());
    assert_eq!(
        relu.stream,
        Some(0),
        "a null stream id is the proto3 default"
    );
    assert_eq!(relu.output_descs.len(), 1);
}
