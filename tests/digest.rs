//! Digests: one rank's profile reduced where the profiler wrote it, and read anywhere with
//! exactly the figures of the profile itself — every number and every verdict.

use crate::common::profile_pair::{Seg, Sk, Workload, write, write_ranks};
use skope::commands::digest::DigestRequest;
use skope::profile::ranks::{RankProgress, compare_ranks};
use skope::profile::{ProfileError, digest, load_pair};
use std::path::{Path, PathBuf};

/// Rank `r`'s workload: layer counts, jitter, serialised sub-ops, a slow step and kernels
/// beside the segments differ from rank to rank.
fn workload(r: usize) -> Workload {
    let mut segments = vec![
        Seg::new("attn", "attn", 4 + r % 3, 4.0, 1.5, Sk::SavesGaps),
        Seg::new(
            "moe",
            "moe",
            5,
            6.0,
            0.5,
            if r == 5 {
                Sk::Times(1.4)
            } else {
                Sk::Times(0.9)
            },
        ),
    ];
    if r % 2 == 1 {
        let mut parallel = Seg::new("mlp", "mlp", 4, 3.0, 0.2, Sk::Serial(1.0));
        parallel.parallel = true;
        segments.push(parallel);
    }
    Workload {
        steps: 4 + r % 3,
        segments,
        jitter_pct: 0.5 + r as f64,
        slow_step: (r == 2).then_some((2, 1.6)),
        side_kernels: r.is_multiple_of(3),
    }
}

/// Digests each rank of both sides of the pair at `root` into `out/<side>/rank<N>.skd`, as
/// `skope digest` does on each node; the digests' bytes and the kernel files' bytes.
fn digest_all(root: &Path, out: &Path, ranks: usize) -> (u64, u64) {
    let (mut digests, mut raw) = (0, 0);
    for side in ["no_sk_model", "sk_model"] {
        std::fs::create_dir_all(out.join(side)).unwrap();
        for n in 0..ranks {
            let profile = root.join(side).join(format!("rank{n}_ascend_pt"));
            let output = out.join(side).join(format!("rank{n}.skd"));
            let mut said = Vec::new();
            let asked = DigestRequest {
                profile: &profile,
                output: &output,
                rank: None,
            };
            skope::commands::digest::run(&asked, &mut |line| said.push(line.to_string()))
                .unwrap_or_else(|e| panic!("{}: {e:#}", profile.display()));
            assert!(said[0].contains(&format!("of rank {n}")), "{said:?}");
            digests += std::fs::metadata(&output).unwrap().len();
            raw += std::fs::metadata(profile.join("ASCEND_PROFILER_OUTPUT/kernel_details.csv"))
                .unwrap()
                .len();
        }
    }
    (digests, raw)
}

/// Every figure of `d` as JSON, without where the sides were read from (a digest's path is
/// not its profile's).
fn figures(d: &skope::profile::Diff) -> serde_json::Value {
    let mut v = serde_json::to_value(d).unwrap();
    if let Some(o) = v.as_object_mut() {
        o.remove("base_source");
        o.remove("new_source");
    }
    v
}

