//! The scopes tree's model: scope → segments and breaks (in execution order) → ops, with what
//! is open, what is selected and where the view starts. The items for `tui-tree-widget` are
//! built here, on changes only, never while drawing.
//!
//! The tree stays small whatever the graph: a closed scope or segment carries one empty child
//! that is never drawn (the widget draws a node as openable only when it has children), and an
//! open node shows at most [`WINDOW`] children at a time, with `⋯ N earlier` / `⋯ N later`
//! rows that move the window. Revealing an op moves the windows on its path to it.

use super::theme::{Role, Theme};
use crate::fusion::index::SegmentRef;
use crate::fusion::plan::{ScopePlan, ScopeStatus, describe_reason};
use crate::fusion::verdict::Verdict;
use crate::graph::OpId;
use crate::text::sanitize;
use crate::workspace::Workspace;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tui_tree_widget::TreeItem;

/// One node of the tree. A path (scope first) identifies a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TreeId {
    /// A scope, by index in the plan.
    Scope(u32),
    /// A segment of the parent scope, by index.
    Segment(u32),
    /// A break of the parent scope, by index.
    Break(u32),
    /// An op.
    Op(OpId),
    /// `⋯ N earlier` (false) or `⋯ N later` (true): children outside the window.
    More(bool),
    /// The undrawn child of a closed node.
    Unbuilt,
}

/// A path from a scope down to a node.
pub type TreePath = Vec<TreeId>;

/// Scopes with at most this many are open when a graph is loaded.
const OPEN_ALL_UP_TO: usize = 16;

/// Most children an open node shows at once.
pub const WINDOW: usize = 200;

/// A child of a scope node, in execution order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Child {
    Segment(u32),
    Break(u32),
    /// A member listed directly (scopes without segments).
    Member(OpId),
}

impl Child {
    fn id(self) -> TreeId {
        match self {
            Child::Segment(k) => TreeId::Segment(k),
            Child::Break(k) => TreeId::Break(k),
            Child::Member(id) => TreeId::Op(id),
        }
    }
}

/// What a scope's line in the tree shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LineKey {
    name: String,
    status: ScopeStatus,
    segments: usize,
    breaks: usize,
    findings: usize,
    members: usize,
    assumed: usize,
}

impl LineKey {
    fn of(scope: &ScopePlan) -> LineKey {
        LineKey {
            name: scope.name.clone(),
            status: scope.status,
            segments: scope.segments.len(),
            breaks: scope.breaks.len(),
            findings: scope.findings.len(),
            members: scope.members.len(),
            assumed: scope.assumed,
        }
    }
}

/// The scopes tree's state.
#[derive(Debug, Default)]
pub struct ScopeTree {
    items: Vec<TreeItem<'static, TreeId>>,
    /// Each scope's children, in execution order (per plan), worked out when it first opens.
    children: Vec<Option<Vec<Child>>>,
    /// Each scope's name and what its line shows (per plan): to keep scopes open across plans,
    /// and to keep the items of closed scopes whose line is the same.
    lines: Vec<LineKey>,
    opened: HashSet<TreePath>,
    /// Nodes opened to reveal the list's op, closed again when the list moves elsewhere.
    auto_opened: Vec<TreePath>,
    /// First child shown, for nodes whose window was moved.
    windows: HashMap<TreePath, usize>,
    selected: TreePath,
    offset: usize,
    visible: Vec<TreePath>,
    /// The colours its lines are drawn in, shared with the explorer.
    theme: Arc<Theme>,
    /// The pane's width inside its borders: an op name too long for a break's line loses its
    /// middle (0: not known yet, names are kept whole).
    width: u16,
}

impl ScopeTree {
    /// The tree of `ws`'s plan; every scope is open when there are few.
    pub fn new(ws: &Workspace, theme: Arc<Theme>) -> ScopeTree {
        let scopes = ws.plan().scopes.len();
        let mut tree = ScopeTree {
            theme,
            children: vec![None; scopes],
            lines: ws.plan().scopes.iter().map(LineKey::of).collect(),
            ..ScopeTree::default()
        };
        if scopes <= OPEN_ALL_UP_TO {
            tree.opened = (0..scopes as u32)
                .map(|s| vec![TreeId::Scope(s)])
                .filter(|p| tree.has_children(ws, p))
                .collect();
        }
        tree.rebuild(ws);
        tree
    }

