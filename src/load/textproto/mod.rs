//! A schema-less pull reader for the protobuf text format.
//!
//! It accepts everything protobuf's own printers emit (`field: value`, `field { }` and
//! `field < >`, an optional colon before a message, `[a, b]` lists, `#` comments, adjacent
//! string concatenation, single- and double-quoted strings with every C escape, enum
//! identifiers, signed, hex, octal and float numbers including `inf`/`nan`) without knowing
//! the message types. Callers walk the input field by field and decide per field name what
//! to do; nothing is allocated for fields they skip.
//!
//! The reader is iterative, so deeply nested input cannot overflow the stack: nesting beyond
//! [`MAX_DEPTH`] is reported as an error.

mod scalar;

pub use scalar::{Scalar, unescape};

/// Deepest nesting of messages and lists accepted before the input is rejected.
pub const MAX_DEPTH: usize = 100;

/// A syntax or value error at a byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset in the input where the problem is.
    pub offset: usize,
    /// What was wrong, phrased as "expected X, found Y" where possible.
    pub message: String,
}

impl SyntaxError {
    /// An error at `offset` with the given message.
    pub fn new(offset: usize, message: impl Into<String>) -> Self {
        SyntaxError {
            offset,
            message: message.into(),
        }
    }
}

/// Result alias for the reader.
pub type Result<T> = std::result::Result<T, SyntaxError>;

/// One field read from the input.
#[derive(Debug, Clone)]
pub struct Field<'a> {
    /// The field name (for extensions, the bracketed name without brackets).
    pub name: &'a str,
    /// Byte offset of the field name.
    pub offset: usize,
    /// Its value.
    pub value: Value<'a>,
}

/// The value of a field: a scalar, or the start of a nested message.
#[derive(Debug, Clone)]
pub enum Value<'a> {
    /// A string, number or identifier.
    Scalar(Scalar<'a>),
    /// A nested message has been opened: read its fields with [`Reader::next_field`] until it
    /// returns `None`, or skip it with [`Reader::skip_message`].
    Message,
}

impl<'a> Field<'a> {
    /// The scalar value, or an error naming the field when it is a message.
    pub fn scalar(&self) -> Result<&Scalar<'a>> {
        match &self.value {
            Value::Scalar(s) => Ok(s),
            Value::Message => Err(SyntaxError::new(
                self.offset,
                format!(
                    "expected a value for field '{}', found a message",
                    self.name
                ),
            )),
        }
    }

    /// Fails unless the value is a message (which the caller then reads).
    pub fn expect_message(&self) -> Result<()> {
        match self.value {
            Value::Message => Ok(()),
            Value::Scalar(_) => Err(SyntaxError::new(
                self.offset,
                format!(
                    "expected a message for field '{}', found a value",
                    self.name
                ),
            )),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Frame<'a> {
    /// Inside a message; `close` is `}` or `>`, `open` the offset of the opening bracket.
    Message { close: u8, open: usize },
    /// Inside `name: [ ... ]`; `first` is true until the first element was read.
    List {
        name: &'a str,
        name_offset: usize,
        first: bool,
        open: usize,
    },
}

/// A place in the input with the messages open there.
#[derive(Debug, Clone)]
pub struct Mark<'a> {
    pos: usize,
    frames: Vec<Frame<'a>>,
}

impl<'a> Mark<'a> {
    /// The same messages open, at `pos`, with the innermost one closed: to go on reading its
    /// parent from elsewhere.
    pub fn outer_at(mut self, pos: usize) -> Mark<'a> {
        self.frames.pop();
        self.pos = pos;
        self
    }
}

/// Pull reader over protobuf text.
pub struct Reader<'a> {
    src: &'a [u8],
    pos: usize,
    frames: Vec<Frame<'a>>,
}

impl<'a> Reader<'a> {
    /// A reader over the whole input, positioned before the first top-level field.
    pub fn new(src: &'a [u8]) -> Self {
        Reader {
            src,
            pos: 0,
            frames: Vec::new(),
        }
    }

