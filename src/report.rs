//! The `skope report` output: a plan in words an engineer can act on, as text or JSON.
//!
//! Every string taken from the dump is sanitised in the text form; the JSON form carries the
//! strings as they are (JSON escaping makes them safe).

use crate::fix::WhatIf;
use crate::fusion::Severity;
use crate::fusion::marks::OpMark;
use crate::fusion::options::{OptionKind, OptionSpec, SCHEMA, SkOptions};
use crate::fusion::plan::{
    Break, BreakReason, Context, Finding, KernelInfo, Plan, ScopePlan, Segment, describe_reason,
};
use crate::fusion::verdict::Evidence;
use crate::fusion::verify::{Mismatch, Verification};
use crate::text::counted;
use crate::text::sanitize;
use serde::Serialize;
use std::fmt::Write;

/// The whole report.
#[derive(Debug)]
pub struct Report {
    /// The dump file.
    pub file: String,
    /// Its format id.
    pub format: String,
    /// The graph name.
    pub graph: String,
    /// Ops in the graph.
    pub ops: usize,
    /// True when the dump was taken after the kernels were compiled.
    pub compiled: bool,
    /// Rules files in effect, in order.
    pub rules: Vec<String>,
    /// The hardware the graph is planned for, and how skope knows it.
    pub target: crate::target::TargetChoice,
    /// `ok`, `build_fails` (GE fails the graph build: no SuperKernel anywhere) or
    /// `no_superkernel` (GE skips the pass for the whole graph).
    pub outcome: &'static str,
    /// Why, when the outcome is not `ok`.
    pub outcome_detail: Option<OutcomeReport>,
    /// Counts.
    pub summary: Summary,
    /// When the plan rests on assumed verdicts: how many, and the plan if none holds
    /// (set by the caller that has it; `None` otherwise).
    pub assumed: Option<AssumedReport>,
    /// One entry per scope.
    pub scopes: Vec<ScopeReport>,
    /// Findings about the graph as a whole.
    pub findings: Vec<FindingReport>,
    /// Text the caller puts between the header and the scopes in the text forms (the
    /// whole-model scope, what `--verify` found, the compiled SuperKernels).
    pub lead: String,
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.serialize_with_scopes(s, &self.scopes)
    }
}

/// The full report as JSON, each scope's segments and breaks built as the scope is written
/// ([`Report::full_json`]).
pub struct FullJson<'r> {
    report: &'r Report,
    scopes: ScopesAsWritten<'r>,
}

impl Serialize for FullJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.report.serialize_with_scopes(s, &self.scopes)
    }
}

/// The kept scopes of a plan, each reported in full as it is written.
struct ScopesAsWritten<'r> {
    report: &'r Report,
    what_if: &'r WhatIf<'r>,
}

impl Serialize for ScopesAsWritten<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for scope in self.report.kept_scopes(self.what_if.plan()) {
            seq.serialize_element(&ScopeReport::new(self.what_if, scope, true))?;
        }
        seq.end()
    }
}

/// Why the graph does not build with its SuperKernels.
#[derive(Debug, Serialize)]
pub struct OutcomeReport {
    /// `✗ build fails: …`, for the text form.
    #[serde(skip)]
    pub headline: String,
    /// What happens, in words.
    pub message: String,
    /// GE's own message, word for word.
    pub ge_message: String,
    /// The SuperKernel compiler's message for the same input, where it gives one.
    pub compiler_message: Option<String>,
    /// The op it happens at.
    pub op: Option<String>,
    /// The scope it happens in.
    pub scope: Option<String>,
    /// What to change.
    pub fix: String,
}

/// Counts over the plan.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Scopes.
    pub scopes: usize,
    /// Segments (SuperKernels).
    pub segments: usize,
    /// Breaks.
    pub breaks: usize,
    /// Findings that fail the build.
    pub errors: usize,
    /// Other findings.
    pub warnings: usize,
}

/// The other end of a plan resting on assumed verdicts, for the report.
#[derive(Debug, Serialize)]
pub struct AssumedReport {
    /// Scope members assumed fusible (AscendC kernels) in the plan as made.
    pub ops: usize,
    /// The plan if none of them is fusible.
    pub if_none_fusible: RangeEnd,
}

