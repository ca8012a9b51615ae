//! One running job: a child process in its own process group, its output read by one thread
//! as lines (cut to a bounded length, escape sequences removed) and written to its log file
//! when it has one, its exit awaited on another thread, everything sent to one channel.
//! Cancelling signals the whole group.
//!
//! By default the job's stdout and stderr are one pipe, as a terminal shows them: every line
//! arrives in the order the job wrote it, and which of the two streams it was written to is
//! not known ([`Stream::Merged`]). With [`Streams::Separate`] they are two pipes: each line's
//! stream is known, and lines of one stream keep their order, but the order between the two
//! streams is only the order the reads happened to see (two pipes cannot say more).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;

/// Longest line kept, in bytes; the rest of a longer line is dropped and counted.
pub const MAX_LINE: usize = 4096;
/// The most a job's log file holds; later lines are counted at its end instead.
pub const MAX_LOG_BYTES: u64 = 512 * 1024 * 1024;

/// Which output a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
    /// Standard output or standard error: the two share one pipe, so the line is in its place
    /// in the order the job wrote, and its stream is not known.
    Merged,
}

impl Stream {
    /// The mark before a line in a run's `log.txt`: `out| `, `err| `, or `job| ` when the
    /// stream is not known.
    pub fn mark(self) -> &'static str {
        match self {
            Stream::Stdout => "out| ",
            Stream::Stderr => "err| ",
            Stream::Merged => "job| ",
        }
    }
}

/// How a job's stdout and stderr are read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Streams {
    /// One pipe for both: the order the job wrote them in is kept; their streams are not
    /// known.
    #[default]
    Merged,
    /// A pipe each: each line's stream is known; the order between the two is not kept.
    Separate,
}

/// What a job reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEvent {
    /// A line of output, safe to print (escape sequences and controls removed).
    Line {
        /// Its stream.
        stream: Stream,
        /// The text.
        text: String,
        /// Bytes dropped from a line longer than [`MAX_LINE`].
        cut: usize,
    },
    /// The process ended: its exit code, or the signal that stopped it.
    Exited(ExitStatus),
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

impl ExitStatus {
    /// True for exit code 0.
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }

    /// The status for skope to exit with: the job's code, or 128 + the signal as shells say
    /// (1 when it does not fit).
    pub fn exit_code(self) -> u8 {
        let code = match self {
            ExitStatus::Code(code) => code,
            ExitStatus::Signal(signal) => 128 + signal,
        };
        u8::try_from(code).unwrap_or(1)
    }
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitStatus::Code(c) => write!(f, "exit code {c}"),
            ExitStatus::Signal(s) => write!(f, "stopped by signal {s}"),
        }
    }
}

/// What a job's end is told to, on the job's own thread, before [`JobEvent::Exited`] is sent:
/// its status, and whether it was cancelled. It runs even when no one reads the events any
/// more (skope stopping), so a run's record always gets its ending.
pub type OnExit = Box<dyn FnOnce(ExitStatus, bool) + Send>;

/// What to start and how.
pub struct Launch<'a> {
    /// The command and its arguments.
    pub argv: &'a [String],
    /// Where it runs.
    pub cwd: &'a Path,
    /// Environment variables added.
    pub env: &'a [(String, String)],
    /// How its output is read.
    pub streams: Streams,
    /// A file every line is written to ([`Stream::mark`] before each).
    pub log: Option<&'a Path>,
    /// Told how it ended.
    pub on_exit: Option<OnExit>,
}

impl<'a> Launch<'a> {
    /// `argv` in `cwd`, its output merged, nothing else.
    pub fn new(argv: &'a [String], cwd: &'a Path) -> Launch<'a> {
        Launch {
            argv,
            cwd,
            env: &[],
            streams: Streams::Merged,
            log: None,
            on_exit: None,
        }
    }
}

/// The environment variable that marks every process a job starts (inherited by whatever it
/// starts in turn, a process that left the job's group with `setsid` included), so that
/// skope can find them all when the job ends.
pub const JOB_TOKEN_VAR: &str = "SKOPE_JOB_TOKEN";

/// How long the rest of a job's process group is given to end on its own after its leader
/// exited, before it is asked to stop.
const GROUP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// A started job: a handle to its process group (copies name the same group).
#[derive(Debug, Clone)]
pub struct Job {
    pid: i32,
    token: Arc<str>,
    ended: Arc<AtomicBool>,
    cancelled: Arc<AtomicBool>,
}

