//! What can go wrong reading profiles: typed, so a front end can branch on the kind, and each
//! naming the file (and, for a bad field, the row and column) and what to do.

use std::fmt;
use std::path::PathBuf;

/// One rank (or device) of a profile that holds several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankChoice {
    /// The number `--rank` takes.
    pub rank: u32,
    /// Where its data is (a directory, or the file holding several devices).
    pub path: PathBuf,
}

/// A profile that cannot be read or used.
#[derive(Debug)]
pub enum ProfileError {
    /// A file or directory could not be read.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// Nothing the reader knows under the path.
    NotFound {
        /// The path given.
        path: PathBuf,
        /// What was looked for there.
        looked_for: &'static str,
    },
    /// The file has no header line.
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The header lacks a column the reader needs.
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The line the header is on, from 1.
        line: u64,
        /// The column, as the current tools name it.
        column: &'static str,
        /// The header's columns as the message lists them: `<position> "<name>"`, the first
        /// 24 and the last 4 of a longer header (which a broken file can make thousands long).
        header: Vec<String>,
        /// How many columns the header has.
        columns: usize,
    },
    /// A field that cannot be read as what its column holds.
    BadValue {
        /// The file.
        path: PathBuf,
        /// The data row, from 1 (the header is not counted).
        row: u64,
        /// The line of the file the row starts on, from 1.
        line: u64,
        /// The column's name as the header spells it.
        column: String,
        /// The column's position, from 1.
        column_index: usize,
        /// The field as found (cut to 40 characters).
        value: String,
        /// What the column holds.
        expected: &'static str,
    },
    /// A row that is not text or not CSV.
    BadRow {
        /// The file.
        path: PathBuf,
        /// The data row, from 1.
        row: u64,
        /// The line of the file the row starts on, from 1.
        line: u64,
        /// The column, when the problem is in one field: name and position from 1.
        column: Option<(String, usize)>,
        /// What is wrong.
        message: String,
    },
    /// The file names more distinct kernels than memory holds.
    TooManyKernels {
        /// The file.
        path: PathBuf,
        /// Distinct kernel names read when reading stopped.
        kernels: usize,
        /// Runs kept when reading stopped (0 when only the totals by name were kept).
        runs: usize,
        /// The memory that was free.
        available: u64,
    },
    /// The path holds several ranks and none was chosen.
    SeveralRanks {
        /// The path given.
        path: PathBuf,
        /// The ranks found.
        ranks: Vec<RankChoice>,
    },
    /// The rank asked for is not there.
    NoSuchRank {
        /// The path given.
        path: PathBuf,
        /// The rank asked for.
        rank: u32,
        /// The ranks found.
        ranks: Vec<RankChoice>,
    },
    /// A profiler database (or trace) that cannot be read: not a profiler's, locked, damaged,
    /// or of a schema skope does not know.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the table and column when one is.
        what: String,
        /// What to do.
        hint: &'static str,
    },
    /// The paths do not make a base and a new profile.
    Pairing {
        /// The path concerned.
        path: PathBuf,
        /// What is wrong, and what to give instead.
        message: String,
    },
}

impl ProfileError {
    /// The file or directory the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ProfileError::Io { path, .. }
            | ProfileError::NotFound { path, .. }
            | ProfileError::Empty { path }
            | ProfileError::MissingColumn { path, .. }
            | ProfileError::BadValue { path, .. }
            | ProfileError::BadRow { path, .. }
            | ProfileError::TooManyKernels { path, .. }
            | ProfileError::SeveralRanks { path, .. }
            | ProfileError::NoSuchRank { path, .. }
            | ProfileError::Unreadable { path, .. }
            | ProfileError::Pairing { path, .. } => path,
        }
    }

    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            ProfileError::Io { .. } => "check the path and its permissions",
            ProfileError::NotFound { .. } => {
                "give op_statistic.csv / kernel_details.csv / op_summary_*.csv, an \
                 ASCEND_PROFILER_OUTPUT, PROF_* or *_ascend_pt directory, or a directory holding \
                 no_sk_model and sk_model"
            }
            ProfileError::Empty { .. } => "the export was cut short: export the profile again",
            ProfileError::MissingColumn { .. } => {
                "give a file written by msprof or the Ascend PyTorch profiler (Level1 or higher \
                 for op_statistic.csv)"
            }
            ProfileError::BadValue { .. } | ProfileError::BadRow { .. } => {
                "the file was edited or damaged: export the profile again, or fix that field"
            }
            ProfileError::SeveralRanks { .. } | ProfileError::NoSuchRank { .. } => {
                "pick one with --rank N"
            }
            ProfileError::TooManyKernels { .. } => {
                "real profiles name thousands of kernels, not millions: check this is a \
                 kernel_details.csv or op_summary file, or free memory and try again"
            }
            ProfileError::Unreadable { hint, .. } => hint,
            ProfileError::Pairing { .. } => {
                "give BASE and NEW, or one directory holding no_sk_model and sk_model"
            }
        }
    }
}

fn ranks_text(ranks: &[RankChoice]) -> String {
    ranks
        .iter()
        .map(|r| format!("\n  rank {}: {}", r.rank, r.path.display()))
        .collect()
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path().display();
        match self {
            ProfileError::Io { error, .. } => write!(f, "{path}: cannot read it: {error}")?,
            ProfileError::NotFound { looked_for, .. } => {
                write!(f, "{path}: no profile found (looked for {looked_for})")?
            }
            ProfileError::Empty { .. } => write!(f, "{path}: empty file: no header line")?,
            ProfileError::MissingColumn {
                line,
                column,
                header,
                columns,
                ..
            } => {
                let listed = if *columns > header.len() {
                    let (first, last) = header.split_at(header.len().saturating_sub(4));
                    format!(
                        "{}, … {columns} columns in all …, {}",
                        first.join(", "),
                        last.join(", ")
                    )
                } else {
                    header.join(", ")
                };
                write!(
                    f,
                    "{path}:{line}: the header has no column {column:?} (its columns: {})",
                    crate::text::cut_middle(&listed, 600)
                )?
            }
            ProfileError::BadValue {
                row,
                line,
                column,
                column_index,
                value,
                expected,
                ..
            } => write!(
                f,
                "{path}:{line}: row {row}, column {column:?} (column {column_index}): {value:?} \
                 is not {expected}"
            )?,
            ProfileError::BadRow {
                row,
                line,
                column,
                message,
                ..
            } => {
                write!(f, "{path}:{line}: row {row}")?;
                if let Some((name, index)) = column {
                    write!(f, ", column {name:?} (column {index})")?;
                }
                write!(f, ": {message}")?;
            }
            ProfileError::TooManyKernels {
                kernels,
                runs,
                available,
                ..
            } => write!(
                f,
                "{path}: more than {kernels} distinct kernel names{}, which would outgrow the \
                 {} of memory free: reading stopped rather than make the machine swap",
                if *runs > 0 {
                    format!(" in {runs} runs")
                } else {
                    String::new()
                },
                crate::text::size(*available)
            )?,
            ProfileError::SeveralRanks { ranks, .. } => write!(
                f,
                "{path}: holds {} ranks:{}",
                ranks.len(),
                ranks_text(ranks)
            )?,
            ProfileError::NoSuchRank { rank, ranks, .. } => {
                write!(f, "{path}: no rank {rank}; ranks:{}", ranks_text(ranks))?
            }
            ProfileError::Unreadable { what, .. } => write!(f, "{path}: {what}")?,
            ProfileError::Pairing { message, .. } => write!(f, "{path}: {message}")?,
        }
        write!(f, "\n  hint: {}", self.hint())
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProfileError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}
