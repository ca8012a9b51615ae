//! The dataflow view (`V`): the selected op with its producers and consumers up to N hops
//! (`+`/`-`), laid out as a layered graph ([`crate::dataflow`]). Nodes show the op list's glyph
//! and colour; a segment is framed; ordering edges are dashed, cross-stream edges marked with
//! their streams (and `event` inside a segment), the edge where a break cuts a scope in the
//! break's colour with `✂`. Moving follows edges (up to a producer, down to a consumer, left
//! and right across the row) and re-centres on the op reached; `enter` selects the op in the
//! list, or opens a "+N more" node; `ctrl-o` goes back to the op before.

use super::action::Action;
use super::app::{App, Screen};
use super::layout;
use super::reply::{Reply, Target};
use super::theme::{Role, Theme};
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::dataflow::layout::{EdgeClass, Layout, glyph};
use crate::dataflow::{Neighbourhood, NodeKind, Standing, neighbourhood};
use crate::graph::OpId;
use crate::text::{cut_middle, sanitize};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use std::collections::HashSet;

/// The view.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "dataflow",
    title: "In the dataflow view",
    opens_with: Some(Action::Dataflow),
    from_graph: &[],
    keys: &[
        (Action::Up, "to a producer (re-centres)"),
        (Action::Down, "to a consumer (re-centres)"),
        (Action::Collapse, "the op to the left in the row"),
        (Action::Expand, "the op to the right in the row"),
        (
            Action::Activate,
            "select the op in the list (a +N node: show them)",
        ),
        (Action::ZoomIn, "one hop more"),
        (Action::ZoomOut, "one hop less"),
        (Action::JumpBack, "back to the op before"),
        (Action::Dataflow, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll: |_, _| {},
    draw,
    text: None,
};

/// Hops shown when the view opens.
pub const DEFAULT_HOPS: usize = 2;
/// The most hops.
const MAX_HOPS: usize = 6;
/// The longest op name a node shows whole.
const NAME: usize = 28;

/// The view's state: the neighbourhood laid out around its centre, and the node selected.
#[derive(Debug)]
pub struct DataflowView {
    /// The op at the centre.
    pub centre: OpId,
    /// Hops up and down.
    pub hops: usize,
    /// Fans shown in full: (op, upstream).
    pub expanded: HashSet<(OpId, bool)>,
    /// The neighbourhood.
    pub hood: Neighbourhood,
    /// Its layout.
    pub layout: Layout,
    /// The node selected (an index into `hood.nodes`).
    pub selected: usize,
    /// Centres before, most recent last (`ctrl-o`).
    pub history: Vec<OpId>,
    /// The plan version it was laid out from.
    pub version: u64,
}

/// A node's label: its glyph, name (middle cut) and type.
fn label(node: &crate::dataflow::Node) -> String {
    let glyph = match node.standing {
        Standing::Segment(o) if o % 2 == 0 => "█",
        Standing::Segment(_) => "▓",
        Standing::Break => "✗",
        Standing::Ignored => "○",
        Standing::Outside => "·",
    };
    let name = sanitize(&node.name);
    let name = cut_middle(&name, NAME);
    match node.kind {
        NodeKind::More { .. } => format!("[{name}]"),
        NodeKind::Op(_) => format!("[{glyph} {name} {}]", sanitize(&node.op_type)),
    }
}

impl DataflowView {
    /// The neighbourhood of `centre` in `ws`, laid out.
    pub fn around(
        ws: &crate::workspace::Workspace,
        centre: OpId,
        hops: usize,
        expanded: HashSet<(OpId, bool)>,
    ) -> DataflowView {
        let hood = neighbourhood(ws, centre, hops, &expanded);
        let widths: Vec<usize> = hood
            .nodes
            .iter()
            .map(|n| label(n).chars().count())
            .collect();
        let graph = ws.graph();
        let rank: Vec<usize> = hood
            .nodes
            .iter()
            .map(|n| match n.kind {
                NodeKind::Op(id) => graph.exec_position(id),
                NodeKind::More { of, .. } => graph.exec_position(of),
            })
            .collect();
        let edges: Vec<_> = hood.links.iter().map(|l| l.edge).collect();
        let layout = crate::dataflow::layout::layout(&widths, &edges, &rank);
        DataflowView {
            centre,
            hops,
            expanded,
            hood,
            layout,
            selected: 0,
            history: Vec::new(),
            version: ws.version(),
        }
    }

    /// The node `step` places along the row of the selected one (negative: left).
    fn across(&self, step: isize) -> Option<usize> {
        let here = self.layout.nodes.get(self.selected)?;
        let mut row: Vec<usize> = (0..self.hood.nodes.len())
            .filter(|&i| self.layout.nodes[i].layer == here.layer)
            .collect();
        row.sort_by_key(|&i| self.layout.nodes[i].x);
        let at = row.iter().position(|&i| i == self.selected)?;
        let next = at.checked_add_signed(step)?;
        row.get(next).copied()
    }

    /// The producer (`up`) or consumer of the selected node nearest it across.
    fn along(&self, up: bool) -> Option<usize> {
        let here = self.layout.nodes.get(self.selected)?;
        let centre = here.x + here.width / 2;
        self.hood
            .links
            .iter()
            .filter_map(|l| match up {
                true if l.edge.to == self.selected => Some(l.edge.from),
                false if l.edge.from == self.selected => Some(l.edge.to),
                _ => None,
            })
            .min_by_key(|&i| {
                let p = self.layout.nodes[i];
                (p.x + p.width / 2).abs_diff(centre)
            })
    }
}

/// Opens the view on the op the list has selected.
fn open(app: &mut App) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let Some(id) = ex.selected_op() else {
        return app.problem("select an op first".to_string());
    };
    let hops = app
        .view_state::<DataflowView>()
        .map_or(DEFAULT_HOPS, |v| v.hops);
    let view = DataflowView::around(&ex.ws, id, hops, HashSet::new());
    app.set_view_state(view);
    app.show_view(VIEW.name);
}

