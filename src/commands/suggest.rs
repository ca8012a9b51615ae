//! `skope suggest`: scopes for a graph ranked by the time they would save, measured from the
//! profiles when given.

use super::Printer;
use crate::suggest::output::{Report, read_profiles, to_text};
use crate::suggest::saving::Fit;
use crate::suggest::{Measured, Suggestions, bind_runs};
use crate::workspace::Workspace;
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Suggests scopes for `ws`, the dump `file`, with the gaps of `profiles` (as `--profiles`
/// gives them) of rank `rank`, the model fitted on a pair; as text or, with `json`, JSON.
pub fn run(
    ws: &Workspace,
    file: &Path,
    (profiles, rank): (&[PathBuf], Option<u32>),
    json: bool,
    out: &mut Printer<impl Write>,
) -> Result<()> {
    let (result, fit) = ranked(ws, profiles, rank)?;
    let file = file.to_string_lossy();
    let report = Report::new(&result, fit.as_ref(), ws.graph(), &file);
    out.text_or_json(json, &report, || to_text(&result, fit.as_ref(), &file))
}

/// The suggestions for `ws` with the profiles `profiles` (as `--profiles` gives them) of rank
/// `rank`, and the model's fit on a pair.
pub fn ranked(
    ws: &Workspace,
    profiles: &[PathBuf],
    rank: Option<u32>,
) -> Result<(Suggestions, Option<Fit>)> {
    let read = read_profiles(ws.context(), profiles, rank)?;
    let today = (ws.marks(), ws.plan());
    let judged = read
        .runs
        .as_ref()
        .map(|(base, new)| bind_runs(ws.context(), today, base, new));
    let measured = Measured {
        base: read.base.as_ref(),
        new: read.new.as_ref(),
        judged: judged.as_ref(),
        calibration: None,
    };
    Ok(crate::suggest::rank(&ws.planning(), today, measured))
}
