//! An aclgraph model's scopes and options as the Python a user pastes: the
//! `torch.npu.super_kernel_scope_begin/end` calls in capture order, each with the kernels it
//! wraps, and the `super_kernel_optimize` call with the options that differ from the defaults.

use super::graph_json::{Marker, NodeType};
use super::model::AclModel;
use super::options;
use std::fmt::Write;

/// The most kernel names listed in one comment.
const NAMES_SHOWN: usize = 4;

/// The Python of `model`'s scopes and options.
pub fn python(model: &AclModel) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Scopes of model {} as the aclgraph SuperKernel pass saw them ({}), in capture order.",
        model.model_id.as_deref().unwrap_or("?"),
        model.dir.display()
    );
    let _ = writeln!(
        out,
        "# Put each begin/end around the code that launches the kernels listed; a scope named \
         None keeps its kernels out of fusion.\nimport torch\n"
    );
    let mut pending: Vec<&str> = Vec::new();
    let flush = |out: &mut String, pending: &mut Vec<&str>| {
        if pending.is_empty() {
            return;
        }
        let shown: Vec<&str> = pending.iter().take(NAMES_SHOWN).copied().collect();
        let more = pending.len().saturating_sub(NAMES_SHOWN);
        let _ = write!(out, "# {} kernel(s): {}", pending.len(), shown.join(", "));
        if more > 0 {
            let _ = write!(out, " and {more} more");
        }
        out.push('\n');
        pending.clear();
    };
    let literal = |name: &Option<String>| match name {
        Some(n) => format!("\"{}\"", n.replace('\\', "\\\\").replace('"', "\\\"")),
        None => "None".to_string(),
    };
    let logs_only = model.graph_file == super::layout::LOGS_ONLY;
    let markers = model.tasks.iter().any(|t| t.marker == Some(Marker::Begin));
    // Without markers (logs that print none) the scopes are the tasks' own: begin and end
    // where a task's scopes change.
    let mut open: &[u16] = &[];
    for (i, task) in model.tasks.iter().enumerate() {
        if !markers && task.marker.is_none() {
            let bits = &model.memberships[i].bits[..];
            if bits != open {
                flush(&mut out, &mut pending);
                for b in open.iter().rev().filter(|b| !bits.contains(b)) {
                    let name = Some(model.scope_names[*b as usize].clone());
                    let _ = writeln!(out, "torch.npu.super_kernel_scope_end({})", literal(&name));
                }
                for b in bits.iter().filter(|b| !open.contains(b)) {
                    let name = Some(model.scope_names[*b as usize].clone());
                    let _ = writeln!(
                        out,
                        "torch.npu.super_kernel_scope_begin({})",
                        literal(&name)
                    );
                }
                open = bits;
            }
        }
        match task.marker {
            // Without the graph file a marker's scope is read from the tasks around it; one
            // it cannot be read for is said, not written as an exclusion.
            Some(Marker::Begin | Marker::End) if logs_only && task.scope_name.is_none() => {
                flush(&mut out, &mut pending);
                let _ = writeln!(
                    out,
                    "# a scope marker (task {}) whose scope the logs do not tell",
                    task.node_id
                );
            }
            Some(Marker::Begin) => {
                flush(&mut out, &mut pending);
                let _ = writeln!(
                    out,
                    "torch.npu.super_kernel_scope_begin({})",
                    literal(&task.scope_name)
                );
            }
            Some(Marker::End) => {
                flush(&mut out, &mut pending);
                let _ = writeln!(
                    out,
                    "torch.npu.super_kernel_scope_end({})",
                    literal(&task.scope_name)
                );
            }
            Some(Marker::Placeholder) => {}
            None if task.node_type == NodeType::Kernel => {
                pending.push(task.func_name.as_deref().unwrap_or("?"));
            }
            None => {}
        }
    }
    flush(&mut out, &mut pending);
    for b in open.iter().rev() {
        let name = Some(model.scope_names[*b as usize].clone());
        let _ = writeln!(out, "torch.npu.super_kernel_scope_end({})", literal(&name));
    }
    let set: serde_json::Map<String, serde_json::Value> = options::from_model(&model.options)
        .into_iter()
        .filter(|(k, v)| {
            options::option(k)
                .and_then(|o| serde_json::from_str::<serde_json::Value>(o.default).ok())
                .is_none_or(|default| default != *v)
        })
        .collect();
    let checked = options::check(&set);
    out.push_str("\n# After capture (options that differ from the defaults):\n");
    out.push_str(&checked.python("graph"));
    out
}
