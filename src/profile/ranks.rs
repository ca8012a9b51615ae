//! Every rank of a multi-rank profile pair compared in one pass: each rank's pair is read,
//! compared and reduced to its totals and payoffs before the next is read (two ranks at a time,
//! one per core), so memory stays that of two ranks whatever their number. Across ranks each
//! SuperKernel gets the median of its change over the ranks and the slowest rank named — where
//! an expert-parallel job's straggler shows.

use super::diff::diff_with;
use super::error::ProfileError;
use super::payoff::{PayoffClass, PayoffRule};
use super::planned::PlannedFusion;
use super::spread::Spread;
use super::{load_pair, locate_pair};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;
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

/// The ranks the pair holds, when it holds several.
pub fn ranks_of(base: &Path, new: Option<&Path>) -> Result<Option<Vec<u32>>, ProfileError> {
    match locate_pair(base, new, None) {
        Ok(_) => Ok(None),
        Err(ProfileError::SeveralRanks { ranks, .. }) => {
            Ok(Some(ranks.iter().map(|r| r.rank).collect()))
        }
        Err(e) => Err(e),
    }
}

/// Compares rank by rank the pair at `base` (and `new`) holding `ranks`, against `plan`, two
/// ranks at a time.
pub fn compare_ranks(
    (base, new): (&Path, Option<&Path>),
    ranks: &[u32],
    plan: Option<&PlannedFusion>,
    rule: PayoffRule,
) -> Result<RanksDiff, ProfileError> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Result<RankSummary, ProfileError>>> = Mutex::new(Vec::new());
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&rank) = ranks.get(i) else { break };
            let summary = load_pair(base, new, Some(rank)).map(|pair| {
                let d = diff_with(&pair, plan, rule);
                summarize(rank, &d)
            });
            if let Ok(mut done) = done.lock() {
                done.push(summary);
            }
        }
    };
    // A panic on the second thread is an error, never dropped (the first's reaches the caller).
    let second = std::thread::scope(|threads| {
        let second = threads.spawn(work);
        work();
        second.join()
    });
    if let Err(payload) = second {
        return Err(ProfileError::Pairing {
            path: base.to_path_buf(),
            message: format!(
                "comparing the ranks stopped: {} (a bug in skope; please report it)",
                crate::worker::panic_message(payload.as_ref())
            ),
        });
    }
    let mut summaries = Vec::with_capacity(ranks.len());
    for s in done.into_inner().unwrap_or_default() {
        summaries.push(s?);
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
