//! The timeline view (`T`): one step of the profiles compared, a lane per stream, kernels as
//! blocks in time drawn in eighths of a cell, base above new, each aligned at its step's first
//! kernel; segment spans over their ops, break ops with the break glyph, gaps marked with
//! their length. Zoom, pan, the next gap or SuperKernel, another step; `enter` goes to the
//! selected kernel's op in the graph, and the view opens on the op the list has selected.
//! The layout is `profile::timeline`'s; this module keeps the view's state, keys and drawing.

use super::action::Action;
use super::app::{App, Screen};
use super::layout;
use super::reply::{Reply, Target};
use super::theme::{Role, Theme};
use super::view::ViewSpec;
use super::views::{pane_block, put};
use crate::profile::timeline::{self, Cell, Lane, Mark, Timeline, Window};
use crate::text::sanitize;
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

/// The view, opened by `T` from the graph or the profile view.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "timeline",
    title: "In the timeline view",
    opens_with: Some(Action::Timeline),
    from_graph: &[],
    keys: &[
        (Action::Expand, "next kernel in the lane"),
        (Action::Collapse, "previous kernel in the lane"),
        (Action::Down, "next lane (new under base)"),
        (Action::Up, "previous lane"),
        (Action::ZoomIn, "zoom in (×2, around the selected kernel)"),
        (Action::ZoomOut, "zoom out (×2)"),
        (Action::PageDown, "pan right a screen"),
        (Action::PageUp, "pan left a screen"),
        (Action::Top, "the step's start, the whole step in view"),
        (Action::NextBreak, "the kernel after the next gap"),
        (Action::PrevBreak, "the kernel after the previous gap"),
        (Action::NextSegment, "the next SuperKernel or segment"),
        (Action::PrevSegment, "the previous SuperKernel or segment"),
        (Action::GapWider, "mark only gaps twice as long"),
        (Action::GapNarrower, "mark gaps half as long"),
        (Action::PickStep, "the next step"),
        (
            Action::WriteCode,
            "write both profiles as a trace for Perfetto beside the dump",
        ),
        (Action::Activate, "go to the kernel's op in the graph"),
        (
            Action::Inside,
            "the inside of the selected SuperKernel (aclgraph)",
        ),
        (Action::Timeline, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open,
    handle,
    scroll,
    draw,
    text: None,
};

/// The width of the lane labels (`s12 ` and the side).
const LABEL: u16 = 6;
/// The gap marked by default, ns (1 µs).
pub const MIN_GAP_NS: i64 = 1_000;

/// Which kernel is selected: side, lane (within the side) and block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct At {
    /// 0 base, 1 new.
    pub side: usize,
    /// The lane within the side.
    pub lane: usize,
    /// The block within the lane.
    pub block: usize,
}

/// The view's state.
#[derive(Debug)]
pub struct TimelineView {
    /// The step laid out.
    pub timeline: Timeline,
    /// The time at the left edge, ns after each side's origin.
    pub left: i64,
    /// The time a column covers, ns; 0 until the first draw fits the step.
    pub ns_per_col: f64,
    /// The selected kernel.
    pub at: At,
    /// The shortest gap marked, ns.
    pub min_gap: i64,
    /// The comparison version it was laid out from.
    pub plan_version: u64,
}

impl TimelineView {
    fn lane(&self, at: At) -> Option<&Lane> {
        self.timeline.sides.get(at.side)?.lanes.get(at.lane)
    }

    /// The selected kernel's block.
    pub fn selected(&self) -> Option<&timeline::Block> {
        self.lane(self.at)?.blocks.get(self.at.block)
    }

    /// Every lane in drawing order, as (side, lane).
    fn lanes(&self) -> Vec<(usize, usize)> {
        self.timeline
            .sides
            .iter()
            .enumerate()
            .flat_map(|(s, side)| (0..side.lanes.len()).map(move |l| (s, l)))
            .collect()
    }

    /// Keeps the selected kernel in a window `cols` wide.
    fn follow(&mut self, cols: usize) {
        let Some(b) = self.selected() else {
            return;
        };
        let (start, end) = (b.start, b.end);
        let width = (self.ns_per_col * cols as f64) as i64;
        if start < self.left || end > self.left + width {
            self.left = (start - width / 4).max(0).min(start);
        }
    }

