//! The code view's state: the entry code generated for the selected op's segment, a line
//! cursor, and the highlighting that has arrived for it. The code follows the selection (an
//! op of another segment regenerates it; an op of this one moves the cursor to its call) and
//! the plan (every edit regenerates it), and moving the cursor selects the op its line comes
//! from. With a compile's kernel_meta loaded, the view can instead show the prediction held
//! against the entry source the compiler wrote for the same sub-ops, line by line.

use super::action::Action;
use super::help_text::ViewKeys;
use super::highlight::{Highlighted, LineSpans};
use crate::codegen::compare::{self, Change, Comparison};
use crate::codegen::{self, EntryCode, Origin};
use crate::fusion::index::SegmentRef;
use crate::graph::OpId;
use crate::workspace::Workspace;
use std::ops::Range;
use std::sync::Arc;

/// The code view's own keys while it has them (for the help).
pub const CODE_KEYS: ViewKeys = (
    "In the code view",
    &[
        (Action::Down, "next line; selects the op it belongs to"),
        (Action::Up, "previous line"),
        (Action::Expand, "scroll the code right"),
        (Action::Collapse, "scroll the code left"),
        (Action::Search, "search the code"),
        (Action::SearchNext, "next line holding it"),
        (Action::SearchPrev, "previous line holding it"),
        (Action::Zoom, "the code over the whole screen, or back"),
        (
            Action::CompareCode,
            "the code vs the compiler's source, or back",
        ),
        (Action::CopyCode, "copy the code (OSC 52)"),
        (Action::WriteCode, "write it to <dump>.codegen/"),
        (Action::CodeView, "close the code"),
        (Action::Back, "leave the zoom"),
    ],
);

/// Lines shown above an op's call when the view moves to it.
const CONTEXT_ABOVE: usize = 2;
/// Lines highlighted beyond each edge of what is shown, so that scrolling a little finds them
/// coloured.
const HIGHLIGHT_MARGIN: usize = 100;

/// The code view.
#[derive(Debug, Clone)]
pub struct CodeView {
    /// The code generated, when the selection is in a segment (or was, before it moved out).
    pub code: Option<Arc<EntryCode>>,
    /// The code held against the compiler's source for the same sub-ops, when kernel_meta has
    /// one.
    pub comparison: Option<Arc<Comparison>>,
    /// True while the comparison is shown instead of the code.
    pub comparing: bool,
    /// The text shown: the code, or both files' lines in diff order.
    text: Arc<str>,
    /// Where each shown line came from.
    origins: Vec<Origin>,
    /// How each shown line stands, while comparing.
    changes: Vec<Change>,
    /// Why no code is shown, or why it may be stale.
    pub note: Option<String>,
    /// Line of the cursor (0-based).
    pub cursor: usize,
    /// First line drawn.
    pub scroll: usize,
    /// Columns of the code scrolled off to the left.
    pub shift: usize,
    /// True when the code takes the whole body of the screen.
    pub zoomed: bool,
    /// The last text searched for in the code.
    pub search: Option<String>,
    /// Counts the code's versions; highlighting carries the version it was made for.
    pub generation: u64,
    /// The highlighting of the current version's lines, as far as it has arrived.
    highlighted: Vec<Option<LineSpans>>,
    /// The lines of the current version last sent to the highlighter.
    requested: Option<Range<usize>>,
    /// The op the lines under the cursor belong to, or the selected op.
    focus_op: Option<OpId>,
    /// True after the plan changed: the next [`CodeView::show`] generates the code again.
    stale: bool,
}

impl CodeView {
    /// An empty view; [`CodeView::show`] fills it.
    pub fn new() -> CodeView {
        CodeView {
            code: None,
            comparison: None,
            comparing: false,
            text: Arc::from(""),
            origins: Vec::new(),
            changes: Vec::new(),
            note: None,
            cursor: 0,
            scroll: 0,
            shift: 0,
            zoomed: false,
            search: None,
            generation: 0,
            highlighted: Vec::new(),
            requested: None,
            focus_op: None,
            stale: false,
        }
    }

