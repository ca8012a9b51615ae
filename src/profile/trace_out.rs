//! Profiles written as Chrome trace-event JSON, for ui.perfetto.dev and chrome://tracing: each
//! profile a process (base and new apart), each stream a thread, each kernel a complete event
//! with its type, core, step and what the plan makes of it in `args`; each occurrence of a
//! segment a span on a track beside its stream; each run of a break op an instant with its
//! reason. Times are µs after each profile's first exported kernel (exact, from integer ns),
//! with the absolute starts in `metadata`. Events are written as they are made: nothing holds
//! the whole file. Facts: reference/bridges.md §2.

use super::Profile;
use super::planned::PlannedFusion;
use super::runs::{NO_LABEL, Run, Runs};
use super::timeline::StreamOf;
use std::collections::HashMap;
use std::io::{self, Write};

/// A thread id for a stream's segment track: the stream's own plus this.
const SEGMENT_TRACK: u64 = 1_000_000;

/// What the plan makes of a kernel name.
#[derive(Debug, Clone, Copy)]
enum Role {
    /// An op of a segment: (segment index, true for its first op).
    Member(usize, bool),
    /// The SuperKernel of a segment.
    Fused(usize),
    /// An op that breaks a scope (index into the plan's breaks).
    Break(usize),
    /// Anything else.
    Other,
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Kernels written.
    pub kernels: u64,
    /// Segment spans written.
    pub spans: u64,
    /// Break instants written.
    pub breaks: u64,
    /// Slices on clocks of their own written.
    pub own_clock: u64,
}

/// Slices on a clock of their own (a device's), written as a process apart: never lined up
/// with the profiles' times.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OwnClock {
    /// The process's name.
    pub process: String,
    /// Its threads: a name and its slices (nested or apart), times in ns on that clock.
    pub threads: Vec<(String, Vec<Slice>)>,
}

/// One slice of an [`OwnClock`].
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    /// Its start, ns.
    pub start: i64,
    /// Its end, ns.
    pub end: i64,
    /// Its name.
    pub name: String,
    /// Its category (`superkernel`, `sub-op`).
    pub cat: &'static str,
}

/// What a trace is made of.
#[derive(Clone, Copy, Default)]
pub struct TraceInput<'a> {
    /// Each profile with its name (`base`, `new`, `profile`).
    pub sides: &'a [(&'a str, &'a Profile)],
    /// The plan that marks segments and breaks.
    pub plan: Option<&'a PlannedFusion>,
    /// Only this step.
    pub step: Option<&'a str>,
    /// Where the kernels of a profile without streams ran.
    pub stream_of: Option<StreamOf<'a>>,
    /// Processes on clocks of their own (the SuperKernels' sk_prof records).
    pub own_clocks: &'a [OwnClock],
}

