//! The plan (and, with profiles, what it paid) as GitHub-flavoured Markdown for a pull
//! request: a short head — the outcome, the counts, per step before → after, the SuperKernels'
//! payoffs, the costliest breaks with their fixes — and `<details>` sections for the rest.
//! Every text from a dump or a profile is escaped, so a name cannot break a table, start a
//! heading or a link, or inject HTML. Facts: reference/bridges.md §4.

use crate::fix::WhatIf;
use crate::profile::Diff;
use crate::report::{BreakReport, Report, ScopeReport};
use std::fmt::Write as _;

/// The bytes GitHub takes in a pull request's body.
pub const MAX_BODY: usize = 65_536;

/// Breaks listed in the head; the rest are in a `<details>` section.
const HEAD_BREAKS: usize = 5;

/// `s` as Markdown text: control and invisible characters made visible, every character
/// Markdown or HTML gives a meaning escaped, one line.
pub fn text(s: &str) -> String {
    let clean = crate::text::sanitize(s);
    let mut out = String::with_capacity(clean.len() + 8);
    for c in clean.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            // Emphasis, code, links and images, tables, strikethrough, headings; `:` so a
            // name cannot become an autolink.
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '!' | '#' | ':' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as inline code: nothing inside is Markdown, so only a backtick (which would end it) and
/// a pipe (which would end a table cell) are replaced.
pub fn code(s: &str) -> String {
    let clean = crate::text::sanitize(s).replace(['\n', '\r'], " ");
    format!("`{}`", clean.replace('`', "'").replace('|', "\\|"))
}

/// `s` inside an HTML element (`<summary>`): entities only.
fn html(s: &str) -> String {
    crate::text::sanitize(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace(['\n', '\r'], " ")
}

/// A time in µs, as every output writes it ([`crate::profile::output::fixed`]).
fn micros(us: f64) -> String {
    format!("{} µs", crate::profile::output::fixed(us, 2))
}

/// A difference in µs with its sign.
fn signed(us: f64) -> String {
    let shown = crate::profile::output::fixed(us.abs(), 2);
    if us < 0.0 && shown != "0.00" {
        format!("−{shown} µs")
    } else {
        format!("+{shown} µs")
    }
}

/// A time of the account (ns) in µs, as every output writes it.
fn micros_ns(ns: i64) -> String {
    format!("{} µs", crate::profile::output::micros(ns))
}

/// A difference of the account (ns) in µs with its arrow, as every output writes it.
fn delta_ns(ns: i64) -> String {
    format!("{} µs", crate::profile::output::delta_micros(ns))
}

/// Opens a `<details>` section titled `summary`.
fn details(out: &mut String, summary: &str) {
    let _ = write!(out, "\n<details><summary>{}</summary>\n\n", html(summary));
}

fn end_details(out: &mut String) {
    out.push_str("\n</details>\n");
}

/// The pull request report of `report` (its plan is `what_if`'s), with `diff` when profiles
/// were compared.
pub fn pr_report(report: &Report, what_if: &WhatIf, diff: Option<&Diff>) -> String {
    let scopes: Vec<ScopeReport> = what_if
        .plan()
        .scopes
        .iter()
        .map(|s| ScopeReport::new(what_if, s, true))
        .collect();
    let mut breaks: Vec<(&str, &BreakReport)> = scopes
        .iter()
        .flat_map(|s| {
            s.breaks
                .iter()
                .filter(|b| b.cuts)
                .map(move |b| (s.name.as_str(), b))
        })
        .collect();
    let cost = |op: &str| {
        diff.and_then(|d| d.per_op.as_ref())
            .and_then(|p| p.breaks.iter().find(|b| b.op == op))
            .map_or(0.0, |b| b.cost_us())
    };
    breaks.sort_by(|a, b| cost(&b.1.op).total_cmp(&cost(&a.1.op)));
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "### SuperKernel plan of {}\n", code(&report.file));
    out.push_str("| | |\n|---|---|\n");
    let _ = writeln!(
        out,
        "| outcome | **{}** — {} scope(s) → {} segment(s), {} break(s) |",
        text(report.outcome),
        s.scopes,
        s.segments,
        s.breaks
    );
    if let Some(o) = &report.outcome_detail {
        let _ = writeln!(
            out,
            "| why | {} — fix: {} |",
            text(&o.headline),
            text(&o.fix)
        );
    }
    let _ = writeln!(
        out,
        "| findings | {} error(s), {} warning(s) |",
        s.errors, s.warnings
    );
    if let Some(d) = diff {
        let a = &d.account;
        let _ = writeln!(
            out,
            "| {} | {} → {} ({}, {}) |",
            a.measure.name(),
            micros_ns(a.base.mean_ns),
            micros_ns(a.new.mean_ns),
            delta_ns(a.delta_ns()),
            text(&crate::profile::output::change_words(a))
        );
        let _ = writeln!(
            out,
            "| | {} |",
            text(&crate::profile::output::headline_basis(a))
        );
        let fused = &d.attribution.fused;
        let _ = writeln!(
            out,
            "| fused part (busy time) | {} → {} ({}) |",
            micros(fused.base_us),
            micros(fused.new_us),
            signed(fused.delta_us)
        );
        if let Some(p) = &d.payoffs {
            let classes: Vec<String> = p.classes.iter().map(|(k, n)| format!("{n} {k}")).collect();
            use crate::profile::payoff::PayoffAction;
            let named = |action| {
                let list: Vec<String> = p.with_action(action).into_iter().map(code).collect();
                match list.is_empty() {
                    true => String::new(),
                    false => format!(" — {} {}", action.words(), list.join(", ")),
                }
            };
            let _ = writeln!(
                out,
                "| SuperKernels | {}{}{} |",
                classes.join(" · "),
                named(PayoffAction::Prune),
                named(PayoffAction::Block)
            );
        }
    }
    if !breaks.is_empty() {
        let _ = writeln!(
            out,
            "\n**Breaks{}** ({} of {}):\n",
            if diff.is_some() {
                ", costliest first"
            } else {
                ""
            },
            breaks.len().min(HEAD_BREAKS),
            breaks.len()
        );
        break_table(
            &mut out,
            &breaks[..breaks.len().min(HEAD_BREAKS)],
            diff.is_some(),
            &cost,
        );
    }
    // The rest, folded.
    details(
        &mut out,
        &format!("Scopes → segments ({} → {})", s.scopes, s.segments),
    );
    out.push_str("| scope | status | segments | breaks |\n|---|---|---:|---:|\n");
    for sc in &scopes {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            text(&sc.name),
            text(&sc.status_words),
            sc.segment_count,
            sc.break_count
        );
    }
    end_details(&mut out);
    if breaks.len() > HEAD_BREAKS {
        details(&mut out, &format!("Every break ({})", breaks.len()));
        break_table(&mut out, &breaks, diff.is_some(), &cost);
        end_details(&mut out);
    }
    let findings: Vec<String> = report
        .findings
        .iter()
        .chain(scopes.iter().flat_map(|s| &s.findings))
        .map(|f| {
            format!(
                "- {}{}: {}",
                text(&format!("{:?}", f.severity).to_lowercase()),
                f.op.as_deref()
                    .map_or(String::new(), |o| format!(" ({})", text(o))),
                text(&f.message)
            )
        })
        .collect();
    if !findings.is_empty() {
        details(&mut out, &format!("Findings ({})", findings.len()));
        out.push_str(&findings.join("\n"));
        out.push('\n');
        end_details(&mut out);
    }
    if let Some(d) = diff {
        waterfall(&mut out, &d.account);
        if let Some(p) = &d.payoffs {
            details(
                &mut out,
                &format!("Each SuperKernel's payoff ({})", p.list.len()),
            );
            let _ = writeln!(
                out,
                "{}.\n\n| segment | sub-ops | Δ/step | without | with | Δ | payoff | action |\n\
                 |---|---:|---:|---:|---:|---:|---|---|",
                text(crate::profile::output::PER_STEP_AND_OCCURRENCE)
            );
            for x in &p.list {
                let median = |s: &Option<crate::profile::spread::Spread>| {
                    s.as_ref().map_or("—".to_string(), |s| micros(s.median_us))
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} |",
                    text(&x.segment),
                    x.sub_ops,
                    d.account
                        .superkernel(&x.fused_node)
                        .map_or("—".to_string(), |part| delta_ns(part.delta_ns)),
                    median(&x.base),
                    median(&x.new),
                    x.delta_us.map_or("—".to_string(), signed),
                    x.verdict(),
                    x.action.words()
                );
            }
            let why_not: Vec<String> = p
                .list
                .iter()
                .flat_map(|x| {
                    x.why_not.iter().map(move |d| {
                        format!(
                            "- {}: {}",
                            text(&x.segment),
                            text(&crate::profile::output::why_not_line(d))
                        )
                    })
                })
                .collect();
            if !why_not.is_empty() {
                let _ = writeln!(
                    out,
                    "\nWhy the neutral and regressed ones did not pay (hypotheses until a \
                     single-variable A/B confirms them):\n\n{}",
                    why_not.join("\n")
                );
            }
            end_details(&mut out);
        }
        if let Some(steps) = &d.steps {
            let a = &d.account;
            let measure = a.measure.name();
            details(&mut out, &format!("Per step ({})", steps.base.list.len()));
            let _ = writeln!(
                out,
                "| step | {measure} without | with | Δ |\n|---|---:|---:|---:|"
            );
            let value = |t: &crate::profile::steps::StepTime| match a.measure {
                crate::profile::account::Measure::StepTime => t.span_us.unwrap_or(t.kernels_us),
                crate::profile::account::Measure::BusyTime => t.kernels_us,
            };
            for b in &steps.base.list {
                let new = steps.new.list.iter().find(|n| n.step == b.step);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    text(&b.step),
                    micros(value(b)),
                    new.map_or("—".to_string(), |n| micros(value(n))),
                    new.map_or("—".to_string(), |n| signed(value(n) - value(b)))
                );
            }
            end_details(&mut out);
        }
    }
    let _ = writeln!(
        out,
        "\n<sub>made by skope from {}</sub>",
        html(&report.file)
    );
    cap(out)
}

