//! What a compile leaves in `kernel_meta/` that the generator can use instead of guessing:
//! the op-info JSON of each compiled sub-kernel (the SuperKernel compiler's sub-op input:
//! graph-autofusion `super_kernel_sub_op_infos.py` `init_of_sub_operator_info`) and the entry
//! sources the compiler wrote (`te_superkernel_<hash>[_<pid>]_kernel.cpp`).

pub mod compiled;

use crate::file_error::FileError;
use crate::fusion::kernel::KernelType;
use compiled::CompiledSk;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Largest op-info JSON read; real ones are a few KiB.
const MAX_OP_INFO_BYTES: u64 = 16 << 20;
/// Largest entry source read; real ones are tens of KiB per hundred sub-ops.
const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// What to do about an op-info file that cannot be used.
const OP_INFO_HINT: &str = "pass the JSON files of a compile's kernel_meta directory (written \
                            with the sub-kernel objects), or leave this one out";
/// What to do about an entry source that cannot be used.
const SOURCE_HINT: &str = "pass a te_superkernel_*_kernel.cpp the SuperKernel compiler wrote \
                           (kept with op_debug_config=dump_cce)";

/// The comment that opens each sub-op's part of an entry source.
pub const CALL_MARK: &str = "//begin func call of sub operator ";

/// One sub-kernel's op-info JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInfo {
    /// The file.
    pub file: PathBuf,
    /// `kernelName`: the name the compiler's comments use.
    pub kernel_name: String,
    /// `binFileName`: the object's name, which GE's `_kernelname` usually repeats.
    pub bin_file_name: Option<String>,
    /// `sub_operator_kernel_type`.
    pub kernel_type: KernelType,
    /// `blockDim`.
    pub block_dim: u64,
    /// `sub_operator_params`: one argument each.
    pub params: usize,
    /// The symbol called on the cube cores, or on the only core kind it runs on.
    pub symbol: String,
    /// The symbol called on the vector cores of a MIX_AIC_1_1/1_2 kernel.
    pub vector_symbol: Option<String>,
    /// `sub_operator_early_start_set_flag`: its complement "set" runs only on idle cores.
    pub early_start_set: bool,
    /// `sub_operator_early_start_wait_flag`: its complement "wait" runs only on idle cores.
    pub early_start_wait: bool,
    /// `split_mode`, when given; the compiler stops when it differs from the SuperKernel's.
    pub split_mode: Option<u64>,
    /// `sub_op_with_sync_all`: the kernel calls SyncAll (feed-sync-all then feeds it).
    pub with_sync_all: bool,
    /// `sub_operator_call_dcci_before_kernel_start`, unless `…_disable_on_kernel`.
    pub dcci_before: bool,
    /// `sub_operator_call_dcci_after_kernel_end`, unless `…_disable_on_kernel`.
    pub dcci_after: bool,
    /// True when `sub_operator_kernel_name` has `dynamic_func_names` (a dynamic-shape kernel
    /// chosen by tiling key at run time).
    pub dynamic: bool,
    /// `debugOptions` naming printf, assert or timestamp: the SuperKernel gets a dump area.
    pub debug_dump: bool,
}

/// An entry source the compiler wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySource {
    /// The file.
    pub file: PathBuf,
    /// Its text.
    pub text: String,
    /// The SuperKernel's kernel name, from `auto_gen_<name>_kernel(`.
    pub kernel_name: String,
    /// The sub-ops it calls, as [`sub_op_calls`] lists them.
    pub calls: Vec<String>,
    /// When it was last written, to prefer the newest of several for one segment.
    pub modified: Option<std::time::SystemTime>,
}

/// Everything read from the paths given with `--kernel-meta`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelMeta {
    /// The paths as given.
    pub paths: Vec<PathBuf>,
    /// Op-info files, in the order read.
    pub op_infos: Vec<OpInfo>,
    /// Entry sources, in the order read.
    pub sources: Vec<EntrySource>,
    /// Compiled SuperKernels' JSONs, in the order read.
    pub compiled: Vec<CompiledSk>,
    /// Files of a directory that could not be used, each with why.
    pub problems: Vec<FileError>,
}

