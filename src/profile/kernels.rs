//! `kernel_details.csv` and `op_summary_*.csv`: one row per kernel run, read as a stream.
//!
//! [`KernelReader`] hands out one row at a time, borrowed from its buffer, over one file or
//! several slices in turn; nothing holds the whole file. [`KernelTable::read`] folds the rows
//! into per-name and per-type totals, so memory grows with the number of distinct kernels, not
//! with the file. Both files read the same: op_summary's names (`Op Name`, `OP Type`,
//! `Task Type`, `Task Duration(us)`…) are kernel_details' under other names; `Block Dim` is
//! `Block Num`; `N/A` is no value; start times lose their trailing tab and shapes their inner
//! quotes. Facts: reference/profiling_and_dumps.md §1.3–§1.4.

use super::columns::{Col, Fields, Table};
use super::error::ProfileError;
use super::op_statistic::{OpStatistic, TypeStat, min_opt};
use std::sync::Arc;

/// Memory a distinct kernel name costs while a profile is compared, at most: its entry in the
/// [`KernelTable`] with the hash table's slack while it grows, and the orderings built from it
/// (measured: 376 bytes per name on a 2 M-name file; see docs/PERFORMANCE.md).
pub const BYTES_PER_KERNEL: u64 = 400;

/// Memory one run costs when every run is kept beside the table (the run's 40 bytes and its
/// places in the two orders of the index; see `profile::runs`).
pub const BYTES_PER_RUN: u64 = 48;

/// The longest duration a kernel row may give, ns (10⁶ s, about 11.6 days; a step is
/// milliseconds): longer is a broken field, and sums of such would overflow.
pub const MAX_DURATION_NS: i64 = 1_000_000_000_000_000;

pub use super::row::{MAX_NAME, kept_name};
use std::fs::File;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

pub use super::row::KernelRow;

/// msprof's `Model ID` for a task of no model (u32::MAX).
const NO_MODEL: &str = "4294967295";

/// Where each column is in the current file.
#[derive(Debug, Clone, Copy)]
struct Cols {
    step: Option<usize>,
    name: usize,
    op_type: Option<usize>,
    core: Option<usize>,
    start: Option<(usize, i64)>,
    duration: (usize, i64),
    device: Option<usize>,
    model: Option<usize>,
    iteration: Option<usize>,
    wait: Option<(usize, f64)>,
    block: Option<usize>,
    shapes: Option<usize>,
    stream: Option<usize>,
    aicore: Option<(usize, f64)>,
    aiv: Option<(usize, f64)>,
}

/// Where the rows of the current file come from.
enum Source {
    Csv(Box<(Table<File>, Cols)>),
    Database(Box<super::database::DbKernels>),
    Trace(Box<super::trace_view::TraceKernels>),
    Digest(Box<super::digest::format::DigestRows>),
}

/// Reads kernel rows from one or several files (op_summary slices), one row at a time: CSVs,
/// a profiler database, a trace_view.json or a skope digest, each told by its name and first
/// bytes.
pub struct KernelReader {
    files: Vec<PathBuf>,
    next_file: usize,
    current: Option<Source>,
    notes: Vec<String>,
    /// Rows of the current CSV without a kernel name, left out.
    nameless: u64,
}

impl KernelReader {
    /// A reader over `files`, in order; each file has its own header.
    pub fn open(files: &[PathBuf]) -> KernelReader {
        KernelReader {
            files: files.to_vec(),
            next_file: 0,
            current: None,
            notes: Vec::new(),
            nameless: 0,
        }
    }

    /// The file being read, once reading has started.
    pub fn path(&self) -> Option<&Path> {
        self.current.as_ref().map(|s| match s {
            Source::Csv(csv) => csv.0.path(),
            Source::Database(db) => db.path(),
            Source::Trace(t) => t.path(),
            Source::Digest(d) => d.path(),
        })
    }

