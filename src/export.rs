//! The scopes of a plan as code to put in the model: TorchAir `with super_kernel(...)` blocks
//! and the `aclskScopeBegin/End` C form, each listing the ops the block must enclose in
//! execution order, the ops inside its range that break it, and the ops kept out of fusion.

use crate::fusion::marks::OpMark;
use crate::fusion::options::SkOptions;
use crate::fusion::plan::ScopePlan;
use crate::graph::OpId;
use crate::workspace::Workspace;
use std::fmt::Write as _;

/// A form the scopes are written in (`skope export --format`; the docs are its help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Form {
    /// The plan file (JSON), as `w` saves it.
    Plan,
    /// Python: `with torchair.scope.super_kernel(...)` blocks.
    Torchair,
    /// C: `aclskScopeBegin/End` around each scope.
    Acl,
    /// The profiles given with `--profiles` as a Chrome trace (Perfetto, chrome://tracing),
    /// marked with the plan's segments and breaks.
    Trace,
    /// A Model Explorer graph with node-data files, into the directory `-o` names.
    ModelExplorer,
}

/// The scopes of `ws` written as `form`; why not, when the graph's fusion system takes no
/// scopes or writes them only in a form of its own.
pub fn text(ws: &Workspace, form: Form) -> Result<String, String> {
    if let Some(why) = refusal(ws) {
        return Err(why);
    }
    if let Some(own) = ws.own_scope_code() {
        return match form {
            Form::Torchair => Ok(own.code),
            Form::Plan | Form::Acl | Form::Trace | Form::ModelExplorer => {
                Err(format!("{}: {}", ws.source().file, own.only))
            }
        };
    }
    Ok(match form {
        Form::Plan => crate::planfile::PlanFile::of(ws).to_json(),
        Form::Torchair => torchair(ws),
        Form::Acl => acl(ws),
        Form::Trace | Form::ModelExplorer => {
            return Err("--format trace and model-explorer write files of their own".into());
        }
    })
}

/// Why the scopes of `ws` cannot be written as code, when its fusion system takes no scopes
/// (MindSpore's graph kernel fusion: its composites come from the graph kernel flags).
pub fn refusal(ws: &Workspace) -> Option<String> {
    let why = ws.no_scope_code()?;
    let file = &ws.source().file;
    let mut text = format!("{file}: {why}");
    if ws.options_model() == crate::planner::OptionsModel::GraphFlags {
        text.push_str(&format!(
            "\n  hint: `skope options --graph-kernel --graph {file}` says what each flag would \
             change in this graph"
        ));
    }
    Some(text)
}

/// How the ops of a scope's range relate to it.
enum Line {
    /// A member of the scope.
    Member(OpId),
    /// A member the pass cannot fuse: it breaks the scope (the reason in words).
    Unfusible(OpId, String),
    /// A member kept out of fusion (`super_kernel(None)`).
    DoNotFuse(OpId),
    /// An op of another scope or of none between the scope's ops: it breaks the scope.
    Foreign(OpId),
}

/// The ops from the scope's first member to its last, in execution order (ops the pass
/// ignores are left out unless they are members).
fn lines(ws: &Workspace, scope: &ScopePlan) -> Vec<Line> {
    let graph = ws.graph();
    let marks = ws.marks();
    let member =
        |id: OpId| matches!(marks.get(id), OpMark::Member { scope: s, .. } if s == scope.mark);
    let order = graph.exec_order();
    let positions: Vec<usize> = order
        .iter()
        .enumerate()
        .filter(|(_, id)| member(**id))
        .map(|(p, _)| p)
        .collect();
    let (Some(&first), Some(&last)) = (positions.first(), positions.last()) else {
        return Vec::new();
    };
    let ignored = |id: OpId| {
        ws.context().verdicts().get(id).verdict == crate::fusion::verdict::Verdict::Ignored
    };
    let this = ws.plan().scope_of_mark(scope.mark);
    let breaks_this = |id: OpId| {
        ws.index()
            .breaks_of(id)
            .find(|r| Some(r.scope as usize) == this)
            .map(|r| {
                let reason = crate::fusion::index::break_at(ws.plan(), r).reason;
                crate::fusion::plan::describe_reason(ws.marks(), reason)
            })
    };
    order[first..=last]
        .iter()
        .filter_map(|&id| {
            if member(id) {
                Some(match breaks_this(id) {
                    Some(reason) => Line::Unfusible(id, reason),
                    None => Line::Member(id),
                })
            } else if ignored(id) {
                None
            } else if marks.get(id) == OpMark::DoNotFuse {
                Some(Line::DoNotFuse(id))
            } else {
                Some(Line::Foreign(id))
            }
        })
        .collect()
}

