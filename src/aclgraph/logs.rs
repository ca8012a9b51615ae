//! The aclgraph pass's log files (reference/aclgraph_superkernel.md §4.1, §4.4, §9.3): each
//! line's `YYYY-MM-DD HH:MM:SS.mmm [pid:tid] [LEVEL] [file:line] [Func] ` prefix is dropped,
//! `[CONT:n] ` continuation lines are joined to the line they continue, comment lines (`# no
//! scope breaks`) are none, and the messages are read by the pass's format strings with their
//! fields found by name (`nodeId:`, `streamId:`, `KernelInfos{`), not by place: logs written by
//! other tools leave out the `[i]` index or the `streamIdxInGraph`/`nodeIdxInStream` fields.
//! Lines that fit no format are passed over; what each file gives is gathered per scope and
//! per task.

use super::graph_json::NodeType;

/// A message of a log file: its text without the prefix, and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    /// 1-based line number.
    pub line: usize,
    /// The message (continuations joined).
    pub text: std::borrow::Cow<'a, str>,
}

/// The messages of `text`.
pub fn messages(text: &str) -> Vec<Message<'_>> {
    let mut out: Vec<Message<'_>> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let body = strip_prefix(raw.trim_end_matches('\r'));
        if body.trim_start().starts_with('#') {
            continue;
        }
        if let Some(rest) = continuation(body)
            && let Some(last) = out.last_mut()
        {
            last.text.to_mut().push_str(rest);
            continue;
        }
        out.push(Message {
            line: n + 1,
            text: std::borrow::Cow::Borrowed(body),
        });
    }
    out
}

/// The text after `[CONT:n] `, for a continuation line.
fn continuation(body: &str) -> Option<&str> {
    let rest = body.strip_prefix("[CONT:")?;
    let end = rest.find("] ")?;
    rest[..end]
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| &rest[end + 2..])
}

/// `line` without the file logger's prefix, when it has one.
fn strip_prefix(line: &str) -> &str {
    let b = line.as_bytes();
    let dated = b.len() > 24
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b' ';
    if !dated {
        return line;
    }
    // After the time come four bracketed fields: [pid:tid] [LEVEL] [file:line] [Func].
    let mut rest = &line[11..];
    let Some(space) = rest.find(' ') else {
        return line;
    };
    rest = &rest[space + 1..];
    for _ in 0..4 {
        let Some(inner) = rest.strip_prefix('[') else {
            return rest;
        };
        let Some(end) = inner
            .find("] ")
            .or_else(|| inner.ends_with(']').then(|| inner.len() - 1))
        else {
            return rest;
        };
        rest = inner.get(end + 2..).unwrap_or("");
    }
    rest
}

