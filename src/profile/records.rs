//! A CSV file's records, split at the speed of the bytes: the stream is read a block of
//! complete lines at a time, each block checked as UTF-8 once, and a record is cut into fields
//! where it lies in the block (commas found eight bytes at a time, a quoted field taken between
//! its quotes, a field with `""` in it decoded to a buffer of its own), so a row costs no copy,
//! no allocation and no pass over bytes no field needs. A record the block cannot give as it is
//! (bytes after a closing quote, a quoted line break past the block, a block that is not UTF-8)
//! is copied out and decoded there. The profiler's kernel files run to gigabytes and quote a
//! few fields per row (shapes, the start time with its trailing tab); everything else is
//! plain. RFC 4180 as the profiler writes it: `,` between fields, `"` around a field with a
//! comma, a quote or a line break in it, `\n` or `\r\n` at the end of a record; a line with
//! nothing on it is no record.

use std::io::Read;

/// The longest record read: a quote never closed would otherwise take the rest of the file.
pub const MAX_RECORD: usize = 16 << 20;

/// Bytes read from the stream at a time: a block stays in the core's cache while it is checked
/// and its records cut.
const BLOCK: usize = 128 << 10;

/// Why a record could not be read.
#[derive(Debug)]
pub enum RecordError {
    /// Reading the bytes failed.
    Io(std::io::Error),
    /// The file ended inside a quoted field (a row cut while being written or copied).
    EndsInsideQuotes,
    /// A quoted field ran on past [`MAX_RECORD`] bytes: its quote is never closed.
    Unclosed,
}

/// A block of complete lines, as text when it is UTF-8.
enum Block {
    Text(String),
    Bytes(Vec<u8>),
}

impl Block {
    fn bytes(&self) -> &[u8] {
        match self {
            Block::Text(text) => text.as_bytes(),
            Block::Bytes(bytes) => bytes,
        }
    }
}

/// The lines of a stream, read ahead a block at a time.
struct Lines<R: Read> {
    reader: R,
    /// Complete lines (the last may lack its `\n` at the end of the stream).
    block: Block,
    /// Where the lines not yet taken start in the block.
    at: usize,
    /// Bytes read after the block's last line break: the start of the next block.
    tail: Vec<u8>,
    /// True once the stream has ended.
    ended: bool,
}

impl<R: Read> Lines<R> {
    /// True when a line is left to take, reading the next block when this one is used up.
    fn ready(&mut self) -> std::io::Result<bool> {
        if self.at < self.block.bytes().len() {
            return Ok(true);
        }
        let mut bytes = match std::mem::replace(&mut self.block, Block::Bytes(Vec::new())) {
            Block::Text(text) => text.into_bytes(),
            Block::Bytes(bytes) => bytes,
        };
        bytes.clear();
        bytes.append(&mut self.tail);
        self.at = 0;
        // Read until the block holds a line break (a line may be longer than a block).
        while !self.ended {
            let before = bytes.len();
            bytes.reserve(BLOCK);
            let read = (&mut self.reader)
                .take(BLOCK as u64)
                .read_to_end(&mut bytes)?;
            self.ended = read < BLOCK;
            if let Some(last) = memchr::memrchr(b'\n', &bytes[before..]) {
                let cut = before + last + 1;
                self.tail.extend_from_slice(&bytes[cut..]);
                bytes.truncate(cut);
                break;
            }
        }
        let any = !bytes.is_empty();
        self.block = match String::from_utf8(bytes) {
            Ok(text) => Block::Text(text),
            Err(e) => Block::Bytes(e.into_bytes()),
        };
        Ok(any)
    }

    /// Where the line starting at `from` ends: after its `\n`, or at the block's end.
    fn line_end(&self, from: usize) -> usize {
        line_end_of(self.block.bytes(), from)
    }
}

/// Where the line of `bytes` starting at `from` ends: after its `\n`, or at the end.
fn line_end_of(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i + 1)
}

/// Where a record's bytes end: before its `\n` or `\r\n` (`end` is after them).
fn content_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > start && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    end
}

