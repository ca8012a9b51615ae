//! Header normalisation and field reading shared by every profile CSV.
//!
//! Columns are found by name, never by position: the header's spelling varies with the tool and
//! its version (units or none, `Block Dim` / `Block Num`, `Step Id` / `Step ID`, op_summary's
//! names against kernel_details'), and extra columns come and go. A name is compared after
//! dropping a UTF-8 BOM, quotes, a `(unit)` suffix and case, with `_` read as a space; the time
//! unit, when the header gives one, scales the values to µs. Facts:
//! reference/profiling_and_dumps.md §1.2–§1.4, §6.

use super::error::ProfileError;
use super::records::{InPlace, RecordError, Records};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// A column the readers know, with every name it goes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    /// `Device_id`.
    DeviceId,
    /// `Step Id` / `Step ID`.
    StepId,
    /// `OP Type` (op_statistic, op_summary) / `Type` (kernel_details).
    OpType,
    /// `Core Type` (op_statistic).
    CoreType,
    /// `Accelerator Core` (kernel_details) / `Task Type` (op_summary).
    AcceleratorCore,
    /// `Count`.
    Count,
    /// `Total Time(us)`.
    TotalTime,
    /// `Min Time(us)`.
    MinTime,
    /// `Avg Time(us)`.
    AvgTime,
    /// `Max Time(us)`.
    MaxTime,
    /// `Name` (kernel_details) / `Op Name` (op_summary).
    Name,
    /// `Start Time(us)` / `Task Start Time(us)`.
    StartTime,
    /// `Duration(us)` / `Task Duration(us)`.
    Duration,
    /// `Wait Time(us)` / `Task Wait Time(us)`.
    WaitTime,
    /// `Block Num` / `Block Dim`.
    BlockNum,
    /// `Input Shapes`.
    InputShapes,
    /// `Stream ID`.
    StreamId,
    /// `aicore_time(us)`: time the cube cores ran, a PMU metric.
    AicoreTime,
    /// `aiv_time(us)`: time the vector cores ran, a PMU metric.
    AivTime,
    /// `Model ID`: the graph (model) a kernel ran in.
    ModelId,
    /// `Occurrence Id`.
    OccurrenceId,
    /// `Iteration Id`.
    IterationId,
    /// `Request Id`.
    RequestId,
    /// `Batch Id`.
    BatchId,
}

const ALL: [Col; 24] = [
    Col::DeviceId,
    Col::StepId,
    Col::OpType,
    Col::CoreType,
    Col::AcceleratorCore,
    Col::Count,
    Col::TotalTime,
    Col::MinTime,
    Col::AvgTime,
    Col::MaxTime,
    Col::Name,
    Col::StartTime,
    Col::Duration,
    Col::WaitTime,
    Col::BlockNum,
    Col::InputShapes,
    Col::StreamId,
    Col::AicoreTime,
    Col::AivTime,
    Col::ModelId,
    Col::OccurrenceId,
    Col::IterationId,
    Col::RequestId,
    Col::BatchId,
];

