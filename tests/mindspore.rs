//! MindSpore graph kernel fusion: `.ir` text in the 2.x and 1.x shapes and composite JSON with
//! every field kind, read into graphs whose composites are segments and whose kernels left out
//! are breaks with their reasons; a directory of composites; bad input with its place; the
//! bundled example against hand-checked expectations.

use crate::common::{example_arg, example_path, scratch, skope};
use skope::fusion::plan::{BreakReason, ScopeStatus};
use skope::fusion::verdict::{Evidence, Reason, Verdict};
use skope::graph::{Graph, Input};
use skope::load::{Format, LoadErrorKind, LoadOptions, load_file};
use skope::open::{Input as OpenInput, open};
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};

/// MindSpore 2.x IR after the graph kernel passes: a fused Add+Mul called from the kernel
/// graph, then a MatMul (level 1), a Softmax (not clusterable), a fused Sub+Exp whose
/// result is read through TupleGetItem, an Exp with a dynamic shape and a lone Neg; two types
/// lines per node (host, then device), `# In file` lines, a BOM-less CRLF-free text.
const IR_2X: &str = r#"# IR entry: @kernel_graph_1
# Total subgraphs: 3

# Attrs:
check_set_strategy_valid_once_only: 1

# Total params: 2
# Params:
%para1_x: <Tensor[Float32], (16, 32)> : []
%para2_y: <Tensor[Float32], (16, 32)> : []

Node counting information:
Total number of nodes: 14
Total number of cnodes: 9

