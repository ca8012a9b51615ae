//! What the details pane says about the selected op, segment or scope, as styled lines. The
//! words about breaks and segments are the report's ([`BreakReport`], [`SegmentReport`]), so
//! the pane, the text report and the JSON report never disagree. The lines are built here,
//! below the explorer's state, so scrolling knows where the text ends without drawing it, and
//! [`Kept`] once per change of what the pane describes.

use super::profile_view::state::ProfileView;
use super::theme::{Role, Theme};
use crate::fusion::Severity;
use crate::fusion::index::{SegmentRef, break_at, segment_at};
use crate::fusion::marks::OpMark;
use crate::fusion::plan::{Finding, ScopeStatus, describe_reason};
use crate::fusion::verdict::Verdict;
use crate::graph::{Input, OpId, TensorDesc};
use crate::profile::Pair;
use crate::report::{BreakReport, SegmentReport};
use crate::text::sanitize;
use crate::workspace::Workspace;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use std::sync::Arc;

/// Longest attribute value shown; longer ones are cut with their length given.
const MAX_VALUE: usize = 160;
/// Ops the pane plans to check the fixes it lists, per frame.
const DRAW_PLANS: usize = 20_000;
/// Most sub-ops, segments or breaks listed; the rest are counted.
const MAX_LISTED: usize = 100;

/// What the details pane describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// Nothing (the list is empty).
    Nothing,
    /// An op (with the breaks it causes, its segment…).
    Op(OpId),
    /// A segment.
    Segment(SegmentRef),
    /// A scope.
    Scope(u32),
}

/// What the pane's text is made from: the workspace, and the compared profiles when loaded.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The graph, its plan and index.
    pub ws: &'a Workspace,
    /// The profiles compared against the plan, when loaded.
    pub profiles: Option<&'a ProfileView>,
}

/// An op's core type and block dim as the dump gives them (`AIC 24`), if it does.
pub fn core_text(op: &crate::graph::Op) -> Option<String> {
    let core = op.attrs.get_str(crate::fusion::kernel::ATTR_CORE_TYPE)?;
    Some(match op.attrs.get_int("tvm_blockdim") {
        Some(dim) => format!("{core} {dim}"),
        None => core.to_string(),
    })
}

/// The pane's text, built when what it describes changes and kept until it changes again:
/// drawing and scrolling read it, so a frame never builds it (nor plans the fixes it lists).
#[derive(Debug, Default)]
pub struct Kept {
    /// What `lines` describe.
    of: Option<KeptFor>,
    /// The styled lines.
    lines: Vec<Line<'static>>,
}

/// What the kept text was built for: the subject, the plan's version and the profiles (the
/// pair — held, so that its address is never another pair's — and the step shown).
#[derive(Debug, Clone)]
struct KeptFor {
    subject: Subject,
    version: u64,
    profiles: Option<(Arc<Pair>, Option<String>)>,
}

impl KeptFor {
    fn of(facts: &Facts<'_>, subject: Subject) -> KeptFor {
        KeptFor {
            subject,
            version: facts.ws.version(),
            profiles: facts.profiles.map(|p| (p.shared_pair(), p.step.clone())),
        }
    }

    fn same(&self, other: &KeptFor) -> bool {
        self.subject == other.subject
            && self.version == other.version
            && match (&self.profiles, &other.profiles) {
                (None, None) => true,
                (Some((a, step_a)), Some((b, step_b))) => Arc::ptr_eq(a, b) && step_a == step_b,
                _ => false,
            }
    }
}

impl Kept {
    /// Builds the text for `subject` again when it is not what is kept.
    pub fn refresh(&mut self, facts: &Facts<'_>, subject: Subject, theme: &Theme) {
        let of = KeptFor::of(facts, subject);
        if !self.of.as_ref().is_some_and(|kept| kept.same(&of)) {
            self.lines = lines(facts, subject, theme);
            self.of = Some(of);
        }
    }

