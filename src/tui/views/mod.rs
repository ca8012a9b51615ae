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
pub mod scopes;
pub mod screens;
pub mod strip;

use super::app::{App, Screen};
use super::layer::Layer;
use super::layout;
use super::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::{Block, BorderType};

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
            let areas = layout::areas(area, ex.ws.context().streams().len(), ex.body_layout());
            let status = header::Status {
                runs: &app.runs,
                ticks: app.ticks,
                unjournaled: app.session.held_back,
            };
            header::render(ex, &status, theme, frame, areas.header);
            strip::render(ex, theme, frame, areas.strip);
            // Up the stack of layers: the body, then what is drawn over it.
            let layers = app.layers();
            match (layers.body(), app.up_view()) {
                (Layer::View, Some(view)) => (view.draw)(app, frame, areas.body),
                _ => {
                    scopes::render(ex, theme, frame, areas.scopes);
                    ops::render(ex, &app.config.keymap, theme, frame, areas.ops);
                    match (&ex.options, layers.has(Layer::Options)) {
                        (Some(editor), true) => {
                            options::render(editor, theme, frame, areas.details);
                        }
                        _ => details::render(ex, theme, frame, areas.details),
                    }
                    code::render(ex, theme, frame, areas.code);
                }
            }
            // The bar holds the prompt when one is up.
            bar::render(app, frame, areas.bar);
        }
    }
    for layer in app.layers().above_body() {
        match (layer, &app.dialog, app.help) {
            (Layer::Dialog, Some(dialog), _) => dialog::render(dialog, theme, frame, area),
            (Layer::Help, _, Some(scroll)) => {
                let view = app.help_view();
                help::render(&app.config.keymap, theme, (scroll, view), frame, area);
            }
            _ => {}
        }
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
