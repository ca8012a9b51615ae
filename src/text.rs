//! Making strings from files and child processes safe to print on a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Replaces control characters (C0, DEL, C1 — so ESC and every escape sequence) with visible
/// `\u{..}` escapes; tabs become a space. Ordinary text, including non-ASCII, is unchanged.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c` as [`sanitize`] shows it: a tab as a space, a control or invisible format
/// character as a `\u{..}` escape.
fn push_visible(out: &mut String, c: char) {
    match c {
        '\t' => out.push(' '),
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// [`sanitize_text`] as a writer: text written to it reaches `inner` with the same characters
/// made visible, for outputs too big to hold as one string. The first write error is kept
/// for [`TextWriter::finish`].
pub struct TextWriter<W: std::io::Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> TextWriter<W> {
    /// Writes to `inner`.
    pub fn new(inner: W) -> Self {
        TextWriter { inner, error: None }
    }

    /// Flushes `inner`; the first write error if there was one.
    pub fn finish(mut self) -> std::io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.inner.flush(),
        }
    }
}

impl<W: std::io::Write> std::fmt::Write for TextWriter<W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.error.is_some() {
            return Err(std::fmt::Error);
        }
        let written = if s.chars().any(|c| c != '\n' && is_unsafe(c)) {
            let mut visible = String::with_capacity(s.len() + 8);
            for c in s.chars() {
                match c {
                    '\n' => visible.push(c),
                    c => push_visible(&mut visible, c),
                }
            }
            self.inner.write_all(visible.as_bytes())
        } else {
            self.inner.write_all(s.as_bytes())
        };
        written.map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// A CSV cell of text from an input: controls made visible ([`sanitize`]) and a cell that a
/// spreadsheet would take for a formula (starting `=`, `+`, `-` or `@`) kept as text with a
/// leading `'`. Numbers skope computes are written as they are.
pub fn csv_cell(s: &str) -> String {
    let clean = sanitize(s).into_owned();
    if clean.starts_with(['=', '+', '-', '@']) {
        format!("'{clean}")
    } else {
        clean
    }
}

/// Like [`sanitize`], but keeps line breaks: each line is sanitised on its own (so a `\r` or
/// an escape sequence inside a line is still made visible).
pub fn sanitize_lines(s: &str) -> String {
    s.lines().map(sanitize).collect::<Vec<_>>().join("\n")
}

/// Like [`sanitize`], but keeps line breaks (`\n`) as they are: for whole outputs — reports,
/// tables, CSV — whose lines skope makes and whose strings come from inputs.
pub fn sanitize_text(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c != '\n' && is_unsafe(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.split('\n').map(sanitize).collect::<Vec<_>>().join("\n"))
}

/// JSON text with every character a terminal could act on written as a `\uXXXX` escape: the
/// same JSON value, safe to print. serde_json escapes C0 controls itself; this adds DEL, C1
/// controls, bidi marks, overrides and isolates, U+061C and the line and paragraph separators
/// (which also break JavaScript readers). Outside strings JSON holds only ASCII punctuation,
/// so escaping everywhere only touches strings.
pub fn json_safe(json: String) -> String {
    if !json.chars().any(json_unsafe) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 16);
    push_json_safe(&json, &mut out);
    out
}

