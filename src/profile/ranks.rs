//! Every rank of a multi-rank profile pair compared in one pass: each rank's pair is read,
//! compared and reduced to its totals and payoffs before the next is read, a rank per core on a
//! work-stealing pool (`rayon`) — no more at once than the memory free holds — so memory stays
//! that of the ranks in flight whatever their number. Across ranks each
//! SuperKernel gets the median of its change over the ranks and the slowest rank named — where
//! an expert-parallel job's straggler shows.

use super::diff::diff_with;
use super::error::ProfileError;
use super::payoff::{PayoffClass, PayoffRule};
use super::planned::PlannedFusion;
use super::spread::Spread;
use super::{Sides, load_in_turn, load_picked_within};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One SuperKernel on one rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankPayoff {
    /// Its segment.
    pub segment: String,
    /// What its measurements say there.
    pub class: PayoffClass,
    /// Without SuperKernel: the median interval, µs.
    pub base_us: Option<f64>,
    /// With SuperKernel: the median duration, µs.
    pub new_us: Option<f64>,
    /// `new − base`, µs.
    pub delta_us: Option<f64>,
}

/// One rank, reduced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankSummary {
    /// The rank.
    pub rank: u32,
    /// Kernel time per step without SuperKernel (the median step's), µs.
    pub base_total_us: f64,
    /// The same with SuperKernel, µs.
    pub new_total_us: f64,
    /// The busy-time change, in percent (the key of earlier releases).
    pub benefit_pct: Option<f64>,
    /// What the headline measures on this rank: step time, or busy time without start times.
    pub measure: super::account::Measure,
    /// Its step time (busy time without start times) without SuperKernel, the mean over the
    /// steps kept, ns: the account's headline, as the one-rank comparison gives it.
    pub base_ns: i64,
    /// The same with SuperKernel, ns.
    pub new_ns: i64,
    /// `(base − new) / base` of those, in percent.
    pub change_pct: Option<f64>,
    /// What the new profile ran (`None`: no SuperKernel on this rank).
    pub fusion: Option<&'static str>,
    /// How many SuperKernels of each payoff.
    pub classes: BTreeMap<&'static str, usize>,
    /// Each SuperKernel's payoff on this rank, in plan order.
    pub payoffs: Vec<RankPayoff>,
    /// The comparison's notes and findings for this rank.
    pub notes: Vec<String>,
}

/// One SuperKernel across the ranks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcrossRanks {
    /// Its segment.
    pub segment: String,
    /// Ranks where both sides measured it.
    pub ranks_measured: usize,
    /// The median over those ranks of its change, µs.
    pub median_delta_us: Option<f64>,
    /// The median over those ranks of its time with SuperKernel, µs.
    pub median_new_us: Option<f64>,
    /// The rank where it took longest with SuperKernel, and that time, µs.
    pub slowest: Option<(u32, f64)>,
    /// How many ranks gave each payoff.
    pub classes: BTreeMap<&'static str, usize>,
    /// The ranks where it regressed.
    pub regressed_ranks: Vec<u32>,
}

/// Every rank compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RanksDiff {
    /// How payoffs were judged.
    pub rule: PayoffRule,
    /// Each rank, by rank.
    pub ranks: Vec<RankSummary>,
    /// Each SuperKernel across the ranks, in plan order.
    pub superkernels: Vec<AcrossRanks>,
    /// The rank with the longest step time (busy time without start times) with SuperKernel.
    pub slowest_rank: Option<u32>,
}

impl RanksDiff {
    /// True when a SuperKernel regressed on any rank.
    pub fn any_regressed(&self) -> bool {
        self.superkernels
            .iter()
            .any(|s| !s.regressed_ranks.is_empty())
    }
}

/// How far a comparison of ranks has come, for whoever shows it while it runs.
#[derive(Debug, Default)]
pub struct RankProgress {
    done: AtomicUsize,
    total: AtomicUsize,
}

impl RankProgress {
    /// Ranks compared, of how many (0 of 0 before it starts).
    pub fn get(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }
}

/// Memory one rank in flight is given at the least: below it, fewer ranks run at once.
const RANK_MEMORY: u64 = 512 << 20;

/// Ranks compared at once: one per core, no more than `free` bytes hold at [`RANK_MEMORY`]
/// each, at least one.
fn ranks_at_once(ranks: usize, free: Option<u64>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let fit = free.map_or(usize::MAX, |f| {
        usize::try_from(f / RANK_MEMORY).unwrap_or(usize::MAX)
    });
    cores.min(fit).min(ranks).max(1)
}

