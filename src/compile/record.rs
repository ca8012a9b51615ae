//! What a run leaves behind, so that after skope has gone one can still tell which plan made
//! which results: in the run's directory, `run.json` (this record: the recipe, the command as
//! run, where, the dump, start and end, the exit status) beside `plan.skope.json` (the plan it
//! ran on) and `log.txt` (every line of both streams, each marked). Old runs are pruned to a
//! number the user chooses.

use super::job::{ExitStatus, Stream};
pub use crate::clock::{now_ms, utc};
use crate::graph::GraphId;
use crate::own_files::{self, Durability, Links};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The record's file name in a run directory.
pub const RECORD: &str = "run.json";
/// The log's file name in a run directory.
pub const LOG: &str = "log.txt";
/// The plan snapshot's file name in a run directory.
pub const PLAN: &str = "plan.skope.json";
/// Runs kept in a dump's runs directory unless `keep_runs` in skope.toml says otherwise.
pub const DEFAULT_KEEP: usize = 20;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Exit code 0.
    Passed,
    /// Another exit code, or a signal.
    Failed,
    /// The user stopped it.
    Cancelled,
    /// It could not start.
    NotStarted,
    /// Not run by skope: a profile made elsewhere, added to the ledger by its path.
    Added,
}

impl Ending {
    /// The word for it.
    pub fn word(self) -> &'static str {
        match self {
            Ending::Passed => "passed",
            Ending::Failed => "failed",
            Ending::Cancelled => "cancelled",
            Ending::NotStarted => "not started",
            Ending::Added => "added",
        }
    }
}

/// One run's record (`run.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The recipe's name (`profile` in records of earlier releases).
    #[serde(alias = "profile")]
    pub recipe: String,
    /// The file the recipe came from; `None` for a built-in.
    #[serde(alias = "profile_file")]
    pub recipe_file: Option<String>,
    /// The command and its arguments, as run.
    pub argv: Vec<String>,
    /// Where it ran.
    pub cwd: String,
    /// Variables added to its environment.
    pub env: Vec<(String, String)>,
    /// The dump the plan is of.
    pub dump: String,
    /// The graph of the dump: a run is listed only with a dump of the same fingerprint.
    /// Records of earlier releases have none; their plan file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphId>,
    /// The plan it ran on (a file in the run directory).
    pub plan: String,
    /// Every line of its output (a file in the run directory).
    pub log: String,
    /// Where the recipe says its results appear.
    pub results: Option<String>,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// When it ended; `None` while it runs (or when skope stopped before it ended).
    pub ended_ms: Option<u64>,
    /// How it ended.
    pub ending: Option<Ending>,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// Why it could not start, or why skope stopped following it.
    pub error: Option<String>,
    /// What each SuperKernel of its plan was predicted to save before it ran (with profiles
    /// read when it started): a comparison of its profile sets it beside what it measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted: Option<crate::suggest::prediction::PlanPrediction>,
}

impl RunRecord {
    /// Writes the record into `dir`.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = crate::text::json_safe(
            serde_json::to_string_pretty(self).map_err(std::io::Error::other)?,
        ) + "\n";
        own_files::replace(
            &dir.join(RECORD),
            text.as_bytes(),
            Durability::Synced,
            Links::Refuse,
        )
    }

    /// Reads the record in `dir`.
    pub fn read(dir: &Path) -> Option<RunRecord> {
        let text = std::fs::read_to_string(dir.join(RECORD)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Notes how the run ended and writes the record again.
    pub fn finish(&mut self, dir: &Path, status: ExitStatus, cancelled: bool) {
        self.ended(status, cancelled);
        let _ = self.write(dir);
    }

    /// Notes how the run ended (the job's own thread wrote it to disk already: see
    /// [`super::prepare::Prepared::start`]).
    pub fn ended(&mut self, status: ExitStatus, cancelled: bool) {
        self.ended_ms = Some(now_ms());
        self.ending = Some(if cancelled {
            Ending::Cancelled
        } else if status.success() {
            Ending::Passed
        } else {
            Ending::Failed
        });
        match status {
            ExitStatus::Code(c) => self.exit_code = Some(c),
            ExitStatus::Signal(s) => self.signal = Some(s),
        }
    }

    /// Notes that the run could not start, and why, and writes the record again.
    pub fn not_started(&mut self, dir: &Path, error: &str) {
        self.ended_ms = Some(now_ms());
        self.ending = Some(Ending::NotStarted);
        self.error = Some(error.to_string());
        let _ = self.write(dir);
    }

    /// Where its results are: `results` as written, a relative one from where it ran.
    pub fn results_path(&self) -> Option<PathBuf> {
        let results = PathBuf::from(self.results.as_ref()?);
        Some(if results.is_relative() {
            Path::new(&self.cwd).join(results)
        } else {
            results
        })
    }

    /// How long it ran (so far, while it runs).
    pub fn elapsed(&self) -> Duration {
        let end = self.ended_ms.unwrap_or_else(now_ms);
        Duration::from_millis(end.saturating_sub(self.started_ms))
    }

    /// The exit status, once it exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match (self.exit_code, self.signal) {
            (Some(c), _) => Some(ExitStatus::Code(c)),
            (None, Some(s)) => Some(ExitStatus::Signal(s)),
            _ => None,
        }
    }
}

