//! The profile view: the comparison's totals and attribution on top, then one of three tables
//! — op types side by side with a bar per row (`▀` base over `▄` new), segments in the base
//! and the new profile, breaks by what the unfused ops around them cost. Every delta carries a
//! sign and an arrow, so nothing depends on colour.

use super::{pane_block, put};
use crate::profile::output::{delta, pct};
use crate::profile::{FusedEvidence, Side};
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::profile_parts;
use crate::tui::profile_view::{ProfileView, Table, table_index};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The role of a delta: less time is good, more is a regression.
fn delta_role(v: f64) -> Role {
    if v < -0.0005 {
        Role::Good
    } else if v > 0.0005 {
        Role::Error
    } else {
        Role::Dim
    }
}

/// Draws the profile view over the body `area`.
pub fn render(app: &App, view: &ProfileView, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let (summary_area, table_area) = profile_parts(area);
    summary(app, view, frame, summary_area);
    let block = pane_block(tab_title(view), true, theme);
    let inner = block.inner(table_area);
    frame.render_widget(block, table_area);
    if inner.height < 2 || inner.width < 20 {
        return;
    }
    let rows = usize::from(inner.height - 2);
    let buf = frame.buffer_mut();
    match view.table {
        Table::Types => types(view, theme, buf, inner, rows),
        Table::Segments => segments(view, theme, buf, inner, rows),
        Table::Breaks => breaks(view, theme, buf, inner, rows),
    }
    let keymap = &app.config.keymap;
    let mut hints = vec![
        (Action::Activate, "show in the graph"),
        (Action::NextPane, "next table"),
    ];
    if view.table == Table::Types {
        hints.push((Action::Sort, "sort"));
    }
    hints.extend([
        (Action::LoadProfiles, "other profiles"),
        (Action::Back, "back"),
    ]);
    let mut spans = Vec::new();
    for (action, label) in hints {
        spans.push(Span::styled(keymap.hint(action), theme.get(Role::Key)));
        spans.push(Span::styled(format!(" {label}  "), theme.get(Role::Dim)));
    }
    if view.table != Table::Breaks {
        spans.push(Span::styled("▀ base ▄ new", theme.get(Role::Dim)));
    }
    let footer = Rect::new(inner.x, inner.bottom() - 1, inner.width, 1);
    frame.render_widget(Paragraph::new(Line::from(spans)), footer);
}

fn tab_title(view: &ProfileView) -> String {
    let tabs: Vec<String> = Table::ALL
        .iter()
        .map(|t| {
            let n = view.rows(*t);
            if *t == view.table {
                format!("[{} {n}]", t.title())
            } else {
                format!(" {} {n} ", t.title())
            }
        })
        .collect();
    let sort = if view.table == Table::Types {
        format!(" · sorted by {}", view.sort.title())
    } else {
        String::new()
    };
    format!(" {}{sort} ", tabs.join(" "))
}

