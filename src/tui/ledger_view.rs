//! The run ledger view (`C`): every recorded run of the dump side by side — benefit against
//! the baseline run, per-step median, payoffs, status, what its plan changed — built from the
//! run records on a worker each time it opens ([`crate::ledger`]). `s` sorts, `B` makes the
//! selected run the baseline, `space` marks runs and the second mark opens the profile
//! comparison of the two, `o` records a profile made elsewhere as a run.

use super::action::Action;
use super::app::{App, Prompt, Screen};
use super::layout;
use super::list::Selection;
use super::profiles::ProfilesRequest;
use super::theme::Role;
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::compile::record;
use crate::ledger::{Baseline, Ledger, LedgerRow, ProfileState, SortKey, output};
use crate::planfile::GraphId;
use crate::profile::payoff::PayoffRule;
use crate::text::sanitize;
use crate::worker::Stopped;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::path::PathBuf;

/// The view.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "ledger",
    title: "In the run ledger",
    opens_with: Some(Action::Ledger),
    from_graph: &[],
    keys: &[
        (Action::Down, "next run"),
        (Action::Up, "previous run"),
        (Action::Top, "first row"),
        (Action::Bottom, "last row"),
        (Action::Sort, "order by benefit, median, run, status"),
        (Action::Activate, "mark; a second mark compares the two"),
        (Action::SetBaseline, "make the selected run the baseline"),
        (Action::AddRun, "add a profile made elsewhere as a run"),
        (Action::Ledger, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// Rows the details under the table take.
const DETAILS: u16 = 9;

/// The view's state.
#[derive(Debug, Default)]
pub struct LedgerView {
    /// The ledger last built; `None` until the first arrives.
    pub ledger: Option<Ledger>,
    /// The selected row, and the first drawn.
    pub list: Selection,
    /// Runs marked for a comparison, by number, in the order marked.
    pub marked: Vec<usize>,
    /// The baseline asked for.
    pub baseline: Option<usize>,
    /// The order asked for.
    pub sort: SortKey,
    /// True while a build is under way.
    pub building: bool,
}

impl LedgerView {
    fn row(&self) -> Option<&LedgerRow> {
        self.ledger.as_ref()?.rows.get(self.list.selected)
    }

    fn len(&self) -> usize {
        self.ledger.as_ref().map_or(0, |l| l.rows.len())
    }
}

/// What a build needs, taken from the explorer.
struct BuildInput {
    planning: crate::workspace::Planning,
    dump: String,
    dirs: Vec<PathBuf>,
    graph: GraphId,
    baseline: Baseline,
    sort: SortKey,
}

impl BuildInput {
    fn build(self) -> Ledger {
        let records = record::history_of(&self.dirs, &self.graph);
        Ledger::build(
            &self.planning,
            &self.dump,
            &records,
            (self.baseline, self.sort),
            PayoffRule::default(),
        )
    }
}

/// Opens the view and builds the ledger afresh (runs may have ended since).
fn open(app: &mut App) {
    if app.view_state::<LedgerView>().is_none() {
        app.set_view_state(LedgerView::default());
    }
    rebuild(app);
    app.show_view(VIEW.name);
}

/// Builds the ledger from the run records, on a worker when there is an event loop.
fn rebuild(app: &mut App) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let dump = ex.ws.source().file.clone();
    let dirs = app.runs.history_dirs(&dump);
    let (planning, graph) = (ex.ws.planning(), GraphId::of(ex.ws.graph()));
    let Some(view) = app.view_state_mut::<LedgerView>() else {
        return;
    };
    let input = BuildInput {
        planning,
        dirs,
        graph,
        dump,
        baseline: view.baseline.map_or(Baseline::Auto, Baseline::Run),
        sort: view.sort,
    };
    view.building = true;
    app.work("skope-ledger", move || input.build(), App::ledger_built);
}

impl App {
    /// Takes in a ledger built on the worker, keeping the selected run selected.
    pub(super) fn ledger_built(&mut self, answer: Result<Ledger, Stopped>) {
        let Some(view) = self.view_state_mut::<LedgerView>() else {
            return;
        };
        view.building = false;
        let ledger = match answer {
            Ok(ledger) => ledger,
            Err(stopped) => return self.problem(format!("building the run ledger: {stopped}")),
        };
        let height = table_height(self.areas().body);
        let Some(view) = self.view_state_mut::<LedgerView>() else {
            return;
        };
        let was = view.row().map(|r| r.number);
        let row = was
            .and_then(|n| ledger.rows.iter().position(|r| r.number == n))
            .unwrap_or(0);
        view.list.select(row, ledger.rows.len(), height);
        view.marked.retain(|n| ledger.row(*n).is_some());
        view.ledger = Some(ledger);
    }

    /// Records the profile the prompt names as a run of the dump, with the plan as it is now,
    /// and builds the ledger again.
    pub(super) fn submit_added_run(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return self.problem("no path given".to_string());
        }
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let dump = ex.ws.source().file.clone();
        let runs = self.runs.dir_of(&dump);
        match crate::ledger::add::add(&runs, &ex.ws, &dump, std::path::Path::new(text)) {
            Ok(dir) => {
                self.info(format!(
                    "added {} as a run with the current plan ({})",
                    sanitize(text),
                    sanitize(&dir.display().to_string())
                ));
                rebuild(self);
            }
            Err(why) => self.problem(sanitize(&why.replace('\n', " ")).into_owned()),
        }
    }
}

