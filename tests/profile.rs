//! The profile readers on every header variant and bad input, directory discovery, and the
//! comparison on the official SuperKernel sample's numbers and on the bundled example.

use skope::fusion::rules::RuleSet;
use skope::load::{LoadOptions, load_file};
use skope::profile::{
    Basis, Found, FusedEvidence, KernelForm, KernelReader, KernelTable, PlannedFusion,
    ProfileError, RowStatus, diff, discover, load_pair, op_statistic,
};
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/profile")
        .join(rel)
}

use crate::common::example_path as example;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(close(a, b, tol), "{a} is not {b} (±{tol})");
}

// ---- op_statistic variants ----

#[test]
fn op_statistic_without_device_id_reads_the_insight_sample() {
    let s = op_statistic::read(&fixture("op_statistic/no_device.csv")).unwrap();
    assert_eq!(s.rows.len(), 5);
    assert!(s.devices.is_empty());
    let m = s.get("MatMulV2", "AI_CORE").unwrap();
    assert_eq!(m.count, 8);
    assert_close(m.total_us, 921.498, 1e-9);
    assert_close(m.avg_us(), 115.187, 1e-3);
    assert_eq!(m.min_us, Some(16.54));
    assert_eq!(s.rows[0].op_type, "ForeachAddList");
    assert!(s.get("DSAGenBitMask", "DSA_SQE").is_some());
}

#[test]
fn op_statistic_with_model_name_adds_up_the_models() {
    let s = op_statistic::read(&fixture("op_statistic/model_name.csv")).unwrap();
    let m = s.get("MatMulV2", "AI_CORE").unwrap();
    assert_eq!(m.count, 6);
    assert_close(m.total_us, 70.0, 1e-9);
    assert_eq!(m.min_us, Some(9.5));
    assert_eq!(m.max_us, Some(16.0));
    assert_eq!(s.rows.len(), 3);
    assert_eq!(s.devices, vec!["0"]);
}

#[test]
fn op_statistic_headers_without_units_read_the_same() {
    let s = op_statistic::read(&fixture("op_statistic/no_units.csv")).unwrap();
    assert_close(s.total_us(), 55.0, 1e-9);
    assert_eq!(s.get("Add", "AI_VECTOR_CORE").unwrap().count, 10);
}

#[test]
fn op_statistic_with_bom_crlf_and_an_extra_column() {
    let s = op_statistic::read(&fixture("op_statistic/bom_crlf_extra.csv")).unwrap();
    assert_eq!(s.rows.len(), 2);
    assert_eq!(s.devices, vec!["3"]);
    assert_close(s.total_us(), 55.0, 1e-9);
}

#[test]
fn a_header_in_milliseconds_is_scaled_to_microseconds() {
    let text = "OP Type,Core Type,Count,Total Time(ms)\nMatMulV2,AI_CORE,2,0.5\n";
    let s = op_statistic::parse(text.as_bytes(), Path::new("ms.csv")).unwrap();
    assert_close(s.total_us(), 500.0, 1e-9);
}

// ---- op_statistic bad input ----

fn message(e: &ProfileError) -> String {
    e.to_string()
}

#[test]
fn a_missing_column_names_the_file_and_the_column() {
    let path = fixture("op_statistic/missing_column.csv");
    let e = op_statistic::read(&path).unwrap_err();
    assert!(
        matches!(&e, ProfileError::MissingColumn { column, .. } if *column == "Total Time(us)"),
        "{e:?}"
    );
    let m = message(&e);
    assert!(
        m.contains("missing_column.csv:1: the header has no column \"Total Time(us)\""),
        "{m}"
    );
    assert!(
        m.contains("(its columns: 1 \"Device_id\", 2 \"OP Type\""),
        "{m}"
    );
    assert!(m.contains("hint:"), "{m}");
}

#[test]
fn n_a_in_a_required_number_names_file_row_and_column() {
    let e = op_statistic::read(&fixture("op_statistic/na_total.csv")).unwrap_err();
    match &e {
        ProfileError::BadValue {
            row,
            line,
            column,
            column_index,
            value,
            ..
        } => {
            assert_eq!((*row, *line), (2, 3));
            assert_eq!(column, "Total Time(us)");
            assert_eq!(*column_index, 5);
            assert_eq!(value, "N/A");
        }
        other => panic!("{other:?}"),
    }
    let m = message(&e);
    assert!(m.contains("na_total.csv:3: row 2"), "{m}");
    assert!(m.contains("\"Total Time(us)\""), "{m}");
}

#[test]
fn a_bad_number_names_file_row_and_column() {
    let e = op_statistic::read(&fixture("op_statistic/bad_number.csv")).unwrap_err();
    match &e {
        ProfileError::BadValue {
            row, column, value, ..
        } => {
            assert_eq!(*row, 3);
            assert_eq!(column, "Count");
            assert_eq!(value, "five");
        }
        other => panic!("{other:?}"),
    }
    assert!(message(&e).contains("bad_number.csv:4: row 3, column \"Count\" (column 4)"));
}

#[test]
fn garbage_bytes_name_the_row_and_column() {
    let e = op_statistic::read(&fixture("op_statistic/garbage.csv")).unwrap_err();
    match &e {
        ProfileError::BadRow {
            row, line, column, ..
        } => {
            assert_eq!((*row, *line), (2, 3));
            assert_eq!(column.as_ref().map(|c| c.1), Some(2));
        }
        other => panic!("{other:?}"),
    }
    assert!(message(&e).contains("not UTF-8"));
}

#[test]
fn an_empty_file_is_an_error_naming_it() {
    let e = op_statistic::read(&fixture("op_statistic/empty.csv")).unwrap_err();
    assert!(matches!(e, ProfileError::Empty { .. }), "{e:?}");
    assert!(message(&e).contains("empty.csv"));
}

#[test]
fn a_binary_file_is_not_taken_for_a_profile() {
    let bytes: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe";
    let e = op_statistic::parse(bytes, Path::new("image.csv")).unwrap_err();
    assert!(
        matches!(
            e,
            ProfileError::BadRow { .. } | ProfileError::MissingColumn { .. }
        ),
        "{e:?}"
    );
}