/// Re-centres on `id`, keeping the hops; `remember` keeps the old centre for `ctrl-o`.
fn recentre(app: &mut App, id: OpId, remember: bool) {
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let Some(old) = app.view_state::<DataflowView>() else {
        return;
    };
    let mut history = old.history.clone();
    if remember {
        history.push(old.centre);
    }
    let expanded = if old.centre == id {
        old.expanded.clone()
    } else {
        HashSet::new()
    };
    let mut view = DataflowView::around(&ex.ws, id, old.hops, expanded);
    view.history = history;
    app.set_view_state(view);
}

fn handle(app: &mut App, action: Action) {
    let Some(view) = app.view_state_mut::<DataflowView>() else {
        app.close_view();
        return;
    };
    let mut reply = Reply::Done;
    match action {
        Action::Back => reply = Reply::Close,
        Action::Up | Action::Down => match view.along(action == Action::Up) {
            Some(i) => match view.hood.nodes[i].kind {
                NodeKind::Op(id) => return recentre(app, id, true),
                NodeKind::More { .. } => view.selected = i,
            },
            None => {
                let which = if action == Action::Up {
                    "producer"
                } else {
                    "consumer"
                };
                reply = Reply::Info(format!("no {which} there"));
            }
        },
        Action::Collapse | Action::Expand => {
            let step = if action == Action::Collapse { -1 } else { 1 };
            if let Some(i) = view.across(step) {
                view.selected = i;
            }
        }
        Action::ZoomIn | Action::ZoomOut => {
            let hops = if action == Action::ZoomIn {
                (view.hops + 1).min(MAX_HOPS)
            } else {
                view.hops.saturating_sub(1).max(1)
            };
            view.hops = hops;
            let centre = view.centre;
            recentre(app, centre, false);
            return app.info(format!("{hops} hop(s) up and down"));
        }
        Action::JumpBack => match view.history.pop() {
            Some(id) => return recentre(app, id, false),
            None => reply = Reply::Info("no op before this one".to_string()),
        },
        Action::Activate => match view.hood.nodes.get(view.selected).map(|n| n.kind) {
            Some(NodeKind::Op(_)) => {
                let name = view.hood.nodes[view.selected].name.clone();
                reply = Reply::GoTo(Target::Op(name));
            }
            Some(NodeKind::More { of, upstream, .. }) => {
                view.expanded.insert((of, upstream));
                let (centre, expanded, hops) = (view.centre, view.expanded.clone(), view.hops);
                let history = std::mem::take(&mut view.history);
                if let Screen::Explorer(ex) = &app.screen {
                    let mut fresh = DataflowView::around(&ex.ws, centre, hops, expanded);
                    fresh.history = history;
                    app.set_view_state(fresh);
                }
                return;
            }
            None => {}
        },
        _ => {}
    }
    app.carry_out(reply);
}

/// The style of an edge class.
fn edge_style(class: EdgeClass, theme: &Theme) -> Style {
    match class {
        EdgeClass::Data | EdgeClass::Control => theme.get(Role::Dim),
        EdgeClass::CrossStream => theme.get(Role::Key),
        EdgeClass::Cut => theme.get(Role::Break),
    }
}

/// The glyph of an edge cell: dashed for ordering edges where the line runs straight.
fn edge_glyph(class: EdgeClass, mask: u8) -> char {
    use crate::dataflow::layout::{E, N, S, W};
    match (class, mask) {
        (EdgeClass::Control, m) if m == N | S => '┆',
        (EdgeClass::Control, m) if m == E | W => '┄',
        (_, m) => glyph(m),
    }
}

fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<DataflowView>() else {
        return;
    };
    let Screen::Explorer(ex) = &app.screen else {
        return;
    };
    let theme = &app.config.theme;
    let centre_name = view
        .hood
        .nodes
        .first()
        .map(|n| sanitize(&n.name).into_owned())
        .unwrap_or_default();
    let stale = if view.version != ex.ws.version() {
        " · the plan changed: move to lay out again"
    } else {
        ""
    };
    let title = format!(
        " Dataflow · {} · {} hop(s) · {} node(s){stale} · {} back ",
        cut_middle(&centre_name, 40),
        view.hops,
        view.hood.nodes.len(),
        app.config.keymap.hint(Action::Back)
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    if inner.width < 4 || inner.height < 2 {
        return;
    }
    let l = &view.layout;
    // The layout with a cell of margin for the frames, centred when it fits, else scrolled so
    // that the selected node is in the middle.
    let sel = l.nodes[view.selected.min(l.nodes.len().saturating_sub(1))];
    let origin = |size: usize, room: u16, at: usize| -> i64 {
        let (size, room) = (size as i64 + 2, i64::from(room));
        if size <= room {
            (room - size) / 2 + 1
        } else {
            (room / 2 - at as i64 - 1).clamp(room - size + 1, 1)
        }
    };
    let ox = origin(l.size.0, inner.width, sel.x + sel.width / 2);
    let oy = origin(l.size.1, inner.height, sel.y);
    let visible = |x: i64, y: i64| {
        let (dx, dy) = (x + ox, y + oy);
        ((0..i64::from(inner.width)).contains(&dx) && (0..i64::from(inner.height)).contains(&dy))
            .then(|| (inner.x + dx as u16, inner.y + dy as u16))
    };
    let buf = frame.buffer_mut();
    // Segment frames first, so that edges and nodes draw over them.
    let mut segments: Vec<usize> = view
        .hood
        .nodes
        .iter()
        .filter_map(|n| match n.standing {
            Standing::Segment(o) => Some(o),
            _ => None,
        })
        .collect();
    segments.sort_unstable();
    segments.dedup();
    for o in segments {
        let members: Vec<_> = view
            .hood
            .nodes
            .iter()
            .zip(&l.nodes)
            .filter(|(n, _)| n.standing == Standing::Segment(o))
            .map(|(_, p)| *p)
            .collect();
        // One cell outside its nodes (the margin keeps it in the grid).
        let x0 = members.iter().map(|p| p.x as i64).min().unwrap_or(0) - 1;
        let x1 = members
            .iter()
            .map(|p| (p.x + p.width) as i64)
            .max()
            .unwrap_or(0);
        let y0 = members.iter().map(|p| p.y as i64).min().unwrap_or(0) - 1;
        let y1 = members.iter().map(|p| p.y as i64).max().unwrap_or(0) + 1;
        let style = Style::new().fg(theme.band(o));
        for x in x0..=x1 {
            for y in [y0, y1] {
                if let Some((cx, cy)) = visible(x, y) {
                    let corner = match (x == x0, x == x1, y == y0) {
                        (true, _, true) => "╭",
                        (_, true, true) => "╮",
                        (true, _, false) => "╰",
                        (_, true, false) => "╯",
                        _ => "┈",
                    };
                    buf.set_string(cx, cy, corner, style);
                }
            }
        }
        for y in y0 + 1..y1 {
            for x in [x0, x1] {
                if let Some((cx, cy)) = visible(x, y) {
                    buf.set_string(cx, cy, "┊", style);
                }
            }
        }
    }
    for (&(x, y), classes) in &l.cells {
        let Some((cx, cy)) = visible(x as i64, y as i64) else {
            continue;
        };
        // The most telling class of the cell draws it, with every class's lines.
        let mask = classes.iter().fold(0, |m, (_, c)| m | c);
        let class = classes
            .iter()
            .map(|(c, _)| *c)
            .max()
            .unwrap_or(EdgeClass::Data);
        buf.set_string(
            cx,
            cy,
            edge_glyph(class, mask).to_string(),
            edge_style(class, theme),
        );
    }
    for &(x, y, class) in &l.arrows {
        if let Some((cx, cy)) = visible(x as i64, y as i64) {
            buf.set_string(cx, cy, "▼", edge_style(class, theme));
        }
    }
    for (i, label) in view
        .hood
        .links
        .iter()
        .enumerate()
        .filter_map(|(i, link)| Some((i, link.label.as_ref()?)))
    {
        if let Some(&(_, x, y)) = l.anchors.iter().find(|a| a.0 == i)
            && let Some((cx, cy)) = visible(x as i64 + 1, y as i64)
        {
            let room = inner.x + inner.width - cx;
            let style = edge_style(view.hood.links[i].edge.class, theme);
            put(buf, cx, cy, room, label, style);
        }
    }
    for (i, (node, p)) in view.hood.nodes.iter().zip(&l.nodes).enumerate() {
        let Some((cx, cy)) = visible(p.x as i64, p.y as i64) else {
            continue;
        };
        let style = if i == view.selected {
            theme.get(Role::Selection)
        } else {
            match node.standing {
                Standing::Segment(o) => Style::new().fg(theme.band(o)),
                Standing::Break => theme.get(Role::Break),
                Standing::Ignored => theme.get(Role::Ignored),
                Standing::Outside => theme.get(Role::Dim),
            }
        };
        let room = inner.x + inner.width - cx;
        put(buf, cx, cy, room, &label(node), style);
    }
}
