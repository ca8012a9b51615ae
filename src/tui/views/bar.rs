//! The bottom line: the prompt while one is open, else the last message, else the key bar —
//! generated from the keymap, so it always shows the keys that work: the graph's main keys, or
//! the rows of the view up over the panes.

use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The key bar's entries: actions (shown with their first key each), a label, and a rank —
/// when the line is too narrow, entries of the highest rank go first (each of a lower rank that
/// still fits stays).
const BAR: &[(&[Action], &str, u8)] = &[
    (&[Action::Help], "help", 0),
    (&[Action::Search], "search", 1),
    (&[Action::Filter], "filter", 4),
    (&[Action::BreaksOnly], "breaks only", 5),
    (
        &[Action::NextBreak, Action::PrevBreak],
        "next/prev break",
        2,
    ),
    (&[Action::NextPane], "pane", 4),
    (&[Action::Zoom], "zoom", 4),
    (&[Action::Findings], "findings", 5),
    (&[Action::VisualSelect], "select", 5),
    (&[Action::AssignScope], "assign", 5),
    (&[Action::EditOptions], "options", 5),
    (&[Action::Undo], "undo", 5),
    (&[Action::Save], "save", 3),
    (&[Action::CodeView], "code", 3),
    (&[Action::Compile], "compile", 3),
    (&[Action::Profiles], "profile", 2),
    (&[Action::Palette], "commands", 4),
    (&[Action::Quit], "quit", 0),
];

/// Draws the bottom line.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let line = if let Some(prompt) = &app.prompt {
        let (sigil, hint, count) = (prompt.label, prompt.hint, prompt.count(app));
        // Text the prompt offered shows as selected: typing replaces it.
        let (input_style, replaces) = if prompt.offered {
            (theme.get(Role::Selection), " · typing replaces it")
        } else {
            (ratatui::style::Style::new(), "")
        };
        Line::from(vec![
            Span::styled(sigil, theme.get(Role::Key)),
            Span::styled(sanitize(&prompt.input).into_owned(), input_style),
            Span::styled("▏", theme.get(Role::Key)),
            Span::styled(count, theme.get(Role::Dim)),
            Span::styled(format!("   {hint}{replaces}"), theme.get(Role::Dim)),
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
        // A view up over the panes: its own rows (moving left out, the help first); the
        // graph: the bar's entries, by rank.
        let rows: Vec<(Vec<Action>, &str, u8)> = match app.up_view() {
            Some(view) => {
                let mut rows = vec![(vec![Action::Help], "help", 0)];
                // Actions that do the same here share an entry (`K/esc back to the graph`).
                for (action, what) in view.keys {
                    if action.group() == crate::tui::action::Group::Move {
                        continue;
                    }
                    match rows.iter_mut().find(|(_, label, _)| label == what) {
                        Some((actions, _, _)) => actions.push(*action),
                        None => rows.push((vec![*action], *what, 1)),
                    }
                }
                rows
            }
            None => BAR.iter().map(|(a, l, r)| (a.to_vec(), *l, *r)).collect(),
        };
        let entries: Vec<(String, &str, u8)> = rows
            .iter()
            .filter_map(|(actions, label, rank)| {
                let keys: Vec<String> = actions
                    .iter()
                    .filter_map(|a| keymap.first(*a).map(|k| k.to_string()))
                    .collect();
                (!keys.is_empty()).then(|| (keys.join("/"), *label, *rank))
            })
            .collect();
        let width_of = |(k, l, _): &(String, &str, u8)| k.chars().count() + l.chars().count() + 3;
        // The graph's entries are kept by rank, lowest first, each that still fits; a view's
        // rows as many as fit in their order. Either way they show in their order.
        let mut keep = vec![true; entries.len()];
        if app.up_view().is_none() {
            let mut by_rank: Vec<usize> = (0..entries.len()).collect();
            by_rank.sort_by_key(|&i| entries[i].2);
            let mut room = usize::from(area.width);
            for i in by_rank {
                let w = width_of(&entries[i]);
                keep[i] = w <= room;
                room = room.saturating_sub(if keep[i] { w } else { 0 });
            }
        }
        let mut spans = Vec::new();
        let mut room = usize::from(area.width);
        for (entry, _) in entries.iter().zip(&keep).filter(|(_, k)| **k) {
            let width = width_of(entry);
            if width > room {
                break;
            }
            room -= width;
            let (keys, label, _) = entry;
            spans.push(Span::styled(format!(" {keys}"), theme.get(Role::Key)));
            spans.push(Span::styled(format!(" {label} "), theme.get(Role::Dim)));
        }
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
