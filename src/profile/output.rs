//! The comparison as text (readable without colour: every delta has a sign and an arrow, `▲`
//! for more time, a regression, and `▼` for less) and as CSV. JSON is the [`Diff`]'s serde
//! form.

use super::account::{Account, Measure, PartKind};
use super::attribution::FusedEvidence;
use super::diff::{Diff, DiffRow, Side, StepsPair};
pub use super::figures::{delta, delta_micros, fixed, micros, pct};
use super::payoff::Payoffs;
use super::ranks::RanksDiff;
use super::spread::Spread;
use crate::text::{cut_middle, sanitize};
use std::borrow::Cow;
use std::fmt::Write as _;

/// The account's change in words: `19.69 % faster with SuperKernel`, `3.10 % slower with
/// SuperKernel: a regression`; when no SuperKernel ran in the new profile, a plain A/B: `the
/// new profile is 19.69 % faster (no SuperKernel ran in it: nothing here is SuperKernel's
/// doing)`.
pub fn change_words(a: &Account) -> String {
    let Some(c) = a.change_pct else {
        return "— (the base took no time)".to_string();
    };
    let shown = fixed(c.abs(), 2);
    let way = if c > 0.0 { "faster" } else { "slower" };
    match a.fusion {
        _ if shown == "0.00" => "no change".to_string(),
        Some(fusion) if c > 0.0 => format!("{shown} % faster with {fusion}"),
        Some(fusion) => format!("{shown} % slower with {fusion}: a regression"),
        None => format!(
            "the new profile is {shown} % {way} (no SuperKernel ran in it: a plain A/B, nothing \
             here is SuperKernel's doing)"
        ),
    }
}

/// A change in a few words, as a table cell: `19.69 % faster`, `3.00 % slower`, `no change`;
/// `—` when the base took no time.
pub fn change_short(change_pct: Option<f64>) -> String {
    let Some(c) = change_pct else {
        return "—".to_string();
    };
    match fixed(c.abs(), 2) {
        shown if shown == "0.00" => "no change".to_string(),
        shown if c > 0.0 => format!("{shown} % faster"),
        shown => format!("{shown} % slower"),
    }
}

/// One regression class a SuperKernel shows, in a line: `serialised (evidence medium): … ·
/// open: …`.
pub fn why_not_line(d: &super::regression::Diagnosis) -> String {
    format!(
        "{} (evidence {}): {} · open: {}",
        d.class.words(),
        d.level.words(),
        d.rests_on,
        d.open
    )
}

/// The account's headline, the same words in every output: `step time  624.94 µs → 501.89 µs
/// Δ ▼ −123.05 µs   19.69 % faster with SuperKernel`.
pub fn headline(a: &Account) -> String {
    format!(
        "{}  {} µs → {} µs   Δ {} µs   {}",
        a.measure.name(),
        micros(a.base.mean_ns),
        micros(a.new.mean_ns),
        delta_micros(a.delta_ns()),
        change_words(a)
    )
}

/// What the headline's numbers are, in a line: means over the steps kept, the medians beside
/// them, and the busy time apart.
pub fn headline_basis(a: &Account) -> String {
    let (b, n) = (&a.base, &a.new);
    let median = |ns: f64| fixed(ns / 1000.0, 2);
    let mut words = format!(
        "per step: the mean over {} and {} step(s) kept (medians {} → {} µs)",
        b.kept,
        n.kept,
        median(b.median_ns),
        median(n.median_ns)
    );
    if a.measure == Measure::StepTime {
        words.push_str(&format!(
            " · busy time {} → {} µs (kernels' durations added up: parallel work counts twice)",
            micros(b.busy_mean_ns),
            micros(n.busy_mean_ns)
        ));
    } else {
        words.push_str(" · no start times: busy time, the kernels' durations added up");
    }
    words
}

/// The widest a table cell gets: longer ones lose their middle, so one huge name (a profile
/// can hold anything) neither pads every row nor floods the output.
pub const MAX_CELL: usize = 60;

