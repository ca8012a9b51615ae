//! Whole-screen notices: loading, a failed load, a terminal too small.

use crate::text::sanitize_lines;
use crate::tui::action::Action;
use crate::tui::app::{App, Loading, Stage};
use crate::tui::keymap::Keymap;
use crate::tui::layout::centred;
use crate::tui::layout::{MIN_HEIGHT, MIN_WIDTH};
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Gauge, Paragraph, Wrap};

/// The loading screen: file, stage, a gauge while reading, a spinner and the time spent.
pub fn loading(l: &Loading, app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let ticks = app.ticks;
    let popup = centred(area, 64, 8);
    let block = Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(theme.get(Role::BorderFocused))
        .title(Span::styled(" skope ", theme.get(Role::Title)));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let [file, stage, gauge, _, hint] = Layout::vertical([Constraint::Length(1); 5]).areas(inner);
    frame.render_widget(
        Paragraph::new(format!("Loading {}", crate::text::sanitize(&l.file))),
        file,
    );
    let spinner = super::spinner(ticks);
    let (what, ratio) = match l.stage {
        None => ("starting".to_string(), None),
        Some(Stage::Reading { done, total }) => (
            format!(
                "reading {} of {}",
                crate::text::size(done),
                crate::text::size(total)
            ),
            Some(if total == 0 {
                1.0
            } else {
                done as f64 / total as f64
            }),
        ),
        Some(Stage::Parsing { bytes }) => (format!("parsing {}", crate::text::size(bytes)), None),
        Some(Stage::Planning { ops }) => (format!("planning {ops} ops"), None),
    };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(format!("{spinner} "), theme.get(Role::Key)),
            Span::raw(what),
            Span::styled(
                format!("  {}", crate::text::duration(l.elapsed)),
                theme.get(Role::Dim),
            ),
        ])),
        stage,
    );
    if let Some(ratio) = ratio {
        frame.render_widget(
            Gauge::default()
                .gauge_style(theme.get(Role::Viewport))
                .ratio(ratio.clamp(0.0, 1.0)),
            gauge,
        );
    }
    frame.render_widget(
        Paragraph::new(format!("{} quits", app.config.keymap.hint(Action::Quit)))
            .style(theme.get(Role::Dim)),
        hint,
    );
}

/// The screen after a failed load: the loader's message, whole.
pub fn failed(file: &str, message: &str, app: &App, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let mut lines: Vec<Line> = sanitize_lines(message)
        .lines()
        .map(|l| Line::from(l.to_string()))
        .collect();
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        format!(
            "{} quits · run `skope FILE` with another dump, or `skope info FILE` for the same message in text",
            app.config.keymap.hint(Action::Quit)
        ),
        theme.get(Role::Dim),
    )));
    let width = area.width.saturating_sub(8).min(100);
    let inner = usize::from(width.saturating_sub(2)).max(1);
    // Word wrapping may take a row more than the width alone says.
    let rows: usize = lines
        .iter()
        .map(|l| l.width().max(1).div_ceil(inner) + usize::from(l.width() > inner))
        .sum();
    let popup = centred(area, width, (rows + 2).min(usize::from(u16::MAX)) as u16);
    let block = Block::bordered()
        .border_type(BorderType::Thick)
        .border_style(theme.get(Role::Error))
        .title(Span::styled(
            format!(" cannot open {} ", crate::text::sanitize(file)),
            theme.get(Role::Error),
        ));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        popup,
    );
}

/// The notice for a terminal below the minimum size.
pub fn too_small(keymap: &Keymap, theme: &Theme, frame: &mut Frame, area: Rect) {
    let text = vec![
        Line::from(Span::styled("terminal too small", theme.get(Role::Warning))),
        Line::from(format!(
            "{}×{}, need {MIN_WIDTH}×{MIN_HEIGHT}",
            area.width, area.height
        )),
        Line::from(Span::styled(
            format!("enlarge it, or {} quits", keymap.hint(Action::Quit)),
            theme.get(Role::Dim),
        )),
    ];
    let box_area = centred(area, 26, 3);
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), box_area);
}
