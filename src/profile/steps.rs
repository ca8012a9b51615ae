//! A profile's steps (the profiler's `Step Id`), one by one: each step's busy time — the sum
//! of its kernels' durations, communication apart — and its step time, its span from its first
//! kernel's start to its last kernel's end; their spread; and the steps that lie far from the
//! others (a recompile, a page fault), which the account of the time leaves out
//! ([`super::account`]). A profile without `Step Id` is one step.

use super::account::{OUTLIER_FLOOR_PCT, OUTLIER_MADS};
use super::runs::{NameInfo, Runs};
use super::spread::Spread;
use serde::Serialize;
use std::collections::HashMap;

/// One step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTime {
    /// Its `Step Id` (empty when the profile has none).
    pub step: String,
    /// Its kernels' durations added up (communication apart), µs.
    pub kernels_us: f64,
    /// From its first kernel's start to its last kernel's end, µs; `None` without start times.
    pub span_us: Option<f64>,
    /// Kernel runs in it.
    pub runs: usize,
    /// True when its step time (busy time, without start times) lies more than
    /// [`OUTLIER_MADS`] deviations and more than [`OUTLIER_FLOOR_PCT`] % from the median: the
    /// account leaves it out.
    pub outlier: bool,
}

/// The steps of one profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Steps {
    /// Every step, in order.
    pub list: Vec<StepTime>,
    /// The spread of the steps' kernel times.
    pub kernels: Spread,
    /// The spread of the steps' spans, when the profile has start times.
    pub span: Option<Spread>,
}

impl Steps {
    /// The steps of `runs`, counting in the kernel time the runs whose name `counted` takes
    /// (computation; communication is compared apart). `None` without runs.
    pub fn of(runs: &Runs, counted: impl Fn(&NameInfo) -> bool) -> Option<Steps> {
        let order = runs.steps();
        let at: HashMap<u32, usize> = order.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        // Per step: kernel time, first start, last end, runs.
        let mut sums = vec![(0i64, i64::MAX, i64::MIN, 0usize); order.len()];
        let mut counts: Vec<Option<bool>> = vec![None; runs.names()];
        // A run's step is mostly the run before's: looked up only when it changes.
        let mut before: Option<(u32, Option<usize>)> = None;
        for r in runs.all() {
            let step = match before {
                Some((step, i)) if step == r.step => i,
                _ => at.get(&r.step).copied(),
            };
            before = Some((r.step, step));
            let Some(i) = step else { continue };
            let counts_in =
                *counts[r.name as usize].get_or_insert_with(|| counted(runs.name(r.name)));
            let s = &mut sums[i];
            if counts_in {
                s.0 = s.0.saturating_add(r.dur_ns);
            }
            s.1 = s.1.min(r.start_ns);
            s.2 = s.2.max(r.end_ns());
            s.3 += 1;
        }
        let kernels: Vec<i64> = sums.iter().map(|s| s.0).collect();
        let spans: Vec<i64> = sums
            .iter()
            .map(|s| s.2.saturating_sub(s.1).max(0))
            .collect();
        let kernel_spread = Spread::of(&kernels)?;
        let span_spread = if runs.has_starts {
            Spread::of(&spans)
        } else {
            None
        };
        let judged = span_spread.unwrap_or(kernel_spread);
        let list = order
            .iter()
            .zip(&sums)
            .zip(&spans)
            .map(|((step, s), span)| {
                let kernels_us = s.0 as f64 / 1000.0;
                let span_us = runs.has_starts.then_some(*span as f64 / 1000.0);
                let value = span_us.unwrap_or(kernels_us);
                StepTime {
                    step: runs.label(*step).to_string(),
                    kernels_us,
                    span_us,
                    runs: s.3,
                    outlier: judged.is_outlier(value, OUTLIER_MADS)
                        && (value - judged.median_us).abs()
                            > OUTLIER_FLOOR_PCT / 100.0 * judged.median_us,
                }
            })
            .collect();
        Some(Steps {
            list,
            kernels: kernel_spread,
            span: span_spread,
        })
    }

    /// The steps pointed out as far from the others.
    pub fn outliers(&self) -> impl Iterator<Item = &StepTime> {
        self.list.iter().filter(|s| s.outlier)
    }
}
