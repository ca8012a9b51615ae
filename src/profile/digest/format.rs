//! A digest's bytes: the header, and the kernel rows written and read back bit for bit. The
//! layout (version 1; docs/DIGEST.md):
//!
//! ```text
//! "SKDIGEST"  version: u32 LE  header length: u32 LE  header: JSON (Header)
//! row*  0x00
//! ```
//!
//! A row is a varint of flags (bit 0 always set), then in order: name, op type, core type and
//! the present labels (step, device, model, iteration, shapes, stream) as string references
//! (an index into the strings seen so far, or the next index followed by the new string:
//! varint length, UTF-8 bytes), the start (zigzag varint, ns, from the previous start), the
//! duration (zigzag varint, ns), the µs figures that are not the ns ones divided by 1,000
//! (8 bytes, little-endian bits), the wait and core times (ns as a zigzag varint when exact,
//! else 8 bytes) and the block count (varint). Every float is kept bit for bit.

use crate::profile::error::ProfileError;
use crate::profile::op_statistic::{OpStatistic, TypeStat};
use crate::profile::row::KernelRow;
use serde::{Deserialize, Serialize};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// The first bytes of every digest.
pub const MAGIC: &[u8; 8] = b"SKDIGEST";
/// The format this release writes and reads.
pub const VERSION: u32 = 1;
/// The extension digests are given (`rank0.skd`); a folder of them is read as ranks.
pub const EXTENSION: &str = "skd";
/// The longest header read (a profile's notes and op statistic).
const MAX_HEADER: u32 = 64 << 20;
/// The longest string a row may hold.
const MAX_STRING: u64 = 1 << 20;

/// A file the profile was read from, as it was when digested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Its path on the node.
    pub path: String,
    /// Its size, bytes.
    pub size: u64,
    /// When it was last written, seconds since 1970 (0 when unknown).
    pub modified: u64,
}

/// Where the digest comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The profile's directory (or file) on the node.
    pub root: String,
    /// The rank, when the profile says (its `profiler_info_<N>.json` or directory name) or
    /// `--rank` picked it.
    pub rank: Option<u32>,
    /// The kernel file's form, by its name (`kernel_details.csv`…; none without a kernel file:
    /// the digest then keeps only the op statistic).
    pub kernel_form: Option<String>,
    /// The profiler level, when the profile says.
    pub level: Option<String>,
    /// The files read.
    pub files: Vec<SourceFile>,
    /// The host it was made on, when known.
    pub host: Option<String>,
}

/// One op statistic row, its floats as bits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypeRow {
    op_type: String,
    core_type: String,
    count: u64,
    total_us: u64,
    min_us: Option<u64>,
    max_us: Option<u64>,
}

/// What a digest says before its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// What made it (`skope 0.1.0`).
    pub made_by: String,
    /// When, seconds since 1970.
    pub made: u64,
    /// The profile it reduces.
    pub source: Source,
    /// What finding the profile's files said (which of several was read).
    pub discovery_notes: Vec<String>,
    /// What reading its kernel files said (how a database was opened, rows left out).
    pub reader_notes: Vec<String>,
    /// The op statistic's rows, when the profile has one (else the kernels give the types).
    pub op_statistic: Option<Vec<TypeRow>>,
    /// The op statistic's devices.
    pub devices: Vec<String>,
    /// Kernel rows that follow.
    pub rows: u64,
}

impl TypeRow {
    /// `row`, its floats as bits.
    pub fn of(row: TypeStat) -> TypeRow {
        TypeRow {
            op_type: row.op_type,
            core_type: row.core_type,
            count: row.count,
            total_us: row.total_us.to_bits(),
            min_us: row.min_us.map(f64::to_bits),
            max_us: row.max_us.map(f64::to_bits),
        }
    }
}

impl Header {
    /// The op statistic it keeps, when the profile had one.
    pub fn op_statistic(&self) -> Option<OpStatistic> {
        let f = f64::from_bits;
        let rows = self.op_statistic.as_ref()?;
        Some(OpStatistic {
            rows: rows
                .iter()
                .map(|r| TypeStat {
                    op_type: r.op_type.clone(),
                    core_type: r.core_type.clone(),
                    count: r.count,
                    total_us: f(r.total_us),
                    min_us: r.min_us.map(f),
                    max_us: r.max_us.map(f),
                })
                .collect(),
            devices: self.devices.clone(),
        })
    }
}