/// Writes `input` as one trace to `out`.
pub fn write(out: &mut impl Write, input: &TraceInput<'_>) -> io::Result<Written> {
    let TraceInput {
        sides,
        plan,
        step,
        stream_of,
        own_clocks,
    } = *input;
    let mut role: HashMap<&str, Role> = HashMap::new();
    if let Some(plan) = plan {
        for (i, b) in plan.breaks.iter().enumerate() {
            role.insert(b.op.name.as_str(), Role::Break(i));
        }
        for (i, s) in plan.segments.iter().enumerate() {
            for (k, op) in s.ops.iter().enumerate() {
                role.insert(op.name.as_str(), Role::Member(i, k == 0));
            }
            role.insert(s.fused_node.as_str(), Role::Fused(i));
        }
    }
    let role_of = |name: &str| role.get(name).copied().unwrap_or(Role::Other);
    let mut written = Written::default();
    let mut starts = Vec::new();
    out.write_all(b"{\"traceEvents\":[\n")?;
    let mut first = true;
    for (pid, (name, profile)) in sides.iter().enumerate() {
        let Some(runs) = profile.runs.as_ref() else {
            continue;
        };
        let pid = pid as u64 + 1;
        let label = step.and_then(|s| runs.label_id(s));
        if step.is_some() && label.is_none() {
            continue;
        }
        let streams = Streams::of(runs, stream_of, label);
        let mut order: Vec<(u32, &Run)> = runs
            .all()
            .iter()
            .enumerate()
            .filter(|(_, r)| label.is_none_or(|l| r.step == l))
            .map(|(i, r)| (streams.of_run[i], r))
            .collect();
        if order.is_empty() {
            continue;
        }
        order.sort_by_key(|(s, r)| (streams.tids[*s as usize], r.start_ns));
        let origin = order.iter().map(|(_, r)| r.start_ns).min().unwrap_or(0);
        starts.push((*name, origin));
        let mut event = Event::new(out, &mut first);
        event.metadata(
            pid,
            None,
            "process_name",
            &format!("{name}: {}", profile.files.root.display()),
        )?;
        event.sort_index(pid, None, pid - 1)?;
        let mut shown: Vec<(u64, &str)> = streams
            .names
            .iter()
            .zip(&streams.tids)
            .map(|(n, t)| (*t, n.as_str()))
            .collect();
        shown.sort();
        for (k, (tid, stream)) in shown.iter().enumerate() {
            event.metadata(pid, Some(*tid), "thread_name", &format!("stream {stream}"))?;
            event.sort_index(pid, Some(*tid), 2 * k as u64)?;
            if plan.is_some() {
                event.metadata(
                    pid,
                    Some(*tid + SEGMENT_TRACK),
                    "thread_name",
                    &format!("segments on stream {stream}"),
                )?;
                event.sort_index(pid, Some(*tid + SEGMENT_TRACK), 2 * k as u64 + 1)?;
            }
        }
        // The open segment span of the current stream: (segment, start, end).
        let mut open: Option<(usize, i64, i64)> = None;
        let mut stream = None;
        for (s_index, r) in &order {
            let tid = streams.tids[*s_index as usize];
            if stream != Some(tid) {
                if let (Some((s, a, b)), Some(prev)) = (open.take(), stream) {
                    written.spans +=
                        event.span(pid, prev + SEGMENT_TRACK, plan, s, a - origin, b - a)?;
                }
                stream = Some(tid);
            }
            let info = runs.name(r.name);
            let rel = r.start_ns - origin;
            let r_role = role_of(&info.name);
            match r_role {
                Role::Member(s, opens) => match &mut open {
                    Some((cur, _, end)) if *cur == s && !opens => *end = (*end).max(r.end_ns()),
                    _ => {
                        if let Some((c, a, b)) = open.take() {
                            written.spans +=
                                event.span(pid, tid + SEGMENT_TRACK, plan, c, a - origin, b - a)?;
                        }
                        open = Some((s, r.start_ns, r.end_ns()));
                    }
                },
                _ => {
                    if let Some((c, a, b)) = open.take() {
                        written.spans +=
                            event.span(pid, tid + SEGMENT_TRACK, plan, c, a - origin, b - a)?;
                    }
                }
            }
            let step_text = (r.step != NO_LABEL).then(|| runs.label(r.step));
            event.kernel(
                pid,
                tid,
                rel,
                r.dur_ns,
                &info.name,
                &info.op_type,
                &info.core_type,
                step_text,
                plan,
                r_role,
            )?;
            written.kernels += 1;
            if let (Role::Break(b), Some(plan)) = (r_role, plan) {
                let b = &plan.breaks[b];
                event.instant(pid, tid, rel, &b.op.name, &b.scope, &b.reason)?;
                written.breaks += 1;
            }
        }
        if let (Some((s, a, b)), Some(prev)) = (open.take(), stream) {
            written.spans += event.span(pid, prev + SEGMENT_TRACK, plan, s, a - origin, b - a)?;
        }
    }
    for (k, clock) in own_clocks.iter().enumerate() {
        let pid = sides.len() as u64 + 1 + k as u64;
        let mut event = Event::new(out, &mut first);
        event.metadata(pid, None, "process_name", &clock.process)?;
        event.sort_index(pid, None, pid - 1)?;
        let origin = clock
            .threads
            .iter()
            .flat_map(|(_, s)| s.iter().map(|s| s.start))
            .min()
            .unwrap_or(0);
        for (t, (name, slices)) in clock.threads.iter().enumerate() {
            let tid = t as u64 + 1;
            event.metadata(pid, Some(tid), "thread_name", name)?;
            event.sort_index(pid, Some(tid), t as u64)?;
            for s in slices {
                event.slice(pid, tid, s, origin)?;
                written.own_clock += 1;
            }
        }
    }
    out.write_all(b"\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"producer\":\"skope\"")?;
    for (name, origin) in &starts {
        write!(out, ",\"{name}_start_ns\":\"{origin}\"")?;
    }
    if let Some(plan) = plan {
        out.write_all(b",\"plan\":")?;
        serde_json::to_writer(&mut *out, &crate::text::sanitize(&plan.source))?;
    }
    if let Some(step) = step {
        out.write_all(b",\"step\":")?;
        serde_json::to_writer(&mut *out, step)?;
    }
    out.write_all(b"}}\n")?;
    Ok(written)
}

