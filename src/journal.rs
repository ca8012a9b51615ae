//! The edit journal: every edit, undo and redo of an explorer session, flushed as it happens,
//! so a session that did not end cleanly can be replayed.
//!
//! It is kept as a write-ahead log is. Each record is one line that stands alone — the entry's
//! JSON, a space and the CRC-32 of that JSON (`{…} 1a2b3c4d`) — so a line cut by a full disk
//! (even inside a character) or a flipped byte is found, and recovery takes every whole record
//! up to the first damaged one and says how many were lost (the damaged journal is kept aside
//! as `<journal>.damaged…`). A record is written at the end of the last whole one: a failed
//! write never leaves the next record appended to a cut line; records that could not be
//! written are held and written first at the next append.
//!
//! Its first record names the graph (its fingerprint), the plan file the session saves to and
//! the one its edits start from — absolute paths — and what that file held (its size and
//! CRC-32): a journal is replayed only on the same graph, for the same plan file, and says
//! when its base changed since. Before a save replaces the plan file, a `saving` record gives
//! the new file's digest, so a session killed between the save and the journal's truncation is
//! known to have saved, not offered again.
//!
//! A journal belongs to one session at a time. Its lock (`<journal>.lock`, holding the pid,
//! host and start of the session) is an advisory `flock` the kernel drops when the process
//! ends, however it ends; so a second window on the same dump sees the journal is in use, says
//! by whom, and journals to `<plan>.journal.2` (the next free one) instead, and a lock left by
//! a session that is gone is taken over. Journals and locks are skope's own files
//! ([`crate::own_files`]): never opened through a symbolic link, and removed only while they
//! are still the files this session holds. Nothing here ever deletes a journal another live
//! session holds.

use crate::edit::Edit;
use crate::graph::{Graph, GraphId, OpId};
use crate::own_files;
use crate::planfile::PlanFile;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::FileExt as _;
use std::os::unix::io::AsRawFd as _;
use std::path::{Path, PathBuf};

/// Journals kept side by side for one plan file (one per window open on it).
const MAX_JOURNALS: usize = 32;

/// The most of a journal that is read: beyond it, records count as lost.
const MAX_JOURNAL_BYTES: u64 = 256 << 20;

/// What a file held: its size and the CRC-32 of its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digest {
    /// Its size in bytes.
    pub bytes: u64,
    /// The CRC-32 of its bytes.
    pub crc32: u32,
}

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest {
            bytes: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        }
    }

    /// The digest of the file at `path` now, if it can be read.
    pub fn of_file(path: &Path) -> Option<Digest> {
        std::fs::read(path).ok().map(|bytes| Digest::of(&bytes))
    }
}

