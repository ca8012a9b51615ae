//! `skope report` (and `skope info` on what a pass wrote): the plan of every scope with each
//! break explained, or the pass's own account; GE's result held against it; the gates.

use super::Printer;
use crate::fusion::plan::Gate;
use crate::fusion::verify::{Verification, verify};
use crate::graph::Graph;
use crate::kernel_meta::compiled::{self, CompiledCheck};
use crate::load::{self, Dump};
use crate::open::{Opened, Request};
use crate::planner::OwnReport;
use crate::report::{Detail, Report, verification_text};
use crate::whole_model::WholeModel;
use crate::workspace::Workspace;
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Ops a report plans to check fixes (each check plans the members of the scopes it changes):
/// about half a second of an optimised build, whatever the graph.
const FIX_PLANS: usize = 1_000_000;

/// What a report is asked for besides the dump.
#[derive(Debug, Clone, Default)]
pub struct ReportRequest<'p> {
    /// One JSON object instead of text.
    pub json: bool,
    /// The gate the plan is held to.
    pub gate: Option<Gate>,
    /// GE's AfterSkGraph dumps to compare the prediction with.
    pub verify: Vec<PathBuf>,
    /// One line per scope instead of every segment and break.
    pub summary: bool,
    /// Only this scope.
    pub scope: Option<String>,
    /// Markdown for a pull request, with these profiles (none, a pair's directory, or BASE
    /// then NEW).
    pub markdown: Option<&'p [PathBuf]>,
    /// A compile's kernel_meta (its compiled SuperKernels are held against the segments
    /// predicted for them) and the user's operator sources (breaks of their types say what
    /// adapting takes).
    pub meta: Option<&'p super::args::MetaArgs>,
}

/// The report JSON: the report (in full or in short), the whole-model scope's summary, and
/// what `--verify` found.
#[derive(serde::Serialize)]
struct ReportJson<'a, R: serde::Serialize> {
    #[serde(flatten)]
    report: &'a R,
    #[serde(skip_serializing_if = "Option::is_none")]
    whole_model: Option<&'a WholeModel>,
    /// Compiled SuperKernels (`--kernel-meta`) held against the segments predicted for them.
    #[serde(skip_serializing_if = "<[CompiledCheck]>::is_empty")]
    compiled: &'a [CompiledCheck],
    #[serde(skip_serializing_if = "Option::is_none")]
    verify: Option<&'a Verification>,
}

/// What a report of `file` is called for its options, and the shared options it takes: the
/// Markdown report and an aclgraph model directory's report take fewer.
pub fn takes(file: &Path, markdown: bool) -> (&'static str, Vec<&'static str>) {
    let planning = super::args::shared_options("diff");
    match (crate::open::is_pass_output(file), markdown) {
        (true, true) => (
            "report --markdown on an aclgraph model directory",
            vec!["--profiles", "--op-sources", "--target"],
        ),
        (true, false) => ("report on an aclgraph model directory", vec!["--target"]),
        (false, true) => (
            "report --markdown",
            [planning, vec!["--profiles", "--op-sources"]].concat(),
        ),
        (false, false) => (
            "report",
            [planning, vec!["--kernel-meta", "--op-sources"]].concat(),
        ),
    }
}

