//! `skope diff`: a profile without SuperKernel against one with it, with the plan that says
//! which kernels were fused when a graph or a plan file is given.

use super::{OutputForm, Printer};
use crate::open::Request;
use crate::planfile::PlanFile;
use crate::profile::payoff::PayoffRule;
use crate::profile::{PlannedFusion, ProfileError};
use crate::suggest::prediction::{self, Checked, check};
use anyhow::Result;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// What a comparison is asked for besides the profiles.
#[derive(Debug, Clone, Copy)]
pub struct DiffRequest {
    /// How it is written.
    pub output: OutputForm,
    /// How payoffs are judged.
    pub rule: PayoffRule,
    /// Fail when any SuperKernel regressed.
    pub deny_regressed: bool,
}

/// `skope diff`: two graphs' fusion (a dump against another dump or a plan file, or a dump
/// under two plans: `--graph` with two plan files), or else two profiles with the plan of
/// `graph`, written as `asked` says (Markdown goes with a fusion diff, CSV with profiles).
pub fn either(
    request: &Request,
    (base, new, graph, rank): (&Path, Option<&Path>, Option<&Path>, Option<u32>),
    asked: &DiffRequest,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    if super::fusion_diff::applies(base, new, graph) {
        return super::fusion_diff::run(request, (base, new, graph), asked.output, say, out);
    }
    if asked.output == OutputForm::Markdown {
        anyhow::bail!("--markdown goes with two graphs (a fusion diff), not profiles");
    }
    run(request, (base, new, rank), graph, asked, say, out)
}

/// Compares the profiles `base` and `new` (or the pair `base` holds) of rank `rank`; the plan
/// comes from `graph` opened as `request` says (with its plan file), or from the plan file
/// alone. `say` hears what of the graph could not be used. False when a regressed
/// SuperKernel fails the gate `asked` sets.
pub fn run(
    request: &Request,
    (base, new, rank): (&Path, Option<&Path>, Option<u32>),
    graph: Option<&Path>,
    asked: &DiffRequest,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    // The sides are found once, for every rank or for the one pair.
    let sides = crate::profile::Sides::find(base, new)?;
    if rank.is_none()
        && let Some(ranks) = sides.ranks()?
    {
        return every_rank(request, (&sides, &ranks), graph, asked, say, out);
    }
    let pair = sides.load(rank).map_err(|e| {
        let what = match &e {
            ProfileError::SeveralRanks { .. } => "choose a rank",
            _ => "cannot compare the profiles",
        };
        anyhow::Error::new(e).context(what)
    })?;
    let planned = planned(request, graph, say)?;
    let result = crate::profile::diff::diff_with(&pair, planned.as_ref(), asked.rule);
    let run = crate::compile::record::run_of(request.plan.as_deref(), new.unwrap_or(base));
    let checked = run.as_ref().and_then(|(dir, record)| {
        let prediction = record.predicted.as_ref()?;
        let run = dir.display().to_string();
        let (account, payoffs) = (&result.account, result.payoffs.as_ref());
        Some(check((prediction, &run), account, payoffs))
    });
    match asked.output {
        OutputForm::Json => out.json(&Foresight {
            diff: &result,
            predicted: checked.as_ref(),
        })?,
        OutputForm::Csv => out.text(&crate::profile::output::to_csv(&result))?,
        _ => {
            let mut text = crate::profile::output::to_text(&result);
            match (&checked, &run) {
                (Some(checked), _) => text.push_str(&prediction::to_text(checked)),
                (None, Some((dir, _))) => text.push_str(&format!(
                    "\nthe run in {} recorded no prediction: give `skope compile` --profiles \
                     (or have profiles open in the explorer) for its SuperKernels' savings to be \
                     predicted before it runs\n",
                    crate::text::sanitize(&dir.display().to_string())
                )),
                (None, None) => {}
            }
            out.text(&text)?
        }
    }
    if !asked.deny_regressed {
        return Ok(true);
    }
    if result.account.fusion.is_none() {
        anyhow::bail!(
            "--deny regressed: no SuperKernel ran in the new profile ({}), so there is nothing \
             to judge and fusion did not happen: check that the new run was made with the \
             scopes (see its plan and the compile's log), or compare the right profiles",
            new.unwrap_or(base).display()
        );
    }
    match &result.payoffs {
        Some(p) => Ok(!p.any_regressed()),
        None => anyhow::bail!(
            "--deny regressed needs payoffs, and these profiles give none: {}",
            result.notes.join("; ")
        ),
    }
}

