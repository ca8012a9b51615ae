//! The entry-code generator: the structure of the compiler's golden outputs (reference §5.6:
//! two AIV ops, `is_inf` on 32 cores then `pows` on 1), each option's effect, the two-stream
//! form, events, the line ↔ op map, and every segment of the bundled example compiling
//! against the shim header.

use skope::codegen::{EntryCode, Form, Origin, entry};
use skope::fusion::rules::RuleSet;
use skope::graph::{AttrValue, GraphBuilder, OpBuilder};
use skope::load::{Format, load_file};
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An op of the test graph: name, type, stream, core type, block dim, inputs, in the scope.
struct Op(
    &'static str,
    &'static str,
    i64,
    &'static str,
    i64,
    &'static [&'static str],
    bool,
);

fn workspace(ops: &[Op], options: &str) -> Workspace {
    let mut b = GraphBuilder::new("g");
    for (topo, Op(name, ty, stream, core, dim, inputs, scoped)) in ops.iter().enumerate() {
        let mut op = OpBuilder {
            name: name.to_string(),
            op_type: ty.to_string(),
            topo_id: Some(topo as i64),
            stream: Some(*stream),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            ..OpBuilder::default()
        };
        if !core.is_empty() {
            let attrs = [
                ("supportSuperKernel", AttrValue::Int(1)),
                ("_cube_vector_core_type", AttrValue::Str(core.to_string())),
                ("tvm_blockdim", AttrValue::Int(*dim)),
                ("_kernelname", AttrValue::Str(name.to_string())),
            ];
            for (k, v) in attrs {
                op.attrs.insert(k.into(), v);
            }
        }
        if *scoped {
            op.attrs
                .insert("_super_kernel_scope".into(), AttrValue::Str("sk".into()));
            op.attrs.insert(
                "_super_kernel_options".into(),
                AttrValue::Str(options.into()),
            );
        }
        b.push(op);
    }
    Workspace::new(b.build(), Format::GeProtoText, "test", &RuleSet::bundled())
}

const TWO_AIV: &[Op] = &[
    Op("x", "Data", 0, "", 0, &[], false),
    Op("is_inf", "IsInf", 0, "AIV", 32, &["x:0"], true),
    Op("pows", "Pows", 0, "AIV", 1, &["is_inf:0", "x:0"], true),
];

fn only_segment(ws: &Workspace) -> EntryCode {
    let segments: Vec<_> = ws.plan().scopes.iter().flat_map(|s| &s.segments).collect();
    assert_eq!(segments.len(), 1, "one segment expected");
    entry(ws.context(), segments[0])
}

fn code(ops: &[Op], options: &str) -> EntryCode {
    only_segment(&workspace(ops, options))
}

fn count(code: &EntryCode, text: &str) -> usize {
    code.source.matches(text).count()
}

#[test]
fn default_options_give_the_golden_structure() {
    let c = code(TWO_AIV, "");
    assert_eq!(c.form, Form::SingleStream);
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIV_1_0");
    assert_eq!(c.kernel.block_dim, 32);
    // four split copies of each sub-kernel, declared once
    for split in ["", "_split1", "_split2", "_split3"] {
        let decl = format!("void is_inf__kernel0_middle{split}(uint64_t args_offset);");
        assert_eq!(count(&c, &decl), 1, "{decl}");
    }
    assert_eq!(count(&c, "__attribute__((aligned(512)))"), 1);
    // ffts at argument 0, is_inf's three arguments from 1, pows's from 4
    assert!(c.source.contains("GM_ADDR ffts_addr = param_base[0];"));
    assert!(c.source.contains("is_inf__kernel0_middle_split3(1);"));
    assert!(c.source.contains("pows__kernel0_middle(4);"));
    assert!(c.source.contains("if (AscendC::GetBlockIdx() < 32) {"));
    assert!(c.source.contains("if (AscendC::GetBlockIdx() < 1) {"));
    // AIV → AIV early start between the two ops, and no other barrier
    assert_eq!(count(&c, "// begin inter ops barrier"), 1);
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 5;"), 1);
    assert_eq!(count(&c, "AscendC::WaitPreTaskEndImpl<5>();"), 2);
    assert_eq!(count(&c, "AscendC::SetNextTaskStart();"), 1);
    assert!(
        c.source
            .contains("// AIV only, no complement early start set flag.")
    );
    // per-func preload: the first op preloads itself and the next
    assert_eq!(
        count(&c, "preload((const void *)is_inf__kernel0_middle, 2);"),
        1
    );
    assert_eq!(
        count(&c, "preload((const void *)pows__kernel0_middle, 2);"),
        1
    );
    assert!(c.source.contains("K_TYPE_MIX_AIV_MAIN"));
    assert!(
        c.flags
            .contains(&"-D__ASCENDC_ENABLE_SET_NEXT_TASK_START".to_string())
    );
    assert!(
        c.flags
            .contains(&"-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END".to_string())
    );
    assert!(
        c.flags
            .contains(&"-D__ASCENDC_SUPERKERNEL_EARLY_START_V2".to_string())
    );
    insta::assert_snapshot!("codegen_default_two_aiv", c.source);
}