/// The records of one CSV stream.
pub struct Records<R: Read> {
    lines: Lines<R>,
    /// True when the current record's fields lie in the block as read; false when the record
    /// was copied out to `buf` (and, once known to be text, `text`).
    in_block: bool,
    buf: Vec<u8>,
    /// A copied record once it is known to be text (the buffer, checked once as a whole, so no
    /// field needs checking again); the buffer is then empty until the next copy.
    text: Option<String>,
    fields: Vec<(u32, u32)>,
    /// The fields of a record in the block that had to be decoded (a `""` in them).
    decoded: String,
    /// Fields past this many are not cut apart (the rest of the record is one last field)
    /// when no quote follows: a reader that needs the first columns only.
    wanted: usize,
    /// The line the current record starts on (1-based), and the next one's.
    line: u64,
    next_line: u64,
}

impl<R: Read> Records<R> {
    /// Records read from `reader`.
    pub fn new(reader: R) -> Records<R> {
        Records {
            lines: Lines {
                reader,
                block: Block::Bytes(Vec::new()),
                at: 0,
                tail: Vec::new(),
                ended: false,
            },
            in_block: false,
            buf: Vec::with_capacity(1 << 12),
            text: None,
            fields: Vec::with_capacity(64),
            decoded: String::new(),
            wanted: usize::MAX,
            line: 0,
            next_line: 1,
        }
    }

    /// Cuts only the first `fields` fields of each record from now on: the rest of a record is
    /// one last field, unless a quote in it could hold a line break (then every field is cut,
    /// so the record still ends where it does).
    pub fn want(&mut self, fields: usize) {
        self.wanted = fields.max(1);
    }

