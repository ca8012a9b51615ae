//! "Compare with…" (`O`), its state and work: the graph's fusion held against another dump's,
//! or against another plan file of this graph — the fusion diff of [`crate::fusion_diff`], the other side as A and
//! this graph as it is now as B. The op list's first column and the strip's ruler mark every
//! op that differs (a break added `+`, healed `−`, with another reason `~`, left fusion `◦`, a
//! segment changed `*`, renamed `r`, new `n`), and the marks follow edits: each edit compares
//! again on a worker (`compare_actions`). `O` again stops comparing.

use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};
use crate::fusion_diff::{FusionDiff, OpDiff, Side, diff, op_diffs};
use crate::planfile::PlanFile;
use crate::workspace::Workspace;
use std::path::Path;
use std::sync::Arc;

/// A graph's plan as of one version, to compare on a worker: this graph's, or the other
/// side's (another dump's, or this graph under another plan file).
#[derive(Debug)]
pub struct Planned {
    cx: Arc<Context>,
    marks: Marks,
    plan: Plan,
    version: u64,
}

impl Planned {
    /// `ws`'s plan now.
    pub fn of(ws: &Workspace) -> Planned {
        Planned {
            cx: ws.shared_context(),
            marks: ws.marks().clone(),
            plan: ws.plan().clone(),
            version: ws.version(),
        }
    }

    fn side(&self) -> Side<'_> {
        Side {
            graph: self.cx.graph(),
            marks: &self.marks,
            plan: &self.plan,
        }
    }
}

/// A comparison made: the diff, each op's mark, the plan version it is of.
#[derive(Debug)]
pub struct Compared {
    /// What is compared with, in words.
    pub name: String,
    /// The other side, kept to compare again after edits.
    pub other: Arc<Planned>,
    /// The diff.
    pub diff: FusionDiff,
    /// Each op's mark, by index.
    pub marks: Vec<Option<OpDiff>>,
    /// The execution positions of the marked ops, in order (for the strip).
    pub positions: Vec<usize>,
    /// The plan version it is of.
    pub version: u64,
}

impl Compared {
    /// The mark of op `index`.
    pub fn mark(&self, index: usize) -> Option<OpDiff> {
        self.marks.get(index).copied().flatten()
    }

    /// The diff in one line: what changed, and what the marks mean.
    pub fn summary(&self) -> String {
        let d = &self.diff;
        if d.is_empty() && d.renamed.is_empty() && d.only_b == 0 {
            return format!("compared with {}: the same fusion", self.name);
        }
        format!(
            "compared with {}: {} scope(s), {} segment(s), {} break(s) changed, {} renamed, {} \
             new op(s) — marked in the list: + break added, − healed, ~ other reason, ◦ left \
             fusion, * segment changed, r renamed, n new",
            self.name,
            d.scopes.len(),
            d.segments.len(),
            d.breaks.len(),
            d.renamed.len(),
            d.only_b
        )
    }
}

/// Compares `current` with `other`.
pub fn compare(name: String, other: Arc<Planned>, current: &Planned) -> Compared {
    let (a, b) = (other.side(), current.side());
    let diff = diff(a, &name, b, "this graph");
    let marks = op_diffs(a, b);
    let graph = current.cx.graph();
    let mut positions: Vec<usize> = marks
        .iter()
        .enumerate()
        .filter(|(_, m)| m.is_some())
        .map(|(i, _)| graph.exec_position(crate::graph::OpId(i as u32)))
        .collect();
    positions.sort_unstable();
    Compared {
        name,
        other,
        diff,
        marks,
        positions,
        version: current.version,
    }
}

/// Opens what `path` names as the other side: a plan file of this graph (marks planned by the
/// graph's planner), else a dump opened as the explorer opens one.
pub fn open_other(
    path: &Path,
    planning: &crate::workspace::Planning,
    load: (crate::load::LoadOptions, &crate::fusion::rules::RuleConfig),
) -> Result<Planned, String> {
    if let Some(file) = PlanFile::looks_like(path)
        .then(|| PlanFile::read(path).ok())
        .flatten()
    {
        let (marks, mismatch) = file.marks_for(planning.graph());
        if let Some(refusal) = mismatch.refusal(path, planning.graph(), false) {
            return Err(refusal);
        }
        let plan = planning.plan(&marks);
        return Ok(Planned {
            cx: planning.shared_context(),
            marks,
            plan,
            version: 0,
        });
    }
    let input = crate::open::Input::File(path.to_path_buf());
    let (ws, _) =
        crate::open::open(&input, load.0, load.1, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(Planned::of(&ws))
}
