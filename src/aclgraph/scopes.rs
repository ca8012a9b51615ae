//! The scopes of an aclgraph model: the names the scope markers register and the scopes each
//! task is in (reference/aclgraph_superkernel.md §1.5).

use super::graph_json::{Marker, Task};

/// The scopes a task is in, from the markers around it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Membership {
    /// The named scopes open around it, by bit (registration order).
    pub bits: Vec<u16>,
    /// True inside an unnamed (exclusion) scope.
    pub excluded: bool,
    /// True after more than 1024 names: its scope got no bit (`EXCEED_SCOPE_MAX`).
    pub over_limit: bool,
}

/// The scope label of tasks outside every named scope.
pub const OUTSIDE: &str = "(not in a scope)";

/// The pass's most names of scopes (`MAX_SCOPE_NUM`).
pub const MAX_SCOPE_NAMES: usize = 1024;

/// The scope names of the markers and each task's membership: one stack over all streams in
/// `nodeId` order, ends matched by name (reference §1.5).
pub fn memberships(tasks: &[Task]) -> (Vec<String>, Vec<Membership>) {
    let mut names: Vec<String> = Vec::new();
    let mut open: Vec<Option<u16>> = Vec::new();
    let mut open_names: Vec<Option<String>> = Vec::new();
    let mut out = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.marker {
            Some(Marker::Begin) => {
                let name = task.scope_name.clone();
                let bit = match &name {
                    None => None,
                    Some(n) => match names.iter().position(|x| x == n) {
                        // The limit is checked before the lookup (inferred, reference §1.5).
                        _ if names.len() >= MAX_SCOPE_NAMES => None,
                        Some(i) => Some(i as u16),
                        None => {
                            names.push(n.clone());
                            Some((names.len() - 1) as u16)
                        }
                    },
                };
                open.push(bit);
                open_names.push(name);
            }
            Some(Marker::End) => {
                if let Some(at) = open_names.iter().rposition(|n| *n == task.scope_name) {
                    open.remove(at);
                    open_names.remove(at);
                }
            }
            _ => {}
        }
        let mut bits: Vec<u16> = open.iter().flatten().copied().collect();
        bits.sort_unstable();
        bits.dedup();
        out.push(Membership {
            bits,
            excluded: open
                .iter()
                .zip(&open_names)
                .any(|(b, n)| b.is_none() && n.is_none()),
            over_limit: open
                .iter()
                .zip(&open_names)
                .any(|(b, n)| b.is_none() && n.is_some()),
        });
    }
    (names, out)
}