    /// What the readers of databases and traces had to say about the files read so far.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The next row, or `None` after the last row of the last file.
    pub fn next_row(&mut self) -> Result<Option<KernelRow<'_>>, ProfileError> {
        loop {
            if self.current.is_none() {
                let Some(path) = self.files.get(self.next_file) else {
                    return Ok(None);
                };
                self.next_file += 1;
                self.current = Some(open_source(path)?);
            }
            let ready = match self.current.as_mut() {
                Some(Source::Csv(csv)) => csv.0.next_row()?,
                Some(Source::Database(db)) => db.ready()?,
                Some(Source::Trace(trace)) => trace.ready(),
                Some(Source::Digest(digest)) => digest.advance()?,
                None => return Ok(None),
            };
            // A row without a kernel name (`N/A`: task_time's PROFILING_ENABLE and other
            // tasks that are no kernel) is left out.
            if ready
                && let Some(Source::Csv(csv)) = &self.current
                && super::columns::is_missing(text(&csv.0, csv.1.name)?)
            {
                self.nameless += 1;
                continue;
            }
            if ready {
                break;
            }
            match self.current.take() {
                Some(Source::Database(db)) => self.notes.extend(db.notes.iter().cloned()),
                Some(Source::Trace(trace)) => self.notes.extend(trace.notes.iter().cloned()),
                Some(Source::Digest(digest)) => self.notes.extend(digest.notes.iter().cloned()),
                Some(Source::Csv(csv)) if self.nameless > 0 => {
                    self.notes.push(format!(
                        "{}: {} row(s) without a kernel name (tasks such as PROFILING_ENABLE, \
                         not kernels) left out",
                        crate::text::sanitize(&csv.0.path().display().to_string()),
                        std::mem::take(&mut self.nameless)
                    ));
                }
                _ => {}
            }
        }
        match &mut self.current {
            // A row that lies plainly in the block is read without the table's checks; any
            // other, and any field the plain reading cannot take, the table reads.
            Some(Source::Csv(csv)) => match csv.0.plain().map(|plain| row(&plain, &csv.1)) {
                Some(Ok(row)) => Ok(Some(row)),
                _ => row(&&csv.0, &csv.1).map(Some),
            },
            Some(Source::Database(db)) => Ok(db.take()),
            Some(Source::Trace(trace)) => Ok(trace.take()),
            Some(Source::Digest(digest)) => Ok(Some(digest.row())),
            None => Ok(None),
        }
    }

    /// Hands every row to `each`, in order, until it breaks: the rows
    /// [`KernelReader::next_row`] gives, a digest's built where they are decoded and lent, not
    /// handed out one by one (a row is some 250 bytes, and a digest millions of rows).
    pub fn each_row(
        &mut self,
        mut each: impl FnMut(&KernelRow<'_>) -> ControlFlow<()>,
    ) -> Result<(), ProfileError> {
        loop {
            if let Some(Source::Digest(digest)) = &mut self.current {
                while digest.advance()? {
                    if each(&digest.row()).is_break() {
                        return Ok(());
                    }
                }
            }
            // The end of a digest, and every other source.
            match self.next_row()? {
                Some(row) if each(&row).is_break() => return Ok(()),
                Some(_) => {}
                None => return Ok(()),
            }
        }
    }
}

/// The reader of one file: a database or a digest by its first bytes, a trace by its `.json`
/// name, else a CSV.
fn open_source(path: &Path) -> Result<Source, ProfileError> {
    if super::digest::format::is_digest(path) {
        return Ok(Source::Digest(Box::new(
            super::digest::format::DigestRows::open(path)?,
        )));
    }
    if super::database::is_database(path) {
        return Ok(Source::Database(Box::new(
            super::database::DbKernels::open(path)?,
        )));
    }
    let json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if json {
        return Ok(Source::Trace(Box::new(
            super::trace_view::TraceKernels::open(path)?,
        )));
    }
    let mut table = Table::open(path)?;
    let cols = columns(&table)?;
    // The profiler's wide files end in metric columns no row needs cut apart.
    if let Some(last) = table.header().last_known() {
        table.want_columns(last + 1);
    }
    Ok(Source::Csv(Box::new((table, cols))))
}