subgraph attr:
graph_kernel: Add_Mul_fusion
composite_type: 
subgraph instance: kernel_graph_2 : 0x55d1
# In file net.py:12, 8~20/        y = self.mul(self.add(x, y), y)/
subgraph @kernel_graph_2(%para3_p0, %para4_p1) {
  %0(CNode_11) = PrimFunc_Add(%para3_p0, %para4_p1) primitive_attrs: {output_names: [output], input_names: [x, y]} cnode_attrs: {checkpoint: Bool(1)}
      : (<Tensor[Float32], (16, 32)>, <Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      : (<Tensor[Float32], (16, 32)>, <Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/Add-op1)
  %1(CNode_12) = PrimFunc_Mul(%0, %para4_p1)
      : (<Tensor[Float32], (16, 32)>, <Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/Mul-op2)
  Return(%1)
      : (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/Return-op3)
}

subgraph attr:
graph_kernel: Sub_Exp_fusion
subgraph instance: kernel_graph_3 : 0x55d2
subgraph @kernel_graph_3(%para5_p0) {
  %0(CNode_31) = Sub(%para5_p0, Tensor(shape=[], dtype=Float32, value=1))
      : (<Tensor[Float32], (16, 16)>, <Tensor[Float32], (), value=...>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/Sub-op21)
  %1(CNode_32) = Exp(%0)
      : (<Tensor[Float32], (16, 16)>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/Exp-op22)
  %2(CNode_33) = MakeTuple(%1, %0)
      : (<Tensor[Float32], (16, 16)>, <Tensor[Float32], (16, 16)>) -> (<Tuple[Tensor[Float32]*2]>)
      # Fullname with scope: (Default/MakeTuple-op23)
  Return(%2)
      : (<Tuple[Tensor[Float32]*2]>)
      # Fullname with scope: (Default/Return-op24)
}

subgraph attr:
subgraph instance: kernel_graph_1 : 0x55d0
subgraph @kernel_graph_1(%para1_x, %para2_y) {
  %0(CNode_20) = call @kernel_graph_2(%para1_x, %para2_y) cnode_attrs: {}
      : (<Tensor[Float32], (16, 32)>, <Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/GraphKernel_Add_Mul_fusion-op12)
      # In file net.py:12, 8~20/        y = self.mul(self.add(x, y), y)/
  %1(CNode_21) = PrimFunc_MatMul(%0, %para2_y) primitive_attrs: {transpose_a: Bool(0), transpose_b: Bool(1)}
      : (<Tensor[Float32], (16, 32)>, <Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/MatMul-op4)
      # In file net.py:13, 8~30/        z = self.matmul(y, w)/
  %2(CNode_22) = Softmax(%1) primitive_attrs: {axis: (-1)}
      : (<Tensor[Float32], (16, 16)>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/Softmax-op5)
  %3(CNode_23) = call @kernel_graph_3(%2)
      : (<Tensor[Float32], (16, 16)>) -> (<Tuple[Tensor[Float32]*2]>)
      # Fullname with scope: (Default/GraphKernel_Sub_Exp_fusion-op13)
  %4(CNode_24) = TupleGetItem(%3, I64(0))
      : (<Tuple[Tensor[Float32]*2]>, <Int64, NoShape>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/TupleGetItem-op6)
  %5(CNode_25) = Exp(%4)
      : (<Tensor[Float32], (16, 16)>) -> (<Tensor[Float32], (-1, 16)>)
      # Fullname with scope: (Default/Exp-op7)
  %6(CNode_26) = Neg(%5)
      : (<Tensor[Float32], (-1, 16)>) -> (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/Neg-op8)
  Return(%6)
      : (<Tensor[Float32], (16, 16)>)
      # Fullname with scope: (Default/Return-op9)
}
"#;

/// MindSpore 1.x IR: `#IR entry      : @`, bare primitive names with `{instance name: …}`,
/// `<Tensor[Float32]x(2, 3)>` types, `graph_kernel : name` and `# Scope:` comments.
const IR_1X: &str = r#"#IR entry      : @1_construct_wrapper.21
#attrs         :
#Total params  : 1

%para1_x : <Tensor[Float32]x(2, 3)>

#Total subgraph : 2

subgraph attr:
graph_kernel : Mul_Neg_fusion
subgraph @2_fused.22(%para2_p0) {
  %0([CNode]3) = Mul(%para2_p0, %para2_p0) {instance name: mul} primitive_attrs: {input_names: [x, y], output_names: [output]}
      : (<Tensor[Float32]x(2, 3)>, <Tensor[Float32]x(2, 3)>) -> (<Tensor[Float32]x(2, 3)>)
      # Scope: (Default/Mul-op1)
  %1([CNode]4) = Neg(%0) {instance name: neg}
      : (<Tensor[Float32]x(2, 3)>) -> (<Tensor[Float32]x(2, 3)>)
      # Scope: (Default/Neg-op2)
  Return(%1)
      : (<Tensor[Float32]x(2, 3)>)
}

subgraph attr:
subgraph @1_construct_wrapper.21(%para1_x) {
  %0([CNode]5) = call @2_fused.22(%para1_x)
      : (<Tensor[Float32]x(2, 3)>) -> (<Tensor[Float32]x(2, 3)>)
      # Scope: (Default/GraphKernel_Mul_Neg_fusion-op3)
  %1([CNode]6) = ReLU(%0) {instance name: relu}
      : (<Tensor[Float32]x(2, 3)>) -> (<Tensor[Float32]x(2, 3)>)
      # Scope: (Default/ReLU-op4)
  Return(%1)
      : (<Tensor[Float32]x(2, 3)>)
}
"#;

/// A composite JSON with every field kind: `attr` null and a list, an inline constant input,
/// a dynamic input (two tensors in one slot), `op_full_name` for a name cut with `_more`,
/// `target_info`, `parallel_fusion` (unknown to skope, passed over), key order as written.
const COMPOSITE: &str = r#"{"composite": true, "composite_graph": "seg_trans__anonymous__513", "id": 0,
 "input_desc": [[{"data_type":"int32","format":"DefaultFormat","shape":[1,1],"tensor_name":"input_0"}],
                [{"data_type":"float32","format":"DefaultFormat","shape":[1,1536],"tensor_name":"input_3"}],
                [{"data_type":"float32","format":"DefaultFormat","shape":[1,1536],"tensor_name":"input_4"}]],
 "op": "Fused_Cast_Mul_AddN_more_123",
 "op_full_name": "Fused_Cast_Mul_AddN_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_fusion_123",
 "op_desc": [
  {"attr":[{"data_type":"bool","name":"is_backend_cast","value":false},{"data_type":"listInt","name":"axis","value":[0,1]}],
   "impl_path":"",
   "input_desc":[[{"data_type":"int32","format":"DefaultFormat","name":"input_0","shape":[1,1],"tensor_name":"input_0"}],
                 [{"data_type":"int64","format":"DefaultFormat","name":"input_1","shape":[1],"tensor_name":"input_1","value":43}]],
   "name":"Cast",
   "output_desc":[{"data_type":"float32","format":"DefaultFormat","name":"output_0","shape":[1,1],"tensor_name":"output_0_0"}],
   "ptr_address":"Default/network-Net/Cast-op8_1207913"},
  {"attr":null, "impl_path":"",
   "input_desc":[[{"data_type":"float32","format":"DefaultFormat","name":"input_0","shape":[1,1],"tensor_name":"output_0_0"}],
                 [{"data_type":"float32","format":"DefaultFormat","name":"input_1","shape":[1,1536],"tensor_name":"input_3"}]],
   "name":"Mul",
   "output_desc":[{"data_type":"float32","format":"DefaultFormat","name":"output_0","shape":[1,1536],"tensor_name":"output_0_1"}],
   "ptr_address":"Default/network-Net/time_proj-Timesteps/Mul-op1_1207915"},
  {"attr":null, "impl_path":"",
   "input_desc":[[{"data_type":"float32","format":"DefaultFormat","name":"input_0","shape":[1,1536],"tensor_name":"output_0_1"},
                  {"data_type":"float32","format":"DefaultFormat","name":"input_1","shape":[1,1536],"tensor_name":"input_4"}]],
   "name":"AddN",
   "output_desc":[{"data_type":"float32","format":"DefaultFormat","name":"output_0","shape":[1,1536],"tensor_name":"output_0_2"}]}],
 "output_desc": [{"data_type":"float32","format":"DefaultFormat","shape":[1,1536],"tensor_name":"output_0_2"}],
 "parallel_fusion": {"fusion_type": "block_fusion", "type_info": [], "sub_graph": [], "core_num": 0},
 "platform": "AKG_V2", "process": "aicore", "target_info": {"arch": "Ascend910B2"}, "version": 2 }"#;

