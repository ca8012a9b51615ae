//! Loading and planning a dump on a worker thread, reporting each stage to the event loop.

use super::sink::Sink;
use crate::fusion::rules::RuleConfig;
use crate::journal::{self, Claim};
use crate::load::LoadOptions;
pub use crate::open::{Input, Stage};
use crate::open::{PlanRefused, apply_plan};
use crate::planfile::PlanFile;
use crate::worker::{Stopped, Threads};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where the plan comes from and goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanPath {
    /// The plan file.
    pub path: PathBuf,
    /// True when the user named it (`--plan`): it is applied when it exists.
    pub given: bool,
    /// Where earlier versions of skope saved the dump's plan, offered when `path` is not
    /// there and what they hold was made for this graph.
    pub earlier: Vec<PathBuf>,
    /// Apply the plan even when none of its ops is in the graph (`--force`).
    pub force: bool,
    /// Where the dump's files are kept, in words, when not beside it.
    pub kept_apart: Option<String>,
}

impl PlanPath {
    /// The plan file of `dump` by the naming rule ([`crate::paths::DumpFiles`]).
    pub fn of_dump(dump: &str) -> PlanPath {
        let files = crate::paths::DumpFiles::of(dump);
        PlanPath {
            path: files.plan(),
            given: false,
            earlier: files.earlier_plans(),
            force: false,
            kept_apart: files.where_kept(),
        }
    }

    /// The plan file the user named.
    pub fn given(path: PathBuf, force: bool) -> PlanPath {
        PlanPath {
            path,
            given: true,
            earlier: Vec::new(),
            force,
            kept_apart: None,
        }
    }
}

/// A plan file found for the dump but not applied: the explorer offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedPlan {
    /// The file.
    pub path: PathBuf,
    /// The scopes it holds.
    pub scopes: usize,
    /// When it was last written, in words.
    pub modified: String,
    /// How it was made for another graph, when it was: the ops it names that this graph has,
    /// and the ops it names.
    pub other_graph: Option<(usize, usize)>,
    /// True when an earlier skope saved it in the working directory: opening it reads it, and
    /// `w` saves to the plan file of the naming rule.
    pub earlier: bool,
}

/// A loaded workspace and what the user should know about it.
#[derive(Debug)]
pub struct Loaded {
    /// The graph with the dump's scopes, or the plan file's.
    pub ws: Workspace,
    /// Problems applying the plan file, in words.
    pub notes: Vec<String>,
    /// The journal this session claimed (with what an unfinished session left in it to
    /// recover), or why none could be claimed; `None` when there was none to look at (the
    /// session claims one at its first edit).
    pub journal: Option<Result<Claim, String>>,
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
    /// The user's operator sources: breaks of their op types say what adapting them takes.
    pub op_sources: Vec<PathBuf>,
    /// True when the dump is loaded again in the same session (it changed on disk): the
    /// session keeps its journal and carries its unsaved scopes over, so none is claimed and
    /// no saved plan is offered.
    pub again: bool,
}

/// What the loader reports.
#[derive(Debug)]
pub enum LoadEvent {
    /// It reached a new stage.
    Progress(Stage),
    /// It finished: the workspace, or the loader's message.
    Loaded(Result<Box<Loaded>, String>),
}

/// Starts loading the request's dump (and plan) where `threads` says; progress and the result
/// go to `events`. A panic while loading arrives as an error too, so the screen never waits
/// forever.
pub fn start(threads: Threads, request: LoadRequest, events: Sink<LoadEvent>) {
    let name = request.input.name();
    let progress = Arc::clone(&events);
    threads.start(
        "skope-load",
        move || {
            load(request, &mut |stage| {
                progress(LoadEvent::Progress(stage));
            })
        },
        {
            let events = Arc::clone(&events);
            let name = name.clone();
            move |answer| {
                let result = answer.unwrap_or_else(|stopped| Err(stopped_error(&name, &stopped)));
                events(LoadEvent::Loaded(result.map(Box::new)));
            }
        },
    );
}

