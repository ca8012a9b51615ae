//! The graph kernel flags view of a MindSpore graph (`o`, where a SuperKernel graph opens the
//! options editor): each flag with its default and meaning, and what it would change in this
//! graph where the graph can tell (`crate::mindspore::flags`). Read-only: MindSpore's flags are
//! set where the model runs.

use super::action::Action;
use super::outcome::Outcome;
use crate::mindspore::flags::{FLAGS, HOW_TO_SET, effects};
use crate::workspace::Workspace;

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
    /// True while the view covers the panes.
    pub open: bool,
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
        FlagsView {
            lines,
            offset: 0,
            open: true,
        }
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
                super::layout::wrap(text, width.saturating_sub(indent.len()))
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

    /// The view's keys: scrolling and closing. `height` rows of `width` are shown.
    pub fn action(&mut self, action: Action, width: usize, height: usize) -> Outcome {
        if let Some(rows) = action.rows(height.max(1) as isize) {
            self.scroll(rows, width, height);
            return Outcome::Done;
        }
        if action == Action::Back {
            self.open = false;
        }
        Outcome::Done
    }
}