/// `rows` as aligned columns, each line after `indent`; column `i` right-aligned when
/// `right[i]`.
pub fn table(out: &mut String, indent: &str, rows: &[Vec<String>], right: &[bool]) {
    let rows: Vec<Vec<Cow<str>>> = rows
        .iter()
        .map(|row| row.iter().map(|c| cut_middle(c, MAX_CELL)).collect())
        .collect();
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            width[i] = width[i].max(cell.chars().count());
        }
    }
    for row in &rows {
        let mut line = String::from(indent);
        for (i, cell) in row.iter().enumerate() {
            let pad = width[i] - cell.chars().count();
            if i > 0 {
                line.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

fn side_cells(s: Option<Side>) -> [String; 3] {
    match s {
        Some(s) => [
            s.count.to_string(),
            fixed(s.total_us, 2),
            fixed(s.avg_us, 2),
        ],
        None => ["·".into(), "·".into(), "·".into()],
    }
}

fn row_cells(r: &DiffRow) -> Vec<String> {
    let [bn, bt, ba] = side_cells(r.base);
    let [nn, nt, na] = side_cells(r.new);
    vec![
        sanitize(&r.op_type).into_owned(),
        sanitize(&r.core_type).into_owned(),
        bn,
        bt,
        ba,
        nn,
        nt,
        na,
        delta(r.delta_us),
        r.ratio.map_or("—".to_string(), |x| fixed(x, 4)),
        pct(r.change_pct),
        r.status.text().to_string(),
    ]
}

/// The comparison as text.
pub fn to_text(d: &Diff) -> String {
    let mut out = String::new();
    for (label, s) in [("base", &d.base_source), ("new ", &d.new_source)] {
        let mut files: Vec<&str> = s.op_statistic.iter().map(String::as_str).collect();
        files.extend(s.kernels.iter().map(String::as_str));
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                std::path::Path::new(f)
                    .file_name()
                    .map_or_else(|| f.to_string(), |n| n.to_string_lossy().into_owned())
            })
            .collect();
        let digest_of = s
            .digest_of
            .as_ref()
            .map_or(String::new(), |o| format!(", a digest of {o}"));
        let _ = writeln!(
            out,
            "{label}  {}  ({}{})",
            sanitize(&s.root),
            sanitize(&names.join(", ")),
            sanitize(&digest_of)
        );
    }
    let _ = writeln!(out, "\n{}", headline(&d.account));
    let _ = writeln!(out, "  {}", headline_basis(&d.account));
    if let Some(s) = &d.steps {
        steps_text(&mut out, s, &d.account);
    }
    waterfall_text(&mut out, &d.account);
    out.push('\n');
    if let Some(c) = &d.communication {
        let total = |s: Option<Side>| s.map_or(0.0, |s| s.total_us);
        let types: Vec<String> = c
            .rows
            .iter()
            .map(|r| sanitize(&r.op_type).into_owned())
            .collect();
        let _ = writeln!(
            out,
            "communication kernels  {} µs → {} µs busy   Δ {} µs   ({}; apart from the table \
             below)\n",
            fixed(total(c.base), 2),
            fixed(total(c.new), 2),
            delta(c.delta_us),
            types.join(", ")
        );
    }
    out.push_str("busy time by op type, per step\n");
    let mut rows = vec![
        [
            "OP Type",
            "Core Type",
            "base n",
            "base µs",
            "base avg",
            "new n",
            "new µs",
            "new avg",
            "Δ µs",
            "new/base",
            "change",
            "",
        ]
        .map(String::from)
        .to_vec(),
    ];
    rows.extend(d.rows.iter().map(row_cells));
    let right = [
        false, false, true, true, true, true, true, true, true, true, true, false,
    ];
    table(&mut out, "", &rows, &right);
    out.push_str(
        "▲ more time in the new profile (regression) · ▼ less time · · not run on that side\n",
    );
    attribution_text(&mut out, d);
    if let Some(p) = &d.payoffs {
        payoffs_text(&mut out, p, &d.account);
    }
    if let Some(p) = &d.per_op {
        breaks_text(&mut out, p);
    }
    for note in &d.notes {
        let _ = writeln!(out, "note: {}", sanitize(note));
    }
    out
}

/// One side's steps in a line: their count and the spread of their kernel time.
fn spread_words(s: &Spread) -> String {
    format!(
        "median {:.2} µs (P10–P90 {:.2}–{:.2}, min–max {:.2}–{:.2})",
        s.median_us, s.p10_us, s.p90_us, s.min_us, s.max_us
    )
}

fn steps_text(out: &mut String, s: &StepsPair, a: &Account) {
    for (label, steps, side) in [("base", &s.base, &a.base), ("new ", &s.new, &a.new)] {
        let spread = match (a.measure, &steps.span) {
            (Measure::StepTime, Some(span)) => span,
            _ => &steps.kernels,
        };
        let _ = writeln!(
            out,
            "  {label} {} step(s): {} {}{}",
            side.steps,
            a.measure.name(),
            spread_words(spread),
            if side.left_out.is_empty() {
                String::new()
            } else {
                format!(
                    " · left out, far from the others: step {}",
                    sanitize(&side.left_out.join(", "))
                )
            }
        );
    }
}

/// The waterfall: base → new as the parts that add up to each, per step.
fn waterfall_text(out: &mut String, a: &Account) {
    if a.waterfall.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nwhere the time went · per step, means over the steps kept; the parts add up to the {}",
        a.measure.name()
    );
    let mut rows = vec![
        ["part", "without µs", "with µs", "Δ µs"]
            .map(String::from)
            .to_vec(),
    ];
    for p in &a.waterfall {
        rows.push(vec![
            if p.kind == PartKind::Superkernel {
                format!("SuperKernel {}", sanitize(&p.name))
            } else {
                p.name.clone()
            },
            micros(p.base_ns),
            micros(p.new_ns),
            delta_micros(p.delta_ns),
        ]);
    }
    rows.push(vec![
        a.measure.name().to_string(),
        micros(a.base.mean_ns),
        micros(a.new.mean_ns),
        delta_micros(a.delta_ns()),
    ]);
    table(out, "  ", &rows, &[false, true, true, true]);
}

