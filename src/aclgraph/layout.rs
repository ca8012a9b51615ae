//! Where the aclgraph pass's files are: a model directory `sk_meta/<pid>/<model>/` holds the
//! logs and graph files, its parent the device timing (reference/aclgraph_superkernel.md §4.1).
//! Users hand over the model directory, one of its files, `sk_meta/<pid>/`, or a result root
//! (`<root>/sk_meta/…`, `<root>/runs/sk_meta/<rank>/model_*`); the model directories are found
//! below it.

use std::path::{Path, PathBuf};

/// A file the pass writes, and what it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownFile {
    /// Its name (`sk_prof_device_*.json` stands for one per device).
    pub name: &'static str,
    /// What skope shows from it, said when it is missing.
    pub shows: &'static str,
}

/// The graph as the pass saw it before the rewrite.
pub const GRAPH_ORIGIN: &str = "sk_graph_origin.json";
/// The graph after the rewrite, with `skinfos`.
pub const GRAPH_UPDATED: &str = "sk_graph_updated.json";
/// Where the tasks come from when neither graph file is there: the logs' node lines.
pub const LOGS_ONLY: &str = "the logs (no graph file)";
/// Unfusible kernels, original and fused scopes.
pub const FAIL_REASONS: &str = "sk_fusion_fail_reasons.log";
/// Every split pass's scopes.
pub const SCOPE_SPLIT: &str = "sk_scope_split.log";
/// Fusibility after scope tagging.
pub const NODE_DETAIL: &str = "sk_node_detail.log";
/// SuperKernels and their tasks.
pub const FUSED_NODES: &str = "sk_fused_nodes.log";
/// Device task queues by graph task.
pub const DEVICE_ARGS: &str = "sk_device_args.log";
/// Task queues per SuperKernel.
pub const TASK_QUEUE: &str = "sk_task_queue.json";
/// Device timing, one file per device (in the model directory's parent).
pub const TIMING: &str = "sk_prof_device_*.json";

/// Every file skope reads, in the order it reads them.
pub const FILES: &[KnownFile] = &[
    KnownFile {
        name: GRAPH_ORIGIN,
        shows: "the tasks per stream, the scope markers and the options",
    },
    KnownFile {
        name: GRAPH_UPDATED,
        shows: "which task launches each SuperKernel (skinfos)",
    },
    KnownFile {
        name: FAIL_REASONS,
        shows: "why each unfusible kernel was not fused, and each SuperKernel's break reason",
    },
    KnownFile {
        name: FUSED_NODES,
        shows: "the SuperKernels that were built and their tasks",
    },
    KnownFile {
        name: SCOPE_SPLIT,
        shows: "the scopes after the split passes, with where and why each was cut",
    },
    KnownFile {
        name: NODE_DETAIL,
        shows: "each task's fusibility right after scope tagging",
    },
    KnownFile {
        name: DEVICE_ARGS,
        shows: "which graph task each device queue position runs",
    },
    KnownFile {
        name: TASK_QUEUE,
        shows: "each SuperKernel's cube and vector task queues",
    },
    KnownFile {
        name: TIMING,
        shows: "per-sub-op timing on the device (written with ASCEND_PROF_SK_ON)",
    },
];

/// True when `name` is one of the pass's files.
pub fn is_pass_file(name: &str) -> bool {
    FILES.iter().any(|f| f.name == name) || timing_file(name)
}

/// True for `sk_prof_device_<dev>.json`, the older `sk_event_dev_device_<dev>.json`, and the
/// SuperKernel team's simplified `sk_prof*.json`.
pub fn timing_file(name: &str) -> bool {
    (name.starts_with("sk_prof") || name.starts_with("sk_event_dev_device_"))
        && name.ends_with(".json")
}

/// True when `dir` holds a graph file or a SuperKernel listing of the pass.
pub fn is_model_dir(dir: &Path) -> bool {
    [GRAPH_ORIGIN, GRAPH_UPDATED, FUSED_NODES, FAIL_REASONS]
        .iter()
        .any(|f| dir.join(f).is_file())
}

/// True when `path` is something the aclgraph reader takes: one of the pass's files, a model
/// directory, or a directory with model directories below it.
pub fn looks_like_output(path: &Path) -> bool {
    if path.is_dir() {
        return !model_dirs(path).is_empty();
    }
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(is_pass_file)
}

/// How deep below a result root model directories are looked for
/// (`<root>/runs/sk_meta/<rank>/model_*` is four levels down).
const MAX_DEPTH: usize = 5;

/// The model directories `path` stands for, sorted: its own directory for a pass file, itself
/// for a model directory, else the model directories below it.
pub fn model_dirs(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        // A file in the working directory has an empty parent: the directory is `.`.
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        return vec![dir];
    }
    if is_model_dir(path) {
        return vec![path.to_path_buf()];
    }
    let mut found = Vec::new();
    walk(path, 0, &mut found);
    found.sort();
    found
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        if is_model_dir(&sub) {
            found.push(sub);
        } else {
            walk(&sub, depth + 1, found);
        }
    }
}

/// The device timing files of a model directory: in it, in its parent (`sk_meta/<pid>/`), or
/// in the run's root beside `sk_meta/`, where the SuperKernel team's pipeline keeps its
/// simplified trace.
pub fn timing_files(model_dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let run_root = model_dir
        .ancestors()
        .take(5)
        .find(|d| d.file_name().is_some_and(|n| n == "sk_meta"))
        .and_then(Path::parent);
    for dir in [Some(model_dir), model_dir.parent(), run_root]
        .into_iter()
        .flatten()
    {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(timing_file)
            })
            .collect();
        files.sort();
        out.extend(files);
        if !out.is_empty() {
            break;
        }
    }
    out
}
