//! GE protobuf text dumps: `ModelDef` (`ge_proto_*.txt`, several graphs, the first is the
//! main one) and bare `GraphDef` (TorchAir `txt`).

use super::ge_ir::read_graph_def;
use super::textproto::{Reader, Result};
use crate::graph::GraphBuilder;

/// Reads a `ModelDef` text: every top-level `graph { … }` becomes a graph. GE writes these
/// after stream allocation, so an op without `stream_id` is on stream 0.
pub fn load_model_def(src: &[u8]) -> Result<Vec<GraphBuilder>> {
    let mut r = Reader::new(src);
    let mut graphs = Vec::new();
    while let Some(f) = r.next_field()? {
        if f.name == "graph" {
            f.expect_message()?;
            let mut b = GraphBuilder::new(format!("graph_{}", graphs.len()));
            b.streams_assigned(true);
            read_graph_def(&mut r, &mut b)?;
            graphs.push(b);
        } else {
            r.skip(&f)?;
        }
    }
    Ok(graphs)
}

/// Reads a bare `GraphDef` text (TorchAir `txt` dumps, taken before GE assigns streams).
pub fn load_graph_def(src: &[u8], default_name: &str) -> Result<GraphBuilder> {
    let mut r = Reader::new(src);
    let mut b = GraphBuilder::new(default_name);
    read_graph_def(&mut r, &mut b)?;
    Ok(b)
}