/// Compares rank by rank the pair `sides` (found once) holding `ranks`, against `plan`: as
/// many ranks at once as there are cores and memory for, each within its share of the memory
/// free; a rank that needs more than its share is read again alone at the end. `progress`
/// counts the ranks done.
pub fn compare_ranks(
    sides: &Sides,
    ranks: &[u32],
    plan: Option<&PlannedFusion>,
    rule: PayoffRule,
    progress: &RankProgress,
) -> Result<RanksDiff, ProfileError> {
    progress.total.store(ranks.len(), Ordering::Relaxed);
    progress.done.store(0, Ordering::Relaxed);
    let free = crate::memory::available();
    let at_once = ranks_at_once(ranks.len(), free);
    let share = free.map(|f| f / at_once as u64);
    let base = sides.path();
    let compare = |rank: u32, memory: Option<u64>| {
        // A panic is this rank's error, never dropped nor the pool's end.
        let run = std::panic::AssertUnwindSafe(|| {
            let picked = sides.pick(Some(rank))?;
            // With a rank on each core, a rank's sides are read in turn: read at once, they
            // were two threads on a core, each evicting the other's names and runs from its
            // caches (16 ranks, medians of 5 and 6 runs: 16.4 s at once, 15.5 s in turn, 29-30
            // s of CPU against 27-28.5 s, and 35 MB less).
            let read = if at_once > 1 {
                load_in_turn
            } else {
                load_picked_within
            };
            read(picked, Some(rank), memory).map(|pair| {
                let d = diff_with(&pair, plan, rule);
                summarize(rank, &d)
            })
        });
        std::panic::catch_unwind(run).unwrap_or_else(|payload| {
            Err(ProfileError::Pairing {
                path: base.to_path_buf(),
                message: format!(
                    "comparing rank {rank} stopped: {} (a bug in skope; please report it)",
                    crate::worker::panic_message(payload.as_ref())
                ),
            })
        })
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(at_once)
        .thread_name(|i| format!("skope-rank-{i}"))
        .build()
        .map_err(|e| ProfileError::Pairing {
            path: base.to_path_buf(),
            message: format!("no thread to compare the ranks on: {e}"),
        })?;
    let results: Vec<(u32, Result<RankSummary, ProfileError>)> = pool.install(|| {
        ranks
            .par_iter()
            .map(|&rank| {
                let result = compare(rank, share);
                // Counted once a rank is through (a rank read again alone counts then).
                if !matches!(result, Err(ProfileError::TooManyKernels { .. })) {
                    progress.done.fetch_add(1, Ordering::Relaxed);
                }
                (rank, result)
            })
            .collect()
    });
    drop(pool);
    let mut summaries = Vec::with_capacity(ranks.len());
    for (rank, result) in results {
        let summary = match result {
            Err(ProfileError::TooManyKernels { .. }) if at_once > 1 => {
                let again = compare(rank, crate::memory::available());
                progress.done.fetch_add(1, Ordering::Relaxed);
                again
            }
            other => other,
        };
        summaries.push(summary?);
    }
    summaries.sort_by_key(|s| s.rank);
    Ok(across(summaries, rule))
}

/// What is kept of rank `rank`'s comparison `d`.
fn summarize(rank: u32, d: &super::Diff) -> RankSummary {
    let mut notes = d.notes.clone();
    let payoffs = match &d.payoffs {
        Some(p) => {
            notes.extend(p.findings.iter().cloned());
            p.list
                .iter()
                .map(|x| RankPayoff {
                    segment: x.segment.clone(),
                    class: x.class,
                    base_us: x.base.map(|s| s.median_us),
                    new_us: x.new.map(|s| s.median_us),
                    delta_us: x.delta_us,
                })
                .collect()
        }
        None => Vec::new(),
    };
    RankSummary {
        rank,
        base_total_us: d.base_total_us,
        new_total_us: d.new_total_us,
        benefit_pct: d.benefit_pct,
        measure: d.account.measure,
        base_ns: d.account.base.mean_ns,
        new_ns: d.account.new.mean_ns,
        change_pct: d.account.change_pct,
        fusion: d.account.fusion,
        classes: d
            .payoffs
            .as_ref()
            .map(|p| p.classes.clone())
            .unwrap_or_default(),
        payoffs,
        notes,
    }
}

/// The ranks' summaries, and each SuperKernel across them.
fn across(ranks: Vec<RankSummary>, rule: PayoffRule) -> RanksDiff {
    let mut order: Vec<&str> = Vec::new();
    let mut by_segment: BTreeMap<&str, Vec<(u32, &RankPayoff)>> = BTreeMap::new();
    for r in &ranks {
        for p in &r.payoffs {
            let e = by_segment.entry(&p.segment).or_insert_with(|| {
                order.push(&p.segment);
                Vec::new()
            });
            e.push((r.rank, p));
        }
    }
    let median = |v: Vec<f64>| -> Option<f64> {
        let ns: Vec<i64> = v.iter().map(|x| (x * 1000.0).round() as i64).collect();
        Spread::of(&ns).map(|s| s.median_us)
    };
    let superkernels = order
        .iter()
        .map(|segment| {
            let per = &by_segment[segment];
            let measured: Vec<&(u32, &RankPayoff)> =
                per.iter().filter(|(_, p)| p.delta_us.is_some()).collect();
            let mut classes = BTreeMap::new();
            for (_, p) in per {
                *classes.entry(p.class.words()).or_insert(0) += 1;
            }
            AcrossRanks {
                segment: segment.to_string(),
                ranks_measured: measured.len(),
                median_delta_us: median(measured.iter().filter_map(|(_, p)| p.delta_us).collect()),
                median_new_us: median(measured.iter().filter_map(|(_, p)| p.new_us).collect()),
                slowest: measured
                    .iter()
                    .filter_map(|(r, p)| Some((*r, p.new_us?)))
                    .max_by(|a, b| a.1.total_cmp(&b.1)),
                classes,
                regressed_ranks: per
                    .iter()
                    .filter(|(_, p)| p.class == PayoffClass::Regressed)
                    .map(|(r, _)| *r)
                    .collect(),
            }
        })
        .collect();
    let slowest_rank = ranks.iter().max_by_key(|r| r.new_ns).map(|r| r.rank);
    RanksDiff {
        rule,
        ranks,
        superkernels,
        slowest_rank,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_run_one_per_core_within_the_memory_free() {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(ranks_at_once(64, None), cores.min(64));
        assert_eq!(ranks_at_once(1, None), 1);
        // Memory for two ranks: two at once at most, whatever the cores.
        assert_eq!(ranks_at_once(64, Some(2 * RANK_MEMORY)), cores.min(2));
        // Too little for one: still one, read within what there is.
        assert_eq!(ranks_at_once(64, Some(RANK_MEMORY / 4)), 1);
    }
}
