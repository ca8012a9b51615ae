//! Where skope keeps what it writes for a dump: beside the dump, each named after the dump's
//! whole file name — `<dump>.skope.json` (the plan), `<dump>.skope.json.journal` (edits not
//! yet saved), `<dump>.runs/` (runs), `<dump>.codegen/` (entry sources). Two dumps of the same
//! name in different directories (ranks, runs) therefore never share a file. When the dump's
//! directory cannot be written (a shared, read-only dump), the files go to the working
//! directory instead, named `<dump file name>.<8 hex digits>.…`, the digits a hash of the
//! dump's absolute directory, so that the rule still holds; when that cannot be written
//! either, to the data home, `$XDG_DATA_HOME/skope/plans/` (`~/.local/share/skope/plans/`),
//! under the same name.
//!
//! Earlier versions kept every file in the working directory as `<dump file name>.…` (and
//! before that `<file name without extension>.skope.json`); [`DumpFiles::earlier_plans`] and
//! [`DumpFiles::earlier_runs`] name those places, which are read only for a dump whose
//! fingerprint matches what they hold.

use std::path::{Path, PathBuf};

/// The files skope keeps for one dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpFiles {
    /// Every file's path up to its suffix: `rank1/m.txt` for `rank1/m.txt.skope.json`.
    base: PathBuf,
    /// The dump's file name, for the earlier names in the working directory.
    name: String,
    /// Where the files are.
    place: Place,
}

/// Where a dump's files are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Beside the dump.
    Beside,
    /// In the working directory: the dump's cannot be written.
    WorkingDirectory,
    /// In the data home: neither the dump's directory nor the working directory can be
    /// written.
    DataHome,
}

impl DumpFiles {
    /// The files of the dump at `dump` (as the user named it): beside it when its directory
    /// is writable, else in the working directory under a name that includes its directory.
    pub fn of(dump: &str) -> DumpFiles {
        let dir = Path::new(dump)
            .parent()
            .filter(|p| !p.as_os_str().is_empty());
        let dump_dir = writable(dir.unwrap_or(Path::new(".")));
        let working = dump_dir && dir.is_none() || writable(Path::new("."));
        let data = (!dump_dir && !working)
            .then(|| data_home().map(|d| d.join("skope/plans")))
            .flatten()
            .filter(|d| crate::own_files::own_dir(d).is_ok() && writable(d));
        DumpFiles::placed(dump, [dump_dir, working], data)
    }

    /// The files of `dump` given which places can be written: its directory, the working
    /// directory (in that order), else `data`, the data home's folder for plans, when it can.
    fn placed(dump: &str, writable: [bool; 2], data: Option<PathBuf>) -> DumpFiles {
        let path = Path::new(dump);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "skope".to_string());
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        let apart = || {
            format!(
                "{name}.{:08x}",
                directory_hash(dir.unwrap_or(Path::new(".")))
            )
        };
        let (base, place) = match (dir, writable, data) {
            (None, [true, _], _) => (PathBuf::from(&name), Place::Beside),
            (Some(dir), [true, _], _) => (dir.join(&name), Place::Beside),
            (_, [false, false], Some(data)) => (data.join(apart()), Place::DataHome),
            _ => (PathBuf::from(apart()), Place::WorkingDirectory),
        };
        DumpFiles { base, name, place }
    }

    /// Files kept in `dir` for a dump named `name` (the bundled example, tests).
    pub fn in_dir(dir: &Path, name: &str) -> DumpFiles {
        DumpFiles {
            base: dir.join(name),
            name: name.to_string(),
            place: Place::Beside,
        }
    }

    fn with(&self, suffix: &str) -> PathBuf {
        let mut path = self.base.clone().into_os_string();
        path.push(".");
        path.push(suffix);
        PathBuf::from(path)
    }

    /// The plan file: `<dump>.skope.json`.
    pub fn plan(&self) -> PathBuf {
        self.with("skope.json")
    }

    /// The runs' directory: `<dump>.runs`.
    pub fn runs(&self) -> PathBuf {
        self.with("runs")
    }

    /// The pull request report written from the explorer: `<dump>.report.md`.
    pub fn report(&self) -> PathBuf {
        self.with("report.md")
    }

    /// The profiles written as a trace from the explorer: `<dump>.trace.json`.
    pub fn trace(&self) -> PathBuf {
        self.with("trace.json")
    }

    /// The entry sources' directory: `<dump>.codegen`.
    pub fn codegen(&self) -> PathBuf {
        self.with("codegen")
    }

    /// Where the files are.
    pub fn place(&self) -> Place {
        self.place
    }

    /// Where the files are, in words, when not beside the dump.
    pub fn where_kept(&self) -> Option<String> {
        let folder = self
            .base
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(
                || "the working directory".to_string(),
                |p| p.display().to_string(),
            );
        match self.place {
            Place::Beside => None,
            Place::WorkingDirectory => Some(format!(
                "the dump's folder cannot be written: its plan, journal and runs are kept in \
                 {folder} as {}.*",
                self.file_stem()
            )),
            Place::DataHome => Some(format!(
                "neither the dump's folder nor the working directory can be written: its plan, \
                 journal and runs are kept in {folder} (ctrl-s saves the plan elsewhere)"
            )),
        }
    }

    /// The name every file starts with.
    fn file_stem(&self) -> String {
        self.base
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// Where earlier versions saved the plan, oldest rule last: `<dump file name>.skope.json`
    /// and `<file name without extension>.skope.json` in the working directory (not the plan
    /// file itself).
    pub fn earlier_plans(&self) -> Vec<PathBuf> {
        let stem = Path::new(&self.name)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        let mut out: Vec<PathBuf> = [Some(self.name.clone()), stem]
            .into_iter()
            .flatten()
            .map(|n| PathBuf::from(format!("{n}.skope.json")))
            .filter(|p| !same_file(p, &self.plan()))
            .collect();
        out.dedup();
        out
    }

    /// Where earlier versions kept the runs: `<dump file name>.runs` in the working directory
    /// (not the runs' directory itself).
    pub fn earlier_runs(&self) -> Option<PathBuf> {
        let earlier = PathBuf::from(format!("{}.runs", self.name));
        (!same_file(&earlier, &self.runs())).then_some(earlier)
    }
}

