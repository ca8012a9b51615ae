//! The gates a plan can be held to (`skope report --deny`): what fails each.

use super::{Outcome, Plan, ScopeStatus};

/// A condition that fails a plan (`--deny breaks|findings`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Any scope not fused whole: split, dropped, aborted, skipped or left unfused.
    Breaks,
    /// Any finding, an error or a warning.
    Findings,
}

impl Plan {
    /// True when GE builds no SuperKernel for the graph or skope cannot judge it: the outcome
    /// is not `ok`, no scope is marked, or the plan has an error. Every gate fails then.
    pub fn fails_every_gate(&self) -> bool {
        self.outcome != Outcome::Ok || self.scopes.is_empty() || self.errors() > 0
    }

    /// True when the plan fails `gate`, looking at the scope named `scope` alone when given
    /// (a plan that fails every gate fails it whatever the scope).
    pub fn fails(&self, gate: Gate, scope: Option<&str>) -> bool {
        if self.fails_every_gate() {
            return true;
        }
        let mut scopes = self
            .scopes
            .iter()
            .filter(|s| scope.is_none_or(|name| s.name == name));
        match gate {
            Gate::Breaks => scopes.any(|s| s.status != ScopeStatus::Fused),
            Gate::Findings if scope.is_none() => self.all_findings().next().is_some(),
            Gate::Findings => scopes.any(|s| !s.findings.is_empty()),
        }
    }
}
