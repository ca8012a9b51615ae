//! skope's own files kept as a database keeps its files: links planted beside a dump are never
//! followed, a damaged journal gives back every whole record, a journal is recovered only onto
//! the plan file it names, and recovery says only what is true.

use skope::edit::Edit;
use skope::journal::{self, JournalEntry};
use skope::planfile::PlanFile;
use skope::workspace::Workspace;
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common::workspace as open;

fn example() -> Workspace {
    open("assets/examples/moe_decode.ge_proto.txt")
}

/// Every file under `dir` with its bytes (a link by its target), to see that nothing changed.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().to_vec());
            } else if kind.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// A scratch folder with `outside/`, which planted links point into: nothing in it may change.
fn planted(tag: &str) -> (PathBuf, PathBuf) {
    let dir = crate::common::scratch(tag);
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("bashrc"), "precious\n").unwrap();
    std::fs::write(outside.join("notes.txt"), "mine\n").unwrap();
    (dir, outside)
}

fn delete(scope: &str) -> JournalEntry {
    JournalEntry::Edit {
        edit: Edit::Delete {
            scope: scope.into(),
        },
        key: None,
    }
}

#[test]
fn links_planted_where_the_journal_and_its_lock_go_are_refused_and_left() {
    let (dir, outside) = planted("safety-journal-links");
    let before = contents(&outside);
    let plan = dir.join("m.txt.skope.json");
    // A link at the lock (the first edit truncated its target; a clean quit deleted the link)
    // and a link to nothing at the second journal (skope created its target).
    symlink(
        outside.join("bashrc"),
        dir.join("m.txt.skope.json.journal.lock"),
    )
    .unwrap();
    symlink(
        outside.join("created-by-skope"),
        dir.join("m.txt.skope.json.journal.2"),
    )
    .unwrap();
    let ws = example();
    let mut claim = journal::claim(&plan, &ws.source().id).unwrap();
    assert_eq!(claim.refused.len(), 2, "{:?}", claim.refused);
    assert!(
        claim.refused[0].1.contains("symbolic link"),
        "{:?}",
        claim.refused
    );
    assert_eq!(
        claim.journal.path(),
        dir.join("m.txt.skope.json.journal.3").as_path()
    );
    claim.journal.append(&delete("moe_3")).unwrap();
    claim.journal.remove().unwrap();
    assert_eq!(contents(&outside), before, "nothing outside changed");
    assert!(!outside.join("created-by-skope").exists());
    for link in [
        "m.txt.skope.json.journal.lock",
        "m.txt.skope.json.journal.2",
    ] {
        assert!(skope::own_files::is_link(&dir.join(link)), "{link} left");
    }
}

