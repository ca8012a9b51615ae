//! The run ledger: every recorded run of a dump side by side — what its plan changed from the
//! run before, its per-step median, its benefit against a baseline run, its SuperKernels'
//! payoffs, how it ended. It is derived from the run records alone (`run.json`, the plan
//! beside it, the profile under its results, found as `--profiles` finds one), so it is the
//! same after a restart, and it says when a record's profile has gone.
//!
//! A run whose plan builds no SuperKernel can be the baseline; without a choice, the newest
//! such run with a profile is. Each other run is compared with it as the profile comparison
//! compares a pair ([`crate::profile::diff::diff_with`]), bound to the run's own plan.

pub mod add;
pub mod output;
pub mod plan_change;

use crate::compile::record::RunRecord;
use crate::planfile::PlanFile;
use crate::profile::discover::{self, Found};
use crate::profile::payoff::{PayoffAction, PayoffRule};
use crate::profile::{Pair, PlannedFusion, Profile};
use crate::suggest::prediction::{Checked, PlanPrediction, check};
use crate::workspace::Planning;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where a run's profile is, as the ledger found it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ProfileState {
    /// Read from `path` (the profile itself: a pair's `sk_model`, the lowest of several ranks).
    Found {
        /// The profile read.
        path: String,
        /// How it was picked, when the results held more than one.
        picked: Option<String>,
    },
    /// The record names results that are no longer there.
    Gone {
        /// Where they were.
        path: String,
    },
    /// The recipe names no results.
    NoResults,
    /// The results are there but hold no profile skope can read.
    Unreadable {
        /// Where.
        path: String,
        /// Why.
        why: String,
    },
}

impl ProfileState {
    /// The state in a few words, for a table cell.
    pub fn words(&self) -> String {
        match self {
            ProfileState::Found { .. } => "found".to_string(),
            ProfileState::Gone { .. } => "gone".to_string(),
            ProfileState::NoResults => "no results".to_string(),
            ProfileState::Unreadable { .. } => "unreadable".to_string(),
        }
    }

    /// The profile's path, when one was read.
    pub fn path(&self) -> Option<&str> {
        match self {
            ProfileState::Found { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// A run's plan as the graph plans it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanSummary {
    /// Scopes in the plan file.
    pub scopes: usize,
    /// Segments (SuperKernels) the planner makes of them.
    pub segments: usize,
    /// Breaks.
    pub breaks: usize,
    /// Ops the plan names that the graph lacks.
    pub missing_ops: usize,
}

/// A run's time per step against the baseline's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Benefit {
    /// The baseline's per-step median, µs (as this comparison measured it).
    pub baseline_us: f64,
    /// This run's, µs.
    pub run_us: f64,
    /// Saved per step, µs (negative: slower).
    pub saved_us: f64,
    /// Saved, in percent of the baseline.
    pub pct: f64,
}

/// A run's SuperKernels' payoffs, counted by class, with what to prune.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PayoffCounts {
    /// Beneficial.
    pub beneficial: usize,
    /// Neutral.
    pub neutral: usize,
    /// Regressed.
    pub regressed: usize,
    /// Insufficient evidence.
    pub insufficient_evidence: usize,
    /// The SuperKernels to prune (their segments' names).
    pub prune: Vec<String>,
    /// The SuperKernels to prune that no exact map to the model's code lets one cut out.
    pub block: Vec<String>,
}

impl PayoffCounts {
    /// The counts in one cell: `12✓ 1✗ 0~ 0?` reads as beneficial, regressed, neutral,
    /// insufficient.
    pub fn cell(&self) -> String {
        format!(
            "{}✓ {}✗ {}~ {}?",
            self.beneficial, self.regressed, self.neutral, self.insufficient_evidence
        )
    }
}

/// One run in the ledger.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerRow {
    /// Its number: 1 for the oldest run.
    pub number: usize,
    /// Its directory (where `run.json` is).
    pub dir: String,
    /// Its recipe (`added` for a profile added by path).
    pub recipe: String,
    /// When it started, ms since the Unix epoch.
    pub started_ms: u64,
    /// When it started, as UTC text.
    pub started: String,
    /// How it ended, in a word.
    pub status: String,
    /// Its plan file.
    pub plan_file: String,
    /// Its plan, planned on the graph; `None` when the plan file could not be read.
    pub plan: Option<PlanSummary>,
    /// What its plan changed from the run before (the first run: none).
    pub changes: Vec<String>,
    /// Its profile.
    pub profile: ProfileState,
    /// Steps in its profile (0: the profile has no kernel rows to tell steps apart).
    pub steps: usize,
    /// Its busy time per step (kernel durations added up, communication left out), the median
    /// over the steps kept, µs.
    pub median_step_us: Option<f64>,
    /// Its step time per step (busy time, without start times): the mean over the steps kept,
    /// µs — the account's figure, as every comparison of it gives it.
    pub step_time_us: Option<f64>,
    /// Against the baseline.
    pub benefit: Option<Benefit>,
    /// Its SuperKernels' payoffs against the baseline.
    pub payoffs: Option<PayoffCounts>,
    /// What its SuperKernels were predicted to save before it ran, beside what they saved
    /// against the baseline: when its record holds a prediction.
    pub predicted: Option<Checked>,
    /// What could not be done for it, and why.
    pub notes: Vec<String>,
}

