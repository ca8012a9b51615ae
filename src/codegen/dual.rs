//! The two-stream form (`stream-fusion=1`, sub-ops on two streams not linked by an event):
//! the cube and the vector cores each run a function over their own sub-ops (mixed sub-ops in
//! both), ordered by same-core syncs and cross-core flags where [`StreamLinks`] link sub-ops,
//! with the notifies and waits of their events (the compiler's
//! `gen_2_real_stream_super_kernel_file`). Early start is off in this form.

use super::blocks;
use super::settings::Preload;
use super::streams::{StreamLinks, on_list};
use super::subop::{Arch, Core, SubOp};
use super::writer::{Writer, indent};
use super::{Layout, Origin};

/// Writes the whole file.
pub(crate) fn generate(w: &mut Writer, subs: &[SubOp], layout: &Layout<'_>) {
    let settings = layout.settings;
    let has_notify: Vec<bool> = subs
        .iter()
        .map(|s| s.notifies.iter().any(|e| !e.inner))
        .collect();
    let links = StreamLinks::of(subs, &has_notify);
    w.from(Origin::Frame);
    layout.head(w, subs);
    let mut functions = Vec::new();
    for core in [Core::Aic, Core::Aiv] {
        let list: Vec<usize> = (0..subs.len())
            .filter(|&i| on_list(&subs[i], core == Core::Aic))
            .collect();
        if list.is_empty() {
            continue;
        }
        functions.push(core);
        core_function(w, core, subs, &list, &links, layout);
    }
    w.from(Origin::Frame);
    layout.entry_setup(w);
    if settings.profiling {
        w.put("    RecordProfiling(0, 0, true);\n");
    }
    if let Some(size) = layout.workspace_size {
        w.put(&blocks::clear_workspace(layout.kernel.kernel_type, size));
    }
    for core in functions {
        w.put(&format!(
            "    if {} {{\n        {}_{}();\n    }}\n",
            core.guard(),
            layout.entry_name,
            core.suffix()
        ));
    }
    w.put(&blocks::reset_wait_locks(subs));
    if settings.profiling {
        w.put("    RecordProfiling(0, 0, false);\n");
    }
    w.put("}\n");
    w.put(&blocks::trailer(
        &layout.kernel_name,
        layout.kernel.kernel_type,
        settings.target,
    ));
}

/// The function of `core`: the sub-ops of `list` (indices into `subs`) in order.
fn core_function(
    w: &mut Writer,
    core: Core,
    subs: &[SubOp],
    list: &[usize],
    links: &StreamLinks,
    layout: &Layout<'_>,
) {
    let settings = layout.settings;
    w.from(Origin::Frame);
    w.put(&format!(
        "__aicore__ inline void {}_{}(void) {{\n    GM_ADDR *param_base = (GM_ADDR *)get_para_base();\n",
        layout.entry_name,
        core.suffix()
    ));
    if settings.preload == Preload::Max {
        w.put("    AscendC::PreLoad(8);\n");
    }
    for (n, &k) in list.iter().enumerate() {
        let sub = &subs[k];
        let prev = n.checked_sub(1).map(|p| &subs[list[p]]);
        let next = list.get(n + 1).map(|&i| &subs[i]);
        w.from(Origin::Op(sub.id));
        layout.op_head(w, sub);
        if settings.preload == Preload::PerFunc {
            for (on, preloaded) in [(prev.is_none(), Some(sub)), (true, next)] {
                if let (true, Some(preloaded)) = (on, preloaded) {
                    w.within(Origin::Preload(preloaded.id), |w| {
                        w.put(&indent(&blocks::preload(preloaded, settings.split), "    "));
                    });
                }
            }
        }
        sync_and_events(w, core, subs, prev, sub, links, layout);
        layout.call(w, sub, k, subs.len());
        if settings.debug_sync_all {
            let (pipe_flag, flag) = match core {
                Core::Aic => ("PIPE_MTE3", "AscendC::SYNC_AIC_FLAG"),
                Core::Aiv => ("PIPE_MTE3", "AscendC::SYNC_AIV_ONLY_ALL"),
            };
            w.put(&indent(
                &format!(
                    "// op end debug sync all.\npipe_barrier(PIPE_ALL);\n\
                     ffts_cross_core_sync({pipe_flag}, AscendC::GetffstMsg(0x0, {flag}));\n\
                     wait_flag_dev({flag});\n\n"
                ),
                "    ",
            ));
        }
        layout.record(w, k + 1, false);
        if next.is_none() {
            let to = subs.get(k + 1).map_or(sub.id, |s| s.id);
            w.within(Origin::Barrier { from: sub.id, to }, |w| {
                w.put(&indent(&send_code(core, subs, sub, links, list), "    "));
            });
            if !sub.notifies.is_empty() {
                w.within(Origin::Event(sub.id), |w| {
                    w.put(&indent(&notify(core, sub, links, layout), "    "));
                });
            }
        }
    }
    w.from(Origin::Frame);
    w.put("}\n\n");
}