/// One record of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JournalEntry {
    /// The first record: the graph the edits were made on, and what they start from.
    Start {
        /// The graph.
        graph: GraphId,
        /// The plan file the edits start from (as it was then; absolute); `None`: the dump's
        /// own scopes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<PathBuf>,
        /// What `base` held then.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base_digest: Option<Digest>,
        /// The plan file the session saves to (absolute): the journal is recovered only by a
        /// session saving there. `None` in journals of earlier releases.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan: Option<PathBuf>,
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
    /// Every scope at once, by op name: the unsaved scopes carried onto the dump loaded again
    /// after it changed on disk.
    Scopes {
        /// The scopes, as a plan file holds them.
        plan: Box<PlanFile>,
    },
    /// The plan file is about to be replaced by one with this digest (the edits before this
    /// record are in it once it has).
    Saving {
        /// What the new plan file holds.
        digest: Digest,
    },
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

/// `path` with `suffix` after its name.
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// `path` made absolute, its folder's links and `..` resolved when the folder exists: the one
/// spelling of a plan file a journal records, whatever the working directory.
pub fn absolute(path: &Path) -> PathBuf {
    let resolved = path.parent().zip(path.file_name()).and_then(|(dir, name)| {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        std::fs::canonicalize(dir).ok().map(|d| d.join(name))
    });
    resolved
        .or_else(|| std::path::absolute(path).ok())
        .unwrap_or_else(|| path.to_path_buf())
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
    own_files::host_name().unwrap_or_else(|| "?".to_string())
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

/// Tries the lock at `path` without waiting. The lock file is skope's own: a link there is
/// refused, never followed.
fn try_lock(path: &Path) -> std::io::Result<Tried> {
    for _ in 0..8 {
        let mut file = own_files::open_own(path)?;
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
        let same = match (file.metadata(), path.symlink_metadata()) {
            (Ok(a), Ok(b)) => {
                use std::os::unix::fs::MetadataExt as _;
                a.ino() == b.ino() && a.dev() == b.dev()
            }
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

/// What the edits journaled from now on start from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Base {
    /// The plan file (absolute), or `None` for the dump's scopes.
    path: Option<PathBuf>,
    /// What it held when the session started from it.
    digest: Option<Digest>,
}

/// A journal this session writes: locked for it alone.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    lock: Lock,
    file: File,
    graph: GraphId,
    /// The plan file the session saves to (absolute).
    plan: PathBuf,
    /// What the edits written from the next [`Journal::clear`] on start from.
    base: Base,
    /// Bytes of whole records in the file; the next record goes here.
    written: u64,
    /// True when the file may hold more than `written` (a damaged tail, a failed write): it
    /// is cut back to `written` before the next record.
    tail: bool,
    /// Records that could not be written yet, written first at the next append.
    unwritten: Vec<JournalEntry>,
}

/// A journal that could not take a record.
#[derive(Debug)]
pub struct AppendError {
    /// The journal.
    pub path: PathBuf,
    /// Records held back, to be written at the next append.
    pub held_back: usize,
    /// Why.
    pub error: std::io::Error,
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot write the journal {}: {}; {} step(s) not in it yet are kept here and \
             written at the next edit (w saves them to the plan file)",
            self.path.display(),
            self.error,
            self.held_back
        )
    }
}

impl Journal {
    /// The journal at `path`, whose first `written` bytes are whole records (`tail`: and more
    /// may follow).
    fn open(
        path: PathBuf,
        lock: Lock,
        graph: &GraphId,
        plan: &Path,
        written: u64,
    ) -> std::io::Result<Journal> {
        let file = own_files::open_own(&path)?;
        let tail = file.metadata()?.len() != written;
        Ok(Journal {
            path,
            lock,
            file,
            graph: graph.clone(),
            plan: plan.to_path_buf(),
            base: Base::default(),
            written,
            tail,
            unwritten: Vec::new(),
        })
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records that could not be written yet.
    pub fn held_back(&self) -> usize {
        self.unwritten.len()
    }

    /// Appends `entry` and syncs it to disk (with any record held back before it); a journal
    /// written for the first time (or after [`Journal::clear`]) starts with its first record.
    /// When the write fails, the entry is held back and written at the next append; the file
    /// keeps only whole records.
    pub fn append(&mut self, entry: &JournalEntry) -> Result<(), AppendError> {
        self.unwritten.push(entry.clone());
        self.flush().map_err(|error| AppendError {
            path: self.path.clone(),
            held_back: self.unwritten.len(),
            error,
        })
    }

    /// Writes the records held back after the last whole one.
    fn flush(&mut self) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        if self.written == 0 {
            bytes.extend(record(&JournalEntry::Start {
                graph: self.graph.clone(),
                base: self.base.path.clone(),
                base_digest: self.base.digest,
                plan: Some(self.plan.clone()),
            })?);
        }
        for entry in &self.unwritten {
            bytes.extend(record(entry)?);
        }
        if self.tail {
            self.file.set_len(self.written)?;
            self.tail = false;
        }
        let result = self
            .file
            .write_all_at(&bytes, self.written)
            .and_then(|()| self.file.sync_data());
        match result {
            Ok(()) => {
                self.written += bytes.len() as u64;
                self.unwritten.clear();
                Ok(())
            }
            Err(e) => {
                // Part of it may be there: cut it off before the next try.
                self.tail = true;
                Err(e)
            }
        }
    }

    /// Says what the edits journaled from the next [`Journal::clear`] on start from: the plan
    /// file at `base` (just opened or written; its content is noted), or the dump's scopes.
    pub fn set_base(&mut self, base: Option<&Path>) {
        self.base = Base {
            path: base.map(absolute),
            digest: base.and_then(Digest::of_file),
        };
    }

    /// Empties the journal (after a save: the plan file holds the edits now).
    pub fn clear(&mut self) -> std::io::Result<()> {
        self.restart(&self.graph.clone(), Vec::new())
    }

    /// Starts the journal again on `graph` with `entries` (what a recovery replayed, or the
    /// scopes carried onto the dump loaded again), written now.
    pub fn restart(&mut self, graph: &GraphId, entries: Vec<JournalEntry>) -> std::io::Result<()> {
        self.graph = graph.clone();
        self.unwritten = entries;
        self.written = 0;
        self.tail = true;
        if self.unwritten.is_empty() {
            self.file.set_len(0)?;
            self.tail = false;
            return self.file.sync_data();
        }
        self.flush()
    }

    /// Ends the session cleanly: the journal goes, then its lock — each only while it is still
    /// the file this session holds.
    pub fn remove(self) -> std::io::Result<()> {
        let removed = own_files::remove_own(&self.path, &self.file).map(drop);
        let _ = own_files::remove_own(&self.lock.path, &self.lock.file);
        drop(self.lock.file);
        removed
    }
}

/// One entry as a record: its JSON (every character a terminal could act on escaped), a space,
/// its CRC-32 in hex, a line break.
fn record(entry: &JournalEntry) -> std::io::Result<Vec<u8>> {
    let json = crate::text::json_safe(serde_json::to_string(entry).map_err(std::io::Error::other)?);
    let crc = crc32fast::hash(json.as_bytes());
    Ok(format!("{json} {crc:08x}\n").into_bytes())
}

/// Where a journal stops being readable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The 1-based line of the first damaged record.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
    /// Records from it on (it included) that are lost.
    pub lost: usize,
}

