//! Finding the profile files under whatever path the user gives.
//!
//! Accepted: a CSV file, a profiler database or a `trace_view.json`; an
//! `ASCEND_PROFILER_OUTPUT` or `mindstudio_profiler_output` directory; a `PROF_*` directory; a
//! `*_ascend_pt` / `*_ascend_ms` directory (its `ASCEND_PROFILER_OUTPUT` first, else its
//! `PROF_*`'s msprof export); a directory holding several of those (one per rank); and a
//! directory holding `no_sk_model` and `sk_model`, as the SuperKernel profiling sample writes
//! them. Where a run has both, the kernel CSVs are read before a database (`msprof_*.db` sits
//! beside newer text exports), and a database before `trace_view.json`; databases are told
//! apart by their names as the Ascend tools tell them. Facts: reference/profiling_and_dumps.md
//! §1.1, §6; reference/ascend_superkernel.md §6; reference/profiler_db.md §1, §3.

use super::database::Flavour;
use super::error::{ProfileError, RankChoice};
use std::path::{Path, PathBuf};

/// The directory name of the run without SuperKernel in the official comparison sample.
pub const BASE_DIR: &str = "no_sk_model";
/// The directory name of the run with SuperKernel in the official comparison sample.
pub const NEW_DIR: &str = "sk_model";

/// Which kernel file a profile has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelForm {
    /// `kernel_details.csv` (Ascend PyTorch / MindSpore profiler).
    KernelDetails,
    /// `op_summary_*.csv` (msprof export; several slices are read in turn).
    OpSummary,
    /// `task_time_*.csv` (msprof export): kernel names, task types, streams, starts and
    /// durations, no op types (they come from the kernel names).
    TaskTime,
    /// A profiler database (`ascend_pytorch_profiler*.db`, `ascend_mindspore_profiler*.db`,
    /// `msprof_*.db`, or an SQLite file given by name).
    Database,
    /// `trace_view.json` (no op types, no accelerator cores).
    TraceView,
}

impl KernelForm {
    /// Every form.
    pub const ALL: [KernelForm; 5] = [
        KernelForm::KernelDetails,
        KernelForm::OpSummary,
        KernelForm::TaskTime,
        KernelForm::Database,
        KernelForm::TraceView,
    ];

    /// The form whose [`KernelForm::words`] are `words`.
    pub fn named(words: &str) -> Option<KernelForm> {
        KernelForm::ALL.into_iter().find(|f| f.words() == words)
    }

    /// In words (a digest records the form by them).
    pub fn words(self) -> &'static str {
        match self {
            KernelForm::KernelDetails => "kernel_details.csv",
            KernelForm::OpSummary => "op_summary.csv",
            KernelForm::TaskTime => "task_time.csv",
            KernelForm::Database => "a profiler database",
            KernelForm::TraceView => "trace_view.json",
        }
    }

    /// True for the CSV forms.
    pub fn is_csv(self) -> bool {
        matches!(
            self,
            KernelForm::KernelDetails | KernelForm::OpSummary | KernelForm::TaskTime
        )
    }
}

/// The files of one profile (one rank of one run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFiles {
    /// The directory (or file) they were found from.
    pub root: PathBuf,
    /// `op_statistic*.csv`, slices in name order (empty for Level0 profiles).
    pub op_statistic: Vec<PathBuf>,
    /// `kernel_details.csv`, or `op_summary*.csv` slices in name order.
    pub kernels: Vec<PathBuf>,
    /// Which form `kernels` holds, when any.
    pub kernel_form: Option<KernelForm>,
    /// What discovery has to say: which of several files was read, what a database's name
    /// says it is.
    pub notes: Vec<String>,
    /// For a digest (`root`), the profile it was made from, where it was on its node; its
    /// kernel form is that profile's.
    pub origin: Option<PathBuf>,
}

impl ProfileFiles {
    fn empty(root: &Path) -> ProfileFiles {
        ProfileFiles {
            root: root.to_path_buf(),
            op_statistic: Vec::new(),
            kernels: Vec::new(),
            kernel_form: None,
            notes: Vec::new(),
            origin: None,
        }
    }

    /// Where the profile was written: its root, or the profile a digest was made from.
    pub fn profile_root(&self) -> &Path {
        self.origin.as_deref().unwrap_or(&self.root)
    }

