//! The entry code the SuperKernel compiler generates for a segment (reference
//! ascend_superkernel.md §5): the source file in its single-stream or two-stream form, its
//! compile flags, kernel type and block dim, and where every line came from.
//!
//! What the dump does not say (the kernel's hash name, sub-kernel symbols of uncompiled ops,
//! argument counts, preload sizes, event ids) is filled in and listed in [`EntryCode::notes`],
//! which also head the file as comments.

mod blocks;
pub mod compare;
mod dual;
pub mod files;
pub mod settings;
mod single;
pub mod streams;
pub mod subop;
mod writer;

use crate::fusion::kernel::{self, KernelType, SkKernel};
use crate::fusion::options::SkOptions;
use crate::fusion::plan::{Context, KernelInfo, Plan, Segment};
use crate::graph::{Graph, OpId};
use crate::kernel_meta::KernelMeta;
use crate::target::Target;
use settings::Settings;
use std::ops::Range;
use subop::SubOp;
use writer::{Writer, indent};

/// Where a line of generated code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// The file's frame: includes, helpers, declarations, entry set-up and trailer.
    #[default]
    Frame,
    /// A sub-op: its call block, flushes, records and debug tails.
    Op(OpId),
    /// The instruction-cache preload of a sub-op's kernel.
    Preload(OpId),
    /// A barrier or sync that orders sub-op `from` before sub-op `to`.
    Barrier {
        /// The sub-op that must finish first.
        from: OpId,
        /// The sub-op that waits.
        to: OpId,
    },
    /// Notify or wait of a sub-op for ops outside the segment.
    Event(OpId),
}

impl Origin {
    /// The sub-op the line belongs to (for a barrier, the one that waits).
    pub fn op(self) -> Option<OpId> {
        match self {
            Origin::Frame => None,
            Origin::Op(id) | Origin::Preload(id) | Origin::Event(id) => Some(id),
            Origin::Barrier { to, .. } => Some(to),
        }
    }
}

/// The lines of `op`'s call block among lines of `origins`: its first to its last
/// [`Origin::Op`] line.
pub fn call_lines(origins: &[Origin], op: OpId) -> Option<Range<usize>> {
    let first = origins.iter().position(|&o| o == Origin::Op(op))?;
    let last = origins.iter().rposition(|&o| o == Origin::Op(op))?;
    Some(first..last + 1)
}

/// Which form the generator used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// One entry calling every sub-kernel in order.
    SingleStream,
    /// Separate cube and vector functions (`stream-fusion=1`, sub-ops on two streams).
    TwoStream,
}

/// The generated entry source of one segment.
#[derive(Debug, Clone)]
pub struct EntryCode {
    /// The segment's name.
    pub segment: String,
    /// The SuperKernel's kernel name used in the file.
    pub kernel_name: String,
    /// The entry function's name (`auto_gen_<kernel name>_kernel`).
    pub entry_name: String,
    /// The form.
    pub form: Form,
    /// Kernel type and block dim the SuperKernel launches with.
    pub kernel: SkKernel,
    /// Flags the SuperKernel object is compiled with.
    pub flags: Vec<String>,
    /// The sub-ops, as read from the graph.
    pub sub_ops: Vec<SubOp>,
    /// What was assumed or inferred, in plain words (also the file's first comments).
    pub notes: Vec<String>,
    /// The source text.
    pub source: String,
    origins: Vec<Origin>,
}

impl EntryCode {
    /// The origin of each line (0-based).
    pub fn origins(&self) -> &[Origin] {
        &self.origins
    }

    /// Runs of consecutive lines with the same origin.
    pub fn ranges(&self) -> Vec<(Range<usize>, Origin)> {
        let mut out: Vec<(Range<usize>, Origin)> = Vec::new();
        for (line, &origin) in self.origins.iter().enumerate() {
            match out.last_mut() {
                Some((range, last)) if *last == origin && range.end == line => range.end += 1,
                _ => out.push((line..line + 1, origin)),
            }
        }
        out
    }

