//! Errors of loading a dump: each names the file, the position and what to do.

use std::fmt;
use std::path::PathBuf;

/// Why a dump could not be loaded. Callers branch on this (the TUI shows the message and
/// keeps running; the CLI exits non-zero).
#[derive(Debug)]
pub enum LoadErrorKind {
    /// The file could not be read.
    Io(std::io::Error),
    /// The file is empty or only whitespace.
    Empty,
    /// The file is larger than the configured limit.
    TooLarge {
        /// File size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// Loading the file would need more memory than is free.
    NotEnoughMemory {
        /// File size in bytes.
        size: u64,
        /// About what loading it needs.
        needed: u64,
        /// What is free.
        available: u64,
        /// What sets that: the machine's free memory, a cgroup's limit, `ulimit -v`.
        by: &'static str,
    },
    /// The file holds binary data (NUL bytes or invalid UTF-8 near its start).
    Binary {
        /// Line and column of the first offending byte.
        line: usize,
        /// Column of the first offending byte.
        col: usize,
    },
    /// The file is text but none of the known dump formats.
    UnknownFormat {
        /// Line of the token that gave it away.
        line: usize,
        /// Column of that token.
        col: usize,
        /// What was found instead.
        detail: String,
    },
    /// A directory holding none of the kinds of directory skope reads.
    UnknownDirectory,
    /// The file is of a known format but malformed at a position.
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        col: usize,
        /// What was expected and found.
        message: String,
    },
    /// A file of a pass's output (not a dump) that could not be used: its place, what is
    /// wrong and what to do.
    PassOutput {
        /// 1-based line and column, when the problem has a place.
        at: Option<(usize, usize)>,
        /// What is wrong.
        message: String,
        /// What to do.
        hint: &'static str,
    },
    /// The content is well-formed but does not describe a graph (e.g. wrong JSON shape).
    Structure {
        /// Where in the document (a JSON path such as `graph[0].op[3].attr`).
        path: String,
        /// The line and column of that value in the file, when it could be found.
        at: Option<(usize, usize)>,
        /// What is wrong.
        message: String,
    },
}

/// A load failure for one file.
#[derive(Debug)]
pub struct LoadError {
    /// The file (or the name given to in-memory input).
    pub path: PathBuf,
    /// What went wrong.
    pub kind: LoadErrorKind,
}

const FORMATS: &str = "GE ge_proto_*.txt, GE ge_onnx_*.pbtxt, TorchAir .txt/.pbtxt graph dumps, \
                       atc JSON, MindSpore .ir text, or MindSpore composite JSON (*.info)";

/// The directories skope reads, for the hint of one it does not.
const DIRECTORIES: &str = "skope opens an aclgraph model directory (sk_meta/<pid>/model_<id>/ from \
                           super_kernel_optimize, or any directory above it), MindSpore \
                           composite JSON (akg_kernel_meta/ holding *.info), and, with `skope \
                           static` or `--static`, static kernel compile outputs \
                           (static_kernel_compile_outputs/); otherwise give a graph dump file";

impl LoadError {
    /// What the user can do about it.
    pub fn hint(&self) -> String {
        match &self.kind {
            LoadErrorKind::Io(_) => "check the path and that the file is readable".into(),
            LoadErrorKind::Empty => format!("the file has no content; expected one of: {FORMATS}"),
            LoadErrorKind::TooLarge { .. } => {
                "raise the limit with --max-size BYTES if the machine has the memory (about 3x the file size)".into()
            }
            LoadErrorKind::NotEnoughMemory { size, .. } => format!(
                "free memory (other programs, other skope sessions) or raise the limit, or load \
                 it anyway with --max-size {size} (skope then trusts you about memory)"
            ),
            LoadErrorKind::Binary { .. } => format!(
                "skope reads text dumps ({FORMATS}); for an .om model run `atc --mode=1 --om=FILE --json=out.json` and open out.json"
            ),
            LoadErrorKind::UnknownFormat { .. } => format!("expected one of: {FORMATS}"),
            LoadErrorKind::UnknownDirectory => DIRECTORIES.to_string(),
            LoadErrorKind::Syntax { message, .. } if message.contains("end of input") => {
                "the file ends early: it was probably truncated while being written or copied; dump or copy it again".into()
            }
            LoadErrorKind::Syntax { .. } => {
                "the file is damaged or was edited by hand at this position; fix it there or dump the graph again".into()
            }
            LoadErrorKind::Structure { .. } => format!("expected the layout of one of: {FORMATS}"),
            LoadErrorKind::PassOutput { hint, .. } => (*hint).to_string(),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.kind {
            LoadErrorKind::Io(e) => write!(f, "{path}: cannot read: {e}")?,
            LoadErrorKind::Empty => write!(f, "{path}: the file is empty")?,
            LoadErrorKind::TooLarge { size, limit } => write!(
                f,
                "{path}: the file is {size} bytes, above the limit of {limit} bytes"
            )?,
            LoadErrorKind::NotEnoughMemory {
                size,
                needed,
                available,
                by,
            } => write!(
                f,
                "{path}: loading this {} dump takes up to {} of memory and {} is free {by}: \
                 skope stops here rather than make the machine swap or run out",
                crate::text::size(*size),
                crate::text::size(*needed),
                crate::text::size(*available)
            )?,
            LoadErrorKind::Binary { line, col } => {
                write!(f, "{path}:{line}:{col}: binary data, not a text graph dump")?
            }
            LoadErrorKind::UnknownDirectory => {
                write!(f, "{path}: a directory, and none that skope reads")?
            }
            LoadErrorKind::UnknownFormat { line, col, detail } => write!(
                f,
                "{path}:{line}:{col}: not a graph dump skope knows: {detail}"
            )?,
            LoadErrorKind::Syntax { line, col, message } => {
                write!(f, "{path}:{line}:{col}: {message}")?
            }
            LoadErrorKind::PassOutput { at, message, .. } => {
                write!(f, "{path}")?;
                if let Some((line, col)) = at {
                    write!(f, ":{line}:{col}")?;
                }
                write!(f, ": {message}")?
            }
            LoadErrorKind::Structure {
                path: json_path,
                at,
                message,
            } => {
                write!(f, "{path}")?;
                if let Some((line, col)) = at {
                    write!(f, ":{line}:{col}")?;
                }
                write!(f, ": at {json_path}: {message}")?
            }
        }
        write!(f, "\n  hint: {}", self.hint())
    }
}

impl std::error::Error for LoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            LoadErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<crate::file_error::FileError> for LoadError {
    fn from(e: crate::file_error::FileError) -> LoadError {
        LoadError {
            path: e.path,
            kind: LoadErrorKind::PassOutput {
                at: e.at,
                message: e.message,
                hint: e.hint,
            },
        }
    }
}
