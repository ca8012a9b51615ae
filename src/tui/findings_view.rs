//! The findings view (`!`): every finding of the plan (errors and warnings, the graph's and each
//! scope's), of the profiles when they are loaded (the payoffs' findings — SuperKernels that ran
//! but were not predicted, another workload, splits that regress together — made on the
//! profiles' worker), and the notes of reading the dump and the profiles; each with its
//! severity, where it comes from, its op and its words. `s` shows one severity at a time,
//! `enter` goes to the finding's op. The whole view is this module and its lines in
//! `tui/mod.rs`; its state is made when it opens, from the plan as it is then.

use super::action::Action;
use super::app::{App, Screen};
use super::explorer::Pane;
use super::layout;
use super::list::{Cycle, Rows};
use super::theme::Role;
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::fusion::Severity as PlanSeverity;
use crate::graph::OpId;
use crate::text::sanitize;
use ratatui::Frame;
use ratatui::layout::Rect;

/// The view, opened by `!` from anywhere.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "findings",
    title: "In the findings view",
    opens_with: Some(Action::Findings),
    from_graph: &[],
    keys: &[
        (Action::Down, "next finding"),
        (Action::Up, "previous finding"),
        (Action::Sort, "show errors, warnings, notes, or all"),
        (Action::Activate, "go to its op"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The build fails, or a SuperKernel is wrong.
    Error,
    /// Worth a look.
    Warning,
    /// What reading found.
    Note,
}

/// What `s` steps through: every severity (`None`), then each alone.
impl Cycle for Option<Severity> {
    const ALL: &'static [Option<Severity>] = &[
        None,
        Some(Severity::Error),
        Some(Severity::Warning),
        Some(Severity::Note),
    ];
}

impl Severity {
    /// Its glyph and word, readable without colour.
    fn words(self) -> &'static str {
        match self {
            Severity::Error => "✗ error",
            Severity::Warning => "! warning",
            Severity::Note => "· note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// How serious.
    pub severity: Severity,
    /// Where it comes from: `plan`, `profiles`, `reading`.
    pub source: &'static str,
    /// Its op, when it has one.
    pub op: Option<OpId>,
    /// What it says, with its scope or op named.
    pub words: String,
}

/// The view's state.
#[derive(Debug, Clone, PartialEq)]
pub struct FindingsView {
    /// Every finding, errors first.
    pub items: Vec<Item>,
    /// The severity shown (`None`: all).
    pub shown: Option<Severity>,
    /// The rows of those shown, with the selection.
    pub rows: Rows,
}

impl FindingsView {
    /// The findings of the explorer's plan and profiles now.
    pub fn of(ex: &super::explorer::Explorer) -> FindingsView {
        let (plan, graph) = (ex.ws.plan(), ex.ws.graph());
        let mut items: Vec<Item> = Vec::new();
        let scoped = plan.findings.iter().map(|f| (None, f)).chain(
            plan.scopes
                .iter()
                .flat_map(|s| s.findings.iter().map(move |f| (Some(s.name.as_str()), f))),
        );
        for (scope, f) in scoped {
            items.push(Item {
                severity: match f.severity {
                    PlanSeverity::Error => Severity::Error,
                    PlanSeverity::Warning => Severity::Warning,
                },
                source: "plan",
                op: f.op,
                words: format!(
                    "{}{}{}",
                    scope.map_or_else(String::new, |s| format!("scope {s} · ")),
                    f.op.map_or_else(String::new, |id| format!("{}: ", graph.op(id).name)),
                    f.message
                ),
            });
        }
        if let Some(view) = &ex.profiles {
            let d = &view.diff;
            for f in d.payoffs.iter().flat_map(|p| &p.findings) {
                items.push(Item {
                    severity: Severity::Warning,
                    source: "profiles",
                    op: None,
                    words: f.clone(),
                });
            }
            for n in &d.notes {
                items.push(Item {
                    severity: Severity::Note,
                    source: "profiles",
                    op: None,
                    words: n.clone(),
                });
            }
        }
        for n in graph.notes() {
            items.push(Item {
                severity: Severity::Note,
                source: "reading",
                op: n.op.as_deref().and_then(|name| graph.find(name)),
                words: n.to_string(),
            });
        }
        let mut view = FindingsView {
            items,
            shown: None,
            rows: Rows::default(),
        };
        view.arrange();
        view
    }

    /// Shows the findings of the severity shown, errors first.
    fn arrange(&mut self) {
        let (items, shown) = (&self.items, self.shown);
        self.rows.arrange(
            items.len(),
            |i| shown.is_none_or(|s| items[i].severity == s),
            |a, b| items[a].severity.cmp(&items[b].severity),
        );
    }