    /// The lines of `op`'s call block: its first to its last [`Origin::Op`] line.
    pub fn call_lines(&self, op: OpId) -> Option<Range<usize>> {
        call_lines(&self.origins, op)
    }

    /// A file name for the source, safe whatever the segment's name contains.
    pub fn file_name(&self) -> String {
        let mut stem = subop::ident(&self.segment);
        stem.truncate(120);
        format!("{stem}.cpp")
    }

    /// The JSON sidecar: kernel, flags, notes and the line ↔ op map (lines 1-based,
    /// inclusive).
    pub fn sidecar(&self, graph: &Graph) -> serde_json::Value {
        let name = |id: OpId| graph.op(id).name.clone();
        let lines: Vec<serde_json::Value> = self
            .ranges()
            .into_iter()
            .filter(|(_, o)| *o != Origin::Frame)
            .map(|(range, origin)| {
                let mut entry = serde_json::json!({
                    "first": range.start + 1,
                    "last": range.end,
                });
                let (kind, fields) = match origin {
                    Origin::Frame => ("frame", serde_json::json!({})),
                    Origin::Op(id) => ("call", serde_json::json!({ "op": name(id) })),
                    Origin::Preload(id) => ("preload", serde_json::json!({ "op": name(id) })),
                    Origin::Event(id) => ("event", serde_json::json!({ "op": name(id) })),
                    Origin::Barrier { from, to } => (
                        "barrier",
                        serde_json::json!({ "from": name(from), "to": name(to) }),
                    ),
                };
                entry["kind"] = kind.into();
                if let (Some(map), serde_json::Value::Object(more)) =
                    (entry.as_object_mut(), fields)
                {
                    map.extend(more);
                }
                entry
            })
            .collect();
        serde_json::json!({
            "segment": self.segment,
            "file": self.file_name(),
            "kernel_name": self.kernel_name,
            "entry": self.entry_name,
            "form": match self.form {
                Form::SingleStream => "single_stream",
                Form::TwoStream => "two_stream",
            },
            "kernel_type": self.kernel.kernel_type.name(),
            "block_dim": self.kernel.block_dim,
            "flags": self.flags,
            "sub_ops": self.sub_ops.iter().map(|s| serde_json::json!({
                "op": name(s.id),
                "symbol": s.symbol,
                "vector_symbol": s.vector_symbol,
                "symbol_from_dump": s.symbol_from_dump,
                "op_info": s.op_info.as_ref().map(|i| i.file.to_string_lossy()),
                "kernel_type": s.kernel.kernel_type.name(),
                "block_dim": s.kernel.block_dim,
                "param_offset": s.param_offset,
            })).collect::<Vec<_>>(),
            "notes": self.notes,
            "lines": lines,
        })
    }
}

/// Names and argument slots shared by both forms, and the pieces they write alike.
pub(crate) struct Layout<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) kernel: SkKernel,
    pub(crate) kernel_name: String,
    pub(crate) entry_name: String,
    pub(crate) workspace_param: Option<usize>,
    pub(crate) profiling_param: Option<usize>,
    /// The feed-sync-all workspace's size, when there is one.
    pub(crate) workspace_size: Option<u64>,
    pub(crate) graph: &'a Graph,
}

