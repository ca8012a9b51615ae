//! The runs view: the history of runs on the left (or on top, when narrow), the selected run's
//! log on the right with its command, state, elapsed time, the first error pinned and marked,
//! and the keys that work here.

use crate::compile::job::Stream;
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::{run_log_rows, runs_parts};
use crate::tui::runs::{Run, RunState, RunStatus};
use crate::tui::theme::Role;
use crate::tui::views::{pane_block, put};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::time::Duration;

/// The glyph of a run's state; a spinner frame while it runs. Every state has its own, so
/// none relies on colour.
pub fn glyph(run: &Run, ticks: usize) -> &'static str {
    match run.status() {
        RunStatus::Running | RunStatus::Preparing => crate::tui::views::spinner(ticks),
        RunStatus::Cancelling => "…",
        RunStatus::Cancelled => "⊘",
        RunStatus::Passed => "✓",
        RunStatus::Failed | RunStatus::Unstarted => "✗",
        RunStatus::Unknown => "?",
        RunStatus::Added => "+",
    }
}

/// The role a run's state is drawn in.
fn role(run: &Run) -> Role {
    match run.status() {
        RunStatus::Running | RunStatus::Cancelling | RunStatus::Preparing => Role::Key,
        RunStatus::Cancelled | RunStatus::Unknown => Role::Warning,
        RunStatus::Unstarted => Role::Error,
        RunStatus::Passed => Role::Good,
        RunStatus::Failed => Role::Error,
        RunStatus::Added => Role::Dim,
    }
}

/// A run's state in words: `running 12.3 s`, `passed in 4.1 s`, `failed (exit code 1) in 2.0 s`.
pub fn state_text(run: &Run, now: Duration) -> String {
    let time = crate::text::duration(run.elapsed(now));
    match (run.status(), run.state) {
        (RunStatus::Preparing, _) => format!("preparing… {time}"),
        (RunStatus::Unstarted, _) => "could not start".to_string(),
        (RunStatus::Running, _) => format!("running {time}"),
        (RunStatus::Cancelling, _) => format!("stopping… {time}"),
        (RunStatus::Cancelled, _) => format!("cancelled after {time}"),
        (RunStatus::Passed, _) => format!("passed in {time}"),
        (RunStatus::Failed, RunState::Ended { status, .. }) => {
            format!("failed ({status}) in {time}")
        }
        (RunStatus::Failed, _) => match run.record.as_ref().and_then(|r| r.exit_status()) {
            Some(status) => format!("failed ({status}) in {time}"),
            None => format!("failed in {time}"),
        },
        (RunStatus::Unknown, _) => "no end recorded: skope stopped before the run did".to_string(),
        (RunStatus::Added, _) => match run.results.as_ref() {
            Some(path) => format!("added by path: {}", sanitize(&path.display().to_string())),
            None => "added by path".to_string(),
        },
    }
}

/// Draws the runs view over the body `area`.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let (runs, keymap, theme) = (&app.runs, &app.config.keymap, &app.config.theme);
    let (history_area, log_area) = runs_parts(area, runs.list.len());
    history(app, frame, history_area);
    match runs.selected() {
        Some(run) => log(app, run, frame, log_area),
        None => {
            let block = pane_block(" Log ", true, theme);
            let inner = block.inner(log_area);
            frame.render_widget(block, log_area);
            let text = format!(
                "No runs yet. {} picks a compile recipe and runs it; {} goes back.",
                keymap.hint(Action::Compile),
                keymap.hint(Action::Back)
            );
            frame.render_widget(
                Paragraph::new(Span::styled(text, theme.get(Role::Dim))),
                inner,
            );
        }
    }
}