/// Where the time went: the account's waterfall, base → new, folded.
fn waterfall(out: &mut String, a: &crate::profile::account::Account) {
    if a.waterfall.is_empty() {
        return;
    }
    let measure = a.measure.name();
    details(out, &format!("Where the time went ({measure}, per step)"));
    out.push_str("| part | without | with | Δ |\n|---|---:|---:|---:|\n");
    for p in &a.waterfall {
        let name = match p.kind {
            crate::profile::account::PartKind::Superkernel => format!("SuperKernel {}", p.name),
            _ => p.name.clone(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            text(&name),
            micros_ns(p.base_ns),
            micros_ns(p.new_ns),
            delta_ns(p.delta_ns)
        );
    }
    let _ = writeln!(
        out,
        "| **{measure}** | **{}** | **{}** | **{}** |",
        micros_ns(a.base.mean_ns),
        micros_ns(a.new.mean_ns),
        delta_ns(a.delta_ns())
    );
    end_details(out);
}

fn break_table(
    out: &mut String,
    breaks: &[(&str, &BreakReport)],
    timed: bool,
    cost: &dyn Fn(&str) -> f64,
) {
    out.push_str(if timed {
        "| op | scope | reason | fix | cost a step |\n|---|---|---|---|---:|\n"
    } else {
        "| op | scope | reason | fix |\n|---|---|---|---|\n"
    });
    for (scope, b) in breaks {
        let _ = write!(
            out,
            "| {} ({}) | {} | {} | {} |",
            text(&b.op),
            text(&b.op_type),
            text(scope),
            text(&b.reason),
            text(&b.suggestion)
        );
        if timed {
            let _ = write!(out, " {} |", micros(cost(&b.op)));
        }
        out.push('\n');
    }
}

/// The fusion diff of two graphs for a pull request: the counts, then each change.
pub fn fusion_diff(d: &crate::fusion_diff::FusionDiff) -> String {
    use crate::fusion_diff::Change;
    let mut out = format!(
        "### Fusion diff: {} → {}\n\n{} op(s) matched by name, {} renamed, {} only in A, {} only \
         in B.\n",
        code(&d.a),
        code(&d.b),
        d.matched,
        d.renamed.len(),
        d.only_a,
        d.only_b
    );
    if d.is_empty() {
        out.push_str("\nSame fusion: no scope, segment or break differs.\n");
        return cap(out);
    }
    let how = |c: &Change| match c {
        Change::Added => "added".to_string(),
        Change::Removed => "removed".to_string(),
        Change::Changed(h) => text(h),
    };
    let _ = write!(out, "\n| | scope | change |\n|---|---|---|\n");
    for s in &d.scopes {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            s.change.sign(),
            text(&s.scope),
            how(&s.change)
        );
    }
    let _ = write!(
        out,
        "\n| | segment | scope | ops | change |\n|---|---|---|---:|---|\n"
    );
    for s in &d.segments {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            s.change.sign(),
            text(&s.segment),
            text(&s.scope),
            s.ops,
            how(&s.change)
        );
    }
    let _ = write!(
        out,
        "\n| | break | scope | reason | change |\n|---|---|---|---|---|\n"
    );
    for b in &d.breaks {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            b.change.sign(),
            text(&b.op),
            text(&b.scope),
            text(&b.reason),
            how(&b.change)
        );
    }
    if !d.renamed.is_empty() {
        details(&mut out, &format!("Renamed ops ({})", d.renamed.len()));
        for (a, b) in &d.renamed {
            let _ = writeln!(out, "- {} → {}", code(a), code(b));
        }
        end_details(&mut out);
    }
    cap(out)
}

