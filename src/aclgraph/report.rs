//! An aclgraph model's result in words (`skope report` / `skope info` on the pass's output):
//! per scope, the SuperKernels built with where and why each was cut, and every kernel that
//! was not fused with its reason in a user's words; then what is missing and what disagrees.

use super::graph_json::NodeType;
use super::model::{AclModel, TaskStatus};
use super::predict;
use super::reasons;
use crate::text::sanitize;
use serde::Serialize;

/// A task as the report names it.
#[derive(Debug, Clone, Serialize)]
pub struct TaskRef {
    /// `nodeId`.
    pub node_id: u64,
    /// Function name, or the task type for non-kernels.
    pub name: String,
    /// Stream index in the graph.
    pub stream: u32,
    /// The runtime stream id, when known.
    pub stream_id: Option<i64>,
    /// A kernel's type (`AIV_ONLY`…), when known.
    pub kernel_type: Option<String>,
    /// A kernel's block count, when known.
    pub blocks: Option<u64>,
    /// A kernel's task ratio (cube, vector), when known.
    pub task_ratio: Option<(u64, u64)>,
}

impl TaskRef {
    /// `task 2 RmsNorm_aa11 · stream 0 (id 2) · AIV_ONLY × 40 · ratio 0:1`, with what is known.
    fn words(&self) -> String {
        let mut out = format!(
            "task {} {} · stream {}",
            self.node_id, self.name, self.stream
        );
        if let Some(id) = self.stream_id {
            out.push_str(&format!(" (id {id})"));
        }
        if let Some(t) = &self.kernel_type {
            out.push_str(&format!(" · {t}"));
        }
        if let Some(b) = self.blocks {
            out.push_str(&format!(" × {b}"));
        }
        if let Some((c, v)) = self.task_ratio {
            out.push_str(&format!(" · ratio {c}:{v}"));
        }
        out
    }
}

/// Why a scope was cut.
#[derive(Debug, Clone, Serialize)]
pub struct BreakText {
    /// `ScopeBreakReason`.
    pub reason: String,
    /// What it means.
    pub meaning: String,
    /// The task that cut it.
    pub trigger: Option<TaskRef>,
    /// The pass's detail.
    pub detail: Option<String>,
    /// What to do: the trigger task's own fail reason's next step when an unfusible task cut
    /// the scope, else the break reason's.
    pub fix: String,
    /// True when the cut came after its marker's last fragment: diagnostic only, not a break
    /// of the scope ([`AclModel::cut_is_the_scopes`]).
    pub diagnostic_only: bool,
}

/// A SuperKernel in the report.
#[derive(Debug, Clone, Serialize)]
pub struct SkText {
    /// Its scope id.
    pub scope_id: u64,
    /// Its name.
    pub name: String,
    /// Its tasks.
    pub tasks: Vec<TaskRef>,
    /// Where its tasks are listed.
    pub listing: &'static str,
    /// Why its listing is not trusted, when it is not.
    pub untrusted: Option<String>,
    /// The entry kernel it runs.
    pub entry: Option<String>,
    /// The task that launches it.
    pub launch: Option<u64>,
    /// Why it was cut from its scope.
    #[serde(rename = "break")]
    pub break_text: Option<BreakText>,
    /// Its cube and vector task queues: blocks, sub-kernel calls and tasks by type.
    pub queues: Option<QueuesText>,
    /// Mean whole-SuperKernel time, µs.
    pub time_us: Option<f64>,
}

/// A SuperKernel's task queues, as `sk_task_queue.json` has them.
#[derive(Debug, Clone, Serialize)]
pub struct QueuesText {
    /// The cube queue.
    pub aic: QueueText,
    /// The vector queue.
    pub aiv: QueueText,
}

/// One task queue.
#[derive(Debug, Clone, Serialize)]
pub struct QueueText {
    /// `numBlocks`.
    pub blocks: u64,
    /// Sub-kernel calls.
    pub funcs: u64,
    /// Tasks by type (`FUNC`, `SYNC`, `PRELOAD`, `EVENT_*`), in first-seen order.
    pub tasks: Vec<(String, u64)>,
}

