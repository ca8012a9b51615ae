//! Errors in files the user writes (the keys and theme config, recipes): the file,
//! the place, what is wrong, and what to do about it.

use std::fmt;
use std::path::{Path, PathBuf};

/// A file the user wrote that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line and column, when the problem has a place.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: &'static str,
}

impl FileError {
    /// A problem at byte `offset` (when known) of `text`, the contents of `path`.
    pub fn at(
        path: &Path,
        text: &str,
        offset: Option<usize>,
        message: String,
        hint: &'static str,
    ) -> FileError {
        FileError {
            path: path.to_path_buf(),
            at: offset.map(|o| crate::text::line_col(text, o)),
            message,
            hint,
        }
    }

    /// `path` could not be read as text (with the place of its first non-UTF-8 byte).
    pub fn unreadable(
        path: &Path,
        error: &crate::text::ReadTextError,
        hint: &'static str,
    ) -> FileError {
        FileError {
            path: path.to_path_buf(),
            at: error.at(),
            message: error.to_string(),
            hint,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some((line, col)) = self.at {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": {}\n  hint: {}", self.message, self.hint)
    }
}

impl std::error::Error for FileError {}
