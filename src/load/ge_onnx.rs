//! GE `ge_onnx_*.pbtxt` dumps: an ONNX `ModelProto` in protobuf text form, with GE op types
//! as `ge:<Type>` and GE metadata flattened into node attributes (`id`, `stream_id`,
//! `input_desc_shape:<i>`…).

use super::halves::read_in_halves;
use super::textproto::{Reader, Result, Value};
use crate::graph::{AttrValue, DType, GraphBuilder, Interned, OpBuilder, TensorDesc};
use std::sync::atomic::{AtomicBool, Ordering};

/// Node attributes that encode `OpDef` fields rather than GE attributes; not kept as attrs.
const META_ATTRS: &[&str] = &[
    "input_name",
    "src_name",
    "src_index",
    "dst_name",
    "dst_index",
    "input_i",
    "output_i",
    "workspace",
    "workspace_bytes",
    "is_input_const",
    "_input_name_key",
    "_input_name_value",
    "input_desc_nums",
    "output_desc_nums",
];

/// Reads a ge_onnx dump. Returns the graph's ops (to build); when the dump carries no string attributes at all
/// (GE writes them only with `DUMP_GE_GRAPH=1`), a note says scopes cannot be seen. A big
/// graph's nodes are read on both cores ([`read_in_halves`]).
pub fn load(src: &[u8], default_name: &str) -> Result<GraphBuilder> {
    let mut r = Reader::new(src);
    let mut b = GraphBuilder::new(default_name);
    b.streams_assigned(true);
    let saw_string_attr = AtomicBool::new(false);
    while let Some(f) = r.next_field()? {
        if f.name == "graph" && matches!(f.value, Value::Message) {
            read_graph(
                &mut r,
                &mut b,
                true,
                &mut Interned::default(),
                &saw_string_attr,
            )?;
        } else {
            r.skip(&f)?;
        }
    }
    if !saw_string_attr.load(Ordering::Relaxed) && !b.is_empty() {
        b.strings_dropped();
        b.note(None, crate::graph::SCOPES_UNREADABLE);
    }
    Ok(b)
}

/// Reads the fields of an opened `GraphProto`; `saw_string` is set when a node has a string
/// attribute (from either thread).
fn read_graph(
    r: &mut Reader<'_>,
    b: &mut GraphBuilder,
    mut may_split: bool,
    interned: &mut Interned,
    saw_string: &AtomicBool,
) -> Result<()> {
    while let Some(g) = r.next_field()? {
        match g.name {
            "name" => b.set_name(g.scalar()?.text()?),
            "node" => {
                g.expect_message()?;
                if std::mem::take(&mut may_split)
                    && read_in_halves(r, b, interned, "node", |part, half, interned| {
                        read_graph(part, half, false, interned, saw_string)
                    })
                {
                    return Ok(());
                }
                b.push(read_node(r, saw_string)?);
            }
            _ => r.skip(&g)?,
        }
    }
    Ok(())
}

/// One ONNX `AttributeProto`, decoded by the fields present.
enum OnnxValue {
    Int(i64),
    Float(f64),
    Str(String),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    Strs(Vec<String>),
    None,
}

fn read_node(r: &mut Reader<'_>, saw_string: &AtomicBool) -> Result<OpBuilder> {
    let mut op = OpBuilder::default();
    while let Some(f) = r.next_field()? {
        match f.name {
            "name" => op.name = f.scalar()?.text()?.into_owned(),
            "op_type" => {
                let t = f.scalar()?.text()?;
                op.op_type = t.strip_prefix("ge:").unwrap_or(&t).to_string();
            }
            "input" => op.inputs.push(f.scalar()?.text()?.into_owned()),
            "attribute" => {
                f.expect_message()?;
                let (name, value) = read_attribute(r)?;
                if matches!(value, OnnxValue::Str(_) | OnnxValue::Strs(_))
                    && !name.contains("desc_")
                {
                    saw_string.store(true, Ordering::Relaxed);
                }
                apply(&mut op, name, value);
            }
            _ => r.skip(&f)?,
        }
    }
    Ok(op)
}

