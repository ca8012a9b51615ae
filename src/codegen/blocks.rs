//! The pieces both forms of the entry source are made of, each as text in the shape the
//! SuperKernel compiler writes it (graph-autofusion `super_kernel.py` and
//! `super_kernel_sub_op_infos.py`; the trailer is asc-devkit's): the header, the sub-kernel
//! declarations, call and preload blocks with the split dispatch, early-start complements,
//! notifies and waits, syncs, the lock resets, the feed-sync-all workspace and the trailer.
//! The helper functions (notify, wait, profiling records) are written in skope's own words:
//! same calls, same arguments, other bodies.

use super::settings::Settings;
use super::subop::{Arch, Core, SubOp};
use super::writer::indent;
use crate::fusion::kernel::KernelType;
use crate::target::Target;
use std::fmt::Write as _;

/// Instruction-cache lines preloaded per sub-kernel: the compiler uses the kernel's text size
/// in 2 KiB units, which the dump does not have.
pub const PRELOAD_UNITS: u32 = 2;

/// `\n#if 1`, the include and, with split-mode ≤ 1, the run-config global (defined on the
/// SuperKernel's main core kind).
pub(crate) fn header(kernel_type: KernelType, split: u64, target: Target) -> String {
    let mut out = String::from("\n#if 1\n#include \"kernel_operator.h\"\n");
    if split <= 1 {
        let arch = match kernel_type {
            KernelType::AivOnly | KernelType::MixAiv1_0 => "__DAV_VEC__",
            _ => "__DAV_CUBE__",
        };
        let _ = write!(
            out,
            "#if (defined({arch}) && __NPU_ARCH__ == {})\n    \
             __gm__ struct OpSystemRunCfg g_opSystemRunCfg = {{0}};\n#else\n    \
             extern __gm__ struct OpSystemRunCfg g_opSystemRunCfg;\n#endif\n\n",
            target.npu_arch()
        );
    }
    out
}

/// The declarations of a sub-op's kernel: each symbol it calls (a mixed kernel's cube and
/// vector entries, each) and its split copies, a blank line after each.
pub(crate) fn declarations(sub: &SubOp, split: u64) -> String {
    let mut out = String::with_capacity(512);
    for &(core, _) in cores_of(sub.kernel.kernel_type) {
        for copy in copies(sub.symbol_on(core), split) {
            let _ = write!(
                out,
                "extern \"C\"  __aicore__ void {copy}(uint64_t args_offset);\n\n"
            );
        }
    }
    out
}

/// The symbol of a split copy, written where it is used: `sym`, `sym_split1`, …
#[derive(Clone, Copy)]
struct SplitCopy<'s> {
    symbol: &'s str,
    index: usize,
}

impl std::fmt::Display for SplitCopy<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.index {
            0 => f.write_str(self.symbol),
            i => write!(f, "{}_split{i}", self.symbol),
        }
    }
}

/// The symbol of each split copy: `sym`, `sym_split1`, … `sym_split<n-1>`.
fn copies(symbol: &str, split: u64) -> impl ExactSizeIterator<Item = SplitCopy<'_>> {
    let n = usize::try_from(split.max(1)).unwrap_or(usize::MAX);
    (0..n).map(move |index| SplitCopy { symbol, index })
}

/// The core kinds a kernel type's calls run on, in the compiler's order, with the function
/// that gives the block index there (mixed kernels use `get_block_idx` on both).
fn cores_of(kernel_type: KernelType) -> &'static [(Core, &'static str)] {
    match kernel_type {
        KernelType::AivOnly | KernelType::MixAiv1_0 => &[(Core::Aiv, "AscendC::GetBlockIdx")],
        KernelType::AicOnly | KernelType::MixAic1_0 => &[(Core::Aic, "get_block_idx")],
        KernelType::MixAic1_1 | KernelType::MixAic1_2 => {
            &[(Core::Aic, "get_block_idx"), (Core::Aiv, "get_block_idx")]
        }
    }
}