impl Col {
    /// The name the current tools write.
    pub fn name(self) -> &'static str {
        self.aliases()[0]
    }

    /// Every normalised name (see [`normalise`]) the column goes by, the current one first.
    fn aliases(self) -> &'static [&'static str] {
        match self {
            Col::DeviceId => &["device id", "device"],
            Col::StepId => &["step id"],
            Col::OpType => &["op type", "type"],
            Col::CoreType => &["core type"],
            Col::AcceleratorCore => &["accelerator core", "task type", "kernel type"],
            Col::Count => &["count", "calls"],
            Col::TotalTime => &["total time"],
            Col::MinTime => &["min time"],
            Col::AvgTime => &["avg time"],
            Col::MaxTime => &["max time"],
            Col::Name => &["name", "op name", "kernel name"],
            Col::StartTime => &["start time", "task start time", "task start"],
            Col::Duration => &["duration", "task duration", "task time"],
            Col::WaitTime => &["wait time", "task wait time"],
            Col::BlockNum => &["block num", "block dim"],
            Col::InputShapes => &["input shapes"],
            Col::StreamId => &["stream id"],
            Col::AicoreTime => &["aicore time", "aicore_time"],
            Col::AivTime => &["aiv time", "aiv_time"],
            Col::ModelId => &["model id"],
            Col::OccurrenceId => &["occurrence id"],
            Col::IterationId => &["iteration id"],
            Col::RequestId => &["request id"],
            Col::BatchId => &["batch id"],
        }
    }

    /// The name as the output writes it: `OP Type`, `Total Time(us)`…
    pub fn display(self) -> &'static str {
        match self {
            Col::DeviceId => "Device_id",
            Col::StepId => "Step Id",
            Col::OpType => "OP Type",
            Col::CoreType => "Core Type",
            Col::AcceleratorCore => "Accelerator Core",
            Col::Count => "Count",
            Col::TotalTime => "Total Time(us)",
            Col::MinTime => "Min Time(us)",
            Col::AvgTime => "Avg Time(us)",
            Col::MaxTime => "Max Time(us)",
            Col::Name => "Name",
            Col::StartTime => "Start Time(us)",
            Col::Duration => "Duration(us)",
            Col::WaitTime => "Wait Time(us)",
            Col::BlockNum => "Block Num",
            Col::InputShapes => "Input Shapes",
            Col::StreamId => "Stream ID",
            Col::AicoreTime => "aicore_time(us)",
            Col::AivTime => "aiv_time(us)",
            Col::ModelId => "Model ID",
            Col::OccurrenceId => "Occurrence Id",
            Col::IterationId => "Iteration Id",
            Col::RequestId => "Request Id",
            Col::BatchId => "Batch Id",
        }
    }
}

/// A header name reduced for comparison, and the factor its unit scales values to µs by
/// (1 when it names no time unit).
///
/// `"\u{feff}Total Time(us)"` → `("total time", 1.0)`; `"Device_id"` → `("device id", 1.0)`;
/// `"Duration(ms)"` → `("duration", 1000.0)`.
pub fn normalise(raw: &str) -> (String, f64) {
    let mut s = raw.trim_start_matches('\u{feff}').trim();
    s = s.trim_matches('"').trim();
    let mut scale = 1.0;
    if let Some(open) = s.rfind('(')
        && s.ends_with(')')
    {
        let unit = s[open + 1..s.len() - 1].trim().to_ascii_lowercase();
        scale = match unit.as_str() {
            "ms" => 1000.0,
            "ns" => 0.001,
            "s" => 1_000_000.0,
            _ => 1.0,
        };
        s = s[..open].trim();
    }
    let mut out = String::with_capacity(s.len());
    for word in s
        .split(|c: char| c == '_' || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word.to_lowercase());
    }
    (out, scale)
}

/// Where each known column is in one file's header.
#[derive(Debug, Clone)]
pub struct Header {
    names: Vec<String>,
    /// The line of the file it is on, from 1.
    line: u64,
    index: [Option<usize>; ALL.len()],
    scale: [f64; ALL.len()],
}

impl Header {
    /// Reads a header row, found on `line` of its file.
    pub fn new(names: Vec<String>, line: u64) -> Header {
        let mut index = [None; ALL.len()];
        let mut scale = [1.0; ALL.len()];
        for (i, raw) in names.iter().enumerate() {
            let (norm, factor) = normalise(raw);
            for (k, col) in ALL.iter().enumerate() {
                if index[k].is_none() && col.aliases().contains(&norm.as_str()) {
                    index[k] = Some(i);
                    scale[k] = factor;
                }
            }
        }
        Header {
            names,
            line,
            index,
            scale,
        }
    }

    fn slot(col: Col) -> usize {
        ALL.iter().position(|c| *c == col).unwrap_or(0)
    }

