//! Getting a run ready: a fresh output directory holding the current plan, its record and the
//! generated entry sources when the recipe uses them, and the recipe's templates expanded.

use super::job::{Job, JobEvent, Launch};
use super::recipe::Recipe;
use super::record::{self, RunRecord};
use super::template::{self, Values};
use crate::codegen;
use crate::fusion::plan::{Context, Plan};
use crate::own_files::{self, Durability, Links};
use crate::planfile::PlanFile;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::SyncSender;

/// The shim header the `check` recipe compiles the entry sources against.
pub const SHIM_HEADER: &str = include_str!("../../assets/codegen/kernel_operator.h");

/// A run ready to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The command and its arguments, expanded.
    pub argv: Vec<String>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// Variables added to the environment.
    pub env: Vec<(String, String)>,
    /// How its stdout and stderr are read.
    pub streams: crate::compile::job::Streams,
    /// The run's own output directory (`{out}`).
    pub out: PathBuf,
    /// Where its results appear, if it makes any.
    pub results: Option<PathBuf>,
    /// Its record, written into `out` (started now; the end is noted when it ends).
    pub record: RunRecord,
}

impl Prepared {
    /// The file its output goes to, every line.
    pub fn log_file(&self) -> PathBuf {
        self.out.join(record::LOG)
    }

    /// Starts the job, its events tagged `tag` going to `events`. When it cannot start, its
    /// record says why, and so does the error; when it ends, its record gets its ending on the
    /// job's own thread, whether or not anyone still reads the events.
    pub fn start<T: Clone + Send + 'static>(
        &mut self,
        events: SyncSender<(T, JobEvent)>,
        tag: T,
    ) -> Result<Job, String> {
        let (mut record, out) = (self.record.clone(), self.out.clone());
        let log = self.log_file();
        let launch = Launch {
            env: &self.env,
            streams: self.streams,
            log: Some(&log),
            on_exit: Some(Box::new(move |status, cancelled| {
                record.finish(&out, status, cancelled)
            })),
            ..Launch::new(&self.argv, &self.cwd)
        };
        Job::spawn(launch, events, tag).map_err(|e| {
            let message = format!(
                "cannot start {}: {e} (is it installed and on PATH?)",
                crate::text::sanitize(self.argv.first().map_or("", String::as_str))
            );
            self.record.not_started(&self.out, &message);
            message
        })
    }
}

/// What preparing a run needs from a workspace: taken where the workspace lives (cheap — the
/// planning context is shared, the plan and its file copied), so the slow part,
/// [`prepare_from`], can run on another thread.
#[derive(Debug, Clone)]
pub struct RunInput {
    file: String,
    cx: Arc<Context>,
    kernel_meta: Arc<crate::kernel_meta::KernelMeta>,
    plan: Plan,
    plan_file: PlanFile,
    used: Vec<&'static str>,
    /// Runs of the dump kept on disk: older ended ones are removed.
    keep: usize,
    /// What the plan's SuperKernels are predicted to save, recorded with the run.
    pub predicted: Option<crate::suggest::prediction::PlanPrediction>,
}

impl RunInput {
    /// What `recipe` needs of `ws`, keeping at most `keep` runs of the dump on disk; fails
    /// when the recipe's templates are bad.
    pub fn of(ws: &Workspace, recipe: &Recipe, keep: usize) -> Result<RunInput, String> {
        let mut templates = recipe.argv.clone();
        templates.extend(recipe.results.clone());
        let used =
            template::used(&templates).map_err(|e| format!("recipe {}: {e}", recipe.name))?;
        Ok(RunInput {
            file: ws.source().file.clone(),
            cx: ws.shared_context(),
            kernel_meta: Arc::clone(ws.kernel_meta()),
            plan: ws.plan().clone(),
            plan_file: PlanFile::of(ws),
            used,
            keep,
            predicted: None,
        })
    }
}

/// Prepares `recipe` on `ws`, keeping at most `keep` runs on disk (see [`prepare_from`]).
pub fn prepare(
    ws: &Workspace,
    recipe: &Recipe,
    runs: &Path,
    keep: usize,
) -> Result<Prepared, String> {
    prepare_from(&RunInput::of(ws, recipe, keep)?, recipe, runs)
}

