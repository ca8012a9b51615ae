//! Runs started from the explorer: each a job with its log, kept in a short history. Output
//! reaches the UI in batches through [`crate::compile::batch`], so a job that prints without
//! end neither floods the event loop nor grows memory.

use super::action::Action;
use super::reply::Reply;
use super::sink::Sink;
use crate::compile::batch::{self, Batch, Handshake};
use crate::compile::job::{ExitStatus, Job, Stream};
use crate::compile::log::{self, Log, LogLine};
use crate::compile::prepare::{self, Prepared, RunInput};
use crate::compile::recipe::Recipe;
use crate::compile::record::{self, Ending, RunRecord};
use crate::text::sanitize;
use crate::worker::Threads;
use std::path::PathBuf;
use std::sync::mpsc::sync_channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs kept in the history; the oldest ended one goes first.
pub const MAX_RUNS: usize = 20;
/// How long a cancelled job has between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(3);
/// How long skope waits, once its jobs are stopped, for each to write its run's ending.
const RECORD_GRACE: Duration = Duration::from_secs(1);

/// What makes a run's prediction where it is prepared (off the event loop): what its
/// SuperKernels are predicted to save, recorded with it.
pub type Predict = Box<dyn FnOnce() -> Option<crate::suggest::prediction::PlanPrediction> + Send>;

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Its directory, plan and entry sources are being written (on a worker).
    Preparing,
    /// It could not start (the reason is in its log).
    Unstarted {
        /// When that was known.
        at: Duration,
    },
    /// The job runs.
    Running,
    /// The job was asked to stop and has not yet.
    Cancelling,
    /// A run of an earlier session, as its record tells it.
    Recorded,
    /// The job ended: how, when (on the app's clock), and whether the user stopped it.
    Ended {
        /// Its exit status.
        status: ExitStatus,
        /// When it ended.
        at: Duration,
        /// True when the user cancelled it.
        cancelled: bool,
    },
}

/// What a run's workers report.
#[derive(Debug)]
pub enum RunEvent {
    /// The run's job started (or why it could not).
    Started {
        /// The run.
        id: u64,
        /// The job and what it was prepared with, or the problem.
        result: Result<Box<Launched>, String>,
    },
    /// Output of the run (and, in its last batch, its end).
    Output {
        /// The run.
        id: u64,
        /// Its new output.
        batch: Batch,
    },
}

/// One run of a recipe.
#[derive(Debug)]
pub struct Run {
    /// Its number, counting from 1 in this session.
    pub id: u64,
    /// The recipe's name.
    pub recipe: String,
    /// The command (arguments separated by spaces, for showing): the recipe's template until
    /// the run is prepared, then as started.
    pub command: String,
    /// The run's own directory (`{out}`), once prepared.
    pub out: Option<PathBuf>,
    /// Where the recipe says results appear.
    pub results: Option<PathBuf>,
    /// The output kept.
    pub log: Log,
    /// When it started (on the app's clock).
    pub started: Duration,
    /// Where it is.
    pub state: RunState,
    /// What it leaves in its directory, once prepared.
    pub record: Option<RunRecord>,
    /// Why skope stopped following it, when it had to (the run ended as failed).
    pub lost: Option<String>,
    job: Option<Job>,
    handshake: Handshake,
    /// For a run of an earlier session: whether its log file has been read.
    log_read: bool,
}

impl Run {
    /// Time from start to end, or to `now` while it runs.
    pub fn elapsed(&self, now: Duration) -> Duration {
        if let (RunState::Recorded, Some(record)) = (self.state, &self.record) {
            return record.elapsed();
        }
        match self.state {
            RunState::Ended { at, .. } | RunState::Unstarted { at } => {
                at.saturating_sub(self.started)
            }
            _ => now.saturating_sub(self.started),
        }
    }

    /// True until the job has ended (or could not start).
    pub fn is_running(&self) -> bool {
        !matches!(
            self.state,
            RunState::Ended { .. } | RunState::Unstarted { .. } | RunState::Recorded
        )
    }

