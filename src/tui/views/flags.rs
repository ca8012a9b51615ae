//! The graph kernel flags view: each flag of MindSpore's graph kernel fusion with its default
//! and meaning, and what it would change in this graph, wrapped to the view's width.

use super::{pane_block, put};
use crate::text::sanitize;
use crate::tui::app::App;
use crate::tui::flags_view::{FlagsView, LineKind};
use crate::tui::layout;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the flags view over the body `area`.
pub fn render(app: &App, view: &FlagsView, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let title = format!(
        " Graph kernel flags · what each would change in this graph · {} back ",
        app.config.keymap.hint(crate::tui::action::Action::Back)
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
