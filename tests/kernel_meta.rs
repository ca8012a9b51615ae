//! What a compile's kernel_meta gives the generator: the op-info reader on real-shaped files
//! (BOM, nulls, 0/1 flags, other JSON beside them) and on bad ones, and the facts an op-info
//! replaces in the entry code (names, symbols per core, argument counts, early-start, dcci and
//! sync-all flags), with the compiler's stops said in the notes.

use crate::codegen::{Op, TWO_AIV, count, only_segment, workspace};
use serde_json::{Value, json};
use skope::kernel_meta::{KernelMeta, read_op_info};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An op-info JSON as the compiler's sub-kernel build writes it (fields it ignores included).
fn op_info(kernel: &str, kernel_type: &str, block_dim: u64, params: usize) -> Value {
    let symbol = format!("{kernel}__kernel0_middle");
    let entry =
        json!({ "func_name": symbol, "obj_files": format!("/build/kernel_meta/{kernel}.o") });
    json!({
        "binFileName": kernel,
        "binFileSuffix": ".o",
        "blockDim": block_dim,
        "coreType": "VectorCore",
        "kernelName": format!("{kernel}__kernel0"),
        "magic": "RT_DEV_BINARY_MAGIC_ELF_AIVEC",
        "parameters": [null, null],
        "workspace": { "num": 1, "size": [33554432], "type": [0] },
        "supportSuperKernel": 1,
        "sub_operator_params": (0..params).map(|i| format!("arg{i}")).collect::<Vec<_>>(),
        "sub_operator_kernel_type": kernel_type,
        "sub_operator_kernel_name": { "AiCore": entry, "dav-c220-vec": entry, "dav-c220-cube": entry },
        "sub_operator_early_start_set_flag": false,
        "sub_operator_early_start_wait_flag": false,
        "sub_operator_call_dcci_before_kernel_start": false,
        "sub_operator_call_dcci_after_kernel_end": false,
        "sub_op_with_sync_all": false,
        "split_mode": 4,
    })
}

fn set(info: &mut Value, key: &str, value: Value) {
    info.as_object_mut()
        .expect("an object")
        .insert(key.into(), value);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the fixture");
    path
}

fn pretty(info: &Value) -> String {
    serde_json::to_string_pretty(info).expect("serialise")
}

/// An entry source with the compiler's marks for `calls`.
fn source(kernel: &str, calls: &[&str]) -> String {
    let mut text = format!(
        "#include \"kernel_operator.h\"\nextern \"C\"  __global__ __aicore__ void \
         auto_gen_{kernel}_kernel(void) {{\n"
    );
    for call in calls {
        text.push_str(&format!(
            "    //begin func call of sub operator {call}\n    {call}_middle(1);\n"
        ));
    }
    text.push_str("}\n");
    text
}

/// The TWO_AIV workspace with `infos` read from a kernel_meta directory.
fn with_meta(options: &str, infos: &[(&str, Value)]) -> skope::workspace::Workspace {
    let dir = crate::common::scratch("kernel-meta");
    for (name, info) in infos {
        write(&dir, name, &pretty(info));
    }
    let mut ws = workspace(TWO_AIV, options);
    let meta = KernelMeta::read(&[dir]).expect("read kernel_meta");
    assert!(meta.problems.is_empty(), "{:?}", meta.problems);
    ws.set_kernel_meta(Arc::new(meta));
    ws
}

