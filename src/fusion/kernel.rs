//! Kernel types and block dims: of one sub-op (from its dump attributes) and of a SuperKernel
//! (the compiler's rule, reference/ascend_superkernel.md §5.2, with the `debug-aic-num` /
//! `debug-aiv-num` overrides and their checks).

use super::options::SkOptions;
use crate::graph::Op;
use serde::Serialize;

/// A kernel type, as the SuperKernel compiler names them (`KERNEL_TYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum KernelType {
    /// Vector cores only.
    #[serde(rename = "AIV_ONLY")]
    AivOnly,
    /// Cube cores only.
    #[serde(rename = "AIC_ONLY")]
    AicOnly,
    /// Mixed launch, vector cores only.
    #[serde(rename = "MIX_AIV_1_0")]
    MixAiv1_0,
    /// Mixed launch, cube cores only.
    #[serde(rename = "MIX_AIC_1_0")]
    MixAic1_0,
    /// One vector core per cube core.
    #[serde(rename = "MIX_AIC_1_1")]
    MixAic1_1,
    /// Two vector cores per cube core.
    #[serde(rename = "MIX_AIC_1_2")]
    MixAic1_2,
}

impl KernelType {
    /// The name without the `KERNEL_TYPE_` prefix, e.g. `MIX_AIC_1_2`.
    pub fn name(self) -> &'static str {
        match self {
            KernelType::AivOnly => "AIV_ONLY",
            KernelType::AicOnly => "AIC_ONLY",
            KernelType::MixAiv1_0 => "MIX_AIV_1_0",
            KernelType::MixAic1_0 => "MIX_AIC_1_0",
            KernelType::MixAic1_1 => "MIX_AIC_1_1",
            KernelType::MixAic1_2 => "MIX_AIC_1_2",
        }
    }

    /// The type the compiler's `KERNEL_TYPE_<name>` string names.
    pub fn from_compiler_name(text: &str) -> Option<KernelType> {
        let name = text.strip_prefix("KERNEL_TYPE_")?;
        [
            KernelType::AivOnly,
            KernelType::AicOnly,
            KernelType::MixAiv1_0,
            KernelType::MixAic1_0,
            KernelType::MixAic1_1,
            KernelType::MixAic1_2,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// The compiler's bit for this type when summarising sub-ops.
    fn bit(self) -> u8 {
        match self {
            KernelType::AivOnly => 0b1,
            KernelType::AicOnly => 0b10,
            KernelType::MixAiv1_0 => 0b100,
            KernelType::MixAic1_0 => 0b1000,
            KernelType::MixAic1_1 => 0b1_0000,
            KernelType::MixAic1_2 => 0b10_0000,
        }
    }

    /// (AIC cores, AIV cores) a sub-op of this type with `block_dim` occupies.
    fn cores(self, block_dim: u64) -> (u64, u64) {
        match self {
            KernelType::AivOnly | KernelType::MixAiv1_0 => (0, block_dim),
            KernelType::AicOnly | KernelType::MixAic1_0 => (block_dim, 0),
            KernelType::MixAic1_1 => (block_dim, block_dim),
            KernelType::MixAic1_2 => (block_dim, block_dim.saturating_mul(2)),
        }
    }
}

/// Attribute with the op's core type (`AIC`, `AIV`, `MIX_AIC`…).
pub const ATTR_CORE_TYPE: &str = "_cube_vector_core_type";

/// Op type of the fused node GE inserts.
pub const SUPERKERNEL_TYPE: &str = "SuperKernel";

/// The kernel type and block dim of one compiled op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubKernel {
    /// Its kernel type.
    pub kernel_type: KernelType,
    /// Cores it launches.
    pub block_dim: u64,
    /// True when the dump said only "mixed" and the 1:2 ratio was assumed.
    pub ratio_assumed: bool,
}

impl SubKernel {
    /// Reads `_cube_vector_core_type` and `tvm_blockdim` (or `hcom_block_dim`); `None` when the
    /// dump lacks either (taken before compilation) or the core type is not one we know.
    pub fn of(op: &Op) -> Option<SubKernel> {
        let core_type = op.attrs.get_str(ATTR_CORE_TYPE)?;
        let (kernel_type, ratio_assumed) = match core_type {
            "AIV" | "VectorCore" => (KernelType::AivOnly, false),
            "AIC" | "AiCore" => (KernelType::AicOnly, false),
            "MIX_AIV" => (KernelType::MixAiv1_0, false),
            "MIX_AIC" | "MIX" => match task_ratio(op) {
                Some(kernel_type) => (kernel_type, false),
                None => (KernelType::MixAic1_2, true),
            },
            _ => return None,
        };
        let block_dim = op
            .attrs
            .get_int("tvm_blockdim")
            .or_else(|| op.attrs.get_int("hcom_block_dim"))
            .filter(|b| *b > 0)?;
        Some(SubKernel {
            kernel_type,
            block_dim: block_dim as u64,
            ratio_assumed,
        })
    }
}