fn write(name: &str, text: &[u8]) -> PathBuf {
    let dir = scratch("mindspore");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn workspace_of(path: &Path) -> Workspace {
    let (ws, _) = open(
        &OpenInput::File(path.to_path_buf()),
        LoadOptions::default(),
        &Default::default(),
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    ws
}

/// The names of the ops `name` takes data from.
fn producers(g: &Graph, name: &str) -> Vec<String> {
    let id = g.find(name).unwrap_or_else(|| panic!("no op {name}"));
    g.op(id)
        .inputs
        .iter()
        .filter_map(|i| match i {
            Input::Data { src, .. } => Some(g.op(*src).name.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn ir_2x_composites_become_segments_and_kernels_left_out_breaks_with_reasons() {
    let path = write("graph_build_0.ir", IR_2X.as_bytes());
    let ws = workspace_of(&path);
    assert_eq!(ws.source().format, Format::MsIr);
    let g = ws.graph();
    assert_eq!(g.name(), "kernel_graph_1");
    // The fused call is replaced by its basic ops, fed by the call's arguments.
    let add = "Default/GraphKernel_Add_Mul_fusion-op12/Add-op1";
    let mul = "Default/GraphKernel_Add_Mul_fusion-op12/Mul-op2";
    assert_eq!(producers(g, add), ["para1_x", "para2_y"]);
    assert_eq!(producers(g, mul), [add, "para2_y"]);
    // The call's consumers read the subgraph's returned value; a tuple through its getitem.
    assert_eq!(producers(g, "Default/MatMul-op4"), [mul, "para2_y"]);
    assert_eq!(
        producers(g, "Default/TupleGetItem-op6"),
        ["Default/GraphKernel_Sub_Exp_fusion-op13/MakeTuple-op23"]
    );
    let plan = ws.plan();
    assert_eq!(plan.scopes.len(), 1);
    let scope = &plan.scopes[0];
    assert_eq!(scope.name, "graph kernel: kernel_graph_1");
    assert_eq!(scope.status, ScopeStatus::Split);
    let segments: Vec<(&str, usize)> = scope
        .segments
        .iter()
        .map(|s| (s.name.as_str(), s.ops.len()))
        .collect();
    // MakeTuple is no kernel: the Sub+Exp composite holds two ops.
    assert_eq!(
        segments,
        [
            ("GraphKernel_Add_Mul_fusion-op12", 2),
            ("GraphKernel_Sub_Exp_fusion-op13", 2)
        ]
    );
    let breaks: Vec<(String, &str, Evidence)> = scope
        .breaks
        .iter()
        .map(|b| {
            let v = ws.context().verdicts().get(b.op);
            (g.op(b.op).name.clone(), b.reason.code(), v.evidence)
        })
        .collect();
    assert_eq!(
        breaks,
        [
            ("Default/MatMul-op4".into(), "gk_level_1", Evidence::Rules),
            (
                "Default/Softmax-op5".into(),
                "gk_not_clusterable",
                Evidence::Rules
            ),
            ("Default/Exp-op7".into(), "gk_dynamic_shape", Evidence::Dump),
            ("Default/Neg-op8".into(), "gk_left_out", Evidence::Assumed),
        ]
    );
    assert!(
        scope
            .breaks
            .iter()
            .all(
                |b| matches!(b.reason, BreakReason::Unsupported(Reason::Foreign { .. })) && !b.cuts
            )
    );
    // Each break names the fused ops around it.
    let softmax = &scope.breaks[1];
    assert_eq!(g.op(softmax.before.unwrap()).name, mul);
    assert_eq!(
        g.op(softmax.after.unwrap()).name,
        "Default/GraphKernel_Sub_Exp_fusion-op13/Sub-op21"
    );
    // Values and tuples are not kernels; the source line and attributes are kept.
    let getitem = g.find("Default/TupleGetItem-op6").unwrap();
    assert_eq!(
        ws.context().verdicts().get(getitem).verdict,
        Verdict::Ignored
    );
    let matmul = g.op(g.find("Default/MatMul-op4").unwrap());
    assert_eq!(
        matmul.attrs.get_str("_ms_source"),
        Some("In file net.py:13, 8~30/        z = self.matmul(y, w)/")
    );
    assert!(
        matmul
            .attrs
            .get_str("_ms_attrs")
            .unwrap()
            .contains("transpose_b: Bool(1)")
    );
    assert_eq!(*matmul.output_descs[0].shape, [16, 16]);
    // The fused ops without a source of their own take the call's.
    assert!(
        g.op(g.find(add).unwrap())
            .attrs
            .get_str("_ms_source")
            .unwrap()
            .contains("net.py:12")
    );
    // Edits are refused: MindSpore chooses its composites.
    let add_id = g.find(add).unwrap();
    let mut ws = ws;
    let refused = ws
        .apply(skope::edit::Edit::Remove { ops: vec![add_id] }, None)
        .unwrap_err();
    assert!(
        refused.to_string().contains("graph_kernel_flags"),
        "{refused}"
    );
}

#[test]
fn ir_1x_shapes_read_the_same_way() {
    let path = write("1x.ir", IR_1X.as_bytes());
    let ws = workspace_of(&path);
    let g = ws.graph();
    assert_eq!(g.name(), "1_construct_wrapper.21");
    let scope = &ws.plan().scopes[0];
    assert_eq!(scope.segments.len(), 1);
    assert_eq!(scope.segments[0].name, "GraphKernel_Mul_Neg_fusion-op3");
    let members: Vec<&str> = scope.segments[0]
        .ops
        .iter()
        .map(|&id| g.op(id).name.as_str())
        .collect();
    assert_eq!(
        members,
        [
            "Default/GraphKernel_Mul_Neg_fusion-op3/Mul-op1",
            "Default/GraphKernel_Mul_Neg_fusion-op3/Neg-op2"
        ]
    );
    let relu = g.find("Default/ReLU-op4").unwrap();
    assert_eq!(g.op(relu).op_type, "ReLU");
    assert_eq!(*g.op(relu).output_descs[0].shape, [2, 3]);
    assert_eq!(
        producers(g, "Default/ReLU-op4"),
        ["Default/GraphKernel_Mul_Neg_fusion-op3/Neg-op2"]
    );
    assert_eq!(scope.breaks.len(), 1);
    // ReLU is on the DVM expander's list: expanded, then clustered — not "not clusterable".
    assert_eq!(scope.breaks[0].reason.code(), "gk_expanded");
}

#[test]
fn expanded_types_say_so_and_a_graph_with_fusion_off_is_one_finding() {
    // No composite at all: graph kernel fusion was off. A GeLU and a Softmax in turn.
    let off = r#"# IR entry: @kernel_graph_1
subgraph attr:
subgraph instance: kernel_graph_1 : 0x55d0
subgraph @kernel_graph_1(%para1_x) {
  %0(CNode_1) = GeLU(%para1_x)
      : (<Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/GeLU-op1)
  %1(CNode_2) = Softmax(%0)
      : (<Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/Softmax-op2)
  %2(CNode_3) = ReduceMean(%1)
      : (<Tensor[Float32], (16, 32)>) -> (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/ReduceMean-op3)
  Return(%2)
      : (<Tensor[Float32], (16, 32)>)
      # Fullname with scope: (Default/Return-op4)
}
"#;
    let path = write("graph_build_off.ir", off.as_bytes());
    let ws = workspace_of(&path);
    let plan = ws.plan();
    let scope = &plan.scopes[0];
    assert!(scope.breaks.is_empty(), "{:?}", scope.breaks);
    assert_eq!(scope.status, ScopeStatus::Unfused);
    assert_eq!(plan.findings.len(), 1);
    assert!(
        plan.findings[0].message.starts_with(
            "no composite in this graph (3 kernel(s) in none): graph kernel fusion was off"
        ),
        "{}",
        plan.findings[0].message
    );
    // Each op's own verdict still says what MindSpore does with its type.
    let g = ws.graph();
    let detail = |name: &str| {
        ws.context()
            .verdicts()
            .get(g.find(name).unwrap())
            .detail
            .to_string()
    };
    assert!(
        detail("Default/GeLU-op1")
            .contains("expander list (graph_kernel_expander_cloud.cc): expanded, then clustered"),
        "{}",
        detail("Default/GeLU-op1")
    );
    assert!(detail("Default/ReduceMean-op3").contains("the DVM generator's default expander list"));
    assert!(
        detail("Default/Softmax-op2")
            .contains("neither the AKG nor the DVM generator's default cluster list")
    );
}

#[test]
fn composite_json_with_every_field_kind_is_one_segment() {
    let mut text = b"\xEF\xBB\xBF".to_vec();
    text.extend_from_slice(COMPOSITE.as_bytes());
    let path = write("Fused_Cast_Mul_AddN_more_123.info", &text);
    let ws = workspace_of(&path);
    assert_eq!(ws.source().format, Format::MsComposite);
    let g = ws.graph();
    // The full name, not the one cut with _more.
    assert!(g.name().ends_with("Mul_fusion_123"), "{}", g.name());
    let scope = &ws.plan().scopes[0];
    assert_eq!(scope.status, ScopeStatus::Fused);
    assert_eq!(scope.segments.len(), 1);
    assert_eq!(scope.segments[0].ops.len(), 3);
    // Edges by tensor_name; the inline constant has no producer; a dynamic input's tensors
    // are each an input.
    assert_eq!(producers(g, "Cast-op8_1207913"), ["input_0"]);
    assert_eq!(
        producers(g, "Mul-op1_1207915"),
        ["Cast-op8_1207913", "input_3"]
    );
    assert_eq!(producers(g, "AddN_2"), ["Mul-op1_1207915", "input_4"]);
    assert_eq!(producers(g, "output"), ["AddN_2"]);
    let cast = g.op(g.find("Cast-op8_1207913").unwrap());
    assert_eq!(cast.input_descs.len(), 2);
    assert_eq!(
        cast.attrs.get_str("_ms_full_name"),
        Some("Default/network-Net/Cast-op8_1207913")
    );
    let info = skope::info::Info::of(
        &load_file(&path, LoadOptions::default()).unwrap(),
        &path.to_string_lossy(),
    );
    assert_eq!(info.composites.values().sum::<usize>(), 3);
}

#[test]
fn a_directory_of_composites_is_one_graph_and_other_json_is_passed_over() {
    let dir = scratch("mindspore-dir").join("akg_kernel_meta");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Fused_a.info"), COMPOSITE).unwrap();
    std::fs::write(
        dir.join("Fused_b.info"),
        COMPOSITE.replace("Fused_Cast", "Fused_Other"),
    )
    .unwrap();
    // The compiled kernel's own JSON is not a composite.
    std::fs::write(
        dir.join("Fused_a.json"),
        r#"{"kernelName": "Fused_a", "blockDim": 8}"#,
    )
    .unwrap();
    let ws = workspace_of(dir.parent().unwrap());
    let scope = &ws.plan().scopes[0];
    assert_eq!(scope.segments.len(), 2);
    assert!(
        ws.graph()
            .find(
                "Fused_Other_Mul_AddN_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_Mul_\
                 fusion_123/AddN_2"
            )
            .is_some()
    );
    // A broken composite is named with its place.
    std::fs::write(dir.join("Fused_c.info"), &COMPOSITE[..300]).unwrap();
    let err = load_file(&dir, LoadOptions::default()).unwrap_err();
    assert!(err.path.ends_with("Fused_c.info"), "{}", err.path.display());
    assert!(matches!(err.kind, LoadErrorKind::Syntax { .. }), "{err}");
}

#[test]
fn bad_input_says_where_and_what() {
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "unclosed.ir",
            b"# IR entry: @g\nsubgraph @g(%para1_x) {\n  %0(a) = Add(%para1_x, %para1_x)\n",
            "2:1: unexpected end of input: subgraph @g is not closed",
        ),
        (
            "args.ir",
            b"subgraph @g() {\n  %0(a) = Add(%para1_x, (1\n}\n",
            "2:3: the argument list of `Add` is not closed",
        ),
        (
            "noop.ir",
            b"# IR entry: @g\n# Total subgraphs: 0\n",
            "no `subgraph @NAME(",
        ),
        (
            "syntax.info",
            br#"{"composite": true, "op": "x", "op_desc": [{"name": "Add",, }]}"#,
            "1:59: key must be a string",
        ),
        (
            "noname.info",
            br#"{"composite": true, "op_desc": []}"#,
            "at op: missing: the composite kernel's name",
        ),
        (
            "notcomposite.info",
            br#"{"composite": false, "op": "x", "op_desc": []}"#,
            "false: not a composite",
        ),
        (
            "notensor.info",
            br#"{"composite": true, "op": "x", "op_desc": [], "input_desc": [[{"shape": [1]}]]}"#,
            "input_desc[0]: a tensor without tensor_name",
        ),
    ];
    for (name, text, words) in cases {
        let path = write(name, text);
        let err = load_file(&path, LoadOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{name} loaded"));
        let shown = err.to_string();
        assert!(shown.contains(words), "{name}: {shown}");
        assert!(!err.hint().is_empty());
    }
}

#[test]
fn the_bundled_example_fuses_what_it_says() {
    let ws = workspace_of(Path::new(&example_arg("mindspore/graph_build_0_1.ir")));
    let scope = &ws.plan().scopes[0];
    // Per layer: the RMS norm, the residual and the SiLU are fused.
    assert_eq!(scope.segments.len(), 6);
    let mut codes: Vec<&str> = scope.breaks.iter().map(|b| b.reason.code()).collect();
    codes.sort_unstable();
    codes.dedup_by(|a, b| a == b);
    assert_eq!(
        codes,
        [
            "gk_dynamic_shape",
            "gk_left_out",
            "gk_level_1",
            "gk_not_clusterable"
        ]
    );
    // Per layer four MatMuls, a FlashAttentionScore, a Neg and a Softmax; in layer 1 an Exp.
    assert_eq!(scope.breaks.len(), 15);
    let composites = load_file(&example_path("mindspore"), LoadOptions::default());
    assert_eq!(composites.unwrap().format, Format::MsComposite);
}

#[test]
fn info_and_report_speak_of_composites_and_reasons() {
    let ir = example_arg("mindspore/graph_build_0_1.ir");
    let out = skope(&["info", &ir]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("format    MindSpore IR text (*.ir) [mindspore_ir]"),
        "{text}"
    );
    assert!(
        text.contains("composites 6: GraphKernel_Cast_Mul"),
        "{text}"
    );
    let out = skope(&["report", &ir, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["summary"]["segments"], 6);
    assert_eq!(json["summary"]["breaks"], 15);
    let reasons: Vec<&str> = json["scopes"][0]["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["reason_code"].as_str())
        .collect();
    assert!(reasons.contains(&"gk_level_1"), "{reasons:?}");
    let out = skope(&["report", &ir]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(MindSpore graph kernel fusion: the dump's composites decide)"),
        "{text}"
    );
    assert!(!text.contains("rules: "), "{text}");
}

#[test]
fn graph_kernel_flags_are_listed_checked_and_said_what_they_would_change() {
    let ir = example_arg("mindspore/graph_build_0_1.ir");
    let out = skope(&["options", "--graph-kernel"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for words in [
        "--enable_cluster_ops  default none",
        "--composite_op_limit_size  default 200",
        "MS_DEV_GRAPH_KERNEL_FLAGS",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    assert!(!text.contains("in this graph"), "{text}");
    // With the graph: what each would change in it.
    let out = skope(&["options", "--graph-kernel", "--graph", &ir]);
    let text = String::from_utf8_lossy(&out.stdout);
    for words in [
        "in this graph: 0 would leave all 6 composites as basic ops",
        "in this graph: would let these types left out join composites: MatMul ×8, \
         FlashAttentionScore ×2, Softmax ×2",
        "in this graph: 1 would let these level-1 types join composites: MatMul ×8",
        "in this graph: would let these ops with dynamic shapes be clustered: Exp ×1",
        "the largest composite here has 8 basic op(s) (default limit 200): below the limit",
        "which the dump does not: Neg ×2",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    // A flags string is checked; a list flag's effect is for the types it names.
    let out = skope(&[
        "options",
        "--graph-kernel",
        "--graph",
        &ir,
        "--enable_cluster_ops=Softmax --opt_level=5 --nope --disable_cluster_ops=Mul,Cast",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    for words in [
        "error: --opt_level=5: expected an integer from 0 to 3",
        "error: --nope: not a flag skope knows",
        "ok: --enable_cluster_ops=Softmax",
        "would let these types left out join composites: Softmax ×2 (",
        "would keep out of composites these types now in them: Mul ×10, Cast ×2",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    assert!(!text.contains("--composite_op_limit_size"), "{text}");
    // A dump of another kind is refused.
    let out = skope(&[
        "options",
        "--graph-kernel",
        "--graph",
        &example_arg("moe_decode.ge_proto.txt"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a MindSpore dump"));
}

#[test]
fn diff_reads_mindspore_profiles_with_graph_kernel_off_and_on() {
    let root = scratch("mindspore-prof");
    let header = "Device_id,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),\
                  Max Time(us),Ratio(%)\n";
    let sides = [
        (
            "off",
            "0,MatMul,AI_CORE,8,80.0,10.0,10.0,10.0,40\n0,Add,AI_VECTOR_CORE,2,6.0,3.0,3.0,3.0,3\n\
             0,Mul,AI_VECTOR_CORE,2,5.0,2.5,2.5,2.5,2.5\n",
        ),
        (
            "on",
            "0,MatMul,AI_CORE,8,80.0,10.0,10.0,10.0,40\n\
             0,Fused_Mul_Add_fusion_1572795827,AI_VECTOR_CORE,2,7.0,3.5,3.5,3.5,3.5\n",
        ),
    ];
    for (side, rows) in sides {
        let dir = root
            .join(side)
            .join("worker_1_20261124_ascend_ms/ASCEND_PROFILER_OUTPUT");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("op_statistic.csv"), format!("{header}{rows}")).unwrap();
    }
    let (off, on) = (root.join("off"), root.join("on"));
    let out = skope(&["diff", &off.to_string_lossy(), &on.to_string_lossy()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("worker_1_20261124_ascend_ms"), "{text}");
    assert!(
        text.contains(
            "busy time  91.00 µs → 87.00 µs   Δ ▼ −4.00 µs   4.40 % faster with graph kernel fusion"
        ),
        "{text}"
    );
    for row in [
        ("Fused_Mul_Add_fusion_1572795827", "new only"),
        ("Add ", "base only"),
        ("Mul ", "base only"),
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(row.0))
            .unwrap_or_else(|| panic!("no row {}\n{text}", row.0));
        assert!(line.ends_with(row.1), "{line}");
    }
}

#[test]
fn node_numbers_far_apart_cost_nothing() {
    // Hand-edited numbers: one would ask for a list of four billion names, the other overflows.
    let ir = "# IR entry: @g\nsubgraph @g(%para1_x) {\n  %4000000000(a) = Add(%para1_x, %para1_x)\n  \
              %18446744073709551615(b) = Neg(%4000000000)\n  %1(c) = Abs(%18446744073709551615)\n  \
              Return(%1)\n}\n";
    let dump = skope::load::load_bytes(Path::new("far.ir"), ir.as_bytes()).unwrap();
    let g = dump.main();
    let abs = g.ops().iter().find(|o| o.op_type == "Abs").unwrap();
    let neg = g.ops().iter().find(|o| o.op_type == "Neg").unwrap();
    assert_eq!(producers(g, &abs.name), std::slice::from_ref(&neg.name));
    assert_eq!(producers(g, &neg.name).len(), 1);
}