/// Prepares `recipe` on `input`: makes `<runs>/<recipe>-<n>` (the first unused `n`), writes
/// the plan (`plan.skope.json`) into it, `codegen/` (every segment's entry source, the shim
/// header) when the recipe uses `{codegen_dir}`, expands the templates, and writes the run's
/// record; then removes the oldest ended runs beyond `input.keep`. Generating every segment's
/// code takes seconds on a 100k-op graph: the explorer does this on a worker.
pub fn prepare_from(input: &RunInput, recipe: &Recipe, runs: &Path) -> Result<Prepared, String> {
    let used = &input.used;
    let out = fresh_dir(runs, &recipe.name)?;
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut values = Values {
        graph: absolute(Path::new(&input.file))
            .to_string_lossy()
            .into_owned(),
        out: absolute(&out).to_string_lossy().into_owned(),
        ..Values::default()
    };
    let plan_path = out.join(record::PLAN);
    input
        .plan_file
        .write(&plan_path)
        .map_err(|e| format!("cannot write the plan for the run: {e}"))?;
    values.plan = absolute(&plan_path).to_string_lossy().into_owned();
    if used.contains(&"codegen_dir") {
        let dir = out.join("codegen");
        let codes: Vec<_> = input
            .plan
            .scopes
            .iter()
            .flat_map(|s| &s.segments)
            .map(|s| codegen::entry(&input.cx, &input.kernel_meta, s))
            .collect();
        codegen::files::write_all(&dir, Links::Refuse, &codes, input.cx.graph())
            .and_then(|_| {
                own_files::replace(
                    &dir.join("kernel_operator.h"),
                    SHIM_HEADER.as_bytes(),
                    Durability::Unsynced,
                    Links::Refuse,
                )
            })
            .map_err(|e| format!("cannot write the entry sources into {}: {e}", dir.display()))?;
        values.codegen_dir = absolute(&dir).to_string_lossy().into_owned();
    }
    let argv = template::expand(&recipe.argv, &values).map_err(|e| e.to_string())?;
    let results = match &recipe.results {
        Some(t) => Some(PathBuf::from(
            template::expand(std::slice::from_ref(t), &values)
                .map_err(|e| e.to_string())?
                .remove(0),
        )),
        None => None,
    };
    let cwd = match &recipe.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?,
    };
    let record = RunRecord {
        recipe: recipe.name.clone(),
        recipe_file: recipe
            .file
            .as_ref()
            .map(|f| f.to_string_lossy().into_owned()),
        argv: argv.clone(),
        cwd: cwd.to_string_lossy().into_owned(),
        env: recipe.env.clone(),
        dump: values.graph.clone(),
        graph: Some(input.plan_file.graph.clone()),
        plan: record::PLAN.to_string(),
        log: record::LOG.to_string(),
        results: results.as_ref().map(|r| r.to_string_lossy().into_owned()),
        started_ms: record::now_ms(),
        ended_ms: None,
        ending: None,
        exit_code: None,
        signal: None,
        error: None,
        predicted: input.predicted.clone(),
    };
    record
        .write(&out)
        .map_err(|e| format!("cannot write the run's record into {}: {e}", out.display()))?;
    record::prune(runs, input.keep.max(1));
    Ok(Prepared {
        argv,
        cwd,
        env: recipe.env.clone(),
        streams: recipe.streams,
        out,
        results,
        record,
    })
}

/// Creates `<runs>/<name>-<n>` for the first `n` not taken. The recipe name is made safe for
/// a file name first.
pub fn fresh_dir(runs: &Path, name: &str) -> Result<PathBuf, String> {
    own_files::own_dir(runs).map_err(|e| format!("cannot keep runs in {}: {e}", runs.display()))?;
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

/// Where runs of `dump` go: `<dump>.runs` ([`crate::paths::DumpFiles`]).
pub fn runs_dir(dump: &str) -> PathBuf {
    crate::paths::DumpFiles::of(dump).runs()
}
