//! The ledger written out: text for a terminal, GitHub Markdown for a pull request, CSV for a
//! spreadsheet (JSON is the ledger serialised). Every name from a record, a plan or a profile
//! path is made safe for where it goes.

use super::{Ledger, LedgerRow, ProfileState};
use crate::markdown;
use crate::text::sanitize;

/// A per-step time, `531.74 µs`; `—` when unknown.
/// A time in µs, as every output writes it.
pub fn micros(us: Option<f64>) -> String {
    us.map_or_else(
        || "—".to_string(),
        |v| format!("{} µs", crate::profile::output::fixed(v, 2)),
    )
}

/// The saved cell: step time saved per step against the baseline, `+57.78 µs (10.87 %)`;
/// `baseline`, or `—`.
pub fn benefit_cell(ledger: &Ledger, row: &LedgerRow) -> String {
    if ledger.baseline == Some(row.number) {
        return "baseline".to_string();
    }
    row.benefit.map_or_else(
        || "—".to_string(),
        |b| {
            let fixed = crate::profile::output::fixed;
            let sign = if b.saved_us < 0.0 { "−" } else { "+" };
            format!(
                "{sign}{} µs ({} %)",
                fixed(b.saved_us.abs(), 2),
                fixed(b.pct, 2)
            )
        },
    )
}

/// The SuperKernels cell: segments of the plan, `?` when it could not be read.
fn superkernels(row: &LedgerRow) -> String {
    row.plan
        .as_ref()
        .map_or_else(|| "?".to_string(), |p| p.segments.to_string())
}

/// The payoffs cell.
fn payoffs(row: &LedgerRow) -> String {
    row.payoffs
        .as_ref()
        .map_or_else(|| "—".to_string(), super::PayoffCounts::cell)
}

/// The ledger's heading lines: what, how many, the order, the baseline.
fn heading(ledger: &Ledger) -> [String; 2] {
    [
        format!(
            "Runs of {}: {} (by {})",
            sanitize(&ledger.dump),
            ledger.rows.len(),
            ledger.sort.name()
        ),
        format!("baseline: {}", ledger.baseline_why),
    ]
}

/// What a row's profile state says beyond its word, if anything.
fn profile_note(row: &LedgerRow) -> Option<String> {
    match &row.profile {
        ProfileState::Found {
            picked: Some(p), ..
        } => Some(format!("profile: {p}")),
        ProfileState::Gone { path } => Some(format!("its profile has gone: {path}")),
        ProfileState::Unreadable { path, why } => Some(format!("{path}: {why}")),
        ProfileState::NoResults => Some("its recipe names no results".to_string()),
        ProfileState::Found { picked: None, .. } => None,
    }
}

/// Every note of a row: its profile's, then its own, then what to prune (and block).
fn row_notes(row: &LedgerRow) -> Vec<String> {
    let mut notes: Vec<String> = profile_note(row).into_iter().collect();
    notes.extend(row.notes.iter().cloned());
    if let Some(p) = &row.payoffs {
        for (action, list) in [("prune", &p.prune), ("block", &p.block)] {
            if !list.is_empty() {
                notes.push(format!("{action}: {}", list.join(", ")));
            }
        }
    }
    notes
}

/// The cells of a row, as the text and Markdown tables show them (names not yet escaped).
fn cells(ledger: &Ledger, row: &LedgerRow) -> [String; 10] {
    let mark = if ledger.baseline == Some(row.number) {
        "*"
    } else {
        ""
    };
    [
        format!("{mark}{}", row.number),
        row.started.clone(),
        row.recipe.clone(),
        row.status.clone(),
        superkernels(row),
        micros(row.step_time_us),
        benefit_cell(ledger, row),
        payoffs(row),
        row.predicted
            .as_ref()
            .map_or_else(|| "—".to_string(), |c| c.cell()),
        row.change_summary(),
    ]
}

const HEADERS: [&str; 10] = [
    "#",
    "started (UTC)",
    "recipe",
    "status",
    "SK",
    "step time",
    "saved/step",
    "payoffs ✓✗~?",
    "predicted before",
    "plan change",
];