pub(super) fn bad(path: &Path, what: String) -> ProfileError {
    ProfileError::Unreadable {
        path: path.to_path_buf(),
        what,
        hint: "make the digest again with `skope digest PROFILE -o FILE` (a copy cut short \
               or changed is refused)",
    }
}

/// True when `path` starts as a digest does.
pub fn is_digest(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == MAGIC)
}

/// Reads the magic, the version and the header of the digest `input` (read from `path`), and
/// how many bytes they took.
fn read_header(input: &mut impl Read, path: &Path) -> Result<(Header, u64), ProfileError> {
    let mut head = [0u8; 16];
    input
        .read_exact(&mut head)
        .map_err(|_| bad(path, "shorter than a digest's first 16 bytes".into()))?;
    if &head[..8] != MAGIC {
        return Err(bad(
            path,
            "not a skope digest (its first bytes differ)".into(),
        ));
    }
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version != VERSION {
        return Err(ProfileError::Unreadable {
            path: path.to_path_buf(),
            what: format!("a digest of format {version}; this skope reads format {VERSION}"),
            hint: "read it with the skope that made it, or make it again with this one \
                   (`skope digest PROFILE -o FILE`)",
        });
    }
    let len = u32::from_le_bytes([head[12], head[13], head[14], head[15]]);
    if len > MAX_HEADER {
        return Err(bad(
            path,
            format!("a header of {len} bytes (at most {MAX_HEADER})"),
        ));
    }
    let mut text = Vec::new();
    let read = input.take(u64::from(len)).read_to_end(&mut text);
    if read.map_or(true, |n| n != len as usize) {
        return Err(bad(path, format!("cut short in its header ({len} bytes)")));
    }
    let header = serde_json::from_slice(&text).map_err(|e| {
        let words = crate::text::sanitize(&e.to_string()).into_owned();
        bad(path, format!("its header is not a digest's: {words}"))
    })?;
    Ok((header, 16 + u64::from(len)))
}

