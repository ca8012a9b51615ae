// A stand-in for AscendC's kernel_operator.h with just the names skope's generated SuperKernel
// entry code uses, so that a host C++ compiler can check the code's syntax and names:
//   c++ -std=c++17 -fsyntax-only -I assets/codegen <segment>.cpp
// The declarations mirror the AscendC names; nothing here runs on a device.
#pragma once
#include <cstddef>
#include <cstdint>

#define __aicore__
#define __global__
#define __gm__
#define __ubuf__
#define __cbuf__
#define __BLOCK_LOCAL__
#define TILING_KEY_VAR 0UL
#define ASCEND_IS_AIC (skope_shim::is_aic())
#define ASCEND_IS_AIV (!skope_shim::is_aic())

namespace skope_shim {
bool is_aic();
}

typedef uint8_t* GM_ADDR;

enum pipe_t { PIPE_ALL, PIPE_FIX, PIPE_MTE3 };
enum class cache_line_t { ENTIRE_DATA_CACHE, SINGLE_CACHE_LINE };
enum class dcci_dst_t { CACHELINE_OUT, CACHELINE_ALL };
enum class mem_dsb_t { DSB_ALL };
enum event_t { EVENT_ID0 };

struct OpSystemRunCfg {
    uint64_t value;
};

struct FunLevelHead {
    uint32_t type;
    uint32_t length;
};
struct FunLevelKType {
    FunLevelHead head;
    uint32_t ktype;
};
struct FunLevelTaskRation {
    FunLevelHead head;
    uint16_t aic;
    uint16_t aiv;
};
struct FunLevelMixCoreType {
    FunLevelKType ktype;
    FunLevelTaskRation ration;
};
enum { F_TYPE_KTYPE = 1, F_TYPE_MIX_TASK_RATION = 2 };
enum { K_TYPE_MIX_AIC_MAIN = 6, K_TYPE_MIX_AIV_MAIN = 7 };

extern uint64_t g_super_kernel_early_start_config;

GM_ADDR* get_para_base();
void set_ffts_base_addr(uint64_t addr);
int64_t get_block_idx();
int64_t get_block_num();
int64_t get_coreid();
int64_t get_subblockdim();
int64_t get_subblockid();
void preload(const void* pc, int64_t lines);
template <typename T> void dcci(T* addr, int entire, int dst);
template <typename T> void dcci(T* addr, cache_line_t entire, dcci_dst_t dst);
void pipe_barrier(pipe_t pipe);
void ffts_cross_core_sync(pipe_t pipe, uint64_t config);
void wait_flag_dev(int64_t flag);
void dsb(mem_dsb_t kind);
void dci();
void copy_ubuf_to_gm(void* dst, void* src, uint8_t sid, uint16_t n_burst, uint16_t len_burst,
                     uint16_t src_stride, uint16_t dst_stride);
void copy_cbuf_to_gm(void* dst, void* src, uint8_t sid, uint16_t n_burst, uint16_t len_burst,
                     uint16_t src_stride, uint16_t dst_stride);
void create_cbuf_matrix(uint32_t* dst, uint32_t config, uint32_t value);

namespace AscendC {
enum SyncFlag { SYNC_AIV_FLAG = 12, SYNC_AIC_FLAG = 11, SYNC_AIC_AIV_FLAG = 13, SYNC_AIV_ONLY_ALL = 14 };
enum class HardEvent { V_MTE3, MTE2_MTE3 };
extern GM_ADDR g_superKernelAutoSyncAllConfigGmBaseAddr;
extern bool g_superKernelAutoSyncAllEnable;
int64_t GetBlockIdx();
int64_t GetBlockIdxImpl();
uint64_t GetffstMsg(uint64_t mode, SyncFlag flag);
void SetNextTaskStart();
template <int config> void WaitPreTaskEndImpl();
template <bool is_aiv_only> void SyncAll();
void PreLoad(int64_t lines);
template <typename T> void DuplicateImpl(T* dst, T value, uint32_t count);
template <HardEvent event> void SetFlag(event_t id);
template <HardEvent event> void WaitFlag(event_t id);
template <pipe_t pipe> void PipeBarrier();
int64_t GetSystemCycle();
}  // namespace AscendC
