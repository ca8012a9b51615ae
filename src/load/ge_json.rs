//! atc JSON dumps (`atc --mode=1` om→json, `atc --mode=5` ge_proto→json): a GE `ModelDef`
//! (or bare `GraphDef`) as JSON, maps as arrays of `{"key", "value"}`, enums as names, bytes
//! as C-escaped strings, floats sometimes as `"%g"` strings.
//!
//! GE's printer (`Pb2Json::Message2Json`) writes `null` for a message that prints nothing: an
//! empty element of a repeated message field (`"input_desc": [null]`) and a message whose only
//! fields are empty messages (`"value": null` for an attribute holding an empty list). proto3
//! leaves out fields at their defaults, a map entry's empty key too. So `null` reads as absent
//! (an empty message, list or default value) wherever a value may be, and a missing key as "".

use super::textproto::unescape;
use crate::graph::{AttrValue, DType, GraphBuilder, OpBuilder, TensorDesc};
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// What a `null` message reads as.
static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// A problem in a well-formed JSON document: where (a path such as `graph[0].op[3]`) and what.
#[derive(Debug)]
pub struct StructureError {
    /// JSON path of the offending value.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

type Result<T> = std::result::Result<T, StructureError>;

fn err<T>(path: &str, message: impl Into<String>) -> Result<T> {
    Err(StructureError {
        path: path.to_string(),
        message: message.into(),
    })
}

/// Converts a parsed JSON document into graphs' ops, to build (the first is the main one).
pub fn load(doc: &Value, default_name: &str) -> Result<Vec<GraphBuilder>> {
    let Some(root) = doc.as_object() else {
        return err("$", "expected a JSON object (a ModelDef or GraphDef)");
    };
    if let Some(graphs) = root.get("graph") {
        let graphs = array(graphs, "graph")?;
        return graphs
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.is_null())
            .map(|(i, g)| {
                let path = format!("graph[{i}]");
                let obj = object(g, &path)?;
                graph(obj, &path, &format!("graph_{i}"), true)
            })
            .collect();
    }
    if root.contains_key("op") {
        return Ok(vec![graph(root, "$", default_name, false)?]);
    }
    err(
        "$",
        "expected a \"graph\" array (ModelDef) or an \"op\" array (GraphDef)",
    )
}

fn graph(
    obj: &Map<String, Value>,
    path: &str,
    default_name: &str,
    streams: bool,
) -> Result<GraphBuilder> {
    let mut b = GraphBuilder::new(default_name);
    b.streams_assigned(streams);
    if let Some(name) = obj.get("name") {
        b.set_name(string(name, &format!("{path}.name"))?);
    }
    if let Some(ops) = obj.get("op") {
        for (i, op) in array(ops, &format!("{path}.op"))?.iter().enumerate() {
            if op.is_null() {
                continue;
            }
            let op_path = format!("{path}.op[{i}]");
            b.push(op_def(object(op, &op_path)?, &op_path)?);
        }
    }
    Ok(b)
}

fn op_def(obj: &Map<String, Value>, path: &str) -> Result<OpBuilder> {
    let mut op = OpBuilder::default();
    for (key, v) in obj.iter().filter(|(_, v)| !v.is_null()) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "name" => op.name = string(v, &at)?,
            "type" => op.op_type = string(v, &at)?,
            "input" => {
                for (i, s) in array(v, &at)?.iter().enumerate() {
                    op.inputs.push(string(s, &format!("{at}[{i}]"))?);
                }
            }
            "id" => op.topo_id = Some(int(v, &at)?),
            "stream_id" => op.stream = Some(int(v, &at)?),
            "attr" => {
                for (k, value) in attr_map(v, &at)? {
                    op.attrs.insert(k, value);
                }
            }
            "input_desc" => op.input_descs = descs(v, &at)?,
            "output_desc" => op.output_descs = descs(v, &at)?,
            _ => {}
        }
    }
    Ok(op)
}