/// The last `max` lines of the log file `path` (each with its stream, `out| `/`err| ` taken
/// off), and how many lines came before them in the part read. Only the file's last 4 MiB
/// are read, so a long log opens at once.
pub fn read_log(path: &Path, max: usize) -> (Vec<(Stream, String)>, u64) {
    use std::io::{Read, Seek, SeekFrom};
    const TAIL: u64 = 4 * 1024 * 1024;
    let Ok(mut file) = std::fs::File::open(path) else {
        return (Vec::new(), 0);
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let from = len.saturating_sub(TAIL);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err() || file.read_to_end(&mut bytes).is_err() {
        return (Vec::new(), 0);
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    if from > 0 && !lines.is_empty() {
        // The first line read is most likely a part of one.
        lines.remove(0);
    }
    let before = lines.len().saturating_sub(max);
    let kept = lines[before..]
        .iter()
        .map(|line| match line.split_at_checked(5) {
            Some(("err| ", rest)) => (Stream::Stderr, rest.to_string()),
            Some(("out| ", rest)) => (Stream::Stdout, rest.to_string()),
            Some(("job| ", rest)) => (Stream::Merged, rest.to_string()),
            _ => (Stream::Merged, (*line).to_string()),
        })
        .collect();
    (kept, before as u64)
}

/// The runs recorded in `runs` (a dump's runs directory), oldest first.
pub fn history(runs: &Path) -> Vec<(PathBuf, RunRecord)> {
    let Ok(entries) = std::fs::read_dir(runs) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, RunRecord)> = entries
        .flatten()
        // A run is a folder skope made: a link in the runs' folder is not one.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter_map(|dir| RunRecord::read(&dir).map(|r| (dir, r)))
        .collect();
    found.sort_by(|a, b| a.1.started_ms.cmp(&b.1.started_ms).then(a.0.cmp(&b.0)));
    found
}

/// The runs of the graph `graph` recorded in `dirs` (its runs directory, and where earlier
/// releases kept runs), oldest first: a run made on another graph (a dump of the same file
/// name elsewhere, a re-dump of another model) is not this graph's.
pub fn history_of(dirs: &[PathBuf], graph: &GraphId) -> Vec<(PathBuf, RunRecord)> {
    let mut found: Vec<(PathBuf, RunRecord)> = dirs
        .iter()
        .flat_map(|dir| history(dir))
        .filter(|(dir, record)| match &record.graph {
            Some(made) => made.same_graph(graph),
            None => crate::planfile::PlanFile::graph_of(&dir.join(&record.plan))
                .is_ok_and(|made| made.same_graph(graph)),
        })
        .collect();
    found.sort_by(|a, b| a.1.started_ms.cmp(&b.1.started_ms).then(a.0.cmp(&b.0)));
    found
}

/// The run a profile comparison is of: the one whose plan is the file `plan` (as `--plan`
/// gives a run's), else the one whose directory holds `profile` as its results (a recipe's
/// results are most often in its `{out}`) — a run.json above a profile that is not that run's
/// results is another run's, never taken for this one's; with the run's directory.
pub fn run_of(plan: Option<&Path>, profile: &Path) -> Option<(PathBuf, RunRecord)> {
    let own = |dir: &Path| RunRecord::read(dir).map(|r| (dir.to_path_buf(), r));
    if let Some(plan) = plan {
        let dir = plan.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = dir.unwrap_or(Path::new("."));
        let named = |r: &(PathBuf, RunRecord)| plan.file_name() == Some(r.1.plan.as_ref());
        return own(dir).filter(named);
    }
    let profile = std::path::absolute(profile).ok()?;
    let holds = |run: &(PathBuf, RunRecord)| {
        let results = run
            .1
            .results_path()
            .and_then(|r| std::path::absolute(r).ok());
        results.is_some_and(|r| profile.starts_with(r))
    };
    profile.ancestors().find_map(|dir| own(dir).filter(holds))
}

/// Removes the oldest ended runs of `runs` until at most `keep` remain (runs that have not
/// ended are kept and counted). Returns the directories removed.
pub fn prune(runs: &Path, keep: usize) -> Vec<PathBuf> {
    let all = history(runs);
    let mut excess = all.len().saturating_sub(keep);
    let mut removed = Vec::new();
    for (dir, record) in all {
        if excess == 0 {
            break;
        }
        if record.ended_ms.is_some() && std::fs::remove_dir_all(&dir).is_ok() {
            removed.push(dir);
            excess -= 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_earlier_releases_read_their_recipe_from_profile() {
        let dir = crate::scratch::scratch("record");
        let old = r#"{"profile": "check", "profile_file": null, "argv": ["true"], "cwd": ".",
            "env": [], "dump": "m.txt", "plan": "plan.skope.json", "log": "log.txt",
            "results": null, "started_ms": 1, "ended_ms": null, "ending": null,
            "exit_code": null, "signal": null, "error": null}"#;
        std::fs::write(dir.join(RECORD), old).unwrap();
        let record = RunRecord::read(&dir).unwrap();
        assert_eq!(record.recipe, "check");
        record.write(&dir).unwrap();
        let written = std::fs::read_to_string(dir.join(RECORD)).unwrap();
        assert!(written.contains("\"recipe\": \"check\""), "{written}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_graphs_runs_are_its_own_and_not_another_dumps_of_the_same_name() {
        let runs = crate::scratch::scratch("history");
        let graph = |fingerprint: &str| GraphId {
            name: "g".into(),
            ops: 3,
            fingerprint: fingerprint.into(),
        };
        let run = |name: &str, started_ms: u64, made: Option<GraphId>| {
            let dir = runs.join(name);
            std::fs::create_dir_all(&dir).unwrap();
            let record = RunRecord {
                recipe: "check".into(),
                recipe_file: None,
                argv: vec!["true".into()],
                cwd: ".".into(),
                env: Vec::new(),
                dump: "m.txt".into(),
                graph: made,
                plan: PLAN.into(),
                log: LOG.into(),
                results: None,
                started_ms,
                ended_ms: None,
                ending: None,
                exit_code: None,
                signal: None,
                error: None,
                predicted: None,
            };
            record.write(&dir).unwrap();
            dir
        };
        let mine = run("check-1", 1, Some(graph("a")));
        run("check-2", 2, Some(graph("b")));
        // A record of an earlier release: its plan file says which graph it ran on.
        let earlier = run("check-3", 3, None);
        std::fs::write(
            earlier.join(PLAN),
            r#"{"skope_plan": 1, "graph": {"name": "g", "ops": 3, "fingerprint": "a"}, "scopes": []}"#,
        )
        .unwrap();
        let plain = run("check-4", 4, None);
        let found: Vec<PathBuf> = history_of(std::slice::from_ref(&runs), &graph("a"))
            .into_iter()
            .map(|(dir, _)| dir)
            .collect();
        assert_eq!(found, [mine, earlier]);
        assert!(plain.is_dir());
        let _ = std::fs::remove_dir_all(&runs);
    }
}
