//! The profile view's state: the tables it shows (SuperKernels, where the time went, op types,
//! breaks) with their selection and sort order, and its keys.

use crate::profile::payoff::{Payoff, PayoffClass};
use crate::profile::ranks::{AcrossRanks, RanksDiff};
use crate::profile::steps::StepTime;
use crate::profile::{self, BreakCost, Diff, Pair, RowStatus, SegmentTime};
use crate::tui::action::Action;
use crate::tui::list::{Cycle, Rows};
use crate::tui::profiles::{Compared, LoadedProfiles, ProfilesRequest};
use crate::tui::reply::{Reply, Target};
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::sync::Arc;

/// The tables of the profile view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// Each SuperKernel's payoff, worst first.
    SuperKernels,
    /// The waterfall: base step time → new step time as the parts that add up to it.
    Waterfall,
    /// Busy time by op type and core type.
    Types,
    /// Breaks by what the unfused ops around them cost.
    Breaks,
}

impl Table {
    /// Every table, in `tab` order.
    pub const ALL: [Table; 4] = [
        Table::SuperKernels,
        Table::Waterfall,
        Table::Types,
        Table::Breaks,
    ];

    /// Its name on the tab line.
    pub fn title(self) -> &'static str {
        match self {
            Table::SuperKernels => "superkernels",
            Table::Waterfall => "where the time went",
            Table::Types => "op types",
            Table::Breaks => "breaks",
        }
    }
}

/// The op-type table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Biggest saving first, regressions last.
    Delta,
    /// Most time (the larger of base and new) first.
    Total,
    /// By op type, then core type.
    Name,
}

/// What `s` steps through.
impl Cycle for Sort {
    const ALL: &'static [Sort] = &[Sort::Delta, Sort::Total, Sort::Name];
}

impl Sort {
    /// Its name.
    pub fn title(self) -> &'static str {
        match self {
            Sort::Delta => "Δ",
            Sort::Total => "total",
            Sort::Name => "name",
        }
    }
}

/// Profiles read and compared, and how the view shows them.
#[derive(Debug)]
pub struct ProfileView {
    /// What was read.
    pub request: ProfilesRequest,
    pair: Arc<Pair>,
    /// The comparison against the plan the profiles' run used (of `plan_version`): edits
    /// since do not change what ran.
    pub diff: Diff,
    /// The workspace version of the plan compared against.
    pub plan_version: u64,
    /// The SuperKernels of that plan, as (segment, kernel name).
    superkernels: Vec<(String, String)>,
    /// That plan and its marks: what the run built.
    pub run_plan: Arc<(crate::fusion::marks::Marks, crate::fusion::plan::Plan)>,
    /// Those the current plan no longer builds (their segments), after an edit.
    pub not_in_plan: Vec<String>,
    /// How many SuperKernels of the current plan the run did not build.
    pub not_in_run: usize,
    /// The table shown.
    pub table: Table,
    /// The op-type table's order.
    pub sort: Sort,
    /// The step shown (its `Step Id`), or every step's median.
    pub step: Option<String>,
    /// Every rank compared, when the profiles hold several (the view shows one of them).
    pub ranks: Option<Arc<RanksDiff>>,
    /// Each table's rows (in [`Table::ALL`]'s order) with its selection: the payoffs worst
    /// first, the waterfall's parts the biggest change first, the op types in `sort` order,
    /// the breaks as compared.
    pub tables: [Rows; 4],
    /// For each op name in a segment of the comparison, the segment's index in
    /// `diff.per_op.segments`.
    segment_of: HashMap<String, usize>,
    /// For each break op's name, its indices in `diff.per_op.breaks`.
    breaks_of: HashMap<String, Vec<usize>>,
    /// The longest time of any kernel in the base profile per step (the op list's heat
    /// scale); 0 without a kernel file.
    pub max_base_us: f64,
    /// What the run predicted before it ran, beside what it measured, when it recorded a
    /// prediction.
    pub foresight: Option<crate::suggest::prediction::Checked>,
}

impl ProfileView {
    /// The profiles read, shared.
    pub fn shared_pair(&self) -> Arc<Pair> {
        Arc::clone(&self.pair)
    }