fn columns<R: Read>(t: &Table<R>) -> Result<Cols, ProfileError> {
    let h = t.header();
    let path = t.path();
    let timed = |c: Col| h.get(c).map(|i| (i, h.scale(c)));
    Ok(Cols {
        step: h.get(Col::StepId),
        name: h.require(Col::Name, path)?,
        // task_time files have none: types come from the kernel names.
        op_type: h.get(Col::OpType),
        core: h.get(Col::AcceleratorCore),
        start: h
            .get(Col::StartTime)
            .map(|i| (i, h.unit_ns(Col::StartTime))),
        duration: (h.require(Col::Duration, path)?, h.unit_ns(Col::Duration)),
        device: h.get(Col::DeviceId),
        model: h.get(Col::ModelId),
        iteration: h.get(Col::IterationId),
        wait: timed(Col::WaitTime),
        block: h.get(Col::BlockNum),
        shapes: h.get(Col::InputShapes),
        stream: h.get(Col::StreamId),
        aicore: timed(Col::AicoreTime),
        aiv: timed(Col::AivTime),
    })
}

/// The cleaned text of field `i` of `table`'s current row, read plainly where it can be.
#[inline]
fn text<R: Read>(table: &Table<R>, i: usize) -> Result<&str, ProfileError> {
    match table.plain().map(|plain| plain.text(i)) {
        Some(Ok(text)) => Ok(text),
        _ => table.text(i),
    }
}

/// The kernel row in `t`'s fields: the same row whichever [`Fields`] reads them.
#[inline]
fn row<'t, F: Fields<'t>>(t: &F, c: &Cols) -> Result<KernelRow<'t>, F::Error> {
    let opt_text = |i: Option<usize>| -> Result<Option<&'t str>, F::Error> {
        match i {
            Some(i) => {
                let s = t.text(i)?;
                Ok((!super::columns::is_missing(s)).then_some(s))
            }
            None => Ok(None),
        }
    };
    let opt_num = |c: Option<(usize, f64)>| match c {
        Some((i, scale)) => t.number(i, scale),
        None => Ok(None),
    };
    let block_num = match c.block {
        Some(i) => match t.number(i, 1.0)? {
            Some(v) if v >= 0.0 && v.fract() == 0.0 && v <= f64::from(u32::MAX) => Some(v as u32),
            Some(_) => return Err(t.bad(i, t.text(i)?, "a block count (a whole number)")),
            None => None,
        },
        None => None,
    };
    let name = t.text(c.name)?;
    if name.is_empty() {
        return Err(t.bad(c.name, name, "a kernel name"));
    }
    let start_ns = match c.start {
        Some((i, unit)) => t.nanos(i, unit)?,
        None => None,
    };
    let duration_ns = t.nanos(c.duration.0, c.duration.1)?;
    if let Some(ns) = duration_ns.filter(|ns| !(0..=MAX_DURATION_NS).contains(ns)) {
        return Err(t.bad(
            c.duration.0,
            &format!("{}", ns as f64 / 1000.0),
            "a kernel's duration (not negative, under 10⁶ s)",
        ));
    }
    let micros = |ns: i64| ns as f64 / 1000.0;
    Ok(KernelRow {
        step: opt_text(c.step)?,
        name,
        op_type: match c.op_type {
            Some(i) => t.text(i)?,
            None => "",
        },
        core_type: match c.core {
            Some(i) => t.text(i)?,
            None => "",
        },
        start_us: start_ns.map(micros),
        duration_us: duration_ns.map(micros),
        start_ns,
        duration_ns,
        device: opt_text(c.device)?,
        // 4294967295 is msprof's "no model".
        model: opt_text(c.model)?.filter(|m| *m != NO_MODEL),
        iteration: opt_text(c.iteration)?,
        wait_us: opt_num(c.wait)?,
        block_num,
        input_shapes: opt_text(c.shapes)?,
        stream: opt_text(c.stream)?,
        core_us: match opt_num(c.aicore)? {
            Some(us) if us > 0.0 => Some(us),
            _ => opt_num(c.aiv)?,
        },
    })
}

/// The runs of one kernel name, added up.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelStat {
    /// Its op type (shared: a profile has a few dozen types and millions of kernels).
    pub op_type: Arc<str>,
    /// Its core type (shared too).
    pub core_type: Arc<str>,
    /// Runs with a duration.
    pub count: u64,
    /// Their total time in µs.
    pub total_us: f64,
    /// Their total wait time (the gap before each launch) in µs.
    pub wait_us: f64,
    /// The earliest start time, in µs, when the file gives start times.
    pub first_start_us: Option<f64>,
    /// The largest block count seen.
    pub block_num: Option<u32>,
    /// The order in which the name first appeared in the files.
    pub seen: usize,
    /// The shortest run, in µs.
    pub min_us: f64,
    /// The longest run, in µs.
    pub max_us: f64,
}