fn handle(app: &mut App, action: Action) {
    let height = table_height(app.areas().body);
    let Some(view) = app.view_state_mut::<LedgerView>() else {
        app.close_view();
        return;
    };
    let len = view.len();
    if view.list.act(action, len, height) {
        return;
    }
    match action {
        Action::Back => app.close_view(),
        Action::Sort => {
            view.sort = view.sort.next();
            let number = view.row().map(|r| r.number);
            if let Some(ledger) = &mut view.ledger {
                ledger.sort_by(view.sort);
                let row = number
                    .and_then(|n| ledger.rows.iter().position(|r| r.number == n))
                    .unwrap_or(0);
                view.list.select(row, len, height);
            }
            let words = format!("runs ordered by {}", view.sort.name());
            app.info(words);
        }
        Action::SetBaseline => {
            let Some(number) = view.row().map(|r| r.number) else {
                return;
            };
            view.baseline = Some(number);
            app.info(format!("run {number} is the baseline"));
            rebuild(app);
        }
        Action::AddRun => {
            app.prompt = Some(Prompt::new(
                "add a run's profile: ",
                "enter add · esc cancel · a profile made elsewhere (directory or file); recorded with the current plan",
                String::new(),
                |app: &mut App, typed| app.submit_added_run(&typed),
            ));
        }
        Action::Activate => mark(app),
        _ => {}
    }
}

/// Marks (or unmarks) the selected run; with two marked, opens their profile comparison.
fn mark(app: &mut App) {
    let Some(view) = app.view_state_mut::<LedgerView>() else {
        return;
    };
    let Some(row) = view.row() else {
        return;
    };
    let number = row.number;
    if row.profile.path().is_none() {
        let words = format!(
            "run {number} has no profile to compare ({})",
            row.profile.words()
        );
        return app.problem(words);
    }
    if let Some(at) = view.marked.iter().position(|n| *n == number) {
        view.marked.remove(at);
        return;
    }
    view.marked.push(number);
    if view.marked.len() < 2 {
        return app.info(format!(
            "run {number} marked: mark another to compare the two (run {number} as base)"
        ));
    }
    let pair: Vec<usize> = std::mem::take(&mut view.marked);
    let Some(ledger) = &view.ledger else {
        return;
    };
    let (Some(base), Some(new)) = (ledger.row(pair[0]), ledger.row(pair[1])) else {
        return;
    };
    let (Some(base_path), Some(new_path)) = (base.profile.path(), new.profile.path()) else {
        return;
    };
    let request = ProfilesRequest {
        base: PathBuf::from(base_path),
        new: Some(PathBuf::from(new_path)),
        rank: None,
        made_with: Some(PathBuf::from(&new.plan_file)),
    };
    app.close_view();
    app.load_profiles(request);
}

fn scroll(app: &mut App, rows: isize) {
    let height = table_height(app.areas().body);
    if let Some(view) = app.view_state_mut::<LedgerView>() {
        let len = view.len();
        view.list.move_by(rows, len, height);
    }
}