/// The number after `key` in `text` (`nodeId:` → 9 in `[nodeId:9, …`).
pub fn number_after(text: &str, key: &str) -> Option<u64> {
    let at = text.find(key)? + key.len();
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The text after `key` up to the next `,` or `}` or `]`.
pub fn word_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(key)? + key.len();
    let rest = &text[at..];
    let end = rest.find([',', '}', ']']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// The numbers of a `[1, 2, 3]` list (or of a bare `1, 2, 3`).
pub fn numbers(list: &str) -> Vec<u64> {
    list.trim()
        .trim_start_matches('[')
        .trim_end_matches(';')
        .trim_end_matches(']')
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect()
}

/// A task as the logs print it: `[nodeId:9, streamId:2, streamIdxInGraph:0, nodeIdxInStream:9]
/// - KernelInfos{funcName:…, kernelType:…, taskRatio:[0,1], numBlocks:40, isScheModeOn:0, …}`,
/// every field but `nodeId` optional.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeRef {
    /// `nodeId`.
    pub node_id: u64,
    /// `streamId`: the runtime stream.
    pub stream_id: Option<u64>,
    /// `streamIdxInGraph`.
    pub stream_idx: Option<u64>,
    /// `nodeIdxInStream`.
    pub index_in_stream: Option<u64>,
    /// `funcName`.
    pub func_name: Option<String>,
    /// `kernelType`.
    pub kernel_type: Option<String>,
    /// `numBlocks`.
    pub num_blocks: Option<u64>,
    /// `taskRatio` (cube, vector).
    pub task_ratio: Option<(u64, u64)>,
    /// `isScheModeOn`.
    pub sche_mode: Option<bool>,
    /// `cap`: the capability bits.
    pub cap: Option<u64>,
    /// The task's kind, from the shape of its text (`KernelInfos{`, `EventWait(`, `type:
    /// Default`…), when it says.
    pub node_type: Option<NodeType>,
}

impl NodeRef {
    /// The task `text` names, when it has a `nodeId:`.
    pub fn parse(text: &str) -> Option<NodeRef> {
        let node_id = number_after(text, "nodeId:")?;
        let kernel = text.find("KernelInfos{").map(|at| &text[at..]);
        let field = |key: &str| kernel.and_then(|k| word_after(k, key)).map(str::to_string);
        let ratio = kernel.and_then(|k| {
            let at = k.find("taskRatio:[")? + "taskRatio:".len();
            let list = numbers(&k[at..at + k[at..].find(']')? + 1]);
            Some((*list.first()?, *list.get(1)?))
        });
        Some(NodeRef {
            node_id,
            stream_id: number_after(text, "streamId:"),
            stream_idx: number_after(text, "streamIdxInGraph:"),
            index_in_stream: number_after(text, "nodeIdxInStream:"),
            func_name: field("funcName:").filter(|f| !f.is_empty()),
            kernel_type: field("kernelType:").filter(|f| !f.is_empty()),
            num_blocks: kernel.and_then(|k| number_after(k, "numBlocks:")),
            task_ratio: ratio,
            sche_mode: kernel
                .and_then(|k| number_after(k, "isScheModeOn:"))
                .map(|n| n != 0),
            cap: kernel
                .and_then(|k| word_after(k, "cap:"))
                .and_then(super::graph_json::parse_number),
            node_type: kind_of(text),
        })
    }

    /// Fills the fields `self` lacks from `other` (the same task printed by another log).
    pub fn fill_from(&mut self, other: &NodeRef) {
        fn fill<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
        fill(&mut self.stream_id, &other.stream_id);
        fill(&mut self.stream_idx, &other.stream_idx);
        fill(&mut self.index_in_stream, &other.index_in_stream);
        fill(&mut self.func_name, &other.func_name);
        fill(&mut self.kernel_type, &other.kernel_type);
        fill(&mut self.num_blocks, &other.num_blocks);
        fill(&mut self.task_ratio, &other.task_ratio);
        fill(&mut self.sche_mode, &other.sche_mode);
        fill(&mut self.cap, &other.cap);
        fill(&mut self.node_type, &other.node_type);
    }
}

/// The kind of task a `Format()` text prints (reference §4.4).
fn kind_of(text: &str) -> Option<NodeType> {
    const SHAPES: [(&str, NodeType); 7] = [
        ("KernelInfos{", NodeType::Kernel),
        ("EventNotify(", NodeType::Notify),
        ("EventWait(", NodeType::Wait),
        ("EventReset(", NodeType::Reset),
        ("MemoryWrite(", NodeType::MemoryWrite),
        ("MemoryWait(", NodeType::MemoryWait),
        ("type: Default", NodeType::Default),
    ];
    SHAPES
        .iter()
        .find(|(shape, _)| text.contains(shape))
        .map(|&(_, kind)| kind)
}

/// A scope break as the pass writes it: `breakReason=<ENUM>[, triggerNode=N][, triggerStream=S]
/// [, parentScope=P][, syncAllNodes=[a,b]][, detail="…"]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BreakInfo {
    /// The `ScopeBreakReason`.
    pub reason: String,
    /// The task that cut the scope.
    pub trigger_node: Option<u64>,
    /// Its stream.
    pub trigger_stream: Option<u64>,
    /// The scope this one was split from.
    pub parent_scope: Option<u64>,
    /// The ScheMode kernels of a SYNCALL_OP_DROP split.
    pub sync_all_nodes: Vec<u64>,
    /// The pass's detail text.
    pub detail: Option<String>,
}

