//! What the generator needs to know about each sub-op of a segment, read from the graph: its
//! kernel name and symbol, cores, argument count, stream, and the events of GE's Send/Recv
//! pairs it sends or receives (SuperKernel compiler `super_kernel_sub_op_infos.py`).

use crate::fusion::kernel::{KernelType, SubKernel};
use crate::fusion::plan::Context;
use crate::graph::{Graph, Input, OpId};
use crate::kernel_meta::{KernelMeta, OpInfo};
use std::collections::BTreeSet;

/// Attribute with the op's compiled kernel name (GE dumps taken after compilation).
pub const ATTR_KERNEL_NAME: &str = "_kernelname";

/// Op types GE inserts to send an event to another stream.
const SEND_TYPES: [&str; 3] = ["Send", "SendMem", "SendNotify"];

/// Op types GE inserts to wait for an event from another stream.
const RECV_TYPES: [&str; 3] = ["Recv", "RecvMem", "RecvNotify"];

/// Which cores a sub-op or a SuperKernel runs on, as the early-start config encodes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// Cube cores only.
    Aic,
    /// Vector cores only.
    Aiv,
    /// Both.
    Mix,
}

impl Arch {
    /// The arch of a kernel type.
    pub fn of(kernel_type: KernelType) -> Arch {
        match kernel_type {
            KernelType::AicOnly | KernelType::MixAic1_0 => Arch::Aic,
            KernelType::AivOnly | KernelType::MixAiv1_0 => Arch::Aiv,
            KernelType::MixAic1_1 | KernelType::MixAic1_2 => Arch::Mix,
        }
    }

    /// The value `g_super_kernel_early_start_config` uses for it (AIC 0, AIV 1, MIX 2).
    pub fn early_start_code(self) -> u8 {
        match self {
            Arch::Aic => 0,
            Arch::Aiv => 1,
            Arch::Mix => 2,
        }
    }
}

/// One kind of core: code guarded by `ASCEND_IS_AIC` or `ASCEND_IS_AIV`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Core {
    /// Cube cores.
    Aic,
    /// Vector cores.
    Aiv,
}

impl Core {
    /// The guard macro.
    pub(crate) fn guard(self) -> &'static str {
        match self {
            Core::Aic => "ASCEND_IS_AIC",
            Core::Aiv => "ASCEND_IS_AIV",
        }
    }

    /// `aic` or `aiv`, as the two-stream functions are named.
    pub(crate) fn suffix(self) -> &'static str {
        match self {
            Core::Aic => "aic",
            Core::Aiv => "aiv",
        }
    }
}

/// An event of a Send/Recv pair GE put between a sub-op and another op.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// GE's event id (the Send/Recv node's `event_id`), or a number of skope's when the node
    /// has none.
    pub id: i64,
    /// The op on the other side, when the dump shows it.
    pub other: Option<OpId>,
    /// Index of the event's lock in the SuperKernel's argument table.
    pub param: usize,
    /// True when both ends are sub-ops of the segment: the event keeps its lock slot, but no
    /// notify or wait is generated for it.
    pub inner: bool,
}

/// One sub-op as the generator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubOp {
    /// The op.
    pub id: OpId,
    /// Its position in the segment.
    pub index: usize,
    /// The kernel's name as the compiler's comments give it (`<kernel>__kernel0`).
    pub kernel_name: String,
    /// The sub-kernel's symbol, a C identifier (`<kernel>__kernel0_middle`): the one called on
    /// the cube cores, or on the only core kind it runs on.
    pub symbol: String,
    /// The symbol a MIX_AIC_1_1/1_2 kernel calls on the vector cores, when its op-info names
    /// one (without it, [`SubOp::symbol`] is called on both).
    pub vector_symbol: Option<String>,
    /// False when the dump has no kernel name and the symbol is made from the op name.
    pub symbol_from_dump: bool,
    /// The kernel's op-info from `kernel_meta`, when it was given: kernel name, symbols,
    /// kernel type, block dim and argument count then come from it.
    pub op_info: Option<OpInfo>,
    /// Kernel type and block dim.
    pub kernel: SubKernel,
    /// True when the dump lacks them and AIV × 1 was assumed.
    pub kernel_assumed: bool,
    /// Its stream index.
    pub stream: u32,
    /// Its arguments: data inputs, outputs and a workspace (inferred from the golden files).
    pub params: usize,
    /// Index of its first argument in the SuperKernel's argument table.
    pub param_offset: usize,
    /// Events it sends (its `send_event_list`), in the dump's order.
    pub notifies: Vec<Event>,
    /// Events it receives (its `recv_event_list`), in the dump's order.
    pub waits: Vec<Event>,
}