/// The rows of runs the table shows in the body `area`: under the title and the header, above
/// the selected run's details.
fn table_height(area: Rect) -> usize {
    let inner = layout::inner(area);
    let details = DETAILS.min(inner.height.saturating_sub(4));
    usize::from(inner.height.saturating_sub(2 + details))
}

/// A table column: its header, width, the narrowest table it shows in, and a row's cell.
struct Column {
    header: &'static str,
    width: u16,
    /// Narrower than this, the column is left out so the plan change keeps room.
    from_width: u16,
    cell: fn(&Ledger, &LedgerRow) -> String,
}

/// The table's width below which the recipe and status columns are left out.
const WIDE: u16 = 110;

const COLUMNS: [Column; 8] = [
    Column {
        header: "#",
        width: 4,
        from_width: 0,
        cell: |_, r| r.number.to_string(),
    },
    Column {
        header: "recipe",
        width: 10,
        from_width: WIDE,
        cell: |_, r| r.recipe.clone(),
    },
    Column {
        header: "status",
        width: 9,
        from_width: WIDE,
        cell: |_, r| r.status.clone(),
    },
    Column {
        header: "SK",
        width: 4,
        from_width: 0,
        cell: |_, r| {
            r.plan
                .as_ref()
                .map_or("?".into(), |p| p.segments.to_string())
        },
    },
    Column {
        header: "step time",
        width: 11,
        from_width: 0,
        cell: |_, r| output::micros(r.step_time_us),
    },
    Column {
        header: "saved/step",
        width: 20,
        from_width: 0,
        cell: |l, r| {
            if l.baseline != Some(r.number) && r.profile.path().is_none() {
                return format!("profile {}", r.profile.words());
            }
            output::benefit_cell(l, r)
        },
    },
    Column {
        header: "payoffs ✓✗~?",
        width: 13,
        from_width: 0,
        cell: |_, r| r.payoffs.as_ref().map_or("—".into(), |p| p.cell()),
    },
    Column {
        header: "predicted before",
        width: 27,
        from_width: WIDE,
        cell: |_, r| r.predicted.as_ref().map_or("—".into(), |c| c.cell()),
    },
];

fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<LedgerView>() else {
        return;
    };
    let theme = &app.config.theme;
    let keymap = &app.config.keymap;
    let title = match &view.ledger {
        Some(l) => format!(
            " Run ledger · {} run(s) · by {}{} · {} back ",
            l.rows.len(),
            l.sort.name(),
            if view.building { " · updating…" } else { "" },
            keymap.hint(Action::Back)
        ),
        None => " Run ledger · reading the run records… ".to_string(),
    };
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let Some(ledger) = &view.ledger else {
        return;
    };
    if inner.height < 3 || inner.width < 20 {
        return;
    }
    let buf = frame.buffer_mut();
    let right = inner.x + inner.width;
    let dim = theme.get(Role::Dim);
    put(
        buf,
        inner.x,
        inner.y,
        inner.width,
        &format!("baseline: {}", sanitize(&ledger.baseline_why)),
        dim,
    );
    if ledger.rows.is_empty() {
        put(
            buf,
            inner.x,
            inner.y + 2,
            inner.width,
            &format!(
                "no runs recorded: run a recipe ({}), or add a profile made elsewhere ({})",
                keymap.hint(Action::Compile),
                keymap.hint(Action::AddRun)
            ),
            theme.get(Role::Text),
        );
        return;
    }
    let details = DETAILS.min(inner.height.saturating_sub(4));
    let table_rows = table_height(area);
    // The header.
    let mut x = inner.x + 2;
    let y = inner.y + 1;
    let columns: Vec<&Column> = COLUMNS
        .iter()
        .filter(|c| inner.width >= c.from_width)
        .collect();
    for c in &columns {
        put(
            buf,
            x,
            y,
            c.width.min(right.saturating_sub(x)),
            c.header,
            theme.get(Role::Header),
        );
        x = (x + c.width + 1).min(right);
    }
    if x < right {
        put(buf, x, y, right - x, "plan change", theme.get(Role::Header));
    }
    let top = view.list.window(ledger.rows.len(), table_rows).start;
    for (i, row) in ledger.rows.iter().enumerate().skip(top).take(table_rows) {
        let y = inner.y + 2 + (i - top) as u16;
        let style = if i == view.list.selected {
            theme.get(Role::Selection)
        } else if ledger.baseline == Some(row.number) {
            theme.get(Role::Key)
        } else {
            theme.get(Role::Text)
        };
        let mark = if view.marked.contains(&row.number) {
            "● "
        } else if ledger.baseline == Some(row.number) {
            "* "
        } else {
            "  "
        };
        if i == view.list.selected {
            put(
                buf,
                inner.x,
                y,
                inner.width,
                &" ".repeat(inner.width as usize),
                style,
            );
        }
        put(buf, inner.x, y, 2, mark, style);
        let mut x = inner.x + 2;
        for c in &columns {
            let text = sanitize(&(c.cell)(ledger, row)).into_owned();
            let cell_style = if c.header == "saved/step"
                && row.profile.path().is_none()
                && i != view.list.selected
            {
                theme.get(Role::Warning)
            } else {
                style
            };
            put(
                buf,
                x,
                y,
                c.width.min(right.saturating_sub(x)),
                &text,
                cell_style,
            );
            x = (x + c.width + 1).min(right);
        }
        if x < right {
            put(
                buf,
                x,
                y,
                right - x,
                &sanitize(&row.change_summary()),
                style,
            );
        }
    }
    if let Some(row) = view.row() {
        // Right under the table, or at the bottom when the table fills its part.
        let shown = ledger.rows.len().min(table_rows) as u16;
        let top = (inner.y + 3 + shown).min(inner.y + inner.height - details);
        for (i, line) in details_lines(ledger, row)
            .iter()
            .take(details as usize)
            .enumerate()
        {
            let style = if i == 0 {
                theme.get(Role::Title)
            } else {
                theme.get(Role::Text)
            };
            put(
                buf,
                inner.x,
                top + i as u16,
                inner.width,
                &sanitize(line),
                style,
            );
        }
    }
}