impl BreakInfo {
    /// Reads `text` (which may be wrapped in `[…]`).
    pub fn parse(text: &str) -> Option<BreakInfo> {
        let text = text.trim();
        let text = text
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .unwrap_or(text);
        let reason = word_after(text, "breakReason=")?.to_string();
        let detail = text.find("detail=\"").map(|at| {
            let rest = &text[at + "detail=\"".len()..];
            rest[..rest.rfind('"').unwrap_or(rest.len())].to_string()
        });
        let sync_all_nodes = text
            .find("syncAllNodes=[")
            .map(|at| {
                let rest = &text[at + "syncAllNodes=".len()..];
                numbers(&rest[..rest.find(']').map_or(rest.len(), |e| e + 1)])
            })
            .unwrap_or_default();
        Some(BreakInfo {
            reason,
            trigger_node: number_after(text, "triggerNode="),
            trigger_stream: number_after(text, "triggerStream="),
            parent_scope: number_after(text, "parentScope="),
            sync_all_nodes,
            detail,
        })
    }
}

/// A kernel `sk_fusion_fail_reasons.log` lists as unfusible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfusible {
    /// The task's `nodeId`.
    pub node_id: u64,
    /// The task as the line prints it.
    pub node: NodeRef,
    /// The kernel's function name, when the line has it.
    pub func_name: Option<String>,
    /// The reason key (`OP_UNSUPPORT`).
    pub reason: String,
    /// The sub-reason (`BINDMAP_INIT_EMPTY`), for ids 1, 8 and 9.
    pub sub: Option<String>,
    /// The pass's detail text.
    pub detail: String,
    /// The line it is on.
    pub line: usize,
}

/// A scope of the "original scopes" listing (before splitting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalScope {
    /// Its 0-based index (not a scope id).
    pub index: u64,
    /// The bit string of its scope names.
    pub flags: String,
    /// Its scope names.
    pub names: Vec<String>,
    /// Its tasks.
    pub node_ids: Vec<u64>,
}

/// A SuperKernel of the "scopes after fusion" listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FusedScope {
    /// Its `scopeId`.
    pub scope_id: u64,
    /// Its bit string.
    pub flags: String,
    /// The fused tasks (markers and cancelled events left out).
    pub node_ids: Vec<u64>,
    /// `scopeStatus`.
    pub status: Option<String>,
    /// Why it was cut from its original scope, when the pass prints it.
    pub break_info: Option<BreakInfo>,
    /// `breakReasonDetail`.
    pub break_detail: Option<String>,
    /// The line it starts on.
    pub line: usize,
}

/// `sk_fusion_fail_reasons.log`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FailReasons {
    /// Unfusible kernels.
    pub unfusible: Vec<Unfusible>,
    /// Scopes before splitting.
    pub original: Vec<OriginalScope>,
    /// SuperKernels after fusion.
    pub fused: Vec<FusedScope>,
    /// The `DEBUG_PER_OP_MAX_CORE=` flag of the fused listing's header: the per-op debug mode.
    pub per_op_mode: Option<bool>,
}

