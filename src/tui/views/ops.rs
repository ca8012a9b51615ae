//! The op list: every op in execution order (or the filtered ones), one row each, built only
//! for the visible rows. Columns: position, stream, glyph, name, type, core, scope, segment or
//! break reason, verdict. Narrow panes drop core, scope and type, in that order; a name too
//! long for its column loses its middle, so ops that differ at the end stay apart. With only
//! the breaks shown, the scope column names the scope each op breaks, and type and core give
//! their room to the reason.

use super::{pane_block, put};
use crate::fusion::index::segment_at;
use crate::fusion::marks::OpMark;
use crate::fusion::verdict::{Evidence, Verdict};
use crate::graph::ATTR_DEVICE_US;
use crate::graph::OpId;
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::explorer::{Explorer, Pane, core_text};
use crate::tui::keymap::Keymap;
use crate::tui::query::reasons;
use crate::tui::theme::{Role, Theme};
use crate::workspace::OpChange;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

/// A column of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Name,
    Type,
    Core,
    Scope,
    Last,
}

/// Column widths for an inner width; 0 means the column is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Widths {
    pos: u16,
    stream: u16,
    name: u16,
    op_type: u16,
    core: u16,
    scope: u16,
    last: u16,
    time: u16,
}

/// Width of the time column: `12345.67` and a heat glyph.
const TIME_WIDTH: u16 = 9;

impl Widths {
    fn of(ex: &Explorer, width: u16, time: bool) -> Widths {
        let digits = |n: usize| n.max(1).to_string().len() as u16;
        let pos = digits(ex.ws.graph().len().saturating_sub(1));
        let stream = 1 + ex
            .ws
            .context()
            .streams()
            .iter()
            .map(|s| s.id.to_string().len() as u16)
            .max()
            .unwrap_or(1);
        // pos, stream, change, glyph and verdict with a space after each but the last.
        let time = if time { TIME_WIDTH } else { 0 };
        let fixed = pos + 1 + stream + 1 + 1 + 2 + 2 + if time > 0 { time + 1 } else { 0 };
        let avail = width.saturating_sub(fixed);
        // A column is shown when every shown column can have its comfortable width; then
        // names and types widen to their longest, and the reason column takes the rest.
        let comfortable = |c: Column| match c {
            Column::Name => 20,
            Column::Last => 24,
            Column::Type => 14,
            Column::Scope => 10,
            Column::Core => 7,
        };
        let mut chosen = vec![Column::Name, Column::Last];
        let optional: &[Column] = if ex.breaks_only() {
            &[Column::Scope]
        } else {
            &[Column::Type, Column::Scope, Column::Core]
        };
        for &c in optional {
            let need: u16 = chosen.iter().chain([&c]).map(|&c| comfortable(c) + 1).sum();
            if need > avail {
                break;
            }
            chosen.push(c);
        }
        let mut w = Widths {
            pos,
            stream,
            name: 0,
            op_type: 0,
            core: 0,
            scope: 0,
            last: 0,
            time,
        };
        let widest = ex.widest;
        let room = avail.saturating_sub(chosen.len() as u16);
        if chosen.len() == 2 {
            // The name first (up to its longest), leaving the reason at least a third; with
            // only the breaks shown, the scope each breaks gets a narrow column even here.
            let scope = if ex.breaks_only() {
                (widest.scope as u16).clamp(1, 10).min(room / 5)
            } else {
                0
            };
            let room = room.saturating_sub(if scope > 0 { scope + 1 } else { 0 });
            let name = (widest.name as u16).max(room * 11 / 20);
            w.name = name.min(room - room / 3);
            w.scope = scope;
            w.last = room - w.name;
            return w;
        }
        let mut left = room;
        for c in &chosen {
            let width = match c {
                Column::Scope => comfortable(*c).min(widest.scope as u16),
                Column::Core => comfortable(*c).min(widest.core as u16),
                _ => comfortable(*c),
            };
            *w.slot(*c) = width;
            left -= width;
        }
        for (c, want) in [
            (Column::Name, widest.name.min(32) as u16),
            (Column::Type, widest.op_type.min(24) as u16),
            (Column::Scope, widest.scope as u16),
            (Column::Core, widest.core as u16),
        ] {
            if chosen.contains(&c) {
                let slot = w.slot(c);
                let extra = want.saturating_sub(*slot).min(left);
                *slot += extra;
                left -= extra;
            }
        }
        w.last += left;
        w
    }

