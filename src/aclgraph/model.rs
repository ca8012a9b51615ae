//! One model's result of the aclgraph pass, put together from its files: the tasks per stream,
//! the scopes the markers make, the SuperKernels that were built, and for every task whether it
//! was fused and, if not, why — with the file each fact comes from. Files that are missing or
//! unreadable make it poorer, never wrong: each is listed with what it would have shown.

use super::device::{self, ScopeQueues, Timing};
use super::graph_json::{self, Marker, NodeType, Task};
use super::layout::{self, KnownFile};
use super::logs::{self, BreakInfo};
use crate::file_error::FileError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What to do when a graph file cannot be read.
const GRAPH_HINT: &str = "pass the model directory the pass wrote with \
                          ASCEND_OP_COMPILE_SAVE_KERNEL_META=1 (sk_meta/<pid>/model_*), or one \
                          of its files";

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

/// What became of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStatus {
    /// A scope marker or placeholder: disabled after the pass.
    Marker,
    /// A sub-op of SuperKernel `sk` (an index into [`AclModel::sks`]).
    Fused(usize),
    /// Listed as unfusible in `sk_fusion_fail_reasons.log`.
    Unfusible {
        /// The `FusionFailReason` key.
        reason: String,
        /// Its sub-reason.
        sub: Option<String>,
        /// The pass's detail text.
        detail: String,
    },
    /// In no SuperKernel and not listed: `why` says what that means (inferred).
    NotFused {
        /// In words.
        why: String,
    },
}

/// A SuperKernel the pass built.
#[derive(Debug, Clone, PartialEq)]
pub struct SuperKernel {
    /// Its scope id (`skId`).
    pub scope_id: u64,
    /// `sk_<scopeId>_<names>_start_<f>_end_<g>`.
    pub name: String,
    /// Its tasks (indices into [`AclModel::tasks`]), in the listing's order.
    pub tasks: Vec<usize>,
    /// The task that launches it (`skinfos` in the updated graph).
    pub launch: Option<usize>,
    /// The entry kernel it runs (`sk_entry_aiv…`), from the updated graph.
    pub entry: Option<String>,
    /// Why it was cut from its scope, when the pass says.
    pub break_info: Option<BreakInfo>,
    /// Its task queues.
    pub queues: Option<ScopeQueues>,
    /// Its whole-SuperKernel timing.
    pub time: Option<Timing>,
}

/// A file that could not be used, or a disagreement between files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file concerned.
    pub file: PathBuf,
    /// What is wrong, with its place when known.
    pub message: String,
}

/// A model's result of the aclgraph pass.
#[derive(Debug, Clone, PartialEq)]
pub struct AclModel {
    /// The model directory.
    pub dir: PathBuf,
    /// Which graph file the tasks come from.
    pub graph_file: &'static str,
    /// `modelId`.
    pub model_id: Option<String>,
    /// `deviceId`.
    pub device_id: Option<i64>,
    /// The options the pass ran with (name, value as JSON).
    pub options: Vec<(String, String)>,
    /// Tasks in `nodeId` order.
    pub tasks: Vec<Task>,
    /// Number of streams.
    pub streams: u32,
    /// Scope names in bit order.
    pub scope_names: Vec<String>,
    /// Each task's scopes.
    pub memberships: Vec<Membership>,
    /// The SuperKernels built.
    pub sks: Vec<SuperKernel>,
    /// What became of each task.
    pub status: Vec<TaskStatus>,
    /// Per-sub-op timing, when the device timing was written.
    pub timings: Vec<Timing>,
    /// The pass's files that are not there, with what they would have shown.
    pub missing: Vec<KnownFile>,
    /// Files that could not be used, and disagreements between files.
    pub problems: Vec<Problem>,
    /// The pass's files read (logs are read by their format strings; other lines are passed
    /// over).
    pub read: Vec<&'static str>,
}

impl AclModel {
    /// The model of `graph` (read from `graph_file` in `dir`) alone: scopes from its markers,
    /// no SuperKernels, every task's status still to be told.
    pub fn of_graph(
        dir: &Path,
        graph_file: &'static str,
        graph: graph_json::GraphFile,
    ) -> AclModel {
        let (scope_names, memberships) = memberships(&graph.tasks);
        AclModel {
            dir: dir.to_path_buf(),
            graph_file,
            model_id: graph.model_id,
            device_id: graph.device_id,
            options: graph.options,
            streams: graph.streams,
            status: vec![TaskStatus::NotFused { why: String::new() }; graph.tasks.len()],
            tasks: graph.tasks,
            scope_names,
            memberships,
            sks: Vec::new(),
            timings: Vec::new(),
            missing: Vec::new(),
            problems: Vec::new(),
            read: Vec::new(),
        }
    }

