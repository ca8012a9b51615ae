//! Profile pairs with a known truth: a base profile (without SuperKernel) and a new one (with
//! it) written as `kernel_details.csv` from a description of segments — their sub-ops'
//! durations, the gaps between them, how the SuperKernel does — over several steps, with the
//! plan that binds them. What the payoffs must come out as is in the description.

use skope::profile::{PlannedFusion, PlannedOp, PlannedSegment};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How a segment's SuperKernel does against its kernels' interval.
#[derive(Debug, Clone, Copy)]
pub enum Sk {
    /// It takes exactly its sub-ops' durations: it saves the gaps and nothing else.
    SavesGaps,
    /// It takes the interval times this.
    Times(f64),
    /// It runs its sub-ops one after another: their durations added up, times this (a
    /// segment whose sub-ops overlapped on two streams without SuperKernel loses the overlap).
    Serial(f64),
}

/// One segment of the workload.
#[derive(Debug, Clone)]
pub struct Seg {
    /// Its scope.
    pub scope: String,
    /// Its segment name.
    pub name: String,
    /// Its sub-ops: name and duration, µs.
    pub ops: Vec<(String, f64)>,
    /// The gap before each sub-op after the first, µs.
    pub gap_us: f64,
    /// How its SuperKernel does.
    pub sk: Sk,
    /// Executions per step.
    pub per_step: usize,
    /// The steps (from 1) it runs in; all when empty.
    pub only_steps: Vec<usize>,
    /// True when the new profile ran its sub-ops unfused (the plan predicted a SuperKernel).
    pub unfused_in_new: bool,
    /// True when its sub-ops run two at a time without SuperKernel, on streams 2 and 3 (they
    /// overlap: the interval is shorter than their durations added up).
    pub parallel: bool,
    /// Its scope's options text.
    pub options: String,
    /// How much longer its SuperKernel waits before it starts than its first sub-op did, µs.
    pub sk_waits_us: f64,
}

impl Seg {
    /// A segment of `scope` named `name` with `ops` sub-ops of `dur_us` each, `gap_us` apart.
    pub fn new(scope: &str, name: &str, ops: usize, dur_us: f64, gap_us: f64, sk: Sk) -> Seg {
        Seg {
            scope: scope.to_string(),
            name: name.to_string(),
            ops: (0..ops)
                .map(|i| (format!("{name}_op{i}"), dur_us))
                .collect(),
            gap_us,
            sk,
            per_step: 1,
            only_steps: Vec::new(),
            unfused_in_new: false,
            parallel: false,
            options: String::new(),
            sk_waits_us: 0.0,
        }
    }

    /// Its SuperKernel's kernel name.
    pub fn fused_node(&self) -> String {
        let first = &self.ops[0].0;
        let last = &self.ops[self.ops.len() - 1].0;
        format!("sk_{}_start_{first}_end_{last}", self.name)
    }

    fn runs_in(&self, step: usize) -> bool {
        self.only_steps.is_empty() || self.only_steps.contains(&step)
    }
}

/// The workload of a pair.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Steps profiled on each side.
    pub steps: usize,
    /// The segments, in order; an unfused kernel of 2 µs runs between two.
    pub segments: Vec<Seg>,
    /// Jitter on every duration, in percent (±), deterministic.
    pub jitter_pct: f64,
    /// A step (from 1) whose every kernel takes this many times longer, on both sides.
    pub slow_step: Option<(usize, f64)>,
    /// Kernels beside the segments: one on stream 3 under the first segment (hidden by it),
    /// and a communication kernel after the last (exposed).
    pub side_kernels: bool,
}

/// A deterministic jitter source (its seed).
pub struct Jitter(pub u64);

impl Jitter {
    /// The next factor within ±`pct` percent of 1.
    pub fn factor(&mut self, pct: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let unit = (self.0 >> 11) as f64 / (1u64 << 53) as f64;
        1.0 + (unit * 2.0 - 1.0) * pct / 100.0
    }
}

/// A kernel file being written: its text and where each stream's last kernel ended, for
/// each row's `Wait Time` (from that end to the row's start, as the profiler measures it).
struct Rows {
    text: String,
    ends: std::collections::HashMap<u32, f64>,
}

impl Rows {
    fn push(&mut self, step: usize, (name, ty, stream): (&str, &str, u32), start: f64, dur: f64) {
        let core = if ty == "HcomAllReduce" {
            "COMMUNICATION"
        } else {
            "AI_VECTOR_CORE"
        };
        let wait = self
            .ends
            .get(&stream)
            .map_or(0.0, |end| (start - end).max(0.0));
        self.ends.insert(stream, start + dur);
        let _ = writeln!(
            self.text,
            "{step},0,{name},{ty},{core},\"{start:.3}\t\",{dur:.3},{wait:.3},{stream}"
        );
    }
}

