//! Getting a run ready: a fresh output directory, the current plan and the generated entry
//! sources written there when the profile uses them, and the profile's templates expanded.

use super::profile::Profile;
use super::template::{self, Values};
use crate::codegen;
use crate::fusion::plan::{Context, Plan};
use crate::planfile::PlanFile;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The shim header the `check` profile compiles the entry sources against.
pub const SHIM_HEADER: &str = include_str!("../../assets/codegen/kernel_operator.h");

/// A run ready to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The command and its arguments, expanded.
    pub argv: Vec<String>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// Variables added to the environment.
    pub env: Vec<(String, String)>,
    /// The run's own output directory (`{out}`).
    pub out: PathBuf,
    /// Where its results appear, if it makes any.
    pub results: Option<PathBuf>,
}

/// What preparing a run needs from a workspace: taken where the workspace lives (cheap — the
/// planning context is shared, the plan copied, the plan file made only when the profile uses
/// `{plan}`), so the slow part, [`prepare_from`], can run on another thread.
#[derive(Debug, Clone)]
pub struct RunInput {
    file: String,
    cx: Arc<Context>,
    plan: Plan,
    plan_file: Option<PlanFile>,
    used: Vec<&'static str>,
}

impl RunInput {
    /// What `profile` needs of `ws`; fails when the profile's templates are bad.
    pub fn of(ws: &Workspace, profile: &Profile) -> Result<RunInput, String> {
        let mut templates = profile.argv.clone();
        templates.extend(profile.results.clone());
        let used =
            template::used(&templates).map_err(|e| format!("profile {}: {e}", profile.name))?;
        Ok(RunInput {
            file: ws.source().file.clone(),
            cx: ws.shared_context(),
            plan: ws.plan().clone(),
            plan_file: used.contains(&"plan").then(|| PlanFile::of(ws)),
            used,
        })
    }
}

/// Prepares `profile` on `ws` (see [`prepare_from`]).
pub fn prepare(ws: &Workspace, profile: &Profile, runs: &Path) -> Result<Prepared, String> {
    prepare_from(&RunInput::of(ws, profile)?, profile, runs)
}

/// Prepares `profile` on `input`: makes `<runs>/<profile>-<n>` (the first unused `n`), writes
/// `plan.skope.json` and `codegen/` (every segment's entry source, the shim header) into it when
/// the profile uses `{plan}` or `{codegen_dir}`, and expands the templates. Generating every
/// segment's code takes seconds on a 100k-op graph: the explorer does this on a worker.
pub fn prepare_from(input: &RunInput, profile: &Profile, runs: &Path) -> Result<Prepared, String> {
    let used = &input.used;
    let out = fresh_dir(runs, &profile.name)?;
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut values = Values {
        graph: absolute(Path::new(&input.file))
            .to_string_lossy()
            .into_owned(),
        out: absolute(&out).to_string_lossy().into_owned(),
        ..Values::default()
    };
    if let Some(plan_file) = &input.plan_file {
        let path = out.join("plan.skope.json");
        plan_file
            .write(&path)
            .map_err(|e| format!("cannot write the plan for the run: {e}"))?;
        values.plan = absolute(&path).to_string_lossy().into_owned();
    }
    if used.contains(&"codegen_dir") {
        let dir = out.join("codegen");
        let codes: Vec<_> = input
            .plan
            .scopes
            .iter()
            .flat_map(|s| &s.segments)
            .map(|s| codegen::entry(&input.cx, s))
            .collect();
        codegen::files::write_all(&dir, &codes, input.cx.graph())
            .and_then(|_| {
                crate::planfile::write_replacing(
                    &dir.join("kernel_operator.h"),
                    SHIM_HEADER.as_bytes(),
                )
            })
            .map_err(|e| format!("cannot write the entry sources into {}: {e}", dir.display()))?;
        values.codegen_dir = absolute(&dir).to_string_lossy().into_owned();
    }
    let argv = template::expand(&profile.argv, &values).map_err(|e| e.to_string())?;
    let results = match &profile.results {
        Some(t) => Some(PathBuf::from(
            template::expand(std::slice::from_ref(t), &values)
                .map_err(|e| e.to_string())?
                .remove(0),
        )),
        None => None,
    };
    let cwd = match &profile.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?,
    };
    Ok(Prepared {
        argv,
        cwd,
        env: profile.env.clone(),
        out,
        results,
    })
}

/// Creates `<runs>/<name>-<n>` for the first `n` not taken. The profile name is made safe for
/// a file name first.
fn fresh_dir(runs: &Path, name: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(runs).map_err(|e| format!("cannot create {}: {e}", runs.display()))?;
    let stem = codegen::subop::ident(name);
    for n in 1..100_000 {
        let dir = runs.join(format!("{stem}-{n}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err(format!(
        "{} holds too many runs: clean it up",
        runs.display()
    ))
}

/// Where runs of `dump` go: `<dump file name>.runs` in the working directory.
pub fn runs_dir(dump: &str) -> PathBuf {
    crate::paths::beside(dump, "runs")
}
