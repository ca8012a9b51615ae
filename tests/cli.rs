//! The `skope` binary: `info` in text and JSON, exit codes, sanitised output.

mod cli_account;
mod cli_diff;
mod cli_files;
mod cli_foresight;
mod cli_fusion_diff;
mod cli_markdown;
mod cli_model_explorer;
mod cli_runs;
mod cli_thin;
mod cli_trace;
mod common;

use common::{example_arg as example, skope, skope_in};

use std::path::{Path, PathBuf};

/// Runs `skope args`, away from any CANN install of this machine.
fn temp_file(name: &str, content: &[u8]) -> PathBuf {
    let path = common::scratch("cli").join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// The standard output of a `skope` run that must succeed (its stderr when it does not).
fn stdout_of(args: &[&str]) -> String {
    let out = skope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn info_json_has_the_documented_keys_and_counts() {
    let out = skope(&["info", &example("moe_decode.ge_proto.txt"), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "ge_proto_text");
    assert_eq!(v["graph"], "moe_decode");
    assert_eq!(v["graphs"], serde_json::json!(["moe_decode"]));
    assert_eq!(v["ops"], 137);
    assert_eq!(v["data_edges"], 143);
    assert_eq!(v["control_edges"], 24);
    assert_eq!(v["op_types"]["GroupedMatmul"], 8);
    assert_eq!(v["op_types"]["Send"], 8);
    assert_eq!(v["streams"], serde_json::json!({"0": 117, "1": 20}));
    assert_eq!(v["scopes"]["moe_1"], 14);
    assert_eq!(v["scopes"]["attn_2"], 8);
    assert_eq!(v["notes"], serde_json::json!([]));
}

#[test]
fn info_json_of_every_format_names_its_format() {
    for (file, format, ops) in [
        ("moe_decode.txt", "graphdef_text", 121),
        ("moe_decode.pbtxt", "torchair_pbtxt", 121),
        ("moe_decode.ge_onnx.pbtxt", "ge_onnx_text", 137),
        ("moe_decode.json", "ge_json", 137),
    ] {
        let out = skope(&["info", &example(file), "--json"]);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["format"], format, "{file}");
        assert_eq!(v["ops"], ops, "{file}");
        assert_eq!(v["scopes"].as_object().map(|s| s.len()), Some(8), "{file}");
    }
}

#[test]
fn info_text_lists_types_streams_and_scopes() {
    let out = skope(&["info", &example("moe_decode.ge_proto.txt")]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("format    GE ModelDef text (ge_proto_*.txt) [ge_proto_text]"),
        "{text}"
    );
    assert!(text.contains("streams   0: 117 · 1: 20"), "{text}");
    assert!(text.contains("moe_0: 12"), "{text}");
    assert!(text.contains("       29  Const"), "{text}");
}

#[test]
fn the_explorer_without_a_terminal_says_what_to_use_instead() {
    // Output captured by the test is not a terminal (tests/terminal.rs runs it in one).
    let out = skope(&[]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stderr).unwrap();
    assert!(text.contains("the explorer needs a terminal"), "{text}");
    assert!(text.contains("skope report FILE"), "{text}");
}

#[test]
fn config_prints_every_default_and_a_bad_config_is_refused_with_its_place() {
    let out = skope(&["config"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("next_break = [\"]\"]"), "{text}");
    assert!(text.contains("segment_bands = ["), "{text}");
    let path = temp_file("bad_config.toml", b"[keys]\nquit = \"hyper-q\"\n");
    let out = skope(&["--config", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad_config.toml:2:8: unknown key \"hyper-q\""),
        "{err}"
    );
}

#[test]
fn files_that_are_not_utf8_are_refused_at_their_first_bad_byte() {
    let dump = example("moe_decode.ge_proto.txt");
    // A Latin-1 é on line 2, column 10 of each.
    let config = temp_file("latin1_config.toml", b"[keys]\nquit = [\"\xe9\"]\n");
    let rules = temp_file(
        "latin1_rules.json",
        b"{\"rules\": [\n  {\"x\": \"\xe9\"}]}\n",
    );
    let plan = temp_file(
        "latin1_plan.json",
        b"{\"skope_plan\": 1,\n\"graph\": \"\xe9\"}\n",
    );
    let runs: [(Vec<&str>, &str); 3] = [
        (
            vec!["--config", config.to_str().unwrap(), &dump],
            "latin1_config.toml:2:10: ",
        ),
        (
            vec!["report", &dump, "--rules", rules.to_str().unwrap()],
            "latin1_rules.json:2:10: ",
        ),
        (
            vec!["report", &dump, "--plan", plan.to_str().unwrap()],
            "latin1_plan.json:2:11: ",
        ),
    ];
    for (args, place) in runs {
        let out = skope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(place), "{args:?}: {err}");
        assert!(err.contains("not UTF-8 text: byte 0xe9"), "{args:?}: {err}");
    }
    // skope.toml, found in the working directory.
    let dir = common::scratch("cli-latin1");
    std::fs::write(
        dir.join("skope.toml"),
        b"[[recipe]]\nname = \"caf\xe9\"\nargv = [\"true\"]\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "check"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("skope.toml:2:12: not UTF-8 text"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_size_takes_units_and_a_dump_above_it_is_refused() {
    let dump = example("moe_decode.ge_proto.txt");
    let out = skope(&["info", &dump, "--max-size", "1K"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("above the limit of 1024 bytes"), "{err}");
    assert!(
        skope(&["info", &dump, "--max-size", "2MiB"])
            .status
            .success()
    );
    let out = skope(&["report", &dump, "--max-size", "2X"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown unit \"X\""), "{err}");
}

#[test]
fn a_bad_file_exits_non_zero_with_position_and_hint() {
    let path = temp_file("broken.txt", b"graph {\n  op { name: \"a\"\n");
    let out = skope(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!(
            "error: {}:3:1: unexpected end of input",
            path.display()
        )),
        "{err}"
    );
    assert!(err.contains("hint: the file ends early"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn control_characters_from_the_dump_never_reach_the_terminal() {
    let path = temp_file("evil.txt", b"name: \"g\\033]0;pwned\\007\"\nop { name: \"a\\033[2J\" type: \"Add\\r\" input: \"gone\\033[31m:0\" }\n");
    let out = skope(&["info", path.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(
        !out.stdout.contains(&0x1b) && !out.stdout.contains(&b'\r') && !out.stdout.contains(&0x07)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("g\\u{1b}]0;pwned\\u{7}"), "{text}");
    assert!(text.contains("op 'a\\u{1b}[2J'"), "{text}");
}

#[test]
fn report_json_has_the_documented_shape() {
    let out = skope(&["report", &example("moe_decode.ge_proto.txt"), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scope = &v["scopes"][1];
    assert_eq!(scope["name"], "moe_0");
    assert_eq!(scope["options"], "stream-fusion=1");
    let seg = &scope["segments"][0];
    for key in [
        "name",
        "fused_node",
        "stream",
        "ops",
        "kernel_type",
        "block_dim",
    ] {
        assert!(seg.get(key).is_some(), "segment lacks {key}");
    }
    assert_eq!(
        seg["fused_node"],
        "sk_moe_0_split_17_22_start_layer0_post_rmsnorm_end_layer0_gating_topk"
    );
    assert_eq!(seg["kernel_type"], "MIX_AIC_1_2");
    let b = &scope["breaks"][0];
    assert_eq!(b["op"], "layer0_init_routing");
    assert_eq!(b["type"], "MoeInitRoutingV2");
    assert_eq!(b["reason_code"], "blacklisted");
    assert_eq!(b["evidence"], "dump");
    assert!(v["findings"].is_array() && scope["findings"].is_array());
    // Findings are written once, under `findings`.
    assert!(v.get("warnings").is_none() && scope.get("warnings").is_none());
    assert_eq!(v["summary"]["segments"], 13);
}

#[test]
fn report_deny_turns_breaks_and_findings_into_exit_status_1() {
    let file = example("moe_decode.ge_proto.txt");
    assert_eq!(skope(&["report", &file]).status.code(), Some(0));
    assert_eq!(
        skope(&["report", &file, "--deny", "breaks"]).status.code(),
        Some(1)
    );
    assert_eq!(
        skope(&["report", &file, "--deny", "findings"])
            .status
            .code(),
        Some(1)
    );
    let whole = temp_file(
        "whole.txt",
        b"op { name: \"a\" type: \"MatMulV2\" attr { key: \"_super_kernel_scope\" value { s: \"s\" } } }\n\
          op { name: \"b\" type: \"Add\" attr { key: \"_super_kernel_scope\" value { s: \"s\" } } }\n",
    );
    let whole = whole.to_string_lossy();
    assert_eq!(
        skope(&["report", &whole, "--deny", "breaks"]).status.code(),
        Some(0)
    );
    // Assumed verdicts are a finding.
    assert_eq!(
        skope(&["report", &whole, "--deny", "findings"])
            .status
            .code(),
        Some(1)
    );
    // The old words still work, say they are old, and are not offered.
    for (old, new, status) in [("splits", "breaks", 0), ("warnings", "findings", 1)] {
        let out = skope(&["report", &whole, "--deny", old]);
        assert_eq!(out.status.code(), Some(status), "--deny {old}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "`--deny {old}` is the old word for `--deny {new}`"
            )),
            "{stderr}"
        );
    }
    let help = String::from_utf8_lossy(&skope(&["report", "--help"]).stdout).into_owned();
    assert!(
        help.contains("- breaks:") && help.contains("- findings:"),
        "{help}"
    );
    assert!(
        !help.contains("splits") && !help.contains("- warnings"),
        "{help}"
    );
    let wrong = skope(&["report", &whole, "--deny", "everything"]);
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("[possible values: breaks, findings]"),
        "{stderr}"
    );
}

#[test]
fn report_rejects_a_bad_rules_file_with_its_position() {
    let rules = temp_file(
        "bad_rules.json",
        b"{\"rules\": [\n  {\"op_type\": \"Cast\", \"verdict\": \"nope\", \"source\": \"x\"}]}",
    );
    let out = skope(&[
        "report",
        &example("moe_decode.txt"),
        "--rules",
        &rules.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad_rules.json:2:"), "{err}");
    assert!(err.contains("unknown variant `nope`"), "{err}");
    assert!(err.contains("\n  hint: "), "{err}");
}

#[test]
fn report_text_sanitises_names_from_the_dump() {
    let evil = temp_file(
        "evil.txt",
        b"op { name: \"a\\033[2J\" type: \"MatMulV2\" attr { key: \"_super_kernel_scope\" value { s: \"s\\033]0;x\\007\" } } }\n",
    );
    let out = skope(&["report", &evil.to_string_lossy()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "{text}");
    assert!(text.contains("scope s\\u{1b}]0;x\\u{7}: fused"), "{text}");
}

#[test]
fn every_output_of_a_hostile_dump_is_inert_on_a_terminal() {
    // Names with a C1 CSI, a bidi override and isolate, U+061C, a line separator and DEL, as
    // a dump can carry them (octal escapes of their UTF-8 bytes).
    let octal = |s: &str| s.bytes().map(|b| format!("\\{b:03o}")).collect::<String>();
    let scope = octal("s\u{9b}2J\u{202e}cod.exe\u{2066}\u{61c}\u{2028}\u{7f}");
    let op = octal("a\u{202e}b\u{9d}0;t\u{9c}");
    let dump = temp_file(
        "hostile_names.txt",
        format!(
            "op {{ name: \"{op}\" type: \"MatMulV2\" attr {{ key: \"_super_kernel_scope\" value {{ s: \"{scope}\" }} }} }}\n\
             op {{ name: \"b\" type: \"Add\" input: \"{op}:0\" attr {{ key: \"_super_kernel_scope\" value {{ s: \"{scope}\" }} }} }}\n"
        )
        .as_bytes(),
    );
    let dump = dump.to_string_lossy().into_owned();
    let runs: [&[&str]; 9] = [
        &["report"],
        &["report", "--json"],
        &["report", "--summary"],
        &["info"],
        &["info", "--json"],
        &["export", "--format", "plan"],
        &["export", "--format", "torchair"],
        &["export", "--format", "acl"],
        &["codegen", "-o", "-"],
    ];
    for args in runs {
        let (command, rest) = args.split_first().unwrap();
        let mut all = vec![*command, dump.as_str()];
        all.extend_from_slice(rest);
        let out = skope(&all);
        assert!(
            out.status.success(),
            "{all:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let active = |c: char| {
            (c.is_control() && c != '\n')
                || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{61c}' | '\u{2028}' | '\u{2029}')
        };
        let bad: Vec<char> = text.chars().filter(|c| active(*c)).collect();
        assert!(bad.is_empty(), "{all:?} writes {bad:?}:\n{text}");
        if all.contains(&"--json") || all.contains(&"plan") {
            // Valid JSON, the names intact.
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert!(
                value.to_string().contains("s\u{9b}2J\u{202e}cod.exe"),
                "{all:?}"
            );
        }
    }
}

#[test]
fn report_verify_exits_1_on_differences_and_adds_json() {
    let after = example("moe_decode.after_sk.ge_proto.txt");
    let ok = skope(&[
        "report",
        &example("moe_decode.ge_proto.txt"),
        "--verify",
        &after,
    ]);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("13 predicted exactly, 0 difference(s)"));
    let out = skope(&[
        "report",
        &example("moe_decode.txt"),
        "--json",
        "--verify",
        &after,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = v["verify"]["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"not_fused") && kinds.contains(&"renamed"),
        "{kinds:?}"
    );
}

#[test]
fn options_lists_the_schema_and_checks_a_string() {
    let list = skope(&["options"]);
    assert!(list.status.success());
    let text = String::from_utf8_lossy(&list.stdout);
    for key in [
        "stream-fusion",
        "strict-scope-check",
        "early-start",
        "func-align",
        "compile-options",
    ] {
        assert!(
            text.contains(&format!("{key}\n")) || text.contains(&format!("{key}  (code only")),
            "{key}"
        );
    }
    let good = skope(&["options", " early-start=0 :stream-fusion=1"]);
    assert_eq!(good.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&good.stdout),
        "canonical: stream-fusion=1:early-start=0\n"
    );
    let bad = skope(&["options", "stream-funsion=1"]);
    assert_eq!(bad.status.code(), Some(1));
    let text = String::from_utf8_lossy(&bad.stdout);
    assert!(text.contains("did you mean stream-fusion?"), "{text}");
    assert!(text.contains(
        "GE: [Super Kernel] Invalid compile option: stream-funsion option is not supported."
    ));
    // A string starting with '-' is the string to check, not a flag of skope's, with or
    // without `--` before it.
    for args in [
        &["options", "-early-start=1"][..],
        &["options", "--", "-early-start=1"],
    ] {
        let out = skope(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("unknown option -early-start; did you mean early-start?"),
            "{args:?}: {text}"
        );
    }
}

/// `skope export DUMP --format plan` into a temporary file `name`; returns its path.
fn export_plan(dump: &str, name: &str) -> PathBuf {
    let plan = temp_file(name, b"");
    let out = skope(&[
        "export",
        dump,
        "--format",
        "plan",
        "-o",
        plan.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    plan
}

#[test]
fn export_writes_a_plan_that_report_reads_back() {
    let dump = example("moe_decode.ge_proto.txt");
    let plan = export_plan(&dump, "exported.json");
    let text = std::fs::read_to_string(&plan).unwrap();
    assert!(text.contains("\"skope_plan\": 1"), "{text}");
    let plain = skope(&["report", &dump, "--json"]);
    let with_plan = skope(&["report", &dump, "--json", "--plan", plan.to_str().unwrap()]);
    assert!(with_plan.status.success());
    assert_eq!(plain.stdout, with_plan.stdout);
    for (format, needle) in [
        (
            "torchair",
            "with torchair.scope.super_kernel(\"moe_1\", \"stream-fusion=1\"):",
        ),
        ("acl", "aclskScopeBegin(\"moe_1\", stream);"),
    ] {
        let out = skope(&["export", &dump, "--format", format]);
        assert!(out.status.success());
        assert!(
            String::from_utf8(out.stdout).unwrap().contains(needle),
            "{format}"
        );
    }
}

#[test]
fn a_plan_for_another_dump_warns_and_a_bad_plan_is_an_error() {
    let dump = example("moe_decode.ge_proto.txt");
    let plan = export_plan(&dump, "for_ge.json");
    let pbtxt = example("moe_decode.pbtxt");
    let out = skope(&["report", &pbtxt, "--plan", plan.to_str().unwrap()]);
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("applied by op name"), "{err}");
    let bad = temp_file("bad_plan.json", b"{ nope");
    let out = skope(&["report", &dump, "--plan", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("bad_plan.json:1:3: not a skope plan file"),
        "{err}"
    );
}

/// The compiler's source for the prediction `source`: its hash name, no notes, blank lines
/// and indentation its own, and the preload sizes it read from the objects.
fn as_the_compiler_writes(source: &str, kernel: &str) -> String {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("// skope:"))
        .map(|l| {
            let l = l.replace(kernel, "te_superkernel_5e1f0a2b");
            let l = l.replace("_split1, 2);", "_split1, 7);");
            format!("{}\n\n", l.trim_start())
        })
        .collect()
}

#[test]
fn codegen_compares_its_code_with_the_compilers_source() {
    let dump = example("moe_decode.ge_proto.txt");
    let dir = common::scratch("cli-compare");
    let out = skope(&["codegen", &dump, "--segment", "attn_0", "-o", "-"]);
    let predicted = String::from_utf8_lossy(&out.stdout).into_owned();
    let kernel = "te_superkernel_attn_0";
    let cpp = dir.join("te_superkernel_5e1f0a2b_4242_kernel.cpp");
    let meta = dir.to_string_lossy().into_owned();
    let compare_attn_0 = || {
        skope(&[
            "codegen",
            &dump,
            "--kernel-meta",
            &meta,
            "--segment",
            "attn_0",
            "--compare",
        ])
    };

    // The same code under the compiler's hash name: equal, exit 0.
    let same = as_the_compiler_writes(&predicted, kernel).replace("_split1, 7);", "_split1, 2);");
    std::fs::write(&cpp, &same).unwrap();
    let out = compare_attn_0();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.starts_with("attn_0: ")
            && text.contains("te_superkernel_5e1f0a2b_4242_kernel.cpp: all "),
        "{text}"
    );

    // Other preload sizes and one line the compiler does not write: exit 1, lines shown.
    let preloads = predicted.matches("_split1, 2);").count();
    assert!(preloads > 0);
    let differing = as_the_compiler_writes(&predicted, kernel).replacen(
        "set_ffts_base_addr((uint64_t)ffts_addr);\n",
        "",
        1,
    );
    std::fs::write(&cpp, &differing).unwrap();
    let out = compare_attn_0();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let summary = text.lines().next().unwrap();
    assert!(
        summary.ends_with(&format!(
            "{preloads} only in the compiler's ({} of them preloads, whose sizes skope infers)",
            2 * preloads
        )),
        "{summary}"
    );
    assert!(
        summary.contains(&format!("{} only in skope's", preloads + 1)),
        "{summary}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("- ")
            && l.trim_start_matches("- ").trim() == "set_ffts_base_addr((uint64_t)ffts_addr);"),
        "{text}"
    );
    assert!(text.contains("_split1, 7);"), "{text}");

    // Every segment: those without a source say so.
    let out = skope(&["codegen", &dump, "--kernel-meta", &meta, "--compare"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("moe_0_split_22_34: no entry source in kernel_meta calls its"),
        "{text}"
    );

    // Without kernel_meta there is nothing to compare with.
    let out = skope(&["codegen", &dump, "--compare"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--kernel-meta"));
    std::fs::remove_file(&cpp).unwrap();
    let out = skope(&["codegen", &dump, "--kernel-meta", &meta, "--compare"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no op-info JSON or entry source"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn codegen_writes_a_source_and_sidecar_per_segment_or_prints_one() {
    let dir = common::scratch("cli-codegen");
    let dump = example("moe_decode.ge_proto.txt");
    let out = skope(&["codegen", &dump, "-o", &dir.to_string_lossy()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(listed.lines().count(), 13, "{listed}");
    let sidecar: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("moe_0_split_22_34.json")).unwrap())
            .unwrap();
    assert_eq!(sidecar["form"], "two_stream");
    assert_eq!(sidecar["kernel_type"], "MIX_AIC_1_2");
    assert_eq!(sidecar["block_dim"], 24);
    assert!(
        sidecar["flags"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f != "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2")
    );
    assert!(
        sidecar["lines"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["kind"] == "call" && l["op"] == "layer0_gmm_up")
    );
    assert!(dir.join("moe_0_split_22_34.cpp").exists());
    let _ = std::fs::remove_dir_all(&dir);

    let out = skope(&["codegen", &dump, "--segment", "attn_0", "-o", "-"]);
    assert!(out.status.success());
    let source = String::from_utf8_lossy(&out.stdout);
    assert!(source.contains("void auto_gen_te_superkernel_attn_0_kernel(void) {"));
    assert!(!source.contains("moe_0"));

    let out = skope(&["codegen", &dump, "--segment", "nope\x1b[31m"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no segment named") && err.contains("attn_0"),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err}");
}

#[test]
fn compile_runs_recipes_and_exits_with_their_status() {
    let dir = common::scratch("cli-compile");
    // The runs are kept beside the dump: a copy of its own.
    let copy = dir.join("moe_decode.ge_proto.txt");
    std::fs::copy(example("moe_decode.ge_proto.txt"), &copy).unwrap();
    let dump = copy.to_string_lossy().into_owned();
    // check: every entry source compiles against the shim
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "check"], &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("checking 13 entry sources"), "{stdout}");
    assert!(stdout.contains("all 13 entry sources compile"), "{stdout}");
    assert!(
        dir.join("moe_decode.ge_proto.txt.runs/check-1/codegen/attn_0.cpp")
            .exists()
    );
    // cann without CANN says so and fails
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "cann"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ASCEND_HOME_PATH is not set"), "{stderr}");
    assert!(stderr.contains("first error, line 1"), "{stderr}");
    // a recipe of the user's, with every placeholder, run without a shell
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"args\"\nargv = [\"printf\", \"%s\\\\n\", \"{graph}\", \"{plan}\", \"{codegen_dir}\", \"{out}\"]\nresults = \"{out}/prof_result\"\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "args"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], dump);
    assert!(lines[1].ends_with("args-1/plan.skope.json") && Path::new(lines[1]).exists());
    assert!(lines[2].ends_with("args-1/codegen") && Path::new(lines[2]).is_dir());
    assert!(lines[3].ends_with("args-1"));
    // an unknown recipe lists the known ones
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "nope"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("args, check, cann"), "{stderr}");
    // a job's exit code comes through (here from a file and a flag under their earlier names,
    // read with a note)
    std::fs::write(
        dir.join("skope.toml"),
        "[[profile]]\nname = \"fail\"\nargv = [\"sh\", \"-c\", \"echo 'x.cpp:1:1: error: boom' >&2; exit 7\"]\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", &dump, "--profile", "fail"], &[]);
    assert_eq!(out.status.code(), Some(7));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skope.toml: [[profile]] tables are read as [[recipe]]; rename them"),
        "{stderr}"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("first error, line 1: x.cpp:1:1: error: boom")
    );
    // a local file replacing the built-in check is announced before it runs
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"check\"\nargv = [\"echo\", \"not the real check\"]\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "check"], &[]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("running recipe check (from ./skope.toml, overrides the built-in)"),
        "{stderr}"
    );
    // a bad skope.toml says where
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"x\"\nargv = [\"{nope}\"]\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", &dump, "--recipe", "x"], &[]);
    assert_eq!(out.status.code(), Some(2));
    // at the argument on line 3, not at the table
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skope.toml:3:9: recipe \"x\": argument 1 uses {nope}"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A compiled GE dump with two scopes that would each fuse whole; `options` are those of the
/// last op of scope moe.
fn two_whole_scopes(options: &str) -> String {
    let op = |name: &str, id: u32, scope: &str, options: &str| {
        format!(
            "  op {{ name: \"{name}\" type: \"Add\" id: {id}\n    attr {{ key: \"_super_kernel_scope\" value {{ s: \"{scope}\" }} }}\n    attr {{ key: \"_super_kernel_options\" value {{ s: \"{options}\" }} }}\n    attr {{ key: \"supportSuperKernel\" value {{ i: 1 }} }} }}\n"
        )
    };
    [
        "graph {\n  name: \"g\"\n".to_string(),
        op("q", 0, "attn", ""),
        op("k", 1, "attn", ""),
        op("a", 2, "moe", ""),
        op("b", 3, "moe", options),
        "}\n".to_string(),
    ]
    .concat()
}

#[test]
fn a_build_ge_fails_is_said_first_and_fails_every_gate() {
    let ok = temp_file("whole.txt", two_whole_scopes("").as_bytes());
    let ok = ok.to_str().unwrap();
    assert_eq!(
        skope(&["report", ok, "--deny", "splits"]).status.code(),
        Some(0)
    );
    let out = skope(&["report", ok, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"], "ok");
    assert_eq!(v["outcome_detail"], serde_json::Value::Null);

    let bad = temp_file(
        "bad_check.txt",
        two_whole_scopes("strict-scope-check=warn").as_bytes(),
    );
    let bad = bad.to_str().unwrap();
    for deny in ["breaks", "findings"] {
        assert_eq!(
            skope(&["report", bad, "--deny", deny]).status.code(),
            Some(1),
            "--deny {deny}"
        );
    }
    let out = skope(&["report", bad]);
    let text = String::from_utf8_lossy(&out.stdout);
    let second = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        second,
        "✗ build fails: b (Add) in scope moe has strict-scope-check=\"warn\", which GE rejects"
    );
    assert!(
        text.contains(
            "    GE: options strict-scope-check, value warn is invalid, only support bypass or abort"
        ),
        "{text}"
    );
    assert!(text.contains("2 scopes → 0 segments"), "{text}");
    assert!(text.contains("scope attn: not built"), "{text}");
    let out = skope(&["report", bad, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"], "build_fails");
    assert_eq!(v["outcome_detail"]["op"], "b");
    assert_eq!(v["outcome_detail"]["scope"], "moe");
    assert_eq!(
        v["outcome_detail"]["ge_message"],
        "options strict-scope-check, value warn is invalid, only support bypass or abort"
    );
    assert_eq!(v["summary"]["segments"], 0);
    assert_eq!(v["scopes"][0]["status"], "not_built");
    assert_eq!(v["scopes"][1]["status"], "aborted");
    assert!(
        v["scopes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["segments"] == serde_json::json!([]))
    );

    // The empty value: GE's message and the compiler's.
    let empty = temp_file(
        "empty_check.txt",
        two_whole_scopes("strict-scope-check=").as_bytes(),
    );
    let out = skope(&["report", empty.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "    GE: options strict-scope-check, value  is invalid, only support bypass or abort\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "    SuperKernel compiler: [Super Kernel] Invalid compile option: The key-value pair is missing for the option strict-scope-check=.\n"
        ),
        "{text}"
    );
}

#[test]
fn a_ge_onnx_dump_without_strings_says_its_scopes_cannot_be_read() {
    // What DUMP_GE_GRAPH=2 writes: ids, streams and descriptions, no string attributes.
    let dump = temp_file(
        "ge_onnx_00000007_graph_0_PreRunAfterBuild.pbtxt",
        br#"ir_version: 3
producer_name: "GE"
graph {
  node { name: "a" op_type: "ge:Data" attribute { name: "id" i: 0 type: INT } }
  node { input: "a:0" name: "b" op_type: "ge:MatMulV2"
    attribute { name: "id" i: 1 type: INT }
    attribute { name: "supportSuperKernel" i: 1 type: INT } }
  name: "g0"
}"#,
    );
    let dump = dump.to_str().unwrap();
    let text = String::from_utf8_lossy(&skope(&["report", dump]).stdout).into_owned();
    assert!(
        text.contains("! error: scopes unreadable: skope cannot judge this graph: this dump has no string attributes (a ge_onnx dump written with DUMP_GE_GRAPH=2 or 3 leaves them out), so its SuperKernel scopes cannot be read; dump with DUMP_GE_GRAPH=1"),
        "{text}"
    );
    assert!(text.contains("· 1 error ·"), "{text}");
    for gate in ["findings", "breaks"] {
        let out = skope(&["report", dump, "--deny", gate]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "--deny {gate}: a CI gate cannot pass a graph it cannot read"
        );
    }
    let v: serde_json::Value =
        serde_json::from_slice(&skope(&["info", dump, "--json"]).stdout).unwrap();
    assert_eq!(v["scopes_readable"], false);
}

#[test]
fn a_plan_made_for_another_graph_is_refused_unless_forced() {
    // A plan naming only ops the bundled example does not have.
    let plan = temp_file(
        "other.skope.json",
        br#"{"skope_plan": 1, "graph": {"name": "other", "ops": 3, "fingerprint": "0000000000000000"},
            "scopes": [{"name": "s", "options": "", "ops": ["x1", "x2"]}], "do_not_fuse": ["x3"]}"#,
    );
    let plan = plan.to_str().unwrap();
    let dump = example("moe_decode.ge_proto.txt");
    let out = skope(&["report", &dump, "--plan", plan]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("none of the 3 ops it names is in moe_decode (137 ops)"),
        "{err}"
    );
    assert!(err.contains("--force to apply it anyway"), "{err}");
    let out = skope(&["report", &dump, "--plan", plan, "--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 scopes → 0 segments"));
    // --force means nothing without --plan.
    assert_eq!(skope(&["report", &dump, "--force"]).status.code(), Some(2));
}

#[test]
fn report_puts_the_verdict_first_and_can_be_short_or_one_scope() {
    let dump = example("moe_decode.ge_proto.txt");
    let after = example("moe_decode.after_sk.ge_proto.txt");
    let out = skope(&["report", &dump, "--verify", &after]);
    let text = String::from_utf8_lossy(&out.stdout);
    // The file's header first, then the verdict, before the scopes.
    assert!(
        text.starts_with(&format!("{dump} · ge_proto_text · ")),
        "{text}"
    );
    let line = |start: &str| text.lines().position(|l| l.starts_with(start));
    let verdict = line("verify: GE made 13 SuperKernel(s); 13 predicted exactly, 0 difference(s)");
    assert!(verdict.is_some() && verdict < line("scope "), "{text}");
    // --summary: the header and a line per scope.
    let out = skope(&["report", &dump, "--summary"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("scope ")).count(),
        8,
        "{text}"
    );
    assert!(
        text.contains("scope moe_1: split · 14 members · 3 segment(s) · 2 break(s) · 1 finding(s)"),
        "{text}"
    );
    assert!(!text.contains("✗ break"), "{text}");
    let v: serde_json::Value =
        serde_json::from_slice(&skope(&["report", &dump, "--summary", "--json"]).stdout).unwrap();
    assert_eq!(v["scopes"][3]["break_count"], 2);
    assert_eq!(v["scopes"][3]["breaks"], serde_json::json!([]));
    // --scope: that scope alone; --deny looks at it alone.
    let out = skope(&["report", &dump, "--scope", "moe_2", "--deny", "splits"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("\nscope ").count(), 1, "{text}");
    assert!(text.contains("scope moe_2: fused"), "{text}");
    assert_eq!(
        skope(&["report", &dump, "--scope", "moe_1", "--deny", "splits"])
            .status
            .code(),
        Some(1)
    );
    let out = skope(&["report", &dump, "--scope", "moe_9"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no scope named \"moe_9\"; scopes: attn_0, moe_0"),
        "{err}"
    );
}

#[test]
fn report_and_info_read_the_aclgraph_pass_output() {
    let dir = example("aclgraph");
    let text = stdout_of(&["report", &dir]);
    assert!(
        text.starts_with("aclgraph SuperKernel pass · model 3_1 · device 0"),
        "{text}"
    );
    assert!(
        text.contains("7 SuperKernel(s) built; 3 kernel(s) not fused"),
        "{text}"
    );
    assert!(
        text.contains(
            "skope's prediction from the graph file and options: 7 of the pass's 7 SuperKernel(s)"
        ),
        "{text}"
    );
    assert!(
        text.contains("cut at task 7 FusedInferAttentionScore_30ab9e11 (stream 0): UNFUSIBLE_NODE"),
        "{text}"
    );
    assert!(
        text.contains("✗ task 33 Cast_f00d (stream 0): IN_UNFUSIBLE_SCOPE"),
        "{text}"
    );
    // Any of the pass's files opens its model; --json is one object.
    let file = format!("{dir}/sk_meta/4711/model_3_1/sk_fused_nodes.log");
    let out = skope(&["info", &file, "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The schema of every input's info, with the pass's account under `pass`.
    let dump: serde_json::Value =
        serde_json::from_str(&stdout_of(&["info", &example("moe_decode.txt"), "--json"])).unwrap();
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .unwrap()
            .keys()
            .filter(|k| *k != "pass")
            .cloned()
            .collect()
    };
    assert_eq!(keys(&v), keys(&dump));
    assert_eq!(
        (v["format"].as_str(), v["ops"].as_u64()),
        (Some("aclgraph"), Some(69))
    );
    let pass = &v["pass"];
    assert_eq!(pass["path"], "aclgraph");
    assert_eq!(pass["scopes"][0]["name"], "attn_0");
    assert_eq!(
        pass["scopes"][0]["superkernels"][0]["break"]["reason"],
        "UNFUSIBLE_NODE"
    );
    assert_eq!(pass["scopes"][0]["unfused"][0]["sub"], "BINDMAP_INIT_EMPTY");
    assert_eq!(pass["missing"].as_array().map(Vec::len), Some(0));
}

#[test]
fn report_on_the_aclgraph_pass_output_honours_deny_and_refuses_what_it_cannot_do() {
    let dir = example("aclgraph");
    // The pass cut attn_0 (UNFUSIBLE_NODE): a break gate fails, as it does for GE's plan.
    assert_eq!(skope(&["report", &dir]).status.code(), Some(0));
    let out = skope(&["report", &dir, "--deny", "breaks"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("aclgraph SuperKernel pass"),
        "the account is printed before the gate fails"
    );
    // Options for GE's plan are refused rather than ignored.
    let out = skope(&["report", &dir, "--scope", "attn_0"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--verify and --scope are for GE's plan"),
        "{stderr}"
    );
    // --summary gives the account's head and each scope's counts.
    let out = skope(&["report", &dir, "--summary"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("scope attn_0 · 6 kernel(s) · 2 SuperKernel(s) · 1 not fused"),
        "{text}"
    );
    assert!(!text.contains("    tasks "), "no task lists: {text}");
}

#[test]
fn aclgraph_options_are_checked_and_exported_as_python() {
    let out = skope(&["options", "--aclgraph"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("early_start") && text.contains("debug_options"),
        "{text}"
    );
    let out = skope(&[
        "options",
        "--aclgraph",
        r#"{"early_strat": 1, "debug_sync_all": 1, "preload_code": 9}"#,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("did you mean early_start?"), "{text}");
    assert!(text.contains("keeps the default 1"), "{text}");
    assert!(
        text.contains("debug_options={\"debug_sync_all\": 1}"),
        "{text}"
    );
    let out = skope(&["options", "--aclgraph", "{early_start: 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1, column 2"));

    // The example's scopes and options as the Python to paste.
    let text = stdout_of(&["export", &example("aclgraph")]);
    assert!(
        text.contains(
            "torch.npu.super_kernel_scope_begin(\"attn_0\")\n# 6 kernel(s): RmsNorm_5cce7ee1"
        ),
        "{text}"
    );
    assert!(
        text.contains("torch.npu.super_kernel_scope_begin(None)"),
        "{text}"
    );
    assert!(
        text.contains("optimize_options={\"dcci_after_kernel_end\": [\".*\"]}"),
        "{text}"
    );
    let out = skope(&["export", &example("aclgraph"), "--format", "acl"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn suggest_ranks_scopes_by_count_or_by_measured_time() {
    let dump = example("moe_decode.ge_proto.txt");
    let text = stdout_of(&["suggest", &dump]);
    assert!(
        text.contains(
            "no profile: ranked by the kernel boundaries each removes (a count, not a time)"
        ),
        "{text}"
    );
    // The whole layer as a template first, with the code to paste; then layer 2 whole per
    // layer; nothing that crosses a layer (the 32-op run from layer 1's MoE into layer 3's
    // attention) is offered.
    assert!(
        text.contains(
            "  1. layer  layers 0,1,2,3  8 SuperKernel(s), 6 distinct  6 boundaries in all"
        ),
        "{text}"
    );
    assert!(
        text.contains("     code: with torchair.scope.super_kernel(f\"layer_{i}\", \"\"):"),
        "{text}"
    );
    assert!(
        text.contains("  1. layer2  18 ops  stream 0  3 boundaries"),
        "{text}"
    );
    assert!(
        text.contains("     code: with torchair.scope.super_kernel(\"layer2\", \"\"):  # around layer2_input_rmsnorm … layer2_moe_add"),
        "{text}"
    );
    assert!(!text.contains("_2s") && !text.contains("layer1_gmm_up … layer3_rope"));
    let profiles = example("prof_result");
    let out = skope(&["suggest", &dump, "--profiles", &profiles, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["measured"], true);
    assert_eq!(v["fitted"], true);
    assert_eq!(v["fit"]["segments"], 12);
    assert!(v["list"][0]["saving_us"].as_f64().unwrap() > 0.0);
    assert!(v["list"][0]["versus"]["overlaps"].is_array());
    // Fitted on the medians of the pair's five steps, judged on each step left out.
    assert_eq!(v["fit"]["steps"], 5);
    assert_eq!(v["fit"]["left_out_steps"]["steps"], 5);
    // The templates with their code, and the whole model if all that fit were accepted.
    let template = &v["templates"][0];
    assert_eq!(template["name"], "layer");
    assert_eq!(template["layers"], serde_json::json!(["0", "1", "2", "3"]));
    assert!(template["code"]["aclgraph"].as_str().unwrap().starts_with(
        "torch.npu.super_kernel_scope_begin(f\"layer_{i}\") before layer{i}_input_rmsnorm"
    ));
    let whole = &v["whole_model"];
    assert_eq!(whole["templates"], serde_json::json!(["layer"]));
    assert_eq!(whole["superkernels"], serde_json::json!([13, 9]));
    let saving = whole["saving_us"].as_array().unwrap();
    assert!(
        saving[1].as_f64().unwrap() > saving[0].as_f64().unwrap(),
        "{whole}"
    );
    // A profile without a kernel file cannot give gaps.
    let dir = common::scratch("cli-suggest");
    std::fs::write(
        dir.join("op_statistic.csv"),
        "OP Type,Core Type,Count,Total Time(us)\nAdd,AI_VECTOR_CORE,1,2.0\n",
    )
    .unwrap();
    let out = skope(&["suggest", &dump, "--profiles", &dir.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no kernel_details.csv"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn static_reads_a_static_kernel_compile_output() {
    let root = common::scratch("cli-static");
    let run = root.join("static_kernel_compile_outputs/ts1_pid9_outputs");
    let info = |op: &str, shape: &str| {
        format!(
            "{{\"deterministic\": \"false\", \"inputs\": [{{\"dtype\": \"float16\", \"format\": \"ND\", \"name\": \"x\", \"shape\": {shape}}}, null], \"op_type\": \"{op}\", \"outputs\": []}}"
        )
    };
    for (set, op, shape) in [
        ("9", "MatMulV2", "[8,64]"),
        ("9_debug", "MatMulV2", "[8,64]"),
        ("9_debug", "GatherV2", "[8]"),
    ] {
        std::fs::create_dir_all(run.join(set)).unwrap();
        std::fs::write(run.join(set).join(format!("{op}.json")), info(op, shape)).unwrap();
    }
    let text = stdout_of(&["static", &root.to_string_lossy()]);
    assert!(
        text.starts_with("static kernels: 1 op type(s), 1 binary(ies) from 1 run(s)"),
        "{text}"
    );
    assert!(text.contains("    float16[8,64] ND"), "{text}");
    assert!(
        text.contains("GatherV2  float16[8] ND: on the static compile's blacklist"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["static", &root.to_string_lossy(), "--json"])).unwrap();
    assert_eq!(v["compiled"][0]["op_type"], "MatMulV2");
    // With the graph: its MatMulV2 of the compiled shape has a kernel, the other shape not.
    let op = |name: &str, dims: &[i64]| {
        let dims: String = dims.iter().map(|d| format!("        dim: {d}\n")).collect();
        format!(
            "  op {{\n    name: \"{name}\"\n    type: \"MatMulV2\"\n    input_desc {{\n      dtype: DT_FLOAT16\n      shape {{\n{dims}      }}\n    }}\n  }}\n"
        )
    };
    let dump = root.join("graph.txt");
    std::fs::write(
        &dump,
        format!(
            "graph {{\n  name: \"g\"\n{}{}}}\n",
            op("mm_a", &[8, 64]),
            op("mm_b", &[16, 64])
        ),
    )
    .unwrap();
    let text = stdout_of(&[
        "static",
        &root.to_string_lossy(),
        "--graph",
        &dump.to_string_lossy(),
    ]);
    assert!(text.contains("graph: 1 op(s) with a static kernel, 1 of a compiled type with other input shapes (joined by op type and input shapes: a guess"), "{text}");
    assert!(
        text.contains("no static kernel for this shape: mm_b"),
        "{text}"
    );
    let out = skope(&["static", "/nonexistent/dir"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    use std::fmt::Write as _;
    use std::io::Read;
    use std::process::{Command, Stdio};
    // Every op alternates between two scopes, so the report is long (every op a break; 1200
    // ops write far more than a pipe holds).
    let mut dump = String::from("name: \"g\"\n");
    for i in 0..1200 {
        let input = if i > 0 {
            format!(" input: \"op_{}:0\"", i - 1)
        } else {
            String::new()
        };
        let _ = writeln!(
            dump,
            "op {{ name: \"op_{i}\" type: \"Add\"{input} attr {{ key: \"_super_kernel_scope\" \
             value {{ s: \"s{}\" }} }} }}",
            i % 2
        );
    }
    let file = temp_file("long_report.txt", dump.as_bytes());
    for args in [&["report", "--json"][..], &["report"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_skope"))
            .args(args)
            .arg(&file)
            .env_remove("ASCEND_OPP_PATH")
            .env_remove("ASCEND_HOME_PATH")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run skope");
        let mut first = [0u8; 16];
        let mut stdout = child.stdout.take().expect("stdout");
        stdout.read_exact(&mut first).expect("the report starts");
        drop(stdout);
        let out = child.wait_with_output().expect("skope ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_ne!(out.status.code(), Some(101), "{args:?}");
    }
}

#[test]
fn options_before_the_command_mean_what_they_mean_after_it() {
    let dump = example("moe_decode.txt");
    let rules = example("site_rules.json");
    let plan = temp_file("global.skope.json", b"");
    let saved = skope(&[
        "export",
        &example("moe_decode.ge_proto.txt"),
        "--format",
        "plan",
    ]);
    std::fs::write(&plan, &saved.stdout).unwrap();
    let plan = plan.to_string_lossy().into_owned();
    let pair = common::repo("assets/examples/prof_result")
        .to_string_lossy()
        .into_owned();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["--rules", &rules], vec!["report", &dump]),
        (vec!["--plan", &plan], vec!["report", &dump]),
        (vec!["--no-cann"], vec!["report", &dump, "--summary"]),
        (vec!["--max-size", "10"], vec!["info", &dump]),
        (vec!["--profiles", &pair], vec!["suggest", &dump]),
        (
            vec!["--kernel-meta", "/nonexistent/kernel_meta"],
            vec!["codegen", &dump, "-o", "-"],
        ),
    ];
    for (option, command) in cases {
        let before: Vec<&str> = option.iter().chain(&command).copied().collect();
        let after: Vec<&str> = command.iter().chain(&option).copied().collect();
        let (b, a) = (skope(&before), skope(&after));
        assert_eq!(b.status.code(), a.status.code(), "{before:?}");
        assert_eq!(
            String::from_utf8_lossy(&b.stdout),
            String::from_utf8_lossy(&a.stdout),
            "{before:?}"
        );
        assert_eq!(
            String::from_utf8_lossy(&b.stderr),
            String::from_utf8_lossy(&a.stderr),
            "{before:?}"
        );
    }
    // The case the issue names: site rules add a break, wherever --rules stands.
    let plain = stdout_of(&["report", &dump]);
    let with = stdout_of(&["--rules", &rules, "report", &dump]);
    assert_ne!(plain, with, "the rules file is read before the command too");
}

#[test]
fn an_option_a_command_does_not_use_is_refused_not_ignored() {
    let dump = example("moe_decode.txt");
    for args in [
        vec!["--rules", "x.json", "info", &dump],
        vec!["info", &dump, "--plan", "p.json"],
        vec!["--kernel-meta", "k", "diff", &dump, &dump],
        vec!["--profiles", "p", "export", &dump],
        vec!["--static", "s", "report", &dump],
        vec!["--no-mouse", "report", &dump],
        vec!["--config", "c.toml", "codegen", &dump],
        vec!["config", "--no-cann"],
    ] {
        let out = skope(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("nothing to `skope"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn every_gate_fails_a_graph_that_gets_no_superkernel() {
    // The bundled example with one dynamic output: GE skips the pass for the whole graph.
    let text = std::fs::read_to_string(common::example_path("moe_decode.ge_proto.txt")).unwrap();
    let dynamic = text.replacen("dim: 7168", "dim: -1", 1);
    assert_ne!(dynamic, text);
    let dump = temp_file("dynamic.ge_proto.txt", dynamic.as_bytes());
    let dump = dump.to_str().unwrap();
    let out = stdout_of(&["report", dump, "--summary"]);
    assert!(out.contains("✗ no SuperKernel"), "{out}");
    assert!(
        out.contains("· 1 error ·"),
        "the outcome counts as an error: {out}"
    );
    for gate in ["findings", "breaks"] {
        let out = skope(&["report", dump, "--deny", gate]);
        assert_eq!(out.status.code(), Some(1), "--deny {gate}");
    }
    // A graph with no scope marked is a finding (a warning); it builds no SuperKernel, so every --deny
    // stops it, and the plain report passes.
    let unmarked = text.replace("_super_kernel_scope", "_not_a_scope");
    let dump = temp_file("unmarked.ge_proto.txt", unmarked.as_bytes());
    let dump = dump.to_str().unwrap();
    let out = stdout_of(&["report", dump]);
    assert!(out.contains("! warning: no scope marked"), "{out}");
    assert_eq!(skope(&["report", dump]).status.code(), Some(0));
    for gate in ["findings", "breaks"] {
        let out = skope(&["report", dump, "--deny", gate]);
        assert_eq!(out.status.code(), Some(1), "--deny {gate}");
    }
}

#[test]
fn compile_writes_the_jobs_lines_to_stdout_in_the_order_written() {
    let dir = common::scratch("cli-compile-order");
    std::fs::copy(
        common::example_path("moe_decode.ge_proto.txt"),
        dir.join("m.txt"),
    )
    .unwrap();
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"both\"\nargv = [\"sh\", \"-c\", \"for i in 1 2 3 4 5; do echo out$i; echo err$i >&2; done\"]\n",
    )
    .unwrap();
    let want: Vec<String> = (1..=5)
        .flat_map(|i| [format!("out{i}"), format!("err{i}")])
        .collect();
    for _ in 0..10 {
        let _ = std::fs::remove_dir_all(dir.join("m.txt.runs"));
        let out = skope_in(&dir, &["compile", "m.txt", "--recipe", "both"], &[]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
        let log = std::fs::read_to_string(dir.join("m.txt.runs/both-1/log.txt")).unwrap();
        let marked: Vec<String> = want.iter().map(|l| format!("job| {l}")).collect();
        assert_eq!(
            log.lines().collect::<Vec<_>>(),
            marked,
            "no stream is claimed"
        );
    }
    // streams = "separate": each line's stream is known (and marked); a bad value is refused.
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"both\"\nargv = [\"sh\", \"-c\", \"echo o; echo e >&2\"]\nstreams = \"separate\"\n",
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(dir.join("m.txt.runs"));
    assert!(
        skope_in(&dir, &["compile", "m.txt", "--recipe", "both"], &[])
            .status
            .success()
    );
    let log = std::fs::read_to_string(dir.join("m.txt.runs/both-1/log.txt")).unwrap();
    assert!(
        log.contains("out| o\n") && log.contains("err| e\n"),
        "{log}"
    );
    std::fs::write(
        dir.join("skope.toml"),
        "[[recipe]]\nname = \"both\"\nargv = [\"true\"]\nstreams = \"mixed\"\n",
    )
    .unwrap();
    let out = skope_in(&dir, &["compile", "m.txt", "--recipe", "both"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("skope.toml:4:") && err.contains("\"separate\""),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_plan_resting_on_assumed_verdicts_says_so_with_its_range() {
    let dump = example("moe_decode.txt");
    let text = stdout_of(&["report", &dump, "--summary"]);
    assert!(
        text.contains("assumed: 75 scope member(s) taken as AscendC kernels (nothing in the dump or rules says); if none is: 4 segments · 78 breaks"),
        "{text}"
    );
    assert!(
        text.contains("scope attn_0: fused if 7 assumed ops are AscendC ·"),
        "{text}"
    );
    assert!(
        text.contains("scope moe_1: split (13 assumed AscendC) ·"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout_of(&["report", &dump, "--json"])).unwrap();
    assert_eq!(v["assumed"]["ops"], 75);
    assert_eq!(v["assumed"]["if_none_fusible"]["segments"], 4);
    assert_eq!(v["assumed"]["if_none_fusible"]["breaks"], 78);
    assert_eq!(v["scopes"][0]["assumed"], 7);
    // The compiled dump decides every verdict from its attributes: no range.
    let compiled: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "report",
        &example("moe_decode.ge_proto.txt"),
        "--json",
    ]))
    .unwrap();
    assert!(compiled["assumed"].is_null());
}

#[test]
fn a_mindspore_graph_has_no_scope_code_to_export() {
    let ir = common::repo("assets/examples/mindspore/graph_build_0_1.ir")
        .to_string_lossy()
        .into_owned();
    for format in ["torchair", "acl", "plan"] {
        let out = skope(&["export", &ir, "--format", format]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{format}: {err}");
        assert!(out.stdout.is_empty(), "{format}");
        assert!(
            err.contains("graph kernel flags") && err.contains("skope options --graph-kernel"),
            "{err}"
        );
    }
}

#[test]
fn a_segment_over_two_streams_names_both() {
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "report",
        &example("moe_decode.ge_proto.txt"),
        "--json",
    ]))
    .unwrap();
    let segs: Vec<&serde_json::Value> = v["scopes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["segments"].as_array().unwrap())
        .collect();
    let two = segs
        .iter()
        .find(|s| s["name"] == "moe_0_split_22_34")
        .unwrap();
    assert_eq!(two["stream"], 0);
    assert_eq!(two["streams"], serde_json::json!([0, 1]));
    let one = segs.iter().find(|s| s["name"] == "attn_0").unwrap();
    assert_eq!(one["streams"], serde_json::json!([0]));
    let text = stdout_of(&["report", &example("moe_decode.ge_proto.txt")]);
    assert!(
        text.contains("segment moe_0_split_22_34 · stream 0 (sub-ops on streams 0+1)"),
        "{text}"
    );
}

#[test]
fn every_text_output_ends_its_last_line_and_info_keeps_scopes_short() {
    let statics = example("static_kernel_compile_outputs");
    for args in [
        vec!["static", statics.as_str()],
        vec!["suggest", "--no-cann"],
    ] {
        let mut args = args;
        let dump = example("moe_decode.ge_proto.txt");
        if args[0] == "suggest" {
            args.push(&dump);
        }
        let out = stdout_of(&args);
        assert!(
            out.ends_with('\n'),
            "{args:?}: {:?}",
            &out[out.len().saturating_sub(40)..]
        );
    }
    // A model with a scope per layer: the scopes are summed up, a few per line.
    let mut dump = String::from("graph {\n  name: \"g\"\n");
    for i in 0..500 {
        // The first op has an input slot left empty, as dumps write optional inputs.
        let input = if i == 0 { " input: \"\"" } else { "" };
        dump += &format!(
            "  op {{ name: \"op_{i}\" type: \"Add\" id: {i}{input} attr {{ key: \"_super_kernel_scope\" value {{ s: \"layer_{i:03}\" }} }} }}\n"
        );
    }
    dump += "}\n";
    let path = temp_file("many_scopes.txt", dump.as_bytes());
    let text = stdout_of(&["info", &path.to_string_lossy()]);
    assert!(text.lines().all(|l| l.chars().count() < 200), "{text}");
    assert!(text.contains("scopes    500 scope(s), 500 member op(s) (the first 40 by name; all of them with --json)"), "{text}");
    assert!(text.contains("… and 460 more"), "{text}");
    // Unconnected inputs say what they are.
    assert!(
        text.contains("1 unconnected input(s): input slots the dump writes as \"\" (an optional input left out), not a problem"),
        "{text}"
    );
    let text = stdout_of(&["info", &example("moe_decode.ge_proto.txt")]);
    assert!(!text.contains("unconnected"), "none in the example: {text}");
}

#[test]
fn aclgraph_results_as_users_have_them_open_in_every_command() {
    let root = common::scratch("cli-acl-today");
    let logs_only = common::acl_dirs::logs_only(&root.join("logs")).dir;
    let whole = common::acl_dirs::whole_model(&root.join("whole")).dir;
    let per_op = common::acl_dirs::per_op(&root.join("per-op"));
    let graph_only = common::acl_dirs::graph_only(&root.join("graph"));
    for dir in [&logs_only, &whole, &per_op, &graph_only] {
        let dir = dir.to_string_lossy();
        for args in [
            vec!["info", dir.as_ref()],
            vec!["report", dir.as_ref()],
            vec!["report", dir.as_ref(), "--summary", "--json"],
            vec!["export", dir.as_ref()],
            vec!["suggest", dir.as_ref()],
        ] {
            let out = skope(&args);
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    // The logs alone: the scopes written back from the tasks' own, begin and end.
    let python = stdout_of(&["export", &logs_only.to_string_lossy()]);
    assert!(
        python.contains("torch.npu.super_kernel_scope_begin(\"full_model\")"),
        "{python}"
    );
    assert!(
        python.contains("torch.npu.super_kernel_scope_end(\"full_model\")"),
        "{python}"
    );
    // Suggest heals the whole-model scope with exclusions, checked by prediction, with the
    // code to paste.
    let text = stdout_of(&["suggest", &whole.to_string_lossy()]);
    assert!(
        text.contains("The scope holds the whole model: what heals its worst splits"),
        "{text}"
    );
    assert!(
        text.contains("  1. keep GroupedMatmulFinalizeRouting_l0 … MoeFinalizeRouting_l0 out of fusion in every layer (4 places"),
        "{text}"
    );
    assert!(
        text.contains(
            "     SuperKernels 17 → 9, of one kernel 9 → 1, kernels fused in the others 24 → 24"
        ),
        "{text}"
    );
    assert!(
        text.contains("     code: torch.npu.super_kernel_scope_begin(None)  # before GroupedMatmulFinalizeRouting_l0"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["suggest", &whole.to_string_lossy(), "--json"])).unwrap();
    let remedy = &json["remedies"][0];
    assert!(
        remedy["what"]
            .as_str()
            .is_some_and(|w| w.ends_with("out of fusion in every layer (4 places)")),
        "{remedy}"
    );
    assert_eq!(remedy["after"]["superkernels"], 9);
    // The whole-model scope answers first, under the header, in text and in JSON.
    let text = stdout_of(&["report", &whole.to_string_lossy(), "--summary"]);
    assert!(
        text.starts_with("aclgraph SuperKernel pass · ")
            && text.lines().nth(1).is_some_and(|l| {
                l.starts_with("whole-model scope full_model: 37 of the model's 37 kernel tasks")
            }),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout_of(&[
        "report",
        &whole.to_string_lossy(),
        "--summary",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["whole_model"]["segments"], 17);
    assert_eq!(json["whole_model"]["layers"][0]["layer"], "0");
    assert_eq!(
        json["whole_model"]["layers"][0]["pieces"][0]["ended_by"]["reason_code"],
        "OP_UNSUPPORT"
    );
    assert!(
        json["scopes"][0]["superkernels"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
    assert_eq!(json["scopes"][0]["superkernel_count"], 4);
    // The per-op debug mode on the first line after the title.
    let text = stdout_of(&["info", &per_op.to_string_lossy()]);
    assert!(text.contains("! per-op debug mode"), "{text}");
}

#[test]
fn a_pass_file_in_the_current_directory_opens_its_model() {
    let root = common::scratch("cli-acl-cwd");
    let fx = common::acl_dirs::logs_only(&root);
    let out = skope_in(&fx.dir, &["info", "sk_fused_nodes.log"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 SuperKernel(s) built"));
    // Nothing of the pass here: the error names the place, never an empty path.
    let empty = common::scratch("cli-acl-cwd-empty");
    std::fs::write(empty.join("sk_fusion_fail_reasons.log"), "# no failures\n").unwrap();
    let out = skope_in(&empty, &["info", "sk_fusion_fail_reasons.log"], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains("error: :"), "{stderr}");
    assert!(
        stderr.contains("error: .:") || stderr.contains("error: ./"),
        "{stderr}"
    );
}

/// `skope codegen -o DIR` with files limited to `blocks` of 512 bytes (`ulimit -f`, the
/// signal ignored so writes fail with EFBIG as on a full disk).
fn codegen_with_a_small_disk(out: &Path, blocks: u32) -> std::process::Output {
    let script = format!("ulimit -f {blocks}; trap '' XFSZ; exec \"$0\" codegen \"$1\" -o \"$2\"",);
    std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_skope")])
        .arg(example("moe_decode.ge_proto.txt"))
        .arg(out)
        .env_remove("ASCEND_OPP_PATH")
        .env_remove("ASCEND_HOME_PATH")
        .output()
        .expect("run sh")
}

#[test]
fn codegen_that_cannot_finish_leaves_nothing_it_created_and_the_old_files_whole() {
    let dir = common::scratch("codegen-full");
    // A directory it has to create, two levels deep: gone again after the failure.
    let fresh = dir.join("new/codegen");
    let out = codegen_with_a_small_disk(&fresh, 2);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write the generated code into"),
        "{err}"
    );
    assert!(
        err.contains("too large") || err.contains("No space"),
        "{err}"
    );
    assert!(
        !dir.join("new").exists(),
        "it left {:?}",
        std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
    );

    // A directory with an earlier run's files: they stay as they were, and no new file stays.
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    let whole = skope(&[
        "codegen",
        &example("moe_decode.ge_proto.txt"),
        "-o",
        &old.to_string_lossy(),
    ]);
    assert!(whole.status.success());
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&old)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    // Replace one file by a stray one the failing run would add beside it.
    let (gone, _) = &before[0];
    std::fs::remove_file(gone).unwrap();
    let failed = codegen_with_a_small_disk(&old, 2);
    assert!(!failed.status.success());
    let mut after: Vec<PathBuf> = std::fs::read_dir(&old)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    after.sort();
    let mut expected: Vec<PathBuf> = before[1..].iter().map(|(p, _)| p.clone()).collect();
    expected.sort();
    assert_eq!(after, expected, "a new file stayed or an old one went");
    for (path, bytes) in &before[1..] {
        assert_eq!(
            &std::fs::read(path).unwrap(),
            bytes,
            "{} changed",
            path.display()
        );
    }
}

#[test]
fn report_holds_a_compiled_superkernel_from_kernel_meta_against_the_prediction() {
    let dump = example("moe_decode.txt");
    let dir = common::scratch("cli-report-kernel-meta");
    // The compiler's JSON for attn_0 without its last sub-op.
    let subs = [
        "layer0_input_rmsnorm",
        "layer0_qkv_proj",
        "layer0_rope",
        "layer0_kv_scatter",
        "layer0_attention",
        "layer0_o_proj",
        "layer0_attn_allreduce",
    ];
    let list: Vec<serde_json::Value> = subs
        .iter()
        .map(|s| serde_json::json!({"func_name": format!("{s}__kernel0")}))
        .collect();
    let compiled = serde_json::json!({"kernelName": "te_superkernel_attn_0",
        "SuperkernelInfo": {"kernelList": {"aicore": list}}});
    std::fs::write(dir.join("te_superkernel_attn_0.json"), compiled.to_string()).unwrap();
    let meta = dir.to_string_lossy().into_owned();
    let out = skope(&["report", &dump, "--kernel-meta", &meta]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("attn_0 ↔ te_superkernel_attn_0")
            && text.contains(
                "! finding: skope predicts sub-op(s) the compiled SuperKernel does not list: \
                 layer0_residual_add"
            ),
        "{text}"
    );
    let out = skope(&["report", &dump, "--kernel-meta", &meta, "--output", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["compiled"][0]["segment"], "attn_0");
    // The short Markdown report does not hold it: refused, never ignored.
    let out = skope(&[
        "report",
        &dump,
        "--kernel-meta",
        &meta,
        "--output",
        "markdown",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--kernel-meta means nothing"));
}

#[test]
fn report_json_lists_every_finding_and_every_report_starts_with_its_file() {
    let dump = example("moe_decode.ge_proto.txt");
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["report", &dump, "--output", "json"])).unwrap();
    let findings = json["findings"].as_array().unwrap();
    let counted =
        json["summary"]["errors"].as_u64().unwrap() + json["summary"]["warnings"].as_u64().unwrap();
    assert_eq!(findings.len() as u64, counted, "{findings:?}");
    assert!(findings.iter().any(|f| f["scope"] == "moe_1"
        && f["message"] == "segment moe_1_split_54_56 has a single op: fusing it saves nothing"));
    // Each scope still has its own.
    assert!(
        json["scopes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| !s["findings"].as_array().unwrap().is_empty())
    );
    // MindSpore: the header, then the whole-model scope.
    let ir = common::repo("assets/examples/mindspore/graph_build_0_1.ir");
    let ir = ir.to_string_lossy();
    let text = stdout_of(&["report", &ir]);
    assert!(
        text.starts_with(&format!("{ir} · mindspore_ir · ")),
        "{text}"
    );
    let whole = text
        .lines()
        .position(|l| l.starts_with("whole-model scope "));
    let first_scope = text.lines().position(|l| l.starts_with("scope "));
    assert!(whole.is_some() && whole < first_scope, "{text}");
}

#[test]
fn counts_agree_with_their_nouns() {
    let ir = common::repo("assets/examples/mindspore/graph_build_0_1.ir");
    let text = stdout_of(&["report", &ir.to_string_lossy()]);
    assert!(
        text.contains("\n1 scope → 6 segments · 15 breaks · 0 errors · 0 warnings\n"),
        "{text}"
    );
}

#[test]
fn plan_says_where_it_goes_and_that_a_directory_is_no_plan() {
    let help = stdout_of(&["report", "--help"]);
    assert!(
        help.contains("`<dump>.skope.json` beside the dump"),
        "{help}"
    );
    let dir = common::scratch("cli-plan-dir");
    let out = skope(&[
        "report",
        &example("moe_decode.txt"),
        "--plan",
        &dir.to_string_lossy(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(": a directory, not a plan file"), "{err}");
    assert!(!err.contains("writable"), "{err}");
}

#[test]
fn a_huge_graph_name_is_kept_cut_in_every_output() {
    let text = std::fs::read_to_string(common::example_path("moe_decode.txt")).unwrap();
    let huge = "g".repeat(2 << 20);
    let dump = temp_file(
        "huge_name.txt",
        text.replacen("name: \"moe_decode\"", &format!("name: \"{huge}\""), 1)
            .as_bytes(),
    );
    let dump = dump.to_string_lossy();
    for args in [
        vec!["info", &dump, "--output", "json"],
        vec!["report", &dump, "--output", "json"],
        vec!["report", &dump],
    ] {
        let out = skope(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout.len() < 1 << 20,
            "{args:?}: {} bytes of output",
            out.stdout.len()
        );
    }
    let info = stdout_of(&["info", &dump]);
    assert!(
        info.contains("the graph's name is longer than 64 KiB: it is kept cut"),
        "{info}"
    );
}

#[test]
fn both_scope_attribute_names_mark_scopes_and_hccls_own_scope_says_so() {
    let text = std::fs::read_to_string(common::example_path("moe_decode.ge_proto.txt")).unwrap();
    let canonical = stdout_of(&["report", &example("moe_decode.ge_proto.txt"), "--summary"]);
    let ascendc = temp_file(
        "ascendc_scope.ge_proto.txt",
        text.replace(
            "key: \"_super_kernel_scope\"",
            "key: \"_ascendc_super_kernel_scope\"",
        )
        .as_bytes(),
    );
    let ascendc = stdout_of(&["report", &ascendc.to_string_lossy(), "--summary"]);
    // The same plan, line for line, but the file's name.
    assert_eq!(
        canonical.lines().skip(1).collect::<Vec<_>>(),
        ascendc.lines().skip(1).collect::<Vec<_>>()
    );
    // HCCL's scope for an AIV-expanded collective.
    let at = text.find("name: \"layer0_attn_allreduce\"").unwrap();
    let scope = at + text[at..].find("s: \"attn_0\"").unwrap();
    let hccl = format!("{}s: \"hccl_aiv\"{}", &text[..scope], &text[scope + 11..]);
    let hccl = temp_file("hccl_aiv.ge_proto.txt", hccl.as_bytes());
    let hccl = hccl.to_string_lossy();
    let report = stdout_of(&["report", &hccl]);
    assert!(
        report.contains("scope hccl_aiv: fused · 1 members")
            && report.contains("  marked by HCCL: HcomGraphOptimizer::SetSuperKernelScopeAttr"),
        "{report}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["report", &hccl, "--output", "json"])).unwrap();
    let scopes = json["scopes"].as_array().unwrap();
    let marked: Vec<&str> = scopes
        .iter()
        .filter(|s| s["marked_by"].is_string())
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["hccl_aiv"]);
}

#[test]
fn a_cut_after_a_markers_last_fragment_is_diagnostic_only() {
    let dir = common::repo("assets/examples/aclgraph");
    let text = stdout_of(&["report", &dir.to_string_lossy()]);
    // moe_1's last SuperKernel is cut at the lm_head MatMul, which is outside every scope.
    let at = text
        .find("cut at task 67 MatMulV2_lm_head_5e5e")
        .expect(&text);
    assert!(
        text[at..]
            .lines()
            .nth(1)
            .is_some_and(|l| l.contains("diagnostic only, not a break of the scope")),
        "{text}"
    );
    // A cut inside a marker (attn_0 goes on after task 7) stays a break of its scope.
    let at = text
        .find("cut at task 7 FusedInferAttentionScore")
        .expect(&text);
    assert!(
        !text[at..]
            .lines()
            .nth(1)
            .unwrap_or_default()
            .contains("diagnostic only")
    );
    // In the plan, moe_1 does not count the lm_head MatMul among its breaks.
    let md = stdout_of(&["report", &dir.to_string_lossy(), "--output", "markdown"]);
    let breaks: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| MatMulV2\\_lm"))
        .collect();
    assert!(breaks.is_empty(), "{md}");
    assert!(md.contains("5 scope(s) → 7 segment(s), 3 break(s)"), "{md}");
}

#[test]
fn check_op_says_per_kernel_whether_superkernel_can_fuse_it() {
    let fixtures = common::repo("tests/fixtures/check_op");
    let adapted = fixtures.join("adapted").to_string_lossy().into_owned();
    let out = skope(&["check-op", &adapted]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("kernel add_custom")
            && text.contains("__mix__(0,1) · SK_BIND cap 0 → add_custom_sk<0>"),
        "{text}"
    );
    assert!(text.contains("  fusible\n"), "{text}");

    let unadapted = fixtures.join("unadapted").to_string_lossy().into_owned();
    let out = skope(&["check-op", &unadapted]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let file = format!("{unadapted}/matmul_custom.cpp");
    for expected in [
        format!("{file}:6: blocker sk.bind-present: no SK_BIND binds matmul_custom"),
        format!("{file}:8: blocker sk.raw-block-index: raw block_idx"),
        format!("{file}:11: blocker sk.tpipe-destroy-without-pipe-all: 2 TPipes"),
        format!(
            "{file}:17: warning sk.launch-aclgraph-only: matmul_custom is launched with <<<>>>"
        ),
    ] {
        assert!(text.contains(&expected), "{expected}\n{text}");
    }
    assert!(text.contains("not fusible"), "{text}");
    // JSON: every finding with its severity, rule, file and line.
    let out = skope(&["check-op", &unadapted, "--output", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["kernels"][0]["verdict"], "not fusible");
    assert_eq!(json["findings"].as_array().map(Vec::len), Some(4));
    assert_eq!(json["findings"][0]["severity"], "blocker");
    // A path that is not there is named.
    let out = skope(&["check-op", "/nonexistent/op"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/op: "));
}

#[test]
fn a_break_of_the_users_own_op_says_what_adapting_it_takes_from_its_sources() {
    let text = std::fs::read_to_string(common::example_path("moe_decode.ge_proto.txt")).unwrap();
    // The user's own matmul_custom operator stands where layer0_init_routing is: its kernel
    // says it is not adapted to SuperKernel (supportSuperKernel = 0).
    let at = text.find("name: \"layer0_init_routing\"").unwrap();
    let ty = at + text[at..].find("type: \"MoeInitRoutingV2\"").unwrap();
    let dump = format!(
        "{}type: \"MatmulCustom\"{}",
        &text[..ty],
        &text[ty + "type: \"MoeInitRoutingV2\"".len()..]
    );
    let dump = temp_file("custom_op.ge_proto.txt", dump.as_bytes());
    let dump = dump.to_string_lossy();
    let fix = |args: &[&str]| -> String {
        let out = stdout_of(&[&["report", &dump], args].concat());
        let at = out.find("break layer0_init_routing").expect(&out);
        out[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("fix:"))
            .unwrap_or_default()
            .to_string()
    };
    assert!(
        fix(&[]).contains("only a model change heals it"),
        "{}",
        fix(&[])
    );
    let sources = common::repo("tests/fixtures/check_op/unadapted");
    let sources = sources.to_string_lossy();
    let with = fix(&["--op-sources", &sources]);
    assert!(
        with.contains(&format!(
            "fix: adapt the operator: 4 finding(s) in its sources (3 blocker(s)), the first \
             sk.bind-present at {sources}/matmul_custom.cpp:6"
        )),
        "{with}"
    );
}

/// Each planted file's findings, as (file name, rule, severity, line), from `check-op --output
/// json` with `extra` arguments.
fn planted_findings(extra: &[&str]) -> Vec<(String, String, String, u64)> {
    let dir = common::repo("tests/fixtures/check_op/planted");
    let dir = dir.to_string_lossy();
    let out = skope(&[&["check-op", &dir, "--output", "json"], extra].concat());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<(String, String, String, u64)> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            let name = file.rsplit('/').next().unwrap().to_string();
            let word = |k: &str| f[k].as_str().unwrap().to_string();
            (
                name,
                word("rule"),
                word("severity"),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn check_op_finds_exactly_the_planted_problems_each_at_its_line() {
    let planted = |file: &str, rule: &str, severity: &str, line: u64| {
        (
            file.to_string(),
            rule.to_string(),
            severity.to_string(),
            line,
        )
    };
    // One problem per file, and nothing in adapted.cpp.
    let mut expected = vec![
        planted("five_subs.cpp", "sk.bind-max-splits", "blocker", 11),
        planted("inconsistent_cap.cpp", "sk.cap-matches", "warning", 11),
        planted("launch.cpp", "sk.launch-aclgraph-only", "warning", 15),
        planted("no_bind.cpp", "sk.bind-present", "blocker", 4),
        planted("raw_block.cpp", "sk.raw-block-index", "blocker", 8),
        planted(
            "two_pipes.cpp",
            "sk.tpipe-destroy-without-pipe-all",
            "blocker",
            9,
        ),
        planted("unknown_cap.cpp", "sk.bind-mask-known", "warning", 11),
    ];
    expected.sort();
    assert_eq!(planted_findings(&[]), expected);
    assert_eq!(planted_findings(&["--target", "dav-2201"]), expected);
    // Ascend 950: SK_BIND is not supported there, so every binding blocks and an unbound
    // kernel is a note; the TPipe barrier rule is A2/A3's.
    let on_950 = planted_findings(&["--target", "dav-3510"]);
    let binds = on_950
        .iter()
        .filter(|f| f.1 == "sk.bind-target" && f.2 == "blocker")
        .count();
    assert_eq!(binds, 7, "{on_950:?}");
    assert!(on_950.contains(&planted("no_bind.cpp", "sk.bind-target", "note", 4)));
    assert!(
        !on_950
            .iter()
            .any(|f| f.1 == "sk.tpipe-destroy-without-pipe-all" || f.1 == "sk.bind-present")
    );
    // Both targets are named in the help, and a wrong one is refused with them.
    let help = stdout_of(&["check-op", "--help"]);
    assert!(
        help.contains("dav-2201") && help.contains("dav-3510"),
        "{help}"
    );
    let out = skope(&["check-op", "x.cpp", "--target", "c220"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown target \"c220\"") && err.contains("dav-3510"),
        "{err}"
    );
}

#[test]
fn a_ge_dump_for_ascend_950_plans_with_ges_rules_and_says_ge_mode_does_not_fuse_there() {
    // Taken before GE compiles: the rules table decides, blacklist included.
    let dump = common::example_path("moe_decode.pbtxt");
    let dump = dump.to_string_lossy();
    let report = |args: &[&str]| -> serde_json::Value {
        let out = stdout_of(&[&["report", &dump, "--json"], args].concat());
        serde_json::from_str(&out).unwrap()
    };
    let a2 = report(&[]);
    assert_eq!(a2["target"]["arch"], "dav-2201");
    assert_eq!(a2["target"]["evidence"], "assumed");
    let a5 = report(&["--target", "dav-3510"]);
    assert_eq!(a5["target"]["arch"], "dav-3510");
    assert_eq!(a5["target"]["evidence"], "edit");
    let items = |v: &serde_json::Value| v.as_array().cloned().unwrap_or_default();
    let field = |v: Vec<serde_json::Value>, key: &str| -> Vec<String> {
        v.iter()
            .map(|x| x[key].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let messages = |r: &serde_json::Value| field(items(&r["findings"]), "message");
    assert!(
        !messages(&a2)
            .iter()
            .any(|m| m.contains("not supported on Ascend 950")),
        "{:?}",
        messages(&a2)
    );
    assert!(
        messages(&a5).iter().any(|m| m.contains(
            "GE mode's SuperKernel path (the op compiler's --enable_super_kernel) and SK_BIND \
             are not supported on Ascend 950"
        )),
        "{:?}",
        messages(&a5)
    );
    // The MoeInitRouting blacklist is A2/A3's: on dav-3510 that op does not break its scope.
    let breaks_at = |r: &serde_json::Value| {
        let scopes = items(&r["scopes"]);
        field(
            scopes.iter().flat_map(|s| items(&s["breaks"])).collect(),
            "op",
        )
    };
    assert!(
        breaks_at(&a2).iter().any(|o| o == "layer0_init_routing"),
        "{:?}",
        breaks_at(&a2)
    );
    assert!(
        !breaks_at(&a5).iter().any(|o| o == "layer0_init_routing"),
        "{:?}",
        breaks_at(&a5)
    );
    // The text says the target first, and info says it too.
    let text = stdout_of(&["report", &dump, "--target", "dav-3510"]);
    assert!(
        text.contains("target: dav-3510 (Ascend 950, SuperKernel experimental), from --target"),
        "{text}"
    );
    let info = stdout_of(&["info", &dump]);
    assert!(
        info.contains("target    dav-2201 (Atlas A2/A3), assumed"),
        "{info}"
    );
    // The entry code follows the target: its guards, and no FFTS base address on dav-3510.
    let code = |args: &[&str]| stdout_of(&[&["codegen", &dump, "--output", "-"], args].concat());
    let (a2_code, a5_code) = (code(&[]), code(&["--target", "dav-3510"]));
    assert!(a2_code.contains("set_ffts_base_addr"), "{a2_code}");
    assert!(!a5_code.contains("set_ffts_base_addr"), "{a5_code}");
    assert!(a5_code.contains("// skope: Target dav-3510"), "{a5_code}");
    // The aclgraph options say what the runtime forces on dav-3510.
    let options = stdout_of(&["options", "--aclgraph", "--target", "dav-3510"]);
    assert!(
        options.contains("forces enable_mix_kernel_split"),
        "{options}"
    );
    // What a model records wins over --target, and the choice not used is said.
    let model = common::example_path("aclgraph");
    let text = stdout_of(&["report", &model.to_string_lossy(), "--target", "dav-3510"]);
    assert!(
        text.contains("target: dav-2201 (Atlas A2/A3), recorded in sk_graph_origin.json"),
        "{text}"
    );
    assert!(
        text.contains("dav-3510 (Ascend 950, SuperKernel experimental), from --target is not used"),
        "{text}"
    );
}