fn history(app: &App, frame: &mut Frame, area: Rect) {
    let (runs, theme, ticks, now) = (&app.runs, &app.config.theme, app.ticks, app.now);
    let block = pane_block(format!(" Runs ({}) ", runs.list.len()), false, theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = usize::from(inner.height);
    if rows == 0 {
        return;
    }
    // Newest on top; the selected run stays in view.
    let order: Vec<usize> = (0..runs.list.len()).rev().collect();
    let at = order.iter().position(|&i| i == runs.selected).unwrap_or(0);
    let start = at.saturating_sub(rows - 1);
    let buf = frame.buffer_mut();
    for (row, &i) in order.iter().skip(start).take(rows).enumerate() {
        let run = &runs.list[i];
        let y = inner.y + row as u16;
        let selected = i == runs.selected;
        let base = if selected {
            theme.get(Role::Selection)
        } else {
            Style::new()
        };
        buf.set_style(Rect::new(inner.x, y, inner.width, 1), base);
        let x = put(
            buf,
            inner.x,
            y,
            inner.width,
            &format!("{} ", glyph(run, ticks)),
            base.patch(theme.get(role(run))),
        );
        let text = format!(
            "{:>2} {}  {} {}",
            run.id,
            sanitize(&run.recipe),
            run.status().word(),
            crate::text::duration(run.elapsed(now))
        );
        put(buf, x, y, inner.right().saturating_sub(x), &text, base);
    }
}

fn log(app: &App, run: &Run, frame: &mut Frame, area: Rect) {
    let (runs, keymap, theme) = (&app.runs, &app.config.keymap, &app.config.theme);
    let (ticks, now) = (app.ticks, app.now);
    let title = format!(
        " {} run {} · {} · {} ",
        glyph(run, ticks),
        run.id,
        sanitize(&run.recipe),
        state_text(run, now)
    );
    let files = match &run.out {
        Some(out) => sanitize(&out.display().to_string()).into_owned(),
        None => "(not yet written)".to_string(),
    };
    let mut block = pane_block(title.clone(), true, theme).title_bottom(Line::from(Span::styled(
        format!(" files: {files} "),
        theme.get(Role::Dim),
    )));
    // What is known of each line's stream, where the title leaves room for it.
    if let Some(known) = run.log.streams_known()
        && usize::from(area.width) >= title.chars().count() + known.chars().count() + 6
    {
        block = block.title_top(
            Line::from(Span::styled(format!(" {known} "), theme.get(Role::Dim))).right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    let buf = frame.buffer_mut();
    let mut y = inner.y;
    put(
        buf,
        inner.x,
        y,
        inner.width,
        &format!("$ {}", sanitize(&run.command)),
        theme.get(Role::Dim),
    );
    y += 1;
    let first_error = run.log.first_error();
    if let Some((n, line)) = first_error
        && y < inner.bottom()
    {
        let x = put(
            buf,
            inner.x,
            y,
            inner.width,
            &format!("✗ first error, line {}: ", n + 1),
            theme.get(Role::Error),
        );
        put(
            buf,
            x,
            y,
            inner.right().saturating_sub(x),
            &line.text,
            theme.get(Role::Error),
        );
        y += 1;
    }
    let rows = run_log_rows(area, run.log.first_error().is_some());
    let first = run.log.dropped();
    let end = run.log.total();
    let top = runs
        .scroll
        .unwrap_or_else(|| end.saturating_sub(rows as u64))
        .max(first);
    let gutter = (end.max(1).ilog10() + 1).max(3) as u16;
    for (i, line) in run
        .log
        .lines()
        .skip((top - first) as usize)
        .take(rows)
        .enumerate()
    {
        let n = top + i as u64;
        let row = y + i as u16;
        let is_error = first_error.is_some_and(|(e, _)| e == n);
        let mark = match (is_error, line.stream) {
            (true, _) => ("✗", theme.get(Role::Error)),
            (false, Stream::Stderr) => ("▍", theme.get(Role::Warning)),
            (false, Stream::Stdout | Stream::Merged) => (" ", Style::new()),
        };
        let x = put(
            buf,
            inner.x,
            row,
            inner.width,
            &format!("{:>w$}", n + 1, w = usize::from(gutter)),
            theme.get(Role::Dim),
        );
        let x = put(buf, x, row, inner.right().saturating_sub(x), mark.0, mark.1);
        let x = put(
            buf,
            x,
            row,
            inner.right().saturating_sub(x),
            " ",
            Style::new(),
        );
        let mut text: String = line.text.chars().skip(runs.shift).collect();
        if line.cut > 0 {
            text.push_str(&format!(" … ({} more bytes)", line.cut));
        }
        let style = if is_error {
            theme.get(Role::Error)
        } else {
            theme.get(Role::Text)
        };
        put(buf, x, row, inner.right().saturating_sub(x), &text, style);
    }
    if run.log.total() == 0 && rows > 0 {
        let text = if run.is_running() {
            "(no output yet)"
        } else {
            "(no output)"
        };
        put(buf, inner.x, y, inner.width, text, theme.get(Role::Dim));
    }
    let hints = [
        (Action::Back, "back"),
        (Action::CancelRun, "stop"),
        (Action::NextPane, "next run"),
        (Action::Activate, "first error"),
        (Action::Bottom, "follow"),
        (Action::Compile, "new run"),
    ];
    let mut spans = Vec::new();
    if run.log.dropped() > 0 {
        spans.push(Span::styled(
            format!("{} earlier lines not kept · ", run.log.dropped()),
            theme.get(Role::Dim),
        ));
    }
    for (action, label) in hints {
        spans.push(Span::styled(keymap.hint(action), theme.get(Role::Key)));
        spans.push(Span::styled(format!(" {label}  "), theme.get(Role::Dim)));
    }
    spans.push(Span::styled("▍", theme.get(Role::Warning)));
    spans.push(Span::styled(" stderr", theme.get(Role::Dim)));
    let footer = Rect::new(inner.x, inner.bottom() - 1, inner.width, 1);
    frame.render_widget(Paragraph::new(Line::from(spans)), footer);
}
