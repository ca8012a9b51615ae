//! Mutation fuzzing of every reader of user input: real-shaped seeds (cut from the bundled
//! example and its profiles, assets and the built-in config), mutated byte by byte and with
//! tokens of the formats, fed to each parser with panics caught and counted. `tests/fuzz.rs`
//! runs a small budget in `cargo test`; `examples/fuzz.rs` runs a long campaign.

use std::path::{Path, PathBuf};

// The seeds' generator; the fuzz example has no `common`, so this module loads the file too.
#[path = "../common/profiler_db.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod profiler_db;

/// A small, fast, seeded random number generator (xorshift64*): the same seed gives the same
/// inputs, so a panic found once is found again.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; 0 is moved off zero).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Pieces of the formats that mutations insert: syntax, keys skope reads, edge-case values.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"'",
    b":",
    b",",
    b"\\",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"-1",
    b"0",
    b"-0",
    b"4294967296",
    b"99999999999999999999999",
    b"1e308",
    b"-1e-308",
    b"NaN",
    b"inf",
    b"null",
    b"true",
    b"N/A",
    b"\"\"",
    b"\xff",
    b"\x00",
    b"\xef\xbb\xbf",
    b"\xe2\x80\xae",
    b"\xc2\x9b",
    b"\x1b[2J",
    b"\\x0a",
    b"\\377",
    b"\\u202e",
    b"op {",
    b"graph {",
    b"attr {",
    b"node {",
    b"value {",
    b"list {",
    b"name: \"",
    b"input: \"",
    b"\"key\":",
    b"\"value\":",
    b"\"op\": [",
    b"_super_kernel_scope",
    b"_super_kernel_options",
    b"stream_id: ",
    b"id: ",
    b"s: \"",
    b"i: ",
    b"dim: ",
    b"^",
    b":0",
    b":-1",
    b"=",
    b"==",
    b"early-start=",
    b"stream-fusion=1",
    b"strict-scope-check=abort",
    b"[[profile]]",
    b"[[recipe]]",
    b"argv = [",
    b"{graph}",
    b"{nope}",
    b"{{",
    b"}}",
    b",,,",
    b"\"\"\"",
    b"Total Time(us)",
    b"Duration(us)",
    b"OP Type",
    b"MatMulV2",
    b"\"skope_plan\": ",
    b"\"scopes\": [",
];

/// `data` with one to eight mutations; `other` is another seed to splice from.
pub fn mutate(rng: &mut Rng, data: &[u8], other: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(out.len() + 1);
        match rng.below(10) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
            2 if !out.is_empty() => {
                let end = (at + 1 + rng.below(64)).min(out.len());
                out.drain(at.min(end)..end);
            }
            3 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + 1 + rng.below(256)).min(out.len());
                let piece = out[start..end].to_vec();
                out.splice(at..at, piece);
            }
            4 => out.truncate(at),
            5 if !other.is_empty() => {
                let start = rng.below(other.len());
                let end = (start + 1 + rng.below(512)).min(other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            6 => {
                // A long run: huge names, deep nesting, many separators.
                let token = TOKENS[rng.below(TOKENS.len())];
                let times = 1 + rng.below(2000);
                let run: Vec<u8> = token
                    .iter()
                    .copied()
                    .cycle()
                    .take(token.len() * times)
                    .collect();
                out.splice(at..at, run);
            }
            _ => {
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(at..at, token.iter().copied());
            }
        }
    }
    out
}

/// The first `budget` bytes of `text` (a text-proto or JSON document) closed again: cut after
/// the last element that ends within the budget, with the brackets still open closed in
/// order — a small document of the real shape, so mutations reach past the syntax.
pub fn prefix(text: &[u8], budget: usize) -> Vec<u8> {
    let mut stack: Vec<u8> = Vec::new();
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    let mut cut: Option<usize> = None;
    for (i, &b) in text.iter().enumerate().take(budget) {
        if let Some(q) = quote {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'{' | b'[' => stack.push(b),
            b'}' | b']' => {
                stack.pop();
                // The end of an element no deeper than a graph's op list.
                if stack.len() <= 4 {
                    cut = Some(i + 1);
                }
            }
            _ => {}
        }
    }
    let Some(end) = cut else {
        return text.iter().copied().take(budget).collect();
    };
    // The brackets open at the cut, found again.
    let mut open: Vec<u8> = Vec::new();
    let (mut quote, mut escaped) = (None, false);
    for &b in &text[..end] {
        if let Some(q) = quote {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'{' | b'[' => open.push(b),
            b'}' | b']' => {
                open.pop();
            }
            _ => {}
        }
    }
    let mut out = text[..end].to_vec();
    out.push(b'\n');
    for b in open.iter().rev() {
        out.push(if *b == b'{' { b'}' } else { b']' });
        out.push(b'\n');
    }
    out
}