impl Layout<'_> {
    /// The header, the helpers and one declaration per distinct sub-kernel.
    fn head(&self, w: &mut Writer, subs: &[SubOp]) {
        w.put(&blocks::header(
            self.kernel.kernel_type,
            self.settings.split,
            self.settings.target,
        ));
        if self.settings.profiling {
            w.put(blocks::PROFILING_HELPERS);
        }
        w.put(blocks::LOCK_HELPERS);
        let mut declared = std::collections::HashSet::new();
        for sub in subs {
            if declared.insert(sub.kernel_name.as_str()) {
                w.put(&blocks::declarations(sub, self.settings.split));
            }
        }
    }

    /// The entry's first lines: its name, the argument table, the feed-sync-all workspace and
    /// the profiling ring.
    fn entry_setup(&self, w: &mut Writer) {
        w.put(&blocks::entry_line(
            &self.entry_name,
            self.settings.func_align,
        ));
        w.put("    GM_ADDR *param_base = (GM_ADDR *)get_para_base();\n");
        if self.settings.target == Target::Dav2201 {
            w.put(blocks::FFTS);
        }
        if let Some(p) = self.workspace_param {
            w.put(&format!(
                "    GM_ADDR workspace = param_base[{p}];\n    \
                 AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr = workspace;\n"
            ));
        }
        if let Some(p) = self.profiling_param {
            w.put(&format!(
                "    GM_ADDR profilingPtr = param_base[{p}];\n    \
                 uint32_t taskId = *((__gm__ uint32_t*)(get_para_base() + 8 * {}));\n    \
                 InitProfiling(taskId, profilingPtr);\n",
                p + 1
            ));
        }
    }

    /// The comment that opens a sub-op's part, and skope's line naming its op.
    fn op_head(&self, w: &mut Writer, sub: &SubOp) {
        let op = self.graph.op(sub.id);
        w.put(&format!(
            "    //begin func call of sub operator {}\n    // skope: op {} ({})\n",
            sub.kernel_name,
            comment_text(&op.name),
            comment_text(&op.op_type)
        ));
    }

    /// The call of sub-op `k` of `count`: feed-sync-all's switch, the profiling record, the
    /// call block with its flushes, and the debug flush.
    fn call(&self, w: &mut Writer, sub: &SubOp, k: usize, count: usize) {
        let settings = self.settings;
        let feed_sync = settings.feed_sync_all && self.feeds_sync_all(sub);
        if feed_sync {
            w.put(&indent(&blocks::feed_sync_config(k, count), "    "));
        } else if settings.feed_sync_all {
            w.put("    AscendC::g_superKernelAutoSyncAllEnable = false;\n");
        }
        self.record(w, k + 1, true);
        let flush = match &sub.op_info {
            Some(info) => blocks::Flush {
                before: info.dcci_before,
                after: info.dcci_after,
            },
            None => {
                let op_type = &self.graph.op(sub.id).op_type;
                blocks::Flush {
                    before: settings.dcci_before.iter().any(|t| t == op_type),
                    after: settings.dcci_after.iter().any(|t| t == op_type),
                }
            }
        };
        let shape = blocks::CallShape { flush, feed_sync };
        w.put(&indent(&blocks::call(sub, settings.split, shape), "    "));
        w.put(&indent(&blocks::debug_dcci(settings), "    "));
    }

    /// Whether feed-sync-all feeds the SyncAll of `sub`: its kernel calls SyncAll (op-info
    /// `sub_op_with_sync_all`) on fewer cores than the SuperKernel launches (the compiler's
    /// `judge_need_feed_sync_all`).
    fn feeds_sync_all(&self, sub: &SubOp) -> bool {
        if !sub.op_info.as_ref().is_some_and(|i| i.with_sync_all) {
            return false;
        }
        let (own, sk) = (sub.kernel, self.kernel);
        if own.block_dim == sk.block_dim && own.kernel_type == sk.kernel_type {
            return false;
        }
        let cores = match (sk.kernel_type, own.kernel_type) {
            (KernelType::MixAic1_0 | KernelType::MixAiv1_0 | KernelType::MixAic1_1, _) => {
                sk.block_dim
            }
            (_, KernelType::AivOnly | KernelType::MixAiv1_0) => sk.block_dim * 2,
            _ => sk.block_dim,
        };
        own.block_dim < cores
    }

    /// `RecordProfiling` of the sub-op at `index` (1-based), with `profiling=1`.
    fn record(&self, w: &mut Writer, index: usize, start: bool) {
        if self.settings.profiling {
            w.put(&format!("    RecordProfiling({index}, 0x8, {start});\n"));
        }
    }
}

/// `text` made safe inside a `//` comment: control and direction characters become `?` and a
/// backslash (which would continue the comment onto the next line) becomes `/`.
pub fn comment_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\\' => '/',
            c if crate::text::sanitize(c.encode_utf8(&mut [0; 4])).len() != c.len_utf8() => '?',
            c => c,
        })
        .collect()
}

