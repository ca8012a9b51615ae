//! The scopes tree pane, drawn with `tui-tree-widget` from the tree model.

use super::pane_block;
use crate::tui::explorer::{Explorer, Pane};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeState};

/// Draws the scopes tree.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
    let is_focused = ex.focus == Pane::Scopes;
    let title = format!(" Scopes {} ", ex.ws.plan().scopes.len());
    let block = pane_block(title, is_focused, theme);
    let tree = &ex.tree;
    if tree.items().is_empty() {
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(
            ratatui::widgets::Paragraph::new(
                ex.ws
                    .graph()
                    .scopes_unreadable()
                    .unwrap_or("no scope in this graph: mark ops with torchair.scope.super_kernel"),
            )
            .style(theme.get(Role::Dim))
            .wrap(ratatui::widgets::Wrap { trim: true }),
            inner,
        );
        return;
    }
    let Ok(widget) = Tree::new(tree.items()) else {
        return;
    };
    let widget = widget
        .block(block)
        .highlight_style(if is_focused {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::SelectionInactive)
        })
        .node_closed_symbol("▶ ")
        .node_open_symbol("▼ ")
        .node_no_children_symbol("  ");
    // The widget keeps its scroll position in its state and moves it while drawing; ours is
    // kept in the model. A throw-away state is given our open nodes, selection and offset:
    // one draw into a tiny scratch buffer makes it learn the row count, so it accepts
    // the offset, and the real draw then starts there.
    let mut state = TreeState::default();
    for path in tree.opened() {
        state.open(path.clone());
    }
    state.select(tree.selected().to_vec());
    let mut scratch = Buffer::empty(Rect::new(0, 0, 3, 3));
    widget
        .clone()
        .render(scratch.area, &mut scratch, &mut state);
    state.scroll_up(usize::MAX);
    state.scroll_down(tree.offset());
    frame.render_stateful_widget(widget, area, &mut state);
}