fn summary(app: &App, view: &ProfileView, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let d = &view.diff;
    let a = &d.attribution;
    let stale = if view.stale {
        " · comparing with the edited plan…"
    } else {
        ""
    };
    let title = format!(" Profiles · {}{stale} ", sanitize(&view.request.describe()));
    let block = pane_block(title, false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let benefit = crate::profile::output::benefit_words(d);
    let part = |label: &str, p: &crate::profile::Part| -> Vec<Span<'static>> {
        vec![
            Span::styled(format!("{label:<11}"), theme.get(Role::Title)),
            Span::raw(format!("{:>10.2} µs → {:>10.2} µs   ", p.base_us, p.new_us)),
            Span::styled(
                format!("{} µs ({})", delta(p.delta_us), pct(p.change_pct)),
                theme.get(delta_role(p.delta_us)),
            ),
        ]
    };
    let mut total = part(
        "total",
        &crate::profile::Part::new(d.base_total_us, d.new_total_us),
    );
    total.push(Span::styled(
        format!("   {benefit}"),
        theme.get(Role::Title),
    ));
    let fused_names: Vec<String> = a
        .fused_types
        .iter()
        .map(|t| {
            let mark = match t.evidence {
                FusedEvidence::Plan => "",
                FusedEvidence::Inferred => "~",
            };
            format!("{mark}{}", sanitize(&t.op_type))
        })
        .collect();
    let launches: u64 = a.superkernels.iter().map(|s| s.count).sum();
    let mut fused = part("fused part", &a.fused);
    fused.push(Span::styled(
        format!(
            "   {} → SuperKernel ×{launches}",
            if fused_names.is_empty() {
                "no op type".to_string()
            } else {
                fused_names.join(" + ")
            }
        ),
        theme.get(Role::Dim),
    ));
    let basis = if a.inferred {
        format!("fused op types: {} (~ inferred)", a.basis.text())
    } else {
        format!("fused op types: {}", a.basis.text())
    };
    let mut rest = part("rest", &a.rest);
    rest.push(Span::styled(format!("   {basis}"), theme.get(Role::Dim)));
    let notes = d
        .notes
        .iter()
        .chain(&a.notes)
        .map(|n| sanitize(n).into_owned())
        .collect::<Vec<_>>()
        .join(" · ");
    let communication = match &d.communication {
        Some(c) => {
            let total = |s: Option<crate::profile::Side>| s.map_or(0.0, |s| s.total_us);
            let mut line = part(
                "comm.",
                &crate::profile::Part::new(total(c.base), total(c.new)),
            );
            line.push(Span::styled(
                "   communication (HCCL): not in the totals or the benefit",
                theme.get(Role::Dim),
            ));
            line
        }
        None => vec![Span::styled(
            "comm.      no communication kernels on either side",
            theme.get(Role::Dim),
        )],
    };
    let lines = vec![
        Line::from(total),
        Line::from(fused),
        Line::from(rest),
        Line::from(communication),
        Line::from(Span::styled(notes, theme.get(Role::Warning))),
    ];
    frame.render_widget(Paragraph::new(lines), inner);
}

