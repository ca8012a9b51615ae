//! One op-info JSON of a static kernel compile: what the single-op dump wrote for an op run
//! eagerly (reference/profiling_and_dumps.md §3.2, opbase `op_info_serialize.cpp`): the op type,
//! each IR input and output slot (an object, `null` for an absent optional one, an array for a
//! dynamic one), the attrs, and `deterministic` as the string `"true"`/`"false"`.

use serde::Deserialize;
use serde_json::Value;

/// A tensor of an op's slot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tensor {
    /// IR name.
    pub name: String,
    /// Data type (`float16`, `bfloat16`…).
    pub dtype: String,
    /// Storage shape.
    pub shape: Vec<i64>,
    /// Storage format (`ND`, `FRACTAL_NZ`…).
    pub format: String,
}

impl Tensor {
    /// `float16[8,7168] ND`.
    pub fn label(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(i64::to_string).collect();
        format!("{}[{}] {}", self.dtype, dims.join(","), self.format)
    }

    /// True when a dimension is unknown (-1) or the rank is (-2).
    pub fn dynamic(&self) -> bool {
        self.shape.iter().any(|&d| d < 0)
    }
}

/// An IR slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// An optional input left out (`null`).
    Absent,
    /// One tensor.
    One(Tensor),
    /// A dynamic input: its tensors.
    Dynamic(Vec<Tensor>),
}

/// One op-info file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInfo {
    /// `op_type`.
    pub op_type: String,
    /// Input slots, in IR order.
    pub inputs: Vec<Slot>,
    /// Output slots.
    pub outputs: Vec<Slot>,
    /// Attrs as `name=value`, in IR order.
    pub attrs: Vec<String>,
    /// `deterministic`, written as a string.
    pub deterministic: Option<bool>,
}

impl OpInfo {
    /// The inputs' tensors, as the file name's shape key and the graph join use them.
    pub fn input_tensors(&self) -> impl Iterator<Item = &Tensor> {
        self.inputs.iter().flat_map(|s| match s {
            Slot::Absent => Vec::new(),
            Slot::One(t) => vec![t],
            Slot::Dynamic(ts) => ts.iter().collect(),
        })
    }

    /// `float16[8,7168] ND, int32[8] ND`: the input signature one binary is built for.
    pub fn signature(&self) -> String {
        let parts: Vec<String> = self.input_tensors().map(Tensor::label).collect();
        parts.join(", ")
    }

    /// True when an input's shape is not fully known.
    pub fn dynamic(&self) -> bool {
        self.input_tensors().any(Tensor::dynamic)
    }
}

#[derive(Deserialize)]
struct Raw {
    op_type: String,
    #[serde(default)]
    inputs: Option<Vec<Value>>,
    #[serde(default)]
    outputs: Option<Vec<Value>>,
    #[serde(default)]
    attrs: Option<Vec<RawAttr>>,
    #[serde(default)]
    deterministic: Option<Value>,
}

#[derive(Deserialize)]
struct RawAttr {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    value: Option<Value>,
}

/// Why a file is not an op-info JSON: serde's words (or ours) and the place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInfoError {
    /// What is wrong.
    pub message: String,
    /// 1-based line and column, when known.
    pub at: Option<(usize, usize)>,
}

fn tensor(v: &Value) -> Result<Tensor, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("a tensor is {v}, not an object"))?;
    let text = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let shape = match obj.get("shape") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(dims)) => dims
            .iter()
            .map(|d| {
                d.as_i64()
                    .ok_or_else(|| format!("a shape dimension is {d}, not an integer"))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("a shape is {other}, not a list")),
    };
    Ok(Tensor {
        name: text("name"),
        dtype: text("dtype"),
        format: text("format"),
        shape,
    })
}

fn slots(values: Option<Vec<Value>>) -> Result<Vec<Slot>, String> {
    values
        .unwrap_or_default()
        .iter()
        .map(|v| match v {
            Value::Null => Ok(Slot::Absent),
            Value::Array(items) => Ok(Slot::Dynamic(
                items.iter().map(tensor).collect::<Result<_, _>>()?,
            )),
            other => tensor(other).map(Slot::One),
        })
        .collect()
}

/// Reads an op-info JSON's bytes (a UTF-8 BOM is allowed).
pub fn parse(bytes: &[u8]) -> Result<OpInfo, OpInfoError> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let raw: Raw = serde_json::from_slice(body).map_err(|e| OpInfoError {
        message: crate::text::json_error_words(&e),
        at: (e.line() > 0).then(|| (e.line(), e.column())),
    })?;
    let plain = |message: String| OpInfoError { message, at: None };
    Ok(OpInfo {
        op_type: raw.op_type,
        inputs: slots(raw.inputs).map_err(plain)?,
        outputs: slots(raw.outputs).map_err(plain)?,
        attrs: raw
            .attrs
            .unwrap_or_default()
            .into_iter()
            .map(|a| {
                format!(
                    "{}={}",
                    a.name.unwrap_or_default(),
                    a.value.map_or("null".to_string(), |v| v.to_string())
                )
            })
            .collect(),
        deterministic: match raw.deterministic {
            Some(Value::String(s)) => Some(s == "true"),
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        },
    })
}
