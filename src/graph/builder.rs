//! Building a [`Graph`] from ops read in file order.

use super::{Attrs, EdgeKind, Graph, Input, LoadNote, Op, OpId, TensorDesc};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// An op as a loader reads it, before its inputs are resolved.
#[derive(Debug, Clone, Default)]
pub struct OpBuilder {
    /// Op name.
    pub name: String,
    /// Op type.
    pub op_type: String,
    /// GE topo id, if the dump has the field.
    pub topo_id: Option<i64>,
    /// GE stream id, if the dump has the field.
    pub stream: Option<i64>,
    /// Attributes.
    pub attrs: Attrs,
    /// Input tensor descriptions.
    pub input_descs: Vec<TensorDesc>,
    /// Output tensor descriptions.
    pub output_descs: Vec<TensorDesc>,
    /// Inputs as written: `src:idx`, `src:-1` or `^src` (control), `""` (unconnected).
    pub inputs: Vec<String>,
}

/// The longest string a graph keeps whole (64 KiB): names, types and attribute values are far
/// shorter in real dumps; a longer one is kept as its start, its end and a hash of the whole,
/// so one huge string cannot multiply into gigabytes as the plan, views and reports copy it.
pub const MAX_KEPT: usize = 64 << 10;

/// Cuts `s` to [`MAX_KEPT`] bytes when longer (see [`crate::text::bounded`]). True when it
/// cut.
fn bound(s: &mut String) -> bool {
    match crate::text::bounded(s, MAX_KEPT) {
        Some(cut) => {
            *s = cut;
            true
        }
        None => false,
    }
}

/// [`bound`] for a shared string: a cut one is no longer shared.
fn bound_shared(s: &mut super::AttrKey) -> bool {
    if s.len() <= MAX_KEPT {
        return false;
    }
    let mut text = s.to_string();
    let cut = bound(&mut text);
    *s = text.into();
    cut
}

/// Cuts the op name in the input `text` (`name:0`, `^name`) as [`bound`] cuts names.
fn bound_input(text: &mut String) -> bool {
    if text.len() <= MAX_KEPT {
        return false;
    }
    let control = text.starts_with('^');
    let body = &text[usize::from(control)..];
    let (mut name, suffix) = match body.rsplit_once(':') {
        Some((name, out)) if out == "-1" || out.parse::<u32>().is_ok() => {
            (name.to_string(), format!(":{out}"))
        }
        _ => (body.to_string(), String::new()),
    };
    let cut = bound(&mut name);
    *text = format!("{}{name}{suffix}", if control { "^" } else { "" });
    cut
}

/// Collects ops and turns them into a [`Graph`].
#[derive(Debug, Default)]
pub struct GraphBuilder {
    name: String,
    ops: Vec<OpBuilder>,
    streams_assigned: bool,
    notes: Vec<LoadNote>,
    strings_dropped: bool,
}

enum InputRef<'a> {
    Data(&'a str, u32),
    Control(&'a str),
    Unconnected,
}

fn parse_input(text: &str) -> InputRef<'_> {
    if text.is_empty() {
        return InputRef::Unconnected;
    }
    if let Some(src) = text.strip_prefix('^') {
        return InputRef::Control(src);
    }
    match text.rsplit_once(':') {
        Some((src, "-1")) => InputRef::Control(src),
        Some((src, idx)) => match idx.parse::<u32>() {
            Ok(i) => InputRef::Data(src, i),
            Err(_) => InputRef::Data(text, 0),
        },
        None => InputRef::Data(text, 0),
    }
}

