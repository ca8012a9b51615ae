//! A 100k-op graph shaped like a decoder stack, shared by the benches: two streams (the second
//! holds every eighth op), 2,000 scopes of ~48 ops, an unscoped op inside every fifth scope and
//! a TBE op inside every third, Send/Const ops.

use skope::graph::{AttrValue, Graph, GraphBuilder, OpBuilder};

/// Ops in the graph.
pub const OPS: usize = 100_000;
/// Ops of a scope (a decoder layer, when the names say so).
pub const SCOPE_LEN: usize = 50;

/// Builds the graph, its ops named `op_<i>`.
pub fn graph() -> Graph {
    build(&|i| format!("op_{i}"))
}

/// Builds the graph with op `i` named by `name`.
pub fn build(name: &dyn Fn(usize) -> String) -> Graph {
    let mut b = GraphBuilder::new("bench");
    b.streams_assigned(true);
    for i in 0..OPS {
        let block = i / SCOPE_LEN;
        let at = i % SCOPE_LEN;
        let (op_type, core, dim) = match i % 5 {
            0 => ("MatMulV2", "AIC", 24),
            1 => ("RmsNorm", "AIV", 40),
            2 => ("GroupedMatmul", "MIX_AIC", 24),
            3 => ("Add", "AIV", 40),
            _ => ("MoeGatingTopK", "AIV", 8),
        };
        let mut op = OpBuilder {
            name: name(i),
            op_type: op_type.into(),
            topo_id: Some(i as i64),
            stream: Some(i64::from(i % 8 == 7)),
            inputs: if i > 0 {
                vec![format!("{}:0", name(i - 1))]
            } else {
                vec![]
            },
            ..OpBuilder::default()
        };
        let attrs = &mut op.attrs;
        match at {
            0 => op.op_type = "Const".into(),
            1 => op.op_type = "Send".into(),
            _ => {
                let support = i64::from(!(block.is_multiple_of(3) && at == 20));
                attrs.insert("supportSuperKernel", AttrValue::Int(support));
                attrs.insert("_cube_vector_core_type", AttrValue::Str(core.into()));
                attrs.insert("tvm_blockdim", AttrValue::Int(dim));
            }
        }
        // Every fifth block leaves one op in the middle unscoped.
        if at > 1 && !(block.is_multiple_of(5) && at == 30) {
            attrs.insert(
                "_super_kernel_scope",
                AttrValue::Str(format!("scope_{block}")),
            );
            attrs.insert(
                "_super_kernel_options",
                AttrValue::Str("stream-fusion=1".into()),
            );
        }
        b.push(op);
    }
    b.build()
}
