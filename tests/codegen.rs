//! The entry-code generator: the structure of the compiler's golden outputs (reference §5.6:
//! two AIV ops, `is_inf` on 32 cores then `pows` on 1), each option's effect, the two-stream
//! form, events, the line ↔ op map, and every segment of the bundled example compiling
//! against the shim header.

use skope::codegen::{EntryCode, Form, Origin, entry};
use skope::fusion::rules::RuleSet;
use skope::graph::{AttrValue, GraphBuilder, OpBuilder};
use skope::load::{Format, load_file};
use skope::own_files::Links;
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::process::Command;

/// An op of the test graph: name, type, stream, core type, block dim, inputs, in the scope.
pub(crate) struct Op(
    pub(crate) &'static str,
    pub(crate) &'static str,
    pub(crate) i64,
    pub(crate) &'static str,
    pub(crate) i64,
    pub(crate) &'static [&'static str],
    pub(crate) bool,
);

pub(crate) fn workspace(ops: &[Op], options: &str) -> Workspace {
    workspace_named(ops, options, "sk")
}

/// The graph of `ops`, its scoped ops in scope `scope` with `options`; an op without a core
/// type but with a dim gets the dim as its `event_id` (a Send or Recv).
fn workspace_named(ops: &[Op], options: &str, scope: &str) -> Workspace {
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
                op.attrs.insert(k, v);
            }
        }
        if core.is_empty() && matches!(*ty, "Send" | "Recv") {
            op.attrs.insert("event_id", AttrValue::Int(*dim));
        }
        if *scoped {
            op.attrs
                .insert("_super_kernel_scope", AttrValue::Str(scope.into()));
            op.attrs
                .insert("_super_kernel_options", AttrValue::Str(options.into()));
        }
        b.push(op);
    }
    Workspace::new(b.build(), Format::GeProtoText, "test", &RuleSet::bundled())
}

pub(crate) const TWO_AIV: &[Op] = &[
    Op("x", "Data", 0, "", 0, &[], false),
    Op("is_inf", "IsInf", 0, "AIV", 32, &["x:0"], true),
    Op("pows", "Pows", 0, "AIV", 1, &["is_inf:0", "x:0"], true),
];

pub(crate) fn only_segment(ws: &Workspace) -> EntryCode {
    let segments: Vec<_> = ws.plan().scopes.iter().flat_map(|s| &s.segments).collect();
    assert_eq!(segments.len(), 1, "one segment expected");
    entry(ws.context(), ws.kernel_meta(), segments[0])
}

fn code(ops: &[Op], options: &str) -> EntryCode {
    only_segment(&workspace(ops, options))
}

pub(crate) fn count(code: &EntryCode, text: &str) -> usize {
    code.source.matches(text).count()
}

/// A Send (after `from`) and its Recv (before the op that names it as an input) with GE's
/// event id: the ops of a Send/Recv pair as a dump after stream assignment has them.
fn send(name: &'static str, stream: i64, from: &'static str, event: i64) -> Op {
    Op(
        name,
        "Send",
        stream,
        "",
        event,
        leak(vec![format!("{from}:-1")]),
        false,
    )
}

fn recv(name: &'static str, stream: i64, send: &'static str, event: i64) -> Op {
    Op(
        name,
        "Recv",
        stream,
        "",
        event,
        leak(vec![format!("{send}:-1")]),
        false,
    )
}

fn leak(inputs: Vec<String>) -> &'static [&'static str] {
    let inputs: Vec<&'static str> = inputs
        .into_iter()
        .map(|s| &*Box::leak(s.into_boxed_str()))
        .collect();
    Box::leak(inputs.into_boxed_slice())
}

/// The line number (0-based) of the first line holding `text`, after line `from`.
pub(crate) fn line_of(code: &EntryCode, text: &str, from: usize) -> usize {
    code.source
        .lines()
        .enumerate()
        .skip(from)
        .find(|(_, l)| l.contains(text))
        .map(|(n, _)| n)
        .unwrap_or_else(|| panic!("no line with {text:?}:\n{}", code.source))
}

