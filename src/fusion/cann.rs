//! What an installed CANN says about op types: which run on AI CPU, and which AI Core kernels
//! the AscendC compiler builds (only those can join a SuperKernel). Read from the op
//! information files under `ASCEND_OPP_PATH` (or `$ASCEND_HOME_PATH/opp`), for the op types of
//! one graph, and turned into rules that name the file that decided.
//!
//! Layout (CANN 8.x; GE's AI CPU engine and FE read the same paths):
//! - AI CPU kernels: `built-in/op_impl/aicpu/aicpu_kernel/config/{aicpu_kernel,host_cpu_kernel}.json`,
//!   `built-in/op_impl/aicpu/tf_kernel/config/tf_kernel.json`, the older `op_impl/built-in/aicpu/…`
//!   form, the split packages' `built-in/op_impl/aicpu/config/aicpu_*.json` and vendors'
//!   `vendors/<v>/op_impl/cpu/config/cust_aicpu_kernel.json`: JSON objects keyed by op type.
//! - AI Core kernels: `built-in/op_impl/ai_core/tbe/config/<soc>/aic-<soc>-ops-info*.json`
//!   (and `vendors/<v>/op_impl/ai_core/tbe/config/<soc>/`), keyed by op type, `opFile.value`
//!   naming the implementation; for the SuperKernel SoCs `ascend910b` (Atlas A2) and
//!   `ascend910_93` (Atlas A3).
//! - An AI Core implementation `…/impl/[ops_<pkg>/]dynamic/<opFile>.py` that imports
//!   `tbe.tikcpp` wraps an AscendC kernel; any other is TBE or TIK.
//!
//! GE prefers an AI Core kernel over an AI CPU one, so a type is judged AI CPU only when no
//! AI Core op-info lists it.

use super::verdict::{Reason, Rule, Verdict};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The SoCs SuperKernel runs on, as CANN names their op-info directories.
const SUPERKERNEL_SOCS: &[&str] = &["ascend910b", "ascend910_93"];

/// What marks an AscendC wrapper among the AI Core implementations.
const ASCENDC_IMPORT: &str = "tbe.tikcpp";

/// An installed CANN's operator package directory (`…/opp`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CannInstall {
    /// The `opp` directory.
    pub opp: PathBuf,
}

/// The rules an installed CANN gives for a graph's op types.
#[derive(Debug, Clone, Default)]
pub struct CannRules {
    /// One rule per op type the install decides, each naming its file.
    pub rules: Vec<Rule>,
    /// Files that could not be read or parsed (the rest still count).
    pub problems: Vec<String>,
}

/// One AI Core op-info entry.
#[derive(Debug, Clone)]
struct AiCore {
    /// The op-info file listing it.
    file: PathBuf,
    /// `opFile.value`, or the op type in snake case.
    op_file: String,
    /// Where its implementation would be, most specific first.
    impl_dirs: Vec<PathBuf>,
}

#[derive(Deserialize)]
struct AiCpuEntry {
    #[serde(rename = "opInfo")]
    op_info: Option<AiCpuInfo>,
}

#[derive(Deserialize)]
struct AiCpuInfo {
    #[serde(rename = "opKernelLib")]
    op_kernel_lib: Option<String>,
}

#[derive(Deserialize)]
struct AiCoreEntry {
    #[serde(rename = "opFile")]
    op_file: Option<Value>,
}

#[derive(Deserialize)]
struct Value {
    value: Option<String>,
}

