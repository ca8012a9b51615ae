//! What the generator needs to know about each sub-op of a segment, read from the graph:
//! its kernel symbol, cores, argument count and events with ops outside the segment.

use crate::fusion::kernel::{KernelType, SubKernel};
use crate::fusion::plan::Context;
use crate::graph::{Input, OpId};

/// Attribute with the op's compiled kernel name (GE dumps taken after compilation).
pub const ATTR_KERNEL_NAME: &str = "_kernelname";

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

    /// The core kinds it occupies, cube first.
    pub(crate) fn cores(self) -> &'static [Core] {
        match self {
            Arch::Aic => &[Core::Aic],
            Arch::Aiv => &[Core::Aiv],
            Arch::Mix => &[Core::Aic, Core::Aiv],
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

    /// The block index expression on this core.
    pub(crate) fn block_idx(self) -> &'static str {
        match self {
            Core::Aic => "get_block_idx()",
            Core::Aiv => "AscendC::GetBlockIdx()",
        }
    }

    /// `true` for the cube core (the template argument of NotifyFunc / WaitFunc).
    pub(crate) fn is_aic(self) -> bool {
        self == Core::Aic
    }

    /// The other kind.
    pub(crate) fn other(self) -> Core {
        match self {
            Core::Aic => Core::Aiv,
            Core::Aiv => Core::Aic,
        }
    }

    /// The kernel type of a kernel on these cores only.
    pub(crate) fn only(self) -> KernelType {
        match self {
            Core::Aic => KernelType::AicOnly,
            Core::Aiv => KernelType::AivOnly,
        }
    }

    /// `AIC` or `AIV`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Core::Aic => "AIC",
            Core::Aiv => "AIV",
        }
    }
}

/// An event between a sub-op and an op outside the segment on another stream: the sub-op
/// notifies after it runs, or waits before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Event number within the segment (GE's event ids are not in the dump).
    pub id: usize,
    /// The op outside the segment.
    pub outside: OpId,
    /// Index of the event's lock in the SuperKernel's argument table.
    pub param: usize,
}

/// One sub-op as the generator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubOp {
    /// The op.
    pub id: OpId,
    /// The sub-kernel's symbol, a C identifier (`<kernel name>__kernel0_middle`).
    pub symbol: String,
    /// False when the dump has no kernel name and the symbol is made from the op name.
    pub symbol_from_dump: bool,
    /// Kernel type and block dim.
    pub kernel: SubKernel,
    /// True when the dump lacks them and AIV × 1 was assumed.
    pub kernel_assumed: bool,
    /// Its arguments: data inputs, outputs and a workspace (inferred from the golden files).
    pub params: usize,
    /// Index of its first argument in the SuperKernel's argument table.
    pub param_offset: usize,
    /// Events it notifies after running.
    pub notifies: Vec<Event>,
    /// Events it waits for before running.
    pub waits: Vec<Event>,
}

impl SubOp {
    /// The arch it runs on.
    pub fn arch(&self) -> Arch {
        Arch::of(self.kernel.kernel_type)
    }
}

/// Reads the sub-ops of `ops` (one segment, in order) and lays out the argument table: index 0
/// holds the FFTS address, then each sub-op's arguments followed by its notify and wait locks.
/// Returns the sub-ops and the next free argument index.
pub fn sub_ops(cx: &Context, ops: &[OpId]) -> (Vec<SubOp>, usize) {
    let graph = cx.graph();
    let members: std::collections::HashSet<OpId> = ops.iter().copied().collect();
    let mut next_param = 1;
    let mut next_event = 0;
    let mut out = Vec::with_capacity(ops.len());
    for &id in ops {
        let op = graph.op(id);
        let stream = cx.stream_of(id);
        let outside = |other: &OpId| !members.contains(other) && cx.stream_of(*other) != stream;
        let mut waits_on: Vec<OpId> = op
            .inputs
            .iter()
            .filter_map(|input| match input {
                Input::Data { src, .. } | Input::Control { src } => Some(*src),
                _ => None,
            })
            .filter(outside)
            .collect();
        waits_on.sort_unstable();
        waits_on.dedup();
        let mut notifies_to: Vec<OpId> = graph
            .successors(id)
            .map(|(dst, _)| dst)
            .filter(outside)
            .collect();
        notifies_to.sort_unstable();
        notifies_to.dedup();
        let data_inputs = op
            .inputs
            .iter()
            .filter(|i| matches!(i, Input::Data { .. }))
            .count();
        let params = data_inputs + op.output_descs.len().max(1) + 1;
        let param_offset = next_param;
        next_param += params;
        let mut events = |targets: Vec<OpId>| -> Vec<Event> {
            targets
                .into_iter()
                .map(|outside| {
                    let event = Event {
                        id: next_event,
                        outside,
                        param: next_param,
                    };
                    next_event += 1;
                    next_param += 1;
                    event
                })
                .collect()
        };
        let notifies = events(notifies_to);
        let waits = events(waits_on);
        let (symbol, symbol_from_dump) = match op.attrs.get_str(ATTR_KERNEL_NAME) {
            Some(name) if !name.is_empty() => (format!("{}__kernel0_middle", ident(name)), true),
            _ => (
                format!("placeholder_{}__kernel0_middle", ident(&op.name)),
                false,
            ),
        };
        let (kernel, kernel_assumed) = match cx.sub_kernel(id) {
            Some(kernel) => (kernel, false),
            None => (
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
            symbol,
            symbol_from_dump,
            kernel,
            kernel_assumed,
            params,
            param_offset,
            notifies,
            waits,
        });
    }
    (out, next_param)
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