    fn slot(&mut self, c: Column) -> &mut u16 {
        match c {
            Column::Name => &mut self.name,
            Column::Type => &mut self.op_type,
            Column::Core => &mut self.core,
            Column::Scope => &mut self.scope,
            Column::Last => &mut self.last,
        }
    }
}

/// Draws the op list; with profiles read, a column of each op's time without SuperKernel and
/// a heat glyph (without them, the device time the graph carries, when it does).
pub fn render(ex: &Explorer, keymap: &Keymap, theme: &Theme, frame: &mut Frame, area: Rect) {
    let times = ex.profiles.as_ref().filter(|t| t.max_base_us > 0.0);
    let is_focused = ex.focus == Pane::Ops;
    let total = ex.ws.graph().len();
    let mut title = if ex.rows().len() == total {
        format!(" Ops (execution order) {total} ")
    } else {
        format!(" Ops {} of {total} ", ex.rows().len())
    };
    if let Some(f) = ex.filter() {
        title.push_str(&format!("· filter \"{}\" ", sanitize(f.text())));
    }
    if ex.breaks_only() {
        title.push_str("· breaks only ");
    }
    if let Some(s) = ex.search() {
        title.push_str(&format!("· search \"{}\" ", sanitize(s.text())));
    }
    if let Some(c) = &ex.compared {
        title.push_str(&format!(
            "· vs {}: {} differ ",
            sanitize(&c.name),
            c.positions.len()
        ));
    }
    let block = pane_block(title, is_focused, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    // Without profiles, the device time the graph carries (aclgraph) fills the column.
    let device = ex.device_max_us.filter(|_| times.is_none());
    let w = Widths::of(ex, inner.width, times.is_some() || device.is_some());
    let buf = frame.buffer_mut();
    let dim = theme.get(Role::Dim);
    let header = Row {
        pos: "#".into(),
        stream: "s".into(),
        change: (" ", dim),
        glyph: (" ", dim),
        name: ("op".into(), dim),
        broken: "breaks".into(),
        op_type: "type".into(),
        core: "core".into(),
        scope: "scope".into(),
        last: ("segment / break reason".into(), dim),
        time: (
            format!(
                "{:>w$}",
                if device.is_some() {
                    "µs dev"
                } else {
                    "µs base"
                },
                w = usize::from(TIME_WIDTH)
            ),
            dim,
        ),
        verdict: (" ", dim),
        style: dim,
    };
    let breaks = ex.breaks_only();
    header.draw(buf, inner.x, inner.y, &w, breaks);
    if ex.rows().is_empty() {
        let why = if ex.ws.graph().is_empty() {
            "the graph has no ops".to_string()
        } else if ex.breaks_only() && ex.filter().is_none() {
            format!(
                "no op breaks a scope: {} shows all ops again",
                keymap.hint(Action::BreaksOnly)
            )
        } else {
            format!(
                "no op matches: {} clears the filter",
                keymap.hint(Action::ClearFilter)
            )
        };
        put(buf, inner.x, inner.y + 1, inner.width, &why, dim);
        return;
    }
    let height = usize::from(inner.height - 1);
    let end = (ex.offset() + height).min(ex.rows().len());
    let range = ex.selecting().then(|| ex.range_rows()).flatten();
    for (i, row) in (ex.offset()..end).enumerate() {
        let id = ex.rows()[row];
        let y = inner.y + 1 + i as u16;
        let mut cells = Row::of(ex, theme, id);
        if let Some(times) = times {
            let us = times.base_kernel_us(&ex.ws.graph().op(id).name);
            cells.time = time_cell(us, times.max_base_us, theme);
        } else if let Some(max) = device {
            let us = ex.ws.graph().op(id).attrs.get_float(ATTR_DEVICE_US);
            cells.time = time_cell(us, max, theme);
        }
        cells.draw(buf, inner.x, y, &w, breaks);
        if range.is_some_and(|(a, b)| (a..=b).contains(&row)) {
            buf.set_style(
                Rect::new(inner.x, y, inner.width, 1),
                theme.get(Role::Range),
            );
        }
        if row == ex.cursor() {
            let selection = if is_focused {
                theme.get(Role::Selection)
            } else {
                theme.get(Role::SelectionInactive)
            };
            buf.set_style(Rect::new(inner.x, y, inner.width, 1), selection);
        }
    }
}

/// The texts and styles of one row.
struct Row {
    pos: String,
    stream: String,
    change: (&'static str, Style),
    glyph: (&'static str, Style),
    name: (String, Style),
    /// The scopes the op breaks (`moe_1`, `moe_1 +1`).
    broken: String,
    op_type: String,
    core: String,
    scope: String,
    last: (String, Style),
    time: (String, Style),
    verdict: (&'static str, Style),
    style: Style,
}

/// The scopes op `id` breaks: the first, and how many more.
fn broken_scopes(ws: &crate::workspace::Workspace, id: OpId) -> String {
    let mut scopes = ws.index().breaks_of(id).map(|r| r.scope);
    let Some(first) = scopes.next() else {
        return String::new();
    };
    let more = scopes.count();
    let name = sanitize(&ws.plan().scopes[first as usize].name).into_owned();
    if more > 0 {
        format!("{name} +{more}")
    } else {
        name
    }
}

/// Heat glyphs, from a little time to the most any op takes.
const HEAT: [&str; 8] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/// The time column of an op: its time (`us`: its kernels' in the base profile, or its device
/// time) and a heat glyph against the most any op takes (`max`); `·` without a time.
fn time_cell(us: Option<f64>, max: f64, theme: &Theme) -> (String, Style) {
    match us {
        Some(us) => {
            let level = ((us / max) * HEAT.len() as f64).ceil() as usize;
            let heat = HEAT[level.clamp(1, HEAT.len()) - 1];
            let role = if level * 2 > HEAT.len() {
                Role::Warning
            } else {
                Role::Text
            };
            (format!("{us:>8.2}{heat}"), theme.get(role))
        }
        None => (format!("{:>8} ", "·"), theme.get(Role::Dim)),
    }
}

impl Row {
    fn of(ex: &Explorer, theme: &Theme, id: OpId) -> Row {
        let ws = &ex.ws;
        let graph = ws.graph();
        let op = graph.op(id);
        let index = ws.index();
        let verdict = ws.context().verdicts().get(id);
        let mark = ws.marks().get(id);
        let member_scope = match mark {
            OpMark::Member { scope, .. } => Some(scope),
            _ => None,
        };
        let segment = index.segment_ordinal(id);
        let is_break = index.is_break(id);
        let band = |o: usize| Style::new().fg(theme.band(o));
        let glyph = if is_break {
            ("✗", theme.get(Role::Break))
        } else if index.finding_count(id) > 0 {
            ("!", theme.get(Role::Warning))
        } else if let Some(o) = segment {
            ("┃", band(o))
        } else if verdict.verdict == Verdict::Ignored {
            ("○", theme.get(Role::Ignored))
        } else if member_scope.is_some() {
            ("┆", theme.get(Role::Warning))
        } else {
            ("·", theme.get(Role::Dim))
        };
        let style = if verdict.verdict == Verdict::Ignored {
            theme.get(Role::Ignored)
        } else if member_scope.is_none() && !is_break {
            theme.get(Role::Dim)
        } else {
            theme.get(Role::Text)
        };
        let mut name_style = if is_break {
            theme.get(Role::Break)
        } else {
            style
        };
        if ex.is_match(id) {
            name_style = name_style.patch(theme.get(Role::Match));
        }
        let last = if is_break {
            // An op that breaks several scopes says how many up front, where it cannot be cut.
            let all = reasons(ws, id);
            let count = if all.len() > 1 {
                format!("×{}", all.len())
            } else {
                String::new()
            };
            let first = all.first().map_or("", String::as_str);
            (
                format!("✗{count} {}", sanitize(first)),
                theme.get(Role::Break),
            )
        } else if let Some(o) = segment {
            let seg = segment_at(ws.plan(), index.segments()[o]);
            (sanitize(&seg.name).into_owned(), band(o))
        } else if let Some(s) = member_scope
            && verdict.verdict != Verdict::Ignored
        {
            let plan = ws.plan();
            let status = plan
                .scope_of_mark(s)
                .map_or("?", |i| plan.scopes[i].status.label());
            (
                format!("not fused: scope {status}"),
                theme.get(Role::Warning),
            )
        } else if let Some(r) = verdict.verdict.reason() {
            (format!("not fusible: {}", r.text()), theme.get(Role::Dim))
        } else {
            (String::new(), style)
        };
        let verdict_glyph = match (verdict.verdict, verdict.evidence) {
            (Verdict::Fusible, Evidence::Assumed) => ("?", theme.get(Role::Dim)),
            (Verdict::Fusible, _) => ("✓", style),
            (Verdict::Ignored, _) => ("○", theme.get(Role::Ignored)),
            (Verdict::Unsupported(_), _) => ("⊘", theme.get(Role::Break)),
        };
        // While comparing with another dump or plan, the column marks what differs from it;
        // otherwise what the last edit changed.
        let change = match &ex.compared {
            Some(c) => c.mark(id.index()).map_or(" ", |d| d.glyph()),
            None => match ws.changes().of(id) {
                Some(OpChange::NewBreak) => "+",
                Some(OpChange::Healed) => "−",
                Some(OpChange::NewSegment) => "*",
                None => " ",
            },
        };
        Row {
            change: (change, theme.get(Role::Changed)),
            pos: graph.exec_position(id).to_string(),
            stream: format!(
                "s{}",
                ws.context().streams()[ws.context().stream_of(id) as usize].id
            ),
            glyph,
            name: (sanitize(&op.name).into_owned(), name_style),
            broken: if is_break {
                broken_scopes(ws, id)
            } else {
                String::new()
            },
            op_type: sanitize(&op.op_type).into_owned(),
            core: core_text(op)
                .map(|c| sanitize(&c).into_owned())
                .unwrap_or_default(),
            scope: ws
                .marks()
                .scope_of(id)
                .map(|s| sanitize(s).into_owned())
                .unwrap_or_default(),
            last,
            time: (String::new(), style),
            verdict: verdict_glyph,
            style,
        }
    }

    fn draw(&self, buf: &mut ratatui::buffer::Buffer, x: u16, y: u16, w: &Widths, breaks: bool) {
        let pos_text = format!("{:>width$}", self.pos, width = usize::from(w.pos));
        let mut at = x;
        let mut cell = |buf: &mut ratatui::buffer::Buffer, width: u16, text: &str, style| {
            if width > 0 {
                put(buf, at, y, width, text, style);
                at += width + 1;
            }
        };
        cell(buf, w.pos, &pos_text, self.style);
        cell(buf, w.stream, &self.stream, self.style);
        cell(buf, 1, self.change.0, self.change.1);
        cell(buf, 1, self.glyph.0, self.glyph.1);
        let name = crate::tui::layout::middle_ellipsis(&self.name.0, usize::from(w.name));
        cell(buf, w.name, &name, self.name.1);
        cell(buf, w.op_type, &self.op_type, self.style);
        cell(buf, w.core, &self.core, self.style);
        if breaks {
            cell(buf, w.scope, &self.broken, self.last.1);
        } else {
            cell(buf, w.scope, &self.scope, self.style);
        }
        cell(buf, w.last, &self.last.0, self.last.1);
        cell(buf, w.time, &self.time.0, self.time.1);
        cell(buf, 1, self.verdict.0, self.verdict.1);
    }
}
