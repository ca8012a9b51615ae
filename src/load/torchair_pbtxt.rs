//! TorchAir `pbtxt` dumps: TensorFlow-NodeDef-like text where every attribute value is a
//! quoted string holding the protobuf text of a GE `AttrDef`, and `[i]name` / `[o]name`
//! pseudo-attributes hold `TensorDescriptor` texts. Parsed in two levels.

use super::ge_ir::{parse_attr_def_text, parse_tensor_desc_text, read_attr_def};
use super::halves::read_in_halves;
use super::textproto::{LineCol, Reader, Result, SyntaxError, Value};
use crate::graph::{AttrValue, GraphBuilder, Interned, OpBuilder};

/// Reads a pbtxt dump. The format has no graph name; `default_name` is used. A big dump's
/// nodes are read on both cores ([`read_in_halves`]).
pub fn load(src: &[u8], default_name: &str) -> Result<GraphBuilder> {
    let mut r = Reader::new(src);
    let mut b = GraphBuilder::new(default_name);
    read_nodes(&mut r, &mut b, true, &mut Interned::default())?;
    Ok(b)
}

fn read_nodes(
    r: &mut Reader<'_>,
    b: &mut GraphBuilder,
    mut may_split: bool,
    interned: &mut Interned,
) -> Result<()> {
    while let Some(f) = r.next_field()? {
        if f.name == "node" {
            f.expect_message()?;
            if std::mem::take(&mut may_split)
                && read_in_halves(r, b, interned, "node", |part, half, interned| {
                    read_nodes(part, half, false, interned)
                })
            {
                return Ok(());
            }
            b.push(read_node(r, interned)?);
        } else {
            r.skip(&f)?;
        }
    }
    Ok(())
}

fn read_node(r: &mut Reader<'_>, interned: &mut Interned) -> Result<OpBuilder> {
    let mut op = OpBuilder::default();
    while let Some(f) = r.next_field()? {
        match f.name {
            "name" => op.name = f.scalar()?.text()?.into_owned(),
            "op" => op.op_type = f.scalar()?.text()?.into_owned(),
            "input" => op.inputs.push(f.scalar()?.text()?.into_owned()),
            "attr" => {
                f.expect_message()?;
                read_attr(r, &mut op, interned)?;
            }
            _ => r.skip(&f)?,
        }
    }
    Ok(op)
}

/// The embedded text of an attribute: `value { s: '<AttrDef text>' }`, with its offset.
struct Embedded {
    text: Vec<u8>,
    offset: usize,
}

fn read_attr(r: &mut Reader<'_>, op: &mut OpBuilder, interned: &mut Interned) -> Result<()> {
    let mut key = String::new();
    let mut embedded: Option<Embedded> = None;
    let mut direct: Option<AttrValue> = None;
    while let Some(f) = r.next_field()? {
        match (f.name, &f.value) {
            ("key", Value::Scalar(s)) => key = s.text()?.into_owned(),
            ("value", Value::Message) => match read_attr_def(r)? {
                // The writer emits exactly one `s:` holding the embedded text. Anything else
                // (a hand-written `i: 3`) is read as a plain AttrDef.
                AttrValue::Str(text) => {
                    embedded = Some(Embedded {
                        text: text.into_bytes(),
                        offset: f.offset,
                    })
                }
                other => direct = Some(other),
            },
            _ => r.skip(&f)?,
        }
    }
    if let Some(value) = direct {
        op.attrs.insert(interned.key(&key), value);
        return Ok(());
    }
    let Some(Embedded { text, offset }) = embedded else {
        op.attrs.insert(interned.key(&key), AttrValue::Empty);
        return Ok(());
    };
    let nested = |e: SyntaxError| {
        SyntaxError::new(
            offset,
            format!(
                "in the text of attribute '{key}' at its {}: {}",
                LineCol::of(&text, e.offset),
                e.message
            ),
        )
    };
    if let Some(name) = key.strip_prefix("[i]") {
        let mut td = parse_tensor_desc_text(&text, interned).map_err(nested)?;
        if td.name.is_empty() {
            td.name = interned.key(name);
        }
        op.input_descs.push(td);
    } else if let Some(name) = key.strip_prefix("[o]") {
        let mut td = parse_tensor_desc_text(&text, interned).map_err(nested)?;
        if td.name.is_empty() {
            td.name = interned.key(name);
        }
        op.output_descs.push(td);
    } else {
        let value = parse_attr_def_text(&text).map_err(nested)?;
        op.attrs.insert(interned.key(&key), value);
    }
    Ok(())
}