#[test]
fn a_kernel_meta_directory_gives_op_infos_sources_and_problems() {
    let dir = crate::common::scratch("kernel-meta-dir");
    // A BOM, nulls for the optional flags and 0/1 numbers for the others, as older writers do.
    let mut is_inf = op_info("is_inf", "KERNEL_TYPE_AIV_ONLY", 32, 3);
    set(
        &mut is_inf,
        "sub_operator_early_start_set_flag",
        Value::Null,
    );
    set(
        &mut is_inf,
        "sub_operator_call_dcci_before_kernel_start",
        json!(1),
    );
    set(&mut is_inf, "split_mode", Value::Null);
    write(&dir, "is_inf.json", &format!("\u{feff}{}", pretty(&is_inf)));
    let mut pows = op_info("pows", "KERNEL_TYPE_MIX_AIC_1_1", 24, 4);
    set(
        &mut pows,
        "sub_operator_call_dcci_disable_on_kernel",
        json!(true),
    );
    set(
        &mut pows,
        "sub_operator_call_dcci_after_kernel_end",
        json!(true),
    );
    let vec_entry = json!({ "func_name": "pows__kernel0_mix_aiv" });
    pows["sub_operator_kernel_name"]["dav-c220-vec"] = vec_entry;
    write(&dir, "pows.json", &pretty(&pows));
    // JSON of another kind beside them is passed over; a broken one is a problem.
    write(&dir, "fusion_result.json", r#"{"graph_fusion": {}}"#);
    write(
        &dir,
        "broken.json",
        "{\n  \"blockDim\": 32,\n  \"kernelName\": \"x",
    );
    write(&dir, "notes.txt", "not read");
    write(
        &dir,
        "te_superkernel_5f3a_12_kernel.cpp",
        &source("te_superkernel_5f3a", &["is_inf__kernel0", "pows__kernel0"]),
    );

    let meta = KernelMeta::read(std::slice::from_ref(&dir)).expect("read");
    assert_eq!(meta.op_infos.len(), 2);
    let info = meta.op_info("is_inf").expect("by _kernelname");
    assert_eq!(info.kernel_name, "is_inf__kernel0");
    assert_eq!(info.block_dim, 32);
    assert_eq!(info.params, 3);
    assert_eq!(info.symbol, "is_inf__kernel0_middle");
    assert_eq!(info.vector_symbol, None);
    assert!(info.dcci_before && !info.dcci_after && !info.early_start_set);
    assert_eq!(info.split_mode, None);
    // A MIX_AIC_1_1 kernel calls its cube and vector symbols; dcci off on this kernel wins.
    let info = meta.op_info("pows__kernel0").expect("by kernelName");
    assert_eq!(info.kernel_type.name(), "MIX_AIC_1_1");
    assert_eq!(info.vector_symbol.as_deref(), Some("pows__kernel0_mix_aiv"));
    assert!(!info.dcci_after);
    assert!(meta.op_info("pow").is_none());

    assert_eq!(meta.problems.len(), 1, "{:?}", meta.problems);
    let problem = meta.problems[0].to_string();
    assert!(problem.contains("broken.json:3:"), "{problem}");
    assert!(problem.contains("not valid JSON"), "{problem}");

    assert_eq!(meta.sources.len(), 1);
    assert_eq!(meta.sources[0].kernel_name, "te_superkernel_5f3a");
    let calls = ["pows__kernel0".to_string(), "is_inf__kernel0".to_string()];
    assert_eq!(
        meta.sources_for(&calls).len(),
        1,
        "calls match as a multiset"
    );
    assert!(meta.sources_for(&calls[..1]).is_empty());
}

#[test]
fn op_info_files_named_on_their_own_must_be_op_infos() {
    let dir = crate::common::scratch("kernel-meta-bad");
    let check = |name: &str, info: &Value, want: &str, line: usize| {
        let path = write(&dir, name, &pretty(info));
        let error = read_op_info(&path).expect_err(name).to_string();
        assert!(error.contains(want), "{name}: {error}");
        assert!(
            error.starts_with(&format!("{}:{line}:", path.display())),
            "{name}: {error}"
        );
        assert!(error.contains("hint:"), "{error}");
        // The same file given explicitly fails the whole read.
        assert!(KernelMeta::read(&[path]).is_err());
    };
    let good = op_info("k", "KERNEL_TYPE_AIV_ONLY", 8, 2);
    let line_of = |key: &str| {
        pretty(&good)
            .lines()
            .position(|l| l.contains(&format!("\"{key}\"")))
            .expect("key")
            + 1
    };

    let mut info = good.clone();
    info.as_object_mut().expect("object").remove("blockDim");
    let path = write(&dir, "no_dim.json", &pretty(&info));
    let error = read_op_info(&path).expect_err("no blockDim").to_string();
    assert!(error.contains("blockDim is missing"), "{error}");

    // A field of the wrong kind: the error points at it.
    let wrong = [
        (
            "blockDim",
            json!("32"),
            "blockDim is \"32\", not a whole number",
        ),
        (
            "sub_operator_kernel_type",
            json!("KERNEL_TYPE_MIX_AIC_2_1"),
            "is none of KERNEL_TYPE_AIV_ONLY",
        ),
        ("sub_operator_params", json!("x,y"), "not a list"),
        ("sub_op_with_sync_all", json!("yes"), "not true or false"),
    ];
    for (key, value, want) in wrong {
        let mut info = good.clone();
        set(&mut info, key, value);
        check(&format!("{key}.json"), &info, want, line_of(key));
    }

    // A MIX_AIC_1_2 kernel needs its cube and vector entries.
    let mut info = good.clone();
    set(
        &mut info,
        "sub_operator_kernel_type",
        json!("KERNEL_TYPE_MIX_AIC_1_2"),
    );
    info["sub_operator_kernel_name"] = json!({ "AiCore": { "func_name": "k__kernel0_middle" } });
    check(
        "mix.json",
        &info,
        "no dav-<chip> entry for a MIX_AIC_1_2 kernel",
        line_of("sub_operator_kernel_name"),
    );

    // JSON of another kind, an entry source without an entry, a file that is not there.
    let other = write(&dir, "fusion_result.json", "{\"a\": 1}");
    assert_eq!(read_op_info(&other).map(|i| i.is_none()).ok(), Some(true));
    let error = KernelMeta::read(&[other])
        .expect_err("not op-info")
        .to_string();
    assert!(error.contains("no sub_operator_kernel_type"), "{error}");
    let cpp = write(&dir, "te_superkernel_x_kernel.cpp", "int main() {}\n");
    let error = KernelMeta::read(&[cpp]).expect_err("no entry").to_string();
    assert!(error.contains("no auto_gen_<name>_kernel entry"), "{error}");
    let error = KernelMeta::read(&[dir.join("gone.json")])
        .expect_err("missing")
        .to_string();
    assert!(error.contains("gone.json"), "{error}");
}

#[test]
fn op_infos_replace_names_symbols_and_argument_counts() {
    // is_inf's op-info has five arguments and its own symbol: pows reads from argument 6.
    let mut is_inf = op_info("is_inf", "KERNEL_TYPE_AIV_ONLY", 32, 5);
    is_inf["sub_operator_kernel_name"]["AiCore"]["func_name"] = json!("is_inf_tiled_middle");
    let ws = with_meta("", &[("is_inf.json", is_inf)]);
    let c = only_segment(&ws);
    assert_eq!(count(&c, "is_inf_tiled_middle(1);"), 1, "{}", c.source);
    assert_eq!(count(&c, "pows__kernel0_middle(6);"), 1, "{}", c.source);
    assert_eq!(
        count(&c, "//begin func call of sub operator is_inf__kernel0"),
        1
    );
    // The sidecar says which op-info each sub-op's facts came from.
    let sidecar = c.sidecar(ws.graph());
    let described = sidecar["sub_ops"][0]["op_info"]
        .as_str()
        .unwrap_or_default();
    assert!(described.ends_with("is_inf.json"), "{sidecar}");
    assert!(sidecar["sub_ops"][1]["op_info"].is_null());
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("of is_inf come from their op-info")),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("No op-info in kernel_meta for pows")),
        "{:?}",
        c.notes
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("Inferred, for sub-ops without op-info"))
    );

    // Without kernel_meta the note says where the real facts would come from.
    let c = only_segment(&workspace(TWO_AIV, ""));
    assert_eq!(count(&c, "pows__kernel0_middle(4);"), 1);
    assert!(c.notes.iter().any(|n| n.contains("--kernel-meta DIR")));
}