    /// Selects the block of `lane` nearest time `t`.
    fn nearest(&mut self, side: usize, lane: usize, t: i64) {
        let Some(l) = self
            .timeline
            .sides
            .get(side)
            .and_then(|s| s.lanes.get(lane))
        else {
            return;
        };
        let i = l
            .blocks
            .partition_point(|b| b.end <= t)
            .min(l.blocks.len().saturating_sub(1));
        self.at = At {
            side,
            lane,
            block: i,
        };
    }

    /// Moves to the next (or previous) block of the lane that `pick` takes.
    fn seek(&mut self, forward: bool, pick: impl Fn(&timeline::Block) -> bool) -> bool {
        let at = self.at;
        let Some(lane) = self.lane(at) else {
            return false;
        };
        let found = if forward {
            (at.block + 1..lane.blocks.len()).find(|&i| pick(&lane.blocks[i]))
        } else {
            (0..at.block).rev().find(|&i| pick(&lane.blocks[i]))
        };
        if let Some(block) = found {
            self.at.block = block;
        }
        found.is_some()
    }

    /// Moves to the block after the next (or previous) gap of the lane.
    fn seek_gap(&mut self, forward: bool) -> bool {
        let at = self.at;
        let min = self.min_gap;
        let Some(lane) = self.lane(at) else {
            return false;
        };
        let found = if forward {
            let from = lane
                .next_gap(min, lane.blocks.get(at.block).map_or(0, |b| b.start))
                .map(|g| lane.blocks.partition_point(|b| b.start < g.end));
            from.filter(|&i| i < lane.blocks.len())
        } else {
            (1..at.block)
                .rev()
                .find(|&i| lane.gap_before(i).is_some_and(|g| g >= min))
        };
        if let Some(block) = found {
            self.at.block = block;
        }
        found.is_some()
    }
}

/// Opens the view on the profiles read (asking for them first when none are).
fn open(app: &mut App) {
    let Some(profiles) = app.profile_view() else {
        app.problem(
            "the timeline shows profiles: read them first with p (a directory holding \
             no_sk_model and sk_model, or two profiles)"
                .to_string(),
        );
        return;
    };
    let version = profiles.plan_version;
    let step = profiles.step.clone();
    let fresh = app.view_state::<TimelineView>().is_some_and(|v| {
        v.plan_version == version
            && step
                .as_deref()
                .is_none_or(|s| v.timeline.sides[0].step == s)
    });
    if !fresh && !lay_out(app, step.as_deref()) {
        return;
    }
    select_listed_op(app);
    let cols = lane_cols(app);
    if let Some(view) = app.view_state_mut::<TimelineView>() {
        fit(view, cols);
        view.follow(cols);
    }
    app.show_view(VIEW.name);
}

/// Lays out `step` of the profiles read; false (and says why) when they have no kernel times.
fn lay_out(app: &mut App, step: Option<&str>) -> bool {
    let Some(profiles) = app.profile_view() else {
        return false;
    };
    let pair = profiles.shared_pair();
    let steps = profiles.diff.steps.as_ref().map(|s| (&s.base, &s.new));
    // A profile without streams: each kernel on its op's stream in the graph.
    let streams = match &app.screen {
        Screen::Explorer(ex) => crate::profile::planned::KernelStreams::of(&ex.ws),
        _ => Default::default(),
    };
    let stream_of = |name: &str| streams.get(name);
    let made = timeline::timeline(
        &pair,
        steps,
        step,
        profiles.diff.per_op.as_ref(),
        Some(&stream_of),
    );
    let version = profiles.plan_version;
    let Some(made) = made else {
        app.problem(
            "the timeline needs kernel start times: the base profile has no kernel file \
             (kernel_details.csv, op_summary, a profiler database or trace_view.json) with them"
                .to_string(),
        );
        return false;
    };
    let min_gap = app
        .view_state::<TimelineView>()
        .map_or(MIN_GAP_NS, |v| v.min_gap);
    app.set_view_state(TimelineView {
        timeline: made,
        left: 0,
        ns_per_col: 0.0,
        at: At::default(),
        min_gap,
        plan_version: version,
    });
    true
}

