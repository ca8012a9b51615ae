//! The compiled SuperKernel's JSON the SuperKernel compiler writes beside its object
//! (reference ascend_superkernel.md §5.5; aclgraph_superkernel.md §9.2): its kernel name,
//! block dim and core type, and `SuperkernelInfo.kernelList` — under `aicore` in newer
//! compilers, under the per-arch `dav-c220-vec` / `dav-c220-cube` keys in older ones — with
//! each sub-kernel's function, kernel type and block dim. Held against the segment skope
//! predicted for the same sub-ops, a difference is a finding.

use crate::fusion::kernel::{KernelType, SubKernel};
use crate::fusion::plan::{Context, Segment};
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// The `_kernelname` attribute GE gives each compiled op.
const ATTR_KERNEL_NAME: &str = "_kernelname";

/// One sub-kernel of a compiled SuperKernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledKernel {
    /// `func_name`.
    pub func_name: String,
    /// `sub_operator_kernel_type`, when it names a type skope knows.
    pub kernel_type: Option<KernelType>,
    /// `blockDim`.
    pub block_dim: Option<u64>,
}

/// A compiled SuperKernel's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledSk {
    /// The file.
    pub file: PathBuf,
    /// `kernelName`.
    pub kernel_name: String,
    /// `blockDim`.
    pub block_dim: Option<u64>,
    /// `coreType`.
    pub core_type: Option<String>,
    /// The `kernelList` keys read (`aicore`, or `dav-c220-cube` and `dav-c220-vec`).
    pub arches: Vec<String>,
    /// Its sub-kernels in order (a kernel listed under both per-arch keys once).
    pub kernels: Vec<CompiledKernel>,
}

/// The compiled SuperKernel in `value`, when it is one (it has a `kernelList`, under
/// `SuperkernelInfo` or at the top); the error says what is wrong with one that is.
pub fn parse(file: PathBuf, value: &Value) -> Option<Result<CompiledSk, String>> {
    let list = value
        .get("SuperkernelInfo")
        .and_then(|info| info.get("kernelList"))
        .or_else(|| value.get("kernelList"))?;
    Some(read(file, value, list))
}

fn read(file: PathBuf, value: &Value, list: &Value) -> Result<CompiledSk, String> {
    let Some(arches) = list.as_object() else {
        return Err(format!(
            "kernelList is {list}, not an object of kernel lists"
        ));
    };
    let number = |v: &Value| v.as_u64().or_else(|| v.as_str()?.parse().ok());
    let mut out = CompiledSk {
        file,
        kernel_name: value
            .get("kernelName")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        block_dim: value.get("blockDim").and_then(number),
        core_type: value
            .get("coreType")
            .and_then(Value::as_str)
            .map(str::to_string),
        arches: Vec::new(),
        kernels: Vec::new(),
    };
    // The newer single list first, then the older per-arch ones (cube before vector).
    let mut keys: Vec<&String> = arches.keys().collect();
    keys.sort_by_key(|k| match k.as_str() {
        "aicore" => 0,
        k if k.ends_with("cube") => 1,
        _ => 2,
    });
    for arch in keys {
        let Some(items) = arches[arch].as_array() else {
            return Err(format!("kernelList.{arch} is not a list"));
        };
        out.arches.push(arch.clone());
        for (i, item) in items.iter().enumerate() {
            let Some(func) = item.get("func_name").and_then(Value::as_str) else {
                return Err(format!("kernelList.{arch}[{i}] has no func_name"));
            };
            if out.kernels.iter().any(|k| k.func_name == func) {
                continue;
            }
            out.kernels.push(CompiledKernel {
                func_name: func.to_string(),
                kernel_type: item
                    .get("sub_operator_kernel_type")
                    .and_then(Value::as_str)
                    .and_then(KernelType::from_compiler_name),
                block_dim: item.get("blockDim").and_then(number),
            });
        }
    }
    Ok(out)
}

/// `func` without the compiler's `__kernel0…` suffix: the op's `_kernelname`.
fn stem(func: &str) -> &str {
    func.find("__kernel").map_or(func, |at| &func[..at])
}

/// A compiled SuperKernel held against a predicted segment.
#[derive(Debug, Clone, Serialize)]
pub struct CompiledCheck {
    /// The segment.
    pub segment: String,
    /// The compiled JSON.
    pub file: String,
    /// Its kernel name.
    pub kernel_name: String,
    /// The differences, in words; none when the two agree.
    pub differences: Vec<String>,
}

