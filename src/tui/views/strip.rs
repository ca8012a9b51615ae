//! The fusion strip: the whole execution order squeezed into one row per stream, each cell
//! showing the segment it falls in (`█`/`▓` alternating, so neighbours differ without colour),
//! a break (`✗`), ops outside every segment (`·`) or nothing of that stream (blank). The ruler
//! row below marks the op list's viewport (`━`), the selected op (`▲`) and, while comparing
//! with another dump or plan, the cells holding ops that differ (`◆`). The cells come from the
//! explorer's [`Minimap`].

use crate::fusion::plan::{Outcome, OutcomeDetail};
use crate::text::sanitize;
use crate::tui::explorer::Explorer;
use crate::tui::minimap::{Cell, Minimap};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

/// Draws the strip.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let map = &ex.minimap;
    let cx = ex.ws.context();
    let buf = frame.buffer_mut();
    let bar_x = area.x + Minimap::label_width(&ex.ws);
    let shown = map.streams().min(usize::from(area.height - 1));
    // A graph that gets no SuperKernel has no segments to draw: its stream rows say why.
    let banner = ex
        .ws
        .plan()
        .outcome
        .detail()
        .map(|d| (&ex.ws.plan().outcome, d));
    for (row, stream) in cx.streams().iter().take(shown).enumerate() {
        if let Some((outcome, detail)) = banner {
            outcome_row(outcome, detail, row, shown, theme, buf, area);
            continue;
        }
        let y = area.y + row as u16;
        buf.set_string(area.x, y, format!("s{}", stream.id), theme.get(Role::Dim));
        for (c, cell) in map.row(row).iter().enumerate() {
            let (glyph, style) = match *cell {
                Cell::Empty => (" ", Style::new()),
                Cell::Outside => ("·", theme.get(Role::Dim)),
                Cell::Break => ("✗", theme.get(Role::Break)),
                Cell::Segment(o) => (
                    if o % 2 == 0 { "█" } else { "▓" },
                    Style::new().fg(theme.band(o)),
                ),
            };
            buf.set_string(bar_x + c as u16, y, glyph, style);
        }
    }
    // The ruler: the list's viewport and the selected op.
    let y = area.y + shown as u16;
    let more = cx.streams().len() - shown;
    if more > 0 {
        buf.set_string(area.x, y, format!("+{more}"), theme.get(Role::Dim));
    }
    let rows = ex.rows();
    if rows.is_empty() || map.cells() == 0 {
        return;
    }
    let graph = ex.ws.graph();
    let first = ex.offset().min(rows.len() - 1);
    let last = (ex.offset() + ex.list_height()).min(rows.len()) - 1;
    let from = map.cell(graph.exec_position(rows[first]));
    let to = map.cell(graph.exec_position(rows[last]));
    for c in 0..map.cells() {
        let (glyph, style) = if (from..=to).contains(&c) {
            ("━", theme.get(Role::Viewport))
        } else {
            ("─", theme.get(Role::Dim))
        };
        buf.set_string(bar_x + c as u16, y, glyph, style);
    }
    // While comparing, the cells holding an op that differs.
    if let Some(compared) = &ex.compared {
        let mut last = None;
        for &pos in &compared.positions {
            let c = map.cell(pos);
            if last != Some(c) {
                buf.set_string(bar_x + c as u16, y, "◆", theme.get(Role::Changed));
                last = Some(c);
            }
        }
    }
    if let Some(id) = ex.selected_op() {
        let c = map.cell(graph.exec_position(id));
        buf.set_string(bar_x + c as u16, y, "▲", theme.get(Role::Viewport));
    }
}

/// Row `row` of `rows` stream rows given over to a failed outcome: the headline, then what
/// to change, then GE's own message (one row: the headline and the fix together).
fn outcome_row(
    outcome: &Outcome,
    detail: &OutcomeDetail,
    row: usize,
    rows: usize,
    theme: &Theme,
    buf: &mut Buffer,
    area: Rect,
) {
    let headline = outcome.headline().unwrap_or_default();
    let (text, role) = match (row, rows) {
        (0, 1) => (format!("{headline} · fix: {}", detail.fix), Role::Error),
        (0, _) => (headline, Role::Error),
        (1, _) => (format!("  fix: {}", detail.fix), Role::Text),
        (2, _) => (format!("  GE: {}", detail.ge_message), Role::Dim),
        _ => return,
    };
    let y = area.y + row as u16;
    super::put(
        buf,
        area.x,
        y,
        area.width,
        &sanitize(&text),
        theme.get(role),
    );
}
