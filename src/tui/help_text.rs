//! The help overlay's text: every key of the keymap in use by group, the glyph legend, and
//! the keys a view gives a meaning of its own. Built below the state, so scrolling the help
//! knows where it ends.

use super::action::{Action, Group};
use super::keymap::Keymap;
use super::theme::{Role, Theme};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

/// What each glyph of the op list, tree and strip means.
pub const LEGEND: &[(&str, &str)] = &[
    ("┃", "op fused in a segment (colour: its segment)"),
    (
        "✗",
        "break: the op cuts a scope (reason in the last column)",
    ),
    ("!", "a finding names the op"),
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

/// Where the help was asked: a heading (`In the runs view`) and the rows of the view that has
/// the keys, each action with what it does there.
pub type ViewKeys = (&'static str, &'static [(Action, &'static str)]);

/// The view's own keys, headed by where they apply; nothing for the graph.
fn view_lines(keymap: &Keymap, theme: &Theme, view: Option<ViewKeys>) -> Vec<Line<'static>> {
    let Some((title, keys)) = view else {
        return Vec::new();
    };
    let width = keys
        .iter()
        .map(|(a, _)| keymap.label(*a).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = vec![Line::from(Span::styled(title, theme.get(Role::Title)))];
    for (action, what) in keys {
        out.push(Line::from(vec![
            Span::styled(
                format!("  {:<width$}  ", keymap.label(*action)),
                theme.get(Role::Key),
            ),
            Span::raw(*what),
        ]));
    }
    out.push(Line::from(""));
    out
}

/// The lines for `groups`: a heading each, then every action with its keys.
fn group_lines(keymap: &Keymap, theme: &Theme, groups: &[Group]) -> Vec<Line<'static>> {
    let width = Action::all()
        .filter(|a| groups.contains(&a.group()))
        .map(|a| keymap.label(a).chars().count())
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
        for action in Action::all().filter(|a| a.group() == *group) {
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

/// The overlay's lines for an inside width of `width`: the keys of `view`, the key groups in
/// two columns when there is room, then the glyph legend.
pub fn lines(
    keymap: &Keymap,
    theme: &Theme,
    width: u16,
    view: Option<ViewKeys>,
) -> Vec<Line<'static>> {
    let mut out = view_lines(keymap, theme, view);
    out.extend(if width >= 90 {
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
        // The right column starts after the widest left line, or at the middle.
        let widest = left
            .iter()
            .map(|l| l.spans.iter().map(Span::width).sum::<usize>())
            .max()
            .unwrap_or(0);
        let half = usize::from(width / 2).max(widest + 2);
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
    });
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
pub fn layout(
    keymap: &Keymap,
    theme: &Theme,
    area: Rect,
    view: Option<ViewKeys>,
) -> (Rect, Vec<Line<'static>>) {
    let width = area.width.saturating_sub(4).min(112);
    let lines = lines(keymap, theme, width.saturating_sub(2), view);
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    (super::layout::centred(area, width, height), lines)
}

/// The furthest the overlay for `view` can scroll on a screen of `area`.
pub fn max_scroll(keymap: &Keymap, theme: &Theme, area: Rect, view: Option<ViewKeys>) -> usize {
    let (popup, lines) = layout(keymap, theme, area, view);
    lines
        .len()
        .saturating_sub(usize::from(popup.height.saturating_sub(2)))
}