/// [`write`] to the file `path`, streamed through a temporary file beside it and renamed over
/// `path` when whole ([`crate::own_files::replace_streamed`]); on an error `path` is as it was.
/// A link at `path` is written through or refused as `links` says.
pub fn write_file(
    path: &std::path::Path,
    links: crate::own_files::Links,
    input: &TraceInput<'_>,
) -> io::Result<Written> {
    crate::own_files::replace_streamed(path, links, |out| write(out, input))
}

/// The streams of a profile's runs, each with its thread id: the stream's number when it is
/// one, else one past the largest.
struct Streams {
    names: Vec<String>,
    tids: Vec<u64>,
    /// For each run, its stream (an index into `names`).
    of_run: Vec<u32>,
}

impl Streams {
    fn of(runs: &Runs, stream_of: Option<StreamOf<'_>>, step: Option<u32>) -> Streams {
        let mut names: Vec<String> = Vec::new();
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut by_label: HashMap<u32, u32> = HashMap::new();
        let mut by_name: HashMap<u32, u32> = HashMap::new();
        let mut intern = |text: String| -> u32 {
            *index.entry(text.clone()).or_insert_with(|| {
                names.push(text);
                names.len() as u32 - 1
            })
        };
        let of_run = runs
            .all()
            .iter()
            .map(|r| {
                if step.is_some_and(|s| r.step != s) {
                    return 0;
                }
                if r.stream != NO_LABEL {
                    return *by_label
                        .entry(r.stream)
                        .or_insert_with(|| intern(runs.label(r.stream).to_string()));
                }
                *by_name.entry(r.name).or_insert_with(|| {
                    let found = stream_of.and_then(|f| f(&runs.name(r.name).name));
                    intern(found.unwrap_or_else(|| "?".to_string()))
                })
            })
            .collect();
        if names.is_empty() {
            names.push("?".to_string());
        }
        let mut next = names
            .iter()
            .filter_map(|n| n.parse::<u64>().ok())
            .filter(|t| *t < SEGMENT_TRACK)
            .max()
            .map_or(0, |m| m + 1);
        let tids = names
            .iter()
            .map(|n| {
                n.parse::<u64>()
                    .ok()
                    .filter(|t| *t < SEGMENT_TRACK)
                    .unwrap_or_else(|| {
                        next += 1;
                        next - 1
                    })
            })
            .collect();
        Streams {
            names,
            tids,
            of_run,
        }
    }
}

/// `ns` as µs with three decimals, exactly.
struct Micros(i64);

impl std::fmt::Display for Micros {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:03}", a / 1000, a % 1000)
    }
}

/// Writes events one after the other, with the commas between them.
struct Event<'o, W: Write> {
    out: &'o mut W,
    first: &'o mut bool,
}

impl<'o, W: Write> Event<'o, W> {
    fn new(out: &'o mut W, first: &'o mut bool) -> Self {
        Event { out, first }
    }

    fn begin(&mut self) -> io::Result<()> {
        if !*self.first {
            self.out.write_all(b",\n")?;
        }
        *self.first = false;
        Ok(())
    }

    /// A name as every output writes it: itself, JSON-escaped ([`crate::text::json_safe`]),
    /// so it is the same string as in the report's JSON and plan files.
    fn string(&mut self, s: &str) -> io::Result<()> {
        let json = serde_json::to_string(s).map_err(io::Error::from)?;
        self.out.write_all(crate::text::json_safe(json).as_bytes())
    }

    fn metadata(&mut self, pid: u64, tid: Option<u64>, what: &str, name: &str) -> io::Result<()> {
        self.begin()?;
        write!(self.out, "{{\"ph\":\"M\",\"pid\":{pid},")?;
        if let Some(tid) = tid {
            write!(self.out, "\"tid\":{tid},")?;
        }
        write!(self.out, "\"name\":\"{what}\",\"args\":{{\"name\":")?;
        self.string(name)?;
        self.out.write_all(b"}}")
    }