/// A journal as read: its whole records up to the first damaged one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// The records, in order.
    pub entries: Vec<JournalEntry>,
    /// Bytes of the file they take, from its start.
    pub whole: u64,
    /// The first damaged record and what was lost with it.
    pub damage: Option<Damage>,
}

/// Reads a journal's bytes: every whole record up to the first damaged one. A line without its
/// line break, a checksum that does not match, bytes that are not UTF-8 or JSON that is not an
/// entry make a record damaged. Journals of earlier releases (JSON lines without a checksum)
/// are read as such.
pub fn parse(bytes: &[u8]) -> Records {
    let mut out = Records::default();
    let legacy = bytes
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .is_some_and(|first| serde_json::from_slice::<JournalEntry>(first).is_ok());
    let mut offset = 0usize;
    let mut lines = bytes
        .split_inclusive(|&b| b == b'\n')
        .enumerate()
        .peekable();
    while let Some((i, line)) = lines.next() {
        let end = offset + line.len();
        let content = line.strip_suffix(b"\n");
        if content.is_some_and(|c| c.iter().all(u8::is_ascii_whitespace)) {
            offset = end;
            out.whole = end as u64;
            continue;
        }
        let parsed = match content {
            None => Err("cut short (no line break: the write did not finish)".to_string()),
            Some(content) if legacy => {
                serde_json::from_slice::<JournalEntry>(content).map_err(|e| e.to_string())
            }
            Some(content) => checked(content),
        };
        match parsed {
            Ok(entry) => {
                out.entries.push(entry);
                offset = end;
                out.whole = end as u64;
            }
            Err(why) => {
                let rest = 1 + lines
                    .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                out.damage = Some(Damage {
                    line: i + 1,
                    why,
                    lost: rest,
                });
                break;
            }
        }
    }
    out
}

/// One record's entry, when its checksum matches.
fn checked(line: &[u8]) -> Result<JournalEntry, String> {
    let at = line.iter().rposition(|&b| b == b' ').ok_or("no checksum")?;
    let (json, crc) = (&line[..at], &line[at + 1..]);
    let crc = std::str::from_utf8(crc)
        .ok()
        .filter(|c| c.len() == 8)
        .and_then(|c| u32::from_str_radix(c, 16).ok())
        .ok_or("no checksum")?;
    if crc32fast::hash(json) != crc {
        return Err("its checksum does not match (a byte changed)".to_string());
    }
    serde_json::from_slice(json).map_err(|e| crate::text::json_error_words(&e))
}

/// Reads the journal at `path` (never through a link), up to [`MAX_JOURNAL_BYTES`].
pub fn read(path: &Path) -> std::io::Result<Records> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_JOURNAL_BYTES).read_to_end(&mut bytes)?;
    Ok(parse(&bytes))
}

