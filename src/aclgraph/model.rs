//! One model's result of the aclgraph pass, put together from its files: the tasks per stream,
//! the scopes the markers make, the SuperKernels that were built, and for every task whether it
//! was fused and, if not, why — with the file each fact comes from. Files that are missing or
//! unreadable make it poorer, never wrong: each is listed with what it would have shown.

use super::device::{self, ScopeQueues, Timing};
use super::from_logs::{self, Logs, ScopeSource};
use super::graph_json::{self, NodeType, Task};
use super::layout::{self, KnownFile};
use super::logs::{self, BreakInfo};
pub use super::scopes::{MAX_SCOPE_NAMES, Membership, OUTSIDE, memberships};
use crate::file_error::FileError;
use crate::target::{Target, TargetChoice};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What to do when a graph file cannot be read.
const GRAPH_HINT: &str = "pass the model directory the pass wrote with \
                          ASCEND_OP_COMPILE_SAVE_KERNEL_META=1 (sk_meta/<pid>/model_*), or one \
                          of its files";

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

/// Where a SuperKernel's tasks are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `sk_fused_nodes.log`: the SuperKernel and every task, in order.
    FusedNodes,
    /// The fused listing of `sk_fusion_fail_reasons.log` (`fusedNodeIds`).
    FailReasons,
    /// The updated graph's `skinfos` only: the tasks from its first to its last kernel are
    /// inferred.
    Skinfos,
}

impl Listing {
    /// Where it comes from, in words.
    pub fn words(self) -> &'static str {
        match self {
            Listing::FusedNodes => layout::FUSED_NODES,
            Listing::FailReasons => layout::FAIL_REASONS,
            Listing::Skinfos => {
                "sk_graph_updated.json's skinfos (tasks from its start to its end kernel, \
                 inferred)"
            }
        }
    }
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
    /// Where its tasks are listed.
    pub listing: Listing,
    /// The node count its header states when that is not the number of node lines read: its
    /// listing is then not trusted (reference §9.3).
    pub untrusted: Option<u64>,
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
    /// Result blocks of `sk_scope_split.log`, and how many of them differ.
    pub split_snapshots: Option<(usize, usize)>,
    /// Where the scopes come from when no graph file has the markers' names.
    pub scope_source: Option<ScopeSource>,
    /// How the per-op debug mode (one SuperKernel per kernel) is known, when it is on.
    pub per_op_mode: Option<String>,
    /// What the logs hold, counted as the SuperKernel team's own parser counts it.
    pub log_counts: LogCounts,
    /// The hardware: recorded by the marker kernels' names (`…_dav_3510`), else as chosen.
    pub target: TargetChoice,
}

/// What the logs hold, counted as the SuperKernel team's parser counts it (reference §9.3), so
/// the two can be held side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LogCounts {
    /// `SK Function:` headers of `sk_fused_nodes.log`.
    pub superkernels: usize,
    /// Node lines under them.
    pub nodes: usize,
    /// Scopes of the split log's final block.
    pub scopes: usize,
    /// Their breaks (a `BreakInfo` other than `NONE`).
    pub breaks: usize,
    /// SuperKernels whose stated node count is not their node lines'.
    pub untrusted: usize,
}

