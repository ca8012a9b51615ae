//! The single-stream form: one entry calling the sub-kernels in order, with an inter-op barrier
//! between consecutive sub-ops and the notifies and waits of their events (the compiler's
//! `gen_super_kernel_file` and `gen_sync_and_event_code`).

use super::blocks;
use super::settings::Preload;
use super::subop::{Arch, SubOp};
use super::writer::{Writer, indent};
use super::{Layout, Origin};

/// Writes the whole file.
pub(crate) fn generate(w: &mut Writer, subs: &[SubOp], layout: &Layout<'_>) {
    let settings = layout.settings;
    let kernel_type = layout.kernel.kernel_type;
    w.from(Origin::Frame);
    layout.head(w, subs);
    layout.entry_setup(w);
    if let Some(size) = layout.workspace_size {
        w.put(&blocks::clear_workspace(kernel_type, size));
    }
    if settings.preload == Preload::Max {
        w.put("    AscendC::PreLoad(8);\n");
    }
    if settings.profiling {
        w.put("    RecordProfiling(0, 0, true);\n");
    }
    for (k, sub) in subs.iter().enumerate() {
        w.from(Origin::Op(sub.id));
        layout.op_head(w, sub);
        if settings.preload == Preload::PerFunc {
            if k == 0 {
                w.within(Origin::Preload(sub.id), |w| {
                    w.put(&indent(&blocks::preload(sub, settings.split), "    "));
                });
            }
            if let Some(next) = subs.get(k + 1) {
                w.within(Origin::Preload(next.id), |w| {
                    w.put(&indent(&blocks::preload(next, settings.split), "    "));
                });
            }
        }
        if k > 0 {
            sync_and_events(w, &subs[k - 1], sub, layout);
        }
        layout.call(w, sub, k, subs.len());
        if settings.debug_sync_all {
            w.put(&indent(
                &format!(
                    "// op end debug sync all.\n{}",
                    blocks::full_sync(kernel_type)
                ),
                "    ",
            ));
        }
        layout.record(w, k + 1, false);
    }
    w.from(Origin::Frame);
    w.put(&blocks::reset_wait_locks(subs));
    if settings.profiling {
        w.put("    RecordProfiling(0, 0, false);\n");
    }
    w.put("}\n");
    w.put(&blocks::trailer(
        &layout.kernel_name,
        kernel_type,
        settings.target,
    ));
}

/// What runs between `prev` and `cur`: the inter-op barrier and the events. When `cur`
/// receives and `prev` sends, the barrier comes first, then `prev`'s notifies, then `cur`'s
/// waits and a full sync; otherwise `cur`'s waits (with an extra sync where the barrier does
/// not cover the core kind that waited), the barrier, then `prev`'s notifies.
fn sync_and_events(w: &mut Writer, prev: &SubOp, cur: &SubOp, layout: &Layout<'_>) {
    let profiling = layout.settings.profiling;
    let notify = blocks::notify_block(prev, prev.event_core(), profiling);
    let wait = blocks::wait_block(cur, profiling);
    let barrier = Origin::Barrier {
        from: prev.id,
        to: cur.id,
    };
    if !cur.waits.is_empty() && !prev.notifies.is_empty() {
        w.within(barrier, |w| barrier_code(w, prev, cur, layout));
        w.within(Origin::Event(prev.id), |w| w.put(&indent(&notify, "    ")));
        if !wait.is_empty() {
            w.within(Origin::Event(cur.id), |w| {
                w.put(&indent(&wait, "    "));
                w.put("// reason3: for continues notify/wait event\n");
                w.put(&indent(
                    blocks::full_sync(layout.kernel.kernel_type),
                    "    ",
                ));
            });
        }
        return;
    }
    if !cur.waits.is_empty() {
        w.within(Origin::Event(cur.id), |w| {
            w.put(&indent(&wait, "    "));
            w.put(&indent(&extra_wait_sync(prev, cur), "    "));
        });
    }
    w.within(barrier, |w| barrier_code(w, prev, cur, layout));
    if !prev.notifies.is_empty() {
        w.within(Origin::Event(prev.id), |w| w.put(&indent(&notify, "    ")));
    }
}

/// The inter-op barrier: early start's complements of `prev` (set) and `cur` (wait) with the
/// config of the pair, or, with early start off, a full sync of the SuperKernel's cores.
fn barrier_code(w: &mut Writer, prev: &SubOp, cur: &SubOp, layout: &Layout<'_>) {
    let mut code = String::with_capacity(1024);
    code.push_str("// begin inter ops barrier\n");
    if layout.settings.early_start == 0 {
        code.push_str("// reason2: inter op barrier when EarlyStartDisable\n");
        code.push_str(blocks::full_sync(layout.kernel.kernel_type));
    } else {
        let config = (prev.arch().early_start_code() << 2) | cur.arch().early_start_code();
        code.push_str(&blocks::complements(prev, true, config));
        code.push_str(&format!("g_super_kernel_early_start_config = {config};\n"));
        code.push_str(&blocks::complements(cur, false, config));
    }
    w.put(&indent(&code, "    "));
}

/// The sync a wait needs when the barrier after it does not hold the cores that waited: the
/// vector cores after a cube sub-op (a wait on block 0 of the vector cores), the cube cores
/// after a vector sub-op.
fn extra_wait_sync(prev: &SubOp, cur: &SubOp) -> String {
    match (prev.arch(), cur.arch()) {
        (Arch::Aic, Arch::Aiv | Arch::Mix) => {
            "// extra sync for wait event\nAscendC::SyncAll<true>();\n\n".to_string()
        }
        (Arch::Aiv, Arch::Aic) => format!(
            "\n// extra sync for wait event\n{}",
            blocks::core_sync(super::subop::Core::Aic)
        ),
        _ => String::new(),
    }
}
