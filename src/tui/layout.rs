//! Where each pane goes for a terminal size. A pure function of the size and the stream count,
//! used by rendering and by the update (page sizes, mouse hit-testing), so both agree.

use ratatui::layout::{Constraint, Layout, Rect};

/// The smallest terminal the explorer draws in; below it a "too small" notice is shown.
pub const MIN_WIDTH: u16 = 60;
/// See [`MIN_WIDTH`].
pub const MIN_HEIGHT: u16 = 16;
/// Streams drawn on the fusion strip (on short terminals, two); more are summarised on the
/// ruler line.
pub const MAX_STRIP_STREAMS: usize = 4;

/// The areas of the explorer screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Areas {
    /// The one-line header.
    pub header: Rect,
    /// The fusion strip: one row per stream and a ruler row.
    pub strip: Rect,
    /// The scopes tree, with its border.
    pub scopes: Rect,
    /// The op list, with its border.
    pub ops: Rect,
    /// The details pane, with its border.
    pub details: Rect,
    /// The code view, with its border (empty when it is off).
    pub code: Rect,
    /// Everything between the strip and the bottom line (where the panes are); the runs
    /// view takes all of it.
    pub body: Rect,
    /// The bottom line: key bar, prompt or status.
    pub bar: Rect,
}

/// What the body between the strip and the bottom line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLayout {
    /// The tree, the op list and the details.
    Panes,
    /// The code view beside the op list, over a shorter details pane.
    CodeBeside,
    /// The code view over the whole body: no tree, list or details.
    CodeZoomed,
    /// The details over the whole body: no tree or list.
    DetailsZoomed,
}

/// True when the terminal is big enough for the explorer.
pub fn fits(area: Rect) -> bool {
    area.width >= MIN_WIDTH && area.height >= MIN_HEIGHT
}

/// The areas for a terminal of size `area` showing `streams` streams on the strip. Wide
/// terminals get three columns; otherwise the details pane sits under the op list. With the
/// code view beside the list, the code takes the right half over a shorter details pane, and
/// below 160 columns the scopes tree makes room for it; zoomed, it (or the details) takes the
/// whole body.
pub fn areas(area: Rect, streams: usize, code: BodyLayout) -> Areas {
    let strip_rows = strip_streams(area, streams) as u16 + 1;
    let [header, strip, body, bar] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(strip_rows),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    match code {
        BodyLayout::CodeZoomed => {
            return Areas {
                header,
                strip,
                code: body,
                body,
                bar,
                ..Areas::default()
            };
        }
        BodyLayout::DetailsZoomed => {
            return Areas {
                header,
                strip,
                details: body,
                body,
                bar,
                ..Areas::default()
            };
        }
        BodyLayout::Panes | BodyLayout::CodeBeside => {}
    }
    let mut code_area = Rect::default();
    let [scopes, ops, details] = if code == BodyLayout::CodeBeside {
        let [scopes, ops, right] = if area.width >= 160 {
            Layout::horizontal([
                Constraint::Length(34),
                Constraint::Min(0),
                Constraint::Percentage(50),
            ])
            .areas(body)
        } else {
            let [ops, right] =
                Layout::horizontal([Constraint::Min(30), Constraint::Percentage(55)]).areas(body);
            [Rect::default(), ops, right]
        };
        let details_height = (right.height / 3).max(6);
        let [code, details] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(details_height)]).areas(right);
        code_area = code;
        [scopes, ops, details]
    } else if area.width >= 160 {
        Layout::horizontal([
            Constraint::Length(34),
            Constraint::Min(0),
            Constraint::Length(48),
        ])
        .areas(body)
    } else {
        let scopes_width = if area.width >= 120 { 32 } else { 24 };
        let [scopes, right] =
            Layout::horizontal([Constraint::Length(scopes_width), Constraint::Min(0)]).areas(body);
        let details_height = (body.height / 5 * 2).max(6);
        let [ops, details] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(details_height)]).areas(right);
        [scopes, ops, details]
    };
    Areas {
        header,
        strip,
        scopes,
        ops,
        details,
        code: code_area,
        body,
        bar,
    }
}