impl QueueText {
    fn of(q: &super::device::Queue) -> QueueText {
        QueueText {
            blocks: q.num_blocks,
            funcs: q.funcs,
            tasks: q.by_type.clone(),
        }
    }

    fn words(&self) -> String {
        let tasks: Vec<String> = self.tasks.iter().map(|(k, n)| format!("{n} {k}")).collect();
        if tasks.is_empty() {
            return "empty".to_string();
        }
        format!("{} blocks, {}", self.blocks, tasks.join(", "))
    }
}

/// A task that was not fused, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Unfused {
    /// The task.
    pub task: TaskRef,
    /// The pass's reason key, when it listed one.
    pub reason: Option<String>,
    /// Its sub-reason.
    pub sub: Option<String>,
    /// What it means.
    pub meaning: String,
    /// What to do.
    pub action: String,
    /// Where the reason comes from: `sk_fusion_fail_reasons.log`, or `inferred`.
    pub evidence: &'static str,
}

/// One scope (or the tasks outside every scope) in the report.
#[derive(Debug, Clone, Serialize)]
pub struct ScopeText {
    /// Its name(s), `none` when the graph has no named scope (the whole graph is one region).
    pub name: String,
    /// Kernels in it.
    pub kernels: usize,
    /// SuperKernels built from it.
    pub superkernel_count: usize,
    /// Its kernels not fused.
    pub unfused_count: usize,
    /// The SuperKernels built from it (left out of a summary).
    pub superkernels: Vec<SkText>,
    /// Its kernels that were not fused (left out of a summary).
    pub unfused: Vec<Unfused>,
}

/// The report.
#[derive(Debug, Clone, Serialize)]
pub struct AclReport {
    /// `aclgraph`.
    pub path: &'static str,
    /// The model directory.
    pub model_dir: String,
    /// `modelId`.
    pub model_id: Option<String>,
    /// `deviceId`.
    pub device_id: Option<i64>,
    /// Files read.
    pub read: Vec<&'static str>,
    /// Where the tasks come from: a graph file, or the logs' node lines.
    pub tasks_from: &'static str,
    /// Where the scopes come from when no graph file has the markers' names.
    pub scopes_from: Option<&'static str>,
    /// Result blocks of `sk_scope_split.log`: as written, and the different ones.
    pub split_snapshots: Option<Snapshots>,
    /// How the per-op debug mode is known to be on, when it is.
    pub per_op_mode: Option<String>,
    /// The logs counted as the SuperKernel team's parser counts them.
    pub log_counts: super::model::LogCounts,
    /// The hardware, and how skope knows it.
    pub target: crate::target::TargetChoice,
    /// Files missing, with what they would have shown.
    pub missing: Vec<(String, String)>,
    /// Options the pass ran with.
    pub options: Vec<(String, String)>,
    /// Those options checked against the option table: what each extension key does, what the
    /// pass ignores, what torch_npu would reject.
    pub option_notes: Vec<String>,
    /// Kernels carrying each capability bit skope knows (`BLOCKDIM_SCALE_UP`…).
    pub capabilities: Vec<(String, usize)>,
    /// Task counts: kernels, sync, default, markers, known by id only.
    pub tasks: [usize; 5],
    /// Streams.
    pub streams: u32,
    /// Scopes in order of their first task.
    pub scopes: Vec<ScopeText>,
    /// Sync and default tasks not fused, grouped by why.
    pub other_tasks: Vec<(String, usize)>,
    /// Files that could not be used, and disagreements between files.
    pub problems: Vec<String>,
    /// Other model directories found beside this one.
    pub other_models: Vec<String>,
    /// skope's prediction from the graph file and options, held against what the pass built.
    pub prediction: PredictionText,
    /// True for a summary: each scope's counts without its lists.
    #[serde(skip)]
    pub summary_only: bool,
}

/// Result blocks of the split log.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Snapshots {
    /// As written (the pass writes them again and again).
    pub raw: usize,
    /// The different ones.
    pub unique: usize,
}