impl Job {
    /// Starts what `launch` says in a process group of its own, its output read as
    /// `launch.streams` says; events go to `events` (with `tag`, so one channel can serve
    /// several jobs). The channel is bounded: when its reader falls behind, the job's reader
    /// waits, and so does the job (its pipes fill), so a job printing without end costs no
    /// memory.
    ///
    /// The job has ended when its leader has exited and no process of its group is left:
    /// then the output still in its pipes is read, and reading stops even when a process that
    /// left the group (`setsid`) still holds them — that process is stopped, found by the
    /// token every process of the job carries in its environment. Processes of the group left
    /// after the leader exited are given [`GROUP_GRACE`] to end, then stopped.
    pub fn spawn<T: Clone + Send + 'static>(
        launch: Launch<'_>,
        events: SyncSender<(T, JobEvent)>,
        tag: T,
    ) -> std::io::Result<Job> {
        use std::os::unix::process::CommandExt;
        let (program, args) = launch
            .argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("the recipe's command is empty"))?;
        let token: Arc<str> = Arc::from(format!("{:016x}", crate::own_files::random_u64()));
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(launch.cwd)
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .env(JOB_TOKEN_VAR, &*token)
            .stdin(Stdio::null())
            .process_group(0);
        let mut sources: Vec<(Stream, Box<dyn ReadFd>)> = Vec::new();
        let mut child = match launch.streams {
            Streams::Merged => {
                let (reader, writer) = std::io::pipe()?;
                command.stdout(writer.try_clone()?).stderr(writer);
                sources.push((Stream::Merged, Box::new(reader)));
                // The command holds the pipe's writing end until it goes: then only the job
                // does, and the read ends when the job (and whatever it started) closes it.
                let child = command.spawn();
                drop(command);
                child?
            }
            Streams::Separate => command
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()?,
        };
        let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
        let log = match launch.log {
            Some(path) => Some(LogFile::create(path)?),
            None => None,
        };
        sources.extend(
            [
                child
                    .stdout
                    .take()
                    .map(|s| (Stream::Stdout, Box::new(s) as Box<dyn ReadFd>)),
                child
                    .stderr
                    .take()
                    .map(|s| (Stream::Stderr, Box::new(s) as Box<dyn ReadFd>)),
            ]
            .into_iter()
            .flatten(),
        );
        let job = Job {
            pid,
            token,
            ended: Arc::new(AtomicBool::new(false)),
            cancelled: Arc::new(AtomicBool::new(false)),
        };
        let leader_gone = Arc::new(AtomicBool::new(false));
        let reading = Reading {
            group: pid,
            token: Arc::clone(&job.token),
            leader_gone: Arc::clone(&leader_gone),
        };
        let (reader_events, reader_tag) = (events.clone(), tag.clone());
        let reader = std::thread::spawn(move || {
            read_lines(sources, log, &reading, &reader_events, &reader_tag)
        });
        let waiter = job.clone();
        let on_exit = launch.on_exit;
        std::thread::spawn(move || {
            let status = match child.wait() {
                Ok(status) => {
                    use std::os::unix::process::ExitStatusExt;
                    match (status.code(), status.signal()) {
                        (Some(code), _) => ExitStatus::Code(code),
                        (None, Some(signal)) => ExitStatus::Signal(signal),
                        (None, None) => ExitStatus::Code(-1),
                    }
                }
                Err(_) => ExitStatus::Code(-1),
            };
            leader_gone.store(true, Ordering::Release);
            end_group(waiter.pid, GROUP_GRACE);
            // Every line is sent before the exit; a reader that failed says so, last.
            if let Err(payload) = reader.join() {
                let text = format!(
                    "skope: reading the job's output failed: {}",
                    crate::worker::panic_message(payload.as_ref())
                );
                let line = JobEvent::Line {
                    stream: Stream::Stderr,
                    text,
                    cut: 0,
                };
                let _ = events.send((tag.clone(), line));
            }
            if let Some(on_exit) = on_exit {
                on_exit(status, waiter.cancelled.load(Ordering::Acquire));
            }
            waiter.ended.store(true, Ordering::Release);
            let _ = events.send((tag, JobEvent::Exited(status)));
        });
        Ok(job)
    }

    /// The process id (also the process group id).
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// True once the process has ended and been reaped, and its ending told
    /// ([`Launch::on_exit`]); its output may still be on its way.
    pub fn has_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire)
    }

    /// Asks the whole process group — and any process of the job that left it — to stop
    /// (SIGTERM), then forces them (SIGKILL) after `grace` on a thread of its own.
    pub fn cancel(&self, grace: std::time::Duration) {
        self.cancelled.store(true, Ordering::Release);
        signal_group(self.pid, libc::SIGTERM);
        signal_strays(&self.token, libc::SIGTERM);
        let (pid, token) = (self.pid, Arc::clone(&self.token));
        std::thread::spawn(move || {
            std::thread::sleep(grace);
            // Whatever of the group is left, even when its leader has gone.
            signal_group(pid, libc::SIGKILL);
            signal_strays(&token, libc::SIGKILL);
        });
    }

    /// Stops the whole process group, and any process of the job that left it, at once
    /// (SIGKILL).
    pub fn kill(&self) {
        self.cancelled.store(true, Ordering::Release);
        signal_group(self.pid, libc::SIGKILL);
        signal_strays(&self.token, libc::SIGKILL);
    }
}

