//! What the aclgraph pass will fuse, predicted from the graph file and the options
//! (reference/aclgraph_superkernel.md §3.1, §3.3, §3.6): each task's starting fusibility, the
//! marker rules, the initial split that merges the streams of a bit set in `nodeId` order, the
//! ScheMode core drop/rise splits, the event-only stream removal and the drop of scopes without
//! a kernel. Not modelled, and said: the deadlock check (`DeadlockRefinePass`), the task-slot
//! budget of post-processing, `task_breaker_bypass`'s per-stream processing and
//! `auto_op_parallel`'s queue order.

use super::graph_json::{NodeType, Task};
use super::model::{AclModel, Membership};
use crate::fusion::marks::{Marks, OpMark};
use crate::graph::OpId;
use std::collections::{HashMap, HashSet};

/// What the prediction leaves out, in words.
pub const NOT_MODELLED: &str = "the deadlock check (DeadlockRefinePass), the task-slot budget \
                                of post-processing, task_breaker_bypass's per-stream \
                                processing and auto_op_parallel's order";

/// Why a task starts unfusible, as the pass's `FusionFailReason` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unfusible {
    /// The key (`OP_UNSUPPORT`, `NOT_IN_SCOPE`…), or `CAN_FUSE` for sync and default tasks the
    /// pass leaves unfusible without a reason.
    pub key: &'static str,
    /// True when skope's reading of the graph file decides it without a documented field
    /// (`resolvedNum` of 0 for an unresolved bind map; value-task events).
    pub inferred: bool,
}

/// A predicted SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Predicted {
    /// Its scope's names (the bit set), as the pass names it (`none` without named scopes).
    pub scope: String,
    /// Its tasks (indices into the model's tasks), in `nodeId` order, cancelled events left
    /// out.
    pub tasks: Vec<usize>,
    /// Why it ends where it ends: the `ScopeBreakReason` key and the task that cut it, when a
    /// cut leaves its kernels apart from the rest of the scope's.
    pub cut: Option<(&'static str, usize)>,
}

/// The prediction for a model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prediction {
    /// Each task's starting fusibility (`None` = fusible).
    pub unfusible: Vec<Option<Unfusible>>,
    /// The SuperKernels, in order of their first task.
    pub sks: Vec<Predicted>,
}

/// The options the prediction reads, with the pass's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Policy {
    value_bypass: i64,
    task_bypass: bool,
    simt_check: bool,
}

fn policy(model: &AclModel) -> Policy {
    let value = |key: &str| {
        model
            .options
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| serde_json::from_str::<serde_json::Value>(v).ok())
    };
    let strategy = |sub: &str| {
        value("aggressive_opt_strategies")
            .and_then(|v| v.get(sub).and_then(serde_json::Value::as_i64))
            .unwrap_or(0)
    };
    Policy {
        value_bypass: strategy("value_breaker_bypass"),
        task_bypass: strategy("task_breaker_bypass") == 1,
        // enable_simt_op_check is forced on for DAV_3510 (aclgraph_superkernel.md §2.1).
        simt_check: model.target.target == crate::target::Target::Dav3510,
    }
}

/// All ones: the flags of an event the pass made from a value task.
pub const VALUE_EVENT: u64 = 0xFFFF_FFFF;

/// The starting fusibility of `task` in `m` (§3.1 and the marker rules of §1.5).
fn unfusible(task: &Task, m: &Membership, named: bool, p: Policy) -> Option<Unfusible> {
    let reason = |key, inferred| Some(Unfusible { key, inferred });
    // Scope tagging overwrites what kernel init set.
    if m.over_limit {
        return reason("EXCEED_SCOPE_MAX", false);
    }
    if m.excluded {
        return reason("IN_UNFUSIBLE_SCOPE", false);
    }
    if named && m.bits.is_empty() {
        return reason("NOT_IN_SCOPE", false);
    }
    match task.node_type {
        NodeType::Kernel => {
            if task.resolved == Some(0) {
                reason("OP_UNSUPPORT", true)
            } else if task.simt && p.simt_check {
                reason("SIMT_OP_UNSUPPORT", false)
            } else {
                None
            }
        }
        NodeType::Notify | NodeType::Wait => match task.event_flags {
            Some((VALUE_EVENT, _)) if p.value_bypass == 0 => reason("CAN_FUSE", true),
            Some((0, 0)) | None | Some((VALUE_EVENT, _)) => None,
            Some(_) => reason("EXTERNAL_DEPEND", false),
        },
        NodeType::Reset => reason("RESET_TYPE_NODE", false),
        NodeType::MemoryWrite | NodeType::MemoryWait => reason("CAN_FUSE", false),
        NodeType::Default if p.task_bypass => None,
        NodeType::Default => reason("CAN_FUSE", false),
        NodeType::Unknown => None,
    }
}