/// The kernels of one profile, added up by name and by type; built from a stream of rows.
#[derive(Debug, Clone, Default)]
pub struct KernelTable {
    /// The kernel names, looked up for every row (the name after the last one first).
    names: super::names::Names,
    /// Each name's runs, by its id.
    stats: Vec<KernelStat>,
    /// Every op and core type seen, each kept once.
    types: foldhash::HashSet<Arc<str>>,
    /// Rows read.
    pub rows: u64,
    /// Rows without a duration (`N/A`), not counted in any time.
    pub without_duration: u64,
    /// Kernel names without an op type (`Type` is `N/A` in Level0 files), whose type is taken
    /// from the name (see [`type_from_name`]).
    pub types_from_names: u64,
    /// What the readers of databases and traces said (how a file was opened, how its steps
    /// were found, what it cannot give).
    pub notes: Vec<String>,
}

/// Where a `_<32 hex digits>` part (followed by `_` or the end) starts in `name`, after a
/// non-empty head.
fn hash_at(name: &str) -> Option<usize> {
    let bytes = name.as_bytes();
    (1..bytes.len()).find(|&at| {
        bytes[at] == b'_'
            && bytes
                .get(at + 1..at + 33)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
            && matches!(bytes.get(at + 33), None | Some(b'_'))
    })
}

/// The op type a kernel name stands for when the file gives none: the name without its index
/// suffixes (`trans_TransData_0` → `trans_TransData`, `MatMul_12_3` → `MatMul`).
pub fn type_from_name(name: &str) -> &str {
    // msprof's binary names: `<OpType>_<32 hex digits>_high_performance_<n>` (and the like).
    if let Some(at) = hash_at(name) {
        return &name[..at];
    }
    let mut rest = name;
    while let Some((head, index)) = rest.rsplit_once('_') {
        if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) || head.is_empty() {
            break;
        }
        rest = head.trim_end_matches('_');
        if rest.is_empty() {
            return name;
        }
    }
    rest
}

impl KernelTable {
    /// Reads `files` (kernel_details.csv, or op_summary slices in order) as a stream, within
    /// the memory free now.
    pub fn read(files: &[PathBuf]) -> Result<KernelTable, ProfileError> {
        KernelTable::read_within(files, crate::memory::available())
    }

    /// [`KernelTable::read`] with `free_memory` bytes to use (`None`: no limit): the table
    /// grows with the distinct kernel names (about [`BYTES_PER_KERNEL`] each), and reading
    /// stops with an error before it would outgrow the memory.
    pub fn read_within(
        files: &[PathBuf],
        free_memory: Option<u64>,
    ) -> Result<KernelTable, ProfileError> {
        Self::read_keeping(files, free_memory, |_, _| 0)
    }