/// What an unfinished session left to recover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// The entries to replay, in order.
    pub entries: Vec<JournalEntry>,
    /// The plan file they start from (absolute), or `None` for the dump's scopes.
    pub base: Option<PathBuf>,
    /// What `base` held when they were made (to start the journal again from it).
    base_digest: Option<Digest>,
    /// True when `base` no longer holds what it did when the edits were made (another
    /// window or program wrote it since): the edits are replayed on it as it is.
    pub base_changed: bool,
    /// True when the session saved to the plan file after some of its edits (those are in
    /// it: only what came after is replayed).
    pub saved_part: bool,
    /// The session that left them, when its lock was still there (its process is gone).
    pub left_by: Option<Holder>,
    /// Where the journal stops being readable, and what was lost.
    pub damage: Option<Damage>,
    /// Where the damaged journal was kept, as it was.
    pub damaged_copy: Option<PathBuf>,
}

impl Recovery {
    /// The edits to replay (not the first record, nor save marks).
    pub fn edits(&self) -> usize {
        edits(&self.entries)
    }
}

/// The journal a session claimed for a plan file, and what it found on the way.
#[derive(Debug)]
pub struct Claim {
    /// The journal this session writes.
    pub journal: Journal,
    /// What an unfinished session on this graph left in it, to offer.
    pub recovery: Option<Recovery>,
    /// What the user should know about journals found with nothing to offer (a journal whose
    /// edits were all undone, or saved just before its session stopped; a damaged one).
    pub notes: Vec<String>,
    /// Journals other live sessions hold, with who holds them.
    pub held: Vec<(PathBuf, Holder)>,
    /// Journals left for another graph or another plan file (or by a skope that did not say
    /// for which): kept as they are, not replayed here.
    pub foreign: Vec<PathBuf>,
    /// Journal places refused, with why (a symbolic link planted there, say).
    pub refused: Vec<(PathBuf, String)>,
}

/// True when a journal of `plan` exists (an unfinished session's, or a live one's — or
/// something planted in its place): only then must a session claim its journal as it starts,
/// to see whether there is work to recover; otherwise it claims one at its first edit, and
/// opening a dump writes nothing beside it.
pub fn any_left(plan: &Path) -> bool {
    (1..=MAX_JOURNALS).any(|n| numbered(plan, n).symlink_metadata().is_ok())
}

/// Claims a journal for a session on `graph` saving to `plan`: one with edits an ended
/// session left on this graph for this plan file when there is one (to offer for recovery),
/// else the first that is free; never one another live session holds, and never a place
/// where something other than skope's file is.
pub fn claim(plan: &Path, graph: &GraphId) -> std::io::Result<Claim> {
    let plan = absolute(plan);
    let mut held = Vec::new();
    let mut foreign = Vec::new();
    let mut refused = Vec::new();
    let mut free: Option<(PathBuf, Lock)> = None;
    let mut first_unused: Option<PathBuf> = None;
    let mut found = None;
    for n in 1..=MAX_JOURNALS {
        let path = numbered(&plan, n);
        let lock = suffixed(&path, ".lock");
        if path.symlink_metadata().is_err() && lock.symlink_metadata().is_err() {
            first_unused.get_or_insert(path);
            continue;
        }
        let (lock, before) = match try_lock(&lock) {
            Ok(Tried::Held(holder)) => {
                held.push((path, holder));
                continue;
            }
            Ok(Tried::Taken(lock, before)) => (lock, before),
            Err(e) => {
                refused.push((path, e.to_string()));
                continue;
            }
        };
        let records = match path.symlink_metadata() {
            Err(_) => Records::default(),
            Ok(_) if own_files::is_link(&path) => {
                // Planted: say what the refusal says, and leave it.
                let why = own_files::open_own(&path).err();
                refused.push((path, why.map_or_else(String::new, |e| e.to_string())));
                continue;
            }
            Ok(_) => match read(&path) {
                Ok(records) => records,
                Err(e) => {
                    refused.push((path, e.to_string()));
                    continue;
                }
            },
        };
        let ours = match records.entries.first() {
            Some(JournalEntry::Start {
                graph: made,
                plan: made_for,
                ..
            }) => made.same_graph(graph) && made_for.as_ref().is_none_or(|p| *p == plan),
            _ => false,
        };
        if edits(&records.entries) == 0 && records.damage.is_none() {
            if free.is_none() {
                free = Some((path, lock));
            }
        } else if ours || (records.entries.is_empty() && records.damage.is_some()) {
            found = Some((path, lock, records, before));
            break;
        } else {
            foreign.push(path);
        }
    }
    let mut notes = Vec::new();
    let (journal, recovery) = match (found, free, first_unused) {
        (Some((path, lock, records, before)), _, _) => {
            let mut journal = Journal::open(path, lock, graph, &plan, records.whole)?;
            let recovery = recover(&mut journal, records, before, &mut notes)?;
            (journal, recovery)
        }
        (None, Some((path, lock)), _) => (fresh(path, lock, graph, &plan)?, None),
        (None, None, Some(path)) => match try_lock(&suffixed(&path, ".lock"))? {
            Tried::Taken(lock, _) => (fresh(path, lock, graph, &plan)?, None),
            Tried::Held(holder) => {
                return Err(std::io::Error::other(format!(
                    "{}: taken by {} as skope started",
                    path.display(),
                    holder.words()
                )));
            }
        },
        (None, None, None) => {
            return Err(std::io::Error::other(format!(
                "{} journals of {} are in use or refused: close other skope windows on this dump",
                MAX_JOURNALS,
                plan.display()
            )));
        }
    };
    Ok(Claim {
        journal,
        recovery,
        notes,
        held,
        foreign,
        refused,
    })
}