/// Selects the kernel of the op the list has selected, when it ran in the step.
fn select_listed_op(app: &mut App) {
    let name = match &app.screen {
        Screen::Explorer(ex) => ex
            .selected_op()
            .map(|id| ex.ws.graph().ops()[id.0 as usize].name.clone()),
        _ => None,
    };
    let Some(view) = app.view_state_mut::<TimelineView>() else {
        return;
    };
    let Some(name) = name else {
        return;
    };
    for (s, side) in view.timeline.sides.iter().enumerate() {
        for (l, lane) in side.lanes.iter().enumerate() {
            if let Some(b) = lane.blocks.iter().position(|b| *b.name == *name) {
                view.at = At {
                    side: s,
                    lane: l,
                    block: b,
                };
                view.left = 0;
                return;
            }
        }
    }
}

/// The columns the lanes have in the body.
fn lane_cols(app: &App) -> usize {
    let inner = layout::inner(app.areas().body);
    usize::from(inner.width.saturating_sub(LABEL)).max(1)
}

fn handle(app: &mut App, action: Action) {
    let cols = lane_cols(app);
    if action == Action::PickStep {
        return next_step(app);
    }
    if action == Action::WriteCode {
        return write_trace(app);
    }
    let Some(view) = app.view_state_mut::<TimelineView>() else {
        app.close_view();
        return;
    };
    fit(view, cols);
    let width = (view.ns_per_col * cols as f64) as i64;
    let mut reply = Reply::Done;
    match action {
        Action::Back => reply = Reply::Close,
        Action::Expand => {
            view.seek(true, |_| true);
        }
        Action::Collapse => {
            view.seek(false, |_| true);
        }
        Action::Down | Action::Up => {
            let lanes = view.lanes();
            let here = lanes
                .iter()
                .position(|&(s, l)| s == view.at.side && l == view.at.lane)
                .unwrap_or(0);
            let next = if action == Action::Down {
                (here + 1).min(lanes.len().saturating_sub(1))
            } else {
                here.saturating_sub(1)
            };
            let t = view.selected().map_or(view.left, |b| b.start);
            if let Some(&(s, l)) = lanes.get(next) {
                view.nearest(s, l, t);
            }
        }
        Action::ZoomIn | Action::ZoomOut => {
            let centre = view
                .selected()
                .map_or(view.left + width / 2, |b| (b.start + b.end) / 2);
            let factor = if action == Action::ZoomIn { 0.5 } else { 2.0 };
            let most = view.timeline.end().max(1) as f64 / cols as f64;
            view.ns_per_col = (view.ns_per_col * factor).clamp(1.0, most.max(1.0));
            let half = (view.ns_per_col * cols as f64 / 2.0) as i64;
            view.left = (centre - half).max(0);
            return;
        }
        Action::PageDown => {
            view.left = (view.left + width).min(view.timeline.end().max(0));
            return;
        }
        Action::PageUp => {
            view.left = (view.left - width).max(0);
            return;
        }
        Action::Top => {
            view.ns_per_col = 0.0;
            view.left = 0;
            view.at.block = 0;
            fit(view, cols);
            return;
        }
        Action::NextBreak | Action::PrevBreak if !view.seek_gap(action == Action::NextBreak) => {
            reply = Reply::Info(format!(
                "no gap of {} or more that way in this lane",
                duration(view.min_gap)
            ));
        }
        Action::NextSegment | Action::PrevSegment
            if !view.seek(action == Action::NextSegment, |b| {
                matches!(b.mark, Mark::SuperKernel(_) | Mark::Segment(_))
            }) =>
        {
            reply = Reply::Info("no SuperKernel or segment kernel that way in this lane".into());
        }
        Action::GapWider => {
            view.min_gap = view.min_gap.saturating_mul(2);
            reply = Reply::Info(format!("gaps of {} or more marked", duration(view.min_gap)));
        }
        Action::GapNarrower => {
            view.min_gap = (view.min_gap / 2).max(1);
            reply = Reply::Info(format!("gaps of {} or more marked", duration(view.min_gap)));
        }
        Action::Activate => {
            reply = match view.selected() {
                Some(b) => Reply::GoTo(Target::Op(b.name.to_string())),
                None => Reply::Done,
            };
        }
        Action::LoadProfiles | Action::Profiles | Action::Inside => reply = Reply::Pass(action),
        _ => {}
    }
    view.follow(cols);
    app.carry_out(reply);
}