    /// The text for `subject`: the kept one when it is for it, else built now.
    pub fn paragraph(
        &self,
        facts: &Facts<'_>,
        subject: Subject,
        theme: &Theme,
    ) -> Paragraph<'static> {
        let current = self
            .of
            .as_ref()
            .is_some_and(|kept| kept.same(&KeptFor::of(facts, subject)));
        let lines = if current {
            self.lines.clone()
        } else {
            lines(facts, subject, theme)
        };
        Paragraph::new(lines).wrap(Wrap { trim: false })
    }
}

/// The furthest `paragraph`, drawn in `area`, can scroll: its wrapped rows less the rows it
/// shows.
pub fn max_scroll(paragraph: &Paragraph<'_>, area: Rect) -> usize {
    let inner = super::layout::inner(area);
    paragraph
        .line_count(inner.width)
        .saturating_sub(usize::from(inner.height))
}

/// The pane's lines for the current subject.
pub fn lines(ex: &Facts<'_>, subject: Subject, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = Lines {
        lines: Vec::new(),
        theme,
    };
    match subject {
        Subject::Nothing if ex.ws.graph().is_empty() => out.dim("the graph has no ops"),
        Subject::Nothing => out.dim("no op in the list"),
        Subject::Op(id) => op(ex, &mut out, id),
        Subject::Segment(r) => {
            let seg = segment_at(ex.ws.plan(), r);
            let scope = &ex.ws.plan().scopes[r.scope as usize];
            out.title(&seg.name);
            out.field(
                "scope",
                format!(
                    "{} · segment {} of {}",
                    scope.name,
                    r.index + 1,
                    scope.segments.len()
                ),
            );
            segment(ex, &mut out, r);
            profile(ex, &mut out, seg.ops.first().copied());
            out.heading(&format!("sub-ops ({})", seg.ops.len()));
            for &id in seg.ops.iter().take(MAX_LISTED) {
                let op = ex.ws.graph().op(id);
                out.plain(format!("  {} {}", op.name, op.op_type));
            }
            out.more(seg.ops.len(), "the list and the tree show them all");
        }
        Subject::Scope(s) => scope(ex, &mut out, s),
    }
    out.lines
}

struct Lines<'t> {
    lines: Vec<Line<'static>>,
    theme: &'t Theme,
}

impl Lines<'_> {
    fn title(&mut self, text: &str) {
        self.lines.push(Line::from(Span::styled(
            sanitize(text).into_owned(),
            self.theme.get(Role::Title),
        )));
    }

    fn heading(&mut self, text: &str) {
        self.lines.push(Line::from(""));
        self.lines.push(Line::from(Span::styled(
            text.to_string(),
            self.theme.get(Role::Title),
        )));
    }

    fn styled(&mut self, text: String, style: Style) {
        self.lines.push(Line::from(Span::styled(
            sanitize(&text).into_owned(),
            style,
        )));
    }

    fn plain(&mut self, text: String) {
        self.styled(text, self.theme.get(Role::Text));
    }

    fn dim(&mut self, text: &str) {
        self.styled(text.to_string(), self.theme.get(Role::Dim));
    }

    /// `label  value`, the label dim and padded.
    fn field(&mut self, label: &str, value: String) {
        self.lines.push(Line::from(vec![
            Span::styled(
                format!("{:<9} ", sanitize(label)),
                self.theme.get(Role::Dim),
            ),
            Span::raw(sanitize(&value).into_owned()),
        ]));
    }

    /// `… and N more (where)` when a list of `total` was cut at [`MAX_LISTED`].
    fn more(&mut self, total: usize, place: &str) {
        if total > MAX_LISTED {
            self.dim(&format!("  … and {} more: {place}", total - MAX_LISTED));
        }
    }

    fn findings(&mut self, findings: &[&Finding]) {
        for f in findings {
            let role = match f.severity {
                Severity::Error => Role::Error,
                Severity::Warning => Role::Warning,
            };
            self.styled(
                format!("! {}: {}", f.severity.name(), f.message),
                self.theme.get(role),
            );
        }
    }
}