/// Counts at one end of the range.
#[derive(Debug, Serialize)]
pub struct RangeEnd {
    /// Segments.
    pub segments: usize,
    /// Breaks.
    pub breaks: usize,
}

/// One scope.
#[derive(Debug, Serialize)]
pub struct ScopeReport {
    /// Scope name.
    pub name: String,
    /// Options string of its first op.
    pub options: String,
    /// `fused`, `split`, `unfused`, `dropped`, `aborted`, `not_built` or `skipped`.
    pub status: &'static str,
    /// The status in words, saying what it rests on (`fused if 3 assumed ops are AscendC`).
    #[serde(skip)]
    pub status_words: String,
    /// Members whose fusibility is assumed (nothing in the dump or rules says).
    pub assumed: usize,
    /// Number of members.
    pub members: usize,
    /// Number of segments (also with `--summary`, which leaves the list out).
    pub segment_count: usize,
    /// Number of breaks (also with `--summary`, which leaves the list out).
    pub break_count: usize,
    /// Its segments.
    pub segments: Vec<SegmentReport>,
    /// Its breaks.
    pub breaks: Vec<BreakReport>,
    /// Its findings.
    pub findings: Vec<FindingReport>,
    /// Who marked it, when not the model code (HCCL's scope of AIV-expanded collectives).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked_by: Option<&'static str>,
}

/// Who marks the scope [`crate::graph::HCCL_AIV_SCOPE`].
const HCCL_MARKS: &str = "HCCL: HcomGraphOptimizer::SetSuperKernelScopeAttr marks its \
                          AIV-expanded collectives with it; it is not in the model code";

impl ScopeReport {
    /// The report of scope `s`; with `full`, its segments and breaks one by one too.
    pub fn new(what_if: &WhatIf, s: &ScopePlan, full: bool) -> ScopeReport {
        let cx = what_if.cx();
        let findings =
            |f: &[Finding]| -> Vec<FindingReport> { f.iter().map(|f| finding(cx, f)).collect() };
        ScopeReport {
            name: s.name.clone(),
            options: s.options.clone(),
            status: s.status.name(),
            status_words: s.status_words(),
            assumed: s.assumed,
            members: s.members.len(),
            segment_count: s.segments.len(),
            break_count: s.breaks.len(),
            segments: s
                .segments
                .iter()
                .filter(|_| full)
                .map(|seg| SegmentReport::new(cx, seg))
                .collect(),
            breaks: s
                .breaks
                .iter()
                .filter(|_| full)
                .map(|b| BreakReport::new(what_if, s, b))
                .collect(),
            findings: findings(&s.findings),
            marked_by: (s.name == crate::graph::HCCL_AIV_SCOPE).then_some(HCCL_MARKS),
        }
    }
}

/// One segment.
#[derive(Debug, Serialize)]
pub struct SegmentReport {
    /// GE's name (`<scope>_split_<a>_<b>` or the scope name).
    pub name: String,
    /// The SuperKernel node name.
    pub fused_node: String,
    /// The stream id the SuperKernel runs on.
    pub stream: i64,
    /// The streams its sub-ops were on, in order of first use (two for a segment fused over
    /// two streams).
    pub streams: Vec<i64>,
    /// Sub-op names in order.
    pub ops: Vec<String>,
    /// Options it is compiled with.
    pub options: String,
    /// `MIX_AIC_1_2` etc.; `null` when unknown or failing.
    pub kernel_type: Option<&'static str>,
    /// Block dim; `null` when unknown or failing.
    pub block_dim: Option<u64>,
    /// Why the kernel type is unknown or fails, when it is.
    pub kernel_note: Option<String>,
}

/// One break.
#[derive(Debug, Serialize)]
pub struct BreakReport {
    /// Op name.
    pub op: String,
    /// Op type.
    #[serde(rename = "type")]
    pub op_type: String,
    /// Stream id.
    pub stream: i64,
    /// The reason in words.
    pub reason: String,
    /// A stable code for the reason.
    pub reason_code: &'static str,
    /// `dump`, `rules`, `assumed`, or `edit` when an edit of the scopes decided.
    pub evidence: &'static str,
    /// The facts behind it.
    pub detail: String,
    /// What to do about it.
    pub suggestion: String,
    /// False when the op is left out without splitting the scope, or trips the scope's
    /// strict-scope-check instead.
    pub cuts: bool,
    /// True when it lies between the scope's first and last member on its stream.
    pub in_range: bool,
    /// The scope's op before it on the same stream.
    pub before: Option<String>,
    /// The scope's op after it on the same stream.
    pub after: Option<String>,
}

