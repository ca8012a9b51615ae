//! `skope check-op`: whether SuperKernel can fuse an AscendC operator, from its sources.

use super::{OutputForm, Printer};
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;

/// Checks the sources at `paths` for `target` (A2/A3 when none is given) and writes what was
/// found in `output`'s form (text or JSON). False when a finding blocks fusion.
pub fn run(
    paths: &[PathBuf],
    target: Option<crate::target::Target>,
    output: Option<OutputForm>,
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    let writes = [OutputForm::Text, OutputForm::Json];
    let json = OutputForm::chosen(output, (false, false, false), "check-op", &writes)?;
    let check = crate::check_op::check_paths(paths, target.unwrap_or_default())?;
    out.text_or_json(json == OutputForm::Json, &check, || check.to_text())?;
    Ok(!check.has_blocker())
}
