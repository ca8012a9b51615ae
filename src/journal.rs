//! The edit journal: every edit, undo and redo of an explorer session, one JSON line each,
//! flushed as it happens, so a session that did not end cleanly can be replayed. Its first line
//! names the graph it was written for: a journal is replayed only on a graph with the same
//! fingerprint.
//!
//! A journal belongs to one session at a time. Its lock (`<journal>.lock`, holding the pid,
//! host and start of the session) is an advisory `flock` the kernel drops when the process
//! ends, however it ends; so a second window on the same dump sees the journal is in use, says
//! by whom, and journals to `<plan>.journal.2` (the next free one) instead, and a lock left by
//! a session that is gone is taken over. Nothing here ever deletes a journal another live
//! session holds.

use crate::edit::Edit;
use crate::graph::{Graph, GraphId, OpId};
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::io::AsRawFd as _;
use std::path::{Path, PathBuf};

/// Journals kept side by side for one plan file (one per window open on it).
const MAX_JOURNALS: usize = 32;

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalEntry {
    /// The first line: the graph the edits were made on, and what they start from.
    Start {
        /// The graph.
        graph: GraphId,
        /// The plan file the edits start from (as it was then); `None`: the dump's own scopes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<PathBuf>,
    },
    /// An edit, with its coalescing key.
    Edit {
        /// The edit, ops by name.
        edit: Edit<String>,
        /// Steps with the same key in a row are one step.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<u64>,
    },
    /// An undo.
    Undo,
    /// A redo.
    Redo,
}

/// The first journal of a plan file: `<plan>.journal`.
pub fn path(plan: &Path) -> PathBuf {
    numbered(plan, 1)
}

/// Journal `n` of a plan file: `<plan>.journal`, then `<plan>.journal.2`, `.3`…
fn numbered(plan: &Path, n: usize) -> PathBuf {
    let mut name = plan.as_os_str().to_owned();
    name.push(".journal");
    if n > 1 {
        name.push(format!(".{n}"));
    }
    PathBuf::from(name)
}

/// The lock of the journal at `journal`: `<journal>.lock`.
fn lock_path(journal: &Path) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The session that holds a journal, as its lock file says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// The host it runs on.
    pub host: String,
    /// When it took the lock, in milliseconds since the Unix epoch.
    pub since_ms: u64,
}

impl Holder {
    /// This process, now.
    fn me() -> Holder {
        Holder {
            pid: std::process::id(),
            host: hostname(),
            since_ms: crate::clock::now_ms(),
        }
    }

    /// `skope pid 4242 on host npu-01 since 2026-11-24 02:13:05 UTC`.
    pub fn words(&self) -> String {
        format!(
            "skope pid {} on host {} since {}",
            self.pid,
            crate::text::sanitize(&self.host),
            crate::clock::utc(self.since_ms)
        )
    }
}

/// This machine's host name (`?` when it cannot be read).
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "?".to_string())
}

/// A journal's lock, held while this value lives (the kernel drops it when the process ends).
#[derive(Debug)]
struct Lock {
    path: PathBuf,
    file: File,
}

/// What trying a journal's lock found.
enum Tried {
    /// Taken: the lock, and the session that held it before when one ended without letting
    /// go (its process is gone).
    Taken(Lock, Option<Holder>),
    /// Another live session holds it (or one on another host, which skope cannot check).
    Held(Holder),
}

/// Tries the lock at `path` without waiting.
fn try_lock(path: &Path) -> std::io::Result<Tried> {
    for _ in 0..8 {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let error = std::io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(error);
            }
            // Its holder may not have written itself in yet: say so rather than guess.
            let holder = read_holder(&mut file).unwrap_or(Holder {
                pid: 0,
                host: hostname(),
                since_ms: crate::clock::now_ms(),
            });
            return Ok(Tried::Held(holder));
        }
        // A session ending removes its lock file: locking a file no longer at `path` holds
        // nothing, so try the new one.
        let same = match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            _ => false,
        };
        if !same {
            continue;
        }
        let before = read_holder(&mut file);
        let me = Holder::me();
        if let Some(before) = &before
            && before.host != me.host
        {
            // A lock over a network file system: the kernel's lock does not reach the other
            // host, whose session may be alive.
            return Ok(Tried::Held(before.clone()));
        }
        let text = serde_json::to_string(&me).map_err(std::io::Error::other)?;
        file.set_len(0)?;
        file.rewind()?;
        file.write_all(text.as_bytes())?;
        file.sync_data()?;
        return Ok(Tried::Taken(
            Lock {
                path: path.to_path_buf(),
                file,
            },
            before,
        ));
    }
    Err(std::io::Error::other(format!(
        "{}: the lock file keeps changing; another skope is starting or ending on this dump",
        path.display()
    )))
}

