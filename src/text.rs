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
        match c {
            '\t' => out.push(' '),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
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
    for c in json.chars() {
        if json_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
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

/// A size in bytes for people: `104.9 MB`, `1.07 GB` (decimal units, as `ls -h --si`).
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else {
        format!("{:.1} MB", b / 1e6)
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let dir = std::env::temp_dir().join(format!("skope-text-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
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