    /// The line the current record starts on.
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The current record's fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when the current record has no field (before the first read, and at the end).
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Field `i` of the current record, decoded.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        match self.get_text(i)? {
            Ok(text) => Some(text.as_bytes()),
            Err(bytes) => Some(bytes),
        }
    }

    /// Field `i` of the current record as text: `Err` with its bytes when the record is not
    /// UTF-8.
    #[inline]
    pub fn get_text(&self, i: usize) -> Option<Result<&str, &[u8]>> {
        if let Some(place) = self.in_place() {
            return place.get(i).map(Ok);
        }
        // A copied record.
        let &(start, end) = self.fields.get(i)?;
        let range = start as usize..end as usize;
        match &self.text {
            // Fields end at commas, quotes and line ends, all ASCII: char boundaries.
            Some(text) => text.get(range).map(Ok),
            None => self.buf.get(range).map(Err),
        }
    }

    /// The current record's fields where they lie in a block of text, `None` for a record
    /// copied out (as every record of a block that is not UTF-8 is): where the record lies is
    /// checked once, not for each field asked for.
    #[inline]
    pub fn in_place(&self) -> Option<InPlace<'_>> {
        match &self.lines.block {
            Block::Text(text) if self.in_block => Some(InPlace {
                text,
                decoded: &self.decoded,
                fields: &self.fields,
            }),
            _ => None,
        }
    }

    /// Every field of the current record, decoded.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.fields.len()).filter_map(|i| self.get(i))
    }

    /// Reads the next record; false at the end of the stream.
    pub fn read(&mut self) -> Result<bool, RecordError> {
        if let Some(text) = self.text.take() {
            self.buf = text.into_bytes();
        }
        loop {
            self.fields.clear();
            self.line = self.next_line;
            if !self.lines.ready().map_err(RecordError::Io)? {
                return Ok(false);
            }
            let start = self.lines.at;
            let end = self.lines.line_end(start);
            let line = &self.lines.block.bytes()[start..end];
            let ends_line = line.last() == Some(&b'\n');
            if matches!(line, b"\n" | b"\r\n" | b"\r") {
                self.lines.at = end;
                self.next_line += u64::from(ends_line);
                continue;
            }
            self.decoded.clear();
            if let Block::Text(text) = &self.lines.block
                && let Some((after, lines)) = split_in_block(
                    text,
                    start,
                    end,
                    self.wanted,
                    &mut self.fields,
                    &mut self.decoded,
                )
            {
                self.lines.at = after;
                self.next_line += lines;
                self.in_block = true;
                return Ok(true);
            }
            // Copied out: cut and decoded in the copy, reading on while a quoted field runs.
            self.fields.clear();
            self.in_block = false;
            self.buf.clear();
            self.read_line()?;
            self.split()?;
            // One check of the whole record (a line of a few hundred bytes) instead of one per
            // field; the buffer's allocation moves, it is not copied.
            match String::from_utf8(std::mem::take(&mut self.buf)) {
                Ok(text) => self.text = Some(text),
                Err(e) => self.buf = e.into_bytes(),
            }
            return Ok(true);
        }
    }

    /// Appends the next line (with its `\n`) to the copy; false at the end of the stream.
    fn read_line(&mut self) -> Result<bool, RecordError> {
        if !self.lines.ready().map_err(RecordError::Io)? {
            return Ok(false);
        }
        let start = self.lines.at;
        let end = self.lines.line_end(start);
        let line = &self.lines.block.bytes()[start..end];
        self.buf.extend_from_slice(line);
        if line.last() == Some(&b'\n') {
            self.next_line += 1;
        }
        self.lines.at = end;
        Ok(true)
    }

    /// Cuts the copied record into fields, reading more lines while a quoted field runs on.
    fn split(&mut self) -> Result<(), RecordError> {
        let mut at = 0usize;
        // Whether the fields past the wanted ones were looked at for a quote.
        let mut looked = false;
        loop {
            if self.buf.get(at) == Some(&b'"') {
                at = self.quoted(at)?;
                // `at` is now on the comma after the field, or at the record's end.
                if at < self.record_end() && self.buf[at] == b',' {
                    at += 1;
                    continue;
                }
                return Ok(());
            }
            let end = self.record_end();
            match cut_plain(
                &self.buf,
                at,
                end,
                self.wanted,
                &mut looked,
                &mut self.fields,
            ) {
                Plain::End => return Ok(()),
                Plain::Quote(open) => at = open,
                Plain::Rest(rest) => {
                    self.fields.push(span(rest, end));
                    return Ok(());
                }
            }
        }
    }

    /// Where the copied record's bytes end: before its `\n` or `\r\n`.
    fn record_end(&self) -> usize {
        content_end(&self.buf, 0, self.buf.len())
    }

    /// Reads the quoted field opening at `open`, decoding it in place; returns where it ends
    /// (on the comma after it, or at the record's end). Bytes after the closing quote and
    /// before the comma belong to the field, as other readers take them.
    fn quoted(&mut self, open: usize) -> Result<usize, RecordError> {
        let start = open + 1;
        let mut search = start;
        let mut write = start;
        loop {
            let Some(q) = near(b'"', &self.buf[search..]).map(|i| search + i) else {
                // The field runs on to the next line.
                if self.buf.len() > MAX_RECORD {
                    return Err(RecordError::Unclosed);
                }
                let before = self.buf.len();
                if !self.read_line()? || self.buf.len() == before {
                    return Err(RecordError::EndsInsideQuotes);
                }
                continue;
            };
            // Everything up to the quote is the field's (moved only once a `""` shrank it).
            if write != search {
                self.buf.copy_within(search..q, write);
            }
            write += q - search;
            if self.buf.get(q + 1) == Some(&b'"') {
                self.buf[write] = b'"';
                write += 1;
                search = q + 2;
                continue;
            }
            // The closing quote: the field runs on to the next comma or the record's end.
            let end = self.record_end();
            let after = q + 1;
            let stop = if after >= end {
                end
            } else {
                near(b',', &self.buf[after..end]).map_or(end, |i| after + i)
            };
            if stop > after {
                self.buf.copy_within(after..stop, write);
                write += stop - after;
            }
            self.push(start, write);
            return Ok(stop);
        }
    }

    fn push(&mut self, start: usize, end: usize) {
        self.fields.push(span(start, end));
    }
}

/// A record's fields as they lie in a block of text (see [`Records::in_place`]).
#[derive(Clone, Copy)]
pub struct InPlace<'r> {
    text: &'r str,
    decoded: &'r str,
    fields: &'r [(u32, u32)],
}

