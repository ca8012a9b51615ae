//! `sk_graph_origin.json` / `sk_graph_updated.json`: the captured graph's tasks per stream as
//! the aclgraph pass saw them (reference/aclgraph_superkernel.md §4.2). Deserialised straight
//! into typed records (no JSON tree of the whole file); fields skope does not use are skipped,
//! unknown fields are ignored, nulls and missing optional fields are allowed.

use serde::Deserialize;
use std::collections::BTreeMap;

/// The kind of a task, as the pass classifies it (`nodeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeType {
    /// A kernel launch.
    Kernel,
    /// An event record (or a value write re-classified as one).
    Notify,
    /// An event wait.
    Wait,
    /// An event reset.
    Reset,
    /// A value write the pass did not re-classify.
    MemoryWrite,
    /// A value wait the pass did not re-classify.
    MemoryWait,
    /// Any other task (AI CPU, memcpy…).
    Default,
    /// Not known: the logs name the task by its id only.
    Unknown,
}

impl NodeType {
    /// From the file's `nodeType` (or `taskType`) word; unknown words are `Default`.
    pub fn parse(word: &str) -> NodeType {
        match word {
            "KERNEL" => NodeType::Kernel,
            "NOTIFY" => NodeType::Notify,
            "WAIT" => NodeType::Wait,
            "RESET" => NodeType::Reset,
            "MEMORY_WRITE" | "VALUE_WRITE" => NodeType::MemoryWrite,
            "MEMORY_WAIT" | "VALUE_WAIT" => NodeType::MemoryWait,
            _ => NodeType::Default,
        }
    }

    /// The file's word for it.
    pub fn name(self) -> &'static str {
        match self {
            NodeType::Kernel => "KERNEL",
            NodeType::Notify => "NOTIFY",
            NodeType::Wait => "WAIT",
            NodeType::Reset => "RESET",
            NodeType::MemoryWrite => "MEMORY_WRITE",
            NodeType::MemoryWait => "MEMORY_WAIT",
            NodeType::Default => "DEFAULT",
            NodeType::Unknown => "UNKNOWN",
        }
    }

    /// True for the sync tasks (notify, wait, reset and value tasks).
    pub fn is_sync(self) -> bool {
        !matches!(
            self,
            NodeType::Kernel | NodeType::Default | NodeType::Unknown
        )
    }
}

/// A scope marker task (`aclskScopeBegin/End`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `sk_scope_kernel_begin_<arch>`.
    Begin,
    /// `sk_scope_kernel_end_<arch>`.
    End,
    /// `sk_placeholder_kernel_<arch>`: a slot the rewrite may reuse for syncs.
    Placeholder,
}

/// One task of the graph file.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// `nodeId`: the task's capture sequence id, unique in the model.
    pub node_id: u64,
    /// `streamIdxInGraph`.
    pub stream: u32,
    /// `nodeIdxInStream`.
    pub index_in_stream: u32,
    /// The runtime stream id (`taskInfo[0].streamId`), when given.
    pub runtime_stream: Option<i64>,
    /// `nodeType`.
    pub node_type: NodeType,
    /// `scopeName` of the marker, or of the scope, when given.
    pub scope_name: Option<String>,
    /// Set for scope marker tasks.
    pub marker: Option<Marker>,
    /// `kernelParams.funcName`.
    pub func_name: Option<String>,
    /// `kernelParams.kernelType` (`AIC_ONLY`, `AIV_ONLY`, `MIX_1_1`, `MIX_1_2`, `DEFAULT`).
    pub kernel_type: Option<String>,
    /// `kernelParams.numBlocks`.
    pub num_blocks: Option<u64>,
    /// `kernelParams.taskRatio` (cube, vector).
    pub task_ratio: Option<(u64, u64)>,
    /// `kernelParams.isSimtOp`.
    pub simt: bool,
    /// `eventParams.eventId`.
    pub event_id: Option<u64>,
    /// `eventParams.eventFlag` and `eventTaskFlag` (all ones for events made from value tasks).
    pub event_flags: Option<(u64, u64)>,
    /// `kernelParams.resolvedNum`: how many sub-kernel entries the bind map resolved.
    pub resolved: Option<u64>,
    /// `kernelParams.cap`: the kernel's capability bits ([`CAPABILITIES`]).
    pub cap: Option<u64>,
    /// Whether the kernel is a ScheMode (all-core sync) kernel: not in the graph file; the
    /// logs' `isScheModeOn` fills it in.
    pub sche_mode: Option<bool>,
    /// The SuperKernel this task launches (`skinfos`, updated file only).
    pub sk: Option<SkInfo>,
}

