//! What a profile without SuperKernel says about the boundaries a scope would remove: for each
//! kernel name, the scheduling gap before it on its stream and its head/tail overhead.
//!
//! msprof's `Wait Time` is measured over every task of the device, not per stream, so the
//! gaps are recomputed per `Stream ID` (or, without that column, per the graph's stream of the
//! op of that name) within each step: `gap_i = max(0, start_i − (start_{i−1} + dur_{i−1}))`
//! for consecutive kernels of one step (the idle time between steps is no scheduling gap, and
//! a step's first kernel on a stream has none); where the profile has the PMU core-time
//! columns, `head_i = dur_i − core_i`.
//!
//! Read for a graph, each op's kernel timing is looked up once here, not each time
//! suggestions are made.

use crate::fusion::plan::Context;
use crate::graph::OpId;
use crate::profile::error::ProfileError;
use crate::profile::kernels::KernelReader;
use std::collections::HashMap;
use std::path::PathBuf;

/// What the profile measured for one kernel name, summed over its runs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct KernelTiming {
    /// Runs.
    pub runs: u64,
    /// Sum of the gaps before its runs (runs that start their stream add none), µs.
    pub gap_us: f64,
    /// Runs with a gap measured (not the first of their stream).
    pub gaps: u64,
    /// Sum of its runs' durations, µs.
    pub duration_us: f64,
    /// Sum of its runs' head/tail overhead (duration − core time), µs.
    pub head_us: f64,
    /// Runs with a core time.
    pub heads: u64,
}

impl KernelTiming {
    /// Mean gap before a run, µs.
    pub fn gap(&self) -> f64 {
        mean(self.gap_us, self.gaps)
    }

    /// Mean head/tail overhead of a run, µs.
    pub fn head(&self) -> f64 {
        mean(self.head_us, self.heads)
    }

    /// Mean duration of a run, µs.
    pub fn duration(&self) -> f64 {
        mean(self.duration_us, self.runs)
    }
}

/// FNV-1a for kernel names: the table is looked up once per op of a 100k-op graph each time
/// suggestions are made, where SipHash's resistance to chosen keys buys nothing.
#[derive(Debug, Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The hasher of [`Timing::kernels`].
pub type NameHash = std::hash::BuildHasherDefault<Fnv>;

fn mean(sum: f64, n: u64) -> f64 {
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// A profile's timing by kernel name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timing {
    /// By kernel name.
    pub kernels: HashMap<String, KernelTiming, NameHash>,
    /// By op of the graph it was read for (the op's name's kernel), when it was read for one.
    pub by_op: Vec<Option<KernelTiming>>,
    /// Steps the profile holds (distinct `Step Id`s; 1 without the column).
    pub steps: u64,
    /// True when the profile has a `Stream ID` column (else streams come from the graph).
    pub by_stream_id: bool,
    /// True when the profile has core-time columns (else heads are 0).
    pub has_core_time: bool,
    /// The files read.
    pub files: Vec<PathBuf>,
    /// Each op's runs with their step, start and duration (µs), when the profile gives start
    /// times: where a scope's kernels overlapped, which one SuperKernel runs serially.
    pub runs_by_op: Vec<Vec<(u32, f64, f64)>>,
}

impl Timing {
    /// The timing of kernel `name`.
    pub fn get(&self, name: &str) -> Option<&KernelTiming> {
        self.kernels.get(name)
    }

    /// The durations of `ops`' kernels added up less the time they span together (first start
    /// to last end) in each step, µs, as a mean over the steps they ran in: minus the idle time
    /// between them when they ran one after another, more than 0 when they overlapped on
    /// several streams. `None` without start times.
    pub fn busy_less_span_us(&self, ops: &[OpId]) -> Option<f64> {
        // Per step: the durations added up, the first start, the last end (a profile holds a
        // few steps: looked up in a short list).
        let mut by_step: Vec<(u32, f64, f64, f64)> = Vec::new();
        for &id in ops {
            for &(step, start, duration) in self.runs_by_op.get(id.index())? {
                let at = match by_step.iter().position(|s| s.0 == step) {
                    Some(at) => at,
                    None => {
                        by_step.push((step, 0.0, f64::INFINITY, f64::NEG_INFINITY));
                        by_step.len() - 1
                    }
                };
                let (_, busy, first, last) = &mut by_step[at];
                *busy += duration;
                *first = first.min(start);
                *last = last.max(start + duration);
            }
        }
        if by_step.is_empty() {
            return None;
        }
        let total: f64 = by_step
            .iter()
            .map(|(_, busy, first, last)| busy - (last - first))
            .sum();
        Some(total / by_step.len() as f64)
    }

