//! Drawing: one module per part of the screen, each a function of the app state that writes
//! into the frame and changes nothing else.

pub mod bar;
pub mod code;
pub mod details;
pub mod dialog;
pub mod header;
pub mod help;
pub mod ops;
pub mod options;
pub mod profile;
pub mod runs;
pub mod scopes;
pub mod screens;
pub mod strip;

use super::app::{App, Screen};
use super::layout;
use super::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType};
use std::time::Duration;

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    let theme = &app.config.theme;
    if !layout::fits(area) {
        screens::too_small(&app.config.keymap, theme, frame, area);
        return;
    }
    match &app.screen {
        Screen::Loading(loading) => screens::loading(loading, app, frame, area),
        Screen::Failed { file, message } => screens::failed(file, message, app, frame, area),
        Screen::Explorer(ex) => {
            // Laid out for the frame itself: the state's areas may be a resize behind.
            let areas = layout::areas(area, ex.ws.context().streams().len(), ex.code_layout());
            header::render(ex, &app.runs, app.ticks, theme, frame, areas.header);
            strip::render(ex, theme, frame, areas.strip);
            if app.runs.open {
                runs::render(app, frame, areas.body);
                bar::render(app, frame, areas.bar);
                return draw_overlays(app, frame, area);
            }
            if let Some(view) = ex.profiles.as_ref().filter(|v| v.open) {
                profile::render(app, view, frame, areas.body);
                bar::render(app, frame, areas.bar);
                return draw_overlays(app, frame, area);
            }
            scopes::render(ex, theme, frame, areas.scopes);
            ops::render(ex, &app.config.keymap, theme, frame, areas.ops);
            match &ex.options {
                Some(editor) => options::render(editor, theme, frame, areas.details),
                None => details::render(ex, theme, frame, areas.details),
            }
            code::render(ex, theme, frame, areas.code);
            bar::render(app, frame, areas.bar);
        }
    }
    draw_overlays(app, frame, area);
}

/// Draws the dialog and the help overlay, when they are up.
fn draw_overlays(app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    if let Some(dialog) = &app.dialog {
        dialog::render(dialog, theme, frame, area);
    }
    if let Some(scroll) = app.help {
        let view = app.help_view();
        help::render(&app.config.keymap, theme, (scroll, view), frame, area);
    }
}

/// A bordered pane with a title; the focused pane's border stands out (bold and coloured,
/// and drawn thick so it shows without colour too).
pub fn pane_block<'a>(title: impl Into<Span<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    let (border, kind) = if focused {
        (theme.get(Role::BorderFocused), BorderType::Thick)
    } else {
        (theme.get(Role::Border), BorderType::Plain)
    };
    Block::bordered()
        .border_type(kind)
        .border_style(border)
        .title(title.into().style(theme.get(Role::Title)))
}

/// Frames of the spinner shown while something goes on (loading, runs).
const SPINNER: &[&str] = &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// The spinner's frame after `ticks` ticks.
pub fn spinner(ticks: usize) -> &'static str {
    SPINNER[ticks % SPINNER.len()]
}

/// A time spent, for people: `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{:.1} s", d.as_secs_f64())
    } else if secs < 3600 {
        format!("{} min {:02} s", secs / 60, secs % 60)
    } else {
        format!("{} h {:02} min", secs / 3600, secs % 3600 / 60)
    }
}

/// `text` in at most `width` columns: its start and end with `…` between.
pub fn middle_ellipsis(text: &str, width: usize) -> String {
    let w = |s: &str| Span::raw(s).width();
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

/// Writes `text` at (`x`, `y`) in at most `width` columns; a text that does not fit ends in
/// `…`. Returns the column after the text.
pub fn put(buf: &mut Buffer, x: u16, y: u16, width: u16, text: &str, style: Style) -> u16 {
    if width == 0 {
        return x;
    }
    let (end, _) = buf.set_stringn(x, y, text, usize::from(width), style);
    if Span::raw(text).width() > usize::from(width) {
        let last = x + width - 1;
        buf.set_stringn(last, y, "…", 1, style);
        return x + width;
    }
    end
}
