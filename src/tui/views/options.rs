//! The options editor, drawn where the details pane is: the raw options string (with its first
//! problem in the compiler's words), every option of the schema with its value and default,
//! and what the selected option does.

use super::pane_block;
use crate::fusion::options::{OptionKind, SkOptions};
use crate::report::values_text;
use crate::text::sanitize;
use crate::tui::options_editor::{OptionsEditor, Row};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

/// Rows kept for the selected option's description.
const DESCRIPTION: u16 = 4;

/// Draws the editor in `area`.
pub fn render(editor: &OptionsEditor, theme: &Theme, frame: &mut Frame, area: Rect) {
    let target = editor.target;
    let title = format!(
        " Options · scope {} · target {target} ({}) ",
        sanitize(&editor.scope),
        target.hardware()
    );
    let block = pane_block(title, true, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let typing = |row: Row| editor.input.as_ref().filter(|_| editor.selected() == row);
    // The raw string and its first problem.
    let mut head = vec![Line::from(vec![
        Span::styled(marker(editor, Row::Raw), theme.get(Role::Key)),
        Span::styled("raw  ", theme.get(Role::Dim)),
        match typing(Row::Raw) {
            Some(input) => Span::styled(format!("{}▏", sanitize(input)), theme.get(Role::Key)),
            None if editor.text.is_empty() => Span::styled("(none)", theme.get(Role::Dim)),
            None => Span::raw(sanitize(&editor.text).into_owned()),
        },
    ])];
    let parsed = SkOptions::parse(typing(Row::Raw).unwrap_or(&editor.text));
    if let Some(d) = parsed.diagnostics().first() {
        let more = parsed.diagnostics().len() - 1 + parsed.omitted();
        head.push(Line::from(Span::styled(
            format!(
                "  ! {}{} — GE: {}",
                d.message,
                if more > 0 {
                    format!(" (+{more} more)")
                } else {
                    String::new()
                },
                d.ge_message
            ),
            theme.get(Role::Error),
        )));
    }
    let head_rows = head.len() as u16;
    let desc_rows = DESCRIPTION.min(inner.height.saturating_sub(head_rows + 1));
    let list_rows = inner.height.saturating_sub(head_rows + desc_rows);
    frame.render_widget(
        Paragraph::new(head),
        Rect::new(inner.x, inner.y, inner.width, head_rows.min(inner.height)),
    );
    // The options, scrolled so the selected one shows.
    let fields = OptionsEditor::ROWS - 1;
    let visible = usize::from(list_rows);
    let selected_field = editor.row.saturating_sub(1);
    let start = selected_field
        .saturating_sub(visible.saturating_sub(1))
        .min(fields.saturating_sub(visible));
    let options = editor.parsed();
    let mut lines = Vec::new();
    for i in start..(start + visible).min(fields) {
        let row = OptionsEditor::row_at(i + 1);
        let Row::Field(spec) = row else { continue };
        let value = match typing(row) {
            Some(input) => Span::styled(format!("{}▏", sanitize(input)), theme.get(Role::Key)),
            None => match options.get(spec.key) {
                Some(v) => Span::styled(
                    sanitize(&v.to_string()).into_owned(),
                    theme.get(Role::Title),
                ),
                None => Span::styled("·", theme.get(Role::Dim)),
            },
        };
        let kind = if matches!(spec.kind, OptionKind::Choice(_)) {
            "◂▸"
        } else {
            "✎ "
        };
        lines.push(Line::from(vec![
            Span::styled(marker(editor, row), theme.get(Role::Key)),
            Span::raw(format!("{:<26}", spec.key)),
            Span::styled(format!("{kind} "), theme.get(Role::Dim)),
            value,
            Span::styled(
                format!(
                    "   default {}{}",
                    spec.default,
                    if spec.documented { "" } else { " · code only" }
                ),
                theme.get(Role::Dim),
            ),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines),
        Rect::new(inner.x, inner.y + head_rows, inner.width, list_rows),
    );
    // What the selected option does, or how to use the editor.
    let description = match editor.selected() {
        Row::Field(spec) => {
            let typed = typing(editor.selected()).and_then(|_| editor.input_error());
            let mut text = vec![Line::from(vec![
                Span::styled(format!("{}: ", spec.key), theme.get(Role::Title)),
                Span::raw(spec.meaning),
            ])];
            match typed {
                Some(e) => text.push(Line::from(Span::styled(
                    format!("✗ {} — GE: {}", e.message, e.ge_message),
                    theme.get(Role::Error),
                ))),
                None => text.push(Line::from(Span::styled(
                    format!("values: {}", values_text(spec)),
                    theme.get(Role::Dim),
                ))),
            }
            text
        }
        Row::Raw => vec![Line::from(Span::styled(
            "enter types the raw k=v:k=v string; on an option ◂▸ (h/l) cycles its value, enter \
             types one (✎), x unsets it; esc closes",
            theme.get(Role::Dim),
        ))],
    };
    frame.render_widget(
        Paragraph::new(description).wrap(Wrap { trim: true }),
        Rect::new(
            inner.x,
            inner.y + head_rows + list_rows,
            inner.width,
            desc_rows,
        ),
    );
}

fn marker(editor: &OptionsEditor, row: Row) -> &'static str {
    if editor.selected() == row {
        "› "
    } else {
        "  "
    }
}
