//! Making strings from files and child processes safe to print on a terminal.

use std::borrow::Cow;

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

fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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
    fn multiline_text_keeps_its_line_breaks_only() {
        assert_eq!(
            sanitize_lines("a: bad\n  hint: x\x1b[2J"),
            "a: bad\n  hint: x\\u{1b}[2J"
        );
        assert_eq!(sanitize_lines("a\r\nb\rc"), "a\nb\\u{d}c");
    }
}