impl SegmentReport {
    /// Segment `seg` in words.
    pub fn new(cx: &Context, seg: &Segment) -> SegmentReport {
        let (kernel_type, block_dim, kernel_note) = match &seg.kernel {
            KernelInfo::Known(k) => (
                Some(k.kernel_type.name()),
                Some(k.block_dim),
                seg.ratio_assumed.then(|| {
                    "a sub-op's core type is only \"mixed\" and the dump has no _task_ratio_cube_vector: AIC:AIV 1:2 assumed".to_string()
                }),
            ),
            KernelInfo::Unknown => (
                None,
                None,
                Some("unknown: a sub-op has no _cube_vector_core_type or block dim".to_string()),
            ),
            KernelInfo::Fails(e) => (None, None, Some(e.clone())),
            KernelInfo::Composite => (
                None,
                None,
                Some(
                    "a MindSpore composite: its kernel is built by the graph kernel generator \
                     (AKG or DVM), not a SuperKernel"
                        .to_string(),
                ),
            ),
        };
        let graph = cx.graph();
        let mut streams: Vec<i64> = Vec::new();
        for &id in &seg.ops {
            let stream = cx.streams()[cx.stream_of(id) as usize].id;
            if !streams.contains(&stream) {
                streams.push(stream);
            }
        }
        SegmentReport {
            name: seg.name.clone(),
            fused_node: seg.fused_node.clone(),
            stream: cx.streams()[seg.stream as usize].id,
            streams,
            ops: seg
                .ops
                .iter()
                .map(|&id| graph.op(id).name.clone())
                .collect(),
            options: seg.options.clone(),
            kernel_type,
            block_dim,
            kernel_note,
        }
    }
}

/// One finding.
#[derive(Debug, Serialize)]
pub struct FindingReport {
    /// `error` or `warning`.
    pub severity: Severity,
    /// The op concerned.
    pub op: Option<String>,
    /// What happens.
    pub message: String,
}

/// A finding with the scope it is about (none: the graph's), for the JSON's list of every
/// finding.
#[derive(Debug, Serialize)]
struct PlacedFinding<'a> {
    severity: Severity,
    scope: Option<&'a str>,
    op: Option<&'a str>,
    message: &'a str,
}

/// How much of each scope a report holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every segment and break.
    Full,
    /// Each scope's status and counts only (`--summary`): its segments and breaks are not put
    /// in words at all, which on a graph of tens of thousands of breaks is most of the work.
    Summary,
}

impl Report {
    /// Builds the report of the plan of `what_if` with `detail` (a full report checks each
    /// break's fix by planning it).
    pub fn new(
        what_if: &WhatIf,
        file: &str,
        format: &str,
        rules: &[String],
        detail: Detail,
    ) -> Report {
        let full = detail == Detail::Full;
        let (cx, plan) = (what_if.cx(), what_if.plan());
        let graph = cx.graph();
        let findings =
            |f: &[Finding]| -> Vec<FindingReport> { f.iter().map(|f| finding(cx, f)).collect() };
        let scopes = plan
            .scopes
            .iter()
            .map(|s| ScopeReport::new(what_if, s, full))
            .collect();
        let error_findings = plan
            .all_findings()
            .filter(|f| f.severity == Severity::Error)
            .count();
        Report {
            file: file.to_string(),
            format: format.to_string(),
            graph: graph.name().to_string(),
            ops: graph.len(),
            compiled: cx.verdicts().compiled(),
            rules: rules.to_vec(),
            target: cx.target().clone(),
            outcome: plan.outcome.code(),
            outcome_detail: plan.outcome.detail().map(|d| OutcomeReport {
                headline: plan.outcome.headline().unwrap_or_default(),
                message: d.what.clone(),
                ge_message: d.ge_message.clone(),
                compiler_message: d.compiler_message.clone(),
                op: d.op.map(|id| graph.op(id).name.clone()),
                scope: d.scope.clone(),
                fix: d.fix.clone(),
            }),
            summary: Summary {
                scopes: plan.scopes.len(),
                segments: plan.segment_count(),
                breaks: plan.break_count(),
                errors: plan.errors(),
                warnings: plan.all_findings().count() - error_findings,
            },
            assumed: None,
            scopes,
            findings: findings(&plan.findings),
            lead: String::new(),
        }
    }

