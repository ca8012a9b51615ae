//! Kernels from `trace_view.json`, the last resort: a text export that has no kernel_details.csv.
//!
//! Kernels are the complete (`"ph": "X"`) events of the `Ascend Hardware` process (found by
//! its name, never by pid) whose `Task Type` is a compute task as msprof-analyze counts them;
//! the thread is the stream. Communication ops are the events of the `HCCL` process's
//! `Group … Communication` threads. `ts` is read as an exact decimal (µs with three fraction
//! digits). The trace has no op type and no accelerator core: the rows say so (`N/A`, an
//! empty core) rather than guess. Steps: the `ProfilerStep#N` events' host windows carried to
//! the device through the `HostToDevice` flows, else the host windows. Facts:
//! reference/profiler_db.md §4.

use super::columns::decimal_nanos;
use super::error::ProfileError;
use super::row::KernelRow;
use super::step_ranges::{Launches, StepRanges};
use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The process of the device's tasks.
const HARDWARE: &str = "Ascend Hardware";
/// The process of communication.
const HCCL: &str = "HCCL";
/// The hardware task types msprof-analyze counts as computation (`TraceEventBean`).
const COMPUTE_TASKS: [&str; 6] = [
    "AI_CORE",
    "MIX_AIC",
    "MIX_AIV",
    "AI_CPU",
    "AI_VECTOR_CORE",
    "FFTS_PLUS",
];
/// What a step event's name starts with.
const STEP_PREFIX: &str = "ProfilerStep#";

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    ph: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pid: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tid: Option<&'a RawValue>,
    #[serde(default, borrow)]
    ts: Option<&'a RawValue>,
    #[serde(default, borrow)]
    dur: Option<&'a RawValue>,
    #[serde(default, borrow)]
    cat: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    args: Option<Args<'a>>,
}

#[derive(Deserialize, Default)]
struct Args<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "Task Type")]
    task_type: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "Model Id")]
    model: Option<&'a RawValue>,
}

/// A JSON scalar's text: a string without its quotes, a number as written.
fn scalar(v: &RawValue) -> Cow<'_, str> {
    let text = v.get().trim();
    match serde_json::from_str::<Cow<'_, str>>(text) {
        Ok(s) => s,
        Err(_) => Cow::Borrowed(text),
    }
}

/// A time in µs, exactly, as ns.
fn micros_ns(v: &RawValue) -> Option<i64> {
    decimal_nanos(&scalar(v), 1000)
}

/// One complete event kept: compact, its texts interned.
#[derive(Debug, Clone, Copy)]
struct Slice {
    name: u32,
    process: u32,
    thread: u32,
    start: i64,
    dur: Option<i64>,
    task_type: Option<u32>,
    model: Option<u32>,
}

/// Strings kept once.
#[derive(Default)]
struct Interned {
    ids: HashMap<String, u32>,
    texts: Vec<String>,
}

impl Interned {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.texts.len() as u32;
        self.ids.insert(s.to_string(), id);
        self.texts.push(s.to_string());
        id
    }
}

/// Everything read from the events, before kernels are picked.
#[derive(Default)]
struct Collected {
    strings: Interned,
    slices: Vec<Slice>,
    process_names: HashMap<u32, u32>,
    thread_names: HashMap<(u32, u32), u32>,
    /// Flow starts by id: host time.
    flow_starts: HashMap<u32, i64>,
    /// Flow ends: (id, device time).
    flow_ends: Vec<(u32, i64)>,
    /// `ProfilerStep#N` windows: (start, end, N).
    steps: Vec<(i64, i64, String)>,
    events: u64,
}

