//! The profile view: the comparison's totals and attribution on top, then one of three tables
//! — op types side by side with a bar per row (`▀` base over `▄` new), segments in the base
//! and the new profile, breaks by what the unfused ops around them cost. Every delta carries a
//! sign and an arrow, so nothing depends on colour.

use super::state::{ProfileView, Table, table_index};
use crate::profile::output::{delta, delta_micros as micros_delta, micros, pct};
use crate::profile::payoff::{Payoff, PayoffClass};
use crate::profile::{FusedEvidence, Side};
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::profile_parts;
use crate::tui::list::Selection;
use crate::tui::theme::{Role, Theme};
use crate::tui::views::{pane_block, put};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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
        Table::Waterfall => waterfall(view, theme, buf, inner, rows),
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
    let legend = match view.table {
        Table::Breaks => "",
        Table::Waterfall => "█ total ░ less time ▓ more time",
        Table::SuperKernels => "▁…█ each occurrence: with ÷ without (▄ the same)",
        Table::Types => "▀ base ▄ new",
    };
    // The legend whole or not at all: a cut one would read as a bar.
    let used: usize = spans.iter().map(Span::width).sum();
    if used + Span::raw(legend).width() <= usize::from(inner.width) {
        spans.push(Span::styled(legend, theme.get(Role::Dim)));
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
    // What the run predicted before it ran, against what it measured; the paths give way to
    // it, and on a narrow screen so do the words that the plan is the run's (a prediction is
    // recorded with its run only).
    let foresight = view
        .foresight
        .as_ref()
        .map(|f| format!(" · predicted before the run: {}", f.cell()))
        .unwrap_or_default();
    let bound = match view.request.made_with {
        Some(_) if foresight.is_empty() || area.width >= 100 => " · bound to the plan its run used",
        _ => "",
    };
    let after = bound.chars().count() + foresight.chars().count();
    let room = usize::from(area.width).saturating_sub(after + 15).max(6);
    let paths = sanitize(&view.request.describe()).into_owned();
    let title = format!(
        " Profiles · {}{bound}{foresight} ",
        crate::text::cut_middle(&paths, room)
    );
    let block = pane_block(title, false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let account = &d.account;
    let change = crate::profile::output::change_words(account);
    // At 80 columns the figures lose their padding, so what follows them still shows.
    let narrow = inner.width < 100;
    let figures = |base: String, new: String, delta_ns: i64, label: &str| -> Vec<Span<'static>> {
        let figures = if narrow {
            format!("{base} → {new} µs ")
        } else {
            format!("{base:>10} µs → {new:>10} µs   ")
        };
        vec![
            Span::styled(format!("{label:<11}"), theme.get(Role::Title)),
            Span::raw(figures),
            Span::styled(
                format!("{} µs", micros_delta(delta_ns)),
                theme.get(Role::of_delta(delta_ns as f64 / 1000.0)),
            ),
        ]
    };
    let part = |label: &str, p: &crate::profile::Part| -> Vec<Span<'static>> {
        let ns = |us: f64| (us * 1000.0).round() as i64;
        let mut line = figures(
            micros(ns(p.base_us)),
            micros(ns(p.new_us)),
            ns(p.delta_us),
            label,
        );
        line.push(Span::styled(
            format!(" ({})", pct(p.change_pct)),
            theme.get(Role::of_delta(p.delta_us)),
        ));
        line
    };
    let measure = account.measure.name();
    let total = match view.step_times() {
        Some((b, n)) => {
            let pick = |t: &crate::profile::steps::StepTime| match account.measure {
                crate::profile::account::Measure::StepTime => t.span_us.unwrap_or(t.kernels_us),
                crate::profile::account::Measure::BusyTime => t.kernels_us,
            };
            let ns = |us: f64| (us * 1000.0).round() as i64;
            let (base, new) = (ns(pick(b)), n.map_or(0, |n| ns(pick(n))));
            let mut line = figures(micros(base), micros(new), new - base, measure);
            line.push(Span::styled(
                format!(
                    "   step {} ({} picks another) · every step: {change}",
                    sanitize(&b.step),
                    app.config.keymap.hint(Action::PickStep)
                ),
                theme.get(Role::Title),
            ));
            line
        }
        None => {
            let mut line = figures(
                micros(account.base.mean_ns),
                micros(account.new.mean_ns),
                account.delta_ns(),
                measure,
            );
            line.push(Span::styled(format!("   {change}"), theme.get(Role::Title)));
            line
        }
    };
    let basis_line = Line::from(vec![
        Span::styled(format!("{:<11}", ""), theme.get(Role::Title)),
        Span::styled(
            crate::profile::output::headline_basis(account),
            theme.get(Role::Dim),
        ),
    ]);
    let steps_line = d.steps.as_ref().map(|s| {
        let side = |label: &str, steps: &crate::profile::steps::Steps, left: &[String]| {
            let spread = match (&steps.span, account.measure) {
                (Some(span), crate::profile::account::Measure::StepTime) => span,
                _ => &steps.kernels,
            };
            format!(
                "{label} {} step(s), P10–P90 {:.2}–{:.2} µs{}",
                steps.list.len(),
                spread.p10_us,
                spread.p90_us,
                if left.is_empty() {
                    String::new()
                } else {
                    format!(" (left out: step {})", sanitize(&left.join(", ")))
                }
            )
        };
        Line::from(vec![
            Span::styled(format!("{:<11}", "steps"), theme.get(Role::Title)),
            Span::styled(
                format!(
                    "{} · {} · {} shows one",
                    side("base", &s.base, &account.base.left_out),
                    side("new", &s.new, &account.new.left_out),
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
    let mut fused = part("fused busy", &a.fused);
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
    let mut rest = part("rest busy", &a.rest);
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
                    "   {basis} · comm. {:.2} → {:.2} µs busy (HCCL, apart)",
                    total(c.base),
                    total(c.new)
                )
            }
            None => format!("   {basis} · no communication kernels"),
        },
        theme.get(Role::Dim),
    ));
    let mut lines = vec![Line::from(total), basis_line];
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
                    "{}layer {} {}→{}",
                    if i == 0 { "by layer   " } else { " · " },
                    sanitize(&l.layer),
                    crate::profile::output::fixed(l.base_us, 2),
                    crate::profile::output::fixed(l.new_us, 2)
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
    let mut last = Vec::new();
    if let Some(drift) = view.drift_words() {
        last.push(Span::styled(drift, theme.get(Role::Warning)));
        if !layers.is_empty() {
            last.push(Span::raw(" · "));
        }
    }
    last.extend(layers);
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
        .skip(view.tables[i].selection.offset)
        .take(rows)
        .map(|(n, item)| {
            let y = area.y + 1 + (n - view.tables[i].selection.offset) as u16;
            let style = row_style(n == view.tables[i].selection.selected, theme);
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
    for (y, base_style, &index) in shown_rows(
        view.tables[table_index(Table::Types)].order(),
        view,
        Table::Types,
        rows,
        theme,
        buf,
        area,
    ) {
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
                base_style.patch(theme.get(Role::of_delta(r.delta_us))),
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
            p.verdict(),
            sanitize(&p.why)
        ),
        theme.get(role),
    );
    // The prediction made before the run, then why it did not pay.
    let mut third: Vec<String> = view
        .foresight
        .as_ref()
        .and_then(|f| f.of(&p.fused_node))
        .map(|c| {
            let measured = c
                .measured_us
                .map_or("the run did not build it".to_string(), |m| {
                    format!("measured {}", micros_delta((-m * 1000.0).round() as i64))
                });
            let off = c
                .error_pct
                .map(|_| format!(": {} off", c.error()))
                .unwrap_or_default();
            format!(
                "predicted before the run {} ({}) {}, {measured}{off}",
                c.predicted_delta(),
                c.range(),
                c.predicted.class.words()
            )
        })
        .into_iter()
        .collect();
    if !p.why_not.is_empty() {
        let lines: Vec<String> = p
            .why_not
            .iter()
            .map(crate::profile::output::why_not_line)
            .collect();
        third.push(format!("why not: {}", lines.join(" · ")));
    }
    if !third.is_empty() {
        put(
            buf,
            area.x,
            area.y + 2,
            area.width,
            &sanitize(&third.join(" · ")),
            theme.get(role),
        );
    }
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
    // Δ/step is its part of the waterfall; without, with and Δ the median occurrence's (the
    // step picked shows that step's).
    let mut columns: Vec<Column> = vec![
        (" ", 1, false),
        ("superkernel", if narrow { 20 } else { 24 }, false),
        ("ops", 3, true),
        ("occ", 5, true),
        ("Δ/step", 9, true),
        ("predicted", 9, true),
        ("without µs", 10, true),
        ("with µs", 9, true),
        ("Δ µs", 10, true),
        ("change", 9, true),
        ("payoff", 10, false),
        ("action", 8, false),
    ];
    // At 80 columns: no occurrences, per-step change, prediction or percentage, so the payoff
    // and its action show. The prediction only when the run recorded one.
    let foresight = view.foresight.as_ref();
    let shown =
        |i: usize| !(narrow && matches!(i, 3 | 4 | 5 | 9)) && (i != 5 || foresight.is_some());
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
        view.tables[table_index(Table::SuperKernels)].order(),
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
        let per_step = view
            .diff
            .account
            .superkernel(&p.fused_node)
            .map(|part| part.delta_ns);
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
                (
                    per_step.map_or("—".to_string(), micros_delta),
                    style.patch(theme.get(Role::of_delta(per_step.unwrap_or(0) as f64 / 1000.0))),
                ),
                (
                    foresight
                        .and_then(|f| f.of(&p.fused_node))
                        .map_or("·".to_string(), |c| c.predicted_delta()),
                    style,
                ),
                (time(without), style),
                (time(with), style),
                (
                    delta_us.map_or("—".to_string(), delta),
                    style.patch(theme.get(Role::of_delta(delta_us.unwrap_or(0.0)))),
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

/// One line of the waterfall: its four cells, its bar and the bar's role.
type WaterfallLine = ([(String, Style); 4], String, Role);

/// The waterfall: the base's step time, each part's change (biggest first) as a bar from
/// where the parts before it left the total to where it leaves it, and the new step time —
/// `█` a total, `░` time a part removes, `▓` time it adds — on an axis that starts near the
/// smallest total, so that changes of a few µs in hundreds still show.
fn waterfall(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    let account = &view.diff.account;
    if account.waterfall.is_empty() {
        return needs_kernels(buf, area, theme);
    }
    let narrow = area.width < 100;
    let columns: Vec<Column> = vec![
        ("part", if narrow { 24 } else { 36 }, false),
        ("without µs", 10, true),
        ("with µs", 9, true),
        ("Δ µs", 10, true),
    ];
    // Where each part (in the order shown) starts and ends, from the base's total down.
    let mut at = account.base.mean_ns;
    let mut steps: Vec<(i64, i64)> = Vec::new();
    let order = view.tables[table_index(Table::Waterfall)].order();
    for &i in order {
        let delta = account.waterfall[i].delta_ns;
        steps.push((at, at + delta));
        at += delta;
    }
    let lowest = steps
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .chain([account.base.mean_ns, account.new.mean_ns])
        .min()
        .unwrap_or(0);
    let highest = steps
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .chain([account.base.mean_ns, account.new.mean_ns])
        .max()
        .unwrap_or(0);
    // The axis: from a little under the lowest point, so the totals are long bars and the
    // changes are not lost in them.
    let room = (highest - lowest).max(1);
    let origin = (lowest - room / 4).max(0);
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
    let width = area.right().saturating_sub(x).min(48);
    if width >= 8 {
        put(
            buf,
            x,
            area.y,
            width,
            &format!("from {} µs", micros(origin)),
            theme.get(Role::Title),
        );
    }
    let scale = |ns: i64| -> u16 {
        let span = (highest - origin).max(1) as f64;
        (((ns - origin).max(0) as f64 / span) * f64::from(width)).round() as u16
    };
    let bar = |from: i64, to: i64, glyph: char| -> String {
        let (a, b) = (scale(from.min(to)), scale(from.max(to)));
        let b = b.max(a + 1).min(width);
        (0..b).map(|i| if i < a { ' ' } else { glyph }).collect()
    };
    // The rows: the base's total, the parts in order, the new total.
    let total_row = |label: String, ns: i64| -> [(String, Style); 4] {
        let style = theme.get(Role::Title);
        [
            (label, style),
            (micros(ns), style),
            (String::new(), style),
            (String::new(), style),
        ]
    };
    let measure = account.measure.name();
    let mut lines: Vec<WaterfallLine> = vec![(
        total_row(
            format!("{measure} without SuperKernel"),
            account.base.mean_ns,
        ),
        bar(origin, account.base.mean_ns, '█'),
        Role::Title,
    )];
    for (k, &i) in order.iter().enumerate() {
        let p = &account.waterfall[i];
        let name = match p.kind {
            crate::profile::account::PartKind::Superkernel => {
                format!("SuperKernel {}", sanitize(&p.name))
            }
            _ => p.name.clone(),
        };
        let role = Role::of_delta(p.delta_ns as f64 / 1000.0);
        let (from, to) = steps[k];
        let glyph = if p.delta_ns < 0 { '░' } else { '▓' };
        lines.push((
            [
                (name, Style::new()),
                (micros(p.base_ns), Style::new()),
                (micros(p.new_ns), Style::new()),
                (micros_delta(p.delta_ns), theme.get(role)),
            ],
            bar(from, to, glyph),
            role,
        ));
    }
    let mut last = total_row(format!("{measure} with SuperKernel"), account.new.mean_ns);
    last[2] = (micros(account.new.mean_ns), theme.get(Role::Title));
    last[1] = (String::new(), theme.get(Role::Title));
    last[3] = (
        micros_delta(account.delta_ns()),
        theme.get(Role::of_delta(account.delta_ns() as f64 / 1000.0)),
    );
    lines.push((last, bar(origin, account.new.mean_ns, '█'), Role::Title));
    // The view's rows are the parts; the totals frame them (first and last row), and the
    // parts between scroll so the selected one shows.
    let index = table_index(Table::Waterfall);
    let Selection { selected, offset } = view.tables[index].selection;
    let visible = rows.saturating_sub(2).max(1);
    let offset = offset.max((selected + 1).saturating_sub(visible));
    let parts = lines.len() - 2;
    let shown: Vec<usize> = std::iter::once(0)
        .chain((1 + offset..=parts).take(visible))
        .chain(std::iter::once(lines.len() - 1))
        .take(rows)
        .collect();
    for (row, &n) in shown.iter().enumerate() {
        let (texts, bar, role) = &lines[n];
        let y = area.y + 1 + row as u16;
        let style = if n > 0 && n <= parts && n - 1 == selected {
            theme.get(Role::Selection)
        } else {
            Style::new()
        };
        buf.set_style(Rect::new(area.x, y, area.width, 1), style);
        let texts: Vec<(String, Style)> = texts
            .iter()
            .map(|(t, s)| (t.clone(), style.patch(*s)))
            .collect();
        let x = cells(buf, area, y, &columns, &texts);
        if width >= 8 {
            put(buf, x, y, width, bar, style.patch(theme.get(*role)));
        }
    }
}

fn breaks(view: &ProfileView, theme: &Theme, buf: &mut Buffer, area: Rect, rows: usize) {
    let Some(per_op) = &view.diff.per_op else {
        return needs_kernels(buf, area, theme);
    };
    let reason_width = area
        .width
        .saturating_sub(24 + 12 + 9 + 9 + 9 + 10 + 9 + 7)
        .max(10);
    // The CLI's words: a break's cost (a step), then what it is made of — the unfused ops
    // running and waiting to launch.
    let columns: Vec<Column> = vec![
        ("break", 24, false),
        ("scope", 12, false),
        ("unfused", 9, true),
        ("cost µs", 9, true),
        ("running", 9, true),
        ("waiting", 10, true),
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
            (format!("{:.2}", b.cost_us()), style),
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