#[test]
fn op_info_flags_guard_complements_and_flush_caches() {
    let mut is_inf = op_info("is_inf", "KERNEL_TYPE_AIV_ONLY", 32, 3);
    set(
        &mut is_inf,
        "sub_operator_early_start_set_flag",
        json!(true),
    );
    set(
        &mut is_inf,
        "sub_operator_call_dcci_before_kernel_start",
        json!(true),
    );
    let mut pows = op_info("pows", "KERNEL_TYPE_AIV_ONLY", 1, 4);
    set(&mut pows, "sub_operator_early_start_wait_flag", json!(true));
    set(
        &mut pows,
        "sub_operator_call_dcci_after_kernel_end",
        json!(true),
    );
    let ws = with_meta("", &[("is_inf.json", is_inf), ("pows.json", pows)]);
    let c = only_segment(&ws);
    // The set complement of is_inf runs only on the cores it leaves idle.
    assert_eq!(
        count(
            &c,
            "if (AscendC::GetBlockIdx() >= 32) {\n            AscendC::SetNextTaskStart();"
        ),
        1,
        "{}",
        c.source
    );
    assert_eq!(count(&c, "// option: dcci-before-kernel-start"), 1);
    assert_eq!(count(&c, "// option: dcci-after-kernel-end"), 1);
}

