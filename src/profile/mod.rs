//! Profiles with and without SuperKernel, compared.
//!
//! [`discover`] finds the files under any path the profilers write (a file, an
//! `ASCEND_PROFILER_OUTPUT`, `PROF_*` or `*_ascend_pt` directory, ranks, or the sample's
//! `no_sk_model` + `sk_model`); [`op_statistic`] and [`kernels`] read them ([`columns`] maps the
//! headers of every variant); [`diff`] compares by op type, [`attribution`] splits the change
//! into the fused part and the rest, and [`per_op`] joins kernels to the plan's segments and
//! ranks the breaks. [`output`] prints the result. Plain functions over plain data: no terminal.

pub mod account;
pub mod attribution;
pub mod columns;
pub mod database;
pub mod diff;
pub mod digest;
pub mod discover;
pub mod error;
pub mod figures;
pub mod fused_name;
pub mod kernels;
pub mod names;
pub mod op_statistic;
pub mod output;
pub mod payoff;
pub mod per_op;
pub mod planned;
pub mod ranks;
pub mod records;
pub mod regression;
pub mod repeats;
pub mod row;
pub mod runs;
pub mod spread;
pub mod step_ranges;
pub mod steps;
pub mod timeline;
pub mod trace_out;
pub mod trace_view;

pub use attribution::{Attribution, Basis, FusedEvidence, FusedType, Part};
pub use diff::{Diff, DiffRow, RowStatus, Side, by_type, diff};
pub use discover::{Found, KernelForm, ProfileFiles, Rank, discover};
pub use error::{ProfileError, RankChoice};
pub use kernels::{KernelReader, KernelRow, KernelStat, KernelTable};
pub use op_statistic::{OpStatistic, TypeStat};
pub use per_op::{BreakCost, OpTime, PerOp, SegmentTime};
pub use planned::{PlannedBreak, PlannedFusion, PlannedOp, PlannedSegment};

use std::path::Path;

/// The sum of `values`, starting from +0: an empty sum is `0`, never `-0` (which is what
/// `Iterator::sum` gives for floats, and what would print as `-0.00`).
pub(crate) fn total(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |a, b| a + b)
}

/// One profile, read.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Where it was read from.
    pub files: ProfileFiles,
    /// Time by op type and core type.
    pub stats: OpStatistic,
    /// True when `stats` was added up from the kernel file (the profile has no op statistic).
    pub stats_from_kernels: bool,
    /// The kernels, when the profile has a kernel file.
    pub kernels: Option<KernelTable>,
    /// Every kernel run with its exact times, when the profile has a kernel file.
    pub runs: Option<runs::Runs>,
    /// What finding and reading its files had to say: which of several was read, how a
    /// database was opened, how steps were found, what a trace cannot give.
    pub notes: Vec<String>,
    /// Its profiler level (`Level0`, `Level1`…), when the profile's `profiler_info*.json`
    /// says: a level is named only when known.
    pub level: Option<String>,
}

impl Profile {
    /// Its steps: as the kernel file's `Step Id` says, else one.
    pub fn step_count(&self) -> usize {
        self.runs.as_ref().map_or(1, |r| r.steps().len().max(1))
    }
}

impl Profile {
    /// Reads `files`. When the op statistic holds several devices, `device` picks one (without
    /// it, the error lists them).
    pub fn load(files: ProfileFiles, device: Option<u32>) -> Result<Profile, ProfileError> {
        Profile::load_within(files, device, crate::memory::available())
    }

    /// [`Profile::load`] within `free_memory` bytes (`None`: no limit).
    pub fn load_within(
        files: ProfileFiles,
        device: Option<u32>,
        free_memory: Option<u64>,
    ) -> Result<Profile, ProfileError> {
        let (kernels, runs) = if files.kernels.is_empty() {
            (None, None)
        } else {
            let (table, runs) = runs::Runs::read(&files.kernels, free_memory)?;
            (Some(table), Some(runs))
        };
        let digested = match files.origin {
            Some(_) => Some(digest::header(&files.root)?),
            None => None,
        };
        let stats = match &digested {
            Some(header) => header.op_statistic(),
            None => read_op_statistic(&files, device)?,
        };
        let (stats, from_kernels) = match (stats, &kernels) {
            (Some(stats), _) => (stats, false),
            (None, Some(k)) => (k.type_statistic(), true),
            (None, None) => {
                return Err(ProfileError::NotFound {
                    path: files.root.clone(),
                    looked_for: "op_statistic*.csv, kernel_details.csv, op_summary*.csv, a \
                                 profiler database or trace_view.json",
                });
            }
        };
        let mut notes = files.notes.clone();
        if let Some(k) = &kernels {
            notes.extend(k.notes.iter().cloned());
        }
        let level = match digested {
            Some(header) => header.source.level,
            None => discover::profiler_level(&files.root),
        };
        Ok(Profile {
            files,
            stats,
            stats_from_kernels: from_kernels,
            kernels,
            runs,
            notes,
            level,
        })
    }

