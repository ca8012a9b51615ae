//! The explorer's state once a graph is loaded: the op list (rows, filter, cursor), the scopes
//! tree, what the details pane shows, the search. Every change keeps list, tree and details in
//! step: selecting an op in one selects it in the other.

use super::code_view::CodeView;
use super::details_text::{Facts, Kept, max_scroll};
pub use super::details_text::{Subject, core_text};
use super::layout::{Areas, BodyLayout, inner};
use super::minimap::Minimap;
use super::options_editor::OptionsEditor;
use super::query::Query;
use super::theme::Theme;
use super::tree::{ScopeTree, TreeId, TreePath};
use crate::edit::{Edit, EditError};
use crate::fusion::index::{SegmentRef, segment_at};
use crate::fusion::marks::OpMark;
use crate::fusion::verdict::Verdict;
use crate::graph::OpId;
use crate::workspace::Workspace;
use ratatui::layout::{Position, Rect};
use std::sync::Arc;

/// A pane that can have the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    /// The scopes tree.
    Scopes,
    /// The op list.
    Ops,
    /// The details pane.
    Details,
}

impl Pane {
    /// The next pane in tab order, or the previous one.
    pub fn cycle(self, forward: bool) -> Pane {
        match (self, forward) {
            (Pane::Scopes, true) | (Pane::Details, false) => Pane::Ops,
            (Pane::Ops, true) | (Pane::Scopes, false) => Pane::Details,
            (Pane::Details, true) | (Pane::Ops, false) => Pane::Scopes,
        }
    }
}

/// Which way to step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards the end of the list.
    Forward,
    /// Towards the start.
    Backward,
}

/// Places kept to jump back to.
const MAX_JUMPS: usize = 100;

/// The widest texts of the op list's columns over the whole graph (capped), measured once per
/// graph so the columns do not jump while scrolling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Widest {
    /// Op names.
    pub name: usize,
    /// Op types.
    pub op_type: usize,
    /// Scope names.
    pub scope: usize,
    /// Core types with block dims.
    pub core: usize,
}

impl Widest {
    fn of(ws: &Workspace) -> Widest {
        let width = |s: &str, cap: usize| s.chars().count().min(cap);
        let mut w = Widest {
            scope: scope_width(ws),
            ..Widest::default()
        };
        for op in ws.graph().ops() {
            w.name = w.name.max(width(&op.name, 48));
            w.op_type = w.op_type.max(width(&op.op_type, 28));

            w.core = w.core.max(core_text(op).map_or(0, |s| width(&s, 14)));
        }
        w
    }
}

/// The widest scope name of the plan (capped).
fn scope_width(ws: &Workspace) -> usize {
    ws.plan()
        .scopes
        .iter()
        .map(|s| s.name.chars().count().min(24))
        .max()
        .unwrap_or(0)
}

/// Where a jump to the next break or segment went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jump {
    /// There is none to go to.
    None,
    /// To the next one in the direction asked.
    Found,
    /// Past the end of the list, to the first (or from its start to the last).
    Wrapped,
}