#[test]
fn default_options_give_the_golden_structure() {
    let c = code(TWO_AIV, "");
    assert_eq!(c.form, Form::SingleStream);
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIV_1_0");
    assert_eq!(c.kernel.block_dim, 32);
    // four split copies of each sub-kernel, declared once, in the compiler's form
    for split in ["", "_split1", "_split2", "_split3"] {
        let decl = format!(
            "extern \"C\"  __aicore__ void is_inf__kernel0_middle{split}(uint64_t args_offset);"
        );
        assert_eq!(count(&c, &decl), 1, "{decl}");
    }
    assert_eq!(
        count(
            &c,
            "extern \"C\"  __global__ __attribute__((aligned(512))) __aicore__ void auto_gen_te_superkernel_sk_kernel(void) {"
        ),
        1
    );
    // ffts at argument 0, is_inf's three arguments from 1, pows's from 4
    assert!(c.source.contains("GM_ADDR ffts_addr = param_base[0];"));
    assert!(c.source.contains("is_inf__kernel0_middle_split3(1);"));
    assert!(c.source.contains("pows__kernel0_middle(4);"));
    assert!(c.source.contains("  if (AscendC::GetBlockIdx() < 32) {"));
    assert!(
        c.source
            .contains("    //begin func call of sub operator pows__kernel0")
    );
    // AIV → AIV early start between the two ops, and no other barrier
    assert_eq!(count(&c, "// begin inter ops barrier"), 1);
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 5;"), 1);
    assert_eq!(count(&c, "AscendC::WaitPreTaskEndImpl<5>();"), 2);
    assert_eq!(count(&c, "AscendC::SetNextTaskStart();"), 1);
    assert_eq!(
        count(&c, "// AIV only, no complement early start set flag."),
        1
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
    assert!(c.source.contains(
        "K_TYPE_MIX_AIV_MAIN},    {{F_TYPE_MIX_TASK_RATION, sizeof(unsigned int)}, 0, 1} };"
    ));
    for flag in [
        "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START",
        "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
        "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2",
    ] {
        assert!(c.flags.contains(&flag.to_string()), "{flag}");
    }
    insta::assert_snapshot!("codegen_default_two_aiv", c.source);
}

#[test]
fn early_start_off_keeps_the_barrier_comment_before_the_full_sync() {
    let c = code(TWO_AIV, "early-start=0");
    assert_eq!(count(&c, "SetNextTaskStart"), 0);
    assert_eq!(count(&c, "g_super_kernel_early_start_config"), 0);
    let barrier = line_of(&c, "// begin inter ops barrier", 0);
    let reason = line_of(&c, "// reason2: inter op barrier when EarlyStartDisable", 0);
    let sync = line_of(
        &c,
        "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));",
        0,
    );
    assert!(barrier < reason && reason < sync, "{}", c.source);
    assert!(c.flags.iter().all(|f| !f.contains("EARLY_START")
        && !f.contains("TASK_START")
        && !f.contains("TASK_END")));
}

#[test]
fn func_align_preload_and_split_mode_change_their_lines() {
    let c = code(TWO_AIV, "func-align=256");
    assert_eq!(count(&c, "__attribute__((aligned(256)))"), 1);
    assert_eq!(count(&c, "aligned(512)"), 0);
    let c = code(TWO_AIV, "func-align=0");
    assert_eq!(count(&c, "__global__  __aicore__ void auto_gen_"), 1);

    let c = code(TWO_AIV, "preload-code=max");
    assert_eq!(count(&c, "AscendC::PreLoad(8);"), 1);
    assert_eq!(count(&c, "preload((const void *)"), 0);

    let c = code(TWO_AIV, "preload-code=none");
    assert_eq!(count(&c, "PreLoad"), 0);
    assert_eq!(count(&c, "preload("), 0);

    let c = code(TWO_AIV, "split-mode=1");
    assert_eq!(count(&c, "_split1"), 0);
    assert_eq!(count(&c, "get_coreid()"), 0);
    assert!(c.source.contains("      is_inf__kernel0_middle(1);"));

    let c = code(TWO_AIV, "split-mode=2");
    assert_eq!(count(&c, "(coreid % 2) == 0"), 4);
    assert_eq!(count(&c, "_split2"), 0);
}

#[test]
fn the_split_mode_1_guard_names_the_kernels_arch() {
    // A vector SuperKernel defines the run config on the vector cores, a cube one on the cube.
    let c = code(TWO_AIV, "split-mode=1");
    let guard = "#if (defined(__DAV_VEC__) && __NPU_ARCH__ == 2201)";
    assert_eq!(count(&c, guard), 1);
    let at = line_of(&c, guard, 0);
    assert!(
        c.source
            .lines()
            .nth(at + 1)
            .is_some_and(|l| l.contains("g_opSystemRunCfg = {0};"))
    );
    assert_eq!(count(&c, "__DAV_C220_CUBE__"), 0);
    let cube: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 24, &[], true),
        Op("b", "MatMulV2", 0, "AIC", 8, &["a:0"], true),
    ];
    let c = code(cube, "split-mode=1");
    assert_eq!(
        count(&c, "#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 2201)"),
        1
    );
}

