//! The header line: file, format, op count and the plan's counts.

use crate::fusion::Severity;
use crate::text::sanitize;
use crate::tui::explorer::Explorer;
use crate::tui::runs::Runs;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Draws the header; while runs are going, it says so (with the key of the runs view).
pub fn render(
    ex: &Explorer,
    runs: &Runs,
    ticks: usize,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let ws = &ex.ws;
    let plan = ws.plan();
    let source = ws.source();
    let errors = plan
        .all_findings()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = plan.all_findings().count() - errors;
    let breaks = plan.break_count();
    let sep = || Span::styled(" · ", theme.get(Role::Dim));
    let long = counts(
        &[
            format!("{} ops", ws.graph().len()),
            format!(
                "{} scope{} → {} segment{}",
                plan.scopes.len(),
                plural(plan.scopes.len()),
                plan.segment_count(),
                plural(plan.segment_count())
            ),
            format!("✗ {breaks} break{}", plural(breaks)),
            format!("! {warnings} warning{}", plural(warnings)),
            format!("{errors} error{}", plural(errors)),
        ],
        errors,
    );
    let short = counts(
        &[
            format!("{} ops", ws.graph().len()),
            format!(
                "{} scopes → {} seg",
                plan.scopes.len(),
                plan.segment_count()
            ),
            format!("✗{breaks}"),
            format!("!{warnings}"),
            format!("{errors} err"),
        ],
        errors,
    );
    let styled = |texts: Vec<String>| -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for (i, text) in texts.into_iter().enumerate() {
            let role = match i {
                2 if breaks > 0 => Role::Break,
                3 if warnings > 0 => Role::Warning,
                4 => Role::Error,
                _ => Role::Text,
            };
            spans.push(sep());
            spans.push(Span::styled(text, theme.get(role)));
        }
        spans
    };
    let long_width: usize = styled(long.clone()).iter().map(Span::width).sum();
    let mut spans = if long_width + 40 <= usize::from(area.width) {
        styled(long)
    } else {
        styled(short)
    };
    if ws.is_dirty() {
        spans.push(sep());
        spans.push(Span::styled("● unsaved", theme.get(Role::Changed)));
    }
    let running = runs.running();
    if running > 0 {
        spans.push(sep());
        spans.push(Span::styled(
            format!(
                "{} {running} run{} going",
                super::spinner(ticks),
                plural(running)
            ),
            theme.get(Role::Key),
        ));
    }
    if !ws.context().verdicts().compiled() {
        spans.push(sep());
        spans.push(Span::styled(
            "not compiled: rules decide",
            theme.get(Role::Dim),
        ));
    }
    // The counts always show; the file name gets what is left (its base name when the path
    // does not fit), and the format goes first when even that is too long.
    let counts: usize = spans.iter().map(Span::width).sum();
    let file = sanitize(&source.file).into_owned();
    let base = std::path::Path::new(&source.file)
        .file_name()
        .map(|n| sanitize(&n.to_string_lossy()).into_owned())
        .unwrap_or_else(|| file.clone());
    let format = format!(" · {}", source.format.id());
    let room = usize::from(area.width).saturating_sub(counts + " skope  ".len());
    let width = |s: &str| Span::raw(s).width();
    let (name, format) = if width(&file) + width(&format) <= room {
        (file, format)
    } else if width(&base) + width(&format) <= room {
        (base, format)
    } else {
        (base, String::new())
    };
    let mut line = vec![
        Span::styled(" skope ", theme.get(Role::Header)),
        Span::raw(" "),
        Span::styled(name, theme.get(Role::Header)),
        Span::raw(format),
    ];
    line.extend(spans);
    frame.render_widget(Paragraph::new(Line::from(line)), area);
}

/// The count texts to show: the error count only when there are errors.
fn counts(texts: &[String; 5], errors: usize) -> Vec<String> {
    let n = if errors > 0 { 5 } else { 4 };
    texts[..n].to_vec()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
