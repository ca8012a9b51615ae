//! "Compare with…" (`O`): the graph's fusion held against another dump's, or against another
//! plan file of this graph — the fusion diff of [`crate::fusion_diff`], the other side as A and
//! this graph as it is now as B. The op list's first column and the strip's ruler mark every
//! op that differs (a break added `+`, healed `−`, with another reason `~`, left fusion `◦`, a
//! segment changed `*`, renamed `r`, new `n`), and the marks follow edits: each edit compares
//! again on a worker. `O` again stops comparing.

use super::app::{App, Prompt, PromptKind, Screen};
use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};
use crate::fusion_diff::{FusionDiff, OpDiff, Side, diff, op_diffs};
use crate::planfile::PlanFile;
use crate::text::sanitize;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
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
    fn of(ws: &Workspace) -> Planned {
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
fn compare(name: String, other: Arc<Planned>, current: &Planned) -> Compared {
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
fn open_other(
    path: &Path,
    planning: &crate::workspace::Planning,
    load: (crate::load::LoadOptions, &crate::fusion::rules::RuleConfig),
) -> Result<Planned, String> {
    if let Ok(file) = PlanFile::read(path) {
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

impl App {
    /// `O`: asks what to compare with, or stops comparing.
    pub(super) fn compare_with(&mut self) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if ex.comparing {
            ex.comparing = false;
            let name = ex.compared.take().map_or_else(String::new, |c| c.name);
            return self.info(format!("no longer comparing with {name}"));
        }
        self.prompt = Some(Prompt::new(PromptKind::CompareWith, String::new()));
    }

    /// Opens the dump or plan file the prompt names and compares with it, on a worker when
    /// there is an event loop.
    pub(super) fn submit_compare_with(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return self.problem("no dump or plan file given".to_string());
        }
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        ex.comparing = true;
        let path = PathBuf::from(text);
        let name = sanitize(text).into_owned();
        let planning = ex.ws.planning();
        let current = Planned::of(&ex.ws);
        let (options, rules) = self.reload.as_ref().map_or_else(
            || (Default::default(), Default::default()),
            |r| (r.options, r.rules.clone()),
        );
        let work = move || -> Result<Compared, String> {
            let other = open_other(&path, &planning, (options, &rules))
                .map_err(|why| format!("cannot compare with {name}: {why}"))?;
            Ok(compare(name, Arc::new(other), &current))
        };
        self.info(format!("comparing with {}…", sanitize(text)));
        self.run_comparison(work);
    }

    /// Compares again after the plan changed, with the same other side.
    pub(super) fn comparison_follows_plan(&mut self) {
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let Some(c) = &ex.compared else {
            return;
        };
        let (name, other, current) = (c.name.clone(), Arc::clone(&c.other), Planned::of(&ex.ws));
        self.run_comparison(move || Ok(compare(name, other, &current)));
    }

    /// Runs `work` on a worker (here, without an event loop); its answer comes back as
    /// [`App::compared_with`].
    fn run_comparison(&mut self, work: impl FnOnce() -> Result<Compared, String> + Send + 'static) {
        let Some(events) = self.workers.events.clone() else {
            return self.compared_with(work());
        };
        let done = super::msg::sink(&events, |answer: Result<Compared, String>| {
            super::msg::Msg::ComparedWith(Box::new(answer))
        });
        let started = crate::worker::spawn("skope-compare", work, move |answer| {
            let answer = answer.unwrap_or_else(|panic| {
                Err(format!(
                    "the comparison failed unexpectedly ({panic}; a bug in skope, please report it)"
                ))
            });
            done(answer);
        });
        if !started {
            self.problem("no thread could be started to compare".to_string());
        }
    }

    /// Takes in a comparison: keeps it unless the plan has changed since (a newer one is on
    /// its way), and says what it found.
    pub(super) fn compared_with(&mut self, answer: Result<Compared, String>) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match answer {
            Ok(c) if ex.comparing && c.version == ex.ws.version() => {
                let first = ex.compared.is_none();
                let summary = c.summary();
                ex.compared = Some(c);
                if first {
                    self.info(summary);
                }
            }
            Ok(_) => {}
            Err(why) => {
                if ex.compared.is_none() {
                    ex.comparing = false;
                }
                self.problem(sanitize(&why.replace('\n', " ")).into_owned());
            }
        }
    }
}