/// One side's kernel_details.csv text.
fn side(w: &Workload, with_sk: bool, seed: u64) -> String {
    let mut rows = Rows {
        text: String::from(
            "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait \
             Time(us),Stream ID\n",
        ),
        ends: Default::default(),
    };
    let out = &mut rows;
    let mut jitter = Jitter(seed);
    let mut t = 1_736_413_971_558_000.0_f64;
    let on = |out: &mut Rows, step: usize, what: (&str, &str, u32), start: f64, dur: f64| {
        out.push(step, what, start, dur)
    };
    let row = |out: &mut Rows, step: usize, name: &str, ty: &str, start: f64, dur: f64| {
        out.push(step, (name, ty, 2), start, dur)
    };
    for step in 1..=w.steps {
        let slow = match w.slow_step {
            Some((s, f)) if s == step => f,
            _ => 1.0,
        };
        for (i, seg) in w.segments.iter().enumerate() {
            if i > 0 {
                let d = 2.0 * slow * jitter.factor(w.jitter_pct);
                row(out, step, "unfused_between", "Cast", t, d);
                t += d + 1.0;
            }
            if !seg.runs_in(step) {
                continue;
            }
            for _ in 0..seg.per_step {
                let durs: Vec<f64> = seg
                    .ops
                    .iter()
                    .map(|(_, d)| d * slow * jitter.factor(w.jitter_pct))
                    .collect();
                let sum: f64 = durs.iter().sum();
                // Two at a time, the pair as long as its longer one; else one after another.
                let interval = if seg.parallel {
                    durs.chunks(2)
                        .map(|c| c.iter().copied().fold(0.0, f64::max))
                        .sum::<f64>()
                        + seg.gap_us * (durs.len().div_ceil(2) - 1) as f64
                } else {
                    sum + seg.gap_us * (seg.ops.len() - 1) as f64
                };
                if i == 0 && w.side_kernels {
                    // Under the first segment on another stream: hidden by it.
                    on(out, step, ("side_stream_kernel", "Mul", 3), t + 0.5, 1.0);
                }
                if with_sk && !seg.unfused_in_new {
                    t += seg.sk_waits_us;
                    let d = match seg.sk {
                        Sk::SavesGaps => sum,
                        Sk::Times(f) => interval * f,
                        Sk::Serial(f) => sum * f,
                    };
                    row(out, step, &seg.fused_node(), "SuperKernel", t, d);
                    t += d + 1.0;
                } else if seg.parallel {
                    for (k, pair) in seg.ops.chunks(2).enumerate() {
                        let d = &durs[2 * k..2 * k + pair.len()];
                        for (j, (name, _)) in pair.iter().enumerate() {
                            on(out, step, (name, "Add", 2 + j as u32), t, d[j]);
                        }
                        t += d.iter().copied().fold(0.0, f64::max) + seg.gap_us;
                    }
                    t += 1.0 - seg.gap_us;
                } else {
                    for ((name, _), d) in seg.ops.iter().zip(&durs) {
                        row(out, step, name, "Add", t, *d);
                        t += d + seg.gap_us;
                    }
                    t += 1.0 - seg.gap_us;
                }
            }
        }
        if w.side_kernels {
            let d = 3.0 * slow * jitter.factor(w.jitter_pct);
            on(out, step, ("allreduce_tail", "HcomAllReduce", 4), t, d);
            t += d;
        }
        t += 50.0;
    }
    rows.text
}

/// Writes the pair under `dir` (`no_sk_model/…/kernel_details.csv`, `sk_model/…`) and returns
/// the directory holding both, with the plan that binds them.
pub fn write(w: &Workload, dir: &Path) -> (PathBuf, PlannedFusion) {
    write_side_dirs(w, dir, "");
    (dir.to_path_buf(), plan_of(w))
}

/// Writes one pair per rank under `dir` (`no_sk_model/rank<N>_ascend_pt/…`, `sk_model/…`):
/// rank N runs `ranks[N]`; returns the directory with the plan of the first rank's workload.
pub fn write_ranks(ranks: &[Workload], dir: &Path) -> (PathBuf, PlannedFusion) {
    for (n, w) in ranks.iter().enumerate() {
        write_side_dirs(w, dir, &format!("rank{n}_ascend_pt"));
    }
    (dir.to_path_buf(), plan_of(&ranks[0]))
}

fn write_side_dirs(w: &Workload, dir: &Path, rank_dir: &str) {
    for (variant, with_sk, seed) in [("no_sk_model", false, 7), ("sk_model", true, 11)] {
        let out = dir
            .join(variant)
            .join(rank_dir)
            .join("ASCEND_PROFILER_OUTPUT");
        std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        std::fs::write(out.join("kernel_details.csv"), side(w, with_sk, seed))
            .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    }
}

/// The plan that binds a pair of workload `w`.
fn plan_of(w: &Workload) -> PlannedFusion {
    PlannedFusion {
        source: "the generated workload".to_string(),
        segments: w
            .segments
            .iter()
            .map(|s| PlannedSegment {
                scope: s.scope.clone(),
                segment: s.name.clone(),
                fused_node: s.fused_node(),
                ops: s
                    .ops
                    .iter()
                    .map(|(name, _)| PlannedOp {
                        name: name.clone(),
                        op_type: Some("Add".to_string()),
                        call: None,
                    })
                    .collect(),
                options: s.options.clone(),
            })
            .collect(),
        breaks: Vec::new(),
        inferred: false,
    }
}
