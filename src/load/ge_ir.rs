//! Readers for GE IR messages (`ge_ir.proto`) in protobuf text form: `GraphDef`, `OpDef`,
//! `AttrDef`, `TensorDescriptor`. Shared by the GE text dumps and, for its embedded attribute
//! texts, the TorchAir pbtxt dialect.

use super::halves::read_in_halves;
use super::textproto::{Reader, Result, Scalar, SyntaxError, Value};
use crate::graph::{AttrValue, DType, GraphBuilder, Interned, OpBuilder, TensorDesc, layout};
use std::borrow::Cow;

/// Reads the fields of a `GraphDef` (already opened, or the whole input at top level) into
/// `builder`. Unknown fields are skipped. A big graph's ops are read on both cores
/// ([`read_in_halves`]).
pub fn read_graph_def(r: &mut Reader<'_>, builder: &mut GraphBuilder) -> Result<()> {
    read_graph_fields(r, builder, true, &mut Interned::default())
}

fn read_graph_fields(
    r: &mut Reader<'_>,
    builder: &mut GraphBuilder,
    mut may_split: bool,
    interned: &mut Interned,
) -> Result<()> {
    while let Some(f) = r.next_field()? {
        match f.name {
            "name" => builder.set_name(f.scalar()?.text()?),
            "op" => {
                f.expect_message()?;
                if std::mem::take(&mut may_split)
                    && read_in_halves(r, builder, interned, "op", |part, half, interned| {
                        read_graph_fields(part, half, false, interned)
                    })
                {
                    return Ok(());
                }
                builder.push(read_op_def(r, interned)?);
            }
            _ => r.skip(&f)?,
        }
    }
    Ok(())
}

/// Reads the fields of an opened `OpDef` message.
pub fn read_op_def(r: &mut Reader<'_>, interned: &mut Interned) -> Result<OpBuilder> {
    let mut op = OpBuilder::default();
    while let Some(f) = r.next_field()? {
        match f.name {
            "name" => op.name = f.scalar()?.text()?.into_owned(),
            "type" => op.op_type = f.scalar()?.text()?.into_owned(),
            "input" => op.inputs.push(f.scalar()?.text()?.into_owned()),
            "id" => op.topo_id = Some(f.scalar()?.int()?),
            "stream_id" => op.stream = Some(f.scalar()?.int()?),
            "attr" => {
                f.expect_message()?;
                let (key, value) = read_attr_entry_if(r, |_| true)?;
                op.attrs
                    .insert(interned.key(&key), value.unwrap_or(AttrValue::Empty));
            }
            "input_desc" => {
                f.expect_message()?;
                op.input_descs.push(read_tensor_desc(r, interned)?);
            }
            "output_desc" => {
                f.expect_message()?;
                op.output_descs.push(read_tensor_desc(r, interned)?);
            }
            _ => r.skip(&f)?,
        }
    }
    Ok(op)
}

/// Reads an opened map entry, building the value only when `wanted(key)`; otherwise the value
/// is skipped (GE prints the key first, so unwanted values cost no allocation).
fn read_attr_entry_if<'a>(
    r: &mut Reader<'a>,
    wanted: impl Fn(&str) -> bool,
) -> Result<(Cow<'a, str>, Option<AttrValue>)> {
    let mut key: Option<Cow<'a, str>> = None;
    let mut value = None;
    while let Some(f) = r.next_field()? {
        match f.name {
            "key" => key = Some(f.scalar()?.text()?),
            "value" if key.as_deref().is_some_and(|k| !wanted(k)) => r.skip(&f)?,
            "value" => {
                f.expect_message()?;
                value = Some(read_attr_def(r)?);
            }
            _ => r.skip(&f)?,
        }
    }
    let key = key.unwrap_or_default();
    if !wanted(&key) {
        value = None;
    }
    Ok((key, value))
}

/// Reads the fields of an opened `AttrDef` (or the whole input at top level).
pub fn read_attr_def(r: &mut Reader<'_>) -> Result<AttrValue> {
    let mut value = AttrValue::Empty;
    while let Some(f) = r.next_field()? {
        if let Some(v) = read_value_field(r, f.name, &f.value)? {
            value = v;
            continue;
        }
        value = match (f.name, &f.value) {
            ("expression", Value::Scalar(s)) => AttrValue::Expression(s.text()?.into_owned()),
            ("list", Value::Message) => read_list_value(r)?,
            ("list_list_int", Value::Message) => {
                AttrValue::ListListInt(read_list_list(r, "list_list_i", "list_i", |s| s.int())?)
            }
            ("list_list_float", Value::Message) => {
                AttrValue::ListListFloat(read_list_list(r, "list_list_f", "list_f", |s| s.float())?)
            }
            _ => {
                r.skip(&f)?;
                value
            }
        };
    }
    Ok(value)
}

/// Reads an `AttrDef.ListValue`: every element field becomes one list item.
fn read_list_value(r: &mut Reader<'_>) -> Result<AttrValue> {
    let mut items = Vec::new();
    while let Some(f) = r.next_field()? {
        match read_value_field(r, f.name, &f.value)? {
            Some(item) => items.push(item),
            None => r.skip(&f)?,
        }
    }
    Ok(AttrValue::List(items))
}