#[test]
fn a_sync_all_kernel_on_fewer_cores_feeds_the_sync_all_workspace() {
    // The SuperKernel runs 32 blocks: pows on 1 needs its SyncAll fed, is_inf on all 32 not.
    let mut is_inf = op_info("is_inf", "KERNEL_TYPE_AIV_ONLY", 32, 3);
    set(&mut is_inf, "sub_op_with_sync_all", json!(true));
    let mut pows = op_info("pows", "KERNEL_TYPE_AIV_ONLY", 1, 4);
    set(&mut pows, "sub_op_with_sync_all", json!(true));
    let infos = [("is_inf.json", is_inf), ("pows.json", pows)];
    let c = only_segment(&with_meta("feed-sync-all=1", &infos));
    // One end per split copy of pows, the complement on the other cores.
    assert_eq!(
        count(&c, "AscendC::SuperKernelAutoSyncAllEndImpl();"),
        4,
        "{}",
        c.source
    );
    assert_eq!(
        count(&c, "AscendC::SuperKernelAutoSyncAllComplementImpl();"),
        1
    );
    assert_eq!(
        count(&c, "AscendC::g_superKernelAutoSyncAllEnable = true;"),
        1
    );
    assert_eq!(
        count(&c, "AscendC::g_superKernelAutoSyncAllEnable = false;"),
        1
    );
    // Without feed-sync-all the flag changes nothing.
    let c = only_segment(&with_meta("", &infos));
    assert_eq!(count(&c, "SuperKernelAutoSyncAll"), 0);
}

#[test]
fn op_infos_the_compiler_would_refuse_are_said() {
    let mut is_inf = op_info("is_inf", "KERNEL_TYPE_AIV_ONLY", 32, 3);
    set(&mut is_inf, "split_mode", json!(2));
    set(
        &mut is_inf,
        "sub_operator_early_start_wait_flag",
        json!(true),
    );
    let c = only_segment(&with_meta("early-start=0", &[("is_inf.json", is_inf)]));
    let stops: Vec<_> = c
        .notes
        .iter()
        .filter(|n| n.starts_with("The compiler stops:"))
        .collect();
    assert_eq!(stops.len(), 2, "{:?}", c.notes);
    assert!(stops[0].contains("split_mode 2") && stops[0].contains("split-mode is 4"));
    assert!(stops[1].contains("early-start is 0"));

    // What skope does not generate is said, not hidden.
    let mut pows = op_info("pows", "KERNEL_TYPE_AIV_ONLY", 1, 4);
    pows["sub_operator_kernel_name"]["dynamic_func_names"] = json!({ "1": "pows_1_middle" });
    set(&mut pows, "debugOptions", json!("printf,assert"));
    let c = only_segment(&with_meta("", &[("pows.json", pows)]));
    let not_shown: Vec<_> = c
        .notes
        .iter()
        .filter(|n| n.starts_with("Not shown: pows__kernel0"))
        .collect();
    assert_eq!(not_shown.len(), 2, "{:?}", c.notes);
    assert!(not_shown[0].contains("dynamic-shape kernel"));
    assert!(not_shown[1].contains("dump area"));
}