#[test]
fn no_c310_cache_tail_closes_the_entry() {
    for options in ["", "stream-fusion=1"] {
        let c = code(TWO_AIV, options);
        assert_eq!(count(&c, "dsb("), 0);
        assert_eq!(count(&c, "dci();"), 0);
        assert_eq!(count(&c, "__DAV_C310__"), 0);
    }
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
fn feed_sync_all_and_profiling_read_the_argument_after_the_sub_ops() {
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
    // 32 blocks × 512 bytes, zeroed on the vector cores before the first sub-op
    assert!(
        c.source
            .contains("uint32_t sizePerCore = 16384 / get_block_num();")
    );
    assert!(
        c.flags
            .contains(&"-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__".to_string())
    );

    let c = code(TWO_AIV, "profiling=1");
    assert!(c.source.contains("GM_ADDR profilingPtr = param_base[8];"));
    assert!(
        c.source
            .contains("uint32_t taskId = *((__gm__ uint32_t*)(get_para_base() + 8 * 9));")
    );
    for record in [
        "RecordProfiling(0, 0, true);",
        "RecordProfiling(1, 0x8, true);",
        "RecordProfiling(1, 0x8, false);",
        "RecordProfiling(2, 0x8, true);",
        "RecordProfiling(2, 0x8, false);",
        "RecordProfiling(0, 0, false);",
    ] {
        assert_eq!(count(&c, record), 1, "{record}");
    }
    // Both: the compiler gives them the same argument, and skope says so.
    let c = code(TWO_AIV, "feed-sync-all=1:profiling=1");
    assert!(c.source.contains("GM_ADDR workspace = param_base[8];"));
    assert!(c.source.contains("GM_ADDR profilingPtr = param_base[8];"));
    assert!(c.notes.iter().any(|n| n.contains("both read argument 8")));
}

#[test]
fn cube_ops_and_mixed_kernels_pick_their_cores_and_configs() {
    let aic: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 24, &[], true),
        Op("b", "MatMulV2", 0, "AIC", 8, &["a:0"], true),
    ];
    let c = code(aic, "");
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 0;"), 1);
    assert!(c.source.contains("  if (get_block_idx() < 24) {"));
    assert!(
        c.source
            .contains("// AIC only, no complement early start set flag.")
    );
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
    // AIC → AIV is (0 << 2) | 1
    assert_eq!(count(&c, "g_super_kernel_early_start_config = 1;"), 1);
    let c = code(mixed, "early-start=0");
    assert_eq!(count(&c, "AscendC::SyncAll<false>();"), 1);
}

