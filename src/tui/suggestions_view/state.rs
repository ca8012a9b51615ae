//! The suggestions view's state: the suggested scopes of the current plan, ranked, with the
//! selection, the order the user chose, whether the selected one's ops are listed, and the
//! worker that makes them.

use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};
use crate::profile::Pair;
use crate::suggest::accept::Pick;
use crate::suggest::saving::Fit;
use crate::suggest::timing::Timing;
use crate::suggest::{Measured, bind_runs};
use crate::suggest::{Suggestion, Suggestions};
use crate::tui::list::{Cycle, Rows};
use crate::workspace::Planning;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Weak};

/// What the suggesting worker is asked: suggestions for `marks` and their `plan` (version
/// `version` of the workspace's plan, planned by `planning`), ranked with `profiles` when they
/// were read.
pub struct SuggestRequest {
    /// The plan's version.
    pub version: u64,
    /// What plans marks on the graph.
    pub planning: Planning,
    /// Today's marks.
    pub marks: Marks,
    /// Today's plan.
    pub plan: Plan,
    /// The profiles read in the explorer.
    pub profiles: Option<Arc<Pair>>,
    /// The marks and plan those profiles' run built: the fit is made on them, so an edit (an
    /// accepted suggestion) keeps the calibration.
    pub calibration: Option<Arc<(Marks, Plan)>>,
}

impl SuggestRequest {
    /// The profile without SuperKernel the ranking reads, when there is one.
    pub fn profile(&self) -> Option<PathBuf> {
        self.profiles.as_ref().map(|p| p.base.files.root.clone())
    }

    /// Makes the suggestions (on the worker, or here without one). The profile's gaps are
    /// read once and kept in `cache` while the same profile is asked for on the same graph.
    pub fn serve(&self, cache: &mut Option<TimingCache>) -> Suggested {
        let answer = |result| Suggested {
            version: self.version,
            profile: self.profile(),
            result,
        };
        let cx = self.planning.shared_context();
        let base = match (&self.profiles, self.profile()) {
            (Some(pair), Some(root)) if !pair.base.files.kernels.is_empty() => {
                let kept = cache
                    .as_ref()
                    .filter(|c| c.root == root && std::ptr::eq(c.cx.as_ptr(), Arc::as_ptr(&cx)));
                match kept {
                    Some(c) => Some(Arc::clone(&c.timing)),
                    None => {
                        match crate::suggest::timing::read(&pair.base.files.kernels, Some(&cx)) {
                            Ok(timing) => {
                                let timing = Arc::new(timing);
                                *cache = Some(TimingCache {
                                    root,
                                    cx: Arc::downgrade(&cx),
                                    timing: Arc::clone(&timing),
                                });
                                Some(timing)
                            }
                            Err(e) => return answer(Err(e.to_string())),
                        }
                    }
                }
            }
            _ => None,
        };
        let today = (&self.marks, &self.plan);
        let made_with = self.calibration.as_deref().map(|(m, p)| (m, p));
        let pair = self.profiles.as_deref();
        let judged = pair.and_then(|p| match (&p.base.runs, &p.new.runs) {
            (Some(base), Some(new)) => Some(bind_runs(&cx, made_with.unwrap_or(today), base, new)),
            _ => None,
        });
        let measured = Measured {
            base: base.as_deref(),
            new: pair.and_then(|p| p.new.kernels.as_ref()),
            judged: judged.as_ref(),
            calibration: made_with,
        };
        answer(Ok(crate::suggest::rank(&self.planning, today, measured)))
    }
}

/// What a run of the current plan records as its prediction: the suggestions' own, when they
/// were made for this plan, or a request that makes it (served where the run is prepared, off
/// the event loop).
pub enum Foresight {
    /// Made already.
    Made(Box<crate::suggest::prediction::PlanPrediction>),
    /// To be made.
    Ask(Box<SuggestRequest>),
}

impl Foresight {
    /// The prediction, made when it is asked for; `None` when it cannot be made.
    pub fn prediction(self) -> Option<crate::suggest::prediction::PlanPrediction> {
        match self {
            Foresight::Made(p) => Some(*p),
            Foresight::Ask(request) => request.serve(&mut None).result.ok()?.0.today,
        }
    }
}

/// A profile's gaps as read for one graph, kept by the worker between requests.
pub struct TimingCache {
    /// The profile's directory.
    root: PathBuf,
    /// The planning context (so its graph) they were read for: a reloaded dump has a new one.
    /// Weak, so the old graph is not kept alive, and its address is not reused while this
    /// points at it.
    cx: Weak<Context>,
    /// Each op's kernel timing.
    timing: Arc<Timing>,
}

/// The worker's answer.
#[derive(Debug, Clone)]
pub struct Suggested {
    /// The plan's version they are for.
    pub version: u64,
    /// The profile they were ranked with.
    pub profile: Option<PathBuf>,
    /// The suggestions and the fit, or why they could not be made.
    pub result: Result<(Suggestions, Option<Fit>), String>,
}

/// Starts the worker that makes suggestions, newest request first; answers go to `results`,
/// a panic's message to `failed`.
pub fn spawn_suggester(
    results: crate::tui::sink::Sink<Suggested>,
    failed: crate::tui::sink::Sink<String>,
) -> Sender<SuggestRequest> {
    let mut cache = None;
    let serve = move |request: SuggestRequest| results(request.serve(&mut cache));
    crate::tui::latest::spawn("skope-suggest", serve, move |message| {
        failed(message);
    })
}

