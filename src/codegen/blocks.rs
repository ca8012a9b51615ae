//! Pieces both forms of the entry code are made of: the file's head and tail, sub-kernel
//! declarations, call and preload blocks with the split dispatch, syncs and events.

use super::Layout;
use super::settings::{Preload, Settings};
use super::subop::{Core, Event, SubOp};
use super::writer::Writer;
use crate::fusion::kernel::KernelType;

/// `#if 1`, the include, the run-config global (split-mode ≤ 1), the profiling helpers, the
/// notify/wait helpers and one declaration per sub-kernel and split copy.
pub(crate) fn head(w: &mut Writer, subs: &[SubOp], settings: &Settings) {
    w.blank();
    w.line(0, "#if 1\n#include \"kernel_operator.h\"");
    if settings.split <= 1 {
        w.line(
            0,
            "#if defined(__DAV_C220_CUBE__)\n    __gm__ struct OpSystemRunCfg g_opSystemRunCfg = {0};\n\
             #else\n    extern __gm__ struct OpSystemRunCfg g_opSystemRunCfg;\n#endif",
        );
    }
    w.blank();
    if settings.profiling {
        w.line(0, PROFILING_HELPERS);
        w.blank();
    }
    w.line(0, LOCK_HELPERS);
    w.blank();
    let mut declared = std::collections::HashSet::new();
    for sub in subs {
        if !declared.insert(sub.symbol.as_str()) {
            continue;
        }
        for copy in copies(&sub.symbol, settings.split) {
            w.line(
                0,
                &format!("extern \"C\" __aicore__ void {copy}(uint64_t args_offset);"),
            );
            w.blank();
        }
    }
}

/// The symbol of each split copy: `sym`, `sym_split1`, … `sym_split<n-1>`.
fn copies(symbol: &str, split: u64) -> Vec<String> {
    (0..split)
        .map(|i| match i {
            0 => symbol.to_string(),
            i => format!("{symbol}_split{i}"),
        })
        .collect()
}

/// The entry's opening line.
pub(crate) fn entry_open(w: &mut Writer, name: &str, settings: &Settings) {
    let align = match settings.func_align {
        0 => String::new(),
        n => format!("__attribute__((aligned({n}))) "),
    };
    w.line(
        0,
        &format!("extern \"C\" __global__ {align}__aicore__ void {name}(void) {{"),
    );
    w.line(4, "GM_ADDR *param_base = (GM_ADDR *)get_para_base();");
}

/// Reads the FFTS base address from argument 0.
pub(crate) fn ffts_setup(w: &mut Writer) {
    w.line(
        4,
        "GM_ADDR ffts_addr = param_base[0];\nif (ffts_addr != nullptr) {\n    \
         set_ffts_base_addr((uint64_t)ffts_addr);\n}",
    );
    w.blank();
}

/// The trailer: the kernel-type section the runtime reads, and the end of `#if 1`.
pub(crate) fn tail(w: &mut Writer, kernel_name: &str, kernel_type: KernelType) {
    let (suffix, k_type, aic, aiv) = match kernel_type {
        KernelType::AivOnly | KernelType::MixAiv1_0 => ("mix_aiv", "K_TYPE_MIX_AIV_MAIN", 0, 1),
        KernelType::AicOnly | KernelType::MixAic1_0 => ("mix_aic", "K_TYPE_MIX_AIC_MAIN", 1, 0),
        KernelType::MixAic1_1 => ("mix_aic", "K_TYPE_MIX_AIC_MAIN", 1, 1),
        KernelType::MixAic1_2 => ("mix_aic", "K_TYPE_MIX_AIC_MAIN", 1, 2),
    };
    w.blank();
    w.line(0, "#if TILING_KEY_VAR == 0UL");
    w.line(
        0,
        &format!(
            "static const struct FunLevelMixCoreType {kernel_name}_{suffix}_section \
             __attribute__ ((used, section (\".ascend.meta.{kernel_name}_{suffix}\"))) = \
             {{ {{{{F_TYPE_KTYPE, sizeof(unsigned int)}}, {k_type}}}, \
             {{{{F_TYPE_MIX_TASK_RATION, sizeof(unsigned int)}}, {aic}, {aiv}}} }};"
        ),
    );
    w.line(0, "#endif\n#endif");
}

