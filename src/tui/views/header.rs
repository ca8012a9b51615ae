//! The header line: file, format, and the plan's state. What matters most is kept when the
//! line is short: a failed build, errors, unsaved edits, runs going, breaks, warnings, then the
//! counts; the file name gives way first (shortened in the middle), then the least important
//! items are written short, then left out.

use crate::fusion::Severity;
use crate::fusion::plan::Outcome;
use crate::text::sanitize;
use crate::tui::explorer::Explorer;
use crate::tui::runs::Runs;
use crate::tui::theme::{Role, Theme};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Columns of the file name kept before items are shortened.
const NAME_MIN: usize = 16;
/// Items of this rank and less important ones are counts: they go first.
const COUNTS: u8 = 6;
/// What separates items.
const SEP: &str = " · ";

/// One status item: its long and short text, its style, and how much it matters (0 most).
struct Item {
    long: String,
    short: String,
    role: Role,
    rank: u8,
}

/// How an item is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Long,
    Short,
    Hidden,
}

/// What the header says besides the graph: runs going (and the spinner's tick), and whether
/// the journal holds back steps it could not write.
pub struct Status<'a> {
    /// The runs.
    pub runs: &'a Runs,
    /// Ticks seen, for the spinner.
    pub ticks: usize,
    /// True while the journal holds back steps it could not write.
    pub unjournaled: bool,
}

/// Draws the header; while runs are going, it says so (with the key of the runs view).
pub fn render(ex: &Explorer, status: &Status<'_>, theme: &Theme, frame: &mut Frame, area: Rect) {
    let ws = &ex.ws;
    let source = ws.source();
    let items = items(ex, status);
    let lead = " skope  ".len();
    let room = usize::from(area.width).saturating_sub(lead);
    // The counts give way to the file's name; the status items only to its first columns.
    let base = std::path::Path::new(&source.file)
        .file_name()
        .map_or(0, |n| Span::raw(sanitize(&n.to_string_lossy())).width());
    let mut shown = fit(&items, room.saturating_sub(base), COUNTS);
    if width(&items, &shown) > room.saturating_sub(base) {
        shown = fit(&items, room.saturating_sub(NAME_MIN), 0);
    }
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (item, how) in items.iter().zip(&shown) {
        let text = match how {
            Shown::Long => &item.long,
            Shown::Short => &item.short,
            Shown::Hidden => continue,
        };
        spans.push(Span::styled(SEP, theme.get(Role::Dim)));
        spans.push(Span::styled(text.clone(), theme.get(item.role)));
    }
    let used: usize = spans.iter().map(Span::width).sum();
    let (name, format) = file_text(
        &source.file,
        &format!("{SEP}{}", source.format.id()),
        room.saturating_sub(used),
    );
    let mut line = vec![
        Span::styled(" skope ", theme.get(Role::Header)),
        Span::raw(" "),
        Span::styled(name, theme.get(Role::Header)),
        Span::raw(format),
    ];
    line.extend(spans);
    frame.render_widget(Paragraph::new(Line::from(line)), area);
}

