//! The code view: the generated entry code of the selected op's segment, highlighted, with
//! line numbers; the selected op's lines stand out, the cursor line is marked, and the bottom
//! border says what the cursor's line does (which op it calls, which dependency a barrier
//! serves). Comparing with the compiler's source, a column marks the lines only skope's
//! prediction has (`-`) and those only the compiler wrote (`+`).

use super::pane_block;
use crate::codegen::Form;
use crate::codegen::compare::Change;
use crate::text::sanitize;
use crate::tui::code_view::{CodeView, describe};
use crate::tui::explorer::{Explorer, Pane};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Draws the code view in `area`.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(view) = &ex.code else {
        return;
    };
    let focused = ex.focus == Pane::Details;
    let title = match (&view.code, &view.comparison) {
        (Some(_), Some(comparison)) if view.comparing => format!(
            " Code vs {} · -{} +{} ",
            sanitize(&short_name(&comparison.file)),
            comparison.predicted,
            comparison.written,
        ),
        (Some(code), _) => format!(
            " Code · {} · {} × {}{}{} ",
            sanitize(&code.file_name()),
            code.kernel.kernel_type.name(),
            code.kernel.block_dim,
            match code.form {
                Form::SingleStream => "",
                Form::TwoStream => " · two-stream",
            },
            if view.shift > 0 {
                format!(" · from column {}", view.shift + 1)
            } else {
                String::new()
            }
        ),
        (None, _) => " Code ".to_string(),
    };
    let footer = match (&view.note, &view.code) {
        (Some(note), _) => note.clone(),
        (None, Some(_)) => {
            let what = describe(&ex.ws, view.origin_at_cursor());
            match view.change(view.cursor) {
                Some(Change::Predicted) => format!("only in skope's code · {what}"),
                Some(Change::Written) => format!("only in the compiler's source · {what}"),
                _ => what,
            }
        }
        (None, None) => String::new(),
    };
    let block = pane_block(title, focused, theme)
        .title_bottom(Line::styled(format!(" {footer} "), theme.get(Role::Dim)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if view.code.is_none() {
        let text = view
            .note
            .clone()
            .unwrap_or_else(|| "select an op of a segment to see its code".to_string());
        frame.render_widget(
            Paragraph::new(Line::styled(text, theme.get(Role::Dim))),
            inner,
        );
        return;
    }
    let height = usize::from(inner.height);
    let scroll = view.scroll.min(view.line_count().saturating_sub(height));
    let gutter = view.line_count().to_string().len();
    let lines: Vec<Line> = view
        .text()
        .lines()
        .enumerate()
        .skip(scroll)
        .take(height)
        .map(|(n, text)| line(view, theme, focused, gutter, n, text))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The file name of `path`, its middle left out when long (real entry sources carry a
/// 64-digit hash).
fn short_name(path: &std::path::Path) -> String {
    const HEAD: usize = 18;
    const TAIL: usize = 12;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= HEAD + TAIL + 1 {
        return name;
    }
    let head: String = chars[..HEAD].iter().collect();
    let tail: String = chars[chars.len() - TAIL..].iter().collect();
    format!("{head}…{tail}")
}

/// `spans` without their first `n` characters (the code scrolled sideways).
fn skip_columns(spans: Vec<Span<'_>>, mut n: usize) -> Vec<Span<'_>> {
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        if n == 0 {
            out.push(span);
            continue;
        }
        let chars = span.content.chars().count();
        if chars <= n {
            n -= chars;
            continue;
        }
        let rest: String = span.content.chars().skip(n).collect();
        n = 0;
        out.push(Span::styled(rest, span.style));
    }
    out
}

/// Line `n` of the code: number, then the text in its highlighting roles, raised when it
/// belongs to the selected op and marked when the cursor is on it.
fn line<'a>(
    view: &CodeView,
    theme: &Theme,
    focused: bool,
    gutter: usize,
    n: usize,
    text: &'a str,
) -> Line<'a> {
    let origin = view.origin(n);
    let mine = origin.op().is_some() && origin.op() == view.focus_op();
    let mut extra = Style::new();
    if mine {
        extra = extra.patch(theme.get(Role::CodeFocus));
    }
    if n == view.cursor {
        extra = extra.patch(theme.get(if focused {
            Role::Selection
        } else {
            Role::SelectionInactive
        }));
    }
    let marker = if mine { "▌" } else { " " };
    let mut spans = vec![
        Span::styled(format!("{:>gutter$}", n + 1), theme.get(Role::Dim)),
        Span::styled(
            marker,
            theme.get(Role::CodeFocus).patch(theme.get(Role::Key)),
        ),
    ];
    match view.change(n) {
        Some(Change::Same) => spans.push(Span::raw("  ")),
        Some(Change::Predicted) => spans.push(Span::styled("- ", theme.get(Role::Error))),
        Some(Change::Written) => spans.push(Span::styled("+ ", theme.get(Role::Good))),
        None => {}
    }
    let code: Vec<Span<'a>> = match view.spans(n) {
        Some(parts) => parts
            .iter()
            .filter_map(|(range, role)| {
                text.get(range.clone())
                    .map(|t| Span::styled(t, theme.get(*role).patch(extra)))
            })
            .collect(),
        None => vec![Span::styled(text, extra)],
    };
    spans.extend(skip_columns(code, view.shift));
    if n == view.cursor && text.is_empty() {
        spans.push(Span::styled(" ", extra));
    }
    Line::from(spans)
}
