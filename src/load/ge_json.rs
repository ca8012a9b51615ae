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
use crate::graph::{AttrValue, DType, GraphBuilder, Interned, OpBuilder, TensorDesc};
use serde_json::value::RawValue;
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

/// Why a document could not be read: its JSON (serde's error, with its line and column) or
/// its structure.
#[derive(Debug)]
pub enum Failure {
    /// Not well-formed JSON.
    Syntax(serde_json::Error),
    /// Well-formed, but not a ModelDef or GraphDef.
    Structure(StructureError),
}

/// What a parse carries along: the first structure error met (kept while the parse goes on),
/// and whether big op arrays are converted on two threads.
struct Noted {
    first: std::cell::RefCell<Option<StructureError>>,
    /// Convert each op array's halves on two threads.
    halves: bool,
    /// Set when a half could not be converted: the document is then read again on one thread,
    /// so any error is told exactly as it would be there.
    again: std::cell::Cell<bool>,
}

impl Noted {
    fn new(halves: bool) -> Self {
        Noted {
            first: std::cell::RefCell::new(None),
            halves,
            again: std::cell::Cell::new(false),
        }
    }

    fn borrow(&self) -> std::cell::Ref<'_, Option<StructureError>> {
        self.first.borrow()
    }
}

/// Below this size a document's ops are converted on one thread.
const HALVES_FROM: usize = 4 << 20;

/// An op array shorter than this (a small subgraph of a big model) is converted without a
/// second thread: starting one would cost more than it saves.
const HALVES_FROM_OPS: usize = 256;

/// Reads `src` straight into graphs' ops, one op at a time: only one op's JSON tree is held at
/// once, so memory stays near the size of the graph built. A syntax error anywhere comes first
/// (as when the whole document was parsed before its structure was looked at), then the first
/// structure error, named by its path (`graph[0].op[3].name`).
///
/// In a big document each op array is first read as raw text (its syntax checked), then its
/// two halves are parsed and converted on two threads; should anything fail, the document is
/// read again op by op on one thread, whose error is the one told (so an error's words and
/// place never depend on how the document was read).
pub fn load_streaming(
    src: &[u8],
    default_name: &str,
) -> std::result::Result<Vec<GraphBuilder>, Failure> {
    if src.len() >= HALVES_FROM {
        let (root, noted) = parse(src, true);
        if root.is_ok() && noted.borrow().is_none() && !noted.again.get() {
            return finish(root, noted, default_name);
        }
    }
    let (root, noted) = parse(src, false);
    finish(root, noted, default_name)
}

/// Parses `src`, with op arrays converted in halves or not.
fn parse(src: &[u8], halves: bool) -> (serde_json::Result<RootFound>, Noted) {
    use serde::de::DeserializeSeed;
    let noted = Noted::new(halves);
    let mut de = serde_json::Deserializer::from_slice(src);
    let root = Root { noted: &noted }
        .deserialize(&mut de)
        .and_then(|root| de.end().map(|()| root));
    (root, noted)
}

/// The graphs of a parse, or its first error: syntax before structure.
fn finish(
    root: serde_json::Result<RootFound>,
    noted: Noted,
    default_name: &str,
) -> std::result::Result<Vec<GraphBuilder>, Failure> {
    let root = match (root, noted.first.into_inner()) {
        (Err(e), _) => return Err(Failure::Syntax(e)),
        (Ok(_), Some(structure)) => return Err(Failure::Structure(structure)),
        (Ok(root), None) => root,
    };
    match root {
        RootFound::Graphs(graphs) => Ok(graphs),
        RootFound::Ops(mut b, name) => {
            match name {
                Some(name) => b.set_name(string(&name, "name").map_err(Failure::Structure)?),
                None => b.set_name(default_name),
            }
            Ok(vec![b])
        }
        RootFound::Neither => Err(Failure::Structure(StructureError {
            path: "$".into(),
            message: "expected a \"graph\" array (ModelDef) or an \"op\" array (GraphDef)".into(),
        })),
    }
}

