//! What the SuperKernels did on the device: `sk_task_queue.json` (each SuperKernel's cube and
//! vector task queues) and `sk_prof_device_<dev>.json` (per-sub-op and whole-SuperKernel timing
//! with `ASCEND_PROF_SK_ON`). Reference/aclgraph_superkernel.md §4.3, §4.5.

use serde::Deserialize;

/// One core kind's task queue of a SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Queue {
    /// `numBlocks`.
    pub num_blocks: u64,
    /// `funcCnt`: sub-kernel calls.
    pub funcs: u64,
    /// Tasks by type (`FUNC`, `SYNC`, `PRELOAD`, `EVENT_NOTIFY`…), with their counts, in
    /// first-seen order.
    pub by_type: Vec<(String, u64)>,
}

impl Queue {
    /// All its tasks.
    pub fn tasks(&self) -> u64 {
        self.by_type.iter().map(|(_, n)| n).sum()
    }
}

/// The queues of one SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScopeQueues {
    /// Its `scopeId` (absent in files with one root-level `taskQueues`).
    pub scope_id: Option<u64>,
    /// The cube queue.
    pub aic: Queue,
    /// The vector queue.
    pub aiv: Queue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawQueues {
    #[serde(default)]
    scopes: Option<Vec<RawScope>>,
    #[serde(default)]
    task_queues: Option<RawPair>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawScope {
    #[serde(default)]
    scope_id: Option<u64>,
    #[serde(default)]
    task_queues: Option<RawPair>,
}

#[derive(Deserialize)]
struct RawPair {
    #[serde(default)]
    aic: Option<RawQueue>,
    #[serde(default)]
    aiv: Option<RawQueue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawQueue {
    #[serde(default)]
    num_blocks: Option<u64>,
    #[serde(default)]
    func_cnt: Option<u64>,
    #[serde(default)]
    task_que: Option<RawTaskQue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTaskQue {
    #[serde(default)]
    task_infos: Option<Vec<RawTaskInfo>>,
}

#[derive(Deserialize)]
struct RawTaskInfo {
    #[serde(default, rename = "type")]
    kind: Option<String>,
}

fn queue(raw: Option<RawQueue>) -> Queue {
    let Some(raw) = raw else {
        return Queue::default();
    };
    let mut by_type: Vec<(String, u64)> = Vec::new();
    for info in raw.task_que.and_then(|q| q.task_infos).unwrap_or_default() {
        let kind = info.kind.unwrap_or_else(|| "?".to_string());
        match by_type.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => by_type.push((kind, 1)),
        }
    }
    Queue {
        num_blocks: raw.num_blocks.unwrap_or_default(),
        funcs: raw.func_cnt.unwrap_or_default(),
        by_type,
    }
}

/// A JSON file that could not be read: serde's message and its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub message: String,
    /// 1-based line and column.
    pub at: Option<(usize, usize)>,
}

impl From<serde_json::Error> for JsonError {
    fn from(e: serde_json::Error) -> JsonError {
        JsonError {
            message: crate::text::json_error_words(&e),
            at: (e.line() > 0).then(|| (e.line(), e.column())),
        }
    }
}

fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// Reads `sk_task_queue.json`: per-scope `scopes[].taskQueues`, or one root-level
/// `taskQueues` without a scope id.
pub fn task_queues(bytes: &[u8]) -> Result<Vec<ScopeQueues>, JsonError> {
    let raw: RawQueues = serde_json::from_slice(without_bom(bytes))?;
    let mut out: Vec<ScopeQueues> = raw
        .scopes
        .unwrap_or_default()
        .into_iter()
        .map(|s| {
            let pair = s.task_queues.unwrap_or(RawPair {
                aic: None,
                aiv: None,
            });
            ScopeQueues {
                scope_id: s.scope_id,
                aic: queue(pair.aic),
                aiv: queue(pair.aiv),
            }
        })
        .collect();
    if let Some(pair) = raw.task_queues {
        out.push(ScopeQueues {
            scope_id: None,
            aic: queue(pair.aic),
            aiv: queue(pair.aiv),
        });
    }
    Ok(out)
}

/// Timing of one sub-op (or of a whole SuperKernel) over the cores that ran it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timing {
    /// The SuperKernel's `skId` (its scope id).
    pub sk_id: u64,
    /// The sub-op; `None` for the whole SuperKernel.
    pub sub_op: Option<SubOp>,
    /// The sub-kernel's (or SuperKernel's) name, without the `[block/blocks]` prefix.
    pub name: String,
    /// Records (one per core and run).
    pub records: u64,
    /// Sum of their durations, µs.
    pub total_us: f64,
    /// The longest, µs.
    pub max_us: f64,
}

impl Timing {
    /// Mean duration, µs.
    pub fn mean_us(&self) -> f64 {
        if self.records == 0 {
            0.0
        } else {
            self.total_us / self.records as f64
        }
    }
}