/// When the graph gets no SuperKernel because of op `id`: what happens, GE's words and the fix.
fn outcome(ex: &Facts<'_>, out: &mut Lines, id: OpId) {
    let outcome = &ex.ws.plan().outcome;
    let Some(detail) = outcome.detail().filter(|d| d.op == Some(id)) else {
        return;
    };
    out.lines.push(Line::from(""));
    out.styled(
        outcome.headline().unwrap_or_default(),
        out.theme.get(Role::Error),
    );
    out.field("GE", detail.ge_message.clone());
    if let Some(compiler) = &detail.compiler_message {
        out.field("compiler", compiler.clone());
    }
    out.field("fix", detail.fix.clone());
}

fn op(ex: &Facts<'_>, out: &mut Lines, id: OpId) {
    let ws = &ex.ws;
    let graph = ws.graph();
    let cx = ws.context();
    let op = graph.op(id);
    out.title(&op.name);
    // The breaks it causes first, reason and fix before the facts behind them: on a small
    // terminal these are the lines a user came for (the report's words, each fix checked by
    // planning it).
    let what_if = ws.what_if();
    for r in ws.index().breaks_of(id) {
        let scope = &ws.plan().scopes[r.scope as usize];
        let b = BreakReport::new(&what_if, scope, break_at(ws.plan(), r));
        out.styled(
            format!("✗ breaks scope {}{}: {}", scope.name, b.effect(), b.reason),
            out.theme.get(Role::Break),
        );
        out.field("fix", b.suggestion);
        out.field("evidence", format!("{} — {}", b.evidence, b.detail));
        if b.before.is_some() || b.after.is_some() {
            out.field(
                "between",
                format!(
                    "{} … {}",
                    b.before.as_deref().unwrap_or("(start)"),
                    b.after.as_deref().unwrap_or("(end)")
                ),
            );
        }
        out.lines.push(Line::from(""));
    }
    let stream = &cx.streams()[cx.stream_of(id) as usize];
    let stream_text = match &stream.label {
        Some(label) => format!("stream {} (label {label}, inferred)", stream.id),
        None => format!("stream {}", stream.id),
    };
    let topo = match op.topo_id {
        Some(t) => format!("topo id {t}"),
        None => format!("position {} (no topo ids)", cx.topo(id)),
    };
    out.plain(format!(
        "{} · {stream_text} · #{} · {topo}",
        op.op_type,
        graph.exec_position(id)
    ));
    profile(ex, out, Some(id));
    outcome(ex, out, id);
    out.lines.push(Line::from(""));
    if let Some(r) = ws.index().segment_of(id) {
        let seg = segment_at(ws.plan(), r);
        let ordinal = ws.index().segment_ordinal(id).unwrap_or_default();
        let at = seg.ops.iter().position(|&o| o == id).unwrap_or_default();
        out.lines.push(Line::from(vec![
            Span::styled("┃ ", Style::new().fg(out.theme.band(ordinal))),
            Span::raw(format!(
                "sub-op {} of {} in segment {}",
                at + 1,
                seg.ops.len(),
                sanitize(&seg.name)
            )),
        ]));
        segment(ex, out, r);
    } else {
        match ws.marks().get(id) {
            OpMark::Member { scope, .. } => {
                let Some(plan) = ws.plan().scope_of_mark(scope).map(|i| &ws.plan().scopes[i])
                else {
                    return;
                };
                let why = match plan.status {
                    ScopeStatus::Fused | ScopeStatus::Split => "",
                    ScopeStatus::Dropped => " (the scope is dropped)",
                    ScopeStatus::Aborted => " (the build fails here)",
                    ScopeStatus::NotBuilt => " (the build fails at another scope)",
                    ScopeStatus::Skipped => " (dynamic-shape graph)",
                    ScopeStatus::Unfused => " (no member can be fused)",
                };
                out.field("scope", format!("{} · not fused{why}", plan.name));
            }
            OpMark::DoNotFuse => out.field("scope", "kept out of fusion".to_string()),
            OpMark::Unscoped => out.dim("· outside every scope"),
        }
    }
    let verdict = cx.verdicts().get(id);
    let word = match verdict.verdict {
        Verdict::Fusible => "fusible".to_string(),
        Verdict::Ignored => "ignored by the pass".to_string(),
        Verdict::Unsupported(r) => format!("unsupported: {}", r.text()),
    };
    out.field("verdict", word);
    out.field(
        "evidence",
        format!("{} — {}", verdict.evidence.name(), verdict.detail),
    );
    if let Some(core) = core_text(op) {
        out.field("core", core);
    }
    let findings: Vec<&Finding> = ws
        .plan()
        .all_findings()
        .filter(|f| f.op == Some(id))
        .collect();
    if !findings.is_empty() {
        out.lines.push(Line::from(""));
        out.findings(&findings);
    }
    out.heading(&format!("inputs ({})", op.inputs.len()));
    let mut data = 0;
    for input in &op.inputs {
        let text = match input {
            Input::Data { src, out: slot } => {
                let desc = op.input_descs.get(data).map(tensor).unwrap_or_default();
                data += 1;
                format!("  {} ← {}:{slot} {desc}", data - 1, graph.op(*src).name)
            }
            Input::Control { src } => format!("  ctrl ← {}", graph.op(*src).name),
            Input::Unconnected => {
                data += 1;
                format!("  {} (unconnected)", data - 1)
            }
            Input::Dangling { text } => format!("  ? {text} (not in the graph)"),
        };
        out.plain(text);
    }
    out.heading(&format!("outputs ({})", op.output_descs.len()));
    for (i, desc) in op.output_descs.iter().enumerate() {
        let users = graph
            .successors(id)
            .filter(|(_, kind)| {
                matches!(kind, crate::graph::EdgeKind::Data { out, .. } if *out as usize == i)
            })
            .count();
        out.plain(format!("  {i} {} → {users} consumer(s)", tensor(desc)));
    }
    out.heading(&format!("attributes ({})", op.attrs.len()));
    for (key, value) in op.attrs.iter() {
        let mut text = value.to_string();
        if text.chars().count() > MAX_VALUE {
            let total = text.chars().count();
            text = text.chars().take(MAX_VALUE).collect::<String>() + &format!("… ({total} chars)");
        }
        out.field(key, text);
    }
}