    /// Notes the plan's assumption range ([`crate::fusion::plan::AssumedRange`]).
    pub fn set_assumed(&mut self, range: Option<crate::fusion::plan::AssumedRange>) {
        self.assumed = range.map(|r| AssumedReport {
            ops: r.ops,
            if_none_fusible: RangeEnd {
                segments: r.segments,
                breaks: r.breaks,
            },
        });
    }

    /// Keeps only the scope named `name`; the error lists the scopes there are.
    pub fn keep_scope(&mut self, name: &str) -> Result<(), String> {
        if !self.scopes.iter().any(|s| s.name == name) {
            let names: Vec<&str> = self
                .scopes
                .iter()
                .map(|s| s.name.as_str())
                .take(20)
                .collect();
            let more = self.scopes.len().saturating_sub(names.len());
            return Err(format!(
                "no scope named {:?}; scopes: {}{}",
                sanitize(name),
                sanitize(&names.join(", ")),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        self.scopes.retain(|s| s.name == name);
        Ok(())
    }

    /// The report as text for a terminal, every dump string sanitised.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = self.write_with_scopes(&mut out, &self.scopes);
        out
    }

    /// The header, then each of `scopes` as it comes.
    fn write_with_scopes<S: std::borrow::Borrow<ScopeReport>>(
        &self,
        out: &mut impl Write,
        scopes: impl IntoIterator<Item = S>,
    ) -> std::fmt::Result {
        self.write_header(out)?;
        for scope in scopes {
            out.write_char('\n')?;
            write_scope(out, scope.borrow());
        }
        Ok(())
    }

    /// [`Report::to_text`] of the full report, for a report built as a
    /// [`Detail::Summary`] of `plan`: each scope's segments and breaks are built as the scope
    /// is written and dropped after it, so memory holds one scope's at a time (a plan of
    /// millions of breaks would otherwise hold them all).
    pub fn write_full_text(&self, out: &mut impl Write, what_if: &WhatIf) -> std::fmt::Result {
        let scopes = self
            .kept_scopes(what_if.plan())
            .map(|scope| ScopeReport::new(what_if, scope, true));
        self.write_with_scopes(out, scopes)
    }

    /// The full report as JSON for a report built as a [`Detail::Summary`] of `plan`, as
    /// [`Report::write_full_text`] writes text.
    pub fn full_json<'r>(&'r self, what_if: &'r WhatIf<'r>) -> FullJson<'r> {
        FullJson {
            report: self,
            scopes: ScopesAsWritten {
                report: self,
                what_if,
            },
        }
    }