/// Loads the request's dump (and plan), telling `progress` each stage: what [`spawn`] does on
/// its thread.
pub fn load(request: LoadRequest, progress: &mut dyn FnMut(Stage)) -> Result<Loaded, String> {
    let LoadRequest {
        input,
        plan,
        options,
        rules,
        kernel_meta,
        op_sources,
        again,
    } = request;
    let (mut ws, problems) =
        crate::open::open(&input, options, &rules, progress).map_err(|e| e.to_string())?;
    let meta_problems =
        crate::open::use_kernel_meta(&mut ws, &kernel_meta).map_err(|e| e.to_string())?;
    if !op_sources.is_empty() {
        let check = crate::check_op::check_paths(&op_sources, ws.target().target)
            .map_err(|e| e.to_string())?;
        ws.set_op_check(Arc::new(check));
    }
    let mut loaded = if again {
        again_with_plan(ws, &plan)?
    } else {
        with_plan(ws, &plan)?
    };
    loaded.notes.extend(problems);
    loaded.notes.extend(meta_problems);
    Ok(loaded)
}

impl Loaded {
    /// `ws` as it is: no plan file, no journal.
    pub fn new(ws: Workspace) -> Loaded {
        Loaded {
            ws,
            notes: Vec::new(),
            journal: None,
            plan_read: None,
            saved: None,
        }
    }
}

/// Claims the session's journal for the plan file, applies the plan file when the user named
/// it or when the journal an unfinished session left starts from it, and finds the plan file
/// to offer otherwise: the plan file of the naming rule, or one an earlier skope saved in the
/// working directory, when it was made for this graph; one made for another graph only when
/// some of its ops are here (the explorer asks before applying it). A named plan none of whose
/// ops is in the graph is refused (the error) unless `plan.force`.
pub fn with_plan(mut ws: Workspace, plan: &PlanPath) -> Result<Loaded, String> {
    let mut notes: Vec<String> = plan.kept_apart.iter().cloned().collect();
    let claim = journal::any_left(&plan.path).then(|| {
        journal::claim(&plan.path, &ws.source().id)
            .map_err(|e| format!("cannot keep a journal beside {}: {e}", display(&plan.path)))
    });
    if let Some(Ok(claim)) = &claim {
        notes.extend(claim_notes(claim));
    }
    let base = claim
        .as_ref()
        .and_then(|c| c.as_ref().ok())
        .and_then(|c| c.recovery.as_ref())
        .map(|r| r.base.clone());
    let mut plan_read = None;
    let mut saved = None;
    let apply = match (&base, plan.given) {
        (Some(base), _) => base.clone(),
        (None, true) => Some(plan.path.clone()),
        (None, false) => None,
    };
    match apply {
        Some(path) if path.exists() => {
            let modified = modified(&path);
            match apply_plan(&mut ws, &path, plan.force, 20) {
                Ok(lacking) => {
                    notes.extend(lacking.into_iter().map(|l| format!("plan: {l}")));
                    plan_read = Some((path, modified));
                }
                Err(PlanRefused::OtherGraph(refusal)) => return Err(refusal),
                Err(PlanRefused::Unreadable(e)) => notes.push(e.to_string().replace('\n', " ")),
            }
        }
        Some(path) if plan.given && base.is_none() => notes.push(format!(
            "{} does not exist yet: w saves the scopes there",
            display(&path)
        )),
        Some(path) => notes.push(format!(
            "{} is gone: the recovered edits start from the dump's scopes",
            display(&path)
        )),
        None if base.is_some() => {}
        None => saved = saved_plan(&ws, plan, &mut notes),
    }
    Ok(Loaded {
        notes,
        journal: claim,
        plan_read,
        saved,
        ..Loaded::new(ws)
    })
}