// ---- kernel files ----

#[test]
fn kernel_details_level1_with_block_dim_tabs_shapes_and_n_a() {
    let path = fixture("kernels/kernel_details_level1.csv");
    let mut r = KernelReader::open(std::slice::from_ref(&path));
    let row = r.next_row().unwrap().unwrap();
    assert_eq!(row.step, Some("19"));
    assert_eq!(row.name, "aclnnMatmul_MatMulCommon_MatMulV2");
    assert_eq!(row.op_type, "MatMulV2");
    assert_eq!(row.core_type, "AI_CORE");
    assert_close(row.start_us.unwrap(), 1736413971558972.9, 1e-3);
    assert_eq!(row.duration_us, Some(185.504));
    assert_eq!(row.wait_us, Some(1.087));
    assert_eq!(row.block_num, Some(16));
    assert_eq!(row.input_shapes, Some("81920,4096;8192,512"));
    let row = r.next_row().unwrap().unwrap();
    assert_eq!(
        row.input_shapes,
        Some("4096,2,512;4096,2,512;4096,2,512;;;;4096,4096;;;;;")
    );
    assert_eq!(row.block_num, Some(20));
    r.next_row().unwrap().unwrap();
    let hccl = r.next_row().unwrap().unwrap();
    assert_eq!(hccl.duration_us, None);
    assert_eq!(hccl.core_type, "COMMUNICATION");
    assert!(r.next_row().unwrap().is_none());

    let t = KernelTable::read(&[path]).unwrap();
    assert_eq!(t.rows, 4);
    assert_eq!(t.without_duration, 1);
    let mm = t.get("aclnnMatmul_MatMulCommon_MatMulV2").unwrap();
    assert_eq!(mm.count, 2);
    assert_close(mm.total_us, 370.0, 1e-9);
    assert_eq!(
        t.exec_order(),
        vec![
            "aclnnFlashAttentionScore_FlashAttentionScore_FlashAttentionScore",
            "aclnnMatmul_MatMulCommon_MatMulV2"
        ]
    );
    let by_type = t.type_statistic();
    assert_close(
        by_type.get("MatMulV2", "AI_CORE").unwrap().total_us,
        370.0,
        1e-9,
    );
}

#[test]
fn kernel_details_with_block_num_step_id_device_and_an_unquoted_tab() {
    let t = KernelTable::read(&[fixture("kernels/kernel_details_block_num.csv")]).unwrap();
    let td = t.get("trans_TransData_0").unwrap();
    assert_eq!(td.count, 2);
    assert_close(td.total_us, 100.0, 1e-9);
    assert_eq!(td.block_num, Some(8));
    assert_close(td.first_start_us.unwrap(), 1736405443881410.3, 1e-3);
    assert_close(t.get("NonZero57").unwrap().wait_us, 1.23, 1e-9);
}

#[test]
fn kernel_details_level0_with_n_a_types() {
    let t = KernelTable::read(&[fixture("kernels/kernel_details_level0.csv")]).unwrap();
    // Level0 gives no op type: the name without its index suffix stands for it.
    assert_eq!(
        &*t.get("trans_TransData_0").unwrap().op_type,
        "trans_TransData"
    );
    assert!(t.types_from_names > 0);
    assert_eq!(t.get("MatMul_1").unwrap().block_num, Some(24));
}

#[test]
fn op_summary_slices_are_read_in_turn_with_op_summary_names() {
    let dir = fixture("kernels/PROF_000001_20250101000000000_ABCDEFGHIJKLMNOP");
    let Found::One(files) = discover(&dir).unwrap() else {
        panic!("one profile expected")
    };
    assert_eq!(files.kernel_form, Some(KernelForm::OpSummary));
    assert_eq!(files.kernels.len(), 2);
    assert!(files.op_statistic.is_empty());
    let t = KernelTable::read(&files.kernels).unwrap();
    assert_eq!(t.rows, 4);
    assert_eq!(t.get("layer0_gmm_down").unwrap().block_num, Some(24));
    assert_eq!(t.get("hcom_broadcast__445_0").unwrap().block_num, None);
    assert_eq!(
        t.exec_order(),
        vec![
            "layer0_gmm_up",
            "layer0_swiglu_quant",
            "layer0_gmm_down",
            "hcom_broadcast__445_0"
        ]
    );
    let s = t.type_statistic();
    let g = s.get("GroupedMatmul", "MIX_AIC").unwrap();
    assert_eq!(g.count, 2);
    assert_close(g.total_us, 30.601, 1e-9);
}

#[test]
fn a_bad_duration_names_file_row_and_column() {
    let e = KernelTable::read(&[fixture("kernels/kernel_details_bad_duration.csv")]).unwrap_err();
    match &e {
        ProfileError::BadValue {
            row,
            column,
            column_index,
            ..
        } => {
            assert_eq!(*row, 2);
            assert_eq!(column, "Duration(us)");
            assert_eq!(*column_index, 6);
        }
        other => panic!("{other:?}"),
    }
    assert!(message(&e).contains("kernel_details_bad_duration.csv:3: row 2"));
}

#[test]
fn a_kernel_file_without_duration_is_a_missing_column() {
    let e = KernelTable::read(&[fixture("kernels/kernel_details_no_duration.csv")]).unwrap_err();
    assert!(
        matches!(&e, ProfileError::MissingColumn { column, .. } if *column == "Duration(us)"),
        "{e:?}"
    );
}