/// What the profiles say about op `id` (or, for a segment, its first op): its kernel time
/// without SuperKernel, its segment's time without and with, and for a break what the unfused
/// ops around it cost.
fn profile(ex: &Facts<'_>, out: &mut Lines, id: Option<OpId>) {
    let (Some(view), Some(id)) = (ex.profiles, id) else {
        return;
    };
    let name = &ex.ws.graph().op(id).name;
    out.heading(if view.not_in_plan.is_empty() {
        "profile"
    } else {
        "profile (as the run's plan built it)"
    });
    out.field(
        "base",
        match view.base_kernel_us(name) {
            Some(us) => format!("{us:.2} µs a step without SuperKernel"),
            None => "no kernel of this name in the base profile".to_string(),
        },
    );
    if let Some(s) = view.segment_of(name) {
        // Its part of the account: all its occurrences in a step, the mean over the steps kept.
        let account = &view.diff.account;
        let part = account.superkernel(&s.fused_node);
        let words = match part {
            Some(p) if s.new_us.is_some() => format!(
                "{}: {} µs base → {} µs new ({} µs) a step, its part of the {}",
                s.segment,
                crate::profile::output::micros(p.base_ns),
                crate::profile::output::micros(p.new_ns),
                crate::profile::output::delta_micros(p.delta_ns),
                account.measure.name()
            ),
            _ => format!(
                "{}: its SuperKernel did not run in the new profile",
                s.segment
            ),
        };
        out.field("segment", words);
        if let Some(p) = view
            .diff
            .payoffs
            .as_ref()
            .and_then(|p| p.get(&s.fused_node))
        {
            out.field(
                "payoff",
                format!("{} — {}: {}", p.verdict(), p.action.words(), p.why),
            );
            for d in &p.why_not {
                out.field("why not", crate::profile::output::why_not_line(d));
            }
        }
    }
    for b in view.breaks_of(name) {
        out.styled(
            format!(
                "✗ this break costs {}: {} unfused op(s)",
                b.words(),
                b.unfused.len()
            ),
            out.theme.get(Role::Break),
        );
    }
}