/// The selected run's details: where it is, its plan, its profile, against the baseline, its
/// payoffs, then every change and note.
fn details_lines(ledger: &Ledger, row: &LedgerRow) -> Vec<String> {
    let mut lines = vec![format!(
        "run {} · {} · {} · started {} · {}",
        row.number, row.recipe, row.status, row.started, row.dir
    )];
    lines.push(match &row.plan {
        Some(p) => format!(
            "plan: {} scope(s) → {} SuperKernel(s), {} break(s){} · {}",
            p.scopes,
            p.segments,
            p.breaks,
            if p.missing_ops > 0 {
                format!(", {} op(s) not in the graph", p.missing_ops)
            } else {
                String::new()
            },
            row.plan_file
        ),
        None => format!("plan: cannot be read · {}", row.plan_file),
    });
    lines.push(match &row.profile {
        ProfileState::Found { path, picked } => format!(
            "profile: {path}{}{}",
            picked.as_ref().map_or(String::new(), |p| format!(" ({p})")),
            if row.steps > 0 {
                format!(" · {} step(s)", row.steps)
            } else {
                String::new()
            }
        ),
        ProfileState::Gone { path } => format!("profile: gone — {path} is no longer there"),
        ProfileState::NoResults => "profile: none — its recipe names no results".to_string(),
        ProfileState::Unreadable { path, why } => format!("profile: unreadable — {path}: {why}"),
    });
    if let (Some(b), Some(base)) = (row.benefit, ledger.baseline) {
        lines.push(format!(
            "against run {base}: {:.2} → {:.2} µs per step, {}",
            b.baseline_us,
            b.run_us,
            output::benefit_cell(ledger, row)
        ));
    }
    if let Some(p) = &row.payoffs {
        let mut prune = String::new();
        for (action, list) in [("prune", &p.prune), ("block", &p.block)] {
            if !list.is_empty() {
                prune.push_str(&format!("; {action} {}", list.join(", ")));
            }
        }
        lines.push(format!(
            "payoffs: {} beneficial, {} neutral, {} regressed, {} insufficient evidence{prune}",
            p.beneficial, p.neutral, p.regressed, p.insufficient_evidence
        ));
    }
    if let Some(c) = &row.predicted {
        lines.push(format!("predicted before it ran: {}", c.summary()));
    }
    if row.number > 1 {
        lines.push(format!("changed: {}", row.change_summary()));
    }
    lines.extend(row.notes.iter().map(|n| format!("note: {n}")));
    lines
}