#[test]
fn a_duration_beyond_any_kernels_is_a_bad_value_not_an_overflow() {
    // Two rows of 9.2 × 10¹⁸ ns in one step would overflow the step's sum.
    let dir = crate::common::scratch("profile-huge-duration");
    let path = dir.join("kernel_details.csv");
    std::fs::write(
        &path,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n\
         1,a,Add,AI_VECTOR_CORE,1000,9223372036854775\n\
         1,b,Add,AI_VECTOR_CORE,2000,9223372036854775\n",
    )
    .unwrap();
    let e = skope::profile::runs::Runs::read(&[path], skope::memory::available()).unwrap_err();
    let text = message(&e);
    assert!(text.contains("kernel_details.csv:2: row 1"), "{text}");
    assert!(
        text.contains("a kernel's duration (not negative, under 10⁶ s)"),
        "{text}"
    );
}

#[test]
fn a_header_of_a_thousand_columns_is_counted_not_listed_and_more_is_refused() {
    let dir = crate::common::scratch("profile-wide-header");
    let path = dir.join("op_statistic.csv");
    std::fs::write(&path, format!("Device{}\n", ",".repeat(999))).unwrap();
    let e = skope::profile::op_statistic::read(&path).unwrap_err();
    let text = message(&e);
    assert!(text.contains("… 1000 columns in all …"), "{text}");
    assert!(
        text.contains("1000 \"\""),
        "the last columns are named: {text}"
    );
    assert!(text.len() < 1000, "{}", text.len());
    std::fs::write(&path, format!("Device{}\n", ",".repeat(6000))).unwrap();
    let text = message(&skope::profile::op_statistic::read(&path).unwrap_err());
    assert!(
        text.contains(
            "the header has 6001 columns; the profiler's CSVs have at most a few hundred"
        ),
        "{text}"
    );
}

// ---- discovery ----

#[test]
fn every_directory_form_of_the_bundled_example_is_found() {
    let root = example("prof_result");
    let run = root.join("no_sk_model/npu-node0_31337_20261122093000000_ascend_pt");
    let output = run.join("ASCEND_PROFILER_OUTPUT");
    for path in [
        run.clone(),
        output.clone(),
        root.join("no_sk_model"),
        output.join("op_statistic.csv"),
    ] {
        let found = discover(&path).unwrap();
        let files = found.pick(None, &path).unwrap();
        assert!(!files.is_empty(), "{}", path.display());
    }
    let Found::One(files) = discover(&run).unwrap() else {
        panic!()
    };
    assert_eq!(files.root, output);
    assert_eq!(files.op_statistic, vec![output.join("op_statistic.csv")]);
    assert_eq!(files.kernels, vec![output.join("kernel_details.csv")]);
    assert_eq!(files.kernel_form, Some(KernelForm::KernelDetails));
    assert!(matches!(discover(&root).unwrap(), Found::Pair { .. }));
    let Found::One(k) = discover(&output.join("kernel_details.csv")).unwrap() else {
        panic!()
    };
    assert!(k.op_statistic.is_empty() && k.kernels.len() == 1);
}

#[test]
fn the_official_sample_layout_is_found_through_prof_and_msprof_export() {
    let root = fixture("official_sample/prof_result");
    let Found::Pair { base, new } = discover(&root).unwrap() else {
        panic!("pair expected")
    };
    for side in [base, new] {
        let Found::One(files) = *side else {
            panic!("one profile expected")
        };
        assert_eq!(files.op_statistic.len(), 1);
        assert!(
            files.op_statistic[0]
                .to_string_lossy()
                .contains("mindstudio_profiler_output")
        );
    }
    let prof = root.join(
        "no_sk_model/localhost.localdomain_ascend_pt/PROF_000001_20250612101010123_KLMNOPQRSTUVWXYZ",
    );
    assert!(matches!(discover(&prof).unwrap(), Found::One(_)));
}

#[test]
fn several_ranks_are_listed_and_one_is_picked() {
    let dir = fixture("ranks");
    let found = discover(&dir).unwrap();
    let ranks = found.ranks();
    assert_eq!(ranks.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![0, 1]);
    let e = found.clone().pick(None, &dir).unwrap_err();
    assert!(matches!(e, ProfileError::SeveralRanks { .. }));
    let m = e.to_string();
    assert!(
        m.contains("rank 0:") && m.contains("rank1_ascend_pt"),
        "{m}"
    );
    assert!(m.contains("--rank N"), "{m}");
    let files = found.clone().pick(Some(1), &dir).unwrap();
    assert!(files.root.to_string_lossy().contains("rank1_ascend_pt"));
    let e = found.pick(Some(7), &dir).unwrap_err();
    assert!(matches!(e, ProfileError::NoSuchRank { rank: 7, .. }));
    let pair = load_pair(&dir, Some(&dir), Some(1)).unwrap();
    assert_close(pair.base.stats.total_us(), 44.0, 1e-9);
}

#[test]
fn several_devices_in_one_op_statistic_are_ranks_too() {
    let path = fixture("op_statistic/two_devices.csv");
    let e = load_pair(&path, Some(&path), None).unwrap_err();
    assert!(matches!(e, ProfileError::SeveralRanks { ref ranks, .. } if ranks.len() == 2));
    let pair = load_pair(&path, Some(&path), Some(1)).unwrap();
    assert_close(pair.new.stats.total_us(), 59.0, 1e-9);
}

#[test]
fn a_directory_without_profiles_says_what_it_looked_for() {
    let e = discover(&fixture("op_statistic")).unwrap_err();
    // op_statistic/ holds CSVs whose names do not start with op_statistic.
    assert!(matches!(e, ProfileError::NotFound { .. }), "{e:?}");
    assert!(e.to_string().contains("ASCEND_PROFILER_OUTPUT"));
    let e = discover(&fixture("no such dir")).unwrap_err();
    assert!(matches!(e, ProfileError::Io { .. }));
}

#[test]
fn one_profile_alone_is_not_a_pair() {
    let e = load_pair(&fixture("ranks/rank0_ascend_pt"), None, None).unwrap_err();
    assert!(matches!(e, ProfileError::Pairing { .. }), "{e:?}");
    let root = fixture("official_sample/prof_result");
    let e = load_pair(&root, Some(&root), None).unwrap_err();
    assert!(matches!(e, ProfileError::Pairing { .. }), "{e:?}");
}

// ---- the comparison ----