impl CannInstall {
    /// The install `ASCEND_OPP_PATH` names, else `$ASCEND_HOME_PATH/opp`, when it holds
    /// `built-in/op_impl` or the older `op_impl/built-in`.
    pub fn from_env() -> Option<CannInstall> {
        let opp = std::env::var_os("ASCEND_OPP_PATH")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("ASCEND_HOME_PATH")
                    .filter(|v| !v.is_empty())
                    .map(|home| PathBuf::from(home).join("opp"))
            })?;
        CannInstall::at(&opp)
    }

    /// The install at `opp`, when it looks like one.
    pub fn at(opp: &Path) -> Option<CannInstall> {
        let looks = opp.join("built-in/op_impl").is_dir() || opp.join("op_impl/built-in").is_dir();
        looks.then(|| CannInstall {
            opp: opp.to_path_buf(),
        })
    }

    /// What the install says about `types`: AI CPU types are unsupported, AI Core types
    /// fusible when their implementation is AscendC and unsupported when it is TBE or TIK.
    /// Types it does not list get no rule.
    pub fn rules_for<'a>(&self, types: impl IntoIterator<Item = &'a str>) -> CannRules {
        let wanted: BTreeSet<&str> = types.into_iter().collect();
        let mut out = CannRules::default();
        let ai_core = self.ai_core(&wanted, &mut out.problems);
        let ai_cpu = self.ai_cpu(&wanted, &mut out.problems);
        let source = format!("CANN install {}", self.opp.display());
        for &op_type in &wanted {
            let rule = |verdict, file: &Path, detail: String| Rule {
                op_type: op_type.to_string(),
                verdict,
                detail: Some(detail),
                source: source.clone(),
                file: file.display().to_string(),
            };
            if let Some(entry) = ai_core.get(op_type) {
                let Some(implementation) = entry
                    .impl_dirs
                    .iter()
                    .map(|dir| dir.join(format!("{}.py", entry.op_file)))
                    .find(|p| p.is_file())
                else {
                    continue;
                };
                let Ok(text) = std::fs::read_to_string(&implementation) else {
                    out.problems
                        .push(format!("{}: cannot be read", implementation.display()));
                    continue;
                };
                out.rules.push(if text.contains(ASCENDC_IMPORT) {
                    rule(
                        Verdict::Fusible,
                        &implementation,
                        format!(
                            "an AI Core kernel the AscendC compiler builds ({} imports {ASCENDC_IMPORT}; listed in {})",
                            implementation.display(),
                            entry.file.display()
                        ),
                    )
                } else {
                    rule(
                        Verdict::Unsupported(Reason::NotAscendC),
                        &implementation,
                        format!(
                            "a TBE or TIK AI Core kernel ({} does not import {ASCENDC_IMPORT})",
                            implementation.display()
                        ),
                    )
                });
            } else if let Some((file, lib)) = ai_cpu.get(op_type) {
                out.rules.push(rule(
                    Verdict::Unsupported(Reason::AiCpu),
                    file,
                    format!(
                        "{} lists it (opKernelLib {lib}) and no AI Core op-info of {} does",
                        file.display(),
                        SUPERKERNEL_SOCS.join(" or ")
                    ),
                ));
            }
        }
        out
    }

    /// AI Core op-info entries of `wanted` types, for the SuperKernel SoCs: vendors first
    /// (they take priority over built-in ones), then built-in.
    fn ai_core(
        &self,
        wanted: &BTreeSet<&str>,
        problems: &mut Vec<String>,
    ) -> HashMap<String, AiCore> {
        let mut found: HashMap<String, AiCore> = HashMap::new();
        let mut stores: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
        for vendor in self.vendors() {
            let base = self
                .opp
                .join("vendors")
                .join(&vendor)
                .join("op_impl/ai_core/tbe");
            let impl_dir = base.join(format!("{vendor}_impl"));
            for soc in SUPERKERNEL_SOCS {
                stores.push((
                    base.join("config").join(soc),
                    vec![impl_dir.join("dynamic")],
                ));
            }
        }
        let builtin = self.opp.join("built-in/op_impl/ai_core/tbe");
        for soc in SUPERKERNEL_SOCS {
            stores.push((
                builtin.join("config").join(soc),
                vec![builtin.join("impl/dynamic")],
            ));
        }
        for (dir, impl_dirs) in stores {
            for file in json_files(&dir) {
                // `aic-<soc>-ops-info-<pkg>.json` keeps its implementations under `impl/ops_<pkg>/`.
                let package = file
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .and_then(|s| s.rsplit_once('-'))
                    .map(|(_, suffix)| suffix)
                    .filter(|suffix| *suffix != "info")
                    .map(str::to_string);
                let Some(entries) = read_object::<AiCoreEntry>(&file, problems) else {
                    continue;
                };
                for (op_type, entry) in entries {
                    if !wanted.contains(op_type.as_str()) || found.contains_key(&op_type) {
                        continue;
                    }
                    let op_file = entry
                        .op_file
                        .and_then(|v| v.value)
                        .filter(|v| !v.is_empty())
                        .unwrap_or_else(|| snake_case(&op_type));
                    let mut dirs = Vec::new();
                    if let Some(p) = &package {
                        dirs.push(builtin.join(format!("impl/ops_{p}/dynamic")));
                    }
                    dirs.extend(impl_dirs.iter().cloned());
                    found.insert(
                        op_type,
                        AiCore {
                            file: file.clone(),
                            op_file,
                            impl_dirs: dirs,
                        },
                    );
                }
            }
        }
        found
    }

    /// AI CPU kernel entries of `wanted` types: the file listing each, and its kernel library.
    fn ai_cpu(
        &self,
        wanted: &BTreeSet<&str>,
        problems: &mut Vec<String>,
    ) -> HashMap<String, (PathBuf, String)> {
        let mut files: Vec<PathBuf> = Vec::new();
        for vendor in self.vendors() {
            files.push(
                self.opp
                    .join("vendors")
                    .join(vendor)
                    .join("op_impl/cpu/config/cust_aicpu_kernel.json"),
            );
        }
        for root in ["built-in/op_impl/aicpu", "op_impl/built-in/aicpu"] {
            let root = self.opp.join(root);
            for name in [
                "aicpu_kernel/config/aicpu_kernel.json",
                "tf_kernel/config/tf_kernel.json",
                "aicpu_kernel/config/host_cpu_kernel.json",
            ] {
                files.push(root.join(name));
            }
        }
        files.extend(
            json_files(&self.opp.join("built-in/op_impl/aicpu/config"))
                .into_iter()
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("aicpu_"))
                }),
        );
        let mut found = HashMap::new();
        for file in files.into_iter().filter(|f| f.is_file()) {
            let Some(entries) = read_object::<AiCpuEntry>(&file, problems) else {
                continue;
            };
            for (op_type, entry) in entries {
                if wanted.contains(op_type.as_str()) && !found.contains_key(&op_type) {
                    let lib = entry
                        .op_info
                        .and_then(|i| i.op_kernel_lib)
                        .unwrap_or_else(|| "?".to_string());
                    found.insert(op_type, (file.clone(), lib));
                }
            }
        }
        found
    }

    /// Vendor directories in `vendors/config.ini`'s `load_priority` order.
    fn vendors(&self) -> Vec<String> {
        let Ok(text) = std::fs::read_to_string(self.opp.join("vendors/config.ini")) else {
            return Vec::new();
        };
        text.lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('#'))
            .find_map(|l| l.strip_prefix("load_priority"))
            .and_then(|rest| rest.trim_start().strip_prefix('='))
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|v| !v.is_empty() && !v.contains(['/', '\\']) && *v != "..")
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The `*.json` files of `dir`, by name.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
        .collect();
    files.sort();
    files
}