/// A map field: `[{"key": k, "value": v}, …]` as atc writes it, or a plain object.
fn attr_map(v: &Value, path: &str) -> Result<Vec<(String, AttrValue)>> {
    match v {
        Value::Array(entries) => entries
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.is_null())
            .map(|(i, e)| {
                let at = format!("{path}[{i}]");
                let entry = object(e, &at)?;
                let key = match entry.get("key").filter(|k| !k.is_null()) {
                    Some(k) => string(k, &format!("{at}.key"))?,
                    None => String::new(),
                };
                let value = match entry.get("value") {
                    Some(v) => attr_def(v, &format!("{at}.value"))?,
                    None => AttrValue::Empty,
                };
                Ok((key, value))
            })
            .collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), attr_def(v, &format!("{path}.{k}"))?)))
            .collect(),
        Value::Null => Ok(Vec::new()),
        _ => err(path, "expected an array of {\"key\", \"value\"} entries"),
    }
}

fn attr_def(v: &Value, path: &str) -> Result<AttrValue> {
    let obj = object(v, path)?;
    let mut value = AttrValue::Empty;
    for (key, v) in obj.iter().filter(|(_, v)| !v.is_null()) {
        let at = format!("{path}.{key}");
        value = match key.as_str() {
            "s" => AttrValue::Str(bytes_text(v, &at)?),
            "i" => AttrValue::Int(int(v, &at)?),
            "f" => AttrValue::Float(float(v, &at)?),
            "b" => AttrValue::Bool(boolean(v, &at)?),
            "dt" => AttrValue::DType(dtype(v, &at)?),
            "expression" => AttrValue::Expression(bytes_text(v, &at)?),
            "td" => AttrValue::Tensor(Box::new(tensor_desc(object(v, &at)?, &at)?)),
            "g" | "func" => {
                let name = match object(v, &at)?.get("name").filter(|n| !n.is_null()) {
                    Some(n) => string(n, &format!("{at}.name"))?,
                    None => String::new(),
                };
                if key == "g" {
                    AttrValue::Graph(name)
                } else {
                    AttrValue::Func(name)
                }
            }
            "list" => list_value(object(v, &at)?, &at)?,
            "list_list_int" => {
                AttrValue::ListListInt(list_list(v, &at, "list_list_i", "list_i", int)?)
            }
            "list_list_float" => {
                AttrValue::ListListFloat(list_list(v, &at, "list_list_f", "list_f", float)?)
            }
            _ => continue,
        };
    }
    Ok(value)
}

fn list_value(obj: &Map<String, Value>, path: &str) -> Result<AttrValue> {
    let mut items = Vec::new();
    for (key, v) in obj {
        if key == "val_type" || v.is_null() {
            continue;
        }
        let at = format!("{path}.{key}");
        for (i, item) in array(v, &at)?.iter().enumerate() {
            let at = format!("{at}[{i}]");
            if item.is_null() && key != "td" {
                continue;
            }
            items.push(match key.as_str() {
                "s" => AttrValue::Str(bytes_text(item, &at)?),
                "i" => AttrValue::Int(int(item, &at)?),
                "f" => AttrValue::Float(float(item, &at)?),
                "b" => AttrValue::Bool(boolean(item, &at)?),
                "dt" => AttrValue::DType(dtype(item, &at)?),
                "td" => AttrValue::Tensor(Box::new(tensor_desc(object(item, &at)?, &at)?)),
                _ => continue,
            });
        }
    }
    Ok(AttrValue::List(items))
}

fn list_list<T>(
    v: &Value,
    path: &str,
    outer: &str,
    inner: &str,
    parse: fn(&Value, &str) -> Result<T>,
) -> Result<Vec<Vec<T>>> {
    let Some(lists) = object(v, path)?.get(outer) else {
        return Ok(Vec::new());
    };
    let at = format!("{path}.{outer}");
    array(lists, &at)?
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let at = format!("{at}[{i}]");
            match object(l, &at)?.get(inner) {
                Some(items) => array(items, &format!("{at}.{inner}"))?
                    .iter()
                    .map(|x| parse(x, &at))
                    .collect(),
                None => Ok(Vec::new()),
            }
        })
        .collect()
}