/// The entry function's opening line.
pub(crate) fn entry_line(name: &str, func_align: u64) -> String {
    let attribute = match func_align {
        0 => String::new(),
        n => format!("__attribute__((aligned({n})))"),
    };
    format!("extern \"C\"  __global__ {attribute} __aicore__ void {name}(void) {{\n")
}

/// Reads the FFTS base address from argument 0 (not on dav-3510: reference
/// ascend_superkernel.md §5.3, "not on c310").
pub(crate) const FFTS: &str = "    GM_ADDR ffts_addr = param_base[0];\n    if (ffts_addr != nullptr) {\n        set_ffts_base_addr((uint64_t)ffts_addr);\n    }\n\n";

/// What a sub-op's call block holds besides the call: the data-cache flush before or after it
/// (`dcci-before-kernel-start`, `dcci-after-kernel-end`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Flush {
    pub(crate) before: bool,
    pub(crate) after: bool,
}

/// A whole-data-cache flush, as the compiler writes it after a comment.
const DCCI_ALL: &str =
    "dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);\n\n";

/// How a call block is shaped.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CallShape {
    /// The data-cache flushes around the call.
    pub(crate) flush: Flush,
    /// feed-sync-all feeds the kernel's SyncAll: each core that runs it ends the sync, the
    /// others complement it (the compiler's `gen_call_func_with_syncall`).
    pub(crate) feed_sync: bool,
}

