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
    /// The SuperKernels built from it.
    pub superkernels: Vec<SkText>,
    /// Its kernels that were not fused.
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
    /// Files missing, with what they would have shown.
    pub missing: Vec<(String, String)>,
    /// Options the pass ran with.
    pub options: Vec<(String, String)>,
    /// Task counts: kernels, sync, default, markers.
    pub tasks: [usize; 4],
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
}

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
                        superkernels: Vec::new(),
                        unfused: Vec::new(),
                    });
                    scopes.len() - 1
                }
            }
        };
        let mut other: Vec<(String, usize)> = Vec::new();
        let mut counts = [0usize; 4];
        let mut sk_done = vec![false; model.sks.len()];
        for (i, task) in model.tasks.iter().enumerate() {
            let kind = if task.marker.is_some() {
                3
            } else {
                match task.node_type {
                    NodeType::Kernel => 0,
                    NodeType::Default => 2,
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
        AclReport {
            path: "aclgraph",
            model_dir: model.dir.display().to_string(),
            model_id: model.model_id.clone(),
            device_id: model.device_id,
            read: model.read.clone(),
            missing: model
                .missing
                .iter()
                .map(|f| (f.name.to_string(), f.shows.to_string()))
                .collect(),
            options: model.options.clone(),
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
        }
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
        let [kernels, sync, default, markers] = self.tasks;
        line(format!(
            "{} tasks on {} stream(s): {kernels} kernels, {sync} sync, {default} default, \
             {markers} scope markers",
            kernels + sync + default + markers,
            self.streams
        ));
        if !self.options.is_empty() {
            let opts: Vec<String> = self
                .options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            line(format!("options: {}", opts.join(" ")));
        }
        let built: usize = self.scopes.iter().map(|s| s.superkernels.len()).sum();
        let unfused: usize = self.scopes.iter().map(|s| s.unfused.len()).sum();
        line(format!(
            "{built} SuperKernel(s) built; {unfused} kernel(s) not fused"
        ));
        for scope in &self.scopes {
            line(String::new());
            let head = match scope.name.as_str() {
                super::model::OUTSIDE => "outside every named scope".to_string(),
                name => format!("scope {name}"),
            };
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
                    head.push_str(&format!(" · {entry}"));
                }
                if let Some(launch) = sk.launch {
                    head.push_str(&format!(" · launched by task {launch}"));
                }
                if let Some(us) = sk.time_us {
                    head.push_str(&format!(" · {us:.1} µs"));
                }
                line(head);
                line(format!("    {}", sk.name));
                let ids: Vec<String> = sk.tasks.iter().map(|t| t.node_id.to_string()).collect();
                line(format!("    tasks {}", ids.join(" ")));
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
                    if let Some(d) = &b.detail {
                        line(format!("      {d}"));
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

fn sk_text(model: &AclModel, k: usize) -> SkText {
    let sk = &model.sks[k];
    SkText {
        scope_id: sk.scope_id,
        name: sk.name.clone(),
        tasks: sk.tasks.iter().map(|&i| task_ref(model, i)).collect(),
        entry: sk.entry.clone(),
        launch: sk.launch.map(|i| model.tasks[i].node_id),
        break_text: sk.break_info.as_ref().map(|b| BreakText {
            reason: b.reason.clone(),
            meaning: reasons::break_reason(&b.reason)
                .unwrap_or("a reason skope does not know")
                .to_string(),
            trigger: b
                .trigger_node
                .and_then(|n| model.task_index(n))
                .map(|i| task_ref(model, i)),
            detail: b.detail.clone(),
        }),
        queues: sk.queues.as_ref().map(|q| QueuesText {
            aic: QueueText::of(&q.aic),
            aiv: QueueText::of(&q.aiv),
        }),
        time_us: sk.time.as_ref().map(|t| t.mean_us()),
    }
}