    /// Reads `files` as [`KernelTable::read_within`] does, handing each row with a duration to
    /// `keep` too, with its name's id in the table, which keeps what it wants of it and says how
    /// many runs it holds (each costing [`BYTES_PER_RUN`] in the memory check).
    pub fn read_keeping(
        files: &[PathBuf],
        free_memory: Option<u64>,
        mut keep: impl FnMut(&KernelRow<'_>, u32) -> usize,
    ) -> Result<KernelTable, ProfileError> {
        let mut reader = KernelReader::open(files);
        let mut table = KernelTable::default();
        let bytes = |names: usize, kept: usize| {
            names as u64 * BYTES_PER_KERNEL + kept as u64 * BYTES_PER_RUN
        };
        let mut kept = 0;
        let mut too_many = false;
        reader.each_row(|row| {
            if let Some(name) = table.add(row) {
                kept = keep(row, name);
            }
            too_many = free_memory.is_some_and(|m| bytes(table.len(), kept) > m);
            match too_many {
                true => ControlFlow::Break(()),
                false => ControlFlow::Continue(()),
            }
        })?;
        if too_many {
            return Err(ProfileError::TooManyKernels {
                path: reader
                    .path()
                    .or(files.first().map(PathBuf::as_path))
                    .unwrap_or(Path::new("kernel_details.csv"))
                    .to_path_buf(),
                kernels: table.len(),
                runs: kept,
                available: free_memory.unwrap_or(0),
            });
        }
        table.notes = reader.notes().to_vec();
        Ok(table)
    }

    /// Adds one run; the id of its name (ids count up from 0 in the order names are first
    /// seen), `None` for a run without a duration, which no time counts.
    pub fn add(&mut self, row: &KernelRow<'_>) -> Option<u32> {
        self.rows += 1;
        let Some(duration) = row.duration_us else {
            self.without_duration += 1;
            return None;
        };
        let wait = row.wait_us.unwrap_or(0.0);
        // A name longer than any real kernel's is kept cut (its start, end and hash).
        let cut = crate::text::bounded(row.name, MAX_NAME);
        let name = cut.as_deref().unwrap_or(row.name);
        if let Some(id) = self.names.find(name) {
            let s = &mut self.stats[id as usize];
            s.count += 1;
            s.total_us += duration;
            s.wait_us += wait;
            s.first_start_us = min_opt(s.first_start_us, row.start_us);
            s.block_num = s.block_num.max(row.block_num);
            s.min_us = s.min_us.min(duration);
            s.max_us = s.max_us.max(duration);
            return Some(id);
        }
        let op_type = if super::columns::is_missing(row.op_type) {
            self.types_from_names += 1;
            type_from_name(row.name)
        } else {
            row.op_type
        };
        let (op_type, core_type) = (self.shared(op_type), self.shared(row.core_type));
        let seen = self.stats.len();
        let id = self.names.id(name);
        self.stats.push(KernelStat {
            op_type,
            core_type,
            count: 1,
            total_us: duration,
            wait_us: wait,
            first_start_us: row.start_us,
            block_num: row.block_num,
            seen,
            min_us: duration,
            max_us: duration,
        });
        Some(id)
    }

    /// `text` as the shared copy of a type seen before (kept from now on when new).
    fn shared(&mut self, text: &str) -> Arc<str> {
        match self.types.get(text) {
            Some(kept) => Arc::clone(kept),
            None => {
                let kept: Arc<str> = Arc::from(kept_name(text));
                self.types.insert(Arc::clone(&kept));
                kept
            }
        }
    }

    /// The runs of kernel `name`.
    pub fn get(&self, name: &str) -> Option<&KernelStat> {
        let id = match crate::text::bounded(name, MAX_NAME) {
            Some(cut) => self.names.get(&cut),
            None => self.names.get(name),
        }?;
        self.stats.get(id as usize)
    }

    /// Every kernel name with its runs, in the order first seen.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &KernelStat)> {
        self.names
            .texts()
            .iter()
            .map(|t| t.as_ref())
            .zip(&self.stats)
    }

    /// Number of distinct kernel names.
    pub fn len(&self) -> usize {
        self.stats.len()
    }

    /// True when no kernel had a duration.
    pub fn is_empty(&self) -> bool {
        self.stats.is_empty()
    }

    /// Kernel names in execution order: by first start time when the files give it, else in
    /// order of first appearance.
    pub fn exec_order(&self) -> Vec<&str> {
        let mut names: Vec<(&str, &KernelStat)> = self.iter().collect();
        names.sort_by(|a, b| match (a.1.first_start_us, b.1.first_start_us) {
            (Some(x), Some(y)) => x.total_cmp(&y).then(a.1.seen.cmp(&b.1.seen)),
            _ => a.1.seen.cmp(&b.1.seen),
        });
        names.into_iter().map(|(n, _)| n).collect()
    }

