//! A comparison of many ranks made up directly (no profiles read): `ranks` ranks and
//! `superkernels` SuperKernels, every figure from the rank and the SuperKernel's index, rank
//! 17 (when there is one) the slowest and regressing on every third SuperKernel.

use skope::profile::account::Measure;
use skope::profile::payoff::PayoffClass;
use skope::profile::ranks::{AcrossRanks, RankPayoff, RankSummary, RanksDiff};
use skope::tui::app::App;
use skope::tui::profiles::ProfilesRequest;
use skope::tui::ranks_view::RanksView;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Opens the ranks view of `app` on the comparison of `ranks` × `superkernels`.
pub fn show(app: &mut App, ranks: u32, superkernels: usize) {
    let request = ProfilesRequest {
        base: "prof".into(),
        new: None,
        rank: None,
        made_with: None,
    };
    let diff = Arc::new(ranks_diff(ranks, superkernels));
    app.set_view_state(RanksView::new(diff, request));
    app.show_view("ranks");
}

/// The comparison of `ranks` × `superkernels`.
pub fn ranks_diff(ranks: u32, superkernels: usize) -> RanksDiff {
    let segment = |k: usize| format!("layer{}_moe_{k}", k % 8);
    let delta = |rank: u32, k: usize| -> f64 {
        if rank == 17 && k.is_multiple_of(3) {
            4.0 + k as f64 / 10.0
        } else {
            -(1.0 + ((rank as usize * 7 + k * 13) % 50) as f64 / 10.0)
        }
    };
    let class = |d: f64| {
        if d > 0.0 {
            PayoffClass::Regressed
        } else {
            PayoffClass::Beneficial
        }
    };
    let summaries: Vec<RankSummary> = (0..ranks)
        .map(|rank| {
            let base_ns = 1_000_000 + i64::from(rank % 13) * 1_000;
            let new_ns = base_ns - 40_000 + if rank == 17 { 90_000 } else { 0 };
            let payoffs: Vec<RankPayoff> = (0..superkernels)
                .map(|k| {
                    let d = delta(rank, k);
                    RankPayoff {
                        segment: segment(k),
                        class: class(d),
                        base_us: Some(20.0),
                        new_us: Some(20.0 + d),
                        delta_us: Some(d),
                    }
                })
                .collect();
            let mut classes = BTreeMap::new();
            for p in &payoffs {
                *classes.entry(p.class.words()).or_insert(0) += 1;
            }
            RankSummary {
                rank,
                base_total_us: base_ns as f64 / 1000.0,
                new_total_us: new_ns as f64 / 1000.0,
                benefit_pct: None,
                measure: Measure::StepTime,
                base_ns,
                new_ns,
                change_pct: Some((base_ns - new_ns) as f64 / base_ns as f64 * 100.0),
                fusion: Some("SuperKernel"),
                classes,
                payoffs,
                notes: Vec::new(),
            }
        })
        .collect();
    let superkernels = (0..superkernels)
        .map(|k| AcrossRanks {
            segment: segment(k),
            ranks_measured: ranks as usize,
            median_delta_us: Some(-3.0),
            median_new_us: Some(17.0),
            slowest: (ranks > 17).then_some((17, 24.0)),
            classes: BTreeMap::new(),
            regressed_ranks: if ranks > 17 && k.is_multiple_of(3) {
                vec![17]
            } else {
                Vec::new()
            },
        })
        .collect();
    RanksDiff {
        rule: Default::default(),
        ranks: summaries,
        superkernels,
        slowest_rank: (ranks > 17).then_some(17),
    }
}