/// Writes both profiles, every step, as a trace marked with the current plan, beside the dump.
fn write_trace(app: &mut App) {
    let (Some(profiles), Screen::Explorer(ex)) = (app.profile_view(), &app.screen) else {
        return;
    };
    let pair = profiles.shared_pair();
    let ws = &ex.ws;
    let plan = crate::profile::PlannedFusion::from_workspace(ws, &ws.source().file);
    let streams = crate::profile::planned::KernelStreams::of(ws);
    let stream_of = |name: &str| streams.get(name);
    let path = crate::paths::DumpFiles::of(&ws.source().file).trace();
    let sides = [("base", &pair.base), ("new", &pair.new)];
    let written = crate::profile::trace_out::write_file(
        &path,
        crate::own_files::Links::Refuse,
        &crate::profile::trace_out::TraceInput {
            sides: &sides,
            plan: Some(&plan),
            stream_of: Some(&stream_of),
            ..Default::default()
        },
    )
    .map_err(|e| e.to_string());
    match written {
        Ok(w) => app.info(format!(
            "wrote {} kernels as a trace to {}: open it in ui.perfetto.dev or chrome://tracing",
            w.kernels,
            sanitize(&path.display().to_string())
        )),
        Err(e) => app.problem(format!(
            "cannot write {}: {}",
            sanitize(&path.display().to_string()),
            sanitize(&e)
        )),
    }
}

/// Shows the next step of the base profile.
fn next_step(app: &mut App) {
    let steps: Vec<String> = app
        .profile_view()
        .and_then(|p| p.diff.steps.as_ref())
        .map(|s| s.base.list.iter().map(|t| t.step.clone()).collect())
        .unwrap_or_default();
    let shown = app
        .view_state::<TimelineView>()
        .map(|v| v.timeline.sides[0].step.clone());
    if steps.len() < 2 {
        return app.info("the profiles hold one step".to_string());
    }
    let at = shown
        .and_then(|s| steps.iter().position(|t| *t == s))
        .map_or(0, |i| (i + 1) % steps.len());
    let step = steps[at].clone();
    if lay_out(app, Some(&step)) {
        app.info(format!("step {}", sanitize(&step)));
    }
}

/// The wheel pans.
fn scroll(app: &mut App, rows: isize) {
    let cols = lane_cols(app);
    if let Some(view) = app.view_state_mut::<TimelineView>() {
        fit(view, cols);
        let step = (view.ns_per_col * cols as f64 / 8.0) as i64 * rows as i64;
        view.left = (view.left + step).clamp(0, view.timeline.end().max(0));
    }
}

/// Fits the whole step in `cols` columns the first time.
fn fit(view: &mut TimelineView, cols: usize) {
    if view.ns_per_col <= 0.0 {
        view.ns_per_col = (view.timeline.end().max(1) as f64 / cols as f64).max(1.0);
    }
}

/// A time in words: `850 ns`, `3.20 µs`, `1.25 ms`.
pub fn duration(ns: i64) -> String {
    let a = ns.abs() as f64;
    if a < 1_000.0 {
        format!("{ns} ns")
    } else if a < 1_000_000.0 {
        format!("{:.2} µs", ns as f64 / 1e3)
    } else {
        format!("{:.2} ms", ns as f64 / 1e6)
    }
}