/// A column: header, width, right-aligned.
type Column = (&'static str, u16, bool);

/// Writes `cells` in `columns` at row `y`; returns the column after the last.
fn cells(
    buf: &mut Buffer,
    area: Rect,
    y: u16,
    columns: &[Column],
    texts: &[(String, Style)],
) -> u16 {
    let mut x = area.x;
    for ((_, width, right), (text, style)) in columns.iter().zip(texts) {
        let width = (*width).min(area.right().saturating_sub(x));
        if width == 0 {
            break;
        }
        let shown = Span::raw(text.as_str()).width() as u16;
        let at = if *right && shown < width {
            x + width - shown
        } else {
            x
        };
        put(buf, at, y, width.saturating_sub(at - x), text, *style);
        x += width + 1;
    }
    x
}

/// Writes the header row of `columns`.
fn header(buf: &mut Buffer, area: Rect, columns: &[Column], theme: &Theme, bars: bool) {
    let texts: Vec<(String, Style)> = columns
        .iter()
        .map(|(h, _, _)| (h.to_string(), theme.get(Role::Title)))
        .collect();
    let x = cells(buf, area, area.y, columns, &texts);
    if bars && x < area.right() {
        put(
            buf,
            x,
            area.y,
            area.right() - x,
            "base ▀ / new ▄",
            theme.get(Role::Title),
        );
    }
}

/// A bar of `width` cells: `▀` where only the base reaches, `▄` only the new, `█` both.
fn bar(base: f64, new: f64, max: f64, width: u16) -> String {
    // Any time at all shows as at least one cell.
    let cells = |v: f64| {
        if max <= 0.0 || v <= 0.0 {
            0
        } else {
            (((v / max) * f64::from(width)).round() as u16).max(1)
        }
    };
    let (b, n) = (cells(base), cells(new));
    (0..width)
        .map(|i| match (i < b, i < n) {
            (true, true) => '█',
            (true, false) => '▀',
            (false, true) => '▄',
            (false, false) => ' ',
        })
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// Draws the bar after the row's cells, from column `x`.
fn draw_bar(buf: &mut Buffer, area: Rect, x: u16, y: u16, base: f64, new: f64, max: f64) {
    let width = area.right().saturating_sub(x).min(40);
    if width >= 4 {
        put(buf, x, y, width, &bar(base, new, max, width), Style::new());
    }
}

/// The shown rows of `items` in `table`, each with its screen row and style (the selection
/// marked); the rows' backgrounds are drawn.
fn shown_rows<'a, T>(
    items: &'a [T],
    view: &ProfileView,
    table: Table,
    rows: usize,
    theme: &Theme,
    buf: &mut Buffer,
    area: Rect,
) -> Vec<(u16, Style, &'a T)> {
    let i = table_index(table);
    items
        .iter()
        .enumerate()
        .skip(view.offset[i])
        .take(rows)
        .map(|(n, item)| {
            let y = area.y + 1 + (n - view.offset[i]) as u16;
            let style = row_style(n == view.selected[i], theme);
            buf.set_style(Rect::new(area.x, y, area.width, 1), style);
            (y, style, item)
        })
        .collect()
}

/// The row style: the selection, or nothing.
fn row_style(selected: bool, theme: &Theme) -> Style {
    if selected {
        theme.get(Role::Selection)
    } else {
        Style::new()
    }
}

fn side(s: Option<Side>) -> (String, String) {
    match s {
        Some(s) => (s.count.to_string(), format!("{:.2}", s.total_us)),
        None => ("·".to_string(), "·".to_string()),
    }
}

fn types(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    // Wide: the status words too; narrow (80 columns): no counts, shorter names, so the Δ
    // and the change always show.
    let wide = area.width >= 120;
    let narrow = area.width < 100;
    let (name_width, core_width) = if narrow { (20, 9) } else { (24, 14) };
    let mut columns: Vec<Column> = vec![
        (" ", 1, false),
        ("OP Type", name_width, false),
        ("Core Type", core_width, false),
        ("base n", 6, true),
        ("base µs", 9, true),
        ("new n", 6, true),
        ("new µs", 9, true),
        ("Δ µs", 11, true),
        ("change", 10, true),
    ];
    if wide {
        columns.push(("", 15, false));
    }
    let shown = |i: usize| !(narrow && (i == 3 || i == 5));
    let columns: Vec<Column> = columns
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shown(*i))
        .map(|(_, c)| c)
        .collect();
    header(buf, area, &columns, theme, true);
    let fused: Vec<(&str, FusedEvidence)> = view
        .diff
        .attribution
        .fused_types
        .iter()
        .map(|t| (t.op_type.as_str(), t.evidence))
        .collect();
    let max = view
        .diff
        .rows
        .iter()
        .flat_map(|r| [r.base, r.new])
        .flatten()
        .map(|s| s.total_us)
        .fold(0.0, f64::max);
    for (y, base_style, &index) in
        shown_rows(&view.order, view, Table::Types, rows, theme, buf, area)
    {
        let r = &view.diff.rows[index];
        let mark = match fused.iter().find(|(t, _)| *t == r.op_type) {
            Some((_, FusedEvidence::Plan)) => "┃",
            Some((_, FusedEvidence::Inferred)) => "~",
            None => " ",
        };
        let (bn, bt) = side(r.base);
        let (nn, nt) = side(r.new);
        let text = |s: String| (s, base_style);
        let mut texts = vec![
            (mark.to_string(), base_style.patch(theme.get(Role::Key))),
            text(sanitize(&r.op_type).into_owned()),
            text(sanitize(&r.core_type).into_owned()),
            text(bn),
            text(bt),
            text(nn),
            text(nt),
            (
                delta(r.delta_us),
                base_style.patch(theme.get(delta_role(r.delta_us))),
            ),
            text(pct(r.change_pct)),
        ];
        if wide {
            texts.push(text(r.status.text().to_string()));
        }
        let texts: Vec<(String, Style)> = texts
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shown(*i))
            .map(|(_, t)| t)
            .collect();
        let x = cells(buf, area, y, &columns, &texts);
        let total = |s: Option<Side>| s.map_or(0.0, |s| s.total_us);
        draw_bar(buf, area, x, y, total(r.base), total(r.new), max);
    }
    if view.rows(Table::Types) == 0 {
        put(
            buf,
            area.x,
            area.y + 1,
            area.width,
            "no op types in the profiles",
            theme.get(Role::Dim),
        );
    }
}

