//! Typed op attributes (GE `AttrDef`).

use super::TensorDesc;
use std::sync::Arc;

/// An attribute's key. Shared: a reader keeps each key it meets once and every op that has
/// the attribute points at it (a dump repeats the same few hundred keys on tens of thousands
/// of ops).
pub type AttrKey = Arc<str>;

/// One attribute value. Mirrors the `AttrDef` oneof; large payloads (tensor data, nested
/// graphs) are summarised rather than kept.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrValue {
    /// `s`: a string (bytes decoded as UTF-8, invalid sequences replaced).
    Str(String),
    /// `i`: a 64-bit integer.
    Int(i64),
    /// `f`: a float.
    Float(f64),
    /// `b`: a boolean.
    Bool(bool),
    /// `dt`: a data type.
    DType(super::DType),
    /// `td`: a tensor description.
    Tensor(Box<TensorDesc>),
    /// `list`: a homogeneous list.
    List(Vec<AttrValue>),
    /// `list_list_int`: a list of integer lists.
    ListListInt(Vec<Vec<i64>>),
    /// `list_list_float`: a list of float lists.
    ListListFloat(Vec<Vec<f64>>),
    /// `func` / `na`: a named attribute set, kept by name.
    Func(String),
    /// `g`: a graph, kept by name.
    Graph(String),
    /// `bt` / `t`: raw bytes or tensor data, kept by size.
    Bytes(usize),
    /// `expression`: a symbolic expression.
    Expression(String),
    /// An `AttrDef` with no value set.
    Empty,
}

impl AttrValue {
    /// Calls `f` on each string this value holds (a list's too).
    fn for_each_string_mut(&mut self, f: &mut impl FnMut(&mut String)) {
        match self {
            AttrValue::Str(s)
            | AttrValue::Func(s)
            | AttrValue::Graph(s)
            | AttrValue::Expression(s) => f(s),
            AttrValue::List(items) => {
                for item in items {
                    item.for_each_string_mut(f);
                }
            }
            _ => {}
        }
    }

    /// The string, if this is a string attribute.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AttrValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is an integer (or boolean, as 0/1) attribute.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            AttrValue::Int(i) => Some(*i),
            AttrValue::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
}

impl std::fmt::Display for AttrValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttrValue::Str(s) => write!(f, "{s:?}"),
            AttrValue::Int(i) => write!(f, "{i}"),
            AttrValue::Float(x) => write!(f, "{x}"),
            AttrValue::Bool(b) => write!(f, "{b}"),
            AttrValue::DType(d) => write!(f, "{d}"),
            AttrValue::Tensor(t) => write!(f, "{} {} {}", t.dtype, t.shape_text(), t.layout),
            AttrValue::List(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
            AttrValue::ListListInt(lists) => write!(f, "{lists:?}"),
            AttrValue::ListListFloat(lists) => write!(f, "{lists:?}"),
            AttrValue::Func(name) => write!(f, "func {name}"),
            AttrValue::Graph(name) => write!(f, "graph {name}"),
            AttrValue::Bytes(n) => write!(f, "<{n} bytes>"),
            AttrValue::Expression(e) => write!(f, "expr {e}"),
            AttrValue::Empty => f.write_str("<unset>"),
        }
    }
}

/// The attributes of an op, in dump order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attrs(Vec<(AttrKey, AttrValue)>);

impl Attrs {
    /// Adds an attribute; a repeated key replaces the earlier value (map semantics).
    pub fn insert(&mut self, key: impl Into<AttrKey>, value: AttrValue) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&AttrValue> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// The string value of `key`, if it is a string attribute.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(AttrValue::as_str)
    }

    /// The integer value of `key`, if it is an integer or boolean attribute.
    pub fn get_int(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(AttrValue::as_int)
    }

    /// The float value of `key`, if it is a float attribute.
    pub fn get_float(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some(AttrValue::Float(f)) => Some(*f),
            _ => None,
        }
    }

    /// Gives back the room kept for more attributes (an op's list is complete once read).
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }

    /// Calls `f` on every string of every attribute value (list items too), to change them
    /// in place.
    pub fn for_each_string_mut(&mut self, mut f: impl FnMut(&mut String)) {
        for (_, value) in &mut self.0 {
            value.for_each_string_mut(&mut f);
        }
    }

    /// Calls `f` on every key, to replace it.
    pub fn for_each_key_mut(&mut self, mut f: impl FnMut(&mut AttrKey)) {
        for (key, _) in &mut self.0 {
            f(key);
        }
    }

    /// All attributes in dump order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &AttrValue)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    /// Number of attributes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
