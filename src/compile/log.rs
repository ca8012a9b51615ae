//! A job's log: the last lines of its output in a ring of bounded size, with the first line
//! that reads like an error kept even after it scrolls out.

use super::job::Stream;
use std::collections::VecDeque;

/// Lines a log keeps by default.
pub const DEFAULT_LINES: usize = 10_000;

/// One line of output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Its stream.
    pub stream: Stream,
    /// Its text (already cleaned).
    pub text: String,
    /// Bytes dropped from it because it was too long.
    pub cut: usize,
}

/// The kept output of a job.
#[derive(Debug, Clone)]
pub struct Log {
    lines: VecDeque<LogLine>,
    capacity: usize,
    dropped: u64,
    first_error: Option<(u64, LogLine)>,
    /// How the job's streams were read, as its lines show: `Some(true)` once a line came
    /// through one pipe for both, `Some(false)` once one came through a pipe of its own.
    merged: Option<bool>,
}

impl Log {
    /// A log keeping at most `capacity` lines.
    pub fn new(capacity: usize) -> Log {
        Log {
            lines: VecDeque::with_capacity(capacity.min(1024)),
            capacity: capacity.max(1),
            dropped: 0,
            first_error: None,
            merged: None,
        }
    }

    /// What is known of the lines' streams, in words for the view: `None` before any line of
    /// the job.
    pub fn streams_known(&self) -> Option<&'static str> {
        self.merged.map(|merged| {
            if merged {
                "stdout+stderr in the order written"
            } else {
                "▍ stderr · order across streams not kept"
            }
        })
    }

    /// Adds a line, dropping the oldest when full.
    pub fn push(&mut self, line: LogLine) {
        match line.stream {
            Stream::Merged => self.merged = Some(true),
            Stream::Stdout | Stream::Stderr => {
                self.merged.get_or_insert(false);
            }
        }
        if self.first_error.is_none() && reads_like_error(&line.text) {
            self.first_error = Some((self.total(), line.clone()));
        }
        if self.lines.len() == self.capacity {
            self.lines.pop_front();
            self.dropped += 1;
        }
        self.lines.push_back(line);
    }

    /// Counts `n` lines that were dropped before they reached the log.
    pub fn skipped(&mut self, n: u64) {
        self.dropped += n;
    }

    /// The kept lines, oldest first.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = &LogLine> {
        self.lines.iter()
    }

    /// Lines dropped from the front so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Lines seen in all.
    pub fn total(&self) -> u64 {
        self.dropped + self.lines.len() as u64
    }

    /// The kept line with number `n` (0-based, over all lines), if it is still kept.
    pub fn line(&self, n: u64) -> Option<&LogLine> {
        n.checked_sub(self.dropped)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.lines.get(i))
    }

    /// The first line that reads like an error, with its line number (0-based, over all lines).
    pub fn first_error(&self) -> Option<(u64, &LogLine)> {
        self.first_error.as_ref().map(|(n, l)| (*n, l))
    }
}

/// True for a line a compiler or script prints for an error.
fn reads_like_error(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("error") && !lower.contains("0 error") && !lower.contains("no error")
        || lower.starts_with("traceback")
        || lower.contains("fatal")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> LogLine {
        LogLine {
            stream: Stream::Stdout,
            text: text.into(),
            cut: 0,
        }
    }

    #[test]
    fn the_ring_keeps_the_last_lines_and_the_first_error() {
        let mut log = Log::new(3);
        for text in [
            "a",
            "x.cpp:3:1: error: expected ';'",
            "b",
            "c",
            "d",
            "error: again",
        ] {
            log.push(line(text));
        }
        let kept: Vec<&str> = log.lines().map(|l| l.text.as_str()).collect();
        assert_eq!(kept, ["c", "d", "error: again"]);
        assert_eq!((log.dropped(), log.total()), (3, 6));
        let (n, first) = log.first_error().unwrap();
        assert_eq!(
            (n, first.text.as_str()),
            (1, "x.cpp:3:1: error: expected ';'")
        );
    }

    #[test]
    fn summaries_without_errors_are_not_errors() {
        assert!(!reads_like_error("build finished: 0 errors, 2 warnings"));
        assert!(!reads_like_error("no errors found"));
        assert!(reads_like_error("Traceback (most recent call last):"));
        assert!(reads_like_error("ERROR: CANN not found"));
    }
}