impl SubOp {
    /// The arch it runs on.
    pub fn arch(&self) -> Arch {
        Arch::of(self.kernel.kernel_type)
    }

    /// The symbol it calls on `core`.
    pub(crate) fn symbol_on(&self, core: Core) -> &str {
        match (core, &self.vector_symbol) {
            (Core::Aiv, Some(vector)) => vector,
            _ => &self.symbol,
        }
    }

    /// Whether its early-start complement runs only on the cores it leaves idle: for the flag
    /// it sets when it ends (`set`) or for the wait before it.
    pub(crate) fn idle_cores_only(&self, set: bool) -> bool {
        self.op_info.as_ref().is_some_and(|info| match set {
            true => info.early_start_set,
            false => info.early_start_wait,
        })
    }

    /// The name the two-stream sync lists use for it: `<kernel name>_<index>`.
    pub(crate) fn stream_name(&self) -> String {
        format!("{}_{}", self.kernel_name, self.index)
    }

    /// The core kind its notifies and waits run on: the cube for cube kernels, the vector cores
    /// for the rest (mixed kernels included).
    pub(crate) fn event_core(&self) -> Core {
        match self.arch() {
            Arch::Aic => Core::Aic,
            Arch::Aiv | Arch::Mix => Core::Aiv,
        }
    }
}

/// An event as read from the dump: its id and the op on the other side.
type Listed = (i64, Option<OpId>);

/// What the events of a segment's sub-ops rest on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFacts {
    /// Send or Recv nodes without an `event_id`, numbered by skope.
    pub numbered: usize,
    /// Events GE moves to the SuperKernel node: receives of the first sub-op, sends of the
    /// last (GE `SuperKernelScope::LinkEventNode`).
    pub moved: usize,
    /// True when sub-ops on different streams depend on each other with no Send/Recv between
    /// them (a dump taken before GE assigned streams).
    pub unpaired: bool,
}

/// Reads the sub-ops of `ops` (one segment, in order), each from its op-info in `meta` when
/// there is one, and lays out the argument table: index 0 holds the FFTS address, then each
/// sub-op's arguments followed by one lock per event it sends and one per event it receives.
/// Returns the sub-ops, the next free argument index and what the events rest on.
pub fn sub_ops(cx: &Context, ops: &[OpId], meta: &KernelMeta) -> (Vec<SubOp>, usize, EventFacts) {
    let graph = cx.graph();
    let mut facts = EventFacts::default();
    let mut next_id = 0;
    let mut lists: Vec<(Vec<Listed>, Vec<Listed>)> = ops
        .iter()
        .map(|&id| {
            let sends = sends_of(graph, id, &mut next_id, &mut facts);
            let recvs = recvs_of(graph, id, &mut next_id, &mut facts);
            (sends, recvs)
        })
        .collect();
    if let Some((_, recvs)) = lists.first_mut() {
        facts.moved += recvs.len();
        recvs.clear();
    }
    if let Some((sends, _)) = lists.last_mut() {
        facts.moved += sends.len();
        sends.clear();
    }
    let inner: BTreeSet<i64> = lists
        .iter()
        .enumerate()
        .flat_map(|(i, (sends, _))| {
            let later = &lists[i + 1..];
            sends
                .iter()
                .filter(move |(id, _)| later.iter().any(|(_, r)| r.iter().any(|(e, _)| e == id)))
                .map(|(id, _)| *id)
        })
        .collect();
    facts.unpaired = ops.iter().any(|&id| {
        let stream = cx.stream_of(id);
        graph.op(id).inputs.iter().any(|input| match input {
            Input::Data { src, .. } | Input::Control { src } => {
                ops.contains(src) && cx.stream_of(*src) != stream
            }
            _ => false,
        })
    }) && lists.iter().all(|(s, r)| s.is_empty() && r.is_empty());
    let mut next_param = 1;
    let mut out = Vec::with_capacity(ops.len());
    for (index, (&id, (sends, recvs))) in ops.iter().zip(lists).enumerate() {
        let op = graph.op(id);
        let dump_name = op
            .attrs
            .get_str(ATTR_KERNEL_NAME)
            .filter(|name| !name.is_empty());
        let op_info: Option<OpInfo> = dump_name.and_then(|name| meta.op_info(name)).cloned();
        let params = match &op_info {
            Some(info) => info.params,
            None => {
                let data_inputs = op
                    .inputs
                    .iter()
                    .filter(|i| matches!(i, Input::Data { .. }))
                    .count();
                data_inputs + op.output_descs.len().max(1) + 1
            }
        };
        let param_offset = next_param;
        next_param += params;
        let mut lock = |events: Vec<Listed>| -> Vec<Event> {
            events
                .into_iter()
                .map(|(id, other)| {
                    next_param += 1;
                    Event {
                        id,
                        other,
                        param: next_param - 1,
                        inner: inner.contains(&id),
                    }
                })
                .collect()
        };
        let notifies = lock(sends);
        let waits = lock(recvs);
        let kernel_name = match (&op_info, dump_name) {
            (Some(info), _) => info.kernel_name.clone(),
            (None, Some(name)) => format!("{}__kernel0", ident(name)),
            (None, None) => format!("{}__kernel0", ident(&format!("placeholder_{}", op.name))),
        };
        let (kernel, kernel_assumed) = match (&op_info, cx.sub_kernel(id)) {
            (Some(info), _) => (
                SubKernel {
                    kernel_type: info.kernel_type,
                    block_dim: info.block_dim,
                    ratio_assumed: false,
                },
                false,
            ),
            (None, Some(kernel)) => (kernel, false),
            (None, None) => (
                SubKernel {
                    kernel_type: KernelType::AivOnly,
                    block_dim: 1,
                    ratio_assumed: false,
                },
                true,
            ),
        };
        out.push(SubOp {
            id,
            index,
            symbol: match &op_info {
                Some(info) => info.symbol.clone(),
                None => format!("{kernel_name}_middle"),
            },
            vector_symbol: op_info.as_ref().and_then(|i| i.vector_symbol.clone()),
            kernel_name,
            symbol_from_dump: dump_name.is_some(),
            op_info,
            kernel,
            kernel_assumed,
            stream: cx.stream_of(id),
            params,
            param_offset,
            notifies,
            waits,
        });
    }
    (out, next_param, facts)
}