/// The entry code of the segment of `plan` named `name`, or of every segment (`skope
/// codegen`); an error naming some segments when none has that name.
pub fn entries(
    cx: &Context,
    meta: &KernelMeta,
    plan: &Plan,
    name: Option<&str>,
) -> Result<Vec<EntryCode>, String> {
    let segments: Vec<&Segment> = plan.scopes.iter().flat_map(|s| &s.segments).collect();
    let chosen = match name {
        None => segments,
        Some(name) => match segments.iter().find(|s| s.name == name) {
            Some(s) => vec![*s],
            None => {
                const NAMED: usize = 10;
                let known: Vec<String> = segments
                    .iter()
                    .take(NAMED)
                    .map(|s| crate::text::sanitize(&s.name).into_owned())
                    .collect();
                return Err(format!(
                    "no segment named {:?}; segments: {}{} (see `skope report`)",
                    crate::text::sanitize(name),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    },
                    if segments.len() > known.len() {
                        ", …"
                    } else {
                        ""
                    }
                ));
            }
        },
    };
    Ok(chosen.iter().map(|s| entry(cx, meta, s)).collect())
}

/// Generates the entry code of `segment`, with what `meta` holds of its sub-kernels.
pub fn entry(cx: &Context, meta: &KernelMeta, segment: &Segment) -> EntryCode {
    let graph = cx.graph();
    let options = SkOptions::parse(&segment.options);
    let target = cx.target();
    let settings = Settings::of(&options).for_target(target.target);
    let (sub_ops, next_param, facts) = subop::sub_ops(cx, &segment.ops, meta);
    let options_text = match segment.options.trim() {
        "" => "default options".to_string(),
        text => format!("options \"{text}\""),
    };
    let mut notes = vec![format!(
        "Preview of the entry code the SuperKernel compiler generates for segment {} \
         (fused node {}), {options_text}. Lines starting `// skope:` are skope's.",
        segment.name, segment.fused_node
    )];
    notes.push(
        "GE names the kernel te_superkernel_<hash of its op list>; the hash is not in the \
         dump, so the segment name stands in for it."
            .to_string(),
    );
    notes.push(match target.target {
        Target::Dav2201 => format!("Target {}.", target.words()),
        Target::Dav3510 => format!(
            "Target {}: the guards read __NPU_ARCH__ == 3510 and no FFTS base address is set; \
             GE mode's SuperKernel path is not supported on Ascend 950, so no compiler of GE \
             mode writes this code there.",
            target.words()
        ),
    });
    let with_info = sub_ops.iter().filter(|s| s.op_info.is_some()).count();
    let kernel = if with_info > 0 {
        // The op-infos' kernel types and block dims are the compiler's own inputs.
        let subs: Vec<_> = sub_ops.iter().map(|s| s.kernel).collect();
        match kernel::superkernel(&subs, &options) {
            Ok(k) => k,
            Err(message) => {
                notes.push(format!(
                    "The compiler rejects these options ({message}); the code shows the \
                     sub-ops' own kernel type and block dim."
                ));
                kernel::superkernel(&subs, &SkOptions::default())
                    .unwrap_or(segment_kernel(&sub_ops))
            }
        }
    } else {
        match &segment.kernel {
            KernelInfo::Known(k) => *k,
            other => {
                if let KernelInfo::Fails(message) = other {
                    notes.push(format!(
                        "The compiler rejects these options ({message}); the code shows the \
                         sub-ops' own kernel type and block dim."
                    ));
                }
                segment_kernel(&sub_ops)
            }
        }
    };
    op_info_notes(&mut notes, &sub_ops, meta, &settings, graph);
    let placeholders: Vec<&str> = sub_ops
        .iter()
        .filter(|s| !s.symbol_from_dump)
        .map(|s| graph.op(s.id).name.as_str())
        .collect();
    if !placeholders.is_empty() {
        notes.push(format!(
            "Placeholder symbols (placeholder_<op name>) for {}: the dump has no {} \
             (taken before compilation).",
            list(&placeholders),
            subop::ATTR_KERNEL_NAME
        ));
    }
    let assumed: Vec<&str> = sub_ops
        .iter()
        .filter(|s| s.kernel_assumed)
        .map(|s| graph.op(s.id).name.as_str())
        .collect();
    if !assumed.is_empty() {
        notes.push(format!(
            "Kernel type and block dim assumed AIV_ONLY × 1 for {}: the dump lacks {} or \
             the block dim.",
            list(&assumed),
            kernel::ATTR_CORE_TYPE
        ));
    }
    let ratio_assumed: Vec<&str> = sub_ops
        .iter()
        .filter(|s| s.kernel.ratio_assumed)
        .map(|s| graph.op(s.id).name.as_str())
        .collect();
    if !ratio_assumed.is_empty() {
        notes.push(format!(
            "Assumed MIX_AIC_1_2 for {}: the dump says only \"mixed\" and has no {}.",
            list(&ratio_assumed),
            kernel::ATTR_TASK_RATIO
        ));
    }
    if with_info < sub_ops.len() {
        let whose = if meta.op_infos.is_empty() {
            "no op-info loaded (--kernel-meta DIR reads the compiler's kernel_meta)"
        } else {
            "for sub-ops without op-info"
        };
        notes.push(format!(
            "Inferred, {whose}: argument offsets count each sub-kernel's data inputs, outputs \
             and one workspace; the kernel's symbol is <_kernelname>__kernel0_middle."
        ));
    }
    notes.push(format!(
        "Inferred: preload sizes use {} × 2 KiB (the compiler reads the sub-kernel object's \
         text size, which neither the dump nor the op-info has).",
        blocks::PRELOAD_UNITS
    ));
    event_notes(&mut notes, &sub_ops, &facts);
    // Two streams run as two functions when consecutive sub-ops on different streams are not
    // linked by an event (the compiler's `check_sp_has_two_real_stream`).
    let unlinked = sub_ops.windows(2).any(|pair| {
        pair[0].stream != pair[1].stream
            && !pair[0]
                .notifies
                .iter()
                .any(|e| pair[1].waits.iter().any(|r| r.id == e.id))
    });
    let form = if settings.stream_fusion && unlinked {
        Form::TwoStream
    } else {
        if unlinked {
            notes.push(
                "Consecutive sub-ops on different streams are not linked by an event: without \
                 stream-fusion=1 the compiler stops with \"super kernel do not support more \
                 than 2 real stream\"."
                    .to_string(),
            );
        }
        Form::SingleStream
    };
    // The feed-sync-all workspace and the profiling ring follow the sub-ops' arguments; with
    // both, the compiler gives them the same argument.
    let workspace_param = settings.feed_sync_all.then_some(next_param);
    let profiling_param = settings.profiling.then_some(next_param);
    if workspace_param.is_some() && profiling_param.is_some() {
        notes.push(format!(
            "feed-sync-all and profiling both read argument {next_param}, as the compiler \
             writes them."
        ));
    }
    let kernel_name = subop::ident(&format!("te_superkernel_{}", segment.name));
    let layout = Layout {
        settings: &settings,
        kernel,
        entry_name: format!("auto_gen_{kernel_name}_kernel"),
        kernel_name,
        workspace_param,
        profiling_param,
        workspace_size: settings
            .feed_sync_all
            .then(|| blocks::workspace_size(kernel.kernel_type, kernel.block_dim, sub_ops.len())),
        graph,
    };
    // About 2 KiB of code a sub-op: room for it at once, not grown a doubling at a time.
    let mut w = Writer::with_capacity(2048 * (sub_ops.len() + 4));
    for note in &notes {
        w.line(0, &format!("// skope: {}", comment_text(note)));
    }
    match form {
        Form::SingleStream => single::generate(&mut w, &sub_ops, &layout),
        Form::TwoStream => dual::generate(&mut w, &sub_ops, &layout),
    }
    let (source, origins) = w.finish();
    let flags = settings.compile_flags(form == Form::SingleStream && settings.early_start != 0);
    EntryCode {
        segment: segment.name.clone(),
        kernel_name: layout.kernel_name,
        entry_name: layout.entry_name,
        form,
        kernel,
        flags,
        sub_ops,
        notes,
        source,
        origins,
    }
}