    /// The index of the task with `node_id`.
    pub fn task_index(&self, node_id: u64) -> Option<usize> {
        self.tasks
            .binary_search_by_key(&node_id, |t| t.node_id)
            .ok()
    }

    /// The scope name of a membership: its names joined by `_` in bit order, `none` when the
    /// graph has no named scope, or the exclusion.
    pub fn scope_label(&self, m: &Membership) -> String {
        if m.excluded {
            return "(unnamed: excluded)".to_string();
        }
        if self.scope_names.is_empty() {
            return "none".to_string();
        }
        if m.bits.is_empty() {
            return OUTSIDE.to_string();
        }
        m.bits
            .iter()
            .map(|&b| self.scope_names[b as usize].as_str())
            .collect::<Vec<_>>()
            .join("_")
    }
}

/// Reads the model directory `dir`.
pub fn read(dir: &Path) -> Result<AclModel, FileError> {
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    let origin = dir.join(layout::GRAPH_ORIGIN);
    let updated = dir.join(layout::GRAPH_UPDATED);
    let (graph_file, graph) = if origin.is_file() {
        (layout::GRAPH_ORIGIN, read_graph(&origin)?)
    } else if updated.is_file() {
        (layout::GRAPH_UPDATED, read_graph(&updated)?)
    } else {
        return Err(FileError::at(
            dir,
            "",
            None,
            format!(
                "neither {} nor {} is here: skope needs one of them for the tasks",
                layout::GRAPH_ORIGIN,
                layout::GRAPH_UPDATED
            ),
            GRAPH_HINT,
        ));
    };
    read.push(graph_file);
    // The updated graph adds which task launches each SuperKernel.
    let launches: Vec<Task> = if graph_file == layout::GRAPH_ORIGIN && updated.is_file() {
        match read_graph(&updated) {
            Ok(g) => {
                read.push(layout::GRAPH_UPDATED);
                g.tasks.into_iter().filter(|t| t.sk.is_some()).collect()
            }
            Err(e) => {
                problems.push(problem(&updated, e.to_string()));
                Vec::new()
            }
        }
    } else {
        graph
            .tasks
            .iter()
            .filter(|t| t.sk.is_some())
            .cloned()
            .collect()
    };
    let mut model = AclModel::of_graph(dir, graph_file, graph);
    let text_of =
        |name: &'static str, missing: &mut Vec<KnownFile>, problems: &mut Vec<Problem>| {
            let path = dir.join(name);
            if !path.is_file() {
                missing.extend(layout::FILES.iter().filter(|f| f.name == name));
                return None;
            }
            match crate::text::read_utf8(&path) {
                Ok(text) => Some(text),
                Err(e) => {
                    problems.push(problem(&path, positioned(&e.to_string(), e.at())));
                    None
                }
            }
        };
    for (path, name) in [
        (&origin, layout::GRAPH_ORIGIN),
        (&updated, layout::GRAPH_UPDATED),
    ] {
        if !path.is_file() {
            missing.extend(layout::FILES.iter().filter(|f| f.name == name));
        }
    }
    let fused = text_of(layout::FUSED_NODES, &mut missing, &mut problems).map(|t| {
        read.push(layout::FUSED_NODES);
        logs::fused_nodes(&t)
    });
    let fail = text_of(layout::FAIL_REASONS, &mut missing, &mut problems).map(|t| {
        read.push(layout::FAIL_REASONS);
        logs::fail_reasons(&t)
    });
    let split = text_of(layout::SCOPE_SPLIT, &mut missing, &mut problems).and_then(|t| {
        read.push(layout::SCOPE_SPLIT);
        logs::scope_split(&t)
    });
    let detail = text_of(layout::NODE_DETAIL, &mut missing, &mut problems).map(|t| {
        read.push(layout::NODE_DETAIL);
        logs::node_detail(&t)
    });
    if let Some(t) = text_of(layout::DEVICE_ARGS, &mut missing, &mut problems) {
        read.push(layout::DEVICE_ARGS);
        check_device_args(&model, &logs::device_args(&t), &mut problems);
    }
    let queues = {
        let path = dir.join(layout::TASK_QUEUE);
        if path.is_file() {
            match std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| device::task_queues(&b).map_err(|e| positioned(&e.message, e.at)))
            {
                Ok(q) => {
                    read.push(layout::TASK_QUEUE);
                    q
                }
                Err(e) => {
                    problems.push(problem(&path, e));
                    Vec::new()
                }
            }
        } else {
            missing.extend(
                layout::FILES
                    .iter()
                    .filter(|f| f.name == layout::TASK_QUEUE),
            );
            Vec::new()
        }
    };
    let timing_files = layout::timing_files(dir);
    if timing_files.is_empty() {
        missing.extend(layout::FILES.iter().filter(|f| f.name == layout::TIMING));
    }
    for path in timing_files {
        match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| device::timings(&b).map_err(|e| positioned(&e.message, e.at)))
        {
            Ok(t) => model.timings.extend(t),
            Err(e) => problems.push(problem(&path, e)),
        }
    }
    build_sks(
        &mut model,
        fused.unwrap_or_default(),
        fail.as_ref(),
        &launches,
        queues,
        &mut problems,
    );
    if let Some((_, scopes)) = &split {
        attach_split_breaks(&mut model, scopes);
    }
    if let Some(detail) = &detail {
        for d in detail {
            if let Some(i) = model.task_index(d.node_id) {
                model.tasks[i].sche_mode = d.sche_mode;
            }
        }
    }
    mark_tasks(&mut model, fail.as_ref(), detail.as_deref());
    model.missing = missing;
    model.problems = problems;
    model.read = read;
    Ok(model)
}

