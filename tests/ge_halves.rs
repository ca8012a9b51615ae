//! A big GE dump is read on both cores: the result, its notes and any error's place must be
//! exactly those of reading it on one.
//!
//! For `ge_proto` text the one-core reading is forced by writing the first op's line as
//! `op  {`: the split looks for later lines written exactly like the first, finds none and
//! reads on one thread (`node  {` for TorchAir pbtxt). An atc JSON of the same ops must read as
//! its text twin.

use skope::graph::Graph;
use skope::load::load_bytes;
use std::fmt::Write;
use std::path::Path;

/// A graph of about `bytes` of ops in GE's printer layout with its ops at `indent` spaces
/// (2: a `ModelDef` whose graph is followed by a small second graph; 0: a bare `GraphDef`).
/// Its name comes after the ops, one op in the first half has a duplicate name (so the next
/// one's input dangles) and one in the second half a dangling input: both halves note it.
fn dump(bytes: usize, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    if indent > 0 {
        out.push_str("name: \"model\"\ngraph {\n");
    }
    let mut i = 0usize;
    while out.len() < bytes {
        let name = if i == 1000 {
            "op_999".to_string()
        } else {
            format!("op_{i}")
        };
        let _ = writeln!(
            out,
            "{pad}op {{\n{pad}  name: \"{name}\"\n{pad}  type: \"Add\""
        );
        if i > 0 {
            let _ = writeln!(out, "{pad}  input: \"op_{}:0\"", i - 1);
        }
        if i == 12_000 {
            let _ = writeln!(out, "{pad}  input: \"nowhere:0\"");
        }
        let _ = writeln!(
            out,
            "{pad}  attr {{\n{pad}    key: \"_super_kernel_scope\"\n{pad}    value {{\n{pad}      \
             s: \"scope_{}\"\n{pad}    }}\n{pad}  }}\n{pad}  id: {i}\n{pad}}}",
            i / 500
        );
        i += 1;
    }
    let _ = writeln!(out, "{pad}name: \"big\"");
    if indent > 0 {
        out.push_str("}\ngraph {\n  name: \"small\"\n  op {\n    name: \"s\"\n  }\n}\n");
    }
    out
}

/// The same text read on one thread.
fn on_one_core(text: &str) -> String {
    text.replacen("op {", "op  {", 1)
}

/// Everything a reader decides: ops with their inputs and attributes, order, notes.
fn everything(g: &Graph) -> String {
    format!(
        "{} {:?} {:?} {:?}",
        g.name(),
        g.ops(),
        g.exec_order(),
        g.notes()
    )
}

#[test]
fn a_big_graph_reads_the_same_on_both_cores() {
    for indent in [2, 0] {
        let text = dump(5 << 20, indent);
        let both = load_bytes(Path::new("big.txt"), text.as_bytes()).unwrap();
        let one = load_bytes(Path::new("big.txt"), on_one_core(&text).as_bytes()).unwrap();
        let (g, reference) = (both.main(), one.main());
        assert!(g.len() > 20_000, "{} ops", g.len());
        assert_eq!(g.name(), "big");
        assert_eq!(g.notes().len(), 3, "{:?}", g.notes());
        assert_eq!(everything(g), everything(reference), "indent {indent}");
        assert_eq!(both.graphs.len(), one.graphs.len());
        if indent > 0 {
            assert_eq!(both.graphs[1].name(), "small");
        }
    }
}

#[test]
fn an_error_in_either_half_keeps_its_exact_place() {
    let text = dump(5 << 20, 2);
    for at in [text.len() / 4, text.len() * 3 / 4] {
        // Break the first `type` line after `at`: its string loses its closing quote.
        let line = at + text[at..].find("type: \"Add\"").unwrap();
        let mut broken = text.clone();
        broken.replace_range(line..line + 11, "type: \"Add");
        let line_no = broken[..line].matches('\n').count() + 1;
        let both = load_bytes(Path::new("big.txt"), broken.as_bytes())
            .unwrap_err()
            .to_string();
        let one = load_bytes(Path::new("big.txt"), on_one_core(&broken).as_bytes())
            .unwrap_err()
            .to_string();
        assert_eq!(both, one);
        assert!(both.starts_with(&format!("big.txt:{line_no}:")), "{both}");
    }
}

#[test]
fn a_field_between_ops_or_an_early_close_still_reads() {
    let text = dump(5 << 20, 2);
    // A graph field among the first half's ops.
    let at = text[text.len() / 4..].find("  op {").unwrap() + text.len() / 4;
    let mut with_field = text.clone();
    with_field.insert_str(at, "  input: \"x\"\n");
    // The big graph closed at a quarter: the rest is a second graph of its own.
    let mut closed = text.clone();
    closed.insert_str(at, "}\ngraph {\n  name: \"rest\"\n");
    for text in [with_field, closed] {
        let both = load_bytes(Path::new("big.txt"), text.as_bytes()).unwrap();
        let one = load_bytes(Path::new("big.txt"), on_one_core(&text).as_bytes()).unwrap();
        assert_eq!(both.graphs.len(), one.graphs.len());
        for (g, reference) in both.graphs.iter().zip(&one.graphs) {
            assert_eq!(everything(g), everything(reference));
        }
    }
}

