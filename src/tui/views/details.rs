//! The details pane: draws what [`details_text`](crate::tui::details_text) says about the
//! selected op, segment or scope, scrolled.

use super::pane_block;
use crate::tui::details_text::{Subject, max_scroll};
use crate::tui::explorer::{Explorer, Pane};
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the details pane.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
    let subject = ex.subject();
    let title = match subject {
        Subject::Nothing => " Details ",
        Subject::Op(_) => " Op ",
        Subject::Segment(_) => " Segment ",
        Subject::Scope(_) => " Scope ",
    };
    let text = ex.details.paragraph(&ex.facts(), subject, theme);
    let scroll = ex.details_scroll.min(max_scroll(&text, area));
    let block = pane_block(title, ex.focus == Pane::Details && ex.code.is_none(), theme);
    frame.render_widget(
        text.block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        area,
    );
}