fn positioned(message: &str, at: Option<(usize, usize)>) -> String {
    match at {
        Some((l, c)) => format!("line {l}, column {c}: {message}"),
        None => message.to_string(),
    }
}

fn problem(path: &Path, message: String) -> Problem {
    Problem {
        file: path.to_path_buf(),
        message,
    }
}

fn read_graph(path: &Path) -> Result<graph_json::GraphFile, FileError> {
    let bytes = std::fs::read(path)
        .map_err(|e| FileError::at(path, "", None, format!("cannot read it: {e}"), GRAPH_HINT))?;
    graph_json::parse(&bytes).map_err(|e| FileError {
        path: path.to_path_buf(),
        at: e.at,
        message: format!("not a graph file of the aclgraph pass: {}", e.message),
        hint: GRAPH_HINT,
    })
}

/// The SuperKernels of `sk_fused_nodes.log`, else of the fail-reasons log's fused listing,
/// joined with their launch task, break info, queues and timing.
fn build_sks(
    model: &mut AclModel,
    fused: Vec<logs::SkFunction>,
    fail: Option<&logs::FailReasons>,
    launches: &[Task],
    queues: Vec<ScopeQueues>,
    problems: &mut Vec<Problem>,
) {
    let fused_scopes: HashMap<u64, &logs::FusedScope> = fail
        .map(|f| f.fused.iter().map(|s| (s.scope_id, s)).collect())
        .unwrap_or_default();
    let listed: Vec<(u64, String, Vec<u64>)> = if !fused.is_empty() {
        fused
            .into_iter()
            .map(|f| (f.scope_id, f.name, f.node_ids))
            .collect()
    } else {
        fail.map(|f| {
            f.fused
                .iter()
                .map(|s| (s.scope_id, format!("sk_{}", s.scope_id), s.node_ids.clone()))
                .collect()
        })
        .unwrap_or_default()
    };
    let single_root_queue = queues.len() == 1 && queues[0].scope_id.is_none();
    for (scope_id, name, node_ids) in listed {
        let mut tasks = Vec::with_capacity(node_ids.len());
        for id in &node_ids {
            match model.task_index(*id) {
                Some(i) => tasks.push(i),
                None => problems.push(problem(
                    &model.dir.join(layout::FUSED_NODES),
                    format!("{name} lists task {id}, which the graph file does not have"),
                )),
            }
        }
        if let Some(scope) = fused_scopes.get(&scope_id) {
            let mut a = scope.node_ids.clone();
            let mut b = node_ids.clone();
            a.sort_unstable();
            b.sort_unstable();
            if a != b {
                problems.push(problem(
                    &model.dir.join(layout::FAIL_REASONS),
                    format!(
                        "SuperKernel {scope_id}: fusedNodeIds has {} task(s), {} lists {}; \
                         skope shows the latter",
                        a.len(),
                        layout::FUSED_NODES,
                        b.len()
                    ),
                ));
            }
        }
        let launch = launches.iter().find(|t| {
            t.sk.as_ref()
                .is_some_and(|s| u64::from(s.scope_id) == scope_id)
        });
        model.sks.push(SuperKernel {
            scope_id,
            name,
            tasks,
            launch: launch.and_then(|t| model.task_index(t.node_id)),
            entry: launch.and_then(|t| t.func_name.clone()),
            break_info: fused_scopes
                .get(&scope_id)
                .and_then(|s| s.break_info.clone()),
            queues: queues
                .iter()
                .find(|q| q.scope_id == Some(scope_id))
                .or(single_root_queue.then(|| &queues[0]))
                .cloned(),
            time: model
                .timings
                .iter()
                .find(|t| t.sk_id == scope_id && t.position.is_none())
                .cloned(),
        });
    }
    for t in launches {
        let Some(sk) = &t.sk else { continue };
        if !model
            .sks
            .iter()
            .any(|s| s.scope_id == u64::from(sk.scope_id))
        {
            problems.push(problem(
                &model.dir.join(layout::GRAPH_UPDATED),
                format!(
                    "task {} launches SuperKernel {} (skinfos), which no SuperKernel listing has",
                    t.node_id, sk.scope_id
                ),
            ));
        }
    }
}

