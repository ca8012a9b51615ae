//! Bad input gives a clear error naming the file, the position and what to do; never a panic.

use skope::load::{LoadError, LoadErrorKind, LoadOptions, load_bytes, load_file};
use std::io::Write;
use std::path::{Path, PathBuf};

fn load(src: &[u8]) -> LoadError {
    load_bytes(Path::new("dump.txt"), src).expect_err("bad input must not load")
}

fn message(src: &[u8]) -> String {
    load(src).to_string()
}

fn example_bytes() -> Vec<u8> {
    std::fs::read(crate::common::example_path("moe_decode.ge_proto.txt")).unwrap()
}

fn temp_path(name: &str) -> PathBuf {
    crate::common::scratch("bad-input").join(name)
}

#[test]
fn empty_file() {
    assert!(matches!(load(b"").kind, LoadErrorKind::Empty));
    let m = message(b"  \n\n");
    assert!(m.starts_with("dump.txt: the file is empty"), "{m}");
    assert!(m.contains("hint: "), "{m}");
}

#[test]
fn truncated_file_points_at_the_end_and_says_so() {
    let full = example_bytes();
    let cut = &full[..full.len() / 2];
    let e = load(cut);
    let LoadErrorKind::Syntax { line, message, .. } = &e.kind else {
        panic!("{e}")
    };
    assert_eq!(*line, cut.iter().filter(|&&c| c == b'\n').count() + 1);
    assert!(message.contains("end of input"), "{message}");
    let text = e.to_string();
    assert!(text.starts_with(&format!("dump.txt:{line}:")), "{text}");
    assert!(text.contains("truncated"), "{text}");
}

#[test]
fn truncated_in_every_format_never_panics() {
    for name in [
        "moe_decode.ge_proto.txt",
        "moe_decode.txt",
        "moe_decode.pbtxt",
        "moe_decode.ge_onnx.pbtxt",
        "moe_decode.json",
    ] {
        let full = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("assets/examples")
                .join(name),
        )
        .unwrap();
        for cut in [1, 7, full.len() / 3, full.len() / 2, full.len() - 2] {
            match load_bytes(Path::new(name), &full[..cut]) {
                Ok(_) => {}
                Err(e) => assert!(e.to_string().contains(name), "{e}"),
            }
        }
    }
}

#[test]
fn binary_garbage() {
    let e = load(b"\x7fELF\x02\x01\x01\x00\x00\x00");
    assert!(
        matches!(e.kind, LoadErrorKind::Binary { line: 1, col: 8 }),
        "{e}"
    );
    assert!(e.to_string().contains("atc --mode=1"), "{e}");
    let e = load(b"op {\n name: \"\xff\xfe\" }");
    assert!(
        matches!(e.kind, LoadErrorKind::Binary { line: 2, col: 9 }),
        "{e}"
    );
}

#[test]
fn unknown_text_format() {
    let m = message(b"Hello, this is a README\n");
    assert!(
        m.starts_with("dump.txt:1:6: not a graph dump skope knows"),
        "{m}"
    );
    assert!(m.contains("expected one of"), "{m}");
    let m = message(b"name: \"only a name\"\n");
    assert!(m.contains("no graph in it"), "{m}");
}

#[test]
fn unbalanced_braces() {
    let m = message(b"graph {\n  op { name: \"a\" }\n}\n}\n");
    assert!(
        m.starts_with("dump.txt:4:1: expected a field name, found '}'"),
        "{m}"
    );
    let m = message(b"graph {\n  op { name: \"a\" \n");
    assert!(
        m.contains("expected '}' to close the message opened at 2:6"),
        "{m}"
    );
    assert!(m.contains("truncated"), "{m}");
}

#[test]
fn bad_escape_names_line_and_column() {
    let m = message(b"graph {\n  op { name: \"bad\\qname\" }\n}\n");
    assert!(m.starts_with("dump.txt:2:18: unknown escape '\\q'"), "{m}");
}

#[test]
fn integer_overflow() {
    let m = message(b"graph {\n  op { name: \"a\" id: 123456789012345678901234 }\n}\n");
    assert!(
        m.starts_with("dump.txt:2:22: integer 123456789012345678901234 does not fit in 64 bits"),
        "{m}"
    );
}

