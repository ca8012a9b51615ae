//! The editing session: where edits are saved, and the journal that keeps them if skope stops.

use crate::graph::GraphId;
use crate::journal::{Journal, JournalEntry, Recovery};
use crate::planfile::PlanFile;
use std::path::{Path, PathBuf};
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
    /// What an unfinished session left, while the user decides what to do with it.
    pub(super) pending: Option<Recovery>,
    /// The graph edited: a plan file on disk made for another graph is never replaced without
    /// asking.
    pub(super) graph: Option<GraphId>,
    /// The plan file the edits not yet saved start from (`None`: the dump's scopes).
    base: Option<PathBuf>,
    /// The scopes carried over while the dump is loaded again (it changed on disk), when they
    /// had unsaved edits.
    pub(super) carried: Option<PlanFile>,
    /// True while the journal holds back steps it could not write (said until it can).
    pub(super) held_back: bool,
}

impl Session {
    /// A session saving to `plan_path`.
    pub fn new(plan_path: PathBuf) -> Session {
        Session {
            plan_path,
            known: None,
            journal: None,
            no_journal: None,
            pending: None,
            graph: None,
            base: None,
            carried: None,
            held_back: false,
        }
    }

    /// The session works on the plan file `path`, as read when it was last modified at
    /// `modified`.
    pub fn opened(&mut self, path: PathBuf, modified: Option<SystemTime>) {
        self.plan_path = path;
        self.known = Some(modified);
        self.starts_from(self.plan_path.clone());
    }

    /// True when the session read or wrote its plan file (a load again applies it).
    pub(super) fn has_opened(&self) -> bool {
        self.known.is_some()
    }

    /// The plan file at `path` now holds every edit made so far (just opened or written): the
    /// edits journaled from here start from it.
    pub(super) fn starts_from(&mut self, path: PathBuf) {
        if let Some(journal) = &mut self.journal {
            journal.set_base(Some(&path));
        }
        self.base = Some(path);
    }

    /// Why `w` must ask before writing the plan file, or `None` when it may write: the file
    /// does not exist, or it is as this session read or wrote it and made for this graph.
    pub(super) fn must_ask(&self) -> Option<WriteDoubt> {
        let meta = std::fs::metadata(&self.plan_path).ok()?;
        if crate::own_files::is_link(&self.plan_path)
            && PlanFile::graph_of(&self.plan_path).is_err()
        {
            let target = std::fs::canonicalize(&self.plan_path).unwrap_or_default();
            return Some(WriteDoubt::LinkToOther(target));
        }
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
    /// Returns what to tell the user: that the journal cannot be written (the step is held
    /// back and written at the next one), that it is written again, or that the first one is
    /// another window's and this one journals elsewhere.
    pub(super) fn record(&mut self, entry: &JournalEntry) -> Option<Journaled> {
        let mut claimed = Vec::new();
        if self.journal.is_none()
            && self.no_journal.is_none()
            && let Some(graph) = &self.graph
        {
            // No journal was left when the dump was opened: this session's is claimed now.
            match crate::journal::claim(&self.plan_path, graph) {
                Ok(mut claim) => {
                    claimed = super::loader::claim_notes(&claim);
                    claim.journal.set_base(self.base.as_deref());
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
            return Some(Journaled::Problem(format!(
                "no journal ({}): edits are not kept if skope stops",
                self.no_journal.as_deref().unwrap_or("none claimed")
            )));
        };
        let was_held_back = journal.held_back();
        match journal.append(entry) {
            Err(e) => {
                self.held_back = true;
                Some(Journaled::Problem(e.to_string()))
            }
            Ok(()) if was_held_back > 0 => {
                self.held_back = false;
                Some(Journaled::Info(format!(
                    "the journal {} is written again: the {was_held_back} step(s) held back are \
                     in it",
                    journal.path().display()
                )))
            }
            Ok(()) => claimed.into_iter().next().map(Journaled::Problem),
        }
    }

    /// Ends the session cleanly: the journal goes, and its lock.
    pub(super) fn end(&mut self) {
        if let Some(journal) = self.journal.take() {
            let _ = journal.remove();
        }
    }

    /// The plan file the journal's edits start from, as the session knows it.
    pub(super) fn base(&self) -> Option<&Path> {
        self.base.as_deref()
    }
}

/// What recording a step in the journal has to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Journaled {
    /// A problem: the step is not in the journal (yet), or where it went is not where it
    /// would have.
    Problem(String),
    /// Good news: steps held back are written now.
    Info(String),
}

/// Why saving must ask first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteDoubt {
    /// The plan path is a symbolic link to a file that is not a plan file (its target).
    LinkToOther(PathBuf),
    /// The file holds a plan made for another graph.
    OtherGraph(GraphId),
    /// It changed since this session read or wrote it.
    ChangedSince,
    /// This session never opened it.
    NotOpened,
}