/// Attribute with a mixed kernel's cube:vector task ratio (`[1, 2]`), which GE reads from the
/// kernel's `taskRation` (GE `tbe_json_parse.cc`).
pub const ATTR_TASK_RATIO: &str = "_task_ratio_cube_vector";

/// The mixed kernel type the task ratio names: ASC compiles MIX_AIC_1_0 as 1:0, MIX_AIV_1_0 as
/// 0:1, MIX_AIC_1_1 as 1:1 and MIX_AIC_1_2 as 1:2 (asc-devkit `compile_op.py`). `None` when
/// the dump has no ratio or one of none of these.
fn task_ratio(op: &Op) -> Option<KernelType> {
    let Some(crate::graph::AttrValue::List(items)) = op.attrs.get(ATTR_TASK_RATIO) else {
        return None;
    };
    let ratio: Vec<i64> = items.iter().filter_map(|v| v.as_int()).collect();
    match ratio.as_slice() {
        [1, 0] => Some(KernelType::MixAic1_0),
        [0, 1] => Some(KernelType::MixAiv1_0),
        [1, 1] => Some(KernelType::MixAic1_1),
        [1, 2] => Some(KernelType::MixAic1_2),
        _ => None,
    }
}

/// The kernel type and block dim of a SuperKernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkKernel {
    /// Its kernel type.
    pub kernel_type: KernelType,
    /// Cores it launches.
    pub block_dim: u64,
    /// True when `debug-aic-num` / `debug-aiv-num` set the result.
    pub forced: bool,
}

impl SkKernel {
    /// `MIX_AIC_1_2 × 24`.
    pub fn label(&self) -> String {
        label(self.kernel_type.name(), self.block_dim)
    }
}

/// A kernel type and block dim as shown to users: `MIX_AIC_1_2 × 24`.
pub fn label(kernel_type: &str, block_dim: u64) -> String {
    format!("{kernel_type} × {block_dim}")
}

const ERROR_PREFIX: &str = "[Super Kernel][ERROR]: ";

/// The SuperKernel's kernel type and block dim from its sub-ops, as the compiler computes it
/// (`get_finale_type_and_block_num`), then the debug core-count overrides. `Err` holds the
/// compiler's error message (the compile fails). The hardware core limit is not checked: the
/// dump does not say which chip.
pub fn superkernel(subs: &[SubKernel], options: &SkOptions) -> Result<SkKernel, String> {
    let mut bits = 0u8;
    let (mut max_aic, mut max_aiv) = (0u64, 0u64);
    for sub in subs {
        bits |= sub.kernel_type.bit();
        let (aic, aiv) = sub.kernel_type.cores(sub.block_dim);
        max_aic = max_aic.max(aic);
        max_aiv = max_aiv.max(aiv);
    }
    let (kernel_type, block_dim) = match bits {
        0b1 | 0b100 | 0b101 => (KernelType::MixAiv1_0, max_aiv),
        0b10 | 0b1000 | 0b1010 => (KernelType::MixAic1_0, max_aic),
        0b1_0000 => (KernelType::MixAic1_1, max_aic),
        _ if max_aiv <= max_aic => (KernelType::MixAic1_1, max_aic),
        _ => (KernelType::MixAic1_2, max_aic.max(max_aiv.div_ceil(2))),
    };
    apply_debug_core_counts(
        SkKernel {
            kernel_type,
            block_dim,
            forced: false,
        },
        options.debug_aic_num(),
        options.debug_aiv_num(),
    )
}

