//! The editing session: where edits are saved, and the journal that keeps them if skope stops.

use crate::graph::GraphId;
use crate::journal::{Journal, JournalEntry};
use crate::planfile::PlanFile;
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
    /// The journal this session holds (locked for it alone), once claimed.
    pub(super) journal: Option<Journal>,
    /// Why there is no journal, when claiming one failed.
    pub(super) no_journal: Option<String>,
    /// Journal entries an unfinished session left, while the user decides what to do.
    pub(super) pending: Vec<JournalEntry>,
    /// The graph edited: a plan file on disk made for another graph is never replaced without
    /// asking.
    pub(super) graph: Option<GraphId>,
    /// The plan file the edits not yet saved start from (`None`: the dump's scopes).
    base: Option<PathBuf>,
}

impl Session {
    /// A session saving to `plan_path`.
    pub fn new(plan_path: PathBuf) -> Session {
        Session {
            plan_path,
            known: None,
            journal: None,
            no_journal: None,
            pending: Vec::new(),
            graph: None,
            base: None,
        }
    }

    /// The session works on the plan file `path`, as read when it was last modified at
    /// `modified`.
    pub fn opened(&mut self, path: PathBuf, modified: Option<SystemTime>) {
        self.plan_path = path;
        self.known = Some(modified);
        self.starts_from(self.plan_path.clone());
    }

    /// The plan file at `path` now holds every edit made so far (just opened or written): the
    /// edits journaled from here start from it.
    pub(super) fn starts_from(&mut self, path: PathBuf) {
        if let Some(journal) = &mut self.journal {
            journal.set_base(Some(path.clone()));
        }
        self.base = Some(path);
    }

    /// Why `w` must ask before writing the plan file, or `None` when it may write: the file
    /// does not exist, or it is as this session read or wrote it and made for this graph.
    pub(super) fn must_ask(&self) -> Option<WriteDoubt> {
        let meta = std::fs::metadata(&self.plan_path).ok()?;
        if let Some(graph) = &self.graph
            && let Ok(made) = PlanFile::graph_of(&self.plan_path)
            && !made.same_graph(graph)
        {
            return Some(WriteDoubt::OtherGraph(made));
        }
        match &self.known {
            Some(known) if *known == meta.modified().ok() => None,
            Some(_) => Some(WriteDoubt::ChangedSince),
            None => Some(WriteDoubt::NotOpened),
        }
    }

    /// Appends `entry` to the journal, claiming one first when this session has none yet.
    /// Returns what to tell the user: that the journal cannot be written, or that the first
    /// one is another window's and this one journals elsewhere.
    pub(super) fn record(&mut self, entry: &JournalEntry) -> Option<String> {
        let mut claimed = Vec::new();
        if self.journal.is_none()
            && self.no_journal.is_none()
            && let Some(graph) = &self.graph
        {
            // No journal was left when the dump was opened: this session's is claimed now.
            match crate::journal::claim(&self.plan_path, graph) {
                Ok(mut claim) => {
                    claimed = super::loader::claim_notes(&claim);
                    claim.journal.set_base(self.base.clone());
                    self.journal = Some(claim.journal);
                }
                Err(e) => {
                    self.no_journal = Some(format!(
                        "cannot keep a journal beside {}: {e}",
                        self.plan_path.display()
                    ));
                }
            }
        }
        let Some(journal) = self.journal.as_mut() else {
            return Some(format!(
                "no journal ({}): edits are not kept if skope stops",
                self.no_journal.as_deref().unwrap_or("none claimed")
            ));
        };
        match journal.append(entry) {
            Err(e) => Some(format!(
                "cannot write the journal {}: {e}; edits are not kept if skope stops",
                journal.path().display()
            )),
            Ok(()) => claimed.into_iter().next(),
        }
    }

    /// Ends the session cleanly: the journal goes, and its lock.
    pub(super) fn end(&mut self) {
        if let Some(journal) = self.journal.take() {
            let _ = journal.remove();
        }
    }
}

/// Why saving must ask first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteDoubt {
    /// The file holds a plan made for another graph.
    OtherGraph(GraphId),
    /// It changed since this session read or wrote it.
    ChangedSince,
    /// This session never opened it.
    NotOpened,
}