    /// The view of profiles read and compared on the worker.
    pub fn new(request: ProfilesRequest, loaded: LoadedProfiles) -> ProfileView {
        let LoadedProfiles {
            pair,
            compared,
            plan_version,
            run_plan,
            ranks,
            rank,
            foresight,
        } = loaded;
        let request = ProfilesRequest { rank, ..request };
        let steps = pair.base.step_count() as f64;
        let max_base_us = pair.base.kernels.as_ref().map_or(0.0, |k| {
            k.iter()
                .map(|(_, s)| s.total_us / steps)
                .fold(0.0, f64::max)
        });
        let Compared {
            diff,
            segment_of,
            breaks_of,
            superkernels,
        } = compared;
        let mut view = ProfileView {
            request,
            pair: Arc::new(pair),
            diff,
            plan_version,
            run_plan,
            superkernels,
            not_in_plan: Vec::new(),
            not_in_run: 0,
            table: Table::SuperKernels,
            sort: Sort::Delta,
            step: None,
            ranks,
            tables: Default::default(),
            segment_of,
            breaks_of,
            max_base_us,
            foresight,
        };
        view.sort_rows();
        view
    }

    /// Holds the SuperKernels the run built against `ws`'s plan now: which of them it no
    /// longer builds, and how many of its own the run did not build. The comparison itself
    /// stays the run's.
    pub fn follow(&mut self, ws: &Workspace) {
        let now: std::collections::HashSet<&str> = ws
            .plan()
            .scopes
            .iter()
            .flat_map(|s| s.segments.iter().map(|seg| seg.fused_node.as_str()))
            .collect();
        let ran: std::collections::HashSet<&str> =
            self.superkernels.iter().map(|(_, k)| k.as_str()).collect();
        self.not_in_plan = self
            .superkernels
            .iter()
            .filter(|(_, kernel)| !now.contains(kernel.as_str()))
            .map(|(segment, _)| segment.clone())
            .collect();
        self.not_in_run = now.iter().filter(|k| !ran.contains(*k)).count();
    }

    /// What edits since the profiles' plan changed, in words (`None` when nothing did).
    pub fn drift_words(&self) -> Option<String> {
        let gone = self.not_in_plan.len();
        let mut parts = Vec::new();
        if gone > 0 {
            parts.push(format!(
                "{gone} SuperKernel{} the run built {} not in the current plan",
                if gone == 1 { "" } else { "s" },
                if gone == 1 { "is" } else { "are" }
            ));
        }
        if self.not_in_run > 0 {
            parts.push(format!(
                "{} of the current plan's the run did not build",
                self.not_in_run
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "{}: the figures are the run's; run the edited plan to measure it",
                parts.join(" · ")
            )
        })
    }

    /// Rows of `table`.
    pub fn rows(&self, table: Table) -> usize {
        self.tables[table_index(table)].len()
    }

    /// The selected row of the table shown.
    pub fn selected(&self) -> usize {
        self.tables[table_index(self.table)].selection.selected
    }

    /// Moves the selection of the table shown by `step` rows, keeping it in a view of
    /// `height` rows.
    pub fn move_by(&mut self, step: isize, height: usize) {
        self.tables[table_index(self.table)].move_by(step, height);
    }