    /// Where it is, in one word.
    pub fn status(&self) -> RunStatus {
        match self.state {
            RunState::Preparing => RunStatus::Preparing,
            RunState::Unstarted { .. } => RunStatus::Unstarted,
            RunState::Running => RunStatus::Running,
            RunState::Cancelling => RunStatus::Cancelling,
            RunState::Ended {
                cancelled: true, ..
            } => RunStatus::Cancelled,
            RunState::Ended { status, .. } if status.success() => RunStatus::Passed,
            RunState::Ended { .. } => RunStatus::Failed,
            RunState::Recorded => match self.record.as_ref().and_then(|r| r.ending) {
                Some(Ending::Passed) => RunStatus::Passed,
                Some(Ending::Failed) => RunStatus::Failed,
                Some(Ending::Cancelled) => RunStatus::Cancelled,
                Some(Ending::NotStarted) => RunStatus::Unstarted,
                Some(Ending::Added) => RunStatus::Added,
                None => RunStatus::Unknown,
            },
        }
    }
}

/// A run's state in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    /// Its files are being written.
    Preparing,
    /// It could not start.
    Unstarted,
    /// The job runs.
    Running,
    /// The job was asked to stop.
    Cancelling,
    /// The user stopped it.
    Cancelled,
    /// It exited with code 0.
    Passed,
    /// It exited otherwise, or a signal ended it.
    Failed,
    /// An earlier session ended before the run did: how it ended is not known.
    Unknown,
    /// Not run by skope: its profile was added to the ledger by path.
    Added,
}

impl RunStatus {
    /// The word: `preparing`, `not started`, `running`, `cancelling`, `cancelled`, `passed`,
    /// `failed`.
    pub fn word(self) -> &'static str {
        match self {
            RunStatus::Preparing => "preparing",
            RunStatus::Unstarted => "not started",
            RunStatus::Running => "running",
            RunStatus::Cancelling => "cancelling",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Passed => "passed",
            RunStatus::Failed => "failed",
            RunStatus::Unknown => "end unknown",
            RunStatus::Added => "added",
        }
    }
}

/// The runs of this session and the runs view's state.
#[derive(Debug, Default)]
pub struct Runs {
    /// The runs, oldest first.
    pub list: Vec<Run>,
    /// The run the view shows (an index into `list`).
    pub selected: usize,
    /// The first log line shown (a line number over all lines); `None` follows the end.
    pub scroll: Option<u64>,
    /// Columns of the log scrolled off to the left.
    pub shift: usize,
    /// Runs of the dump kept on disk (`keep_runs` of skope.toml); `None` until read.
    pub keep_runs: Option<usize>,
    /// Where runs keep their files; `<dump file name>.runs` beside the dump when not set.
    pub dir: Option<PathBuf>,
    next_id: u64,
    /// Jobs started by workers, and whether skope is closing: a job started while it closes is
    /// stopped at once, so none outlives skope even when its start was not yet taken in.
    launched: Arc<Mutex<Launches>>,
}

/// See [`Runs::launched`].
#[derive(Debug, Default)]
struct Launches {
    closing: bool,
    jobs: Vec<Job>,
}