/// A time or a dot.
fn us(v: Option<f64>) -> String {
    v.map_or("·".to_string(), |v| format!("{v:.2}"))
}

/// What the SuperKernel table's two kinds of figure are, said once wherever both are shown.
pub const PER_STEP_AND_OCCURRENCE: &str = "Δ/step is its part of the waterfall (all its \
     occurrences in a step, the mean over the steps kept); without, with and Δ are the median \
     occurrence's, which the payoff judges";

fn payoffs_text(out: &mut String, p: &Payoffs, a: &Account) {
    let r = p.rule;
    let _ = writeln!(
        out,
        "\nsuperkernels · did each pay? {PER_STEP_AND_OCCURRENCE}. Per occurrence: without = its \
         kernels' interval (first start → last end), with = the SuperKernel's duration; noise \
         threshold max({} × 1.4826 × √(MADwithout² + MADwith²), {} % of without); at least {} \
         occurrences a side · against {}",
        r.noise_k,
        r.floor_pct,
        r.min_occurrences,
        sanitize(&p.plan)
    );
    let mut rows = vec![
        [
            "superkernel",
            "sub-ops",
            "occ",
            "Δ/step µs",
            "without µs",
            "with µs",
            "Δ µs",
            "change",
            "noise µs",
            "payoff",
            "action",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for x in &p.list {
        rows.push(vec![
            sanitize(&x.segment).into_owned(),
            x.sub_ops.to_string(),
            format!(
                "{}/{}",
                x.base.map_or(0, |s| s.count),
                x.new.map_or(0, |s| s.count)
            ),
            a.superkernel(&x.fused_node)
                .map_or("—".to_string(), |part| delta_micros(part.delta_ns)),
            us(x.base.map(|s| s.median_us)),
            us(x.new.map(|s| s.median_us)),
            x.delta_us.map_or("—".to_string(), delta),
            pct(x.change_pct),
            us(x.threshold_us),
            x.verdict(),
            x.action.words().to_string(),
        ]);
    }
    let right = [
        false, true, true, true, true, true, true, true, true, false, false,
    ];
    table(out, "  ", &rows, &right);
    let counts: Vec<String> = p.classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
    let _ = writeln!(out, "  {}", counts.join(" · "));
    // Why each one that is not simply beneficial is what it is; the same words once for all
    // they hold for.
    let mut whys: Vec<(String, Vec<&str>)> = Vec::new();
    for x in p
        .list
        .iter()
        .filter(|x| x.class != super::payoff::PayoffClass::Beneficial)
    {
        let mut words = sanitize(&format!("{} — {}", x.verdict(), x.why)).into_owned();
        for d in &x.why_not {
            words.push_str(&format!("\n    {}", sanitize(&why_not_line(d))));
        }
        match whys.iter_mut().find(|(w, _)| *w == words) {
            Some((_, names)) => names.push(&x.segment),
            None => whys.push((words, vec![&x.segment])),
        }
    }
    for (words, names) in whys {
        let _ = writeln!(out, "  {}: {words}", sanitize(&names.join(", ")));
    }
    if !p.layers.is_empty() {
        let layers: Vec<String> = p
            .layers
            .iter()
            .map(|l| {
                format!(
                    "layer {} {:.2} → {:.2} µs{}",
                    sanitize(&l.layer),
                    l.base_us,
                    l.new_us,
                    if l.regressed > 0 {
                        format!(" ({} regressed)", l.regressed)
                    } else {
                        String::new()
                    }
                )
            })
            .collect();
        let _ = writeln!(out, "  by layer: {}", layers.join(" · "));
    }
    let segments = |fused: &[String]| -> String {
        let names: Vec<&str> = fused
            .iter()
            .map(|f| p.get(f).map_or(f.as_str(), |x| x.segment.as_str()))
            .collect();
        sanitize(&names.join(", ")).into_owned()
    };
    if !p.shallow.is_empty() {
        let _ = writeln!(
            out,
            "  shallow (fewer than {} sub-ops): {}",
            super::payoff::EFFECTIVE_SUB_OPS,
            segments(&p.shallow)
        );
    }
    if !p.single.is_empty() {
        let _ = writeln!(out, "  one sub-op: {}", segments(&p.single));
    }
    for f in &p.findings {
        let _ = writeln!(out, "  finding: {}", sanitize(f));
    }
}

fn attribution_text(out: &mut String, d: &Diff) {
    let a = &d.attribution;
    let _ = writeln!(
        out,
        "\nattribution · fused op types: {}{}",
        a.basis.text(),
        if a.inferred {
            " · ~ marks an inference"
        } else {
            ""
        }
    );
    let part = |name: &str, p: &super::attribution::Part| {
        format!(
            "  {name}  {:.2} µs → {:.2} µs   Δ {} µs ({})\n",
            p.base_us,
            p.new_us,
            delta(p.delta_us),
            pct(p.change_pct)
        )
    };
    out.push_str(&part("fused part", &a.fused));
    let mut rows = Vec::new();
    for t in &a.fused_types {
        rows.push(vec![
            format!(
                "{}{}",
                if t.evidence == FusedEvidence::Inferred {
                    "~ "
                } else {
                    ""
                },
                sanitize(&t.op_type)
            ),
            format!("{:.2} µs", t.base_us),
            format!("{} kernel(s)", t.base_count),
            if t.new_count > 0 {
                format!("→ {} unfused, {:.2} µs", t.new_count, t.new_us)
            } else {
                "→ all fused".to_string()
            },
        ]);
    }
    for sk in &a.superkernels {
        rows.push(vec![
            format!("SuperKernel {}", sanitize(&sk.core_type)),
            format!("{:.2} µs", sk.total_us),
            format!("{} launch(es)", sk.count),
            String::new(),
        ]);
    }
    table(out, "      ", &rows, &[false, true, true, false]);
    out.push_str(&part("rest      ", &a.rest));
    for note in &a.notes {
        let _ = writeln!(out, "  note: {}", sanitize(note));
    }
}

/// The breaks, costliest first, each with its one cost.
fn breaks_text(out: &mut String, p: &super::per_op::PerOp) {
    if p.breaks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nbreaks · costliest first; a break costs the time its unfused ops take a step, running \
         and waiting to launch{}",
        if p.breaks.iter().any(|b| b.from_base) {
            " (base times: the new profile has no kernel file)"
        } else {
            ""
        }
    );
    for (i, b) in p.breaks.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {}. {} ({}) breaks {}: costs {} — {}",
            i + 1,
            sanitize(&b.op),
            sanitize(b.op_type.as_deref().unwrap_or("?")),
            sanitize(&b.scope),
            b.words(),
            sanitize(&b.reason)
        );
        if b.unfused.len() > 1 {
            let names: Vec<String> = b.unfused.iter().map(|o| o.name.clone()).collect();
            let _ = writeln!(out, "     unfused: {}", sanitize(&names.join(", ")));
        }
    }
}

