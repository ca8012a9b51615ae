//! skope's prediction held against the entry source the SuperKernel compiler wrote for the
//! same sub-ops (`te_superkernel_*_kernel.cpp` from kernel_meta): a line diff that ignores
//! indentation, blank lines and skope's `// skope:` notes, and reads the prediction with the
//! compiler's kernel name (the hash skope cannot know). Every line keeps an origin, so the
//! code view can still lead from a line to its op.

use super::{EntryCode, Origin};
use crate::kernel_meta::{EntrySource, KernelMeta};
use similar::{Algorithm, DiffOp, capture_diff_slices};
use std::path::PathBuf;

/// How a line of the comparison stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// In both.
    Same,
    /// Only in skope's prediction.
    Predicted,
    /// Only in the compiler's source.
    Written,
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// How it stands.
    pub change: Change,
    /// The line as its file has it (the prediction with the compiler's kernel name).
    pub text: String,
    /// The op or frame it belongs to: a prediction's line keeps its own; a line only the
    /// compiler wrote takes the origin of the line before it.
    pub origin: Origin,
}

/// The comparison of one segment's prediction with one compiler source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// The compiler's source file.
    pub file: PathBuf,
    /// Both files' lines in diff order (blank lines and skope's notes left out).
    pub lines: Vec<DiffLine>,
    /// Lines in both.
    pub same: usize,
    /// Lines only in the prediction.
    pub predicted: usize,
    /// Lines only in the compiler's source.
    pub written: usize,
    /// Of the differing lines, those that are preloads: their sizes are inferred (the
    /// compiler reads the sub-kernel object's text size).
    pub preloads: usize,
}

impl Comparison {
    /// True when the two agree line for line.
    pub fn equal(&self) -> bool {
        self.predicted == 0 && self.written == 0
    }

    /// `812 lines the same, 3 only in skope's, 5 only in the compiler's (4 preloads)`.
    pub fn summary(&self) -> String {
        if self.equal() {
            return format!("all {} lines the same", self.same);
        }
        let mut text = format!(
            "{} lines the same, {} only in skope's, {} only in the compiler's",
            self.same, self.predicted, self.written
        );
        if self.preloads > 0 {
            text.push_str(&format!(
                " ({} of them preloads, whose sizes skope infers)",
                self.preloads
            ));
        }
        text
    }
}

/// The sub-op calls of `code`: what finds the compiler's source for it.
pub fn calls(code: &EntryCode) -> Vec<String> {
    crate::kernel_meta::sub_op_calls(&code.source)
}