#[test]
fn a_plan_save_never_writes_through_a_planted_temporary_name_and_sweeps_its_own_leftovers() {
    let (dir, outside) = planted("safety-temp-links");
    let before = contents(&outside);
    let plan = dir.join("m.txt.skope.json");
    // Every name the earlier scheme could use in this process, planted.
    symlink(
        outside.join("bashrc"),
        dir.join(format!(".m.txt.skope.json.tmp-{}", std::process::id())),
    )
    .unwrap();
    // A temporary file an interrupted save of a process that is gone left.
    let stale = dir.join(".m.txt.skope.json.skope-tmp.999999999.00112233445566ff");
    std::fs::write(&stale, "half a plan").unwrap();
    PlanFile::of(&example()).write(&plan).unwrap();
    assert!(PlanFile::read(&plan).is_ok());
    assert_eq!(contents(&outside), before, "nothing outside changed");
    assert!(!stale.exists(), "skope's own leftover is removed");
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("skope-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_journal_cut_inside_a_character_gives_back_every_whole_record_and_says_what_was_lost() {
    let dir = crate::common::scratch("safety-damaged");
    let plan = dir.join("m.txt.skope.json");
    let ws = example();
    let graph = ws.source().id.clone();
    let mut claim = journal::claim(&plan, &graph).unwrap();
    for scope in ["moe_3", "attn_2", "moe_1"] {
        claim.journal.append(&delete(scope)).unwrap();
    }
    // The next record was cut inside a character when the disk filled.
    let path = journal::path(&plan);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(
        "{\"edit\":{\"edit\":{\"edit\":\"delete\",\"scope\":\"m\u{e9}".as_bytes(),
    );
    bytes.pop();
    std::fs::write(&path, &bytes).unwrap();
    drop(claim);
    let claim = journal::claim(&plan, &graph).unwrap();
    let recovery = claim.recovery.as_ref().expect("offered");
    assert_eq!(recovery.edits(), 3, "every whole record");
    let damage = recovery.damage.as_ref().unwrap();
    assert_eq!((damage.line, damage.lost), (5, 1));
    let copy = recovery.damaged_copy.clone().expect("kept aside");
    assert_eq!(std::fs::read(&copy).unwrap(), bytes, "as it was");
    let words = journal::damage_words(damage, recovery);
    assert!(
        words.contains("1 record(s) from there on are lost"),
        "{words}"
    );
    drop(claim);
    // A flipped byte in the second record: one whole record before it.
    let mut flipped = std::fs::read(&copy).unwrap();
    let second = flipped.iter().position(|&b| b == b'\n').unwrap() + 1;
    let second = second + flipped[second..].iter().position(|&b| b == b'\n').unwrap() + 1;
    flipped[second + 30] ^= 0x20;
    std::fs::write(&path, &flipped).unwrap();
    let claim = journal::claim(&plan, &graph).unwrap();
    let recovery = claim.recovery.as_ref().expect("offered");
    assert_eq!(recovery.edits(), 1);
    assert_eq!(recovery.damage.as_ref().map(|d| d.lost), Some(3));
}

#[test]
fn a_journal_left_for_another_plan_file_is_not_recovered_here() {
    let dir = crate::common::scratch("safety-other-plan");
    let ws = example();
    let graph = ws.source().id.clone();
    // r0's session journals for r0's plan file; its journal is copied beside r1's.
    std::fs::create_dir_all(dir.join("r0")).unwrap();
    std::fs::create_dir_all(dir.join("r1")).unwrap();
    let r0 = dir.join("r0/m.txt.skope.json");
    let r1 = dir.join("r1/m.txt.skope.json");
    let mut claim = journal::claim(&r0, &graph).unwrap();
    claim.journal.append(&delete("moe_3")).unwrap();
    drop(claim);
    std::fs::copy(journal::path(&r0), journal::path(&r1)).unwrap();
    let here = journal::claim(&r1, &graph).unwrap();
    assert!(here.recovery.is_none());
    assert_eq!(here.foreign, [journal::path(&r1)]);
    // The plan file is recorded absolute, whatever the working directory was.
    let records = journal::read(&journal::path(&r0)).unwrap();
    match records.entries.first() {
        Some(JournalEntry::Start { plan: Some(p), .. }) => {
            assert!(
                p.is_absolute() && p.ends_with("r0/m.txt.skope.json"),
                "{p:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    let there = journal::claim(&r0, &graph).unwrap();
    assert_eq!(there.recovery.map(|r| r.edits()), Some(1));
}

#[test]
fn nothing_is_offered_for_edits_undone_or_saved_just_before_a_stop() {
    let dir = crate::common::scratch("safety-nothing");
    let plan = dir.join("m.txt.skope.json");
    let ws = example();
    let graph = ws.source().id.clone();
    // Undone back to where it started.
    let mut claim = journal::claim(&plan, &graph).unwrap();
    claim.journal.append(&delete("moe_3")).unwrap();
    claim.journal.append(&JournalEntry::Undo).unwrap();
    drop(claim);
    let claim = journal::claim(&plan, &graph).unwrap();
    assert!(claim.recovery.is_none());
    assert!(
        claim.notes[0].contains("nothing to recover: its edits were undone"),
        "{:?}",
        claim.notes
    );
    let mut journal = claim.journal;
    // Killed between the plan's rename and the journal's truncation: the plan file holds
    // what the `saving` record says.
    let mut edited = example();
    edited
        .apply(
            Edit::Delete {
                scope: "moe_3".into(),
            },
            None,
        )
        .unwrap();
    let file = PlanFile::of(&edited);
    let bytes = file.to_json();
    journal.append(&delete("moe_3")).unwrap();
    journal
        .append(&JournalEntry::Saving {
            digest: journal::Digest::of(bytes.as_bytes()),
        })
        .unwrap();
    file.write_bytes(&plan, bytes.as_bytes()).unwrap();
    drop(journal);
    let claim = journal::claim(&plan, &graph).unwrap();
    assert!(claim.recovery.is_none());
    assert!(
        claim.notes[0].contains("saved its edits to") && claim.notes[0].contains("just before"),
        "{:?}",
        claim.notes
    );
    // An edit after that save is offered, on the plan file as saved.
    let mut journal = claim.journal;
    journal.set_base(Some(&plan));
    journal.append(&delete("attn_2")).unwrap();
    journal
        .append(&JournalEntry::Saving {
            digest: journal::Digest::of(b"a save that never reached the disk"),
        })
        .unwrap();
    drop(journal);
    let claim = journal::claim(&plan, &graph).unwrap();
    let recovery = claim.recovery.unwrap();
    assert_eq!(recovery.edits(), 1);
    assert!(!recovery.saved_part && !recovery.base_changed);
    assert_eq!(
        recovery.base.as_deref(),
        Some(journal::absolute(&plan).as_path())
    );
}

#[test]
fn a_base_plan_changed_by_another_program_is_said() {
    let dir = crate::common::scratch("safety-base-changed");
    let plan = dir.join("m.txt.skope.json");
    let ws = example();
    PlanFile::of(&ws).write(&plan).unwrap();
    let mut claim = journal::claim(&plan, &ws.source().id).unwrap();
    claim.journal.set_base(Some(&plan));
    claim.journal.append(&delete("moe_3")).unwrap();
    drop(claim);
    let mut other = PlanFile::of(&ws);
    other.scopes.pop();
    other.write(&plan).unwrap();
    let claim = journal::claim(&plan, &ws.source().id).unwrap();
    assert!(claim.recovery.unwrap().base_changed);
}
