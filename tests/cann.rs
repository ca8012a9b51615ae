//! An installed CANN's op information deciding verdicts: a hand-made `opp` directory laid out
//! as CANN 8.x lays it out (AI CPU kernel configs, AI Core op-info per SoC, implementation
//! entry files, a split package, a vendor), read for a graph's op types.

use skope::fusion::cann::CannInstall;
use skope::fusion::marks::Marks;
use skope::fusion::plan::{Context, plan};
use skope::fusion::rules::RuleConfig;
use skope::fusion::verdict::{Evidence, Verdict};
use skope::graph::Graph;
use skope::load;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes `text` to `root/rel`, making the directories.
fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// An AI CPU kernel config entry as CANN writes them.
fn ai_cpu_entry(op: &str, lib: &str) -> String {
    format!(
        r#""{op}": {{"input0": {{"name": "x", "type": "DT_FLOAT,DT_FLOAT16"}},
          "opInfo": {{"computeCost": "100", "engine": "DNN_VM_AICPU", "flagAsync": "False",
                     "flagPartial": "False", "opKernelLib": "{lib}", "subTypeOfInferShape": "3"}},
          "output0": {{"name": "y", "type": "DT_INT64"}}}}"#
    )
}

/// An AI Core op-info entry; `op_file` is left out when `None` (CANN then uses the snake-case
/// type name).
fn ai_core_entry(op: &str, op_file: Option<&str>) -> String {
    let file = op_file
        .map(|f| format!(r#""opFile": {{"value": "{f}"}}, "opInterface": {{"value": "{f}"}},"#))
        .unwrap_or_default();
    format!(
        r#""{op}": {{"dynamicShapeSupport": {{"flag": "true"}}, {file}
          "input0": {{"dtype": "float16,float", "format": "ND,ND", "name": "x", "paramType": "required"}},
          "output0": {{"dtype": "float16,float", "format": "ND,ND", "name": "y", "paramType": "required"}}}}"#
    )
}

const ASCENDC_PY: &str =
    "from tbe.tikcpp import compile_op, replay_op, check_op_cap, generalize_op_params, OpInfo\n";
const TIK_PY: &str =
    "from impl.util.platform_adapter import tik\n\ndef non_zero(x, y):\n    pass\n";
const TBE_PY: &str = "from impl.util.platform_adapter import tbe\nfrom tbe import dsl\n";

/// A fresh `opp` directory for test `name`.
fn opp(name: &str) -> PathBuf {
    let root = crate::common::scratch(&format!("cann-{name}")).join("opp");
    let aicpu = "built-in/op_impl/aicpu";
    put(
        &root,
        &format!("{aicpu}/aicpu_kernel/config/aicpu_kernel.json"),
        &format!(
            "{{{}, {}, {}}}",
            ai_cpu_entry("NonZero", "AICPUKernel"),
            ai_cpu_entry("Where", "AICPUKernel"),
            ai_cpu_entry("Relu", "AICPUKernel"),
        ),
    );
    put(
        &root,
        &format!("{aicpu}/tf_kernel/config/tf_kernel.json"),
        &format!("{{{}}}", ai_cpu_entry("Unique", "TFKernel")),
    );
    // A split package's AI CPU config, and a vendor's.
    put(
        &root,
        &format!("{aicpu}/config/aicpu_math.json"),
        &format!("{{{}}}", ai_cpu_entry("MathCpuOp", "CUSTAICPUKernel")),
    );
    put(
        &root,
        "vendors/config.ini",
        "# vendors\nload_priority=customize\n",
    );
    put(
        &root,
        "vendors/customize/op_impl/cpu/config/cust_aicpu_kernel.json",
        &format!("{{{}}}", ai_cpu_entry("SiteCpuOp", "CUSTAICPUKernel")),
    );
    let tbe = "built-in/op_impl/ai_core/tbe";
    put(
        &root,
        &format!("{tbe}/config/ascend910_93/aic-ascend910_93-ops-info.json"),
        &format!(
            "{{{}, {}, {}, {}}}",
            ai_core_entry("NonZero", Some("non_zero")),
            ai_core_entry("AddRmsNorm", Some("add_rms_norm")),
            ai_core_entry("Relu", None),
            ai_core_entry("MoeInitRoutingV2", Some("moe_init_routing_v2")),
        ),
    );
    put(
        &root,
        &format!("{tbe}/config/ascend910b/aic-ascend910b-ops-info-math.json"),
        &format!("{{{}}}", ai_core_entry("Cos", Some("cos"))),
    );
    put(&root, &format!("{tbe}/impl/dynamic/non_zero.py"), TIK_PY);
    put(
        &root,
        &format!("{tbe}/impl/dynamic/add_rms_norm.py"),
        ASCENDC_PY,
    );
    put(&root, &format!("{tbe}/impl/dynamic/relu.py"), TBE_PY);
    put(
        &root,
        &format!("{tbe}/impl/dynamic/moe_init_routing_v2.py"),
        ASCENDC_PY,
    );
    put(
        &root,
        &format!("{tbe}/impl/ops_math/dynamic/cos.py"),
        ASCENDC_PY,
    );
    root
}