#[test]
fn the_official_sample_gives_its_numbers() {
    let pair = load_pair(&fixture("official_sample/prof_result"), None, None).unwrap();
    let d = diff(&pair, None);
    assert_close(d.base_total_us, 407.54, 1e-6);
    assert_close(d.new_total_us, 384.66, 1e-6);
    let benefit = d.benefit_pct.unwrap();
    assert_close(benefit, 5.61, 0.005);
    let a = &d.attribution;
    assert_eq!(a.basis, Basis::Inferred);
    assert!(a.inferred);
    let mut types: Vec<&str> = a.fused_types.iter().map(|t| t.op_type.as_str()).collect();
    types.sort();
    assert_eq!(
        types,
        vec!["DequantSwigluQuant", "GroupedMatmul", "MoeGatingTopK"]
    );
    assert_close(a.fused.base_us, 218.76, 1e-6);
    assert_close(a.fused.new_us, 190.88, 1e-6);
    assert_close(a.fused.change_pct.unwrap(), -12.7, 0.05);
    assert_close(a.rest.base_us, 188.78, 1e-6);
    assert_close(a.rest.new_us, 193.78, 1e-6);
    let gmm = d
        .rows
        .iter()
        .find(|r| r.op_type == "GroupedMatmul")
        .unwrap();
    assert_eq!(gmm.status, RowStatus::FusedAway);
    assert_eq!(gmm.ratio, Some(0.0));
    let sk = d
        .rows
        .iter()
        .find(|r| r.op_type == "SuperKernel" && r.core_type == "MIX_AIV")
        .unwrap();
    assert_eq!(sk.status, RowStatus::NewSuperkernel);
    assert_eq!(sk.ratio, None);
    let transpose = d.rows.iter().find(|r| r.op_type == "Transpose").unwrap();
    assert_close(transpose.delta_us, 2.4, 1e-6);
    assert_close(transpose.ratio.unwrap(), 92.42 / 90.02, 1e-9);
    assert!(d.per_op.is_none());
}

fn bundled_workspace() -> Workspace {
    let path = example("moe_decode.ge_proto.txt");
    let dump = load_file(&path, LoadOptions::default()).unwrap();
    let format = dump.format;
    Workspace::new(
        dump.into_main(),
        format,
        &path.to_string_lossy(),
        &RuleSet::bundled(),
    )
}

#[test]
fn the_bundled_example_with_its_graph_attributes_by_plan() {
    let pair = load_pair(&example("prof_result"), None, None).unwrap();
    let ws = bundled_workspace();
    let plan = PlannedFusion::from_workspace(&ws, "moe_decode.ge_proto.txt");
    assert_eq!(plan.segments.len(), 13);
    assert_eq!(plan.breaks.len(), 5);
    let d = diff(&pair, Some(&plan));
    // Five steps a side: the totals are the median step's kernel time, the by-type rows each
    // profile's sums over its steps divided by them (expected values added up from the CSVs
    // by hand). HcomBroadcast (9.12 µs a step on each side) is communication no segment takes:
    // it is on its own line. The AllReduces, which segments take, count with the computation.
    assert_close(d.base_total_us, 531.738, 1e-6);
    assert_close(d.new_total_us, 473.956, 1e-6);
    assert_close(d.benefit_pct.unwrap(), 10.87, 0.005);
    let c = d.communication.as_ref().unwrap();
    assert_eq!(c.rows.len(), 1);
    assert_eq!(c.rows[0].op_type, "HcomBroadcast");
    assert_close(c.base.unwrap().total_us, 9.1202, 1e-9);
    assert_close(c.new.unwrap().total_us, 9.1138, 1e-9);
    assert!(d.rows.iter().any(|r| r.op_type == "HcomAllReduce"));
    let a = &d.attribution;
    assert_eq!(a.basis, Basis::Plan, "{:?}", a.notes);
    assert!(!a.inferred);
    assert!(
        a.fused_types
            .iter()
            .all(|t| t.evidence == FusedEvidence::Plan)
    );
    // Not fused anywhere in the plan: the breaks and the op outside every scope.
    for t in [
        "HcomBroadcast",
        "MaskedFill",
        "Cast",
        "ScatterNdUpdate",
        "MoeInitRoutingV2",
    ] {
        assert!(a.fused_types.iter().all(|f| f.op_type != t), "{t}");
    }
    // The unchanged rest is exactly those types but the communication.
    assert_close(a.rest.base_us, 11.0928, 1e-6);
    assert_close(a.rest.new_us, 11.0904, 1e-6);
    assert_close(a.fused.base_us, 520.2158, 1e-6);
    // SuperKernels plus the two kernels of fused types still running unfused (lm_head, final
    // RmsNorm).
    assert_close(a.fused.new_us, 453.4164 + 5.8878 + 3.184, 1e-6);
    let mm = a
        .fused_types
        .iter()
        .find(|t| t.op_type == "MatMulV2")
        .unwrap();
    assert_eq!((mm.base_count, mm.new_count), (17, 1));

    let p = d.per_op.as_ref().unwrap();
    assert!(!p.inferred);
    assert!(p.unmatched_superkernels.is_empty());
    assert_eq!(p.segments.len(), 13);
    for s in &p.segments {
        assert!(
            s.base_missing.is_empty(),
            "{}: {:?}",
            s.segment,
            s.base_missing
        );
        assert!(s.new_us.is_some(), "{}", s.fused_node);
    }
    let attn0 = &p.segments[0];
    assert_eq!(attn0.segment, "attn_0");
    assert_eq!(attn0.ops.len(), 8);
    assert_close(attn0.new_us.unwrap(), 50.0146, 1e-9);
    assert_close(attn0.base_us, 56.5094, 1e-6);
    assert_eq!(attn0.ops[0].name, "layer0_input_rmsnorm");
    assert_close(attn0.ops[0].total_us.unwrap(), 3.0162, 1e-9);
    let total_sk: f64 = p.segments.iter().filter_map(|s| s.new_us).sum();
    assert_close(total_sk, 453.4164, 1e-6);
    let order: Vec<&str> = p.breaks.iter().map(|b| b.op.as_str()).collect();
    assert_eq!(
        order,
        vec![
            "layer1_expert_broadcast",
            "layer0_init_routing",
            "layer3_kv_scatter",
            "layer2_mask_fill",
            "layer1_expert_ids_cast"
        ]
    );
    let cast = &p.breaks[4];
    assert_close(cast.unfused_us, 1.176, 1e-9);
    assert_eq!(cast.launches, 1);
    assert_eq!(cast.op_type.as_deref(), Some("Cast"));
    assert!(cast.reason.contains("AscendC"), "{}", cast.reason);
    assert!(!cast.from_base);
}