    /// The scopes of `plan` this report keeps ([`Report::keep_scope`]), in plan order.
    fn kept_scopes<'p>(&self, plan: &'p Plan) -> impl Iterator<Item = &'p ScopePlan> {
        let kept: std::collections::HashSet<String> =
            self.scopes.iter().map(|s| s.name.clone()).collect();
        plan.scopes
            .iter()
            .filter(move |s| kept.contains(s.name.as_str()))
    }

    /// Serialises the report with `scopes` for its list of scopes.
    fn serialize_with_scopes<S: serde::Serializer>(
        &self,
        s: S,
        scopes: &impl Serialize,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut r = s.serialize_struct("Report", 13)?;
        r.serialize_field("file", &self.file)?;
        r.serialize_field("format", &self.format)?;
        r.serialize_field("graph", &self.graph)?;
        r.serialize_field("ops", &self.ops)?;
        r.serialize_field("compiled", &self.compiled)?;
        r.serialize_field("rules", &self.rules)?;
        r.serialize_field("target", &self.target)?;
        r.serialize_field("outcome", &self.outcome)?;
        r.serialize_field("outcome_detail", &self.outcome_detail)?;
        r.serialize_field("summary", &self.summary)?;
        r.serialize_field("assumed", &self.assumed)?;
        r.serialize_field("scopes", scopes)?;
        r.serialize_field("findings", &self.every_finding())?;
        r.end()
    }

    /// Every finding — the graph's, then each scope's with its scope's name — as the JSON's
    /// top-level `findings` lists them (each scope's are under it too).
    fn every_finding(&self) -> Vec<PlacedFinding<'_>> {
        let graph = self.findings.iter().map(|f| (None, f));
        let scopes = self
            .scopes
            .iter()
            .flat_map(|s| s.findings.iter().map(|f| (Some(s.name.as_str()), f)));
        graph
            .chain(scopes)
            .map(|(scope, f)| PlacedFinding {
                severity: f.severity,
                scope,
                op: f.op.as_deref(),
                message: &f.message,
            })
            .collect()
    }

    /// The lines before the first scope: file, outcome, counts, rules, graph findings.
    fn write_header(&self, out: &mut impl Write) -> std::fmt::Result {
        let s = &self.summary;
        let _ = writeln!(
            out,
            "{} · {} · graph {} · {} ({})",
            sanitize(&self.file),
            self.format,
            sanitize(&self.graph),
            counted(self.ops, "op"),
            if self.format.starts_with("mindspore") {
                "MindSpore graph kernel fusion: the dump's composites decide"
            } else if self.compiled {
                "compiled: dump attributes decide"
            } else {
                "not compiled: the rules table decides"
            }
        );
        if let Some(d) = &self.outcome_detail {
            let _ = writeln!(out, "{}", sanitize(&d.headline));
            let _ = writeln!(out, "    GE: {}", sanitize(&d.ge_message));
            if let Some(c) = &d.compiler_message {
                let _ = writeln!(out, "    SuperKernel compiler: {}", sanitize(c));
            }
            let _ = writeln!(out, "    fix: {}", sanitize(&d.fix));
        }
        let _ = writeln!(
            out,
            "{} → {} · {} · {} · {}",
            counted(s.scopes, "scope"),
            counted(s.segments, "segment"),
            counted(s.breaks, "break"),
            counted(s.errors, "error"),
            counted(s.warnings, "warning")
        );
        if let Some(a) = &self.assumed {
            let _ = writeln!(
                out,
                "assumed: {} scope member(s) taken as AscendC kernels (nothing in the dump or \
                 rules says); if none is: {} segments · {} breaks",
                a.ops, a.if_none_fusible.segments, a.if_none_fusible.breaks
            );
        }
        if !self.rules.is_empty() {
            let _ = writeln!(out, "rules: {}", sanitize(&self.rules.join(", ")));
        }
        if !self.format.starts_with("mindspore") {
            let _ = writeln!(out, "target: {}", self.target.words());
        }
        write_findings(out, "", &self.findings);
        if !self.lead.is_empty() {
            out.write_char('\n')?;
            out.write_str(&self.lead)?;
        }
        Ok(())
    }

    /// The report in short: the header, then one line per scope with its counts.
    pub fn to_summary_text(&self) -> String {
        let mut out = String::new();
        let _ = self.write_header(&mut out);
        out.push('\n');
        for scope in &self.scopes {
            let _ = writeln!(
                out,
                "scope {}: {} · {} members · {} segment(s) · {} break(s) · {} finding(s)",
                sanitize(&scope.name),
                scope.status_words,
                scope.members,
                scope.segment_count,
                scope.break_count,
                scope.findings.len()
            );
        }
        out
    }
}

