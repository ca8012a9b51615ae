//! Plan files.
//!
//! A plan file holds the scope marks of a graph — scope names, options and member op names —
//! as JSON, with a fingerprint of the graph it was made for. It is written atomically and
//! applied back as far as the graph allows: ops it names that the graph lacks are listed, not
//! silently dropped.

use crate::fusion::marks::{Marks, OpMark};
use crate::graph::Graph;
pub use crate::graph::GraphId;
use crate::own_files::{self, Durability, Links};
use crate::text::ReadTextError;
use crate::workspace::Workspace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The plan file format version this build writes and reads.
pub const VERSION: u32 = 1;

/// One scope of a plan file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeEntry {
    /// The scope name.
    pub name: String,
    /// The options string its ops carry.
    pub options: String,
    /// Its ops, by name, in execution order.
    pub ops: Vec<String>,
    /// Ops of the scope whose options differ from `options`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub op_options: BTreeMap<String, String>,
}

/// A plan file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    /// The format version ([`VERSION`]).
    pub skope_plan: u32,
    /// The graph it was made for.
    pub graph: GraphId,
    /// Every scope, in order of its first op.
    pub scopes: Vec<ScopeEntry>,
    /// Ops kept out of fusion.
    #[serde(default)]
    pub do_not_fuse: Vec<String>,
}

/// What applying a plan file to a graph could not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mismatch {
    /// The plan was made for another graph (another fingerprint): `(made for, this one)`.
    pub other_graph: Option<(GraphId, GraphId)>,
    /// Ops the plan names that the graph does not have, with the scope that named them
    /// (`None` for do-not-fuse).
    pub missing_ops: Vec<(String, Option<String>)>,
    /// Ops the plan names, found or not.
    pub named_ops: usize,
}

impl Mismatch {
    /// True when the plan applied in full.
    pub fn is_empty(&self) -> bool {
        self.other_graph.is_none() && self.missing_ops.is_empty()
    }

    /// Why the plan must not be applied: it was made for another graph and none of the ops it
    /// names is in this one, so applying it would replace every scope with none. `None` when
    /// it may be applied (or `force` says apply it anyway).
    pub fn refusal(&self, plan: &Path, graph: &Graph, force: bool) -> Option<String> {
        let (made, _) = self.other_graph.as_ref()?;
        if force || self.named_ops == 0 || self.missing_ops.len() < self.named_ops {
            return None;
        }
        Some(format!(
            "{}: this plan was made for another graph ({}, {} ops): none of the {} ops it names \
             is in {} ({} ops), so it would replace every scope with none\n  hint: give the plan \
             made for this dump, or --force to apply it anyway",
            plan.display(),
            made.name,
            made.ops,
            self.named_ops,
            graph.name(),
            graph.len()
        ))
    }

    /// The mismatch in words, one line each (at most `max` missing ops, then a count).
    pub fn lines(&self, max: usize) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((made, this)) = &self.other_graph {
            out.push(format!(
                "the plan was made for graph {} ({} ops, fingerprint {}); this is {} ({} ops, \
                 fingerprint {}): applied by op name",
                made.name, made.ops, made.fingerprint, this.name, this.ops, this.fingerprint
            ));
        }
        for (op, scope) in self.missing_ops.iter().take(max) {
            out.push(match scope {
                Some(s) => format!("op {op} of scope {s} is not in this graph"),
                None => format!("op {op} (kept out of fusion) is not in this graph"),
            });
        }
        if self.missing_ops.len() > max {
            out.push(format!(
                "… and {} more ops not in this graph",
                self.missing_ops.len() - max
            ));
        }
        out
    }
}

impl PlanFile {
    /// The plan file of the workspace's current marks.
    pub fn of(ws: &Workspace) -> PlanFile {
        let graph = ws.graph();
        let marks = ws.marks();
        let mut scopes: Vec<ScopeEntry> = ws
            .plan()
            .scopes
            .iter()
            .map(|s| ScopeEntry {
                name: s.name.clone(),
                options: s.options.clone(),
                ops: Vec::new(),
                op_options: BTreeMap::new(),
            })
            .collect();
        let mut do_not_fuse = Vec::new();
        for &id in graph.exec_order() {
            let name = &graph.op(id).name;
            match marks.get(id) {
                OpMark::Member { scope, options } => {
                    let Some(entry) = ws.plan().scope_of_mark(scope).map(|i| &mut scopes[i]) else {
                        continue;
                    };
                    entry.ops.push(name.clone());
                    let text = marks.options_text(options);
                    if text != entry.options {
                        entry.op_options.insert(name.clone(), text.to_string());
                    }
                }
                OpMark::DoNotFuse => do_not_fuse.push(name.clone()),
                OpMark::Unscoped => {}
            }
        }
        PlanFile {
            skope_plan: VERSION,
            graph: GraphId::of(graph),
            scopes,
            do_not_fuse,
        }
    }

