//! Scalar values of the protobuf text format and their decoding (escapes, numbers, booleans).

use super::{Result, SyntaxError, describe};
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One or more adjacent quoted literals, quotes included.
    Str,
    /// A number token, sign included.
    Number,
    /// An identifier: enum value, `true`/`false`, `inf`/`nan`.
    Ident,
}

/// A scalar token exactly as it appears in the input; decoded on demand.
#[derive(Debug, Clone, Copy)]
pub struct Scalar<'a> {
    kind: Kind,
    raw: &'a [u8],
    offset: usize,
}

impl<'a> Scalar<'a> {
    pub(super) fn string(raw: &'a [u8], offset: usize) -> Self {
        Scalar {
            kind: Kind::Str,
            raw,
            offset,
        }
    }

    pub(super) fn number(raw: &'a [u8], offset: usize) -> Self {
        Scalar {
            kind: Kind::Number,
            raw,
            offset,
        }
    }

    pub(super) fn identifier(raw: &'a [u8], offset: usize) -> Self {
        Scalar {
            kind: Kind::Ident,
            raw,
            offset,
        }
    }

    /// Byte offset of the token in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The identifier, when the token is one (an enum value name, for example).
    pub fn ident(&self) -> Option<&'a str> {
        match self.kind {
            Kind::Ident => std::str::from_utf8(self.raw).ok(),
            _ => None,
        }
    }

    /// The decoded bytes of a string; numbers and identifiers give their text.
    pub fn bytes(&self) -> Result<Cow<'a, [u8]>> {
        if self.kind != Kind::Str {
            return Ok(Cow::Borrowed(self.raw));
        }
        let raw = self.raw;
        let quote = raw[0];
        let body = &raw[1..raw.len() - 1];
        if !body.contains(&b'\\') && !body.contains(&quote) {
            return Ok(Cow::Borrowed(body));
        }
        let mut out = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            match raw[i] {
                q @ (b'"' | b'\'') => {
                    let start = i + 1;
                    let mut end = start;
                    while raw[end] != q {
                        end += if raw[end] == b'\\' { 2 } else { 1 };
                    }
                    decode_escapes(&raw[start..end], self.offset + start, &mut out)?;
                    i = end + 1;
                }
                b'#' => {
                    while i < raw.len() && raw[i] != b'\n' {
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
        Ok(Cow::Owned(out))
    }

    /// The decoded text of a string (invalid UTF-8 is replaced, never rejected); numbers and
    /// identifiers give their text.
    pub fn text(&self) -> Result<Cow<'a, str>> {
        Ok(match self.bytes()? {
            Cow::Borrowed(b) => String::from_utf8_lossy(b),
            Cow::Owned(v) => Cow::Owned(match String::from_utf8(v) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            }),
        })
    }

    /// The value as a signed 64-bit integer (decimal, `0x` hex or leading-zero octal).
    pub fn int(&self) -> Result<i64> {
        let text = self.number_text("an integer")?;
        parse_int(text).map_err(|message| SyntaxError::new(self.offset, message))
    }

    /// The value as a float (`1.5`, `1e-3`, `2f`, `inf`, `-inf`, `nan`, integers).
    pub fn float(&self) -> Result<f64> {
        let text = match self.kind {
            Kind::Str => return Err(self.mismatch("a number")),
            _ => std::str::from_utf8(self.raw).map_err(|_| self.mismatch("a number"))?,
        };
        parse_float(text).ok_or_else(|| self.mismatch("a number"))
    }

    /// The value as a boolean (`true`/`false`, `True`/`False`, `t`/`f`, `1`/`0`).
    pub fn boolean(&self) -> Result<bool> {
        match self.raw {
            b"true" | b"True" | b"t" | b"1" => Ok(true),
            b"false" | b"False" | b"f" | b"0" => Ok(false),
            _ => Err(self.mismatch("true or false")),
        }
    }

    fn number_text(&self, what: &str) -> Result<&'a str> {
        match self.kind {
            Kind::Number => std::str::from_utf8(self.raw).map_err(|_| self.mismatch(what)),
            _ => Err(self.mismatch(what)),
        }
    }

    fn mismatch(&self, what: &str) -> SyntaxError {
        let shown: String =
            String::from_utf8_lossy(&self.raw[..self.raw.len().min(40)]).into_owned();
        SyntaxError::new(self.offset, format!("expected {what}, found {shown}"))
    }
}