    /// Shows the next (or previous) table.
    pub fn cycle(&mut self, forward: bool) {
        let at = table_index(self.table);
        let n = Table::ALL.len();
        self.table = Table::ALL[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    /// Sorts the op types by the next order.
    pub fn next_sort(&mut self) {
        self.sort = self.sort.next();
        self.sort_rows();
    }

    /// The profile view's keys: moving, other tables, sorting, closing, and drilling down
    /// (enter); reading other profiles, compiling and the runs view are passed to the app.
    /// `height` is the table's height in rows.
    pub fn action(&mut self, action: Action, height: usize) -> Reply {
        if let Some(rows) = action.rows(height.max(1) as isize) {
            self.move_by(rows, height);
            return Reply::Done;
        }
        match action {
            Action::NextPane | Action::Expand => self.cycle(true),
            Action::PrevPane | Action::Collapse => self.cycle(false),
            Action::Sort if self.table == Table::Types => self.next_sort(),
            Action::Sort => {
                return Reply::Problem(
                    "only the op-type table sorts (SuperKernels are worst first)".to_string(),
                );
            }
            Action::Back => return Reply::Close,
            Action::Activate => return self.drill_down(),
            Action::LoadProfiles | Action::Compile | Action::Runs | Action::Timeline => {
                return Reply::Pass(action);
            }
            _ => {}
        }
        Reply::Done
    }

    /// From the selected row to the graph: an op type filters the op list to its ops; a
    /// SuperKernel row shows the segments; a segment selects its first op, a break its op.
    fn drill_down(&mut self) -> Reply {
        let row = self.selected();
        let target = match self.table {
            Table::SuperKernels => self
                .payoff_row(row)
                .and_then(|p| self.segment_time(&p.fused_node))
                .and_then(|s| s.ops.first())
                .map(|op| Target::Op(op.name.clone())),
            Table::Types if self.selected_is_superkernel() => {
                self.table = Table::SuperKernels;
                return Reply::Done;
            }
            Table::Types => self.type_row(row).map(|r| Target::Type(r.op_type.clone())),
            Table::Waterfall => self
                .waterfall_row(row)
                .and_then(|part| self.segment_time(part.fused_node.as_deref()?))
                .and_then(|s| s.ops.first())
                .map(|op| Target::Op(op.name.clone())),
            Table::Breaks => self
                .diff
                .per_op
                .as_ref()
                .and_then(|p| p.breaks.get(row))
                .map(|b| Target::Op(b.op.clone())),
        };
        target.map_or(Reply::Done, Reply::GoTo)
    }

    /// The segment of the comparison that op `name` is fused into.
    pub fn segment_of(&self, name: &str) -> Option<&SegmentTime> {
        let i = *self.segment_of.get(name)?;
        self.diff.per_op.as_ref()?.segments.get(i)
    }

    /// The breaks op `name` causes, with what the unfused ops around each cost.
    pub fn breaks_of(&self, name: &str) -> Vec<&BreakCost> {
        let Some(per_op) = &self.diff.per_op else {
            return Vec::new();
        };
        self.breaks_of
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|&i| per_op.breaks.get(i))
            .collect()
    }

    /// The segment of the comparison whose SuperKernel is `fused_node`.
    pub fn segment_time(&self, fused_node: &str) -> Option<&SegmentTime> {
        self.diff
            .per_op
            .as_ref()?
            .segments
            .iter()
            .find(|s| s.fused_node == fused_node)
    }

    /// SuperKernel `segment` across the ranks, when the profiles hold several.
    pub fn across_ranks(&self, segment: &str) -> Option<&AcrossRanks> {
        self.ranks
            .as_ref()?
            .superkernels
            .iter()
            .find(|s| s.segment == segment)
    }

    /// The waterfall's part shown at `row` of its table.
    pub fn waterfall_row(&self, row: usize) -> Option<&profile::account::Part> {
        self.tables[table_index(Table::Waterfall)]
            .item(row)
            .and_then(|i| self.diff.account.waterfall.get(i))
    }

    /// The payoff shown at `row` of the SuperKernels table.
    pub fn payoff_row(&self, row: usize) -> Option<&Payoff> {
        let list = &self.diff.payoffs.as_ref()?.list;
        self.tables[table_index(Table::SuperKernels)]
            .item(row)
            .and_then(|i| list.get(i))
    }

    /// The steps to pick from: every step's median (no step), then each step with its kernel
    /// time on both sides (a step far from the others marked); why none, without steps.
    pub fn step_rows(&self) -> Result<Vec<(String, Option<String>)>, String> {
        let Some(steps) = &self.diff.steps else {
            return Err(
                "the profiles have no steps to show: the kernel files give them".to_string(),
            );
        };
        let mut choices = vec![(
            format!(
                "every step (median of {} and {})",
                steps.base.list.len(),
                steps.new.list.len()
            ),
            None,
        )];
        for b in &steps.base.list {
            let new = steps.new.list.iter().find(|n| n.step == b.step);
            let far = b.outlier || new.is_some_and(|n| n.outlier);
            choices.push((
                format!(
                    "step {}  {:.2} µs → {}{}",
                    crate::text::sanitize(&b.step),
                    b.kernels_us,
                    new.map_or("not in the new profile".to_string(), |n| {
                        format!("{:.2} µs", n.kernels_us)
                    }),
                    if far { "  · far from the others" } else { "" }
                ),
                Some(b.step.clone()),
            ));
        }
        Ok(choices)
    }

    /// The kernel time and span of the step shown on each side, when one is.
    pub fn step_times(&self) -> Option<(&StepTime, Option<&StepTime>)> {
        let step = self.step.as_deref()?;
        let steps = self.diff.steps.as_ref()?;
        let base = steps.base.list.iter().find(|s| s.step == step)?;
        Some((base, steps.new.list.iter().find(|s| s.step == step)))
    }

    /// `p`'s times in the step shown (the mean of its occurrences in it), each side.
    pub fn step_occurrences(&self, p: &Payoff) -> (Option<f64>, Option<f64>) {
        let Some(step) = self.step.as_deref() else {
            return (p.base.map(|s| s.median_us), p.new.map(|s| s.median_us));
        };
        let mean = |side: fn(&crate::profile::payoff::OccurrenceTimes) -> Option<f64>| {
            let times: Vec<f64> = p
                .occurrences
                .iter()
                .filter(|o| o.step == step)
                .filter_map(side)
                .collect();
            (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64)
        };
        (mean(|o| o.base_us), mean(|o| o.new_us))
    }

    /// Arranges every table's rows again, each selected row following its item.
    fn sort_rows(&mut self) {
        let [payoffs, waterfall, types, breaks] = &mut self.tables;
        let rank = |c: PayoffClass| match c {
            PayoffClass::Regressed => 0,
            PayoffClass::InsufficientEvidence => 1,
            PayoffClass::Neutral => 2,
            PayoffClass::Beneficial => 3,
        };
        let list = self.diff.payoffs.as_ref().map_or(&[][..], |p| &p.list[..]);
        payoffs.arrange(
            list.len(),
            |_| true,
            |a, b| {
                let (x, y) = (&list[a], &list[b]);
                rank(x.class).cmp(&rank(y.class)).then(
                    y.delta_us
                        .unwrap_or(0.0)
                        .total_cmp(&x.delta_us.unwrap_or(0.0)),
                )
            },
        );
        let parts = &self.diff.account.waterfall;
        waterfall.arrange(
            parts.len(),
            |_| true,
            |a, b| (parts[b].delta_ns.unsigned_abs()).cmp(&parts[a].delta_ns.unsigned_abs()),
        );
        let rows = &self.diff.rows;
        let biggest = |i: usize| {
            let r = &rows[i];
            let side = |s: Option<profile::Side>| s.map_or(0.0, |s| s.total_us);
            side(r.base).max(side(r.new))
        };
        let sort = self.sort;
        types.arrange(
            rows.len(),
            |_| true,
            |a, b| match sort {
                Sort::Delta => rows[a].delta_us.total_cmp(&rows[b].delta_us),
                Sort::Total => biggest(b).total_cmp(&biggest(a)),
                Sort::Name => (&rows[a].op_type, &rows[a].core_type)
                    .cmp(&(&rows[b].op_type, &rows[b].core_type)),
            },
        );
        let count = self.diff.per_op.as_ref().map_or(0, |p| p.breaks.len());
        breaks.arrange(count, |_| true, |a, b| a.cmp(&b));
    }

    /// The op-type row shown at `row` of the table.
    pub fn type_row(&self, row: usize) -> Option<&profile::DiffRow> {
        self.tables[table_index(Table::Types)]
            .item(row)
            .and_then(|i| self.diff.rows.get(i))
    }

    /// The base time of a kernel by name, per step (the op list's time column); none without
    /// a kernel file.
    pub fn base_kernel_us(&self, name: &str) -> Option<f64> {
        let stat = self.pair.base.kernels.as_ref()?.get(name)?;
        Some(stat.total_us / self.pair.base.step_count() as f64)
    }

    /// True when the selected op-type row is a SuperKernel (its drill-down is the SuperKernels).
    pub fn selected_is_superkernel(&self) -> bool {
        self.type_row(self.tables[table_index(Table::Types)].selection.selected)
            .is_some_and(|r| r.status == RowStatus::NewSuperkernel)
    }
}

/// The index of `table` in [`Table::ALL`].
pub fn table_index(table: Table) -> usize {
    Table::ALL.iter().position(|t| *t == table).unwrap_or(0)
}