    /// The marks this plan gives `graph`, and what did not fit.
    pub fn marks_for(&self, graph: &Graph) -> (Marks, Mismatch) {
        let mut marks = Marks::unmarked(graph.len());
        let mut mismatch = Mismatch::default();
        let this = GraphId::of(graph);
        if this.fingerprint != self.graph.fingerprint {
            mismatch.other_graph = Some((self.graph.clone(), this));
        }
        for entry in &self.scopes {
            let scope = marks.intern_scope(&entry.name);
            let options = marks.intern_options(&entry.options);
            mismatch.named_ops += entry.ops.len();
            for name in &entry.ops {
                let Some(id) = graph.find(name) else {
                    mismatch
                        .missing_ops
                        .push((name.clone(), Some(entry.name.clone())));
                    continue;
                };
                let options = match entry.op_options.get(name) {
                    Some(text) => marks.intern_options(text),
                    None => options,
                };
                marks.set(id, OpMark::Member { scope, options });
            }
        }
        mismatch.named_ops += self.do_not_fuse.len();
        for name in &self.do_not_fuse {
            match graph.find(name) {
                Some(id) => marks.set(id, OpMark::DoNotFuse),
                None => mismatch.missing_ops.push((name.clone(), None)),
            }
        }
        (marks, mismatch)
    }

    /// The plan as pretty JSON.
    pub fn to_json(&self) -> String {
        crate::text::json_safe(serde_json::to_string_pretty(self).unwrap_or_default()) + "\n"
    }

    /// Reads the plan file at `path`.
    pub fn read(path: &Path) -> Result<PlanFile, PlanFileError> {
        let error = |kind| PlanFileError {
            path: path.to_path_buf(),
            kind,
        };
        let text = crate::text::read_utf8(path).map_err(|e| {
            error(match e {
                ReadTextError::Io(e) => PlanFileErrorKind::Io(e),
                not_utf8 => PlanFileErrorKind::Syntax {
                    line: not_utf8.at().map_or(0, |(l, _)| l),
                    col: not_utf8.at().map_or(0, |(_, c)| c),
                    message: not_utf8.to_string(),
                },
            })
        })?;
        let plan: PlanFile = serde_json::from_str(&text).map_err(|e| {
            error(PlanFileErrorKind::Syntax {
                line: e.line(),
                col: e.column(),
                message: e.to_string(),
            })
        })?;
        if plan.skope_plan != VERSION {
            return Err(error(PlanFileErrorKind::Version(plan.skope_plan)));
        }
        Ok(plan.bounded())
    }

    /// The plan with every string over [`crate::graph::MAX_KEPT`] kept cut, as a dump's are
    /// ([`crate::text::bounded`]: a cut op name still matches the graph's cut one), so one
    /// huge name cannot multiply as it is copied into outputs.
    fn bounded(mut self) -> PlanFile {
        let cut = |s: &mut String| {
            if let Some(kept) = crate::text::bounded(s, crate::graph::MAX_KEPT) {
                *s = kept;
            }
        };
        cut(&mut self.graph.name);
        for scope in &mut self.scopes {
            cut(&mut scope.name);
            cut(&mut scope.options);
            scope.ops.iter_mut().for_each(cut);
            if scope
                .op_options
                .iter()
                .any(|(k, v)| k.len().max(v.len()) > crate::graph::MAX_KEPT)
            {
                scope.op_options = std::mem::take(&mut scope.op_options)
                    .into_iter()
                    .map(|(mut k, mut v)| {
                        cut(&mut k);
                        cut(&mut v);
                        (k, v)
                    })
                    .collect();
            }
        }
        self.do_not_fuse.iter_mut().for_each(cut);
        self
    }