fn read_attribute(r: &mut Reader<'_>) -> Result<(String, OnnxValue)> {
    let mut name = String::new();
    let mut value = OnnxValue::None;
    let (mut ints, mut floats, mut strs) = (Vec::new(), Vec::new(), Vec::new());
    let mut list_type = None;
    while let Some(f) = r.next_field()? {
        match (f.name, &f.value) {
            ("name", Value::Scalar(s)) => name = s.text()?.into_owned(),
            ("i", Value::Scalar(s)) => value = OnnxValue::Int(s.int()?),
            ("f", Value::Scalar(s)) => value = OnnxValue::Float(s.float()?),
            ("s", Value::Scalar(s)) => value = OnnxValue::Str(s.text()?.into_owned()),
            ("ints", Value::Scalar(s)) => ints.push(s.int()?),
            ("floats", Value::Scalar(s)) => floats.push(s.float()?),
            ("strings", Value::Scalar(s)) => strs.push(s.text()?.into_owned()),
            ("type", Value::Scalar(s)) => list_type = s.ident().map(str::to_string),
            _ => r.skip(&f)?,
        }
    }
    match list_type.as_deref() {
        Some("INTS") => value = OnnxValue::Ints(ints),
        Some("FLOATS") => value = OnnxValue::Floats(floats),
        Some("STRINGS") => value = OnnxValue::Strs(strs),
        _ if !ints.is_empty() => value = OnnxValue::Ints(ints),
        _ if !floats.is_empty() => value = OnnxValue::Floats(floats),
        _ if !strs.is_empty() => value = OnnxValue::Strs(strs),
        _ => {}
    }
    Ok((name, value))
}

fn apply(op: &mut OpBuilder, name: String, value: OnnxValue) {
    match (name.as_str(), &value) {
        ("id", OnnxValue::Int(i)) => return op.topo_id = Some(*i),
        ("stream_id", OnnxValue::Int(i)) => return op.stream = Some(*i),
        _ => {}
    }
    if META_ATTRS.contains(&name.as_str()) {
        return;
    }
    if let Some((field, index)) = desc_field(&name) {
        let (descs, field) = match field.strip_prefix("input_desc_") {
            Some(rest) => (&mut op.input_descs, rest),
            None => (&mut op.output_descs, &field["output_desc_".len()..]),
        };
        if descs.len() <= index {
            descs.resize_with(index + 1, TensorDesc::default);
        }
        set_desc_field(&mut descs[index], field, value);
        return;
    }
    let attr = match value {
        OnnxValue::Int(i) => AttrValue::Int(i),
        OnnxValue::Float(x) => AttrValue::Float(x),
        OnnxValue::Str(s) => AttrValue::Str(s),
        OnnxValue::Ints(v) => AttrValue::List(v.into_iter().map(AttrValue::Int).collect()),
        OnnxValue::Floats(v) => AttrValue::List(v.into_iter().map(AttrValue::Float).collect()),
        OnnxValue::Strs(v) => AttrValue::List(v.into_iter().map(AttrValue::Str).collect()),
        OnnxValue::None => AttrValue::Empty,
    };
    op.attrs.insert(name, attr);
}

/// Splits `input_desc_shape:3` into (`input_desc_shape`, 3); `None` for other names.
fn desc_field(name: &str) -> Option<(&str, usize)> {
    if !(name.starts_with("input_desc_") || name.starts_with("output_desc_")) {
        return None;
    }
    let (field, index) = name.rsplit_once(':')?;
    Some((field, index.parse().ok().filter(|&i| i < MAX_DESCS)?))
}

/// Highest tensor index accepted in `input_desc_*:<i>` names, so a damaged file cannot make
/// one op allocate a huge descriptor list.
const MAX_DESCS: usize = 4096;

fn set_desc_field(td: &mut TensorDesc, field: &str, value: OnnxValue) {
    match (field, value) {
        ("dtype", OnnxValue::Str(s)) => td.dtype = DType::from_name(&s).unwrap_or(DType::UNDEFINED),
        ("shape", OnnxValue::Ints(v)) => td.shape = v.into(),
        ("layout", OnnxValue::Str(s)) => td.layout = crate::graph::layout(&s),
        ("origin_shape", OnnxValue::Ints(v)) => td.origin_shape = Some(v.into()),
        ("origin_layout", OnnxValue::Str(s)) => td.origin_layout = Some(crate::graph::layout(&s)),
        _ => {}
    }
}