    /// Runs of `name` per step (at least 1 when it ran).
    pub fn per_step(&self, name: &str) -> f64 {
        self.get(name)
            .map_or(0.0, |k| k.runs as f64 / self.steps.max(1) as f64)
    }
}

/// One run, kept until its stream is sorted.
struct Run {
    start: f64,
    duration: f64,
    name: u32,
}

/// Reads the kernel rows of `files`, for the graph of `cx` when given: its streams stand in when
/// the profile has no `Stream ID`, and [`Timing::by_op`] gives each op's kernel timing.
pub fn read(files: &[PathBuf], cx: Option<&Context>) -> Result<Timing, ProfileError> {
    let op_of: HashMap<&str, OpId, NameHash> = cx
        .map(|cx| {
            let graph = cx.graph();
            graph
                .ops()
                .iter()
                .enumerate()
                .map(|(i, op)| (op.name.as_str(), OpId(i as u32)))
                .collect()
        })
        .unwrap_or_default();
    let stream_of = |name: &str| Some(cx?.stream_of(*op_of.get(name)?));
    let mut reader = KernelReader::open(files);
    let mut names: HashMap<String, u32, NameHash> = HashMap::default();
    let mut by_name: Vec<KernelTiming> = Vec::new();
    let mut streams: HashMap<String, Vec<Run>> = HashMap::new();
    let mut steps: std::collections::HashSet<String> = Default::default();
    let mut step_ids: HashMap<String, u32> = HashMap::new();
    let mut runs_by_name: Vec<Vec<(u32, f64, f64)>> = Vec::new();
    let (mut by_stream_id, mut has_core_time) = (false, false);
    while let Some(row) = reader.next_row()? {
        let Some(duration) = row.duration_us else {
            continue;
        };
        let id = match names.get(row.name) {
            Some(&id) => id,
            None => {
                names.insert(row.name.to_string(), by_name.len() as u32);
                by_name.push(KernelTiming::default());
                runs_by_name.push(Vec::new());
                (by_name.len() - 1) as u32
            }
        };
        let k = &mut by_name[id as usize];
        k.runs += 1;
        k.duration_us += duration;
        if let Some(core) = row.core_us {
            has_core_time = true;
            k.head_us += (duration - core).max(0.0);
            k.heads += 1;
        }
        if let Some(step) = row.step {
            steps.insert(step.to_string());
        }
        let Some(start) = row.start_us else { continue };
        // Gaps are measured within a step: the idle time between steps is no scheduling gap
        // (a step's first kernel on a stream has none).
        let step = row.step.unwrap_or_default();
        let next = step_ids.len() as u32;
        let step_id = *step_ids.entry(step.to_string()).or_insert(next);
        runs_by_name[id as usize].push((step_id, start, duration));
        let stream = match row.stream {
            Some(s) => {
                by_stream_id = true;
                s.to_string()
            }
            None => match stream_of(row.name) {
                Some(s) => format!("graph {s}"),
                None => "device".to_string(),
            },
        };
        streams
            .entry(format!("{step}\u{0}{stream}"))
            .or_default()
            .push(Run {
                start,
                duration,
                name: id,
            });
    }
    for runs in streams.values_mut() {
        runs.sort_by(|a, b| a.start.total_cmp(&b.start));
        for pair in runs.windows(2) {
            let gap = (pair[1].start - (pair[0].start + pair[0].duration)).max(0.0);
            let k = &mut by_name[pair[1].name as usize];
            k.gap_us += gap;
            k.gaps += 1;
        }
    }
    let ops = cx.map_or(0, |cx| cx.graph().len());
    let mut by_op: Vec<Option<KernelTiming>> = vec![None; ops];
    let mut runs_by_op: Vec<Vec<(u32, f64, f64)>> = vec![Vec::new(); ops];
    let mut kernels = HashMap::with_capacity_and_hasher(names.len(), NameHash::default());
    for (name, id) in names {
        if let Some(op) = op_of.get(name.as_str()) {
            by_op[op.index()] = Some(by_name[id as usize]);
            runs_by_op[op.index()] = std::mem::take(&mut runs_by_name[id as usize]);
        }
        kernels.insert(name, by_name[id as usize]);
    }
    Ok(Timing {
        by_op,
        kernels,
        steps: steps.len().max(1) as u64,
        by_stream_id,
        has_core_time,
        files: files.to_vec(),
        runs_by_op,
    })
}