/// What the root held.
enum RootFound {
    /// A ModelDef's graphs.
    Graphs(Vec<GraphBuilder>),
    /// A GraphDef's ops, and its name when it has one.
    Ops(GraphBuilder, Option<Value>),
    /// Neither a `graph` nor an `op` array.
    Neither,
}

/// Keeps `e` when it is the first structure error.
fn note(noted: &Noted, e: StructureError) {
    let mut slot = noted.first.borrow_mut();
    if slot.is_none() {
        *slot = Some(e);
    }
}

/// `expected …, found …` at `path`.
fn wrong(path: &str, expected: &str, found: &str) -> StructureError {
    StructureError {
        path: path.to_string(),
        message: format!("expected {expected}, found {found}"),
    }
}

/// Reads past a sequence whose content is not used (as values, so that serde's recursion limit
/// still catches a document nested too deep: skipping ignores the limit).
fn skip_seq<'de, A: serde::de::SeqAccess<'de>>(mut seq: A) -> std::result::Result<(), A::Error> {
    while seq.next_element::<Value>()?.is_some() {}
    Ok(())
}

/// Reads past a map whose content is not used.
fn skip_map<'de, A: serde::de::MapAccess<'de>>(mut map: A) -> std::result::Result<(), A::Error> {
    while map.next_entry::<serde::de::IgnoredAny, Value>()?.is_some() {}
    Ok(())
}

/// The visitor methods for what a visitor does not take: each reads past it, notes a
/// structure error at `$path` saying what was expected and what was found, and gives
/// `$fallback`.
macro_rules! wrong_kinds {
    ($expected:literal, |$this:ident| $path:expr, $fallback:expr, [$($skip:ident),*]) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "a boolean"));
            Ok($fallback)
        }

        fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "a number"));
            Ok($fallback)
        }

        fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "a number"));
            Ok($fallback)
        }

        fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "a number"));
            Ok($fallback)
        }

        fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "a string"));
            Ok($fallback)
        }

        $(wrong_kinds!(@$skip, $expected, |$this| $path, $fallback);)*
    };
    (@seq, $expected:literal, |$this:ident| $path:expr, $fallback:expr) => {
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            skip_seq(seq)?;
            let $this = &self;
            note($this.noted, wrong($path, $expected, "an array"));
            Ok($fallback)
        }
    };
    (@map, $expected:literal, |$this:ident| $path:expr, $fallback:expr) => {
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            skip_map(map)?;
            let $this = &self;
            note($this.noted, wrong($path, $expected, "an object"));
            Ok($fallback)
        }
    };
    (@unit, $expected:literal, |$this:ident| $path:expr, $fallback:expr) => {
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            let $this = &self;
            note($this.noted, wrong($path, $expected, "null"));
            Ok($fallback)
        }
    };
}

/// A seed that is its own visitor: the document decides what it holds (`deserialize_any`), and
/// the visitor takes what it expects or notes what it found.
macro_rules! seed_is_visitor {
    ($t:ty) => {
        impl<'de> serde::de::DeserializeSeed<'de> for $t {
            type Value = <Self as serde::de::Visitor<'de>>::Value;

            fn deserialize<D: serde::Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    };
}

/// The document.
struct Root<'n> {
    noted: &'n Noted,
}

seed_is_visitor!(Root<'_>);

impl<'de> serde::de::Visitor<'de> for Root<'_> {
    type Value = RootFound;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object (a ModelDef or GraphDef)")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<RootFound, A::Error> {
        let (mut graphs, mut ops, mut name) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "graph" => graphs = Some(map.next_value_seed(Graphs { noted: self.noted })?),
                "op" => {
                    let mut b = GraphBuilder::new("");
                    map.next_value_seed(Ops {
                        noted: self.noted,
                        builder: &mut b,
                        path: "$.op",
                    })?;
                    ops = Some(b);
                }
                "name" => name = Some(map.next_value()?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(match (graphs, ops) {
            (Some(g), _) => RootFound::Graphs(g),
            (None, Some(b)) => RootFound::Ops(b, name),
            (None, None) => RootFound::Neither,
        })
    }

    wrong_kinds!(
        "a JSON object (a ModelDef or GraphDef)",
        |this| "$",
        RootFound::Neither,
        [seq, unit]
    );
}