    /// Draws its lines for a pane `width` columns wide inside its borders (building the
    /// items again when that changes).
    pub fn set_width(&mut self, width: u16, ws: &Workspace) {
        if width != self.width {
            self.width = width;
            self.rebuild(ws);
        }
    }

    /// The items to draw.
    pub fn items(&self) -> &[TreeItem<'static, TreeId>] {
        &self.items
    }

    /// The open nodes.
    pub fn opened(&self) -> &HashSet<TreePath> {
        &self.opened
    }

    /// The selected node (empty when none).
    pub fn selected(&self) -> &[TreeId] {
        &self.selected
    }

    /// The first visible row.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of rows the tree has with its current open nodes.
    pub fn row_count(&self) -> usize {
        self.visible.len()
    }

    /// The row of the selected node.
    pub fn selected_row(&self) -> Option<usize> {
        self.visible.iter().position(|p| *p == self.selected)
    }

    /// Follows a new plan of the same graph: the scopes open before stay open (by name);
    /// segments close and windows reset, as their numbering changed; nothing is selected.
    pub fn refresh(&mut self, ws: &Workspace) {
        let open: Vec<String> = self
            .opened
            .iter()
            .filter(|p| p.len() == 1 && !self.auto_opened.contains(p))
            .filter_map(|p| match p[0] {
                TreeId::Scope(s) => self.lines.get(s as usize).map(|l| l.name.clone()),
                _ => None,
            })
            .collect();
        let plan = ws.plan();
        let lines: Vec<LineKey> = plan.scopes.iter().map(LineKey::of).collect();
        self.opened = lines
            .iter()
            .enumerate()
            .filter(|(_, line)| open.contains(&line.name))
            .map(|(s, _)| vec![TreeId::Scope(s as u32)])
            .collect();
        self.auto_opened.clear();
        self.windows.clear();
        self.selected.clear();
        self.children = vec![None; plan.scopes.len()];
        // A closed scope whose line reads the same keeps its item.
        let mut old = std::mem::take(&mut self.items).into_iter();
        let old_lines = std::mem::replace(&mut self.lines, lines);
        let mut items = Vec::with_capacity(plan.scopes.len());
        for s in 0..plan.scopes.len() {
            let item = old.next();
            let same = old_lines.get(s) == self.lines.get(s);
            let open = self.opened.contains([TreeId::Scope(s as u32)].as_slice());
            items.push(match item {
                Some(item) if same && !open => item,
                _ => self.scope_item(ws, s as u32),
            });
        }
        self.items = items;
        self.reflatten();
    }

    /// Builds the items again from the plan, the open nodes and the windows.
    pub fn rebuild(&mut self, ws: &Workspace) {
        self.items = (0..ws.plan().scopes.len() as u32)
            .map(|s| self.scope_item(ws, s))
            .collect();
        self.reflatten();
    }

    /// Builds the items of the scopes whose open nodes or windows changed (the first
    /// element of each path), and the rows.
    fn rebuild_scopes(&mut self, ws: &Workspace, paths: &[TreePath]) {
        let mut scopes: Vec<u32> = paths
            .iter()
            .filter_map(|p| match p.first() {
                Some(TreeId::Scope(s)) => Some(*s),
                _ => None,
            })
            .collect();
        scopes.sort_unstable();
        scopes.dedup();
        for s in scopes {
            if (s as usize) < self.items.len() {
                self.items[s as usize] = self.scope_item(ws, s);
            }
        }
        self.reflatten();
    }

    fn reflatten(&mut self) {
        self.visible.clear();
        flatten(
            &self.items,
            &self.opened,
            &mut Vec::new(),
            &mut self.visible,
        );
        if !self.selected.is_empty() && self.selected_row().is_none() {
            self.selected.truncate(1);
        }
    }

    /// Selects the node at `row` (clamped) and scrolls it into a view of `height` rows.
    pub fn select_row(&mut self, row: usize, height: usize) {
        if let Some(path) = self
            .visible
            .get(row.min(self.visible.len().saturating_sub(1)))
        {
            self.selected = path.clone();
            self.keep_in_view(height);
        }
    }

    /// Scrolls the view by `delta` rows without moving the selection.
    pub fn scroll(&mut self, delta: isize, height: usize) {
        let max = self.visible.len().saturating_sub(height.max(1));
        self.offset = self.offset.saturating_add_signed(delta).min(max);
    }

