//! The editing session: where edits are saved, and the journal that keeps them if skope stops.

use crate::planfile::{self, Journal, JournalEntry};
use std::path::PathBuf;
use std::time::SystemTime;

/// Where edits are saved, and the journal of this session.
#[derive(Debug)]
pub struct Session {
    /// The plan file `w` writes.
    pub plan_path: PathBuf,
    /// The plan file's modification time when this session last read or wrote it; `None` when
    /// it has not. `w` asks before replacing a file this session does not know in that state.
    pub(super) known: Option<Option<SystemTime>>,
    pub(super) journal: Option<Journal>,
    /// Journal entries an unfinished session left, while the user decides what to do.
    pub(super) pending: Vec<JournalEntry>,
}

impl Session {
    /// A session saving to `plan_path`.
    pub fn new(plan_path: PathBuf) -> Session {
        Session {
            plan_path,
            known: None,
            journal: None,
            pending: Vec::new(),
        }
    }

    /// The session works on the plan file `path`, as read when it was last modified at
    /// `modified`.
    pub fn opened(&mut self, path: PathBuf, modified: Option<SystemTime>) {
        self.plan_path = path;
        self.known = Some(modified);
    }

    /// True when `w` may write the plan file without asking: it does not exist, or it is as
    /// this session read or wrote it.
    pub(super) fn may_write(&self) -> bool {
        match (&self.known, std::fs::metadata(&self.plan_path)) {
            (_, Err(_)) => true,
            (Some(known), Ok(meta)) => *known == meta.modified().ok(),
            (None, Ok(_)) => false,
        }
    }

    /// Appends `entry` to the journal, starting it on the first edit. Returns a problem to
    /// show when the journal cannot be written.
    pub(super) fn record(&mut self, entry: &JournalEntry) -> Option<String> {
        let path = planfile::journal_path(&self.plan_path);
        if self.journal.is_none() {
            match Journal::append_to(&path) {
                Ok(j) => self.journal = Some(j),
                Err(e) => {
                    return Some(format!(
                        "cannot write the journal {}: {e}; edits are not kept if skope stops",
                        path.display()
                    ));
                }
            }
        }
        let journal = self.journal.as_mut()?;
        journal.append(entry).err().map(|e| {
            format!(
                "cannot write the journal {}: {e}; edits are not kept if skope stops",
                path.display()
            )
        })
    }

    /// Ends the session cleanly: the journal goes.
    pub(super) fn end(&mut self) {
        if let Some(journal) = self.journal.take() {
            let _ = journal.remove();
        }
    }
}