/// What the per-op debug mode does, said wherever it is on.
pub const PER_OP_MODE: &str = "per-op debug mode: every SuperKernel holds one kernel on all \
                               cores — a debug setting that removes the benefit of fusion; \
                               turn debug_per_op_max_core_num off to measure SuperKernels";

/// The prediction's agreement with the pass.
#[derive(Debug, Clone, Serialize)]
pub struct PredictionText {
    /// SuperKernels predicted with exactly the kernels of one the pass built.
    pub matched: usize,
    /// SuperKernels the pass built.
    pub actual: usize,
    /// SuperKernels predicted.
    pub predicted: usize,
    /// The differences, in words.
    pub differences: Vec<String>,
    /// What the prediction does not model.
    pub not_modelled: &'static str,
}

fn task_ref(model: &AclModel, i: usize) -> TaskRef {
    let t = &model.tasks[i];
    TaskRef {
        node_id: t.node_id,
        name: t
            .func_name
            .clone()
            .unwrap_or_else(|| t.node_type.name().to_string()),
        stream: t.stream,
        stream_id: t.runtime_stream,
        kernel_type: t.kernel_type.clone(),
        blocks: t.num_blocks,
        task_ratio: t.task_ratio,
    }
}

impl AclReport {
    /// The report of `model`; `others` are model directories found beside it.
    pub fn new(model: &AclModel, others: &[std::path::PathBuf]) -> AclReport {
        let mut scopes: Vec<ScopeText> = Vec::new();
        let scope_at = |name: String, scopes: &mut Vec<ScopeText>| -> usize {
            match scopes.iter().position(|s| s.name == name) {
                Some(i) => i,
                None => {
                    scopes.push(ScopeText {
                        name,
                        kernels: 0,
                        superkernel_count: 0,
                        unfused_count: 0,
                        superkernels: Vec::new(),
                        unfused: Vec::new(),
                    });
                    scopes.len() - 1
                }
            }
        };
        let mut other: Vec<(String, usize)> = Vec::new();
        let mut counts = [0usize; 5];
        let mut sk_done = vec![false; model.sks.len()];
        for (i, task) in model.tasks.iter().enumerate() {
            let kind = if task.marker.is_some() {
                3
            } else {
                match task.node_type {
                    NodeType::Kernel => 0,
                    NodeType::Default => 2,
                    NodeType::Unknown => 4,
                    _ => 1,
                }
            };
            counts[kind] += 1;
            if kind == 3 {
                continue;
            }
            let scope = scope_at(model.scope_label(&model.memberships[i]), &mut scopes);
            if kind == 0 {
                scopes[scope].kernels += 1;
            }
            match &model.status[i] {
                TaskStatus::Fused(k) if !sk_done[*k] => {
                    sk_done[*k] = true;
                    scopes[scope].superkernels.push(sk_text(model, *k));
                }
                TaskStatus::Unfusible {
                    reason,
                    sub,
                    detail: _,
                } => {
                    let text = reasons::fail_reason(reason);
                    scopes[scope].unfused.push(Unfused {
                        task: task_ref(model, i),
                        reason: Some(reason.clone()),
                        sub: sub.clone(),
                        meaning: reasons::describe(reason, sub.as_deref()),
                        action: text.map(|t| t.action.to_string()).unwrap_or_default(),
                        evidence: super::layout::FAIL_REASONS,
                    });
                }
                TaskStatus::NotFused { why } if kind == 0 => {
                    scopes[scope].unfused.push(Unfused {
                        task: task_ref(model, i),
                        reason: None,
                        sub: None,
                        meaning: why.clone(),
                        action: String::new(),
                        evidence: "inferred",
                    });
                }
                TaskStatus::NotFused { why } => match other.iter_mut().find(|(w, _)| w == why) {
                    Some((_, n)) => *n += 1,
                    None => other.push((why.clone(), 1)),
                },
                _ => {}
            }
        }
        // Tasks outside every named scope come last.
        scopes.sort_by_key(|s| s.name == super::model::OUTSIDE);
        for s in &mut scopes {
            s.superkernel_count = s.superkernels.len();
            s.unfused_count = s.unfused.len();
        }
        AclReport {
            path: "aclgraph",
            model_dir: model.dir.display().to_string(),
            model_id: model.model_id.clone(),
            device_id: model.device_id,
            read: model.read.clone(),
            tasks_from: model.graph_file,
            scopes_from: model.scope_source.map(|s| s.words()),
            split_snapshots: model
                .split_snapshots
                .map(|(raw, unique)| Snapshots { raw, unique }),
            per_op_mode: model.per_op_mode.clone(),
            log_counts: model.log_counts,
            target: model.target.clone(),
            missing: model
                .missing
                .iter()
                .map(|f| (f.name.to_string(), f.shows.to_string()))
                .collect(),
            options: model.options.clone(),
            option_notes: super::options::check(&super::options::from_model(&model.options))
                .diagnostics
                .into_iter()
                .map(|d| d.message)
                .chain(super::options::forced_on(model.target.target))
                .collect(),
            capabilities: capabilities(model),
            tasks: counts,
            streams: model.streams,
            scopes,
            other_tasks: other,
            problems: model
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.file.display(), p.message))
                .collect(),
            other_models: others.iter().map(|p| p.display().to_string()).collect(),
            prediction: {
                let check = predict::check(model, &predict::predict(model));
                PredictionText {
                    matched: check.matched,
                    actual: check.actual,
                    predicted: check.predicted,
                    differences: check.differences,
                    not_modelled: predict::NOT_MODELLED,
                }
            },
            summary_only: false,
        }
    }

    /// The report in short: each scope's counts, without its SuperKernels' and kernels' lists.
    pub fn summary(&self) -> AclReport {
        let mut short = self.clone();
        short.summary_only = true;
        for s in &mut short.scopes {
            s.superkernels.clear();
            s.unfused.clear();
        }
        short
    }

    /// The report as text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&sanitize(&s));
            out.push('\n');
        };
        line(format!(
            "aclgraph SuperKernel pass · model {} · device {} · {}",
            self.model_id.as_deref().unwrap_or("?"),
            self.device_id.map_or("?".to_string(), |d| d.to_string()),
            self.model_dir
        ));
        if let Some(how) = &self.per_op_mode {
            line(format!("! {PER_OP_MODE} ({how})"));
        }
        line(format!("target: {}", self.target.words()));
        let [kernels, sync, default, markers, unknown] = self.tasks;
        let unknown = if unknown > 0 {
            format!(", {unknown} known by node id only")
        } else {
            String::new()
        };
        line(format!(
            "{} tasks on {} stream(s): {kernels} kernels, {sync} sync, {default} default, \
             {markers} scope markers{unknown} (from {})",
            self.tasks.iter().sum::<usize>(),
            self.streams,
            self.tasks_from
        ));
        if let Some(from) = self.scopes_from {
            line(from.to_string());
        }
        let c = &self.log_counts;
        if c.superkernels + c.scopes > 0 {
            let snapshots = self.split_snapshots.map_or(String::new(), |s| {
                format!(
                    " (split log: {} result block(s) written, {} different; the last shown)",
                    s.raw, s.unique
                )
            });
            line(format!(
                "logs: {} SuperKernel(s) with {} node line(s){}; {} scope(s), {} break(s) after \
                 the split{snapshots}",
                c.superkernels,
                c.nodes,
                if c.untrusted > 0 {
                    format!(", {} untrusted", c.untrusted)
                } else {
                    String::new()
                },
                c.scopes,
                c.breaks
            ));
        }
        if !self.options.is_empty() {
            let opts: Vec<String> = self
                .options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            line(format!("options: {}", opts.join(" ")));
        }
        for note in &self.option_notes {
            line(format!("  {note}"));
        }
        for (name, n) in &self.capabilities {
            let meaning = super::graph_json::CAPABILITIES
                .iter()
                .find(|(_, key, _)| key == name)
                .map_or("", |(_, _, m)| m);
            line(format!("{n} kernel(s) carry capability {name}: {meaning}"));
        }
        let built: usize = self.scopes.iter().map(|s| s.superkernel_count).sum();
        let unfused: usize = self.scopes.iter().map(|s| s.unfused_count).sum();
        line(format!(
            "{built} SuperKernel(s) built; {unfused} kernel(s) not fused"
        ));
        if self.summary_only {
            line(String::new());
        }
        for scope in &self.scopes {
            let head = match scope.name.as_str() {
                super::model::OUTSIDE => "outside every named scope".to_string(),
                name => format!("scope {name}"),
            };
            if self.summary_only {
                line(format!(
                    "{head} · {} kernel(s) · {} SuperKernel(s) · {} not fused",
                    scope.kernels, scope.superkernel_count, scope.unfused_count
                ));
                continue;
            }
            line(String::new());
            line(format!("{head} · {} kernel(s)", scope.kernels));
            if scope.kernels == 0 {
                line(
                    "  no kernel: not launched; its tasks are SCOPE_FUSE_PART [NO_TARGET_NODE] \
                     (inferred: the logs list only kernels)"
                        .to_string(),
                );
            }
            for sk in &scope.superkernels {
                let mut head =
                    format!("  SuperKernel {} · {} task(s)", sk.scope_id, sk.tasks.len());
                if let Some(entry) = &sk.entry {
                    head.push_str(&format!(" · {entry}{}", entry_words(entry)));
                }
                if let Some(launch) = sk.launch {
                    head.push_str(&format!(" · launched by task {launch}"));
                }
                if let Some(us) = sk.time_us {
                    head.push_str(&format!(" · {us:.1} µs"));
                }
                line(head);
                line(format!("    {}", sk.name));
                if let Some(why) = &sk.untrusted {
                    line(format!("    ! untrusted: {why}"));
                }
                if sk.listing != super::layout::FUSED_NODES {
                    line(format!("    listed by {}", sk.listing));
                }
                // Without a graph file the logs' lines are all there is of each task: said in
                // full.
                if self.tasks_from == super::layout::LOGS_ONLY {
                    for t in &sk.tasks {
                        line(format!("    {}", t.words()));
                    }
                } else {
                    let ids: Vec<String> = sk.tasks.iter().map(|t| t.node_id.to_string()).collect();
                    line(format!("    tasks {}", ids.join(" ")));
                }
                if let Some(q) = &sk.queues {
                    line(format!(
                        "    queues: cube {} · vector {}",
                        q.aic.words(),
                        q.aiv.words()
                    ));
                }
                if let Some(b) = &sk.break_text {
                    let trigger = b.trigger.as_ref().map_or(String::new(), |t| {
                        format!(" at task {} {} (stream {})", t.node_id, t.name, t.stream)
                    });
                    line(format!("    cut{trigger}: {} — {}", b.reason, b.meaning));
                    if b.diagnostic_only {
                        line(
                            "      after its marker's last fragment: diagnostic only, not a break \
                             of the scope"
                                .to_string(),
                        );
                    }
                    if let Some(d) = &b.detail {
                        line(format!("      {d}"));
                    }
                    if !b.fix.is_empty() {
                        line(format!("      → {}", b.fix));
                    }
                }
            }
            for u in &scope.unfused {
                let key = match (&u.reason, &u.sub) {
                    (Some(r), Some(s)) => format!("{r} [{s}]: "),
                    (Some(r), None) => format!("{r}: "),
                    _ => String::new(),
                };
                line(format!(
                    "  ✗ task {} {} (stream {}): {key}{}",
                    u.task.node_id, u.task.name, u.task.stream, u.meaning
                ));
                if !u.action.is_empty() {
                    line(format!("      → {}", u.action));
                }
                if u.evidence == "inferred" {
                    line("      (inferred)".to_string());
                }
            }
        }
        if !self.other_tasks.is_empty() {
            line(String::new());
            line("sync and default tasks not fused:".to_string());
            for (why, n) in &self.other_tasks {
                line(format!("  {n} × {why}"));
            }
        }
        let p = &self.prediction;
        line(String::new());
        line(format!(
            "skope's prediction from the graph file and options: {} of the pass's {} \
             SuperKernel(s) with the same kernels ({} predicted)",
            p.matched, p.actual, p.predicted
        ));
        for d in &p.differences {
            line(format!("  ≠ {d}"));
        }
        line(format!("  not modelled: {}", p.not_modelled));
        if !self.missing.is_empty() {
            line(String::new());
            line("missing files (what they would have shown):".to_string());
            for (name, shows) in &self.missing {
                line(format!("  {name}: {shows}"));
            }
        }
        if !self.problems.is_empty() {
            line(String::new());
            line("problems:".to_string());
            for p in &self.problems {
                line(format!("  {p}"));
            }
        }
        if !self.other_models.is_empty() {
            line(String::new());
            line(format!(
                "{} more model(s) here; pass one's directory to see it: {}",
                self.other_models.len(),
                self.other_models.join(", ")
            ));
        }
        out
    }
}