/// After a job's leader exited: gives the rest of its group `grace` to end, then asks it to
/// stop, and forces it a moment later.
fn end_group(pid: i32, grace: std::time::Duration) {
    let step = std::time::Duration::from_millis(20);
    let start = std::time::Instant::now();
    while group_alive(pid) && start.elapsed() < grace {
        std::thread::sleep(step);
    }
    if group_alive(pid) {
        signal_group(pid, libc::SIGTERM);
        std::thread::sleep(grace / 4);
        signal_group(pid, libc::SIGKILL);
    }
}

/// True while a process of the group `pid` leads is left (its leader reaped or not).
fn group_alive(pid: i32) -> bool {
    // SAFETY: signal 0 to a process group only checks that it has a member.
    unsafe { libc::kill(-pid, 0) == 0 }
}

/// Sends `signal` to the process group `pid` leads.
fn signal_group(pid: i32, signal: i32) {
    // SAFETY: kill(2) with a negative pid signals that process group; no memory is involved.
    // The group is the job's own (process_group(0) at spawn); a group that has already
    // exited makes this fail harmlessly.
    unsafe {
        libc::kill(-pid, signal);
    }
}

/// The processes of this user that carry the job's `token` in their environment (those that
/// left its process group included). Returns the pids signalled.
fn signal_strays(token: &str, signal: i32) -> Vec<i32> {
    let needle = format!("{JOB_TOKEN_VAR}={token}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let me = std::process::id() as i32;
    let mut signalled = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == needle.as_bytes())
        {
            // SAFETY: kill(2) on a process of this user that carries the job's token.
            unsafe {
                libc::kill(pid, signal);
            }
            signalled.push(pid);
        }
    }
    signalled
}

/// A pipe from the job: readable, with a descriptor to wait on.
trait ReadFd: Read + std::os::fd::AsRawFd + Send {}

impl<T: Read + std::os::fd::AsRawFd + Send> ReadFd for T {}

/// A job's log file: every line, marked with its stream where it is known, up to
/// [`MAX_LOG_BYTES`].
struct LogFile {
    out: std::io::BufWriter<std::fs::File>,
    written: u64,
    untold: u64,
}

impl LogFile {
    fn create(path: &Path) -> std::io::Result<LogFile> {
        Ok(LogFile {
            out: std::io::BufWriter::new(crate::own_files::create_new(path)?),
            written: 0,
            untold: 0,
        })
    }

    fn line(&mut self, stream: Stream, text: &str, cut: usize) {
        use std::io::Write;
        if self.written >= MAX_LOG_BYTES {
            self.untold += 1;
            return;
        }
        let mark = stream.mark();
        let note = if cut > 0 {
            format!(" … ({cut} more bytes)")
        } else {
            String::new()
        };
        let line = format!("{mark}{text}{note}\n");
        self.written += line.len() as u64;
        let _ = self.out.write_all(line.as_bytes());
    }

    fn close(mut self) {
        use std::io::Write;
        if self.untold > 0 {
            let _ = writeln!(
                self.out,
                "skope| … {} more line(s) not written: the log reached {} MiB",
                self.untold,
                MAX_LOG_BYTES / (1024 * 1024)
            );
        }
        let _ = self.out.flush();
    }
}

/// One stream being read: its pipe, the line being gathered, bytes cut from it.
struct Source {
    stream: Stream,
    pipe: Box<dyn ReadFd>,
    line: Vec<u8>,
    cut: usize,
    open: bool,
}

/// What the reader of a job's output knows of the job.
struct Reading {
    /// The job's process group.
    group: i32,
    /// The token every process of the job carries.
    token: Arc<str>,
    /// Set once the job's leader has exited and been reaped.
    leader_gone: Arc<AtomicBool>,
}

impl Reading {
    /// True once nothing of the job's group is left to write: what is in the pipes is all
    /// there will be from it.
    fn group_done(&self) -> bool {
        self.leader_gone.load(Ordering::Acquire) && !group_alive(self.group)
    }
}

/// How long the reader waits for output before it looks whether the job is done.
const LOOK_EVERY: i32 = 100;