/// One reader under test: its name, its seeds, and how to feed it an input.
pub struct Target {
    /// Its name (what `examples/fuzz.rs --target` takes).
    pub name: &'static str,
    /// Real-shaped inputs to mutate.
    pub seeds: Vec<Vec<u8>>,
    /// Feeds it one input; `scratch` is a directory for readers that take a file.
    pub run: fn(&[u8], &Path),
}

fn asset(rel: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn example(name: &str) -> Vec<u8> {
    asset(&format!("assets/examples/{name}"))
}

fn profile_file(side: &str, name: &str) -> Vec<u8> {
    asset(&format!(
        "assets/examples/prof_result/{side}/npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT/{name}"
    ))
}

fn load_dump(data: &[u8], name: &str) -> Option<skope::load::Dump> {
    skope::load::load_bytes(Path::new(name), data).ok()
}

/// A dump: loaded, and when it loads, planned (the rules of every op, the segments).
/// The bundled example's first composite JSON.
fn first_composite() -> Vec<u8> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/mindspore/akg_kernel_meta");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .first()
        .and_then(|f| std::fs::read(f).ok())
        .unwrap_or_default()
}

fn plan_dump(data: &[u8], name: &str) {
    if let Some(dump) = load_dump(data, name) {
        let format = dump.format;
        let ws = if skope::mindspore::is_mindspore(format) {
            skope::mindspore::workspace(dump.into_main(), format, name)
        } else {
            skope::workspace::Workspace::new(
                dump.into_main(),
                format,
                name,
                &skope::fusion::rules::RuleSet::bundled(),
            )
        };
        let _ = skope::report::Report::new(
            &ws.what_if(),
            name,
            format.id(),
            &[],
            skope::report::Detail::Full,
        )
        .to_text();
    }
}

/// A file in `scratch` holding `data`.
/// Every kernel row of the profile file at `path`, read (errors are fine; panics are not).
fn read_kernels(path: &Path) {
    let mut reader = skope::profile::KernelReader::open(&[path.to_path_buf()]);
    while let Ok(Some(_)) = reader.next_row() {}
}

/// A profiler database of `shape` with a few steps of kernels, as bytes (small pages, so a
/// seed is a few KiB).
fn database_seed(shape: profiler_db::Shape) -> Vec<u8> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("skope-seed-{}-{n}.db", std::process::id()));
    let small = profiler_db::Shape {
        small_pages: true,
        ..shape
    };
    profiler_db::write(&path, &profiler_db::workload(2), small);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let _ = std::fs::remove_file(&path);
    bytes
}

/// A digest of one side of the bundled profile pair, as bytes.
fn digest_seed(side: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/examples/prof_result")
        .join(side);
    let found = skope::profile::discover(&root).expect("the bundled profile is found");
    let files = found.pick(None, &root).expect("one rank");
    skope::profile::digest::digest(&files, Some(0), None)
        .expect("the bundled profile digests")
        .0
}

fn scratch_file(scratch: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = scratch.join(name);
    std::fs::write(&path, data).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    path
}

