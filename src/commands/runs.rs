//! `skope runs`: the run ledger of a dump — its recorded runs side by side, compared with a
//! baseline run — as text, JSON, Markdown or CSV; `--add PATH` first records a profile made
//! elsewhere as a run.

use super::Printer;
use crate::compile::record;
use crate::ledger::{Baseline, Ledger, SortKey, add, output};
use crate::open::Request;
use crate::paths::DumpFiles;
use crate::planfile::GraphId;
use crate::profile::payoff::PayoffRule;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// What `skope runs` is asked for.
#[derive(Debug, Clone)]
pub struct RunsRequest<'a> {
    /// How it is written.
    pub output: super::OutputForm,
    /// The order of the rows.
    pub sort: SortKey,
    /// The baseline run.
    pub baseline: Baseline,
    /// A profile to record as a run first (made with the plan `--plan` gives, else the
    /// dump's).
    pub add: Option<&'a Path>,
    /// How payoffs are judged.
    pub rule: PayoffRule,
}

/// Prints the ledger of the dump `file` (opened as `request` says); `say` hears notes.
pub fn run(
    request: &Request,
    file: &Path,
    asked: &RunsRequest,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<()> {
    let ws = super::open(request, file, say)?;
    let dump = file.to_string_lossy().into_owned();
    let files = DumpFiles::of(&dump);
    let runs = files.runs();
    if let Some(profile) = asked.add {
        let dir = add::add(&runs, &ws, &dump, profile).map_err(anyhow::Error::msg)?;
        say(&format!(
            "added {} as a run in {}, with {}",
            crate::text::sanitize(&profile.display().to_string()),
            crate::text::sanitize(&dir.display().to_string()),
            match &request.plan {
                Some(plan) => format!("the plan {}", plan.display()),
                None => "the dump's plan (give the plan it was made with by --plan)".to_string(),
            }
        ));
    }
    let mut dirs = vec![runs];
    dirs.extend(files.earlier_runs());
    let records = record::history_of(&dirs, &GraphId::of(ws.graph()));
    let ledger = Ledger::build(
        &ws.planning(),
        &dump,
        &records,
        (asked.baseline, asked.sort),
        asked.rule,
    );
    match asked.output {
        super::OutputForm::Json => out.json(&ledger),
        super::OutputForm::Markdown => out.text(&output::to_markdown(&ledger)),
        super::OutputForm::Csv => out.text(&output::to_csv(&ledger)),
        super::OutputForm::Text => out.text(&output::to_text(&ledger)),
    }
}
