//! What `skope suggest` reads and writes: the profiles given to it, and the suggestions as
//! text or JSON (each suggestion's ops by name).

use super::saving::{Coefficients, Fit};
use super::timing::{self, Timing};
use super::{Suggestion, Suggestions, Versus};
use crate::fusion::plan::Context;
use crate::graph::Graph;
use crate::profile::discover::{Found, discover};
use crate::profile::kernels::KernelTable;
use crate::profile::runs::Runs;
use anyhow::{Context as _, Result};
use serde::Serialize;
use std::path::PathBuf;

/// What `--profiles` gave: the measured gaps of the profile without SuperKernel, read for the
/// graph, and with a pair the kernels of the one with it and both profiles' runs.
#[derive(Default)]
pub struct ReadProfiles {
    /// The gaps without SuperKernel.
    pub base: Option<Timing>,
    /// The kernels with SuperKernel.
    pub new: Option<KernelTable>,
    /// Both profiles' runs (without, with), for the savings measured step by step.
    pub runs: Option<(Runs, Runs)>,
}

/// Reads the profiles for the graph of `cx`. `profiles` is as `--profiles` gives it: none, one
/// directory (a profile, or `no_sk_model` and `sk_model`), or base then new.
pub fn read_profiles(
    cx: &Context,
    profiles: &[PathBuf],
    rank: Option<u32>,
) -> Result<ReadProfiles> {
    let files = match profiles {
        [] => return Ok(ReadProfiles::default()),
        [base, new] => {
            let (b, n, _) = crate::profile::locate_pair(base, Some(new), rank)?;
            (b, Some(n))
        }
        [path] => {
            let found = discover(path)
                .with_context(|| format!("cannot read the profiles at {}", path.display()))?;
            match found {
                Found::Pair { .. } => {
                    let (b, n, _) = crate::profile::locate_pair(path, None, rank)?;
                    (b, Some(n))
                }
                other => (other.pick(rank, path)?, None),
            }
        }
        [_, _, _, ..] => anyhow::bail!(
            "--profiles takes one directory (a profile, or no_sk_model and sk_model) or two \
             profiles (without, then with SuperKernel)"
        ),
    };
    let (base, new) = files;
    if base.kernels.is_empty() {
        anyhow::bail!(
            "{}: no kernel_details.csv or op_summary_*.csv: the gaps need the kernel file \
             (profile with the Level1 kernel view)",
            base.root.display()
        );
    }
    let timing = timing::read(&base.kernels, Some(cx))?;
    let Some(new) = new.filter(|n| !n.kernels.is_empty()) else {
        return Ok(ReadProfiles {
            base: Some(timing),
            ..ReadProfiles::default()
        });
    };
    let (table, new_runs) = Runs::read(&new.kernels, crate::memory::available())?;
    let (_, base_runs) = Runs::read(&base.kernels, crate::memory::available())?;
    Ok(ReadProfiles {
        base: Some(timing),
        new: Some(table),
        runs: Some((base_runs, new_runs)),
    })
}

/// The suggestions as `skope suggest --json` writes them.
#[derive(Serialize)]
pub struct Report<'a> {
    /// The dump.
    file: &'a str,
    /// Why nothing is suggested: the graph's fusion system takes no scopes.
    not_offered: Option<&'static str>,
    /// Why they are ranked by boundaries, when the fit could not rank them.
    ranked_by_boundaries: Option<&'a str>,
    /// Regions left out: they add nothing over the current plan.
    templates_adding_nothing: usize,
    /// Per-layer candidates left out: they add nothing over the current plan.
    adding_nothing: usize,
    /// Regions of every decoder layer, best first, each with the code to paste.
    templates: Vec<TemplateCode<'a>>,
    /// Best first, each with its ops by name.
    list: Vec<Named<'a>>,
    /// The whole model if all that fit were accepted.
    whole_model: Option<&'a super::estimate::WholeModel>,
    /// What heals the worst splits of a scope holding the whole model, in its system's terms.
    remedies: Vec<RemedyWords<'a>>,
    /// The coefficients used.
    coefficients: Coefficients,
    /// True when they were fitted on a profile pair.
    fitted: bool,
    /// True when a profile gave the gaps.
    measured: bool,
    /// The fit, when a pair was given.
    fit: Option<&'a Fit>,
    /// What each SuperKernel of the current plan is predicted to save, with a profile: what a
    /// run of the plan records.
    today: Option<&'a super::prediction::PlanPrediction>,
}