/// Every reader of user input, with its seeds.
pub fn targets() -> Vec<Target> {
    let plan_seed = {
        let dump = load_dump(
            &example("moe_decode.ge_proto.txt"),
            "moe_decode.ge_proto.txt",
        )
        .expect("the bundled example loads");
        let format = dump.format;
        let ws = skope::workspace::Workspace::new(
            dump.into_main(),
            format,
            "moe_decode.ge_proto.txt",
            &skope::fusion::rules::RuleSet::bundled(),
        );
        skope::planfile::PlanFile::of(&ws).to_json().into_bytes()
    };
    vec![
        Target {
            name: "ge-text",
            seeds: vec![
                prefix(&example("moe_decode.ge_proto.txt"), 6000),
                prefix(&example("moe_decode.txt"), 6000),
                prefix(&example("moe_decode.after_sk.ge_proto.txt"), 6000),
            ],
            run: |data, _| plan_dump(data, "fuzz.txt"),
        },
        Target {
            name: "pbtxt",
            seeds: vec![
                prefix(&example("moe_decode.pbtxt"), 6000),
                prefix(&example("moe_decode.ge_onnx.pbtxt"), 6000),
            ],
            run: |data, _| plan_dump(data, "fuzz.pbtxt"),
        },
        Target {
            name: "mindspore",
            seeds: vec![
                prefix(&example("mindspore/graph_build_0_1.ir"), 9000),
                first_composite(),
            ],
            run: |data, _| plan_dump(data, "fuzz.ir"),
        },
        Target {
            name: "json",
            seeds: vec![prefix(&example("moe_decode.json"), 8000)],
            run: |data, _| plan_dump(data, "fuzz.json"),
        },
        Target {
            name: "csv-op-statistic",
            seeds: vec![
                profile_file("no_sk_model", "op_statistic.csv"),
                profile_file("sk_model", "op_statistic.csv"),
            ],
            run: |data, _| {
                let _ = skope::profile::op_statistic::parse(data, Path::new("op_statistic.csv"));
            },
        },
        Target {
            name: "csv-kernels",
            seeds: vec![
                profile_file("no_sk_model", "kernel_details.csv"),
                profile_file("sk_model", "kernel_details.csv"),
            ],
            run: |data, scratch| {
                use skope::profile::{account, payoff, per_op, runs, steps};
                let path = scratch_file(scratch, "kernel_details.csv", data);
                // Read with every run kept, then steps and payoffs of the file against itself
                // (the plan inferred from its SuperKernel names).
                if let Ok((table, runs)) = runs::Runs::read(&[path], None) {
                    let _ = steps::Steps::of(&runs, |_| true);
                    let plan = per_op::infer_plan(&table, &table);
                    let binding = payoff::bind(&plan, &runs, &runs);
                    let _ = payoff::payoffs(&plan, &binding, (&runs, &runs), Default::default());
                    let _ = account::account(
                        Some((&plan, &binding)),
                        Some((&runs, &runs)),
                        &|_| true,
                        (0.0, 0.0),
                        ((1, 1), Some("SuperKernel")),
                    );
                }
            },
        },
        Target {
            name: "toml-profiles",
            seeds: vec![asset("assets/recipes/skope.toml")],
            run: |data, _| {
                if let Ok(text) = std::str::from_utf8(data) {
                    let _ = skope::compile::recipe::parse(text, Path::new("skope.toml"));
                }
            },
        },
        Target {
            name: "toml-config",
            seeds: vec![skope::tui::config::default_config_text().into_bytes()],
            run: |data, _| {
                if let Ok(text) = std::str::from_utf8(data) {
                    let _ = skope::tui::config::parse(text);
                }
            },
        },
        Target {
            name: "plan",
            seeds: vec![plan_seed],
            run: |data, scratch| {
                let path = scratch_file(scratch, "plan.skope.json", data);
                if let Ok(plan) = skope::planfile::PlanFile::read(&path) {
                    let _ = plan.marks_for(&PLAN_GRAPH);
                }
            },
        },
        Target {
            name: "rules",
            seeds: vec![
                asset("assets/rules/ge_superkernel_pass.json"),
                asset("assets/rules/communication.json"),
                example("site_rules.json"),
            ],
            run: |data, _| {
                if let Ok(text) = std::str::from_utf8(data) {
                    let mut rules = skope::fusion::rules::RuleSet::default();
                    let _ = rules.add_text(Path::new("rules.json"), text);
                }
            },
        },
        Target {
            name: "aclgraph-logs",
            seeds: [
                "sk_fused_nodes.log",
                "sk_fusion_fail_reasons.log",
                "sk_scope_split.log",
                "sk_node_detail.log",
            ]
            .map(|name| asset(&format!("{ACL_MODEL}/{name}")))
            .to_vec(),
            run: |data, scratch| {
                // The input as every log of a model directory without a graph file: the tasks
                // then come from the logs themselves.
                let dir = scratch.join("model_1_1");
                let _ = std::fs::create_dir_all(&dir);
                for name in [
                    "sk_fused_nodes.log",
                    "sk_fusion_fail_reasons.log",
                    "sk_scope_split.log",
                    "sk_node_detail.log",
                ] {
                    let _ = std::fs::write(dir.join(name), data);
                }
                read_acl_model(&dir);
            },
        },
        Target {
            name: "aclgraph-graph",
            seeds: vec![
                asset(&format!("{ACL_MODEL}/sk_graph_origin.json")),
                asset(&format!("{ACL_MODEL}/sk_graph_updated.json")),
            ],
            run: |data, scratch| {
                let dir = scratch.join("model_2_1");
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join("sk_graph_updated.json"), data);
                read_acl_model(&dir);
            },
        },
        Target {
            name: "profiler-db",
            seeds: vec![
                database_seed(profiler_db::Shape::FULL),
                database_seed(profiler_db::Shape {
                    block_num: true,
                    cann_api: false,
                    ..profiler_db::Shape::LEVEL0
                }),
            ],
            run: |data, scratch| read_kernels(&scratch_file(scratch, "fuzz.db", data)),
        },
        Target {
            name: "sk-prof",
            seeds: vec![asset("assets/examples/aclgraph/sk_meta/4711/sk_prof_device_0.json")],
            run: |data, _| {
                // Read as the inside view reads it (records, folded per SuperKernel) and as
                // the model reads it (timings per task); the older sk_event_dev_device_*.json
                // has the same form.
                let _ = skope::aclgraph::device::timings(data);
                if let Ok(records) = skope::aclgraph::device::records(data) {
                    for sk in records.iter().map(|r| r.sk_id).take(8) {
                        let _ = skope::aclgraph::inside::occurrences(&records, sk, 1);
                    }
                }
            },
        },
        Target {
            name: "trace-view",
            seeds: vec![profiler_db::trace_view(&profiler_db::workload(2)).into_bytes()],
            run: |data, scratch| read_kernels(&scratch_file(scratch, "trace_view.json", data)),
        },
        Target {
            name: "kernel-meta-json",
            seeds: vec![
                br#"{"kernelName": "te_superkernel_1", "blockDim": 40, "coreType": "MIX",
                    "SuperkernelInfo": {"kernelList": {"aicore": [
                    {"func_name": "mm__kernel0", "sub_operator_kernel_type": "KERNEL_TYPE_AIC_ONLY", "blockDim": 24},
                    {"func_name": "add__kernel0", "sub_operator_kernel_type": "KERNEL_TYPE_AIV_ONLY", "blockDim": "40"}]}}}"#
                    .to_vec(),
                br#"{"kernelName": "add__kernel0", "binFileName": "add", "blockDim": 40,
                    "sub_operator_kernel_type": "KERNEL_TYPE_AIV_ONLY", "sub_operator_params": ["x", "y"],
                    "sub_operator_kernel_name": {"AiCore": {"func_name": "add__kernel0_middle"}}}"#
                    .to_vec(),
                br#"{"kernelName": "te_superkernel_2", "blockDim": 24,
                    "SuperkernelInfo": {"kernelList": {
                    "dav-c220-cube": [{"func_name": "mm__kernel0_mix_aic", "blockDim": 24}],
                    "dav-c220-vec": [{"func_name": "mm__kernel0_mix_aiv", "blockDim": 48}]}}}"#
                    .to_vec(),
            ],
            run: |data, scratch| {
                let path = scratch_file(scratch, "meta.json", data);
                let _ = skope::kernel_meta::read_json(&path);
                let _ = skope::kernel_meta::read_op_info(&path);
            },
        },
        Target {
            name: "check-op",
            seeds: vec![
                asset("tests/fixtures/check_op/adapted/add_custom.cpp"),
                asset("tests/fixtures/check_op/unadapted/matmul_custom.cpp"),
            ],
            run: |data, _| {
                let source = skope::check_op::Source {
                    path: Path::new("op.cpp").to_path_buf(),
                    text: String::from_utf8_lossy(data).into_owned(),
                };
                // Both targets: their rules differ.
                let target = match data.len() % 2 {
                    0 => skope::target::Target::Dav2201,
                    _ => skope::target::Target::Dav3510,
                };
                let check = skope::check_op::check(&[source], target);
                let _ = check.to_text();
            },
        },
        Target {
            name: "aclgraph-task-queue",
            seeds: vec![asset(&format!("{ACL_MODEL}/sk_task_queue.json"))],
            run: |data, scratch| {
                let _ = skope::aclgraph::device::task_queues(data);
                read_acl_model(&acl_model_with(scratch, "model_4_1", "sk_task_queue.json", data));
            },
        },
        Target {
            name: "aclgraph-device-args",
            seeds: vec![asset(&format!("{ACL_MODEL}/sk_device_args.log"))],
            run: |data, scratch| {
                let _ = skope::aclgraph::logs::device_args(&String::from_utf8_lossy(data));
                read_acl_model(&acl_model_with(scratch, "model_5_1", "sk_device_args.log", data));
            },
        },
        Target {
            name: "super-kernel-log",
            seeds: vec![
                b"[INFO] SuperKernel optimize begin\n[WARNING] sk prof buffer is full, \
                  records after this point are dropped\n[INFO] optimize end\n"
                    .to_vec(),
                b"[ERROR] SuperKernel query failed: task 17 (stream 2)\n".to_vec(),
            ],
            run: |data, scratch| {
                let dir = scratch.join("model_6_1");
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join("super_kernel.log"), data);
                let _ = skope::aclgraph::inside::buffer_full(&dir);
            },
        },
        Target {
            name: "ms-composite",
            seeds: vec![first_composite()],
            run: |data, _| plan_dump(data, "kernel_meta_fuzz.info"),
        },
        Target {
            name: "ms-flags",
            seeds: [
                "--enable_cluster_ops=MatMul,BatchMatMul --opt_level=2",
                "--disable_expand_ops=Softmax --enable_expand_ops_only=Gelu --dump_as_text",
                "--opt_level=1 --disable_cluster_ops=Cast --enable_recompute_fusion=true",
            ]
            .map(|s| s.as_bytes().to_vec())
            .to_vec(),
            run: |data, _| {
                let text = String::from_utf8_lossy(data);
                let _ = skope::mindspore::flags::text(Some(&text), Some(&MS_WORKSPACE));
            },
        },
        Target {
            name: "static-op-info",
            seeds: static_seeds(),
            run: |data, _| {
                let _ = skope::static_kernels::op_info::parse(data);
            },
        },
        Target {
            name: "static-run-dir",
            seeds: static_seeds(),
            run: |data, scratch| {
                // The input as the op-info of a process's compiled and filtered sets.
                let run = scratch.join("static_kernel_compile_outputs/ts1_pid7_outputs");
                for set in ["7", "7_debug", "7_opcompile_blacklist"] {
                    let _ = std::fs::create_dir_all(run.join(set));
                    let _ = std::fs::write(run.join(set).join("Op_8_16.json"), data);
                }
                let _ = std::fs::write(run.join("static_kernel_1.run"), b"");
                if let Ok((runs, problems)) = skope::static_kernels::read(&run) {
                    let mut summary = skope::static_kernels::summarise(&runs, problems);
                    summary.join(&PLAN_GRAPH);
                    let _ = summary.to_text();
                }
            },
        },
        Target {
            name: "kernel-meta-cpp",
            seeds: vec![entry_source_seed()],
            run: |data, scratch| {
                let path = scratch_file(scratch, "te_superkernel_fuzz_kernel.cpp", data);
                let _ = skope::kernel_meta::read_source(&path);
                let _ = skope::kernel_meta::sub_op_calls(&String::from_utf8_lossy(data));
            },
        },
        Target {
            name: "cann-opp",
            seeds: vec![
                br#"{"MatMulV2": {"opFile": {"value": "mat_mul_v2"}, "input0": {"name": "x1"}},
                    "Add": {"opFile": {"value": "add"}}, "RmsNorm": {}}"#
                    .to_vec(),
                br#"{"Unique": {"opInfo": {"opKernelLib": "AICPUKernel", "computeCost": "100"}},
                    "TopKV2": {"opInfo": {"opKernelLib": "TFKernel"}}}"#
                    .to_vec(),
            ],
            run: |data, scratch| {
                // The input as both an AI Core op-info and an AI CPU kernel config of an
                // install, with an AscendC and a TBE implementation beside them.
                let opp = scratch.join("opp");
                let core = opp.join("built-in/op_impl/ai_core/tbe");
                let config = core.join("config/ascend910b");
                let cpu = opp.join("built-in/op_impl/aicpu/aicpu_kernel/config");
                let implementation = core.join("impl/dynamic");
                for dir in [&config, &cpu, &implementation] {
                    let _ = std::fs::create_dir_all(dir);
                }
                let _ = std::fs::write(config.join("aic-ascend910b-ops-info.json"), data);
                let _ = std::fs::write(cpu.join("aicpu_kernel.json"), data);
                let _ = std::fs::write(
                    implementation.join("mat_mul_v2.py"),
                    "from tbe.tikcpp import compile_op\n",
                );
                let _ = std::fs::write(implementation.join("add.py"), "import tbe.dsl\n");
                if let Some(install) = skope::fusion::cann::CannInstall::at(&opp) {
                    let _ = install.rules_for(["MatMulV2", "Add", "Unique", "TopKV2", "RmsNorm"]);
                }
            },
        },
        Target {
            name: "digest",
            seeds: vec![digest_seed("no_sk_model"), digest_seed("sk_model")],
            run: |data, scratch| {
                let path = scratch_file(scratch, "rank0.skd", data);
                read_kernels(&path);
                if let Ok(found) = skope::profile::discover(&path)
                    && let Ok(files) = found.pick(None, &path)
                {
                    let _ = skope::profile::Profile::load(files, None);
                }
            },
        },
        Target {
            name: "csv-op-summary",
            seeds: vec![asset(
                "tests/fixtures/profile/kernels/PROF_000001_20250101000000000_ABCDEFGHIJKLMNOP/\
                 mindstudio_profiler_output/op_summary_slice_0_20250101000001.csv",
            )],
            run: |data, scratch| {
                read_kernels(&scratch_file(scratch, "op_summary_20250101000001.csv", data))
            },
        },
        Target {
            name: "run-record",
            seeds: run_record_seeds(),
            run: |data, scratch| {
                // The input as a run's record and its log, read back as the runs view and the
                // ledger read them.
                use skope::compile::record;
                let runs = scratch.join("fuzz.runs");
                let dir = runs.join("r-1");
                let _ = std::fs::create_dir_all(&dir);
                let _ = std::fs::write(dir.join(record::RECORD), data);
                let _ = std::fs::write(dir.join(record::LOG), data);
                let _ = record::read_log(&dir.join(record::LOG), 100);
                let found = record::history(&runs);
                let _ = skope::ledger::Ledger::build(
                    &LEDGER_WORKSPACE.planning(),
                    "graph.txt",
                    &found,
                    (skope::ledger::Baseline::Auto, Default::default()),
                    Default::default(),
                );
            },
        },
        Target {
            name: "journal",
            seeds: journal_seeds(),
            run: |data, scratch| {
                // The input as an unfinished session's journal: read, claimed for recovery as a
                // session starting on the bundled example does, replayed onto it.
                let dir = scratch.join("journal");
                let _ = std::fs::remove_dir_all(&dir);
                let _ = std::fs::create_dir_all(&dir);
                let plan = dir.join("graph.txt.skope.json");
                let _ = skope::journal::parse(data);
                let _ = std::fs::write(skope::journal::path(&plan), data);
                let Ok(claim) = skope::journal::claim(&plan, &LEDGER_WORKSPACE.source().id) else {
                    return;
                };
                if let Some(recovery) = &claim.recovery {
                    let mut ws = skope::workspace::Workspace::new(
                        PLAN_GRAPH.clone(),
                        skope::load::Format::GeProtoText,
                        "graph.txt",
                        &BUNDLED_RULES,
                    );
                    let _ = skope::journal::replay(&mut ws, &recovery.entries);
                }
                let _ = claim.journal.remove();
            },
        },
        Target {
            name: "fusion-diff",
            seeds: vec![prefix(&example("moe_decode.ge_proto.txt"), 12_000)],
            run: |data, _| {
                // The second graph of `skope diff A B`, against the bundled example.
                if let Some(dump) = load_dump(data, "b.txt") {
                    let format = dump.format;
                    let b = skope::workspace::Workspace::new(
                        dump.into_main(),
                        format,
                        "b.txt",
                        &skope::fusion::rules::RuleSet::bundled(),
                    );
                    let (a, b) = (
                        skope::fusion_diff::Side::of(&LEDGER_WORKSPACE),
                        skope::fusion_diff::Side::of(&b),
                    );
                    let d = skope::fusion_diff::diff(a, "a", b, "b");
                    let _ = skope::fusion_diff::op_diffs(a, b);
                    let _ = skope::markdown::fusion_diff(&d);
                }
            },
        },
        Target {
            name: "options",
            seeds: [
                "stream-fusion=1:early-start=0",
                " strict-scope-check=abort : split-mode=2 ",
                "debug-aic-num=24:debug-aiv-num=48:func-align=512:preload-code=1",
                "compile-options=-O2 -g:profiling=1",
                "early-start=",
            ]
            .map(|s| s.as_bytes().to_vec())
            .to_vec(),
            run: |data, _| {
                let text = String::from_utf8_lossy(data);
                // As `skope options` checks it, and as GE reads its own key.
                let _ = skope::report::options_check_text(&text);
                let _ = skope::fusion::options::ge_strict_scope_check(&text);
            },
        },
    ]
}