/// A TorchAir GraphDef dump (no supportSuperKernel): one scope over ops of `types`.
fn dump(types: &[&str]) -> Graph {
    let mut text = String::from("name: \"g\"\n");
    for (i, ty) in types.iter().enumerate() {
        text += &format!(
            "op {{\n  name: \"op{i}\"\n  type: \"{ty}\"\n  attr {{ key: \"_super_kernel_scope\" value {{ s: \"s\" }} }}\n}}\n"
        );
    }
    load::load_bytes(Path::new("g.txt"), text.as_bytes())
        .unwrap()
        .into_main()
}

const TYPES: &[&str] = &[
    "AddRmsNorm",
    "NonZero",
    "Relu",
    "Unique",
    "Cos",
    "MathCpuOp",
    "SiteCpuOp",
    "Where",
    "MoeInitRoutingV2",
    "Unknown",
];

#[test]
fn an_installed_cann_decides_and_names_the_file_that_did() {
    let root = opp("decides");
    let install = CannInstall::at(&root).expect("an opp directory");
    let config = RuleConfig::new(&[], Some(install)).unwrap();
    let g = dump(TYPES);
    let (rules, problems) = config.for_graph(&g);
    assert!(problems.is_empty(), "{problems:?}");
    let cx = Context::new(g.clone(), &rules);
    let verdict = |ty: &str| {
        let id = g.ops().iter().position(|op| op.op_type == ty).unwrap();
        cx.verdicts().get(skope::graph::OpId(id as u32)).clone()
    };
    let code = |ty: &str| match verdict(ty).verdict {
        Verdict::Unsupported(r) => r.code(),
        Verdict::Fusible => "fusible",
        Verdict::Ignored => "ignored",
    };
    // AscendC AI Core kernels (the built-in store and a split package) fuse.
    assert_eq!(code("AddRmsNorm"), "fusible");
    assert_eq!(code("Cos"), "fusible");
    // An AI Core kernel in TIK or TBE does not, even when AI CPU has one too (GE prefers AI Core).
    assert_eq!(code("NonZero"), "not_ascendc");
    assert_eq!(code("Relu"), "not_ascendc");
    // AI CPU only: built-in, split package, vendor.
    for ty in ["Unique", "MathCpuOp", "SiteCpuOp", "Where"] {
        assert_eq!(code(ty), "ai_cpu", "{ty}");
    }
    // The facts about GE's pass stay above CANN's: the blacklist still holds.
    assert_eq!(code("MoeInitRoutingV2"), "blacklisted");
    // Types nobody knows are assumed, as before.
    assert_eq!(verdict("Unknown").evidence, Evidence::Assumed);
    // Every CANN verdict is rules evidence naming the file that decided.
    let relu = verdict("Relu");
    assert_eq!(relu.evidence, Evidence::Rules);
    assert!(
        relu.detail
            .contains("impl/dynamic/relu.py does not import tbe.tikcpp"),
        "{}",
        relu.detail
    );
    let unique = verdict("Unique");
    assert!(
        unique
            .detail
            .contains("tf_kernel/config/tf_kernel.json lists it (opKernelLib TFKernel)"),
        "{}",
        unique.detail
    );
    assert!(
        verdict("SiteCpuOp")
            .detail
            .contains("vendors/customize/op_impl/cpu/config/cust_aicpu_kernel.json"),
    );
    let cos = verdict("Cos");
    assert!(
        cos.detail
            .contains("impl/ops_math/dynamic/cos.py imports tbe.tikcpp"),
        "{}",
        cos.detail
    );
    // The plan cuts at every unsupported op.
    let p = plan(&cx, &Marks::from_graph(&g));
    assert_eq!(p.scopes[0].breaks.len(), 7);
    assert!(
        rules.files().iter().any(|f| f.starts_with("CANN ")),
        "{:?}",
        rules.files()
    );
}