impl LedgerRow {
    /// True when its plan builds no SuperKernel (it can be a baseline).
    pub fn builds_no_superkernel(&self) -> bool {
        self.plan.as_ref().is_some_and(|p| p.segments == 0)
    }

    /// The change from the run before in one line.
    pub fn change_summary(&self) -> String {
        if self.number == 1 {
            return "first run".to_string();
        }
        plan_change::summary(&self.changes)
    }
}

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// The largest benefit first; runs without one after, in run order.
    #[default]
    Benefit,
    /// The shortest step time first.
    StepTime,
    /// Run order (oldest first).
    Run,
    /// By status word, then run order.
    Status,
}

impl SortKey {
    /// Every key, in the order `s` cycles them.
    pub const ALL: [SortKey; 4] = [
        SortKey::Benefit,
        SortKey::StepTime,
        SortKey::Run,
        SortKey::Status,
    ];

    /// Its name, as `--sort` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Benefit => "benefit",
            SortKey::StepTime => "step-time",
            SortKey::Run => "run",
            SortKey::Status => "status",
        }
    }

    /// The key named `name` (`median`, the older word for `step-time`, too).
    pub fn of(name: &str) -> Option<SortKey> {
        match name {
            "median" => Some(SortKey::StepTime),
            _ => SortKey::ALL.into_iter().find(|k| k.name() == name),
        }
    }

    /// The next key in [`SortKey::ALL`].
    pub fn next(self) -> SortKey {
        let at = SortKey::ALL.iter().position(|k| *k == self).unwrap_or(0);
        SortKey::ALL[(at + 1) % SortKey::ALL.len()]
    }
}

/// Which run is the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// The newest run whose plan builds no SuperKernel and whose profile was read.
    Auto,
    /// Run number N.
    Run(usize),
}

/// The ledger of a dump's runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ledger {
    /// The dump.
    pub dump: String,
    /// The baseline run's number, if there is one.
    pub baseline: Option<usize>,
    /// How the baseline was chosen, or why there is none.
    pub baseline_why: String,
    /// How the rows are ordered.
    pub sort: SortKey,
    /// The runs.
    pub rows: Vec<LedgerRow>,
    /// How payoffs were judged.
    pub rule: PayoffRule,
}

/// The inputs of one row while the ledger is built.
struct Loaded {
    row: LedgerRow,
    planned: Option<PlannedFusion>,
    profile: Option<Profile>,
    /// What its record says its SuperKernels were predicted to save.
    prediction: Option<PlanPrediction>,
}

impl Ledger {
    /// The ledger of `records` (a dump's runs, oldest first, as [`crate::compile::record`]
    /// lists them), each run's plan made by `planning` (the dump's graph), compared with
    /// `baseline`, payoffs judged by `rule`, ordered by `sort`.
    pub fn build(
        planning: &Planning,
        dump: &str,
        records: &[(PathBuf, RunRecord)],
        (baseline, sort): (Baseline, SortKey),
        rule: PayoffRule,
    ) -> Ledger {
        let mut previous: Option<PlanFile> = None;
        let mut loaded: Vec<Loaded> = Vec::new();
        for (i, (dir, record)) in records.iter().enumerate() {
            let (one, plan) = load_row(planning, i + 1, dir, record, previous.as_ref());
            if plan.is_some() {
                previous = plan;
            }
            loaded.push(one);
        }
        medians(&mut loaded);
        let (baseline, baseline_why) = choose_baseline(&loaded, baseline);
        if let Some(b) = baseline {
            compare_with(&mut loaded, b, rule);
        }
        let mut ledger = Ledger {
            dump: dump.to_string(),
            baseline,
            baseline_why,
            sort,
            rows: loaded.into_iter().map(|l| l.row).collect(),
            rule,
        };
        ledger.sort_by(sort);
        ledger
    }