    /// Opens the selected node (`open` true) or closes it; closing a closed node selects its
    /// parent. On a `⋯` row, moves its parent's window instead. Returns true when the tree
    /// changed.
    pub fn set_open(&mut self, open: bool, ws: &Workspace, height: usize) -> bool {
        let path = self.selected.clone();
        if let [parent @ .., TreeId::More(later)] = path.as_slice() {
            if open {
                self.shift_window(parent, *later, ws);
                self.keep_in_view(height);
                return true;
            }
            self.selected.pop();
            self.keep_in_view(height);
            return false;
        }
        if path.is_empty() {
            return false;
        }
        self.auto_opened.retain(|p| *p != path);
        let changed = if open {
            self.has_children(ws, &path) && self.opened.insert(path.clone())
        } else if self.opened.remove(&path) {
            true
        } else {
            if path.len() > 1 {
                self.selected.pop();
            }
            false
        };
        if changed {
            self.rebuild_scopes(ws, std::slice::from_ref(&path));
        }
        self.keep_in_view(height);
        changed
    }

    /// Opens or closes the selected node (or moves the window, on a `⋯` row).
    pub fn toggle(&mut self, ws: &Workspace, height: usize) -> bool {
        let open = matches!(self.selected.last(), Some(TreeId::More(_)))
            || !self.opened.contains(&self.selected);
        self.set_open(open, ws, height)
    }

    /// Selects `path` (empty: nothing), opening its ancestors and moving their windows to it;
    /// ancestors opened this way for an earlier reveal are closed again unless they lead to
    /// `path` too.
    pub fn reveal(&mut self, path: TreePath, ws: &Workspace, height: usize) {
        if path == self.selected {
            return;
        }
        // The paths whose open state or window changes.
        let mut changed: Vec<TreePath> = Vec::new();
        let keep: Vec<TreePath> = (1..path.len()).map(|n| path[..n].to_vec()).collect();
        for old in std::mem::take(&mut self.auto_opened) {
            if keep.contains(&old) {
                self.auto_opened.push(old);
            } else if self.opened.remove(&old) {
                changed.push(old);
            }
        }
        for ancestor in &keep {
            if self.opened.insert(ancestor.clone()) {
                self.auto_opened.push(ancestor.clone());
                changed.push(ancestor.clone());
            }
        }
        for n in 1..path.len() {
            if self.show_child(ws, &path[..n], path[n]) {
                changed.push(path[..n].to_vec());
            }
        }
        self.selected = path;
        if !changed.is_empty() {
            self.rebuild_scopes(ws, &changed);
        }
        self.keep_in_view(height);
    }

    /// Keeps the selected row inside a view of `height` rows, and the view inside the tree.
    pub fn keep_in_view(&mut self, height: usize) {
        let height = height.max(1);
        if let Some(row) = self.selected_row() {
            if row < self.offset {
                self.offset = row;
            } else if row >= self.offset + height {
                self.offset = row + 1 - height;
            }
        }
        self.offset = self.offset.min(self.visible.len().saturating_sub(height));
    }

    /// The children node `path` has, as tree ids, in order.
    fn child_ids(&mut self, ws: &Workspace, path: &[TreeId]) -> Vec<TreeId> {
        match path {
            [TreeId::Scope(s)] => self.children_of(ws, *s).iter().map(|c| c.id()).collect(),
            [TreeId::Scope(s), TreeId::Segment(k)] => ws.plan().scopes[*s as usize].segments
                [*k as usize]
                .ops
                .iter()
                .map(|&id| TreeId::Op(id))
                .collect(),
            _ => Vec::new(),
        }
    }

    fn has_children(&self, ws: &Workspace, path: &[TreeId]) -> bool {
        match path {
            [TreeId::Scope(s)] => {
                let scope = &ws.plan().scopes[*s as usize];
                !(scope.segments.is_empty() && scope.breaks.is_empty() && scope.members.is_empty())
            }
            [TreeId::Scope(s), TreeId::Segment(k)] => !ws.plan().scopes[*s as usize].segments
                [*k as usize]
                .ops
                .is_empty(),
            _ => false,
        }
    }

    /// The window start of node `path` with `len` children.
    fn window(&self, path: &[TreeId], len: usize) -> usize {
        self.windows
            .get(path)
            .copied()
            .unwrap_or(0)
            .min(len.saturating_sub(WINDOW))
    }

    /// Moves the window of `parent` so that `child` is shown; true when it moved.
    fn show_child(&mut self, ws: &Workspace, parent: &[TreeId], child: TreeId) -> bool {
        let ids = self.child_ids(ws, parent);
        let Some(at) = ids.iter().position(|&c| c == child) else {
            return false;
        };
        let start = self.window(parent, ids.len());
        if (start..start + WINDOW).contains(&at) {
            return false;
        }
        self.windows
            .insert(parent.to_vec(), at.saturating_sub(WINDOW / 2));
        true
    }

