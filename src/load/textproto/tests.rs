use super::*;

/// Flattens a document into `path=value` lines, so tests can compare whole structures.
fn flatten(src: &str) -> Result<Vec<String>> {
    let mut r = Reader::new(src.as_bytes());
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::new();
    loop {
        match r.next_field()? {
            Some(f) => match f.value {
                Value::Message => path.push(f.name.to_string()),
                Value::Scalar(s) => {
                    let mut p = path.clone();
                    p.push(f.name.to_string());
                    out.push(format!("{}={}", p.join("."), s.text()?));
                }
            },
            None if path.is_empty() => return Ok(out),
            None => {
                path.pop();
            }
        }
    }
}

#[test]
fn every_printer_form_reads_the_same() {
    let multi_line = "name: \"g\"\nop {\n  id: 3\n  attr {\n    key: \"k\"\n  }\n}\n";
    let one_line = "name: \"g\" op { id: 3 attr { key: \"k\" } }";
    let angle_and_colon = "name: 'g'; op: < id: 3, attr: { key: \"k\" } >";
    let expected = vec!["name=g", "op.id=3", "op.attr.key=k"];
    assert_eq!(flatten(multi_line).unwrap(), expected);
    assert_eq!(flatten(one_line).unwrap(), expected);
    assert_eq!(flatten(angle_and_colon).unwrap(), expected);
}

#[test]
fn lists_comments_and_extensions() {
    let src = "# header\ndim: [1, -2, 0x10] # trailing\nm: [{a: 1}, <a: 2>]\n[ext.pkg.name] { v: x }\nempty: []\nn [{b: 3}]";
    assert_eq!(
        flatten(src).unwrap(),
        vec![
            "dim=1",
            "dim=-2",
            "dim=0x10",
            "m.a=1",
            "m.a=2",
            "ext.pkg.name.v=x",
            "n.b=3"
        ]
    );
}

#[test]
fn adjacent_strings_concatenate_across_quotes_and_comments() {
    let src = "s: \"ab\" 'cd'\n  # note with \" quote\n  \"ef\"";
    assert_eq!(flatten(src).unwrap(), vec!["s=abcdef"]);
}

#[test]
fn escapes_decode_to_utf8_text() {
    let src = r#"a: "\346\227\266\351\227\264" b: 'it\'s \x41\x4a' c: "\u00e9\U0001F600" d: "tab\tq\"\\" e: "时间""#;
    assert_eq!(
        flatten(src).unwrap(),
        vec!["a=时间", "b=it's AJ", "c=é😀", "d=tab\tq\"\\", "e=时间"]
    );
}

#[test]
fn numbers_in_every_notation() {
    let src =
        "a: 10 b: -7 c: 0x1F d: 017 e: 1.5 f: -2.5e-3 g: 3f h: inf i: -inf j: nan k: 1E6 l: -0x10";
    let mut r = Reader::new(src.as_bytes());
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    while let Some(f) = r.next_field().unwrap() {
        let s = f.scalar().unwrap();
        ints.push(s.int().ok());
        floats.push(s.float().unwrap());
    }
    assert_eq!(ints[..4], [Some(10), Some(-7), Some(31), Some(15)]);
    assert_eq!(ints[11], Some(-16));
    assert_eq!(ints[4], None, "1.5 is not an integer");
    assert_eq!(floats[4], 1.5);
    assert_eq!(floats[5], -2.5e-3);
    assert_eq!(floats[6], 3.0);
    assert_eq!(floats[7], f64::INFINITY);
    assert_eq!(floats[8], f64::NEG_INFINITY);
    assert!(floats[9].is_nan());
    assert_eq!(floats[10], 1e6);
}

#[test]
fn extreme_integers_are_exact_and_overflow_is_an_error() {
    let ok = Reader::new(b"a: -9223372036854775808")
        .next_field()
        .unwrap()
        .unwrap();
    assert_eq!(ok.scalar().unwrap().int().unwrap(), i64::MIN);
    let mut r = Reader::new(b"a: 9223372036854775808");
    let f = r.next_field().unwrap().unwrap();
    let e = f.scalar().unwrap().int().unwrap_err();
    assert_eq!(e.offset, 3);
    assert!(
        e.message.contains("above the int64 maximum"),
        "{}",
        e.message
    );
    let mut r = Reader::new(b"a: 99999999999999999999999");
    let f = r.next_field().unwrap().unwrap();
    assert!(
        f.scalar()
            .unwrap()
            .int()
            .unwrap_err()
            .message
            .contains("does not fit in 64 bits")
    );
}