/// Reads `sk_fusion_fail_reasons.log`.
pub fn fail_reasons(text: &str) -> FailReasons {
    let mut out = FailReasons::default();
    for m in messages(text) {
        let t = m.text.trim();
        if let Some(node) = t.strip_prefix("Node ")
            && let Some(at) = node.rfind(": reason: ")
        {
            let reason_text = &node[at + ": reason: ".len()..];
            let (reason_part, detail) = match reason_text.find(", reasonDetail: ") {
                Some(d) => (
                    &reason_text[..d],
                    reason_text[d + ", reasonDetail: ".len()..].to_string(),
                ),
                None => (reason_text, String::new()),
            };
            let (reason, sub) = split_sub(reason_part);
            if let Some(node_ref) = NodeRef::parse(&node[..at]) {
                out.unfusible.push(Unfusible {
                    node_id: node_ref.node_id,
                    node: node_ref,
                    func_name: word_after(&node[..at], "funcName:").map(str::to_string),
                    reason,
                    sub,
                    detail,
                    line: m.line,
                });
            }
        } else if let Some(at) = t.find("scopes after fusion: DEBUG_PER_OP_MAX_CORE=") {
            let flag = &t[at + "scopes after fusion: DEBUG_PER_OP_MAX_CORE=".len()..];
            let flag = flag.trim().to_ascii_lowercase();
            out.per_op_mode = Some(matches!(flag.as_str(), "1" | "true" | "on" | "yes"));
        } else if t.starts_with("scopeId=") && t.contains("scopeFlags=") {
            out.original.push(OriginalScope {
                index: number_after(t, "scopeId=").unwrap_or_default(),
                flags: word_after(t, "scopeFlags=").unwrap_or_default().to_string(),
                names: names_after(t, "scopeNames=["),
                node_ids: Vec::new(),
            });
        } else if let Some(list) = t
            .strip_prefix("nodeIds:")
            .or_else(|| t.strip_prefix("continued:"))
        {
            if let Some(scope) = out.original.last_mut() {
                scope.node_ids.extend(numbers(list));
            }
        } else if t.starts_with("scopeId=") && t.contains("scopeBitFlag=") {
            out.fused.push(FusedScope {
                scope_id: number_after(t, "scopeId=").unwrap_or_default(),
                flags: word_after(t, "scopeBitFlag=")
                    .unwrap_or_default()
                    .to_string(),
                node_ids: Vec::new(),
                status: None,
                break_info: None,
                break_detail: None,
                line: m.line,
            });
        } else if let Some(list) = t.strip_prefix("fusedNodeIds=") {
            if let Some(scope) = out.fused.last_mut() {
                scope.node_ids.extend(numbers(list));
            }
        } else if let Some(status) = t.strip_prefix("scopeStatus=") {
            if let Some(scope) = out.fused.last_mut() {
                scope.status = Some(status.trim().to_string());
            }
        } else if t.starts_with("breakReason=[")
            && let Some(scope) = out.fused.last_mut()
        {
            let info_end = t.find("], breakReasonDetail=").unwrap_or(t.len());
            scope.break_info =
                BreakInfo::parse(&t["breakReason=".len()..(info_end + 1).min(t.len())]);
            scope.break_detail = t.find("breakReasonDetail=").map(|at| {
                let rest = &t[at + "breakReasonDetail=".len()..];
                rest[..rest.find(", scopeName=[").unwrap_or(rest.len())].to_string()
            });
        }
    }
    out
}

/// `OP_UNSUPPORT [BINDMAP_INIT_EMPTY]` → the key and the sub-reason.
pub fn split_sub(reason: &str) -> (String, Option<String>) {
    let reason = reason.trim();
    match reason.find(" [") {
        Some(at) if reason.ends_with(']') => (
            reason[..at].to_string(),
            Some(reason[at + 2..reason.len() - 1].to_string()),
        ),
        _ => (reason.to_string(), None),
    }
}

/// The names of a `[a, b]` list after `key`.
fn names_after(text: &str, key: &str) -> Vec<String> {
    let Some(at) = text.find(key) else {
        return Vec::new();
    };
    let rest = &text[at + key.len()..];
    let list = &rest[..rest.find(']').unwrap_or(rest.len())];
    list.split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// A SuperKernel of `sk_fused_nodes.log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkFunction {
    /// `sk_<scopeId>_<names>_start_<f>_end_<g>`.
    pub name: String,
    /// Its scope id.
    pub scope_id: u64,
    /// Its tasks, in the file's order (their position is the per-op profiling `nodeId`).
    pub node_ids: Vec<u64>,
    /// Its tasks as the lines print them.
    pub nodes: Vec<NodeRef>,
    /// The node count the header states.
    pub stated: Option<u64>,
    /// The line it starts on.
    pub line: usize,
}

impl SkFunction {
    /// True when the header's node count is not the number of node lines read: the team's
    /// own parser marks such a listing untrusted (reference §9.3).
    pub fn untrusted(&self) -> bool {
        self.stated.is_some_and(|n| n != self.node_ids.len() as u64)
    }
}

/// Reads `sk_fused_nodes.log`: `SK Function: <name>, scope id: <id>, Node Count: <n>` and the
/// node lines under it (with or without their `[i]` index).
pub fn fused_nodes(text: &str) -> Vec<SkFunction> {
    let mut out: Vec<SkFunction> = Vec::new();
    for m in messages(text) {
        let t = m.text.trim();
        if let Some(at) = t.find("SK Function:") {
            let rest = t[at + "SK Function:".len()..].trim_start();
            let end = rest.find(',').unwrap_or(rest.len());
            out.push(SkFunction {
                name: rest[..end].trim().to_string(),
                scope_id: number_after(rest, "scope id:").unwrap_or_default(),
                node_ids: Vec::new(),
                nodes: Vec::new(),
                stated: number_after(rest, "Node Count:"),
                line: m.line,
            });
        } else if let Some(node) = NodeRef::parse(t)
            && let Some(sk) = out.last_mut()
        {
            sk.node_ids.push(node.node_id);
            sk.nodes.push(node);
        }
    }
    out
}