impl Collected {
    fn add(&mut self, e: Event<'_>) {
        self.events += 1;
        let ph = e.ph.as_deref().unwrap_or("");
        let process = e.pid.map(|p| self.strings.id(&scalar(p)));
        let thread = e.tid.map(|t| self.strings.id(&scalar(t)));
        match ph {
            "M" => {
                let value = e.args.as_ref().and_then(|a| a.name.as_deref());
                match (e.name.as_deref(), process, value) {
                    (Some("process_name"), Some(p), Some(v)) => {
                        let v = self.strings.id(v);
                        self.process_names.insert(p, v);
                    }
                    (Some("thread_name"), Some(p), Some(v)) => {
                        let v = self.strings.id(v);
                        self.thread_names.insert((p, thread.unwrap_or(0)), v);
                    }
                    _ => {}
                }
            }
            "X" => {
                let (Some(name), Some(process), Some(start)) =
                    (e.name.as_deref(), process, e.ts.and_then(micros_ns))
                else {
                    return;
                };
                let dur = e.dur.and_then(micros_ns).filter(|d| *d >= 0);
                if let Some(n) = name.strip_prefix(STEP_PREFIX) {
                    self.steps
                        .push((start, start + dur.unwrap_or(0), n.trim().to_string()));
                    return;
                }
                let args = e.args.unwrap_or_default();
                let slice = Slice {
                    name: self.strings.id(name),
                    process,
                    thread: thread.unwrap_or(u32::MAX),
                    start,
                    dur,
                    task_type: args.task_type.as_deref().map(|t| self.strings.id(t)),
                    model: args.model.map(|m| self.strings.id(&scalar(m))),
                };
                self.slices.push(slice);
            }
            "s" | "f" if e.cat.as_deref() == Some("HostToDevice") => {
                let (Some(id), Some(ts)) = (e.id, e.ts.and_then(micros_ns)) else {
                    return;
                };
                let id = self.strings.id(&scalar(id));
                if ph == "s" {
                    self.flow_starts.insert(id, ts);
                } else {
                    self.flow_ends.push((id, ts));
                }
            }
            _ => {}
        }
    }
}

struct Events<'c>(&'c mut Collected);