/// The state of the explorer screen.
#[derive(Debug)]
pub struct Explorer {
    /// The loaded graph and its plan.
    pub ws: Workspace,
    /// The view up over the panes, by name (see `App::up`).
    pub(super) up: Option<&'static str>,
    /// What the views keep of their own for this graph: dropped with it.
    pub(super) view_states: super::view::ViewStates,
    /// The focused pane.
    pub focus: Pane,
    /// The ops the list shows, in execution order.
    rows: Vec<OpId>,
    filter: Option<Query>,
    breaks_only: bool,
    search: Option<Query>,
    /// Index in `rows` of the selected op.
    cursor: usize,
    /// First row drawn.
    offset: usize,
    /// The scopes tree.
    pub tree: ScopeTree,
    subject: Subject,
    /// First line of the details pane drawn.
    pub details_scroll: usize,
    /// The details pane's text, kept until what it describes changes.
    pub details: Kept,
    /// The colours the panes are drawn in.
    theme: Arc<Theme>,
    /// Ops jumped away from, most recent last ([`Explorer::jump_back`]).
    jumps: Vec<OpId>,
    /// The screen areas the last resize gave.
    pub areas: Areas,
    /// Column widths of the op list.
    pub widest: Widest,
    /// The fusion strip's cells for the current width.
    pub minimap: Minimap,
    /// Rows matching the search.
    search_matches: usize,
    /// The op last selected, kept while a filter leaves the list empty so that the selection
    /// comes back with the ops.
    anchor: Option<OpId>,
    /// Where a selected range of ops starts (the other end is the cursor), when selecting.
    range_start: Option<OpId>,
    /// The options editor, when open (drawn in place of the details).
    pub options: Option<OptionsEditor>,
    /// Options editors opened so far (each gets its own undo-step key).
    pub(super) editor_sessions: u64,
    /// The code view, when on.
    pub code: Option<CodeView>,
    /// True while the details take the whole body (`z` without the code view).
    pub details_zoomed: bool,
    /// The profile comparison against this graph's plan, once profiles are read.
    pub profiles: Option<super::profile_view::state::ProfileView>,
    /// The longest device time of a task in a SuperKernel, when the graph carries device times
    /// (the aclgraph pass's `sk_prof_device_*.json`): the op list shows them until profiles
    /// are read.
    pub device_max_us: Option<f64>,
    /// The comparison with another dump or plan file, while one is on (`O`).
    pub compared: Option<super::compare_with::Compared>,
    /// True from asking for a comparison until `O` stops it: answers that come after are
    /// dropped.
    pub comparing: bool,
}

impl Explorer {
    /// The explorer on `ws`, laid out in `areas`, with the first op selected.
    pub fn new(ws: Workspace, theme: &Theme, areas: Areas) -> Explorer {
        let theme = Arc::new(theme.clone());
        let tree = ScopeTree::new(&ws, Arc::clone(&theme));
        let rows = ws.graph().exec_order().to_vec();
        let widest = Widest::of(&ws);
        let device_max_us = ws
            .graph()
            .ops()
            .iter()
            .filter_map(|op| op.attrs.get_float(crate::graph::ATTR_DEVICE_US))
            .reduce(f64::max);
        let mut ex = Explorer {
            editor_sessions: 0,
            device_max_us,
            compared: None,
            comparing: false,
            widest,
            minimap: Minimap::default(),
            search_matches: 0,
            anchor: None,
            range_start: None,
            options: None,
            code: None,
            details_zoomed: false,
            profiles: None,
            ws,
            up: None,
            view_states: super::view::ViewStates::default(),
            focus: Pane::Ops,
            rows,
            filter: None,
            breaks_only: false,
            search: None,
            cursor: 0,
            offset: 0,
            tree,
            subject: Subject::Nothing,
            details_scroll: 0,
            details: Kept::default(),
            theme,
            jumps: Vec::new(),
            areas,
        };
        ex.minimap = ex.minimap_for(areas);
        ex.tree
            .set_width(areas.scopes.width.saturating_sub(2), &ex.ws);
        // When the graph gets no SuperKernel, start on the op that decides it.
        let start = ex
            .ws
            .plan()
            .outcome
            .detail()
            .and_then(|d| d.op)
            .map_or(0, |id| ex.ws.graph().exec_position(id));
        ex.select_row(start);
        ex
    }

    /// The ops the list shows.
    pub fn rows(&self) -> &[OpId] {
        &self.rows
    }

    /// The selected row.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The first row drawn.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The selected op, if the list is not empty.
    pub fn selected_op(&self) -> Option<OpId> {
        self.rows.get(self.cursor).copied()
    }

    /// What the details pane describes.
    pub fn subject(&self) -> Subject {
        self.subject
    }

    /// The filter, if any.
    pub fn filter(&self) -> Option<&Query> {
        self.filter.as_ref()
    }

