//! Writing generated entry code to a directory: one `.cpp` and one `.json` sidecar per
//! segment, each written atomically, names made unique.

use super::EntryCode;
use crate::graph::Graph;
use crate::planfile::write_replacing;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Writes `codes` into `dir` (created when missing) and returns the source files written.
/// Two segments whose names map to the same file name get `_2`, `_3`… suffixes.
pub fn write_all(dir: &Path, codes: &[EntryCode], graph: &Graph) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut taken = HashSet::new();
    let mut written = Vec::with_capacity(codes.len());
    for code in codes {
        let name = code.file_name();
        let stem = name.strip_suffix(".cpp").unwrap_or(&name).to_string();
        let mut candidate = stem.clone();
        let mut n = 1;
        while !taken.insert(candidate.to_ascii_lowercase()) {
            n += 1;
            candidate = format!("{stem}_{n}");
        }
        let source = dir.join(format!("{candidate}.cpp"));
        write_replacing(&source, code.source.as_bytes())?;
        let sidecar = crate::text::json_safe(
            serde_json::to_string_pretty(&code.sidecar(graph)).map_err(std::io::Error::other)?,
        );
        write_replacing(&dir.join(format!("{candidate}.json")), sidecar.as_bytes())?;
        written.push(source);
    }
    Ok(written)
}