    /// Moves the window of `parent` by half a window, and selects the first child that came
    /// into view.
    fn shift_window(&mut self, parent: &[TreeId], later: bool, ws: &Workspace) {
        let ids = self.child_ids(ws, parent);
        let start = self.window(parent, ids.len());
        let (new_start, first_new) = if later {
            let s = (start + WINDOW / 2).min(ids.len().saturating_sub(WINDOW));
            (s, (start + WINDOW).min(ids.len().saturating_sub(1)))
        } else {
            let s = start.saturating_sub(WINDOW / 2);
            (s, start.saturating_sub(1))
        };
        self.windows.insert(parent.to_vec(), new_start);
        self.rebuild_scopes(ws, &[parent.to_vec()]);
        if let Some(&id) = ids.get(first_new) {
            let mut path = parent.to_vec();
            path.push(id);
            self.selected = path;
        }
    }

    /// The children of scope `s`, worked out the first time they are needed.
    fn children_of(&mut self, ws: &Workspace, s: u32) -> &[Child] {
        if self.children.len() <= s as usize {
            self.children.resize(s as usize + 1, None);
        }
        self.children[s as usize].get_or_insert_with(|| scope_children(ws, s as usize))
    }

    fn scope_item(&mut self, ws: &Workspace, s: u32) -> TreeItem<'static, TreeId> {
        let theme = Arc::clone(&self.theme);
        let theme = &*theme;
        let scope = &ws.plan().scopes[s as usize];
        let path = vec![TreeId::Scope(s)];
        let text = scope_line(scope, theme);
        if !self.has_children(ws, &path) {
            return TreeItem::new_leaf(TreeId::Scope(s), text);
        }
        if !self.opened.contains(&path) {
            return closed(TreeId::Scope(s), text);
        }
        let children = self.children_of(ws, s).to_vec();
        let start = self.window(&path, children.len());
        let items = windowed(children.len(), start, theme, |k| {
            self.child_item(ws, s, children[k])
        });
        tree_item(TreeId::Scope(s), text, items)
    }

    fn child_item(&self, ws: &Workspace, s: u32, child: Child) -> TreeItem<'static, TreeId> {
        let theme = Arc::clone(&self.theme);
        let theme = &*theme;
        let scope = &ws.plan().scopes[s as usize];
        match child {
            Child::Segment(k) => {
                let seg = &scope.segments[k as usize];
                let path = vec![TreeId::Scope(s), TreeId::Segment(k)];
                let text = segment_line(ws, theme, SegmentRef { scope: s, index: k });
                if !self.opened.contains(&path) {
                    return closed(TreeId::Segment(k), text);
                }
                let start = self.window(&path, seg.ops.len());
                let ops = windowed(seg.ops.len(), start, theme, |i| {
                    TreeItem::new_leaf(TreeId::Op(seg.ops[i]), op_line(ws, theme, seg.ops[i], ""))
                });
                tree_item(TreeId::Segment(k), text, ops)
            }
            Child::Break(k) => {
                let b = &scope.breaks[k as usize];
                let op = ws.graph().op(b.op);
                let reason = describe_reason(ws.marks(), b.reason);
                // The indent and `✗ ` before it: a name longer than the rest of the line
                // loses its middle, so names that differ at their end (layer paths) stay apart;
                // the reason follows when there is room (the details give it in full).
                let name = sanitize(&op.name);
                let name = match usize::from(self.width).checked_sub(4 + 2) {
                    Some(room) if room >= 8 => super::layout::middle_ellipsis(&name, room),
                    _ => name.into_owned(),
                };
                let text = Line::from(vec![
                    Span::styled("✗ ", theme.get(Role::Break)),
                    Span::styled(name, theme.get(Role::Break)),
                    Span::styled(format!(" — {}", sanitize(&reason)), theme.get(Role::Dim)),
                ]);
                TreeItem::new_leaf(TreeId::Break(k), text)
            }
            Child::Member(id) => TreeItem::new_leaf(TreeId::Op(id), op_line(ws, theme, id, "┆ ")),
        }
    }
}