/// The by-type rows as CSV: one line per row, times in µs with 3 decimals, empty cells for a
/// side the type did not run on.
pub fn to_csv(d: &Diff) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let f = |v: f64| fixed(v, 3);
    let mut records: Vec<Vec<String>> = vec![
        [
            "op_type",
            "core_type",
            "status",
            "base_count",
            "base_total_us",
            "base_avg_us",
            "new_count",
            "new_total_us",
            "new_avg_us",
            "delta_us",
            "ratio",
            "change_pct",
        ]
        .map(String::from)
        .to_vec(),
    ];
    let communication = d.communication.iter().flat_map(|c| &c.rows);
    for r in d.rows.iter().chain(communication) {
        let side = |s: Option<Side>| match s {
            Some(s) => [s.count.to_string(), f(s.total_us), f(s.avg_us)],
            None => [String::new(), String::new(), String::new()],
        };
        let [bn, bt, ba] = side(r.base);
        let [nn, nt, na] = side(r.new);
        let status = serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        records.push(vec![
            crate::text::csv_cell(&r.op_type),
            crate::text::csv_cell(&r.core_type),
            status,
            bn,
            bt,
            ba,
            nn,
            nt,
            na,
            f(r.delta_us),
            r.ratio.map_or(String::new(), |x| fixed(x, 4)),
            r.change_pct.map_or(String::new(), f),
        ]);
    }
    for rec in &records {
        // Writing to a Vec cannot fail.
        let _ = w.write_record(rec);
    }
    let bytes = w.into_inner().unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Every rank compared, as text: each rank's totals and payoffs, then each SuperKernel across