#[test]
fn without_a_plan_the_bundled_segments_are_inferred_from_kernel_names() {
    let pair = load_pair(&example("prof_result"), None, None).unwrap();
    let d = diff(&pair, None);
    assert_eq!(d.attribution.basis, Basis::Inferred);
    let p = d.per_op.as_ref().unwrap();
    assert!(p.inferred);
    assert_eq!(p.segments.len(), 13);
    assert!(p.unmatched_superkernels.is_empty());
    let moe2 = p.segments.iter().find(|s| s.segment == "moe_2").unwrap();
    assert_eq!(moe2.ops.len(), 12);
    assert_eq!(moe2.scope, "moe_2");
    let with_plan = {
        let ws = bundled_workspace();
        let plan = PlannedFusion::from_workspace(&ws, "g");
        diff(&pair, Some(&plan)).per_op.unwrap()
    };
    for (a, b) in p.segments.iter().zip(&with_plan.segments) {
        assert_eq!(a.fused_node, b.fused_node);
        assert_close(a.base_us, b.base_us, 1e-9);
    }
    // Unfused kernels between two segments of one scope are its breaks.
    let mut breaks: Vec<&str> = p.breaks.iter().map(|b| b.op.as_str()).collect();
    breaks.sort();
    assert_eq!(
        breaks,
        vec![
            "layer0_init_routing",
            "layer1_expert_broadcast",
            "layer1_expert_ids_cast",
            "layer2_mask_fill",
            "layer3_kv_scatter"
        ]
    );
}

#[test]
fn a_plan_that_disagrees_with_the_profile_is_marked_inferred() {
    // The bundled graph's plan against the official sample: none of its types fit.
    let pair = load_pair(&fixture("official_sample/prof_result"), None, None).unwrap();
    let ws = bundled_workspace();
    let plan = PlannedFusion::from_workspace(&ws, "moe_decode");
    let d = diff(&pair, Some(&plan));
    let a = &d.attribution;
    // GroupedMatmul, MoeGatingTopK and DequantSwigluQuant are in the plan and fell: plan.
    // Cast is in no segment… but its count did not fall, so it is not counted at all.
    assert_eq!(a.basis, Basis::Plan, "{:?}", a.notes);
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("the base profile has no RmsNorm kernels")),
        "{:?}",
        a.notes
    );
    assert_close(a.fused.base_us, 218.76, 1e-6);

    // A plan naming only GroupedMatmul: the other two are inferred, and said to be.
    let mut narrow = plan.clone();
    for s in &mut narrow.segments {
        s.ops
            .retain(|o| o.op_type.as_deref() == Some("GroupedMatmul"));
    }
    let d = diff(&pair, Some(&narrow));
    let a = &d.attribution;
    assert_eq!(a.basis, Basis::PlanAndInferred);
    assert!(a.inferred);
    let inferred: Vec<&str> = a
        .fused_types
        .iter()
        .filter(|t| t.evidence == FusedEvidence::Inferred)
        .map(|t| t.op_type.as_str())
        .collect();
    assert_eq!(inferred.len(), 2);
    assert!(a.notes.iter().any(|n| n.contains("(inferred)")));
    assert_close(a.fused.new_us, 190.88, 1e-6);
}

#[test]
fn a_new_profile_without_superkernels_fuses_nothing() {
    let path = fixture("op_statistic/no_units.csv");
    let pair = load_pair(&path, Some(&fixture("op_statistic/model_name.csv")), None).unwrap();
    let d = diff(&pair, None);
    assert_eq!(d.attribution.basis, Basis::Nothing);
    assert!(d.attribution.fused_types.is_empty());
    assert_close(d.attribution.rest.base_us, d.base_total_us, 1e-9);
    assert!(d.rows.iter().any(|r| r.status == RowStatus::NewOnly));
}

#[test]
fn text_output_marks_every_delta_with_a_sign_and_an_arrow() {
    let pair = load_pair(&fixture("official_sample/prof_result"), None, None).unwrap();
    let text = skope::profile::output::to_text(&diff(&pair, None));
    assert!(
        text.contains(
            "busy time  407.54 µs → 384.66 µs   Δ ▼ −22.88 µs   5.61 % faster with SuperKernel"
        ),
        "{text}"
    );
    assert!(text.contains("▲ +2.40"), "{text}");
    assert!(text.contains("▼ −126.26"), "{text}");
    assert!(text.contains("fused away"), "{text}");
    assert!(text.contains("new SuperKernel"), "{text}");
    assert!(text.contains("218.76 µs → 190.88 µs"), "{text}");
    assert!(text.contains("−12.74 %"), "{text}");
    assert!(text.contains("~ GroupedMatmul"), "{text}");
    assert!(text.contains("inferred from the profile"), "{text}");
    assert!(!text.contains('\x1b'));
}

// ---- communication, mixed kinds, Level0 types, signs ----