#[test]
fn early_start_off_uses_the_full_sync_of_the_kernel_type() {
    let c = code(TWO_AIV, "early-start=0");
    assert_eq!(count(&c, "SetNextTaskStart"), 0);
    assert_eq!(count(&c, "g_super_kernel_early_start_config"), 0);
    assert_eq!(
        count(&c, "// reason2: inter op barrier when EarlyStartDisable"),
        1
    );
    assert_eq!(
        count(
            &c,
            "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));"
        ),
        1
    );
    assert!(c.flags.iter().all(|f| !f.contains("EARLY_START")
        && !f.contains("TASK_START")
        && !f.contains("TASK_END")));
}

#[test]
fn func_align_preload_and_split_mode_change_their_lines() {
    let c = code(TWO_AIV, "func-align=256");
    assert_eq!(count(&c, "__attribute__((aligned(256)))"), 1);
    assert_eq!(count(&c, "aligned(512)"), 0);

    let c = code(TWO_AIV, "preload-code=max");
    assert_eq!(count(&c, "AscendC::PreLoad(8);"), 1);
    assert_eq!(count(&c, "preload((const void *)"), 0);

    let c = code(TWO_AIV, "preload-code=none");
    assert_eq!(count(&c, "PreLoad"), 0);
    assert_eq!(count(&c, "preload("), 0);

    let c = code(TWO_AIV, "split-mode=1");
    assert_eq!(count(&c, "_split1"), 0);
    assert_eq!(count(&c, "get_coreid()"), 0);
    assert!(
        c.source
            .contains("__gm__ struct OpSystemRunCfg g_opSystemRunCfg = {0};")
    );
    assert!(c.source.contains("          is_inf__kernel0_middle(1);"));

    let c = code(TWO_AIV, "split-mode=2");
    assert_eq!(count(&c, "(coreid % 2) == 0"), 4);
    assert_eq!(count(&c, "_split2"), 0);
}

#[test]
fn debug_tails_follow_every_sub_op() {
    let c = code(TWO_AIV, "debug-dcci-all=1");
    assert_eq!(count(&c, "// op end debug dcci all."), 2);
    assert_eq!(
        count(
            &c,
            "dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);"
        ),
        2
    );
    let c = code(TWO_AIV, "debug-sync-all=1");
    assert_eq!(count(&c, "// op end debug sync all."), 2);
    assert_eq!(count(&c, "wait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);"), 2);
}

#[test]
fn feed_sync_all_and_profiling_add_an_argument_after_the_sub_ops() {
    let c = code(TWO_AIV, "feed-sync-all=1");
    // 1 (ffts) + 3 (is_inf) + 4 (pows) = 8
    assert!(c.source.contains("GM_ADDR workspace = param_base[8];"));
    assert!(
        c.source
            .contains("AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr = workspace;")
    );
    assert_eq!(
        count(&c, "AscendC::g_superKernelAutoSyncAllEnable = false;"),
        2
    );
    assert!(
        c.flags
            .contains(&"-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__".to_string())
    );

    let c = code(TWO_AIV, "profiling=1");
    assert!(c.source.contains("GM_ADDR profilingPtr = param_base[8];"));
    for record in [
        "RecordProfiling(0, 0x0, true);",
        "RecordProfiling(1, 0x8, true);",
        "RecordProfiling(1, 0x8, false);",
        "RecordProfiling(2, 0x8, true);",
        "RecordProfiling(2, 0x8, false);",
        "RecordProfiling(0, 0x0, false);",
    ] {
        assert_eq!(count(&c, record), 1, "{record}");
    }
    let c = code(TWO_AIV, "feed-sync-all=1:profiling=1");
    assert!(c.source.contains("GM_ADDR workspace = param_base[8];"));
    assert!(c.source.contains("GM_ADDR profilingPtr = param_base[9];"));
}

