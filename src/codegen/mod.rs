//! The entry code the SuperKernel compiler generates for a segment (reference
//! ascend_superkernel.md §5): the source file in its single-stream or two-stream form, its
//! compile flags, kernel type and block dim, and where every line came from.
//!
//! What the dump does not say (the kernel's hash name, sub-kernel symbols of uncompiled ops,
//! argument counts, preload sizes, event ids) is filled in and listed in [`EntryCode::notes`],
//! which also head the file as comments.

mod blocks;
pub mod dual;
pub mod files;
pub mod settings;
mod single;
pub mod subop;
mod writer;

use crate::fusion::kernel::{self, KernelType, SkKernel};
use crate::fusion::options::SkOptions;
use crate::fusion::plan::{Context, KernelInfo, Segment};
use crate::graph::{Graph, OpId};
use settings::Settings;
use std::ops::Range;
use subop::{Event, SubOp};
use writer::Writer;

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
        let first = self.origins.iter().position(|&o| o == Origin::Op(op))?;
        let last = self.origins.iter().rposition(|&o| o == Origin::Op(op))?;
        Some(first..last + 1)
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
                "symbol_from_dump": s.symbol_from_dump,
                "kernel_type": s.kernel.kernel_type.name(),
                "block_dim": s.kernel.block_dim,
                "param_offset": s.param_offset,
            })).collect::<Vec<_>>(),
            "notes": self.notes,
            "lines": lines,
        })
    }
}

/// Names and argument slots shared by both forms.
pub(crate) struct Layout<'a> {
    pub(crate) settings: &'a Settings,
    pub(crate) kernel: SkKernel,
    pub(crate) kernel_name: String,
    pub(crate) entry_name: String,
    pub(crate) workspace_param: Option<usize>,
    pub(crate) profiling_param: Option<usize>,
    pub(crate) graph: &'a Graph,
}

impl Layout<'_> {
    /// `is_inf__kernel0 (op IsInf_3, IsInf)` for the comment above a sub-op.
    pub(crate) fn label(&self, sub: &SubOp) -> String {
        let op = self.graph.op(sub.id);
        let short = sub.symbol.strip_suffix("_middle").unwrap_or(&sub.symbol);
        comment_text(&format!("{short} (op {}, {})", op.name, op.op_type))
    }

    /// The sub-op's op type.
    pub(crate) fn op_type(&self, sub: &SubOp) -> &str {
        &self.graph.op(sub.id).op_type
    }

    /// The comment above an event's notify or wait: `sub` `verb` (waits for / notifies) the
    /// op outside.
    pub(crate) fn describe_event(&self, sub: &SubOp, event: &Event, verb: &str) -> String {
        let short = sub.symbol.strip_suffix("_middle").unwrap_or(&sub.symbol);
        comment_text(&format!(
            "kernel={short}, ev={}, param_offset={}: {verb} op {}",
            event.id,
            event.param,
            self.graph.op(event.outside).name
        ))
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

/// Generates the entry code of `segment`.
pub fn entry(cx: &Context, segment: &Segment) -> EntryCode {
    let graph = cx.graph();
    let options = SkOptions::parse(&segment.options);
    let settings = Settings::of(&options);
    let (sub_ops, next_param) = subop::sub_ops(cx, &segment.ops);
    let options_text = match segment.options.trim() {
        "" => "default options".to_string(),
        text => format!("options \"{text}\""),
    };
    let mut notes = vec![format!(
        "Preview of the entry code the SuperKernel compiler generates for segment {} \
         (fused node {}), {options_text}.",
        segment.name, segment.fused_node
    )];
    notes.push(
        "GE names the kernel te_superkernel_<hash>; the hash is not in the dump, so the \
         segment name stands in for it."
            .to_string(),
    );
    let kernel = match &segment.kernel {
        KernelInfo::Known(k) => *k,
        other => {
            if let KernelInfo::Fails(message) = other {
                notes.push(format!(
                    "The compiler rejects these options ({message}); the code shows the \
                     sub-ops' own kernel type and block dim."
                ));
            }
            let subs: Vec<_> = sub_ops.iter().map(|s| s.kernel).collect();
            kernel::superkernel(&subs, &SkOptions::default()).unwrap_or(SkKernel {
                kernel_type: KernelType::MixAiv1_0,
                block_dim: 1,
                forced: false,
            })
        }
    };
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
    notes.push(format!(
        "Inferred: argument offsets count each sub-kernel's data inputs, outputs and one \
         workspace; preload sizes use {} × 2 KiB (the kernel's text size is not in the dump).",
        blocks::PRELOAD_UNITS
    ));
    if sub_ops
        .iter()
        .any(|s| !s.waits.is_empty() || !s.notifies.is_empty())
    {
        notes.push(
            "Inferred: events are the graph's dependencies with ops outside the segment on \
             other streams; their ids are numbered here."
                .to_string(),
        );
    }
    let streams = {
        let mut s: Vec<u32> = segment.ops.iter().map(|&id| cx.stream_of(id)).collect();
        s.sort_unstable();
        s.dedup();
        s.len()
    };
    let form = if settings.stream_fusion && streams > 1 {
        notes.push(
            "Inferred: in the two-stream form, cross-core flags follow the graph's \
             dependencies between sub-ops that share no core kind."
                .to_string(),
        );
        Form::TwoStream
    } else {
        Form::SingleStream
    };
    let mut next = next_param;
    let mut take = |on: bool| {
        on.then(|| {
            next += 1;
            next - 1
        })
    };
    let workspace_param = take(settings.feed_sync_all && form == Form::SingleStream);
    let profiling_param = take(settings.profiling && form == Form::SingleStream);
    let kernel_name = format!("te_superkernel_{}", subop::ident(&segment.name));
    let layout = Layout {
        settings: &settings,
        kernel,
        entry_name: format!("auto_gen_{kernel_name}_kernel"),
        kernel_name,
        workspace_param,
        profiling_param,
        graph,
    };
    let mut w = Writer::default();
    for note in &notes {
        w.line(0, &format!("// {}", comment_text(note)));
    }
    match form {
        Form::SingleStream => single::generate(&mut w, &sub_ops, &layout),
        Form::TwoStream => dual::generate(&mut w, &sub_ops, &layout, graph),
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
