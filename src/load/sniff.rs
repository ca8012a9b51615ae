//! Detecting a dump's format from its content (never from the file name).

use super::Format;
use super::textproto::{Reader, SyntaxError, Value};

/// Why the content is not a dump skope can read, before any full parse.
#[derive(Debug, PartialEq, Eq)]
pub enum SniffError {
    /// Only whitespace.
    Empty,
    /// NUL bytes or invalid UTF-8 at this offset.
    Binary(usize),
    /// Text of no known format: the offset and what was found.
    Unknown(usize, String),
}

/// How many bytes at the start are checked for binary content.
pub const HEAD_BYTES: usize = 64 * 1024;

/// Checks the first [`HEAD_BYTES`] for binary content (NUL bytes, invalid UTF-8).
pub fn check_text(head: &[u8]) -> Result<(), SniffError> {
    let head = &head[..head.len().min(HEAD_BYTES)];
    if let Some(p) = head.iter().position(|&c| c == 0) {
        return Err(SniffError::Binary(p));
    }
    match std::str::from_utf8(head) {
        Ok(_) => Ok(()),
        // A multi-byte character cut by the window end is fine.
        Err(e) if e.error_len().is_none() => Ok(()),
        Err(e) => Err(SniffError::Binary(e.valid_up_to())),
    }
}

/// Detects the format of `src` (a whole file; only as much as needed is looked at).
pub fn sniff(src: &[u8]) -> Result<Format, SniffError> {
    check_text(src)?;
    let start = src
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .ok_or(SniffError::Empty)?;
    if matches!(src[start], b'{' | b'[') {
        if super::ms_composite::looks_like(&src[start..]) {
            return Ok(Format::MsComposite);
        }
        return Ok(Format::GeJson);
    }
    if super::ms_ir::looks_like(&src[start..]) {
        return Ok(Format::MsIr);
    }
    let mut r = Reader::new(src);
    let unknown = |e: SyntaxError| SniffError::Unknown(e.offset, e.message);
    loop {
        let Some(f) = r.next_field().map_err(unknown)? else {
            return Err(SniffError::Unknown(
                start,
                "no graph in it (expected `graph {`, `op {` or `node {` at top level)".into(),
            ));
        };
        match f.name {
            "node" => return Ok(Format::TorchairPbtxt),
            "op" => return Ok(Format::GraphDefText),
            "ir_version" | "producer_name" | "producer_version" | "opset_import"
            | "model_version" | "domain" | "doc_string" => return Ok(Format::GeOnnxText),
            "graph" if matches!(f.value, Value::Message) => {
                // ModelDef graphs hold `op`, ONNX graphs hold `node`.
                while let Some(g) = r.next_field().map_err(unknown)? {
                    match g.name {
                        "op" => return Ok(Format::GeProtoText),
                        "node" | "initializer" | "value_info" => return Ok(Format::GeOnnxText),
                        _ => r.skip(&g).map_err(unknown)?,
                    }
                }
                return Ok(Format::GeProtoText);
            }
            _ => r.skip(&f).map_err(unknown)?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_content() {
        assert_eq!(
            sniff(b"name: \"g\"\nop { name: \"a\" }"),
            Ok(Format::GraphDefText)
        );
        assert_eq!(
            sniff(b"# dump\ngraph { name: \"g\" op { } }"),
            Ok(Format::GeProtoText)
        );
        assert_eq!(
            sniff(b"name: \"m\" version: 1 graph { name: \"g\" }"),
            Ok(Format::GeProtoText)
        );
        assert_eq!(
            sniff(b"ir_version: 3 graph { node { } }"),
            Ok(Format::GeOnnxText)
        );
        assert_eq!(
            sniff(b"graph { name: \"g\" node { } }"),
            Ok(Format::GeOnnxText)
        );
        assert_eq!(
            sniff(b"node {\n    name: \"a\"\n}"),
            Ok(Format::TorchairPbtxt)
        );
        assert_eq!(sniff(b"  \n{\"graph\": []}"), Ok(Format::GeJson));
    }

    #[test]
    fn empty_binary_and_unknown_text_are_rejected() {
        assert_eq!(sniff(b" \n\t"), Err(SniffError::Empty));
        assert_eq!(sniff(b"op {\x00}"), Err(SniffError::Binary(4)));
        assert_eq!(sniff(b"ab\xff\xfe"), Err(SniffError::Binary(2)));
        assert!(matches!(
            sniff(b"hello world"),
            Err(SniffError::Unknown(6, _))
        ));
        assert!(matches!(
            sniff(b"name: \"x\""),
            Err(SniffError::Unknown(0, _))
        ));
    }
}
