//! Writing generated entry code to a directory: one `.cpp` and one `.json` sidecar per
//! segment, each written atomically, names made unique.

use super::EntryCode;
use crate::graph::Graph;
use crate::own_files::{self, Durability, Links};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Writes `codes` into `dir` (created when missing) and returns the source files written.
/// Two segments whose names map to the same file name get `_2`, `_3`… suffixes. `links` says
/// whether `dir` may be a symbolic link: a folder the user named may, skope's own
/// (`<dump>.codegen`) may not; a link in place of a file in it is never followed.
pub fn write_all(
    dir: &Path,
    links: Links,
    codes: &[EntryCode],
    graph: &Graph,
) -> std::io::Result<Vec<PathBuf>> {
    // What this call creates, so that a failure (a full disk) leaves none of it behind: the
    // directories that did not exist, the files that were new. Files it replaces are written
    // atomically, so the old ones stay whole.
    let made_dirs: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    let mut made_files: Vec<PathBuf> = Vec::new();
    let result = match links {
        Links::Refuse => own_files::own_dir(dir),
        Links::Follow => std::fs::create_dir_all(dir),
    }
    .and_then(|()| write_each(dir, codes, graph, &mut made_files));
    if result.is_err() {
        for file in &made_files {
            let _ = std::fs::remove_file(file);
        }
        // Deepest first; a directory something else has put files into stays.
        for d in &made_dirs {
            let _ = std::fs::remove_dir(d);
        }
    }
    result
}

/// Writes each code and its sidecar into `dir`, noting in `made` every file that is new.
fn write_each(
    dir: &Path,
    codes: &[EntryCode],
    graph: &Graph,
    made: &mut Vec<PathBuf>,
) -> std::io::Result<Vec<PathBuf>> {
    own_files::sweep_stale_temps(dir);
    let mut taken = HashSet::new();
    let mut written = Vec::with_capacity(codes.len());
    let mut write = |path: PathBuf, bytes: &[u8]| -> std::io::Result<PathBuf> {
        let new = !path.exists();
        own_files::replace(&path, bytes, Durability::Unsynced, Links::Refuse)?;
        if new {
            made.push(path.clone());
        }
        Ok(path)
    };
    for code in codes {
        let name = code.file_name();
        let stem = name.strip_suffix(".cpp").unwrap_or(&name).to_string();
        let mut candidate = stem.clone();
        let mut n = 1;
        while !taken.insert(candidate.to_ascii_lowercase()) {
            n += 1;
            candidate = format!("{stem}_{n}");
        }
        let source = write(dir.join(format!("{candidate}.cpp")), code.source.as_bytes())?;
        let sidecar = crate::text::json_safe(
            serde_json::to_string_pretty(&code.sidecar(graph)).map_err(std::io::Error::other)?,
        );
        write(dir.join(format!("{candidate}.json")), sidecar.as_bytes())?;
        written.push(source);
    }
    Ok(written)
}
