//! skope's own files — plans, journals and their locks, run records, generated code, exports —
//! kept the way a database keeps its files, so that anyone who can write the folder beside a
//! dump cannot make skope write, create or delete a file elsewhere:
//!
//! - a file of skope's is created with `O_EXCL` and opened with `O_NOFOLLOW`: a symbolic link
//!   planted where it goes is refused (and said), never followed, and never removed;
//! - a file is replaced through a temporary file of an unguessable name (pid and 64 random
//!   bits), created exclusively beside it, synced, renamed over it (and the folder synced) for
//!   the user's work; temporary files an interrupted save left are removed when skope next
//!   saves there, only when they are skope's (by name, owner and a dead pid);
//! - a folder of skope's (`<dump>.runs`, `<dump>.codegen`) that is a link to elsewhere is
//!   refused;
//! - only what skope created is removed: a lock or journal is removed only while the path
//!   still names the very file skope holds;
//! - an output that is one of the command's inputs (the same file, by device and inode) is
//!   refused.
//!
//! A file the user named (`--plan FILE`, `-o FILE`) may be a link on purpose (a plan kept in a
//! shared folder): [`Links::Follow`] writes through it, and the explorer names the link and its
//! target before it does.

use std::fs::{File, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// What to do with a symbolic link where a file is to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A file the user named: write through the link (its target is replaced, the link stays;
    /// a link to nothing is refused).
    Follow,
    /// One of skope's own files: refuse the link, follow nothing.
    Refuse,
}

/// Whether a replaced file must be on disk before the call returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The user's work (plans, records): the file and its folder are synced.
    Synced,
    /// Output that can be made again (generated code): thousands of syncs would cost seconds.
    Unsynced,
}

/// The words for a symbolic link found where skope keeps one of its own files.
fn link_refused(path: &Path) -> io::Error {
    let target = std::fs::read_link(path)
        .map(|t| format!(" to {}", crate::text::sanitize(&t.to_string_lossy())))
        .unwrap_or_default();
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is a symbolic link{target}: skope never follows a link in place of a file or \
             folder of its own (anyone who can write that folder could have planted it); \
             remove the link, or work on a copy of the dump in a folder only you can write",
            path.display()
        ),
    )
}

/// `e` with the path it is about, for errors the system gives without one.
fn with_path(e: io::Error, path: &Path) -> io::Error {
    if e.raw_os_error() == Some(libc::ELOOP) {
        return link_refused(path);
    }
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// True when something at `path` is a symbolic link (to anything, or to nothing).
pub fn is_link(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// Creates a file at `path` that did not exist: fails when anything is there, a symbolic link
/// to nothing included.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists if is_link(path) => link_refused(path),
            _ => with_path(e, path),
        })
}

/// Opens skope's own file at `path` to read and write, creating it when missing, never
/// through a symbolic link; anything but a regular file (a link, a folder, a FIFO) is refused.
pub fn open_own(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        // A FIFO planted there must not block the open.
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| with_path(e, path))?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a regular file: skope keeps its own file there; remove what is there",
                path.display()
            ),
        ));
    }
    Ok(file)
}

/// Makes sure `dir`, a folder of skope's own, is a real folder: created when missing (its
/// parents too), refused when it is a symbolic link or not a folder.
pub fn own_dir(dir: &Path) -> io::Result<()> {
    for _ in 0..4 {
        match dir.symlink_metadata() {
            Ok(meta) if meta.file_type().is_symlink() => return Err(link_refused(dir)),
            Ok(meta) if meta.is_dir() => return Ok(()),
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "{} is a file, where skope keeps a folder of its own: move it away",
                        dir.display()
                    ),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| with_path(e, parent))?;
                }
                match std::fs::create_dir(dir) {
                    Ok(()) => return Ok(()),
                    // Made meanwhile (by another skope, or planted): look again.
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(with_path(e, dir)),
                }
            }
            Err(e) => return Err(with_path(e, dir)),
        }
    }
    Err(io::Error::other(format!(
        "{} keeps changing while skope makes it",
        dir.display()
    )))
}