/// Loads the plan file `plan` names onto the dump loaded again, when the session had opened it
/// (`plan.given`); the session's journal stays its own, and its unsaved scopes are carried
/// over by the explorer.
fn again_with_plan(mut ws: Workspace, plan: &PlanPath) -> Result<Loaded, String> {
    let mut notes = Vec::new();
    let mut plan_read = None;
    if plan.given && plan.path.is_file() {
        let modified = modified(&plan.path);
        match apply_plan(&mut ws, &plan.path, true, 20) {
            Ok(lacking) => {
                notes.extend(lacking.into_iter().map(|l| format!("plan: {l}")));
                plan_read = Some((plan.path.clone(), modified));
            }
            Err(PlanRefused::OtherGraph(refusal)) => notes.push(refusal.replace('\n', " ")),
            Err(PlanRefused::Unreadable(e)) => notes.push(e.to_string().replace('\n', " ")),
        }
    }
    Ok(Loaded {
        notes,
        plan_read,
        ..Loaded::new(ws)
    })
}

/// What claiming the journal found that the user should know: journals in use by other
/// windows, journals of other graphs left alone, places refused, journals with nothing to
/// recover.
pub fn claim_notes(claim: &Claim) -> Vec<String> {
    let mut notes: Vec<String> = claim
        .held
        .iter()
        .map(|(path, holder)| {
            format!(
                "in use by {}: the journal {}; this window journals to {}",
                holder.words(),
                display(path),
                display(claim.journal.path())
            )
        })
        .collect();
    notes.extend(claim.foreign.iter().map(|path| {
        format!(
            "{} holds edits made on another graph or for another plan file (or by a skope that \
             did not record which): left as it is",
            display(path)
        )
    }));
    notes.extend(
        claim
            .refused
            .iter()
            .map(|(path, why)| format!("{}: not used as a journal: {why}", display(path))),
    );
    notes.extend(claim.notes.iter().cloned());
    notes
}

/// The plan file to offer for `ws`, if any; why one found is not offered goes to `notes`.
fn saved_plan(ws: &Workspace, plan: &PlanPath, notes: &mut Vec<String>) -> Option<SavedPlan> {
    let this = &ws.source().id;
    let candidates =
        std::iter::once((&plan.path, false)).chain(plan.earlier.iter().map(|p| (p, true)));
    for (path, earlier) in candidates {
        if !path.is_file() {
            continue;
        }
        let file = match PlanFile::read(path) {
            Ok(file) => file,
            Err(e) if !earlier => {
                notes.push(format!(
                    "{} (w asks before replacing it)",
                    e.to_string().replace('\n', " ")
                ));
                return None;
            }
            Err(_) => continue,
        };
        let modified = modified(path).map_or_else(|| "at an unknown time".to_string(), ago);
        let scopes = file.scopes.len();
        if file.graph.same_graph(this) {
            return Some(SavedPlan {
                path: path.clone(),
                scopes,
                modified,
                other_graph: None,
                earlier,
            });
        }
        if earlier {
            // Not this dump's: an earlier skope kept every dump of this file name there.
            continue;
        }
        let (_, mismatch) = file.marks_for(ws.graph());
        let found = mismatch.named_ops - mismatch.missing_ops.len();
        if found == 0 {
            notes.push(format!(
                "{} holds a plan made for another graph ({}, {} ops; none of its {} ops is \
                 here): not applied, and w asks before replacing it",
                display(path),
                file.graph.name,
                file.graph.ops,
                mismatch.named_ops
            ));
            return None;
        }
        return Some(SavedPlan {
            path: path.clone(),
            scopes,
            modified,
            other_graph: Some((found, mismatch.named_ops)),
            earlier,
        });
    }
    None
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

/// The message for loading the input named `name` that stopped without a result.
fn stopped_error(name: &str, stopped: &Stopped) -> String {
    match stopped {
        Stopped::Panicked(what) => format!(
            "{name}: internal error while loading: {what}\n  hint: this is a bug in skope; please report it with the dump (or the first lines of `skope info` on it)"
        ),
        Stopped::NoThread(why) => format!("{name}: no thread could be started to load it ({why})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_loading_becomes_an_error_message() {
        let panic = crate::worker::guarded(|| panic!("index out of range")).unwrap_err();
        let message = stopped_error("dump.txt", &Stopped::Panicked(panic));
        assert!(
            message.starts_with("dump.txt: internal error while loading: index out of range"),
            "{message}"
        );
        assert!(message.contains("hint: this is a bug"), "{message}");
    }
}