/// The ops of [`dump`]`(bytes, 2)` as an atc JSON `ModelDef` in GE's printer layout.
fn json_dump(bytes: usize) -> String {
    let ops = load_bytes(Path::new("big.txt"), dump(bytes, 2).as_bytes()).unwrap();
    let count = ops.main().len();
    let mut out = String::from(
        "{\n  \"name\": \"model\",\n  \"graph\": [\n    {\n      \"name\": \"big\",\n      \"op\": [\n",
    );
    for i in 0..count {
        let name = if i == 1000 {
            "op_999".to_string()
        } else {
            format!("op_{i}")
        };
        let mut inputs = Vec::new();
        if i > 0 {
            inputs.push(format!("\"op_{}:0\"", i - 1));
        }
        if i == 12_000 {
            inputs.push("\"nowhere:0\"".to_string());
        }
        let _ = write!(
            out,
            "{}        {{\n          \"name\": \"{name}\",\n          \"type\": \"Add\",\n          \
             \"input\": [{}],\n          \"attr\": [\n            {{\n              \"key\": \
             \"_super_kernel_scope\",\n              \"value\": {{\n                \"s\": \
             \"scope_{}\"\n              }}\n            }}\n          ],\n          \"id\": \"{i}\"\n        }}",
            if i > 0 { ",\n" } else { "" },
            inputs.join(", "),
            i / 500
        );
    }
    out.push_str("\n      ]\n    },\n    {\n      \"name\": \"small\",\n      \"op\": [\n        {\n          \"name\": \"s\"\n        }\n      ]\n    }\n  ]\n}\n");
    out
}

#[test]
fn a_big_json_reads_as_its_text_twin() {
    let json = json_dump(5 << 20);
    assert!(json.len() > 4 << 20, "{} bytes", json.len());
    let from_json = load_bytes(Path::new("big.json"), json.as_bytes()).unwrap();
    let from_text = load_bytes(Path::new("big.txt"), dump(5 << 20, 2).as_bytes()).unwrap();
    assert_eq!(from_json.main().notes().len(), 3);
    assert_eq!(from_json.graphs.len(), 2);
    assert_eq!(everything(from_json.main()), everything(from_text.main()));
}

#[test]
fn a_big_json_tells_the_first_error_of_either_half_exactly() {
    let json = json_dump(5 << 20);
    let ops = json.matches("\"type\": \"Add\"").count();
    // The `type` of op `i` made a number: a structure error at its path.
    let break_type = |text: &mut String, i: usize| {
        let at = text.match_indices("\"type\": \"Add\"").nth(i).unwrap().0;
        text.replace_range(at..at + 13, "\"type\": 12345");
    };
    let message = |text: &str| {
        load_bytes(Path::new("big.json"), text.as_bytes())
            .unwrap_err()
            .to_string()
    };
    let (early, late) = (ops / 4, ops * 3 / 4);
    let mut second_half = json.clone();
    break_type(&mut second_half, late);
    assert!(
        message(&second_half).contains(&format!("graph[0].op[{late}].type")),
        "{}",
        message(&second_half)
    );
    let mut both = second_half.clone();
    break_type(&mut both, early);
    assert!(
        message(&both).contains(&format!("graph[0].op[{early}].type")),
        "{}",
        message(&both)
    );
    // A syntax error in the second half is told at its line, before the structure error.
    let at = both.rfind("\"id\"").unwrap();
    both.replace_range(at..at + 1, "");
    let line = both[..at].matches('\n').count() + 1;
    assert!(
        message(&both).starts_with(&format!("big.json:{line}:")),
        "{}",
        message(&both)
    );
}