/// What runs before `cur` on `core`: `prev`'s syncs and flags, the flags `cur` waits for,
/// `prev`'s notifies, then `cur`'s waits with a full sync of its cores.
fn sync_and_events(
    w: &mut Writer,
    core: Core,
    subs: &[SubOp],
    prev: Option<&SubOp>,
    cur: &SubOp,
    links: &StreamLinks,
    layout: &Layout<'_>,
) {
    let list: Vec<usize> = (0..subs.len())
        .filter(|&i| on_list(&subs[i], core == Core::Aic))
        .collect();
    if let Some(prev) = prev {
        w.within(
            Origin::Barrier {
                from: prev.id,
                to: cur.id,
            },
            |w| w.put(&indent(&send_code(core, subs, prev, links, &list), "    ")),
        );
    }
    w.within(
        Origin::Barrier {
            from: prev.map_or(cur.id, |p| p.id),
            to: cur.id,
        },
        |w| w.put(&indent(&recv_code(core, cur, links), "    ")),
    );
    let Some(prev) = prev else {
        return;
    };
    if !prev.notifies.is_empty() {
        w.within(Origin::Event(prev.id), |w| {
            w.put(&indent(&notify(core, prev, links, layout), "    "));
        });
    }
    let wait = blocks::wait_block(cur, layout.settings.profiling);
    if cur.waits.is_empty() || wait.is_empty() {
        return;
    }
    w.within(Origin::Event(cur.id), |w| {
        w.put(&indent(&wait, "    "));
        w.put("// two stream when has wait event, add sync by current operator kernel type\n");
        match cur.arch() {
            Arch::Mix => w.put(&indent(
                "AscendC::SyncAll<false>(); // reason3: for continues notify/wait event \n\n",
                "    ",
            )),
            Arch::Aic => {
                w.put("// reason3: for continues notify/wait event\n");
                w.put(&format!("{}\n", blocks::core_sync(Core::Aic)));
            }
            Arch::Aiv => {
                w.put("// reason3: for continues notify/wait event\n");
                w.put(&format!("{}\n", blocks::core_sync(Core::Aiv)));
            }
        }
    });
}

/// `sub`'s notify block on `core`: on the core kind of its events, or, for a mixed sub-op
/// before a cube one, on the cube side.
fn notify(core: Core, sub: &SubOp, links: &StreamLinks, layout: &Layout<'_>) -> String {
    let side = if links.notify_on_cube[sub.index] {
        Core::Aic
    } else {
        sub.event_core()
    };
    if side != core {
        return String::new();
    }
    blocks::notify_block(sub, side, layout.settings.profiling)
}

/// What `op` must do on `core` when it ends (rule 1 and rule 3.1): a full sync of these cores
/// when it is linked to a sub-op on the same cores, or sends an event as its stream's last,
/// and the flag for each sub-op on the other cores it is linked to; without links, a pipe
/// barrier before the next sub-op of the list. Nothing after the segment's last sub-op.
fn send_code(
    core: Core,
    subs: &[SubOp],
    op: &SubOp,
    links: &StreamLinks,
    list: &[usize],
) -> String {
    if subs.last().is_some_and(|last| last.index == op.index) {
        return String::new();
    }
    let sends = &links.sends[op.index];
    let notifies_as_last = links.last_of_stream[op.index] && op.notifies.iter().any(|e| !e.inner);
    let (arch, pair, same, cross, other) = match core {
        Core::Aic => ("aic", "C->C", ["cub:cub", "vec:cub"], "cub:vec", "c2v"),
        Core::Aiv => ("aiv", "V->V", ["vec:vec", "cub:vec"], "vec:cub", "v2c"),
    };
    let mut code = format!(
        "// Rule 1 : sync all {arch} must be insert behind each {arch} sub operator, when has real send info\n\
         // sync all {pair} kernel_name:{}, send_info:{}\n{}\n",
        op.kernel_name,
        sends.shown(),
        blocks::core_sync(core)
    );
    let mut needs_sync = false;
    for (_, kinds) in &sends.0 {
        let kinds: Vec<&str> = kinds.split(';').collect();
        if same.iter().any(|k| kinds.contains(k)) {
            needs_sync = true;
        }
        if kinds.contains(&cross) {
            let (arrow, flag) = match core {
                Core::Aic => ("C->V", "AscendC::SYNC_AIC_AIV_FLAG"),
                Core::Aiv => ("V->C", "AscendC::SYNC_AIV_FLAG"),
            };
            code.push_str(&format!(
                "// Rule 3.1 : sync all {other} must be insert when sendinfo has {other}, kernel_name:{}, send_info:{}\n\
                 // send sync of {arrow};\n\
                 ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x02, {flag}));\n\n",
                op.kernel_name,
                sends.shown()
            ));
            needs_sync = true;
        }
    }
    if needs_sync || notifies_as_last {
        return code;
    }
    let last_of_list = list.last().is_some_and(|&i| i == op.index);
    if sends.is_empty() && !last_of_list {
        return "// insert pipe all for ops\n   pipe_barrier(PIPE_ALL);\n".to_string();
    }
    String::new()
}

/// The flags `op` waits for on `core` before it starts (rule 3.2): one per sub-op on the other
/// cores it is linked from.
fn recv_code(core: Core, op: &SubOp, links: &StreamLinks) -> String {
    let recvs = &links.recvs[op.index];
    let (kind, other, arrow, flag) = match core {
        Core::Aic => ("vec:cub", "v2c", "V->C", "AscendC::SYNC_AIV_FLAG"),
        Core::Aiv => ("cub:vec", "c2v", "C->V", "AscendC::SYNC_AIC_AIV_FLAG"),
    };
    let mut code = String::new();
    for (_, kinds) in &recvs.0 {
        if kinds.split(';').any(|k| k == kind) {
            code.push_str(&format!(
                "// Rule 3.2 : sync all {other} must be insert when recvinfo has {other}, kernel_name:{}, send_info:{}\n\
                 // receive sync of {arrow};\nwait_flag_dev({flag});\n",
                op.kernel_name,
                recvs.shown()
            ));
        }
    }
    code
}