/// Break info of the split log for SuperKernels the fail-reasons log gave none.
fn attach_split_breaks(model: &mut AclModel, scopes: &[logs::SplitScope]) {
    for sk in &mut model.sks {
        if sk.break_info.is_some() {
            continue;
        }
        let found = scopes
            .iter()
            .find(|s| s.scope_id == Some(sk.scope_id))
            .and_then(|s| s.break_info.clone())
            .filter(|b| b.reason != "NONE");
        sk.break_info = found;
    }
}

/// The device queue's graph tasks, checked against the graph file.
fn check_device_args(model: &AclModel, tasks: &[logs::DeviceTask], problems: &mut Vec<Problem>) {
    let unknown = tasks
        .iter()
        .filter_map(|t| t.node_id)
        .filter(|&id| model.task_index(id).is_none())
        .count();
    if unknown > 0 {
        problems.push(problem(
            &model.dir.join(layout::DEVICE_ARGS),
            format!("{unknown} queue task(s) name graph tasks the graph file does not have"),
        ));
    }
}

/// Each task's status: fused, listed unfusible, a marker, or not fused with what that means.
fn mark_tasks(
    model: &mut AclModel,
    fail: Option<&logs::FailReasons>,
    detail: Option<&[logs::NodeDetail]>,
) {
    for (k, sk) in model.sks.iter().enumerate() {
        for &i in &sk.tasks {
            model.status[i] = TaskStatus::Fused(k);
        }
    }
    let listed: HashMap<u64, &logs::Unfusible> = fail
        .map(|f| f.unfusible.iter().map(|u| (u.node_id, u)).collect())
        .unwrap_or_default();
    let detail: HashMap<u64, &logs::NodeDetail> = detail
        .map(|d| d.iter().map(|n| (n.node_id, n)).collect())
        .unwrap_or_default();
    for i in 0..model.tasks.len() {
        if matches!(model.status[i], TaskStatus::Fused(_)) {
            continue;
        }
        let task = &model.tasks[i];
        if task.marker.is_some() {
            model.status[i] = TaskStatus::Marker;
            continue;
        }
        if let Some(u) = listed.get(&task.node_id) {
            model.status[i] = TaskStatus::Unfusible {
                reason: u.reason.clone(),
                sub: u.sub.clone(),
                detail: u.detail.clone(),
            };
            continue;
        }
        let tagged = detail.get(&task.node_id).map(|d| d.fusible);
        let m = &model.memberships[i];
        let why = if m.excluded {
            "inside an unnamed scope (IN_UNFUSIBLE_SCOPE; the log lists only kernels)".to_string()
        } else if !model.scope_names.is_empty() && m.bits.is_empty() && task.node_type.is_sync() {
            "a sync task outside every named scope".to_string()
        } else if task.node_type.is_sync() {
            match tagged {
                Some(false) => "a sync task left unfusible by policy (its reason reads \
                                CAN_FUSE: sync and default tasks are only counted, not listed)"
                    .to_string(),
                _ => "a sync task not kept: events whose notify and wait are both inside a \
                      SuperKernel are cancelled (inferred)"
                    .to_string(),
            }
        } else if task.node_type == NodeType::Default {
            "a default (non-kernel) task: unfusible unless task_breaker_bypass is set".to_string()
        } else if fail.is_none() {
            format!(
                "in no SuperKernel; {} is missing, so why is not known",
                layout::FAIL_REASONS
            )
        } else {
            "fusible but in no SuperKernel: the deadlock check (EXIST_DEADLOCK is not listed), \
             a scope with no kernel or without free task slots (inferred)"
                .to_string()
        };
        model.status[i] = TaskStatus::NotFused { why };
    }
}
