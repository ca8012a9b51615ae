//! Adding a profile made elsewhere to the ledger: it becomes a run record of its own (recipe
//! `added`, ending `added`) in the dump's runs directory, with the plan it was made with, so
//! the ledger stays derived from run records alone.

use crate::compile::record::{self, Ending, RunRecord};
use crate::planfile::{GraphId, PlanFile};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// The recipe name of an added run.
pub const RECIPE: &str = "added";

/// Records the profile at `profile` as a run of `dump` (whose graph and plan `ws` holds: the
/// plan the profile was made with) in `runs`. Returns the new run's directory. Refuses a path
/// that holds no profile and a profile the ledger already has.
pub fn add(runs: &Path, ws: &Workspace, dump: &str, profile: &Path) -> Result<PathBuf, String> {
    let shown = profile.display();
    crate::profile::discover(profile).map_err(|e| format!("{shown}: {e}"))?;
    let results = std::fs::canonicalize(profile).map_err(|e| format!("{shown}: {e}"))?;
    let graph = GraphId::of(ws.graph());
    let plan_file = PlanFile::of(ws);
    let dirs = [runs.to_path_buf()];
    if let Some((dir, _)) = record::history_of(&dirs, &graph)
        .into_iter()
        .find(|(_, r)| {
            r.results
                .as_deref()
                .is_some_and(|p| std::fs::canonicalize(p).is_ok_and(|p| p == results))
        })
    {
        return Err(format!(
            "{shown} is already in the ledger: the run in {}",
            dir.display()
        ));
    }
    let dir = crate::compile::prepare::fresh_dir(runs, RECIPE)?;
    let written = write(&dir, ws, dump, &results, &plan_file);
    if let Err(e) = written {
        // Leave nothing half-made behind.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!("cannot record the run in {}: {e}", dir.display()));
    }
    Ok(dir)
}

/// Writes the plan, the log and the record of an added run into its fresh `dir`.
fn write(
    dir: &Path,
    ws: &Workspace,
    dump: &str,
    results: &Path,
    plan: &PlanFile,
) -> std::io::Result<()> {
    plan.write(&dir.join(record::PLAN))
        .map_err(std::io::Error::other)?;
    let shown = results.display().to_string();
    std::fs::write(
        dir.join(record::LOG),
        format!("job| added by path: {}\n", crate::text::sanitize(&shown)),
    )?;
    let now = record::now_ms();
    let cwd = std::env::current_dir().map_or_else(|_| ".".to_string(), |d| d.display().to_string());
    RunRecord {
        recipe: RECIPE.to_string(),
        recipe_file: None,
        argv: Vec::new(),
        cwd,
        env: Vec::new(),
        dump: dump.to_string(),
        graph: Some(GraphId::of(ws.graph())),
        plan: record::PLAN.to_string(),
        log: record::LOG.to_string(),
        results: Some(shown),
        started_ms: now,
        ended_ms: Some(now),
        ending: Some(Ending::Added),
        exit_code: None,
        signal: None,
        error: None,
        // Made elsewhere: no prediction was made before it.
        predicted: None,
    }
    .write(dir)
}