/// `stmt(copy)` on the first `block dim` cores of each core kind `sub` runs on, each core
/// running the split copy `coreid % split`, shaped by `shape`.
fn dispatch(
    sub: &SubOp,
    split: u64,
    shape: CallShape,
    stmt: impl Fn(&mut String, SplitCopy<'_>),
) -> String {
    const SYNC_END: &str = "      AscendC::SuperKernelAutoSyncAllEndImpl();\n";
    let flush = shape.flush;
    // A call block is a few hundred bytes: room at once, not grown a line at a time.
    let mut out = String::with_capacity(1024);
    for &(core, block_idx) in cores_of(sub.kernel.kernel_type) {
        let _ = writeln!(out, "if {} {{", core.guard());
        if flush.before {
            out.push_str(&indent(
                &format!("// option: dcci-before-kernel-start\n{DCCI_ALL}"),
                "  ",
            ));
        }
        let _ = writeln!(out, "  if ({block_idx}() < {}) {{", sub.kernel.block_dim);
        let mut symbols = copies(sub.symbol_on(core), split);
        let n = symbols.len();
        if n > 1 {
            out.push_str("    uint8_t coreid = (uint8_t)get_coreid();\n");
            for (i, symbol) in symbols.enumerate() {
                let _ = match i {
                    0 => writeln!(out, "    if ((coreid % {n}) == 0) {{"),
                    i if i == n - 1 => writeln!(out, "    }} else {{"),
                    i => writeln!(out, "    }} else if ((coreid % {n}) == {i}) {{"),
                };
                out.push_str("      ");
                stmt(&mut out, symbol);
                out.push('\n');
                if shape.feed_sync {
                    out.push_str(SYNC_END);
                }
            }
            out.push_str("    }\n\n");
        } else if let Some(symbol) = symbols.next() {
            out.push_str("      ");
            stmt(&mut out, symbol);
            out.push('\n');
        }
        let after = match flush.after {
            true => indent(
                &format!("// option: dcci-after-kernel-end\n{DCCI_ALL}"),
                "  ",
            ),
            false => String::new(),
        };
        if shape.feed_sync {
            // The compiler writes the flush between the brace and its `else`.
            let _ = write!(
                out,
                "  }} {after}else {{\n    AscendC::SuperKernelAutoSyncAllComplementImpl();\n  }}\n"
            );
        } else {
            out.push_str("  }\n\n");
            out.push_str(&after);
        }
        out.push_str("}\n\n");
    }
    out
}

/// The call of `sub` on its cores.
pub(crate) fn call(sub: &SubOp, split: u64, shape: CallShape) -> String {
    dispatch(sub, split, shape, |out, symbol| {
        let _ = write!(out, "{symbol}({});", sub.param_offset);
    })
}

/// `preload(func, N)` of `sub` on its cores.
pub(crate) fn preload(sub: &SubOp, split: u64) -> String {
    dispatch(sub, split, CallShape::default(), |out, symbol| {
        let _ = write!(out, "preload((const void *){symbol}, {PRELOAD_UNITS});");
    })
}

/// feed-sync-all's set-up before a sub-op whose SyncAll it feeds: the sub-op's own sync slots
/// in the workspace, by core kind (`index` of `count` sub-ops).
pub(crate) fn feed_sync_config(index: usize, count: usize) -> String {
    format!(
        "\nAscendC::g_superKernelAutoSyncAllSyncIdx = 0;\n\
         AscendC::g_superKernelAutoSyncAllEnable = true;\n\
         if ASCEND_IS_AIC {{\n    AscendC::g_superKernelAutoSyncAllConfigGmAddr = \
         AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr + {index} * 64;\n}}\n\
         if ASCEND_IS_AIV {{\n    AscendC::g_superKernelAutoSyncAllConfigGmAddr = \
         AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr + {count} * 64 + {index} * 64;\n}}\n"
    )
}

/// The early-start complements of `sub` on both core kinds: the flag it sets when it ends
/// (`set`), or the wait for the one before (with the config of the pair).
pub(crate) fn complements(sub: &SubOp, set: bool, config: u8) -> String {
    let arch = sub.arch();
    let order = match arch {
        Arch::Aiv => [Core::Aiv, Core::Aic],
        Arch::Aic | Arch::Mix => [Core::Aic, Core::Aiv],
    };
    let own = cores_of(sub.kernel.kernel_type);
    let mut out = String::with_capacity(512);
    for core in order {
        // With the op-info's early-start flag, only the cores the sub-op leaves idle run it.
        let condition = match own.iter().find(|(c, _)| *c == core) {
            Some((_, block_idx)) if sub.idle_cores_only(set) => {
                format!("{block_idx}() >= {}", sub.kernel.block_dim)
            }
            _ => "true".to_string(),
        };
        let statement = match (set, arch, core) {
            (false, ..) => format!("AscendC::WaitPreTaskEndImpl<{config}>();"),
            (true, Arch::Aiv, Core::Aic) => {
                "// AIV only, no complement early start set flag.".to_string()
            }
            (true, Arch::Aic, Core::Aiv) => {
                "// AIC only, no complement early start set flag.".to_string()
            }
            (true, ..) => "AscendC::SetNextTaskStart();".to_string(),
        };
        let _ = write!(
            out,
            "if {} {{\n    if ({condition}) {{\n        {statement}\n    }}\n}}\n\n",
            core.guard()
        );
    }
    out
}

/// A full sync of every core of a SuperKernel of `kernel_type` (the compiler's
/// `get_sync_code_by_kernel_type`).
pub(crate) fn full_sync(kernel_type: KernelType) -> &'static str {
    match kernel_type {
        KernelType::MixAic1_1 | KernelType::MixAic1_2 => "AscendC::SyncAll<false>();\n\n",
        KernelType::AicOnly | KernelType::MixAic1_0 => {
            "\nffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));\nwait_flag_dev(AscendC::SYNC_AIC_FLAG);\n"
        }
        KernelType::AivOnly | KernelType::MixAiv1_0 => {
            "\nffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));\nwait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);\n"
        }
    }
}

/// The full sync of one core kind (two-stream rules 1 and 3).
pub(crate) fn core_sync(core: Core) -> &'static str {
    match core {
        Core::Aic => {
            "ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));\nwait_flag_dev(AscendC::SYNC_AIC_FLAG);\n"
        }
        Core::Aiv => {
            "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));\nwait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);\n"
        }
    }
}

/// The notify block of `sub` on `core`, for the events it sends to ops outside the segment;
/// empty when there are none.
pub(crate) fn notify_block(sub: &SubOp, core: Core, profiling: bool) -> String {
    lock_block(sub, core, profiling, true)
}

