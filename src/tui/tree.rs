//! The scopes tree's model: scope → segments and breaks (in execution order) → ops, with what
//! is open, what is selected and where the view starts. The items for `tui-tree-widget` are
//! built here, on changes only, never while drawing.
//!
//! Nodes are built lazily so a 100k-op graph stays instant: a closed scope or segment carries
//! one empty child that is never drawn (the widget draws a node as openable only when it has
//! children); its real children are built when it opens.

use super::theme::{Role, Theme};
use crate::fusion::index::SegmentRef;
use crate::fusion::marks::OpMark;
use crate::fusion::plan::{ScopePlan, ScopeStatus};
use crate::graph::OpId;
use crate::text::sanitize;
use crate::workspace::Workspace;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::collections::HashSet;
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
    /// The undrawn child of a closed node.
    Unbuilt,
}

/// A path from a scope down to a node.
pub type TreePath = Vec<TreeId>;

/// Scopes with at most this many are open when a graph is loaded.
const OPEN_ALL_UP_TO: usize = 16;

/// The scopes tree's state.
#[derive(Debug, Default)]
pub struct ScopeTree {
    items: Vec<TreeItem<'static, TreeId>>,
    opened: HashSet<TreePath>,
    /// Nodes opened to reveal the list's op, closed again when the list moves elsewhere.
    auto_opened: Vec<TreePath>,
    selected: TreePath,
    offset: usize,
    visible: Vec<TreePath>,
}

