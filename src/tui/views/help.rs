//! The help overlay: every action with its keys, grouped, read from the keymap (so it shows
//! the user's own bindings), and what the glyphs mean.

use crate::tui::action::{Action, Group};
use crate::tui::keymap::Keymap;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph};

/// What each glyph of the op list, tree and strip means.
pub const LEGEND: &[(&str, &str)] = &[
    ("┃", "op fused in a segment (colour: its segment)"),
    (
        "✗",
        "break: the op cuts a scope (reason in the last column)",
    ),
    ("!", "a warning names the op"),
    ("○", "ignored by the pass (Data, Const, Send/Recv…)"),
    ("┆", "in a scope that is not fused (dropped, aborted…)"),
    ("·", "outside every scope"),
    ("✓ ? ⊘", "verdict: fusible · assumed fusible · unsupported"),
    (
        "+ − *",
        "the last edit: a new break · a healed break · a new segment",
    ),
    (
        "█ ▓",
        "strip: segments (alternating), ━ the list's view, ▲ the selected op",
    ),
];

/// The lines for `groups`: a heading each, then every action with its keys.
fn group_lines(keymap: &Keymap, theme: &Theme, groups: &[Group]) -> Vec<Line<'static>> {
    let width = Action::ALL
        .iter()
        .map(|a| keymap.label(*a).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = Vec::new();
    for group in groups {
        if !out.is_empty() {
            out.push(Line::from(""));
        }
        out.push(Line::from(Span::styled(
            group.title(),
            theme.get(Role::Title),
        )));
        for action in Action::ALL.into_iter().filter(|a| a.group() == *group) {
            out.push(Line::from(vec![
                Span::styled(
                    format!("  {:<width$}  ", keymap.label(action)),
                    theme.get(Role::Key),
                ),
                Span::raw(action.description()),
            ]));
        }
    }
    out
}

/// The overlay's lines for an inside width of `width`: the key groups in two columns when
/// there is room, then the glyph legend.
pub fn lines(keymap: &Keymap, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let mut out = if width >= 90 {
        // Balanced by length: moving, the plan and jobs on the left; finding, editing and
        // the rest on the right.
        let left = group_lines(
            keymap,
            theme,
            &[
                Group::Move,
                Group::Panes,
                Group::Plan,
                Group::Run,
                Group::Profile,
            ],
        );
        let right = group_lines(keymap, theme, &[Group::Find, Group::Edit, Group::General]);
        let half = usize::from(width / 2);
        (0..left.len().max(right.len()))
            .map(|i| {
                let mut spans = left.get(i).cloned().unwrap_or_default().spans;
                let used: usize = spans.iter().map(Span::width).sum();
                spans.push(Span::raw(" ".repeat(half.saturating_sub(used))));
                spans.extend(right.get(i).cloned().unwrap_or_default().spans);
                Line::from(spans)
            })
            .collect()
    } else {
        group_lines(keymap, theme, &Group::ALL)
    };
    out.push(Line::from(""));
    out.push(Line::from(Span::styled("Glyphs", theme.get(Role::Title))));
    for (glyph, meaning) in LEGEND {
        out.push(Line::from(vec![
            Span::styled(format!("  {glyph:<6} "), theme.get(Role::Key)),
            Span::raw(*meaning),
        ]));
    }
    out.push(Line::from(""));
    out.push(Line::from(Span::styled(
        "Mouse: click to select, wheel to scroll, click the strip to jump. Keys and colours: `skope config`.",
        theme.get(Role::Dim),
    )));
    out
}

/// The overlay's box on a screen of `area` and its lines.
fn layout(keymap: &Keymap, theme: &Theme, area: Rect) -> (Rect, Vec<Line<'static>>) {
    let width = area.width.saturating_sub(4).min(112);
    let lines = lines(keymap, theme, width.saturating_sub(2));
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    (super::centred(area, width, height), lines)
}

/// The furthest the overlay can scroll on a screen of `area`.
pub fn max_scroll(keymap: &Keymap, theme: &Theme, area: Rect) -> usize {
    let (popup, lines) = layout(keymap, theme, area);
    lines
        .len()
        .saturating_sub(usize::from(popup.height.saturating_sub(2)))
}

/// Draws the overlay over `area`, scrolled by `scroll` lines.
pub fn render(keymap: &Keymap, theme: &Theme, scroll: usize, frame: &mut Frame, area: Rect) {
    let (popup, lines) = layout(keymap, theme, area);
    let max = max_scroll(keymap, theme, area);
    let scroll = scroll.min(max);
    let title = if max > 0 {
        format!(
            " Help — {}/{} scroll · {} closes ",
            keymap.hint(Action::Down),
            keymap.hint(Action::Up),
            keymap.hint(Action::Back)
        )
    } else {
        format!(" Help — {} closes ", keymap.hint(Action::Back))
    };
    let block = Block::bordered()
        .border_type(BorderType::Double)
        .border_style(theme.get(Role::BorderFocused))
        .title(Span::styled(title, theme.get(Role::Title)));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        popup,
    );
}