#[test]
fn booleans_and_enum_identifiers() {
    let mut r = Reader::new(b"a: true b: False c: t d: 0 e: DT_FLOAT16");
    let mut bools = Vec::new();
    while let Some(f) = r.next_field().unwrap() {
        bools.push(f.scalar().unwrap().boolean().ok());
    }
    assert_eq!(
        bools,
        [Some(true), Some(false), Some(true), Some(false), None]
    );
    let mut r = Reader::new(b"dtype: DT_FLOAT16");
    assert_eq!(
        r.next_field().unwrap().unwrap().scalar().unwrap().ident(),
        Some("DT_FLOAT16")
    );
}

#[test]
fn skipping_a_message_skips_everything_nested() {
    let mut r = Reader::new(b"skip { a { b { c: 1 } } d: [1, 2] } keep: 2");
    let f = r.next_field().unwrap().unwrap();
    r.skip(&f).unwrap();
    let f = r.next_field().unwrap().unwrap();
    assert_eq!(f.name, "keep");
    assert!(r.next_field().unwrap().is_none());
}

fn error_of(src: &str) -> (LineCol, String) {
    let e = flatten(src).unwrap_err();
    (LineCol::of(src.as_bytes(), e.offset), e.message)
}

#[test]
fn truncated_input_names_the_unclosed_message() {
    let (at, msg) = error_of("graph {\n  op {\n    name: \"a\"\n");
    assert_eq!(at, LineCol { line: 4, col: 1 });
    assert!(
        msg.contains("unexpected end of input, expected '}'"),
        "{msg}"
    );
    assert!(msg.contains("opened at 2:6"), "{msg}");
}

#[test]
fn unbalanced_and_mismatched_brackets() {
    let (at, msg) = error_of("a { b: 1 } }");
    assert_eq!(at.col, 12);
    assert!(msg.contains("no message open"), "{msg}");
    let (_, msg) = error_of("a < b: 1 }");
    assert!(msg.contains("expected a field name or '>'"), "{msg}");
    let (_, msg) = error_of("a: [1, 2");
    assert!(msg.contains("expected ']'"), "{msg}");
}

#[test]
fn bad_strings_and_escapes() {
    let (at, msg) = error_of("a: \"abc\nb: 1");
    assert_eq!(at, LineCol { line: 1, col: 4 });
    assert!(msg.contains("unterminated string"), "{msg}");
    let (at, msg) = error_of("x: 1\na: \"ok \\q\"");
    assert_eq!(at, LineCol { line: 2, col: 8 });
    assert!(msg.contains("unknown escape '\\q'"), "{msg}");
    let (_, msg) = error_of("a: \"\\777\"");
    assert!(msg.contains("larger than one byte"), "{msg}");
    let (_, msg) = error_of("a: \"\\u12\"");
    assert!(msg.contains("4 hex digits"), "{msg}");
}

#[test]
fn garbage_tokens_are_reported_with_what_was_expected() {
    let (_, msg) = error_of("a: @");
    assert!(msg.contains("expected a value"), "{msg}");
    assert!(msg.contains("'@'"), "{msg}");
    let (_, msg) = error_of("a b");
    assert!(
        msg.contains("expected ':' or '{' after field name 'a'"),
        "{msg}"
    );
    let (_, msg) = error_of("1: 2");
    assert!(msg.contains("expected a field name, found '1'"), "{msg}");
}

#[test]
fn ten_thousand_levels_of_nesting_fail_cleanly() {
    let deep = "a { ".repeat(10_000) + &"}".repeat(10_000);
    let (_, msg) = error_of(&deep);
    assert!(msg.contains("nesting deeper than 100"), "{msg}");
    let deep_list = "a: ".to_string() + &"[".repeat(10_000);
    assert!(flatten(&deep_list).is_err());
}

#[test]
fn columns_count_characters_not_bytes() {
    let src = "name: \"时间\" @";
    let e = flatten(src).unwrap_err();
    assert_eq!(
        LineCol::of(src.as_bytes(), e.offset),
        LineCol { line: 1, col: 12 }
    );
}
