//! The single-stream form: one entry calling the sub-kernels in order, with an inter-op
//! barrier between consecutive sub-ops (reference §5.3, §5.6).

use super::blocks;
use super::settings::{Preload, Settings};
use super::subop::{Arch, Core, SubOp};
use super::writer::Writer;
use super::{Layout, Origin};
use crate::fusion::kernel::SkKernel;

/// Writes the whole file.
pub(crate) fn generate(w: &mut Writer, subs: &[SubOp], layout: &Layout<'_>) {
    let settings = layout.settings;
    blocks::head(w, subs, settings);
    blocks::entry_open(w, &layout.entry_name, settings);
    if let Some(p) = layout.profiling_param {
        w.line(
            4,
            &format!(
                "GM_ADDR profilingPtr = param_base[{p}];\n\
                 uint32_t taskId = *((__gm__ uint32_t*)(param_base + {}));\n\
                 InitProfiling(taskId, profilingPtr);",
                p + 1
            ),
        );
    }
    if let Some(p) = layout.workspace_param {
        w.line(
            4,
            &format!(
                "GM_ADDR workspace = param_base[{p}];\n\
                 AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr = workspace;"
            ),
        );
    }
    blocks::ffts_setup(w);
    if layout.workspace_param.is_some() {
        feed_sync_all_init(w);
    }
    if settings.profiling {
        blocks::record(w, 0, 0, true);
    }
    if settings.preload == Preload::Max {
        w.line(4, "AscendC::PreLoad(8);");
    }
    let cores = [Core::Aic, Core::Aiv];
    for (k, sub) in subs.iter().enumerate() {
        w.from(Origin::Op(sub.id));
        w.line(
            4,
            &format!("//begin func call of sub operator {}", layout.label(sub)),
        );
        let first_preload = if k == 0 { 0 } else { k + 1 };
        for next in subs.iter().take(k + 2).skip(first_preload) {
            w.within(Origin::Preload(next.id), |w| {
                blocks::preload(w, next, &cores, settings)
            });
        }
        if k > 0 {
            let prev = &subs[k - 1];
            w.within(
                Origin::Barrier {
                    from: prev.id,
                    to: sub.id,
                },
                |w| barrier(w, prev, sub, layout.kernel, settings),
            );
        }
        per_op_call(w, k, sub, layout);
    }
    w.from(Origin::Frame);
    for event in subs.iter().flat_map(|s| &s.waits) {
        blocks::reset_lock(w, event);
    }
    if settings.profiling {
        blocks::record(w, 0, 0, false);
    }
    w.line(
        0,
        "#if defined(__DAV_C310__) || defined(__DAV_310R6__) || (__NPU_ARCH__ == 5102)\n    \
         pipe_barrier(PIPE_ALL);\n    dsb(mem_dsb_t::DSB_ALL);\n    dci();\n#endif\n}",
    );
    blocks::tail(w, &layout.kernel_name, layout.kernel.kernel_type);
}

/// Waits, the call with its flushes and records, notifies and the debug tails of one sub-op.
fn per_op_call(w: &mut Writer, k: usize, sub: &SubOp, layout: &Layout<'_>) {
    let settings = layout.settings;
    if !sub.waits.is_empty() {
        w.within(Origin::Event(sub.id), |w| {
            blocks::waits(w, sub, layout);
            w.line(4, "// reason3: for continues notify/wait event");
            blocks::full_sync(w, 4, layout.kernel.kernel_type);
        });
    }
    if settings.feed_sync_all {
        w.line(4, "AscendC::g_superKernelAutoSyncAllEnable = false;");
    }
    let op_type = layout.op_type(sub);
    if settings.dcci_before.iter().any(|t| t == op_type) {
        w.line(
            4,
            "// dcci-before-kernel-start: flush the data cache before the call",
        );
        blocks::dcci_all(w);
    }
    if settings.profiling {
        blocks::record(w, k + 1, 0x8, true);
    }
    blocks::call(w, sub, &[Core::Aic, Core::Aiv], settings.split);
    if settings.profiling {
        blocks::record(w, k + 1, 0x8, false);
    }
    if settings.dcci_after.iter().any(|t| t == op_type) {
        w.line(
            4,
            "// dcci-after-kernel-end: flush the data cache after the call",
        );
        blocks::dcci_all(w);
    }
    if !sub.notifies.is_empty() {
        w.within(Origin::Event(sub.id), |w| blocks::notifies(w, sub, layout));
    }
    if settings.debug_dcci_all {
        w.line(4, "// op end debug dcci all.");
        blocks::dcci_all(w);
    }
    if settings.debug_sync_all {
        w.line(4, "// op end debug sync all.");
        blocks::full_sync(w, 4, layout.kernel.kernel_type);
    }
}

/// The barrier between `prev` and `cur`: early-start's set/wait pair, or a full sync of the
/// SuperKernel's kernel type when early-start is off.
fn barrier(w: &mut Writer, prev: &SubOp, cur: &SubOp, kernel: SkKernel, settings: &Settings) {
    if settings.early_start == 0 {
        w.line(4, "// reason2: inter op barrier when EarlyStartDisable");
        blocks::full_sync(w, 4, kernel.kernel_type);
        return;
    }
    w.line(4, "// begin inter ops barrier");
    let sk_arch = Arch::of(kernel.kernel_type);
    let order = if sk_arch == Arch::Aiv {
        [Core::Aiv, Core::Aic]
    } else {
        [Core::Aic, Core::Aiv]
    };
    for core in order {
        w.line(4, &format!("if {} {{", core.guard()));
        w.line(8, "if (true) {");
        if prev.arch().cores().contains(&core) {
            w.line(12, "AscendC::SetNextTaskStart();");
        } else if sk_arch.cores().contains(&core) {
            w.line(
                12,
                "// idle during the previous sub-op: complement early start set flag.",
            );
            w.line(12, "AscendC::SetNextTaskStart();");
        } else {
            w.line(
                12,
                &format!(
                    "// {} only, no complement early start set flag.",
                    core.other().name()
                ),
            );
        }
        w.line(8, "}");
        w.line(4, "}");
        w.blank();
    }
    let config = (prev.arch().early_start_code() << 2) | cur.arch().early_start_code();
    w.line(4, &format!("g_super_kernel_early_start_config = {config};"));
    for core in order {
        w.line(4, &format!("if {} {{", core.guard()));
        w.line(8, "if (true) {");
        w.line(12, &format!("AscendC::WaitPreTaskEndImpl<{config}>();"));
        w.line(8, "}");
        w.line(4, "}");
        w.blank();
    }
}

/// Zeroes the feed-sync-all workspace and syncs the vector cores before the first sub-op.
fn feed_sync_all_init(w: &mut Writer) {
    w.line(
        4,
        "if ASCEND_IS_AIV {\n    \
         uint32_t sizePerCore = 16384 / get_block_num();\n    \
         __gm__ uint8_t* startAddr = (__gm__ uint8_t*)(workspace + sizePerCore * AscendC::GetBlockIdx());\n    \
         AscendC::DuplicateImpl((__ubuf__ uint32_t*)(0), (uint32_t)0, 128);\n    \
         AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);\n    \
         AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);\n    \
         for (uint32_t i = 0; i < sizePerCore / 512; i++) {\n        \
         copy_ubuf_to_gm((__gm__ void*)(startAddr + i * 512), (__ubuf__ void*)(0), 0, 1, 16, 1, 1);\n    \
         }\n    \
         AscendC::PipeBarrier<PIPE_ALL>();\n    \
         ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));\n    \
         wait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);\n}",
    );
}
