//! skope's prediction held against the entry source the SuperKernel compiler wrote for the
//! same sub-ops (`te_superkernel_*_kernel.cpp` from kernel_meta): a line diff that ignores
//! indentation, blank lines and skope's `// skope:` notes, and reads the prediction with the
//! compiler's kernel name (the hash skope cannot know). Every line keeps an origin, so the
//! code view can still lead from a line to its op.

use super::{EntryCode, Origin};
use crate::kernel_meta::EntrySource;
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
    let old: Vec<&str> = predicted.iter().map(|(l, _)| l.trim()).collect();
    let new: Vec<&str> = written.iter().map(|l| l.trim()).collect();
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

/// A preload of a sub-kernel's code, whose size argument skope infers.
fn is_preload(line: &str) -> bool {
    let line = line.trim_start();
    line.starts_with("preload(") || line.starts_with("AscendC::PreLoad(")
}