/// A remedy with what it changes in words.
#[derive(Serialize)]
struct RemedyWords<'a> {
    #[serde(flatten)]
    remedy: &'a crate::planner::Remedy,
    what: String,
}

/// A template with the code that writes it.
#[derive(Serialize)]
struct TemplateCode<'a> {
    #[serde(flatten)]
    template: &'a super::templates::Template,
    code: super::Code,
}

/// A suggestion with its ops by name.
#[derive(Serialize)]
struct Named<'a> {
    #[serde(flatten)]
    suggestion: &'a Suggestion,
    ops: Vec<&'a str>,
    code: super::Code,
}

impl<'a> Report<'a> {
    /// The report of `result` (and `fit`) for the dump `file`, whose graph is `graph`.
    pub fn new(
        result: &'a Suggestions,
        fit: Option<&'a Fit>,
        graph: &'a Graph,
        file: &'a str,
    ) -> Report<'a> {
        let list = result
            .list
            .iter()
            .map(|suggestion| Named {
                code: suggestion.code(),
                suggestion,
                ops: suggestion
                    .ops
                    .iter()
                    .map(|&id| graph.op(id).name.as_str())
                    .collect(),
            })
            .collect();
        Report {
            file,
            not_offered: result.not_offered,
            ranked_by_boundaries: result.ranked_by_boundaries.as_deref(),
            templates_adding_nothing: result.templates_adding_nothing,
            adding_nothing: result.adding_nothing,
            templates: result
                .templates
                .iter()
                .map(|template| TemplateCode {
                    code: template.code(),
                    template,
                })
                .collect(),
            list,
            whole_model: result.whole_model.as_ref(),
            remedies: result
                .remedies
                .iter()
                .map(|remedy| RemedyWords {
                    what: remedy.what(),
                    remedy,
                })
                .collect(),
            coefficients: result.coefficients,
            fitted: result.fitted,
            measured: result.measured,
            fit,
            today: result.today.as_ref(),
        }
    }
}

/// What heals the whole-model scope's worst splits: each change, why, what the prediction
/// makes of it, the code.
fn remedies_text(result: &Suggestions, out: &mut String) {
    if result.remedies.is_empty() {
        return;
    }
    out.push_str(
        "\nThe scope holds the whole model: what heals its worst splits, each checked by skope's \
         prediction of the pass:\n",
    );
    for (n, r) in result.remedies.iter().enumerate() {
        out.push_str(&format!(
            "\n{:>3}. {}\n     {}\n     {}\n",
            n + 1,
            r.what(),
            r.why,
            r.effect()
        ));
        for line in r.code.lines() {
            out.push_str(&format!("     code: {line}\n"));
        }
    }
}