/// The glyph of a cell: eighths where a kernel starts or ends inside it.
pub fn glyph(c: &Cell) -> &'static str {
    const LEFT: [&str; 8] = ["▏", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
    if c.count == 0 {
        return " ";
    }
    if c.covered >= 0.875 {
        return "█";
    }
    if c.count > 1 {
        return "▒";
    }
    let eighths = (c.covered * 8.0).round().clamp(1.0, 7.0) as usize;
    match (c.starts, c.ends) {
        // Ends inside: covered from the left.
        (false, true) => LEFT[eighths],
        // Starts inside and runs on: covered on the right.
        (true, false) if eighths >= 4 => "▐",
        (true, false) => "▕",
        // Starts and ends inside.
        _ if eighths >= 4 => "▌",
        _ => "╵",
    }
}

fn mark_style(mark: Mark, theme: &Theme) -> Style {
    match mark {
        Mark::Kernel => theme.get(Role::Text),
        Mark::Segment(n) | Mark::SuperKernel(Some(n)) => Style::new().fg(theme.band(n as usize)),
        Mark::SuperKernel(None) => theme.get(Role::Good),
        Mark::Break => theme.get(Role::Break),
    }
}

/// The ruler's labels: a tick every ~12 columns, at a round time.
fn ruler(w: &Window) -> Vec<(usize, String)> {
    let target = w.ns_per_col * 12.0;
    let mut step = 1i64;
    while (step as f64) < target {
        step = match step.to_string().as_bytes()[0] {
            b'1' => step * 2,
            b'2' => step / 2 * 5,
            _ => step * 2,
        };
    }
    let first = (w.left + step - 1).div_euclid(step) * step;
    (0..)
        .map(|k| first + k * step)
        .take_while(|t| *t < w.right())
        .filter_map(|t| usize::try_from(w.col(t)).ok().map(|c| (c, duration(t))))
        .collect()
}

fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let Some(view) = app.view_state::<TimelineView>() else {
        return;
    };
    let theme = &app.config.theme;
    let steps = view
        .timeline
        .sides
        .iter()
        .map(|s| {
            format!(
                "{} step {}",
                s.name,
                if s.step.is_empty() { "—" } else { &s.step }
            )
        })
        .collect::<Vec<_>>()
        .join(" · ");
    let title = format!(
        " Timeline · {} · gaps ≥ {} · {} back ",
        sanitize(&steps),
        duration(view.min_gap),
        app.config.keymap.hint(Action::Back)
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    if inner.width <= LABEL || inner.height < 4 {
        return;
    }
    let cols = usize::from(inner.width - LABEL);
    let ns_per_col = if view.ns_per_col > 0.0 {
        view.ns_per_col
    } else {
        (view.timeline.end().max(1) as f64 / cols as f64).max(1.0)
    };
    let w = Window {
        left: view.left,
        ns_per_col,
        cols,
    };
    let buf = frame.buffer_mut();
    let x0 = inner.x + LABEL;
    let bottom = inner.y + inner.height - 1;
    // The ruler.
    put(buf, inner.x, inner.y, LABEL, "time", theme.get(Role::Dim));
    for (c, label) in ruler(&w) {
        let x = x0 + c as u16;
        if x < inner.x + inner.width {
            put(
                buf,
                x,
                inner.y,
                inner.x + inner.width - x,
                &format!("┊{label}"),
                theme.get(Role::Dim),
            );
        }
    }
    let mut y = inner.y + 1;
    for (s, side) in view.timeline.sides.iter().enumerate() {
        if y >= bottom {
            break;
        }
        y = draw_spans(buf, view, s, &w, x0, y, theme);
        put(
            buf,
            inner.x,
            y.saturating_sub(1),
            LABEL,
            side.name,
            theme.get(Role::Title),
        );
        for (l, lane) in side.lanes.iter().enumerate() {
            if y >= bottom {
                break;
            }
            put(
                buf,
                inner.x + 1,
                y,
                LABEL - 1,
                &format!("s{}", sanitize(&lane.stream)),
                theme.get(Role::Dim),
            );
            let selected = (view.at.side == s && view.at.lane == l).then_some(view.at.block);
            draw_lane(buf, lane, &w, x0, y, selected, view.min_gap, theme);
            y += 1;
        }
    }
    // What the marks mean, above the selected kernel's line.
    if bottom > y {
        put(
            buf,
            inner.x,
            bottom - 1,
            inner.width,
            "█ kernel  ▏…▉ part of a column  ▒ several  ✗ break op  ├ segment ┤  µs: a gap",
            theme.get(Role::Dim),
        );
    }
    // The selected kernel, in words.
    if let Some(b) = view.selected() {
        let what = match b.mark {
            Mark::Kernel => "outside every segment".to_string(),
            Mark::Segment(n) => format!("in segment {}", view.timeline.segments[n as usize]),
            Mark::SuperKernel(Some(n)) => {
                format!("SuperKernel of {}", view.timeline.segments[n as usize])
            }
            Mark::SuperKernel(None) => "SuperKernel (no segment of the plan)".to_string(),
            Mark::Break => format!(
                "✗ breaks its scope: {}",
                view.timeline
                    .breaks
                    .get(&*b.name)
                    .map_or("", String::as_str)
            ),
        };
        let lane = view.lane(view.at);
        let gap_before = lane.and_then(|l| l.gap_before(view.at.block));
        let text = format!(
            "{} · {} at {} · {} · gap before {}",
            sanitize(&b.name),
            duration(b.end - b.start),
            duration(b.start),
            what,
            gap_before.map_or("—".to_string(), duration),
        );
        put(
            buf,
            inner.x,
            bottom,
            inner.width,
            &text,
            theme.get(Role::Text),
        );
    }
}