/// What an entry kernel's name suffixes say (reference §3.5, §9.2), as ` (…)`.
fn entry_words(entry: &str) -> String {
    const SUFFIXES: &[(&str, &str)] = &[
        ("_debug", "debug_sync_all"),
        ("_dump_profiling", "timing dump"),
        ("_op_trace", "op trace: per-op debug or trace options"),
        ("_early_start", "early start"),
        ("_simt", "SIMT kernels fused: simt_op_support=1"),
    ];
    let said: Vec<&str> = SUFFIXES
        .iter()
        .filter(|(suffix, _)| entry.ends_with(suffix) || entry.contains(&format!("{suffix}_")))
        .map(|(_, words)| *words)
        .collect();
    if said.is_empty() {
        String::new()
    } else {
        format!(" ({})", said.join("; "))
    }
}

/// How many kernels carry each capability bit skope knows.
fn capabilities(model: &AclModel) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for cap in model.tasks.iter().filter_map(|t| t.cap) {
        for name in super::graph_json::capability_names(cap).0 {
            match out.iter_mut().find(|(n, _)| n == name) {
                Some((_, k)) => *k += 1,
                None => out.push((name.to_string(), 1)),
            }
        }
    }
    out
}

fn sk_text(model: &AclModel, k: usize) -> SkText {
    let sk = &model.sks[k];
    SkText {
        scope_id: sk.scope_id,
        name: sk.name.clone(),
        tasks: sk.tasks.iter().map(|&i| task_ref(model, i)).collect(),
        listing: sk.listing.words(),
        untrusted: sk.untrusted.map(|stated| {
            format!(
                "its header states Node Count {stated}, {} node line(s) follow",
                sk.tasks.len()
            )
        }),
        entry: sk.entry.clone(),
        launch: sk.launch.map(|i| model.tasks[i].node_id),
        break_text: sk.break_info.as_ref().map(|b| {
            let trigger = b.trigger_node.and_then(|n| model.task_index(n));
            let words = reasons::words(&b.reason);
            // An unfusible task's cut is fixed by fixing that task.
            let trigger_reason = trigger.and_then(|i| match &model.status[i] {
                TaskStatus::Unfusible { reason, .. } => Some(reasons::words(reason)),
                _ => None,
            });
            BreakText {
                reason: b.reason.clone(),
                meaning: words.meaning.to_string(),
                trigger: trigger.map(|i| task_ref(model, i)),
                detail: b.detail.clone(),
                fix: match trigger_reason {
                    Some(r) if b.reason == "UNFUSIBLE_NODE" && !r.action.is_empty() => {
                        format!("{} ({})", r.action, r.key)
                    }
                    _ => words.action.to_string(),
                },
                diagnostic_only: !model.cut_is_the_scopes(k),
            }
        }),
        queues: sk.queues.as_ref().map(|q| QueuesText {
            aic: QueueText::of(&q.aic),
            aiv: QueueText::of(&q.aiv),
        }),
        time_us: sk.time.as_ref().map(|t| t.mean_us()),
    }
}