    /// Orders the rows by `key`.
    pub fn sort_by(&mut self, key: SortKey) {
        self.sort = key;
        let after = |x: Option<f64>| x.map_or((1, 0.0), |v| (0, v));
        match key {
            SortKey::Run => self.rows.sort_by_key(|r| r.number),
            SortKey::Benefit => self.rows.sort_by(|a, b| {
                let (ka, kb) = (
                    after(a.benefit.map(|x| -x.saved_us)),
                    after(b.benefit.map(|x| -x.saved_us)),
                );
                ka.0.cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then(a.number.cmp(&b.number))
            }),
            SortKey::StepTime => self.rows.sort_by(|a, b| {
                let (ka, kb) = (after(a.step_time_us), after(b.step_time_us));
                ka.0.cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then(a.number.cmp(&b.number))
            }),
            SortKey::Status => self
                .rows
                .sort_by(|a, b| a.status.cmp(&b.status).then(a.number.cmp(&b.number))),
        }
    }

    /// The row of run `number`.
    pub fn row(&self, number: usize) -> Option<&LedgerRow> {
        self.rows.iter().find(|r| r.number == number)
    }
}

/// The one profile `found` gives the ledger, and how it was picked.
fn one_profile(found: Found, picked: &mut Vec<String>) -> discover::ProfileFiles {
    match found {
        Found::One(files) => files,
        Found::Ranks(mut ranks) => {
            ranks.sort_by_key(|r| r.rank);
            let count = ranks.len();
            let first = ranks.swap_remove(0);
            picked.push(format!("rank {} of {count}", first.rank));
            first.files
        }
        Found::Pair { new, .. } => {
            picked.push(format!("{} of the pair", discover::NEW_DIR));
            one_profile(*new, picked)
        }
    }
}

/// The profile under `results`, read.
fn read_profile(results: &Path) -> (ProfileState, Option<Profile>) {
    let shown = results.display().to_string();
    if !results.exists() {
        return (ProfileState::Gone { path: shown }, None);
    }
    let unreadable = |why: String| ProfileState::Unreadable {
        path: shown.clone(),
        why,
    };
    let found = match discover::discover(results) {
        Ok(found) => found,
        Err(e) => return (unreadable(e.to_string()), None),
    };
    let mut picked = Vec::new();
    let files = one_profile(found, &mut picked);
    let path = files.root.display().to_string();
    match Profile::load(files, None) {
        Ok(profile) => (
            ProfileState::Found {
                path,
                picked: (!picked.is_empty()).then(|| picked.join(", ")),
            },
            Some(profile),
        ),
        Err(e) => (unreadable(e.to_string()), None),
    }
}

/// Every run's steps and per-step median, counted alike across the ledger so that its
/// columns compare: every kernel but communication, and communication too when its op type
/// is in a segment of any run's plan (as the profile comparison counts a pair).
fn medians(rows: &mut [Loaded]) {
    let fused: HashSet<String> = rows
        .iter()
        .filter_map(|l| l.planned.as_ref())
        .flat_map(|p| p.segments.iter().flat_map(|s| &s.ops))
        .filter_map(|o| o.op_type.clone())
        .collect();
    let counted = |info: &crate::profile::runs::NameInfo| {
        !crate::profile::diff::is_communication(&info.op_type, &info.core_type)
            || fused.contains(&*info.op_type)
    };
    for one in rows.iter_mut() {
        let Some(profile) = &one.profile else {
            continue;
        };
        match profile.runs.as_ref().filter(|r| !r.is_empty()) {
            Some(runs) => {
                let (_, side) = crate::profile::account::side_time(runs, &counted);
                one.row.steps = side.steps;
                one.row.median_step_us = Some(side.busy_median_ns / 1000.0);
                one.row.step_time_us = Some(side.mean_ns as f64 / 1000.0);
            }
            None => one.row.notes.push(
                "its profile has no kernel rows (op_statistic alone): no per-step median"
                    .to_string(),
            ),
        }
    }
}