    /// True when the list shows only breaks.
    pub fn breaks_only(&self) -> bool {
        self.breaks_only
    }

    /// The search, if any.
    pub fn search(&self) -> Option<&Query> {
        self.search.as_ref()
    }

    /// Rows of op list the screen shows.
    pub fn list_height(&self) -> usize {
        usize::from(inner(self.areas.ops).height)
            .saturating_sub(1)
            .max(1)
    }

    /// Rows of the scopes tree the screen shows.
    pub fn tree_height(&self) -> usize {
        usize::from(inner(self.areas.scopes).height).max(1)
    }

    fn minimap_for(&self, areas: Areas) -> Minimap {
        let cells = areas
            .strip
            .width
            .saturating_sub(Minimap::label_width(&self.ws) + 1);
        let streams = usize::from(areas.strip.height.saturating_sub(1));
        Minimap::new(&self.ws, usize::from(cells), streams)
    }

    /// Lays the explorer out again (after a resize).
    pub fn set_areas(&mut self, areas: Areas) {
        if areas.strip != self.areas.strip {
            self.minimap = self.minimap_for(areas);
        }
        self.areas = areas;
        self.scroll_list_into_view();
        let height = self.tree_height();
        self.tree.keep_in_view(height);
        self.tree
            .set_width(areas.scopes.width.saturating_sub(2), &self.ws);
    }

    /// Selects row `row` (clamped) of the op list; the tree and details follow.
    pub fn select_row(&mut self, row: usize) {
        if self.rows.is_empty() {
            self.cursor = 0;
            self.offset = 0;
            self.subject = Subject::Nothing;
            return;
        }
        self.cursor = row.min(self.rows.len() - 1);
        self.scroll_list_into_view();
        let id = self.rows[self.cursor];
        self.anchor = Some(id);
        self.set_subject(Subject::Op(id));
        let path = self.tree_path_of(id);
        let height = self.tree_height();
        self.tree.reveal(path, &self.ws, height);
    }

    /// Moves the list selection by `delta` rows.
    pub fn move_cursor(&mut self, delta: isize) {
        let row = self.cursor.saturating_add_signed(delta);
        self.select_row(row);
    }

    /// Scrolls the list by `delta` rows, keeping the selection when it stays visible.
    pub fn scroll_list(&mut self, delta: isize) {
        let height = self.list_height();
        let max = self.rows.len().saturating_sub(height);
        self.offset = self.offset.saturating_add_signed(delta).min(max);
        if self.cursor < self.offset {
            self.select_row(self.offset);
        } else if self.cursor >= self.offset + height {
            self.select_row(self.offset + height - 1);
        }
    }

    fn scroll_list_into_view(&mut self) {
        let height = self.list_height();
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        self.offset = self.offset.min(self.rows.len().saturating_sub(height));
    }

    fn set_subject(&mut self, subject: Subject) {
        if subject != self.subject {
            self.subject = subject;
            self.details_scroll = 0;
            self.sync_code();
        }
    }

    /// Turns the code view on (showing the selection's segment) or off.
    pub fn toggle_code(&mut self) {
        self.code = match self.code {
            Some(_) => None,
            None => Some(CodeView::new()),
        };
        self.sync_code();
    }

    /// Where the code view goes.
    pub fn body_layout(&self) -> BodyLayout {
        match &self.code {
            None if self.details_zoomed => BodyLayout::DetailsZoomed,
            None => BodyLayout::Panes,
            Some(code) if code.zoomed => BodyLayout::CodeZoomed,
            Some(_) => BodyLayout::CodeBeside,
        }
    }

    /// Lines of code the code view shows at once.
    pub fn code_height(&self) -> usize {
        usize::from(inner(self.areas.code).height)
    }