/// `stmt(copy)` on the cores of `core` that run `sub`, each core running the split copy
/// `coreid % split`.
fn dispatch(w: &mut Writer, core: Core, sub: &SubOp, split: u64, stmt: impl Fn(&str) -> String) {
    w.line(4, &format!("if {} {{", core.guard()));
    w.line(
        6,
        &format!("if ({} < {}) {{", core.block_idx(), sub.kernel.block_dim),
    );
    let symbols = copies(&sub.symbol, split);
    if split <= 1 {
        w.line(10, &stmt(&symbols[0]));
    } else {
        w.line(8, "uint8_t coreid = (uint8_t)get_coreid();");
        for (i, symbol) in symbols.iter().enumerate() {
            let head = match i {
                0 => format!("if ((coreid % {split}) == 0) {{"),
                i if i as u64 == split - 1 => "} else {".to_string(),
                i => format!("}} else if ((coreid % {split}) == {i}) {{"),
            };
            w.line(8, &head);
            w.line(10, &stmt(symbol));
        }
        w.line(8, "}");
    }
    w.line(6, "}");
    w.line(4, "}");
    w.blank();
}

/// The call of `sub` on every core kind it runs on (`cores` limits them in the two-stream
/// form).
pub(crate) fn call(w: &mut Writer, sub: &SubOp, cores: &[Core], split: u64) {
    for &core in sub.arch().cores().iter().filter(|c| cores.contains(c)) {
        dispatch(w, core, sub, split, |symbol| {
            format!("{symbol}({});", sub.param_offset)
        });
    }
}

/// Instruction-cache lines preloaded per sub-kernel: the compiler uses the kernel's text size
/// in 2 KiB units, which the dump does not have.
pub const PRELOAD_UNITS: u32 = 2;

/// `preload(func, N)` of `sub` on the cores it runs on.
pub(crate) fn preload(w: &mut Writer, sub: &SubOp, cores: &[Core], settings: &Settings) {
    if settings.preload != Preload::PerFunc {
        return;
    }
    for &core in sub.arch().cores().iter().filter(|c| cores.contains(c)) {
        dispatch(w, core, sub, settings.split, |symbol| {
            format!("preload((const void *){symbol}, {PRELOAD_UNITS});")
        });
    }
}

/// A full sync of all cores of a SuperKernel of `kernel_type`.
pub(crate) fn full_sync(w: &mut Writer, indent: usize, kernel_type: KernelType) {
    let text = match kernel_type {
        KernelType::MixAic1_1 | KernelType::MixAic1_2 => "AscendC::SyncAll<false>();",
        KernelType::AicOnly | KernelType::MixAic1_0 => {
            "ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));\n\
             wait_flag_dev(AscendC::SYNC_AIC_FLAG);"
        }
        KernelType::AivOnly | KernelType::MixAiv1_0 => {
            "ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));\n\
             wait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);"
        }
    };
    w.line(indent, text);
}

/// A whole-data-cache clean and invalidate.
pub(crate) fn dcci_all(w: &mut Writer) {
    w.line(
        4,
        "pipe_barrier(PIPE_ALL);\n\
         dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);",
    );
}

/// The core kind that signals events for `sub`: the cube for cube and mixed ops.
fn event_core(sub: &SubOp) -> Core {
    sub.arch().cores()[0]
}

/// `sub` waits for its events from ops outside the segment (before it runs).
pub(crate) fn waits(w: &mut Writer, sub: &SubOp, layout: &Layout<'_>) {
    lock_calls(w, sub, &sub.waits, ("WaitFunc", "waits for"), layout);
}

/// `sub` notifies ops outside the segment (after it runs).
pub(crate) fn notifies(w: &mut Writer, sub: &SubOp, layout: &Layout<'_>) {
    lock_calls(w, sub, &sub.notifies, ("NotifyFunc", "notifies"), layout);
}

/// `helper<aic>(param_base[lock])` for each of `events`, each under a comment saying what
/// `sub` does (`verb`) with which op.
fn lock_calls(
    w: &mut Writer,
    sub: &SubOp,
    events: &[Event],
    (helper, verb): (&str, &str),
    layout: &Layout<'_>,
) {
    let aic = event_core(sub).is_aic();
    for event in events {
        w.line(
            4,
            &format!("// {}", layout.describe_event(sub, event, verb)),
        );
        w.line(4, &format!("{helper}<{aic}>(param_base[{}]);", event.param));
    }
}

/// Resets a wait lock for the next launch.
pub(crate) fn reset_lock(w: &mut Writer, event: &Event) {
    w.line(
        4,
        &format!(
            "*reinterpret_cast<__gm__ uint64_t*>(param_base[{}]) = 0;",
            event.param
        ),
    );
}

/// `RecordProfiling` of the sub-op at `index` (1-based; 0 is the whole SuperKernel).
pub(crate) fn record(w: &mut Writer, index: usize, kind: u8, start: bool) {
    w.line(4, &format!("RecordProfiling({index}, {kind:#x}, {start});"));
}

/// Lock-based notify and wait on global memory, done by block 0 of the signalling core.
const LOCK_HELPERS: &str = r#"template<bool aic_flag>
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
}"#;

/// Per-core profiling records in a global-memory ring given as the last argument.
const PROFILING_HELPERS: &str = r#"__BLOCK_LOCAL__ __inline__ __gm__ uint8_t* g_profiling_base_addr;
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
}"#;