impl<'r> InPlace<'r> {
    /// Field `i`, decoded (`None` past the record's last field).
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'r str> {
        let &(start, end) = self.fields.get(i)?;
        let (from, range) = match start & DECODED {
            0 => (self.text, start as usize..end as usize),
            _ => (
                self.decoded,
                (start & !DECODED) as usize..(end & !DECODED) as usize,
            ),
        };
        // Fields end at commas, quotes and line ends, all ASCII: char boundaries.
        from.get(range)
    }
}

/// Marks a field's place as one in [`Records`]'s `decoded`, not in the block (a block's places
/// are below it: a block of 2 GiB or more is copied out instead).
const DECODED: u32 = 1 << 31;

/// Cuts the record of `text` starting at `start`, whose first line ends at `line_end`, where
/// it lies: its fields pushed to `fields`, those with a `""` decoded into `decoded` (their
/// places marked [`DECODED`]); where it ends (after its last line break) and the lines it
/// spans. `None` when it must be copied out to be decoded: bytes after a closing quote, a quote
/// not closed in `text` or only past [`MAX_RECORD`], a block too long to mark places in.
fn split_in_block(
    text: &str,
    start: usize,
    mut line_end: usize,
    wanted: usize,
    fields: &mut Vec<(u32, u32)>,
    decoded: &mut String,
) -> Option<(usize, u64)> {
    let bytes = text.as_bytes();
    if bytes.len() >= DECODED as usize {
        return None;
    }
    let mut at = start;
    let mut looked = false;
    // The line breaks of the record: its first line's, and those of the lines after it a
    // quoted field runs on to.
    let mut breaks = u64::from(bytes[..line_end].last() == Some(&b'\n'));
    loop {
        let end = content_end(bytes, start, line_end);
        if at < end && bytes[at] == b'"' {
            let mut close = at + 1 + near(b'"', &bytes[at + 1..])?;
            if bytes.get(close + 1) == Some(&b'"') {
                // `""` stands for a quote (the profiler's shapes: `"""8,4096"""`).
                let from = decoded.len();
                let mut piece = at + 1;
                while bytes.get(close + 1) == Some(&b'"') {
                    decoded.push_str(text.get(piece..=close)?);
                    piece = close + 2;
                    close = piece + near(b'"', &bytes[piece..])?;
                }
                decoded.push_str(text.get(piece..close)?);
                fields.push(marked(span(from, decoded.len())));
            } else {
                fields.push(span(at + 1, close));
            }
            if close >= line_end {
                // The field holds line breaks: the record runs on to the line the quote closes.
                if close - start > MAX_RECORD {
                    return None;
                }
                let next_end = line_end_of(bytes, close);
                breaks += memchr::memchr_iter(b'\n', &bytes[line_end..next_end]).count() as u64;
                line_end = next_end;
            }
            let end = content_end(bytes, start, line_end);
            match bytes.get(close + 1) {
                _ if close + 1 >= end => break,
                Some(b',') => at = close + 2,
                _ => return None,
            }
            continue;
        }
        match cut_plain(bytes, at, end, wanted, &mut looked, fields) {
            Plain::End => break,
            Plain::Quote(open) => at = open,
            Plain::Rest(rest) => {
                fields.push(span(rest, end));
                break;
            }
        }
    }
    Some((line_end, breaks))
}

/// A place in `decoded`, marked as one.
fn marked((start, end): (u32, u32)) -> (u32, u32) {
    (start | DECODED, end | DECODED)
}

/// How a run of plain fields ended.
enum Plain {
    /// At the record's end, its last field cut.
    End,
    /// At a field that opens with a quote, here.
    Quote(usize),
    /// With the wanted fields cut and no quote in the rest, which starts here (not cut).
    Rest(usize),
}