/// A ModelDef's `graph` array.
struct Graphs<'n> {
    noted: &'n Noted,
}

seed_is_visitor!(Graphs<'_>);

impl<'de> serde::de::Visitor<'de> for Graphs<'_> {
    type Value = Vec<GraphBuilder>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of graphs")
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Vec<GraphBuilder>, E> {
        Ok(Vec::new())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Vec<GraphBuilder>, A::Error> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(found) = seq.next_element_seed(OneGraph {
            noted: self.noted,
            path: format!("graph[{i}]"),
            default_name: format!("graph_{i}"),
        })? {
            out.extend(found);
            i += 1;
        }
        Ok(out)
    }

    wrong_kinds!("an array", |this| "graph", Vec::new(), [map]);
}

/// One graph of the `graph` array (`None` for a `null` one).
struct OneGraph<'n> {
    noted: &'n Noted,
    path: String,
    default_name: String,
}

seed_is_visitor!(OneGraph<'_>);

impl<'de> serde::de::Visitor<'de> for OneGraph<'_> {
    type Value = Option<GraphBuilder>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a graph object")
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Option<GraphBuilder>, E> {
        Ok(None)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Option<GraphBuilder>, A::Error> {
        let mut b = GraphBuilder::new(self.default_name.as_str());
        b.streams_assigned(true);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "name" => {
                    let v: Value = map.next_value()?;
                    match string(&v, &format!("{}.name", self.path)) {
                        Ok(name) => b.set_name(name),
                        Err(e) => note(self.noted, e),
                    }
                }
                "op" => {
                    let path = format!("{}.op", self.path);
                    map.next_value_seed(Ops {
                        noted: self.noted,
                        builder: &mut b,
                        path: &path,
                    })?;
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(Some(b))
    }

    wrong_kinds!("an object", |this| &this.path, None, [seq]);
}

/// An `op` array, each op read into `builder` as it comes.
struct Ops<'n, 'b, 'p> {
    noted: &'n Noted,
    builder: &'b mut GraphBuilder,
    path: &'p str,
}

seed_is_visitor!(Ops<'_, '_, '_>);

impl<'de> serde::de::Visitor<'de> for Ops<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of ops")
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        if self.noted.halves {
            return self.visit_halves(seq);
        }
        let mut ops = OpsConverted::new(self.path, 0);
        while let Some(v) = seq.next_element::<Value>()? {
            // After a structure error the rest is read only for its syntax.
            if self.noted.borrow().is_none() {
                ops.add(&v);
                if let Some(e) = ops.error.take() {
                    note(self.noted, e);
                }
            }
        }
        self.builder.append(ops.builder);
        Ok(())
    }

    wrong_kinds!("an array", |this| this.path, (), [map]);
}

impl<'de> Ops<'_, '_, '_> {
    /// Reads the ops as raw text, then parses and converts the first half on a second thread
    /// and the second here (a short array all here); the first half's structure error comes
    /// first.
    fn visit_halves<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        let mut raw: Vec<&'de RawValue> = Vec::new();
        while let Some(op) = seq.next_element::<&'de RawValue>()? {
            raw.push(op);
        }
        if self.noted.borrow().is_some() {
            return Ok(());
        }
        let path = self.path;
        let parts = if raw.len() < HALVES_FROM_OPS {
            OpsConverted::of_raw(path, 0, &raw).map(|ops| vec![ops])
        } else {
            let (first, second) = raw.split_at(raw.len() / 2);
            std::thread::scope(|scope| {
                let first_half = std::thread::Builder::new()
                    .name("skope-json".into())
                    .spawn_scoped(scope, || OpsConverted::of_raw(path, 0, first))
                    .ok()?;
                let second_half = OpsConverted::of_raw(path, first.len(), second);
                Some(vec![first_half.join().ok()??, second_half?])
            })
        };
        let Some(parts) = parts else {
            self.noted.again.set(true);
            return Ok(());
        };
        for mut part in parts {
            self.builder.append(part.builder);
            if let Some(e) = part.error.take() {
                note(self.noted, e);
                break;
            }
        }
        Ok(())
    }
}