/// Compares `code` with the compiler's `source`.
pub fn compare(code: &EntryCode, source: &EntrySource) -> Comparison {
    let predicted: Vec<(String, Origin)> = code
        .source
        .lines()
        .zip(code.origins())
        .filter(|(line, _)| !line.trim().is_empty() && !line.trim_start().starts_with("// skope:"))
        .map(|(line, &origin)| (line.replace(&code.kernel_name, &source.kernel_name), origin))
        .collect();
    let written: Vec<&str> = source
        .text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let old: Vec<&str> = predicted
        .iter()
        .map(|(l, _)| same_guard(l.trim()))
        .collect();
    let new: Vec<&str> = written.iter().map(|l| same_guard(l.trim())).collect();
    let mut out = Comparison {
        file: source.file.clone(),
        lines: Vec::with_capacity(old.len().max(new.len())),
        same: 0,
        predicted: 0,
        written: 0,
        preloads: 0,
    };
    // A line only the compiler wrote takes the origin of the line before it.
    let mut last_origin = Origin::Frame;
    let mut push = |out: &mut Comparison, change: Change, text: &str, origin: Option<Origin>| {
        let origin = origin.unwrap_or(last_origin);
        last_origin = origin;
        match change {
            Change::Same => out.same += 1,
            Change::Predicted => out.predicted += 1,
            Change::Written => out.written += 1,
        }
        if change != Change::Same && is_preload(text) {
            out.preloads += 1;
        }
        out.lines.push(DiffLine {
            change,
            text: text.to_string(),
            origin,
        });
    };
    for op in capture_diff_slices(Algorithm::Myers, &old, &new) {
        match op {
            DiffOp::Equal { old_index, len, .. } => {
                for (text, origin) in &predicted[old_index..old_index + len] {
                    push(&mut out, Change::Same, text, Some(*origin));
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for (text, origin) in &predicted[old_index..old_index + old_len] {
                    push(&mut out, Change::Predicted, text, Some(*origin));
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for text in &written[new_index..new_index + new_len] {
                    push(&mut out, Change::Written, text, None);
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for (text, origin) in &predicted[old_index..old_index + old_len] {
                    push(&mut out, Change::Predicted, text, Some(*origin));
                }
                for text in &written[new_index..new_index + new_len] {
                    push(&mut out, Change::Written, text, None);
                }
            }
        }
    }
    out
}

/// The core guards the compiler writes in two forms (reference aclgraph_superkernel.md §9.2:
/// `#if defined(__DAV_C220_CUBE__)` in older compilers, `#if (defined(__DAV_CUBE__) &&
/// __NPU_ARCH__ == 2201)` in newer ones; the vector pair is inferred from the cube one), each
/// with the older form it stands for.
const GUARDS: &[(&str, &str)] = &[
    (
        "#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 2201)",
        "#if defined(__DAV_C220_CUBE__)",
    ),
    (
        "#if (defined(__DAV_VEC__) && __NPU_ARCH__ == 2201)",
        "#if defined(__DAV_C220_VEC__)",
    ),
];

/// `line` with a newer core guard read as the older one it stands for, so the two forms
/// compare the same.
fn same_guard(line: &str) -> &str {
    GUARDS
        .iter()
        .find(|(newer, _)| *newer == line)
        .map_or(line, |(_, older)| older)
}

/// Lines of context around each differing run when the lines are shown.
const CONTEXT: usize = 2;

/// `skope codegen --compare`: each of `codes` held against the compiler's source in `meta` for
/// the same sub-ops, a line per segment; with `show_lines`, the differing lines too (with
/// context). True when every compared code equals its source; an error when no code has a
/// source.
pub fn text(
    meta: &KernelMeta,
    codes: &[EntryCode],
    show_lines: bool,
) -> Result<(String, bool), String> {
    let clean = |text: &str| crate::text::sanitize(text).into_owned();
    let mut out = String::new();
    let (mut compared, mut differing) = (0, 0);
    for code in codes {
        let calls = calls(code);
        let Some(source) = meta.sources_for(&calls).first().copied() else {
            out.push_str(&format!(
                "{}: no entry source in kernel_meta calls its {} sub-op(s)\n",
                clean(&code.segment),
                calls.len()
            ));
            continue;
        };
        let comparison = compare(code, source);
        compared += 1;
        differing += usize::from(!comparison.equal());
        out.push_str(&format!(
            "{}: {}: {}\n",
            clean(&code.segment),
            clean(&source.file.to_string_lossy()),
            comparison.summary()
        ));
        if !show_lines || comparison.equal() {
            continue;
        }
        let near_change = |n: usize| {
            let from = n.saturating_sub(CONTEXT);
            let to = (n + CONTEXT + 1).min(comparison.lines.len());
            comparison.lines[from..to]
                .iter()
                .any(|l| l.change != Change::Same)
        };
        out.push_str("  (- only in skope's prediction, + only in the compiler's source)\n");
        let mut skipped = false;
        for (n, line) in comparison.lines.iter().enumerate() {
            if !near_change(n) {
                skipped = true;
                continue;
            }
            if std::mem::take(&mut skipped) {
                out.push_str("  …\n");
            }
            let mark = match line.change {
                Change::Same => ' ',
                Change::Predicted => '-',
                Change::Written => '+',
            };
            out.push_str(&format!("{mark} {}\n", clean(&line.text)));
        }
    }
    if compared == 0 {
        return Err(format!(
            "no segment's sub-op calls match an entry source in kernel_meta ({} read): pass the \
             te_superkernel_*_kernel.cpp files of the same compile",
            meta.sources.len()
        ));
    }
    Ok((out, differing == 0))
}

/// A preload of a sub-kernel's code, whose size argument skope infers.
fn is_preload(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("preload(") || line.starts_with("AscendC::PreLoad(")
}

#[cfg(test)]
mod tests {
    use super::same_guard;

    #[test]
    fn both_forms_of_a_core_guard_compare_the_same() {
        assert_eq!(
            same_guard("#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 2201)"),
            same_guard("#if defined(__DAV_C220_CUBE__)")
        );
        assert_eq!(
            same_guard("#if (defined(__DAV_VEC__) && __NPU_ARCH__ == 2201)"),
            "#if defined(__DAV_C220_VEC__)"
        );
        assert_eq!(same_guard("#endif"), "#endif");
    }
}
