//! Every reader of user input fed mutated real-shaped inputs, with a small budget: none may
//! panic. The long campaign is `cargo run --release --example fuzz` (see README).

use crate::mutate;

/// Inputs per reader in `cargo test` (debug build): enough to catch a regression in a few
/// seconds, with a fixed seed so a failure repeats.
const RUNS: u64 = 400;

#[test]
fn no_reader_panics_on_mutated_inputs() {
    let scratch = crate::common::scratch("fuzz");
    let mut failures = Vec::new();
    for (i, target) in mutate::targets().iter().enumerate() {
        let found = mutate::campaign(target, RUNS, 0x5EED + i as u64, &scratch, None);
        assert_eq!(found.executions, RUNS);
        if let Some((message, input)) = found.first {
            let shown: String = String::from_utf8_lossy(&input).chars().take(300).collect();
            failures.push(format!(
                "{}: {} panic(s); the first: {message}\n  input ({} bytes) starts: {shown:?}",
                target.name,
                found.panics,
                input.len()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn seeds_are_real_shaped_documents_the_readers_accept() {
    // A seed the reader refuses would only ever exercise its error paths.
    for name in ["ge-text.txt", "pbtxt.pbtxt", "json.json"] {
        let target_name = name.split('.').next().unwrap_or_default();
        let targets = mutate::targets();
        let target = targets.iter().find(|t| t.name == target_name).unwrap();
        for seed in &target.seeds {
            let dump = skope::load::load_bytes(std::path::Path::new(name), seed);
            let dump = dump.unwrap_or_else(|e| panic!("{target_name} seed: {e}"));
            assert!(dump.main().len() >= 2, "{target_name}: a seed with ops");
        }
    }
}

#[test]
fn the_newer_readers_accept_their_seeds() {
    let targets = mutate::targets();
    let seeds = |name: &str| {
        targets
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no target {name}"))
            .seeds
            .clone()
    };
    for seed in seeds("aclgraph-task-queue") {
        assert!(
            !skope::aclgraph::device::task_queues(&seed)
                .unwrap()
                .is_empty()
        );
    }
    for seed in seeds("aclgraph-device-args") {
        assert!(!skope::aclgraph::logs::device_args(&String::from_utf8_lossy(&seed)).is_empty());
    }
    for seed in seeds("journal") {
        let read = skope::journal::parse(&seed);
        assert!(read.damage.is_none() && read.entries.len() >= 3, "{read:?}");
    }
    for seed in seeds("static-op-info") {
        skope::static_kernels::op_info::parse(&seed).unwrap();
    }
    for seed in seeds("ms-flags") {
        let (given, problems) = skope::mindspore::flags::parse(&String::from_utf8_lossy(&seed));
        assert!(problems.is_empty() && !given.is_empty(), "{problems:?}");
    }
    let scratch = crate::common::scratch("fuzz-seeds");
    for seed in seeds("kernel-meta-cpp") {
        let path = scratch.join("te_superkernel_x_kernel.cpp");
        std::fs::write(&path, &seed).unwrap();
        let source = skope::kernel_meta::read_source(&path).unwrap();
        assert!(!source.calls.is_empty());
    }
    let record = &seeds("run-record")[0];
    let dir = scratch.join("r-1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("run.json"), record).unwrap();
    assert!(skope::compile::record::RunRecord::read(&dir).is_some());
    for seed in seeds("csv-op-summary") {
        let path = scratch.join("op_summary_1.csv");
        std::fs::write(&path, &seed).unwrap();
        let mut reader = skope::profile::KernelReader::open(&[path]);
        assert!(reader.next_row().unwrap().is_some());
    }
}

#[test]
fn mutations_change_inputs_and_repeat_for_a_seed() {
    let seed = b"op { name: \"a\" type: \"Add\" }".to_vec();
    let run = |s| {
        let mut rng = mutate::Rng::new(s);
        (0..50)
            .map(|_| mutate::mutate(&mut rng, &seed, &seed))
            .collect::<Vec<_>>()
    };
    let (a, b) = (run(7), run(7));
    assert_eq!(a, b);
    assert!(a.iter().filter(|m| **m != seed).count() > 40);
    assert_ne!(run(8), a);
}