    /// The current byte offset.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The whole input.
    pub fn source(&self) -> &'a [u8] {
        self.src
    }

    /// Where the reader is, to come back to with [`Reader::reset`].
    pub fn mark(&self) -> Mark<'a> {
        Mark {
            pos: self.pos,
            frames: self.frames.clone(),
        }
    }

    /// Goes back to `mark`.
    pub fn reset(&mut self, mark: Mark<'a>) {
        self.pos = mark.pos;
        self.frames = mark.frames;
    }

    /// A reader over `src[..end]` at `start`, at top level: for one part of a message's
    /// fields, whose errors keep their offsets in the whole input.
    pub fn part(src: &'a [u8], start: usize, end: usize) -> Self {
        Reader {
            src: &src[..end.min(src.len())],
            pos: start.min(end),
            frames: Vec::new(),
        }
    }

    /// Reads the next field of the current message. Returns `None` when the current message
    /// is closed (or, at top level, at the end of the input).
    pub fn next_field(&mut self) -> Result<Option<Field<'a>>> {
        if let Some(Frame::List { .. }) = self.frames.last() {
            return self.next_list_element();
        }
        self.skip_blank();
        let Some(&c) = self.src.get(self.pos) else {
            return match self.frames.last() {
                None => Ok(None),
                Some(Frame::Message { close, open }) => Err(SyntaxError::new(
                    self.pos,
                    format!(
                        "unexpected end of input, expected '{}' to close the message opened at {}",
                        *close as char,
                        LineCol::of(self.src, *open)
                    ),
                )),
                Some(Frame::List { .. }) => unreachable_list(self.pos),
            };
        };
        if c == b'}' || c == b'>' {
            return match self.frames.last() {
                Some(Frame::Message { close, .. }) if *close == c => {
                    self.frames.pop();
                    self.pos += 1;
                    self.skip_separator();
                    Ok(None)
                }
                Some(Frame::Message { close, .. }) => Err(SyntaxError::new(
                    self.pos,
                    format!(
                        "expected a field name or '{}', found '{}'",
                        *close as char, c as char
                    ),
                )),
                _ => Err(SyntaxError::new(
                    self.pos,
                    format!(
                        "expected a field name, found '{}' with no message open",
                        c as char
                    ),
                )),
            };
        }
        let offset = self.pos;
        let name = self.field_name()?;
        self.skip_blank();
        let had_colon = self.eat(b':');
        if had_colon {
            self.skip_blank();
        }
        match self.src.get(self.pos) {
            Some(b'{') | Some(b'<') => {
                let value = self.open_message()?;
                Ok(Some(Field {
                    name,
                    offset,
                    value,
                }))
            }
            // `name: [1, 2]`, and for messages also `name [{…}, {…}]` without a colon.
            Some(b'[') => {
                let open = self.pos;
                self.pos += 1;
                self.push(Frame::List {
                    name,
                    name_offset: offset,
                    first: true,
                    open,
                })?;
                self.next_list_element()
            }
            _ if had_colon => {
                let scalar = self.scalar()?;
                self.skip_separator();
                Ok(Some(Field {
                    name,
                    offset,
                    value: Value::Scalar(scalar),
                }))
            }
            other => Err(SyntaxError::new(
                self.pos,
                format!(
                    "expected ':' or '{{' after field name '{name}', found {}",
                    describe(other)
                ),
            )),
        }
    }

    /// Skips the rest of the message most recently opened (after a field whose value was
    /// [`Value::Message`]), including everything nested in it.
    pub fn skip_message(&mut self) -> Result<()> {
        let target = self.frames.len().saturating_sub(1);
        while self.frames.len() > target {
            self.next_field()?;
        }
        Ok(())
    }

    /// Skips the value of `field` if it is a message; scalars need no skipping.
    pub fn skip(&mut self, field: &Field<'a>) -> Result<()> {
        match field.value {
            Value::Message => self.skip_message(),
            Value::Scalar(_) => Ok(()),
        }
    }

    fn next_list_element(&mut self) -> Result<Option<Field<'a>>> {
        let Some(Frame::List {
            name,
            name_offset,
            first,
            open,
        }) = self.frames.last().copied()
        else {
            return unreachable_list(self.pos);
        };
        self.skip_blank();
        match self.src.get(self.pos) {
            Some(b']') => {
                self.frames.pop();
                self.pos += 1;
                self.skip_separator();
                return self.next_field();
            }
            Some(b',') if !first => {
                self.pos += 1;
                self.skip_blank();
            }
            None => {
                return Err(SyntaxError::new(
                    self.pos,
                    format!(
                        "unexpected end of input, expected ']' to close the list opened at {}",
                        LineCol::of(self.src, open)
                    ),
                ));
            }
            other if !first => {
                return Err(SyntaxError::new(
                    self.pos,
                    format!(
                        "expected ',' or ']' in the list of '{name}', found {}",
                        describe(other)
                    ),
                ));
            }
            _ => {}
        }
        if let Some(Frame::List { first, .. }) = self.frames.last_mut() {
            *first = false;
        }
        let value = match self.src.get(self.pos) {
            Some(b'{') | Some(b'<') => self.open_message()?,
            _ => Value::Scalar(self.scalar()?),
        };
        Ok(Some(Field {
            name,
            offset: name_offset,
            value,
        }))
    }

    fn open_message(&mut self) -> Result<Value<'a>> {
        let open = self.pos;
        let close = if self.src[self.pos] == b'{' {
            b'}'
        } else {
            b'>'
        };
        self.pos += 1;
        self.push(Frame::Message { close, open })?;
        Ok(Value::Message)
    }

    fn push(&mut self, frame: Frame<'a>) -> Result<()> {
        if self.frames.len() >= MAX_DEPTH {
            return Err(SyntaxError::new(
                self.pos,
                format!("nesting deeper than {MAX_DEPTH} levels; the file is not a graph dump"),
            ));
        }
        self.frames.push(frame);
        Ok(())
    }

    fn field_name(&mut self) -> Result<&'a str> {
        let start = self.pos;
        if self.eat(b'[') {
            // Extension or Any type URL: `[pkg.ext]`, `[type.googleapis.com/pkg.Msg]`.
            let begin = self.pos;
            while let Some(&c) = self.src.get(self.pos) {
                if c == b']' {
                    let name = ascii_str(&self.src[begin..self.pos]);
                    self.pos += 1;
                    return Ok(name);
                }
                if !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'-')) {
                    break;
                }
                self.pos += 1;
            }
            return Err(SyntaxError::new(
                self.pos,
                format!(
                    "expected ']' to end the extension name, found {}",
                    describe(self.src.get(self.pos))
                ),
            ));
        }
        match self.src.get(self.pos) {
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {}
            other => {
                return Err(SyntaxError::new(
                    start,
                    format!("expected a field name, found {}", describe(other)),
                ));
            }
        }
        while let Some(c) = self.src.get(self.pos) {
            if c.is_ascii_alphanumeric() || *c == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        Ok(ascii_str(&self.src[start..self.pos]))
    }

    fn scalar(&mut self) -> Result<Scalar<'a>> {
        let start = self.pos;
        match self.src.get(self.pos) {
            Some(b'"') | Some(b'\'') => {
                self.string_literal()?;
                // Adjacent literals concatenate: "ab" 'cd' "ef".
                loop {
                    let end = self.pos;
                    self.skip_blank();
                    if matches!(self.src.get(self.pos), Some(b'"') | Some(b'\'')) {
                        self.string_literal()?;
                    } else {
                        self.pos = end;
                        break;
                    }
                }
                Ok(Scalar::string(&self.src[start..self.pos], start))
            }
            Some(b'-') | Some(b'+') | Some(b'0'..=b'9') | Some(b'.') => {
                self.pos += 1;
                if matches!(self.src[start], b'-' | b'+') {
                    self.skip_blank();
                }
                self.number_tail();
                Ok(Scalar::number(&self.src[start..self.pos], start))
            }
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                while let Some(c) = self.src.get(self.pos) {
                    if c.is_ascii_alphanumeric() || *c == b'_' {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                Ok(Scalar::identifier(&self.src[start..self.pos], start))
            }
            other => Err(SyntaxError::new(
                start,
                format!(
                    "expected a value (string, number or identifier), found {}",
                    describe(other)
                ),
            )),
        }
    }

    fn number_tail(&mut self) {
        while let Some(&c) = self.src.get(self.pos) {
            let exponent_sign = matches!(c, b'+' | b'-')
                && matches!(self.src.get(self.pos - 1), Some(b'e') | Some(b'E'));
            if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || exponent_sign {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Consumes one quoted literal, checking that it is closed on the same line.
    fn string_literal(&mut self) -> Result<()> {
        let open = self.pos;
        let quote = self.src[self.pos];
        self.pos += 1;
        let rest = &self.src[self.pos..];
        let mut i = 0;
        while i < rest.len() {
            match rest[i] {
                b'\\' => i += 2,
                b'\n' => break,
                c if c == quote => {
                    self.pos += i + 1;
                    return Ok(());
                }
                _ => i += 1,
            }
        }
        let message = if i >= rest.len() {
            format!(
                "unexpected end of input inside a string: expected a closing {}",
                quote as char
            )
        } else {
            format!(
                "unterminated string: expected a closing {} on the same line",
                quote as char
            )
        };
        Err(SyntaxError::new(open, message))
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.src.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Skips a `,` or `;` that may follow a field (both are legal separators).
    fn skip_separator(&mut self) {
        if let Some(Frame::List { .. }) = self.frames.last() {
            return;
        }
        self.skip_blank();
        if matches!(self.src.get(self.pos), Some(b',') | Some(b';')) {
            self.pos += 1;
        }
    }

    /// Skips whitespace and `#` comments.
    fn skip_blank(&mut self) {
        let src = self.src;
        let mut pos = self.pos;
        while pos < src.len() {
            match src[pos] {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => pos += 1,
                b'#' => {
                    while pos < src.len() && src[pos] != b'\n' {
                        pos += 1;
                    }
                }
                _ => break,
            }
        }
        self.pos = pos;
    }
}

fn unreachable_list<T>(offset: usize) -> Result<T> {
    Err(SyntaxError::new(
        offset,
        "internal reader state error in list",
    ))
}

/// The bytes were checked to be ASCII identifier characters by the caller.
fn ascii_str(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or("")
}

/// Describes the byte at a position for an error message ("'x'", "end of input", "byte 0x00").
pub fn describe(byte: Option<&u8>) -> String {
    match byte {
        None => "end of input".to_string(),
        Some(&c) if c.is_ascii_graphic() => format!("'{}'", c as char),
        Some(b' ') => "a space".to_string(),
        Some(b'\n') => "end of line".to_string(),
        Some(&c) => format!("byte 0x{c:02x}"),
    }
}

/// A 1-based line and column (in characters) of a byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub col: usize,
}

impl LineCol {
    /// Computes the line and column of `offset` in `src`.
    pub fn of(src: &[u8], offset: usize) -> LineCol {
        let offset = offset.min(src.len());
        let before = &src[..offset];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let col = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        LineCol { line, col }
    }
}

impl std::fmt::Display for LineCol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

#[cfg(test)]
mod tests;