/// the ranks with the slowest rank named.
pub fn ranks_to_text(r: &RanksDiff) -> String {
    let mut out = format!(
        "{} ranks compared{}\n\n",
        r.ranks.len(),
        r.slowest_rank
            .map(|s| format!(" · slowest with SuperKernel: rank {s}"))
            .unwrap_or_default()
    );
    let measure = r.ranks.first().map_or("step time", |k| k.measure.name());
    let mut rows = vec![vec![
        "rank".to_string(),
        format!("{measure} without µs"),
        "with µs".to_string(),
        "Δ µs".to_string(),
        "change".to_string(),
        "payoffs".to_string(),
    ]];
    for k in &r.ranks {
        let counts: Vec<String> = k.classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
        rows.push(vec![
            k.rank.to_string(),
            micros(k.base_ns),
            micros(k.new_ns),
            delta_micros(k.new_ns - k.base_ns),
            change_short(k.change_pct),
            if k.fusion.is_none() {
                "no SuperKernel ran".to_string()
            } else {
                counts.join(" · ")
            },
        ]);
    }
    table(
        &mut out,
        "  ",
        &rows,
        &[true, true, true, true, true, false],
    );
    let _ = writeln!(
        out,
        "\nsuperkernels across ranks · the median over the ranks that measured it, and the \
         rank where it took longest"
    );
    let mut rows = vec![
        [
            "superkernel",
            "ranks",
            "median Δ µs",
            "median with µs",
            "slowest",
            "payoffs",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for s in &r.superkernels {
        let counts: Vec<String> = s.classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
        rows.push(vec![
            sanitize(&s.segment).into_owned(),
            s.ranks_measured.to_string(),
            s.median_delta_us.map_or("—".to_string(), delta),
            s.median_new_us
                .map_or("·".to_string(), |v| format!("{v:.2}")),
            s.slowest.map_or("·".to_string(), |(rank, us)| {
                format!("rank {rank} ({us:.2} µs)")
            }),
            counts.join(" · "),
        ]);
    }
    table(
        &mut out,
        "  ",
        &rows,
        &[false, true, true, true, false, false],
    );
    for s in r
        .superkernels
        .iter()
        .filter(|s| !s.regressed_ranks.is_empty())
    {
        let ranks: Vec<String> = s.regressed_ranks.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "  {}: regressed on rank {}",
            sanitize(&s.segment),
            ranks.join(", ")
        );
    }
    // The same note on several ranks once, naming them.
    let mut notes: Vec<(&str, Vec<u32>)> = Vec::new();
    for k in &r.ranks {
        for n in &k.notes {
            match notes.iter_mut().find(|(text, _)| *text == n.as_str()) {
                Some((_, ranks)) => ranks.push(k.rank),
                None => notes.push((n, vec![k.rank])),
            }
        }
    }
    for (text, ranks) in notes {
        let ranks: Vec<String> = ranks.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "note (rank {}): {}", ranks.join(", "), sanitize(text));
    }
    out
}