    /// The findings shown, in order.
    pub fn shown(&self) -> impl Iterator<Item = &Item> {
        self.rows.order().iter().map(|&i| &self.items[i])
    }

    /// The selected finding.
    pub fn selected(&self) -> Option<&Item> {
        self.rows.selected().map(|i| &self.items[i])
    }

    /// How many of each severity, in words.
    fn counts(&self) -> String {
        let count = |s: Severity| self.items.iter().filter(|i| i.severity == s).count();
        format!(
            "{} error(s), {} warning(s), {} note(s)",
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Note)
        )
    }

    /// Shows the next severity: all → errors → warnings → notes → all.
    fn next_severity(&mut self) {
        self.shown = self.shown.next();
        self.arrange();
    }
}

/// Shows the view, with the findings as they are now.
fn open(app: &mut App) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let view = FindingsView::of(ex);
    app.set_view_state(view);
    app.show_view(VIEW.name);
}

/// Rows under the list for the selected finding's whole words, wrapped.
const WHOLE: u16 = 4;

/// The rows of findings the body shows.
fn height(app: &App) -> usize {
    usize::from(
        layout::inner(app.areas().body)
            .height
            .saturating_sub(WHOLE + 1),
    )
}

/// Its keys.
fn handle(app: &mut App, action: Action) {
    let height = height(app);
    match action {
        Action::Back => app.close_view(),
        Action::Sort => {
            if let Some(view) = app.view_state_mut::<FindingsView>() {
                view.next_severity();
            }
        }
        Action::Activate => go_to_op(app),
        _ => {
            if let Some(view) = app.view_state_mut::<FindingsView>() {
                view.rows.act(action, height);
            }
        }
    }
}

/// The mouse wheel.
fn scroll(app: &mut App, rows: isize) {
    let height = height(app);
    if let Some(view) = app.view_state_mut::<FindingsView>() {
        view.rows.move_by(rows, height);
    }
}

/// Goes to the selected finding's op in the graph.
fn go_to_op(app: &mut App) {
    let op = app
        .view_state::<FindingsView>()
        .and_then(|v| v.selected().map(|i| i.op));
    let Some(op) = op else {
        return;
    };
    let Some(id) = op else {
        return app
            .info("that finding is about the graph, a scope or the profiles as a whole".into());
    };
    let hidden = app.hidden_message();
    let Screen::Explorer(ex) = &mut app.screen else {
        return;
    };
    if ex.jump_to_op(id) {
        ex.focus = Pane::Ops;
        app.close_view();
    } else {
        app.problem(hidden);
    }
}

/// Draws the view over the body `area`.
fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<FindingsView>() else {
        return;
    };
    let theme = &app.config.theme;
    let keymap = &app.config.keymap;
    let showing = match view.shown {
        None => "all".to_string(),
        Some(s) => format!("{}s only", s.words().split(' ').nth(1).unwrap_or_default()),
    };
    let title = format!(
        " Findings · {} · showing {showing} ({} another) · {} goes to its op ",
        view.counts(),
        keymap.hint(Action::Sort),
        keymap.hint(Action::Activate)
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let buf = frame.buffer_mut();
    if view.rows.is_empty() {
        put(
            buf,
            inner.x,
            inner.y,
            inner.width,
            "nothing to show: the plan has no finding of this severity, and nothing was noted",
            theme.get(Role::Dim),
        );
        return;
    }
    // The list, then the selected one's whole words under it.
    let list = inner.height.saturating_sub(WHOLE + 1).max(1);
    for (y, (i, item)) in (inner.y..inner.y + list).zip(
        view.shown()
            .enumerate()
            .skip(view.rows.selection.offset)
            .take(usize::from(list)),
    ) {
        let role = match item.severity {
            Severity::Error => Role::Error,
            Severity::Warning => Role::Warning,
            Severity::Note => Role::Dim,
        };
        let style = if i == view.rows.selection.selected {
            theme.get(Role::Selection)
        } else {
            theme.get(role)
        };
        let text = format!(
            "{:<10} {:<9} {}",
            item.severity.words(),
            item.source,
            sanitize(&item.words)
        );
        put(buf, inner.x, y, inner.width, &text, style);
    }
    if let Some(item) = view.selected() {
        let whole = layout::wrap(&sanitize(&item.words), usize::from(inner.width));
        let top = inner.y + list + 1;
        for (y, line) in (top..inner.bottom()).zip(whole.iter().take(usize::from(WHOLE))) {
            put(buf, inner.x, y, inner.width, line, theme.get(Role::Text));
        }
    }
}