/// A JSON object keyed by op type; a problem (with line and column) when it cannot be read.
fn read_object<T: for<'de> Deserialize<'de>>(
    file: &Path,
    problems: &mut Vec<String>,
) -> Option<BTreeMap<String, T>> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) => {
            problems.push(format!("{}: cannot be read: {e}", file.display()));
            return None;
        }
    };
    match serde_json::from_str::<BTreeMap<String, T>>(&text) {
        Ok(map) => Some(map),
        Err(e) => {
            problems.push(format!(
                "{}:{}:{}: not an op-information file: {e}",
                file.display(),
                e.line(),
                e.column()
            ));
            None
        }
    }
}

/// `NonZero` → `non_zero`, `AddRmsNorm` → `add_rms_norm`: how CANN names an implementation
/// file when the op-info gives none.
fn snake_case(op_type: &str) -> String {
    let mut out = String::with_capacity(op_type.len() + 4);
    let chars: Vec<char> = op_type.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let after_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let before_lower = i > 0 && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if after_lower || (before_lower && chars[i - 1].is_ascii_uppercase()) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implementation_files_are_named_in_snake_case() {
        assert_eq!(snake_case("NonZero"), "non_zero");
        assert_eq!(snake_case("AddRmsNorm"), "add_rms_norm");
        assert_eq!(snake_case("MatMulV2"), "mat_mul_v2");
        assert_eq!(snake_case("Relu"), "relu");
    }
}