/// The status items in the order they are drawn.
fn items(ex: &Explorer, status: &Status<'_>) -> Vec<Item> {
    let (runs, ticks) = (status.runs, status.ticks);
    let ws = &ex.ws;
    let plan = ws.plan();
    let errors = plan.errors();
    let warnings = plan
        .all_findings()
        .filter(|f| f.severity != Severity::Error)
        .count();
    let breaks = plan.break_count();
    let mut items = Vec::new();
    let mut push = |long: String, short: String, role: Role, rank: u8| {
        items.push(Item {
            long,
            short,
            role,
            rank,
        })
    };
    match plan.outcome {
        Outcome::Ok => {}
        Outcome::BuildFails(_) => push("✗ build fails".into(), "✗ fails".into(), Role::Error, 0),
        Outcome::NoSuperKernel(_) => {
            push("✗ no SuperKernel".into(), "✗ no SK".into(), Role::Error, 0)
        }
    }
    // A setting that removes the benefit of fusion is said before the counts (the findings
    // say it in full).
    if let Some(notice) = ws.notice() {
        let head = notice.split(':').next().unwrap_or_default().to_string();
        push(format!("! {head}"), "!".to_string(), Role::Warning, 1);
    }
    push(
        crate::text::counted(ws.graph().len(), "op"),
        String::new(),
        Role::Text,
        7,
    );
    let (scopes, segments) = (plan.scopes.len(), plan.segment_count());
    push(
        format!(
            "{scopes} scope{} → {segments} segment{}",
            plural(scopes),
            plural(segments)
        ),
        format!("{scopes} scopes → {segments} seg"),
        Role::Text,
        6,
    );
    let role = |n: usize, role: Role| if n > 0 { role } else { Role::Text };
    push(
        format!("✗ {breaks} break{}", plural(breaks)),
        format!("✗{breaks}"),
        role(breaks, Role::Break),
        4,
    );
    push(
        format!("! {warnings} warning{}", plural(warnings)),
        format!("!{warnings}"),
        role(warnings, Role::Warning),
        5,
    );
    if let Some(range) = ws.assumed_range() {
        push(
            format!(
                "? {} assumed AscendC (if not: {} seg · ✗{})",
                range.ops, range.segments, range.breaks
            ),
            format!("?{}", range.ops),
            Role::Warning,
            5,
        );
    }
    if errors > 0 {
        push(
            format!("{errors} error{}", plural(errors)),
            format!("{errors} err"),
            Role::Error,
            1,
        );
    }
    if status.unjournaled {
        push(
            "● unsaved, not in the journal".into(),
            "●!".into(),
            Role::Error,
            1,
        );
    } else if ws.is_dirty() {
        push("● unsaved".into(), "●".into(), Role::Changed, 2);
    }
    let running = runs.running();
    if running > 0 {
        let spinner = super::spinner(ticks);
        push(
            format!("{spinner} {running} run{} going", plural(running)),
            format!("{spinner}{running}"),
            Role::Key,
            3,
        );
    }
    if !ws.context().verdicts().compiled() {
        push(
            "not compiled: rules decide".into(),
            String::new(),
            Role::Dim,
            8,
        );
    }
    items
}

/// The columns `items` take shown as `shown`.
fn width(items: &[Item], shown: &[Shown]) -> usize {
    let sep = Span::raw(SEP).width();
    items
        .iter()
        .zip(shown)
        .map(|(item, how)| match how {
            Shown::Long => sep + Span::raw(item.long.as_str()).width(),
            Shown::Short => sep + Span::raw(item.short.as_str()).width(),
            Shown::Hidden => 0,
        })
        .sum()
}

/// How to show each item within `room` columns, changing only items of rank `from` or less
/// important: all long if they fit. Else, least important first: the counts are written
/// short, then left out; then the other items are written short, then left out; last, the
/// failed build and the errors are written short (never left out). An empty short text means
/// the item cannot be shortened.
fn fit(items: &[Item], room: usize, from: u8) -> Vec<Shown> {
    let mut by_rank: Vec<usize> = (0..items.len()).collect();
    by_rank.sort_by_key(|&i| std::cmp::Reverse(items[i].rank));
    let tier = |range: std::ops::RangeInclusive<u8>| {
        by_rank
            .iter()
            .copied()
            .filter(move |&i| range.contains(&items[i].rank))
    };
    let mut steps: Vec<(usize, Shown)> = Vec::new();
    for i in tier(COUNTS..=u8::MAX) {
        steps.extend([(i, Shown::Short), (i, Shown::Hidden)]);
    }
    steps.extend(tier(2..=COUNTS - 1).map(|i| (i, Shown::Short)));
    steps.extend(tier(2..=COUNTS - 1).map(|i| (i, Shown::Hidden)));
    steps.extend(tier(0..=1).map(|i| (i, Shown::Short)));
    let mut shown = vec![Shown::Long; items.len()];
    for (i, how) in steps {
        if width(items, &shown) <= room {
            break;
        }
        if items[i].rank < from {
            continue;
        }
        if how == Shown::Short && items[i].short.is_empty() {
            continue;
        }
        shown[i] = how;
    }
    shown
}