    /// Points the code view at the subject's segment (regenerating it after a plan change).
    fn sync_code(&mut self) {
        let height = self.code_height();
        let Some(code) = &mut self.code else {
            return;
        };
        let (segment, op) = match self.subject {
            Subject::Op(id) => (self.ws.index().segment_of(id), Some(id)),
            Subject::Segment(at) => (Some(at), None),
            Subject::Scope(_) | Subject::Nothing => (None, None),
        };
        code.show(&self.ws, segment, op);
        code.keep_in_view(height);
    }

    /// Scrolls the code so its cursor is in view (after the view changed size).
    pub fn show_code_cursor(&mut self) {
        let height = self.code_height();
        if let Some(code) = &mut self.code {
            code.keep_in_view(height);
        }
    }

    /// Scrolls the code sideways by `delta` columns.
    pub fn shift_code(&mut self, delta: isize) {
        if let Some(code) = &mut self.code {
            code.shift = code.shift.saturating_add_signed(delta);
        }
    }

    /// Moves the code's cursor to the next (`forward`) or previous line holding `text`, the
    /// op list following; false when no line holds it.
    pub fn find_in_code(&mut self, text: &str, forward: bool) -> bool {
        let Some(code) = &mut self.code else {
            return false;
        };
        code.search = Some(text.to_string());
        let Some(line) = code.find(text, forward) else {
            return false;
        };
        let delta = line as isize - code.cursor as isize;
        self.move_code(delta);
        true
    }

    /// Moves the code's cursor to line `line` (for a search the user cancels), the op list
    /// following.
    pub fn code_cursor_to(&mut self, line: usize) {
        let Some(code) = &self.code else {
            return;
        };
        let delta = line as isize - code.cursor as isize;
        self.move_code(delta);
    }

    /// Moves the code view's cursor by `delta` lines; the op list follows to the op the line
    /// belongs to.
    pub fn move_code(&mut self, delta: isize) {
        let height = self.code_height();
        let Some(code) = &mut self.code else {
            return;
        };
        let op = code.move_cursor(delta);
        code.keep_in_view(height);
        let (cursor, scroll) = (code.cursor, code.scroll);
        if let Some(row) = op.and_then(|id| self.row_of(id)) {
            self.select_row(row);
            // Selecting the op points the code at its call; the cursor and the scroll stay
            // where they were moved.
            if let Some(code) = &mut self.code {
                code.cursor = cursor;
                code.scroll = scroll;
            }
        }
    }

    /// The tree node that shows op `id`: its segment's op, the break it causes, or the scope
    /// member; empty for an op outside every scope.
    pub fn tree_path_of(&self, id: OpId) -> TreePath {
        let index = self.ws.index();
        if let Some(seg) = index.segment_of(id) {
            return vec![
                TreeId::Scope(seg.scope),
                TreeId::Segment(seg.index),
                TreeId::Op(id),
            ];
        }
        if let Some(b) = index.breaks_of(id).next() {
            return vec![TreeId::Scope(b.scope), TreeId::Break(b.index)];
        }
        match self.ws.marks().get(id) {
            // Listed under its scope only when the scope fuses nothing; an op the pass ignores
            // is never listed, so its scope stands for it.
            OpMark::Member { scope, .. } => {
                let Some(s) = self.ws.plan().scope_of_mark(scope) else {
                    return Vec::new();
                };
                let plan = &self.ws.plan().scopes[s];
                let ignored = self.ws.context().verdicts().get(id).verdict == Verdict::Ignored;
                if plan.segments.is_empty() && !ignored {
                    vec![TreeId::Scope(s as u32), TreeId::Op(id)]
                } else {
                    vec![TreeId::Scope(s as u32)]
                }
            }
            _ => Vec::new(),
        }
    }

    /// The row of op `id`, or when the filter hides it (or there is none) the row of the next
    /// listed op after it (clamped to the last row).
    pub fn row_near(&self, id: Option<OpId>) -> usize {
        let graph = self.ws.graph();
        id.map_or(0, |id| {
            let pos = graph.exec_position(id);
            self.rows
                .partition_point(|&r| graph.exec_position(r) < pos)
                .min(self.rows.len().saturating_sub(1))
        })
    }