/// A scope of `sk_scope_split.log`'s final results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitScope {
    /// The display number after `Scope`.
    pub display: u64,
    /// The real `scopeId`, in the newer form.
    pub scope_id: Option<u64>,
    /// Its bit string.
    pub flags: String,
    /// Its scope names.
    pub names: Vec<String>,
    /// The node count the line states.
    pub stated_nodes: Option<u64>,
    /// The stream count the line states.
    pub streams: Option<u64>,
    /// Why it was cut.
    pub break_info: Option<BreakInfo>,
    /// Its tasks.
    pub node_ids: Vec<u64>,
    /// Its tasks as the lines print them.
    pub nodes: Vec<NodeRef>,
}

/// What `sk_scope_split.log` says: the last result block (the final pass's, when it is there)
/// and how many blocks the log repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeSplit {
    /// The pass the block shown is of.
    pub pass: String,
    /// Its scopes.
    pub scopes: Vec<SplitScope>,
    /// Result blocks in the log (the pass writes snapshots again and again).
    pub snapshots: usize,
    /// Of those, the different ones.
    pub unique: usize,
}

/// Reads `sk_scope_split.log`. A result block starts at its `Scope split results begin`
/// header, or, in logs without headers, where a scope's display number comes again; a log
/// without one (`# no scope breaks`) has no scopes.
pub fn scope_split(text: &str) -> ScopeSplit {
    let mut blocks: Vec<(String, Vec<SplitScope>)> = Vec::new();
    for m in messages(text) {
        let t = m.text.trim();
        if let Some(rest) = t
            .trim_start_matches('=')
            .trim()
            .strip_prefix("Scope split results begin: pass=")
        {
            let pass = rest[..rest.find(',').unwrap_or(rest.len())].to_string();
            blocks.push((pass, Vec::new()));
            continue;
        }
        // A block's end line (`Scope split results end: …`) closes nothing the next
        // block's begin does not; it is no scope.
        if t.trim_start_matches('=')
            .trim()
            .starts_with("Scope split results end")
        {
            continue;
        }
        // A scope's line starts with its display number: `Scope 3 (scopeId=9): …`.
        if let Some(rest) = t.strip_prefix("Scope ")
            && rest.starts_with(|c: char| c.is_ascii_digit())
            && !rest.contains("StreamInfo[")
            && let Some(colon) = rest.find(": ")
        {
            let head = &rest[..colon];
            let display = number_after(head, "").unwrap_or_default();
            let repeated = blocks
                .last()
                .is_none_or(|(_, scopes)| scopes.iter().any(|s| s.display == display));
            if repeated && blocks.last().is_none_or(|(pass, _)| pass.is_empty()) {
                blocks.push((String::new(), Vec::new()));
            }
            let Some((_, scopes)) = blocks.last_mut() else {
                continue;
            };
            let body = &rest[colon + 2..];
            scopes.push(SplitScope {
                display,
                scope_id: number_after(head, "scopeId="),
                flags: word_after(body, "scopeBitFlags=")
                    .unwrap_or_default()
                    .to_string(),
                names: names_after(body, "scopeNames=["),
                stated_nodes: number_after(body, ""),
                streams: body
                    .find(" nodes,")
                    .and_then(|at| number_after(&body[at + " nodes,".len()..], "")),
                break_info: None,
                node_ids: Vec::new(),
                nodes: Vec::new(),
            });
            continue;
        }
        let Some((_, scopes)) = blocks.last_mut() else {
            continue;
        };
        if let Some(info) = t.strip_prefix("BreakInfo:") {
            if let Some(scope) = scopes.last_mut() {
                scope.break_info = BreakInfo::parse(info);
            }
        } else if !t.contains("StreamInfo[")
            && let Some(node) = NodeRef::parse(t)
            && let Some(scope) = scopes.last_mut()
        {
            scope.node_ids.push(node.node_id);
            scope.nodes.push(node);
        }
    }
    let snapshots = blocks.len();
    let mut unique: Vec<&(String, Vec<SplitScope>)> = Vec::new();
    for b in &blocks {
        if !unique.iter().any(|u| u.1 == b.1) {
            unique.push(b);
        }
    }
    let unique = unique.len();
    let last = blocks
        .iter()
        .rposition(|(pass, _)| pass == "ScopeSplitPipelineFinal")
        .or(blocks.len().checked_sub(1));
    let (pass, scopes) = last.map(|at| blocks.swap_remove(at)).unwrap_or_default();
    ScopeSplit {
        pass,
        scopes,
        snapshots,
        unique,
    }
}