/// The kernel of `subs` under default options, or MIX_AIV_1_0 × 1 when there is none.
fn segment_kernel(subs: &[SubOp]) -> SkKernel {
    let kernels: Vec<_> = subs.iter().map(|s| s.kernel).collect();
    kernel::superkernel(&kernels, &SkOptions::default()).unwrap_or(SkKernel {
        kernel_type: KernelType::MixAiv1_0,
        block_dim: 1,
        forced: false,
    })
}

/// Which sub-ops the op-infos of `meta` described, and where the compiler would stop on
/// them, in words.
fn op_info_notes(
    notes: &mut Vec<String>,
    subs: &[SubOp],
    meta: &KernelMeta,
    settings: &Settings,
    graph: &Graph,
) {
    if meta.op_infos.is_empty() {
        return;
    }
    let names = |with_info: bool| -> Vec<&str> {
        subs.iter()
            .filter(|s| s.op_info.is_some() == with_info)
            .map(|s| graph.op(s.id).name.as_str())
            .collect()
    };
    let (described, missing) = (names(true), names(false));
    if !described.is_empty() {
        notes.push(format!(
            "Kernel names, symbols, kernel types, block dims, argument counts and early-start, \
             dcci and sync-all flags of {} come from their op-info in kernel_meta.",
            list(&described)
        ));
    }
    if !missing.is_empty() {
        notes.push(format!(
            "No op-info in kernel_meta for {} (matched by _kernelname to kernelName or \
             binFileName): their facts come from the dump.",
            list(&missing)
        ));
    }
    for sub in subs {
        let Some(info) = &sub.op_info else { continue };
        if let Some(split) = info.split_mode.filter(|&m| m != settings.split) {
            notes.push(format!(
                "The compiler stops: {} has split_mode {split} in its op-info but the \
                 SuperKernel's split-mode is {}.",
                info.kernel_name, settings.split
            ));
        }
        if info.dynamic {
            notes.push(format!(
                "Not shown: {} is a dynamic-shape kernel (dynamic_func_names in its op-info); \
                 the compiler picks its function by tiling key at run time \
                 (switch_func_of_/call_func_of_, three more arguments); skope shows a static \
                 call.",
                info.kernel_name
            ));
        }
        if info.debug_dump {
            notes.push(format!(
                "Not shown: {} has printf, assert or timestamp in debugOptions; the compiler \
                 adds a dump area to the SuperKernel's arguments.",
                info.kernel_name
            ));
        }
        if settings.early_start == 0 && (info.early_start_set || info.early_start_wait) {
            notes.push(format!(
                "The compiler stops: {} has early-start flags in its op-info but the \
                 SuperKernel's early-start is 0.",
                info.kernel_name
            ));
        }
    }
}

/// What the events rest on, in words.
fn event_notes(notes: &mut Vec<String>, subs: &[SubOp], facts: &subop::EventFacts) {
    let events: usize = subs.iter().map(|s| s.notifies.len() + s.waits.len()).sum();
    if events > 0 {
        notes.push(
            "Events are GE's Send/Recv pairs in the dump, with their event ids; an event \
             between two sub-ops keeps its lock argument but gets no notify or wait."
                .to_string(),
        );
    }
    if facts.numbered > 0 {
        notes.push(format!(
            "{} Send/Recv node(s) have no event_id: skope numbers them from -1 down.",
            facts.numbered
        ));
    }
    if facts.moved > 0 {
        notes.push(format!(
            "{} event(s) of the first sub-op's receives or the last sub-op's sends belong to \
             the SuperKernel node itself: GE moves them there.",
            facts.moved
        ));
    }
    if facts.unpaired {
        notes.push(
            "Sub-ops on different streams depend on each other without a Send/Recv pair in the \
             dump (taken before GE assigned streams): no events are shown."
                .to_string(),
        );
    }
}

/// `a, b, c` or `a, b, c and 4 more`.
fn list(names: &[&str]) -> String {
    const SHOWN: usize = 3;
    let mut text = names
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}