    /// The plan changed: the code shown may be out of date or of a segment that is gone.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Shows the code of `segment` (generated again when the plan changed or for another
    /// segment), with the cursor on `op`'s call when given.
    pub fn show(&mut self, ws: &Workspace, segment: Option<SegmentRef>, op: Option<OpId>) {
        let regenerate = std::mem::take(&mut self.stale);
        let Some(at) = segment else {
            self.note = Some(match op {
                Some(id) => format!(
                    "{} is in no segment: the code of the last segment is shown",
                    crate::text::sanitize(&ws.graph().op(id).name)
                ),
                None => "select an op of a segment to see its code".to_string(),
            });
            if regenerate {
                // The plan changed: code of a segment that may be gone is not kept.
                self.set_code(None);
            }
            self.focus_op = op;
            return;
        };
        if let Some(why) = ws.no_entry_code() {
            self.note = Some(why.to_string());
            self.set_code(None);
            self.focus_op = op;
            return;
        }
        let Some(plan_segment) = ws
            .plan()
            .scopes
            .get(at.scope as usize)
            .and_then(|s| s.segments.get(at.index as usize))
        else {
            self.set_code(None);
            return;
        };
        let same = self
            .code
            .as_ref()
            .is_some_and(|c| c.segment == plan_segment.name);
        if regenerate || !same {
            let code = codegen::entry(ws.context(), ws.kernel_meta(), plan_segment);
            // The compiler's sources, when given, are found by the code's sub-op calls.
            let meta = ws.kernel_meta();
            let comparison = (!meta.sources.is_empty())
                .then(|| meta.sources_for(&compare::calls(&code)))
                .and_then(|found| found.first().map(|s| Arc::new(compare::compare(&code, s))));
            self.comparison = comparison;
            self.set_code(Some(Arc::new(code)));
            if !same {
                self.cursor = 0;
                self.scroll = 0;
            }
        }
        self.note = None;
        self.focus_op = op;
        if let Some(lines) = op.and_then(|id| self.op_lines(id)) {
            // The call's first line near the top, its block below it.
            self.cursor = lines.start;
            self.scroll = lines.start.saturating_sub(CONTEXT_ABOVE);
        }
        self.clamp();
    }

    fn set_code(&mut self, code: Option<Arc<EntryCode>>) {
        if code.is_none() {
            self.comparison = None;
        }
        self.code = code;
        self.refresh_shown();
    }

    /// Shows the comparison instead of the code, or the code again, keeping the cursor on the
    /// op it was on. Says why when there is nothing to compare with.
    pub fn toggle_compare(&mut self, meta_loaded: bool) -> Result<(), String> {
        if self.code.is_none() {
            return Err("no code shown: press e on an op of a segment".to_string());
        }
        if self.comparison.is_none() {
            return Err(if meta_loaded {
                "no entry source in kernel_meta calls this segment's sub-ops".to_string()
            } else {
                "nothing to compare with: start skope with --kernel-meta <kernel_meta dir> \
                 holding the compiler's te_superkernel_*_kernel.cpp"
                    .to_string()
            });
        }
        let op = self.origin_at_cursor().op();
        self.comparing = !self.comparing;
        self.refresh_shown();
        if let Some(lines) = op.and_then(|id| self.op_lines(id)) {
            self.cursor = lines.start;
            self.scroll = lines.start.saturating_sub(CONTEXT_ABOVE);
        }
        self.clamp();
        Ok(())
    }

    /// Fills the shown text from the code or the comparison; highlighting starts over.
    fn refresh_shown(&mut self) {
        self.comparing &= self.comparison.is_some();
        match (&self.comparison, &self.code) {
            (Some(comparison), Some(_)) if self.comparing => {
                let lines: Vec<&str> = comparison.lines.iter().map(|l| l.text.as_str()).collect();
                self.text = Arc::from(lines.join("\n"));
                self.origins = comparison.lines.iter().map(|l| l.origin).collect();
                self.changes = comparison.lines.iter().map(|l| l.change).collect();
            }
            (_, Some(code)) => {
                self.text = Arc::from(code.source.as_str());
                self.origins = code.origins().to_vec();
                self.changes = Vec::new();
            }
            (_, None) => {
                self.text = Arc::from("");
                self.origins = Vec::new();
                self.changes = Vec::new();
            }
        }
        self.generation += 1;
        self.highlighted = vec![None; self.line_count()];
        self.requested = None;
        self.clamp();
    }

    /// Number of lines shown.
    pub fn line_count(&self) -> usize {
        self.origins.len()
    }

    /// The text shown, whole (what the highlighter reads).
    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// Where shown line `n` came from.
    pub fn origin(&self, n: usize) -> Origin {
        self.origins.get(n).copied().unwrap_or_default()
    }

    /// How shown line `n` stands, while comparing.
    pub fn change(&self, n: usize) -> Option<Change> {
        self.changes.get(n).copied()
    }

    /// The shown lines of `op`'s call.
    fn op_lines(&self, op: OpId) -> Option<Range<usize>> {
        codegen::call_lines(&self.origins, op)
    }