/// Cube and vector cores a kernel needs; a ScheMode kernel's missing side is derived (vector =
/// 2 × cube, cube = ⌈vector / 2⌉).
fn cores(task: &Task) -> (u64, u64) {
    let n = task.num_blocks.unwrap_or(0);
    let (c, v) = match task.kernel_type.as_deref() {
        Some("AIC_ONLY") => (n, 0),
        Some("AIV_ONLY") => (0, n),
        Some("MIX_1_1") => (n, n),
        Some("MIX_1_2") => (n, 2 * n),
        _ => (0, n),
    };
    if task.sche_mode == Some(true) {
        match (c, v) {
            (c, 0) => (c, 2 * c),
            (0, v) => (v.div_ceil(2), v),
            other => other,
        }
    } else {
        (c, v)
    }
}

/// The memberships the scopes of `marks` give `model`'s tasks (one scope each; kept out for
/// an exclusion) and the scope names their bits index: none when no task is in a scope, as
/// the pass reads a graph without named markers.
pub fn memberships_of(model: &AclModel, marks: &Marks) -> (Vec<Membership>, Vec<String>) {
    let any_member =
        (0..model.tasks.len()).any(|i| matches!(marks.get(OpId(i as u32)), OpMark::Member { .. }));
    let memberships = (0..model.tasks.len())
        .map(|i| match marks.get(OpId(i as u32)) {
            OpMark::Member { scope, .. } => Membership {
                bits: vec![scope as u16],
                ..Membership::default()
            },
            OpMark::DoNotFuse => Membership {
                excluded: true,
                ..Membership::default()
            },
            OpMark::Unscoped => Membership::default(),
        })
        .collect();
    let names = if any_member {
        marks.scopes().to_vec()
    } else {
        Vec::new()
    };
    (memberships, names)
}

/// Predicts what the pass makes of `model`'s graph with the scopes its markers make.
pub fn predict(model: &AclModel) -> Prediction {
    predict_for(model, &model.memberships, &model.scope_names)
}