/// Reports on `file`, opened as `request` says, into `out`; `say` hears what of the input
/// could not be used. False when a gate fails or GE's result differs from the prediction.
pub fn run(
    request: &Request,
    file: &Path,
    asked: &ReportRequest<'_>,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    if asked.markdown.is_some() && (asked.summary || !asked.verify.is_empty()) {
        anyhow::bail!(
            "the Markdown report is a short report already: leave out --summary and --verify"
        );
    }
    let Opened {
        mut ws,
        problems,
        plan_notes,
    } = request.open(file)?;
    super::tell("note", &plan_notes, say);
    if let Some(meta) = asked.meta {
        meta.apply(&mut ws, say)?;
        meta.check_ops(&mut ws)?;
    }
    // One scope over the whole model: where it split and why comes first.
    let whole = ws.whole_model(None, FIX_PLANS);
    // A system's own account says itself what of its files could not be used; the Markdown
    // report is the same for every input.
    if let Some(own) = ws.own_report().filter(|_| asked.markdown.is_none()) {
        return own_report(&ws, own, whole.as_ref(), asked, out);
    }
    super::tell("problem", &problems, say);
    let (cx, plan) = (ws.context(), ws.plan());
    let rule_files = ws.source().rules.clone();
    // Each break's fix is checked by planning it, up to a number of plans that keeps a report
    // of millions of breaks fast (the rest say so).
    let what_if = ws.what_if().with_budget(FIX_PLANS);
    let mut report = Report::new(
        &what_if,
        &file.to_string_lossy(),
        ws.source().format.id(),
        &rule_files,
        // The full report builds each scope's segments and breaks as it writes them.
        Detail::Summary,
    );
    let after: Vec<Dump> = asked
        .verify
        .iter()
        .map(|path| load::load_file(path, request.load))
        .collect::<Result<_, _>>()?;
    let verification = (!after.is_empty()).then(|| {
        let graphs: Vec<&Graph> = after.iter().flat_map(|d| d.graphs.iter()).collect();
        verify(cx, plan, &graphs)
    });
    report.set_assumed(ws.assumed_range());
    if let Some(name) = &asked.scope {
        report.keep_scope(name).map_err(anyhow::Error::msg)?;
    }
    let whole = whole.filter(|_| asked.scope.is_none());
    let segments: Vec<&crate::fusion::plan::Segment> =
        plan.scopes.iter().flat_map(|s| &s.segments).collect();
    let checks = compiled::check(cx, &ws.kernel_meta().compiled, &segments);
    if let Some(profiles) = asked.markdown {
        let diff = compared(&ws, file, profiles)?;
        out.text(&crate::markdown::pr_report(
            &report,
            &what_if,
            diff.as_ref(),
        ))?;
    } else if asked.json && asked.summary {
        out.json(&ReportJson {
            report: &report,
            whole_model: whole.as_ref(),
            compiled: &checks,
            verify: verification.as_ref(),
        })?;
    } else if asked.json {
        out.json(&ReportJson {
            report: &report.full_json(&what_if),
            whole_model: whole.as_ref(),
            compiled: &checks,
            verify: verification.as_ref(),
        })?;
    } else {
        // Under the header, before the scopes: a long report would bury them.
        if let Some(v) = &verification {
            report.lead.push_str(&(verification_text(v) + "\n"));
        }
        if let Some(w) = &whole {
            report.lead.push_str(&(w.lines().join("\n") + "\n"));
        }
        if !checks.is_empty() {
            report.lead.push_str(&compiled_text(&checks));
        }
        if asked.summary {
            out.text(&report.to_summary_text())?;
        } else {
            out.with(|w| report.write_full_text(w, &what_if))?;
        }
    }
    let mismatched = verification.is_some_and(|v| !v.mismatches.is_empty())
        || checks.iter().any(|c| !c.differences.is_empty());
    // A graph that gets no SuperKernel (a failed build, a dynamic-shape graph) or that skope
    // cannot judge (an error finding) fails every gate.
    let failed = asked
        .gate
        .is_some_and(|gate| plan.fails(gate, asked.scope.as_deref()));
    // The process ends with the report: the graph and plan need no freeing.
    std::mem::forget(report);
    std::mem::forget(after);
    std::mem::forget(ws);
    Ok(!mismatched && !failed)
}

/// The profiles `paths` name compared against the plan of `ws`, when any are named.
fn compared(
    ws: &Workspace,
    file: &Path,
    paths: &[PathBuf],
) -> Result<Option<crate::profile::Diff>> {
    let (base, new) = match paths {
        [] => return Ok(None),
        [base] => (base, None),
        [base, new] => (base, Some(new.as_path())),
        _ => anyhow::bail!("--profiles takes one directory holding both, or BASE then NEW"),
    };
    let pair = crate::profile::load_pair(base, new, None)
        .map_err(|e| anyhow::Error::new(e).context("cannot compare the profiles"))?;
    let plan = crate::profile::PlannedFusion::from_workspace(ws, &file.display().to_string());
    Ok(Some(crate::profile::diff(&pair, Some(&plan))))
}

/// The compiled SuperKernels held against the prediction, a line each and a finding per
/// difference.
fn compiled_text(checks: &[CompiledCheck]) -> String {
    let clean = |s: &str| crate::text::sanitize(s).into_owned();
    let mut out = String::from("compiled SuperKernels (--kernel-meta) against the prediction:\n");
    for c in checks {
        let verdict = if c.differences.is_empty() {
            "same sub-ops, kernel types and block dims".to_string()
        } else {
            format!("{} difference(s)", c.differences.len())
        };
        out.push_str(&format!(
            "  {} ↔ {} ({}): {verdict}\n",
            clean(&c.segment),
            clean(&c.kernel_name),
            clean(&c.file)
        ));
        for d in &c.differences {
            out.push_str(&format!("    ! finding: {}\n", clean(d)));
        }
    }
    out
}

/// The report on what a fusion system wrote itself: its own account (in short with
/// `--summary`: its head and the whole-model scope), and the gate held to the plan it made.
fn own_report(
    ws: &Workspace,
    own: OwnReport,
    whole: Option<&WholeModel>,
    asked: &ReportRequest,
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    if !asked.verify.is_empty() || asked.scope.is_some() {
        anyhow::bail!(
            "{}: --verify and --scope are for GE's plan; this is the account of what the pass \
             did, printed whole (or in short with --summary)",
            ws.source().file
        );
    }
    if asked.json {
        let raw = if asked.summary {
            &own.summary_json
        } else {
            &own.json
        };
        let mut json: serde_json::Map<String, serde_json::Value> = serde_json::from_str(raw.get())?;
        if let Some(w) = whole {
            json.insert("whole_model".to_string(), serde_json::to_value(w)?);
        }
        out.json(&json)?;
    } else {
        let text = if asked.summary {
            &own.summary
        } else {
            &own.text
        };
        // Its header first, then the whole-model scope, then the rest.
        let (header, rest) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        let whole = whole.map_or(String::new(), |w| w.lines().join("\n") + "\n");
        out.text(&format!("{header}\n{whole}{rest}"))?;
    }
    Ok(!asked.gate.is_some_and(|gate| ws.plan().fails(gate, None)))
}