/// Cuts the plain fields of `bytes[at..end]` at their commas into `fields`, up to the record's
/// end, a field that opens with a quote, or the rest past the `wanted` fields when no quote is
/// in it (`looked`: whether that rest was looked at). Fields are a few bytes apart: eight bytes
/// are searched at once, without a vector search's setup for each field.
fn cut_plain(
    bytes: &[u8],
    at: usize,
    end: usize,
    wanted: usize,
    looked: &mut bool,
    fields: &mut Vec<(u32, u32)>,
) -> Plain {
    let mut start = at;
    let mut chunk = at;
    while chunk < end {
        let mut commas = found_in(word_at(&bytes[..end], chunk), b',');
        while commas != 0 {
            let comma = chunk + (commas.trailing_zeros() / 8) as usize;
            commas &= commas - 1;
            fields.push(span(start, comma));
            start = comma + 1;
            if !*looked && fields.len() >= wanted {
                *looked = true;
                if memchr::memchr(b'"', &bytes[start..end]).is_none() {
                    return Plain::Rest(start);
                }
            }
            if bytes.get(start) == Some(&b'"') {
                return Plain::Quote(start);
            }
        }
        chunk += 8;
    }
    fields.push(span(start, end));
    Plain::End
}

/// Where `byte` first is in `bytes`: looked for eight bytes at a time over the first few, where
/// a quoted field's next quote or comma mostly is (a vector search's setup cost more than the
/// search), then by `memchr`.
fn near(byte: u8, bytes: &[u8]) -> Option<usize> {
    const NEAR: usize = 32;
    let mut chunk = 0;
    while chunk < bytes.len().min(NEAR) {
        let found = found_in(word_at(bytes, chunk), byte);
        if found != 0 {
            return Some(chunk + (found.trailing_zeros() / 8) as usize);
        }
        chunk += 8;
    }
    let rest = bytes.get(NEAR..)?;
    memchr::memchr(byte, rest).map(|at| NEAR + at)
}

/// The eight bytes of `bytes` from `at` as a little-endian word, zeros past its end (which
/// [`found_in`] of any byte but zero never finds).
#[inline]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(eight) => eight.try_into().map_or(0, u64::from_le_bytes),
        None => {
            let mut word = [0u8; 8];
            let tail = bytes.get(at..).unwrap_or_default();
            word[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(word)
        }
    }
}

/// The high bit of each byte of `word` equal to `byte` (not zero), and no other bit: those
/// bytes are zero after the `xor`, and only a zero byte keeps its high bit clear through the
/// `add` and the `or` (no carry crosses bytes, as each holds at most 0x7f + 0x7f).
#[inline]
fn found_in(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !((x & LOW7).wrapping_add(LOW7) | x | LOW7)
}