/// The file as it fits in `room` columns, with the format after it when there is room: the
/// path, else its base name (without the format when need be), else the base name shortened in
/// the middle.
fn file_text(file: &str, format: &str, room: usize) -> (String, String) {
    let width = |s: &str| Span::raw(s).width();
    let path = sanitize(file).into_owned();
    let base = std::path::Path::new(file)
        .file_name()
        .map(|n| sanitize(&n.to_string_lossy()).into_owned())
        .unwrap_or_else(|| path.clone());
    if width(&path) + width(format) <= room {
        return (path, format.to_string());
    }
    if width(&base) + width(format) <= room {
        return (base, format.to_string());
    }
    if width(&base) <= room {
        return (base, String::new());
    }
    if room >= width(format) + NAME_MIN {
        return (
            crate::tui::layout::middle_ellipsis(&base, room - width(format)),
            format.to_string(),
        );
    }
    (
        crate::tui::layout::middle_ellipsis(&base, room.max(1)),
        String::new(),
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_lose_their_middle() {
        assert_eq!(crate::tui::layout::middle_ellipsis("abcdef", 6), "abcdef");
        assert_eq!(crate::tui::layout::middle_ellipsis("abcdefgh", 5), "ab…gh");
        assert_eq!(crate::tui::layout::middle_ellipsis("abcdefgh", 6), "abc…gh");
        assert_eq!(crate::tui::layout::middle_ellipsis("abcdefgh", 1), "…");
        let name = "ge_proto_00000042_PreRunAfterBuild.txt";
        let short = crate::tui::layout::middle_ellipsis(name, 20);
        assert_eq!(Span::raw(short.as_str()).width(), 20);
        assert!(
            short.starts_with("ge_proto_") && short.ends_with("Build.txt"),
            "{short}"
        );
    }

    fn item(text: &str, rank: u8) -> Item {
        Item {
            long: text.to_string(),
            short: text[..1].to_string(),
            role: Role::Text,
            rank,
        }
    }

    #[test]
    fn the_least_important_items_give_way_first() {
        use Shown::{Hidden, Long, Short};
        // A failed build (0), errors (1), breaks (4), warnings (5), a count (7).
        let items = [
            item("aaaa", 0),
            item("eeee", 1),
            item("bbbb", 4),
            item("wwww", 5),
            item("nnnn", 7),
        ];
        // All long: 5 × (3 + 4) = 35.
        assert_eq!(fit(&items, 35, 0), [Long; 5]);
        // The count goes first, short then gone.
        assert_eq!(fit(&items, 34, 0), [Long, Long, Long, Long, Short]);
        assert_eq!(fit(&items, 31, 0), [Long, Long, Long, Long, Hidden]);
        // Then warnings and breaks are shortened, then left out.
        assert_eq!(fit(&items, 27, 0), [Long, Long, Long, Short, Hidden]);
        assert_eq!(fit(&items, 24, 0), [Long, Long, Short, Short, Hidden]);
        assert_eq!(fit(&items, 20, 0), [Long, Long, Short, Hidden, Hidden]);
        assert_eq!(fit(&items, 16, 0), [Long, Long, Hidden, Hidden, Hidden]);
        // Last, errors and the failed build are shortened; they never go.
        assert_eq!(fit(&items, 13, 0), [Long, Short, Hidden, Hidden, Hidden]);
        assert_eq!(fit(&items, 0, 0), [Short, Short, Hidden, Hidden, Hidden]);
        // Limited to the counts, the rest stays long however short the room.
        assert_eq!(fit(&items, 0, COUNTS), [Long, Long, Long, Long, Hidden]);
    }
}