#[test]
fn a_task_ratio_of_one_to_zero_is_a_cube_only_mixed_kernel() {
    let with_ratio = |ratio: &[i64]| {
        let ws = workspace(
            &[
                Op("a", "FusedMatmul", 0, "MIX_AIC", 24, &[], true),
                Op("b", "FusedMatmul", 0, "MIX_AIC", 24, &["a:0"], true),
            ],
            "",
        );
        let ratio: Vec<AttrValue> = ratio.iter().map(|r| AttrValue::Int(*r)).collect();
        // Rebuilt with the ratio on both ops.
        let mut b = GraphBuilder::new("g");
        for (i, op) in ws.graph().ops().iter().enumerate() {
            let mut attrs = op.attrs.clone();
            if !ratio.is_empty() {
                attrs.insert("_task_ratio_cube_vector", AttrValue::List(ratio.clone()));
            }
            b.push(OpBuilder {
                name: op.name.clone(),
                op_type: op.op_type.clone(),
                topo_id: Some(i as i64),
                stream: Some(0),
                attrs,
                inputs: if i == 0 { vec![] } else { vec!["a:0".into()] },
                ..OpBuilder::default()
            });
        }
        let ws = Workspace::new(b.build(), Format::GeProtoText, "test", &RuleSet::bundled());
        only_segment(&ws)
    };
    let c = with_ratio(&[1, 0]);
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIC_1_0");
    assert_eq!(count(&c, "if ASCEND_IS_AIV {\n      if"), 0, "{}", c.source);
    assert_eq!(count(&c, "a__kernel0_middle_split3(1);"), 1);
    assert!(c.notes.iter().all(|n| !n.contains("Assumed MIX_AIC_1_2")));
    let c = with_ratio(&[1, 1]);
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIC_1_1");
    // Without a ratio 1:2 is assumed, and said.
    let c = with_ratio(&[]);
    assert_eq!(c.kernel.kernel_type.name(), "MIX_AIC_1_2");
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("Assumed MIX_AIC_1_2") && n.contains("_task_ratio_cube_vector"))
    );
}

#[test]
fn mixed_one_to_n_kernels_end_with_a_section_per_core_kind() {
    let mixed: &[Op] = &[
        Op("mm", "MatMulV2", 0, "AIC", 20, &[], true),
        Op("add", "Add", 0, "AIV", 40, &["mm:0"], true),
    ];
    let c = code(mixed, "");
    let cube = line_of(&c, "#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 2201)", 0);
    let vector = line_of(
        &c,
        "#if (defined(__DAV_VEC__) && __NPU_ARCH__ == 2201)",
        cube,
    );
    assert!(c.source.lines().nth(cube + 1).is_some_and(|l| {
        l.contains("te_superkernel_sk_mix_aic_section")
            && l.contains("K_TYPE_MIX_AIC_MAIN")
            && l.contains("1, 2} };")
    }));
    assert!(c.source.lines().nth(vector + 1).is_some_and(|l| {
        l.contains("te_superkernel_sk_mix_aiv_section")
            && l.contains("K_TYPE_MIX_AIC_MAIN")
            && l.contains("1, 2} };")
    }));
    assert_eq!(count(&c, "#if TILING_KEY_VAR == 0UL"), 2);
    assert!(
        c.source.trim_end().ends_with("#endif\n#endif\n#endif")
            || c.source.trim_end().ends_with("#endif")
    );
    let lines: Vec<&str> = c.source.lines().collect();
    assert_eq!(&lines[lines.len() - 3..], ["#endif", "#endif", "#endif"]);
}

#[test]
fn the_kernel_name_is_the_prefix_and_the_segment_without_a_doubled_underscore() {
    let mut ops: Vec<Op> = TWO_AIV
        .iter()
        .map(|o| Op(o.0, o.1, o.2, o.3, o.4, o.5, o.6))
        .collect();
    ops.truncate(3);
    let ws = workspace_named(&ops, "", "3d");
    let c = only_segment(&ws);
    assert_eq!(c.kernel_name, "te_superkernel_3d");
    assert_eq!(count(&c, "te_superkernel__"), 0);
}

#[test]
fn ops_that_launch_nothing_make_no_events() {
    // GE puts Data on stream -1; a data edge from it is not an event.
    let ops: &[Op] = &[
        Op("x", "Data", -1, "", 0, &[], false),
        Op("c", "Const", -1, "", 0, &[], false),
        Op("is_inf", "IsInf", 0, "AIV", 32, &["x:0"], true),
        Op("pows", "Pows", 0, "AIV", 1, &["is_inf:0", "c:0"], true),
        Op("out", "NetOutput", -1, "", 0, &["pows:0"], false),
    ];
    let c = code(ops, "");
    assert_eq!(count(&c, "WaitFunc<false>(param_base"), 0);
    assert_eq!(count(&c, "NotifyFunc<false>(param_base"), 0);
    assert!(c.source.contains("pows__kernel0_middle(4);"));
}