/// The note for a table that needs kernel_details.csv on both sides.
fn needs_kernels(buf: &mut Buffer, area: Rect, theme: &Theme) {
    put(
        buf,
        area.x,
        area.y + 1,
        area.width,
        "needs kernel_details.csv (or op_summary) in both profiles: per-op times come from it",
        theme.get(Role::Dim),
    );
}

fn segments(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    let Some(per_op) = &view.diff.per_op else {
        return needs_kernels(buf, area, theme);
    };
    let columns: Vec<Column> = vec![
        ("segment", 26, false),
        ("scope", 12, false),
        ("ops", 4, true),
        ("base µs", 10, true),
        ("new µs", 9, true),
        ("Δ µs", 11, true),
        ("change", 10, true),
    ];
    header(buf, area, &columns, theme, true);
    let max = per_op
        .segments
        .iter()
        .map(|s| s.base_us.max(s.new_us.unwrap_or(0.0)))
        .fold(0.0, f64::max);
    for (y, style, s) in shown_rows(
        &per_op.segments,
        view,
        Table::Segments,
        rows,
        theme,
        buf,
        area,
    ) {
        let (with, change, d) = match (s.new_us, s.delta_us) {
            (Some(new), Some(d)) => (format!("{new:.2}"), delta(d), d),
            _ => ("not run".to_string(), "—".to_string(), 0.0),
        };
        let texts = vec![
            (sanitize(&s.segment).into_owned(), style),
            (sanitize(&s.scope).into_owned(), style),
            (s.ops.len().to_string(), style),
            (format!("{:.2}", s.base_us), style),
            (with, style),
            (change, style.patch(theme.get(delta_role(d)))),
            (pct(s.change_pct), style),
        ];
        let x = cells(buf, area, y, &columns, &texts);
        draw_bar(buf, area, x, y, s.base_us, s.new_us.unwrap_or(0.0), max);
    }
}

fn breaks(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    let Some(per_op) = &view.diff.per_op else {
        return needs_kernels(buf, area, theme);
    };
    let reason_width = area
        .width
        .saturating_sub(24 + 12 + 9 + 10 + 9 + 9 + 6)
        .max(10);
    // The CLI's words: costs (the unfused ops' time), then the wait before their launches.
    let columns: Vec<Column> = vec![
        ("break", 24, false),
        ("scope", 12, false),
        ("unfused", 9, true),
        ("costs µs", 10, true),
        ("+wait µs", 9, true),
        ("launches", 9, true),
        ("reason", reason_width, false),
    ];
    header(buf, area, &columns, theme, false);
    for (y, style, b) in shown_rows(&per_op.breaks, view, Table::Breaks, rows, theme, buf, area) {
        let texts = vec![
            (
                format!("✗ {}", sanitize(&b.op)),
                style.patch(theme.get(Role::Break)),
            ),
            (sanitize(&b.scope).into_owned(), style),
            (b.unfused.len().to_string(), style),
            (format!("{:.2}", b.unfused_us), style),
            (format!("{:.2}", b.wait_us), style),
            (b.launches.to_string(), style),
            (sanitize(&b.reason).into_owned(), style),
        ];
        cells(buf, area, y, &columns, &texts);
    }
    if per_op.breaks.is_empty() {
        put(
            buf,
            area.x,
            area.y + 1,
            area.width,
            "no break: every scope fuses whole",
            theme.get(Role::Dim),
        );
    }
}