impl GraphBuilder {
    /// An empty builder for a graph called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        GraphBuilder {
            name: name.into(),
            ..GraphBuilder::default()
        }
    }

    /// Sets the graph name (dumps may give it after the ops).
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// Declares that GE assigned streams when this dump was written, so an op without a
    /// `stream_id` field is on stream 0 (proto3 omits zero values).
    pub fn streams_assigned(&mut self, yes: bool) {
        self.streams_assigned = yes;
    }

    /// Adds an op in file order: strings longer than [`MAX_KEPT`] are kept cut (and a
    /// note says so), and the op's lists give back the room they grew.
    pub fn push(&mut self, mut op: OpBuilder) {
        let mut cut = usize::from(bound(&mut op.name)) + usize::from(bound(&mut op.op_type));
        op.attrs
            .for_each_string_mut(|s| cut += usize::from(bound(s)));
        for input in &mut op.inputs {
            cut += usize::from(bound_input(input));
        }
        for desc in op.input_descs.iter_mut().chain(op.output_descs.iter_mut()) {
            cut += usize::from(bound_shared(&mut desc.name));
            if desc.layout.len() > MAX_KEPT {
                cut += usize::from(bound(desc.layout.to_mut()));
            }
        }
        if cut > 0 {
            let message = format!(
                "{cut} string(s) of this op are longer than {} KiB and are kept cut: their start, \
                 their end and a hash of the whole (so names still tell apart and inputs resolve)",
                MAX_KEPT >> 10
            );
            self.note(Some(&op.name.clone()), message);
        }
        op.attrs.shrink_to_fit();
        op.inputs.shrink_to_fit();
        op.input_descs.shrink_to_fit();
        op.output_descs.shrink_to_fit();
        self.ops.push(op);
    }

    /// Adds the ops and notes of `other` (a part of the same graph read apart) after this
    /// builder's; a name `other` read replaces this one.
    pub fn append(&mut self, other: GraphBuilder) {
        if !other.name.is_empty() {
            self.name = other.name;
        }
        self.streams_assigned |= other.streams_assigned;
        self.ops.extend(other.ops);
        self.notes.extend(other.notes);
        self.strings_dropped |= other.strings_dropped;
    }

    /// Number of ops added so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True before the first op is added.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Records a note about the dump: something read around or kept cut, that does not stop
    /// loading.
    pub fn note(&mut self, op: Option<&str>, message: impl Into<String>) {
        self.notes.push(LoadNote {
            op: op.map(str::to_string),
            message: message.into(),
        });
    }

    /// Marks the dump as one whose writer left out every string attribute, scopes included.
    pub fn strings_dropped(&mut self) {
        self.strings_dropped = true;
    }

    /// Resolves inputs to edges, orders the ops and returns the graph. Dangling inputs and
    /// duplicate names become notes.
    pub fn build(self) -> Graph {
        let GraphBuilder {
            mut name,
            ops,
            streams_assigned,
            mut notes,
            strings_dropped,
        } = self;
        // The graph's name is kept cut like every other string.
        if bound(&mut name) {
            notes.push(LoadNote {
                op: None,
                message: format!(
                    "the graph's name is longer than {} KiB: it is kept cut (its start, its end and \
                     a hash of the whole)",
                    MAX_KEPT >> 10
                ),
            });
        }
        let mut by_name: HashMap<String, OpId> = HashMap::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            match by_name.entry(op.name.clone()) {
                Entry::Vacant(v) => {
                    v.insert(OpId(i as u32));
                }
                Entry::Occupied(_) => notes.push(LoadNote {
                    op: Some(op.name.clone()),
                    message: format!(
                        "duplicate op name (op #{i} in file order); inputs naming it resolve to the first"
                    ),
                }),
            }
        }
        let any_id = ops.iter().any(|o| o.topo_id.is_some());
        let any_stream = streams_assigned || ops.iter().any(|o| o.stream.is_some());

        let mut edges: DiGraph<(), EdgeKind, u32> =
            DiGraph::with_capacity(ops.len(), ops.len() * 2);
        for _ in 0..ops.len() {
            edges.add_node(());
        }
        let mut built = Vec::with_capacity(ops.len());
        for (i, op) in ops.into_iter().enumerate() {
            let dst = NodeIndex::new(i);
            let mut inputs = Vec::with_capacity(op.inputs.len());
            let mut data_slot = 0u32;
            for text in &op.inputs {
                let input = match parse_input(text) {
                    InputRef::Unconnected => {
                        data_slot += 1;
                        Input::Unconnected
                    }
                    InputRef::Data(src, out) => {
                        let slot = data_slot;
                        data_slot += 1;
                        match by_name.get(src) {
                            Some(&s) => {
                                edges.add_edge(
                                    NodeIndex::new(s.index()),
                                    dst,
                                    EdgeKind::Data { out, input: slot },
                                );
                                Input::Data { src: s, out }
                            }
                            None => dangling(&mut notes, &op.name, text),
                        }
                    }
                    InputRef::Control(src) => match by_name.get(src) {
                        Some(&s) => {
                            edges.add_edge(NodeIndex::new(s.index()), dst, EdgeKind::Control);
                            Input::Control { src: s }
                        }
                        None => dangling(&mut notes, &op.name, text),
                    },
                };
                inputs.push(input);
            }
            built.push(Op {
                name: op.name,
                op_type: op.op_type,
                topo_id: if any_id {
                    Some(op.topo_id.unwrap_or(0))
                } else {
                    None
                },
                stream: if any_stream {
                    Some(op.stream.unwrap_or(0))
                } else {
                    None
                },
                attrs: op.attrs,
                input_descs: op.input_descs,
                output_descs: op.output_descs,
                inputs,
            });
        }
        let mut exec_order: Vec<OpId> = (0..built.len() as u32).map(OpId).collect();
        if any_id {
            exec_order.sort_by_key(|id| built[id.index()].topo_id);
        }
        let mut exec_position = vec![0u32; built.len()];
        for (pos, id) in exec_order.iter().enumerate() {
            exec_position[id.index()] = pos as u32;
        }
        Graph {
            name,
            ops: built,
            edges,
            by_name,
            exec_order,
            exec_position,
            notes,
            strings_dropped,
            layers: std::sync::OnceLock::new(),
        }
    }
}

/// The longest op name or input a note repeats whole: a note per dangling input of an op with
/// a huge name would otherwise copy the name each time.
const NOTE_TEXT: usize = 200;

fn dangling(notes: &mut Vec<LoadNote>, op: &str, text: &str) -> Input {
    let cut = |s| crate::text::cut_middle(s, NOTE_TEXT).into_owned();
    notes.push(LoadNote {
        op: Some(cut(op)),
        message: format!(
            "input \"{}\" names an op that is not in the graph; the edge is dropped",
            cut(text)
        ),
    });
    Input::Dangling {
        text: text.to_string(),
    }
}