#[test]
fn an_8_rank_pair_digested_gives_every_figure_and_verdict_the_profiles_give() {
    let ranks: Vec<Workload> = (0..8).map(workload).collect();
    let dir = crate::common::scratch("digest-ranks");
    let (root, plan) = write_ranks(&ranks, &dir.join("raw"));
    let digests = dir.join("digests");
    let (digest_bytes, raw_bytes) = digest_all(&root, &digests, 8);
    // Tiny files here (a few hundred short rows): the header is much of a digest.
    assert!(
        digest_bytes * 2 < raw_bytes,
        "a digest is small: {digest_bytes} bytes for {raw_bytes} of kernel files"
    );
    let all: Vec<u32> = (0..8).collect();
    let compare = |root: &Path| {
        let sides = skope::profile::Sides::find(root, None)
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()));
        compare_ranks(
            &sides,
            &all,
            Some(&plan),
            Default::default(),
            &RankProgress::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
    };
    let (raw, digested) = (compare(&root), compare(&digests));
    assert_eq!(raw.ranks.len(), 8);
    assert!(
        raw.any_regressed(),
        "rank 5's moe regresses: {:?}",
        raw.superkernels
    );
    assert_eq!(raw, digested, "every rank's figures, payoffs and notes");
    // One rank compared alone: the whole comparison, figure by figure.
    for rank in [0, 3, 5] {
        let (r, d) = (
            load_pair(&root, None, Some(rank)).unwrap(),
            load_pair(&digests, None, Some(rank)).unwrap(),
        );
        let diff = |pair| skope::profile::diff::diff(pair, Some(&plan));
        let (r, d) = (diff(&r), diff(&d));
        assert_eq!(figures(&r), figures(&d), "rank {rank}");
        assert!(d.base_source.digest_of.is_some() && r.base_source.digest_of.is_none());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_database_profile_digested_gives_the_same_figures() {
    let w = Workload {
        steps: 3,
        segments: vec![Seg::new("attn", "attn", 5, 4.0, 1.0, Sk::SavesGaps)],
        jitter_pct: 1.0,
        slow_step: None,
        side_kernels: true,
    };
    let dir = crate::common::scratch("digest-db");
    let (csv, plan) = write(&w, &dir.join("csv"));
    let root = crate::common::profiler_db::pair_as_databases(&csv, &dir.join("db"));
    let digests = dir.join("digests");
    for side in ["no_sk_model", "sk_model"] {
        std::fs::create_dir_all(digests.join(side)).unwrap();
        let asked = DigestRequest {
            profile: &root.join(side),
            output: &digests.join(side).join("rank0.skd"),
            rank: None,
        };
        skope::commands::digest::run(&asked, &mut |_| {}).unwrap_or_else(|e| panic!("{e:#}"));
    }
    let diff = |root: &Path| {
        let pair = load_pair(root, None, None).unwrap_or_else(|e| panic!("{e}"));
        skope::profile::diff::diff(&pair, Some(&plan))
    };
    let (raw, digested) = (diff(&root), diff(&digests));
    assert!(raw.payoffs.is_some(), "{:?}", raw.notes);
    assert!(
        raw.notes.iter().any(|n| n.contains("from STEP_TIME")),
        "the database's notes come along: {:?}",
        raw.notes
    );
    assert_eq!(figures(&raw), figures(&digested));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A digest of the bundled profile's base, as bytes.
fn bundled_digest() -> Vec<u8> {
    let root = crate::common::repo("assets/examples/prof_result/no_sk_model");
    let files = skope::profile::discover(&root)
        .unwrap()
        .pick(None, &root)
        .unwrap();
    digest::digest(&files, Some(0), None).unwrap().0
}

fn read_back(path: &Path) -> Result<skope::profile::Profile, ProfileError> {
    skope::profile::Profile::open(path, None)
}

#[test]
fn a_damaged_or_newer_digest_is_a_clear_error_naming_the_file() {
    let bytes = bundled_digest();
    let dir = crate::common::scratch("digest-bad");
    let path = dir.join("rank0.skd");
    std::fs::write(&path, &bytes).unwrap();
    let whole = read_back(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(whole.runs.is_some() && !whole.stats_from_kernels);
    // Cut anywhere: an error that names the file and says to make it again; cut in its rows,
    // the byte where a row stops short (at or before the cut) and that row.
    let header_end = 16 + u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let mut placed = 0;
    for cut in (9..bytes.len()).step_by(bytes.len() / 40) {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let e = read_back(&path)
            .err()
            .unwrap_or_else(|| panic!("cut at {cut} reads"));
        let words = format!("{e}");
        assert!(
            words.contains("rank0.skd") && e.hint().contains("skope digest"),
            "cut at {cut}: {words} / {}",
            e.hint()
        );
        let Some((_, at)) = words.split_once(" at byte ") else {
            continue;
        };
        let (byte, row) = at.split_once(" (row ").unwrap_or_else(|| panic!("{words}"));
        let byte: usize = byte.parse().unwrap_or_else(|_| panic!("{words}"));
        let row: u64 = row
            .trim_end_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .unwrap_or_else(|_| panic!("{words}"));
        assert!(
            cut > header_end && (header_end..=cut).contains(&byte) && row >= 1,
            "cut at {cut} (header to {header_end}): {words}"
        );
        placed += 1;
    }
    assert!(placed > 10, "{placed} cuts named their byte and row");
    // A byte more after the end.
    let mut longer = bytes.clone();
    longer.push(7);
    std::fs::write(&path, &longer).unwrap();
    let e = read_back(&path).err().unwrap();
    assert!(format!("{e}").contains("bytes after the end"), "{e}");
    // A format this skope does not know.
    let mut newer = bytes.clone();
    newer[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&path, &newer).unwrap();
    let e = read_back(&path).err().unwrap();
    assert!(
        format!("{e}").contains("a digest of format 2; this skope reads format 1"),
        "{e}"
    );
    assert!(e.hint().contains("the skope that made it"), "{}", e.hint());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_command_line_digests_a_rank_and_diff_reads_a_folder_of_them() {
    let dir = crate::common::scratch("digest-cli");
    let ranks: Vec<Workload> = (0..2).map(workload).collect();
    let (root, _) = write_ranks(&ranks, &dir.join("raw"));
    let digests = dir.join("digests");
    let mut outputs: Vec<PathBuf> = Vec::new();
    for side in ["no_sk_model", "sk_model"] {
        std::fs::create_dir_all(digests.join(side)).unwrap();
        for n in 0..2 {
            // A directory of ranks and --rank, as a launcher's per-node line gives it.
            let output = digests.join(side).join(format!("rank{n}.skd"));
            let out = crate::common::skope(&[
                "digest",
                &root.join(side).to_string_lossy(),
                "--rank",
                &n.to_string(),
                "-o",
                &output.to_string_lossy(),
            ]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{err}");
            assert!(
                err.contains(&format!(
                    "kernel run(s) of rank {n} from kernel_details.csv"
                )),
                "{err}"
            );
            outputs.push(output);
        }
    }
    let diff = |root: &Path| {
        let out = crate::common::skope(&["diff", &root.to_string_lossy()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(diff(&root), diff(&digests));
    // Its input is never its output; a pair's directory is two sides, not one rank.
    let kernels =
        root.join("no_sk_model/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
    let before = std::fs::read(&kernels).unwrap();
    let out = crate::common::skope(&[
        "digest",
        &kernels.to_string_lossy(),
        "-o",
        &kernels.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("which this command reads"));
    assert_eq!(std::fs::read(&kernels).unwrap(), before);
    // Nor the profiler's notes beside the profile, which it reads the level from.
    let rank = root.join("no_sk_model/rank0_ascend_pt");
    let info = rank.join("profiler_info_0.json");
    let notes = br#"{"config": {"experimental_config": {"_profiler_level": "Level1"}}}"#;
    std::fs::write(&info, notes).unwrap();
    let out = crate::common::skope(&[
        "digest",
        &rank.to_string_lossy(),
        "-o",
        &info.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("which this command reads"));
    assert_eq!(std::fs::read(&info).unwrap(), notes);
    std::fs::remove_file(&info).unwrap();
    let out = crate::common::skope(&["digest", &root.to_string_lossy(), "-o", "/dev/null"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("digest each side's ranks on their own"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A digest is not digested again.
    let out = crate::common::skope(&[
        "digest",
        &outputs[0].to_string_lossy(),
        "-o",
        &dir.join("again.skd").to_string_lossy(),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already a digest"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_digest_written_beside_the_profile_does_not_stand_for_it() {
    let dir = crate::common::scratch("digest-beside");
    let ranks: Vec<Workload> = (0..1).map(workload).collect();
    let (root, _) = write_ranks(&ranks, &dir);
    let profile = root.join("no_sk_model/rank0_ascend_pt");
    let output = profile.join("rank0.skd");
    for _ in 0..2 {
        // Again: the profile is still read, not the digest beside it.
        let asked = DigestRequest {
            profile: &profile,
            output: &output,
            rank: None,
        };
        skope::commands::digest::run(&asked, &mut |_| {}).unwrap_or_else(|e| panic!("{e:#}"));
    }
    let files = skope::profile::discover(&profile)
        .unwrap()
        .pick(None, &profile)
        .unwrap();
    assert!(files.origin.is_none(), "{files:?}");
    assert!(
        files.kernels[0].ends_with("kernel_details.csv"),
        "{files:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_digest_written_into_a_folder_of_ranks_does_not_hide_them() {
    let dir = crate::common::scratch("digest-among-ranks");
    let ranks: Vec<Workload> = (0..3).map(workload).collect();
    let (root, _) = write_ranks(&ranks, &dir);
    let side = root.join("sk_model");
    for rank in 0..2 {
        // Each rank digested into the folder of ranks itself: the second still finds its rank.
        let output = side.join(format!("rank{rank}.skd"));
        let asked = DigestRequest {
            profile: &side,
            output: &output,
            rank: Some(rank),
        };
        skope::commands::digest::run(&asked, &mut |_| {}).unwrap_or_else(|e| panic!("{e:#}"));
    }
    match skope::profile::discover(&side).unwrap() {
        skope::profile::Found::Ranks(found) => {
            assert_eq!(found.len(), 3);
            assert!(found.iter().all(|r| r.files.origin.is_none()));
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