/// Predicts what the pass makes of `model`'s graph with each task in the scopes of
/// `memberships` (bits into `names`).
pub fn predict_for(model: &AclModel, memberships: &[Membership], names: &[String]) -> Prediction {
    let p = policy(model);
    let named = !names.is_empty();
    let tasks = &model.tasks;
    let unfusible: Vec<Option<Unfusible>> = tasks
        .iter()
        .zip(memberships)
        .map(|(t, m)| match t.marker {
            Some(_) => None,
            None => unfusible(t, m, named, p),
        })
        .collect();
    // Each stream's tasks in nodeId order, markers left out (they are dropped later). Streams
    // by their ids' order, numbered densely: an id is the file's (any u32).
    let mut ids: Vec<u32> = tasks.iter().map(|t| t.stream).collect();
    ids.sort_unstable();
    ids.dedup();
    let streams = ids.len();
    let mut lists: Vec<Vec<usize>> = vec![Vec::new(); streams];
    for (i, t) in tasks.iter().enumerate() {
        if t.marker.is_none()
            && let Ok(s) = ids.binary_search(&t.stream)
        {
            lists[s].push(i);
        }
    }
    let mut cursor = vec![0usize; streams];
    let mut seen: HashSet<u64> = HashSet::new();
    let mut sks: Vec<Predicted> = Vec::new();
    loop {
        // Skip each stream's unfusible heads; an unfusible wait whose notify is unseen holds
        // its stream.
        for s in 0..streams {
            while let Some(&i) = lists[s].get(cursor[s]) {
                if unfusible[i].is_none() {
                    break;
                }
                let t = &tasks[i];
                if t.node_type == NodeType::Wait
                    && t.event_id.is_some_and(|e| !seen.contains(&e))
                    && tasks
                        .iter()
                        .any(|n| n.node_type == NodeType::Notify && n.event_id == t.event_id)
                {
                    break;
                }
                if t.node_type == NodeType::Notify
                    && let Some(e) = t.event_id
                {
                    seen.insert(e);
                }
                cursor[s] += 1;
            }
        }
        let heads: Vec<(usize, usize)> = (0..streams)
            .filter_map(|s| lists[s].get(cursor[s]).map(|&i| (s, i)))
            .filter(|&(_, i)| unfusible[i].is_none())
            .collect();
        let Some(&(_, first)) = heads.iter().min_by_key(|&&(_, i)| tasks[i].node_id) else {
            // Only held streams are left: let the smallest head go, so the walk ends.
            let held: Vec<usize> = (0..streams)
                .filter(|&s| cursor[s] < lists[s].len())
                .collect();
            if held.is_empty() {
                break;
            }
            for s in held {
                cursor[s] += 1;
            }
            continue;
        };
        let bits = memberships[first].bits.clone();
        let mut taken: Vec<usize> = Vec::new();
        let mut done = vec![false; streams];
        let mut cut: Option<usize> = None;
        loop {
            let mut best: Option<(usize, usize)> = None;
            for s in 0..streams {
                if done[s] {
                    continue;
                }
                let Some(&i) = lists[s].get(cursor[s]) else {
                    done[s] = true;
                    continue;
                };
                if unfusible[i].is_some() {
                    done[s] = true;
                    cut = Some(i);
                    continue;
                }
                if memberships[i].bits != bits {
                    done[s] = true;
                    continue;
                }
                let t = &tasks[i];
                let waiting = t.node_type == NodeType::Wait
                    && t.event_id.is_some_and(|e| !seen.contains(&e))
                    && tasks
                        .iter()
                        .any(|n| n.node_type == NodeType::Notify && n.event_id == t.event_id);
                if waiting {
                    continue;
                }
                if best.is_none_or(|(_, b)| tasks[i].node_id < tasks[b].node_id) {
                    best = Some((s, i));
                }
            }
            let Some((s, i)) = best else { break };
            if tasks[i].node_type == NodeType::Notify
                && let Some(e) = tasks[i].event_id
            {
                seen.insert(e);
            }
            taken.push(i);
            cursor[s] += 1;
        }
        if taken.is_empty() {
            // Every candidate head waits on a notify that never comes: move past them.
            for (s, _) in heads {
                cursor[s] += 1;
            }
            continue;
        }
        taken.sort_by_key(|&i| tasks[i].node_id);
        let scope = scope_name(names, &bits);
        for (part, part_cut) in sche_mode_split(tasks, &taken) {
            sks.push(Predicted {
                scope: scope.clone(),
                tasks: part,
                cut: part_cut.map(|i| ("SYNCALL_OP_DROP", i)),
            });
        }
        if let Some(last) = sks.last_mut()
            && let Some(i) = cut
            && last.cut.is_none()
        {
            last.cut = Some(("UNFUSIBLE_NODE", i));
        }
    }
    let mut sks = finish(tasks, sks);
    // A cut is only reported when it leaves kernels of the scope apart (the pass prints the
    // break only then).
    let scope_kernels: HashMap<String, usize> = sks.iter().fold(HashMap::new(), |mut acc, sk| {
        *acc.entry(sk.scope.clone()).or_default() += 1;
        acc
    });
    for sk in &mut sks {
        if scope_kernels.get(&sk.scope) == Some(&1)
            && sk.cut.is_some_and(|(k, _)| k == "UNFUSIBLE_NODE")
        {
            sk.cut = None;
        }
    }
    Prediction { unfusible, sks }
}

/// Splits `taken` (one scope, nodeId order) before ScheMode core drops and rises (§3.3
/// `ScheModeKernelSplitPass`); each part with the kernel that cut it.
fn sche_mode_split(tasks: &[Task], taken: &[usize]) -> Vec<(Vec<usize>, Option<usize>)> {
    let mut parts: Vec<(Vec<usize>, Option<usize>)> = vec![(Vec::new(), None)];
    let mut max = (0u64, 0u64);
    let mut after_sche = false;
    for &i in taken {
        let t = &tasks[i];
        if t.node_type == NodeType::Kernel {
            let (c, v) = cores(t);
            let sche = t.sche_mode == Some(true);
            let started = max != (0, 0);
            let drop = sche && started && (c < max.0 || v < max.1);
            let rise = !sche && after_sche && (c > max.0 || v > max.1);
            if drop || rise {
                if let Some(last) = parts.last_mut() {
                    last.1 = Some(i);
                }
                parts.push((Vec::new(), None));
                max = (0, 0);
                after_sche = false;
            }
            max = (max.0.max(c), max.1.max(v));
            after_sche |= sche;
        }
        if let Some(last) = parts.last_mut() {
            last.0.push(i);
        }
    }
    parts.retain(|(p, _)| !p.is_empty());
    parts
}