/// Reads run `number`'s record, plan and profile; returns its plan file too, which the next
/// run's changes are taken against.
fn load_row(
    planning: &Planning,
    number: usize,
    dir: &Path,
    record: &RunRecord,
    previous: Option<&PlanFile>,
) -> (Loaded, Option<PlanFile>) {
    let mut notes = Vec::new();
    let plan_path = dir.join(&record.plan);
    let plan_file = match PlanFile::read(&plan_path) {
        Ok(p) => Some(p),
        Err(e) => {
            notes.push(format!("its plan cannot be read: {e}"));
            None
        }
    };
    let (plan, planned) = match &plan_file {
        Some(file) => {
            let (marks, mismatch) = file.marks_for(planning.graph());
            let plan = planning.plan(&marks);
            let planned = PlannedFusion::from_plan(
                planning.context(),
                &marks,
                &plan,
                &plan_path.display().to_string(),
            );
            let summary = PlanSummary {
                scopes: file.scopes.len(),
                segments: plan.scopes.iter().map(|s| s.segments.len()).sum(),
                breaks: plan.scopes.iter().map(|s| s.breaks.len()).sum(),
                missing_ops: mismatch.missing_ops.len(),
            };
            (Some(summary), Some(planned))
        }
        None => (None, None),
    };
    let changes = match (previous, &plan_file) {
        (Some(before), Some(after)) => plan_change::changes(before, after),
        _ => Vec::new(),
    };
    let (profile_state, profile) = match record.results_path() {
        Some(results) => read_profile(&results),
        None => (ProfileState::NoResults, None),
    };
    let status = match record.ending {
        Some(ending) => ending.word().to_string(),
        None => "end unknown".to_string(),
    };
    let row = LedgerRow {
        number,
        dir: dir.display().to_string(),
        recipe: record.recipe.clone(),
        started_ms: record.started_ms,
        started: crate::clock::utc(record.started_ms),
        status,
        plan_file: plan_path.display().to_string(),
        plan,
        changes,
        profile: profile_state,
        steps: 0,
        median_step_us: None,
        step_time_us: None,
        benefit: None,
        payoffs: None,
        predicted: None,
        notes,
    };
    let loaded = Loaded {
        row,
        planned,
        profile,
        prediction: record.predicted.clone(),
    };
    (loaded, plan_file)
}

/// The baseline run's number and why it is the one, or why there is none.
fn choose_baseline(rows: &[Loaded], asked: Baseline) -> (Option<usize>, String) {
    match asked {
        Baseline::Run(n) => match rows.iter().find(|l| l.row.number == n) {
            None => (None, format!("there is no run {n}")),
            Some(l) if l.profile.is_none() => (
                None,
                format!(
                    "run {n} has no profile to compare with ({})",
                    l.row.profile.words()
                ),
            ),
            Some(l) if !l.row.builds_no_superkernel() => (
                Some(n),
                format!("run {n}, as chosen (its plan builds SuperKernels)"),
            ),
            Some(_) => (Some(n), format!("run {n}, as chosen")),
        },
        Baseline::Auto => match rows
            .iter()
            .rev()
            .find(|l| l.row.builds_no_superkernel() && l.profile.is_some())
        {
            Some(l) => (
                Some(l.row.number),
                format!(
                    "run {}, the newest whose plan builds no SuperKernel",
                    l.row.number
                ),
            ),
            None => (
                None,
                "no run whose plan builds no SuperKernel has a profile: run the model once \
                 without scopes (or add such a profile by path), or choose a baseline run"
                    .to_string(),
            ),
        },
    }
}

/// Compares every run that has a profile with the baseline run `baseline`.
fn compare_with(rows: &mut [Loaded], baseline: usize, rule: PayoffRule) {
    let Some(base) = rows
        .iter()
        .find(|l| l.row.number == baseline)
        .and_then(|l| l.profile.clone())
    else {
        return;
    };
    for one in rows.iter_mut() {
        if one.row.number == baseline {
            continue;
        }
        let Some(new) = one.profile.take() else {
            continue;
        };
        let pair = Pair {
            base: base.clone(),
            new,
        };
        let diff = crate::profile::diff::diff_with(&pair, one.planned.as_ref(), rule);
        let account = &diff.account;
        if account.measure == crate::profile::account::Measure::BusyTime {
            one.row.notes.push(
                "no start times on both sides: saved busy time (kernel durations added up)"
                    .to_string(),
            );
        }
        one.row.benefit = Some(benefit(
            account.base.mean_ns as f64 / 1000.0,
            account.new.mean_ns as f64 / 1000.0,
        ));
        one.row.predicted = one.prediction.as_ref().map(|p| {
            let payoffs = diff.payoffs.as_ref();
            check((p, &one.row.dir), &diff.account, payoffs)
        });
        one.row.payoffs = diff.payoffs.as_ref().map(|p| {
            let count = |class: &str| p.classes.get(class).copied().unwrap_or(0);
            let names = |action| {
                let list = p.with_action(action);
                list.into_iter().map(str::to_string).collect()
            };
            PayoffCounts {
                beneficial: count("beneficial"),
                neutral: count("neutral"),
                regressed: count("regressed"),
                insufficient_evidence: count("insufficient evidence"),
                prune: names(PayoffAction::Prune),
                block: names(PayoffAction::Block),
            }
        });
    }
}

/// What `run_us` per step saves against `baseline_us` (the account's step times).
fn benefit(baseline_us: f64, run_us: f64) -> Benefit {
    let saved_us = baseline_us - run_us;
    Benefit {
        baseline_us,
        run_us,
        saved_us,
        pct: if baseline_us > 0.0 {
            saved_us / baseline_us * 100.0
        } else {
            0.0
        },
    }
}