/// Appends `s` to `out` with the characters [`json_safe`] escapes written as `\uXXXX`.
fn push_json_safe(s: &str, out: &mut String) {
    for c in s.chars() {
        if json_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
}

/// [`json_safe`] as a writer, for JSON too big to hold as one string: JSON text written to it
/// reaches `inner` with the same characters escaped. The bytes of a character split between
/// two writes wait for the rest.
pub struct JsonSafeWriter<W: std::io::Write> {
    inner: W,
    /// The start of a character whose other bytes are still to come.
    pending: Vec<u8>,
}

impl<W: std::io::Write> JsonSafeWriter<W> {
    /// Writes to `inner`.
    pub fn new(inner: W) -> Self {
        JsonSafeWriter {
            inner,
            pending: Vec::new(),
        }
    }

    /// Passes on the UTF-8 text at the start of `bytes`, escaped; returns how many bytes it
    /// took (all but an incomplete character at the end; bytes that are not UTF-8 at all
    /// pass unchanged).
    fn pass(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let (text, taken) = match std::str::from_utf8(bytes) {
            Ok(text) => (text, bytes.len()),
            Err(e) => {
                let valid = e.valid_up_to();
                // UTF-8 up to `valid` by definition: never the default.
                let text = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                match e.error_len() {
                    None => (text, valid),
                    Some(bad) => {
                        self.write_text(text)?;
                        self.inner.write_all(&bytes[valid..valid + bad])?;
                        return Ok(valid + bad);
                    }
                }
            }
        };
        self.write_text(text)?;
        Ok(taken)
    }

    fn write_text(&mut self, text: &str) -> std::io::Result<()> {
        if !text.chars().any(json_unsafe) {
            return self.inner.write_all(text.as_bytes());
        }
        let mut escaped = String::with_capacity(text.len() + 16);
        push_json_safe(text, &mut escaped);
        self.inner.write_all(escaped.as_bytes())
    }
}

impl<W: std::io::Write> std::io::Write for JsonSafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut rest = buf;
        if !self.pending.is_empty() {
            // Complete the waiting character with at most three more bytes.
            let need = (4 - self.pending.len()).min(rest.len());
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(&rest[..need]);
            let taken = self.pass(&joined)?;
            if taken == 0 {
                // Still incomplete (`buf` was shorter than the rest of it): keep waiting.
                self.pending = joined;
                return Ok(buf.len());
            }
            let from_pending = joined.len() - need;
            if taken >= from_pending {
                rest = &rest[taken - from_pending..];
            } else {
                // The waiting bytes were not UTF-8 after all: the rest of them go out as they are.
                self.inner.write_all(&joined[taken..from_pending])?;
            }
        }
        while !rest.is_empty() {
            let taken = self.pass(rest)?;
            if taken == 0 {
                self.pending.extend_from_slice(rest);
                break;
            }
            rest = &rest[taken..];
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

fn json_unsafe(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{61c}' | '\u{2028}' | '\u{2029}') || invisible_format(c)
}

/// Zero-width and bidi formatting characters: text that reads differently from what it is.
fn invisible_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{61c}')
}

fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || invisible_format(c)
}

/// `s` in at most `max` characters: when longer, its middle gives way to `…` (names differ
/// at both ends: `layer1_w_gate_up` and `layer1_w_gate_down`). Linear in the length of `s`.
pub fn cut_middle(s: &str, max: usize) -> Cow<'_, str> {
    let count = s.chars().count();
    if count <= max {
        return Cow::Borrowed(s);
    }
    let keep = max.saturating_sub(1);
    let (head, tail) = (keep - keep / 2, keep / 2);
    let head_end = s.char_indices().nth(head).map_or(s.len(), |(i, _)| i);
    let tail_start = match tail {
        0 => s.len(),
        n => s.char_indices().rev().nth(n - 1).map_or(0, |(i, _)| i),
    };
    Cow::Owned(format!("{}…{}", &s[..head_end], &s[tail_start..]))
}

/// `s` in about `max` bytes when it is longer (`None` when it is not): its first half and last
/// quarter (at character boundaries) around `…#<hash of the whole>…`. The same string always
/// gives the same result and different ones practically never do, so cut names still tell
/// apart and still match each other — while one huge string cannot multiply into gigabytes as
/// it is copied.
pub fn bounded(s: &str, max: usize) -> Option<String> {
    if s.len() <= max {
        return None;
    }
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut hasher);
    let mut head = max / 2;
    while !s.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = s.len() - max / 4;
    while !s.is_char_boundary(tail) {
        tail += 1;
    }
    Some(format!(
        "{}…#{:016x}…{}",
        &s[..head],
        hasher.finish(),
        &s[tail..]
    ))
}