impl Runs {
    /// Where runs of `dump` go (and earlier sessions' are found).
    pub fn dir_of(&self, dump: &str) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(|| crate::compile::prepare::runs_dir(dump))
    }

    /// Where earlier sessions' runs of `dump` may be: its runs directory, and where earlier
    /// releases kept runs (the working directory).
    pub fn history_dirs(&self, dump: &str) -> Vec<PathBuf> {
        let mut dirs = vec![self.dir_of(dump)];
        if self.dir.is_none() {
            dirs.extend(crate::paths::DumpFiles::of(dump).earlier_runs());
        }
        dirs
    }

    /// Runs of the dump kept on disk.
    pub fn keep(&self) -> usize {
        self.keep_runs.unwrap_or(record::DEFAULT_KEEP)
    }

    /// Lists the runs of `graph` recorded in `dirs` (earlier sessions'), newest last, at
    /// most [`MAX_RUNS`]; the newest is selected.
    pub fn load_history(&mut self, dirs: &[PathBuf], graph: &crate::graph::GraphId) {
        let found = record::history_of(dirs, graph);
        let skip = found.len().saturating_sub(MAX_RUNS);
        for (out, record) in found.into_iter().skip(skip) {
            self.next_id += 1;
            self.list.push(Run {
                id: self.next_id,
                recipe: record.recipe.clone(),
                command: record.argv.join(" "),
                out: Some(out),
                results: record.results.as_ref().map(PathBuf::from),
                log: Log::new(log::DEFAULT_LINES),
                started: Duration::ZERO,
                state: RunState::Recorded,
                record: Some(record),
                job: None,
                handshake: Handshake::default(),
                log_read: false,
                lost: None,
            });
        }
        self.selected = self.list.len().saturating_sub(1);
        self.read_selected_log();
    }

    /// Reads the selected run's log from its file when it is an earlier session's.
    fn read_selected_log(&mut self) {
        let Some(run) = self.list.get_mut(self.selected) else {
            return;
        };
        if run.state != RunState::Recorded || run.log_read {
            return;
        }
        run.log_read = true;
        if let Some(out) = &run.out {
            let (lines, before) = record::read_log(&out.join(record::LOG), log::DEFAULT_LINES);
            run.log.skipped(before);
            for (stream, text) in lines {
                run.log.push(log::LogLine {
                    stream,
                    text,
                    cut: 0,
                });
            }
        }
    }

    /// Starts a run of `recipe` on `input` at `now`: where `threads` says, the prediction
    /// `predict` makes is made, its files are written into `runs` and its job started; the
    /// answer comes back as
    /// [`RunEvent::Started`] and the job's output (followed on a thread of its own) as
    /// [`RunEvent::Output`]. The new run is selected and its log followed.
    pub fn start(
        &mut self,
        threads: Threads,
        recipe: &Recipe,
        (mut input, predict): (RunInput, Option<Predict>),
        (runs, now): (PathBuf, Duration),
        events: Sink<RunEvent>,
    ) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        let handshake = Handshake::default();
        let forwarder = handshake.clone();
        let chosen = recipe.clone();
        let launched = Arc::clone(&self.launched);
        let answer = events.clone();
        threads.start(
            "skope-run-prepare",
            move || {
                input.predicted = predict.and_then(|predict| predict());
                launch(&input, &chosen, &runs, (id, forwarder), &events, &launched)
            },
            move |result| {
                let result =
                    result.unwrap_or_else(|stopped| Err(format!("preparing the run: {stopped}")));
                answer(RunEvent::Started { id, result });
            },
        );
        self.forget_old();
        self.list.push(Run {
            id,
            recipe: recipe.name.clone(),
            command: crate::compile::template::shown(&recipe.argv),
            out: None,
            results: None,
            log: Log::new(log::DEFAULT_LINES),
            started: now,
            state: RunState::Preparing,
            record: None,
            job: None,
            handshake,
            log_read: true,
            lost: None,
        });
        self.selected = self.list.len() - 1;
        self.scroll = None;
        self.shift = 0;
        id
    }

    /// Takes in the worker's answer for run `id` at `now`: the started job (stopped at once
    /// when the run was cancelled meanwhile), or why it could not start.
    pub fn started(&mut self, id: u64, result: Result<Box<Launched>, String>, now: Duration) {
        // Taken in: from now on the run holds the job.
        if let (Ok(started), Ok(mut launches)) = (&result, self.launched.lock()) {
            launches.jobs.retain(|j| j.pid() != started.job.pid());
        }
        let Some(run) = self.list.iter_mut().find(|r| r.id == id) else {
            // Forgotten meanwhile: nothing may outlive it.
            if let Ok(launched) = result {
                launched.job.kill();
            }
            return;
        };
        match result {
            Ok(launched) => {
                let Launched { job, prepared } = *launched;
                run.command = prepared.argv.join(" ");
                run.out = Some(prepared.out);
                run.results = prepared.results;
                run.record = Some(prepared.record);
                if run.state == RunState::Cancelling {
                    job.cancel(GRACE);
                } else if run.state == RunState::Preparing {
                    run.state = RunState::Running;
                }
                run.job = Some(job);
            }
            Err(message) => {
                run.log.push(log::LogLine {
                    stream: crate::compile::job::Stream::Stderr,
                    text: format!("error: {}", crate::text::sanitize(&message)),
                    cut: 0,
                });
                run.state = RunState::Unstarted { at: now };
            }
        }
    }

    /// Drops the oldest ended runs until there is room for one more.
    fn forget_old(&mut self) {
        while self.list.len() >= MAX_RUNS {
            let Some(i) = self.list.iter().position(|r| !r.is_running()) else {
                return;
            };
            self.list.remove(i);
            if self.selected >= i {
                self.selected = self.selected.saturating_sub(1);
            }
        }
    }

    /// Takes in a batch of run `id`'s output at `now`; true when the batch ended it.
    pub fn output(&mut self, id: u64, batch: Batch, now: Duration) -> bool {
        let Some(run) = self.list.iter_mut().find(|r| r.id == id) else {
            return false;
        };
        run.log.skipped(batch.dropped);
        for line in batch.lines {
            run.log.push(line);
        }
        run.handshake.taken();
        let Some(status) = batch.exited else {
            return false;
        };
        let cancelled = run.state == RunState::Cancelling && batch.lost.is_none();
        run.state = RunState::Ended {
            status,
            at: now,
            cancelled,
        };
        if let (Some(record), Some(out)) = (&mut run.record, &run.out) {
            record.ended(status, cancelled);
            // What the job's thread could not know: skope stopped following its output.
            if batch.lost.is_some() {
                record.error.clone_from(&batch.lost);
                let _ = record.write(out);
            }
        }
        if let Some(lost) = &batch.lost {
            run.log.push(LogLine {
                stream: Stream::Stderr,
                text: format!("skope: {lost}"),
                cut: 0,
            });
        }
        run.lost = batch.lost;
        true
    }

    /// The run the view shows.
    pub fn selected(&self) -> Option<&Run> {
        self.list.get(self.selected)
    }

    /// The runs view's keys: scrolling, moving sideways, other runs, the first error, stopping
    /// (asking first on `esc`) and closing. `height` is the log's height in lines.
    pub fn view_action(&mut self, action: Action, height: usize) -> Reply {
        let page = height.max(1) as isize;
        match action {
            Action::Up => self.scroll_log(-1, height),
            Action::Down => self.scroll_log(1, height),
            Action::PageUp => self.scroll_log(-page, height),
            Action::PageDown => self.scroll_log(page, height),
            Action::Top => self.scroll_log(isize::MIN, height),
            Action::Bottom => self.scroll = None,
            Action::Collapse => self.shift = self.shift.saturating_sub(8),
            Action::Expand => self.shift += 8,
            Action::NextPane => self.select(-1),
            Action::PrevPane => self.select(1),
            Action::Activate if !self.show_first_error() => {
                return Reply::Problem("no error line in this run's log".to_string());
            }
            Action::CancelRun => return self.cancel(),
            // A running run is asked about first (`runs_view`).
            Action::Back => return Reply::Close,
            Action::Compile => return Reply::Pass(action),
            _ => {}
        }
        Reply::Done
    }

    /// Stops the selected run's whole process group, saying so, or why not.
    pub fn cancel(&mut self) -> Reply {
        let Some(run) = self.list.get_mut(self.selected) else {
            return Reply::Problem("no run to stop".to_string());
        };
        let words = format!("run {} ({})", run.id, sanitize(&run.recipe));
        if !matches!(run.state, RunState::Running | RunState::Preparing) {
            return Reply::Problem(format!("{words} is not running"));
        }
        // A run still being prepared is stopped as soon as its job starts.
        if let Some(job) = &run.job {
            job.cancel(GRACE);
        }
        run.state = RunState::Cancelling;
        Reply::Info(format!(
            "stopping {words}: SIGTERM to its process group, SIGKILL in {} s",
            GRACE.as_secs()
        ))
    }

    /// Runs still going.
    pub fn running(&self) -> usize {
        self.list.iter().filter(|r| r.is_running()).count()
    }

    /// Stops every run still going: SIGTERM to each process group, up to `grace` for them
    /// to end, then SIGKILL. For quitting: no job outlives skope.
    pub fn stop_all(&self, grace: Duration) {
        // Jobs whose start has not been taken in yet are in `launched`; no more can start.
        let pending = match self.launched.lock() {
            Ok(mut launched) => {
                launched.closing = true;
                std::mem::take(&mut launched.jobs)
            }
            Err(_) => Vec::new(),
        };
        let running: Vec<&Job> = self
            .list
            .iter()
            .filter(|r| r.is_running())
            .filter_map(|r| r.job.as_ref())
            .chain(&pending)
            .collect();
        for job in &running {
            job.cancel(grace);
        }
        let start = std::time::Instant::now();
        while start.elapsed() < grace && running.iter().any(|j| !j.has_ended()) {
            std::thread::sleep(Duration::from_millis(20));
        }
        // The cancel's own SIGKILL comes from a thread that would die with skope.
        for job in &running {
            job.kill();
        }
        // Each job's own thread writes its run's ending to its record: give it the moment.
        let start = std::time::Instant::now();
        while start.elapsed() < RECORD_GRACE && running.iter().any(|j| !j.has_ended()) {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Selects the run `step` rows away, following its log.
    pub fn select(&mut self, step: isize) {
        if self.list.is_empty() {
            return;
        }
        let last = self.list.len() - 1;
        self.selected = self.selected.saturating_add_signed(step).min(last);
        self.scroll = None;
        self.shift = 0;
        self.read_selected_log();
    }

    /// Scrolls the selected run's log by `step` lines for a view `height` lines tall; back at
    /// the end, the log is followed again.
    pub fn scroll_log(&mut self, step: isize, height: usize) {
        let Some(run) = self.selected() else {
            return;
        };
        let first = run.log.dropped();
        let end = run.log.total();
        let last_top = end.saturating_sub(height as u64).max(first);
        let top = self.scroll.unwrap_or(last_top);
        let moved = if step < 0 {
            top.saturating_sub(step.unsigned_abs() as u64).max(first)
        } else {
            top.saturating_add(step as u64)
        };
        self.scroll = (moved < last_top).then_some(moved);
    }

    /// Shows the first error line of the selected run at the top of the log; false when it has
    /// none or it is no longer kept.
    pub fn show_first_error(&mut self) -> bool {
        let Some((n, _)) = self
            .selected()
            .and_then(|r| r.log.first_error())
            .filter(|(n, _)| self.selected().is_some_and(|r| r.log.line(*n).is_some()))
        else {
            return false;
        };
        self.scroll = Some(n);
        true
    }
}

/// A run's job, started, and what it was prepared with.
#[derive(Debug)]
pub struct Launched {
    /// The job.
    pub job: Job,
    /// Its command, directory and results location.
    pub prepared: Prepared,
}

/// Prepares run `id` and starts its job, with a forwarder passing its output on as
/// [`RunEvent::Output`].
fn launch(
    input: &RunInput,
    recipe: &Recipe,
    runs: &std::path::Path,
    (id, handshake): (u64, Handshake),
    events: &Sink<RunEvent>,
    launched: &Mutex<Launches>,
) -> Result<Box<Launched>, String> {
    let mut prepared = prepare::prepare_from(input, recipe, runs)?;
    let (tx, rx) = sync_channel(1024);
    // Started and recorded under the lock that closing takes: skope either sees the job or
    // never lets it start.
    let mut launches = launched
        .lock()
        .map_err(|_| "skope is closing".to_string())?;
    if launches.closing {
        return Err("skope is closing".to_string());
    }
    let job = prepared.start(tx, ())?;
    launches.jobs.push(job.clone());
    drop(launches);
    let (events, failed) = (events.clone(), events.clone());
    let stopped = job.clone();
    Threads::Own.start(
        "skope-run-output",
        move || {
            batch::forward(rx, log::DEFAULT_LINES, handshake, |batch| {
                events(RunEvent::Output { id, batch })
            });
        },
        // Nobody reads the job's output any more: stop it and end the run as failed, saying why.
        move |answer| {
            let Err(why) = answer else {
                return;
            };
            stopped.kill();
            let batch = Batch {
                exited: Some(ExitStatus::Signal(libc::SIGKILL)),
                lost: Some(format!("skope stopped following the job's output: {why}")),
                ..Batch::default()
            };
            failed(RunEvent::Output { id, batch });
        },
    );
    Ok(Box::new(Launched { job, prepared }))
}