/// `body` cut to what a pull request takes, saying so.
pub fn cap(body: String) -> String {
    if body.len() <= MAX_BODY {
        return body;
    }
    let note = "\n\n> [!NOTE]\n> Cut to GitHub's 65,536 bytes: `skope report --markdown -o FILE` \
                writes it whole.\n";
    let mut end = MAX_BODY - note.len();
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = body[..end].to_string();
    out.push_str(note);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_a_dump_cannot_make_markup() {
        let hostile = "a|b *c* [x](http://e) <script>alert(1)</script> # h\n- \u{202e}rtl\u{1b}[2J";
        let t = text(hostile);
        assert!(!t.contains("<script>") && !t.contains('\n') && !t.contains('\u{1b}'));
        assert!(t.contains("a\\|b") && t.contains("\\*c\\*") && t.contains("\\[x\\]"));
        assert_eq!(code("a`b|c"), "`a'b\\|c`");
        assert!(t.contains("&lt;script&gt;"));
        assert!(!t.contains('\u{202e}'), "{t}");
        assert_eq!(html("<b>&\"</b>"), "&lt;b&gt;&amp;&quot;&lt;/b&gt;");
    }

    #[test]
    fn a_body_too_long_for_a_pull_request_is_cut_on_a_character() {
        let long = "é".repeat(MAX_BODY);
        let cut = cap(long);
        assert!(cut.len() <= MAX_BODY && cut.ends_with("writes it whole.\n"));
    }
}