/// is_inf (stream 0) then pows (stream 1), the dump's Send/Recv pairs between them and ops
/// outside: `outside_in` sends 101 to pows, is_inf sends 100 to `outside_out`.
fn two_streams_with_events() -> Vec<Op> {
    vec![
        Op("x", "Data", -1, "", 0, &[], false),
        Op("outside_in", "Add", 2, "AIC", 8, &["x:0"], false),
        send("send_101", 2, "outside_in", 101),
        recv("recv_101", 1, "send_101", 101),
        Op("is_inf", "IsInf", 0, "AIC", 32, &["x:0"], true),
        send("send_100", 0, "is_inf", 100),
        Op(
            "pows",
            "Pows",
            1,
            "AIC",
            1,
            &["x:0", "x:0", "recv_101:-1"],
            true,
        ),
        recv("recv_100", 2, "send_100", 100),
        Op(
            "outside_out",
            "Add",
            2,
            "AIC",
            8,
            &["x:0", "recv_100:-1"],
            false,
        ),
    ]
}

#[test]
fn events_are_the_dumps_send_recv_pairs_with_their_ids() {
    let c = code(&two_streams_with_events(), "stream-fusion=1");
    let (is_inf, pows) = (&c.sub_ops[0], &c.sub_ops[1]);
    assert_eq!(
        is_inf.notifies.iter().map(|e| e.id).collect::<Vec<_>>(),
        [100]
    );
    assert_eq!(pows.waits.iter().map(|e| e.id).collect::<Vec<_>>(), [101]);
    assert!(
        c.source
            .contains("// kernel=is_inf__kernel0, ev=100, param_offset=4")
    );
    assert!(
        c.source
            .contains("// kernel=pows__kernel0, ev=101, param_offset=9")
    );
    assert!(c.notes.iter().any(|n| n.contains("Send/Recv pairs")));
}

#[test]
fn a_first_op_never_waits_and_a_last_op_never_notifies() {
    // The receive of the first sub-op and the send of the last belong to the SuperKernel node:
    // GE moves them there, so the code has neither, and the notes say so.
    let ops: Vec<Op> = vec![
        Op("x", "Data", -1, "", 0, &[], false),
        Op("before", "Add", 1, "AIV", 8, &["x:0"], false),
        send("s1", 1, "before", 7),
        recv("r1", 0, "s1", 7),
        Op("a", "Add", 0, "AIV", 8, &["x:0", "r1:-1"], true),
        Op("b", "Mul", 0, "AIV", 8, &["a:0"], true),
        send("s2", 0, "b", 8),
        recv("r2", 1, "s2", 8),
        Op("after", "Add", 1, "AIV", 8, &["x:0", "r2:-1"], false),
    ];
    let c = code(&ops, "");
    assert!(c.sub_ops[0].waits.is_empty() && c.sub_ops[1].notifies.is_empty());
    assert_eq!(count(&c, "WaitFunc<false>(param_base"), 0);
    assert_eq!(count(&c, "NotifyFunc<false>(param_base"), 0);
    assert!(c.notes.iter().any(|n| n.contains("GE moves them there")));
}

#[test]
fn a_notify_comes_after_the_barrier_in_the_next_ops_block() {
    let ops: Vec<Op> = vec![
        Op("x", "Data", -1, "", 0, &[], false),
        Op("a", "Add", 0, "AIV", 8, &["x:0"], true),
        send("s", 0, "a", 5),
        recv("r", 1, "s", 5),
        Op("outside", "Add", 1, "AIV", 8, &["x:0", "r:-1"], false),
        Op("b", "Mul", 0, "AIV", 8, &["a:0"], true),
    ];
    let c = code(&ops, "");
    let b_block = line_of(&c, "//begin func call of sub operator b__kernel0", 0);
    let barrier = line_of(&c, "// begin inter ops barrier", 0);
    let notify = line_of(&c, "NotifyFunc<false>(param_base[", 0);
    let b_call = line_of(&c, "b__kernel0_middle(", b_block);
    assert!(
        b_block < barrier && barrier < notify && notify < b_call,
        "{}",
        c.source
    );
}

#[test]
fn a_two_stream_wait_is_followed_by_a_full_sync_of_its_cores() {
    let c = code(&two_streams_with_events(), "stream-fusion=1");
    assert_eq!(c.form, Form::TwoStream);
    let wait = line_of(&c, "WaitFunc<true>(param_base[9]);", 0);
    let comment = line_of(&c, "// reason3: for continues notify/wait event", wait);
    let sync = line_of(
        &c,
        "ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));",
        comment,
    );
    let call = line_of(&c, "pows__kernel0_middle(5);", sync);
    assert!(wait < comment && comment < sync && sync < call);
}