/// A journal started afresh at `path`.
fn fresh(path: PathBuf, lock: Lock, graph: &GraphId, plan: &Path) -> std::io::Result<Journal> {
    let mut journal = Journal::open(path, lock, graph, plan, 0)?;
    journal.clear()?;
    Ok(journal)
}

/// What `records`, read from `journal` just claimed, hold to recover; when they change
/// nothing, a note says why (and what a damage lost) and the journal starts again.
fn recover(
    journal: &mut Journal,
    records: Records,
    left_by: Option<Holder>,
    notes: &mut Vec<String>,
) -> std::io::Result<Option<Recovery>> {
    let plan = journal.plan.clone();
    let damaged_copy = match &records.damage {
        Some(_) => keep_damaged(&journal.path),
        None => None,
    };
    let (base, base_digest) = match records.entries.first() {
        Some(JournalEntry::Start {
            base, base_digest, ..
        }) => (
            base.as_ref().map(|b| legacy_base(b, &journal.path)),
            *base_digest,
        ),
        _ => (None, None),
    };
    // A save after some edits: those are in the plan file when it holds what the save wrote.
    let on_disk = Digest::of_file(&plan);
    let saved_at = records
        .entries
        .iter()
        .rposition(|e| matches!(e, JournalEntry::Saving { digest } if Some(*digest) == on_disk));
    let (entries, base, base_digest, saved_part) = match saved_at {
        Some(at) => (
            records.entries[at + 1..].to_vec(),
            Some(plan.clone()),
            on_disk,
            true,
        ),
        None => (records.entries, base, base_digest, false),
    };
    let entries: Vec<JournalEntry> = entries
        .into_iter()
        .filter(|e| !matches!(e, JournalEntry::Start { .. } | JournalEntry::Saving { .. }))
        .collect();
    let base_changed = !saved_part
        && base.as_ref().is_some_and(|b| {
            base_digest.is_some_and(|was| Digest::of_file(b).is_some_and(|now| now != was))
        });
    let recovery = Recovery {
        entries,
        base,
        base_digest,
        base_changed,
        saved_part,
        left_by,
        damage: records.damage,
        damaged_copy,
    };
    if changes_anything(&recovery.entries) {
        return Ok(Some(recovery));
    }
    let why = if recovery.saved_part {
        format!(
            "the last session saved its edits to {} just before it stopped",
            plan.display()
        )
    } else if recovery.edits() > 0 {
        "its edits were undone back to where they started".to_string()
    } else {
        "it held no whole edit".to_string()
    };
    notes.push(format!(
        "{}: nothing to recover: {why}",
        journal.path.display()
    ));
    notes.extend(recovery.damage.as_ref().map(|d| damage_words(d, &recovery)));
    journal.base = Base {
        path: recovery.base,
        digest: recovery.base_digest,
    };
    journal.clear()?;
    Ok(None)
}