    /// The position of `col`, when the header has it.
    pub fn get(&self, col: Col) -> Option<usize> {
        self.index[Self::slot(col)]
    }

    /// The factor `col`'s unit scales its values to µs by.
    pub fn scale(&self, col: Col) -> f64 {
        self.scale[Self::slot(col)]
    }

    /// The nanoseconds one unit of `col`'s values is (1000 for µs).
    pub fn unit_ns(&self, col: Col) -> i64 {
        ((self.scale(col) * 1000.0).round() as i64).max(1)
    }

    /// The position of `col`, or the error naming `path`.
    pub fn require(&self, col: Col, path: &Path) -> Result<usize, ProfileError> {
        self.get(col).ok_or_else(|| {
            let n = self.names.len();
            let shown = |(i, name): (usize, &String)| format!("{} {name:?}", i + 1);
            let header = if n > 30 {
                let first = self.names.iter().enumerate().take(24);
                first
                    .chain(self.names.iter().enumerate().skip(n - 4))
                    .map(shown)
                    .collect()
            } else {
                self.names.iter().enumerate().map(shown).collect()
            };
            ProfileError::MissingColumn {
                path: path.to_path_buf(),
                line: self.line,
                column: col.display(),
                header,
                columns: n,
            }
        })
    }

    /// The position of the last column the header knows, when it knows one: a reader finds
    /// every column it reads here, so none reads past it.
    pub fn last_known(&self) -> Option<usize> {
        self.index.iter().flatten().max().copied()
    }

    /// The header's names as found.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// The text of a field without the padding the writers add: surrounding whitespace (including
/// the start time's trailing tab) and quotes left after CSV decoding (`"""8,16"""` decodes to
/// `"8,16"`).
pub fn clean(s: &str) -> &str {
    s.trim().trim_matches('"').trim()
}

/// [`clean`] on a field's bytes, before they are checked as text: ASCII whitespace and quotes
/// (what the writers pad with) only, a byte at a time — the hot path of every row.
fn clean_field(b: &[u8]) -> &[u8] {
    let padding = |c: &u8| c.is_ascii_whitespace() || *c == b'"';
    if !b.first().is_some_and(padding) && !b.last().is_some_and(padding) {
        return b;
    }
    let b = b.trim_ascii();
    let start = b.iter().position(|&c| c != b'"').unwrap_or(b.len());
    let end = b.iter().rposition(|&c| c != b'"').map_or(start, |i| i + 1);
    b[start..end.max(start)].trim_ascii()
}

/// `field` without the writers' ASCII padding ([`clean_field`]): `Ok` when that is all the
/// padding there can be, `Err` with the text so far when it starts or ends outside ASCII, where
/// Unicode padding (a no-break space) may be left for [`clean`]. Most fields start and end in
/// plain ASCII and are returned as they are, in a few instructions.
#[inline]
fn ascii_cleaned(field: &str) -> Result<&str, &str> {
    let bytes = field.as_bytes();
    let plain = |b: &u8| b.is_ascii_graphic() && *b != b'"';
    if bytes.first().is_none_or(plain) && bytes.last().is_none_or(plain) {
        return Ok(field);
    }
    // The padding is ASCII, so the cut falls on char boundaries.
    let kept = clean_field(bytes);
    let from = kept.as_ptr() as usize - bytes.as_ptr() as usize;
    let cut = field.get(from..from + kept.len()).unwrap_or(field);
    if kept.first().is_none_or(u8::is_ascii) && kept.last().is_none_or(u8::is_ascii) {
        Ok(cut)
    } else {
        Err(cut)
    }
}

/// True for the writers' "no value" spellings: empty, `N/A`, `NA`, `-`, `NaN`.
pub fn is_missing(s: &str) -> bool {
    s.is_empty()
        || s.eq_ignore_ascii_case("n/a")
        || s.eq_ignore_ascii_case("na")
        || s.eq_ignore_ascii_case("nan")
        || s == "-"
}

/// The most columns a header may have: the profiler's widest CSV (`op_summary`) has under a
/// hundred; thousands are a broken or foreign file, and each costs memory.
pub const MAX_COLUMNS: usize = 1024;

/// One CSV file being read row by row, with the header mapped and every field error naming the
/// file, row and column.
pub struct Table<R: Read> {
    path: PathBuf,
    records: Records<R>,
    header: Header,
    row: u64,
}

impl Table<File> {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self, ProfileError> {
        let file = File::open(path).map_err(|error| ProfileError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        Table::from_reader(file, path)
    }
}

impl<R: Read> Table<R> {
    /// Reads the header from `reader`; `path` names it in errors.
    pub fn from_reader(reader: R, path: &Path) -> Result<Self, ProfileError> {
        let mut table = Table {
            path: path.to_path_buf(),
            records: Records::new(reader),
            header: Header::new(Vec::new(), 1),
            row: 0,
        };
        let has_header = table.read_raw()?;
        let record = &table.records;
        if !has_header || record.iter().all(|f| clean_bytes(f).is_empty()) {
            return Err(ProfileError::Empty {
                path: path.to_path_buf(),
            });
        }
        if record.len() > MAX_COLUMNS {
            return Err(ProfileError::BadRow {
                path: path.to_path_buf(),
                row: 0,
                line: 1,
                column: None,
                message: format!(
                    "the header has {} columns; the profiler's CSVs have at most a few hundred: \
                     is this a profiler's CSV file?",
                    record.len()
                ),
            });
        }
        let mut names = Vec::with_capacity(record.len());
        for (i, field) in record.iter().enumerate() {
            match std::str::from_utf8(field) {
                Ok(s) => names.push(s.trim_start_matches('\u{feff}').trim().to_string()),
                Err(_) => {
                    return Err(ProfileError::BadRow {
                        path: path.to_path_buf(),
                        row: 0,
                        line: 1,
                        column: Some((String::from_utf8_lossy(field).into_owned(), i + 1)),
                        message: "the header is not text (not UTF-8): is this a CSV file?".into(),
                    });
                }
            }
        }
        table.header = Header::new(names, table.records.line());
        Ok(table)
    }

