//! The help overlay: draws [`help_text`](crate::tui::help_text) for the view it was asked in.

use crate::tui::action::Action;
use crate::tui::help_text::{ViewKeys, layout, max_scroll};
use crate::tui::keymap::Keymap;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

/// Draws the overlay for `view` over `area`, scrolled by `scroll` lines.
pub fn render(
    keymap: &Keymap,
    theme: &Theme,
    (scroll, view): (usize, Option<ViewKeys>),
    frame: &mut Frame,
    area: Rect,
) {
    let (popup, lines) = layout(keymap, theme, area, view);
    let max = max_scroll(keymap, theme, area, view);
    let scroll = scroll.min(max);
    let title = if max > 0 {
        format!(
            " Help — {}/{} scroll · {} closes ",
            keymap.hint(Action::Down),
            keymap.hint(Action::Up),
            keymap.hint(Action::Back)
        )
    } else {
        format!(" Help — {} closes ", keymap.hint(Action::Back))
    };
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.get(Role::BorderFocused))
        .title(Span::styled(title, theme.get(Role::Title)));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        popup,
    );
}
