//! Why MindSpore's graph kernel fusion left a kernel out of every composite, as far as the dump
//! tells. The op lists and checks are MindSpore's (`graph_kernel_cluster_cloud.cc`:
//! `GetClusterOps` for AKG, `clusterable_ops_with_level_dvm` for DVM; `IsClusterableOp`;
//! `graph_kernel_expander_cloud.cc`: `expand_ops_with_level` for AKG and
//! `expand_ops_with_level_dvm` for DVM, the ops the expander breaks into basic ops before the
//! cluster pass; `graph_kernel_flags.cc` for the defaults). The dump does not say which kernel generator ran,
//! so a type either generator clusters by default counts as clusterable; what neither list
//! explains is said to be a guess.

pub use crate::reason_text::ReasonText;

/// The reasons, by id.
pub const REASONS: &[ReasonText] = &[
    ReasonText {
        key: "gk_not_clusterable",
        meaning: "its type is in neither of MindSpore's default cluster lists for Ascend (AKG or \
                  DVM generator): graph kernel fusion leaves it as it is",
        action: "add the type with graph_kernel_flags=\"--enable_cluster_ops=TYPE\" (only if \
                 the kernel generator supports it)",
    },
    ReasonText {
        key: "gk_level_1",
        meaning: "its type is clustered only from fusion_ops_level 1; Ascend's default is 0",
        action: "graph_kernel_flags=\"--enable_cluster_ops=TYPE\" (or --fusion_ops_level=1 for \
                 every level-1 type)",
    },
    ReasonText {
        key: "gk_dynamic_shape",
        meaning: "a dynamic shape: not clustered unless enable_dynamic_shape_fusion is on (the \
                  DVM generator turns it on)",
        action: "give the graph static shapes, or graph_kernel_flags=\"--enable_dynamic_shape_\
                 fusion\" where the generator supports it",
    },
    ReasonText {
        key: "gk_expanded",
        meaning: "its type is expanded into basic ops by MindSpore's graph kernel expander and \
                  then clustered; this one is in no composite, so it was not expanded (a \
                  dynamic shape, a data type the generator does not take, disable_expand_ops) \
                  or its pieces had nothing to cluster with (inferred)",
        action: "graph_kernel_flags=\"--dump_as_text\" writes graph_kernel_dump/ with the \
                 expander's and the cluster pass's decisions; --enable_expand_ops=TYPE if it \
                 was turned off",
    },
    ReasonText {
        key: "gk_expand_level_1",
        meaning: "its type is expanded (then clustered) only from fusion_ops_level 1; Ascend's \
                  default is 0",
        action: "graph_kernel_flags=\"--enable_expand_ops=TYPE\" (or --fusion_ops_level=1)",
    },
    ReasonText {
        key: "gk_left_out",
        meaning: "a type graph kernel fusion clusters, left out all the same; the dump does not \
                  say why (inferred: no clusterable neighbour to fuse with, a circle through \
                  another op, a constant input it needs as an attribute, another target, or \
                  disable_cluster_ops)",
        action: "graph_kernel_flags=\"--dump_as_text\" writes graph_kernel_dump/ with the \
                 cluster pass's reasons",
    },
];

/// The AKG generator's default cluster list, level 0, every target (`GetClusterOps`).
pub const AKG_LEVEL_0: &[&str] = &[
    "Abs",
    "Add",
    "Cast",
    "Equal",
    "Exp",
    "Log",
    "Maximum",
    "Minimum",
    "Mul",
    "Neg",
    "Pow",
    "RealDiv",
    "Reciprocal",
    "Round",
    "Rsqrt",
    "Sqrt",
    "Sub",
    "Tanh",
];

/// The DVM generator's default cluster list, level 0 (Ascend; `clusterable_ops_with_level_dvm`).
pub const DVM_LEVEL_0: &[&str] = &[
    "Abs",
    "Add",
    "BroadcastTo",
    "Cast",
    "Exp",
    "Log",
    "Maximum",
    "Minimum",
    "Mul",
    "Neg",
    "Pow",
    "Div",
    "RealDiv",
    "Reciprocal",
    "Rsqrt",
    "Sqrt",
    "Sub",
    "Equal",
    "NotEqual",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalOr",
    "LogicalNot",
    "Select",
    "Assign",
    "ReduceSum",
    "IsFinite",
    "Transpose",
    "Floor",
    "Ceil",
    "Trunc",
];