/// How many streams the fusion strip draws, one row each.
pub fn strip_streams(area: Rect, streams: usize) -> usize {
    let cap = if area.height >= 30 {
        MAX_STRIP_STREAMS
    } else {
        2
    };
    streams.clamp(1, cap)
}

/// The inside of a bordered pane.
pub fn inner(pane: Rect) -> Rect {
    Rect {
        x: pane.x.saturating_add(1),
        y: pane.y.saturating_add(1),
        width: pane.width.saturating_sub(2),
        height: pane.height.saturating_sub(2),
    }
}

/// A box of `width`×`height` centred in `area` (clipped to it).
pub fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

// The runs view.

/// The history's and the log's areas in the body `area`.
pub fn runs_parts(area: Rect, runs: usize) -> (Rect, Rect) {
    if area.width >= 100 {
        let [history, log] =
            Layout::horizontal([Constraint::Length(34), Constraint::Min(0)]).areas(area);
        (history, log)
    } else {
        let rows = (runs.clamp(1, 4) + 2) as u16;
        let [history, log] =
            Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
        (history, log)
    }
}

/// Log lines the log pane at `area` shows (inside the border, below the command row and the
/// first error's row when the run has one, above the key hints).
pub fn run_log_rows(area: Rect, first_error: bool) -> usize {
    usize::from(
        area.height
            .saturating_sub(2 + 1 + u16::from(first_error) + 1),
    )
}

// The profile view.

/// Rows of the profile view's summary pane, borders included.
const SUMMARY_HEIGHT: u16 = 8;

/// The summary's and the table's areas in the body `area`.
pub fn profile_parts(area: Rect) -> (Rect, Rect) {
    let [summary, table] =
        Layout::vertical([Constraint::Length(SUMMARY_HEIGHT), Constraint::Min(0)]).areas(area);
    (summary, table)
}

/// Lines under the SuperKernels table saying what the selected one is, why, and (neutral or
/// regressed) why it did not pay.
pub const PAYOFF_DETAIL: u16 = 3;

/// Table rows the view shows in the body `area` (below the header row, above the hints and,
/// `with_detail`, the selected row's lines).
pub fn profile_table_rows(area: Rect, with_detail: bool) -> usize {
    let (_, table) = profile_parts(area);
    let detail = if with_detail { PAYOFF_DETAIL } else { 0 };
    usize::from(table.height.saturating_sub(2 + 2 + detail))
}

/// Lines above the suggestions table's rows: how the saving is estimated, what to take with
/// care, the whole model if all were accepted, the keys, the header.
pub const SUGGESTION_HEAD: u16 = 5;

/// The suggestions view's table and the area listing the selected suggestion's ops (when
/// `expanded`), inside the view's border in the body `area`.
pub fn suggestion_parts(area: Rect, expanded: bool) -> (Rect, Option<Rect>) {
    let inner = Rect {
        x: area.x + 1,
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    };
    if !expanded {
        return (inner, None);
    }
    let [table, ops] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(inner);
    (table, Some(ops))
}

/// Rows of suggestions the view shows in the body `area`.
pub fn suggestion_rows(area: Rect, expanded: bool) -> usize {
    let (table, _) = suggestion_parts(area, expanded);
    usize::from(table.height.saturating_sub(SUGGESTION_HEAD))
}

/// Lines above the static kernels view's rows: what the join is, the keys.
pub const STATICS_HEAD: u16 = 2;

/// The static kernels view's list of rows inside the body `area`.
pub fn statics_list(area: Rect) -> Rect {
    let inner = inner(area);
    Rect {
        y: inner.y + STATICS_HEAD.min(inner.height),
        height: inner.height.saturating_sub(STATICS_HEAD),
        ..inner
    }
}