/// Each compiled SuperKernel of `compiled` held against the segment of `segments` with the
/// most of its kernels (at least half of both), in segment order.
pub fn check(cx: &Context, compiled: &[CompiledSk], segments: &[&Segment]) -> Vec<CompiledCheck> {
    let graph = cx.graph();
    let names = |seg: &Segment| -> Vec<String> {
        seg.ops
            .iter()
            .map(|&id| {
                let op = graph.op(id);
                op.attrs
                    .get_str(ATTR_KERNEL_NAME)
                    .unwrap_or(&op.name)
                    .to_string()
            })
            .collect()
    };
    let mut out = Vec::new();
    for seg in segments {
        let ours = names(seg);
        let shared = |sk: &CompiledSk| {
            sk.kernels
                .iter()
                .filter(|k| ours.iter().any(|n| n == stem(&k.func_name)))
                .count()
        };
        let Some(sk) = compiled
            .iter()
            .filter(|sk| {
                let n = shared(sk);
                n > 0 && 2 * n >= ours.len() && 2 * n >= sk.kernels.len()
            })
            .max_by_key(|sk| shared(sk))
        else {
            continue;
        };
        out.push(CompiledCheck {
            segment: seg.name.clone(),
            file: sk.file.display().to_string(),
            kernel_name: sk.kernel_name.clone(),
            differences: differences(cx, seg, &ours, sk),
        });
    }
    out
}

fn differences(cx: &Context, seg: &Segment, ours: &[String], sk: &CompiledSk) -> Vec<String> {
    let graph = cx.graph();
    let theirs: Vec<&str> = sk.kernels.iter().map(|k| stem(&k.func_name)).collect();
    let mut out = Vec::new();
    let missing: Vec<&str> = ours
        .iter()
        .map(String::as_str)
        .filter(|n| !theirs.contains(n))
        .collect();
    if !missing.is_empty() {
        out.push(format!(
            "skope predicts sub-op(s) the compiled SuperKernel does not list: {}",
            missing.join(", ")
        ));
    }
    let extra: Vec<&str> = theirs
        .iter()
        .copied()
        .filter(|n| !ours.iter().any(|o| o == n))
        .collect();
    if !extra.is_empty() {
        out.push(format!(
            "the compiled SuperKernel lists sub-op(s) skope does not predict in it: {}",
            extra.join(", ")
        ));
    }
    let common_ours: Vec<&str> = ours
        .iter()
        .map(String::as_str)
        .filter(|n| theirs.contains(n))
        .collect();
    let common_theirs: Vec<&str> = theirs
        .iter()
        .copied()
        .filter(|n| common_ours.contains(n))
        .collect();
    if missing.is_empty() && extra.is_empty() && common_ours != common_theirs {
        out.push(format!(
            "the sub-ops are in another order: compiled {}",
            common_theirs.join(", ")
        ));
    }
    for (&id, name) in seg.ops.iter().zip(ours) {
        let Some(k) = sk.kernels.iter().find(|k| stem(&k.func_name) == name) else {
            continue;
        };
        let Some(sub) = SubKernel::of(graph.op(id)) else {
            continue;
        };
        if let Some(t) = k.kernel_type
            && t != sub.kernel_type
        {
            out.push(format!(
                "{name}: compiled as {}, the dump says {}",
                t.name(),
                sub.kernel_type.name()
            ));
        }
        if let Some(b) = k.block_dim
            && b != sub.block_dim
        {
            out.push(format!(
                "{name}: compiled with block dim {b}, the dump says {}",
                sub.block_dim
            ));
        }
    }
    if let (Some(b), crate::fusion::plan::KernelInfo::Known(k)) = (sk.block_dim, &seg.kernel)
        && b != k.block_dim
    {
        out.push(format!(
            "the SuperKernel's block dim: compiled {b}, skope predicts {}",
            k.block_dim
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_key_styles_read_to_the_same_kernels() {
        let item = |f: &str, t: &str, b: u64| json!({"func_name": f, "sub_operator_kernel_type": t, "blockDim": b, "split_mode": 4});
        let newer = json!({"kernelName": "te_superkernel_1", "blockDim": 40, "coreType": "MIX",
            "SuperkernelInfo": {"kernelList": {"aicore": [
                item("mm__kernel0", "KERNEL_TYPE_AIC_ONLY", 24),
                item("add__kernel0", "KERNEL_TYPE_AIV_ONLY", 40)]}}});
        let older = json!({"kernelName": "te_superkernel_1", "blockDim": 40,
            "SuperkernelInfo": {"kernelList": {
                "dav-c220-vec": [item("mm__kernel0", "KERNEL_TYPE_AIC_ONLY", 24),
                                 item("add__kernel0", "KERNEL_TYPE_AIV_ONLY", 40)],
                "dav-c220-cube": [item("mm__kernel0", "KERNEL_TYPE_AIC_ONLY", 24)]}}});
        let a = parse("a.json".into(), &newer).unwrap().unwrap();
        let b = parse("b.json".into(), &older).unwrap().unwrap();
        assert_eq!(a.kernels, b.kernels);
        assert_eq!(a.kernels[0].kernel_type, Some(KernelType::AicOnly));
        assert_eq!(b.arches, ["dav-c220-cube", "dav-c220-vec"]);
        assert!(parse("c.json".into(), &json!({"kernelName": "x"})).is_none());
        let bad = json!({"SuperkernelInfo": {"kernelList": {"aicore": [{"blockDim": 1}]}}});
        assert!(
            parse("d.json".into(), &bad)
                .unwrap()
                .unwrap_err()
                .contains("has no func_name")
        );
    }
}