/// A comparison with, when the new profile is a run's that recorded one, the prediction made
/// before the run beside what it measured.
#[derive(Serialize)]
struct Foresight<'a> {
    #[serde(flatten)]
    diff: &'a crate::profile::Diff,
    #[serde(skip_serializing_if = "Option::is_none")]
    predicted: Option<&'a Checked>,
}

/// The plan to bind against: `graph` opened as `request` says (with its plan file), or the
/// plan file alone, or none.
fn planned(
    request: &Request,
    graph: Option<&Path>,
    say: &mut dyn FnMut(&str),
) -> Result<Option<PlannedFusion>> {
    Ok(match (graph, &request.plan) {
        (Some(graph), plan) => {
            let ws = super::open(request, graph, say)?;
            let source = match plan {
                Some(plan) => format!("{} with {}", graph.display(), plan.display()),
                None => format!(
                    "the scopes of {} (if the new profile was made with another plan, give \
                     its plan file with --plan)",
                    graph.display()
                ),
            };
            Some(PlannedFusion::from_workspace(&ws, &source))
        }
        (None, Some(plan)) => {
            let file = PlanFile::read(plan)?;
            Some(PlannedFusion::from_plan_file(
                &file,
                &plan.to_string_lossy(),
            ))
        }
        (None, None) => None,
    })
}

/// Every rank of the pair compared, a rank per core: each rank's totals and payoffs, then each
/// SuperKernel across the ranks. False when `asked` denies a regression on any rank.
fn every_rank(
    request: &Request,
    (sides, ranks): (&crate::profile::Sides, &[u32]),
    graph: Option<&Path>,
    asked: &DiffRequest,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    if asked.output == OutputForm::Csv {
        anyhow::bail!(
            "{}: holds {} ranks; --csv writes one rank's rows: give --rank N",
            sides.path().display(),
            ranks.len()
        );
    }
    let planned = planned(request, graph, say)?;
    let result = compare_ranks_saying(sides, ranks, planned.as_ref(), asked.rule, say)
        .map_err(|e| anyhow::Error::new(e).context("cannot compare the ranks"))?;
    match asked.output {
        OutputForm::Json => out.json(&result)?,
        _ => out.text(&crate::profile::output::ranks_to_text(&result))?,
    }
    let unfused: Vec<String> = result
        .ranks
        .iter()
        .filter(|r| r.fusion.is_none())
        .map(|r| r.rank.to_string())
        .collect();
    if asked.deny_regressed && !unfused.is_empty() {
        anyhow::bail!(
            "--deny regressed: no SuperKernel ran on rank(s) {} of the new profiles, so fusion \
             did not happen there: check that the new run was made with the scopes, or compare \
             the right profiles",
            unfused.join(", ")
        );
    }
    Ok(!(asked.deny_regressed && result.any_regressed()))
}

/// Compares every rank (see [`crate::profile::ranks::compare_ranks`]) on a thread of its own,
/// telling `say` how far it has come every tenth of the ranks, and at the end (with four or
/// more).
fn compare_ranks_saying(
    sides: &crate::profile::Sides,
    ranks: &[u32],
    planned: Option<&PlannedFusion>,
    rule: PayoffRule,
    say: &mut dyn FnMut(&str),
) -> Result<crate::profile::ranks::RanksDiff, ProfileError> {
    use crate::profile::ranks::{RankProgress, compare_ranks};
    let progress = RankProgress::default();
    let tenth = |(done, total): (usize, usize)| (done * 10).checked_div(total).unwrap_or(0);
    std::thread::scope(|threads| {
        let work = threads.spawn(|| compare_ranks(sides, ranks, planned, rule, &progress));
        let mut told = 0;
        while !work.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let now = progress.get();
            if ranks.len() >= 4 && tenth(now) > told {
                told = tenth(now);
                say(&format!("{} of {} ranks compared", now.0, now.1));
            }
        }
        // The count at the end, when no tenth was told while it ran.
        let now = progress.get();
        if ranks.len() >= 4 && told < tenth(now) {
            say(&format!("{} of {} ranks compared", now.0, now.1));
        }
        work.join().unwrap_or_else(|payload| {
            Err(ProfileError::Pairing {
                path: sides.path().to_path_buf(),
                message: format!(
                    "comparing the ranks stopped: {} (a bug in skope; please report it)",
                    crate::worker::panic_message(payload.as_ref())
                ),
            })
        })
    })
}