/// True when `a` and `b` name one place (both resolved against the working directory).
fn same_file(a: &Path, b: &Path) -> bool {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    absolute(a) == absolute(b)
}

/// True when files can be created in `dir`: tried, since permission bits do not tell (root
/// writes anywhere but on a read-only mount or a pseudo file system).
fn writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".skope-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(e) => e.kind() == std::io::ErrorKind::AlreadyExists,
    }
}

/// The user's data home: `$XDG_DATA_HOME`, else `$HOME/.local/share`.
pub fn data_home() -> Option<PathBuf> {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })
}

/// A path as typed at a prompt: a leading `~/` is the home directory, as in a shell.
pub fn expand_home(typed: &str) -> PathBuf {
    match (typed.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) if !home.is_empty() => PathBuf::from(home).join(rest),
        _ => PathBuf::from(typed),
    }
}

/// FNV-1a of the absolute form of `dir`: the same directory gives the same digits from any
/// working directory.
fn directory_hash(dir: &Path) -> u32 {
    use std::os::unix::ffi::OsStrExt as _;
    let absolute = std::fs::canonicalize(dir)
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    let mut hash: u32 = 0x811c_9dc5;
    for &byte in absolute.as_os_str().as_bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sit_beside_the_dump_named_after_its_whole_file_name() {
        let dir = crate::scratch::scratch("paths");
        std::fs::create_dir_all(dir.join("rank1")).unwrap();
        let dump = dir.join("rank1/ge_proto_00000042_Build.txt");
        let files = DumpFiles::of(&dump.to_string_lossy());
        assert_eq!(
            files.plan(),
            dir.join("rank1/ge_proto_00000042_Build.txt.skope.json")
        );
        assert_eq!(
            files.runs(),
            dir.join("rank1/ge_proto_00000042_Build.txt.runs")
        );
        assert_eq!(
            files.codegen(),
            dir.join("rank1/ge_proto_00000042_Build.txt.codegen")
        );
        assert_eq!(files.place(), Place::Beside);
        assert_eq!(
            files.earlier_plans(),
            vec![
                PathBuf::from("ge_proto_00000042_Build.txt.skope.json"),
                PathBuf::from("ge_proto_00000042_Build.skope.json")
            ]
        );
        // Same name, other directory: other files.
        std::fs::create_dir_all(dir.join("rank0")).unwrap();
        let other = DumpFiles::of(
            &dir.join("rank0/ge_proto_00000042_Build.txt")
                .to_string_lossy(),
        );
        assert_ne!(other.plan(), files.plan());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_dump_in_the_working_directory_keeps_its_files_there() {
        let files = DumpFiles::of("graph.txt");
        assert_eq!(files.plan(), PathBuf::from("graph.txt.skope.json"));
        assert_eq!(
            files.earlier_plans(),
            vec![PathBuf::from("graph.skope.json")]
        );
        assert_eq!(files.earlier_runs(), None);
    }

    #[test]
    fn a_read_only_directory_sends_the_files_to_the_working_directory_apart() {
        // /proc is never writable; its files stand for a read-only shared dump.
        let a = DumpFiles::of("/proc/sys/kernel/hostname");
        let b = DumpFiles::of("/proc/sys/fs/hostname");
        assert!(a.place() == Place::WorkingDirectory && b.place() == Place::WorkingDirectory);
        assert_eq!(a.plan().parent(), Some(Path::new("")));
        assert!(a.plan().to_string_lossy().starts_with("hostname."));
        assert_ne!(a.plan(), b.plan(), "same name, other directory");
        assert_eq!(a, DumpFiles::of("/proc/sys/kernel/hostname"), "stable");
    }

    #[test]
    fn with_nowhere_writable_the_files_go_to_the_data_home_and_say_so() {
        let data = PathBuf::from("/home/u/.local/share/skope/plans");
        let files = DumpFiles::placed("/shared/r0/m.txt", [false, false], Some(data.clone()));
        assert_eq!(files.place(), Place::DataHome);
        assert_eq!(files.plan().parent(), Some(data.as_path()));
        let plan = files.plan().to_string_lossy().into_owned();
        assert!(
            plan.starts_with("/home/u/.local/share/skope/plans/m.txt."),
            "{plan}"
        );
        assert!(files.where_kept().unwrap().contains("skope/plans"));
        // Same name in another folder: another file.
        let other = DumpFiles::placed("/shared/r1/m.txt", [false, false], Some(data));
        assert_ne!(other.plan(), files.plan());
        // Without a data home, the working directory is still named (its write fails, said).
        let nowhere = DumpFiles::placed("/shared/r0/m.txt", [false, false], None);
        assert_eq!(nowhere.place(), Place::WorkingDirectory);
        assert!(
            DumpFiles::placed("m.txt", [true, true], None)
                .where_kept()
                .is_none()
        );
    }
}