fn segment(ex: &Facts<'_>, out: &mut Lines, r: crate::fusion::index::SegmentRef) {
    let ws = &ex.ws;
    let seg = segment_at(ws.plan(), r);
    let report = SegmentReport::new(ws.context(), seg);
    out.field("fused as", report.fused_node);
    out.field(
        "kernel",
        seg.kernel.label().unwrap_or_else(|| "unknown".to_string()),
    );
    if let Some(note) = report.kernel_note {
        out.field("note", note);
    }
    let stream = match report.streams.as_slice() {
        [_, _, ..] => format!(
            "{} (sub-ops on streams {})",
            report.stream,
            report
                .streams
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join("+")
        ),
        _ => report.stream.to_string(),
    };
    out.field("stream", stream);
    out.field("options", options_text(&report.options));
    // The compiled SuperKernel of the same sub-ops, when --kernel-meta gave one.
    let compiled = &ws.kernel_meta().compiled;
    if let Some(c) = crate::kernel_meta::compiled::check(ws.context(), compiled, &[seg]).first() {
        if c.differences.is_empty() {
            out.field(
                "compiled",
                format!(
                    "{}: same sub-ops, kernel types and block dims",
                    c.kernel_name
                ),
            );
        } else {
            out.field("compiled", c.kernel_name.clone());
            for d in &c.differences {
                out.styled(format!("  ! {d}"), out.theme.get(Role::Warning));
            }
        }
    }
}

fn scope(ex: &Facts<'_>, out: &mut Lines, s: u32) {
    let ws = &ex.ws;
    let scope = &ws.plan().scopes[s as usize];
    out.title(&scope.name);
    out.field("status", scope.status_words());
    out.field("members", scope.members.len().to_string());
    out.field("segments", scope.segments.len().to_string());
    out.field("breaks", scope.breaks.len().to_string());
    out.field("options", options_text(&scope.options));
    if scope.breaks.len() > 1 {
        out.heading("breaks by reason");
        let groups = break_groups(ex, s);
        for g in groups.iter().take(MAX_GROUPS) {
            let layers = match g.layers {
                Some((a, b)) if a == b => format!(" · layer {a}"),
                Some((a, b)) => format!(" · layers {a}–{b}"),
                None => String::new(),
            };
            let streams: Vec<String> = g.streams.iter().map(|s| format!("s{s}")).collect();
            out.styled(
                format!(
                    "  ✗ {} × {} ({}) · {}{layers}",
                    g.count,
                    g.reason,
                    g.op_type,
                    streams.join(" ")
                ),
                out.theme.get(Role::Break),
            );
        }
        if groups.len() > MAX_GROUPS {
            out.dim(&format!("  … and {} more kinds", groups.len() - MAX_GROUPS));
        }
        if groups.iter().any(|g| g.layers.is_some()) {
            out.dim("  (layer numbers as read from the op names)");
        }
    }
    whole_model(ex, out, &scope.name);
    let findings: Vec<&Finding> = scope.findings.iter().collect();
    if !findings.is_empty() {
        out.lines.push(Line::from(""));
        out.findings(&findings);
    }
    if !scope.segments.is_empty() {
        out.heading("segments");
        for seg in scope.segments.iter().take(MAX_LISTED) {
            let kernel = seg
                .kernel
                .label()
                .map(|k| format!(" · {k}"))
                .unwrap_or_default();
            out.plain(format!(
                "  ┃ {} · {} op(s){kernel}",
                seg.name,
                seg.ops.len()
            ));
        }
        out.more(scope.segments.len(), "the tree shows them all");
    }
    if !scope.breaks.is_empty() {
        out.heading("breaks");
        for b in scope.breaks.iter().take(MAX_LISTED) {
            let op = ws.graph().op(b.op);
            out.styled(
                format!(
                    "  ✗ {} ({}): {}",
                    op.name,
                    op.op_type,
                    describe_reason(ws.marks(), b.reason)
                ),
                out.theme.get(Role::Break),
            );
        }
        out.more(scope.breaks.len(), "the tree shows them all");
    }
}

