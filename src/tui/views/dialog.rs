//! Questions over the screen: the picker (scopes, compile recipes, ranks) and yes/no-style
//! confirmations.

use crate::text::sanitize;
use crate::tui::dialog::{Dialog, Picker, Width};
use crate::tui::layout::centred;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Wrap};

fn frame<'a>(title: String, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.get(Role::BorderFocused))
        .title(Span::styled(title, theme.get(Role::Title)))
}

/// Draws `dialog` over `area`.
pub fn render<A>(dialog: &Dialog<A>, theme: &Theme, frame_: &mut Frame, area: Rect) {
    match dialog {
        Dialog::Confirm(confirm) => {
            let mut lines: Vec<Line> = vec![
                Line::from(sanitize(&confirm.question).into_owned()),
                Line::from(""),
            ];
            let mut answers = Vec::new();
            for answer in &confirm.answers {
                answers.push(Span::styled(
                    format!(" {} ", answer.key),
                    theme.get(Role::Key),
                ));
                answers.push(Span::raw(format!("{}   ", answer.words)));
            }
            lines.push(Line::from(answers));
            let width = area.width.saturating_sub(8).min(72);
            let text_rows = confirm.question.chars().count() / usize::from(width.max(10) - 2) + 1;
            let popup = centred(area, width, text_rows as u16 + 5);
            frame_.render_widget(Clear, popup);
            frame_.render_widget(
                Paragraph::new(lines)
                    .block(frame(" Question ".into(), theme))
                    .wrap(Wrap { trim: true }),
                popup,
            );
        }
        Dialog::Pick(picker) => picker_view(picker, theme, frame_, area),
    }
}

fn picker_view<A>(picker: &Picker<A>, theme: &Theme, frame_: &mut Frame, area: Rect) {
    let shown = picker.shown();
    let wide = picker.width == Width::Wide;
    let width = area.width.saturating_sub(8).min(match picker.width {
        Width::Wide => 110,
        Width::Medium => 90,
        Width::Narrow => 60,
    });
    // More about the selected row; a wide picker's is its whole text, wrapped (the rows
    // above are cut at the edge).
    let about: Vec<String> = shown
        .get(picker.selected)
        .map(|pick| {
            pick.about
                .iter()
                .flat_map(|text| {
                    if wide {
                        crate::tui::layout::wrap(
                            &sanitize(text),
                            usize::from(width.saturating_sub(2)),
                        )
                    } else {
                        vec![sanitize(text).into_owned()]
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let extra = about.len() as u16 + u16::from(!about.is_empty());
    let height = area
        .height
        .saturating_sub(4)
        .min(shown.len() as u16 + 5 + extra)
        .max(6);
    let popup = centred(area, width, height);
    let list_rows = usize::from(height.saturating_sub(5 + extra)).max(1);
    let start = picker.selected.saturating_sub(list_rows - 1);
    let mut lines = vec![
        Line::from(vec![
            Span::styled("› ", theme.get(Role::Key)),
            Span::raw(sanitize(&picker.filter).into_owned()),
            Span::styled("▏", theme.get(Role::Key)),
        ]),
        Line::from(""),
    ];
    if shown.is_empty() {
        lines.push(Line::from(Span::styled(
            picker.none_matches,
            theme.get(Role::Dim),
        )));
    }
    for (i, pick) in shown.iter().enumerate().skip(start).take(list_rows) {
        let style = if i == picker.selected {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::Text)
        };
        let mut row = vec![Span::styled(format!(" {} ", sanitize(&pick.text)), style)];
        if let Some((note, stands_out)) = &pick.note {
            let role = if *stands_out {
                Role::Warning
            } else {
                Role::Dim
            };
            row.push(Span::styled(
                format!(" {}", sanitize(note)),
                theme.get(role),
            ));
        }
        lines.push(Line::from(row));
    }
    if !about.is_empty() {
        lines.push(Line::from(""));
        for text in about {
            lines.push(Line::from(Span::styled(text, theme.get(Role::Dim))));
        }
    }
    lines.push(Line::from(Span::styled(
        "↑/↓ choose · enter pick · esc cancel · type to narrow",
        theme.get(Role::Dim),
    )));
    frame_.render_widget(Clear, popup);
    frame_.render_widget(
        Paragraph::new(lines).block(frame(picker.title.clone(), theme)),
        popup,
    );
}