/// Reads every pipe to its end in one thread, in the order the data arrives, sending each
/// line (bounded, cleaned) as an event and writing it to `log`. Once the job's group is done,
/// what is left in the pipes is read and reading stops — even when a process that left the
/// group still holds them open (it is then stopped, and the log says so).
fn read_lines<T: Clone>(
    pipes: Vec<(Stream, Box<dyn ReadFd>)>,
    mut log: Option<LogFile>,
    reading: &Reading,
    events: &SyncSender<(T, JobEvent)>,
    tag: &T,
) {
    let mut sources: Vec<Source> = pipes
        .into_iter()
        .map(|(stream, pipe)| Source {
            stream,
            pipe,
            line: Vec::with_capacity(256),
            cut: 0,
            open: true,
        })
        .collect();
    let mut send = |stream: Stream, line: &mut Vec<u8>, cut: &mut usize| {
        let text = clean(&String::from_utf8_lossy(line));
        if let Some(log) = &mut log {
            log.line(stream, &text, *cut);
        }
        let event = JobEvent::Line {
            stream,
            text,
            cut: *cut,
        };
        line.clear();
        *cut = 0;
        events.send((tag.clone(), event)).is_ok()
    };
    let mut chunk = vec![0u8; 64 * 1024];
    // Once the group is done, the pipes are read without waiting until they are empty.
    let mut draining = false;
    'reading: while sources.iter().any(|s| s.open) {
        draining = draining || reading.group_done();
        let mut fds: Vec<libc::pollfd> = sources
            .iter()
            .filter(|s| s.open)
            .map(|s| libc::pollfd {
                fd: s.pipe.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a valid array of `fds.len()` pollfd structs that outlives the call;
        // the descriptors belong to pipes this thread owns.
        let wait = if draining { 0 } else { LOOK_EVERY };
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if ready == 0 && draining {
            // Nothing more from the group; whoever still holds the pipes left it.
            let strays = signal_strays(&reading.token, libc::SIGTERM);
            let words = match strays.len() {
                0 => "skope: the job's output pipe stayed open after the job ended; stopped \
                      reading"
                    .to_string(),
                n => format!(
                    "skope: {n} process(es) the job started outside its process group (pid {}) \
                     kept its output open after it ended: asked to stop (SIGTERM)",
                    strays
                        .iter()
                        .map(i32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let mut line = words.into_bytes();
            let mut cut = 0;
            send(Stream::Stderr, &mut line, &mut cut);
            break;
        }
        let mut polled = fds.iter();
        for source in sources.iter_mut().filter(|s| s.open) {
            let Some(fd) = polled.next() else { break };
            if fd.revents == 0 {
                continue;
            }
            let n = match source.pipe.read(&mut chunk) {
                Ok(0) | Err(_) => {
                    source.open = false;
                    continue;
                }
                Ok(n) => n,
            };
            let mut data = &chunk[..n];
            while !data.is_empty() {
                let end = memchr::memchr(b'\n', data);
                let piece = &data[..end.unwrap_or(data.len())];
                let room = MAX_LINE.saturating_sub(source.line.len()).min(piece.len());
                source.line.extend_from_slice(&piece[..room]);
                source.cut += piece.len() - room;
                match end {
                    Some(at) => {
                        if !send(source.stream, &mut source.line, &mut source.cut) {
                            break 'reading;
                        }
                        data = &data[at + 1..];
                    }
                    None => data = &[],
                }
            }
        }
    }
    for source in &mut sources {
        if !source.line.is_empty() || source.cut > 0 {
            send(source.stream, &mut source.line, &mut source.cut);
        }
    }
    if let Some(log) = log {
        log.close();
    }
}

/// `text` without escape sequences (CSI, OSC, other ESC sequences) and with other control
/// characters made visible; a trailing `\r` goes, tabs become spaces.
pub fn clean(text: &str) -> String {
    let text = text.strip_suffix('\r').unwrap_or(text);
    if !text.contains(['\x1b', '\t']) {
        return crate::text::sanitize(text).into_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte in @..~
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC, DCS, etc.: up to BEL or ST (ESC \)
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    while let Some(c) = chars.next() {
                        if c == '\x07' || (c == '\x1b' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                // A two-character sequence.
                Some(_) | None => {}
            },
            '\t' => out.push(' '),
            c => out.push_str(&crate::text::sanitize(c.encode_utf8(&mut [0; 4]))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_go_and_controls_show() {
        assert_eq!(clean("\x1b[1;31merror\x1b[0m: bad"), "error: bad");
        assert_eq!(clean("title\x1b]0;pwned\x07 after"), "title after");
        assert_eq!(clean("osc \x1b]52;c;aGk=\x1b\\ end"), "osc  end");
        assert_eq!(clean("progress 50%\r"), "progress 50%");
        assert_eq!(clean("a\rb\x08c\td"), "a\\u{d}b\\u{8}c d");
        assert_eq!(clean("\x1bc reset"), " reset");
        assert_eq!(clean("时间 ok"), "时间 ok");
    }
}
