//! The comparison as text (readable without colour: every delta has a sign and an arrow, `▲`
//! for more time, a regression, and `▼` for less) and as CSV. JSON is the [`Diff`]'s serde
//! form.

use super::attribution::FusedEvidence;
use super::diff::{Diff, DiffRow, Side, StepsPair};
use super::payoff::Payoffs;
use super::ranks::RanksDiff;
use super::spread::Spread;
use crate::text::{cut_middle, sanitize};
use std::borrow::Cow;
use std::fmt::Write as _;

/// Below this many µs a delta counts as none.
const EPSILON: f64 = 0.0005;

/// `+1.25` / `−1.25` / `0.00`.
fn signed(v: f64) -> String {
    if v > EPSILON {
        format!("+{v:.2}")
    } else if v < -EPSILON {
        format!("−{:.2}", -v)
    } else {
        "0.00".to_string()
    }
}

/// A delta in µs with its arrow: `▲ +1.25` (more time), `▼ −1.25` (less), `= 0.00`.
pub fn delta(v: f64) -> String {
    let arrow = if v > EPSILON {
        "▲"
    } else if v < -EPSILON {
        "▼"
    } else {
        "="
    };
    format!("{arrow} {}", signed(v))
}

/// `v` with `places` decimals, never `-0.00`: a value that rounds to zero prints unsigned.
pub fn fixed(v: f64, places: usize) -> String {
    let text = format!("{v:.places$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => text,
    }
}

/// The overall benefit `(base − new) / base` in words: `benefit 10.82 % (faster with
/// SuperKernel)`, `benefit −3.10 % (slower with SuperKernel: a regression)`; `fusion` names
/// what the new side has (see [`super::Diff::fusion`]).
pub fn benefit(b: Option<f64>, fusion: &str) -> String {
    match b {
        Some(b) if fixed(b, 2) == "0.00" => "benefit 0.00 %".to_string(),
        Some(b) if b > 0.0 => format!("benefit {} % (faster with {fusion})", fixed(b, 2)),
        Some(b) => format!(
            "benefit −{} % (slower with {fusion}: a regression)",
            fixed(-b, 2)
        ),
        None => "benefit — (the base has no time)".to_string(),
    }
}

/// The benefit of `d` in words ([`benefit`]), unless no SuperKernel ran in the new profile:
/// then the pair compares no SuperKernel with another run, and a change is not one's doing.
pub fn benefit_words(d: &super::Diff) -> String {
    if d.fusion() == "SuperKernel" && d.attribution.superkernels.is_empty() {
        return format!(
            "change {} (no SuperKernel ran in either profile: nothing here is SuperKernel's doing)",
            pct(d.benefit_pct.map(|b| -b))
        );
    }
    benefit(d.benefit_pct, d.fusion())
}

/// A change in percent with its sign: `+2.65 %`, `−12.74 %`; `—` when there is none.
pub fn pct(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{} %", signed(v)),
        None => "—".to_string(),
    }
}

/// The widest a table cell gets: longer ones lose their middle, so one huge name (a profile
/// can hold anything) neither pads every row nor floods the output.
pub const MAX_CELL: usize = 60;