/// The value fields `AttrDef` and its `ListValue` share (`s`, `i`, `f`, `b`, `dt`, `bt`, `td`,
/// `t`, `g`, `func`/`na`); `None` for any other field, which the caller handles or skips.
fn read_value_field(
    r: &mut Reader<'_>,
    name: &str,
    value: &Value<'_>,
) -> Result<Option<AttrValue>> {
    Ok(Some(match (name, value) {
        ("s", Value::Scalar(s)) => AttrValue::Str(s.text()?.into_owned()),
        ("i", Value::Scalar(s)) => AttrValue::Int(s.int()?),
        ("f", Value::Scalar(s)) => AttrValue::Float(s.float()?),
        ("b", Value::Scalar(s)) => AttrValue::Bool(s.boolean()?),
        ("dt", Value::Scalar(s)) => AttrValue::DType(dtype(s)?),
        ("bt", Value::Scalar(s)) => AttrValue::Bytes(s.bytes()?.len()),
        ("td", Value::Message) => {
            AttrValue::Tensor(Box::new(read_tensor_desc(r, &mut Interned::default())?))
        }
        ("t", Value::Message) => read_tensor_def(r)?,
        ("g", Value::Message) => AttrValue::Graph(read_name_only(r)?),
        ("func" | "na", Value::Message) => AttrValue::Func(read_name_only(r)?),
        _ => return Ok(None),
    }))
}

fn read_list_list<T>(
    r: &mut Reader<'_>,
    outer: &str,
    inner: &str,
    parse: impl Fn(&Scalar<'_>) -> Result<T>,
) -> Result<Vec<Vec<T>>> {
    let mut lists = Vec::new();
    while let Some(f) = r.next_field()? {
        if f.name == outer && matches!(f.value, Value::Message) {
            let mut list = Vec::new();
            while let Some(g) = r.next_field()? {
                match &g.value {
                    Value::Scalar(s) if g.name == inner => list.push(parse(s)?),
                    _ => r.skip(&g)?,
                }
            }
            lists.push(list);
        } else {
            r.skip(&f)?;
        }
    }
    Ok(lists)
}

/// Reads a message keeping only its `name` field (graphs and named attrs in attributes).
fn read_name_only(r: &mut Reader<'_>) -> Result<String> {
    let mut name = String::new();
    while let Some(f) = r.next_field()? {
        match (&f.value, f.name) {
            (Value::Scalar(s), "name") => name = s.text()?.into_owned(),
            _ => r.skip(&f)?,
        }
    }
    Ok(name)
}

/// Reads a `TensorDef`, keeping the size of its data.
fn read_tensor_def(r: &mut Reader<'_>) -> Result<AttrValue> {
    let mut size = 0;
    while let Some(f) = r.next_field()? {
        match (&f.value, f.name) {
            (Value::Scalar(s), "data") => size = s.bytes()?.len(),
            _ => r.skip(&f)?,
        }
    }
    Ok(AttrValue::Bytes(size))
}

/// Reads the fields of an opened `TensorDescriptor` (or the whole input at top level).
pub fn read_tensor_desc(r: &mut Reader<'_>, interned: &mut Interned) -> Result<TensorDesc> {
    let mut td = TensorDesc::default();
    while let Some(f) = r.next_field()? {
        match (f.name, &f.value) {
            ("name", Value::Scalar(s)) => td.name = interned.key(&s.text()?),
            ("dtype", Value::Scalar(s)) => td.dtype = dtype(s)?,
            ("layout", Value::Scalar(s)) => td.layout = layout(&s.text()?),
            ("shape", Value::Message) => td.shape = interned.shape(&read_shape(r)?),
            ("attr", Value::Message) => {
                if let (key, Some(value)) = read_attr_entry_if(r, is_kept_tensor_attr)? {
                    apply_tensor_attr(&mut td, &key, value, interned);
                }
            }
            _ => r.skip(&f)?,
        }
    }
    Ok(td)
}

/// The tensor attributes skope keeps.
fn is_kept_tensor_attr(key: &str) -> bool {
    matches!(key, "origin_shape" | "origin_format")
}

/// Keeps the tensor attributes skope shows (origin shape and format); drops the rest.
pub fn apply_tensor_attr(
    td: &mut TensorDesc,
    key: &str,
    value: AttrValue,
    interned: &mut Interned,
) {
    match (key, value) {
        ("origin_shape", AttrValue::List(dims)) => {
            let dims: Vec<i64> = dims.iter().filter_map(AttrValue::as_int).collect();
            td.origin_shape = Some(interned.shape(&dims));
        }
        ("origin_format", AttrValue::Str(s)) => td.origin_layout = Some(layout(&s)),
        _ => {}
    }
}

fn read_shape(r: &mut Reader<'_>) -> Result<Vec<i64>> {
    let mut dims = Vec::new();
    while let Some(f) = r.next_field()? {
        match (&f.value, f.name) {
            (Value::Scalar(s), "dim") => dims.push(s.int()?),
            _ => r.skip(&f)?,
        }
    }
    Ok(dims)
}

/// A data type given as an enum name (`DT_FLOAT16`) or number.
fn dtype(s: &Scalar<'_>) -> Result<DType> {
    match s.ident() {
        Some(name) => DType::from_name(name).ok_or_else(|| {
            SyntaxError::new(
                s.offset(),
                format!("unknown data type {name} (expected a DT_* name)"),
            )
        }),
        None => Ok(DType::from_code(s.int()?)),
    }
}

/// Parses a whole text as one `AttrDef` (TorchAir pbtxt stores attribute values this way).
pub fn parse_attr_def_text(text: &[u8]) -> Result<AttrValue> {
    read_attr_def(&mut Reader::new(text))
}

/// Parses a whole text as one `TensorDescriptor` (TorchAir pbtxt `[i]`/`[o]` pseudo-attrs).
pub fn parse_tensor_desc_text(text: &[u8], interned: &mut Interned) -> Result<TensorDesc> {
    read_tensor_desc(&mut Reader::new(text), interned)
}