fn descs(v: &Value, path: &str) -> Result<Vec<TensorDesc>> {
    array(v, path)?
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let at = format!("{path}[{i}]");
            tensor_desc(object(d, &at)?, &at)
        })
        .collect()
}

fn tensor_desc(obj: &Map<String, Value>, path: &str) -> Result<TensorDesc> {
    let mut td = TensorDesc::default();
    for (key, v) in obj.iter().filter(|(_, v)| !v.is_null()) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "name" => td.name = string(v, &at)?,
            "dtype" => td.dtype = dtype(v, &at)?,
            "layout" => td.layout = string(v, &at)?,
            "shape" => {
                if let Some(dims) = object(v, &at)?.get("dim").filter(|d| !d.is_null()) {
                    let at = format!("{at}.dim");
                    td.shape = array(dims, &at)?
                        .iter()
                        .map(|d| int(d, &at))
                        .collect::<Result<_>>()?;
                }
            }
            "attr" => {
                for (k, value) in attr_map(v, &at)? {
                    super::ge_ir::apply_tensor_attr(&mut td, &k, value);
                }
            }
            _ => {}
        }
    }
    Ok(td)
}

/// A message: `null` is an empty one.
fn object<'v>(v: &'v Value, path: &str) -> Result<&'v Map<String, Value>> {
    match v {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(&EMPTY),
        _ => err(path, format!("expected an object, found {}", kind(v))),
    }
}

/// A repeated field: `null` is an empty one.
fn array<'v>(v: &'v Value, path: &str) -> Result<&'v [Value]> {
    match v {
        Value::Array(items) => Ok(items),
        Value::Null => Ok(&[]),
        _ => err(path, format!("expected an array, found {}", kind(v))),
    }
}

fn string(v: &Value, path: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        _ => err(path, format!("expected a string, found {}", kind(v))),
    }
}

/// A `bytes` field: atc writes these C-escaped.
fn bytes_text(v: &Value, path: &str) -> Result<String> {
    let Value::String(s) = v else {
        return err(path, format!("expected a string, found {}", kind(v)));
    };
    match unescape(s.as_bytes(), 0) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => err(
            path,
            format!(
                "{} (at character {} of the string)",
                e.message,
                e.offset + 1
            ),
        ),
    }
}

/// int64 values may be JSON numbers or strings.
fn int(v: &Value, path: &str) -> Result<i64> {
    match v {
        Value::Number(n) => n.as_i64().map_or_else(
            || err(path, format!("integer {n} does not fit in int64")),
            Ok,
        ),
        Value::String(s) => s.trim().parse().map_or_else(
            |_| err(path, format!("expected an integer, found \"{s}\"")),
            Ok,
        ),
        _ => err(path, format!("expected an integer, found {}", kind(v))),
    }
}

/// Floats are written with `%g`, as strings or numbers.
fn float(v: &Value, path: &str) -> Result<f64> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .map_or_else(|| err(path, "number out of range"), Ok),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "inf" | "+inf" | "infinity" => Ok(f64::INFINITY),
            "-inf" | "-infinity" => Ok(f64::NEG_INFINITY),
            "nan" | "-nan" => Ok(f64::NAN),
            t => t.parse().map_or_else(
                |_| err(path, format!("expected a number, found \"{s}\"")),
                Ok,
            ),
        },
        _ => err(path, format!("expected a number, found {}", kind(v))),
    }
}

fn boolean(v: &Value, path: &str) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Number(n) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => {
            Ok(n.as_i64() == Some(1))
        }
        _ => err(path, format!("expected true or false, found {}", kind(v))),
    }
}

fn dtype(v: &Value, path: &str) -> Result<DType> {
    match v {
        Value::String(s) => DType::from_name(s).map_or_else(
            || {
                err(
                    path,
                    format!("unknown data type \"{s}\" (expected a DT_* name)"),
                )
            },
            Ok,
        ),
        _ => Ok(DType::from_code(int(v, path)?)),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