    /// True when the kernels are CSVs, or the op statistic is.
    fn has_csv(&self) -> bool {
        !self.op_statistic.is_empty() || self.kernel_form.is_some_and(KernelForm::is_csv)
    }

    /// True when neither an op statistic nor a kernel file was found.
    pub fn is_empty(&self) -> bool {
        self.op_statistic.is_empty() && self.kernels.is_empty()
    }
}

/// One rank of a run with several.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rank {
    /// The rank: from `profiler_info_<N>.json`, a `rank<N>` / `rank-<N>` / `device_<N>` name,
    /// else its position in name order.
    pub rank: u32,
    /// Its files.
    pub files: ProfileFiles,
}

/// What a path holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// One profile.
    One(ProfileFiles),
    /// One profile per rank, by rank.
    Ranks(Vec<Rank>),
    /// A run without SuperKernel (`no_sk_model`) and one with (`sk_model`).
    Pair {
        /// What `no_sk_model` holds.
        base: Box<Found>,
        /// What `sk_model` holds.
        new: Box<Found>,
    },
}

impl Found {
    /// The ranks to choose from, when there are several.
    pub fn ranks(&self) -> Vec<RankChoice> {
        match self {
            Found::Ranks(ranks) => ranks
                .iter()
                .map(|r| RankChoice {
                    rank: r.rank,
                    path: r.files.root.clone(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The one profile: the only one, or rank `rank` of several. `path` names the input in
    /// errors.
    pub fn pick(&self, rank: Option<u32>, path: &Path) -> Result<ProfileFiles, ProfileError> {
        match self {
            Found::One(files) => Ok(files.clone()),
            Found::Ranks(ranks) => match rank {
                None => Err(ProfileError::SeveralRanks {
                    path: path.to_path_buf(),
                    ranks: self.ranks(),
                }),
                Some(n) => ranks
                    .iter()
                    .find(|r| r.rank == n)
                    .map(|r| r.files.clone())
                    .ok_or_else(|| ProfileError::NoSuchRank {
                        path: path.to_path_buf(),
                        rank: n,
                        ranks: self.ranks(),
                    }),
            },
            Found::Pair { .. } => Err(ProfileError::Pairing {
                path: path.to_path_buf(),
                message: format!(
                    "holds both {BASE_DIR} and {NEW_DIR}: give it alone, as BASE, to compare \
                     them"
                ),
            }),
        }
    }
}

const LOOKED_FOR: &str = "op_statistic*.csv, kernel_details.csv, op_summary*.csv, task_time*.csv, a profiler \
                          database (ascend_pytorch_profiler*.db, ascend_mindspore_profiler*.db, \
                          msprof_*.db), trace_view.json or skope digests (*.skd), directly or under \
                          ASCEND_PROFILER_OUTPUT, PROF_*/mindstudio_profiler_output, \
                          *_ascend_pt / *_ascend_ms, or no_sk_model + sk_model";

/// What `path` holds.
pub fn discover(path: &Path) -> Result<Found, ProfileError> {
    let meta = std::fs::metadata(path).map_err(|error| ProfileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    if meta.is_file() {
        return file(path).map(Found::One);
    }
    let not_found = || ProfileError::NotFound {
        path: path.to_path_buf(),
        looked_for: LOOKED_FOR,
    };
    let (base, new) = (path.join(BASE_DIR), path.join(NEW_DIR));
    if base.is_dir() && new.is_dir() {
        return Ok(Found::Pair {
            base: Box::new(discover(&base)?),
            new: Box::new(discover(&new)?),
        });
    }
    // A profile's own files before any digest written beside them.
    if let Some(files) = profile_dir(path)? {
        return Ok(Found::One(files));
    }
    let mut ranks = Vec::new();
    for child in subdirs(path)? {
        if is_run_dir(&child)
            && let Some(files) = profile_dir(&child)?
        {
            ranks.push((rank_of(&child), files));
        }
    }
    // The ranks' own folders before any digest written beside them, too.
    if ranks.is_empty()
        && let Some(found) = digests_in(path)?
    {
        return Ok(found);
    }
    match ranks.len() {
        0 => Err(not_found()),
        1 => Ok(Found::One(ranks.remove(0).1)),
        _ => Ok(Found::Ranks(number(ranks))),
    }
}

/// The profile a digest stands for: its rows are its kernels, its header its op statistic.
fn digest_file(path: &Path) -> Result<ProfileFiles, ProfileError> {
    let header = super::digest::format::header(path)?;
    let mut files = ProfileFiles::empty(path);
    if header.source.kernel_form.is_some() {
        files.kernels.push(path.to_path_buf());
    }
    files.kernel_form = header
        .source
        .kernel_form
        .as_deref()
        .and_then(KernelForm::named);
    files.notes = header.discovery_notes;
    files.origin = Some(PathBuf::from(header.source.root));
    Ok(files)
}

/// The digests directly in `dir` (`*.skd`), each with the rank its header names; `None` when
/// it holds none.
fn digests_in(dir: &Path) -> Result<Option<Found>, ProfileError> {
    let paths = entries(dir, |p| {
        p.is_file()
            && p.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(super::digest::format::EXTENSION))
    })?;
    let mut ranks = Vec::new();
    for path in paths {
        let rank = super::digest::format::header(&path)?.source.rank;
        ranks.push((rank, digest_file(&path)?));
    }
    Ok(match ranks.len() {
        0 => None,
        1 => Some(Found::One(ranks.remove(0).1)),
        _ => Some(Found::Ranks(number(ranks))),
    })
}

/// Ranks in order; names without a number, or clashing numbers, get their position.
fn number(ranks: Vec<(Option<u32>, ProfileFiles)>) -> Vec<Rank> {
    let mut numbers: Vec<Option<u32>> = ranks.iter().map(|r| r.0).collect();
    let clash = numbers.iter().any(Option::is_none)
        || (1..numbers.len()).any(|i| numbers[..i].contains(&numbers[i]));
    if clash {
        numbers = (0..ranks.len() as u32).map(Some).collect();
    }
    let mut out: Vec<Rank> = ranks
        .into_iter()
        .zip(numbers)
        .map(|((_, files), n)| Rank {
            rank: n.unwrap_or(0),
            files,
        })
        .collect();
    out.sort_by_key(|r| r.rank);
    out
}

/// A run directory of one rank: `*_ascend_pt`, `*_ascend_ms`, `PROF_*`, or one that holds an
/// `ASCEND_PROFILER_OUTPUT`.
fn is_run_dir(dir: &Path) -> bool {
    let name = dir_name(dir);
    name.ends_with("_ascend_pt")
        || name.ends_with("_ascend_ms")
        || name.starts_with("PROF_")
        || dir.join("ASCEND_PROFILER_OUTPUT").is_dir()
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The rank of one profile, when its directory (or the run directory holding it) tells.
pub fn rank_of_root(root: &Path) -> Option<u32> {
    root.ancestors().take(3).find_map(rank_of)
}

/// The rank of a run directory, when its files or name tell.
fn rank_of(dir: &Path) -> Option<u32> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(rest) = name.strip_prefix("profiler_info_")
                && let Some(n) = rest.strip_suffix(".json")
                && let Ok(n) = n.parse()
            {
                return Some(n);
            }
        }
    }
    let name = dir_name(dir).to_ascii_lowercase();
    for key in ["rank", "device"] {
        if let Some(at) = name.find(key) {
            let digits: String = name[at + key.len()..]
                .trim_start_matches(['-', '_'])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

/// The profile files of one run directory, in the order the reference gives: its
/// `ASCEND_PROFILER_OUTPUT`, the files directly in it, its msprof export; CSVs wherever they
/// are before a database or trace anywhere.
fn profile_dir(dir: &Path) -> Result<Option<ProfileFiles>, ProfileError> {
    let mut places = Vec::new();
    let output = dir.join("ASCEND_PROFILER_OUTPUT");
    if output.is_dir() {
        places.push(profile_files(&output)?);
    }
    places.push(profile_files(dir)?);
    let export = dir.join("mindstudio_profiler_output");
    if export.is_dir() {
        let (files, database) = profile_files(&export)?;
        let root = dir.to_path_buf();
        places.push((ProfileFiles { root, ..files }, database));
    }
    let database = places.iter().find_map(|p| p.1.clone());
    if let Some(i) = places.iter().position(|p| p.0.has_csv()) {
        let mut files = places.swap_remove(i).0;
        if let Some(db) = database {
            files.notes.push(format!(
                "read the CSVs; the profiler database {} is here too (give it alone to read it)",
                crate::text::sanitize(&db.to_string_lossy())
            ));
        }
        return Ok(Some(files));
    }
    if let Some(i) = places.iter().position(|p| !p.0.is_empty()) {
        return Ok(Some(places.swap_remove(i).0));
    }
    // A *_ascend_pt directory without ASCEND_PROFILER_OUTPUT: its PROF_* export.
    let mut found = None;
    for child in subdirs(dir)? {
        if dir_name(&child).starts_with("PROF_")
            && let Some(files) = profile_dir(&child)?
        {
            if found.is_some() {
                // Several PROF_ directories are several ranks: the caller lists them.
                return Ok(None);
            }
            found = Some(ProfileFiles {
                root: dir.to_path_buf(),
                ..files
            });
        }
    }
    Ok(found)
}

fn subdirs(dir: &Path) -> Result<Vec<PathBuf>, ProfileError> {
    entries(dir, Path::is_dir)
}

/// The paths in `dir` that `keep` keeps, in name order.
fn entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Result<Vec<PathBuf>, ProfileError> {
    let entries = std::fs::read_dir(dir).map_err(|error| ProfileError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| keep(p))
        .collect();
    out.sort();
    Ok(out)
}

/// What kind of profile CSV a file name says it is.
fn kind_of(name: &str) -> Option<Kind> {
    let lower = name.to_ascii_lowercase();
    if !lower.ends_with(".csv") {
        return None;
    }
    if lower.starts_with("op_statistic") {
        Some(Kind::OpStatistic)
    } else if lower.starts_with("kernel_details") {
        Some(Kind::KernelDetails)
    } else if lower.starts_with("op_summary") {
        Some(Kind::OpSummary)
    } else if lower.starts_with("task_time") {
        Some(Kind::TaskTime)
    } else {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    OpStatistic,
    KernelDetails,
    OpSummary,
    TaskTime,
}

/// The trace a text export writes.
const TRACE_VIEW: &str = "trace_view.json";

/// The profile files directly in `dir`: its CSVs, else its profiler database, else its
/// trace_view.json; and the database when there is one.
fn profile_files(dir: &Path) -> Result<(ProfileFiles, Option<PathBuf>), ProfileError> {
    let entries = std::fs::read_dir(dir).map_err(|error| ProfileError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut names: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    let mut files = ProfileFiles::empty(dir);
    let mut summaries = Vec::new();
    let mut task_times = Vec::new();
    let mut framework_db = None;
    let mut trace = None;
    for path in &names {
        let name = dir_name(path);
        match kind_of(&name) {
            Some(Kind::OpStatistic) => files.op_statistic.push(path.clone()),
            Some(Kind::KernelDetails) => {
                files.kernels = vec![path.clone()];
                files.kernel_form = Some(KernelForm::KernelDetails);
            }
            Some(Kind::OpSummary) => summaries.push(path.clone()),
            Some(Kind::TaskTime) => task_times.push(path.clone()),
            None => {}
        }
        match Flavour::of(&name) {
            // The framework's database wins over msprof's, as MindStudio Insight has it.
            Some((Flavour::TorchNpu | Flavour::MindSpore, _)) if framework_db.is_none() => {
                framework_db = Some(path.clone());
            }
            _ => {}
        }
        if name == TRACE_VIEW {
            trace = Some(path.clone());
        }
    }
    let msprof_db =
        super::database::newest_msprof(names.iter().filter_map(|p| p.file_name()?.to_str()))
            .map(|n| dir.join(n));
    let database = framework_db.or(msprof_db);
    if files.kernels.is_empty() && !summaries.is_empty() {
        files.kernels = summaries;
        files.kernel_form = Some(KernelForm::OpSummary);
    }
    // The task times only when nothing with op types is there.
    if files.kernels.is_empty() && !task_times.is_empty() {
        files.kernels = task_times;
        files.kernel_form = Some(KernelForm::TaskTime);
    }
    if files.kernels.is_empty() {
        if let Some(db) = &database {
            files.kernels = vec![db.clone()];
            files.kernel_form = Some(KernelForm::Database);
        } else if let Some(trace) = trace {
            files.kernels = vec![trace];
            files.kernel_form = Some(KernelForm::TraceView);
        }
    }
    Ok((files, database))
}

/// One CSV file: its name says what it is, else its header does.
fn file(path: &Path) -> Result<ProfileFiles, ProfileError> {
    let root = path.to_path_buf();
    let name = dir_name(path);
    if super::digest::format::is_digest(path) {
        return digest_file(path);
    }
    if super::database::is_database(path) {
        let mut files = ProfileFiles::empty(&root);
        files.kernels.push(root);
        files.kernel_form = Some(KernelForm::Database);
        files.notes.push(match Flavour::of(&name) {
            Some((flavour, _)) => format!("read as a {}", flavour.label()),
            None => format!(
                "{}: not named as a profiler writes its database (ascend_pytorch_profiler*.db, \
                 ascend_mindspore_profiler*.db, msprof_*.db): read as one",
                crate::text::sanitize(&name)
            ),
        });
        return Ok(files);
    }
    if name.to_ascii_lowercase().ends_with(".json") {
        let mut files = ProfileFiles::empty(&root);
        files.kernels.push(root);
        files.kernel_form = Some(KernelForm::TraceView);
        return Ok(files);
    }
    let kind = match kind_of(&name) {
        Some(kind) => kind,
        None => sniff(path)?,
    };
    let mut files = ProfileFiles::empty(&root);
    match kind {
        Kind::OpStatistic => files.op_statistic.push(root),
        Kind::KernelDetails => {
            files.kernels.push(root);
            files.kernel_form = Some(KernelForm::KernelDetails);
        }
        Kind::OpSummary => {
            files.kernels.push(root);
            files.kernel_form = Some(KernelForm::OpSummary);
        }
        Kind::TaskTime => {
            files.kernels.push(root);
            files.kernel_form = Some(KernelForm::TaskTime);
        }
    }
    Ok(files)
}

/// Tells an op statistic from a kernel file by its header.
fn sniff(path: &Path) -> Result<Kind, ProfileError> {
    let table = super::columns::Table::open(path)?;
    let h = table.header();
    use super::columns::Col;
    if h.get(Col::TotalTime).is_some() && h.get(Col::Count).is_some() {
        Ok(Kind::OpStatistic)
    } else if h.get(Col::Duration).is_some() && h.get(Col::Name).is_some() {
        Ok(
            if h.get(Col::AcceleratorCore).is_some() && h.names().iter().any(|n| n == "Type") {
                Kind::KernelDetails
            } else {
                Kind::OpSummary
            },
        )
    } else {
        Err(ProfileError::NotFound {
            path: path.to_path_buf(),
            looked_for: "the header of op_statistic.csv (OP Type, Core Type, Count, Total Time) \
                         or of kernel_details.csv / op_summary.csv (Name, Type, Duration)",
        })
    }
}

/// The `profiler_info*.json` files torch_npu writes beside a profile, looked for in `root` and
/// the folders above it up to the `*_ascend_pt` one, nearest first: what [`profiler_level`]
/// reads, and so what a command reading a profile must never write over.
pub fn profiler_infos(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in root.ancestors().take(4) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut here: Vec<PathBuf> = entries
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with("profiler_info") && name.ends_with(".json")
            })
            .map(|entry| entry.path())
            .collect();
        here.sort();
        found.extend(here);
    }
    found
}

/// The profiler level of the profile found from `root` (`Level0`, `Level1`, `Level2`…) as
/// torch_npu's `profiler_info*.json` records it (`config.experimental_config._profiler_level`),
/// from the first of [`profiler_infos`] that says; `None` when none does.
pub fn profiler_level(root: &Path) -> Option<String> {
    const MAX_INFO: u64 = 4 << 20;
    for info in profiler_infos(root) {
        let small = std::fs::metadata(&info).is_ok_and(|m| m.is_file() && m.len() <= MAX_INFO);
        let Some(text) = small.then(|| std::fs::read_to_string(&info).ok()).flatten() else {
            continue;
        };
        let level = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| {
                v.pointer("/config/experimental_config/_profiler_level")?
                    .as_str()
                    .map(|s| crate::text::sanitize(s).into_owned())
            });
        if level.is_some() {
            return level;
        }
    }
    None
}
