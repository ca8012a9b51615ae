//! Small graphs for the fusion tests, written one op per line.

use crate::graph::{AttrValue, Graph, GraphBuilder, OpBuilder};

/// A test op: name, type, topo id, stream, scope, options, extra attributes.
pub(crate) struct T {
    pub(crate) name: &'static str,
    pub(crate) ty: &'static str,
    pub(crate) topo: Option<i64>,
    pub(crate) stream: Option<i64>,
    pub(crate) scope: Option<&'static str>,
    pub(crate) options: &'static str,
    pub(crate) attrs: Vec<(&'static str, AttrValue)>,
}

/// A fusible AscendC op (compiled dump) with core type and block dim.
pub(crate) fn op(name: &'static str, topo: i64, stream: i64, scope: Option<&'static str>) -> T {
    T {
        name,
        ty: "MatMulV2",
        topo: Some(topo),
        stream: Some(stream),
        scope,
        options: "",
        attrs: vec![
            ("supportSuperKernel", AttrValue::Int(1)),
            ("_cube_vector_core_type", AttrValue::Str("AIV".into())),
            ("tvm_blockdim", AttrValue::Int(8)),
        ],
    }
}

impl T {
    pub(crate) fn ty(mut self, ty: &'static str) -> T {
        self.ty = ty;
        self
    }
    pub(crate) fn unsupported(mut self) -> T {
        self.attrs[0].1 = AttrValue::Int(0);
        self
    }
    pub(crate) fn options(mut self, options: &'static str) -> T {
        self.options = options;
        self
    }
    pub(crate) fn attr(mut self, key: &'static str, value: AttrValue) -> T {
        self.attrs.retain(|(k, _)| *k != key);
        self.attrs.push((key, value));
        self
    }
    pub(crate) fn precompile(mut self) -> T {
        self.topo = None;
        self.stream = None;
        self.attrs.clear();
        self
    }
}

pub(crate) fn graph(ops: Vec<T>) -> Graph {
    let mut b = GraphBuilder::new("g");
    for t in ops {
        let mut op = OpBuilder {
            name: t.name.into(),
            op_type: t.ty.into(),
            topo_id: t.topo,
            stream: t.stream,
            ..OpBuilder::default()
        };
        if let Some(scope) = t.scope {
            op.attrs
                .insert("_super_kernel_scope", AttrValue::Str(scope.into()));
            op.attrs
                .insert("_super_kernel_options", AttrValue::Str(t.options.into()));
        }
        for (k, v) in t.attrs {
            op.attrs.insert(k, v);
        }
        b.push(op);
    }
    b.build()
}