/// The templates: each with where it applies, what it makes and the code to paste.
fn templates_text(result: &Suggestions, out: &mut String) {
    if result.templates.is_empty() && result.templates_adding_nothing == 0 {
        return;
    }
    out.push_str(
        "\nTemplates (one scope in each decoder layer's forward, planned in every layer):\n",
    );
    if result.templates_adding_nothing > 0 {
        out.push_str(&format!(
            "({} more region(s) add nothing over the current plan, left out)\n",
            result.templates_adding_nothing
        ));
    }
    for (n, t) in result.templates.iter().enumerate() {
        let value = match t.saving_us {
            Some(us) => format!("{us:.1} µs/step in all"),
            None => format!("{} boundaries in all", t.boundaries),
        };
        out.push_str(&format!(
            "\n{:>3}. {}  layers {}  {} SuperKernel(s), {} distinct  {value}\n",
            n + 1,
            t.name,
            t.layers.join(","),
            t.superkernels,
            t.distinct
        ));
        out.push_str(&format!(
            "     from {} ({}) to {} ({}), {} the layer number\n",
            t.first.0,
            t.first.1,
            t.last.0,
            t.last.1,
            crate::suggest::templates::LAYER
        ));
        for (layer, cuts) in &t.splits {
            out.push_str(&format!(
                "     splits in layer {layer}: {}\n",
                cuts.join("; ")
            ));
        }
        if !t.missing.is_empty() {
            out.push_str(&format!(
                "     not in layer(s) {} (an end is missing there)\n",
                t.missing.join(", ")
            ));
        }
        // One scope per layer, as it was planned: the layer's index in the name keeps the
        // layers' scopes apart. The aclgraph path marks a scope with a pair of calls; its
        // options are the pass's.
        let code = t.code();
        out.push_str(&format!("     code: {}\n", code.torchair));
        out.push_str(&format!("     aclgraph: {}\n", code.aclgraph));
    }
}

