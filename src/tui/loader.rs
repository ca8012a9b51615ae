//! Loading and planning a dump on a worker thread, reporting each stage to the event loop.

use super::sink::Sink;
use crate::fusion::rules::RuleConfig;
use crate::load::{self, LoadOptions};
use crate::planfile::{self, JournalEntry, PlanFile};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// What the loader is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the file: bytes read so far, of `total`.
    Reading {
        /// Bytes read.
        done: u64,
        /// File size.
        total: u64,
    },
    /// Parsing `bytes` bytes.
    Parsing {
        /// File size.
        bytes: u64,
    },
    /// Planning a graph of `ops` ops.
    Planning {
        /// Ops in the graph.
        ops: usize,
    },
}

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

/// What to load.
#[derive(Debug, Clone)]
pub enum Input {
    /// A dump file.
    File(PathBuf),
    /// A dump held in the binary (the bundled example), with the name to show for it.
    Bundled {
        /// The name shown and used in messages.
        name: &'static str,
        /// The dump's bytes.
        bytes: &'static [u8],
    },
}

impl Input {
    /// The name shown for the input.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.to_string_lossy().into_owned(),
            Input::Bundled { name, .. } => (*name).to_string(),
        }
    }
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
    } = request;
    std::thread::spawn(move || {
        let result = crate::worker::guarded(|| {
            let (ws, problems) = load(&input, options, &rules, &mut |stage| {
                events(LoadEvent::Progress(stage));
            })?;
            let mut loaded = with_plan(ws, &plan)?;
            loaded.notes.extend(problems);
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
        match PlanFile::read(&plan.path) {
            Ok(file) => {
                let (marks, mismatch) = file.marks_for(ws.graph());
                if let Some(refusal) = mismatch.refusal(&plan.path, ws.graph(), plan.force) {
                    return Err(refusal);
                }
                notes.extend(mismatch.lines(20).into_iter().map(|l| format!("plan: {l}")));
                ws.reset_marks(marks);
                plan_read = Some((plan.path.clone(), modified));
            }
            Err(e) => notes.push(e.to_string().replace('\n', " ")),
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

/// Loads and plans `input` with `rules`, calling `progress` at each stage; also returns what
/// of the CANN install could not be read. The error is the loader's message (file, line,
/// column, hint).
pub fn load(
    input: &Input,
    options: LoadOptions,
    rules: &RuleConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<(Workspace, Vec<String>), String> {
    let name = input.name();
    let dump = match input {
        Input::File(path) => load::load_file_reporting(path, options, &mut |done, total| {
            progress(if done == total {
                Stage::Parsing { bytes: total }
            } else {
                Stage::Reading { done, total }
            })
        }),
        Input::Bundled { name, bytes } => {
            progress(Stage::Parsing {
                bytes: bytes.len() as u64,
            });
            load::load_bytes(std::path::Path::new(name), bytes)
        }
    }
    .map_err(|e| e.to_string())?;
    let (format, stamp) = (dump.format, dump.stamp.clone());
    let graph = dump.into_main();
    progress(Stage::Planning { ops: graph.len() });
    let (rules, problems) = rules.for_graph(&graph);
    let mut ws = Workspace::new(graph, format, &name, &rules);
    ws.set_stamp(stamp);
    Ok((ws, problems))
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

    #[test]
    fn stages_are_reported_in_order() {
        let mut stages = Vec::new();
        let input = Input::File(PathBuf::from("assets/examples/moe_decode.pbtxt"));
        let (ws, _) = load(
            &input,
            LoadOptions::default(),
            &RuleConfig::default(),
            &mut |s| stages.push(s),
        )
        .unwrap();
        assert_eq!(ws.graph().len(), 121);
        // Larger than the 64 KiB head, which is read (and checked for binary content) first.
        assert!(
            matches!(stages[0], Stage::Reading { done, total } if done > 0 && done < total),
            "{stages:?}"
        );
        assert!(
            matches!(stages[stages.len() - 2], Stage::Parsing { .. }),
            "{stages:?}"
        );
        assert_eq!(stages.last(), Some(&Stage::Planning { ops: 121 }));
    }
}