#[test]
fn cube_ops_and_mixed_kernels_pick_their_cores_and_configs() {
    let aic: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 24, &[], true),
        Op("b", "MatMulV2", 0, "AIC", 8, &["a:0"], true),
    ];
    let c = code(aic, "");
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 0;"), 1);
    assert!(c.source.contains("if (get_block_idx() < 24) {"));
    assert!(c.source.contains("K_TYPE_MIX_AIC_MAIN"));
    let c = code(aic, "early-start=0");
    assert_eq!(
        count(
            &c,
            "ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));"
        ),
        1
    );

    let mixed: &[Op] = &[
        Op("mm", "MatMulV2", 0, "AIC", 20, &[], true),
        Op("add", "Add", 0, "AIV", 40, &["mm:0"], true),
    ];
    let c = code(mixed, "");
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIC_1_2");
    // AIC → AIV is (0 << 2) | 1; the vector cores idle during mm set the complement flag
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 1;"), 1);
    assert!(c.source.contains("complement early start set flag."));
    let c = code(mixed, "early-start=0");
    assert_eq!(count(&c, "AscendC::SyncAll<false>();"), 1);
}

#[test]
fn events_with_ops_on_other_streams_notify_and_wait() {
    let ops: &[Op] = &[
        Op("before", "Add", 1, "AIV", 8, &[], false),
        Op("a", "Add", 0, "AIV", 8, &["before:0"], true),
        Op("b", "Mul", 0, "AIV", 8, &["a:0"], true),
        Op("after", "Add", 1, "AIV", 8, &["b:0"], false),
    ];
    let ws = workspace(ops, "");
    let c = only_segment(&ws);
    let a = &c.sub_ops[0];
    let b = &c.sub_ops[1];
    assert_eq!(a.waits.len(), 1);
    assert_eq!(b.notifies.len(), 1);
    // a: ffts, 1 input + 1 output + workspace, then its wait lock; b's arguments follow
    assert_eq!((a.param_offset, a.waits[0].param), (1, 4));
    assert_eq!((b.param_offset, b.notifies[0].param), (5, 8));
    assert!(c.source.contains("WaitFunc<false>(param_base[4]);"));
    assert!(c.source.contains("NotifyFunc<false>(param_base[8]);"));
    assert!(c.source.contains("waits for op before"));
    assert!(c.source.contains("notifies op after"));
    assert!(
        c.source
            .contains("*reinterpret_cast<__gm__ uint64_t*>(param_base[4]) = 0;")
    );
    let wait_line = c
        .source
        .lines()
        .position(|l| l.contains("WaitFunc<false>(param_base[4])"))
        .unwrap();
    assert_eq!(c.origins()[wait_line], Origin::Event(a.id));
}