fn parse_int(text: &str) -> std::result::Result<i64, String> {
    let compact: String;
    let mut t = text;
    if t.contains(char::is_whitespace) {
        compact = t.split_whitespace().collect();
        t = &compact;
    }
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, body) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex)
    } else if digits.len() > 1
        && digits.starts_with('0')
        && digits.bytes().all(|c| c.is_ascii_digit())
    {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("expected an integer, found {text}"));
    }
    let magnitude = u64::from_str_radix(body, radix)
        .map_err(|_| format!("integer {text} does not fit in 64 bits"))?;
    if negative {
        if magnitude > i64::MAX as u64 + 1 {
            return Err(format!("integer {text} is below the int64 minimum"));
        }
        Ok((magnitude as i64).wrapping_neg())
    } else {
        i64::try_from(magnitude).map_err(|_| format!("integer {text} is above the int64 maximum"))
    }
}

fn parse_float(text: &str) -> Option<f64> {
    let t: String = text.split_whitespace().collect();
    let (negative, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, &t[..]),
    };
    let lower = body.to_ascii_lowercase();
    let value = match lower.as_str() {
        "inf" | "infinity" | "inff" | "infinityf" => f64::INFINITY,
        "nan" | "nanf" => f64::NAN,
        _ => {
            let trimmed = lower
                .strip_suffix('f')
                .filter(|s| !s.starts_with("0x"))
                .unwrap_or(&lower);
            match trimmed.parse::<f64>() {
                Ok(v) => v,
                Err(_) => parse_int(trimmed).ok()? as f64,
            }
        }
    };
    Some(if negative { -value } else { value })
}

/// Decodes the C escapes of a string body (no quotes) into bytes. `offset` is the body's
/// position in the input, used for error positions.
pub fn unescape(body: &[u8], offset: usize) -> Result<Cow<'_, [u8]>> {
    if !body.contains(&b'\\') {
        return Ok(Cow::Borrowed(body));
    }
    let mut out = Vec::with_capacity(body.len());
    decode_escapes(body, offset, &mut out)?;
    Ok(Cow::Owned(out))
}

fn decode_escapes(body: &[u8], offset: usize, out: &mut Vec<u8>) -> Result<()> {
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let at = offset + i;
        let Some(&e) = body.get(i + 1) else {
            return Err(SyntaxError::new(
                at,
                "expected an escape character after '\\', found end of string",
            ));
        };
        i += 2;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'\\' | b'\'' | b'"' | b'?' | b'/' => out.push(e),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 {
                    match body.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                            n += 1;
                        }
                        _ => break,
                    }
                }
                let byte = u8::try_from(value).map_err(|_| {
                    SyntaxError::new(
                        at,
                        format!("octal escape \\{value:o} is larger than one byte"),
                    )
                })?;
                out.push(byte);
            }
            b'x' | b'X' => {
                let digits = hex_run(body, i, 2);
                if digits == 0 {
                    return Err(SyntaxError::new(at, "expected hex digits after '\\x'"));
                }
                let value = hex_value(&body[i..i + digits]);
                out.push(value as u8);
                i += digits;
            }
            b'u' | b'U' => {
                let want = if e == b'u' { 4 } else { 8 };
                if hex_run(body, i, want) != want {
                    return Err(SyntaxError::new(
                        at,
                        format!("expected {want} hex digits after '\\{}'", e as char),
                    ));
                }
                let code = hex_value(&body[i..i + want]);
                let ch = char::from_u32(code).ok_or_else(|| {
                    SyntaxError::new(
                        at,
                        format!(
                            "\\{}{:0want$X} is not a Unicode scalar value",
                            e as char, code
                        ),
                    )
                })?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += want;
            }
            other => {
                return Err(SyntaxError::new(
                    at,
                    format!(
                        "unknown escape '\\{}' (expected one of \\n \\t \\r \\\\ \\' \\\" \\NNN \\xHH \\uHHHH)",
                        describe(Some(&other)).trim_matches('\'')
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn hex_run(body: &[u8], from: usize, max: usize) -> usize {
    body[from.min(body.len())..]
        .iter()
        .take(max)
        .take_while(|c| c.is_ascii_hexdigit())
        .count()
}

fn hex_value(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |acc, &d| {
        acc * 16 + (d as char).to_digit(16).unwrap_or(0)
    })
}