/// How the list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Best saving (or most boundaries) first, as ranked.
    Saving,
    /// Most ops first.
    Ops,
    /// In execution order of their first op.
    Position,
}

/// What `s` steps through.
impl Cycle for Sort {
    const ALL: &'static [Sort] = &[Sort::Saving, Sort::Ops, Sort::Position];
}

impl Sort {
    /// In words, for the title.
    pub fn label(self) -> &'static str {
        match self {
            Sort::Saving => "by saving",
            Sort::Ops => "by ops",
            Sort::Position => "in graph order",
        }
    }
}

/// The suggestions view.
#[derive(Debug, Clone)]
pub struct SuggestionsView {
    /// The suggestions, ranked.
    pub suggestions: Suggestions,
    /// The fit of the saving model, when profiles calibrated it.
    pub fit: Option<Fit>,
    /// The workspace version they were made for.
    pub plan_version: u64,
    /// The profile without SuperKernel whose gaps they were ranked by, when one was read.
    pub profile: Option<std::path::PathBuf>,
    /// The order shown.
    pub sort: Sort,
    /// The rows in the order shown, with the selection: the exclusions that heal a
    /// whole-model scope, the templates, then the per-layer suggestions (items numbered in
    /// that order: see [`SuggestionsView::pick`]).
    pub rows: Rows,
    /// True when the selected row's details (a template's code and splits, a suggestion's
    /// ops) are shown below the table.
    pub expanded: bool,
    /// True while suggestions for a newer plan are being made.
    pub stale: bool,
    /// The worker that makes them (with an event loop), once asked.
    pub worker: Option<Sender<SuggestRequest>>,
}

impl SuggestionsView {
    /// The view of `suggestions`, made for version `plan_version` of the plan.
    pub fn new(
        suggestions: Suggestions,
        fit: Option<Fit>,
        plan_version: u64,
        profile: Option<std::path::PathBuf>,
    ) -> SuggestionsView {
        let mut view = SuggestionsView {
            profile,
            suggestions,
            fit,
            plan_version,
            sort: Sort::Saving,
            rows: Rows::default(),
            expanded: false,
            stale: false,
            worker: None,
        };
        view.reorder();
        view
    }

    /// Takes new suggestions (after the plan or the profiles changed), keeping the order and
    /// the row.
    pub fn replace(
        &mut self,
        suggestions: Suggestions,
        fit: Option<Fit>,
        plan_version: u64,
        profile: Option<std::path::PathBuf>,
    ) {
        self.suggestions = suggestions;
        self.fit = fit;
        self.plan_version = plan_version;
        self.profile = profile;
        self.stale = false;
        self.reorder();
    }

    /// What item `item` of the rows is: exclusions, then templates, then per-layer ones.
    fn pick(&self, item: usize) -> Option<Pick> {
        let s = &self.suggestions;
        let (remedies, templates) = (s.remedies.len(), s.templates.len());
        if item < remedies {
            Some(Pick::Remedy(item))
        } else if item < remedies + templates {
            Some(Pick::Template(item - remedies))
        } else {
            let single = item - remedies - templates;
            (single < s.list.len()).then_some(Pick::Single(single))
        }
    }

    /// Arranges the rows in the order chosen, the selected suggestion kept selected.
    fn reorder(&mut self) {
        let s = &self.suggestions;
        let (remedies, templates) = (s.remedies.len(), s.templates.len());
        let items = remedies + templates + s.list.len();
        // Within its kind, a row's key in the order chosen (ties keep the ranking).
        let key = |item: usize| -> (usize, usize) {
            let (kind, key) = if item < remedies {
                (0, 0)
            } else if item < remedies + templates {
                let t = &s.templates[item - remedies];
                let key = match self.sort {
                    Sort::Saving => 0,
                    Sort::Ops => usize::MAX - t.units.iter().map(Vec::len).sum::<usize>(),
                    Sort::Position => t
                        .units
                        .first()
                        .and_then(|u| u.first())
                        .map_or(usize::MAX, |op| op.index()),
                };
                (1, key)
            } else {
                let x = &s.list[item - remedies - templates];
                let key = match self.sort {
                    Sort::Saving => 0,
                    Sort::Ops => usize::MAX - x.ops.len(),
                    Sort::Position => x.ops.first().map_or(usize::MAX, |op| op.index()),
                };
                (2, key)
            };
            (kind, key)
        };
        let mut rows = std::mem::take(&mut self.rows);
        rows.arrange(items, |_| true, |a, b| key(a).cmp(&key(b)).then(a.cmp(&b)));
        self.rows = rows;
    }

    /// Orders the list the next way.
    pub fn next_sort(&mut self) {
        self.sort = self.sort.next();
        self.reorder();
    }

    /// What row `row` of the order shown holds.
    pub fn at(&self, row: usize) -> Option<Pick> {
        self.rows.item(row).and_then(|item| self.pick(item))
    }

    /// The selected row.
    pub fn current(&self) -> Option<Pick> {
        self.at(self.rows.selection.selected)
    }

    /// The per-layer suggestion on the selected row, when it holds one.
    pub fn current_suggestion(&self) -> Option<&Suggestion> {
        match self.current()? {
            Pick::Single(i) => self.suggestions.list.get(i),
            Pick::Template(_) | Pick::Remedy(_) => None,
        }
    }

    /// Moves the selection by `delta` rows, keeping it within `height` rows shown.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        self.rows.move_by(delta, height);
    }
}
