//! A tolerant C++ tokenizer for AscendC operator sources: enough to find kernels, their
//! attributes, `SK_BIND` invocations, calls and launches, never enough to compile. Comments,
//! strings (raw ones too) and character literals are skipped; a preprocessor line (with its
//! `\` continuations) is kept whole as one token, so a `#define` can be read and nothing in it is
//! taken for code. Anything else it does not know is one punctuation token: no input stops it.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An identifier or keyword.
    Ident,
    /// A number.
    Number,
    /// A string or character literal.
    Literal,
    /// A preprocessor line, whole.
    Directive,
    /// Punctuation (`<<<` and `>>>` are one token each).
    Punct,
}

/// A token and the 1-based line it starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// Its text.
    pub text: &'a str,
    /// What it is.
    pub kind: Kind,
    /// The line it starts on.
    pub line: usize,
}

/// The tokens of `src`.
pub fn tokenize(src: &str) -> Vec<Token<'_>> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // True while only whitespace came since the line began: a `#` there starts a directive.
    let mut line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let start_line = line;
        match c {
            b'\n' => {
                line += 1;
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    line += usize::from(bytes[i] == b'\n');
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                continue;
            }
            b'#' if line_start => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\n') {
                        line += 1;
                        i += 1;
                    }
                    i += 1;
                }
                push(&mut out, src, start, i, Kind::Directive, start_line);
                continue;
            }
            b'R' if bytes.get(i + 1) == Some(&b'"') => {
                i = raw_string_end(bytes, i + 2, &mut line);
                push(&mut out, src, start, i, Kind::Literal, start_line);
            }
            b'"' | b'\'' => {
                i = quoted_end(bytes, i);
                push(&mut out, src, start, i, Kind::Literal, start_line);
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                while i < bytes.len()
                    && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric() || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                push(&mut out, src, start, i, Kind::Ident, start_line);
            }
            c if c.is_ascii_digit() => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'\'')
                {
                    i += 1;
                }
                push(&mut out, src, start, i, Kind::Number, start_line);
            }
            _ => {
                let three = src.get(i..i + 3);
                let two = src.get(i..i + 2);
                i += match (three, two) {
                    (Some("<<<" | ">>>"), _) => 3,
                    (_, Some("::" | "->" | "||" | "&&" | "<<" | ">>")) => 2,
                    _ => 1,
                };
                // Never split a character: move on to the next boundary.
                while i < bytes.len() && !src.is_char_boundary(i) {
                    i += 1;
                }
                push(&mut out, src, start, i, Kind::Punct, start_line);
            }
        }
        line_start = false;
    }
    out
}

fn push<'a>(
    out: &mut Vec<Token<'a>>,
    src: &'a str,
    from: usize,
    to: usize,
    kind: Kind,
    line: usize,
) {
    if let Some(text) = src.get(from..to.min(src.len())) {
        out.push(Token { text, kind, line });
    }
}

/// The end of a string or character literal opened at `at` (past its closing quote, or the
/// line's end when it has none: a stray quote does not swallow the file).
fn quoted_end(bytes: &[u8], at: usize) -> usize {
    let quote = bytes[at];
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a raw string whose delimiter starts at `at` (after `R"`).
fn raw_string_end(bytes: &[u8], at: usize, line: &mut usize) -> usize {
    let Some(open) = bytes[at..].iter().take(17).position(|&b| b == b'(') else {
        return at;
    };
    let delim = &bytes[at..at + open];
    let mut i = at + open + 1;
    while i < bytes.len() {
        if bytes[i] == b')'
            && bytes.get(i + 1..i + 1 + delim.len()) == Some(delim)
            && bytes.get(i + 1 + delim.len()) == Some(&b'"')
        {
            return i + delim.len() + 2;
        }
        *line += usize::from(bytes[i] == b'\n');
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<(&str, usize)> {
        tokenize(src).iter().map(|t| (t.text, t.line)).collect()
    }

    #[test]
    fn comments_strings_and_directives_hide_what_is_in_them() {
        let src = "a /* SK_BIND(x, 1, y) \n */ b // SK_BIND\n\"SK_BIND(\" 'x' R\"d(\n)\" )d\" c\n#define M(x) \\\n  SK_BIND(x)\nk<<<1, 2>>>(p);";
        let t = tokenize(src);
        assert!(t.iter().all(|t| t.text != "SK_BIND"), "{t:?}");
        assert_eq!(&texts(src)[..2], [("a", 1), ("b", 2)]);
        assert!(texts(src).contains(&("c", 4)));
        assert!(
            t.iter()
                .any(|t| t.kind == Kind::Directive && t.text.contains("SK_BIND(x)"))
        );
        assert!(texts(src).contains(&("<<<", 7)) && texts(src).contains(&(">>>", 7)));
    }

    #[test]
    fn anything_at_all_is_tokens() {
        for src in ["\"unterminated", "/* open", "R\"(", "é∂ƒ'", "#", "\\\n"] {
            let _ = tokenize(src);
        }
    }
}
