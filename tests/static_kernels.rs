//! Static kernel compile outputs: both directory names, several runs and processes, the op-info
//! JSON's variants (absent optional inputs as null, dynamic inputs as arrays, `deterministic` as
//! a string, a BOM), what was compiled and what was filtered out with why, and bad files.

use serde_json::{Value, json};
use skope::static_kernels::{read, summarise};
use std::path::{Path, PathBuf};

fn tensor(name: &str, dtype: &str, shape: &[i64]) -> Value {
    json!({"dtype": dtype, "format": "ND", "index": 0, "is_view": false, "name": name,
           "origin_format": "ND", "origin_shape": shape, "param_type": "required",
           "shape": shape, "value_depend": false})
}

/// An op-info JSON as opbase writes it (keys in alphabetical order, two-space indent).
fn op_info(op_type: &str, inputs: Vec<Value>) -> String {
    let v = json!({
        "attrs": [{"dtype": "bool", "index": 0, "name": "transpose_x1", "value": false}],
        "deterministic": "false",
        "deterministic_level": 0,
        "impl_mode": "high_performance",
        "inputs": inputs,
        "op_type": op_type,
        "outputs": [tensor("y", "float16", &[8, 4096])],
        "platform_info": {"cube_core_cnt": 24, "vector_core_cnt": 48},
        "tune_mode": "all"
    });
    serde_json::to_string_pretty(&v).unwrap()
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// A run directory of process `pid` with the sets the compile writes.
fn run(root: &Path, name: &str, pid: &str, selected: bool) -> PathBuf {
    let dir = root.join(name);
    let mm = op_info(
        "MatMulV2",
        vec![
            tensor("x1", "float16", &[8, 7168]),
            tensor("x2", "float16", &[7168, 4096]),
            Value::Null,
        ],
    );
    let mm2 = op_info(
        "MatMulV2",
        vec![
            tensor("x1", "float16", &[16, 7168]),
            tensor("x2", "float16", &[7168, 4096]),
            Value::Null,
        ],
    );
    let sum = op_info("ReduceSum", vec![tensor("x", "float", &[8, 4096])]);
    let cat = op_info(
        "ConcatD",
        vec![json!([
            tensor("x0", "float16", &[8, 64]),
            tensor("x1", "float16", &[8, 64])
        ])],
    );
    let dynamic = op_info(
        "Add",
        vec![
            tensor("x1", "float16", &[-1, 4096]),
            tensor("x2", "float16", &[-1, 4096]),
        ],
    );
    for (i, text) in [&mm, &mm2, &sum, &cat, &dynamic].iter().enumerate() {
        write(
            &dir.join(format!("{pid}_debug")),
            &format!("op_{i}.json"),
            text,
        );
    }
    write(
        &dir.join(pid),
        "MatMulV2_float16_ND_8_7168_0.json",
        &format!("\u{feff}{mm}"),
    );
    for (i, text) in [&mm, &mm2, &cat, &dynamic].iter().enumerate() {
        write(
            &dir.join(format!("{pid}_opcompile")),
            &format!("op_{i}.json"),
            text,
        );
    }
    if selected {
        write(
            &dir.join(format!("{pid}_opcompile_selected")),
            "a.json",
            &mm,
        );
        write(
            &dir.join(format!("{pid}_opcompile_selected")),
            "b.json",
            &cat,
        );
    }
    write(&dir, "static_kernel_20261124.run", "#!/bin/sh\n");
    dir
}

#[test]
fn compiled_and_filtered_ops_with_their_shapes_and_reasons() {
    let root = crate::common::scratch("static-new").join("static_kernel_compile_outputs");
    let _ = std::fs::remove_dir_all(&root);
    run(&root, "ts1732406400_pid4711_outputs", "4711", true);
    let (runs, problems) = read(root.parent().unwrap()).expect("found below the root");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].packages.len(), 1);
    let s = summarise(&runs, problems);
    let types: Vec<&str> = s.compiled.iter().map(|c| c.op_type.as_str()).collect();
    assert_eq!(types, ["ConcatD", "MatMulV2"]);
    // A dynamic input's tensors are one signature; an absent optional input is left out.
    assert_eq!(
        s.compiled[0].signatures,
        ["float16[8,64] ND, float16[8,64] ND"]
    );
    let reason = |t: &str| {
        s.filtered
            .iter()
            .find(|f| f.op_type == t)
            .map(|f| f.reason)
            .unwrap()
    };
    assert!(reason("ReduceSum").starts_with("on the static compile's blacklist"));
    assert!(reason("Add").starts_with("a dynamic shape"));
    // The second MatMulV2 shape was eligible but op_compiler did not build it.
    let mm2 = s
        .filtered
        .iter()
        .find(|f| f.signature.starts_with("float16[16,7168]"))
        .unwrap();
    assert!(mm2.reason.starts_with("eligible but not selected"));
    assert!(s.notes.is_empty());
    let text = s.to_text();
    assert!(
        text.starts_with("static kernels: 2 op type(s), 2 binary(ies) from 1 run(s)"),
        "{text}"
    );
}

#[test]
fn the_older_layout_several_processes_and_bad_files() {
    let root = crate::common::scratch("static-old").join("aclnn_static_shape_kernel_outputs");
    let _ = std::fs::remove_dir_all(&root);
    // Without a selected set, the compile set is what was built.
    let dir = run(&root, "1732406400_4711_outputs", "4711", false);
    run(&root, "1732406400_4711_outputs", "4712", false);
    write(
        &dir.join("4711_debug"),
        "broken.json",
        "{\n  \"op_type\": \"Add\",\n  \"inputs\": [",
    );
    write(&dir.join("4711_debug"), "no_type.json", "{\"inputs\": []}");
    let (runs, problems) = read(&dir).expect("a run directory itself");
    assert_eq!(runs[0].processes.len(), 2);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().any(|p| p.contains("broken.json: line 3")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("missing field `op_type`")),
        "{problems:?}"
    );
    let s = summarise(&runs, problems);
    let mm = s.compiled.iter().find(|c| c.op_type == "MatMulV2").unwrap();
    assert_eq!(mm.signatures.len(), 2);
    assert!(
        s.notes[0].contains("2 processes wrote into one run directory"),
        "{:?}",
        s.notes
    );
    // Nothing of the kind: an error that says what to pass.
    let e = read(&crate::common::scratch("static-none"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no static kernel compile outputs here"), "{e}");
    assert!(
        e.contains("hint: pass static_kernel_compile_outputs/"),
        "{e}"
    );
}

#[test]
fn op_info_variants_read() {
    use skope::static_kernels::op_info::{Slot, parse};
    let v = parse(
        op_info(
            "MatMulV2",
            vec![tensor("x1", "bfloat16", &[2, 3]), Value::Null],
        )
        .as_bytes(),
    )
    .unwrap();
    assert_eq!(v.inputs[1], Slot::Absent);
    assert_eq!(v.deterministic, Some(false));
    assert_eq!(v.attrs, ["transpose_x1=false"]);
    assert_eq!(v.signature(), "bfloat16[2,3] ND");
    for bad in [
        &b"[]"[..],
        b"{\"op_type\": 3}",
        b"{\"op_type\": \"A\", \"inputs\": [{\"shape\": [\"x\"]}]}",
    ] {
        assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
    }
}