/// The ledger as text: a heading, a table (the baseline marked `*`), then each row's notes.
pub fn to_text(ledger: &Ledger) -> String {
    let mut out = heading(ledger).join("\n");
    out.push_str("\n\n");
    if ledger.rows.is_empty() {
        out.push_str(
            "no runs recorded: run a recipe (skope compile, or c in the explorer), or add a \
             profile with --add PATH\n",
        );
        return out;
    }
    let rows: Vec<[String; 10]> = ledger
        .rows
        .iter()
        .map(|r| cells(ledger, r).map(|c| sanitize(&c).into_owned()))
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([HEADERS[i].chars().count()])
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..HEADERS.len()).map(width).collect();
    let line = |cells: &[String]| {
        let mut text = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(c);
            } else {
                let pad = widths[i].saturating_sub(c.chars().count());
                text.push_str(c);
                text.push_str(&" ".repeat(pad + 2));
            }
        }
        text.trim_end().to_string()
    };
    out.push_str(&line(&HEADERS.map(String::from)));
    out.push('\n');
    for r in &rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    for row in &ledger.rows {
        for note in row_notes(row) {
            out.push_str(&format!("run {}: {}\n", row.number, sanitize(&note)));
        }
    }
    out
}

/// The ledger as GitHub Markdown: the table, then notes in a `<details>` section.
pub fn to_markdown(ledger: &Ledger) -> String {
    let [title, baseline] = heading(ledger);
    let mut out = format!(
        "### {}\n\n{}\n\n",
        markdown::text(&title),
        markdown::text(&baseline)
    );
    out.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for row in &ledger.rows {
        let cells = cells(ledger, row).map(|c| markdown::text(&c));
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    let notes: Vec<String> = ledger
        .rows
        .iter()
        .flat_map(|r| {
            row_notes(r)
                .into_iter()
                .map(move |n| format!("- run {}: {}", r.number, markdown::text(&n)))
        })
        .collect();
    if !notes.is_empty() {
        out.push_str("\n<details><summary>Notes</summary>\n\n");
        out.push_str(&notes.join("\n"));
        out.push_str("\n\n</details>\n");
    }
    markdown::cap(out)
}

/// The ledger as CSV, a row per run in the ledger's order.
pub fn to_csv(ledger: &Ledger) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = [
        "run",
        "baseline",
        "started_utc",
        "recipe",
        "status",
        "scopes",
        "segments",
        "breaks",
        "steps",
        "median_step_us",
        "saved_us",
        "benefit_pct",
        "beneficial",
        "neutral",
        "regressed",
        "insufficient_evidence",
        "prune",
        "profile",
        "profile_path",
        "plan_change",
        "dir",
        "step_time_us",
        "block",
        "predicted_as_judged",
        "predicted_judged",
        "prediction_error_pct",
    ];
    let _ = w.write_record(header);
    let num = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.3}"));
    for r in &ledger.rows {
        let plan = |f: fn(&super::PlanSummary) -> usize| {
            r.plan.as_ref().map_or(String::new(), |p| f(p).to_string())
        };
        let pay = |f: fn(&super::PayoffCounts) -> usize| {
            r.payoffs
                .as_ref()
                .map_or(String::new(), |p| f(p).to_string())
        };
        let record = [
            r.number.to_string(),
            (ledger.baseline == Some(r.number)).to_string(),
            r.started.clone(),
            crate::text::csv_cell(&r.recipe),
            r.status.clone(),
            plan(|p| p.scopes),
            plan(|p| p.segments),
            plan(|p| p.breaks),
            r.steps.to_string(),
            num(r.median_step_us),
            num(r.benefit.map(|b| b.saved_us)),
            num(r.benefit.map(|b| b.pct)),
            pay(|p| p.beneficial),
            pay(|p| p.neutral),
            pay(|p| p.regressed),
            pay(|p| p.insufficient_evidence),
            crate::text::csv_cell(
                &r.payoffs
                    .as_ref()
                    .map_or(String::new(), |p| p.prune.join(" ")),
            ),
            r.profile.words(),
            crate::text::csv_cell(r.profile.path().unwrap_or_default()),
            crate::text::csv_cell(&r.change_summary()),
            crate::text::csv_cell(&r.dir),
            num(r.step_time_us),
            crate::text::csv_cell(
                &r.payoffs
                    .as_ref()
                    .map_or(String::new(), |p| p.block.join(" ")),
            ),
            r.predicted
                .as_ref()
                .map_or(String::new(), |c| c.classes_right.0.to_string()),
            r.predicted
                .as_ref()
                .map_or(String::new(), |c| c.classes_right.1.to_string()),
            num(r.predicted.as_ref().and_then(|c| c.mean_error_pct)),
        ];
        let _ = w.write_record(record);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}