/// The wait block of `sub` (on the core kind of its events), for the events it receives from
/// ops outside the segment; empty when there are none.
pub(crate) fn wait_block(sub: &SubOp, profiling: bool) -> String {
    lock_block(sub, sub.event_core(), profiling, false)
}

fn lock_block(sub: &SubOp, core: Core, profiling: bool, notify: bool) -> String {
    let (events, helper, kind) = if notify {
        (&sub.notifies, "NotifyFunc", "0x4")
    } else {
        (&sub.waits, "WaitFunc", "12")
    };
    let outside: Vec<_> = events.iter().filter(|e| !e.inner).collect();
    if outside.is_empty() {
        return String::new();
    }
    let aic = core == Core::Aic;
    let mut out = format!("if {} {{\n", core.guard());
    for event in outside {
        let _ = writeln!(
            out,
            "    // kernel={}, ev={}, param_offset={}",
            sub.kernel_name, event.id, event.param
        );
        if profiling {
            let _ = writeln!(out, "RecordProfiling({}, {kind}, true);", event.id);
        }
        let _ = writeln!(out, "    {helper}<{aic}>(param_base[{}]);", event.param);
        if profiling {
            let _ = writeln!(out, "RecordProfiling({}, {kind}, false);", event.id);
        }
    }
    out.push_str("}\n");
    out
}

/// Resets the wait lock of every event a sub-op receives from outside, on block 0 of the core
/// kind that waited, for the next launch (already indented).
pub(crate) fn reset_wait_locks(subs: &[SubOp]) -> String {
    let mut out = String::new();
    for sub in subs {
        for event in sub.waits.iter().filter(|e| !e.inner) {
            let (core, block_idx) = match sub.event_core() {
                Core::Aic => (Core::Aic, "get_block_idx()"),
                Core::Aiv => (Core::Aiv, "AscendC::GetBlockIdx()"),
            };
            let _ = write!(
                out,
                "if {} {{\n    if ({block_idx} == 0) {{\n        \
                 *(reinterpret_cast<__gm__ uint64_t*>(param_base[{}])) = 0;\n    }}\n}}\n",
                core.guard(),
                event.param
            );
        }
    }
    indent(&out, "    ")
}

/// The feed-sync-all workspace's size: 512 bytes per block, doubled until it exceeds 128 bytes
/// per sub-op; mixed 1:2 kernels count their blocks twice (the compiler's `get_ws_size`).
pub(crate) fn workspace_size(kernel_type: KernelType, block_dim: u64, ops: usize) -> u64 {
    let blocks = match kernel_type {
        KernelType::MixAic1_2 => block_dim * 2,
        _ => block_dim,
    };
    let mut size = 512;
    while blocks * size <= ops as u64 * 128 {
        size *= 2;
    }
    blocks * size
}

/// Zeroes the feed-sync-all workspace before the first sub-op: on the cube cores through L1
/// for MIX_AIC_1_0, else on the vector cores through UB (then tells the cube cores for mixed
/// kernels). Already indented.
pub(crate) fn clear_workspace(kernel_type: KernelType, size: u64) -> String {
    let (core, fill, copy, sync) = match kernel_type {
        KernelType::MixAic1_0 | KernelType::AicOnly => (
            "ASCEND_IS_AIC",
            "create_cbuf_matrix((__cbuf__ uint32_t*)(0), 0x10010, 0);\n    \
             AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);\n    \
             AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);",
            "copy_cbuf_to_gm((__gm__ void*)(startAddr), (__cbuf__ void*)(0), 0, 1, 16, 1, 1);",
            core_sync(Core::Aic),
        ),
        _ => (
            "ASCEND_IS_AIV",
            "AscendC::DuplicateImpl((__ubuf__ uint32_t*)(0), (uint32_t)0, 128);\n    \
             AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);\n    \
             AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);",
            "copy_ubuf_to_gm((__gm__ void*)(startAddr), (__ubuf__ void*)(0), 0, 1, 16, 1, 1);",
            core_sync(Core::Aiv),
        ),
    };
    let size = match kernel_type {
        KernelType::MixAic1_2 => size / 2,
        _ => size,
    };
    let mut out = format!(
        "\nif {core} {{\n    uint32_t sizePerCore = {size} / get_block_num();\n    \
         const uint32_t repeatTimes = sizePerCore / 512;\n    \
         __gm__ uint8_t* startAddr  = (__gm__ uint8_t*)(workspace + sizePerCore * AscendC::GetBlockIdxImpl());\n    \
         {fill}\n    for (size_t i = 0; i < repeatTimes; i++) {{\n        {copy}\n        \
         startAddr += 512;\n    }}\n    AscendC::PipeBarrier<PIPE_ALL>();\n{}",
        indent(sync, "    ")
    );
    if matches!(kernel_type, KernelType::MixAic1_1 | KernelType::MixAic1_2) {
        out.push_str(
            "    ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x02, AscendC::SYNC_AIV_FLAG));\n}\n\n\
             if ASCEND_IS_AIC {\n   wait_flag_dev(AscendC::SYNC_AIV_FLAG);\n}\n",
        );
    } else {
        out.push_str("}\n");
    }
    indent(&out, "    ")
}

