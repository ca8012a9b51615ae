//! The fusion strip: the whole execution order squeezed into one row per stream, each cell
//! showing the segment it falls in (`█`/`▓` alternating, so neighbours differ without colour),
//! a break (`✗`), ops outside every segment (`·`) or nothing of that stream (blank). The ruler
//! row below marks the op list's viewport (`━`) and the selected op (`▲`).

use crate::tui::explorer::Explorer;
use crate::tui::layout::strip_streams;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

/// Cells of the bar and the width of the stream labels for a strip drawn in `area`.
struct Geometry {
    label_width: u16,
    cells: usize,
    ops: usize,
}

impl Geometry {
    fn of(ex: &Explorer, area: Rect) -> Geometry {
        let widest = ex
            .ws
            .context()
            .streams()
            .iter()
            .map(|s| s.id.to_string().len())
            .max()
            .unwrap_or(1);
        let label_width = (widest + 2) as u16;
        let ops = ex.ws.graph().len();
        let room = usize::from(area.width.saturating_sub(label_width + 1));
        Geometry {
            label_width,
            cells: room.min(ops),
            ops,
        }
    }

    /// Execution positions covered by cell `c`.
    fn span(&self, c: usize) -> std::ops::Range<usize> {
        c * self.ops / self.cells..(c + 1) * self.ops / self.cells
    }

    /// The cell showing execution position `pos`.
    fn cell(&self, pos: usize) -> usize {
        (pos * self.cells / self.ops.max(1)).min(self.cells.saturating_sub(1))
    }
}

/// What a cell of one stream shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Empty,
    Outside,
    Segment(usize),
    Break,
}

/// Draws the strip.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let g = Geometry::of(ex, area);
    let ws = &ex.ws;
    let cx = ws.context();
    let index = ws.index();
    let order = ws.graph().exec_order();
    let shown = strip_streams(frame.area(), cx.streams().len()).min(usize::from(area.height - 1));
    let buf = frame.buffer_mut();
    let bar_x = area.x + g.label_width;
    for (row, stream) in cx.streams().iter().take(shown).enumerate() {
        let y = area.y + row as u16;
        buf.set_string(area.x, y, format!("s{}", stream.id), theme.get(Role::Dim));
        for c in 0..g.cells {
            let mut cell = Cell::Empty;
            for &id in &order[g.span(c)] {
                if cx.stream_of(id) as usize != row {
                    continue;
                }
                if index.is_break(id) {
                    cell = Cell::Break;
                    break;
                }
                match (cell, index.segment_ordinal(id)) {
                    (Cell::Empty | Cell::Outside, Some(o)) => cell = Cell::Segment(o),
                    (Cell::Empty, None) => cell = Cell::Outside,
                    _ => {}
                }
            }
            let (glyph, style) = match cell {
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
    if rows.is_empty() || g.cells == 0 {
        return;
    }
    let graph = ws.graph();
    let first = ex.offset().min(rows.len() - 1);
    let last = (ex.offset() + ex.list_height()).min(rows.len()) - 1;
    let from = g.cell(graph.exec_position(rows[first]));
    let to = g.cell(graph.exec_position(rows[last]));
    for c in 0..g.cells {
        let (glyph, style) = if (from..=to).contains(&c) {
            ("━", theme.get(Role::Viewport))
        } else {
            ("─", theme.get(Role::Dim))
        };
        buf.set_string(bar_x + c as u16, y, glyph, style);
    }
    if let Some(id) = ex.selected_op() {
        let c = g.cell(graph.exec_position(id));
        buf.set_string(bar_x + c as u16, y, "▲", theme.get(Role::Viewport));
    }
}

/// The op list row to select for a click at column `x` of a strip drawn in `area`: the first
/// listed op at or after the clicked cell's first position.
pub fn row_at(ex: &Explorer, area: Rect, x: u16) -> Option<usize> {
    let g = Geometry::of(ex, area);
    let c = usize::from(x.checked_sub(area.x + g.label_width)?);
    if c >= g.cells || ex.rows().is_empty() {
        return None;
    }
    let start = g.span(c).start;
    let graph = ex.ws.graph();
    let row = ex
        .rows()
        .partition_point(|&id| graph.exec_position(id) < start);
    Some(row.min(ex.rows().len() - 1))
}