/// Draws side `s`'s segment spans on row `y`; returns the row after.
fn draw_spans(
    buf: &mut Buffer,
    view: &TimelineView,
    s: usize,
    w: &Window,
    x0: u16,
    y: u16,
    theme: &Theme,
) -> u16 {
    for span in view.timeline.spans.iter().filter(|p| p.side == s) {
        if span.end <= w.left || span.start >= w.right() {
            continue;
        }
        let (a, b) = (
            w.col(span.start).max(0) as u16,
            w.col(span.end - 1).min(w.cols as i64 - 1) as u16,
        );
        let width = b.saturating_sub(a) + 1;
        let name = &view.timeline.segments[span.segment as usize];
        let label = if width >= 3 {
            let inside: String = format!("{}{}", name, "─".repeat(usize::from(width)))
                .chars()
                .take(usize::from(width - 2))
                .collect();
            format!("├{inside}┤")
        } else {
            "│".repeat(usize::from(width))
        };
        put(
            buf,
            x0 + a,
            y,
            width,
            &sanitize(&label),
            Style::new().fg(theme.band(span.segment as usize)),
        );
    }
    y + 1
}

/// Draws one lane on row `y` from column `x0`, gaps of `min_gap` ns or more marked.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_lane(
    buf: &mut Buffer,
    lane: &Lane,
    w: &Window,
    x0: u16,
    y: u16,
    selected: Option<usize>,
    min_gap: i64,
    theme: &Theme,
) {
    let cells = lane.cells(w);
    for (c, cell) in cells.iter().enumerate() {
        let Some(i) = cell.block else { continue };
        let b = &lane.blocks[i];
        let mut style = mark_style(b.mark, theme);
        if selected == Some(i) {
            style = theme.get(Role::Selection);
        }
        let first = w.col(b.start).max(0) as usize == c;
        let symbol = if b.mark == Mark::Break && first {
            "✗"
        } else {
            glyph(cell)
        };
        buf[(x0 + c as u16, y)].set_symbol(symbol).set_style(style);
    }
    // Gaps long enough, with their length where it fits.
    for gap in lane.gaps(min_gap, w.left, w.right()) {
        let (a, b) = (w.col(gap.start) + 1, w.col(gap.end) - 1);
        let (a, b) = (a.max(0), b.min(w.cols as i64 - 1));
        if b < a {
            continue;
        }
        let room = (b - a + 1) as usize;
        let label = duration(gap.end - gap.start);
        let text = if room >= label.chars().count() + 2 {
            format!("{label:^room$}")
        } else {
            "·".repeat(room.min(1))
        };
        let at = if room >= label.chars().count() + 2 {
            a
        } else {
            a + (b - a) / 2
        };
        put(
            buf,
            x0 + at as u16,
            y,
            room as u16,
            &text,
            theme.get(Role::Dim),
        );
    }
}