/// A Python string literal that reads back as `s`, in printable ASCII: quotes and backslashes
/// escaped, any other character as `\xHH`, `\uHHHH` or `\UHHHHHHHH` (each takes exactly
/// that many digits, so no escape runs into the text after it).
fn python_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x1_0000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// A C string literal holding the UTF-8 bytes of `s`, in printable ASCII: quotes, backslashes
/// and `?` (trigraphs) escaped, any other byte as a three-digit octal escape — C's `\x` takes
/// every hex digit that follows, so `"\x0ab"` would be one byte; an octal escape stops at three.
fn c_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for byte in s.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(byte as char),
            _ => {
                let _ = write!(out, "\\{byte:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// A name safe inside a comment: control characters escaped, `*/` broken.
fn comment(s: &str) -> String {
    crate::text::sanitize(s).replace("*/", "* /")
}

fn header(ws: &Workspace, mark: &str) -> String {
    let graph = ws.graph();
    let plan = ws.plan();
    format!(
        "{mark} skope: SuperKernel scopes of graph {} ({}), {} scope(s) → {} segment(s), {} break(s).\n\
         {mark} Each block lists, in execution order, the ops whose code it must enclose. GE op\n\
         {mark} names come from the model code's ops (TorchAir names them after the FX nodes).\n",
        comment(graph.name()),
        comment(&ws.source().file),
        plan.scopes.len(),
        plan.segment_count(),
        plan.break_count()
    )
}

fn op_text(ws: &Workspace, id: OpId) -> String {
    let op = ws.graph().op(id);
    format!("{}  ({})", comment(&op.name), comment(&op.op_type))
}

fn status(scope: &ScopePlan) -> String {
    match scope.segments.len() {
        1 if scope.breaks.is_empty() => "fuses whole".to_string(),
        n => format!(
            "{} · {n} segment(s), {} break(s)",
            scope.status.label(),
            scope.breaks.len()
        ),
    }
}

/// TorchAir code: one `with torchair.scope.super_kernel(name, options):` block per scope.
pub fn torchair(ws: &Workspace) -> String {
    let mut out = header(ws, "#");
    out.push_str("import torchair\n");
    for scope in &ws.plan().scopes {
        let _ = writeln!(
            out,
            "\n# scope {}: {} op(s), {}",
            comment(&scope.name),
            scope.members.len(),
            status(scope)
        );
        let _ = writeln!(
            out,
            "with torchair.scope.super_kernel({}, {}):",
            python_literal(&scope.name),
            python_literal(&scope.options)
        );
        let mut in_none = false;
        for line in lines(ws, scope) {
            match line {
                Line::DoNotFuse(id) => {
                    if !in_none {
                        out.push_str(
                            "    with torchair.scope.super_kernel(None):  # kept out of fusion\n",
                        );
                        in_none = true;
                    }
                    let _ = writeln!(out, "        # {}", op_text(ws, id));
                }
                other => {
                    if std::mem::take(&mut in_none) {
                        out.push_str("        pass\n");
                    }
                    match other {
                        Line::Member(id) => {
                            let _ = writeln!(out, "    # {}", op_text(ws, id));
                        }
                        Line::Unfusible(id, reason) => {
                            let _ = writeln!(
                                out,
                                "    # ✗ {} cannot be fused ({}) and splits the scope here",
                                op_text(ws, id),
                                comment(&reason)
                            );
                        }
                        Line::Foreign(id) => {
                            let _ = writeln!(
                                out,
                                "    # ✗ {} is not in the scope and breaks it: move its code out of this block, or add it to the scope",
                                op_text(ws, id)
                            );
                        }
                        Line::DoNotFuse(_) => {}
                    }
                }
            }
        }
        if in_none {
            out.push_str("        pass\n");
        }
        out.push_str("    pass\n");
    }
    out
}

/// The aclsk option type a SuperKernel option maps to (by name; inferred, the header does not
/// say how option strings map to `aclskOptions`).
fn acl_option(key: &str) -> Option<(&'static str, u32)> {
    Some(match key {
        "preload-code" => ("PRELOAD_CODE", 0),
        "split-mode" => ("SPLIT_MODE", 1),
        "stream-fusion" => ("STREAM_FUSION", 2),
        "dcci-disable-on-kernel" => ("DCCI_DISABLE_ON_KERNEL", 3),
        "debug-sync-all" => ("DEBUG_SYNC_ALL", 4),
        "dcci-before-kernel-start" => ("DCCI_BEFORE_KERNEL_START", 8),
        "dcci-after-kernel-end" => ("DCCI_AFTER_KERNEL_END", 13),
        "early-start" => ("EARLY_START", 16),
        _ => return None,
    })
}

/// C code for the runtime API: `aclskScopeBegin/End` around each scope's ops.
pub fn acl(ws: &Workspace) -> String {
    let mut out = String::from("/*\n");
    out.push_str(&header(ws, " *"));
    out.push_str(
        " * Options go to aclskOptimize through aclskOptions; the option types below are matched\n \
         * to the options by name (inferred: the header does not document the mapping).\n */\n",
    );
    for scope in &ws.plan().scopes {
        let _ = writeln!(
            out,
            "\n/* scope {}: {} op(s), {} */",
            comment(&scope.name),
            scope.members.len(),
            status(scope)
        );
        for (spec, value) in SkOptions::parse(&scope.options).values() {
            let _ = match acl_option(spec.key) {
                Some((name, code)) => writeln!(
                    out,
                    "/*   option {}={} → aclskOptionType {name} ({code}) */",
                    spec.key,
                    comment(&value.to_string())
                ),
                None => writeln!(
                    out,
                    "/*   option {}={} has no aclskOptionType: GE path only */",
                    spec.key,
                    comment(&value.to_string())
                ),
            };
        }
        let _ = writeln!(out, "aclskScopeBegin({}, stream);", c_literal(&scope.name));
        for line in lines(ws, scope) {
            let _ = match line {
                Line::Member(id) => writeln!(out, "/*   {} */", op_text(ws, id)),
                Line::Unfusible(id, reason) => writeln!(
                    out,
                    "/* ✗ {} cannot be fused ({}) and splits the scope here */",
                    op_text(ws, id),
                    comment(&reason)
                ),
                Line::DoNotFuse(id) => writeln!(
                    out,
                    "/*   {} — kept out of fusion: launch it outside the scope */",
                    op_text(ws, id)
                ),
                Line::Foreign(id) => writeln!(
                    out,
                    "/* ✗ {} is not in the scope and breaks it: launch it before or after */",
                    op_text(ws, id)
                ),
            };
        }
        let _ = writeln!(out, "aclskScopeEnd({}, stream);", c_literal(&scope.name));
    }
    out
}
