//! Passing a job's output on in batches: a thread reads the job's events and hands them over
//! one batch at a time, never sending the next until the receiver says it took the last. While
//! it waits, lines gather in a ring of bounded size, so a fast job neither floods the receiver
//! nor grows memory, and the receiver sees every line when it keeps up.

use super::job::{ExitStatus, JobEvent};
use super::log::LogLine;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a batch may wait for more lines before it goes, so output shows promptly.
const GATHER: Duration = Duration::from_millis(30);

/// Output handed over at once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batch {
    /// New lines, oldest first.
    pub lines: Vec<LogLine>,
    /// Lines dropped before this batch because the receiver fell behind.
    pub dropped: u64,
    /// How the job ended, once it has (in the last batch, after every line).
    pub exited: Option<ExitStatus>,
    /// Why its output could not be followed any more, when it could not (the forwarder failed;
    /// the job was stopped, and `exited` says how).
    pub lost: Option<String>,
}

/// Set by the forwarder when it hands a batch over, cleared by the receiver once it has taken
/// it in.
#[derive(Debug, Clone, Default)]
pub struct Handshake(Arc<AtomicBool>);

impl Handshake {
    /// Tells the forwarder the last batch was taken in.
    pub fn taken(&self) {
        self.0.store(false, Ordering::Release);
    }

    fn busy(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    fn sent(&self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Reads `events` until the job's exit is handed over, keeping at most `capacity` waiting
/// lines; `deliver` hands a batch over and returns false once nobody listens any more.
pub fn forward<T>(
    events: Receiver<(T, JobEvent)>,
    capacity: usize,
    handshake: Handshake,
    mut deliver: impl FnMut(Batch) -> bool,
) {
    let capacity = capacity.max(1);
    let mut waiting: VecDeque<LogLine> = VecDeque::new();
    let mut dropped = 0u64;
    let mut exited = None;
    // When the oldest waiting line arrived.
    let mut since: Option<Instant> = None;
    loop {
        if exited.is_none() {
            let wait = since.map_or(Duration::from_secs(3600), |t| wait_after(t.elapsed()));
            match events.recv_timeout(wait) {
                Ok((_, event)) => {
                    take(event, &mut waiting, &mut dropped, &mut exited, capacity);
                    // Whatever else is there already joins this batch.
                    while exited.is_none()
                        && let Ok((_, event)) = events.try_recv()
                    {
                        take(event, &mut waiting, &mut dropped, &mut exited, capacity);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => exited = Some(ExitStatus::Code(-1)),
            }
            if since.is_none() && !waiting.is_empty() {
                since = Some(Instant::now());
            }
            let due = exited.is_some() || since.is_some_and(|t| t.elapsed() >= GATHER);
            if !due {
                continue;
            }
        }
        if handshake.busy() {
            if exited.is_some() {
                std::thread::sleep(Duration::from_millis(10));
            }
            continue;
        }
        let batch = Batch {
            lines: waiting.drain(..).collect(),
            dropped: std::mem::take(&mut dropped),
            exited,
            lost: None,
        };
        since = None;
        handshake.sent();
        if !deliver(batch) || exited.is_some() {
            return;
        }
    }
}

/// How long to wait for more lines when the oldest waiting one arrived `elapsed` ago: until
/// the batch is due, or (due, but the receiver has not taken the last batch) a little while.
/// `elapsed` is read once: reading the clock twice could pass the due time in between.
fn wait_after(elapsed: Duration) -> Duration {
    match GATHER.checked_sub(elapsed) {
        Some(left) if !left.is_zero() => left,
        _ => Duration::from_millis(10),
    }
}

fn take(
    event: JobEvent,
    waiting: &mut VecDeque<LogLine>,
    dropped: &mut u64,
    exited: &mut Option<ExitStatus>,
    capacity: usize,
) {
    match event {
        JobEvent::Line { stream, text, cut } => {
            if waiting.len() == capacity {
                waiting.pop_front();
                *dropped += 1;
            }
            waiting.push_back(LogLine { stream, text, cut });
        }
        JobEvent::Exited(status) => *exited = Some(status),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_never_underflows_when_the_due_time_passes_between_clock_reads() {
        assert_eq!(wait_after(Duration::ZERO), GATHER);
        assert_eq!(
            wait_after(GATHER - Duration::from_millis(5)),
            Duration::from_millis(5)
        );
        assert_eq!(wait_after(GATHER), Duration::from_millis(10));
        assert_eq!(
            wait_after(GATHER + Duration::from_nanos(1)),
            Duration::from_millis(10)
        );
        assert_eq!(
            wait_after(Duration::from_secs(60)),
            Duration::from_millis(10)
        );
    }
    use crate::compile::job::Stream;
    use std::sync::mpsc::sync_channel;

    /// Sends `n` lines then the exit, as a job's readers would.
    fn producer(n: usize) -> Receiver<((), JobEvent)> {
        let (tx, rx) = sync_channel(64);
        std::thread::spawn(move || {
            for i in 0..n {
                let line = JobEvent::Line {
                    stream: Stream::Stdout,
                    text: i.to_string(),
                    cut: 0,
                };
                if tx.send(((), line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(((), JobEvent::Exited(ExitStatus::Code(3))));
        });
        rx
    }

    #[test]
    fn a_receiver_that_keeps_up_gets_every_line_in_order_then_the_exit() {
        let handshake = Handshake::default();
        let mut batches = Vec::new();
        let ack = handshake.clone();
        forward(producer(50_000), 1_000_000, handshake, |batch| {
            batches.push(batch);
            ack.taken();
            true
        });
        let lines: Vec<String> = batches
            .iter()
            .flat_map(|b| b.lines.iter().map(|l| l.text.clone()))
            .collect();
        let expected: Vec<String> = (0..50_000).map(|i| i.to_string()).collect();
        assert_eq!(lines, expected);
        assert!(batches.iter().all(|b| b.dropped == 0));
        let exits: Vec<_> = batches.iter().filter_map(|b| b.exited).collect();
        assert_eq!(exits, [ExitStatus::Code(3)]);
        assert_eq!(
            batches.last().and_then(|b| b.exited),
            Some(ExitStatus::Code(3))
        );
    }

    #[test]
    fn a_slow_receiver_gets_bounded_batches_and_a_count_of_what_was_dropped() {
        let handshake = Handshake::default();
        let mut batches = Vec::new();
        let ack = handshake.clone();
        forward(producer(20_000), 10, handshake, |batch| {
            batches.push(batch);
            let ack = ack.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(20));
                ack.taken();
            });
            true
        });
        assert!(batches.iter().all(|b| b.lines.len() <= 10));
        let kept: usize = batches.iter().map(|b| b.lines.len()).sum();
        let dropped: u64 = batches.iter().map(|b| b.dropped).sum();
        assert_eq!(kept as u64 + dropped, 20_000);
        assert!(dropped > 0);
        // What is kept is still in order, and the last line always arrives.
        let numbers: Vec<usize> = batches
            .iter()
            .flat_map(|b| b.lines.iter().map(|l| l.text.parse::<usize>().unwrap()))
            .collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(numbers.last(), Some(&19_999));
        assert_eq!(
            batches.last().and_then(|b| b.exited),
            Some(ExitStatus::Code(3))
        );
    }

    #[test]
    fn a_receiver_gone_ends_the_forwarder() {
        let mut calls = 0;
        forward(producer(1_000_000), 100, Handshake::default(), |_| {
            calls += 1;
            false
        });
        assert_eq!(calls, 1);
    }
}