    fn clamp(&mut self) {
        self.cursor = self.cursor.min(self.line_count().saturating_sub(1));
    }

    /// Takes highlighting that answers the current version; older answers are dropped.
    pub fn highlighted(&mut self, done: Highlighted) {
        if done.generation != self.generation {
            return;
        }
        for (n, spans) in done.lines.into_iter().enumerate() {
            if let Some(slot) = self.highlighted.get_mut(done.first + n) {
                *slot = Some(spans);
            }
        }
    }

    /// The highlighting of line `n`, once it has arrived.
    pub fn spans(&self, n: usize) -> Option<&LineSpans> {
        self.highlighted.get(n)?.as_ref()
    }

    /// The lines to send to the highlighter so that the `height` lines shown (and a margin
    /// either side) get colours, unless they have them or were asked for already; marks them
    /// asked for.
    pub fn highlight_request(&mut self, height: usize) -> Option<Range<usize>> {
        let count = self.line_count();
        let shown = self.scroll..(self.scroll + height).min(count);
        let missing = shown.clone().any(|n| self.spans(n).is_none());
        let asked = self
            .requested
            .as_ref()
            .is_some_and(|r| r.start <= shown.start && shown.end <= r.end);
        if !missing || asked {
            return None;
        }
        let margin = height.max(HIGHLIGHT_MARGIN);
        let window = shown.start.saturating_sub(margin)..(shown.end + margin).min(count);
        self.requested = Some(window.clone());
        Some(window)
    }

    /// Moves the cursor by `delta` lines and returns the op its line belongs to.
    pub fn move_cursor(&mut self, delta: isize) -> Option<OpId> {
        self.cursor = self.cursor.saturating_add_signed(delta);
        self.clamp();
        // A preload belongs to the op it preloads but sits among the previous op's lines:
        // passing over it does not move the selection.
        let op = match self.origin_at_cursor() {
            Origin::Preload(_) => None,
            origin => origin.op(),
        };
        if op.is_some() {
            self.focus_op = op;
        }
        op
    }

    /// The first line after (`forward`) or before the cursor's that holds `text` (a capital
    /// letter makes it case-sensitive), wrapping around; the cursor's own line counts last.
    pub fn find(&self, text: &str, forward: bool) -> Option<usize> {
        if self.code.is_none() || text.is_empty() {
            return None;
        }
        let sensitive = text.chars().any(char::is_uppercase);
        let needle = if sensitive {
            text.to_string()
        } else {
            text.to_lowercase()
        };
        let lines: Vec<&str> = self.text.lines().collect();
        let n = lines.len();
        let holds = |i: usize| {
            let line = lines[i];
            if sensitive {
                line.contains(&needle)
            } else {
                line.to_lowercase().contains(&needle)
            }
        };
        (1..=n)
            .map(|k| {
                if forward {
                    (self.cursor + k) % n
                } else {
                    (self.cursor + n - k % n) % n
                }
            })
            .find(|&i| holds(i))
    }

    /// The origin of the cursor's line.
    pub fn origin_at_cursor(&self) -> Origin {
        self.origin(self.cursor)
    }

    /// The op whose lines stand out.
    pub fn focus_op(&self) -> Option<OpId> {
        self.focus_op
    }

    /// Scrolls so that the cursor is within `height` lines from the top.
    pub fn keep_in_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor < self.scroll {
            self.scroll = self.cursor;
        } else if self.cursor >= self.scroll + height {
            self.scroll = self.cursor + 1 - height;
        }
    }
}

impl Default for CodeView {
    fn default() -> Self {
        CodeView::new()
    }
}

/// What the cursor's line does, in words: which op it calls or preloads, or which dependency
/// a barrier or event serves.
pub fn describe(ws: &Workspace, origin: Origin) -> String {
    let graph = ws.graph();
    let name = |id: OpId| crate::text::sanitize(&graph.op(id).name).into_owned();
    match origin {
        Origin::Frame => "set-up shared by every sub-op".to_string(),
        Origin::Op(id) => format!("calls {} ({})", name(id), graph.op(id).op_type),
        Origin::Preload(id) => format!("preloads the kernel of {}", name(id)),
        Origin::Event(id) => {
            format!(
                "{} signals or waits for an op outside the segment",
                name(id)
            )
        }
        Origin::Barrier { from, to } => {
            let edge = graph.successors(from).any(|(dst, _)| dst == to);
            format!(
                "barrier: {} waits for {}{}",
                name(to),
                name(from),
                if edge {
                    " (it reads its output)"
                } else {
                    " (order only: no direct edge)"
                }
            )
        }
    }
}