/// The items of children `start..start + WINDOW` of `len`, with `⋯` rows for the rest.
fn windowed(
    len: usize,
    start: usize,
    theme: &Theme,
    item: impl Fn(usize) -> TreeItem<'static, TreeId>,
) -> Vec<TreeItem<'static, TreeId>> {
    let end = (start + WINDOW).min(len);
    let mut out = Vec::with_capacity(end - start + 2);
    let more = |later: bool, n: usize| {
        TreeItem::new_leaf(
            TreeId::More(later),
            Line::from(Span::styled(
                format!("⋯ {n} {}", if later { "later" } else { "earlier" }),
                theme.get(Role::Dim),
            )),
        )
    };
    if start > 0 {
        out.push(more(false, start));
    }
    out.extend((start..end).map(item));
    if end < len {
        out.push(more(true, len - end));
    }
    out
}

/// A closed node: one undrawn child, so the widget draws it as openable.
fn closed(id: TreeId, text: Line<'static>) -> TreeItem<'static, TreeId> {
    let mut item = TreeItem::new_leaf(id, text);
    // The only child cannot clash with another.
    let _ = item.add_child(TreeItem::new_leaf(TreeId::Unbuilt, ""));
    item
}

/// An open node with its children; their ids are unique by construction.
fn tree_item(
    id: TreeId,
    text: Line<'static>,
    children: Vec<TreeItem<'static, TreeId>>,
) -> TreeItem<'static, TreeId> {
    TreeItem::new(id, text, children).unwrap_or_else(|_| TreeItem::new_leaf(id, "?"))
}

/// The children of scope `s`: its segments and breaks in execution order of their (first) op;
/// for a scope that fuses nothing (dropped, aborted, skipped), its members instead of segments.
fn scope_children(ws: &Workspace, s: usize) -> Vec<Child> {
    let graph = ws.graph();
    let scope = &ws.plan().scopes[s];
    let mut children: Vec<(usize, Child)> = Vec::new();
    for (k, seg) in scope.segments.iter().enumerate() {
        if let Some(&first) = seg.ops.first() {
            children.push((graph.exec_position(first), Child::Segment(k as u32)));
        }
    }
    for (k, b) in scope.breaks.iter().enumerate() {
        children.push((graph.exec_position(b.op), Child::Break(k as u32)));
    }
    if scope.segments.is_empty() {
        for &id in &scope.members {
            if !ws.index().is_break(id) {
                children.push((graph.exec_position(id), Child::Member(id)));
            }
        }
    }
    children.sort_by_key(|(pos, _)| *pos);
    children.into_iter().map(|(_, c)| c).collect()
}

fn scope_line(scope: &ScopePlan, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(sanitize(&scope.name).into_owned(), theme.get(Role::Title)),
        Span::styled(
            format!("  {} seg", scope.segments.len()),
            theme.get(Role::Dim),
        ),
    ];
    if !scope.breaks.is_empty() {
        spans.push(Span::styled(
            format!(" ✗{}", scope.breaks.len()),
            theme.get(Role::Break),
        ));
    }
    if !scope.findings.is_empty() {
        spans.push(Span::styled(
            format!(" !{}", scope.findings.len()),
            theme.get(Role::Warning),
        ));
    }
    if scope.assumed > 0 {
        // `?` as in the op list: members whose fusibility is assumed.
        spans.push(Span::styled(
            format!(" ?{}", scope.assumed),
            theme.get(Role::Warning),
        ));
    }
    let status = match scope.status {
        ScopeStatus::Fused | ScopeStatus::Split => None,
        ScopeStatus::Aborted | ScopeStatus::NotBuilt => Some((scope.status.label(), Role::Error)),
        other => Some((other.label(), Role::Warning)),
    };
    if let Some((word, role)) = status {
        spans.push(Span::styled(format!(" {word}"), theme.get(role)));
    }
    Line::from(spans)
}

fn segment_line(ws: &Workspace, theme: &Theme, r: SegmentRef) -> Line<'static> {
    let scope = &ws.plan().scopes[r.scope as usize];
    let seg = &scope.segments[r.index as usize];
    let ordinal = seg
        .ops
        .first()
        .and_then(|&id| ws.index().segment_ordinal(id))
        .unwrap_or_default();
    let short = seg
        .name
        .strip_prefix(scope.name.as_str())
        .filter(|rest| !rest.is_empty())
        .unwrap_or(&seg.name);
    let kernel = seg
        .kernel
        .label()
        .map(|k| format!(" {k}"))
        .unwrap_or_default();
    Line::from(vec![
        Span::styled("┃ ", Style::new().fg(theme.band(ordinal))),
        Span::raw(sanitize(short).into_owned()),
        Span::styled(
            format!(
                " {} op{}{kernel}",
                seg.ops.len(),
                if seg.ops.len() == 1 { "" } else { "s" }
            ),
            theme.get(Role::Dim),
        ),
    ])
}