/// Which sub-op of a SuperKernel a record times: the device's per-core list gives its
/// position in the SuperKernel's task list, the SuperKernel team's simplified trace its graph
/// node id (reference `aclgraph_superkernel.md` §4.5, §9.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SubOp {
    /// Its position in the SuperKernel's task list (`args.nodeId` of the per-core list).
    Position(u64),
    /// Its graph node id (`args.nodeId` of the simplified trace, beside `args.kernelType`).
    Node(u64),
}

impl SubOp {
    /// How it is shown: `3` for a position, `#812` for a graph node.
    pub fn label(self) -> String {
        match self {
            SubOp::Position(p) => p.to_string(),
            SubOp::Node(n) => format!("#{n}"),
        }
    }

    /// A number telling sub-ops of one SuperKernel apart, for colours.
    pub fn key(self) -> u64 {
        match self {
            SubOp::Position(n) | SubOp::Node(n) => n,
        }
    }
}

/// One record of one core in `sk_prof_device_<dev>.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The SuperKernel's scope id (`skId`).
    pub sk_id: u64,
    /// The sub-op; `None` for the whole SuperKernel (the device writes UINT32_MAX there).
    pub sub_op: Option<SubOp>,
    /// The sub-op's (or SuperKernel's) name, without its `[block/blocks]` prefix.
    pub name: String,
    /// True on a Cube core (`pid` `AIC`), false on a Vector core (`AIV`).
    pub cube: bool,
    /// Its start, ns of the device clock.
    pub start: i64,
    /// Its end.
    pub end: i64,
}

impl Record {
    /// Its duration, µs.
    pub fn dur_us(&self) -> f64 {
        (self.end - self.start) as f64 / 1000.0
    }
}

#[derive(Deserialize)]
struct RawRecord {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pid: Option<serde_json::Value>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    dur: Option<f64>,
    #[serde(default)]
    args: Option<RawArgs>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawArgs {
    #[serde(default)]
    sk_id: Option<u64>,
    #[serde(default)]
    node_id: Option<u64>,
    #[serde(default)]
    kernel_type: Option<String>,
}

/// The file's events: a bare array (the device's per-core list) or `{"traceEvents": […]}`
/// (the SuperKernel team's simplified trace).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawTrace {
    List(Vec<RawRecord>),
    Wrapped {
        #[serde(rename = "traceEvents")]
        trace_events: Vec<RawRecord>,
    },
}

/// Every timed record of `sk_prof_device_<dev>.json` (or the older
/// `sk_event_dev_device_<dev>.json`): a Chrome-trace array whose last element is `{}`, or the
/// SuperKernel team's simplified trace, `{"traceEvents": […]}` whose sub-op events carry
/// `args.kernelType` and the graph's node id in `args.nodeId` (never a position in the task
/// list). Records without a SuperKernel, a time or a positive duration are left out, as the
/// device leaves them out.
pub fn records(bytes: &[u8]) -> Result<Vec<Record>, JsonError> {
    let raws = match serde_json::from_slice(without_bom(bytes))? {
        RawTrace::List(list) => list,
        RawTrace::Wrapped { trace_events } => trace_events,
    };
    let ns = |us: f64| (us * 1000.0).round();
    Ok(raws
        .into_iter()
        .filter_map(|r| {
            let args = r.args?;
            let (ts, dur) = (ns(r.ts?), ns(r.dur?));
            if !(ts.is_finite() && dur.is_finite() && dur > 0.0 && ts.abs() < 9e18) {
                return None;
            }
            let name = r.name.unwrap_or_default();
            let name = match name.find(']') {
                Some(end) if name.starts_with('[') => name[end + 1..].trim().to_string(),
                _ => name,
            };
            let node = args.node_id.filter(|&n| n != u64::from(u32::MAX));
            let sub_op = match &args.kernel_type {
                // The simplified trace: the whole SuperKernel is its sk_ event.
                Some(_) if name.starts_with("sk_") => None,
                Some(_) => node.map(SubOp::Node),
                None => node.map(SubOp::Position),
            };
            let pid = r.pid.as_ref().and_then(|p| p.as_str());
            let kind = args.kernel_type.as_deref().unwrap_or_default();
            Some(Record {
                sk_id: args.sk_id?,
                sub_op,
                name,
                cube: pid == Some("AIC") || (pid.is_none() && kind.contains("AIC")),
                start: ts as i64,
                end: (ts + dur) as i64,
            })
        })
        .collect())
}

/// The records of `bytes` summed per SuperKernel and sub-op.
pub fn timings(bytes: &[u8]) -> Result<Vec<Timing>, JsonError> {
    let mut out: Vec<Timing> = Vec::new();
    let mut index: std::collections::HashMap<(u64, Option<SubOp>), usize> = Default::default();
    for r in records(bytes)? {
        let dur = r.dur_us();
        let slot = *index.entry((r.sk_id, r.sub_op)).or_insert_with(|| {
            out.push(Timing {
                sk_id: r.sk_id,
                sub_op: r.sub_op,
                name: r.name,
                ..Timing::default()
            });
            out.len() - 1
        });
        let t = &mut out[slot];
        t.records += 1;
        t.total_us += dur;
        t.max_us = t.max_us.max(dur);
    }
    Ok(out)
}