/// The trailer asc-devkit adds: the kernel-type section(s) the runtime reads (a mixed 1:1 or
/// 1:2 kernel gets one per core kind, each under its arch guard) and the end of `#if 1`.
pub(crate) fn trailer(kernel_name: &str, kernel_type: KernelType, target: Target) -> String {
    let section = |suffix: &str, k_type: &str, aic: u8, aiv: u8| {
        format!(
            "static const struct FunLevelMixCoreType {kernel_name}_{suffix}_section \
             __attribute__ ((used, section (\".ascend.meta.{kernel_name}_{suffix}\"))) = \
             {{ {{{{F_TYPE_KTYPE, sizeof(unsigned int)}}, {k_type}}},    \
             {{{{F_TYPE_MIX_TASK_RATION, sizeof(unsigned int)}}, {aic}, {aiv}}} }};\n"
        )
    };
    let mut out = String::new();
    match kernel_type {
        KernelType::AivOnly | KernelType::MixAiv1_0 => {
            let _ = write!(
                out,
                "\n#if TILING_KEY_VAR == 0UL\n{}#endif\n",
                section("mix_aiv", "K_TYPE_MIX_AIV_MAIN", 0, 1)
            );
        }
        KernelType::AicOnly | KernelType::MixAic1_0 => {
            let _ = write!(
                out,
                "\n#if TILING_KEY_VAR == 0UL\n{}#endif\n",
                section("mix_aic", "K_TYPE_MIX_AIC_MAIN", 1, 0)
            );
        }
        KernelType::MixAic1_1 | KernelType::MixAic1_2 => {
            let vectors = if kernel_type == KernelType::MixAic1_1 {
                1
            } else {
                2
            };
            for (arch, suffix) in [("__DAV_CUBE__", "mix_aic"), ("__DAV_VEC__", "mix_aiv")] {
                let _ = write!(
                    out,
                    "\n#if TILING_KEY_VAR == 0UL\n#if (defined({arch}) && __NPU_ARCH__ == {})\n{}#endif\n#endif\n",
                    target.npu_arch(),
                    section(suffix, "K_TYPE_MIX_AIC_MAIN", 1, vectors)
                );
            }
        }
    }
    out.push_str("#endif\n");
    out
}

/// The debug tail after each call with `debug-dcci-all=1`.
pub(crate) fn debug_dcci(settings: &Settings) -> String {
    if !settings.debug_dcci_all {
        return String::new();
    }
    format!("// op end debug dcci all.\npipe_barrier(PIPE_ALL);\n{DCCI_ALL}")
}

/// Lock-based notify and wait on global memory, done by block 0 of the signalling core kind.
pub(crate) const LOCK_HELPERS: &str = r#"
template<bool aic_flag>
__aicore__ inline uint32_t LockBlockIdx()
{
    if constexpr (aic_flag) {
        return get_block_idx();
    } else {
        return AscendC::GetBlockIdx();
    }
}