/// The holder a lock file names, if it names one.
fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.take(4096).read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

/// A journal this session writes: locked for it alone.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    lock: Lock,
    graph: GraphId,
    /// The plan file the edits written from now on start from (`None`: the dump's scopes).
    base: Option<PathBuf>,
    /// Open for appending once the first entry is written.
    file: Option<File>,
}

impl Journal {
    fn new(path: PathBuf, lock: Lock, graph: &GraphId) -> Journal {
        Journal {
            path,
            lock,
            graph: graph.clone(),
            base: None,
            file: None,
        }
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `entry` and flushes it to disk; a journal written for the first time (or
    /// after [`Journal::clear`]) starts with the graph's line.
    pub fn append(&mut self, entry: &JournalEntry) -> std::io::Result<()> {
        if self.file.is_none() {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?;
            if file.metadata()?.len() == 0 {
                let start = JournalEntry::Start {
                    graph: self.graph.clone(),
                    base: self.base.clone(),
                };
                writeln!(file, "{}", line(&start)?)?;
            }
            self.file = Some(file);
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        writeln!(file, "{}", line(entry)?)?;
        file.sync_data()
    }

    /// Says what the edits journaled from the next [`Journal::clear`] on start from: the plan
    /// file at `base` (just opened or written), or the dump's scopes.
    pub fn set_base(&mut self, base: Option<PathBuf>) {
        self.base = base;
    }

    /// Empties the journal (after a save: the plan file holds the edits now).
    pub fn clear(&mut self) -> std::io::Result<()> {
        self.file = None;
        File::create(&self.path).map(drop)
    }

    /// Ends the session cleanly: the journal goes, then its lock.
    pub fn remove(self) -> std::io::Result<()> {
        let removed = match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
        let _ = std::fs::remove_file(&self.lock.path);
        drop(self.lock.file);
        removed
    }
}

/// One entry as a JSON line.
fn line(entry: &JournalEntry) -> std::io::Result<String> {
    Ok(crate::text::json_safe(
        serde_json::to_string(entry).map_err(std::io::Error::other)?,
    ))
}

/// The journal a session claimed for a plan file, and what it found on the way.
#[derive(Debug)]
pub struct Claim {
    /// The journal this session writes.
    pub journal: Journal,
    /// Entries an unfinished session on this graph left in it (to offer for recovery).
    pub pending: Vec<JournalEntry>,
    /// Lines of it that could not be read.
    pub damaged: usize,
    /// The session that left them, when its lock was still there (its process is gone).
    pub left_by: Option<Holder>,
    /// Journals other live sessions hold, with who holds them.
    pub held: Vec<(PathBuf, Holder)>,
    /// Journals left for another graph (or by a skope that did not say for which): kept as
    /// they are, not replayed here.
    pub foreign: Vec<PathBuf>,
}

/// True when a journal of `plan` exists (an unfinished session's, or a live one's): only then
/// must a session claim its journal as it starts, to see whether there is work to recover;
/// otherwise it claims one at its first edit, and opening a dump writes nothing beside it.
pub fn any_left(plan: &Path) -> bool {
    (1..=MAX_JOURNALS).any(|n| numbered(plan, n).exists())
}

/// Claims a journal for a session on `graph` saving to `plan`: one with edits an ended
/// session left on this graph when there is one (to offer for recovery), else the first that
/// is free; never one another live session holds.
pub fn claim(plan: &Path, graph: &GraphId) -> std::io::Result<Claim> {
    let mut held = Vec::new();
    let mut foreign = Vec::new();
    let mut free: Option<(PathBuf, Lock)> = None;
    let mut first_unused: Option<PathBuf> = None;
    for n in 1..=MAX_JOURNALS {
        let path = numbered(plan, n);
        let lock = lock_path(&path);
        if !path.exists() && !lock.exists() {
            first_unused.get_or_insert(path);
            continue;
        }
        match try_lock(&lock)? {
            Tried::Held(holder) => held.push((path, holder)),
            Tried::Taken(lock, before) => {
                let (entries, bad) = read(&path).unwrap_or_default();
                let edits = entries
                    .iter()
                    .any(|e| !matches!(e, JournalEntry::Start { .. }));
                if !edits && bad.is_empty() {
                    if free.is_none() {
                        free = Some((path, lock));
                    }
                    continue;
                }
                match entries.first() {
                    Some(JournalEntry::Start { graph: made, .. }) if made.same_graph(graph) => {
                        return Ok(Claim {
                            journal: Journal::new(path, lock, graph),
                            pending: entries,
                            damaged: bad.len(),
                            left_by: before,
                            held,
                            foreign,
                        });
                    }
                    _ => foreign.push(path),
                }
            }
        }
    }
    let (path, lock) = match (free, first_unused) {
        (Some(free), _) => free,
        (None, Some(path)) => match try_lock(&lock_path(&path))? {
            Tried::Taken(lock, _) => (path, lock),
            Tried::Held(holder) => {
                return Err(std::io::Error::other(format!(
                    "{}: taken by {} as skope started",
                    path.display(),
                    holder.words()
                )));
            }
        },
        (None, None) => {
            return Err(std::io::Error::other(format!(
                "{} journals of {} are in use: close other skope windows on this dump",
                MAX_JOURNALS,
                plan.display()
            )));
        }
    };
    Ok(Claim {
        journal: Journal::new(path, lock, graph),
        pending: Vec::new(),
        damaged: 0,
        left_by: None,
        held,
        foreign,
    })
}

/// Reads the journal at `path`: its entries, and the lines that are not entries (a line cut
/// short by a crash, say) with their line numbers.
pub fn read(path: &Path) -> std::io::Result<(Vec<JournalEntry>, Vec<String>)> {
    let text = std::fs::read_to_string(path)?;
    let mut entries = Vec::new();
    let mut bad = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(entry) => entries.push(entry),
            Err(e) => bad.push(format!("journal line {}: {e}", i + 1)),
        }
    }
    Ok((entries, bad))
}

/// What replaying a journal did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// Entries applied.
    pub applied: usize,
    /// Entries that could not be applied, with why (an op the graph lacks, an edit that no
    /// longer applies, a damaged line).
    pub skipped: Vec<String>,
}

