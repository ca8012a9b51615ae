//! A CSV file's records, split at the speed of the bytes: a record is read a line at a time into
//! one reused buffer and cut into fields with `memchr`, quoted fields decoded in place (`""` to
//! `"`), so a row costs no allocation and no pass over bytes no field needs. The profiler's
//! kernel files run to gigabytes and quote a few fields per row (shapes, the start time with its
//! trailing tab); everything else is plain. RFC 4180 as the profiler writes it: `,` between
//! fields, `"` around a field with a comma, a quote or a line break in it, `\n` or `\r\n` at the
//! end of a record; a line with nothing on it is no record.

use std::io::{BufRead, BufReader, Read};

/// The longest record read: a quote never closed would otherwise take the rest of the file.
pub const MAX_RECORD: usize = 16 << 20;

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

/// The records of one CSV stream.
pub struct Records<R: Read> {
    reader: BufReader<R>,
    buf: Vec<u8>,
    /// The current record once it is known to be text (the buffer, checked once as a whole,
    /// so no field needs checking again); the buffer is then empty until the next read.
    text: Option<String>,
    fields: Vec<(u32, u32)>,
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
            reader: BufReader::with_capacity(1 << 16, reader),
            buf: Vec::with_capacity(1 << 12),
            text: None,
            fields: Vec::with_capacity(64),
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
        let &(start, end) = self.fields.get(i)?;
        let bytes = match &self.text {
            Some(text) => text.as_bytes(),
            None => &self.buf,
        };
        bytes.get(start as usize..end as usize)
    }

    /// Field `i` of the current record as text: `Err` with its bytes when the record is not
    /// UTF-8.
    pub fn get_text(&self, i: usize) -> Option<Result<&str, &[u8]>> {
        let &(start, end) = self.fields.get(i)?;
        let range = start as usize..end as usize;
        match &self.text {
            // Fields end at commas, quotes and line ends, all ASCII: char boundaries.
            Some(text) => text.get(range).map(Ok),
            None => self.buf.get(range).map(Err),
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
            self.buf.clear();
            self.fields.clear();
            self.line = self.next_line;
            if !self.read_line()? {
                return Ok(false);
            }
            if self.line_is_blank() {
                continue;
            }
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

    /// Appends the next line (with its `\n`) to the buffer; false at the end of the stream.
    fn read_line(&mut self) -> Result<bool, RecordError> {
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(RecordError::Io)?;
        if n > 0 && self.buf.last() == Some(&b'\n') {
            self.next_line += 1;
        }
        Ok(n > 0)
    }

    fn line_is_blank(&self) -> bool {
        matches!(self.buf.as_slice(), b"\n" | b"\r\n" | b"\r")
    }

    /// Cuts the buffer into fields, reading more lines while a quoted field runs on. The
    /// commas of a run of plain fields are found in one pass.
    fn split(&mut self) -> Result<(), RecordError> {
        let mut at = 0usize;
        // Whether the fields past the wanted ones were looked at for a quote.
        let mut looked = false;
        let rest = 'fields: loop {
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
            let mut start = at;
            // Fields are a few bytes apart: eight bytes are searched at once, without a vector
            // search's setup for each field.
            let mut chunk = at;
            while chunk < end {
                let word = match self.buf.get(chunk..chunk + 8) {
                    Some(eight) => eight.try_into().map_or(0, u64::from_le_bytes),
                    None => {
                        let mut word = [0u8; 8];
                        word[..end - chunk].copy_from_slice(&self.buf[chunk..end]);
                        u64::from_le_bytes(word)
                    }
                };
                // Bytes past the record's end are no fields'.
                let inside = match end - chunk {
                    8.. => u64::MAX,
                    n => (1u64 << (8 * n)) - 1,
                };
                let mut commas = commas_in(word) & inside;
                while commas != 0 {
                    let comma = chunk + (commas.trailing_zeros() / 8) as usize;
                    commas &= commas - 1;
                    self.fields.push(span(start, comma));
                    start = comma + 1;
                    if !looked && self.fields.len() >= self.wanted {
                        looked = true;
                        if memchr::memchr(b'"', &self.buf[start..end]).is_none() {
                            break 'fields start;
                        }
                    }
                    if self.buf.get(start) == Some(&b'"') {
                        at = start;
                        continue 'fields;
                    }
                }
                chunk += 8;
            }
            self.fields.push(span(start, end));
            return Ok(());
        };
        // The rest of the record, uncut.
        self.fields.push(span(rest, self.record_end()));
        Ok(())
    }

    /// Where the record's bytes end: before its `\n` or `\r\n`.
    fn record_end(&self) -> usize {
        let mut end = self.buf.len();
        if end > 0 && self.buf[end - 1] == b'\n' {
            end -= 1;
        }
        if end > 0 && self.buf[end - 1] == b'\r' {
            end -= 1;
        }
        end
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

/// Where `byte` first is in `bytes`: looked for a byte at a time over the first few, where a
/// quoted field's next quote or comma mostly is (a vector search's setup cost more than the
/// search), then by `memchr`.
fn near(byte: u8, bytes: &[u8]) -> Option<usize> {
    const NEAR: usize = 16;
    let head = &bytes[..bytes.len().min(NEAR)];
    match head.iter().position(|&b| b == byte) {
        Some(at) => Some(at),
        None if bytes.len() > NEAR => memchr::memchr(byte, &bytes[NEAR..]).map(|at| NEAR + at),
        None => None,
    }
}

/// The high bit of each byte of `word` that is a comma, and no other bit: the bytes equal to
/// `,` are zero after the `xor`, and only a zero byte keeps its high bit clear through the
/// `add` and the `or` (no carry crosses bytes, as each holds at most 0x7f + 0x7f).
fn commas_in(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ 0x2c2c_2c2c_2c2c_2c2c;
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
    fn commas_are_found_in_every_byte_and_nothing_else() {
        for at in 0..8 {
            let mut word = *b"ab\x00\xff\x7f\x80-.";
            word[at] = b',';
            assert_eq!(commas_in(u64::from_le_bytes(word)), 0x80 << (8 * at));
        }
        assert_eq!(
            commas_in(u64::from_le_bytes(*b",,,,,,,,")),
            0x8080_8080_8080_8080
        );
        assert_eq!(commas_in(u64::from_le_bytes(*b"+-+-\xac\xad\x2d\x0c")), 0);
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
}