#[test]
fn a_mixed_kernel_calls_its_cube_and_vector_symbols() {
    let ops: &[Op] = &[
        Op("x", "Data", 0, "", 0, &[], false),
        Op("mm", "MatMulV2", 0, "MIX_AIC", 24, &["x:0"], true),
        Op("add", "Add", 0, "AIV", 48, &["mm:0"], true),
    ];
    let mut mm = op_info("mm", "KERNEL_TYPE_MIX_AIC_1_1", 24, 3);
    mm["sub_operator_kernel_name"]["dav-c220-cube"]["func_name"] = json!("mm_mix_aic");
    mm["sub_operator_kernel_name"]["dav-c220-vec"]["func_name"] = json!("mm_mix_aiv");
    let dir = crate::common::scratch("kernel-meta-mix");
    write(&dir, "mm.json", &pretty(&mm));
    let mut ws = workspace(ops, "");
    ws.set_kernel_meta(Arc::new(KernelMeta::read(&[dir]).expect("read")));
    let c = only_segment(&ws);
    assert_eq!(c.sub_ops[0].kernel.kernel_type.name(), "MIX_AIC_1_1");
    assert!(count(&c, "mm_mix_aic(1);") >= 1, "{}", c.source);
    assert!(count(&c, "mm_mix_aiv(1);") >= 1, "{}", c.source);
    assert_eq!(count(&c, "mm__kernel0_middle"), 0);
}

#[test]
fn a_comparison_reads_the_prediction_with_the_compilers_kernel_name() {
    use skope::codegen::Origin;
    use skope::codegen::compare::{Change, calls, compare};
    let ws = workspace(TWO_AIV, "");
    let c = only_segment(&ws);
    let is_inf = ws.graph().ops().iter().position(|o| o.name == "is_inf");
    let is_inf = skope::graph::OpId(is_inf.expect("is_inf") as u32);
    // The compiler's file: its hash name, its own indentation, no notes, one line more after
    // is_inf's call.
    let mut text = String::new();
    for line in c.source.lines() {
        if line.trim_start().starts_with("// skope:") {
            continue;
        }
        text.push(' ');
        text.push_str(
            &line
                .trim_start()
                .replace(&c.kernel_name, "te_superkernel_0a1b"),
        );
        text.push('\n');
        if line.contains("is_inf__kernel0_middle_split3(1);") {
            text.push_str("pipe_barrier(PIPE_ALL);\n");
        }
    }
    let dir = crate::common::scratch("kernel-meta-compare");
    let path = write(&dir, "te_superkernel_0a1b_9_kernel.cpp", &text);
    let source = skope::kernel_meta::read_source(&path).expect("an entry source");
    assert_eq!(source.calls, calls(&c));
    let comparison = compare(&c, &source);
    assert_eq!(
        (comparison.predicted, comparison.written),
        (0, 1),
        "{:?}",
        comparison.summary()
    );
    let added = comparison
        .lines
        .iter()
        .find(|l| l.change == Change::Written)
        .expect("the added line");
    assert_eq!(added.text, "pipe_barrier(PIPE_ALL);");
    assert_eq!(added.origin, Origin::Op(is_inf));
    assert!(comparison.summary().contains("only in the compiler's"));
}