    fn sort_index(&mut self, pid: u64, tid: Option<u64>, index: u64) -> io::Result<()> {
        self.begin()?;
        match tid {
            Some(tid) => write!(
                self.out,
                "{{\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{index}}}}}"
            ),
            None => write!(
                self.out,
                "{{\"ph\":\"M\",\"pid\":{pid},\"name\":\"process_sort_index\",\"args\":{{\"sort_index\":{index}}}}}"
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn kernel(
        &mut self,
        pid: u64,
        tid: u64,
        ts: i64,
        dur: i64,
        name: &str,
        op_type: &str,
        core: &str,
        step: Option<&str>,
        plan: Option<&PlannedFusion>,
        role: Role,
    ) -> io::Result<()> {
        self.begin()?;
        write!(
            self.out,
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"cat\":\"kernel\",\"name\":",
            Micros(ts),
            Micros(dur)
        )?;
        self.string(name)?;
        self.out.write_all(b",\"args\":{\"type\":")?;
        self.string(op_type)?;
        self.out.write_all(b",\"core\":")?;
        self.string(core)?;
        if let Some(step) = step {
            self.out.write_all(b",\"step\":")?;
            self.string(step)?;
        }
        if let Some(plan) = plan {
            let (what, segment) = match role {
                Role::Member(s, _) => ("segment op", Some(s)),
                Role::Fused(s) => ("SuperKernel", Some(s)),
                Role::Break(_) => ("break", None),
                Role::Other => ("outside every segment", None),
            };
            self.out.write_all(b",\"plan\":")?;
            self.string(what)?;
            if let Some(s) = segment.and_then(|s| plan.segments.get(s)) {
                self.out.write_all(b",\"scope\":")?;
                self.string(&s.scope)?;
                self.out.write_all(b",\"segment\":")?;
                self.string(&s.segment)?;
            }
        }
        self.out.write_all(b"}}")
    }

    fn span(
        &mut self,
        pid: u64,
        tid: u64,
        plan: Option<&PlannedFusion>,
        segment: usize,
        ts: i64,
        dur: i64,
    ) -> io::Result<u64> {
        let Some(s) = plan.and_then(|p| p.segments.get(segment)) else {
            return Ok(0);
        };
        self.begin()?;
        write!(
            self.out,
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"cat\":\"segment\",\"name\":",
            Micros(ts),
            Micros(dur)
        )?;
        self.string(&s.segment)?;
        self.out.write_all(b",\"args\":{\"scope\":")?;
        self.string(&s.scope)?;
        self.out.write_all(b",\"superkernel\":")?;
        self.string(&s.fused_node)?;
        write!(self.out, ",\"ops\":{}}}}}", s.ops.len())?;
        Ok(1)
    }

    fn slice(&mut self, pid: u64, tid: u64, s: &Slice, origin: i64) -> io::Result<()> {
        self.begin()?;
        write!(
            self.out,
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"cat\":\"{}\",\"name\":",
            Micros(s.start - origin),
            Micros((s.end - s.start).max(0)),
            s.cat
        )?;
        self.string(&s.name)?;
        self.out.write_all(b"}")
    }

    fn instant(
        &mut self,
        pid: u64,
        tid: u64,
        ts: i64,
        op: &str,
        scope: &str,
        reason: &str,
    ) -> io::Result<()> {
        self.begin()?;
        write!(
            self.out,
            "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"cat\":\"break\",\"name\":",
            Micros(ts)
        )?;
        self.string(&format!("✗ {op}"))?;
        self.out.write_all(b",\"args\":{\"scope\":")?;
        self.string(scope)?;
        self.out.write_all(b",\"reason\":")?;
        self.string(reason)?;
        self.out.write_all(b"}}")
    }
}

#[cfg(test)]
mod tests {
    use super::Micros;

    #[test]
    fn micros_are_exact() {
        assert_eq!(Micros(1_234_567).to_string(), "1234.567");
        assert_eq!(Micros(5).to_string(), "0.005");
        assert_eq!(Micros(-1_500).to_string(), "-1.500");
    }
}