/// The suggestions as text for a terminal, for the dump `file`: what the ranking rests on, then
/// one entry per suggestion. Every string from the inputs is sanitised.
pub fn to_text(result: &Suggestions, fit: Option<&Fit>, file: &str) -> String {
    let c = result.coefficients;
    if let Some(why) = result.not_offered {
        return crate::text::sanitize_lines(&format!("no suggestions for {file}: {why}\n"));
    }
    let mut out = format!(
        "{} template(s) and {} per-layer suggestion(s) for {file}\n",
        result.templates.len(),
        result.list.len()
    );
    let (kernels, assumed) = result.kernels;
    if assumed > 0 {
        out.push_str(&format!(
            "{kernels} op(s) launch a kernel (graph plumbing and ops the pass ignores are no \
             boundary); {assumed} of them are only assumed fusible: their kernel type is not in \
             the dump (a dump taken after the compile, --rules or the installed CANN settles it)\n"
        ));
    } else {
        out.push_str(&format!(
            "{kernels} op(s) launch a kernel (graph plumbing and ops the pass ignores are no \
             boundary)\n"
        ));
    }
    let coefficients_text = format!(
        "a={:.2} b={:.2} c_same={:.2} µs c_cross={:.2} µs c0={:.2} µs k={:.2}",
        c.a, c.b, c.c_same, c.c_cross, c.c0, c.k
    );
    match (result.measured, fit) {
        (false, _) => out.push_str(
            "no profile: ranked by the kernel boundaries each removes (a count, not a time); \
             --profiles DIR estimates the saving from measured gaps\n",
        ),
        (true, None) => out.push_str(&format!(
            "saving per step: an estimate from the gaps the profile measured, with skope's \
             assumed coefficients ({coefficients_text}); a profile pair (no_sk_model, \
             sk_model) calibrates them\n"
        )),
        (true, Some(f)) => out.push_str(&format!(
            "saving per step: an estimate from the measured gaps, coefficients fitted ({}) on {} \
             segment(s) of the profile pair{}: {coefficients_text}; leaving one segment out, the \
             error is {:.2} µs on average, {:.2} µs at worst ({})\n",
            f.fitted.join(", "),
            f.segments,
            match f.steps {
                0 | 1 => String::new(),
                n => format!(", each saving its part of the step time, the mean over {n} steps"),
            },
            f.loo_mean_us,
            f.loo_worst_us,
            f.loo_worst_segment
        )),
    }
    if let Some(f) = fit.filter(|f| !f.rejected.is_empty()) {
        out.push_str(&format!(
            "note: fitted again without {}: they came out with the wrong sign (a negative share \
             or cost, which the model cannot mean; the pair cannot tell them apart), so they \
             keep skope's defaults (assumed)\n",
            f.rejected.join(", ")
        ));
    }
    if let Some(f) = fit.filter(|f| !f.doubtful.is_empty()) {
        out.push_str(&format!(
            "note: {} fitted outside what the model means (a share above 1.5 is more than the \
             gap or overhead there is; a sync between sub-ops above 5 µs or an entry above \
             20 µs is beyond what a SuperKernel's syncs and entry cost): the pair cannot tell \
             those terms apart (e.g. every gap the same length); rank by them with care\n",
            f.doubtful.join(", ")
        ));
    }
    if let Some(left) = fit.and_then(|f| f.left_out_steps.as_ref()) {
        out.push_str(&format!(
            "leaving one step out (fitted on the means of the other {}), the error is {:.2} µs \
             on average, {:.2} µs at worst ({} in step {})\n",
            left.steps - 1,
            left.mean_us,
            left.worst_us,
            left.worst.1,
            left.worst.0
        ));
    }
    if let Some(why) = &result.ranked_by_boundaries {
        out.push_str(&format!("note: {why}\n"));
    }
    if let Some(whole) = &result.whole_model {
        out.push_str(&format!("{}\n", whole.words()));
    }
    if let Some(today) = result.today.as_ref().filter(|t| !t.superkernels.is_empty()) {
        out.push_str(&format!("{}\n", today.words()));
    }
    if let Some(f) = fit.filter(|f| !f.held_out.is_empty()) {
        out.push_str("each SuperKernel of the pair, its saving per run as the model predicts it fitted without it, and as measured:\n");
        for (segment, predicted, measured) in &f.held_out {
            out.push_str(&format!(
                "  {segment}: predicted {predicted:.2} µs, measured {measured:.2} µs\n"
            ));
        }
    }
    remedies_text(result, &mut out);
    templates_text(result, &mut out);
    if !result.list.is_empty() || result.adding_nothing > 0 {
        out.push_str("\nPer layer (and runs outside the layers):\n");
    }
    if result.adding_nothing > 0 {
        out.push_str(&format!(
            "({} more candidate(s) add nothing over the current plan: fused already as they are, \
             or no time saved; left out)\n",
            result.adding_nothing
        ));
    }
    for (n, s) in result.list.iter().enumerate() {
        let value = match s.saving_us {
            Some(us) => format!(
                "{us:.1} µs/step ({} of {} boundaries measured)",
                s.measured, s.boundaries
            ),
            None => format!("{} boundaries", s.boundaries),
        };
        let versus = match &s.versus {
            Versus::New => "new".to_string(),
            Versus::Same(seg) => format!("already fused as {seg}"),
            Versus::Overlaps(segs) => format!("takes ops of {}", segs.join(", ")),
        };
        let streams: Vec<String> = s.streams.iter().map(i64::to_string).collect();
        out.push_str(&format!(
            "\n{:>3}. {}  {} ops  stream {}  {value}  {versus}{}\n",
            n + 1,
            s.name,
            s.ops.len(),
            streams.join("+"),
            if s.options.is_empty() {
                String::new()
            } else {
                format!("  options {}", s.options)
            }
        ));
        out.push_str(&format!(
            "     {} … {}\n     starts after {} · ends before {}\n",
            s.first_op, s.last_op, s.starts_after, s.ends_before
        ));
        if let Some(p) = &s.predicted {
            let serial = match s.serial_loss_us {
                Some(loss) if loss > 0.0 => format!(
                    "; its SuperKernel would run {loss:.1} µs/step of kernels that overlapped on \
                     its streams one after another"
                ),
                _ => String::new(),
            };
            out.push_str(&format!(
                "     predicted {}: {:.1} to {:.1} µs/step saved ({}){serial}\n",
                p.class.words(),
                p.low_us,
                p.high_us,
                p.basis
            ));
        }
        let code = s.code();
        out.push_str(&format!(
            "     code: {}\n     aclgraph: {}\n",
            code.torchair, code.aclgraph
        ));
        if let Some((first, last)) = &s.loop_over_layers {
            out.push_str(&format!(
                "     a scope around the loop over layers {first}–{last} (it takes whole layers)\n"
            ));
        }
    }
    if result.list.is_empty() && result.templates.is_empty() {
        out.push_str("\nno candidate that model code can write as one scope adds anything over the current plan\n");
    }
    crate::text::sanitize_lines(&out)
}