/// Writes a kernel_details.csv under `dir/<side>/ASCEND_PROFILER_OUTPUT/` holding `rows` of
/// (name, type, core type, duration µs), one run each, one microsecond apart.
fn kernel_details(dir: &Path, side: &str, rows: &[(&str, &str, &str, f64)]) {
    let out = dir.join(side).join("ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&out).unwrap();
    let mut text = String::from(
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\n",
    );
    let mut start = 1_736_413_971_000_000.0;
    for (name, ty, core, us) in rows {
        text += &format!("1,{name},{ty},{core},\"{start:.3}\t\",{us},0.5,24\n");
        start += us + 1.0;
    }
    std::fs::write(out.join("kernel_details.csv"), text).unwrap();
}

fn scratch(name: &str) -> PathBuf {
    crate::common::scratch(&format!("profile-{name}"))
}

/// The official sample's numbers as kernel files, with an HcomAllReduce only the base ran.
fn sample_with_allreduce(dir: &Path) {
    kernel_details(
        dir,
        "no_sk_model",
        &[
            ("GroupedMatmul_1", "GroupedMatmul", "MIX_AIC", 126.26),
            ("MoeGatingTopK_2", "MoeGatingTopK", "AI_VECTOR_CORE", 68.32),
            (
                "DequantSwigluQuant_3",
                "DequantSwigluQuant",
                "AI_VECTOR_CORE",
                24.18,
            ),
            ("hcom_allReduce__1_0", "HcomAllReduce", "HCCL", 12.35),
            ("Transpose_4", "Transpose", "AI_VECTOR_CORE", 90.02),
            ("Add_5", "Add", "AI_VECTOR_CORE", 98.76),
        ],
    );
    kernel_details(
        dir,
        "sk_model",
        &[
            (
                "sk_moe_start_GroupedMatmul_1_end_DequantSwigluQuant_3",
                "SuperKernel",
                "MIX_AIC",
                172.4,
            ),
            ("sk_moe_2_start_a_end_b", "SuperKernel", "MIX_AIV", 18.48),
            ("Transpose_4", "Transpose", "AI_VECTOR_CORE", 92.42),
            ("Add_5", "Add", "AI_VECTOR_CORE", 101.36),
        ],
    );
}

#[test]
fn communication_stays_out_of_the_totals_and_the_benefit() {
    let dir = scratch("comm");
    sample_with_allreduce(&dir);
    let pair = load_pair(&dir, None, None).unwrap();
    let d = diff(&pair, None);
    assert_close(d.base_total_us, 407.54, 1e-6);
    assert_close(d.new_total_us, 384.66, 1e-6);
    assert_close(d.benefit_pct.unwrap(), 5.61, 0.005);
    assert!(d.rows.iter().all(|r| r.op_type != "HcomAllReduce"));
    assert!(
        d.attribution
            .fused_types
            .iter()
            .all(|t| t.op_type != "HcomAllReduce")
    );
    let c = d.communication.as_ref().expect("a communication line");
    assert_close(c.base.unwrap().total_us, 12.35, 1e-9);
    assert_eq!(c.new, None);
    assert_close(c.delta_us, -12.35, 1e-9);
    assert_eq!(c.rows[0].status, RowStatus::Communication);
    let text = skope::profile::output::to_text(&d);
    assert!(
        text.contains("communication kernels  12.35 µs → 0.00 µs busy   Δ ▼ −12.35 µs   (HcomAllReduce; apart from the table below)"),
        "{text}"
    );
    // Busy time leaves communication out; the step time has it in its waterfall.
    assert!(
        text.contains("busy time 407.54 → 384.66 µs (kernels' durations added up"),
        "{text}"
    );
    assert!(
        text.contains("communication outside every segment"),
        "{text}"
    );
    let csv = skope::profile::output::to_csv(&d);
    assert!(
        csv.contains("HcomAllReduce,HCCL,communication,1,12.350"),
        "{csv}"
    );
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["communication"]["rows"][0]["status"], "communication");
}

#[test]
fn op_statistic_against_a_kernel_file_is_compared_kernel_file_to_kernel_file() {
    let dir = scratch("kinds");
    sample_with_allreduce(&dir);
    // The base also has an op statistic, which leaves the AllReduce out and a Cast in.
    let base_out = dir.join("no_sk_model/ASCEND_PROFILER_OUTPUT");
    std::fs::write(
        base_out.join("op_statistic.csv"),
        "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)\n\
         GroupedMatmul,MIX_AIC,1,126.26,126.26,126.26,126.26,30\n\
         Cast,AI_VECTOR_CORE,1,50.0,50.0,50.0,50.0,10\n",
    )
    .unwrap();
    let pair = load_pair(&dir, None, None).unwrap();
    let d = diff(&pair, None);
    // Both sides from their kernel files: the op statistic's Cast is not compared.
    assert!(d.rows.iter().all(|r| r.op_type != "Cast"));
    assert_close(d.base_total_us, 407.54, 1e-6);
    assert!(d.base_source.by_type_from_kernels && d.new_source.by_type_from_kernels);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("added up from their kernel files")),
        "{:?}",
        d.notes
    );
    // Without the base's kernel file the two kinds cannot be matched: say so.
    std::fs::remove_file(base_out.join("kernel_details.csv")).unwrap();
    let d = diff(&load_pair(&dir, None, None).unwrap(), None);
    assert!(
        d.notes.iter().any(|n| n.contains("count different rows")),
        "{:?}",
        d.notes
    );
}

