//! The graph model every dump format loads into.
//!
//! A [`Graph`] owns its ops in file order and addresses them by [`OpId`]; edges live in a
//! petgraph graph inside and are reached through methods, so callers never see petgraph
//! indices. The execution order is the topo id order when the dump has ids, else file order.

mod attr;
mod builder;
mod dtype;
mod id;
mod interned;
mod layer;
mod tensor;

pub use attr::{AttrKey, AttrValue, Attrs};
pub use builder::{GraphBuilder, MAX_KEPT, OpBuilder};
pub use dtype::DType;
pub use id::GraphId;
pub use interned::Interned;
pub use tensor::{Layout, Shape, TensorDesc, UNKNOWN_RANK, layout, shape_text};

pub use layer::{OpLayers, layer_of};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;

/// Attribute naming the SuperKernel scope of an op.
pub const ATTR_SCOPE: &str = "_super_kernel_scope";
/// The same attribute under the name some of GE's own graphs give it
/// (superkernel_ops_2026.md §1.3); read when [`ATTR_SCOPE`] is not there.
pub const ATTR_SCOPE_ASCENDC: &str = "_ascendc_super_kernel_scope";
/// The scope HCCL marks its AIV-expanded collectives with (`HcomGraphOptimizer::
/// SetSuperKernelScopeAttr`; superkernel_ops_2026.md §1.3): not a scope of the model code.
pub const HCCL_AIV_SCOPE: &str = "hccl_aiv";
/// Attribute holding the SuperKernel options string of an op.
pub const ATTR_OPTIONS: &str = "_super_kernel_options";
/// Attribute holding the user stream label set by `npu_stream_switch`.
pub const ATTR_STREAM_LABEL: &str = "_user_stream_label";
/// Attribute a reader sets to the fusion system's own words on why the op ended a segment
/// (the aclgraph pass's, on a trigger task): the evidence of a break it reports.
pub const ATTR_BREAK: &str = "_sk_break";
/// Attribute a reader sets to an op's measured mean device time, µs (the aclgraph pass's
/// `sk_prof_device_*.json`, per core and run): shown until profiles are read.
pub const ATTR_DEVICE_US: &str = "_sk_device_us";

/// Index of an op in its [`Graph`] (file order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpId(pub u32);

impl OpId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One input slot of an op, resolved against the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Data from output `out` of `src`.
    Data {
        /// Producing op.
        src: OpId,
        /// Output index on the producer.
        out: u32,
    },
    /// A control dependency on `src`.
    Control {
        /// The op that must run first.
        src: OpId,
    },
    /// An input slot with nothing connected (`""` in the dump).
    Unconnected,
    /// A reference to an op that is not in the graph (reported in a note).
    Dangling {
        /// The input text as written in the dump.
        text: String,
    },
}

/// Kind of an edge between two ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// Tensor from output `out` of the source to input `input` of the target.
    Data {
        /// Output index on the source.
        out: u32,
        /// Input slot on the target.
        input: u32,
    },
    /// Ordering only.
    Control,
}

/// One op of the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// Unique op name.
    pub name: String,
    /// Op type (`MatMulV2`, `Cast`…).
    pub op_type: String,
    /// GE topo id, when the dump carries one.
    pub topo_id: Option<i64>,
    /// Stream id assigned by GE, when the dump was taken after stream allocation.
    pub stream: Option<i64>,
    /// Attributes in dump order.
    pub attrs: Attrs,
    /// Input tensor descriptions.
    pub input_descs: Vec<TensorDesc>,
    /// Output tensor descriptions.
    pub output_descs: Vec<TensorDesc>,
    /// Inputs in dump order: data slots first, then control dependencies.
    pub inputs: Vec<Input>,
}

impl Op {
    /// The SuperKernel scope the op was marked with, if any (under either attribute name).
    pub fn scope(&self) -> Option<&str> {
        self.attrs
            .get_str(ATTR_SCOPE)
            .or_else(|| self.attrs.get_str(ATTR_SCOPE_ASCENDC))
            .filter(|s| !s.is_empty())
    }

    /// The SuperKernel options string the op was marked with, if any.
    pub fn sk_options(&self) -> Option<&str> {
        self.attrs.get_str(ATTR_OPTIONS)
    }