/// A field's place in the buffer. A record is at most [`MAX_RECORD`] (16 MiB) plus a line:
/// positions fit in `u32` unless one line is over 4 GiB, which the field then ends at.
#[inline]
fn span(start: usize, end: usize) -> (u32, u32) {
    let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
    (clamp(start), clamp(end.max(start)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &str) -> Vec<(u64, Vec<String>)> {
        let mut r = Records::new(text.as_bytes());
        let mut out = Vec::new();
        while r.read().expect("reads") {
            let fields = r
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            out.push((r.line(), fields));
        }
        out
    }

    #[test]
    fn fields_split_and_quotes_decode_as_the_profiler_writes_them() {
        let got = records(
            "a,b,c\n1,\"8,16\",\"\"\"8,4096\"\"\"\r\n\n2,\"1736.5\t\",x\n,,\n3,\"two\nlines\",\"q\"tail\n4",
        );
        let want: Vec<(u64, Vec<String>)> = vec![
            (1, vec!["a".into(), "b".into(), "c".into()]),
            (2, vec!["1".into(), "8,16".into(), "\"8,4096\"".into()]),
            (4, vec!["2".into(), "1736.5\t".into(), "x".into()]),
            (5, vec!["".into(), "".into(), "".into()]),
            (6, vec!["3".into(), "two\nlines".into(), "qtail".into()]),
            (8, vec!["4".into()]),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn commas_and_quotes_are_found_in_every_byte_and_nothing_else() {
        for byte in [b',', b'"'] {
            for at in 0..8 {
                let mut word = *b"ab\x00\xff\x7f\x80-.";
                word[at] = byte;
                assert_eq!(found_in(u64::from_le_bytes(word), byte), 0x80 << (8 * at));
            }
        }
        // Near or far, in a slice of any length: where `position` finds it.
        for len in 0..80 {
            for at in 0..=len {
                let mut bytes = vec![b'x'; len];
                if let Some(b) = bytes.get_mut(at) {
                    *b = b'"';
                }
                assert_eq!(near(b'"', &bytes), bytes.iter().position(|&b| b == b'"'));
            }
        }
        assert_eq!(
            found_in(u64::from_le_bytes(*b",,,,,,,,"), b','),
            0x8080_8080_8080_8080
        );
        assert_eq!(
            found_in(u64::from_le_bytes(*b"+-+-\xac\xad\x2d\x0c"), b','),
            0
        );
    }

    #[test]
    fn past_the_wanted_fields_a_record_is_one_field_unless_a_quote_follows() {
        let mut r = Records::new("a,b,c,d\n1,2,3,4\n5,6,\"x\ny\",8\n9\n".as_bytes());
        r.want(2);
        let mut got = Vec::new();
        while r.read().expect("reads") {
            let fields: Vec<String> = r
                .iter()
                .map(|f| String::from_utf8_lossy(f).into())
                .collect();
            got.push((r.line(), fields));
        }
        let want: Vec<(u64, Vec<String>)> = vec![
            (1, vec!["a".into(), "b".into(), "c,d".into()]),
            (2, vec!["1".into(), "2".into(), "3,4".into()]),
            // A quote after the wanted fields may hold a line break: every field is cut.
            (3, vec!["5".into(), "6".into(), "x\ny".into(), "8".into()]),
            (5, vec!["9".into()]),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_file_cut_inside_quotes_and_a_quote_never_closed_are_errors() {
        let mut r = Records::new("a,b\n1,\"81920,40".as_bytes());
        assert!(r.read().unwrap());
        assert!(matches!(r.read(), Err(RecordError::EndsInsideQuotes)));
        assert_eq!(r.line(), 2);
        let long = format!("a\n\"{}\n", "x".repeat(MAX_RECORD + 1));
        let mut r = Records::new(long.as_bytes());
        assert!(r.read().unwrap());
        assert!(matches!(r.read(), Err(RecordError::Unclosed)));
    }

    /// A record: the line it starts on, and each field with whether it opened with a quote.
    type Record = (u64, Vec<(Vec<u8>, bool)>);

    /// Each record as an RFC 4180 reader takes it, a byte at a time.
    fn reference(text: &[u8]) -> Vec<Record> {
        let (mut out, mut i, mut line) = (Vec::new(), 0usize, 1u64);
        while i < text.len() {
            match &text[i..] {
                [b'\n', ..] | [b'\r', b'\n', ..] => {
                    i += if text[i] == b'\n' { 1 } else { 2 };
                    line += 1;
                    continue;
                }
                [b'\r'] => break,
                _ => {}
            }
            let first = line;
            let mut fields = Vec::new();
            let (mut field, mut quoted) = (Vec::new(), false);
            let mut at_start = true;
            loop {
                if at_start && text.get(i) == Some(&b'"') {
                    quoted = true;
                    i += 1;
                    loop {
                        match (text[i], text.get(i + 1)) {
                            (b'"', Some(b'"')) => {
                                field.push(b'"');
                                i += 2;
                            }
                            (b'"', _) => {
                                i += 1;
                                break;
                            }
                            (c, _) => {
                                line += u64::from(c == b'\n');
                                field.push(c);
                                i += 1;
                            }
                        }
                    }
                }
                at_start = false;
                let ends = match &text[i..] {
                    [] => Some(0),
                    [b'\n', ..] => Some(1),
                    [b'\r', b'\n', ..] => Some(2),
                    _ => None,
                };
                if let Some(skip) = ends {
                    i += skip;
                    line += u64::from(skip > 0);
                    fields.push((field, quoted));
                    break;
                }
                if text[i] == b',' {
                    fields.push((std::mem::take(&mut field), quoted));
                    quoted = false;
                    at_start = true;
                } else {
                    field.push(text[i]);
                }
                i += 1;
            }
            out.push((first, fields));
        }
        out
    }

    /// A file of every shape a record takes, over several blocks: plain, empty and quoted
    /// fields, `""`, quoted line breaks and commas, bytes after a closing quote, `\r\n`, blank
    /// lines, text that is not UTF-8 and fields longer than a block.
    fn varied_file(seed: u64) -> Vec<u8> {
        let mut state = seed;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let pieces: [&[u8]; 12] = [
            b"12.5",
            b"",
            b"MatMul_12",
            b"\"8,16\"",
            b"\"1736413971558000.125\t\"",
            b"\"\"\"8,4096\"\"\"",
            b"\"two\nlines\"",
            b"\"q\"tail",
            b"caf\xc3\xa9",
            b"bad\xff",
            b"\"x\r\ny\"",
            b"N/A",
        ];
        let mut text = Vec::new();
        while text.len() < 3 * BLOCK {
            if next(20) == 0 {
                text.extend_from_slice(if next(2) == 0 { b"\n" } else { b"\r\n" });
            }
            for f in 0..1 + next(9) {
                if f > 0 {
                    text.push(b',');
                }
                match next(400) {
                    0 => text.extend(std::iter::repeat_n(b'z', BLOCK + 7)),
                    1 => {
                        text.push(b'"');
                        text.extend(std::iter::repeat_n(b'\n', 3));
                        text.extend(std::iter::repeat_n(b'y', BLOCK / 2));
                        text.push(b'"');
                    }
                    _ => text.extend_from_slice(pieces[next(12) as usize]),
                }
            }
            text.extend_from_slice(if next(3) == 0 { b"\r\n" } else { b"\n" });
        }
        text
    }

    #[test]
    fn records_read_from_blocks_as_a_byte_at_a_time_reader_takes_them() {
        for seed in 0..4 {
            let text = varied_file(seed);
            let want = reference(&text);
            let mut r = Records::new(text.as_slice());
            for (line, fields) in &want {
                assert!(
                    r.read().expect("reads"),
                    "seed {seed}: ends before line {line}"
                );
                assert_eq!(r.line(), *line, "seed {seed}");
                assert_eq!(r.len(), fields.len(), "seed {seed}, line {line}");
                for (i, (field, _)) in fields.iter().enumerate() {
                    assert_eq!(r.get(i), Some(field.as_slice()), "seed {seed}, line {line}");
                    match r.get_text(i) {
                        Some(Ok(t)) => assert_eq!(t.as_bytes(), field.as_slice()),
                        Some(Err(b)) => assert_eq!(b, field.as_slice()),
                        None => panic!("seed {seed}, line {line}: field {i} missing"),
                    }
                }
            }
            assert!(!r.read().expect("reads"), "seed {seed}: a record too many");
        }
    }

    #[test]
    fn past_the_wanted_fields_blocks_leave_only_a_rest_without_quotes_uncut() {
        let text = varied_file(7);
        let mut r = Records::new(text.as_slice());
        r.want(3);
        for (line, fields) in reference(&text) {
            assert!(r.read().expect("reads"));
            assert_eq!(r.line(), line);
            let got: Vec<&[u8]> = r.iter().collect();
            let all: Vec<&[u8]> = fields.iter().map(|(f, _)| f.as_slice()).collect();
            // The wanted fields are cut; a rest may be left one field where it is not quoted
            // and holds no quote.
            let n = got.len();
            assert!(n >= all.len().min(3) && n <= all.len(), "line {line}");
            assert_eq!(got[..n - 1], all[..n - 1], "line {line}");
            assert_eq!(got[n - 1], all[n - 1..].join(&b','), "line {line}");
            let joined = &fields[n - 1..];
            assert!(
                joined.len() == 1 || joined.iter().all(|(f, q)| !q && !f.contains(&b'"')),
                "line {line}"
            );
        }
        assert!(!r.read().expect("reads"));
    }
}