    /// True when the file at `path` starts as a plan file does — a JSON object whose first key
    /// is one of a plan's (`skope_plan`, `scopes`, `do_not_fuse`, or `graph` holding an
    /// object, as a plan's does and an atc JSON dump's array does not), in any key order — read
    /// from its first bytes only, so a multi-gigabyte profile is never read whole to learn that
    /// it is not a plan.
    pub fn looks_like(path: &Path) -> bool {
        use std::io::Read as _;
        let mut head = Vec::with_capacity(256);
        let read = std::fs::File::open(path).and_then(|f| f.take(256).read_to_end(&mut head));
        if read.is_err() || !path.is_file() {
            return false;
        }
        let text = String::from_utf8_lossy(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head));
        let Some(rest) = text.trim_start().strip_prefix('{') else {
            return false;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            return false;
        };
        let Some((key, rest)) = rest.split_once('"') else {
            return false;
        };
        let value = rest.trim_start().strip_prefix(':').map(str::trim_start);
        match key {
            "skope_plan" | "scopes" | "do_not_fuse" => true,
            "graph" => value.is_some_and(|v| v.starts_with('{')),
            _ => false,
        }
    }

    /// The graph the plan file at `path` was made for (read without keeping its scopes).
    pub fn graph_of(path: &Path) -> Result<GraphId, PlanFileError> {
        #[derive(Deserialize)]
        struct Head {
            graph: GraphId,
        }
        let text = std::fs::read_to_string(path).map_err(|e| PlanFileError {
            path: path.to_path_buf(),
            kind: PlanFileErrorKind::Io(e),
        })?;
        serde_json::from_str::<Head>(&text)
            .map(|h| h.graph)
            .map_err(|e| PlanFileError {
                path: path.to_path_buf(),
                kind: PlanFileErrorKind::Syntax {
                    line: e.line(),
                    col: e.column(),
                    message: crate::text::json_error_words(&e),
                },
            })
    }

    /// Writes the plan to `path` as one step ([`own_files::replace`], synced): a crash leaves
    /// the old file or the new one. A link at `path` is written through (the user may keep
    /// plans in a shared folder); temporary files an interrupted save left there are removed.
    pub fn write(&self, path: &Path) -> Result<(), PlanFileError> {
        self.write_bytes(path, self.to_json().as_bytes())
    }

    /// Writes `bytes`, this plan's JSON made by [`PlanFile::to_json`], to `path` as
    /// [`PlanFile::write`] does.
    pub fn write_bytes(&self, path: &Path, bytes: &[u8]) -> Result<(), PlanFileError> {
        if let Some(dir) = path.parent() {
            own_files::sweep_stale_temps(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            });
        }
        own_files::replace(path, bytes, Durability::Synced, Links::Follow).map_err(|e| {
            PlanFileError {
                path: path.to_path_buf(),
                kind: PlanFileErrorKind::Io(e),
            }
        })
    }
}

/// A plan file that cannot be read.
#[derive(Debug)]
pub struct PlanFileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: PlanFileErrorKind,
}

/// What went wrong with a plan file.
#[derive(Debug)]
pub enum PlanFileErrorKind {
    /// Reading or writing failed.
    Io(std::io::Error),
    /// Not a plan file's JSON.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// serde_json's message.
        message: String,
    },
    /// Written by another version of the format.
    Version(u32),
}

impl fmt::Display for PlanFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            PlanFileErrorKind::Io(e) if e.kind() == std::io::ErrorKind::IsADirectory => write!(
                f,
                "{path}: a directory, not a plan file\n  hint: give the plan file's path \
                 (`<dump>.skope.json` is the one skope writes beside the dump)"
            ),
            PlanFileErrorKind::Io(e) => write!(
                f,
                "{path}: {e}\n  hint: check the path and that its directory is writable"
            ),
            PlanFileErrorKind::Syntax { line, col, message } => {
                write!(
                    f,
                    "{path}:{line}:{col}: not a skope plan file: {message}\n  hint: plan files \
                     are written by skope (`w` in the explorer, `skope export --format plan`)"
                )
            }
            PlanFileErrorKind::Version(v) => write!(
                f,
                "{path}: plan file format {v}, this skope reads format {VERSION}\n  hint: save \
                 the plan again with the skope that wrote it, or upgrade"
            ),
        }
    }
}

impl std::error::Error for PlanFileError {}
