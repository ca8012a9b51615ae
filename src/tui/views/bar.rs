//! The bottom line: the prompt while one is open, else the last message, else the key bar —
//! generated from the keymap, so it always shows the keys that work.

use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::{App, PromptKind, Screen};
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The key bar's entries: actions (shown with their first key each) and a label.
const BAR: &[(&[Action], &str)] = &[
    (&[Action::Help], "help"),
    (&[Action::Search], "search"),
    (&[Action::Filter], "filter"),
    (&[Action::BreaksOnly], "breaks only"),
    (&[Action::NextBreak, Action::PrevBreak], "next/prev break"),
    (&[Action::NextPane], "pane"),
    (&[Action::Quit], "quit"),
];

/// Draws the bottom line.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let line = if let Some(prompt) = &app.prompt {
        let (sigil, what) = match prompt.kind {
            PromptKind::Search => ("/", "search"),
            PromptKind::Filter => ("filter: ", "filter"),
        };
        let count = match (&app.screen, prompt.kind) {
            (Screen::Explorer(ex), PromptKind::Search) if ex.search().is_some() => {
                format!("  {} match(es)", ex.search_matches())
            }
            (Screen::Explorer(ex), PromptKind::Filter) => {
                format!("  {} of {} ops", ex.rows().len(), ex.ws.graph().len())
            }
            _ => String::new(),
        };
        Line::from(vec![
            Span::styled(sigil, theme.get(Role::Key)),
            Span::raw(sanitize(&prompt.input).into_owned()),
            Span::styled("▏", theme.get(Role::Key)),
            Span::styled(count, theme.get(Role::Dim)),
            Span::styled(
                format!(
                    "   enter keep · esc cancel · {what} name, type, scope, reason; name: type: scope: reason: limit a term"
                ),
                theme.get(Role::Dim),
            ),
        ])
    } else if let Some(status) = &app.status {
        let role = if status.problem {
            Role::Warning
        } else {
            Role::Text
        };
        Line::from(Span::styled(
            format!(" {}", sanitize(&status.text)),
            theme.get(role),
        ))
    } else {
        let keymap = &app.config.keymap;
        let mut spans = Vec::new();
        for (actions, label) in BAR {
            let keys: Vec<String> = actions
                .iter()
                .filter_map(|a| keymap.first(*a).map(|k| k.to_string()))
                .collect();
            if keys.is_empty() {
                continue;
            }
            spans.push(Span::styled(
                format!(" {}", keys.join("/")),
                theme.get(Role::Key),
            ));
            spans.push(Span::styled(format!(" {label} "), theme.get(Role::Dim)));
        }
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
