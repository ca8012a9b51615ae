//! The command palette (`:` or `ctrl-k`): every action available where it was opened — the
//! global ones and the open view's own, or the graph's — with its keys and what it does,
//! narrowed as you type (the letters in order, closest first), `enter` runs the selected one
//! there. It reads its own text through its view's `text` hook: the whole view is this module
//! and its lines in `tui/mod.rs`.

use super::action::Action;
use super::app::App;
use super::layout;
use super::list::Selection;
use super::theme::Role;
use super::view::ViewSpec;
use super::views::{pane_block, put};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

/// The view, opened by `:` or `ctrl-k` from the graph or a view.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "palette",
    title: "In the command palette",
    opens_with: Some(Action::Palette),
    from_graph: &[],
    keys: &[
        (Action::Down, "next action"),
        (Action::Up, "previous action"),
        (Action::Activate, "run it"),
        (Action::Back, "close the palette"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: Some(text),
};

/// One action the palette offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The action.
    pub action: Action,
    /// Its keys, as the key bar writes them.
    pub keys: String,
    /// What it does here.
    pub help: String,
}

/// The palette's state.
#[derive(Debug, Clone, PartialEq)]
pub struct PaletteView {
    /// The view up when it opened (`None`: the graph), where an action runs.
    pub over: Option<&'static str>,
    /// Every action available there.
    pub entries: Vec<Entry>,
    /// What was typed.
    pub filter: String,
    /// The selected row of those shown, and the first drawn.
    pub list: Selection,
}

/// The actions that work on every layer.
const GLOBAL: [Action; 5] = [
    Action::Help,
    Action::Messages,
    Action::Findings,
    Action::Suspend,
    Action::Quit,
];

impl PaletteView {
    /// The palette over the view `over` (or the graph) of `app`.
    fn new(app: &App) -> PaletteView {
        let keymap = &app.config.keymap;
        let entry = |action: Action, help: &str| Entry {
            action,
            keys: keymap.label(action),
            help: help.to_string(),
        };
        let over = app.up_view();
        let mut entries: Vec<Entry> = match over {
            Some(view) => view.keys.iter().map(|(a, help)| entry(*a, help)).collect(),
            None => Action::all()
                .filter(|a| !a.view_only() && *a != Action::Palette)
                .filter(|a| !GLOBAL.contains(a))
                .map(|a| entry(a, a.description()))
                .collect(),
        };
        if over.is_some() {
            for a in [Action::Undo, Action::Redo] {
                entries.push(entry(a, a.description()));
            }
        }
        entries.extend(GLOBAL.iter().map(|a| entry(*a, a.description())));
        PaletteView {
            over: over.map(|v| v.name),
            entries,
            filter: String::new(),
            list: Selection::default(),
        }
    }

    /// The entries the filter keeps, closest first: each of its letters in order in the
    /// entry's name, keys and words (case aside), the tighter the better.
    pub fn shown(&self) -> Vec<&Entry> {
        let wanted: Vec<char> = self.filter.to_lowercase().chars().collect();
        let mut scored: Vec<(usize, usize, &Entry)> = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let text = format!("{} {} {}", e.action.name(), e.keys, e.help).to_lowercase();
                spread(&text, &wanted).map(|s| (s, i, e))
            })
            .collect();
        scored.sort_by_key(|(s, i, _)| (*s, *i));
        scored.into_iter().map(|(_, _, e)| e).collect()
    }
}

/// How far apart the letters of `wanted` lie in `text`, in order (0: next to each other);
/// `None` when they are not all there.
fn spread(text: &str, wanted: &[char]) -> Option<usize> {
    let mut chars = text.chars().enumerate();
    let mut first = None;
    let mut last = 0;
    for w in wanted {
        let (at, _) = chars.find(|(_, c)| c == w)?;
        first.get_or_insert(at);
        last = at;
    }
    Some(first.map_or(0, |f| last - f + 1 - wanted.len()))
}

/// Opens the palette over what is up.
fn open(app: &mut App) {
    let view = PaletteView::new(app);
    app.set_view_state(view);
    app.show_view(VIEW.name);
}

/// Its keys, when not typed text.
fn handle(app: &mut App, action: Action) {
    match action {
        Action::Back => close(app),
        Action::Activate => run(app),
        _ => {
            let height = list_height(app.areas().body);
            if let Some(rows) = action.rows(height as isize) {
                move_by(app, rows);
            }
        }
    }
}

/// The mouse wheel.
fn scroll(app: &mut App, rows: isize) {
    move_by(app, rows);
}

fn move_by(app: &mut App, rows: isize) {
    let height = list_height(app.areas().body);
    if let Some(view) = app.view_state_mut::<PaletteView>() {
        let len = view.shown().len();
        view.list.move_by(rows, len, height);
    }
}

/// The rows of actions the palette shows in `area`: under the typed text and a blank line.
fn list_height(area: Rect) -> usize {
    usize::from(layout::inner(area).height.saturating_sub(2))
}

/// The typed text: letters narrow the list, backspace widens it; the arrows, enter and esc
/// go to [`handle`].
fn text(app: &mut App, key: KeyEvent) -> bool {
    let Some(view) = app.view_state_mut::<PaletteView>() else {
        return false;
    };
    match key.code {
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
            view.filter.push(c);
            view.list.reset();
            true
        }
        KeyCode::Backspace => {
            view.filter.pop();
            view.list.reset();
            true
        }
        KeyCode::Up => {
            move_by(app, -1);
            true
        }
        KeyCode::Down => {
            move_by(app, 1);
            true
        }
        KeyCode::Enter => {
            run(app);
            true
        }
        KeyCode::Esc => {
            close(app);
            true
        }
        _ => false,
    }
}

/// Closes the palette: what was up before shows again.
fn close(app: &mut App) {
    match app.view_state::<PaletteView>().and_then(|v| v.over) {
        Some(over) => app.show_view(over),
        None => app.close_view(),
    }
}

/// Runs the selected action where the palette was opened.
fn run(app: &mut App) {
    let action = app
        .view_state::<PaletteView>()
        .and_then(|v| v.shown().get(v.list.selected).map(|e| e.action));
    close(app);
    if let Some(action) = action {
        app.perform(action);
    }
}

/// Draws the palette over the body `area`.
fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<PaletteView>() else {
        return;
    };
    let theme = &app.config.theme;
    let shown = view.shown();
    let title = format!(
        " Command palette · {} of {} action(s) {} · type to narrow, enter runs, esc closes ",
        shown.len(),
        view.entries.len(),
        view.over
            .map_or("on the graph".to_string(), |v| format!("in the {v} view"))
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let buf = frame.buffer_mut();
    put(
        buf,
        inner.x,
        inner.y,
        inner.width,
        &format!("› {}▏", crate::text::sanitize(&view.filter)),
        theme.get(Role::Key),
    );
    let first = view.list.window(shown.len(), list_height(area)).start;
    for (y, (i, e)) in (inner.y + 2..inner.bottom()).zip(shown.iter().enumerate().skip(first)) {
        let style = if i == view.list.selected {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::Text)
        };
        let text = format!("{:<16} {:<18} {}", e.keys, e.action.name(), e.help);
        put(buf, inner.x, y, inner.width, &text, style);
    }
}