/// Post-processing: events whose notify and wait are both in the SuperKernel are cancelled,
/// a stream's share of only sync tasks is removed, and parts without a kernel are dropped.
fn finish(tasks: &[Task], sks: Vec<Predicted>) -> Vec<Predicted> {
    sks.into_iter()
        .filter_map(|mut sk| {
            let events: Vec<(NodeType, u64)> = sk
                .tasks
                .iter()
                .filter_map(|&i| tasks[i].event_id.map(|e| (tasks[i].node_type, e)))
                .collect();
            let paired = |e: u64| {
                events.contains(&(NodeType::Notify, e)) && events.contains(&(NodeType::Wait, e))
            };
            sk.tasks.retain(|&i| {
                let t = &tasks[i];
                !(t.node_type.is_sync() && t.event_id.is_some_and(paired))
            });
            let kernel_streams: HashSet<u32> = sk
                .tasks
                .iter()
                .filter(|&&i| tasks[i].node_type == NodeType::Kernel)
                .map(|&i| tasks[i].stream)
                .collect();
            sk.tasks
                .retain(|&i| kernel_streams.contains(&tasks[i].stream));
            (!kernel_streams.is_empty()).then_some(sk)
        })
        .collect()
}

fn scope_name(names: &[String], bits: &[u16]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    bits.iter()
        .filter_map(|&b| names.get(b as usize).map(String::as_str))
        .collect::<Vec<_>>()
        .join("_")
}

/// How the prediction compares with what the pass did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Check {
    /// SuperKernels predicted with the same kernels as one the pass built (whether their cuts
    /// agree is in the differences).
    pub matched: usize,
    /// The pass's SuperKernels.
    pub actual: usize,
    /// Predicted SuperKernels.
    pub predicted: usize,
    /// The differences, in words.
    pub differences: Vec<String>,
}

/// Compares `prediction` with the SuperKernels of `model` by their kernels.
pub fn check(model: &AclModel, prediction: &Prediction) -> Check {
    let kernels = |ids: &[usize]| -> Vec<u64> {
        let mut v: Vec<u64> = ids
            .iter()
            .filter(|&&i| {
                model.tasks[i].node_type == NodeType::Kernel && model.tasks[i].marker.is_none()
            })
            .map(|&i| model.tasks[i].node_id)
            .collect();
        v.sort_unstable();
        v
    };
    let actual: Vec<Vec<u64>> = model.sks.iter().map(|s| kernels(&s.tasks)).collect();
    let predicted: Vec<Vec<u64>> = prediction.sks.iter().map(|s| kernels(&s.tasks)).collect();
    let mut out = Check {
        actual: actual.len(),
        predicted: predicted.len(),
        ..Check::default()
    };
    let show = |ids: &[u64]| ids.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
    for (k, a) in actual.iter().enumerate() {
        if let Some(at) = predicted.iter().position(|p| p == a) {
            out.matched += 1;
            // Where it ends, and why, must agree too.
            let theirs = model.sks[k]
                .break_info
                .as_ref()
                .and_then(|b| Some((b.reason.as_str(), b.trigger_node?)));
            let ours = prediction.sks[at]
                .cut
                .map(|(key, i)| (key, model.tasks[i].node_id));
            if theirs != ours {
                let say = |c: Option<(&str, u64)>| match c {
                    Some((key, node)) => format!("{key} at task {node}"),
                    None => "no cut".to_string(),
                };
                out.differences.push(format!(
                    "SuperKernel {}: the pass reports {}, skope predicts {}",
                    model.sks[k].scope_id,
                    say(theirs),
                    say(ours)
                ));
            }
        } else {
            out.differences.push(format!(
                "the pass built SuperKernel {} of tasks {}; skope predicted none with exactly these",
                model.sks[k].scope_id,
                show(a)
            ));
        }
    }
    for p in &predicted {
        if !actual.contains(p) {
            out.differences.push(format!(
                "skope predicted a SuperKernel of tasks {} that the pass did not build",
                show(p)
            ));
        }
    }
    out
}