fn table(out: &mut String, indent: &str, rows: &[Vec<String>], right: &[bool]) {
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
        let _ = writeln!(
            out,
            "{label}  {}  ({})",
            sanitize(&s.root),
            sanitize(&names.join(", "))
        );
    }
    let verdict = benefit_words(d);
    let _ = writeln!(
        out,
        "\n{}  {:.2} µs → {:.2} µs   Δ {} µs   {verdict}",
        if d.steps.is_some() {
            "total per step (kernel time, median step)"
        } else {
            "total"
        },
        d.base_total_us,
        d.new_total_us,
        delta(d.delta_us)
    );
    if let (Some(b), Some(n)) = (d.base_span_us, d.new_span_us) {
        let _ = writeln!(
            out,
            "span per step (first start → last end)      {b:.2} µs → {n:.2} µs   Δ {} µs   {}",
            delta(n - b),
            benefit(d.span_benefit_pct, d.fusion())
        );
    }
    if let Some(s) = &d.steps {
        steps_text(&mut out, s);
    }
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
            "communication  {} µs → {} µs   Δ {} µs   ({}; not in the totals or the benefit)\n",
            fixed(total(c.base), 2),
            fixed(total(c.new), 2),
            delta(c.delta_us),
            types.join(", ")
        );
    }
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
    if let Some(p) = &d.per_op {
        per_op_text(&mut out, p);
    }
    if let Some(p) = &d.payoffs {
        payoffs_text(&mut out, p);
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

fn steps_text(out: &mut String, s: &StepsPair) {
    for (label, steps) in [("base", &s.base), ("new ", &s.new)] {
        let outliers: Vec<&str> = steps.outliers().map(|t| t.step.as_str()).collect();
        let _ = writeln!(
            out,
            "  {label} {} step(s): kernel time {}{}",
            steps.list.len(),
            spread_words(&steps.kernels),
            if outliers.is_empty() {
                String::new()
            } else {
                format!(
                    " · far from the others: step {}",
                    sanitize(&outliers.join(", "))
                )
            }
        );
    }
}

/// A time or a dot.
fn us(v: Option<f64>) -> String {
    v.map_or("·".to_string(), |v| format!("{v:.2}"))
}

fn payoffs_text(out: &mut String, p: &Payoffs) {
    let r = p.rule;
    let _ = writeln!(
        out,
        "\nsuperkernels · did each pay? Per occurrence: without = its kernels' interval (first \
         start → last end), with = the SuperKernel's duration; medians; noise threshold \
         max({} × 1.4826 × √(MADwithout² + MADwith²), {} % of without); at least {} occurrences \
         a side · against {}",
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
            "without µs",
            "kernels µs",
            "gaps µs",
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
            us(x.base.map(|s| s.median_us)),
            us(x.base_kernels.map(|s| s.median_us)),
            us(x.gap_us),
            us(x.new.map(|s| s.median_us)),
            x.delta_us.map_or("—".to_string(), delta),
            pct(x.change_pct),
            us(x.threshold_us),
            x.class.words().to_string(),
            x.action.words().to_string(),
        ]);
    }
    let right = [
        false, true, true, true, true, true, true, true, true, true, false, false,
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
        let words = format!("{} — {}", x.class.words(), x.why);
        match whys.iter_mut().find(|(w, _)| *w == words) {
            Some((_, names)) => names.push(&x.segment),
            None => whys.push((words, vec![&x.segment])),
        }
    }
    for (words, names) in whys {
        let _ = writeln!(
            out,
            "  {}: {}",
            sanitize(&names.join(", ")),
            sanitize(&words)
        );
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

fn per_op_text(out: &mut String, p: &super::per_op::PerOp) {
    let _ = writeln!(
        out,
        "\nsegments · without SuperKernel (base kernels of the segment's ops) → with (its \
         SuperKernel){}",
        if p.inferred {
            " · ~ inferred from the profiles' kernel names"
        } else {
            ""
        }
    );
    let mut rows = vec![
        [
            "segment",
            "ops · type",
            "without µs",
            "with µs",
            "Δ µs",
            "change",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for s in &p.segments {
        rows.push(vec![
            format!(
                "{}{}",
                if p.inferred { "~ " } else { "" },
                sanitize(&s.segment)
            ),
            s.ops.len().to_string(),
            format!("{:.2}", s.base_us),
            s.new_us.map_or("·".to_string(), |v| format!("{v:.2}")),
            s.delta_us.map_or("—".to_string(), delta),
            pct(s.change_pct),
        ]);
        for op in &s.ops {
            rows.push(vec![
                format!("    {}", sanitize(&op.name)),
                sanitize(op.op_type.as_deref().unwrap_or("?")).into_owned(),
                op.total_us.map_or("·".to_string(), |v| format!("{v:.2}")),
                String::new(),
                String::new(),
                String::new(),
            ]);
        }
    }
    table(out, "  ", &rows, &[false, false, true, true, true, true]);
    if !p.unmatched_superkernels.is_empty() {
        let _ = writeln!(
            out,
            "  note: {} SuperKernel kernel(s) of the new profile match no segment of the plan: {}",
            p.unmatched_superkernels.len(),
            sanitize(&p.unmatched_superkernels.join(", "))
        );
    }
    if p.breaks.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nbreaks · by the time of the unfused ops around them{}",
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
    let mut rows = vec![
        [
            "rank",
            "per step without µs",
            "with µs",
            "Δ µs",
            "benefit",
            "payoffs",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for k in &r.ranks {
        let counts: Vec<String> = k.classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
        rows.push(vec![
            k.rank.to_string(),
            format!("{:.2}", k.base_total_us),
            format!("{:.2}", k.new_total_us),
            delta(k.new_total_us - k.base_total_us),
            pct(k.benefit_pct),
            counts.join(" · "),
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