/// The words for what a damaged journal lost.
pub fn damage_words(damage: &Damage, recovery: &Recovery) -> String {
    format!(
        "the journal is damaged at line {} ({}): {} record(s) from there on are lost{}",
        damage.line,
        damage.why,
        damage.lost,
        recovery
            .damaged_copy
            .as_ref()
            .map_or(String::new(), |c| format!(
                " (kept as it was in {})",
                c.display()
            ))
    )
}

/// Copies a damaged journal aside, as it is, to `<journal>.damaged` (or `.damaged.2`…), so
/// nothing of it is lost when the journal is written again.
fn keep_damaged(path: &Path) -> Option<PathBuf> {
    let bytes = std::fs::read(path).ok()?;
    (1..100).find_map(|n| {
        let copy = suffixed(
            path,
            &if n == 1 {
                ".damaged".to_string()
            } else {
                format!(".damaged.{n}")
            },
        );
        let mut file = own_files::create_new(&copy).ok()?;
        file.write_all(&bytes).ok()?;
        file.sync_all().ok()?;
        Some(copy)
    })
}

/// A base plan file as a journal of an earlier release recorded it: relative to the working
/// directory of the session that wrote it, which is not known — taken in the journal's folder
/// (where the plan file of a dump is kept).
fn legacy_base(base: &Path, journal: &Path) -> PathBuf {
    if base.is_absolute() {
        return base.to_path_buf();
    }
    let dir = journal.parent().unwrap_or(Path::new("."));
    absolute(&dir.join(base.file_name().unwrap_or(base.as_os_str())))
}

/// True when replaying `entries` changes the scopes: some step stays done once every undo and
/// redo is played (steps as the workspace makes them: edits with one key in a row are one).
pub fn changes_anything(entries: &[JournalEntry]) -> bool {
    let (mut done, mut undone) = (0usize, 0usize);
    let mut reset = false;
    let mut last_key = None;
    for entry in entries {
        match entry {
            JournalEntry::Edit { key, .. } => {
                if key.is_none() || *key != last_key {
                    done += 1;
                    undone = 0;
                }
                last_key = *key;
                continue;
            }
            JournalEntry::Undo if done > 0 => {
                done -= 1;
                undone += 1;
            }
            JournalEntry::Redo if undone > 0 => {
                undone -= 1;
                done += 1;
            }
            JournalEntry::Scopes { .. } => {
                reset = true;
                done = 0;
                undone = 0;
            }
            _ => {}
        }
        last_key = None;
    }
    reset || done > 0
}

/// What replaying a journal did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    /// Entries applied.
    pub applied: usize,
    /// Entries that could not be applied, with why (an op the graph lacks, an edit that no
    /// longer applies).
    pub skipped: Vec<String>,
}

/// Replays journal `entries` on `ws` (the first record and save marks are not edits).
pub fn replay(ws: &mut Workspace, entries: &[JournalEntry]) -> Replay {
    let mut out = Replay::default();
    for entry in entries {
        let done = match entry {
            JournalEntry::Start { .. } | JournalEntry::Saving { .. } => continue,
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
            JournalEntry::Scopes { plan } => {
                let (marks, mismatch) = plan.marks_for(ws.graph());
                ws.carry_marks(marks);
                out.skipped.extend(
                    mismatch
                        .lines(usize::MAX)
                        .into_iter()
                        .skip(usize::from(mismatch.other_graph.is_some())),
                );
                Ok(())
            }
        };
        match done {
            Ok(()) => out.applied += 1,
            Err(why) => out.skipped.push(why),
        }
    }
    out
}

/// Starts `journal` again from a recovery replayed on `graph`: its first record names the base
/// the entries start from, then come the entries, so the journal holds exactly what is on
/// screen.
pub fn restart_from(
    journal: &mut Journal,
    recovery: &Recovery,
    graph: &GraphId,
) -> std::io::Result<()> {
    journal.base = Base {
        path: recovery.base.clone(),
        digest: recovery.base_digest,
    };
    journal.restart(graph, recovery.entries.clone())
}