    /// The user stream label (`npu_stream_switch`), if any.
    pub fn stream_label(&self) -> Option<&str> {
        self.attrs.get_str(ATTR_STREAM_LABEL)
    }
}

/// A note on reading a dump: something read around or kept cut (a duplicate name, an input
/// naming no op, a blob cut short) that does not stop loading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadNote {
    /// The op concerned, if any.
    pub op: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl std::fmt::Display for LoadNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.op {
            Some(op) => write!(f, "op '{op}': {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A loaded graph: ops, edges, execution order and load notes.
#[derive(Debug, Clone)]
pub struct Graph {
    name: String,
    ops: Vec<Op>,
    edges: DiGraph<(), EdgeKind, u32>,
    by_name: HashMap<String, OpId>,
    exec_order: Vec<OpId>,
    exec_position: Vec<u32>,
    notes: Vec<LoadNote>,
    strings_dropped: bool,
    /// Each op's decoder layer, read when first asked for (the graph does not change).
    layers: std::sync::OnceLock<OpLayers>,
}

/// Why a dump's scopes cannot be read when it holds no string attributes.
pub const SCOPES_UNREADABLE: &str = "this dump has no string attributes (a ge_onnx dump written \
     with DUMP_GE_GRAPH=2 or 3 leaves them out), so its SuperKernel scopes cannot be read; dump \
     with DUMP_GE_GRAPH=1, or open the ge_proto_*.txt file of the same stage";

impl Graph {
    /// Why the dump's scopes cannot be read ([`SCOPES_UNREADABLE`]), when its format writes
    /// scopes as strings and it holds none.
    pub fn scopes_unreadable(&self) -> Option<&'static str> {
        self.strings_dropped.then_some(SCOPES_UNREADABLE)
    }

    /// The graph's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Each op's decoder layer ([`OpLayers`]), read on the first call.
    pub fn op_layers(&self) -> &OpLayers {
        self.layers.get_or_init(|| OpLayers::of_ops(&self.ops))
    }

    /// All ops in file order.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// The op with id `id`.
    pub fn op(&self, id: OpId) -> &Op {
        &self.ops[id.index()]
    }

    /// Number of ops.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True for a graph without ops.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The op named `name`.
    pub fn find(&self, name: &str) -> Option<OpId> {
        self.by_name.get(name).copied()
    }

    /// Op ids in execution order (topo id order when the dump has ids, else file order).
    pub fn exec_order(&self) -> &[OpId] {
        &self.exec_order
    }

    /// The position of op `id` in [`Graph::exec_order`].
    pub fn exec_position(&self, id: OpId) -> usize {
        self.exec_position[id.index()] as usize
    }

    /// Problems found while building the graph (dangling inputs, duplicate names…).
    pub fn notes(&self) -> &[LoadNote] {
        &self.notes
    }

    /// Number of data edges and of control edges.
    pub fn edge_counts(&self) -> (usize, usize) {
        let control = self
            .edges
            .edge_weights()
            .filter(|k| matches!(k, EdgeKind::Control))
            .count();
        (self.edges.edge_count() - control, control)
    }

    /// Ops consuming an output of (or ordered after) `id`, with the edge kind.
    pub fn successors(&self, id: OpId) -> impl Iterator<Item = (OpId, EdgeKind)> + '_ {
        use petgraph::visit::EdgeRef;
        self.edges
            .edges(NodeIndex::new(id.index()))
            .map(|e| (OpId(e.target().index() as u32), *e.weight()))
    }

    /// Ops `id` consumes an output of (or is ordered after), with the edge kind.
    pub fn predecessors(&self, id: OpId) -> impl Iterator<Item = (OpId, EdgeKind)> + '_ {
        use petgraph::visit::EdgeRef;
        self.edges
            .edges_directed(NodeIndex::new(id.index()), petgraph::Direction::Incoming)
            .map(|e| (OpId(e.source().index() as u32), *e.weight()))
    }

    /// True when the dump carries GE topo ids.
    pub fn has_topo_ids(&self) -> bool {
        self.ops.iter().any(|op| op.topo_id.is_some())
    }

    /// True when the dump carries GE stream ids (taken after stream allocation).
    pub fn has_streams(&self) -> bool {
        self.ops.iter().any(|op| op.stream.is_some())
    }
}

#[cfg(test)]
mod tests;
