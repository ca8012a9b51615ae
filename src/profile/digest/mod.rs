//! A profile's digest: one rank's profile reduced, on the node where it was written, to a small
//! file that every comparison reads as it reads the profile — so a cluster's ranks are reduced
//! where they are (each node with the cluster's own launcher) and compared anywhere, and the
//! figures are exactly those of the raw profile.
//!
//! What a comparison needs of a profile is its kernel runs (every figure — steps, spans, busy
//! time, gaps, segment occurrences, payoffs, op types — is computed from them, and a plan is
//! bound to them only when compared) and its op statistic when it has one. A digest keeps
//! exactly those: every kernel row as the readers gave it (names, types, steps, streams and
//! shapes interned; times as integer ns, deltas between starts), the op statistic's rows, the
//! notes of reading, and the source's identity. Replayed through the same reader
//! ([`super::KernelReader`] reads a digest as it reads any kernel file), it gives the same
//! rows, so every number and every verdict comes out the same (a test holds it).
//!
//! Binary ([`format`]), because a rank's kernels are millions of rows: a digest is about 20 bytes
//! a row against the 150–400 of a kernel CSV (18 on the benches' files), read a window at a time.

pub mod format;

use super::discover::{self, ProfileFiles};
use super::error::ProfileError;
use super::kernels::KernelReader;
pub use format::header;
use format::{Header, RowWriter, Source, SourceFile, TypeRow, bad};
use std::path::{Path, PathBuf};

/// What digesting a profile gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digested {
    /// Kernel rows kept.
    pub rows: u64,
    /// The digest's size, bytes.
    pub bytes: u64,
    /// The profile's files' size, bytes.
    pub source_bytes: u64,
    /// The rank it is, when known.
    pub rank: Option<u32>,
}

fn file_of(path: &Path) -> SourceFile {
    let meta = std::fs::metadata(path).ok();
    SourceFile {
        path: path.display().to_string(),
        size: meta.as_ref().map_or(0, std::fs::Metadata::len),
        modified: meta
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs()),
    }
}

/// Reduces the profile of `files` (rank `rank`, when known; `device` picks one of an op
/// statistic's several) to a digest's bytes.
pub fn digest(
    files: &ProfileFiles,
    rank: Option<u32>,
    device: Option<u32>,
) -> Result<(Vec<u8>, Digested), ProfileError> {
    if files.origin.is_some() {
        return Err(bad(
            &files.root,
            "already a digest: give the profile it was made from".into(),
        ));
    }
    let stats = crate::profile::read_op_statistic(files, device)?;
    let mut writer = RowWriter::default();
    let mut reader = KernelReader::open(&files.kernels);
    while let Some(row) = reader.next_row()? {
        writer.add(&row);
    }
    if files.kernels.is_empty() && stats.is_none() {
        return Err(ProfileError::NotFound {
            path: files.root.clone(),
            looked_for: "a kernel file or an op statistic to digest",
        });
    }
    let read: Vec<&PathBuf> = files.kernels.iter().chain(&files.op_statistic).collect();
    let sources: Vec<SourceFile> = read.iter().map(|p| file_of(p)).collect();
    let source_bytes = sources.iter().map(|f| f.size).sum();
    let header = Header {
        made_by: format!("skope {}", env!("CARGO_PKG_VERSION")),
        made: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        source: Source {
            root: files.root.display().to_string(),
            rank,
            kernel_form: files
                .kernel_form
                .filter(|_| !files.kernels.is_empty())
                .map(|f| f.words().to_string()),
            level: discover::profiler_level(&files.root),
            files: sources,
            host: crate::own_files::host_name(),
        },
        discovery_notes: files.notes.clone(),
        reader_notes: reader.notes().to_vec(),
        devices: stats
            .as_ref()
            .map(|s| s.devices.clone())
            .unwrap_or_default(),
        op_statistic: stats.map(|s| s.rows.into_iter().map(TypeRow::of).collect()),
        rows: 0,
    };
    let rows = writer.rows();
    let bytes = writer
        .finish(header)
        .map_err(|what| ProfileError::Unreadable {
            path: files.root.clone(),
            what: format!("cannot be digested: {what}"),
            hint: "digest the profile's kernel files alone (a digest keeps its notes and op \
               statistic in its header)",
        })?;
    let digested = Digested {
        rows,
        bytes: bytes.len() as u64,
        source_bytes,
        rank,
    };
    Ok((bytes, digested))
}
