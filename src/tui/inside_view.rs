//! The inside of a SuperKernel (`I` on an aclgraph model): the selected SuperKernel's
//! `sk_prof` records folded into three lanes — end to end, Cube, Vector — one occurrence at a
//! time, each sub-op a span labelled with its name and the time between sub-ops marked, on the
//! device's own clock (`aclgraph::inside`). When `super_kernel.log` says the device buffer
//! filled, the view says the lanes are incomplete.

use super::action::Action;
use super::app::{App, Screen};
use super::layout;
use super::reply::Reply;
use super::theme::Role;
use super::timeline_view::{draw_lane, duration};
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::aclgraph::inside::{self, Occurrence, Record};
use crate::profile::timeline::{Block, Lane, Mark, Window};
use crate::text::sanitize;
use ratatui::Frame;
use ratatui::layout::Rect;
use std::sync::Arc;

/// The view, opened by `I` on a SuperKernel's task (or its block in the timeline).
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "inside",
    title: "In the inside-a-SuperKernel view",
    opens_with: Some(Action::Inside),
    from_graph: &[],
    keys: &[
        (Action::NextBreak, "next occurrence"),
        (Action::PrevBreak, "previous occurrence"),
        (Action::ZoomIn, "zoom in (×2)"),
        (Action::ZoomOut, "zoom out (×2)"),
        (Action::PageDown, "pan right"),
        (Action::PageUp, "pan left"),
        (Action::Top, "the whole occurrence in view"),
        (
            Action::GapWider,
            "split occurrences only at gaps twice as long",
        ),
        (
            Action::GapNarrower,
            "split occurrences at gaps half as long",
        ),
        (Action::Inside, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// The view's state.
#[derive(Debug)]
pub struct InsideView {
    /// The SuperKernel's scope id.
    pub sk_id: u64,
    /// Its name.
    pub name: String,
    /// Its records, every core.
    records: Vec<Record>,
    /// The gap that splits occurrences, ns.
    pub gap: i64,
    /// Its occurrences.
    pub occurrences: Vec<Occurrence>,
    /// The one shown.
    pub at: usize,
    /// The time at the left edge, ns after the occurrence's start.
    pub left: i64,
    /// The time a column covers, ns; 0 fits the occurrence.
    pub ns_per_col: f64,
    /// True when `super_kernel.log` says records stopped.
    pub incomplete: bool,
}

impl InsideView {
    /// The occurrence shown.
    pub fn shown(&self) -> Option<&Occurrence> {
        self.occurrences.get(self.at)
    }

    fn regroup(&mut self) {
        self.occurrences = inside::occurrences(&self.records, self.sk_id, self.gap);
        self.at = self.at.min(self.occurrences.len().saturating_sub(1));
    }
}

/// The SuperKernel to show: the one the timeline has selected, else the one whose task the op
/// list has selected; with the model directory.
fn chosen(app: &App) -> Result<(u64, String, std::path::PathBuf), String> {
    let Screen::Explorer(ex) = &app.screen else {
        return Err("no graph is open".into());
    };
    let file = std::path::PathBuf::from(&ex.ws.source().file);
    let (model, _) = crate::aclgraph::open(&file).map_err(|_| {
        "the inside of a SuperKernel needs the aclgraph pass's output (a model directory with \
         sk_prof_device_*.json): open it with skope <model dir>"
            .to_string()
    })?;
    let from_timeline = ex
        .view_states
        .get::<super::timeline_view::TimelineView>()
        .and_then(|v| v.selected())
        .and_then(|b| model.sks.iter().find(|sk| *sk.name == *b.name));
    let from_list = ex.selected_op().and_then(|id| {
        let i = id.0 as usize;
        model
            .sks
            .iter()
            .find(|sk| sk.tasks.contains(&i) || sk.launch == Some(i))
    });
    let sk = from_timeline.or(from_list).ok_or_else(|| {
        "select a SuperKernel's task in the op list (or its kernel in the timeline) first"
            .to_string()
    })?;
    Ok((sk.scope_id, sk.name.clone(), model.dir.clone()))
}

fn open(app: &mut App) {
    let (sk_id, name, dir) = match chosen(app) {
        Ok(found) => found,
        Err(why) => return app.problem(why),
    };
    let mut records = Vec::new();
    let files = crate::aclgraph::layout::timing_files(&dir);
    for path in &files {
        match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| crate::aclgraph::device::records(&b).map_err(|e| e.message))
        {
            Ok(r) => records.extend(r.into_iter().filter(|r| r.sk_id == sk_id)),
            Err(e) => {
                return app.problem(format!(
                    "{}: {}",
                    sanitize(&path.display().to_string()),
                    sanitize(&e)
                ));
            }
        }
    }
    if records.is_empty() {
        return app.problem(format!(
            "{} has no timed records{}: run with ASCEND_PROF_SK_ON set for sk_prof_device_*.json",
            sanitize(&name),
            if files.is_empty() {
                " (no sk_prof_device_*.json here)"
            } else {
                ""
            }
        ));
    }
    let mut view = InsideView {
        sk_id,
        name,
        records,
        gap: inside::OCCURRENCE_GAP_NS,
        occurrences: Vec::new(),
        at: 0,
        left: 0,
        ns_per_col: 0.0,
        incomplete: inside::buffer_full(&dir),
    };
    view.regroup();
    app.set_view_state(view);
    app.show_view(VIEW.name);
}

fn cols(app: &App) -> usize {
    usize::from(layout::inner(app.areas().body).width.saturating_sub(LABEL)).max(1)
}

/// The width of the lane labels.
const LABEL: u16 = 8;

fn handle(app: &mut App, action: Action) {
    let cols = cols(app);
    let Some(view) = app.view_state_mut::<InsideView>() else {
        app.close_view();
        return;
    };
    let end = view.shown().map_or(1, Occurrence::end).max(1);
    if view.ns_per_col <= 0.0 {
        view.ns_per_col = (end as f64 / cols as f64).max(1.0);
    }
    let width = (view.ns_per_col * cols as f64) as i64;
    let mut reply = Reply::Done;
    match action {
        Action::Back => reply = Reply::Close,
        Action::NextBreak | Action::PrevBreak => {
            let n = view.occurrences.len();
            view.at = if action == Action::NextBreak {
                (view.at + 1).min(n.saturating_sub(1))
            } else {
                view.at.saturating_sub(1)
            };
            view.left = 0;
            view.ns_per_col = 0.0;
        }
        Action::ZoomIn => view.ns_per_col = (view.ns_per_col / 2.0).max(1.0),
        Action::ZoomOut => {
            view.ns_per_col = (view.ns_per_col * 2.0).min((end as f64 / cols as f64).max(1.0));
        }
        Action::PageDown => view.left = (view.left + width).min(end),
        Action::PageUp => view.left = (view.left - width).max(0),
        Action::Top => {
            view.left = 0;
            view.ns_per_col = 0.0;
        }
        Action::GapWider | Action::GapNarrower => {
            view.gap = if action == Action::GapWider {
                view.gap.saturating_mul(2)
            } else {
                (view.gap / 2).max(1)
            };
            view.regroup();
            view.left = 0;
            view.ns_per_col = 0.0;
            reply = Reply::Info(format!(
                "{} occurrence(s), split at gaps of {} or more",
                view.occurrences.len(),
                duration(view.gap)
            ));
        }
        _ => {}
    }
    app.carry_out(reply);
}

fn scroll(app: &mut App, rows: isize) {
    let cols = cols(app);
    if let Some(view) = app.view_state_mut::<InsideView>() {
        let step = (view.ns_per_col.max(1.0) * cols as f64 / 8.0) as i64 * rows as i64;
        view.left = (view.left + step).max(0);
    }
}

/// An occurrence's lane of `spans`, each block coloured by its sub-op.
fn lane(name: &str, spans: &[inside::Span]) -> Lane {
    Lane::new(
        name.to_string(),
        spans
            .iter()
            .map(|s| Block {
                start: s.start,
                end: s.end,
                name: Arc::from(s.name.as_str()),
                mark: match s.sub_op {
                    Some(p) => Mark::Segment(p.key() as u32),
                    None => Mark::SuperKernel(None),
                },
            })
            .collect(),
    )
}

fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<InsideView>() else {
        return;
    };
    let theme = &app.config.theme;
    let title = format!(
        " Inside {} · occurrence {} of {} · device clock · split at gaps ≥ {} · {} back ",
        sanitize(&view.name),
        view.at + 1,
        view.occurrences.len(),
        duration(view.gap),
        app.config.keymap.hint(Action::Back)
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let Some(occ) = view.shown() else {
        return;
    };
    if inner.width <= LABEL || inner.height < 6 {
        return;
    }
    let cols = usize::from(inner.width - LABEL);
    let end = occ.end().max(1);
    let w = Window {
        left: view.left,
        ns_per_col: if view.ns_per_col > 0.0 {
            view.ns_per_col
        } else {
            (end as f64 / cols as f64).max(1.0)
        },
        cols,
    };
    let buf = frame.buffer_mut();
    let x0 = inner.x + LABEL;
    let mut y = inner.y;
    if view.incomplete {
        put(
            buf,
            inner.x,
            y,
            inner.width,
            "! super_kernel.log: buffer is full, stop dump the time of nodes — these lanes are \
             incomplete: draw no Cube/Vector conclusion from them",
            theme.get(Role::Warning),
        );
        y += 1;
    }
    put(
        buf,
        inner.x,
        y,
        inner.width,
        &format!(
            "{} end to end · {} on Cube, {} on Vector · the time between sub-ops is marked",
            duration(end),
            occ.cube.len(),
            occ.vector.len()
        ),
        theme.get(Role::Dim),
    );
    y += 1;
    let whole: Vec<inside::Span> = occ.whole.iter().cloned().collect();
    for (label, spans) in [("SK", &whole), ("Cube", &occ.cube), ("Vector", &occ.vector)] {
        if y + 1 >= inner.y + inner.height {
            break;
        }
        let lane = lane(label, spans);
        put(buf, inner.x, y, LABEL, label, theme.get(Role::Title));
        draw_lane(buf, &lane, &w, x0, y, None, 1, theme);
        // The sub-ops' names on the row below, where they fit.
        for s in spans {
            let (a, b) = (w.col(s.start), w.col(s.end - 1));
            if b < 0 || a >= cols as i64 {
                continue;
            }
            let a = a.max(0) as u16;
            let room = (b.min(cols as i64 - 1) as u16).saturating_sub(a) + 1;
            let text = format!(
                "{}{}",
                s.sub_op
                    .map_or(String::new(), |p| format!("{}:", p.label())),
                s.name
            );
            put(
                buf,
                x0 + a,
                y + 1,
                room,
                &sanitize(&text),
                theme.get(Role::Dim),
            );
        }
        y += 2;
    }
    // Every sub-op in order, with the time before it.
    let mut all: Vec<(&str, &inside::Span)> = occ
        .cube
        .iter()
        .map(|s| ("Cube", s))
        .chain(occ.vector.iter().map(|s| ("Vector", s)))
        .collect();
    all.sort_by_key(|(_, s)| (s.start, s.end));
    let mut reach = 0i64;
    for (unit, s) in all {
        if y >= inner.y + inner.height {
            break;
        }
        let before = s.start - reach;
        reach = reach.max(s.end);
        let text = format!(
            "{:>3} {:<32} {:<6} {:>10} → {:>10}  {:>10}  {:>3} core(s)  {}",
            s.sub_op.map_or("—".to_string(), |p| p.label()),
            crate::text::cut_middle(&s.name, 32),
            unit,
            duration(s.start),
            duration(s.end),
            duration(s.end - s.start),
            s.cores,
            if before > 0 {
                format!("after {} idle", duration(before))
            } else {
                String::new()
            }
        );
        put(
            buf,
            inner.x,
            y,
            inner.width,
            &sanitize(&text),
            theme.get(Role::Text),
        );
        y += 1;
    }
}