/// Replays journal `entries` on `ws` (the graph line is not an edit).
pub fn replay(ws: &mut Workspace, entries: &[JournalEntry]) -> Replay {
    let mut out = Replay::default();
    for entry in entries {
        let done = match entry {
            JournalEntry::Start { .. } => continue,
            JournalEntry::Edit { edit, key } => {
                let graph = ws.graph();
                match edit.clone().map_ops(|name| graph.find(&name).ok_or(name)) {
                    Ok(edit) => ws.apply(edit, *key).map_err(|e| e.to_string()),
                    Err(name) => Err(format!("op {name} is not in this graph")),
                }
            }
            JournalEntry::Undo => ws
                .undo()
                .map(|_| ())
                .ok_or_else(|| "nothing to undo".into()),
            JournalEntry::Redo => ws
                .redo()
                .map(|_| ())
                .ok_or_else(|| "nothing to redo".into()),
        };
        match done {
            Ok(()) => out.applied += 1,
            Err(why) => out.skipped.push(why),
        }
    }
    out
}

/// The plan file the edits of `entries` start from (`None`: the dump's scopes).
pub fn base(entries: &[JournalEntry]) -> Option<&Path> {
    match entries.first() {
        Some(JournalEntry::Start { base, .. }) => base.as_deref(),
        _ => None,
    }
}

/// The edits among `entries` (not the graph line).
pub fn edits(entries: &[JournalEntry]) -> usize {
    entries
        .iter()
        .filter(|e| !matches!(e, JournalEntry::Start { .. }))
        .count()
}

/// `edit` with its ops named, for the journal.
pub fn named(graph: &Graph, edit: &Edit) -> Edit<String> {
    match edit
        .clone()
        .map_ops(|id: OpId| Ok::<_, std::convert::Infallible>(graph.op(id).name.clone()))
    {
        Ok(named) => named,
        Err(never) => match never {},
    }
}