impl<'de> Visitor<'de> for Events<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events, or an object with traceEvents")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(e) = seq.next_element::<Event<'de>>()? {
            self.0.add(e);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "traceEvents" {
                map.next_value_seed(Events(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Events<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// One kernel row of the trace.
#[derive(Debug, Clone, Copy)]
struct Kernel {
    slice: Slice,
    communication: bool,
}

/// The kernel rows of one trace, handed out one at a time.
pub struct TraceKernels {
    path: PathBuf,
    strings: Vec<String>,
    kernels: Vec<Kernel>,
    steps: StepRanges,
    at: usize,
    /// What the trace cannot give, and how steps were found.
    pub notes: Vec<String>,
}

impl TraceKernels {
    /// Reads the trace at `path`.
    pub fn open(path: &Path) -> Result<TraceKernels, ProfileError> {
        let bytes = std::fs::read(path).map_err(|error| ProfileError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        TraceKernels::parse(&bytes, path)
    }

    /// Reads `bytes` as the trace at `path`.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<TraceKernels, ProfileError> {
        let mut c = Collected::default();
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let read = Events(&mut c).deserialize(&mut de).and_then(|()| de.end());
        if let Err(e) = read {
            return Err(ProfileError::Unreadable {
                path: path.to_path_buf(),
                what: format!(
                    "line {}, column {}: {}",
                    e.line(),
                    e.column(),
                    crate::text::sanitize(&crate::text::json_error_words(&e))
                ),
                hint: "trace_view.json was cut short or edited: export the profile again",
            });
        }
        let name_of = |p: u32| {
            c.process_names
                .get(&p)
                .map(|n| c.strings.texts[*n as usize].as_str())
        };
        let hardware: Vec<u32> = c
            .process_names
            .keys()
            .copied()
            .filter(|p| name_of(*p) == Some(HARDWARE))
            .collect();
        if hardware.is_empty() {
            return Err(ProfileError::Unreadable {
                path: path.to_path_buf(),
                what: format!(
                    "no \"{HARDWARE}\" process among its {} events: not a profiler's \
                     trace_view.json, or one taken without the device's tasks",
                    c.events
                ),
                hint: "profile with the NPU activity on, or give kernel_details.csv or the \
                       profiler database",
            });
        }
        let compute: Vec<u32> = COMPUTE_TASKS
            .iter()
            .filter_map(|t| c.strings.ids.get(*t).copied())
            .collect();
        let is_group_thread = |p: u32, t: u32| {
            name_of(p) == Some(HCCL)
                && c.thread_names.get(&(p, t)).is_some_and(|n| {
                    let n = &c.strings.texts[*n as usize];
                    n.starts_with("Group") && n.ends_with("Communication")
                })
        };
        let mut left_out = 0u64;
        let mut kernels: Vec<Kernel> = Vec::new();
        for s in &c.slices {
            if hardware.contains(&s.process) {
                if s.task_type.is_some_and(|t| compute.contains(&t)) {
                    kernels.push(Kernel {
                        slice: *s,
                        communication: false,
                    });
                } else {
                    left_out += 1;
                }
            } else if is_group_thread(s.process, s.thread) {
                kernels.push(Kernel {
                    slice: *s,
                    communication: true,
                });
            }
        }
        kernels.sort_by_key(|k| k.slice.start);
        let file = path
            .file_name()
            .map_or_else(|| "trace_view.json".into(), |n| n.to_string_lossy());
        let file = crate::text::sanitize(&file).into_owned();
        let mut notes = vec![format!(
            "{file}: a trace has no op types and no accelerator cores: each kernel's type is its \
             name without index suffixes and its core is unknown (give kernel_details.csv or \
             the profiler database for them)"
        )];
        if left_out > 0 {
            notes.push(format!(
                "{file}: {left_out} device task(s) that are not computation (notify, event, \
                 SDMA, write value…) left out, as msprof-analyze leaves them"
            ));
        }
        let steps = steps(&c, &file, &mut notes);
        Ok(TraceKernels {
            path: path.to_path_buf(),
            strings: c.strings.texts,
            kernels,
            steps,
            at: 0,
            notes,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next row, or `None` after the last.
    pub fn next_row(&mut self) -> Option<KernelRow<'_>> {
        self.take()
    }

    /// True while rows are left.
    pub(super) fn ready(&self) -> bool {
        self.at < self.kernels.len()
    }

    /// The next row, or `None` after the last.
    pub(super) fn take(&mut self) -> Option<KernelRow<'_>> {
        let k = *self.kernels.get(self.at)?;
        self.at += 1;
        let s = k.slice;
        let text = |i: u32| self.strings[i as usize].as_str();
        let micros = |ns: i64| ns as f64 / 1000.0;
        let step = self.steps.of(s.start);
        Some(KernelRow {
            step,
            name: text(s.name),
            op_type: "N/A",
            core_type: if k.communication {
                super::database::COMMUNICATION_CORE
            } else {
                ""
            },
            start_us: Some(micros(s.start)),
            duration_us: s.dur.map(micros),
            start_ns: Some(s.start),
            duration_ns: s.dur,
            device: None,
            model: s.model.map(text),
            iteration: None,
            wait_us: None,
            block_num: None,
            input_shapes: None,
            stream: (!k.communication && s.thread != u32::MAX).then(|| text(s.thread)),
            core_us: None,
        })
    }
}

/// The steps' device ranges: host windows carried through the HostToDevice flows.
fn steps(c: &Collected, file: &str, notes: &mut Vec<String>) -> StepRanges {
    if c.steps.is_empty() {
        return StepRanges::default();
    }
    let mut launches = Launches::new(c.steps.clone());
    for (id, ts) in &c.flow_ends {
        if let Some(host) = c.flow_starts.get(id) {
            // A flow ends where its kernel starts: the range reaches the last one's start.
            launches.launched(*host, *ts, *ts);
        }
    }
    let steps = launches.finish();
    let by_device = steps.by_device;
    notes.push(if by_device {
        format!(
            "{file}: {} step(s) from the ProfilerStep events, kernels placed by the device \
             range of the tasks each step launched (the HostToDevice flows)",
            steps.len()
        )
    } else {
        format!(
            "{file}: {} step(s) from the ProfilerStep events, kernels placed by the host step \
             window (the trace has no HostToDevice flows): a kernel that runs after its step's \
             host end counts in the next",
            steps.len()
        )
    });
    steps
}