#[test]
fn a_wait_lock_is_reset_on_block_0_of_the_core_kind_that_waited() {
    let c = code(&two_streams_with_events(), "stream-fusion=1");
    assert!(c.source.contains(
        "    if ASCEND_IS_AIC {\n        if (get_block_idx() == 0) {\n            *(reinterpret_cast<__gm__ uint64_t*>(param_base[9])) = 0;\n        }\n    }\n"
    ), "{}", c.source);
}

#[test]
fn the_order_within_a_stream_is_a_same_core_sync_in_the_two_stream_form() {
    // a and b on stream 0 (cube), v on stream 1: b follows a on its stream, a link of the
    // same core kind that the compiler turns into a full cube sync, not a pipe barrier.
    let ops: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 8, &[], true),
        Op("v", "Add", 1, "AIV", 8, &[], true),
        Op("b", "MatMulV2", 0, "AIC", 8, &["a:0"], true),
    ];
    let c = code(ops, "stream-fusion=1");
    assert_eq!(c.form, Form::TwoStream);
    assert!(c.source.contains(
        "// sync all C->C kernel_name:a__kernel0, send_info:{'b__kernel0_2': 'cub:cub'}"
    ));
    assert_eq!(count(&c, "pipe_barrier(PIPE_ALL);"), 0, "{}", c.source);
    // Two cube ops on different streams with no link: a pipe barrier between them.
    let ops: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 8, &[], true),
        Op("b", "MatMulV2", 1, "AIC", 8, &[], true),
    ];
    let c = code(ops, "stream-fusion=1");
    assert_eq!(
        count(
            &c,
            "    // insert pipe all for ops\n       pipe_barrier(PIPE_ALL);"
        ),
        1,
        "{}",
        c.source
    );
}

#[test]
fn events_between_sub_ops_keep_their_lock_arguments_and_get_no_code() {
    // Four sub-ops on streams 0, 1, 0, 1 (cube, vector, cube, vector): event 100 from the
    // first to the last is inner (no notify, no wait) but holds a slot in each; 101 goes from
    // the third back to the second and is notified and waited for like an outside one.
    let ops: Vec<Op> = vec![
        Op("x", "Data", -1, "", 0, &[], false),
        Op("c1", "IsInf", 0, "AIC", 32, &["x:0"], true),
        send("s100", 0, "c1", 100),
        recv("r101", 1, "s101", 101),
        Op("v1", "Pows", 1, "AIV", 1, &["x:0", "x:0", "r101:-1"], true),
        Op("c2", "IsInf", 0, "AIC", 32, &["x:0"], true),
        send("s101", 0, "c2", 101),
        recv("r100", 1, "s100", 100),
        Op("v2", "Pows", 1, "AIV", 1, &["x:0", "x:0", "r100:-1"], true),
    ];
    let c = code(&ops, "stream-fusion=1");
    let offsets: Vec<usize> = c.sub_ops.iter().map(|s| s.param_offset).collect();
    assert_eq!(
        offsets,
        [1, 5, 10, 14],
        "three and four arguments, plus one lock per event"
    );
    assert!(c.sub_ops[0].notifies[0].inner && c.sub_ops[3].waits[0].inner);
    assert_eq!(count(&c, "ev=100"), 0);
    assert!(c.source.contains("NotifyFunc<true>(param_base[13]);"));
    // c1 → v2 (event 100) is implied by c2 → v1 ... and dropped: one cube → vector flag is set.
    assert_eq!(
        count(&c, "GetffstMsg(0x02, AscendC::SYNC_AIC_AIV_FLAG)"),
        1,
        "{}",
        c.source
    );
}

#[test]
fn two_stream_preloads_follow_each_cores_list() {
    let ops: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 8, &[], true),
        Op("v", "Add", 1, "AIV", 8, &[], true),
        Op("b", "MatMulV2", 0, "AIC", 8, &["a:0"], true),
    ];
    let c = code(ops, "stream-fusion=1");
    // The cube function preloads a and then b (its next), the vector function v only.
    let aic = line_of(&c, "_kernel_aic(void) {", 0);
    let aiv = line_of(&c, "_kernel_aiv(void) {", aic);
    let in_aic = &c.source.lines().collect::<Vec<_>>()[aic..aiv].join("\n");
    assert_eq!(
        in_aic
            .matches("preload((const void *)a__kernel0_middle, 2);")
            .count(),
        1
    );
    assert_eq!(
        in_aic
            .matches("preload((const void *)b__kernel0_middle, 2);")
            .count(),
        1
    );
    assert_eq!(
        in_aic
            .matches("preload((const void *)v__kernel0_middle")
            .count(),
        0
    );
}