fn apply_debug_core_counts(natural: SkKernel, aic: u64, aiv: u64) -> Result<SkKernel, String> {
    if aic > 0 && aiv > 0 && aic != aiv && aic.saturating_mul(2) != aiv {
        return Err(format!(
            "{ERROR_PREFIX}ratio of super kernel options debug-aic-num {aic} to debug-aiv-num \
             {aiv} is invalid. Should be 1:0 or 0:1 or 1:1 or 1:2."
        ));
    }
    if aic == 0 && aiv == 0 {
        return Ok(natural);
    }
    let block = natural.block_dim;
    let too_few = |case: &str, which: &str, given: u64, need: u64| {
        Err(format!(
            "{ERROR_PREFIX}In super kernel {case} case, option debug-{which}-num {given} should \
             not be less than max sub op {which} num {need}."
        ))
    };
    match natural.kernel_type {
        KernelType::AicOnly | KernelType::MixAic1_0 if aic < block => {
            return too_few("aic", "aic", aic, block);
        }
        KernelType::AivOnly | KernelType::MixAiv1_0 if aiv < block => {
            return too_few("aiv", "aiv", aiv, block);
        }
        KernelType::MixAic1_1 if aic < block => return too_few("mix 1:1", "aic", aic, block),
        KernelType::MixAic1_1 if aiv < block => return too_few("mix 1:1", "aiv", aiv, block),
        KernelType::MixAic1_2 if aic < block => return too_few("mix 1:2", "aic", aic, block),
        KernelType::MixAic1_2 if aiv < block.saturating_mul(2) => {
            return too_few("mix 1:2", "aiv", aiv, block.saturating_mul(2));
        }
        _ => {}
    }
    let (kernel_type, block_dim) = if aiv == 0 {
        (KernelType::MixAic1_0, aic)
    } else if aic == 0 {
        (KernelType::MixAiv1_0, aiv)
    } else if aic == aiv {
        (KernelType::MixAic1_1, aic)
    } else {
        (KernelType::MixAic1_2, aic)
    };
    Ok(SkKernel {
        kernel_type,
        block_dim,
        forced: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use KernelType::*;

    fn sub(kernel_type: KernelType, block_dim: u64) -> SubKernel {
        SubKernel {
            kernel_type,
            block_dim,
            ratio_assumed: false,
        }
    }

    fn sk(subs: &[SubKernel], options: &str) -> Result<(KernelType, u64), String> {
        superkernel(subs, &SkOptions::parse(options)).map(|k| (k.kernel_type, k.block_dim))
    }

    #[test]
    fn every_branch_of_the_compiler_rule() {
        assert_eq!(
            sk(&[sub(AivOnly, 40), sub(AivOnly, 8)], ""),
            Ok((MixAiv1_0, 40))
        );
        assert_eq!(
            sk(&[sub(AicOnly, 24), sub(AicOnly, 8)], ""),
            Ok((MixAic1_0, 24))
        );
        assert_eq!(
            sk(&[sub(MixAiv1_0, 20), sub(AivOnly, 30)], ""),
            Ok((MixAiv1_0, 30))
        );
        assert_eq!(
            sk(&[sub(MixAic1_0, 20), sub(AicOnly, 10)], ""),
            Ok((MixAic1_0, 20))
        );
        assert_eq!(sk(&[sub(MixAic1_1, 12)], ""), Ok((MixAic1_1, 12)));
        // Cube and vector mixed: AIV ≤ AIC → 1:1 at max AIC.
        assert_eq!(
            sk(&[sub(AicOnly, 24), sub(AivOnly, 20)], ""),
            Ok((MixAic1_1, 24))
        );
        // AIV > AIC → 1:2 at max(AIC, ceil(AIV/2)).
        assert_eq!(
            sk(&[sub(AicOnly, 24), sub(AivOnly, 40)], ""),
            Ok((MixAic1_2, 24))
        );
        assert_eq!(
            sk(&[sub(AicOnly, 8), sub(AivOnly, 41)], ""),
            Ok((MixAic1_2, 21))
        );
        // A 1:2 sub-op counts 2·block_dim vector cores.
        assert_eq!(sk(&[sub(MixAic1_2, 24)], ""), Ok((MixAic1_2, 24)));
        assert_eq!(
            sk(&[sub(MixAic1_2, 24), sub(AivOnly, 50)], ""),
            Ok((MixAic1_2, 25))
        );
    }

    #[test]
    fn debug_core_counts_override_and_are_checked() {
        let subs = [sub(AicOnly, 24), sub(AivOnly, 40)]; // natural MIX_AIC_1_2, 24
        assert_eq!(
            sk(&subs, "debug-aic-num=24:debug-aiv-num=48"),
            Ok((MixAic1_2, 24))
        );
        assert_eq!(
            sk(&subs, "debug-aic-num=30:debug-aiv-num=60"),
            Ok((MixAic1_2, 30))
        );
        let ratio = sk(&subs, "debug-aic-num=24:debug-aiv-num=40").unwrap_err();
        assert_eq!(
            ratio,
            "[Super Kernel][ERROR]: ratio of super kernel options debug-aic-num 24 to \
             debug-aiv-num 40 is invalid. Should be 1:0 or 0:1 or 1:1 or 1:2."
        );
        let few = sk(&subs, "debug-aic-num=20:debug-aiv-num=40").unwrap_err();
        assert!(
            few.ends_with("option debug-aic-num 20 should not be less than max sub op aic num 24."),
            "{few}"
        );
        let few = sk(&subs, "debug-aic-num=24").unwrap_err();
        assert!(
            few.contains("mix 1:2 case, option debug-aiv-num 0"),
            "{few}"
        );
        let vec_only = [sub(AivOnly, 40)];
        assert_eq!(sk(&vec_only, "debug-aiv-num=48"), Ok((MixAiv1_0, 48)));
        assert_eq!(
            sk(&vec_only, "debug-aiv-num=40:debug-aic-num=40"),
            Ok((MixAic1_1, 40))
        );
    }
}