impl ScopeTree {
    /// The tree of `ws`'s plan; every scope is open when there are few.
    pub fn new(ws: &Workspace, theme: &Theme) -> ScopeTree {
        let scopes = ws.plan().scopes.len();
        let mut tree = ScopeTree::default();
        if scopes <= OPEN_ALL_UP_TO {
            tree.opened = (0..scopes as u32).map(|s| vec![TreeId::Scope(s)]).collect();
        }
        if scopes > 0 {
            tree.selected = vec![TreeId::Scope(0)];
        }
        tree.rebuild(ws, theme);
        tree
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

    /// The node drawn at `row`.
    pub fn path_at(&self, row: usize) -> Option<&TreePath> {
        self.visible.get(row)
    }

    /// Builds the items again from the plan and the open nodes.
    pub fn rebuild(&mut self, ws: &Workspace, theme: &Theme) {
        self.items = (0..ws.plan().scopes.len() as u32)
            .map(|s| self.scope_item(ws, theme, s))
            .collect();
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

    /// Selects the node at `row` and scrolls it into a view of `height` rows.
    pub fn select_row(&mut self, row: usize, height: usize) {
        if let Some(path) = self
            .visible
            .get(row.min(self.visible.len().saturating_sub(1)))
        {
            self.selected = path.clone();
            self.scroll_into_view(height);
        }
    }

    /// Scrolls the view by `delta` rows without moving the selection.
    pub fn scroll(&mut self, delta: isize, height: usize) {
        let max = self.visible.len().saturating_sub(height.max(1));
        self.offset = self.offset.saturating_add_signed(delta).min(max);
    }

    /// Opens the selected node (`open` true) or closes it; closing a closed node selects its
    /// parent. Returns true when the open nodes changed.
    pub fn set_open(&mut self, open: bool, ws: &Workspace, theme: &Theme, height: usize) -> bool {
        let path = self.selected.clone();
        if path.is_empty() {
            return false;
        }
        self.auto_opened.retain(|p| *p != path);
        let changed = if open {
            has_children(ws, &path) && self.opened.insert(path.clone())
        } else if self.opened.remove(&path) {
            true
        } else {
            if path.len() > 1 {
                self.selected.pop();
            }
            false
        };
        if changed {
            self.rebuild(ws, theme);
        }
        self.scroll_into_view(height);
        changed
    }

    /// Opens or closes the selected node.
    pub fn toggle(&mut self, ws: &Workspace, theme: &Theme, height: usize) -> bool {
        let open = !self.opened.contains(&self.selected);
        self.set_open(open, ws, theme, height)
    }

    /// Selects `path` (empty: nothing), opening its ancestors; ancestors opened this way for
    /// an earlier reveal are closed again unless they lead to `path` too.
    pub fn reveal(&mut self, path: TreePath, ws: &Workspace, theme: &Theme, height: usize) {
        if path == self.selected {
            return;
        }
        let mut changed = false;
        let keep: Vec<TreePath> = (1..path.len()).map(|n| path[..n].to_vec()).collect();
        for old in std::mem::take(&mut self.auto_opened) {
            if keep.contains(&old) {
                self.auto_opened.push(old);
            } else {
                changed |= self.opened.remove(&old);
            }
        }
        for ancestor in keep {
            if self.opened.insert(ancestor.clone()) {
                self.auto_opened.push(ancestor);
                changed = true;
            }
        }
        self.selected = path;
        if changed {
            self.rebuild(ws, theme);
        }
        self.scroll_into_view(height);
    }

    fn scroll_into_view(&mut self, height: usize) {
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

    fn scope_item(&self, ws: &Workspace, theme: &Theme, s: u32) -> TreeItem<'static, TreeId> {
        let scope = &ws.plan().scopes[s as usize];
        let path = vec![TreeId::Scope(s)];
        let text = scope_line(scope, theme);
        if !has_children(ws, &path) {
            return TreeItem::new_leaf(TreeId::Scope(s), text);
        }
        let children = if self.opened.contains(&path) {
            scope_children(ws, theme, s, &self.opened)
        } else {
            vec![unbuilt()]
        };
        TreeItem::new(TreeId::Scope(s), text, children)
            .unwrap_or_else(|_| TreeItem::new_leaf(TreeId::Scope(s), scope_line(scope, theme)))
    }
}

fn unbuilt() -> TreeItem<'static, TreeId> {
    TreeItem::new_leaf(TreeId::Unbuilt, "")
}

/// The node's children exist (a scope with segments, breaks or members; a segment).
fn has_children(ws: &Workspace, path: &[TreeId]) -> bool {
    match path {
        [TreeId::Scope(s)] => {
            let scope = &ws.plan().scopes[*s as usize];
            !(scope.segments.is_empty() && scope.breaks.is_empty() && scope.members.is_empty())
        }
        [TreeId::Scope(_), TreeId::Segment(_)] => true,
        _ => false,
    }
}

fn scope_children(
    ws: &Workspace,
    theme: &Theme,
    s: u32,
    opened: &HashSet<TreePath>,
) -> Vec<TreeItem<'static, TreeId>> {
    let plan = ws.plan();
    let graph = ws.graph();
    let scope = &plan.scopes[s as usize];
    // Segments and breaks in execution order of their (first) op.
    let mut children: Vec<(usize, TreeItem<'static, TreeId>)> = Vec::new();
    for (k, seg) in scope.segments.iter().enumerate() {
        let Some(&first) = seg.ops.first() else {
            continue;
        };
        let r = SegmentRef {
            scope: s,
            index: k as u32,
        };
        let path = vec![TreeId::Scope(s), TreeId::Segment(k as u32)];
        let ops = if opened.contains(&path) {
            seg.ops
                .iter()
                .map(|&id| TreeItem::new_leaf(TreeId::Op(id), op_line(ws, theme, id, "")))
                .collect()
        } else {
            vec![unbuilt()]
        };
        let text = segment_line(ws, theme, r);
        let item = TreeItem::new(TreeId::Segment(k as u32), text, ops)
            .unwrap_or_else(|_| TreeItem::new_leaf(TreeId::Segment(k as u32), ""));
        children.push((graph.exec_position(first), item));
    }
    for (k, b) in scope.breaks.iter().enumerate() {
        let op = graph.op(b.op);
        let reason = crate::fusion::plan::describe_cause(ws.marks(), b.cause);
        let text = Line::from(vec![
            Span::styled("✗ ", theme.get(Role::Break)),
            Span::styled(sanitize(&op.name).into_owned(), theme.get(Role::Break)),
            Span::styled(format!(" — {}", sanitize(&reason)), theme.get(Role::Dim)),
        ]);
        children.push((
            graph.exec_position(b.op),
            TreeItem::new_leaf(TreeId::Break(k as u32), text),
        ));
    }
    if scope.segments.is_empty() {
        // Nothing fused (dropped, aborted, skipped): list the members themselves.
        for &id in &scope.members {
            if !ws.index().is_break(id) {
                children.push((
                    graph.exec_position(id),
                    TreeItem::new_leaf(TreeId::Op(id), op_line(ws, theme, id, "┆ ")),
                ));
            }
        }
    }
    children.sort_by_key(|(pos, _)| *pos);
    children.into_iter().map(|(_, item)| item).collect()
}

fn scope_line(scope: &ScopePlan, theme: &Theme) -> Line<'static> {
    let mut spans = vec![
        Span::styled(sanitize(&scope.name).into_owned(), theme.get(Role::Title)),
        Span::styled(
            format!("  {} seg", scope.segments.len(),),
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
    let status = match scope.status {
        ScopeStatus::Fused | ScopeStatus::Split => None,
        ScopeStatus::Aborted => Some(("aborted", Role::Error)),
        other => Some((other.name(), Role::Warning)),
    };
    if let Some((word, role)) = status {
        spans.push(Span::styled(format!(" {word}"), theme.get(role)));
    }
    Line::from(spans)
}

fn segment_line(ws: &Workspace, theme: &Theme, r: SegmentRef) -> Line<'static> {
    let scope = &ws.plan().scopes[r.scope as usize];
    let seg = &scope.segments[r.index as usize];
    let ordinal = ws.index().segment_ordinal(seg.ops[0]).unwrap_or_default();
    let short = seg
        .name
        .strip_prefix(scope.name.as_str())
        .filter(|rest| !rest.is_empty())
        .unwrap_or(&seg.name);
    let kernel = seg
        .kernel
        .known()
        .map(|k| format!(" {}×{}", k.kernel_type.name(), k.block_dim))
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
    let dim = match ws.marks().get(id) {
        OpMark::Member { .. } => theme.get(Role::Dim),
        _ => theme.get(Role::Ignored),
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