fn write_scope(out: &mut impl Write, scope: &ScopeReport) {
    let options = if scope.options.is_empty() {
        "no options".to_string()
    } else {
        format!("options \"{}\"", sanitize(&scope.options))
    };
    let _ = writeln!(
        out,
        "scope {}: {} · {} members · {} segment(s) · {}",
        sanitize(&scope.name),
        scope.status_words,
        scope.members,
        scope.segments.len(),
        options
    );
    if let Some(who) = scope.marked_by {
        let _ = writeln!(out, "  marked by {who}");
    }
    for seg in &scope.segments {
        let kernel = match (seg.kernel_type, seg.block_dim) {
            (Some(t), Some(b)) => crate::fusion::kernel::label(t, b),
            _ => "kernel type unknown".to_string(),
        };
        let streams = match seg.streams.as_slice() {
            [_, _, ..] => format!(
                " (sub-ops on streams {})",
                seg.streams
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join("+")
            ),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  ┃ segment {} · stream {}{streams} · {} · {} op(s) → {}",
            sanitize(&seg.name),
            seg.stream,
            kernel,
            seg.ops.len(),
            sanitize(&seg.fused_node)
        );
        let _ = writeln!(out, "      {}", sanitize(&op_list(&seg.ops)));
        if let Some(note) = &seg.kernel_note {
            let _ = writeln!(out, "      note: {}", sanitize(note));
        }
    }
    for b in &scope.breaks {
        let _ = writeln!(
            out,
            "  ✗ break {} ({}) · stream {}: {}{}",
            sanitize(&b.op),
            sanitize(&b.op_type),
            b.stream,
            sanitize(&b.reason),
            b.effect()
        );
        let _ = writeln!(
            out,
            "      evidence: {} — {}",
            b.evidence,
            sanitize(&b.detail)
        );
        if b.before.is_some() || b.after.is_some() {
            let _ = writeln!(
                out,
                "      between: {} … {}",
                sanitize(b.before.as_deref().unwrap_or("(start)")),
                sanitize(b.after.as_deref().unwrap_or("(end)"))
            );
        }
        let _ = writeln!(out, "      fix: {}", sanitize(&b.suggestion));
    }
    write_findings(out, "  ", &scope.findings);
}

fn write_findings(out: &mut impl Write, indent: &str, findings: &[FindingReport]) {
    for f in findings {
        let _ = writeln!(
            out,
            "{indent}! {}: {}",
            f.severity.name(),
            sanitize(&f.message)
        );
    }
}

/// Names joined by ", ", shortened in the middle for long segments.
fn op_list(ops: &[String]) -> String {
    const HEAD: usize = 5;
    const TAIL: usize = 2;
    if ops.len() <= HEAD + TAIL + 1 {
        return ops.join(", ");
    }
    format!(
        "{}, … ({} more) …, {}",
        ops[..HEAD].join(", "),
        ops.len() - HEAD - TAIL,
        ops[ops.len() - TAIL..].join(", ")
    )
}

fn finding(cx: &Context, f: &Finding) -> FindingReport {
    FindingReport {
        severity: f.severity,
        op: f.op.map(|id| cx.graph().op(id).name.clone()),
        message: f.message.clone(),
    }
}

impl BreakReport {
    /// What the break does when it does not cut, in words to put after it: `(left out; no
    /// cut)` or `(trips strict-scope-check)`; empty when it cuts.
    pub fn effect(&self) -> &'static str {
        match (self.cuts, self.in_range) {
            (true, _) => "",
            (false, true) => " (trips strict-scope-check)",
            (false, false) => " (left out; no cut)",
        }
    }

    /// Break `b` of scope `scope` in words: the same words in every front end.
    pub fn new(what_if: &WhatIf, scope_plan: &ScopePlan, b: &Break) -> BreakReport {
        let (cx, marks) = (what_if.cx(), what_if.marks());
        let graph = cx.graph();
        let op = graph.op(b.op);
        let stream = cx.streams()[b.stream as usize].id;
        let verdict = cx.verdicts().get(b.op);
        // Scope marks come from the dump unless an edit changed them.
        let mark = marks.get(b.op);
        let from_dump = match (mark, op.scope()) {
            (OpMark::Member { .. }, Some(dump)) => marks.scope_of(b.op) == Some(dump),
            (OpMark::Unscoped, None) => true,
            _ => false,
        };
        let (evidence, detail) = match b.reason {
            BreakReason::Unsupported(_) => (verdict.evidence.name(), verdict.detail.to_string()),
            BreakReason::OtherScope(_) | BreakReason::Unscoped if from_dump => (
                "dump",
                match op.scope() {
                    Some(s) => format!("_super_kernel_scope = \"{s}\""),
                    None => "no _super_kernel_scope".to_string(),
                },
            ),
            BreakReason::Foreign { .. } => (
                "dump",
                op.attrs
                    .get_str(crate::graph::ATTR_BREAK)
                    .unwrap_or_default()
                    .to_string(),
            ),
            BreakReason::OtherScope(_) | BreakReason::Unscoped | BreakReason::DoNotFuse => (
                Evidence::Edit.name(),
                match marks.scope_of(b.op) {
                    Some(s) => format!("put into scope \"{s}\" by an edit"),
                    None if mark == OpMark::DoNotFuse => "kept out of fusion".to_string(),
                    None => "taken out of its scope by an edit".to_string(),
                },
            ),
        };
        let suggestion = what_if.heal(scope_plan, b).words();
        BreakReport {
            op: op.name.clone(),
            op_type: op.op_type.clone(),
            stream,
            reason: describe_reason(marks, b.reason),
            reason_code: b.reason.code(),
            evidence,
            detail,
            suggestion,
            cuts: b.cuts,
            in_range: b.in_range,
            before: b.before.map(|id| graph.op(id).name.clone()),
            after: b.after.map(|id| graph.op(id).name.clone()),
        }
    }
}