#[test]
fn wrong_kind_of_value() {
    let m = message(b"graph {\n  op { name { x: 1 } }\n}\n");
    assert!(
        m.contains("2:8: expected a value for field 'name', found a message"),
        "{m}"
    );
    let m = message(b"graph { op { name: \"a\" input_desc { dtype: DT_NOT_A_TYPE } } }");
    assert!(m.contains("unknown data type DT_NOT_A_TYPE"), "{m}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "graph { ".to_string() + &"op { ".repeat(10_000) + &"}".repeat(10_001);
    let m = message(deep.as_bytes());
    assert!(m.contains("nesting deeper than 100 levels"), "{m}");
    let json = "[".repeat(10_000) + &"]".repeat(10_000);
    let m = message(json.as_bytes());
    assert!(m.starts_with("dump.txt:1:"), "{m}");
    assert!(m.contains("recursion limit"), "{m}");
}

#[test]
fn unknown_fields_are_skipped() {
    let src = b"future_field: 3\ngraph { name: \"g\" brand_new { deep { x: [1,2] } } op { name: \"a\" new_op_field: \"v\" } }";
    let dump = load_bytes(Path::new("dump.txt"), src).unwrap();
    assert_eq!(dump.main().len(), 1);
}

#[test]
fn pbtxt_errors_inside_embedded_text_name_the_attribute() {
    let src = b"node {\n    name: \"a\"\n    attr {\n        key: \"k\"\n        value {\n            s: 'i: 12x3\\n'\n        }\n    }\n}\n";
    let m = message(src);
    assert!(
        m.starts_with("dump.txt:5:9: in the text of attribute 'k' at its 1:4: expected an integer"),
        "{m}"
    );
}

#[test]
fn json_errors_name_line_column_or_path() {
    let m = message(b"{\"graph\": [\n  {\"op\": [1,]}\n]}");
    assert!(m.starts_with("dump.txt:2:13: "), "{m}");
    // A value of the wrong kind: its line and column as well as its path.
    let m = message(b"{\"graph\": [{\"op\": [\n  {\"type\": \"Add\"},\n  {\"name\": 5}]}]}");
    assert!(
        m.starts_with("dump.txt:3:12: at graph[0].op[1].name: expected a string, found a number"),
        "{m}"
    );
    let m = message(b"{\"nothing\": 1}");
    assert!(m.contains("expected a \"graph\" array"), "{m}");
}

#[test]
fn missing_file() {
    let e = load_file(Path::new("/no/such/dump.txt"), LoadOptions::default()).unwrap_err();
    assert!(matches!(e.kind, LoadErrorKind::Io(_)));
    assert!(
        e.to_string().starts_with("/no/such/dump.txt: cannot read"),
        "{e}"
    );
}

#[test]
fn a_1_gb_binary_file_is_refused_without_reading_it_all() {
    let path = temp_path("huge.txt");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 30).unwrap(); // sparse: a gigabyte of NUL bytes
    let start = std::time::Instant::now();
    let e = load_file(&path, LoadOptions::default()).unwrap_err();
    assert!(
        matches!(e.kind, LoadErrorKind::Binary { line: 1, col: 1 }),
        "{e}"
    );
    assert!(
        start.elapsed().as_secs() < 5,
        "refusing took {:?}",
        start.elapsed()
    );
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_above_the_size_limit_is_refused_up_front() {
    let path = temp_path("big.txt");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(&example_bytes()).unwrap();
    let limit = LoadOptions {
        max_bytes: 1000,
        free_memory: None,
    };
    let e = load_file(&path, limit).unwrap_err();
    assert!(
        matches!(e.kind, LoadErrorKind::TooLarge { limit: 1000, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("--max-size"), "{e}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_that_would_not_fit_in_free_memory_is_refused_before_it_is_read() {
    let path = temp_path("too_big_for_memory.txt");
    let bytes = example_bytes();
    std::fs::write(&path, &bytes).unwrap();
    let size = bytes.len() as u64;
    // Free memory for twice the file: loading needs three times.
    let tight = LoadOptions {
        max_bytes: skope::load::DEFAULT_MAX_BYTES,
        free_memory: Some(2 * size),
    };
    let e = load_file(&path, tight).unwrap_err();
    assert!(
        matches!(e.kind, LoadErrorKind::NotEnoughMemory { needed, .. } if needed == 3 * size),
        "{e}"
    );
    let m = e.to_string();
    assert!(m.contains("rather than make the machine swap"), "{m}");
    assert!(m.contains(&format!("--max-size {size}")), "{m}");
    // With room for it, it loads; given a limit, memory is the user's call.
    let roomy = LoadOptions {
        free_memory: Some(3 * size),
        ..tight
    };
    assert!(load_file(&path, roomy).is_ok());
    assert!(load_file(&path, LoadOptions::with_limit(Some(size))).is_ok());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_mindspore_ir_needs_four_times_its_size_free() {
    // Terse text (~600 bytes per node) makes a graph several times its size.
    let path = crate::common::example_path("mindspore/graph_build_0_1.ir");
    let size = std::fs::metadata(&path).unwrap().len();
    let options = |free| LoadOptions {
        max_bytes: skope::load::DEFAULT_MAX_BYTES,
        free_memory: Some(free),
    };
    let e = load_file(&path, options(3 * size)).unwrap_err();
    assert!(
        matches!(e.kind, LoadErrorKind::NotEnoughMemory { needed, .. } if needed == 4 * size),
        "{e}"
    );
    assert!(load_file(&path, options(4 * size)).is_ok());
}

#[test]
fn huge_strings_are_kept_cut_and_names_still_resolve() {
    // Two ops whose names are a megabyte long and differ only in the middle, one taking the
    // other's output; an attribute of four megabytes.
    let long = |mark: char| format!("{}{mark}{}", "n".repeat(600_000), "m".repeat(600_000));
    let (a, b) = (long('a'), long('b'));
    let blob = "x".repeat(4 << 20);
    let text = format!(
        "op {{ name: \"{a}\" type: \"Add\" attr {{ key: \"blob\" value {{ s: \"{blob}\" }} }} }}\n\
         op {{ name: \"{b}\" type: \"Add\" input: \"{a}:0\" }}\n\
         op {{ name: \"c\" type: \"Add\" input: \"^{b}\" }}\n"
    );
    let dump = skope::load::load_bytes(std::path::Path::new("huge.txt"), text.as_bytes()).unwrap();
    let graph = dump.main();
    let kept = skope::graph::MAX_KEPT + 64;
    for op in graph.ops() {
        assert!(op.name.len() <= kept, "{}", op.name.len());
        for (_, value) in op.attrs.iter() {
            assert!(value.to_string().len() <= kept);
        }
    }
    assert_ne!(graph.ops()[0].name, graph.ops()[1].name);
    // Both edges resolve: the data input and the control input naming cut names.
    assert_eq!(graph.edge_counts(), (1, 1));
    assert!(
        graph
            .notes()
            .iter()
            .all(|w| !w.message.contains("not in the graph"))
    );
    let cut: Vec<_> = graph
        .notes()
        .iter()
        .filter(|w| w.message.contains("kept cut"))
        .collect();
    // a (its name and the blob), b (its name and its input), c (its input).
    assert_eq!(cut.len(), 3);
}

#[test]
fn random_garbage_is_refused_naming_the_file_and_a_place_inside_it() {
    // A fixed pseudo-random sequence of printable and structural characters.
    let alphabet = b"{}<>[]:,;#\"'\\ \n\tabcxyz019.-_op graph node name";
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut refused = 0;
    for round in 0..500 {
        let len = 1 + round % 200;
        let src: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect();
        let Err(e) = load_bytes(Path::new("fuzz.txt"), &src) else {
            continue;
        };
        refused += 1;
        let text = e.to_string();
        let input = String::from_utf8_lossy(&src);
        assert!(text.starts_with("fuzz.txt"), "{text}\nfrom {input:?}");
        assert!(text.contains("\n  hint: "), "{text}");
        let place = match &e.kind {
            LoadErrorKind::Binary { line, col }
            | LoadErrorKind::UnknownFormat { line, col, .. }
            | LoadErrorKind::Syntax { line, col, .. } => Some((*line, *col)),
            LoadErrorKind::Structure { at, .. } | LoadErrorKind::PassOutput { at, .. } => *at,
            LoadErrorKind::Empty => None,
            other => panic!("{other:?} from {input:?}"),
        };
        if let Some((line, col)) = place {
            let lines: Vec<&str> = input.split('\n').collect();
            assert!(
                (1..=lines.len()).contains(&line)
                    && (1..=lines[line - 1].chars().count() + 1).contains(&col),
                "{line}:{col} is not in {input:?}: {text}"
            );
        }
    }
    // Garbage is refused, not read as a graph.
    assert_eq!(refused, 500, "garbage read as a graph");
}

#[test]
fn a_note_per_dangling_input_does_not_copy_a_huge_op_name() {
    // A 35,000-character name with 700 inputs naming no op (a fuzzed TorchAir file held
    // 12 MB of notes for 46 KB): each note keeps the name cut.
    use skope::graph::{GraphBuilder, OpBuilder};
    let name = format!("l{}ayer0_input_rmsnorm", "9".repeat(35_000));
    let mut b = GraphBuilder::new("g");
    b.push(OpBuilder {
        name: name.clone(),
        op_type: "RmsNorm".to_string(),
        inputs: (0..700).map(|i| format!("missing_{i}:0")).collect(),
        ..OpBuilder::default()
    });
    let graph = b.build();
    assert_eq!(graph.notes().len(), 700);
    for note in graph.notes() {
        let op = note.op.as_deref().unwrap_or_default();
        assert!(
            op.chars().count() <= 200 && op.starts_with("l999"),
            "{}",
            op.len()
        );
        assert!(note.message.len() < 300, "{}", note.message);
    }
    // The op itself keeps its name.
    assert!(graph.find(&name).is_some());
}

#[test]
fn a_directory_that_is_no_graph_names_every_directory_skope_reads() {
    let dir = crate::common::scratch("bad-input-dir");
    std::fs::write(dir.join("notes.txt"), "nothing here").unwrap();
    let out = crate::common::skope(&["report", &dir.to_string_lossy()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(": a directory, and none that skope reads"),
        "{err}"
    );
    // No line and column: a directory has none.
    assert!(!err.contains(":1:1:"), "{err}");
    for kind in [
        "aclgraph model directory",
        "akg_kernel_meta/",
        "static_kernel_compile_outputs/",
    ] {
        assert!(err.contains(kind), "{kind}: {err}");
    }
}