#[test]
fn a_big_json_op_nested_too_deep_is_refused_at_its_place() {
    let mut json = json_dump(5 << 20);
    let at = json.rfind("\"attr\": [").unwrap();
    let deep = format!("\"deep\": {}1{}, ", "[".repeat(300), "]".repeat(300));
    json.insert_str(at, &deep);
    let line = json[..at].matches('\n').count() + 1;
    let error = load_bytes(Path::new("big.json"), json.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(error.starts_with(&format!("big.json:{line}:")), "{error}");
    assert!(error.contains("recursion limit"), "{error}");
}

/// A TorchAir pbtxt of about `bytes`: nodes at the top level, every attribute value the
/// quoted text of a GE `AttrDef` (the scope) or `TensorDescriptor` (the output).
fn pbtxt_dump(bytes: usize) -> String {
    let mut out = String::new();
    let mut i = 0usize;
    while out.len() < bytes {
        let _ = writeln!(out, "node {{\n    name: \"op_{i}\"\n    op: \"Add\"");
        if i > 0 {
            let _ = writeln!(out, "    input: \"op_{}\"", i - 1);
        }
        let _ = writeln!(
            out,
            "    attr {{\n        key: \"_super_kernel_scope\"\n        value {{\n            \
             s: 's: \"scope_{}\"\\n'\n        }}\n    }}\n    attr {{\n        key: \"[o]y\"\n        \
             value {{\n            s: 'name: \"y\"\\ndtype: DT_BF16\\nshape {{\\n  dim: 8\\n}}\\n'\n        \
             }}\n    }}\n}}",
            i / 500
        );
        i += 1;
    }
    out
}

#[test]
fn a_big_torchair_pbtxt_reads_the_same_on_both_cores() {
    let text = pbtxt_dump(5 << 20);
    let both = load_bytes(Path::new("big.pbtxt"), text.as_bytes()).unwrap();
    let one = load_bytes(Path::new("big.pbtxt"), on_one_core_nodes(&text).as_bytes()).unwrap();
    assert!(both.main().len() > 15_000, "{} ops", both.main().len());
    assert_eq!(
        both.main().op(skope::graph::OpId(7)).scope(),
        Some("scope_0")
    );
    assert_eq!(everything(both.main()), everything(one.main()));
    // An error in the second half's embedded text keeps its place.
    let at = text.len() * 3 / 4;
    let line = at + text[at..].find("dtype: DT_BF16").unwrap();
    let mut broken = text.clone();
    broken.replace_range(line..line + 14, "dtype: DT_NOPE");
    let message = |text: &str| {
        load_bytes(Path::new("big.pbtxt"), text.as_bytes())
            .unwrap_err()
            .to_string()
    };
    assert_eq!(message(&broken), message(&on_one_core_nodes(&broken)));
    // Told at the attribute's `value {` line, the one before its text.
    let line_no = broken[..line].matches('\n').count();
    assert!(
        message(&broken).starts_with(&format!("big.pbtxt:{line_no}:")),
        "{}",
        message(&broken)
    );
}

/// A TorchAir text read on one thread.
fn on_one_core_nodes(text: &str) -> String {
    text.replacen("node {", "node  {", 1)
}

/// A ge_onnx pbtxt of about `bytes`: nodes inside the graph, GE fields as attributes; with
/// `strings`, the first hundred nodes (all in the first half) have their scope as a string
/// attribute, without it none has any.
fn onnx_dump(bytes: usize, strings: bool) -> String {
    let mut out = String::from("ir_version: 3\nproducer_name: \"GE\"\ngraph {\n");
    let mut i = 0usize;
    while out.len() < bytes {
        let _ = writeln!(out, "  node {{");
        if i > 0 {
            let _ = writeln!(out, "    input: \"op_{}:0\"", i - 1);
        }
        let _ = writeln!(
            out,
            "    output: \"op_{i}:0\"\n    name: \"op_{i}\"\n    op_type: \"ge:Add\""
        );
        if strings && i < 100 {
            let _ = writeln!(
                out,
                "    attribute {{\n      name: \"_super_kernel_scope\"\n      s: \"scope_{}\"\n      \
                 type: STRING\n    }}",
                i / 500
            );
        }
        let _ = writeln!(
            out,
            "    attribute {{\n      name: \"id\"\n      i: {i}\n      type: INT\n    }}\n    \
             attribute {{\n      name: \"output_desc_shape:0\"\n      ints: 8\n      ints: 4096\n      \
             type: INTS\n    }}\n  }}"
        );
        i += 1;
    }
    out.push_str("  name: \"big\"\n}\nopset_import {\n  domain: \"ai.onnx\"\n  version: 11\n}\n");
    out
}

#[test]
fn a_big_ge_onnx_reads_the_same_on_both_cores() {
    for strings in [true, false] {
        let text = onnx_dump(5 << 20, strings);
        let both = load_bytes(Path::new("big.pbtxt"), text.as_bytes()).unwrap();
        let one = load_bytes(Path::new("big.pbtxt"), on_one_core_nodes(&text).as_bytes()).unwrap();
        let g = both.main();
        assert!(g.len() > 10_000, "{} ops", g.len());
        assert_eq!(g.name(), "big");
        assert_eq!(
            *g.op(skope::graph::OpId(3)).output_descs[0].shape,
            [8, 4096]
        );
        // Without any string attribute, the note that scopes cannot be seen; with them, none.
        assert_eq!(g.notes().len(), usize::from(!strings), "{:?}", g.notes());
        assert_eq!(everything(g), everything(one.main()), "strings {strings}");
    }
}