    /// Finds and reads the profile under `path` (rank `rank` when it holds several).
    pub fn open(path: &Path, rank: Option<u32>) -> Result<Profile, ProfileError> {
        let found = discover(path)?;
        let several = matches!(found, Found::Ranks(_));
        let files = found.pick(rank, path)?;
        Profile::load(files, if several { None } else { rank })
    }
}

/// The op statistic of `files`, when they have one. When it holds several devices, `device`
/// picks one (without it, the error lists them).
pub fn read_op_statistic(
    files: &ProfileFiles,
    device: Option<u32>,
) -> Result<Option<OpStatistic>, ProfileError> {
    if files.op_statistic.is_empty() {
        return Ok(None);
    }
    let stats = op_statistic::read_files(&files.op_statistic, None)?;
    if stats.devices.len() <= 1 {
        return Ok(Some(stats));
    }
    let path = files.op_statistic[0].clone();
    let ranks: Vec<RankChoice> = stats
        .devices
        .iter()
        .filter_map(|d| d.parse().ok())
        .map(|rank| RankChoice {
            rank,
            path: path.clone(),
        })
        .collect();
    match device {
        None => Err(ProfileError::SeveralRanks { path, ranks }),
        Some(d) if !ranks.iter().any(|r| r.rank == d) => Err(ProfileError::NoSuchRank {
            path,
            rank: d,
            ranks,
        }),
        Some(d) => op_statistic::read_files(&files.op_statistic, Some(&d.to_string())).map(Some),
    }
}

/// A profile without SuperKernel (base) and one with (new).
#[derive(Debug, Clone)]
pub struct Pair {
    /// Without SuperKernel.
    pub base: Profile,
    /// With SuperKernel.
    pub new: Profile,
}

/// What the two sides of a pair hold, found once: a rank is then picked on each as often as
/// asked, without looking at the files again.
#[derive(Debug, Clone)]
pub struct Sides {
    base: (Found, std::path::PathBuf),
    new: (Found, std::path::PathBuf),
}

impl Sides {
    /// Finds the two sides: `base` and `new`, or, with `new` absent, a directory `base`
    /// holding `no_sk_model` and `sk_model`.
    pub fn find(base: &Path, new: Option<&Path>) -> Result<Sides, ProfileError> {
        let (b, n, nb, nn) = found_pair(base, new)?;
        Ok(Sides {
            base: (b, nb),
            new: (n, nn),
        })
    }

    /// The path that names the pair in errors: the base's.
    pub fn path(&self) -> &Path {
        &self.base.1
    }

    /// Reads rank `rank` of the sides (`None`: the one pair) within the memory free now.
    pub fn load(&self, rank: Option<u32>) -> Result<Pair, ProfileError> {
        load_picked_within(self.pick(rank)?, rank, crate::memory::available())
    }

    /// The ranks the sides hold, when they hold several.
    pub fn ranks(&self) -> Result<Option<Vec<u32>>, ProfileError> {
        match self.pick(None) {
            Ok(_) => Ok(None),
            Err(ProfileError::SeveralRanks { ranks, .. }) => {
                Ok(Some(ranks.iter().map(|r| r.rank).collect()))
            }
            Err(e) => Err(e),
        }
    }

    /// The files of each side, rank `rank` of several (and whether either has several).
    pub fn pick(
        &self,
        rank: Option<u32>,
    ) -> Result<(ProfileFiles, ProfileFiles, bool), ProfileError> {
        let several =
            matches!(self.base.0, Found::Ranks(_)) || matches!(self.new.0, Found::Ranks(_));
        Ok((
            self.base.0.pick(rank, &self.base.1)?,
            self.new.0.pick(rank, &self.new.1)?,
            several,
        ))
    }
}

/// Finds the files of the pair: `base` and `new`, or, with `new` absent, a directory `base`
/// holding `no_sk_model` and `sk_model`. With several ranks, `rank` picks one on each side.
pub fn locate_pair(
    base: &Path,
    new: Option<&Path>,
    rank: Option<u32>,
) -> Result<(ProfileFiles, ProfileFiles, bool), ProfileError> {
    Sides::find(base, new)?.pick(rank)
}