/// The event id of a Send or Recv node, or the next of skope's own numbers.
fn event_id(graph: &Graph, node: OpId, next_id: &mut i64, facts: &mut EventFacts) -> i64 {
    graph.op(node).attrs.get_int("event_id").unwrap_or_else(|| {
        facts.numbered += 1;
        *next_id -= 1;
        *next_id
    })
}

/// The events `id` sends: a Send node after it; the other side is the op after the Recv that
/// pairs with it.
fn sends_of(graph: &Graph, id: OpId, next_id: &mut i64, facts: &mut EventFacts) -> Vec<Listed> {
    let is = |node: OpId, types: &[&str]| types.contains(&graph.op(node).op_type.as_str());
    graph
        .successors(id)
        .map(|(node, _)| node)
        .filter(|&node| is(node, &SEND_TYPES))
        .map(|send| {
            let other = graph
                .successors(send)
                .map(|(n, _)| n)
                .find(|&n| is(n, &RECV_TYPES))
                .and_then(|recv| graph.successors(recv).map(|(n, _)| n).next());
            (event_id(graph, send, next_id, facts), other)
        })
        .collect()
}

/// The events `id` receives: a Recv node before it; the other side is the op before the Send
/// that pairs with it.
fn recvs_of(graph: &Graph, id: OpId, next_id: &mut i64, facts: &mut EventFacts) -> Vec<Listed> {
    let is = |node: OpId, types: &[&str]| types.contains(&graph.op(node).op_type.as_str());
    let before = |node: OpId| -> Vec<OpId> {
        graph
            .op(node)
            .inputs
            .iter()
            .filter_map(|input| match input {
                Input::Data { src, .. } | Input::Control { src } => Some(*src),
                _ => None,
            })
            .collect()
    };
    before(id)
        .into_iter()
        .filter(|&node| is(node, &RECV_TYPES))
        .map(|recv| {
            let other = before(recv)
                .into_iter()
                .find(|&n| is(n, &SEND_TYPES))
                .and_then(|send| before(send).into_iter().next());
            (event_id(graph, recv, next_id, facts), other)
        })
        .collect()
}

/// `text` as a C identifier: characters other than ASCII letters, digits and `_` become `_`,
/// and a leading digit gets a `_` before it.
pub fn ident(text: &str) -> String {
    let mut out: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_safe_for_c() {
        assert_eq!(ident("te_cast_47132c41"), "te_cast_47132c41");
        assert_eq!(ident("layer.0/Add-1"), "layer_0_Add_1");
        assert_eq!(ident("3d"), "_3d");
        assert_eq!(ident(""), "_");
        assert_eq!(ident("时间*/\n"), "_____");
    }
}