impl LogCounts {
    fn of(logs: &Logs) -> LogCounts {
        let split = logs.split.as_ref().map(|s| &s.scopes[..]).unwrap_or(&[]);
        LogCounts {
            superkernels: logs.fused.len(),
            nodes: logs.fused.iter().map(|f| f.node_ids.len()).sum(),
            scopes: split.len(),
            breaks: split
                .iter()
                .filter(|s| s.break_info.as_ref().is_some_and(|b| b.reason != "NONE"))
                .count(),
            untrusted: logs.fused.iter().filter(|f| f.untrusted()).count(),
        }
    }
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
        let target = graph
            .tasks
            .iter()
            .find_map(|t| Target::of_marker(t.func_name.as_deref()?))
            .map(|t| TargetChoice::recorded(t, format!("{graph_file}'s marker kernels")))
            .unwrap_or_default();
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
            split_snapshots: None,
            scope_source: None,
            per_op_mode: None,
            log_counts: LogCounts::default(),
            target,
        }
    }

    /// The index of the task with `node_id`.
    pub fn task_index(&self, node_id: u64) -> Option<usize> {
        self.tasks
            .binary_search_by_key(&node_id, |t| t.node_id)
            .ok()
    }

    /// True when SuperKernel `k`'s cut is a break of its scope: the next SuperKernel comes from
    /// the same marker (the pass split the marker there). A trigger after a marker's last
    /// fragment is diagnostic only — it is outside the marker — in the SuperKernel team's
    /// attribution rule (superkernel_ops_2026.md §1.4).
    pub fn cut_is_the_scopes(&self, k: usize) -> bool {
        let marker = |sk: &SuperKernel| {
            let first = sk.tasks.iter().min_by_key(|&&i| self.tasks[i].node_id)?;
            Some(self.scope_label(self.memberships.get(*first)?))
        };
        match (self.sks.get(k), self.sks.get(k + 1)) {
            (Some(sk), Some(next)) => marker(sk).is_some_and(|m| marker(next) == Some(m)),
            _ => false,
        }
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

/// Reads the model directory `dir`: its graph file for the tasks, else the logs' node lines
/// (tasks then known by node id and stream, with what the logs print of them).
pub fn read(dir: &Path) -> Result<AclModel, FileError> {
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    let mut read = Vec::new();
    let origin = dir.join(layout::GRAPH_ORIGIN);
    let updated = dir.join(layout::GRAPH_UPDATED);
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
    let mut logs = Logs::default();
    if let Some(t) = text_of(layout::FUSED_NODES, &mut missing, &mut problems) {
        read.push(layout::FUSED_NODES);
        logs.fused = logs::fused_nodes(&t);
    }
    logs.fail = text_of(layout::FAIL_REASONS, &mut missing, &mut problems).map(|t| {
        read.push(layout::FAIL_REASONS);
        logs::fail_reasons(&t)
    });
    logs.split = text_of(layout::SCOPE_SPLIT, &mut missing, &mut problems).map(|t| {
        read.push(layout::SCOPE_SPLIT);
        logs::scope_split(&t)
    });
    logs.detail = text_of(layout::NODE_DETAIL, &mut missing, &mut problems).map(|t| {
        read.push(layout::NODE_DETAIL);
        logs::node_detail(&t)
    });
    let (graph_file, graph) = if origin.is_file() {
        (layout::GRAPH_ORIGIN, read_graph(&origin)?)
    } else if updated.is_file() {
        (layout::GRAPH_UPDATED, read_graph(&updated)?)
    } else {
        match from_logs::graph(dir, &logs) {
            Some(graph) => (layout::LOGS_ONLY, graph),
            None => {
                return Err(FileError::at(
                    dir,
                    "",
                    None,
                    format!(
                        "neither {} nor {} is here, and no log names a task: skope needs one \
                         of them for the tasks",
                        layout::GRAPH_ORIGIN,
                        layout::GRAPH_UPDATED
                    ),
                    GRAPH_HINT,
                ));
            }
        }
    };
    if graph_file != layout::LOGS_ONLY {
        read.insert(0, graph_file);
    }
    // The updated graph adds which task launches each SuperKernel (and is the pass's own
    // record of what it built).
    let launches: Vec<Task> = if graph_file == layout::GRAPH_ORIGIN && updated.is_file() {
        match read_graph(&updated) {
            Ok(g) => {
                read.insert(1, layout::GRAPH_UPDATED);
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
    if graph_file == layout::LOGS_ONLY
        && let Some((source, names, memberships)) = from_logs::scopes(&model.tasks, &logs)
    {
        from_logs::name_markers(&mut model.tasks, &names, &memberships);
        model.scope_names = names;
        model.memberships = memberships;
        model.scope_source = Some(source);
    }
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
    for sk in logs.fused.iter().filter(|f| f.untrusted()) {
        problems.push(problem(
            &dir.join(layout::FUSED_NODES),
            format!(
                "line {}: {} states Node Count {} but {} node line(s) follow: its listing is \
                 not trusted",
                sk.line,
                sk.name,
                sk.stated.unwrap_or_default(),
                sk.node_ids.len()
            ),
        ));
    }
    model.log_counts = LogCounts::of(&logs);
    // The graph file does not say a kernel's schedule mode; the logs' kernel lines do
    // (`isScheModeOn`), sk_node_detail.log for every task, sk_fused_nodes.log for the fused.
    let printed = logs
        .detail
        .iter()
        .flatten()
        .map(|d| (d.node_id, d.sche_mode))
        .chain(
            logs.fused
                .iter()
                .flat_map(|f| &f.nodes)
                .map(|n| (n.node_id, n.sche_mode)),
        );
    for (node_id, sche_mode) in printed {
        if let (Some(i), Some(on)) = (model.task_index(node_id), sche_mode)
            && model.tasks[i].sche_mode.is_none()
        {
            model.tasks[i].sche_mode = Some(on);
        }
    }
    build_sks(
        &mut model,
        std::mem::take(&mut logs.fused),
        logs.fail.as_ref(),
        &launches,
        queues,
        &mut problems,
    );
    if let Some(split) = &logs.split {
        attach_split_breaks(&mut model, &split.scopes);
        model.split_snapshots = Some((split.snapshots, split.unique));
    }
    for sk in &mut model.sks {
        if let Some(b) = &mut sk.break_info {
            name_break(b);
        }
    }
    model.per_op_mode = per_op_mode(&model, logs.fail.as_ref());
    mark_tasks(&mut model, logs.fail.as_ref(), logs.detail.as_deref());
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
    let listed: Vec<Listed> = if !fused.is_empty() {
        fused
            .into_iter()
            .map(|f| Listed {
                untrusted: f.stated.filter(|_| f.untrusted()),
                scope_id: f.scope_id,
                name: f.name,
                node_ids: f.node_ids,
                listing: Listing::FusedNodes,
            })
            .collect()
    } else if let Some(f) = fail.filter(|f| !f.fused.is_empty()) {
        f.fused
            .iter()
            .map(|s| Listed {
                scope_id: s.scope_id,
                name: format!("sk_{}", s.scope_id),
                node_ids: s.node_ids.clone(),
                listing: Listing::FailReasons,
                untrusted: None,
            })
            .collect()
    } else {
        launches
            .iter()
            .filter_map(|t| listed_by_skinfos(model, t, problems))
            .collect()
    };
    let single_root_queue = queues.len() == 1 && queues[0].scope_id.is_none();
    for Listed {
        scope_id,
        name,
        node_ids,
        listing,
        untrusted,
    } in listed
    {
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
        if let Some(scope) = fused_scopes.get(&scope_id)
            && listing == Listing::FusedNodes
        {
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
        if let Some(info) = launch.and_then(|t| t.sk.as_ref())
            && listing != Listing::Skinfos
        {
            check_ends(model, &name, &tasks, info, problems);
        }
        model.sks.push(SuperKernel {
            scope_id,
            name,
            tasks,
            listing,
            untrusted,
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
                .find(|t| t.sk_id == scope_id && t.sub_op.is_none())
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

/// A SuperKernel as a listing gives it.
struct Listed {
    scope_id: u64,
    name: String,
    node_ids: Vec<u64>,
    listing: Listing,
    untrusted: Option<u64>,
}

/// True for the kernels a SuperKernel's launch runs in place of its sub-ops.
fn is_entry(func: &str) -> bool {
    func.starts_with("sk_entry_") || func.starts_with("sk_constant_entry_")
}

/// The SuperKernel `launch` starts by its `skinfos` alone: the kernels of its scope from the
/// first named `startKernelFuncName` to the next named `endKernelFuncName` (inferred: the
/// pass records only the two ends).
fn listed_by_skinfos(
    model: &AclModel,
    launch: &Task,
    problems: &mut Vec<Problem>,
) -> Option<Listed> {
    let info = launch.sk.as_ref()?;
    let scope = info.scope_name.as_deref();
    let bit = scope.and_then(|n| model.scope_names.iter().position(|x| x == n));
    let in_scope = |i: usize| match bit {
        Some(b) => model.memberships[i].bits.contains(&(b as u16)),
        None => true,
    };
    let kernels: Vec<usize> = (0..model.tasks.len())
        .filter(|&i| {
            let t = &model.tasks[i];
            t.node_type == NodeType::Kernel
                && t.marker.is_none()
                && !t.func_name.as_deref().is_some_and(is_entry)
                && in_scope(i)
        })
        .collect();
    let named = |i: &usize, f: &Option<String>| model.tasks[*i].func_name == *f;
    let first = kernels.iter().position(|i| named(i, &info.start));
    let last = first.and_then(|a| {
        kernels[a..]
            .iter()
            .position(|i| named(i, &info.end))
            .map(|k| a + k)
    });
    let node_ids = match (first, last) {
        (Some(a), Some(z)) => kernels[a..=z]
            .iter()
            .map(|&i| model.tasks[i].node_id)
            .collect(),
        _ => {
            problems.push(problem(
                &model.dir.join(layout::GRAPH_UPDATED),
                format!(
                    "task {} launches SuperKernel {} from {} to {} (skinfos), kernels the \
                     graph's scope does not have in that order: its tasks are not known",
                    launch.node_id,
                    info.scope_id,
                    info.start.as_deref().unwrap_or("?"),
                    info.end.as_deref().unwrap_or("?")
                ),
            ));
            Vec::new()
        }
    };
    Some(Listed {
        scope_id: u64::from(info.scope_id),
        name: format!(
            "sk_{}_{}_start_{}_end_{}",
            info.scope_id,
            scope.unwrap_or("none"),
            info.start.as_deref().unwrap_or("?"),
            info.end.as_deref().unwrap_or("?")
        ),
        node_ids,
        listing: Listing::Skinfos,
        untrusted: None,
    })
}

/// A listed SuperKernel's first and last kernels, held against its launch's `skinfos`.
fn check_ends(
    model: &AclModel,
    name: &str,
    tasks: &[usize],
    info: &graph_json::SkInfo,
    problems: &mut Vec<Problem>,
) {
    let kernels: Vec<&Option<String>> = tasks
        .iter()
        .map(|&i| &model.tasks[i])
        .filter(|t| t.node_type == NodeType::Kernel)
        .map(|t| &t.func_name)
        .collect();
    let (Some(&first), Some(&last)) = (kernels.first(), kernels.last()) else {
        return;
    };
    for (side, listed, said) in [("start", first, &info.start), ("end", last, &info.end)] {
        if said.is_some() && listed.is_some() && said != listed {
            problems.push(problem(
                &model.dir.join(layout::GRAPH_UPDATED),
                format!(
                    "{name}: skinfos says it {side}s with {}, its listing with {}",
                    said.as_deref().unwrap_or_default(),
                    listed.as_deref().unwrap_or_default()
                ),
            ));
        }
    }
}

/// A break's reason by name ([`super::reasons::name`]): free text read as its key (the words
/// kept as the detail when there is none), a number kept as a number.
fn name_break(b: &mut BreakInfo) {
    let named = super::reasons::name(&b.reason);
    if let super::reasons::Named::FromText { text, .. } = &named
        && b.detail.is_none()
    {
        b.detail = Some(text.clone());
    }
    b.reason = named.key();
}

/// How the per-op debug mode is known to be on, if it is: the option in the graph file, the
/// fused listing's flag, or every SuperKernel holding one kernel (inferred).
fn per_op_mode(model: &AclModel, fail: Option<&logs::FailReasons>) -> Option<String> {
    let option = model
        .options
        .iter()
        .find(|(k, _)| k == "debug_per_op_max_core_num")
        .filter(|(_, v)| v.trim_matches('"') == "1");
    if option.is_some() {
        return Some("debug_per_op_max_core_num=1 in the graph file's options".to_string());
    }
    if fail.and_then(|f| f.per_op_mode) == Some(true) {
        return Some(format!(
            "{} says DEBUG_PER_OP_MAX_CORE=true",
            layout::FAIL_REASONS
        ));
    }
    let kernels = |sk: &SuperKernel| {
        sk.tasks
            .iter()
            .filter(|&&i| model.tasks[i].node_type == NodeType::Kernel)
            .count()
    };
    let one_each = model.sks.len() >= 2 && model.sks.iter().all(|sk| kernels(sk) == 1);
    one_each.then(|| {
        format!(
            "every one of the {} SuperKernels holds one kernel (inferred)",
            model.sks.len()
        )
    })
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
            let named = super::reasons::name(&u.reason);
            let detail = match &named {
                super::reasons::Named::FromText { text, .. } if u.detail.is_empty() => text.clone(),
                _ => u.detail.clone(),
            };
            model.status[i] = TaskStatus::Unfusible {
                reason: named.key(),
                sub: u.sub.clone(),
                detail,
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
        } else if task.node_type == NodeType::Unknown {
            "known only by its node id: the logs list it without its kind".to_string()
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