    /// The runs added up by (op type, core type), as op_statistic.csv would give them (a name
    /// counts under the type and core type of its first run).
    pub fn type_statistic(&self) -> OpStatistic {
        OpStatistic::from_rows(self.stats.iter().map(|k| TypeStat {
            op_type: k.op_type.to_string(),
            core_type: k.core_type.to_string(),
            count: k.count,
            total_us: k.total_us,
            min_us: Some(k.min_us),
            max_us: Some(k.max_us),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel file's rows with every spelling the writers use and some they should not:
    /// quoted, padded, `""`-quoted, Unicode-padded, missing, unreadable.
    fn varied_kernel_file(seed: u64) -> String {
        const FIELDS: [&[&str]; 14] = [
            &["1", "2", " 3 ", "\"4\"", "N/A", ""],
            &["0", "\"0\"", "7", "N/A"],
            &[
                "seg0_op0",
                "\"a, b\"",
                " padded ",
                "\"\"\"q\"\"\"",
                "\u{a0}nbsp",
                "名字",
                "",
                "N/A",
                "x\"y",
            ],
            &["Add", "N/A", "\"Mat,Mul\"", " Cast"],
            &["AI_CORE", "MIX_AIC", "\"AI_VECTOR_CORE\t\""],
            &[
                "\"1736413971558000.125\t\"",
                "12.5",
                "N/A",
                "1e3",
                "abc",
                "\"\"\"7\"\"\"",
                " 3.25 ",
            ],
            &["2.300", "0", "N/A", "-1", "1e20", "x", "\" 4.5\""],
            &["1.000", "N/A", "0.5e1", "y", "\u{a0}2"],
            &["48", "0", "N/A", "1.5", "-3"],
            &[
                "\"\"\"8,4096;8,4096\"\"\"",
                "N/A",
                "\"1,2\"",
                "\"\"\"a\"\"b\"\"\"",
            ],
            &["2", "N/A", "\"3\""],
            &["4294967295", "48_1", "N/A"],
            &["0", "2.619", "N/A", "z"],
            &["3.298", "0", "N/A"],
        ];
        let mut state = seed;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut text = String::from(
            "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),\
             Wait Time(us),Block Num,Input Shapes,Stream ID,Model ID,aicore_time(us),\
             aiv_time(us)\n",
        );
        for _ in 0..4000 {
            // Mostly rows as the profiler writes them, the rest anything from the lists.
            let plain = next(4) != 0;
            let row: Vec<&str> = FIELDS
                .iter()
                .map(|values| values[if plain { 0 } else { next(values.len()) }])
                .collect();
            let cut = if next(20) == 0 {
                1 + next(row.len())
            } else {
                row.len()
            };
            text.push_str(&row[..cut].join(","));
            text.push_str(if next(5) == 0 { "\r\n" } else { "\n" });
        }
        text
    }

    #[test]
    fn a_row_read_plainly_is_the_row_the_table_reads() {
        for seed in [1, 7, 42, 1234] {
            let text = varied_kernel_file(seed);
            let path = Path::new("kernel_details.csv");
            let mut table = Table::from_reader(text.as_bytes(), path).expect("a header");
            let cols = columns(&table).expect("the columns");
            let (mut plain_rows, mut rows) = (0, 0);
            while table.next_row().expect("records") {
                rows += 1;
                let by_table = row(&&table, &cols);
                let Some(Ok(plain)) = table.plain().map(|p| row(&p, &cols)) else {
                    continue;
                };
                plain_rows += 1;
                assert_eq!(
                    by_table.as_ref().ok(),
                    Some(&plain),
                    "seed {seed}, line {}",
                    table.line()
                );
            }
            // The profiler's own rows, three in four, are read plainly.
            assert!(plain_rows * 2 > rows, "seed {seed}: {plain_rows} of {rows}");
        }
    }

    #[test]
    fn a_name_stands_for_its_type_without_index_suffixes() {
        assert_eq!(type_from_name("trans_TransData_0"), "trans_TransData");
        assert_eq!(type_from_name("hcom_broadcast__445_0"), "hcom_broadcast");
        assert_eq!(type_from_name("MatMul_12_3"), "MatMul");
        assert_eq!(
            type_from_name("aclnnMatmul_MatMulCommon_MatMulV2"),
            "aclnnMatmul_MatMulCommon_MatMulV2"
        );
        assert_eq!(type_from_name("layer0_qkv_proj"), "layer0_qkv_proj");
        assert_eq!(type_from_name("NonZero57"), "NonZero57");
        assert_eq!(type_from_name("_0"), "_0");
        assert_eq!(type_from_name("12"), "12");
    }
}