    fn read_raw(&mut self) -> Result<bool, ProfileError> {
        self.records.read().map_err(|e| match e {
            RecordError::Io(error) => ProfileError::Io {
                path: self.path.clone(),
                error,
            },
            RecordError::EndsInsideQuotes => ProfileError::BadRow {
                path: self.path.clone(),
                row: self.row + 1,
                line: self.records.line(),
                column: None,
                message: "the file ends inside a quoted field: it was cut while being written \
                          or copied (did the profiler finish?); copy it again, or profile again"
                    .into(),
            },
            RecordError::Unclosed => ProfileError::BadRow {
                path: self.path.clone(),
                row: self.row + 1,
                line: self.records.line(),
                column: None,
                message: format!(
                    "a quoted field runs on past {} MiB: its quote is never closed — is this \
                     a profiler's CSV file?",
                    super::records::MAX_RECORD >> 20
                ),
            },
        })
    }

    /// Cuts only the first `columns` columns of each row apart from now on (see
    /// [`Records::want`]): a column past them must not be asked for.
    pub fn want_columns(&mut self, columns: usize) {
        self.records.want(columns);
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves to the next row with any content; false at the end of the file.
    pub fn next_row(&mut self) -> Result<bool, ProfileError> {
        loop {
            if !self.read_raw()? {
                return Ok(false);
            }
            self.row += 1;
            let blank = self.records.len() == 1
                && self
                    .records
                    .get(0)
                    .is_none_or(|f| clean_bytes(f).is_empty());
            if !blank {
                return Ok(true);
            }
        }
    }

    /// The current record as [`PlainFields`], when it lies in the block read.
    #[inline]
    pub fn plain(&self) -> Option<PlainFields<'_>> {
        self.records.in_place().map(PlainFields)
    }

