//! Which graph something was made for: a plan file, a journal, a run record.

use super::Graph;
use serde::{Deserialize, Serialize};

/// A graph's name, size and fingerprint. Two dumps of one model with the same ops (a re-dump)
/// have the same fingerprint; a plan, journal or run record is a dump's own only when the
/// fingerprints match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphId {
    /// The graph name.
    pub name: String,
    /// Its op count.
    pub ops: usize,
    /// FNV-1a hash of every op's name and type, in execution order.
    pub fingerprint: String,
}

impl GraphId {
    /// The id of `graph`.
    pub fn of(graph: &Graph) -> GraphId {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &id in graph.exec_order() {
            let op = graph.op(id);
            for byte in op
                .name
                .bytes()
                .chain([0])
                .chain(op.op_type.bytes())
                .chain([0])
            {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        GraphId {
            name: graph.name().to_string(),
            ops: graph.len(),
            fingerprint: format!("{hash:016x}"),
        }
    }

    /// True when `other` was made for the same graph.
    pub fn same_graph(&self, other: &GraphId) -> bool {
        self.fingerprint == other.fingerprint
    }
}
