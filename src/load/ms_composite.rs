//! MindSpore graph-kernel composite JSON (`akg_kernel_meta/*.info`, the kernel's `.json`): one
//! fused kernel's basic ops (reference/profiling_and_dumps.md §4.2, from MindSpore's
//! `graph_kernel_json_generator.cc`). Every basic op becomes an op of the graph carrying the
//! composite's kernel name in [`ATTR_COMPOSITE`]; each graph input (`input_N`) becomes a `Data`
//! op; edges come from matching `tensor_name`s.

use crate::graph::{AttrValue, Attrs, DType, GraphBuilder, OpBuilder, TensorDesc};
use serde::Deserialize;
use std::collections::HashMap;

/// The attribute naming the composite (fused) kernel an op belongs to.
pub const ATTR_COMPOSITE: &str = "_gk_composite";

/// The attribute holding an op's full scope name (`ptr_address`, or the `.ir`'s "Fullname with
/// scope").
pub const ATTR_FULL_NAME: &str = "_ms_full_name";

/// A composite JSON that is well-formed JSON but not a composite.
#[derive(Debug)]
pub struct Structure {
    /// Where (a JSON path such as `op_desc[2].input_desc`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

#[derive(Deserialize)]
struct Raw {
    #[serde(default)]
    composite: Option<bool>,
    #[serde(default)]
    composite_graph: Option<String>,
    op: Option<String>,
    #[serde(default)]
    op_full_name: Option<String>,
    op_desc: Option<Vec<RawNode>>,
    #[serde(default)]
    input_desc: Option<Vec<Vec<RawTensor>>>,
    #[serde(default)]
    output_desc: Option<Vec<RawTensor>>,
    #[serde(default)]
    platform: Option<String>,
    #[serde(default)]
    process: Option<String>,
    #[serde(default)]
    target_info: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawNode {
    name: Option<String>,
    #[serde(default)]
    attr: Option<Vec<RawAttr>>,
    #[serde(default)]
    input_desc: Option<Vec<Vec<RawTensor>>>,
    #[serde(default)]
    output_desc: Option<Vec<RawTensor>>,
    #[serde(default)]
    ptr_address: Option<String>,
}

#[derive(Deserialize)]
struct RawAttr {
    name: Option<String>,
    #[serde(default)]
    value: serde_json::Value,
}

#[derive(Deserialize, Clone)]
struct RawTensor {
    #[serde(default)]
    data_type: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    shape: Option<Vec<i64>>,
    #[serde(default)]
    tensor_name: Option<String>,
    #[serde(default)]
    value: Option<serde_json::Value>,
}

/// MindSpore's data type names (`float32`, `float16`, `bfloat16`…) as GE's.
pub fn dtype(name: &str) -> DType {
    let ge = match name.to_ascii_lowercase().as_str() {
        "float32" => "DT_FLOAT",
        "float16" => "DT_FLOAT16",
        "bfloat16" => "DT_BF16",
        "float64" => "DT_DOUBLE",
        "bool" => "DT_BOOL",
        other => return DType::from_name(other).unwrap_or(DType::UNDEFINED),
    };
    DType::from_name(ge).unwrap_or(DType::UNDEFINED)
}

fn desc(t: &RawTensor) -> TensorDesc {
    TensorDesc {
        name: t.tensor_name.as_deref().unwrap_or_default().into(),
        dtype: dtype(t.data_type.as_deref().unwrap_or_default()),
        shape: t.shape.clone().unwrap_or_default().into(),
        layout: crate::graph::layout(t.format.as_deref().unwrap_or_default()),
        origin_shape: None,
        origin_layout: None,
    }
}

/// A JSON value as an attribute (numbers, strings, booleans and lists of them; other values as
/// their JSON text).
fn attr_value(v: &serde_json::Value) -> AttrValue {
    use serde_json::Value;
    match v {
        Value::Bool(b) => AttrValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => AttrValue::Int(i),
            None => AttrValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => AttrValue::Str(s.clone()),
        Value::Array(items) if items.iter().all(Value::is_i64) => AttrValue::List(
            items
                .iter()
                .filter_map(Value::as_i64)
                .map(AttrValue::Int)
                .collect(),
        ),
        other => AttrValue::Str(other.to_string()),
    }
}

/// True when `head` (the start of a JSON file) looks like a composite kernel.
pub fn looks_like(head: &[u8]) -> bool {
    let head = &head[..head.len().min(64 << 10)];
    let has = |key: &[u8]| head.windows(key.len()).any(|w| w == key);
    has(b"\"op_desc\"") && (has(b"\"composite\"") || has(b"\"composite_graph\""))
}

/// Reads one composite kernel into a graph named after its kernel.
pub fn load(src: &[u8]) -> Result<Result<GraphBuilder, Structure>, serde_json::Error> {
    let raw: Raw = serde_json::from_slice(src)?;
    let mut b = GraphBuilder::new("");
    Ok(add(raw, &mut b, false).map(|kernel| {
        b.set_name(kernel);
        b
    }))
}

/// Adds one composite kernel (the JSON `src`) to `b`, its ops' names after the kernel's
/// (`<kernel>/<op>`): for a directory of them.
pub fn add_qualified(
    src: &[u8],
    b: &mut GraphBuilder,
) -> Result<Result<String, Structure>, serde_json::Error> {
    let raw: Raw = serde_json::from_slice(src)?;
    Ok(add(raw, b, true))
}

/// Adds the ops of composite `raw` to `b` (named `<kernel>/<op>` when `qualify`); returns the
/// kernel's name.
fn add(raw: Raw, b: &mut GraphBuilder, qualify: bool) -> Result<String, Structure> {
    let structure = |path: &str, message: &str| Structure {
        path: path.to_string(),
        message: message.to_string(),
    };
    if raw.composite == Some(false) {
        return Err(structure(
            "composite",
            "false: not a composite (fused) kernel",
        ));
    }
    let kernel = raw
        .op_full_name
        .clone()
        .or(raw.op.clone())
        .ok_or_else(|| structure("op", "missing: the composite kernel's name"))?;
    let nodes = raw
        .op_desc
        .ok_or_else(|| structure("op_desc", "missing: the composite's basic ops"))?;
    let q = |name: &str| {
        if qualify {
            format!("{kernel}/{name}")
        } else {
            name.to_string()
        }
    };
    let mut graph_attrs = Attrs::default();
    for (key, value) in [
        ("composite_graph", raw.composite_graph),
        ("platform", raw.platform),
        ("process", raw.process),
        (
            "arch",
            raw.target_info
                .as_ref()
                .and_then(|t| t.get("arch"))
                .and_then(|a| a.as_str())
                .map(str::to_string),
        ),
    ] {
        if let Some(v) = value {
            graph_attrs.insert(key, AttrValue::Str(v));
        }
    }
    // Graph inputs: one Data op per `input_N` tensor.
    let mut producer: HashMap<String, String> = HashMap::new();
    for (i, slot) in raw.input_desc.unwrap_or_default().iter().enumerate() {
        for t in slot {
            let Some(name) = t.tensor_name.clone() else {
                return Err(structure(
                    &format!("input_desc[{i}]"),
                    "a tensor without tensor_name (edges are made by it)",
                ));
            };
            producer.insert(name.clone(), q(&name));
            b.push(OpBuilder {
                name: q(&name),
                op_type: "Data".into(),
                output_descs: vec![desc(t)],
                attrs: graph_attrs.clone(),
                ..OpBuilder::default()
            });
        }
    }
    // Names: the last part of the node's full scope name, else `<Prim>_<i>`; unique.
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut ops = Vec::with_capacity(nodes.len());
    for (i, node) in nodes.iter().enumerate() {
        let prim = node
            .name
            .clone()
            .ok_or_else(|| structure(&format!("op_desc[{i}].name"), "missing: the basic op"))?;
        let base = node
            .ptr_address
            .as_deref()
            .and_then(|p| p.rsplit('/').next())
            .filter(|s| !s.is_empty())
            .map_or_else(|| format!("{prim}_{i}"), str::to_string);
        let n = taken.entry(base.clone()).or_insert(0);
        *n += 1;
        let name = q(&if *n == 1 { base } else { format!("{base}#{n}") });
        for t in node.output_desc.iter().flatten() {
            if let Some(tn) = &t.tensor_name {
                producer.insert(tn.clone(), name.clone());
            }
        }
        ops.push((name, prim));
    }
    for ((name, prim), node) in ops.into_iter().zip(&nodes) {
        let mut attrs = Attrs::default();
        attrs.insert(ATTR_COMPOSITE, AttrValue::Str(kernel.clone()));
        if let Some(p) = &node.ptr_address {
            attrs.insert(ATTR_FULL_NAME, AttrValue::Str(p.clone()));
        }
        for a in node.attr.iter().flatten() {
            if let Some(key) = &a.name {
                attrs.insert(key.clone(), attr_value(&a.value));
            }
        }
        let mut inputs = Vec::new();
        let mut input_descs = Vec::new();
        for t in node.input_desc.iter().flatten().flatten() {
            input_descs.push(desc(t));
            // An inline constant (`value`) has no producer.
            if t.value.is_some() {
                continue;
            }
            match t.tensor_name.as_ref().and_then(|n| producer.get(n)) {
                Some(src) => inputs.push(format!("{src}:0")),
                None => inputs.push(String::new()),
            }
        }
        b.push(OpBuilder {
            name,
            op_type: prim,
            attrs,
            input_descs,
            output_descs: node.output_desc.iter().flatten().map(desc).collect(),
            inputs,
            ..OpBuilder::default()
        });
    }
    // The kernel's outputs.
    let outputs: Vec<String> = raw
        .output_desc
        .unwrap_or_default()
        .iter()
        .filter_map(|t| t.tensor_name.as_ref().and_then(|n| producer.get(n)))
        .map(|src| format!("{src}:0"))
        .collect();
    b.push(OpBuilder {
        name: q("output"),
        op_type: "NetOutput".into(),
        inputs: outputs,
        ..OpBuilder::default()
    });
    Ok(kernel)
}