impl KernelMeta {
    /// Reads `paths`: each a directory (its `*.json` op-info files and `*_kernel.cpp` entry
    /// sources; other files and JSON that is not op-info are passed over, and a broken file
    /// becomes a problem), an op-info `.json` or an entry source `.cpp` (a file named
    /// explicitly that cannot be used is an error).
    pub fn read(paths: &[PathBuf]) -> Result<KernelMeta, FileError> {
        let mut meta = KernelMeta {
            paths: paths.to_vec(),
            ..KernelMeta::default()
        };
        for path in paths {
            if path.is_dir() {
                meta.read_dir(path)?;
            } else if has_extension(path, "json") {
                match read_json(path)? {
                    Some(file) => meta.add(file),
                    None => {
                        return Err(FileError::at(
                            path,
                            "",
                            None,
                            "neither an op-info file (no sub_operator_kernel_type) nor a \
                             compiled SuperKernel (no kernelList)"
                                .into(),
                            OP_INFO_HINT,
                        ));
                    }
                }
            } else {
                meta.sources.push(read_source(path)?);
            }
        }
        Ok(meta)
    }

    fn read_dir(&mut self, dir: &Path) -> Result<(), FileError> {
        let entries = std::fs::read_dir(dir).map_err(|e| {
            FileError::at(dir, "", None, format!("cannot list it: {e}"), OP_INFO_HINT)
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for file in files {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_default();
            if has_extension(&file, "json") {
                match read_json(&file) {
                    Ok(Some(file)) => self.add(file),
                    Ok(None) => {}
                    Err(e) => self.problems.push(e),
                }
            } else if name.starts_with("te_superkernel") && name.ends_with("_kernel.cpp") {
                match read_source(&file) {
                    Ok(source) => self.sources.push(source),
                    Err(e) => self.problems.push(e),
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, file: MetaJson) {
        match file {
            MetaJson::OpInfo(info) => self.op_infos.push(info),
            MetaJson::Compiled(sk) => self.compiled.push(sk),
        }
    }

    /// True when nothing was read.
    pub fn is_empty(&self) -> bool {
        self.op_infos.is_empty() && self.sources.is_empty() && self.compiled.is_empty()
    }

    /// The op-info of the kernel GE names `kernel` (an op's `_kernelname`): the one whose
    /// `kernelName` is `kernel` or `<kernel>__kernel0`, or whose `binFileName` is `kernel`.
    pub fn op_info(&self, kernel: &str) -> Option<&OpInfo> {
        self.op_infos.iter().find(|info| {
            info.kernel_name == kernel
                || info
                    .kernel_name
                    .strip_prefix(kernel)
                    .is_some_and(|rest| rest == "__kernel0")
                || info.bin_file_name.as_deref() == Some(kernel)
        })
    }

    /// The entry sources whose sub-op calls are `calls` (as [`sub_op_calls`] lists them, in
    /// any order), newest first.
    pub fn sources_for(&self, calls: &[String]) -> Vec<&EntrySource> {
        fn sorted(calls: &[String]) -> Vec<&str> {
            let mut calls: Vec<&str> = calls.iter().map(String::as_str).collect();
            calls.sort_unstable();
            calls
        }
        let wanted = sorted(calls);
        let mut found: Vec<&EntrySource> = self
            .sources
            .iter()
            .filter(|source| sorted(&source.calls) == wanted)
            .collect();
        found.sort_by_key(|source| std::cmp::Reverse(source.modified));
        found
    }
}

/// The kernel names after each [`CALL_MARK`] of an entry source, each sub-op once: in the
/// two-stream form a mixed sub-op's call appears in both core functions, so each kernel counts
/// as often as in the function that calls it most.
pub fn sub_op_calls(text: &str) -> Vec<String> {
    let (Some(aic), Some(aiv)) = split_functions(text) else {
        return marks(text).into_iter().map(str::to_string).collect();
    };
    let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for call in marks(aic) {
        counts.entry(call).or_default().0 += 1;
    }
    for call in marks(aiv) {
        counts.entry(call).or_default().1 += 1;
    }
    counts
        .into_iter()
        .flat_map(|(call, (a, v))| std::iter::repeat_n(call.to_string(), a.max(v)))
        .collect()
}

/// The `_aic` and `_aiv` functions of a two-stream source, when it has both.
fn split_functions(text: &str) -> (Option<&str>, Option<&str>) {
    let start = |suffix: &str| {
        text.match_indices("__aicore__ inline void auto_gen_")
            .map(|(at, _)| at)
            .find(|&at| {
                text[at..]
                    .lines()
                    .next()
                    .is_some_and(|l| l.contains(&format!("_kernel_{suffix}(void)")))
            })
    };
    let body = |from: Option<usize>| {
        from.map(|at| {
            let end = text[at..].find("\n}\n").map_or(text.len(), |e| at + e);
            &text[at..end]
        })
    };
    (body(start("aic")), body(start("aiv")))
}

/// The kernel names after each [`CALL_MARK`] of `text`.
fn marks(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix(CALL_MARK))
        .map(str::trim)
        .collect()
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Reads `path` as text of at most `max` bytes.
fn read_text(path: &Path, max: u64, hint: &'static str) -> Result<String, FileError> {
    let size = std::fs::metadata(path)
        .map_err(|e| FileError::at(path, "", None, format!("cannot read it: {e}"), hint))?
        .len();
    if size > max {
        return Err(FileError::at(
            path,
            "",
            None,
            format!("{size} bytes is more than the {max} such a file can be"),
            hint,
        ));
    }
    crate::text::read_utf8(path).map_err(|e| FileError::unreadable(path, &e, hint))
}

/// A JSON file of kernel_meta skope reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaJson {
    /// A sub-kernel's op-info.
    OpInfo(OpInfo),
    /// A compiled SuperKernel.
    Compiled(CompiledSk),
}

/// Reads an op-info JSON; `None` when it is JSON of another kind (no
/// `sub_operator_kernel_type`).
pub fn read_op_info(path: &Path) -> Result<Option<OpInfo>, FileError> {
    Ok(match read_json(path)? {
        Some(MetaJson::OpInfo(info)) => Some(info),
        _ => None,
    })
}

/// Reads a JSON of kernel_meta: an op-info, a compiled SuperKernel, or (`None`) JSON of
/// another kind.
pub fn read_json(path: &Path) -> Result<Option<MetaJson>, FileError> {
    let text = read_text(path, MAX_OP_INFO_BYTES, OP_INFO_HINT)?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let value: Value = serde_json::from_str(body).map_err(|e| FileError {
        path: path.to_path_buf(),
        at: Some((e.line(), e.column())),
        message: format!("not valid JSON: {e}"),
        hint: OP_INFO_HINT,
    })?;
    // Every message starts with the key it is about: point at that key's first mention.
    let located = |message: String| {
        let key = message.split([' ', '.', '[']).next().unwrap_or_default();
        let offset = text.find(&format!("\"{key}\""));
        FileError::at(path, &text, offset, message, OP_INFO_HINT)
    };
    if value.get("sub_operator_kernel_type").is_some() {
        return op_info(path, &value)
            .map(|info| Some(MetaJson::OpInfo(info)))
            .map_err(located);
    }
    match compiled::parse(path.to_path_buf(), &value) {
        Some(sk) => sk.map(|sk| Some(MetaJson::Compiled(sk))).map_err(located),
        None => Ok(None),
    }
}

/// The op-info in `value`, or what is wrong with it.
fn op_info(path: &Path, value: &Value) -> Result<OpInfo, String> {
    let text = |key: &str| -> Result<String, String> {
        match value.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => Err(format!("{key} is {other}, not a string")),
            None => Err(format!("{key} is missing")),
        }
    };
    let flag = |key: &str| -> Result<bool, String> {
        match value.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::Number(n)) => Ok(n.as_i64().is_some_and(|n| n != 0)),
            Some(other) => Err(format!("{key} is {other}, not true or false")),
        }
    };
    let count = |key: &str| -> Result<Option<u64>, String> {
        match value.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| format!("{key} is {v}, not a whole number")),
        }
    };
    let type_name = text("sub_operator_kernel_type")?;
    let kernel_type = KernelType::from_compiler_name(&type_name).ok_or_else(|| {
        format!(
            "sub_operator_kernel_type {type_name:?} is none of KERNEL_TYPE_AIV_ONLY, \
             _AIC_ONLY, _MIX_AIV_1_0, _MIX_AIC_1_0, _MIX_AIC_1_1, _MIX_AIC_1_2"
        )
    })?;
    let block_dim = count("blockDim")?.ok_or("blockDim is missing")?;
    let params = match value.get("sub_operator_params") {
        Some(Value::Array(items)) => items.len(),
        Some(other) => return Err(format!("sub_operator_params is {other}, not a list")),
        None => return Err("sub_operator_params is missing".into()),
    };
    let names = value
        .get("sub_operator_kernel_name")
        .and_then(Value::as_object)
        .ok_or("sub_operator_kernel_name is missing or not an object")?;
    let dynamic = names.contains_key("dynamic_func_names");
    let symbol_of = |key_end: &str| -> Result<String, String> {
        let (key, entry) = names
            .iter()
            .find(|(k, _)| k.as_str() == key_end || (k.starts_with("dav-") && k.ends_with(key_end)))
            .ok_or_else(|| {
                format!(
                    "sub_operator_kernel_name has no {} entry for a {} kernel",
                    if key_end == "AiCore" {
                        "AiCore"
                    } else {
                        "dav-<chip>"
                    },
                    kernel_type.name()
                )
            })?;
        entry
            .get("func_name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("sub_operator_kernel_name.{key} has no func_name"))
    };
    let (symbol, vector_symbol) = match kernel_type {
        KernelType::AivOnly | KernelType::AicOnly => (symbol_of("AiCore")?, None),
        KernelType::MixAiv1_0 => (symbol_of("-vec")?, None),
        KernelType::MixAic1_0 => (symbol_of("-cube")?, None),
        KernelType::MixAic1_1 | KernelType::MixAic1_2 => {
            (symbol_of("-cube")?, Some(symbol_of("-vec")?))
        }
    };
    let disabled = flag("sub_operator_call_dcci_disable_on_kernel")?;
    let debug = value
        .get("debugOptions")
        .and_then(Value::as_str)
        .unwrap_or_default();
    Ok(OpInfo {
        file: path.to_path_buf(),
        kernel_name: text("kernelName")?,
        bin_file_name: text("binFileName").ok(),
        kernel_type,
        block_dim,
        params,
        symbol,
        vector_symbol,
        early_start_set: flag("sub_operator_early_start_set_flag")?,
        early_start_wait: flag("sub_operator_early_start_wait_flag")?,
        split_mode: count("split_mode")?,
        with_sync_all: flag("sub_op_with_sync_all")?,
        dcci_before: !disabled && flag("sub_operator_call_dcci_before_kernel_start")?,
        dcci_after: !disabled && flag("sub_operator_call_dcci_after_kernel_end")?,
        dynamic,
        debug_dump: ["printf", "assert", "timestamp"]
            .iter()
            .any(|d| debug.contains(d)),
    })
}

/// Reads an entry source the compiler wrote.
pub fn read_source(path: &Path) -> Result<EntrySource, FileError> {
    let text = read_text(path, MAX_SOURCE_BYTES, SOURCE_HINT)?;
    let entry = text
        .find("__aicore__ void auto_gen_")
        .and_then(|at| {
            let rest = &text[at + "__aicore__ void auto_gen_".len()..];
            rest.find("_kernel(").map(|end| rest[..end].to_string())
        })
        .ok_or_else(|| {
            FileError::at(
                path,
                &text,
                None,
                "not a SuperKernel entry source: it has no auto_gen_<name>_kernel entry".into(),
                SOURCE_HINT,
            )
        })?;
    let calls = sub_op_calls(&text);
    Ok(EntrySource {
        file: path.to_path_buf(),
        modified: std::fs::metadata(path).and_then(|m| m.modified()).ok(),
        kernel_name: entry,
        calls,
        text,
    })
}