    /// The current data row, from 1.
    pub fn row(&self) -> u64 {
        self.row
    }

    /// The line of the file the current row starts on.
    pub fn line(&self) -> u64 {
        self.records.line()
    }

    fn column_name(&self, i: usize) -> String {
        self.header
            .names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("#{}", i + 1))
    }

    /// The cleaned text of field `i` of the current row (`""` when the row is short).
    #[inline]
    pub fn text(&self, i: usize) -> Result<&str, ProfileError> {
        match self.records.get_text(i) {
            None => Ok(""),
            Some(Ok(field)) => Ok(ascii_cleaned(field).unwrap_or_else(clean)),
            Some(Err(bytes)) => self.text_of_bytes(i, bytes),
        }
    }

    /// [`Table::text`] of field `i` of a record that is not UTF-8 as a whole: cleaned when the
    /// field's own `bytes` are text, else the error.
    #[cold]
    fn text_of_bytes<'b>(&self, i: usize, bytes: &'b [u8]) -> Result<&'b str, ProfileError> {
        match std::str::from_utf8(bytes) {
            Ok(field) => Ok(ascii_cleaned(field).unwrap_or_else(clean)),
            Err(_) => Err(ProfileError::BadRow {
                path: self.path.clone(),
                row: self.row,
                line: self.line(),
                column: Some((self.column_name(i), i + 1)),
                message: "the field is not text (not UTF-8)".into(),
            }),
        }
    }

    /// Field `i` of the current row as a number scaled by `scale` (see [`Fields::number`]).
    pub fn number(&self, i: usize, scale: f64) -> Result<Option<f64>, ProfileError> {
        Fields::number(&self, i, scale)
    }

    /// Field `i` of the current row as a time in integer nanoseconds (see [`Fields::nanos`]).
    pub fn nanos(&self, i: usize, unit_ns: i64) -> Result<Option<i64>, ProfileError> {
        Fields::nanos(&self, i, unit_ns)
    }

    /// Field `i` as a number that must be there.
    pub fn required_number(&self, i: usize, scale: f64) -> Result<f64, ProfileError> {
        match self.number(i, scale)? {
            Some(v) => Ok(v),
            None => Err(self.bad(i, self.text(i)?, "a number (a value is required here)")),
        }
    }

    /// Field `i` as a count (a whole number ≥ 0; `12.0` is read as 12).
    pub fn count(&self, i: usize) -> Result<u64, ProfileError> {
        let v = self.required_number(i, 1.0)?;
        if v < 0.0 || v.fract() != 0.0 || v > 1e15 {
            return Err(self.bad(i, self.text(i)?, "a count (a whole number)"));
        }
        Ok(v as u64)
    }

    /// The error for field `i` holding `value` where `expected` was.
    pub fn bad(&self, i: usize, value: &str, expected: &'static str) -> ProfileError {
        Fields::bad(&self, i, value, expected)
    }
}

