//! The ranks view (`R` in the profile view): every rank of profiles that hold several, at a
//! glance — a row per rank with its step time with SuperKernel and its change, and a column per
//! SuperKernel holding its Δ on that rank (▼ saved, ▲ cost; a regressed payoff marked ▲ in the
//! error colour), the slowest rank flagged ⚑ and a rank where any SuperKernel regressed marked.
//! `h`/`l` move the column cursor (the SuperKernel columns scroll with it), `s` sorts by the
//! column under it (again: the other way), `enter` opens that rank's comparison. The rows are
//! the ranks compared when the profiles were read; the whole view is this module.

use super::action::Action;
use super::app::App;
use super::layout;
use super::list::Rows;
use super::profiles::ProfilesRequest;
use super::theme::Role;
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::profile::figures::{delta, micros};
use crate::profile::output::change_short;
use crate::profile::payoff::PayoffClass;
use crate::profile::ranks::RanksDiff;
use crate::text::{cut_middle, sanitize};
use ratatui::Frame;
use ratatui::layout::Rect;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

/// The view, opened from the profile view.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "ranks",
    title: "In the ranks view",
    opens_with: None,
    from_graph: &[],
    keys: &[
        (Action::Activate, "open this rank's comparison"),
        (
            Action::Sort,
            "sort by the column under the cursor (again: the other way)",
        ),
        (Action::Expand, "the column to the right"),
        (Action::Collapse, "the column to the left"),
        (Action::Down, "next rank"),
        (Action::Up, "previous rank"),
        (Action::PickRank, "back to the profile view"),
        (Action::Back, "back to the profile view"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// Columns before the SuperKernels': the rank, its step time with SuperKernel, its change.
const FIXED: usize = 3;
/// Widths of the fixed columns and of a SuperKernel's.
const RANK_W: u16 = 9;
const TIME_W: u16 = 14;
const CHANGE_W: u16 = 15;
const CELL_W: u16 = 10;

/// One SuperKernel on one rank.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    delta_us: Option<f64>,
    class: PayoffClass,
}

/// The view's state.
#[derive(Debug, Clone)]
pub struct RanksView {
    ranks: Arc<RanksDiff>,
    /// What the profiles were read with: another rank is read as it, for that rank.
    request: ProfilesRequest,
    /// For each rank (as `ranks.ranks`), each SuperKernel's cell (as `ranks.superkernels`).
    cells: Vec<Vec<Option<Cell>>>,
    /// True for a rank where a SuperKernel regressed.
    regressed: Vec<bool>,
    /// The ranks in the order shown, with the selection.
    pub rows: Rows,
    /// The column under the cursor: the rank, step time, change, then each SuperKernel.
    pub column: usize,
    /// The first SuperKernel column shown.
    first: usize,
    /// The column sorted by, and whether the largest come first.
    pub sort: (usize, bool),
}

impl RanksView {
    /// The view of `ranks`, read as `request` says.
    pub fn new(ranks: Arc<RanksDiff>, request: ProfilesRequest) -> RanksView {
        let at: HashMap<&str, usize> = ranks
            .superkernels
            .iter()
            .enumerate()
            .map(|(i, s)| (s.segment.as_str(), i))
            .collect();
        let cells: Vec<Vec<Option<Cell>>> = ranks
            .ranks
            .iter()
            .map(|r| {
                let mut row = vec![None; ranks.superkernels.len()];
                for p in &r.payoffs {
                    if let Some(&i) = at.get(p.segment.as_str()) {
                        row[i] = Some(Cell {
                            delta_us: p.delta_us,
                            class: p.class,
                        });
                    }
                }
                row
            })
            .collect();
        let regressed = cells
            .iter()
            .map(|row| {
                row.iter()
                    .flatten()
                    .any(|c| c.class == PayoffClass::Regressed)
            })
            .collect();
        let mut view = RanksView {
            ranks,
            request,
            cells,
            regressed,
            rows: Rows::default(),
            column: 0,
            first: 0,
            sort: (0, false),
        };
        view.arrange();
        view
    }

    /// Columns in all.
    fn columns(&self) -> usize {
        FIXED + self.ranks.superkernels.len()
    }

    /// Orders the ranks by the column sorted by; ties, and ranks without a figure there, in
    /// rank order after the others.
    fn arrange(&mut self) {
        let (column, largest_first) = self.sort;
        let ranks = &self.ranks.ranks;
        let cells = &self.cells;
        let key = |i: usize| -> Option<f64> {
            match column {
                0 => Some(f64::from(ranks[i].rank)),
                1 => Some(ranks[i].new_ns as f64),
                2 => ranks[i].change_pct,
                c => cells[i].get(c - FIXED).copied().flatten()?.delta_us,
            }
        };
        self.rows.arrange(
            ranks.len(),
            |_| true,
            |a, b| {
                let by = match (key(a), key(b)) {
                    (Some(x), Some(y)) if largest_first => y.total_cmp(&x),
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => Ordering::Equal,
                };
                by.then(ranks[a].rank.cmp(&ranks[b].rank))
            },
        );
    }

    /// Sorts by the column under the cursor; by it already, the other way.
    fn sort_here(&mut self) {
        self.sort = if self.sort.0 == self.column {
            (self.column, !self.sort.1)
        } else {
            // Times and costs: the largest first; the rank: in order.
            (self.column, self.column != 0)
        };
        self.arrange();
    }

    /// Moves the column cursor by `step`, scrolling the SuperKernels so that it shows when
    /// `shown` of them fit.
    fn move_column(&mut self, step: isize, shown: usize) {
        let last = self.columns().saturating_sub(1);
        self.column = self.column.saturating_add_signed(step).min(last);
        if self.column >= FIXED {
            let sk = self.column - FIXED;
            let shown = shown.max(1);
            if sk < self.first {
                self.first = sk;
            } else if sk >= self.first + shown {
                self.first = sk + 1 - shown;
            }
        }
    }

    /// The rank on the selected row.
    fn selected_rank(&self) -> Option<u32> {
        self.rows.selected().map(|i| self.ranks.ranks[i].rank)
    }

    /// What the column under the cursor is, in words, for the title.
    fn column_words(&self) -> String {
        let (column, largest_first) = self.sort;
        let sorted = match column {
            0 => "rank".to_string(),
            1 => "step time".to_string(),
            2 => "change".to_string(),
            c => self
                .ranks
                .superkernels
                .get(c - FIXED)
                .map_or_else(String::new, |s| sanitize(&s.segment).into_owned()),
        };
        let way = if largest_first {
            "largest first"
        } else {
            "smallest first"
        };
        let here = match self
            .column
            .checked_sub(FIXED)
            .and_then(|c| self.ranks.superkernels.get(c))
        {
            Some(s) => {
                let median = s.median_delta_us.map_or("—".to_string(), delta);
                let slowest = s.slowest.map_or(String::new(), |(rank, us)| {
                    format!(", slowest on rank {rank} ({us:.2} µs)")
                });
                format!(
                    " · {}: median Δ {median} µs over {} rank(s){slowest}, regressed on {}",
                    sanitize(&s.segment),
                    s.ranks_measured,
                    s.regressed_ranks.len()
                )
            }
            None => String::new(),
        };
        format!("sorted by {sorted}, {way}{here}")
    }
}

/// Rows of ranks the body shows (between the header and the line on the column).
fn height(app: &App) -> usize {
    usize::from(layout::inner(app.areas().body).height.saturating_sub(2))
}

/// SuperKernel columns that fit in the body.
fn shown_columns(app: &App) -> usize {
    let width = layout::inner(app.areas().body).width;
    usize::from(width.saturating_sub(RANK_W + TIME_W + CHANGE_W) / CELL_W)
}

/// Opens the view on the ranks of the profiles read, or says why there are none.
fn open(app: &mut App) {
    let Some(profiles) = app.profile_view() else {
        return app.problem("no profiles read: p reads them".to_string());
    };
    let Some(ranks) = profiles.ranks.clone() else {
        return app.problem("the profiles hold one rank".to_string());
    };
    let request = profiles.request.clone();
    let kept = app
        .view_state::<RanksView>()
        .is_some_and(|v| Arc::ptr_eq(&v.ranks, &ranks));
    if !kept {
        app.set_view_state(RanksView::new(ranks, request));
    }
    app.show_view(VIEW.name);
}

/// Its keys.
fn handle(app: &mut App, action: Action) {
    let (height, shown) = (height(app), shown_columns(app));
    match action {
        Action::Back | Action::PickRank => return app.show_view("profiles"),
        Action::Activate => {
            let asked = app.view_state::<RanksView>().and_then(|v| {
                let rank = v.selected_rank()?;
                Some(ProfilesRequest {
                    rank: Some(rank),
                    ..v.request.clone()
                })
            });
            if let Some(request) = asked {
                app.load_profiles(request);
            }
            return;
        }
        _ => {}
    }
    let Some(view) = app.view_state_mut::<RanksView>() else {
        return;
    };
    match action {
        Action::Expand => view.move_column(1, shown),
        Action::Collapse => view.move_column(-1, shown),
        Action::Sort => view.sort_here(),
        _ => {
            view.rows.act(action, height);
        }
    }
}

/// The mouse wheel.
fn scroll(app: &mut App, rows: isize) {
    let height = height(app);
    if let Some(view) = app.view_state_mut::<RanksView>() {
        view.rows.move_by(rows, height);
    }
}

/// Draws the view over the body `area`.
fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<RanksView>() else {
        return;
    };
    let theme = &app.config.theme;
    let ranks = &view.ranks;
    let slowest = ranks
        .slowest_rank
        .map_or(String::new(), |r| format!(" · ⚑ slowest: rank {r}"));
    let title = format!(
        " Ranks · {} rank(s) × {} SuperKernel(s){slowest} · Δ µs with SuperKernel ",
        ranks.ranks.len(),
        ranks.superkernels.len(),
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let buf = frame.buffer_mut();
    let shown = usize::from(inner.width.saturating_sub(RANK_W + TIME_W + CHANGE_W) / CELL_W);
    let measure = ranks
        .ranks
        .first()
        .map_or("step time", |k| k.measure.name());
    // The header: the column under the cursor stands out.
    let header_style = |column: usize| {
        if column == view.column {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::Title)
        }
    };
    let mut x = inner.x;
    let time = format!("{measure} µs");
    let fixed = [
        ("rank", RANK_W),
        (time.as_str(), TIME_W),
        ("change", CHANGE_W),
    ];
    for (column, (name, w)) in fixed.iter().enumerate() {
        put(buf, x, inner.y, *w - 1, name, header_style(column));
        x += w;
    }
    let sks = view.first..(view.first + shown).min(ranks.superkernels.len());
    for k in sks.clone() {
        let name = sanitize(&ranks.superkernels[k].segment);
        let name = cut_middle(&name, usize::from(CELL_W) - 1);
        put(buf, x, inner.y, CELL_W - 1, &name, header_style(FIXED + k));
        x += CELL_W;
    }
    let height = usize::from(inner.height.saturating_sub(2));
    if inner.height >= 3 {
        let bottom = inner.bottom() - 1;
        put(
            buf,
            inner.x,
            bottom,
            inner.width,
            &view.column_words(),
            theme.get(Role::Dim),
        );
    }
    let window = view.rows.window(height);
    for (y, row) in (inner.y + 1..).zip(window) {
        let Some(i) = view.rows.item(row) else { break };
        let r = &ranks.ranks[i];
        let selected = row == view.rows.selection.selected;
        let base = if selected {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::Text)
        };
        if selected {
            buf.set_style(Rect::new(inner.x, y, inner.width, 1), base);
        }
        let flag = match (Some(r.rank) == ranks.slowest_rank, view.regressed[i]) {
            (true, true) => "⚑▲",
            (true, false) => "⚑",
            (false, true) => "▲",
            (false, false) => "",
        };
        let mut x = inner.x;
        let flagged = if view.regressed[i] && !selected {
            theme.get(Role::Error)
        } else {
            base
        };
        put(
            buf,
            x,
            y,
            RANK_W - 1,
            &format!("{:>4} {flag}", r.rank),
            flagged,
        );
        x += RANK_W;
        put(
            buf,
            x,
            y,
            TIME_W - 1,
            &format!("{:>11}", micros(r.new_ns)),
            base,
        );
        x += TIME_W;
        let change = if r.fusion.is_none() {
            "no SuperKernel".to_string()
        } else {
            change_short(r.change_pct)
        };
        put(buf, x, y, CHANGE_W - 1, &change, base);
        x += CHANGE_W;
        for k in sks.clone() {
            let cell = view.cells[i][k];
            let (text, role) = match cell {
                Some(Cell {
                    delta_us: Some(d),
                    class,
                }) => {
                    let role = if class == PayoffClass::Regressed {
                        Role::Error
                    } else {
                        Role::of_delta(d)
                    };
                    (delta(d), role)
                }
                // Not measured on both sides there, or not on this rank at all.
                Some(Cell { delta_us: None, .. }) => ("—".to_string(), Role::Dim),
                None => ("·".to_string(), Role::Dim),
            };
            let style = if selected { base } else { theme.get(role) };
            put(buf, x, y, CELL_W - 1, &format!("{text:>9}"), style);
            x += CELL_W;
        }
    }
}