/// Rows the static kernels view shows at once in the body `area`.
pub fn statics_rows(area: Rect) -> usize {
    usize::from(statics_list(area).height)
}

/// `text` in at most `width` columns: its start and end with `…` between.
pub fn middle_ellipsis(text: &str, width: usize) -> String {
    let w = |s: &str| ratatui::text::Span::raw(s).width();
    if w(text) <= width {
        return text.to_string();
    }
    let keep = width.saturating_sub(1);
    let (mut head, mut tail) = (String::new(), Vec::new());
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut j) = (0, chars.len());
    let mut used = 0;
    // Take from both ends in turn, the head one more when odd.
    while i < j {
        let take_head = w(&head) <= tail.iter().map(|c: &char| w(&c.to_string())).sum::<usize>();
        let c = if take_head { chars[i] } else { chars[j - 1] };
        let cw = w(&c.to_string());
        if used + cw > keep {
            break;
        }
        used += cw;
        if take_head {
            head.push(c);
            i += 1;
        } else {
            tail.push(c);
            j -= 1;
        }
    }
    tail.reverse();
    format!("{head}…{}", tail.into_iter().collect::<String>())
}

/// `text` cut into rows of at most `width` characters at spaces (a longer word is cut).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        if len > 0 && len + 1 + word.len() > width {
            rows.push(std::mem::take(&mut row));
            len = 0;
        }
        if len > 0 {
            row.push(' ');
            len += 1;
        }
        // A word longer than a row fills rows of its own.
        while len + word.len() > width {
            let rest = word.split_off(width - len);
            row.extend(word);
            rows.push(std::mem::take(&mut row));
            len = 0;
            word = rest;
        }
        len += word.len();
        row.extend(word);
    }
    rows.push(row);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_whole_and_cuts_only_longer_ones() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("abcdefghijkl", 8), ["abcdefgh", "ijkl"]);
        assert_eq!(wrap("", 10), [""]);
    }

    #[test]
    fn panes_tile_the_screen_at_every_supported_size() {
        for (w, h) in [
            (60, 16),
            (80, 24),
            (120, 40),
            (160, 50),
            (300, 100),
            (100, 40_000),
            (u16::MAX, u16::MAX),
        ] {
            let area = Rect::new(0, 0, w, h);
            assert!(fits(area));
            let (off, beside) = (BodyLayout::Panes, BodyLayout::CodeBeside);
            for (streams, code) in [(1, off), (2, off), (9, off), (1, beside), (9, beside)] {
                let a = areas(area, streams, code);
                assert_eq!(a.code.is_empty(), code == off);
                let cells: u64 = [a.header, a.strip, a.scopes, a.ops, a.details, a.code, a.bar]
                    .iter()
                    .map(|r| u64::from(r.width) * u64::from(r.height))
                    .sum();
                assert_eq!(cells, u64::from(w) * u64::from(h), "{w}×{h}, {streams}");
                let body = [a.scopes, a.ops, a.details, a.code]
                    .iter()
                    .filter(|r| !r.is_empty())
                    .fold(a.body, |all, r| all.union(*r));
                assert_eq!(body, a.body, "{w}×{h}: the panes fill the body");
                assert!(a.ops.height >= 5 && a.ops.width >= 30, "{w}×{h}: {a:?}");
                assert!(a.details.height >= 5, "{w}×{h}: {a:?}");
            }
        }
        // Zoomed, the code is the body.
        let a = areas(Rect::new(0, 0, 80, 24), 2, BodyLayout::CodeZoomed);
        assert_eq!(a.code, a.body);
        assert!(a.ops.is_empty() && a.details.is_empty() && a.scopes.is_empty());
        assert!(!fits(Rect::new(0, 0, 59, 40)));
        assert!(!fits(Rect::new(0, 0, 200, 15)));
    }
}