    /// The op list row to select for a click at `at` on a strip drawn in `area`: the first listed
    /// op at or after the clicked cell's first position — on the clicked stream's row, an op of
    /// that stream when the list has one there.
    pub fn strip_row_at(&self, area: Rect, at: Position) -> Option<usize> {
        let ex = self;
        let map = &ex.minimap;
        let c = usize::from(at.x.checked_sub(area.x + Minimap::label_width(&ex.ws))?);
        if c >= map.cells() || ex.rows().is_empty() {
            return None;
        }
        let start = map.first_position(c);
        let graph = ex.ws.graph();
        let cx = ex.ws.context();
        let rows = ex.rows();
        let first = rows.partition_point(|&id| graph.exec_position(id) < start);
        let stream = usize::from(at.y.saturating_sub(area.y));
        let on_stream = (stream < map.streams())
            .then(|| {
                rows[first..]
                    .iter()
                    .position(|&id| cx.stream_of(id) as usize == stream)
            })
            .flatten();
        Some((first + on_stream.unwrap_or(0)).min(rows.len() - 1))
    }

    /// What the details pane's text is made from.
    pub fn facts(&self) -> Facts<'_> {
        Facts {
            ws: &self.ws,
            profiles: self.profiles.as_ref(),
        }
    }

    /// Builds the details pane's text again when what it describes has changed.
    pub fn keep_details(&mut self) {
        let mut kept = std::mem::take(&mut self.details);
        kept.refresh(&self.facts(), self.subject(), &self.theme);
        self.details = kept;
    }

    /// Scrolls the details pane by `delta` lines, within its text.
    pub fn scroll_details(&mut self, delta: isize) {
        self.keep_details();
        let text = self
            .details
            .paragraph(&self.facts(), self.subject(), &self.theme);
        let max = max_scroll(&text, self.areas.details);
        self.details_scroll = self.details_scroll.saturating_add_signed(delta).min(max);
    }

    /// The row of op `id` in the list, if the filter shows it.
    pub fn row_of(&self, id: OpId) -> Option<usize> {
        let graph = self.ws.graph();
        let pos = graph.exec_position(id);
        self.rows
            .binary_search_by_key(&pos, |&r| graph.exec_position(r))
            .ok()
    }

    /// After the tree selection changed: show the node in the details pane and select its op
    /// in the list (for a scope or segment, its first op the list shows). Returns false when
    /// the list cannot show it (the filter hides it); an op the list cannot show is not shown
    /// in the details either, so list and details stay on the same op.
    pub fn follow_tree(&mut self) -> bool {
        let plan = self.ws.plan();
        let (subject, ops): (Subject, Vec<OpId>) = match self.tree.selected() {
            [TreeId::Scope(s)] => {
                let scope = &plan.scopes[*s as usize];
                (Subject::Scope(*s), scope.members.clone())
            }
            [TreeId::Scope(s), TreeId::Segment(k)] => {
                let r = SegmentRef {
                    scope: *s,
                    index: *k,
                };
                (Subject::Segment(r), segment_at(plan, r).ops.clone())
            }
            [TreeId::Scope(s), TreeId::Break(k)] => {
                let op = plan.scopes[*s as usize].breaks[*k as usize].op;
                (Subject::Op(op), vec![op])
            }
            [.., TreeId::Op(id)] => (Subject::Op(*id), vec![*id]),
            _ => return true,
        };
        let row = ops.iter().find_map(|&id| self.row_of(id));
        if let Some(row) = row {
            self.cursor = row;
            self.scroll_list_into_view();
        }
        if row.is_some() || !matches!(subject, Subject::Op(_)) {
            self.set_subject(subject);
        }
        row.is_some() || ops.is_empty()
    }

    /// Moves the tree selection by `delta` rows.
    pub fn move_tree(&mut self, delta: isize) -> bool {
        let height = self.tree_height();
        let row = self
            .tree
            .selected_row()
            .map_or(0, |r| r.saturating_add_signed(delta));
        self.tree.select_row(row, height);
        self.follow_tree()
    }

    /// Selects the next (or previous) row whose op `pred` holds for, wrapping at the ends as
    /// a search does; says whether it found one and whether it wrapped.
    pub fn jump_to(
        &mut self,
        direction: Direction,
        pred: impl Fn(&Explorer, OpId) -> bool,
    ) -> Jump {
        let n = self.rows.len();
        let found = (1..=n)
            .map(|i| match direction {
                Direction::Forward => (self.cursor + i) % n,
                Direction::Backward => (self.cursor + n - i % n) % n,
            })
            .find(|&r| r != self.cursor && pred(self, self.rows[r]));
        match found {
            Some(row) => {
                let wrapped = match direction {
                    Direction::Forward => row < self.cursor,
                    Direction::Backward => row > self.cursor,
                };
                self.remember_jump();
                self.select_row(row);
                if wrapped { Jump::Wrapped } else { Jump::Found }
            }
            None => Jump::None,
        }
    }

    /// Notes the selected op as a place to come back to ([`Explorer::jump_back`]).
    fn remember_jump(&mut self) {
        if let Some(id) = self.selected_op() {
            if self.jumps.last() != Some(&id) {
                self.jumps.push(id);
            }
            if self.jumps.len() > MAX_JUMPS {
                self.jumps.remove(0);
            }
        }
    }

    /// Selects op `id` as a jump (back comes here again); false when the list does not show
    /// it (a filter hides it).
    pub fn jump_to_op(&mut self, id: OpId) -> bool {
        let Some(row) = self.row_of(id) else {
            return false;
        };
        self.remember_jump();
        self.select_row(row);
        true
    }

    /// Goes back to where the last jump came from; `None` when there is no jump to go back
    /// from, `Some(false)` when the list no longer shows that op.
    pub fn jump_back(&mut self) -> Option<bool> {
        let id = self.jumps.pop()?;
        Some(match self.row_of(id) {
            Some(row) => {
                self.select_row(row);
                true
            }
            None => false,
        })
    }

    /// The ops next to the selected one: those its inputs come from, then those its outputs
    /// go to (each once, in order), with words for the details pane to offer them.
    pub fn neighbours(&self) -> Vec<(OpId, String)> {
        let Subject::Op(id) = self.subject else {
            return Vec::new();
        };
        let graph = self.ws.graph();
        let op = graph.op(id);
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for input in &op.inputs {
            let (src, how) = match input {
                crate::graph::Input::Data { src, out: slot } => {
                    (*src, format!("its output {slot}"))
                }
                crate::graph::Input::Control { src } => (*src, "control".to_string()),
                _ => continue,
            };
            if seen.insert(src) {
                let from = graph.op(src);
                out.push((src, format!("← {} ({}) · {how}", from.name, from.op_type)));
            }
        }
        for (to, kind) in graph.successors(id) {
            if seen.insert(to) {
                let how = match kind {
                    crate::graph::EdgeKind::Data { out, .. } => format!("takes output {out}"),
                    crate::graph::EdgeKind::Control => "control".to_string(),
                };
                let user = graph.op(to);
                out.push((to, format!("→ {} ({}) · {how}", user.name, user.op_type)));
            }
        }
        out
    }

    /// Selects the next (or previous) op that breaks a scope.
    pub fn jump_to_break(&mut self, direction: Direction) -> Jump {
        self.jump_to(direction, |ex, id| ex.ws.index().is_break(id))
    }

    /// Selects the first op of the next (or previous) segment.
    pub fn jump_to_segment(&mut self, direction: Direction) -> Jump {
        let current = self
            .selected_op()
            .and_then(|id| self.ws.index().segment_ordinal(id));
        self.jump_to(direction, |ex, id| {
            let index = ex.ws.index();
            match index.segment_ordinal(id) {
                Some(o) if Some(o) != current => {
                    let r = index.segments()[o];
                    crate::fusion::index::segment_at(ex.ws.plan(), r)
                        .ops
                        .first()
                        == Some(&id)
                }
                _ => false,
            }
        })
    }

    /// Sets the search; the selection moves to the first match at or after row `from`
    /// (wrapping). Returns false when nothing matches.
    pub fn set_search(&mut self, query: Option<Query>, from: usize) -> bool {
        self.search = query;
        self.count_matches();
        let Some(q) = &self.search else { return true };
        let n = self.rows.len();
        let found = (0..n)
            .map(|i| (from + i) % n)
            .find(|&r| q.matches(&self.ws, self.rows[r]));
        match found {
            Some(row) => {
                self.select_row(row);
                true
            }
            None => false,
        }
    }

    /// Selects the next (or previous) search match, wrapping at the ends. Returns `None`
    /// without a search, `Some(false)` when nothing matches, `Some(true)` otherwise.
    pub fn search_step(&mut self, direction: Direction) -> Option<bool> {
        let q = self.search.clone()?;
        let n = self.rows.len();
        let found = (1..=n)
            .map(|i| match direction {
                Direction::Forward => (self.cursor + i) % n,
                Direction::Backward => (self.cursor + n - i % n) % n,
            })
            .find(|&r| q.matches(&self.ws, self.rows[r]));
        Some(match found {
            Some(row) => {
                self.select_row(row);
                true
            }
            None => false,
        })
    }

    /// Number of rows matching the search.
    pub fn search_matches(&self) -> usize {
        self.search_matches
    }

    fn count_matches(&mut self) {
        self.search_matches = self.search.as_ref().map_or(0, |q| {
            self.rows
                .iter()
                .filter(|&&id| q.matches(&self.ws, id))
                .count()
        });
    }

    /// True when op `id` matches the search.
    pub fn is_match(&self, id: OpId) -> bool {
        self.search
            .as_ref()
            .is_some_and(|q| q.matches(&self.ws, id))
    }

    /// Sets the filter and the breaks-only switch and rebuilds the rows, keeping op `keep`
    /// (default: the selected one) when it stays visible, else selecting the next visible op
    /// after it.
    pub fn set_filter(&mut self, filter: Option<Query>, breaks_only: bool, keep: Option<OpId>) {
        let keep = keep
            .or(self.selected_op())
            .or(self.anchor)
            .map(|id| self.ws.graph().exec_position(id));
        let screen_row = self.cursor.saturating_sub(self.offset);
        self.filter = filter;
        self.breaks_only = breaks_only;
        let ws = &self.ws;
        let index = ws.index();
        self.rows = ws
            .graph()
            .exec_order()
            .iter()
            .copied()
            .filter(|&id| !breaks_only || index.is_break(id))
            .filter(|&id| self.filter.as_ref().is_none_or(|q| q.matches(ws, id)))
            .collect();
        self.count_matches();
        let graph = self.ws.graph();
        let row = keep.map_or(0, |pos| {
            self.rows.partition_point(|&r| graph.exec_position(r) < pos)
        });
        // The kept op stays on the same screen row when it can.
        self.offset = row.saturating_sub(screen_row);
        self.select_row(row);
    }

    /// Starts (or stops) selecting a range of ops at the selected op.
    pub fn toggle_range(&mut self) {
        self.range_start = match self.range_start {
            Some(_) => None,
            None => self.selected_op(),
        };
    }

    /// Starts a range at the selected op unless one is being selected.
    pub fn start_range(&mut self) {
        if self.range_start.is_none() {
            self.range_start = self.selected_op();
        }
    }

    /// Stops selecting a range; true when one was being selected.
    pub fn clear_range(&mut self) -> bool {
        self.range_start.take().is_some()
    }

    /// The rows of the selected range (the selected op alone when no range is selected), as
    /// a start and an end row (inclusive).
    pub fn range_rows(&self) -> Option<(usize, usize)> {
        if self.rows.is_empty() {
            return None;
        }
        let start = self
            .range_start
            .map_or(self.cursor, |op| self.row_near(Some(op)));
        Some((start.min(self.cursor), start.max(self.cursor)))
    }

    /// True when a range is being selected.
    pub fn selecting(&self) -> bool {
        self.range_start.is_some()
    }

    /// The ops an edit applies to: the selected range, else the selected op.
    pub fn edit_ops(&self) -> Vec<OpId> {
        self.range_rows()
            .map(|(a, b)| self.rows[a..=b].to_vec())
            .unwrap_or_default()
    }

    /// The scope an edit of a whole scope applies to: the tree's scope when the tree has the
    /// focus, else the scope of the selected op.
    pub fn current_scope(&self) -> Option<String> {
        let plan = self.ws.plan();
        let index = match (self.focus, self.tree.selected().first()) {
            (Pane::Scopes, Some(TreeId::Scope(s))) => Some(*s as usize),
            _ => {
                let id = self.selected_op()?;
                match self.ws.marks().get(id) {
                    OpMark::Member { scope, .. } => plan.scope_of_mark(scope),
                    _ => None,
                }
            }
        };
        index.map(|i| plan.scopes[i].name.clone())
    }

    /// Makes `edit` (steps with the same `key` in a row are one undo step) and rebuilds what
    /// depends on the plan.
    pub fn apply(&mut self, edit: Edit, key: Option<u64>) -> Result<(), EditError> {
        self.apply_all(vec![edit], key)
    }

    /// Makes `edits` as one step ([`Workspace::apply_all`]: planned once) and rebuilds what
    /// depends on the plan once.
    pub fn apply_all(&mut self, edits: Vec<Edit>, key: Option<u64>) -> Result<(), EditError> {
        self.ws.apply_all(edits, key)?;
        self.clear_range();
        self.refresh();
        Ok(())
    }

    /// Undoes (`redo` false) or redoes the last step; the step in words, or `None` when there
    /// is none.
    pub fn step_history(&mut self, redo: bool) -> Option<String> {
        let step = if redo { self.ws.redo() } else { self.ws.undo() };
        if step.is_some() {
            self.refresh();
        }
        step
    }

    /// Starts over from `marks` (a plan file's).
    pub fn reset_marks(&mut self, marks: crate::fusion::marks::Marks) {
        self.ws.reset_marks(marks);
        self.refresh();
    }

    /// Starts over from `marks` carried over a load of the dump again: unsaved.
    pub fn carry_marks(&mut self, marks: crate::fusion::marks::Marks) {
        self.ws.carry_marks(marks);
        self.refresh();
    }

    /// Replays a journal's `entries` (an unfinished session's edits).
    pub fn replay(&mut self, entries: &[crate::journal::JournalEntry]) -> crate::journal::Replay {
        let replay = crate::journal::replay(&mut self.ws, entries);
        self.refresh();
        replay
    }

    /// After the workspace's plan changed (an edit, undo or redo): rebuild what depends on it,
    /// keeping the selected op, the filter and the open scopes.
    fn refresh(&mut self) {
        if let Some(code) = &mut self.code {
            // Generated once, by whichever of the syncs below comes first.
            code.mark_stale();
        }
        self.tree.refresh(&self.ws);
        self.minimap = self.minimap_for(self.areas);
        self.widest.scope = scope_width(&self.ws);
        if matches!(self.subject, Subject::Segment(_) | Subject::Scope(_)) {
            self.subject = Subject::Nothing;
        }
        let keep = self.selected_op();
        let filter = self.filter.clone();
        let breaks_only = self.breaks_only;
        self.set_filter(filter, breaks_only, keep);
        if let Some(editor) = &mut self.options {
            // The scope may be gone (deleted, merged) or renamed by an undo.
            match self
                .ws
                .plan()
                .scopes
                .iter()
                .find(|s| s.name == editor.scope)
            {
                Some(scope) => editor.text = scope.options.clone(),
                None => self.options = None,
            }
        }
        self.sync_code();
    }
}