/// The ops of (part of) one `op` array as they are converted, up to the first structure error.
struct OpsConverted<'p> {
    path: &'p str,
    /// The index in the array of the next op.
    next: usize,
    builder: GraphBuilder,
    interned: Interned,
    error: Option<StructureError>,
}

impl<'p> OpsConverted<'p> {
    fn new(path: &'p str, first: usize) -> Self {
        OpsConverted {
            path,
            next: first,
            builder: GraphBuilder::default(),
            interned: Interned::default(),
            error: None,
        }
    }

    /// The ops of `raw`, the first of them at index `first` of the array; `None` when one's
    /// text does not parse on its own (too deeply nested).
    fn of_raw(path: &'p str, first: usize, raw: &[&RawValue]) -> Option<Self> {
        let mut ops = OpsConverted::new(path, first);
        for op in raw {
            if ops.error.is_some() {
                break;
            }
            ops.add(&serde_json::from_str::<Value>(op.get()).ok()?);
        }
        Some(ops)
    }

    /// Converts the next op, unless an earlier one failed or it is null.
    fn add(&mut self, v: &Value) {
        let i = self.next;
        self.next += 1;
        if v.is_null() || self.error.is_some() {
            return;
        }
        let op_path = format!("{}[{i}]", self.path);
        match object(v, &op_path).and_then(|obj| op_def(obj, &op_path, &mut self.interned)) {
            Ok(op) => self.builder.push(op),
            Err(e) => self.error = Some(e),
        }
    }
}

fn op_def(obj: &Map<String, Value>, path: &str, interned: &mut Interned) -> Result<OpBuilder> {
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
                    op.attrs.insert(interned.key(&k), value);
                }
            }
            "input_desc" => op.input_descs = descs(v, &at, interned)?,
            "output_desc" => op.output_descs = descs(v, &at, interned)?,
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
            "td" => AttrValue::Tensor(Box::new(tensor_desc(
                object(v, &at)?,
                &at,
                &mut Interned::default(),
            )?)),
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
                "td" => AttrValue::Tensor(Box::new(tensor_desc(
                    object(item, &at)?,
                    &at,
                    &mut Interned::default(),
                )?)),
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

fn descs(v: &Value, path: &str, interned: &mut Interned) -> Result<Vec<TensorDesc>> {
    array(v, path)?
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let at = format!("{path}[{i}]");
            tensor_desc(object(d, &at)?, &at, interned)
        })
        .collect()
}

fn tensor_desc(
    obj: &Map<String, Value>,
    path: &str,
    interned: &mut Interned,
) -> Result<TensorDesc> {
    let mut td = TensorDesc::default();
    for (key, v) in obj.iter().filter(|(_, v)| !v.is_null()) {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "name" => td.name = interned.key(&string(v, &at)?),
            "dtype" => td.dtype = dtype(v, &at)?,
            "layout" => td.layout = crate::graph::layout(&string(v, &at)?),
            "shape" => {
                if let Some(dims) = object(v, &at)?.get("dim").filter(|d| !d.is_null()) {
                    let at = format!("{at}.dim");
                    let dims: Vec<i64> = array(dims, &at)?
                        .iter()
                        .map(|d| int(d, &at))
                        .collect::<Result<_>>()?;
                    td.shape = interned.shape(&dims);
                }
            }
            "attr" => {
                for (k, value) in attr_map(v, &at)? {
                    super::ge_ir::apply_tensor_attr(&mut td, &k, value, interned);
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