/// A model directory in `scratch` named `model` holding the bundled example's graph file and
/// `data` as its file `name`.
fn acl_model_with(scratch: &Path, model: &str, name: &str, data: &[u8]) -> PathBuf {
    let dir = scratch.join(model);
    let _ = std::fs::create_dir_all(&dir);
    let graph = dir.join("sk_graph_updated.json");
    if !graph.exists() {
        let _ = std::fs::write(&graph, asset(&format!("{ACL_MODEL}/sk_graph_updated.json")));
    }
    let _ = std::fs::write(dir.join(name), data);
    dir
}

/// The bundled static kernel op-info files: compiled, filtered and dynamic.
fn static_seeds() -> Vec<Vec<u8>> {
    let run = "assets/examples/static_kernel_compile_outputs/ts1764000000_pid4242_outputs";
    [
        "4242/MatMulV2_8_1024.json",
        "4242_debug/GroupedMatmul_dyn.json",
        "4242_opcompile_blacklist/FusedInferAttentionScore_8_1_3072.json",
    ]
    .map(|f| asset(&format!("{run}/{f}")))
    .to_vec()
}

/// The entry source skope generates for the bundled example's first segment: the shape the
/// compiler's `te_superkernel_*.cpp` has.
fn entry_source_seed() -> Vec<u8> {
    let ws = &*LEDGER_WORKSPACE;
    let segment = ws
        .plan()
        .scopes
        .iter()
        .flat_map(|s| &s.segments)
        .next()
        .expect("the example has segments");
    skope::codegen::entry(ws.context(), ws.kernel_meta(), segment)
        .source
        .into_bytes()
}

