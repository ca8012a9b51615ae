//! The fusion strip's content: the whole execution order squeezed into a given number of
//! cells per stream. Computed when the graph, the plan or the width changes, so drawing a
//! frame does not walk the graph.

use crate::workspace::Workspace;

/// What one cell of one stream shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// No op of the stream falls in the cell.
    Empty,
    /// Only ops outside every segment.
    Outside,
    /// The first segment met in the cell, in execution order (by its ordinal).
    Segment(usize),
    /// An op that breaks a scope.
    Break,
}

/// The strip's cells for every stream, and how cells map to execution positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Minimap {
    ops: usize,
    cells: usize,
    /// `rows[s][c]`: stream `s`, cell `c`.
    rows: Vec<Vec<Cell>>,
}

impl Minimap {
    /// The strip of `ws` in `cells` cells (at most one per op), for the first `streams`
    /// streams.
    pub fn new(ws: &Workspace, cells: usize, streams: usize) -> Minimap {
        let graph = ws.graph();
        let cx = ws.context();
        let index = ws.index();
        let ops = graph.len();
        let cells = cells.min(ops);
        let streams = streams.min(cx.streams().len());
        let mut rows = vec![vec![Cell::Empty; cells]; streams];
        let mut map = Minimap {
            ops,
            cells,
            rows: Vec::new(),
        };
        for (pos, &id) in graph.exec_order().iter().enumerate() {
            let s = cx.stream_of(id) as usize;
            if s >= streams {
                continue;
            }
            let cell = &mut rows[s][map.cell(pos)];
            *cell = match (*cell, index.is_break(id), index.segment_ordinal(id)) {
                (_, true, _) | (Cell::Break, _, _) => Cell::Break,
                (Cell::Empty | Cell::Outside, false, Some(o)) => Cell::Segment(o),
                (Cell::Empty, false, None) => Cell::Outside,
                (kept, false, _) => kept,
            };
        }
        map.rows = rows;
        map
    }

    /// Columns the stream labels (`s0 `) take before the cells.
    pub fn label_width(ws: &Workspace) -> u16 {
        let widest = ws
            .context()
            .streams()
            .iter()
            .map(|s| s.id.to_string().len())
            .max()
            .unwrap_or(1);
        (widest + 2) as u16
    }

    /// Number of cells per stream.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// The cells of stream index `s`.
    pub fn row(&self, s: usize) -> &[Cell] {
        self.rows.get(s).map_or(&[], Vec::as_slice)
    }

    /// Number of streams drawn.
    pub fn streams(&self) -> usize {
        self.rows.len()
    }

    /// The first execution position cell `c` covers.
    pub fn first_position(&self, c: usize) -> usize {
        (c * self.ops).div_ceil(self.cells.max(1))
    }

    /// The cell showing execution position `pos`.
    pub fn cell(&self, pos: usize) -> usize {
        (pos * self.cells / self.ops.max(1)).min(self.cells.saturating_sub(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::rules::RuleSet;
    use crate::fusion::testing::{graph, op};
    use crate::load::Format;

    #[test]
    fn breaks_win_over_segments_and_cells_cover_every_position() {
        // s0: a0 a1 cast a2 (scope a, cast not AscendC), u (no scope), s1: b0 b1 (scope b).
        let g = graph(vec![
            op("a0", 0, 0, Some("a")),
            op("a1", 1, 0, Some("a")),
            op("cast", 2, 0, Some("a")).ty("Cast").unsupported(),
            op("a2", 3, 0, Some("a")),
            op("u", 4, 0, None),
            op("b0", 5, 1, Some("b")),
            op("b1", 6, 1, Some("b")),
            op("u2", 7, 0, None),
        ]);
        let ws = Workspace::new(g, Format::GeProtoText, "g", &RuleSet::bundled());
        // One cell per op.
        let m = Minimap::new(&ws, 100, 4);
        assert_eq!(m.cells(), 8);
        assert_eq!(m.streams(), 2);
        use Cell::*;
        assert_eq!(
            m.row(0),
            [
                Segment(0),
                Segment(0),
                Break,
                Segment(1),
                Outside,
                Empty,
                Empty,
                Outside
            ]
        );
        assert_eq!(
            m.row(1),
            [
                Empty,
                Empty,
                Empty,
                Empty,
                Empty,
                Segment(2),
                Segment(2),
                Empty
            ]
        );
        // Two ops per cell: the break wins its cell; ops of other streams do not count.
        let m = Minimap::new(&ws, 4, 1);
        assert_eq!(m.row(0), [Segment(0), Break, Outside, Outside]);
        assert_eq!((m.first_position(2), m.cell(5)), (4, 2));
        assert_eq!(m.row(1), []);
    }
}
