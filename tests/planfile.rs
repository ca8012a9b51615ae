//! Plan files, the edit journal and the exported code, on the bundled example.

use skope::edit::Edit;
use skope::graph::OpId;
use skope::journal::{self, JournalEntry};
use skope::planfile::{PlanFile, PlanFileErrorKind};
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};

use crate::common::workspace as open;

fn example() -> Workspace {
    open("assets/examples/moe_decode.ge_proto.txt")
}

fn id(ws: &Workspace, name: &str) -> OpId {
    ws.graph().find(name).unwrap()
}

/// `name` in this process's directory for plan files (tests give their files names of their own).
fn temp(name: &str) -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| crate::common::scratch("planfile"))
        .join(name)
}

/// A few edits of every kind that changes ops and options.
fn edited() -> Workspace {
    let mut ws = example();
    let fill = id(&ws, "layer2_mask_fill");
    let rope = id(&ws, "layer0_rope");
    let gate = id(&ws, "layer3_gate");
    let edits = vec![
        Edit::Assign {
            ops: vec![fill],
            scope: "attn_2".into(),
        },
        Edit::DoNotFuse { ops: vec![rope] },
        Edit::NewScope {
            ops: vec![gate],
            scope: "router \"3\"".into(),
            options: "early-start=0".into(),
        },
        Edit::SetOptions {
            scope: "moe_1".into(),
            options: "stream-fusion=1:strict-scope-check=bypass".into(),
        },
    ];
    for edit in edits {
        ws.apply(edit, None).unwrap();
    }
    ws
}

#[test]
fn a_saved_plan_gives_the_same_plan_back() {
    let ws = edited();
    let path = temp("round_trip.json");
    PlanFile::of(&ws).write(&path).unwrap();
    let read = PlanFile::read(&path).unwrap();
    assert_eq!(read, PlanFile::of(&ws));
    let mut fresh = example();
    let (marks, mismatch) = read.marks_for(fresh.graph());
    assert!(mismatch.is_empty(), "{mismatch:?}");
    fresh.reset_marks(marks);
    assert_eq!(fresh.plan(), ws.plan());
    assert!(!fresh.is_dirty());
    // The member of moe_3 whose options differ keeps them.
    let moe3 = read.scopes.iter().find(|s| s.name == "moe_3").unwrap();
    assert_eq!(moe3.op_options.len(), 1);
    assert!(read.do_not_fuse.contains(&"layer0_rope".to_string()));
}

#[test]
fn a_plan_for_another_graph_applies_by_name_and_lists_what_is_missing() {
    let mut ws = edited();
    // Send/Recv exist only in GE's dump.
    let send = id(&ws, "layer0_send_shared");
    ws.apply(Edit::DoNotFuse { ops: vec![send] }, None).unwrap();
    let plan = PlanFile::of(&ws);
    // The TorchAir dump of the same model, taken before GE added Send/Recv.
    let mut other = open("assets/examples/moe_decode.pbtxt");
    let (marks, mismatch) = plan.marks_for(other.graph());
    let (made, this) = mismatch.other_graph.clone().unwrap();
    assert_eq!(made.ops, 137);
    assert_eq!(this.ops, 121);
    let lines = mismatch.lines(3);
    assert!(lines[0].contains("applied by op name"), "{lines:?}");
    assert_eq!(
        mismatch.missing_ops,
        [("layer0_send_shared".to_string(), None)]
    );
    assert!(lines[1].contains("layer0_send_shared (kept out of fusion) is not in this graph"));
    other.reset_marks(marks);
    assert!(other.plan().scopes.iter().any(|s| s.name == "router \"3\""));
    // Every op the plan names is either applied or listed.
    let named: usize =
        plan.scopes.iter().map(|s| s.ops.len()).sum::<usize>() + plan.do_not_fuse.len();
    let applied = (0..other.graph().len())
        .filter(|&i| {
            !matches!(
                other.marks().get(OpId(i as u32)),
                skope::fusion::marks::OpMark::Unscoped
            )
        })
        .count();
    assert_eq!(applied + mismatch.missing_ops.len(), named);
}