fn op_line(ws: &Workspace, theme: &Theme, id: OpId, glyph: &'static str) -> Line<'static> {
    let op = ws.graph().op(id);
    let dim = if ws.context().verdicts().get(id).verdict == Verdict::Ignored {
        theme.get(Role::Ignored)
    } else {
        theme.get(Role::Dim)
    };
    Line::from(vec![
        Span::styled(glyph, dim),
        Span::raw(sanitize(&op.name).into_owned()),
        Span::styled(format!(" {}", sanitize(&op.op_type)), dim),
    ])
}

/// The rows of the tree, as paths, in drawing order.
fn flatten(
    items: &[TreeItem<'static, TreeId>],
    opened: &HashSet<TreePath>,
    prefix: &mut TreePath,
    out: &mut Vec<TreePath>,
) {
    for item in items {
        prefix.push(*item.identifier());
        out.push(prefix.clone());
        if opened.contains(prefix.as_slice()) {
            flatten(item.children(), opened, prefix, out);
        }
        prefix.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::rules::RuleSet;
    use crate::fusion::testing::{graph, op};
    use crate::load::Format;

    /// One scope of `n` ops in one segment, then a scope of `n` ops each cut by a TBE op.
    fn big(n: usize) -> Workspace {
        let mut ops = Vec::new();
        let name = |prefix: &str, i: usize| -> &'static str {
            Box::leak(format!("{prefix}{i}").into_boxed_str())
        };
        for i in 0..n {
            ops.push(op(name("a", i), i as i64, 0, Some("a")));
        }
        for i in 0..n {
            let at = (n + 2 * i) as i64;
            ops.push(op(name("b", i), at, 0, Some("b")));
            ops.push(
                op(name("cast", i), at + 1, 0, Some("b"))
                    .ty("Cast")
                    .unsupported(),
            );
        }
        Workspace::new(graph(ops), Format::GeProtoText, "g", &RuleSet::bundled())
    }

    #[test]
    fn long_child_lists_show_a_window_that_follows_reveals_and_moves_on_request() {
        let ws = big(500);

        let mut tree = ScopeTree::new(&ws, Arc::new(Theme::default()));
        // Both scopes open; b has 500 segments and 500 breaks: a window of 200 and `⋯ 800 later`.
        let shown = rows_ref(&tree, &[TreeId::Scope(1)]);
        assert_eq!(shown.len(), 1 + WINDOW + 1);
        assert_eq!(
            shown.last().map(|p| p.as_slice()),
            Some(&[TreeId::Scope(1), TreeId::More(true)][..])
        );
        // Revealing op a[400] opens a's segment with a window around it.
        let a400 = ws.graph().find("a400").unwrap();
        let path = vec![TreeId::Scope(0), TreeId::Segment(0), TreeId::Op(a400)];
        tree.reveal(path.clone(), &ws, 20);
        assert_eq!(tree.selected(), path);
        assert!(tree.selected_row().is_some());
        let seg = [TreeId::Scope(0), TreeId::Segment(0)];
        let ops: Vec<&TreePath> = rows_ref(&tree, &seg[..]);
        // The segment's row, `⋯ 300 earlier`, then a300…a499.
        assert_eq!(ops.len(), 1 + 1 + WINDOW);
        assert_eq!(
            ops[1].as_slice(),
            [TreeId::Scope(0), TreeId::Segment(0), TreeId::More(false)]
        );
        // Enter on `⋯ earlier` moves the window back by half and selects the first new op.
        tree.select_row(tree.visible.iter().position(|p| *p == *ops[1]).unwrap(), 20);
        assert!(tree.toggle(&ws, 20));
        let a299 = ws.graph().find("a299").unwrap();
        assert_eq!(
            tree.selected(),
            [TreeId::Scope(0), TreeId::Segment(0), TreeId::Op(a299)]
        );
        // The tree stays small: both scopes, a window each, the open segment's window.
        assert!(tree.row_count() < 3 * (WINDOW + 4), "{}", tree.row_count());
    }

    fn rows_ref<'t>(tree: &'t ScopeTree, prefix: &[TreeId]) -> Vec<&'t TreePath> {
        tree.visible
            .iter()
            .filter(|p| p.starts_with(prefix))
            .collect()
    }
}
