//! The two-stream form (`stream-fusion=1` with sub-ops on two streams): the cube and vector
//! cores each run their own function over their sub-ops, ordered by cross-core flags where a
//! cube sub-op feeds a vector one or the reverse, and by a pipe barrier between consecutive
//! sub-ops on the same cores (reference §5.4). Early-start is off in this form.

use super::blocks;
use super::subop::{Core, SubOp};
use super::writer::Writer;
use super::{Layout, Origin};
use crate::graph::{Graph, OpId};
use std::collections::HashMap;

/// A dependency between two sub-ops that share no core kind: the producer's cores set a
/// cross-core flag after it, the consumer's cores wait for the flag before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrossCoreSync {
    /// Index of the producing sub-op.
    pub from: usize,
    /// Index of the consuming sub-op.
    pub to: usize,
    /// The core kind the producer runs on.
    pub producer: Core,
}

/// The cross-core syncs the dependencies between `subs` need, with redundant ones removed: a
/// sync from `a` to `d` is dropped when another sync in the same direction goes from `b` to
/// `c` with `a ≤ b` and `c ≤ d`, which already orders `a` before `d`.
pub fn cross_core_syncs(graph: &Graph, subs: &[SubOp]) -> Vec<CrossCoreSync> {
    let index: HashMap<OpId, usize> = subs.iter().enumerate().map(|(k, s)| (s.id, k)).collect();
    let mut all = Vec::new();
    for (from, sub) in subs.iter().enumerate() {
        let producer = sub.arch().cores();
        for (dst, _) in graph.successors(sub.id) {
            let Some(to) = index.get(&dst).copied().filter(|&to| to > from) else {
                continue;
            };
            let consumer = subs[to].arch().cores();
            if producer.iter().any(|c| consumer.contains(c)) {
                continue;
            }
            all.push(CrossCoreSync {
                from,
                to,
                producer: producer[0],
            });
        }
    }
    // Latest producer first (earliest consumer first among equals): a sync is implied when one
    // seen before it, in the same direction, reaches a consumer no later than it does.
    all.sort_by_key(|s| (s.producer == Core::Aiv, std::cmp::Reverse(s.from), s.to));
    all.dedup();
    let mut kept = Vec::with_capacity(all.len());
    let mut earliest: Option<(Core, usize)> = None;
    for sync in all {
        match earliest {
            Some((core, to)) if core == sync.producer && to <= sync.to => {}
            Some((core, to)) if core == sync.producer => {
                earliest = Some((core, to.min(sync.to)));
                kept.push(sync);
            }
            _ => {
                earliest = Some((sync.producer, sync.to));
                kept.push(sync);
            }
        }
    }
    kept.sort_by_key(|s| (s.from, s.to));
    kept
}

/// Writes the whole file.
pub(crate) fn generate(w: &mut Writer, subs: &[SubOp], layout: &Layout<'_>, graph: &Graph) {
    let settings = layout.settings;
    let syncs = cross_core_syncs(graph, subs);
    blocks::head(w, subs, settings);
    let mut used = Vec::new();
    for core in [Core::Aic, Core::Aiv] {
        let mine: Vec<usize> = (0..subs.len())
            .filter(|&k| subs[k].arch().cores().contains(&core))
            .collect();
        if mine.is_empty() {
            continue;
        }
        used.push(core);
        w.from(Origin::Frame);
        w.line(
            0,
            &format!(
                "__aicore__ inline void {}_{}(void) {{",
                layout.entry_name,
                core.name().to_lowercase()
            ),
        );
        w.line(4, "GM_ADDR *param_base = (GM_ADDR *)get_para_base();");
        for (n, &k) in mine.iter().enumerate() {
            core_step(
                w,
                core,
                subs,
                k,
                mine.get(n.wrapping_sub(1)).copied(),
                &syncs,
                layout,
            );
        }
        w.from(Origin::Frame);
        w.line(0, "}");
        w.blank();
    }
    w.from(Origin::Frame);
    blocks::entry_open(w, &layout.entry_name, settings);
    blocks::ffts_setup(w);
    for core in used {
        w.line(
            4,
            &format!(
                "if {} {{\n    {}_{}();\n}}",
                core.guard(),
                layout.entry_name,
                core.name().to_lowercase()
            ),
        );
    }
    for event in subs.iter().flat_map(|s| &s.waits) {
        blocks::reset_lock(w, event);
    }
    w.line(0, "}");
    blocks::tail(w, &layout.kernel_name, layout.kernel.kernel_type);
}

/// Sub-op `k` in the function of `core`: flags it waits for, the barrier after the previous
/// sub-op on these cores, events, the call, and the flags it sets.
fn core_step(
    w: &mut Writer,
    core: Core,
    subs: &[SubOp],
    k: usize,
    prev: Option<usize>,
    syncs: &[CrossCoreSync],
    layout: &Layout<'_>,
) {
    let sub = &subs[k];
    let settings = layout.settings;
    w.from(Origin::Op(sub.id));
    w.line(
        4,
        &format!("//begin func call of sub operator {}", layout.label(sub)),
    );
    w.within(Origin::Preload(sub.id), |w| {
        blocks::preload(w, sub, &[core], settings)
    });
    for sync in syncs.iter().filter(|s| s.to == k) {
        w.within(
            Origin::Barrier {
                from: subs[sync.from].id,
                to: sub.id,
            },
            |w| {
                w.line(4, "// rule 3.2: wait for the flag of the other core kind");
                w.line(4, &format!("wait_flag_dev({});", flag(sync.producer)));
            },
        );
    }
    if let Some(p) = prev {
        w.within(
            Origin::Barrier {
                from: subs[p].id,
                to: sub.id,
            },
            |w| {
                w.line(4, "// insert pipe all for ops");
                w.line(4, "pipe_barrier(PIPE_ALL);");
            },
        );
    }
    let signals = sub.arch().cores()[0] == core;
    if signals && !sub.waits.is_empty() {
        w.within(Origin::Event(sub.id), |w| blocks::waits(w, sub, layout));
    }
    blocks::call(w, sub, &[core], settings.split);
    if signals && !sub.notifies.is_empty() {
        w.within(Origin::Event(sub.id), |w| {
            blocks::notifies(w, sub, layout);
            w.line(
                4,
                "// rule 1: same-core full sync after a sub-op that sends",
            );
            blocks::full_sync(w, 4, core.only());
        });
    }
    for sync in syncs.iter().filter(|s| s.from == k) {
        w.within(
            Origin::Barrier {
                from: sub.id,
                to: subs[sync.to].id,
            },
            |w| {
                w.line(4, "// rule 3.1: set the flag the other core kind waits for");
                w.line(
                    4,
                    &format!(
                        "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x02, {}));",
                        flag(sync.producer)
                    ),
                );
            },
        );
    }
}

/// The cross-core flag a producer on `core` sets.
fn flag(core: Core) -> &'static str {
    match core {
        Core::Aic => "AscendC::SYNC_AIC_AIV_FLAG",
        Core::Aiv => "AscendC::SYNC_AIV_FLAG",
    }
}