#[test]
fn profiling_and_feed_sync_all_stay_in_the_two_stream_form() {
    let ops: &[Op] = &[
        Op("a", "MatMulV2", 0, "AIC", 8, &[], true),
        Op("b", "MatMulV2", 1, "AIC", 8, &[], true),
    ];
    let c = code(ops, "stream-fusion=1:profiling=1");
    assert_eq!(c.form, Form::TwoStream);
    assert!(c.source.contains("GM_ADDR profilingPtr = param_base["));
    assert_eq!(count(&c, "RecordProfiling(1, 0x8, true);"), 1);
    assert_eq!(count(&c, "RecordProfiling(2, 0x8, false);"), 1);
    assert_eq!(count(&c, "RecordProfiling(0, 0, true);"), 1);
    let c = code(ops, "stream-fusion=1:feed-sync-all=1");
    assert!(c.source.contains("GM_ADDR workspace = param_base["));
    assert_eq!(
        count(&c, "AscendC::g_superKernelAutoSyncAllEnable = false;"),
        2
    );
}

#[test]
fn stream_fusion_on_two_unlinked_streams_splits_cube_and_vector_functions() {
    let ops: &[Op] = &[
        Op("mm", "MatMulV2", 0, "AIC", 20, &[], true),
        Op("vec", "Add", 1, "AIV", 40, &[], true),
        Op("use", "Mul", 1, "AIV", 40, &["mm:0", "vec:0"], true),
    ];
    let c = code(ops, "stream-fusion=1");
    assert_eq!(c.form, Form::TwoStream);
    for core in ["aic", "aiv"] {
        assert!(c.source.contains(&format!(
            "__aicore__ inline void auto_gen_te_superkernel_sk_kernel_{core}(void) {{"
        )));
        assert!(c.source.contains(&format!(
            "        auto_gen_te_superkernel_sk_kernel_{core}();"
        )));
    }
    assert_eq!(count(&c, "SetNextTaskStart"), 0);
    assert_eq!(count(&c, "// begin inter ops barrier"), 0);
    assert!(c.flags.iter().all(|f| !f.contains("EARLY_START")));
    insta::assert_snapshot!("codegen_two_stream", c.source);
    // mm feeds use across streams with no Send/Recv in this dump: no flag, and the notes say
    // the events are missing
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("without a Send/Recv pair"))
    );
    // without stream-fusion it stays single-stream, and the compiler's refusal is said
    let c = code(ops, "");
    assert_eq!(c.form, Form::SingleStream);
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("more than 2 real stream"))
    );
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
    assert!(lines[call.start + 1].contains("// skope: op pows (Pows)"));
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
fn dumps_without_kernel_names_get_marked_placeholders() {
    let path = Path::new("assets/examples/moe_decode.pbtxt");
    let dump = load_file(path, Default::default()).unwrap();
    let format = dump.format;
    let ws = Workspace::new(dump.into_main(), format, "pbtxt", &RuleSet::bundled());
    let segment = &ws.plan().scopes[0].segments[0];
    let c = entry(ws.context(), ws.kernel_meta(), segment);
    assert!(c.sub_ops.iter().all(|s| !s.symbol_from_dump));
    assert!(c.sub_ops[0].symbol.starts_with("placeholder_"));
    assert!(
        c.source
            .lines()
            .take(8)
            .any(|l| l.starts_with("// skope: Placeholder symbols"))
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
    let dir = crate::common::scratch("codegen");
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
            .map(|s| entry(ws.context(), ws.kernel_meta(), s))
            .collect();
        assert!(codes.len() >= 10, "{example}: {} segments", codes.len());
        let out = dir.join(example);
        files.extend(
            skope::codegen::files::write_all(&out, Links::Follow, &codes, ws.graph()).unwrap(),
        );
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