#[test]
fn bad_plan_files_say_where_and_what_to_do() {
    let path = temp("broken.json");
    std::fs::write(&path, "{\n  \"skope_plan\": 1,\n  \"graph\": [\n").unwrap();
    let err = PlanFile::read(&path).unwrap_err();
    assert!(
        matches!(err.kind, PlanFileErrorKind::Syntax { line: 4, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("broken.json:4:"), "{err}");
    assert!(err.to_string().contains("hint:"), "{err}");
    let path = temp("future.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&PlanFile::of(&example()).to_json()).unwrap();
    json["skope_plan"] = 2.into();
    std::fs::write(&path, json.to_string()).unwrap();
    let err = PlanFile::read(&path).unwrap_err();
    assert!(err.to_string().contains("plan file format 2"), "{err}");
    let missing = Path::new("/nonexistent/dir/plan.json");
    let err = PlanFile::of(&example()).write(missing).unwrap_err();
    assert!(
        err.to_string().starts_with("/nonexistent/dir/plan.json:"),
        "{err}"
    );
    assert!(!missing.exists());
}

#[test]
fn the_journal_replays_a_session_and_survives_a_cut_last_line() {
    let mut ws = example();
    let plan = temp("session.json");
    let path = journal::path(&plan);
    let _ = std::fs::remove_file(&path);
    let mut claim = journal::claim(&plan, &ws.source().id).unwrap();
    assert_eq!(claim.journal.path(), path);
    assert!(claim.recovery.is_none() && claim.held.is_empty());
    let fill = id(&ws, "layer2_mask_fill");
    let steps = [
        Edit::Assign {
            ops: vec![fill],
            scope: "attn_2".into(),
        },
        Edit::Delete {
            scope: "moe_3".into(),
        },
    ];
    for edit in steps {
        claim
            .journal
            .append(&JournalEntry::Edit {
                edit: journal::named(ws.graph(), &edit),
                key: None,
            })
            .unwrap();
        ws.apply(edit, None).unwrap();
    }
    ws.undo();
    claim.journal.append(&JournalEntry::Undo).unwrap();
    // A crash in the middle of writing the next line.
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"{\"edit\":{\"edit\":\"rem"))
        .unwrap();
    let records = journal::read(&path).unwrap();
    let entries = records.entries;
    assert_eq!(entries.len(), 4, "the graph's line and three steps");
    assert_eq!(journal::edits(&entries), 3);
    let damage = records.damage.unwrap();
    assert_eq!((damage.line, damage.lost), (5, 1), "{damage:?}");
    let mut replayed = example();
    let replay = journal::replay(&mut replayed, &entries);
    assert_eq!(replay.applied, 3);
    assert!(replay.skipped.is_empty());
    assert_eq!(replayed.plan(), ws.plan());
    // Redo still works after a replay: the history came back too.
    assert!(replayed.redo().is_some());
    claim.journal.remove().unwrap();
    assert!(!path.exists());
}

#[test]
fn a_journal_belongs_to_one_session_and_to_its_graph() {
    let ws = example();
    let graph = ws.source().id.clone();
    let plan = temp("locked.skope.json");
    for n in ["", ".2", ".3"] {
        let _ = std::fs::remove_file(format!("{}.journal{n}", plan.display()));
        let _ = std::fs::remove_file(format!("{}.journal{n}.lock", plan.display()));
    }
    let edit = JournalEntry::Edit {
        edit: Edit::Delete {
            scope: "moe_3".into(),
        },
        key: None,
    };
    let mut first = journal::claim(&plan, &graph).unwrap();
    first.journal.append(&edit).unwrap();
    // A second window: the journal is in use, by whom it says; it gets its own.
    let second = journal::claim(&plan, &graph).unwrap();
    assert_eq!(second.held.len(), 1);
    assert_eq!(second.held[0].0, journal::path(&plan));
    assert_eq!(second.held[0].1.pid, std::process::id());
    assert!(
        second.recovery.is_none(),
        "another live session's edits are not offered"
    );
    assert_eq!(
        second.journal.path(),
        Path::new(&format!("{}.journal.2", plan.display()))
    );
    // The first window ends without cleaning up (its process is gone): its lock is taken
    // over and its edits are offered, saying who left them.
    drop(first);
    let third = journal::claim(&plan, &graph).unwrap();
    assert_eq!(third.journal.path(), journal::path(&plan));
    let recovery = third.recovery.as_ref().unwrap();
    assert_eq!(recovery.edits(), 1);
    assert_eq!(
        recovery.left_by.as_ref().map(|h| h.pid),
        Some(std::process::id())
    );
    drop(third);
    // Another graph's session never gets them.
    let other = skope::graph::GraphId {
        fingerprint: "0".into(),
        ..graph.clone()
    };
    let foreign = journal::claim(&plan, &other).unwrap();
    assert!(foreign.recovery.is_none());
    assert_eq!(foreign.foreign, [journal::path(&plan)]);
    assert_ne!(foreign.journal.path(), journal::path(&plan));
    assert!(journal::path(&plan).exists(), "left as it is");
    drop(foreign);
    second.journal.remove().unwrap();
}

/// The first argument of every top-level `with` of the Python `code`, as Python reads it
/// (UTF-8 bytes), the file written to `name`.
fn python_scope_names(code: &str, name: &str) -> Vec<Vec<u8>> {
    let path = temp(name);
    std::fs::write(&path, code).unwrap();
    let check = "import ast,sys\n\
                 t=ast.parse(open(sys.argv[1], encoding='utf-8').read())\n\
                 sys.stdout.buffer.write(b'\\0'.join(w.items[0].context_expr.args[0].value.encode() for w in t.body if isinstance(w, ast.With)))";
    let out = std::process::Command::new("python3")
        .args(["-c", check, path.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout.split(|b| *b == 0).map(<[u8]>::to_vec).collect()
}

#[test]
fn exported_torchair_code_is_python_that_names_every_scope_and_break() {
    let ws = edited();
    let code = skope::export::torchair(&ws);
    assert!(code.contains("with torchair.scope.super_kernel(\"moe_0\", \"stream-fusion=1\"):"));
    assert!(
        code.contains("with torchair.scope.super_kernel(\"router \\\"3\\\"\", \"early-start=0\"):")
    );
    assert!(code.contains(
        "    # ✗ layer0_init_routing  (MoeInitRoutingV2) cannot be fused (type not adapted to SuperKernel) and splits the scope here"
    ));
    assert!(code.contains(
        "    with torchair.scope.super_kernel(None):  # kept out of fusion\n        # layer0_rope  (ApplyRotaryPosEmb)\n        pass\n"
    ));
    // Python reads it, and reads the scope names back exactly.
    let names: Vec<String> = python_scope_names(&code, "scopes.py")
        .into_iter()
        .map(|n| String::from_utf8(n).unwrap())
        .collect();
    let expected: Vec<String> = ws.plan().scopes.iter().map(|s| s.name.clone()).collect();
    assert_eq!(names, expected);
}

/// Scope names no exporter may garble: a hex-looking byte after a control, a newline, an
/// escape sequence, CJK, a bidi override, trigraph-looking `??`, quotes and a backslash.
const HOSTILE: [&str; 3] = [
    "\x0ab",
    "a\nb\x1b[2J 时间 \u{202e}??=\\ \"q\"",
    "\u{1F600}\u{85}F\tb",
];

/// A GE dump with a scope of each of the [`HOSTILE`] names (edits refuse such names; dumps
/// carry them), each byte written as a text-format octal escape.
fn hostile() -> Workspace {
    let mut text = String::new();
    for (i, name) in HOSTILE.iter().enumerate() {
        let escaped: String = name.bytes().map(|b| format!("\\{b:03o}")).collect();
        text.push_str(&format!(
            "op {{ name: \"op{i}\" type: \"MatMulV2\" attr {{ key: \"_super_kernel_scope\" value {{ s: \"{escaped}\" }} }} }}\n"
        ));
    }
    let path = temp("hostile.ge_proto.txt");
    std::fs::write(&path, text).unwrap();
    open(path.to_str().unwrap())
}

#[test]
fn exported_names_read_back_byte_for_byte_in_c_and_python() {
    let ws = hostile();
    let expected: Vec<String> = ws.plan().scopes.iter().map(|s| s.name.clone()).collect();
    for name in HOSTILE {
        assert!(expected.iter().any(|e| e == name), "{name:?} not a scope");
    }
    // C: the export inside a program whose aclskScopeBegin prints each literal's bytes (all
    // of them: sizeof, so even a NUL would count), compiled with the host compiler.
    let acl = skope::export::acl(&ws);
    assert!(
        acl.lines()
            .filter(|l| l.starts_with("aclsk"))
            .all(str::is_ascii),
        "{acl}"
    );
    std::fs::write(temp("scopes.inc"), &acl).unwrap();
    let program = "#include <stdio.h>\n\
                   #define aclskScopeBegin(s, st) (fwrite(s, 1, sizeof(s) - 1, stdout), putchar(0))\n\
                   #define aclskScopeEnd(s, st) ((void)(st))\n\
                   int main(void) { void *stream = 0;\n#include \"scopes.inc\"\n return 0; }\n";
    std::fs::write(temp("scopes.c"), program).unwrap();
    let binary = temp("scopes");
    let built = std::process::Command::new("cc")
        .args(["-Wall", "-o"])
        .arg(&binary)
        .arg(temp("scopes.c"))
        .output()
        .expect("cc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = std::process::Command::new(&binary).output().unwrap();
    let names: Vec<&[u8]> = run
        .stdout
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .collect();
    let want: Vec<&[u8]> = expected.iter().map(|n| n.as_bytes()).collect();
    assert_eq!(names, want);
    // Python: the TorchAir export parses, and its literals are the names.
    let code = skope::export::torchair(&ws);
    assert!(
        code.lines()
            .filter(|l| l.starts_with("with "))
            .all(str::is_ascii)
    );
    let names = python_scope_names(&code, "hostile.py");
    assert_eq!(names, want);
}

#[test]
fn exported_acl_code_brackets_each_scope_and_maps_options() {
    let ws = edited();
    let code = skope::export::acl(&ws);
    let begins = code.matches("aclskScopeBegin(").count();
    let ends = code.matches("aclskScopeEnd(").count();
    assert_eq!(begins, ws.plan().scopes.len());
    assert_eq!(ends, begins);
    assert!(code.contains("/*   option stream-fusion=1 → aclskOptionType STREAM_FUSION (2) */"));
    assert!(code.contains("option strict-scope-check=bypass has no aclskOptionType"));
    assert!(code.contains("aclskScopeBegin(\"router \\\"3\\\"\", stream);"));
    assert!(code.contains("inferred"));
}

#[test]
fn saving_keeps_the_files_mode_and_writes_through_a_symbolic_link() {
    use std::os::unix::fs::PermissionsExt;
    let ws = edited();
    // A private plan stays private.
    let private = temp("private.skope.json");
    std::fs::write(&private, "{}").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    PlanFile::of(&ws).write(&private).unwrap();
    let mode = std::fs::metadata(&private).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(PlanFile::read(&private).is_ok());
    // A link to a plan kept elsewhere: the target gets the plan, the link stays a link.
    let target = temp("kept_elsewhere.json");
    std::fs::write(&target, "old").unwrap();
    let link = temp("linked.skope.json");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&target, &link).unwrap();
    PlanFile::of(&ws).write(&link).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(PlanFile::read(&target).is_ok());
    // A link to nothing is refused, and nothing is created.
    let dangling = temp("dangling.skope.json");
    let _ = std::fs::remove_file(&dangling);
    std::os::unix::fs::symlink(temp("nowhere/plan.json"), &dangling).unwrap();
    let e = skope::own_files::replace(
        &dangling,
        b"{}",
        skope::own_files::Durability::Synced,
        skope::own_files::Links::Follow,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("symbolic link to a file that does not exist"),
        "{e}"
    );
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_plan_file_is_known_from_its_first_bytes_in_any_key_order() {
    let plan = PlanFile::of(&example());
    let pretty = temp("looks-pretty.json");
    plan.write(&pretty).unwrap();
    let sorted = temp("looks-sorted.json");
    let value: serde_json::Value = serde_json::from_str(&plan.to_json()).unwrap();
    std::fs::write(&sorted, value.to_string()).unwrap();
    assert!(PlanFile::looks_like(&pretty) && PlanFile::looks_like(&sorted));
    let others = [
        ("db", &b"SQLite format 3\0\x10\0"[..]),
        ("atc", &b"{\"graph\": [{\"name\": \"g\", \"op\": []}]}"[..]),
        ("csv", &b"Step Id,Name,Type\n"[..]),
        ("trace", &b"[{\"ph\":\"X\"}]"[..]),
    ];
    for (name, bytes) in others {
        let path = temp(&format!("looks-{name}"));
        std::fs::write(&path, bytes).unwrap();
        assert!(!PlanFile::looks_like(&path), "{name}");
    }
}