/// What each side holds, and the path each names in errors.
fn found_pair(
    base: &Path,
    new: Option<&Path>,
) -> Result<(Found, Found, std::path::PathBuf, std::path::PathBuf), ProfileError> {
    let found = discover(base)?;
    let (b, n, nb, nn) = match (found, new) {
        (Found::Pair { base: b, new: n }, None) => {
            let (nb, nn) = (base.join(discover::BASE_DIR), base.join(discover::NEW_DIR));
            (*b, *n, nb, nn)
        }
        (Found::Pair { .. }, Some(_)) => {
            return Err(ProfileError::Pairing {
                path: base.to_path_buf(),
                message: format!(
                    "holds both {} and {}, and NEW was given too: give the directory alone, or \
                     BASE and NEW",
                    discover::BASE_DIR,
                    discover::NEW_DIR
                ),
            });
        }
        (_, None) => {
            return Err(ProfileError::Pairing {
                path: base.to_path_buf(),
                message: format!(
                    "is one profile and NEW is missing (only a directory holding {} and {} \
                     stands alone)",
                    discover::BASE_DIR,
                    discover::NEW_DIR
                ),
            });
        }
        (found, Some(new)) => (found, discover(new)?, base.to_path_buf(), new.to_path_buf()),
    };
    Ok((b, n, nb, nn))
}

/// Finds and reads both profiles (see [`locate_pair`]) within the memory free now.
pub fn load_pair(base: &Path, new: Option<&Path>, rank: Option<u32>) -> Result<Pair, ProfileError> {
    load_pair_within(base, new, rank, crate::memory::available())
}

/// [`load_pair`] within `free` bytes (`None`: no limit).
pub fn load_pair_within(
    base: &Path,
    new: Option<&Path>,
    rank: Option<u32>,
    free: Option<u64>,
) -> Result<Pair, ProfileError> {
    load_picked_within(locate_pair(base, new, rank)?, rank, free)
}

/// Each key's first place among `keyed` (places with their keys): what a list looked up by name
/// (a SuperKernel's part, its payoff, its prediction) keeps beside it, instead of being
/// searched one item after another.
pub fn first_places<K: Eq + std::hash::Hash>(
    keyed: impl IntoIterator<Item = (usize, K)>,
) -> foldhash::HashMap<K, usize> {
    let mut places = foldhash::HashMap::default();
    for (i, key) in keyed {
        places.entry(key).or_insert(i);
    }
    places
}

/// Reads the pair `picked` (rank `rank`, as [`Sides::pick`] gave it) a side after the other, as
/// one would read them, the second within what the first left of `free` bytes (`None`: no
/// limit): for when the cores are busy with other pairs already.
pub fn load_in_turn(
    (b, n, several): (ProfileFiles, ProfileFiles, bool),
    rank: Option<u32>,
    free: Option<u64>,
) -> Result<Pair, ProfileError> {
    let device = if several { None } else { rank };
    let left = || match (free, crate::memory::available()) {
        (Some(f), Some(a)) => Some(f.min(a)),
        (f, a) => f.or(a),
    };
    Ok(Pair {
        base: Profile::load_within(b, device, left())?,
        new: Profile::load_within(n, device, left())?,
    })
}

/// Reads the pair `picked` (rank `rank`, as [`Sides::pick`] gave it) within `free` bytes
/// (`None`: no limit), both sides at once when it can.
pub fn load_picked_within(
    (b, n, several): (ProfileFiles, ProfileFiles, bool),
    rank: Option<u32>,
    free: Option<u64>,
) -> Result<Pair, ProfileError> {
    let device = if several { None } else { rank };
    let in_turn = |b: ProfileFiles, n: ProfileFiles| load_in_turn((b, n, several), rank, free);
    // Both sides at once, each within half the memory free — but in turn on one core (two
    // threads would only share it, evicting each other's caches), under an address-space
    // limit (a second thread's allocator costs address space of its own), and when a side
    // needs more than its half.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 || crate::memory::address_space_limited() {
        return in_turn(b, n);
    }
    let half = free.map(|f| f / 2);
    let (from_base, from_new) = (b.clone(), n.clone());
    let both = std::thread::scope(|threads| {
        let base = threads.spawn(move || Profile::load_within(from_base, device, half));
        let new = Profile::load_within(from_new, device, half);
        let base = base.join().unwrap_or_else(|panic| {
            Err(ProfileError::Unreadable {
                path: b.root.clone(),
                what: format!(
                    "reading it failed unexpectedly ({})",
                    crate::worker::panic_message(panic.as_ref())
                ),
                hint: "a bug in skope: please report it with the profile's file names",
            })
        });
        (base, new)
    });
    match both {
        (Ok(base), Ok(new)) => Ok(Pair { base, new }),
        (Err(e), _) | (_, Err(e)) if !matches!(e, ProfileError::TooManyKernels { .. }) => Err(e),
        _ => in_turn(b, n),
    }
}