template<bool aic_flag>
__aicore__ inline void NotifyFunc(GM_ADDR notify_lock_addr)
{
    if (LockBlockIdx<aic_flag>() != 0) {
        return;
    }
    __gm__ uint64_t* lock = reinterpret_cast<__gm__ uint64_t*>(notify_lock_addr);
    *lock = 1;
    dcci(lock, 0, 2);
}

template<bool aic_flag>
__aicore__ inline void WaitFunc(GM_ADDR wait_lock_addr)
{
    if (LockBlockIdx<aic_flag>() != 0) {
        return;
    }
    __gm__ volatile uint64_t* lock = reinterpret_cast<__gm__ uint64_t*>(wait_lock_addr);
    do {
        dcci(lock, 0, 2);
    } while (*lock != 1);
}

"#;

/// Per-core profiling records in a global-memory ring given as an argument after the sub-ops'.
pub(crate) const PROFILING_HELPERS: &str = r#"
__BLOCK_LOCAL__ __inline__ __gm__ uint8_t* g_profiling_base_addr;
__BLOCK_LOCAL__ __inline__ bool g_profiling_off;
constexpr uint64_t PROFILING_MAGIC_NUMBER = 0xbdca8756;
constexpr uint32_t ONE_PROFILING_DATA_SIZE = 16;

__aicore__ inline __gm__ uint64_t* ProfilingCursor()
{
    return (__gm__ uint64_t*)(g_profiling_base_addr + 8);
}

__aicore__ inline bool ProfilingAreaIsValid()
{
    return *((__gm__ uint64_t*)g_profiling_base_addr) == PROFILING_MAGIC_NUMBER &&
        *ProfilingCursor() < *((__gm__ uint64_t*)(g_profiling_base_addr + 16));
}

__aicore__ inline uint8_t GetProfilingBlockIdx()
{
    if ASCEND_IS_AIV {
        return get_block_idx() * get_subblockdim() + get_subblockid();
    }
    return get_block_idx() + 50;
}

__aicore__ inline void WriteProfiling(uint64_t head)
{
    if (g_profiling_off) {
        return;
    }
    __gm__ uint64_t* record = (__gm__ uint64_t*)(*ProfilingCursor());
    record[0] = head;
    record[1] = static_cast<uint64_t>(AscendC::GetSystemCycle());
    dcci(record, 0, 2);
    *ProfilingCursor() += ONE_PROFILING_DATA_SIZE;
    g_profiling_off = !ProfilingAreaIsValid();
    dcci(ProfilingCursor(), 0, 2);
}

// type: 0x0 whole SuperKernel, 0x4 notify, 0x8 sub-op, 0xC wait
__aicore__ inline void RecordProfiling(uint32_t index, uint8_t type, bool start)
{
    uint64_t end_bit = start ? 0 : (1 << 12);
    WriteProfiling(((uint64_t)index << 32) | end_bit | (((uint64_t)type & 0xf) << 8));
}

__aicore__ inline void InitProfiling(uint32_t task_id, GM_ADDR profiling_ptr)
{
    uint32_t per_core_size = *((__gm__ uint32_t*)(profiling_ptr + 12));
    g_profiling_base_addr = profiling_ptr + 64 + GetProfilingBlockIdx() * per_core_size;
    g_profiling_off = !ProfilingAreaIsValid();
    WriteProfiling(((uint64_t)task_id << 32) | (((uint64_t)GetProfilingBlockIdx()) << 8) | 0xff);
}

"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arch_guards_follow_the_target() {
        for target in Target::ALL {
            let guard = format!("__NPU_ARCH__ == {}", target.npu_arch());
            let head = header(KernelType::MixAic1_1, 1, target);
            let tail = trailer("k", KernelType::MixAic1_2, target);
            assert!(
                head.contains(&format!("(defined(__DAV_CUBE__) && {guard})")),
                "{head}"
            );
            assert_eq!(tail.matches(&guard).count(), 2, "{tail}");
            for other in Target::ALL.into_iter().filter(|t| *t != target) {
                let theirs = format!("__NPU_ARCH__ == {}", other.npu_arch());
                assert!(!head.contains(&theirs) && !tail.contains(&theirs));
            }
        }
    }
}