/// The edits among `entries` (not the first record, nor save marks).
pub fn edits(entries: &[JournalEntry]) -> usize {
    entries
        .iter()
        .filter(|e| !matches!(e, JournalEntry::Start { .. } | JournalEntry::Saving { .. }))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(scope: &str) -> JournalEntry {
        JournalEntry::Edit {
            edit: Edit::Delete {
                scope: scope.into(),
            },
            key: None,
        }
    }

    #[test]
    fn a_record_cut_inside_a_character_or_with_a_flipped_byte_ends_what_is_read() {
        let mut bytes = Vec::new();
        for scope in ["attn_0", "moe_1", "résumé_2"] {
            bytes.extend(record(&entry(scope)).unwrap());
        }
        let whole = parse(&bytes);
        assert_eq!(whole.entries.len(), 3);
        assert_eq!(whole.whole, bytes.len() as u64);
        assert!(whole.damage.is_none());
        // Cut inside the `é` of the last record (a full disk).
        let cut_at = bytes.len() - 14;
        let cut = parse(&bytes[..cut_at]);
        assert_eq!(cut.entries.len(), 2);
        let damage = cut.damage.unwrap();
        assert_eq!((damage.line, damage.lost), (3, 1));
        // A flipped byte in the second record: it and the third are lost.
        let second = record(&entry("attn_0")).unwrap().len();
        let mut flipped = bytes.clone();
        flipped[second + 20] ^= 0x04;
        let read = parse(&flipped);
        assert_eq!(read.entries.len(), 1);
        assert_eq!(read.damage.as_ref().map(|d| (d.line, d.lost)), Some((2, 2)));
        assert_eq!(read.whole, second as u64);
    }

    #[test]
    fn a_failed_write_is_never_the_start_of_the_next_record_and_nothing_is_lost() {
        let dir = crate::scratch::scratch("journal-failed-write");
        let plan = dir.join("m.txt.skope.json");
        let graph = GraphId {
            name: "g".into(),
            ops: 1,
            fingerprint: "f".into(),
        };
        let mut claim = claim(&plan, &graph).unwrap();
        let journal = &mut claim.journal;
        journal.append(&entry("a")).unwrap();
        // The disk fills: half a record reaches the file, then the write fails (here: a
        // handle that cannot write).
        let writable = std::mem::replace(&mut journal.file, File::open(&journal.path).unwrap());
        let half = &record(&entry("b")).unwrap()[..9];
        writable.write_all_at(half, journal.written).unwrap();
        let e = journal.append(&entry("b")).unwrap_err();
        assert_eq!(e.held_back, 1);
        assert!(
            e.to_string()
                .contains("kept here and written at the next edit"),
            "{e}"
        );
        let e = journal.append(&entry("c")).unwrap_err();
        assert_eq!(e.held_back, 2);
        // Space again: the next append writes what was held back, after the last whole record.
        journal.file = writable;
        journal.append(&entry("d")).unwrap();
        assert_eq!(journal.held_back(), 0);
        let read = read(&journal.path).unwrap();
        assert!(read.damage.is_none(), "{:?}", read.damage);
        assert_eq!(edits(&read.entries), 4);
        assert_eq!(read.entries[2], entry("b"));
    }

    #[test]
    fn an_earlier_releases_journal_without_checksums_is_read() {
        let text = "{\"edit\":{\"edit\":{\"edit\":\"delete\",\"scope\":\"a\"}}}\n\"undo\"\n";
        let read = parse(text.as_bytes());
        assert_eq!(read.entries.len(), 2, "{read:?}");
        assert!(read.damage.is_none());
    }

    #[test]
    fn steps_undone_back_to_the_start_change_nothing() {
        let undo = JournalEntry::Undo;
        assert!(!changes_anything(&[entry("a"), undo.clone()]));
        assert!(changes_anything(&[entry("a"), entry("b"), undo.clone()]));
        assert!(changes_anything(&[
            entry("a"),
            undo.clone(),
            JournalEntry::Redo
        ]));
        let keyed = |k| JournalEntry::Edit {
            edit: Edit::Delete { scope: "a".into() },
            key: Some(k),
        };
        // Two edits under one key are one step: one undo takes both back.
        assert!(!changes_anything(&[keyed(7), keyed(7), undo.clone()]));
        assert!(changes_anything(&[keyed(7), keyed(8), undo]));
    }
}