/// When scope `name` is (part of) one scope over the whole model: where that scope split and
/// why, its pieces ranked by time (the loaded profiles', else the dump's) or size, by layer.
fn whole_model(ex: &Facts<'_>, out: &mut Lines, name: &str) {
    let profile_time = |seg: &crate::fusion::plan::Segment| {
        let t = ex.profiles?.segment_time(&seg.fused_node)?;
        Some(t.new_us.unwrap_or(t.base_us))
    };
    let from_profiles = crate::whole_model::Times {
        of: &profile_time,
        from: "the loaded profiles, per step",
    };
    let Some(whole) = ex
        .ws
        .whole_model(ex.profiles.map(|_| &from_profiles), DRAW_PLANS)
    else {
        return;
    };
    let outer = ex.ws.outer_scope(name);
    if whole.scope != name && outer.as_deref() != Some(whole.scope.as_str()) {
        return;
    }
    out.lines.push(Line::from(""));
    let mut lines = whole.lines().into_iter();
    if let Some(head) = lines.next() {
        out.styled(head, out.theme.get(Role::Title));
    }
    for line in lines {
        let role = if line.trim_start().starts_with("ended by") {
            Role::Break
        } else {
            Role::Text
        };
        out.styled(line, out.theme.get(role));
    }
}

/// Kinds of break listed in a scope's summary; the rest are counted.
const MAX_GROUPS: usize = 12;

/// Breaks of one kind: the same reason and op type.
struct BreakGroup {
    reason: String,
    op_type: String,
    count: usize,
    /// Stream ids, ascending.
    streams: Vec<i64>,
    /// The lowest and highest layer number in the ops' names, when they carry one.
    layers: Option<(u64, u64)>,
}

/// The breaks of scope `s` by kind, most frequent first: a scope name reused in every layer
/// shows its pattern at once.
fn break_groups(ex: &Facts<'_>, s: u32) -> Vec<BreakGroup> {
    let ws = &ex.ws;
    let cx = ws.context();
    let mut groups: Vec<BreakGroup> = Vec::new();
    let mut at: std::collections::HashMap<(String, String), usize> =
        std::collections::HashMap::new();
    for b in &ws.plan().scopes[s as usize].breaks {
        let op = ws.graph().op(b.op);
        let key = (describe_reason(ws.marks(), b.reason), op.op_type.clone());
        let i = *at.entry(key.clone()).or_insert_with(|| {
            groups.push(BreakGroup {
                reason: key.0,
                op_type: key.1,
                count: 0,
                streams: Vec::new(),
                layers: None,
            });
            groups.len() - 1
        });
        let g = &mut groups[i];
        g.count += 1;
        let stream = cx.streams()[b.stream as usize].id;
        if let Err(pos) = g.streams.binary_search(&stream) {
            g.streams.insert(pos, stream);
        }
        if let Some(n) = layer_number(&op.name) {
            g.layers = Some(g.layers.map_or((n, n), |(a, z)| (a.min(n), z.max(n))));
        }
    }
    groups.sort_by(|a, b| b.count.cmp(&a.count).then(a.reason.cmp(&b.reason)));
    groups
}

/// The layer number an op's name carries ([`crate::graph::layer_of`]).
fn layer_number(name: &str) -> Option<u64> {
    crate::graph::layer_of(name)?.parse().ok()
}

fn options_text(options: &str) -> String {
    if options.is_empty() {
        "(none)".to_string()
    } else {
        format!("\"{options}\"")
    }
}

fn tensor(desc: &TensorDesc) -> String {
    let mut text = format!("{} {}", desc.dtype, desc.shape_text());
    if !desc.layout.is_empty() {
        text.push(' ');
        text.push_str(&desc.layout);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::layer_number;

    #[test]
    fn layer_numbers_come_from_op_names() {
        assert_eq!(layer_number("model.layers.12.mlp.gate"), Some(12));
        assert_eq!(layer_number("layer3_gate"), Some(3));
        assert_eq!(layer_number("Layer-05/Cast"), Some(5));
        assert_eq!(layer_number("layernorm_1"), None);
        assert_eq!(layer_number("layernorm.layer7.x"), Some(7));
        assert_eq!(layer_number("matmul_3"), None);
    }
}
