//! Loading and planning a dump on a worker thread, reporting each stage to the event loop.

use super::sink::Sink;
use crate::fusion::rules::RuleConfig;
use crate::load::LoadOptions;
pub use crate::open::{Input, Stage};
use crate::open::{PlanRefused, apply_plan};
use crate::planfile::{self, JournalEntry, PlanFile};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// Where the plan comes from and goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanPath {
    /// The plan file.
    pub path: PathBuf,
    /// True when the user named it (`--plan`): it is applied when it exists.
    pub given: bool,
    /// Where earlier versions of skope saved the dump's plan, looked at when `path` is not
    /// there.
    pub older: Option<PathBuf>,
    /// Apply the plan even when none of its ops is in the graph (`--force`).
    pub force: bool,
}

impl PlanPath {
    /// The plan file of `dump` by the naming rule (`<dump file name>.skope.json`).
    pub fn of_dump(dump: &str) -> PlanPath {
        PlanPath {
            path: crate::paths::plan_file(dump),
            given: false,
            older: crate::paths::older_plan_file(dump),
            force: false,
        }
    }

    /// The plan file the user named.
    pub fn given(path: PathBuf, force: bool) -> PlanPath {
        PlanPath {
            path,
            given: true,
            older: None,
            force,
        }
    }
}

/// A plan file saved for the dump that was not opened: the explorer offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedPlan {
    /// The file.
    pub path: PathBuf,
    /// The scopes it holds.
    pub scopes: usize,
    /// When it was last written, in words.
    pub modified: String,
}

/// A loaded workspace and what the user should know about it.
#[derive(Debug)]
pub struct Loaded {
    /// The graph with the dump's scopes, or the plan file's.
    pub ws: Workspace,
    /// Problems applying the plan file, in words.
    pub notes: Vec<String>,
    /// Journal entries an unfinished session left (empty when there is nothing to recover).
    pub journal: Vec<JournalEntry>,
    /// Journal lines that could not be read.
    pub damaged: usize,
    /// The plan file applied, with its modification time when it was read.
    pub plan_read: Option<(PathBuf, Option<std::time::SystemTime>)>,
    /// A plan file saved for the dump that was not applied (the user did not name it).
    pub saved: Option<SavedPlan>,
}

/// What to load and how: kept by the explorer, so it can load the dump again.
#[derive(Debug, Clone)]
pub struct LoadRequest {
    /// The dump.
    pub input: Input,
    /// Its plan file.
    pub plan: PlanPath,
    /// Size and memory limits.
    pub options: LoadOptions,
    /// The rules to judge ops with.
    pub rules: RuleConfig,
    /// A compile's kernel_meta (directories, op-info JSONs, entry sources) for the code view.
    pub kernel_meta: Vec<PathBuf>,
}

/// What the loader reports.
#[derive(Debug)]
pub enum LoadEvent {
    /// It reached a new stage.
    Progress(Stage),
    /// It finished: the workspace, or the loader's message.
    Loaded(Result<Box<Loaded>, String>),
}

/// Starts loading the request's dump (and plan) on a new thread; progress and the result
/// go to `events`. A panic while loading arrives as an error too, so the screen never waits
/// forever.
pub fn spawn(request: LoadRequest, events: Sink<LoadEvent>) {
    let LoadRequest {
        input,
        plan,
        options,
        rules,
        kernel_meta,
    } = request;
    std::thread::spawn(move || {
        let result = crate::worker::guarded(|| {
            let (ws, problems) = crate::open::open(&input, options, &rules, &mut |stage| {
                events(LoadEvent::Progress(stage));
            })
            .map_err(|e| e.to_string())?;
            let mut ws = ws;
            let meta_problems =
                crate::open::use_kernel_meta(&mut ws, &kernel_meta).map_err(|e| e.to_string())?;
            let mut loaded = with_plan(ws, &plan)?;
            loaded.notes.extend(problems);
            loaded.notes.extend(meta_problems);
            Ok(loaded)
        })
        .unwrap_or_else(|message| Err(internal_error(&input, &message)));
        events(LoadEvent::Loaded(result.map(Box::new)));
    });
}

impl Loaded {
    /// `ws` as it is: no plan file, nothing to recover.
    pub fn new(ws: Workspace) -> Loaded {
        Loaded {
            ws,
            notes: Vec::new(),
            journal: Vec::new(),
            damaged: 0,
            plan_read: None,
            saved: None,
        }
    }
}

/// Applies the plan file when the user named it, or when an unfinished session left a journal
/// next to it (the journal continues from the plan file); reads that journal. A plan file
/// saved for the dump but not named is not applied: it comes back in [`Loaded::saved`] for the
/// explorer to offer. A named plan none of whose ops is in the graph is refused (the error)
/// unless `plan.force`.
pub fn with_plan(mut ws: Workspace, plan: &PlanPath) -> Result<Loaded, String> {
    let mut notes = Vec::new();
    let journal_path = planfile::journal_path(&plan.path);
    let (journal, bad) = planfile::read_journal(&journal_path).unwrap_or_default();
    let recovering = !journal.is_empty() || !bad.is_empty();
    let mut plan_read = None;
    let mut saved = None;
    if (plan.given || recovering) && plan.path.exists() {
        let modified = modified(&plan.path);
        match apply_plan(&mut ws, &plan.path, plan.force, 20) {
            Ok(lacking) => {
                notes.extend(lacking.into_iter().map(|l| format!("plan: {l}")));
                plan_read = Some((plan.path.clone(), modified));
            }
            Err(PlanRefused::OtherGraph(refusal)) => return Err(refusal),
            Err(PlanRefused::Unreadable(e)) => notes.push(e.to_string().replace('\n', " ")),
        }
    } else if plan.given {
        notes.push(format!(
            "{} does not exist yet: w saves the scopes there",
            display(&plan.path)
        ));
    } else {
        saved = std::iter::once(&plan.path)
            .chain(plan.older.as_ref())
            .find(|p| p.is_file())
            .map(|path| SavedPlan {
                path: path.clone(),
                scopes: PlanFile::read(path).map_or(0, |f| f.scopes.len()),
                modified: modified(path).map_or_else(|| "at an unknown time".to_string(), ago),
            });
    }
    Ok(Loaded {
        notes,
        journal,
        damaged: bad.len(),
        plan_read,
        saved,
        ..Loaded::new(ws)
    })
}

/// When `path` was last written.
pub fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// `3 min ago`, `2 h ago`, `5 days ago`.
fn ago(when: std::time::SystemTime) -> String {
    let secs = when.elapsed().map_or(0, |d| d.as_secs());
    match secs {
        0..60 => "just now".to_string(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

/// The message for a panic (saying `what`) while loading `input`.
fn internal_error(input: &Input, what: &str) -> String {
    format!(
        "{}: internal error while loading: {what}\n  hint: this is a bug in skope; please report it with the dump (or the first lines of `skope info` on it)",
        input.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_loading_becomes_an_error_message() {
        let input = Input::File(PathBuf::from("dump.txt"));
        let panic = crate::worker::guarded(|| panic!("index out of range")).unwrap_err();
        let message = internal_error(&input, &panic);
        assert!(
            message.starts_with("dump.txt: internal error while loading: index out of range"),
            "{message}"
        );
        assert!(message.contains("hint: this is a bug"), "{message}");
    }
}
