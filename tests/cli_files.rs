//! The command line never writes where the user did not ask: an output that is one of the
//! inputs is refused, and folders of skope's beside a dump that are links to elsewhere are
//! refused, with nothing outside the dump's folder changed.

use crate::common::{self, example_path, skope_in};
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// Every file under `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(contents(&path));
        } else {
            out.insert(path.clone(), std::fs::read(&path).unwrap());
        }
    }
    out
}

/// A copy of the bundled example in a fresh folder, and a folder `outside` beside it.
fn dump_and_outside(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = common::scratch(tag);
    let dump = dir.join("m.txt");
    std::fs::copy(example_path("moe_decode.ge_proto.txt"), &dump).unwrap();
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("keep.txt"), "mine\n").unwrap();
    (dir, dump, outside)
}

#[test]
fn an_export_over_its_own_dump_is_refused_however_the_dump_is_named() {
    let (dir, dump, _) = dump_and_outside("cli-export-self");
    let before = std::fs::read(&dump).unwrap();
    symlink(&dump, dir.join("alias.txt")).unwrap();
    for (format, output) in [
        ("plan", "m.txt"),
        ("torchair", "m.txt"),
        ("trace", "alias.txt"),
        ("plan", "alias.txt"),
    ] {
        let mut args = vec!["export", "m.txt", "--format", format, "-o", output];
        if format == "trace" {
            args.extend(["--profiles", "m.txt"]);
        }
        let out = skope_in(&dir, &args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format} -o {output}: {stderr}");
        assert!(
            stderr.contains("which this command reads") && stderr.contains("give another path"),
            "{stderr}"
        );
        assert_eq!(
            std::fs::read(&dump).unwrap(),
            before,
            "{format} -o {output}"
        );
    }
    // The plan file given with --plan is an input too.
    let plan = dir.join("p.skope.json");
    let out = skope_in(
        &dir,
        &["export", "m.txt", "--format", "plan", "-o", "p.skope.json"],
        &[],
    );
    assert!(out.status.success());
    let written = std::fs::read(&plan).unwrap();
    let out = skope_in(
        &dir,
        &[
            "export",
            "m.txt",
            "--plan",
            "p.skope.json",
            "--format",
            "plan",
            "-o",
            "p.skope.json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&plan).unwrap(), written);
}

#[test]
fn codegen_and_runs_folders_that_are_links_to_elsewhere_are_refused() {
    let (dir, _, outside) = dump_and_outside("cli-own-folders");
    let before = contents(&outside);
    symlink(&outside, dir.join("m.txt.codegen")).unwrap();
    symlink(&outside, dir.join("m.txt.runs")).unwrap();
    let out = skope_in(&dir, &["codegen", "m.txt"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("m.txt.codegen is a symbolic link"),
        "{stderr}"
    );
    let out = skope_in(&dir, &["compile", "m.txt", "--recipe", "check"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("m.txt.runs is a symbolic link"), "{stderr}");
    assert_eq!(contents(&outside), before, "nothing outside changed");
    // A folder the user names may be a link they made.
    let out = skope_in(&dir, &["codegen", "m.txt", "-o", "m.txt.codegen"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(contents(&outside).len() > before.len());
}

/// The bundled example padded with comment lines to about `mb` megabytes, in `dir`.
fn padded_dump(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join("big.txt");
    let mut text = std::fs::read_to_string(example_path("moe_decode.ge_proto.txt")).unwrap();
    let line = format!("# {}\n", "x".repeat(1000));
    text.push_str(&line.repeat(mb * 1000));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn under_an_address_space_limit_a_dump_too_big_for_it_is_refused_not_an_abort() {
    let dir = common::scratch("cli-ulimit");
    let big = padded_dump(&dir, 60);
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 150000 && exec {} info {}",
            env!("CARGO_BIN_EXE_skope"),
            big.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is free under the address-space limit (ulimit -v)"),
        "{stderr}"
    );
}

#[test]
fn a_huge_op_type_or_scope_name_is_kept_cut_in_every_output() {
    let dir = common::scratch("cli-huge-names");
    let huge = "T".repeat(4 << 20);
    for side in ["base", "new"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        std::fs::write(
            dir.join(side).join("op_statistic.csv"),
            format!("OP Type,Core Type,Count,Total Time(us)\n{huge},AI_CORE,2,5\nAdd,AI_VECTOR_CORE,3,4\n"),
        )
        .unwrap();
    }
    let out = skope_in(&dir, &["diff", "base", "new", "--json"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.len() < 64 << 10,
        "{} bytes of JSON",
        out.stdout.len()
    );
    // A plan file naming a huge scope: the export holds it cut.
    let dump = dir.join("m.txt");
    std::fs::copy(example_path("moe_decode.ge_proto.txt"), &dump).unwrap();
    let plan = dir.join("p.skope.json");
    let made = skope_in(
        &dir,
        &["export", "m.txt", "--format", "plan", "-o", "p.skope.json"],
        &[],
    );
    assert!(made.status.success());
    let text = std::fs::read_to_string(&plan).unwrap();
    std::fs::write(
        &plan,
        text.replacen("\"attn_0\"", &format!("\"{huge}\""), 1),
    )
    .unwrap();
    let out = skope_in(
        &dir,
        &["report", "m.txt", "--plan", "p.skope.json", "--json"],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.len() < 1 << 20,
        "{} bytes of JSON",
        out.stdout.len()
    );
}

#[test]
fn a_csv_cell_that_would_be_a_formula_is_kept_as_text() {
    let dir = common::scratch("cli-csv-formula");
    for side in ["base", "new"] {
        std::fs::create_dir_all(dir.join(side)).unwrap();
        std::fs::write(
            dir.join(side).join("op_statistic.csv"),
            "OP Type,Core Type,Count,Total Time(us)\n\"=HYPERLINK(\"\"http://x\"\")\",AI_CORE,2,5\n",
        )
        .unwrap();
    }
    let out = skope_in(&dir, &["diff", "base", "new", "--csv"], &[]);
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(csv.contains("\"'=HYPERLINK("), "{csv}");
    assert!(
        !csv.lines()
            .any(|l| l.starts_with("=") || l.starts_with("\"=")),
        "{csv}"
    );
}

#[test]
fn diff_never_reads_a_profile_whole_to_learn_it_is_not_a_plan_file() {
    // An 80 MB op statistic (one op type, a million times): read as a stream it takes a few
    // MB; read whole, as a plan file would be, it does not fit under the limit.
    let dir = common::scratch("cli-diff-stream");
    let path = dir.join("op_statistic.csv");
    let mut text = String::from("OP Type,Core Type,Count,Total Time(us)\n");
    let row = "Add,AI_VECTOR_CORE,1,1.5,padding-padding-padding-padding-padding-padding-padding\n";
    text.push_str(&row.repeat(80_000_000 / row.len()));
    std::fs::write(&path, text).unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 120000 && exec {} diff {} {}",
            env!("CARGO_BIN_EXE_skope"),
            path.display(),
            path.display()
        ))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("busy time"));
}
