//! Questions over the screen: the picker (scopes, compile recipes, ranks) and yes/no-style
//! confirmations.

use crate::text::sanitize;
use crate::tui::dialog::{Dialog, PickFor, Picker};
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
pub fn render(dialog: &Dialog, theme: &Theme, frame_: &mut Frame, area: Rect) {
    match dialog {
        Dialog::Confirm(confirm) => {
            let mut lines: Vec<Line> = vec![
                Line::from(sanitize(&confirm.question).into_owned()),
                Line::from(""),
            ];
            let mut answers = Vec::new();
            for (key, words, _) in &confirm.answers {
                answers.push(Span::styled(format!(" {key} "), theme.get(Role::Key)));
                answers.push(Span::raw(format!("{words}   ")));
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

fn picker_view(picker: &Picker, theme: &Theme, frame_: &mut Frame, area: Rect) {
    let title = match &picker.purpose {
        PickFor::Assign(ops) => format!(" Put {} op(s) into a scope ", ops.len()),
        PickFor::Merge(scope) => format!(" Merge scope {} into ", sanitize(scope)),
        PickFor::Recipe(_) => " Run a recipe on the current plan ".to_string(),
        PickFor::Rank(_) => " The profiles hold several ranks: pick one ".to_string(),
        PickFor::Neighbour(_) => " Go to an op it takes from or gives to ".to_string(),
        PickFor::Message(texts) => format!(" The last {} message(s), newest first ", texts.len()),
        PickFor::Step(steps) => format!(
            " Show one of {} step(s): kernel time without → with SuperKernel ",
            steps.len().saturating_sub(1)
        ),
    };
    let shown = picker.shown();
    // For a recipe: what the selected one is and the command it runs.
    let about: Vec<String> = match &picker.purpose {
        PickFor::Recipe(recipes) => shown
            .get(picker.selected)
            .and_then(|name| recipes.iter().find(|p| p.name == *name))
            .map(|p| {
                vec![
                    sanitize(&p.about).into_owned(),
                    // As the user wrote it, with `{{`/`}}` (literal braces) shown as braces.
                    format!("$ {}", sanitize(&crate::compile::template::shown(&p.argv))),
                ]
            })
            .unwrap_or_default(),
        // A message: its whole text, wrapped (the rows above are cut at the edge).
        PickFor::Message(_) => shown
            .get(picker.selected)
            .map(|row| {
                let text = row.split_once(". ").map_or(*row, |(_, t)| t);
                crate::tui::layout::wrap(
                    &sanitize(text),
                    usize::from(area.width.saturating_sub(8).min(110).saturating_sub(2)),
                )
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let extra = about.len() as u16 + u16::from(!about.is_empty());
    let wide = matches!(picker.purpose, PickFor::Message(_));
    let width = area.width.saturating_sub(8).min(if wide {
        110
    } else if about.is_empty() && !matches!(picker.purpose, PickFor::Neighbour(_)) {
        60
    } else {
        90
    });
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
        let what = match picker.purpose {
            PickFor::Recipe(_) => "no recipe matches",
            PickFor::Rank(_) => "no rank matches",
            PickFor::Neighbour(_) => "no op matches",
            PickFor::Message(_) => "no message matches",
            _ => "no scope matches",
        };
        lines.push(Line::from(Span::styled(what, theme.get(Role::Dim))));
    }
    for (i, choice) in shown.iter().enumerate().skip(start).take(list_rows) {
        let style = if i == picker.selected {
            theme.get(Role::Selection)
        } else {
            theme.get(Role::Text)
        };
        let mut row = vec![Span::styled(format!(" {} ", sanitize(choice)), style)];
        // A recipe says where it comes from; one replacing a built-in stands out.
        if let PickFor::Recipe(recipes) = &picker.purpose
            && let Some(recipe) = recipes.iter().find(|p| p.name == *choice)
        {
            let role = if recipe.overrides {
                Role::Warning
            } else {
                Role::Dim
            };
            row.push(Span::styled(
                format!(" {}", sanitize(&recipe.origin())),
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
    frame_.render_widget(Paragraph::new(lines).block(frame(title, theme)), popup);
}