/// The comparison with GE's result as text, every name sanitised.
pub fn verification_text(v: &Verification) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "verify: GE made {} SuperKernel(s); {} predicted exactly, {} difference(s)",
        v.actual.len(),
        v.matched,
        v.mismatches.len()
    );
    for m in &v.mismatches {
        let line = match m {
            Mismatch::NotFused { fused_node, ops } => format!(
                "  ✗ predicted {fused_node} ({}) but GE did not fuse these ops together",
                op_list(ops)
            ),
            Mismatch::Unexpected { fused_node, ops } => format!(
                "  ✗ GE made {fused_node} ({}) which was not predicted",
                op_list(ops)
            ),
            Mismatch::Renamed { predicted, actual } => {
                format!("  ✗ same ops, but GE named it {actual} (predicted {predicted})")
            }
            Mismatch::Unresolved { fused_node } => format!(
                "  ? cannot tell which ops GE fused into {fused_node}: pass its \
                 super_kernel_sub_graph dump too, or check that FILE is the pre-fusion graph"
            ),
        };
        let _ = writeln!(out, "{}", sanitize(&line));
    }
    out
}

/// The values option `spec` takes, in words.
pub fn values_text(spec: &OptionSpec) -> String {
    match spec.kind {
        OptionKind::Choice(choices) => choices
            .iter()
            .map(|c| format!("{} = {}", c.value, c.meaning))
            .collect::<Vec<_>>()
            .join("; "),
        OptionKind::Alignment => "0 or a power of two ≥ 2".to_string(),
        OptionKind::SplitCount => "1 to 64".to_string(),
        OptionKind::CoreCount => "a positive core count".to_string(),
        OptionKind::List => "comma-separated list".to_string(),
    }
}

/// Every SuperKernel option with its values, default and meaning, from the schema.
pub fn options_schema_text() -> String {
    let mut out = String::new();
    for spec in SCHEMA {
        let values = values_text(spec);
        let _ = writeln!(
            out,
            "{}{}\n    values: {values}\n    default: {}\n    {}",
            spec.key,
            if spec.documented {
                ""
            } else {
                "  (code only: not in the CANN documentation)"
            },
            spec.default,
            spec.meaning
        );
    }
    out
}

/// Checks an options string: every problem with GE's own wording, then the canonical form.
/// The flag is false when the SuperKernel compile would fail.
pub fn options_check_text(text: &str) -> (String, bool) {
    let options = SkOptions::parse(text);
    let mut out = String::new();
    for d in options.diagnostics() {
        let severity = d.severity.name();
        let part = text.get(d.span.clone()).unwrap_or("").trim();
        let _ = writeln!(
            out,
            "{severity}: {}: {}\n    GE: {}",
            sanitize(part),
            sanitize(&d.message),
            sanitize(&d.ge_message)
        );
    }
    if options.omitted() > 0 {
        let _ = writeln!(out, "… and {} more problem(s)", options.omitted());
    }
    let _ = writeln!(out, "canonical: {}", sanitize(&options.canonical()));
    (out, options.first_error().is_none())
}