#[test]
fn level0_kernel_files_are_compared_by_kernel_name_and_say_so() {
    let dir = scratch("level0");
    kernel_details(
        &dir,
        "no_sk_model",
        &[
            ("MatMul_1", "N/A", "N/A", 10.0),
            ("MatMul_2", "N/A", "N/A", 12.0),
            ("Add_3", "N/A", "N/A", 5.0),
            ("Cast_4", "N/A", "N/A", 3.0),
        ],
    );
    kernel_details(
        &dir,
        "sk_model",
        &[
            ("sk_s_start_MatMul_1_end_Add_3", "N/A", "N/A", 20.0),
            ("Cast_4", "N/A", "N/A", 3.0),
        ],
    );
    let d = diff(&load_pair(&dir, None, None).unwrap(), None);
    let types: Vec<&str> = d.rows.iter().map(|r| r.op_type.as_str()).collect();
    // Not two rows of N/A: MatMul, Add and Cast each have theirs.
    assert!(
        types.contains(&"MatMul") && types.contains(&"Add") && types.contains(&"Cast"),
        "{types:?}"
    );
    let matmul = d.rows.iter().find(|r| r.op_type == "MatMul").unwrap();
    assert_eq!(matmul.base.unwrap().count, 2);
    assert!(
        d.notes.iter().any(|n| n.contains("Type is N/A")),
        "{:?}",
        d.notes
    );
    // No profiler_info: the level is not guessed.
    assert!(
        !d.notes.iter().any(|n| n.contains("Level")),
        "{:?}",
        d.notes
    );

    // With one, the level is the profile's own word.
    std::fs::write(
        dir.join("sk_model/profiler_info_0.json"),
        r#"{"config": {"common_config": {}, "experimental_config": {"_profiler_level": "Level0"}}}"#,
    )
    .unwrap();
    let d = diff(&load_pair(&dir, None, None).unwrap(), None);
    assert!(
        d.notes
            .iter()
            .any(|n| n.starts_with("new:") && n.contains("(Type is N/A) (Level0 profile)")),
        "{:?}",
        d.notes
    );
    assert!(
        !d.notes
            .iter()
            .any(|n| n.starts_with("base:") && n.contains("Level")),
        "{:?}",
        d.notes
    );
}

#[test]
fn a_kernel_file_cut_inside_a_quoted_field_says_so() {
    let dir = scratch("cut-quote");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kernel_details.csv");
    // Cut while the profiler wrote the shapes of the second kernel.
    std::fs::write(
        &path,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Input Shapes\n\
         1,Add_1,Add,AI_VECTOR_CORE,100.0,5.0,0.0,\"8,8;8,8\"\n\
         1,MatMul_2,MatMul,AI_CORE,106.0,7.0,0.0,\"81920,40",
    )
    .unwrap();
    let e = KernelTable::read(std::slice::from_ref(&path)).unwrap_err();
    let m = message(&e);
    assert!(m.contains("kernel_details.csv:3"), "{m}");
    assert!(m.contains("ends inside a quoted field"), "{m}");
    assert!(m.contains("copy it again"), "{m}");

    // A last line merely without its newline is read.
    std::fs::write(
        &path,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Input Shapes\n\
         1,Add_1,Add,AI_VECTOR_CORE,100.0,5.0,0.0,\"8,8;8,8\"",
    )
    .unwrap();
    assert_eq!(KernelTable::read(&[path]).unwrap().rows, 1);
}

#[test]
fn nothing_prints_as_minus_zero() {
    let dir = scratch("zero");
    let rows = [("Add_1", "Add", "AI_VECTOR_CORE", 5.0)];
    kernel_details(&dir, "no_sk_model", &rows);
    kernel_details(&dir, "sk_model", &rows);
    let d = diff(&load_pair(&dir, None, None).unwrap(), None);
    let text = skope::profile::output::to_text(&d);
    assert!(!text.contains("-0.0"), "{text}");
    let json = serde_json::to_string(&d).unwrap();
    assert!(!json.contains("-0.0"), "{json}");
    let csv = skope::profile::output::to_csv(&d);
    assert!(!csv.contains("-0.0"), "{csv}");
    assert_eq!(skope::profile::output::fixed(-0.0001, 2), "0.00");
    assert_eq!(skope::profile::output::fixed(-0.006, 2), "-0.01");
    assert_eq!(skope::profile::output::micros(-4), "0.00");
    assert_eq!(skope::profile::output::delta_micros(-4), "= 0.00");
    assert_eq!(skope::profile::output::delta_micros(-6), "▼ −0.01");
}

/// A kernel_details.csv with one run of each of `names`, written to a fresh file.
fn kernel_file(name: &str, names: &[String]) -> PathBuf {
    let dir = scratch("kernels");
    let mut csv = String::from(
        "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n",
    );
    for (i, n) in names.iter().enumerate() {
        csv.push_str(&format!("{n},MatMulV3,AI_CORE,{}.0,4.5,0.5,20\n", i * 10));
    }
    let path = dir.join(name);
    std::fs::write(&path, csv).unwrap();
    path
}

#[test]
fn kernels_beyond_free_memory_stop_the_read_with_a_clear_error() {
    let names: Vec<String> = (0..1000).map(|i| format!("aclnnMatmul_{i}")).collect();
    let path = kernel_file("many_kernels.csv", &names);
    let tight = Some(100 * skope::profile::kernels::BYTES_PER_KERNEL);
    let e = KernelTable::read_within(std::slice::from_ref(&path), tight).unwrap_err();
    assert!(
        matches!(e, ProfileError::TooManyKernels { kernels: 101, .. }),
        "{e:?}"
    );
    let m = e.to_string();
    assert!(
        m.contains("many_kernels.csv: more than 101 distinct kernel names"),
        "{m}"
    );
    assert!(m.contains("rather than make the machine swap"), "{m}");
    let roomy = Some(1000 * skope::profile::kernels::BYTES_PER_KERNEL);
    assert_eq!(
        KernelTable::read_within(&[path], roomy).unwrap().len(),
        1000
    );
}

#[test]
fn a_huge_kernel_name_is_kept_cut_and_still_found() {
    let huge = format!("Kernel{}End", "k".repeat(1 << 20));
    let path = kernel_file("huge_kernel.csv", &[huge.clone(), "small".into()]);
    let table = KernelTable::read(&[path]).unwrap();
    assert_eq!(table.len(), 2);
    let stat = table.get(&huge).expect("found by its whole name");
    assert_eq!(stat.count, 1);
    assert!(table.iter().all(|(name, _)| name.len() <= 5 << 10));
}