/// A row's fields by column, as cleaned text and as the numbers and times they hold: a table's
/// current record ([`Table`]), or one that lies plainly in the block read ([`PlainFields`]).
pub trait Fields<'t> {
    /// What a field that cannot be read gives.
    type Error;

    /// The cleaned text of field `i` (`""` when the row is short).
    fn text(&self, i: usize) -> Result<&'t str, Self::Error>;

    /// The error for field `i` holding `value` where `expected` was.
    fn bad(&self, i: usize, value: &str, expected: &'static str) -> Self::Error;

    /// Field `i` as a number scaled by `scale`; `None` when the writer left it empty or wrote
    /// `N/A`.
    #[inline]
    fn number(&self, i: usize, scale: f64) -> Result<Option<f64>, Self::Error> {
        let s = self.text(i)?;
        if is_missing(s) {
            return Ok(None);
        }
        match plain_decimal(s).map_or_else(|| s.parse::<f64>().ok(), Some) {
            Some(v) if v.is_finite() => Ok(Some(v * scale)),
            _ => Err(self.bad(i, s, "a number")),
        }
    }

    /// Field `i` as a time in integer nanoseconds, its unit `unit_ns` nanoseconds (1000 for
    /// µs), read exactly from its decimal text (an epoch start in µs held in an `f64` is good
    /// only to a quarter of a µs); `None` when the writer left it empty or wrote `N/A`.
    #[inline]
    fn nanos(&self, i: usize, unit_ns: i64) -> Result<Option<i64>, Self::Error> {
        let s = self.text(i)?;
        if is_missing(s) {
            return Ok(None);
        }
        match decimal_nanos(s, unit_ns) {
            Some(ns) => Ok(Some(ns)),
            None => Err(self.bad(i, s, "a time (a number)")),
        }
    }
}

impl<'t, R: Read> Fields<'t> for &'t Table<R> {
    type Error = ProfileError;

    #[inline]
    fn text(&self, i: usize) -> Result<&'t str, ProfileError> {
        Table::text(*self, i)
    }

    fn bad(&self, i: usize, value: &str, expected: &'static str) -> ProfileError {
        ProfileError::BadValue {
            path: self.path.clone(),
            row: self.row,
            line: self.line(),
            column: self.column_name(i),
            column_index: i + 1,
            value: value.chars().take(40).collect(),
            expected,
        }
    }
}

/// The current record of a table where it lies in the block read, each field read without the
/// table's checks of where it lies, for a reader that asks for many fields of millions of
/// rows. A field the table would have to clean beyond the writers' ASCII padding (Unicode
/// padding), and one that does not read as asked, is [`NotPlain`]: the table reads it, and
/// reports it.
#[derive(Clone, Copy)]
pub struct PlainFields<'t>(InPlace<'t>);

/// A field [`PlainFields`] leaves to the table.
#[derive(Debug)]
pub struct NotPlain;

impl<'t> Fields<'t> for PlainFields<'t> {
    type Error = NotPlain;

    #[inline]
    fn text(&self, i: usize) -> Result<&'t str, NotPlain> {
        ascii_cleaned(self.0.get(i).unwrap_or("")).map_err(|_| NotPlain)
    }

    fn bad(&self, _: usize, _: &str, _: &'static str) -> NotPlain {
        NotPlain
    }
}

/// The nanoseconds the decimal `text` stands for in a unit of `unit_ns` nanoseconds, rounded
/// to the nearest one: `"1736413971558000.125"` µs is 1736413971558000125 ns exactly. A text
/// with an exponent (`1.5e3`) is read through `f64`. `None` for anything but a number, and
/// for one out of range.
pub fn decimal_nanos(text: &str, unit_ns: i64) -> Option<i64> {
    plain_nanos(text.as_bytes(), unit_ns).or_else(|| any_decimal_nanos(text, unit_ns))
}

/// [`decimal_nanos`] of the times the profiler writes (digits, a point and digits, at most 18
/// before the point) in a unit that is a power of ten: digit by digit without an overflow check
/// or a division (two per row of a kernel file, where both were a tenth of the read). `None`
/// for anything else, which [`any_decimal_nanos`] reads.
fn plain_nanos(text: &[u8], unit_ns: i64) -> Option<i64> {
    const POW10: [i64; 10] = [
        1,
        10,
        100,
        1_000,
        10_000,
        100_000,
        1_000_000,
        10_000_000,
        100_000_000,
        1_000_000_000,
    ];
    let places = POW10.iter().position(|&p| p == unit_ns)?;
    let (whole, fraction) = match text.iter().position(|&b| b == b'.') {
        Some(dot) => (&text[..dot], &text[dot + 1..]),
        None => (text, &text[text.len()..]),
    };
    if whole.len() > 18 || whole.len() + fraction.len() == 0 {
        return None;
    }
    let digit = |b: u8| {
        let d = b.wrapping_sub(b'0');
        (d <= 9).then_some(i64::from(d))
    };
    let mut value = 0i64;
    for &b in whole {
        value = value * 10 + digit(b)?;
    }
    // The first `places` digits of the fraction are whole nanoseconds; the next rounds; the
    // rest must still be digits.
    let (exact, rest) = fraction.split_at(fraction.len().min(places));
    let mut ns = 0i64;
    for &b in exact {
        ns = ns * 10 + digit(b)?;
    }
    ns *= POW10[places - exact.len()];
    if let Some((&round, after)) = rest.split_first() {
        ns += i64::from(digit(round)? >= 5);
        for &b in after {
            digit(b)?;
        }
    }
    value.checked_mul(unit_ns)?.checked_add(ns)
}

