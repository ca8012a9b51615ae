//! The graph kernel flags view of a MindSpore graph (`o`, where a SuperKernel graph opens the
//! options editor): each flag with its default and meaning, and what it would change in this
//! graph where the graph can tell (`crate::mindspore::flags`), wrapped to the view's width.
//! Read-only: MindSpore's flags are set where the model runs. The whole view is this module
//! (its state, keys, handler and drawing) and its lines in `tui/mod.rs` (its `mod` and its place in `VIEWS`).

use super::action::Action;
use super::app::{App, Screen};
use super::layout;
use super::theme::Role;
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::mindspore::flags::{FLAGS, HOW_TO_SET, effects};
use crate::text::sanitize;
use crate::workspace::Workspace;
use ratatui::Frame;
use ratatui::layout::Rect;

/// The view, opened by `o` on a MindSpore graph.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "flags",
    title: "In the graph kernel flags view",
    opens_with: None,
    from_graph: &[],
    keys: &[
        (Action::Down, "scroll down"),
        (Action::Up, "scroll up"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// What a line of the view is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A flag and its default.
    Flag,
    /// What it does.
    Meaning,
    /// What it would change in this graph.
    Change,
    /// How to set the flags.
    Note,
}

/// The view's state.
#[derive(Debug)]
pub struct FlagsView {
    /// The lines, before wrapping.
    pub lines: Vec<(LineKind, String)>,
    /// The first wrapped row shown.
    pub offset: usize,
}

impl FlagsView {
    /// The view for the graph of `ws`.
    pub fn new(ws: &Workspace) -> FlagsView {
        let changes = effects(ws.graph(), ws.context().verdicts(), ws.plan(), &[]);
        let mut lines = Vec::new();
        for f in FLAGS {
            lines.push((
                LineKind::Flag,
                format!("--{}  default {}", f.name, f.default),
            ));
            lines.push((LineKind::Meaning, f.meaning.to_string()));
            for (_, change) in changes.iter().filter(|(name, _)| *name == f.name) {
                lines.push((LineKind::Change, format!("in this graph: {change}")));
            }
        }
        lines.push((LineKind::Note, format!("Set them with {HOW_TO_SET}.")));
        FlagsView { lines, offset: 0 }
    }

    /// The lines wrapped to `width`, a flag's meaning and changes indented under it.
    pub fn rows(&self, width: usize) -> Vec<(LineKind, String)> {
        self.lines
            .iter()
            .flat_map(|(kind, text)| {
                let indent = if matches!(kind, LineKind::Meaning | LineKind::Change) {
                    "  "
                } else {
                    ""
                };
                layout::wrap(text, width.saturating_sub(indent.len()))
                    .into_iter()
                    .map(move |r| (*kind, format!("{indent}{r}")))
            })
            .collect()
    }

    /// Scrolls by `rows`, keeping a view `height` rows tall of rows `width` wide filled.
    pub fn scroll(&mut self, rows: isize, width: usize, height: usize) {
        let last = self.rows(width).len().saturating_sub(height.max(1));
        self.offset = self.offset.saturating_add_signed(rows).min(last);
    }
}

/// Shows the view, made for the graph the first time.
fn open(app: &mut App) {
    if app.view_state::<FlagsView>().is_none() {
        let Screen::Explorer(ex) = &app.screen else {
            return;
        };
        let view = FlagsView::new(&ex.ws);
        app.set_view_state(view);
    }
    app.show_view(VIEW.name);
}

/// The rows of text the body shows, and its width.
fn body(app: &App) -> (usize, usize) {
    let inner = layout::inner(app.areas().body);
    (usize::from(inner.width), usize::from(inner.height))
}

/// Its keys: scrolling, and closing.
fn handle(app: &mut App, action: Action) {
    let (width, height) = body(app);
    if action == Action::Back {
        app.close_view();
    } else if let Some(rows) = action.rows(height.max(1) as isize) {
        scroll_by(app, rows, width, height);
    }
}

/// The mouse wheel.
fn scroll(app: &mut App, rows: isize) {
    let (width, height) = body(app);
    scroll_by(app, rows, width, height);
}

fn scroll_by(app: &mut App, rows: isize, width: usize, height: usize) {
    if let Some(view) = app.view_state_mut::<FlagsView>() {
        view.scroll(rows, width, height);
    }
}

/// Draws the view over the body `area`.
fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<FlagsView>() else {
        return;
    };
    let theme = &app.config.theme;
    let title = format!(
        " Graph kernel flags · what each would change in this graph · {} back ",
        app.config.keymap.hint(Action::Back)
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let buf = frame.buffer_mut();
    let rows = view.rows(usize::from(inner.width));
    let offset = view
        .offset
        .min(rows.len().saturating_sub(usize::from(inner.height)));
    for (y, (kind, text)) in (inner.y..inner.y + inner.height).zip(rows.iter().skip(offset)) {
        let role = match kind {
            LineKind::Flag => Role::Title,
            LineKind::Meaning => Role::Text,
            LineKind::Change => Role::Good,
            LineKind::Note => Role::Dim,
        };
        put(
            buf,
            inner.x,
            y,
            inner.width,
            &sanitize(text),
            theme.get(role),
        );
    }
}