/// A Level0 kernel file (no Step Id, types N/A but for communication) of `iterations`
/// iterations of a two-layer pass: HCCL names carry a per-call index and the AI CPU kernel
/// changes place in odd iterations; `sk` fuses each layer's MatMul and Add.
fn level0_kernels(iterations: usize, sk: bool) -> String {
    let mut out = String::from(
        "Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\n",
    );
    let mut t = 1_736_405_443_000_000.0_f64;
    let row = |out: &mut String, t: &mut f64, name: &str, core: &str, dur: f64| {
        let ty = if core == "COMMUNICATION" {
            "hcom_allReduce_"
        } else {
            "N/A"
        };
        out.push_str(&format!("0,{name},{ty},{core},{t:.3}\t,{dur:.3},1.0,8\n"));
        *t += dur + 1.0;
    };
    for i in 0..iterations {
        row(&mut out, &mut t, "aclnnEmbedding_Gather", "N/A", 5.0);
        for layer in 0..2 {
            if sk {
                row(
                    &mut out,
                    &mut t,
                    &format!("sk_l{layer}_start_MatMul_end_Add"),
                    "N/A",
                    14.0,
                );
            } else {
                row(
                    &mut out,
                    &mut t,
                    "aclnnMatmul_MatMulCommon_MatMulV2",
                    "N/A",
                    10.0,
                );
                row(&mut out, &mut t, "aclnnAdd_AddAiCore_Add", "N/A", 3.0);
            }
            if i % 2 == 1 && layer == 0 {
                row(&mut out, &mut t, "aicpu_Unique", "N/A", 2.0);
            }
            row(
                &mut out,
                &mut t,
                &format!("hcom_allReduce__503_{i}_{layer}"),
                "COMMUNICATION",
                4.0,
            );
        }
        if i % 2 == 0 {
            row(&mut out, &mut t, "aicpu_Unique", "N/A", 2.0);
        }
        row(&mut out, &mut t, "aclnnSoftmax_SoftmaxV2", "N/A", 6.0);
        t += 200.0;
    }
    out
}

#[test]
fn a_level0_file_of_ten_iterations_gives_ten_inferred_steps() {
    let dir = scratch("level0-steps");
    for (side, sk) in [("no_sk_model", false), ("sk_model", true)] {
        let out = dir.join(side).join("ASCEND_PROFILER_OUTPUT");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("kernel_details.csv"), level0_kernels(10, sk)).unwrap();
    }
    let d = diff(&load_pair(&dir, None, None).unwrap(), None);
    let steps = d.steps.as_ref().expect("steps");
    assert_eq!((steps.base.list.len(), steps.new.list.len()), (10, 10));
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("steps inferred from a repeating kernel sequence (10)")),
        "{:?}",
        d.notes
    );
    // Each step is one iteration: the embedding to the softmax, never the pause between.
    // Without: 5 + 2 × (10 + 3 + 4) + 2 + 6 = 47 µs in nine kernels, 1 µs apart.
    assert_eq!(d.account.base.mean_ns, 55_000, "{:?}", d.account.base);
    assert_eq!(d.account.base.kept, 10);
    // One iteration alone is one step, as before.
    let one = scratch("level0-one");
    let out = one.join("ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("kernel_details.csv"), level0_kernels(1, false)).unwrap();
    let (_, runs) =
        skope::profile::runs::Runs::read(&[out.join("kernel_details.csv")], None).unwrap();
    assert_eq!(runs.steps().len(), 1);
    // Names that differ in their digits are different ops, not calls of one.
    let mut ops = String::from("Name,Type,Accelerator Core,Duration(us),Wait Time(us)\n");
    for i in 0..1000 {
        ops.push_str(&format!("op_{i},Add,AI_CORE,1.0,0.5\n"));
    }
    std::fs::write(out.join("kernel_details.csv"), ops).unwrap();
    let (_, runs) =
        skope::profile::runs::Runs::read(&[out.join("kernel_details.csv")], None).unwrap();
    assert_eq!(runs.steps().len(), 1);
}

#[test]
fn msprof_task_time_alone_reads_as_kernels_without_the_tasks_that_are_none() {
    let dir = fixture("kernels/PROF_000002_20260301000000000_TASKTIMEONLYAAAA");
    let Found::One(files) = discover(&dir).unwrap() else {
        panic!("one profile expected")
    };
    assert_eq!(files.kernel_form, Some(KernelForm::TaskTime));
    let mut reader = KernelReader::open(&files.kernels);
    let mut rows = Vec::new();
    while let Some(r) = reader.next_row().unwrap() {
        rows.push((
            r.name.to_string(),
            r.start_ns,
            r.duration_ns,
            r.stream.map(str::to_string),
        ));
    }
    // PROFILING_ENABLE, TASK_TIMEOUT_SET and PROFILING_DISABLE are no kernels.
    assert_eq!(rows.len(), 3, "{rows:?}");
    // The start's trailing tab is gone; integer nanoseconds are exact.
    assert_eq!(rows[0].1, Some(1_772_323_200_000_010_125));
    assert_eq!(rows[0].2, Some(12_500));
    assert_eq!(rows[0].3.as_deref(), Some("2"));
    assert!(
        reader
            .notes()
            .iter()
            .any(|n| n.contains("3 row(s) without a kernel name")),
        "{:?}",
        reader.notes()
    );
    // Op types come from the binary names.
    let t = KernelTable::read(&files.kernels).unwrap();
    let s = t.type_statistic();
    assert_eq!(s.get("MatMulV2", "KERNEL_AICORE").unwrap().count, 2);
    assert_eq!(s.get("Add", "KERNEL_AIVEC").unwrap().count, 1);
}

#[test]
fn op_summary_with_a_metric_set_and_no_model_reads_by_column_name() {
    let file = fixture("kernels/op_summary_pipe_utilization_20260301000000.csv");
    let mut reader = KernelReader::open(std::slice::from_ref(&file));
    let first = reader.next_row().unwrap().unwrap();
    assert_eq!((first.name, first.op_type), ("layer0_qkv_proj", "MatMulV2"));
    assert_eq!(first.start_ns, Some(1_772_323_200_000_010_125));
    assert_eq!(first.block_num, Some(24));
    // 4294967295 is msprof's "no model".
    assert_eq!(first.model, None);
    let t = KernelTable::read(&[file]).unwrap();
    assert_eq!(t.rows, 2);
}