/// [`decimal_nanos`] of any decimal text: signed, with an exponent, in any unit.
fn any_decimal_nanos(text: &str, unit_ns: i64) -> Option<i64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        all => (false, all),
    };
    // One pass: the whole part, then the fraction digit by digit in units that shrink by ten
    // each digit; what is left below a nanosecond rounds.
    let (mut whole, mut ns, mut place) = (0i64, 0i64, unit_ns);
    let (mut seen_digit, mut in_fraction, mut rounded) = (false, false, false);
    for &b in digits {
        match b {
            b'0'..=b'9' if !in_fraction => {
                whole = whole.checked_mul(10)?.checked_add(i64::from(b - b'0'))?;
            }
            b'0'..=b'9' if rounded => {}
            b'0'..=b'9' if place < 10 => {
                ns = ns.checked_add(i64::from(b >= b'5'))?;
                rounded = true;
            }
            b'0'..=b'9' => {
                place /= 10;
                ns = ns.checked_add(i64::from(b - b'0') * place)?;
            }
            b'.' if !in_fraction => {
                in_fraction = true;
                continue;
            }
            b'e' | b'E' => return exponent_nanos(text, unit_ns),
            _ => return None,
        }
        seen_digit = true;
    }
    if !seen_digit {
        return None;
    }
    let ns = whole.checked_mul(unit_ns)?.checked_add(ns)?;
    Some(if negative { -ns } else { ns })
}

/// A decimal of at most 15 digits (`1.000`, `-42.5`) as `f64`, exactly as `str::parse` gives
/// it: the digits and the power of ten are both exact in an `f64`, so one division rounds
/// correctly (Clinger's fast path). `None` for any other text, which `parse` then reads.
fn plain_decimal(text: &str) -> Option<f64> {
    const POW10: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    let (mut mantissa, mut count, mut fraction) = (0u64, 0usize, None::<usize>);
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
                if count > 15 {
                    return None;
                }
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0),
            _ => return None,
        }
    }
    if count == 0 {
        return None;
    }
    let v = mantissa as f64 / POW10[fraction.unwrap_or(0)];
    Some(if negative { -v } else { v })
}

/// [`any_decimal_nanos`] of a number with an exponent (`1.5e3`), through `f64`.
fn exponent_nanos(text: &str, unit_ns: i64) -> Option<i64> {
    let v: f64 = text.parse().ok()?;
    let ns = (v * unit_ns as f64).round();
    (ns.is_finite() && ns.abs() < 9.2e18).then_some(ns as i64)
}

