//! A recipe run in the foreground, as `skope compile` runs one: prepared like the explorer's
//! runs, its output followed the same way ([`batch::forward`]) but every line passed on, and
//! stopped when asked.

use super::batch::{self, Handshake};
use super::job::ExitStatus;
use super::log::Log;
use super::{prepare, recipe};
use crate::text::sanitize;
use crate::workspace::Workspace;
use anyhow::Result;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the stop flag is looked at while the job runs.
const POLL: Duration = Duration::from_millis(100);

/// How long a stopped job has to end before its process group is killed.
const GRACE: Duration = Duration::from_secs(3);

/// Where a foreground run's words go.
pub struct Output<'a> {
    /// Each line of the job, in the order written.
    pub line: &'a mut dyn FnMut(&str),
    /// skope's own lines (what runs where, how it ended).
    pub say: &'a mut dyn FnMut(&str),
}

/// A flag set when skope is asked to end (ctrl-c, SIGTERM): the stop for [`run`].
pub fn stop_on_signals() -> std::io::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// Runs the recipe `name` (from the recipe files found from `cwd`, or built in) on `ws`, the
/// dump `file`, until its job ends, its record holding `predicted` (what its SuperKernels were
/// predicted to save); sets its process group stopping once `stop` is set.
/// Returns the job's status; an error when the recipe is unknown or the job cannot start.
pub fn run(
    (ws, file): (&Workspace, &Path),
    name: &str,
    predicted: Option<crate::suggest::prediction::PlanPrediction>,
    cwd: &Path,
    stop: &AtomicBool,
    out: Output,
) -> Result<ExitStatus> {
    let recipes = recipe::load(&recipe::search_paths(cwd))?;
    for note in &recipes.notes {
        (out.say)(&format!("note: {}", sanitize(note)));
    }
    let Some(chosen) = recipes.list.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = recipes.list.iter().map(|p| p.name.as_str()).collect();
        anyhow::bail!(
            "no recipe named {:?}; recipes: {} (define more in {} as [[recipe]] tables)",
            sanitize(name),
            names.join(", "),
            recipe::FILE_NAME
        );
    };
    let runs = prepare::runs_dir(&file.to_string_lossy());
    let mut input =
        prepare::RunInput::of(ws, chosen, recipes.keep_runs).map_err(anyhow::Error::msg)?;
    input.predicted = predicted;
    let mut run = prepare::prepare_from(&input, chosen, &runs).map_err(anyhow::Error::msg)?;
    (out.say)(&format!(
        "running recipe {} ({}) in {} (output in {})",
        sanitize(&chosen.name),
        sanitize(&chosen.origin()),
        sanitize(&run.cwd.to_string_lossy()),
        sanitize(&run.out.to_string_lossy())
    ));
    let (tx, rx) = std::sync::mpsc::sync_channel(1024);
    let job = run.start(tx, ()).map_err(anyhow::Error::msg)?;
    let mut log = Log::new(1);
    let mut exited = None;
    let ended = AtomicBool::new(false);
    let cancelled = std::thread::scope(|threads| {
        let watcher = threads.spawn(|| {
            while !ended.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    job.cancel(GRACE);
                    return true;
                }
                std::thread::sleep(POLL);
            }
            false
        });
        let handshake = Handshake::default();
        // Every line is passed on: each batch is taken in as it is handed over, so none waits
        // and none is dropped.
        batch::forward(rx, usize::MAX, handshake.clone(), |batch| {
            for line in batch.lines {
                match line.cut {
                    0 => (out.line)(&line.text),
                    n => (out.line)(&format!("{} … ({n} more bytes)", line.text)),
                }
                log.push(line);
            }
            exited = batch.exited;
            handshake.taken();
            true
        });
        ended.store(true, Ordering::Relaxed);
        watcher.join().unwrap_or(false)
    });
    if cancelled {
        (out.say)("the job was cancelled");
    }
    let status = exited.unwrap_or(ExitStatus::Code(-1));
    run.record.ended(status, cancelled);
    (out.say)(&match log.first_error() {
        Some((n, line)) if !status.success() => format!(
            "recipe {} failed ({status}); first error, line {}: {}",
            sanitize(&chosen.name),
            n + 1,
            line.text
        ),
        _ => format!("recipe {} ended: {status}", sanitize(&chosen.name)),
    });
    Ok(status)
}