/// `n` with `noun`, in the plural unless `n` is one (`1 warning`, `2 warnings`, `0 errors`).
/// For nouns whose plural adds an `s`.
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A size in bytes for people: `12.1 kB`, `104.9 MB`, `1.07 GB` (decimal units, as `ls -h
/// --si`).
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} kB", b / 1e3)
    }
}

/// A time spent, for people: `12.3 s`, `4 min 05 s`, `2 h 03 min`.
pub fn duration(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{:.1} s", d.as_secs_f64())
    } else if secs < 3600 {
        format!("{} min {:02} s", secs / 60, secs % 60)
    } else {
        format!("{} h {:02} min", secs / 3600, secs % 3600 / 60)
    }
}

/// Why a file could not be read as text.
#[derive(Debug)]
pub enum ReadTextError {
    /// Reading failed.
    Io(std::io::Error),
    /// It is not UTF-8: where the first bad byte is.
    NotUtf8 {
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters) of the bad byte.
        col: usize,
        /// The bad byte.
        byte: u8,
    },
}

impl std::fmt::Display for ReadTextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadTextError::Io(e) => write!(f, "cannot read it: {e}"),
            ReadTextError::NotUtf8 { byte, .. } => write!(
                f,
                "not UTF-8 text: byte 0x{byte:02x} here cannot start or continue a character \
                 (save the file as UTF-8)"
            ),
        }
    }
}

impl ReadTextError {
    /// The 1-based line and column it is at, when it has a place.
    pub fn at(&self) -> Option<(usize, usize)> {
        match self {
            ReadTextError::Io(_) => None,
            ReadTextError::NotUtf8 { line, col, .. } => Some((*line, *col)),
        }
    }
}

/// The file at `path` as text; a file that is not UTF-8 is refused with the line and column of
/// its first bad byte.
pub fn read_utf8(path: &std::path::Path) -> Result<String, ReadTextError> {
    let bytes = std::fs::read(path).map_err(ReadTextError::Io)?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        // The valid prefix is text: its end is the place.
        let before = std::str::from_utf8(&bytes[..good]).unwrap_or_default();
        let (line, col) = line_col(before, good);
        ReadTextError::NotUtf8 {
            line,
            col,
            byte: bytes.get(good).copied().unwrap_or_default(),
        }
    })
}

/// The 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, col)
}

/// Levenshtein distance over chars (for "did you mean" suggestions).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// serde_json's message for `e` without the ` at line L column C` it ends with: skope gives the
/// place itself, up front.
pub fn json_error_words(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) if e.line() > 0 => text[..at].to_string(),
        _ => text,
    }
}