fn clean_bytes(b: &[u8]) -> &[u8] {
    let mut b = b;
    if b.starts_with(b"\xef\xbb\xbf") {
        b = &b[3..];
    }
    b.trim_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_times_are_read_to_the_exact_nanosecond() {
        assert_eq!(
            decimal_nanos("1736413971558000.125", 1000),
            Some(1_736_413_971_558_000_125)
        );
        // An f64 holds that start only to a quarter of a µs.
        assert_ne!(
            ("1736413971558000.125".parse::<f64>().unwrap_or(0.0) * 1000.0) as i64,
            1_736_413_971_558_000_125
        );
        assert_eq!(decimal_nanos("3.024", 1000), Some(3024));
        assert_eq!(decimal_nanos("3.0245", 1000), Some(3025));
        assert_eq!(decimal_nanos("3.0244", 1000), Some(3024));
        assert_eq!(decimal_nanos("7", 1000), Some(7000));
        assert_eq!(decimal_nanos(".5", 1000), Some(500));
        assert_eq!(decimal_nanos("-2.5", 1000), Some(-2500));
        assert_eq!(decimal_nanos("12.3456", 1), Some(12));
        assert_eq!(decimal_nanos("1.5", 1_000_000), Some(1_500_000));
        assert_eq!(decimal_nanos("1.5e3", 1000), Some(1_500_000));
        for bad in ["", ".", "1.2.3", "abc", "1,5", "99999999999999999999"] {
            assert_eq!(decimal_nanos(bad, 1000), None, "{bad:?}");
        }
    }

    #[test]
    fn the_plain_reading_of_a_time_is_the_general_one() {
        let texts = [
            "0",
            "7",
            "7.",
            ".5",
            "3.0244",
            "3.0245",
            "3.02449999",
            "1736413971558000.125",
            "1736413971558000.1255",
            "999999999999999999.9995",
            "9223372036854775.807",
            "9223372036854775.808",
            "0.000000000049",
            "12.3456",
            "1.2x",
            "1.23456x",
            "x",
            "",
            ".",
        ];
        for unit in [1, 10, 1_000, 1_000_000, 1_000_000_000] {
            for text in texts {
                if let Some(plain) = plain_nanos(text.as_bytes(), unit) {
                    assert_eq!(
                        Some(plain),
                        any_decimal_nanos(text, unit),
                        "{text} in {unit}"
                    );
                }
                assert_eq!(
                    decimal_nanos(text, unit),
                    any_decimal_nanos(text, unit),
                    "{text} in {unit}"
                );
            }
        }
        // The usual start time is read the plain way.
        assert_eq!(
            plain_nanos(b"1736413971558000.125", 1000),
            Some(1_736_413_971_558_000_125)
        );
        // Every digit in every place of a whole part as long as a start time's, and any other
        // byte anywhere in it (the bytes either side of the digits and far from them).
        for length in [8, 9, 15, 16, 17, 18] {
            for place in 0..length {
                for d in b'0'..=b'9' {
                    let mut whole = vec![b'7'; length];
                    whole[place] = d;
                    let text = format!("{}.5", String::from_utf8_lossy(&whole));
                    assert_eq!(
                        plain_nanos(text.as_bytes(), 1000),
                        any_decimal_nanos(&text, 1000),
                        "{text}"
                    );
                }
                for junk in [b'/', b':', b'?', b' ', b'-', 0x00, 0x36 + 0x80, 0xF9, 0xFF] {
                    let mut whole = vec![b'3'; length];
                    whole[place] = junk;
                    assert_eq!(plain_nanos(&whole, 1000), None, "{whole:?}");
                }
            }
        }
    }

    #[test]
    fn plain_decimals_read_as_parse_reads_them() {
        for text in [
            "0",
            "1.000",
            "-42.5",
            "0.1",
            "3.0245",
            "123456789012345",
            "0.00000000000001",
            "99999.9999999999",
            "-0.0",
            "7.",
        ] {
            let parsed: f64 = text.parse().unwrap();
            assert_eq!(
                plain_decimal(text).map(f64::to_bits),
                Some(parsed.to_bits()),
                "{text}"
            );
        }
        for other in [
            "",
            ".",
            "1e3",
            "1234567890123456",
            "+1",
            "1.2.3",
            "nan",
            "1,5",
        ] {
            assert_eq!(plain_decimal(other), None, "{other}");
        }
    }
}