/// The types the AKG generator's expander takes on Ascend at level 0 (`expand_ops_with_level`:
/// every target's and Ascend's).
pub const AKG_EXPAND_0: &[&str] = &[
    "AddN",
    "AssignAdd",
    "GeLU",
    "Gelu",
    "GeLUGrad",
    "SqrtGrad",
    "Square",
    "Tile",
    "LambApplyOptimizerAssign",
    "LambApplyWeightAssign",
    "ClipByNormNoDivSum",
    "FusedMulAdd",
];

/// The types the DVM generator's expander takes at level 0 (`expand_ops_with_level_dvm`).
pub const DVM_EXPAND_0: &[&str] = &[
    "Adam",
    "AdamApplyOneWithDecayAssign",
    "AdamApplyOneWithDecay",
    "AddN",
    "AssignAdd",
    "BiasAdd",
    "BiasAddGrad",
    "FillV2",
    "GeLU",
    "Gelu",
    "GeLUGrad",
    "FastGelu",
    "FastGeluGrad",
    "FastGeLU",
    "FastGeLUGrad",
    "SiLU",
    "SiLUGrad",
    "RsqrtGrad",
    "SqrtGrad",
    "Square",
    "Tile",
    "ClipByNormNoDivSum",
    "FusedMulAdd",
    "Sigmoid",
    "SigmoidGrad",
    "SigmoidCrossEntropyWithLogits",
    "SigmoidCrossEntropyWithLogitsGrad",
    "SquaredDifference",
    "TanhGrad",
    "OnesLike",
    "ZerosLike",
    "ReduceMean",
    "ReLU",
    "ReluGrad",
    "LambApplyOptimizerAssign",
    "LambApplyWeightAssign",
];

/// The types either expander takes on Ascend only from fusion_ops_level 1 (AKG: ExpandDims,
/// SoftmaxGradExt; DVM: those and LogSoftmaxGrad, Squeeze, ApplyMomentum).
pub const EXPAND_1: &[&str] = &[
    "ExpandDims",
    "SoftmaxGradExt",
    "LogSoftmaxGrad",
    "Squeeze",
    "ApplyMomentum",
];

/// Which default expander lists on Ascend take `op_type` at level 0, in words (`the AKG and the
/// DVM generator's`), if any.
pub fn expanded_by(op_type: &str) -> Option<&'static str> {
    match (
        AKG_EXPAND_0.contains(&op_type),
        DVM_EXPAND_0.contains(&op_type),
    ) {
        (true, true) => Some("the AKG and the DVM generator's"),
        (true, false) => Some("the AKG generator's"),
        (false, true) => Some("the DVM generator's"),
        (false, false) => None,
    }
}

/// Types on a level-1 cluster list on Ascend (AKG: ReduceSum, Reshape, Transpose, MatMul,
/// TransData, BatchMatMul; DVM: Reshape, MatMul, BatchMatMul, GroupedMatmul). ReduceSum and
/// Transpose are on DVM's level-0 list too, so the default level clusters them:
/// [`level_1_only`] leaves such types out.
pub const LEVEL_1: &[&str] = &[
    "ReduceSum",
    "Reshape",
    "Transpose",
    "MatMul",
    "TransData",
    "BatchMatMul",
    "GroupedMatmul",
];

/// The types only fusion_ops_level 1 clusters: on a level-1 list and on neither generator's
/// level-0 list.
pub fn level_1_only() -> Vec<&'static str> {
    LEVEL_1
        .iter()
        .copied()
        .filter(|t| !AKG_LEVEL_0.contains(t) && !DVM_LEVEL_0.contains(t))
        .collect()
}

/// Ops that are not kernels: values, tuples, state and control between the kernels.
pub const NOT_KERNELS: &[&str] = &[
    "Parameter",
    "Data",
    "NetOutput",
    "Return",
    "MakeTuple",
    "TupleGetItem",
    "Depend",
    "UpdateState",
    "Load",
    "Partial",
    "Switch",
    "SwitchLayer",
    "Call",
    "make_tuple",
    "tuple_getitem",
];

/// The reason with `id`.
pub fn reason(id: u8) -> &'static ReasonText {
    REASONS
        .get(usize::from(id))
        .unwrap_or(&REASONS[REASONS.len() - 1])
}

/// Whose reasons these are, in words that read before "advice".
pub const WHOSE: &str = "MindSpore's";

/// Reason `key` as a verdict's reason.
pub fn verdict(key: &str) -> crate::fusion::verdict::Reason {
    crate::fusion::verdict::Reason::Foreign {
        text: REASONS.iter().find(|r| r.key == key).unwrap_or(&REASONS[0]),
        whose: WHOSE,
    }
}

/// True when either generator clusters `op_type` at level 0 by default.
pub fn clusterable(op_type: &str) -> bool {
    AKG_LEVEL_0.contains(&op_type) || DVM_LEVEL_0.contains(&op_type)
}
