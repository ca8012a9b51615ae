//! `skope export --format trace`: the profiles as Chrome trace events, checked structurally —
//! every event well-formed, slices on each track nested or apart, times relative to each
//! profile's first kernel with the absolute start in the metadata, names escaped.

use crate::common::{example_arg, repo, skope};
use serde_json::Value;
use std::collections::HashMap;

const GRAPH: &str = "moe_decode.ge_proto.txt";

fn trace(args: &[&str]) -> Value {
    let out = skope(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON: {e}"))
}

/// Every event's shape, and each (pid, tid) track's slices nested or apart.
fn check(trace: &Value) -> Vec<&Value> {
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let mut tracks: HashMap<(u64, u64), Vec<(f64, f64)>> = HashMap::new();
    for e in events {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["pid"].as_u64().is_some(), "{e}");
        match ph {
            "M" => {
                let name = e["name"].as_str().expect("name");
                assert!(
                    [
                        "process_name",
                        "thread_name",
                        "process_sort_index",
                        "thread_sort_index"
                    ]
                    .contains(&name),
                    "{e}"
                );
                assert!(e["args"].is_object(), "{e}");
            }
            "X" => {
                let (ts, dur) = (
                    e["ts"].as_f64().expect("ts"),
                    e["dur"].as_f64().expect("dur"),
                );
                assert!(ts >= 0.0 && dur >= 0.0, "{e}");
                assert!(e["name"].as_str().is_some_and(|n| !n.is_empty()), "{e}");
                let tid = e["tid"].as_u64().expect("tid");
                tracks
                    .entry((e["pid"].as_u64().unwrap_or(0), tid))
                    .or_default()
                    .push((ts, ts + dur));
            }
            "i" => {
                assert_eq!(e["s"], "t", "{e}");
                assert!(
                    e["tid"].as_u64().is_some() && e["ts"].as_f64().is_some(),
                    "{e}"
                );
                assert!(e["args"]["reason"].as_str().is_some(), "{e}");
            }
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for (track, mut slices) in tracks {
        // Longer first at equal starts, as Perfetto sorts them.
        slices.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut open: Vec<(f64, f64)> = Vec::new();
        for s in slices {
            while open.last().is_some_and(|top| s.0 >= top.1 - 1e-9) {
                open.pop();
            }
            if let Some(top) = open.last() {
                assert!(s.1 <= top.1 + 1e-9, "{track:?}: {s:?} overlaps {top:?}");
            }
            open.push(s);
        }
    }
    events.iter().collect()
}

#[test]
fn the_bundled_pair_is_a_well_formed_trace_marked_with_the_plan() {
    let profiles = repo("assets/examples/prof_result");
    let t = trace(&[
        "export",
        &example_arg(GRAPH),
        "--format",
        "trace",
        "--profiles",
        &profiles.to_string_lossy(),
    ]);
    let events = check(&t);
    let kernels: Vec<&&Value> = events.iter().filter(|e| e["cat"] == "kernel").collect();
    // Both kernel files whole: 5 steps a side.
    let rows = |side: &str| {
        let dir = profiles
            .join(side)
            .join("npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT");
        std::fs::read_to_string(dir.join("kernel_details.csv"))
            .map(|t| t.lines().count() - 1)
            .unwrap_or(0)
    };
    assert_eq!(kernels.len(), rows("no_sk_model") + rows("sk_model"));
    // Each profile from its own first kernel, its absolute start in the metadata.
    for pid in [1, 2] {
        let first = kernels
            .iter()
            .filter(|e| e["pid"] == pid)
            .map(|e| e["ts"].as_f64().unwrap_or(f64::MAX))
            .fold(f64::MAX, f64::min);
        assert_eq!(first, 0.0);
    }
    assert_eq!(t["metadata"]["base_start_ns"], "1736413971558000000");
    // The plan: segment ops and SuperKernels carry their scope and segment, breaks are
    // instants with their reason, segments are spans on a track beside their stream.
    let rms = kernels
        .iter()
        .find(|e| e["name"] == "layer0_input_rmsnorm")
        .expect("a segment op");
    assert_eq!(rms["args"]["segment"], "attn_0");
    assert_eq!(rms["args"]["plan"], "segment op");
    let sk = kernels
        .iter()
        .find(|e| e["args"]["plan"] == "SuperKernel")
        .expect("a SuperKernel");
    assert_eq!(sk["pid"], 2);
    let breaks: Vec<&&Value> = events.iter().filter(|e| e["ph"] == "i").collect();
    assert!(!breaks.is_empty());
    assert!(
        breaks
            .iter()
            .all(|b| b["name"].as_str().is_some_and(|n| n.starts_with("✗ ")))
    );
    let spans: Vec<&&Value> = events.iter().filter(|e| e["cat"] == "segment").collect();
    assert!(
        spans
            .iter()
            .any(|s| s["name"] == "attn_0" && s["tid"] == 1_000_000)
    );
    // Streams from the graph (the profile has none): stream 0 and 1 each a thread.
    let threads: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name" && e["pid"] == 1)
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(
        threads.contains(&"stream 0") && threads.contains(&"stream 1"),
        "{threads:?}"
    );
}

#[test]
fn one_step_one_profile_and_names_that_need_escaping() {
    let dir = crate::common::scratch("cli-trace");
    let csv = dir.join("kernel_details.csv");
    std::fs::write(
        &csv,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Stream ID\n\
         1,\"odd \"\"name\"\" \\\\ \u{1b}[2J\",Add,AI_CORE,\"100.000\t\",2.5,3\n\
         2,layer0_add,Add,AI_CORE,\"200.000\t\",1.25,3\n",
    )
    .expect("write");
    let t = trace(&[
        "export",
        &example_arg(GRAPH),
        "--format",
        "trace",
        "--profiles",
        &csv.to_string_lossy(),
        "--step",
        "1",
    ]);
    let events = check(&t);
    let kernels: Vec<&&Value> = events.iter().filter(|e| e["cat"] == "kernel").collect();
    assert_eq!(kernels.len(), 1);
    let name = kernels[0]["name"].as_str().expect("a name");
    // The name itself, as in every output (the escape character is `\u001b` in the file).
    assert_eq!(name, "odd \"name\" \\\\ \u{1b}[2J");
    assert_eq!(kernels[0]["tid"], 3);
    assert_eq!(t["metadata"]["step"], "1");
    assert!(t["metadata"]["profile_start_ns"].is_string());
}

#[test]
fn the_trace_needs_profiles_and_leaves_nothing_half_written() {
    let out = skope(&["export", &example_arg(GRAPH), "--format", "trace"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("give --profiles"));
    let out = skope(&["export", &example_arg(GRAPH), "--profiles", "x"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = crate::common::scratch("cli-trace-out");
    let target = dir.join("no/such/dir/t.json");
    let out = skope(&[
        "export",
        &example_arg(GRAPH),
        "--format",
        "trace",
        "--profiles",
        &repo("assets/examples/prof_result").to_string_lossy(),
        "-o",
        &target.to_string_lossy(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot write"));
    assert!(!dir.join("no").exists());
}

#[test]
fn an_aclgraph_models_superkernels_are_a_process_on_the_device_clock() {
    let dir = crate::common::scratch("cli-trace-acl");
    let csv = dir.join("kernel_details.csv");
    std::fs::write(
        &csv,
        "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Stream ID\n\
         1,sk_14_attn_0_start_RmsNorm_5cce7ee1_end_ApplyRotaryPosEmb_9ef39792,SuperKernel,MIX_AIC,\"100.000\t\",14.0,2\n",
    )
    .expect("write");
    let out = skope(&[
        "export",
        &repo("assets/examples/aclgraph").to_string_lossy(),
        "--format",
        "trace",
        "--profiles",
        &csv.to_string_lossy(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("device clock: not lined up"));
    let t: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let events = check(&t);
    let process = events
        .iter()
        .find(|e| e["name"] == "process_name" && e["pid"] == 2)
        .expect("the device clock's process");
    assert_eq!(
        process["args"]["name"],
        "SuperKernels inside (sk_prof, device clock)"
    );
    // SuperKernel 14 on its Vector thread: the whole SuperKernel, its two vector sub-ops
    // nested in it (the nesting is checked above).
    let thread = events
        .iter()
        .find(|e| {
            e["name"] == "thread_name"
                && e["pid"] == 2
                && e["args"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("sk_14_") && n.ends_with(" · Vector"))
        })
        .expect("sk_14's Vector thread");
    let slices: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 2 && e["tid"] == thread["tid"])
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(slices.len(), 3, "{slices:?}");
    assert!(slices[0].starts_with("sk_14_"));
    assert_eq!(
        &slices[1..],
        ["RmsNorm_5cce7ee1", "ApplyRotaryPosEmb_9ef39792"]
    );
}
