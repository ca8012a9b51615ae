//! `skope compile`: runs a recipe on the plan in the foreground, each job line to stdout and
//! skope's own to stderr; ctrl-c or SIGTERM stops the job's whole process group. With
//! `--profiles`, the run's record holds what each SuperKernel of the plan is predicted to save.

use crate::compile::foreground;
use crate::workspace::Workspace;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Runs recipe `name` on `ws` (loaded from `file`), predicting its SuperKernels' savings on
/// `profiles` (as `--profiles` gives them) of rank `rank` when given; the job's exit status,
/// as skope exits with.
pub fn run(
    (ws, file): (&Workspace, &Path),
    name: &str,
    (profiles, rank): (&[PathBuf], Option<u32>),
) -> Result<u8> {
    let predicted = match profiles {
        [] => None,
        _ => {
            super::suggest::ranked(ws, profiles, rank)
                .context("cannot predict the SuperKernels' savings from --profiles")?
                .0
                .today
        }
    };
    if let Some(p) = &predicted {
        eprintln!("skope: {}", crate::text::sanitize(&p.words()));
    }
    let cwd = std::env::current_dir().context("no working directory")?;
    let stop = foreground::stop_on_signals()?;
    let output = foreground::Output {
        line: &mut |line| println!("{line}"),
        say: &mut |words| eprintln!("skope: {words}"),
    };
    let status = foreground::run((ws, file), name, predicted, &cwd, &stop, output)?;
    Ok(status.exit_code())
}