/// A size as `--max-size` takes it: bytes, or a number with `K`, `M`, `G` or `T` (powers of
/// 1024; `KiB`, `MB`… read the same).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = text[digits.len()..].to_ascii_uppercase();
    let shift = match unit.trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("unknown unit {unit:?}: use K, M, G or T")),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 1500000000, 1500M, 2G)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "warning"), "1 warning");
        assert_eq!(counted(0, "error"), "0 errors");
        assert_eq!(counted(2, "op"), "2 ops");
    }

    #[test]
    fn the_text_writer_shows_what_sanitize_text_shows_and_keeps_its_error() {
        use std::fmt::Write as _;
        let text = "a\x1b[31m\tb\nc\u{202e}d\n";
        let mut out = TextWriter::new(Vec::new());
        for piece in text.split_inclusive('m') {
            out.write_str(piece).unwrap();
        }
        assert_eq!(
            String::from_utf8(out.inner.clone()).unwrap(),
            sanitize_text(text)
        );
        assert!(out.finish().is_ok());
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut out = TextWriter::new(Full);
        assert!(out.write_str("x").is_err());
        assert!(out.write_str("y").is_err());
        assert_eq!(out.finish().unwrap_err().to_string(), "disk full");
    }

    #[test]
    fn the_json_writer_escapes_as_json_safe_does_however_the_text_is_cut() {
        use std::io::Write as _;
        let json = "{\"a\": \"é中😀 \u{2028} \u{202e}x\u{7f}\u{85}\"}".to_string();
        let whole = json_safe(json.clone());
        assert!(
            whole.contains("\\u2028") && whole.contains("\\u202e") && whole.contains("\\u0085")
        );
        for piece in 1..=7 {
            let mut out = JsonSafeWriter::new(Vec::new());
            for chunk in json.as_bytes().chunks(piece) {
                out.write_all(chunk).unwrap();
            }
            out.flush().unwrap();
            assert_eq!(
                String::from_utf8(out.inner).unwrap(),
                whole,
                "pieces of {piece}"
            );
        }
        // Bytes that are not UTF-8 pass unchanged, however they arrive.
        for piece in 1..=3 {
            let mut out = JsonSafeWriter::new(Vec::new());
            for chunk in b"a\xE2\x28\xA1b\xF0".chunks(piece) {
                out.write_all(chunk).unwrap();
            }
            out.flush().unwrap();
            assert_eq!(out.inner, b"a\xE2\x28\xA1b\xF0", "pieces of {piece}");
        }
    }

    #[test]
    fn escapes_and_controls_become_visible() {
        assert_eq!(sanitize("MatMul_1"), "MatMul_1");
        assert_eq!(sanitize("时间"), "时间");
        assert_eq!(sanitize("a\x1b[31mb"), "a\\u{1b}[31mb");
        assert_eq!(sanitize("a\nb\tc"), "a\\u{a}b c");
        assert_eq!(sanitize("x\u{9b}y\u{202e}z"), "x\\u{9b}y\\u{202e}z");
    }

    #[test]
    fn json_keeps_its_value_and_loses_what_a_terminal_acts_on() {
        let value =
            "a\u{1b}]52;c;eA==\u{7}\u{9b}2J\u{202e}\u{2066}\u{61c}\u{2028}\u{2029}\u{7f}时间";
        let json = json_safe(serde_json::to_string(value).unwrap_or_default());
        assert_eq!(
            json,
            "\"a\\u001b]52;c;eA==\\u0007\\u009b2J\\u202e\\u2066\\u061c\\u2028\\u2029\\u007f时间\""
        );
        let back: String = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, value);
    }

    #[test]
    fn whole_outputs_keep_their_lines_and_lose_controls() {
        assert_eq!(sanitize_text("a\tb\nc\u{1b}[2J\n"), "a b\nc\\u{1b}[2J\n");
        assert_eq!(sanitize_text("x\u{2028}y"), "x\\u{2028}y");
        assert!(matches!(sanitize_text("plain\ntext"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_file_that_is_not_utf8_is_refused_at_its_first_bad_byte() {
        let dir = crate::scratch::scratch("text");
        let path = dir.join("latin1.toml");
        let _ = std::fs::write(&path, b"a = 1\nname = \"caf\xe9\"\n");
        match read_utf8(&path) {
            Err(e @ ReadTextError::NotUtf8 { byte: 0xe9, .. }) => {
                assert_eq!(e.at(), Some((2, 12)));
                assert!(e.to_string().contains("0xe9"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn long_strings_lose_their_middle() {
        assert_eq!(cut_middle("short", 10), "short");
        assert_eq!(cut_middle("layer1_w_gate_down", 11), "layer…_down");
        assert_eq!(cut_middle("时间时间时间", 4), "时间…间");
        assert_eq!(cut_middle("abc", 1), "…");
        assert_eq!(cut_middle("abcd", 2), "a…");
        let huge = "x".repeat(1_000_000);
        assert_eq!(cut_middle(&huge, 60).chars().count(), 60);
    }

    #[test]
    fn multiline_text_keeps_its_line_breaks_only() {
        assert_eq!(
            sanitize_lines("a: bad\n  hint: x\x1b[2J"),
            "a: bad\n  hint: x\\u{1b}[2J"
        );
        assert_eq!(sanitize_lines("a\r\nb\rc"), "a\nb\\u{d}c");
    }
}