#[test]
fn the_older_and_newer_core_guards_compare_the_same() {
    use skope::codegen::compare::compare;
    let ws = workspace(TWO_AIV, "split-mode=1");
    let c = only_segment(&ws);
    let newer = "#if (defined(__DAV_VEC__) && __NPU_ARCH__ == 2201)";
    assert!(c.source.contains(newer), "{}", c.source);
    // An older compiler's file: the same code under the older guard.
    let text: String = c
        .source
        .lines()
        .filter(|line| !line.trim_start().starts_with("// skope:"))
        .map(|line| {
            line.replace(newer, "#if defined(__DAV_C220_VEC__)")
                .replace(&c.kernel_name, "te_superkernel_0a1b")
                + "\n"
        })
        .collect();
    let dir = crate::common::scratch("kernel-meta-guards");
    let path = write(&dir, "te_superkernel_0a1b_9_kernel.cpp", &text);
    let source = skope::kernel_meta::read_source(&path).expect("an entry source");
    let comparison = compare(&c, &source);
    assert!(comparison.equal(), "{}", comparison.summary());
}

#[test]
fn a_compiled_superkernel_is_held_against_the_predicted_segment() {
    use skope::kernel_meta::compiled::check;
    let ws = workspace(TWO_AIV, "");
    let segments: Vec<_> = ws.plan().scopes.iter().flat_map(|s| &s.segments).collect();
    let item = |f: &str, b: u64| {
        json!({"func_name": format!("{f}__kernel0"), "sub_operator_kernel_type": "KERNEL_TYPE_AIV_ONLY",
               "blockDim": b, "split_mode": 4, "streamid": 0})
    };
    let dir = crate::common::scratch("kernel-meta-compiled");
    for sub in ["new", "old"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    // The newer key style, as skope predicts it; the older one with a block dim that differs.
    let same = json!({"kernelName": "te_superkernel_aa", "blockDim": 32, "coreType": "MIX",
        "supportSuperKernel": 1,
        "SuperkernelInfo": {"kernelList": {"aicore": [item("is_inf", 32), item("pows", 1)]}}});
    write(
        &dir.join("new"),
        "te_superkernel_aa.json",
        &same.to_string(),
    );
    let older = json!({"kernelName": "te_superkernel_bb", "blockDim": 32,
        "SuperkernelInfo": {"kernelList": {"dav-c220-vec": [item("is_inf", 32), item("pows", 8)]}}});
    write(
        &dir.join("old"),
        "te_superkernel_bb.json",
        &older.to_string(),
    );
    for (sub, differences) in [("new", 0), ("old", 1)] {
        let meta = KernelMeta::read(&[dir.join(sub)]).expect("read");
        assert_eq!(meta.compiled.len(), 1, "{sub}");
        let checks = check(ws.context(), &meta.compiled, &segments);
        assert_eq!(checks.len(), 1, "{sub}");
        assert_eq!(checks[0].differences.len(), differences, "{:?}", checks[0]);
    }
    let meta = KernelMeta::read(&[dir.join("old")]).unwrap();
    let checks = check(ws.context(), &meta.compiled, &segments);
    assert_eq!(
        checks[0].differences[0],
        "pows: compiled with block dim 8, the dump says 1"
    );
}

#[test]
fn an_entry_built_for_another_target_than_the_plans_is_said() {
    let dir = crate::common::scratch("kernel-meta-target");
    let guarded = |arch: u32| {
        let text = source("te_superkernel_ab12", &["is_inf__kernel0"]);
        format!("#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == {arch})\n#endif\n{text}")
    };
    let path = write(&dir, "te_superkernel_ab12_kernel.cpp", &guarded(3510));
    let mut ws = workspace(TWO_AIV, "");
    let problems = skope::open::use_kernel_meta(&mut ws, std::slice::from_ref(&path)).unwrap();
    let [said] = problems.as_slice() else {
        panic!("one problem expected: {problems:?}")
    };
    assert!(
        said.contains("the compiler built this entry for dav-3510 (Ascend 950")
            && said.contains("but the plan is for dav-2201 (Atlas A2/A3), assumed")
            && said.ends_with("give --target dav-3510"),
        "{said}"
    );
    // Built for the plan's target: nothing to say.
    let path = write(&dir, "te_superkernel_ab12_kernel.cpp", &guarded(2201));
    let problems = skope::open::use_kernel_meta(&mut ws, &[path]).unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}