/// A run record as skope writes it (finished, with results), and a log with marked lines.
/// Journals of a session on the bundled example: edits of every kind with undo and redo, a
/// save mark, the scopes carried over a reload.
fn journal_seeds() -> Vec<Vec<u8>> {
    use skope::edit::Edit;
    use skope::journal::{self, JournalEntry};
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("skope-journal-seed-{}-{n}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let plan = dir.join("graph.txt.skope.json");
    let ws = &*LEDGER_WORKSPACE;
    let mut claim = journal::claim(&plan, &ws.source().id).expect("a journal in a fresh folder");
    let op = |name: &str| name.to_string();
    let entries = [
        JournalEntry::Edit {
            edit: Edit::Assign {
                ops: vec![op("layer2_mask_fill")],
                scope: "attn_2".into(),
            },
            key: None,
        },
        JournalEntry::Edit {
            edit: Edit::SetOptions {
                scope: "moe_1".into(),
                options: "stream-fusion=1".into(),
            },
            key: Some(7),
        },
        JournalEntry::Undo,
        JournalEntry::Redo,
        JournalEntry::Edit {
            edit: Edit::DoNotFuse {
                ops: vec![op("layer0_rope")],
            },
            key: None,
        },
        JournalEntry::Saving {
            digest: journal::Digest::of(b"{}"),
        },
        JournalEntry::Scopes {
            plan: Box::new(skope::planfile::PlanFile::of(ws)),
        },
        JournalEntry::Edit {
            edit: Edit::Delete {
                scope: "moe_3".into(),
            },
            key: None,
        },
    ];
    for entry in &entries {
        claim.journal.append(entry).expect("written");
    }
    let bytes = std::fs::read(journal::path(&plan)).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    // The whole journal, and one without the carried scopes (small, so mutations reach it).
    let short: Vec<u8> = bytes
        .split_inclusive(|&b| b == b'\n')
        .filter(|l| !l.starts_with(b"{\"scopes\""))
        .flatten()
        .copied()
        .collect();
    vec![bytes, short]
}

/// The bundled rules, read once.
static BUNDLED_RULES: std::sync::LazyLock<skope::fusion::rules::RuleSet> =
    std::sync::LazyLock::new(skope::fusion::rules::RuleSet::bundled);

fn run_record_seeds() -> Vec<Vec<u8>> {
    let record = skope::compile::record::RunRecord {
        recipe: "model".to_string(),
        recipe_file: Some("./skope.toml".to_string()),
        argv: vec![
            "python3".into(),
            "run.py".into(),
            "--out".into(),
            "prof".into(),
        ],
        cwd: "/work".to_string(),
        env: vec![("ASCEND_RT_VISIBLE_DEVICES".into(), "0".into())],
        dump: "graph.txt".to_string(),
        graph: Some(skope::planfile::GraphId::of(LEDGER_WORKSPACE.graph())),
        plan: "plan.skope.json".to_string(),
        log: "log.txt".to_string(),
        results: Some("prof".to_string()),
        started_ms: 1_795_600_000_000,
        ended_ms: Some(1_795_600_095_000),
        ending: Some(skope::compile::record::Ending::Passed),
        exit_code: Some(0),
        signal: None,
        error: None,
        predicted: Some(skope::suggest::prediction::PlanPrediction {
            basis: "the model fitted on a profile pair".to_string(),
            fitted: true,
            profile: "prof/no_sk_model/kernel_details.csv".to_string(),
            superkernels: vec![skope::suggest::prediction::SuperKernelPrediction {
                segment: "attn_0".to_string(),
                fused_node: "sk_attn_0_start_layer0_input_rmsnorm_end_layer0_residual_add"
                    .to_string(),
                saving_us: 17.25,
                low_us: 15.12,
                high_us: 19.37,
                class: skope::profile::payoff::PayoffClass::Beneficial,
            }],
            unpredicted: vec!["moe_0".to_string()],
        }),
    };
    let json = serde_json::to_string_pretty(&record).expect("a record serialises");
    vec![
        json.into_bytes(),
        b"out| step 1 done\nerr| [WARNING] slow\njob| merged line\nplain\n".to_vec(),
    ]
}

/// The bundled example, planned: the other side of the fusion diff, the graph of the ledger.
static LEDGER_WORKSPACE: std::sync::LazyLock<skope::workspace::Workspace> =
    std::sync::LazyLock::new(|| {
        let dump = load_dump(&example("moe_decode.ge_proto.txt"), "graph.txt")
            .expect("the bundled example loads");
        let format = dump.format;
        skope::workspace::Workspace::new(
            dump.into_main(),
            format,
            "graph.txt",
            &skope::fusion::rules::RuleSet::bundled(),
        )
    });

/// The bundled MindSpore example, for the flags' effects.
static MS_WORKSPACE: std::sync::LazyLock<skope::workspace::Workspace> =
    std::sync::LazyLock::new(|| {
        let dump = load_dump(&example("mindspore/graph_build_0_1.ir"), "graph.ir")
            .expect("the MindSpore example loads");
        let format = dump.format;
        skope::mindspore::workspace(dump.into_main(), format, "graph.ir")
    });

/// The bundled aclgraph example's model directory.
const ACL_MODEL: &str = "assets/examples/aclgraph/sk_meta/4711/model_3_1";

/// Reads the aclgraph model in `dir` and, when it reads, reports on it and builds its explorer
/// workspace (with the whole-model summary and the exclusions that would heal it).
fn read_acl_model(dir: &Path) {
    if let Ok(model) = skope::aclgraph::model::read(dir) {
        let _ = skope::aclgraph::report::AclReport::new(&model, &[]).to_text();
        let ws = skope::aclgraph::observed::workspace(&model, &[], "model");
        let _ = ws.whole_model(None, 10_000);
        let _ = ws.planning().remedies(ws.marks());
        let _ = skope::aclgraph::export::python(&model);
    }
}

/// The graph plans are applied to: the bundled example.
static PLAN_GRAPH: std::sync::LazyLock<skope::graph::Graph> = std::sync::LazyLock::new(|| {
    load_dump(&example("moe_decode.ge_proto.txt"), "graph.txt")
        .expect("the bundled example loads")
        .into_main()
});

/// How the harness measures the memory an input takes: the fuzz example's counting allocator.
pub trait Meter {
    /// Starts measuring.
    fn start(&self);
    /// The most bytes allocated at once since [`Meter::start`], beyond what was allocated then.
    fn peak(&self) -> usize;
}

/// An input takes too much memory when it allocates more than this many times its size beyond
/// what the reader allocates for its seeds and an empty input (its own costs: tables, rules, a
/// plan of a real-shaped document).
pub const MEMORY_FACTOR: usize = 64;

/// Inputs shorter than this are allowed [`MEMORY_FACTOR`] times this (64 KiB): the messages
/// about a short broken input (a few hundred bytes each, at most 64 of them for an options
/// string) are no blow-up.
pub const MEMORY_FLOOR: usize = 1024;

/// What a campaign against one target found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Inputs fed.
    pub executions: u64,
    /// Inputs that panicked.
    pub panics: u64,
    /// The first panic: its message and the input.
    pub first: Option<(String, Vec<u8>)>,
    /// The input that took longest, and how long.
    pub slowest: Option<(std::time::Duration, Vec<u8>)>,
    /// With a meter: what the reader allocates at most for an empty input or a seed, bytes.
    pub base_bytes: usize,
    /// With a meter: the most bytes any input allocated at once (beyond the seeds' most).
    pub peak_bytes: usize,
    /// With a meter: inputs over [`MEMORY_FACTOR`] × their size, and the first of them.
    pub over_memory: u64,
    /// The first input over the memory bound, with the bytes it took.
    pub first_over: Option<(usize, Vec<u8>)>,
}

