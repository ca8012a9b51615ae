//! The header line: file, format, op count and the plan's counts.

use crate::fusion::Severity;
use crate::text::sanitize;
use crate::tui::explorer::Explorer;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Draws the header.
pub fn render(ex: &Explorer, theme: &Theme, frame: &mut Frame, area: Rect) {
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
    let mut spans = vec![
        sep(),
        Span::raw(format!("{} ops", ws.graph().len())),
        sep(),
        Span::raw(format!(
            "{} scope{} → {} segment{}",
            plan.scopes.len(),
            plural(plan.scopes.len()),
            plan.segment_count(),
            plural(plan.segment_count())
        )),
        sep(),
        Span::styled(
            format!("✗ {breaks} break{}", plural(breaks)),
            if breaks > 0 {
                theme.get(Role::Break)
            } else {
                theme.get(Role::Text)
            },
        ),
        sep(),
        Span::styled(
            format!("! {warnings} warning{}", plural(warnings)),
            if warnings > 0 {
                theme.get(Role::Warning)
            } else {
                theme.get(Role::Text)
            },
        ),
    ];
    if errors > 0 {
        spans.push(sep());
        spans.push(Span::styled(
            format!("{errors} error{}", plural(errors)),
            theme.get(Role::Error),
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

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
