//! SuperKernel fusion: the options schema, the rules table, per-op verdicts, kernel types and
//! the plan (segments, breaks, findings) GE's SuperKernel pass would produce.
//!
//! Facts: reference/ascend_superkernel.md §2–§5. Everything here is plain data and functions.

pub mod cann;
pub mod index;
pub mod kernel;
pub mod marks;
pub mod options;
pub mod plan;
pub mod rules;
pub mod verdict;
pub mod verify;

#[cfg(test)]
pub(crate) mod testing;

use serde::Serialize;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The build fails (or GE rejects the input).
    Error,
    /// Worth knowing; the build goes on.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}