#[test]
fn the_line_map_leads_from_ops_to_their_calls_and_barriers() {
    let ws = workspace(TWO_AIV, "");
    let c = only_segment(&ws);
    assert_eq!(c.origins().len(), c.source.lines().count());
    let lines: Vec<&str> = c.source.lines().collect();
    let pows = ws.graph().find("pows").unwrap();
    let is_inf = ws.graph().find("is_inf").unwrap();
    let call = c.call_lines(pows).unwrap();
    assert!(
        lines[call.clone()]
            .iter()
            .any(|l| l.contains("pows__kernel0_middle(4);"))
    );
    assert!(lines[call.start].contains("begin func call of sub operator pows__kernel0"));
    for (line, text) in lines.iter().enumerate() {
        if text.contains("WaitPreTaskEndImpl") {
            assert_eq!(
                c.origins()[line],
                Origin::Barrier {
                    from: is_inf,
                    to: pows
                }
            );
        }
        if text.contains("pows__kernel0_middle(4)") || text.contains("is_inf__kernel0_middle(1)") {
            assert!(matches!(c.origins()[line], Origin::Op(_)));
        }
    }
    let sidecar = c.sidecar(ws.graph());
    assert_eq!(sidecar["kernel_type"], "MIX_AIV_1_0");
    assert_eq!(sidecar["block_dim"], 32);
    let barrier = sidecar["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["kind"] == "barrier")
        .unwrap();
    assert_eq!(
        (barrier["from"].as_str(), barrier["to"].as_str()),
        (Some("is_inf"), Some("pows"))
    );
    let first = barrier["first"].as_u64().unwrap() as usize;
    assert!(lines[first - 1].contains("begin inter ops barrier"));
}

#[test]
fn stream_fusion_on_two_streams_splits_cube_and_vector_functions() {
    let ops: &[Op] = &[
        Op("mm", "MatMulV2", 0, "AIC", 20, &[], true),
        Op("vec", "Add", 1, "AIV", 40, &[], true),
        Op("use", "Mul", 1, "AIV", 40, &["mm:0", "vec:0"], true),
    ];
    let c = code(ops, "stream-fusion=1");
    assert_eq!(c.form, Form::TwoStream);
    assert!(
        c.source
            .contains("__aicore__ inline void auto_gen_te_superkernel_sk_kernel_aic(void) {")
    );
    assert!(
        c.source
            .contains("__aicore__ inline void auto_gen_te_superkernel_sk_kernel_aiv(void) {")
    );
    // mm (cube) feeds use (vector): flag set after mm, waited for before use
    assert_eq!(
        count(
            &c,
            "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x02, AscendC::SYNC_AIC_AIV_FLAG));"
        ),
        1
    );
    assert_eq!(count(&c, "wait_flag_dev(AscendC::SYNC_AIC_AIV_FLAG);"), 1);
    assert_eq!(count(&c, "SetNextTaskStart"), 0);
    assert!(c.flags.iter().all(|f| !f.contains("EARLY_START")));
    insta::assert_snapshot!("codegen_two_stream", c.source);

    // the same graph without stream-fusion stays single-stream
    assert_eq!(code(ops, "").form, Form::SingleStream);
}

#[test]
fn a_cross_core_sync_implied_by_another_is_left_out() {
    let ops: &[Op] = &[
        Op("mm1", "MatMulV2", 0, "AIC", 8, &[], true),
        Op("mm2", "MatMulV2", 1, "AIC", 8, &[], true),
        Op("use1", "Add", 0, "AIV", 8, &["mm1:0"], true),
        Op("use2", "Add", 1, "AIV", 8, &["mm1:0", "mm2:0"], true),
    ];
    let ws = workspace(ops, "stream-fusion=1");
    let c = only_segment(&ws);
    let syncs = skope::codegen::dual::cross_core_syncs(ws.graph(), &c.sub_ops);
    // mm1 → use2 is implied: mm1 runs before mm2 on the cube, use1 before use2 on the vector
    let pairs: Vec<(usize, usize)> = syncs.iter().map(|s| (s.from, s.to)).collect();
    assert_eq!(pairs, [(0, 2), (1, 3)]);
    assert_eq!(count(&c, "wait_flag_dev(AscendC::SYNC_AIC_AIV_FLAG);"), 2);
}

#[test]
fn dumps_without_kernel_names_get_marked_placeholders() {
    let path = Path::new("assets/examples/moe_decode.pbtxt");
    let dump = load_file(path, Default::default()).unwrap();
    let format = dump.format;
    let ws = Workspace::new(dump.into_main(), format, "pbtxt", &RuleSet::bundled());
    let segment = &ws.plan().scopes[0].segments[0];
    let c = entry(ws.context(), segment);
    assert!(c.sub_ops.iter().all(|s| !s.symbol_from_dump));
    assert!(c.sub_ops[0].symbol.starts_with("placeholder_"));
    assert!(
        c.source
            .lines()
            .take(8)
            .any(|l| l.starts_with("// Placeholder symbols"))
    );
}

/// The host C++ compiler: `CXX`, else the first of c++, g++, clang++ that runs.
fn cxx() -> String {
    if let Ok(cxx) = std::env::var("CXX") {
        return cxx;
    }
    for candidate in ["c++", "g++", "clang++"] {
        if Command::new(candidate).arg("--version").output().is_ok() {
            return candidate.to_string();
        }
    }
    panic!("no C++ compiler found (set CXX): the generated code cannot be checked");
}

fn check_syntax(files: &[PathBuf]) {
    let cxx = cxx();
    for file in files {
        let out = Command::new(&cxx)
            .args(["-std=c++17", "-fsyntax-only", "-I", "assets/codegen"])
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} does not compile:\n{}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn every_segment_of_the_example_compiles_against_the_shim() {
    let dir = std::env::temp_dir().join(format!("skope-codegen-{}", std::process::id()));
    let mut files = Vec::new();
    for example in ["moe_decode.ge_proto.txt", "moe_decode.pbtxt"] {
        let path = Path::new("assets/examples").join(example);
        let dump = load_file(&path, Default::default()).unwrap();
        let format = dump.format;
        let ws = Workspace::new(dump.into_main(), format, example, &RuleSet::bundled());
        let codes: Vec<_> = ws
            .plan()
            .scopes
            .iter()
            .flat_map(|s| &s.segments)
            .map(|s| entry(ws.context(), s))
            .collect();
        assert!(codes.len() >= 10, "{example}: {} segments", codes.len());
        let out = dir.join(example);
        files.extend(skope::codegen::files::write_all(&out, &codes, ws.graph()).unwrap());
    }
    // every option at once, in both forms
    let all = "feed-sync-all=1:debug-dcci-all=1:debug-sync-all=1:profiling=1:split-mode=1:\
               preload-code=max:func-align=0:dcci-before-kernel-start=Pows:dcci-after-kernel-end=IsInf";
    let options = all.to_string();
    let c = code(TWO_AIV, &options);
    let single = dir.join("all_options.cpp");
    std::fs::write(&single, &c.source).unwrap();
    files.push(single);
    let c = code(TWO_AIV, "early-start=0:stream-fusion=1");
    let off = dir.join("early_start_off.cpp");
    std::fs::write(&off, &c.source).unwrap();
    files.push(off);
    check_syntax(&files);
    let _ = std::fs::remove_dir_all(&dir);
}