/// A task of `sk_node_detail.log`: fusibility right after scope tagging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeDetail {
    /// The task's `nodeId`.
    pub node_id: u64,
    /// The task as the line prints it.
    pub node: NodeRef,
    /// `type=`.
    pub node_type: String,
    /// `scopeFlags=`.
    pub flags: String,
    /// `isFusible=`.
    pub fusible: bool,
    /// `isScheModeOn:` of a kernel's `KernelInfos`.
    pub sche_mode: Option<bool>,
}

/// Reads `sk_node_detail.log`.
pub fn node_detail(text: &str) -> Vec<NodeDetail> {
    messages(text)
        .iter()
        .filter_map(|m| {
            let t = m.text.trim();
            let rest = t.strip_prefix("Processed node ")?;
            let at = rest.rfind(": type=")?;
            let tail = &rest[at..];
            let node = NodeRef::parse(&rest[..at])?;
            Some(NodeDetail {
                node_id: node.node_id,
                node,
                node_type: word_after(tail, "type=")?.to_string(),
                flags: word_after(tail, "scopeFlags=")
                    .unwrap_or_default()
                    .to_string(),
                fusible: number_after(tail, "isFusible=")? != 0,
                sche_mode: number_after(rest, "isScheModeOn:").map(|n| n != 0),
            })
        })
        .collect()
}

/// A task line of `sk_device_args.log`: a queue position and the graph task it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceTask {
    /// `AIC` or `AIV`, from the `TaskQue` line before it.
    pub queue: String,
    /// Its position in the queue.
    pub position: u64,
    /// `type=`.
    pub task_type: String,
    /// The graph task (`None` for synthesized tasks, written as 2^64−1).
    pub node_id: Option<u64>,
}

/// Reads the task lines of `sk_device_args.log` (header, entries and DFX lines are passed over).
pub fn device_args(text: &str) -> Vec<DeviceTask> {
    let mut queue = String::new();
    let mut out = Vec::new();
    for m in messages(text) {
        let t = m.text.trim();
        if let Some(at) = t.find(" TaskQue: ") {
            queue = t[..at].trim().to_string();
        } else if t.starts_with('[') && t.contains("] type=") {
            let Some(position) = number_after(t, "[") else {
                continue;
            };
            out.push(DeviceTask {
                queue: queue.clone(),
                position,
                task_type: word_after(t, "type=").unwrap_or_default().to_string(),
                node_id: number_after(t, "nodeId=").filter(|&n| n != u64::MAX),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_go_and_continuations_join() {
        let text = "2026-07-30 10:00:01.123 [4711:1403] [INFO] [sk_graph.cpp:1319] [Dump] Node a\n\
                    2026-07-30 10:00:01.124 [4711:1403] [INFO] [sk_graph.cpp:1319] [Dump] [CONT:1] bc\n\
                    plain line\n";
        let m = messages(text);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].text, "Node abc");
        assert_eq!(m[1].text, "plain line");
        assert_eq!(m[1].line, 3);
    }

    #[test]
    fn break_info_reads_every_field() {
        let b = BreakInfo::parse(
            "[breakReason=SYNCALL_OP_DROP, triggerNode=12, triggerStream=1, parentScope=3, \
             syncAllNodes=[7, 9], detail=\"ScheMode core drop at node 12: merged(24,48) -> cur(8,16)\"]",
        )
        .unwrap();
        assert_eq!(b.reason, "SYNCALL_OP_DROP");
        assert_eq!(
            (b.trigger_node, b.trigger_stream, b.parent_scope),
            (Some(12), Some(1), Some(3))
        );
        assert_eq!(b.sync_all_nodes, vec![7, 9]);
        assert!(b.detail.unwrap().ends_with("cur(8,16)"));
    }
}
