//! `skope compile`: runs a recipe on the plan in the foreground, each job line to stdout and
//! skope's own to stderr; ctrl-c or SIGTERM stops the job's whole process group.

use crate::compile::foreground;
use crate::workspace::Workspace;
use anyhow::{Context as _, Result};
use std::path::Path;

/// Runs recipe `name` on `ws` (loaded from `file`); the job's exit status, as skope exits with.
pub fn run(ws: &Workspace, file: &Path, name: &str) -> Result<u8> {
    let cwd = std::env::current_dir().context("no working directory")?;
    let stop = foreground::stop_on_signals()?;
    let output = foreground::Output {
        line: &mut |line| println!("{line}"),
        say: &mut |words| eprintln!("skope: {words}"),
    };
    let status = foreground::run(ws, file, name, &cwd, &stop, output)?;
    Ok(status.exit_code())
}