/// `skinfos` of the task that launches a SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkInfo {
    /// `scopeId`.
    pub scope_id: u32,
    /// `scopeName`.
    pub scope_name: Option<String>,
    /// `startKernelFuncName`.
    pub start: Option<String>,
    /// `endKernelFuncName`.
    pub end: Option<String>,
}

/// A graph file.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphFile {
    /// `modelId`.
    pub model_id: Option<String>,
    /// `deviceId`.
    pub device_id: Option<i64>,
    /// `options`: each option's name and value as JSON text (`inner_options` left out).
    pub options: Vec<(String, String)>,
    /// Tasks in `nodeId` order.
    pub tasks: Vec<Task>,
    /// Number of streams.
    pub streams: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    #[serde(default)]
    model_id: Option<IdText>,
    #[serde(default)]
    device_id: Option<i64>,
    #[serde(default)]
    options: Option<BTreeMap<String, serde_json::Value>>,
    /// Required: it is what makes a JSON file a graph file.
    streams: Vec<RawStream>,
}

/// `modelId` is `"3_1"` in the files, a number in older ones.
#[derive(Deserialize)]
#[serde(untagged)]
enum IdText {
    Text(String),
    Number(i64),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawStream {
    #[serde(default)]
    stream_idx_in_graph: Option<u32>,
    #[serde(default)]
    nodes: Option<Vec<RawNode>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawNode {
    node_id: u64,
    #[serde(default)]
    stream_idx_in_graph: Option<u32>,
    #[serde(default)]
    node_idx_in_stream: Option<u32>,
    #[serde(default)]
    node_type: Option<String>,
    #[serde(default)]
    scope_name: Option<String>,
    #[serde(default)]
    is_scope_begin: Option<bool>,
    #[serde(default)]
    is_scope_end: Option<bool>,
    #[serde(default)]
    is_scope_placeholder: Option<bool>,
    #[serde(default)]
    task_info: Option<Vec<RawTaskInfo>>,
    #[serde(default)]
    skinfos: Option<RawSkInfo>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTaskInfo {
    #[serde(default)]
    stream_id: Option<i64>,
    #[serde(default)]
    task_type: Option<String>,
    #[serde(default)]
    kernel_params: Option<RawKernel>,
    #[serde(default)]
    event_params: Option<RawEvent>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawKernel {
    #[serde(default)]
    func_name: Option<String>,
    #[serde(default)]
    num_blocks: Option<u64>,
    #[serde(default)]
    kernel_type: Option<String>,
    #[serde(default)]
    task_ratio: Option<Vec<u64>>,
    #[serde(default)]
    is_simt_op: Option<Flag>,
    #[serde(default)]
    resolved_num: Option<u64>,
    #[serde(default)]
    cap: Option<Number>,
}

/// A number written as JSON, or as text (`"0x10"`, `"16"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Int(u64),
    Text(String),
}

impl Number {
    fn value(&self) -> Option<u64> {
        match self {
            Number::Int(n) => Some(*n),
            Number::Text(t) => parse_number(t),
        }
    }
}

/// `0x10` or `16`.
pub fn parse_number(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// The kernel capability bits skope knows (`KernelCapBitOffset`, reference §3.3 and §9.2),
/// with what each does.
pub const CAPABILITIES: &[(u32, &str, &str)] = &[
    (
        3,
        "bit 3",
        "its schedule mode is not taken as ScheMode (all-core sync); the bit's name is not \
         in the sources read",
    ),
    (
        4,
        "BLOCKDIM_SCALE_UP",
        "its blockDim is scaled up to the SuperKernel's (newer runtime)",
    ),
];

/// The names of the capability bits of `cap` skope knows, and the count of others set.
pub fn capability_names(cap: u64) -> (Vec<&'static str>, u32) {
    let known: Vec<&str> = CAPABILITIES
        .iter()
        .filter(|(bit, ..)| cap & (1 << bit) != 0)
        .map(|(_, name, _)| *name)
        .collect();
    let known_mask: u64 = CAPABILITIES.iter().map(|(bit, ..)| 1u64 << bit).sum();
    (known, (cap & !known_mask).count_ones())
}

/// A flag written as `true`/`false` or `1`/`0`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Flag {
    Bool(bool),
    Number(i64),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEvent {
    #[serde(default)]
    event_id: Option<u64>,
    #[serde(default)]
    event_flag: Option<u64>,
    #[serde(default)]
    event_task_flag: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSkInfo {
    scope_id: u32,
    #[serde(default)]
    scope_name: Option<String>,
    #[serde(default)]
    start_kernel_func_name: Option<String>,
    #[serde(default)]
    end_kernel_func_name: Option<String>,
}

/// Why a graph file could not be read: serde's message and its line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphFileError {
    /// What is wrong.
    pub message: String,
    /// 1-based line and column.
    pub at: Option<(usize, usize)>,
}

/// Reads a graph file's bytes (a UTF-8 BOM is allowed).
pub fn parse(bytes: &[u8]) -> Result<GraphFile, GraphFileError> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let raw: RawFile = serde_json::from_slice(body).map_err(|e| GraphFileError {
        message: crate::text::json_error_words(&e),
        at: (e.line() > 0).then(|| (e.line(), e.column())),
    })?;
    let mut tasks = Vec::new();
    let streams = raw.streams;
    let stream_count = streams.len() as u32;
    for (n, stream) in streams.into_iter().enumerate() {
        let stream_index = stream.stream_idx_in_graph.unwrap_or(n as u32);
        for (k, node) in stream.nodes.unwrap_or_default().into_iter().enumerate() {
            tasks.push(task(node, stream_index, k as u32));
        }
    }
    tasks.sort_by_key(|t| t.node_id);
    let options = raw
        .options
        .unwrap_or_default()
        .into_iter()
        .filter(|(name, _)| name != "inner_options")
        .map(|(name, value)| {
            let value = value.get("value").cloned().unwrap_or(value);
            (name, value.to_string())
        })
        .collect();
    Ok(GraphFile {
        model_id: raw.model_id.map(|id| match id {
            IdText::Text(t) => t,
            IdText::Number(n) => n.to_string(),
        }),
        device_id: raw.device_id,
        options,
        streams: stream_count.max(
            tasks
                .iter()
                .map(|t| t.stream.saturating_add(1))
                .max()
                .unwrap_or(0),
        ),
        tasks,
    })
}

fn task(node: RawNode, stream: u32, index: u32) -> Task {
    let info = node.task_info.and_then(|v| v.into_iter().next());
    let (runtime_stream, task_type, kernel, event) = match info {
        Some(i) => (i.stream_id, i.task_type, i.kernel_params, i.event_params),
        None => (None, None, None, None),
    };
    let node_type = NodeType::parse(
        node.node_type
            .as_deref()
            .or(task_type.as_deref())
            .unwrap_or("DEFAULT"),
    );
    let func_name = kernel.as_ref().and_then(|k| k.func_name.clone());
    let marker = if node.is_scope_begin == Some(true) {
        Some(Marker::Begin)
    } else if node.is_scope_end == Some(true) {
        Some(Marker::End)
    } else if node.is_scope_placeholder == Some(true) {
        Some(Marker::Placeholder)
    } else {
        func_name.as_deref().and_then(marker_of_func)
    };
    Task {
        node_id: node.node_id,
        stream: node.stream_idx_in_graph.unwrap_or(stream),
        index_in_stream: node.node_idx_in_stream.unwrap_or(index),
        runtime_stream,
        node_type,
        scope_name: node.scope_name,
        marker,
        num_blocks: kernel.as_ref().and_then(|k| k.num_blocks),
        kernel_type: kernel.as_ref().and_then(|k| k.kernel_type.clone()),
        task_ratio: kernel
            .as_ref()
            .and_then(|k| k.task_ratio.as_ref())
            .and_then(|r| Some((*r.first()?, *r.get(1)?))),
        simt: matches!(
            kernel.as_ref().and_then(|k| k.is_simt_op.as_ref()),
            Some(Flag::Bool(true))
        ) || matches!(
            kernel.as_ref().and_then(|k| k.is_simt_op.as_ref()),
            Some(Flag::Number(n)) if *n != 0
        ),
        event_id: event.as_ref().and_then(|e| e.event_id),
        event_flags: event
            .as_ref()
            .map(|e| (e.event_flag.unwrap_or(0), e.event_task_flag.unwrap_or(0))),
        resolved: kernel.as_ref().and_then(|k| k.resolved_num),
        cap: kernel.as_ref().and_then(|k| k.cap.as_ref()?.value()),
        sche_mode: None,
        func_name,
        sk: node.skinfos.map(|s| SkInfo {
            scope_id: s.scope_id,
            scope_name: s.scope_name,
            start: s.start_kernel_func_name,
            end: s.end_kernel_func_name,
        }),
    }
}

/// The marker a function name makes (`sk_scope_kernel_begin_dav_2201`…), by the names the
/// pass recognises.
pub fn marker_of_func(name: &str) -> Option<Marker> {
    if name.starts_with("sk_scope_kernel_begin_") {
        Some(Marker::Begin)
    } else if name.starts_with("sk_scope_kernel_end_") {
        Some(Marker::End)
    } else if name.starts_with("sk_placeholder_kernel_") {
        Some(Marker::Placeholder)
    } else {
        None
    }
}