/// Feeds `target` `runs` mutated inputs from generator seed `seed`, catching panics; with
/// `meter`, measuring each input's memory too.
pub fn campaign(
    target: &Target,
    runs: u64,
    seed: u64,
    scratch: &Path,
    meter: Option<&dyn Meter>,
) -> Findings {
    let mut rng = Rng::new(seed);
    let mut found = Findings::default();
    if let Some(meter) = meter {
        // The reader's own costs, whatever the input's size (rules, tables, a plan): the most
        // it takes for an empty input or a seed. Twice: the first round also sets up what is
        // made once (lazy tables).
        let empty: &[u8] = &[];
        for _ in 0..2 {
            found.base_bytes = 0;
            for input in std::iter::once(empty).chain(target.seeds.iter().map(Vec::as_slice)) {
                meter.start();
                let _ = skope::worker::guarded(|| (target.run)(input, scratch));
                found.base_bytes = found.base_bytes.max(meter.peak());
            }
        }
    }
    for _ in 0..runs {
        let base = &target.seeds[rng.below(target.seeds.len())];
        let other = &target.seeds[rng.below(target.seeds.len())];
        let input = mutate(&mut rng, base, other);
        found.executions += 1;
        if let Some(meter) = meter {
            meter.start();
        }
        let start = std::time::Instant::now();
        let result = skope::worker::guarded(|| (target.run)(&input, scratch));
        let took = start.elapsed();
        if let Some(meter) = meter {
            let bytes = meter.peak().saturating_sub(found.base_bytes);
            found.peak_bytes = found.peak_bytes.max(bytes);
            if bytes > MEMORY_FACTOR * input.len().max(MEMORY_FLOOR) {
                found.over_memory += 1;
                found.first_over.get_or_insert((bytes, input.clone()));
            }
        }
        if found.slowest.as_ref().is_none_or(|(t, _)| took > *t) {
            found.slowest = Some((took, input.clone()));
        }
        if let Err(message) = result {
            found.panics += 1;
            found.first.get_or_insert((message, input));
        }
    }
    found
}
