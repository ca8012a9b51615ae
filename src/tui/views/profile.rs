//! The profile view: the comparison's totals and attribution on top, then one of three tables
//! — op types side by side with a bar per row (`▀` base over `▄` new), segments in the base
//! and the new profile, breaks by what the unfused ops around them cost. Every delta carries a
//! sign and an arrow, so nothing depends on colour.

use super::{pane_block, put};
use crate::profile::output::{delta, pct};
use crate::profile::payoff::{Payoff, PayoffClass};
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
    let detail = if view.table == Table::SuperKernels {
        crate::tui::layout::PAYOFF_DETAIL
    } else {
        0
    };
    let rows = usize::from(inner.height.saturating_sub(2 + detail));
    let buf = frame.buffer_mut();
    if detail > 0 && inner.height > 2 + detail {
        let at = Rect::new(inner.x, inner.bottom() - 1 - detail, inner.width, detail);
        payoff_detail(view, theme, buf, at);
    }
    match view.table {
        Table::SuperKernels => superkernels(view, theme, buf, inner, rows),
        Table::Types => types(view, theme, buf, inner, rows),
        Table::Segments => segments(view, theme, buf, inner, rows),
        Table::Breaks => breaks(view, theme, buf, inner, rows),
    }
    let keymap = &app.config.keymap;
    let mut hints = vec![
        (Action::Activate, "show in the graph"),
        (Action::NextPane, "next table"),
    ];
    match view.table {
        Table::Types => hints.push((Action::Sort, "sort")),
        Table::SuperKernels => hints.push((Action::Prune, "prune")),
        _ => {}
    }
    if view.diff.steps.is_some() {
        hints.push((Action::PickStep, "step"));
    }
    if view.ranks.is_some() {
        hints.push((Action::PickRank, "rank"));
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
    match view.table {
        Table::Breaks => {}
        Table::SuperKernels => spans.push(Span::styled(
            "▁…█ each occurrence: with ÷ without (▄ the same)",
            theme.get(Role::Dim),
        )),
        _ => spans.push(Span::styled("▀ base ▄ new", theme.get(Role::Dim))),
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
    let sort = match view.table {
        Table::Types => format!(" · sorted by {}", view.sort.title()),
        Table::SuperKernels => " · worst first".to_string(),
        _ => String::new(),
    };
    let step = view
        .step
        .as_deref()
        .map(|s| format!(" · step {}", sanitize(s)))
        .unwrap_or_default();
    let rank = match (&view.ranks, view.request.rank) {
        (Some(all), Some(r)) => format!(
            " · rank {r} of {}{}",
            all.ranks.len(),
            if all.slowest_rank == Some(r) {
                " (the slowest)"
            } else {
                ""
            }
        ),
        _ => String::new(),
    };
    let classes = match (&view.diff.payoffs, view.table) {
        (Some(p), Table::SuperKernels) => {
            let counts: Vec<String> = p.classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
            format!(" · {}", counts.join(", "))
        }
        _ => String::new(),
    };
    format!(" {}{sort}{classes}{step}{rank} ", tabs.join(" "))
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
    let bound = if view.request.made_with.is_some() {
        " · bound to the plan its run used"
    } else {
        ""
    };
    let title = format!(
        " Profiles · {}{bound}{stale} ",
        sanitize(&view.request.describe())
    );
    let block = pane_block(title, false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let benefit = crate::profile::output::benefit_words(d);
    // At 80 columns the figures lose their padding, so what follows them still shows.
    let narrow = inner.width < 100;
    let part = |label: &str, p: &crate::profile::Part| -> Vec<Span<'static>> {
        let figures = if narrow {
            format!("{:.2} → {:.2} µs ", p.base_us, p.new_us)
        } else {
            format!("{:>10.2} µs → {:>10.2} µs   ", p.base_us, p.new_us)
        };
        vec![
            Span::styled(format!("{label:<11}"), theme.get(Role::Title)),
            Span::raw(figures),
            Span::styled(
                format!("{} µs ({})", delta(p.delta_us), pct(p.change_pct)),
                theme.get(delta_role(p.delta_us)),
            ),
        ]
    };
    let mut total = match view.step_times() {
        Some((b, n)) => {
            let new = n.map_or(0.0, |n| n.kernels_us);
            let mut line = part("step", &crate::profile::Part::new(b.kernels_us, new));
            line.push(Span::styled(
                format!(
                    "   kernel time of step {} ({} picks another)",
                    sanitize(&b.step),
                    app.config.keymap.hint(Action::PickStep)
                ),
                theme.get(Role::Title),
            ));
            line
        }
        None => {
            let mut line = part(
                if d.steps.is_some() {
                    "per step"
                } else {
                    "total"
                },
                &crate::profile::Part::new(d.base_total_us, d.new_total_us),
            );
            line.push(Span::styled(
                format!("   {benefit}"),
                theme.get(Role::Title),
            ));
            line
        }
    };
    if view.step.is_some() {
        total.push(Span::styled(
            format!("   (every step: {benefit})"),
            theme.get(Role::Dim),
        ));
    }
    let span_line = match (view.step_times(), d.base_span_us, d.new_span_us) {
        (Some((b, n)), _, _) => b.span_us.zip(n.and_then(|n| n.span_us)),
        (None, Some(b), Some(n)) => Some((b, n)),
        _ => None,
    }
    .map(|(b, n)| {
        let mut line = part("span", &crate::profile::Part::new(b, n));
        line.push(Span::styled(
            "   first kernel's start → last kernel's end",
            theme.get(Role::Dim),
        ));
        line
    });
    let steps_line = d.steps.as_ref().map(|s| {
        let side = |label: &str, steps: &crate::profile::steps::Steps| {
            let far: Vec<&str> = steps.outliers().map(|t| t.step.as_str()).collect();
            format!(
                "{label} {} step(s), P10–P90 {:.2}–{:.2} µs{}",
                steps.list.len(),
                steps.kernels.p10_us,
                steps.kernels.p90_us,
                if far.is_empty() {
                    String::new()
                } else {
                    format!(" (far: step {})", sanitize(&far.join(", ")))
                }
            )
        };
        Line::from(vec![
            Span::styled(format!("{:<11}", "steps"), theme.get(Role::Title)),
            Span::styled(
                format!(
                    "{} · {} · {} shows one",
                    side("base", &s.base),
                    side("new", &s.new),
                    app.config.keymap.hint(Action::PickStep)
                ),
                theme.get(Role::Dim),
            ),
        ])
    });
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
    let notes = d
        .notes
        .iter()
        .chain(&a.notes)
        .map(|n| sanitize(n).into_owned())
        .collect::<Vec<_>>()
        .join(" · ");
    // The rest, then communication on the same line (it is in neither part).
    rest.push(Span::styled(
        match &d.communication {
            Some(c) => {
                let total = |s: Option<crate::profile::Side>| s.map_or(0.0, |s| s.total_us);
                format!(
                    "   {basis} · comm. {:.2} → {:.2} µs (HCCL: not in the totals)",
                    total(c.base),
                    total(c.new)
                )
            }
            None => format!("   {basis} · no communication kernels"),
        },
        theme.get(Role::Dim),
    ));
    let mut lines = vec![Line::from(total)];
    lines.extend(span_line.map(Line::from));
    lines.extend(steps_line);
    // The SuperKernels by decoder layer, when names carry layers, before the notes.
    let layers: Vec<Span> = d
        .payoffs
        .iter()
        .flat_map(|p| &p.layers)
        .enumerate()
        .flat_map(|(i, l)| {
            let mut spans = vec![Span::styled(
                format!(
                    "{}layer {} {:.1}→{:.1}",
                    if i == 0 { "by layer   " } else { " · " },
                    sanitize(&l.layer),
                    l.base_us,
                    l.new_us
                ),
                theme.get(Role::Dim),
            )];
            if l.regressed > 0 {
                spans.push(Span::styled(
                    format!(" ✗{}", l.regressed),
                    theme.get(Role::Error),
                ));
            }
            spans
        })
        .collect();
    let mut last = layers;
    if !notes.is_empty() {
        if !last.is_empty() {
            last.push(Span::raw(" · "));
        }
        last.push(Span::styled(notes, theme.get(Role::Warning)));
    }
    lines.extend([Line::from(fused), Line::from(rest), Line::from(last)]);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The items of `v` whose place `shown` keeps (a narrow table's columns and cells).
fn only<T>(v: Vec<T>, shown: impl Fn(usize) -> bool) -> Vec<T> {
    v.into_iter()
        .enumerate()
        .filter(|(i, _)| shown(*i))
        .map(|(_, c)| c)
        .collect()
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
    let columns = only(columns, shown);
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
        let texts = only(texts, shown);
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

/// Each occurrence's with ÷ without as a bar from `▁` (half or less) through `▄` (the same)
/// to `█` (one and a half or more), at most `width` of them.
fn sparkline(p: &Payoff, width: usize) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    p.occurrences
        .iter()
        .filter_map(|o| Some(o.new_us? / o.base_us.filter(|b| *b > 0.0)?))
        .take(width)
        .map(|ratio| {
            // 0.5 → ▁, 1.0 → between ▄ and ▅, 1.5 → █.
            let at = ((ratio - 0.5) * 8.0).floor().clamp(0.0, 7.0) as usize;
            BARS[at]
        })
        .collect()
}

/// Under the SuperKernels table: the selected one's payoff and why, then what its time is made
/// of and the breaks of its scope.
fn payoff_detail(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect) {
    let Some(p) = view.payoff_row(view.selected()) else {
        return;
    };
    let (mark, role) = payoff_mark(p.class);
    put(
        buf,
        area.x,
        area.y,
        area.width,
        &format!(
            "{mark} {}: {} — {}",
            sanitize(&p.segment),
            p.class.words(),
            sanitize(&p.why)
        ),
        theme.get(role),
    );
    let share = match (p.base_kernels, p.gap_us, p.base) {
        _ if p.sub_ops == 1 => {
            "one sub-op: no gap to remove, the SuperKernel's entry is all it adds".to_string()
        }
        (Some(k), Some(g), Some(b)) if b.median_us > 0.0 => {
            let gaps = g / b.median_us * 100.0;
            format!(
                "without: kernels {:.2} µs + gaps {:.2} µs ({gaps:.0} %) · {}",
                k.median_us,
                g,
                if gaps >= 15.0 {
                    "its gaps are what fusion removes"
                } else {
                    "its kernels are most of it: faster kernels help more than more fusion"
                }
            )
        }
        _ => "without: no interval measured".to_string(),
    };
    let breaks: Vec<&str> = view
        .diff
        .per_op
        .iter()
        .flat_map(|o| &o.breaks)
        .filter(|b| b.scope == p.scope)
        .map(|b| b.op.as_str())
        .collect();
    let layer = p
        .layer
        .as_deref()
        .map(|l| format!(" (layer {})", sanitize(l)))
        .unwrap_or_default();
    let next_to = if breaks.is_empty() {
        String::new()
    } else {
        format!(
            " · breaks in {}: {}",
            sanitize(&p.scope),
            sanitize(&breaks.join(", "))
        )
    };
    let ranks = view
        .across_ranks(&p.segment)
        .map(|a| {
            let regressed: Vec<String> = a.regressed_ranks.iter().map(u32::to_string).collect();
            format!(
                "across {} ranks: median Δ {} µs{}{} · ",
                a.ranks_measured,
                a.median_delta_us.map_or("—".to_string(), delta),
                a.slowest
                    .map(|(r, us)| format!(", slowest rank {r} ({us:.2} µs)"))
                    .unwrap_or_default(),
                if regressed.is_empty() {
                    String::new()
                } else {
                    format!(", regressed on rank {}", regressed.join(", "))
                }
            )
        })
        .unwrap_or_default();
    put(
        buf,
        area.x,
        area.y + 1,
        area.width,
        &format!(
            "{ranks}{} sub-op(s) of {}{layer} · {share}{next_to}",
            p.sub_ops,
            sanitize(&p.scope)
        ),
        theme.get(Role::Dim),
    );
}

/// The payoff's glyph (readable without colour) and role.
fn payoff_mark(class: PayoffClass) -> (&'static str, Role) {
    match class {
        PayoffClass::Beneficial => ("✓", Role::Good),
        PayoffClass::Neutral => ("=", Role::Dim),
        PayoffClass::Regressed => ("✗", Role::Error),
        PayoffClass::InsufficientEvidence => ("?", Role::Warning),
    }
}

fn superkernels(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    let Some(payoffs) = &view.diff.payoffs else {
        return needs_kernels(buf, area, theme);
    };
    let narrow = area.width < 100;
    let mut columns: Vec<Column> = vec![
        (" ", 1, false),
        ("superkernel", if narrow { 20 } else { 26 }, false),
        ("ops", 3, true),
        ("occ", 5, true),
        ("without µs", 10, true),
        ("gaps", 4, true),
        ("with µs", 9, true),
        ("Δ µs", 10, true),
        ("change", 9, true),
        ("payoff", 10, false),
        ("action", 8, false),
    ];
    // At 80 columns: no occurrences, gaps or change, so the payoff and its action show.
    let shown = |i: usize| !(narrow && matches!(i, 3 | 5 | 8));
    columns = only(columns, shown);
    let x = cells(
        buf,
        area,
        area.y,
        &columns,
        &columns
            .iter()
            .map(|(h, _, _)| (h.to_string(), theme.get(Role::Title)))
            .collect::<Vec<_>>(),
    );
    if x < area.right() {
        put(
            buf,
            x,
            area.y,
            area.right() - x,
            "with ÷ without, each occurrence",
            theme.get(Role::Title),
        );
    }
    for (y, style, &index) in shown_rows(
        &view.payoff_order,
        view,
        Table::SuperKernels,
        rows,
        theme,
        buf,
        area,
    ) {
        let p = &payoffs.list[index];
        let (mark, role) = payoff_mark(p.class);
        let (without, with) = view.step_occurrences(p);
        let delta_us = with.zip(without).map(|(n, b)| n - b);
        let change = delta_us
            .zip(without)
            .filter(|(_, b)| *b != 0.0)
            .map(|(d, b)| d / b * 100.0);
        let gaps = p
            .gap_us
            .zip(p.base.map(|b| b.median_us))
            .filter(|(_, b)| *b > 0.0)
            .map_or("·".to_string(), |(g, b)| format!("{:.0}%", g / b * 100.0));
        let time = |v: Option<f64>| v.map_or("·".to_string(), |v| format!("{v:.2}"));
        let texts = only(
            vec![
                (mark.to_string(), style.patch(theme.get(role))),
                (sanitize(&p.segment).into_owned(), style),
                (p.sub_ops.to_string(), style),
                (
                    format!(
                        "{}/{}",
                        p.base.map_or(0, |s| s.count),
                        p.new.map_or(0, |s| s.count)
                    ),
                    style,
                ),
                (time(without), style),
                (gaps, style),
                (time(with), style),
                (
                    delta_us.map_or("—".to_string(), delta),
                    style.patch(theme.get(delta_role(delta_us.unwrap_or(0.0)))),
                ),
                (pct(change), style),
                (
                    match p.class {
                        PayoffClass::InsufficientEvidence => "too few".to_string(),
                        c => c.words().to_string(),
                    },
                    style.patch(theme.get(role)),
                ),
                (p.action.words().to_string(), style),
            ],
            shown,
        );
        let x = cells(buf, area, y, &columns, &texts);
        let width = usize::from(area.right().saturating_sub(x));
        if width >= 4 {
            put(buf, x, y, area.right() - x, &sparkline(p, width), style);
        }
    }
    if payoffs.list.is_empty() {
        put(
            buf,
            area.x,
            area.y + 1,
            area.width,
            "no segment in the plan: no SuperKernel to judge",
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