#[test]
fn a_broken_cann_file_is_named_and_the_rest_still_counts() {
    let root = opp("broken");
    put(
        &root,
        "built-in/op_impl/aicpu/tf_kernel/config/tf_kernel.json",
        "{\"Unique\": {\"opInfo\": \n  [oops",
    );
    let config = RuleConfig::new(&[], CannInstall::at(&root)).unwrap();
    let g = dump(&["Unique", "Where"]);
    let (rules, problems) = config.for_graph(&g);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("tf_kernel.json:2:")
            && problems[0].contains("not an op-information file"),
        "{}",
        problems[0]
    );
    // Where still comes from the install; Unique falls back to the bundled list.
    assert!(
        rules
            .get("Where")
            .unwrap()
            .file
            .contains("aicpu_kernel.json"),
        "{:?}",
        rules.get("Where")
    );
    assert_eq!(
        rules.get("Unique").unwrap().file,
        "assets/rules/ai_cpu.json"
    );
}

#[test]
fn no_install_without_op_impl() {
    let empty = crate::common::scratch("cann-empty");
    assert_eq!(CannInstall::at(&empty), None);
    assert_eq!(CannInstall::at(Path::new("/nonexistent/opp")), None);
}

#[test]
fn report_reads_the_install_from_the_environment_unless_told_not_to() {
    let root = opp("env");
    let dir = root.parent().unwrap();
    let mut text = String::from("name: \"g\"\n");
    for (name, ty) in [("a", "AddRmsNorm"), ("r", "Relu"), ("b", "AddRmsNorm")] {
        text += &format!(
            "op {{\n  name: \"{name}\"\n  type: \"{ty}\"\n  attr {{ key: \"_super_kernel_scope\" value {{ s: \"s\" }} }}\n}}\n"
        );
    }
    let file = dir.join("g.txt");
    std::fs::write(&file, text).unwrap();
    let run = |extra: &[&str], home: Option<&Path>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_skope"));
        cmd.arg("report")
            .arg(&file)
            .args(extra)
            .env_remove("ASCEND_OPP_PATH")
            .env_remove("ASCEND_HOME_PATH");
        if let Some(home) = home {
            cmd.env("ASCEND_HOME_PATH", home);
        }
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // ASCEND_HOME_PATH/opp is the install: Relu is TBE there, so it splits the scope.
    let with = run(&[], Some(dir));
    assert!(with.contains("scope s: split"), "{with}");
    assert!(with.contains("✗ break r (Relu)"), "{with}");
    assert!(with.contains(&format!("CANN {}", root.display())), "{with}");
    let without = run(&["--no-cann"], Some(dir));
    assert!(without.contains("scope s: fused"), "{without}");
    assert!(!without.contains("CANN "), "{without}");
}