/// Replaces the file at `path` with `bytes` as one step: a reader (or a crash) sees the old
/// file or the new one, never half of one. An existing file keeps its permissions (a 0600 plan
/// stays 0600); a link at `path` is written through or refused as `links` says.
pub fn replace(path: &Path, bytes: &[u8], durability: Durability, links: Links) -> io::Result<()> {
    let target = match (is_link(path), links) {
        (false, _) => path.to_path_buf(),
        (true, Links::Refuse) => return Err(link_refused(path)),
        (true, Links::Follow) => std::fs::canonicalize(path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "{} is a symbolic link to a file that does not exist ({e}); give the path \
                     to write to",
                    path.display()
                ),
            )
        })?,
    };
    let permissions = std::fs::metadata(&target).ok().map(|m| m.permissions());
    let (dir, name) = dir_and_name(&target);
    let (tmp, mut file) = create_temp(&dir, &name)?;
    let result = (|| {
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.write_all(bytes)?;
        if durability == Durability::Synced {
            file.sync_all()?;
        }
        drop(file);
        std::fs::rename(&tmp, &target)?;
        if durability == Durability::Synced {
            sync_dir(&dir);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e: io::Error| with_path(e, &target))
}

/// Streams a file to `path` through a temporary file beside it, renamed over `path` once
/// `write` has written it whole and it is synced; on an error the temporary file goes and
/// `path` is as it was. A link at `path` is handled as `links` says.
pub fn replace_streamed<T>(
    path: &Path,
    links: Links,
    write: impl FnOnce(&mut io::BufWriter<File>) -> io::Result<T>,
) -> io::Result<T> {
    let target = match (is_link(path), links) {
        (false, _) => path.to_path_buf(),
        (true, Links::Refuse) => return Err(link_refused(path)),
        (true, Links::Follow) => std::fs::canonicalize(path).map_err(|e| with_path(e, path))?,
    };
    let (dir, name) = dir_and_name(&target);
    let (tmp, file) = create_temp(&dir, &name)?;
    let result = (|| {
        let mut out = io::BufWriter::with_capacity(1 << 20, file);
        let value = write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        sync_dir(&dir);
        Ok(value)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The folder a file is in (`.` for a bare name) and its name.
fn dir_and_name(path: &Path) -> (PathBuf, String) {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    (dir, name)
}

/// Syncs a folder, so a rename in it is on disk; a folder that cannot be opened is left (the
/// file itself is synced).
fn sync_dir(dir: &Path) {
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// The start of the names of skope's temporary files for `name`.
fn temp_prefix(name: &str) -> String {
    format!(".{name}.skope-tmp.")
}

/// Creates a temporary file for `name` in `dir`, exclusively, under a name no one can guess:
/// `.<name>.skope-tmp.<pid>.<16 hex digits>`.
fn create_temp(dir: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let prefix = temp_prefix(name);
    let mut last = None;
    for _ in 0..16 {
        let path = dir.join(format!(
            "{prefix}{}.{:016x}",
            std::process::id(),
            random_u64()
        ));
        match create_new(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name was free")))
}

/// 64 bits from the kernel's random source (the clock and the pid mixed, should it fail).
pub fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the buffer it is given.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if got == 8 {
        return u64::from_ne_bytes(bytes);
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos.rotate_left(17) ^ u64::from(std::process::id()).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Removes the temporary files interrupted saves left in `dir`: only files that are skope's by
/// their name (this release's `.<name>.skope-tmp.<pid>.<hex>`, earlier ones'
/// `.<name>.tmp-<pid>`), regular files owned by this user, whose process is gone. Returns the
/// files removed.
pub fn sweep_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(stale_temp_pid) else {
            continue;
        };
        let path = entry.path();
        let ours = path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_file() && m.uid() == me);
        if ours && !alive(pid) && std::fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

/// The pid in the name of a temporary file skope makes (or made), if `name` is one.
fn stale_temp_pid(name: &str) -> Option<i32> {
    let rest = name.strip_prefix('.')?;
    if let Some(at) = rest.rfind(".skope-tmp.") {
        let (pid, hex) = rest[at + ".skope-tmp.".len()..].split_once('.')?;
        let hex_ok = hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit());
        return hex_ok.then(|| pid.parse().ok()).flatten();
    }
    let at = rest.rfind(".tmp-")?;
    rest[at + ".tmp-".len()..].parse().ok()
}

/// True when a process `pid` exists (one of another user's counts).
pub fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 checks for the process without sending anything.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Removes `path` only while it still names `held`, the file skope opened there (a file put in
/// its place — by another window, or planted — stays). True when it was removed.
pub fn remove_own(path: &Path, held: &File) -> io::Result<bool> {
    let (Ok(now), Ok(mine)) = (path.symlink_metadata(), held.metadata()) else {
        return Ok(false);
    };
    if now.dev() != mine.dev() || now.ino() != mine.ino() {
        return Ok(false);
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(with_path(e, path)),
    }
}

/// True when `a` and `b` are one file (device and inode, links followed).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Refuses to write `output` when it is one of `inputs` (the same file, however named).
pub fn refuse_input_as_output(output: &Path, inputs: &[&Path]) -> io::Result<()> {
    match inputs.iter().find(|input| same_file(output, input)) {
        None => Ok(()),
        Some(input) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, which this command reads: writing there would replace it; give \
                 another path to write to",
                output.display(),
                if input.as_os_str() == output.as_os_str() {
                    "one of its inputs".to_string()
                } else {
                    format!("the same file as its input {}", input.display())
                }
            ),
        )),
    }
}

/// This machine's name (`/proc/sys/kernel/hostname`), as a journal's lock and a digest record
/// where they were written; `None` when it cannot be read.
pub fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_where_skope_creates_its_file_is_refused_and_its_target_untouched() {
        let dir = crate::scratch::scratch("own-files-link");
        let target = dir.join("victim");
        std::fs::write(&target, "precious").unwrap();
        let planted = dir.join("x.lock");
        symlink(&target, &planted).unwrap();
        let e = open_own(&planted).unwrap_err();
        assert!(e.to_string().contains("is a symbolic link"), "{e}");
        assert!(create_new(&planted).is_err());
        let dangling = dir.join("y.journal");
        symlink(dir.join("made-by-follow"), &dangling).unwrap();
        assert!(open_own(&dangling).is_err());
        assert!(!dir.join("made-by-follow").exists(), "no target created");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        let e = replace(&planted, b"x", Durability::Synced, Links::Refuse).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    }

    #[test]
    fn a_folder_of_skopes_that_is_a_link_is_refused() {
        let dir = crate::scratch::scratch("own-files-dir");
        std::fs::create_dir(dir.join("elsewhere")).unwrap();
        symlink(dir.join("elsewhere"), dir.join("m.txt.runs")).unwrap();
        let e = own_dir(&dir.join("m.txt.runs")).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        own_dir(&dir.join("a/b.codegen")).unwrap();
        assert!(dir.join("a/b.codegen").is_dir());
        own_dir(&dir.join("a/b.codegen")).unwrap();
    }

    #[test]
    fn temporary_names_are_unguessable_and_stale_ones_are_swept() {
        let dir = crate::scratch::scratch("own-files-tmp");
        let (a, _) = create_temp(&dir, "p.json").unwrap();
        let (b, _) = create_temp(&dir, "p.json").unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(stale_temp_pid(&name), Some(std::process::id() as i32));
        // A dead process's temporary files go; this process's, a live one's and others stay.
        let dead = dir.join(".p.json.skope-tmp.999999999.0123456789abcdef");
        let legacy = dir.join(".p.json.tmp-999999998");
        let other = dir.join("notes.txt");
        for f in [&dead, &legacy, &other] {
            std::fs::write(f, "x").unwrap();
        }
        let linked = dir.join(".q.json.skope-tmp.999999997.0123456789abcdef");
        symlink(&other, &linked).unwrap();
        let removed = sweep_stale_temps(&dir);
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(!dead.exists() && !legacy.exists());
        assert!(a.exists() && b.exists() && other.exists());
        assert!(is_link(&linked), "a link is not skope's file: left");
    }

    #[test]
    fn replace_keeps_permissions_and_writes_through_a_users_link() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = crate::scratch::scratch("own-files-replace");
        let real = dir.join("shared.json");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("mine.json");
        symlink(&real, &link).unwrap();
        replace(&link, b"new", Durability::Synced, Links::Follow).unwrap();
        assert!(is_link(&link));
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 2, "no temporary file left");
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_however_named() {
        let dir = crate::scratch::scratch("own-files-same");
        let dump = dir.join("m.txt");
        std::fs::write(&dump, "op {}").unwrap();
        symlink(&dump, dir.join("alias.txt")).unwrap();
        let e = refuse_input_as_output(&dir.join("alias.txt"), &[&dump]).unwrap_err();
        assert!(e.to_string().contains("same file as its input"), "{e}");
        assert!(refuse_input_as_output(&dump, &[&dump]).is_err());
        assert!(refuse_input_as_output(&dir.join("new.json"), &[&dump]).is_ok());
    }

    #[test]
    fn only_the_file_skope_holds_is_removed() {
        let dir = crate::scratch::scratch("own-files-remove");
        let path = dir.join("j.lock");
        let held = open_own(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, "another window's").unwrap();
        assert!(!remove_own(&path, &held).unwrap());
        assert!(path.exists());
        let again = open_own(&path).unwrap();
        assert!(remove_own(&path, &again).unwrap());
        assert!(!path.exists());
    }
}