/// The header of the digest at `path`.
pub fn header(path: &Path) -> Result<Header, ProfileError> {
    let file = std::fs::File::open(path).map_err(|error| ProfileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    read_header(&mut BufReader::new(file), path).map(|(header, _)| header)
}

/// Flags of a row (see the module's layout).
mod flag {
    pub const ROW: u32 = 1;
    pub const STEP: u32 = 1 << 1;
    pub const DEVICE: u32 = 1 << 2;
    pub const MODEL: u32 = 1 << 3;
    pub const ITERATION: u32 = 1 << 4;
    pub const SHAPES: u32 = 1 << 5;
    pub const STREAM: u32 = 1 << 6;
    pub const START_NS: u32 = 1 << 7;
    pub const DURATION_NS: u32 = 1 << 8;
    pub const START_US: u32 = 1 << 9;
    pub const START_US_BITS: u32 = 1 << 10;
    pub const DURATION_US: u32 = 1 << 11;
    pub const DURATION_US_BITS: u32 = 1 << 12;
    pub const WAIT: u32 = 1 << 13;
    pub const WAIT_BITS: u32 = 1 << 14;
    pub const CORE: u32 = 1 << 15;
    pub const CORE_BITS: u32 = 1 << 16;
    pub const BLOCK: u32 = 1 << 17;
    /// Every flag a row may carry.
    pub const ALL: u32 = (1 << 18) - 1;
    /// The labels, in the order their strings follow.
    pub const LABELS: [u32; 6] = [STEP, DEVICE, MODEL, ITERATION, SHAPES, STREAM];
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// True when the µs figure `us` is exactly `ns` divided by 1,000, as the readers make it.
fn micros_of(ns: i64, us: f64) -> bool {
    (ns as f64 / 1000.0).to_bits() == us.to_bits()
}

/// The µs figure `us` as ns, when it is exactly those ns divided by 1,000.
fn exact_ns(us: f64) -> Option<i64> {
    let ns = (us * 1000.0).round();
    (ns.abs() < 9.0e15 && micros_of(ns as i64, us)).then_some(ns as i64)
}

/// Writes rows: strings interned in the order they first come.
#[derive(Default)]
pub struct RowWriter {
    out: Vec<u8>,
    strings: foldhash::HashMap<Box<str>, u64>,
    last_start: i64,
    rows: u64,
}

impl RowWriter {
    fn string(&mut self, text: &str) {
        if let Some(&id) = self.strings.get(text) {
            return varint(&mut self.out, id);
        }
        let id = self.strings.len() as u64;
        varint(&mut self.out, id);
        varint(&mut self.out, text.len() as u64);
        self.out.extend_from_slice(text.as_bytes());
        self.strings.insert(text.into(), id);
    }

    /// Adds `row`.
    pub fn add(&mut self, row: &KernelRow<'_>) {
        let labels = [
            row.step,
            row.device,
            row.model,
            row.iteration,
            row.input_shapes,
            row.stream,
        ];
        let mut flags = flag::ROW;
        for (label, bit) in labels.iter().zip(flag::LABELS) {
            if label.is_some() {
                flags |= bit;
            }
        }
        let derived = |ns: Option<i64>, us: Option<f64>| matches!((ns, us), (Some(ns), Some(us)) if micros_of(ns, us));
        // Each figure in µs with its exact ns, when it has them.
        let wait = row.wait_us.map(|w| (w, exact_ns(w)));
        let core = row.core_us.map(|c| (c, exact_ns(c)));
        let mut set = |present: bool, bit: u32| {
            if present {
                flags |= bit;
            }
        };
        set(row.start_ns.is_some(), flag::START_NS);
        set(row.duration_ns.is_some(), flag::DURATION_NS);
        set(row.start_us.is_some(), flag::START_US);
        set(
            row.start_us.is_some() && !derived(row.start_ns, row.start_us),
            flag::START_US_BITS,
        );
        set(row.duration_us.is_some(), flag::DURATION_US);
        set(
            row.duration_us.is_some() && !derived(row.duration_ns, row.duration_us),
            flag::DURATION_US_BITS,
        );
        set(wait.is_some(), flag::WAIT);
        set(wait.is_some_and(|w| w.1.is_none()), flag::WAIT_BITS);
        set(core.is_some(), flag::CORE);
        set(core.is_some_and(|c| c.1.is_none()), flag::CORE_BITS);
        set(row.block_num.is_some(), flag::BLOCK);
        varint(&mut self.out, u64::from(flags));
        self.string(row.name);
        self.string(row.op_type);
        self.string(row.core_type);
        for label in labels.into_iter().flatten() {
            self.string(label);
        }
        if let Some(start) = row.start_ns {
            varint(&mut self.out, zigzag(start.wrapping_sub(self.last_start)));
            self.last_start = start;
        }
        if let Some(duration) = row.duration_ns {
            varint(&mut self.out, zigzag(duration));
        }
        for (value, bits) in [
            (row.start_us, flags & flag::START_US_BITS != 0),
            (row.duration_us, flags & flag::DURATION_US_BITS != 0),
        ] {
            if let (Some(v), true) = (value, bits) {
                self.out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
        }
        for (value, exact) in [wait, core].into_iter().flatten() {
            match exact {
                Some(ns) => varint(&mut self.out, zigzag(ns)),
                None => self.out.extend_from_slice(&value.to_bits().to_le_bytes()),
            }
        }
        if let Some(block) = row.block_num {
            varint(&mut self.out, u64::from(block));
        }
        self.rows += 1;
    }

    /// Rows added.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The digest's bytes: `header` (its row count set here), then the rows; why not, when the
    /// header would be more than a reader takes.
    pub fn finish(mut self, mut header: Header) -> Result<Vec<u8>, String> {
        header.rows = self.rows;
        let text = serde_json::to_vec(&header).map_err(|e| e.to_string())?;
        let len = u32::try_from(text.len())
            .ok()
            .filter(|&len| len <= MAX_HEADER)
            .ok_or_else(|| {
                format!(
                    "its header would be {} bytes, more than the {MAX_HEADER} a digest holds",
                    text.len()
                )
            })?;
        let mut bytes = Vec::with_capacity(16 + text.len() + self.out.len() + 1);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&text);
        bytes.append(&mut self.out);
        bytes.push(0);
        Ok(bytes)
    }
}

/// A row decoded, its strings as indices into the reader's.
#[derive(Debug, Default, Clone, Copy)]
struct Decoded {
    name: usize,
    op_type: usize,
    core_type: usize,
    labels: [Option<usize>; 6],
    start_us: Option<f64>,
    duration_us: Option<f64>,
    start_ns: Option<i64>,
    duration_ns: Option<i64>,
    wait_us: Option<f64>,
    block_num: Option<u32>,
    core_us: Option<f64>,
}

/// How much of a digest is held at once while its rows are read.
const WINDOW: usize = 1 << 20;

/// Reads a digest's rows one at a time, as [`super::KernelReader`] reads any kernel file: a
/// window of the file at a time, so memory does not grow with it.
pub struct DigestRows {
    path: PathBuf,
    input: std::fs::File,
    /// The bytes read and not yet decoded start at `at`.
    bytes: Vec<u8>,
    /// Where the next byte is in `bytes`.
    at: usize,
    /// The file's offset of `bytes[0]`.
    offset: u64,
    /// True once the file's end was read.
    ended: bool,
    strings: Vec<Box<str>>,
    last_start: i64,
    current: Decoded,
    rows: u64,
    expected: u64,
    /// True once the end of the rows was read: there is no row after it, however often asked.
    done: bool,
    /// What reading the profile's kernel files said when it was digested.
    pub notes: Vec<String>,
}

impl DigestRows {
    /// Opens the digest at `path`, past its header.
    pub fn open(path: &Path) -> Result<DigestRows, ProfileError> {
        let mut input = std::fs::File::open(path).map_err(|error| ProfileError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let (header, offset) = read_header(&mut input, path)?;
        Ok(DigestRows {
            path: path.to_path_buf(),
            input,
            bytes: Vec::with_capacity(WINDOW),
            at: 0,
            offset,
            ended: false,
            strings: Vec::new(),
            last_start: 0,
            current: Decoded::default(),
            rows: 0,
            expected: header.rows,
            done: false,
            notes: header.reader_notes,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn cut(&self, what: &str) -> ProfileError {
        bad(
            &self.path,
            format!(
                "{what} at byte {} (row {})",
                self.offset + self.at as u64,
                self.rows + 1
            ),
        )
    }

    /// Makes `want` bytes past `at` available when the file has them: the bytes decoded are
    /// dropped and the window read on.
    #[inline]
    fn fill(&mut self, want: usize) -> Result<(), ProfileError> {
        if self.bytes.len() - self.at >= want || self.ended {
            return Ok(());
        }
        self.bytes.drain(..self.at);
        self.offset += self.at as u64;
        self.at = 0;
        // Appended without zeroing first: a small digest touches only its own bytes.
        let room = want.max(WINDOW).saturating_sub(self.bytes.len()) as u64;
        let read = (&mut self.input)
            .take(room)
            .read_to_end(&mut self.bytes)
            .map_err(|e| self.cut(&format!("cannot be read ({e})")))?;
        self.ended = (read as u64) < room;
        Ok(())
    }

    fn byte(&mut self) -> Result<u8, ProfileError> {
        self.fill(1)?;
        let Some(&b) = self.bytes.get(self.at) else {
            return Err(self.cut("cut short"));
        };
        self.at += 1;
        Ok(b)
    }

    /// A varint: a row's are mostly one or two bytes, read here when the window holds them.
    #[inline]
    fn varint(&mut self) -> Result<u64, ProfileError> {
        match self.bytes.get(self.at..) {
            Some(&[low, ..]) if low < 0x80 => {
                self.at += 1;
                Ok(u64::from(low))
            }
            Some(&[low, high, ..]) if high < 0x80 => {
                self.at += 2;
                Ok(u64::from(low & 0x7f) | u64::from(high) << 7)
            }
            _ => self.long_varint(),
        }
    }

    /// [`DigestRows::varint`] of any length, reading the window on when it ends in one.
    #[inline(never)]
    fn long_varint(&mut self) -> Result<u64, ProfileError> {
        self.fill(10)?;
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let mut v = 0u64;
        for (i, &b) in rest.iter().take(10).enumerate() {
            // The tenth byte holds the 64th bit alone: more would be lost, so it is refused.
            if i == 9 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.at += i + 1;
                return Ok(v);
            }
        }
        Err(self.cut(if rest.len() < 10 {
            "cut short"
        } else {
            "a number longer than 64 bits"
        }))
    }

    fn bits(&mut self) -> Result<f64, ProfileError> {
        if let Some(eight) = self.bytes.get(self.at..self.at + 8)
            && let Ok(eight) = <[u8; 8]>::try_from(eight)
        {
            self.at += 8;
            return Ok(f64::from_bits(u64::from_le_bytes(eight)));
        }
        let mut bytes = [0u8; 8];
        for b in &mut bytes {
            *b = self.byte()?;
        }
        Ok(f64::from_bits(u64::from_le_bytes(bytes)))
    }

    fn string(&mut self) -> Result<usize, ProfileError> {
        let id = self.varint()?;
        let known = self.strings.len() as u64;
        if id < known {
            return Ok(id as usize);
        }
        if id > known {
            return Err(self.cut(&format!("a string {id} before string {known}")));
        }
        let len = self.varint()?;
        if len > MAX_STRING {
            return Err(self.cut(&format!("a string of {len} bytes")));
        }
        self.fill(len as usize)?;
        let end = self.at.saturating_add(len as usize);
        let Some(bytes) = self.bytes.get(self.at..end) else {
            return Err(self.cut("cut short in a string"));
        };
        let text = std::str::from_utf8(bytes)
            .map_err(|_| self.cut("a string that is not UTF-8"))?
            .into();
        self.at = end;
        self.strings.push(text);
        Ok(known as usize)
    }

    fn time(&mut self, flags: u32, present: u32, exact: u32) -> Result<Option<f64>, ProfileError> {
        if flags & present == 0 {
            return Ok(None);
        }
        if flags & exact != 0 {
            return self.bits().map(Some);
        }
        Ok(Some(unzigzag(self.varint()?) as f64 / 1000.0))
    }

    /// Decodes the next row; false after the last.
    pub fn advance(&mut self) -> Result<bool, ProfileError> {
        if self.done {
            return Ok(false);
        }
        let flags = self.varint()?;
        if flags == 0 {
            if self.rows != self.expected {
                return Err(self.cut(&format!(
                    "the end after {} row(s); its header says {}",
                    self.rows, self.expected
                )));
            }
            self.fill(1)?;
            if self.at < self.bytes.len() {
                return Err(self.cut("bytes after the end"));
            }
            self.done = true;
            return Ok(false);
        }
        let Some(flags) = u32::try_from(flags)
            .ok()
            .filter(|f| f & !flag::ALL == 0 && f & flag::ROW != 0)
        else {
            return Err(self.cut(&format!("a row of unknown flags {flags:#x}")));
        };
        let mut d = Decoded {
            name: self.string()?,
            op_type: self.string()?,
            core_type: self.string()?,
            ..Decoded::default()
        };
        for (slot, bit) in d.labels.iter_mut().zip(flag::LABELS) {
            if flags & bit != 0 {
                *slot = Some(self.string()?);
            }
        }
        if flags & flag::START_NS != 0 {
            let start = self.last_start.wrapping_add(unzigzag(self.varint()?));
            self.last_start = start;
            d.start_ns = Some(start);
        }
        if flags & flag::DURATION_NS != 0 {
            d.duration_ns = Some(unzigzag(self.varint()?));
        }
        d.start_us = self.derived(flags, flag::START_US, flag::START_US_BITS, d.start_ns)?;
        d.duration_us = self.derived(
            flags,
            flag::DURATION_US,
            flag::DURATION_US_BITS,
            d.duration_ns,
        )?;
        d.wait_us = self.time(flags, flag::WAIT, flag::WAIT_BITS)?;
        d.core_us = self.time(flags, flag::CORE, flag::CORE_BITS)?;
        if flags & flag::BLOCK != 0 {
            let block = self.varint()?;
            d.block_num = Some(
                u32::try_from(block).map_err(|_| self.cut(&format!("a block count {block}")))?,
            );
        }
        if self.rows == self.expected {
            return Err(self.cut(&format!(
                "more rows than the {} its header says",
                self.expected
            )));
        }
        self.current = d;
        self.rows += 1;
        Ok(true)
    }

    /// A µs figure: absent, its 8 bytes, or its ns divided by 1,000.
    fn derived(
        &mut self,
        flags: u32,
        present: u32,
        own_bits: u32,
        ns: Option<i64>,
    ) -> Result<Option<f64>, ProfileError> {
        if flags & present == 0 {
            return Ok(None);
        }
        if flags & own_bits != 0 {
            return self.bits().map(Some);
        }
        match ns {
            Some(ns) => Ok(Some(ns as f64 / 1000.0)),
            None => Err(self.cut("a µs figure to take from ns that are not there")),
        }
    }

    /// The row decoded last.
    pub fn row(&self) -> KernelRow<'_> {
        let d = &self.current;
        let text = |i: usize| self.strings.get(i).map_or("", |s| &**s);
        let label = |i: usize| d.labels[i].map(text);
        KernelRow {
            step: label(0),
            name: text(d.name),
            op_type: text(d.op_type),
            core_type: text(d.core_type),
            start_us: d.start_us,
            duration_us: d.duration_us,
            start_ns: d.start_ns,
            duration_ns: d.duration_ns,
            device: label(1),
            model: label(2),
            iteration: label(3),
            wait_us: d.wait_us,
            block_num: d.block_num,
            input_shapes: label(4),
            stream: label(5),
            core_us: d.core_us,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row `i` of a made-up profile: names repeating every 5,000 rows, some µs figures that are
    /// not their ns ÷ 1,000, labels and optional fields coming and going.
    fn duration_ns(start: i64) -> i64 {
        [1, 100, 1_250, 90_000, 40_000_000][(start % 5) as usize]
    }

    fn row_text(i: u64) -> (String, String, String) {
        (
            format!("kernel_{}", i % 5_000),
            (i / 5_000).to_string(),
            format!("{}", i % 3),
        )
    }

    #[test]
    fn rows_come_back_bit_for_bit_across_many_windows() {
        const ROWS: u64 = 300_000;
        let mut writer = RowWriter::default();
        let mut rows = Vec::new();
        for i in 0..ROWS {
            let (name, step, stream) = row_text(i);
            let start = 1_000_000_000 + i as i64 * 1_337;
            let odd = i % 7 == 0;
            rows.push((name, step, stream, start, odd));
        }
        fn row_of(r: &(String, String, String, i64, bool)) -> KernelRow<'_> {
            KernelRow {
                step: Some(&r.1),
                name: &r.0,
                op_type: "MatMul",
                core_type: "AI_CORE",
                start_us: Some(if r.4 { 0.1 } else { r.3 as f64 / 1000.0 }),
                duration_us: Some(duration_ns(r.3) as f64 / 1000.0),
                start_ns: Some(r.3),
                // Varints of one to four bytes, across the windows' ends.
                duration_ns: Some(duration_ns(r.3)),
                device: None,
                model: r.4.then_some("48_1"),
                iteration: None,
                wait_us: Some(if r.4 { 0.333_333 } else { 2.5 }),
                block_num: Some(24),
                input_shapes: None,
                stream: Some(&r.2),
                core_us: r.4.then_some(1.0),
            }
        }
        for r in &rows {
            writer.add(&row_of(r));
        }
        let header = Header {
            made_by: "test".into(),
            made: 0,
            source: Source {
                root: "prof".into(),
                rank: Some(0),
                kernel_form: Some("kernel_details.csv".into()),
                level: None,
                files: Vec::new(),
                host: None,
            },
            discovery_notes: Vec::new(),
            reader_notes: vec!["a note".into()],
            op_statistic: None,
            devices: Vec::new(),
            rows: 0,
        };
        let bytes = writer.finish(header).expect("a header of a few bytes");
        assert!(bytes.len() > 3 * WINDOW, "{} bytes", bytes.len());
        let path = std::env::temp_dir().join(format!("skope-digest-{}.skd", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let mut read = DigestRows::open(&path).unwrap();
        for r in &rows {
            assert!(read.advance().unwrap());
            assert_eq!(read.row(), row_of(r));
        }
        assert!(!read.advance().unwrap());
        assert!(
            !read.advance().unwrap(),
            "no row after the end, asked again"
        );
        assert_eq!(read.notes, ["a note"]);
        let _ = std::fs::remove_file(&path);
    }
}
