//! Static kernel compilation (TorchAir npugraph_ex `static_kernel_compile`, the older
//! `_aclnn_static_shape_kernel`): which ops got a static kernel, for which input shapes, and
//! which were filtered out and why — read from the outputs directory
//! (reference/profiling_and_dumps.md §3): `static_kernel_compile_outputs/` (formerly
//! `aclnn_static_shape_kernel_outputs/`), one `ts{timestamp}_pid{pid}_outputs/` per run, and in
//! it per process `{pid}/` (whitelisted target ops), `{pid}_debug/` (every op),
//! `{pid}_opcompile/` (all but the blacklist), `{pid}_opcompile_selected/` (compiled),
//! `{pid}_opcompile_gathered/`, `{pid}_opcompile_blacklist/`, and `static_kernel_*.run`.

pub mod op_info;

use crate::file_error::FileError;
use op_info::OpInfo;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Op types the static compile leaves out (opbase's list for `{pid}_opcompile/`).
pub const BLACKLIST: &[&str] = &[
    "ReduceSum",
    "ReduceMin",
    "ReduceMax",
    "ArgMinWithValue",
    "FusedInferAttentionScore",
    "GatherV2",
    "ArgMaxWithValue",
    "Range",
];

/// The outputs root's names, newest first.
pub const ROOT_NAMES: &[&str] = &[
    "static_kernel_compile_outputs",
    "aclnn_static_shape_kernel_outputs",
];

/// What to do when nothing is found.
const HINT: &str = "pass static_kernel_compile_outputs/ (or aclnn_static_shape_kernel_outputs/), \
                    one run's ts*_pid*_outputs/ in it, or the directory holding them";

/// The sets one process of one run wrote.
#[derive(Debug, Clone, Default)]
pub struct Process {
    /// The pid.
    pub pid: String,
    /// Files per set (`target`, `debug`, `opcompile`, `selected`, `gathered`, `blacklist`).
    pub sets: BTreeMap<&'static str, Vec<(PathBuf, OpInfo)>>,
}

/// One run's outputs.
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Its directory.
    pub dir: PathBuf,
    /// Its processes.
    pub processes: Vec<Process>,
    /// The compiled `.run` packages.
    pub packages: Vec<PathBuf>,
}

/// An op type with a static kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Compiled {
    /// The op type.
    pub op_type: String,
    /// Each input signature compiled (`float16[8,7168] ND, …`): one binary each.
    pub signatures: Vec<String>,
    /// Each signature's input shapes, to join graph ops by.
    #[serde(skip)]
    pub shapes: Vec<Vec<Vec<i64>>>,
}

/// An op the debug set saw that was not compiled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Filtered {
    /// The op type.
    pub op_type: String,
    /// Its input signature.
    pub signature: String,
    /// Why, as far as the layout tells.
    pub reason: &'static str,
}

/// What the outputs say.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Runs read.
    pub runs: Vec<String>,
    /// Op types compiled, by type.
    pub compiled: Vec<Compiled>,
    /// Ops left out, by type and signature.
    pub filtered: Vec<Filtered>,
    /// What the layout shows that the docs say breaks static kernels (several processes
    /// writing into one run directory).
    pub notes: Vec<String>,
    /// Files that could not be read, with their place.
    pub problems: Vec<String>,
    /// The graph's ops against the compiled kernels, when a graph was given.
    pub graph: Option<GraphJoin>,
}

/// A graph's ops of the compiled types, joined by op type and input shapes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphJoin {
    /// Ops whose input shapes match a compiled signature.
    pub with_kernel: Vec<String>,
    /// Ops of a compiled type with other input shapes: no static kernel for them.
    pub other_shapes: Vec<String>,
    /// How the join was made, in words.
    pub basis: &'static str,
}

impl Summary {
    /// Joins `graph`'s ops to the compiled kernels by op type and input shapes.
    pub fn join(&mut self, graph: &crate::graph::Graph) {
        let mut join = GraphJoin {
            basis: "by op type and input shapes: a guess, the dump does not name the ops the \
                    compile ran",
            ..GraphJoin::default()
        };
        for &id in graph.exec_order() {
            let op = graph.op(id);
            let Some(c) = self.compiled.iter().find(|c| c.op_type == op.op_type) else {
                continue;
            };
            let shapes: Vec<Vec<i64>> = op.input_descs.iter().map(|d| d.shape.to_vec()).collect();
            if c.shapes.contains(&shapes) {
                join.with_kernel.push(op.name.clone());
            } else {
                join.other_shapes.push(op.name.clone());
            }
        }
        self.graph = Some(join);
    }
}

/// The set a process directory's name says, with the pid (`1234_opcompile` → opcompile).
fn set_of(name: &str) -> Option<(&str, &'static str)> {
    let (pid, set) = match name.split_once('_') {
        None => (name, "target"),
        Some((pid, rest)) => (
            pid,
            match rest {
                "debug" => "debug",
                "opcompile" => "opcompile",
                "opcompile_selected" => "selected",
                "opcompile_gathered" => "gathered",
                "opcompile_blacklist" => "blacklist",
                _ => return None,
            },
        ),
    };
    pid.bytes()
        .all(|b| b.is_ascii_digit())
        .then_some((pid, set))
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.sort();
    out
}

/// True for a run directory (`ts…_pid…_outputs`, or `<ts>_<pid>_outputs` in older docs).
fn is_run(dir: &Path) -> bool {
    dir.is_dir()
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with("_outputs") && !ROOT_NAMES.contains(&n))
        && sorted_entries(dir).iter().any(|p| {
            p.is_dir()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| set_of(n).is_some())
        })
}

/// The run directories `path` stands for: itself, the runs in an outputs root, or the runs of
/// an outputs root inside it.
pub fn runs_at(path: &Path) -> Vec<PathBuf> {
    if is_run(path) {
        return vec![path.to_path_buf()];
    }
    let mut roots = vec![path.to_path_buf()];
    roots.extend(ROOT_NAMES.iter().map(|n| path.join(n)));
    let mut out: Vec<PathBuf> = roots
        .iter()
        .flat_map(|root| sorted_entries(root))
        .filter(|p| is_run(p))
        .collect();
    out.dedup();
    out
}

/// Reads the runs at `path`; files that cannot be read are problems, the rest still count.
pub fn read(path: &Path) -> Result<(Vec<Run>, Vec<String>), FileError> {
    let dirs = runs_at(path);
    if dirs.is_empty() {
        return Err(FileError::at(
            path,
            "",
            None,
            "no static kernel compile outputs here (no ts*_pid*_outputs with {pid}/ directories)"
                .into(),
            HINT,
        ));
    }
    let mut problems = Vec::new();
    let mut runs = Vec::new();
    for dir in dirs {
        let mut run = Run {
            dir: dir.clone(),
            ..Run::default()
        };
        for entry in sorted_entries(&dir) {
            let name = entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if entry.is_file() && name.starts_with("static_kernel_") && name.ends_with(".run") {
                run.packages.push(entry);
                continue;
            }
            let Some((pid, set)) = set_of(&name).filter(|_| entry.is_dir()) else {
                continue;
            };
            let index = match run.processes.iter().position(|p| p.pid == pid) {
                Some(i) => i,
                None => {
                    run.processes.push(Process {
                        pid: pid.to_string(),
                        ..Process::default()
                    });
                    run.processes.len() - 1
                }
            };
            let files = run.processes[index].sets.entry(set).or_default();
            for file in sorted_entries(&entry) {
                if file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                match std::fs::read(&file)
                    .map_err(|e| e.to_string())
                    .and_then(|b| {
                        op_info::parse(&b).map_err(|e| match e.at {
                            Some((l, c)) => format!("line {l}, column {c}: {}", e.message),
                            None => e.message,
                        })
                    }) {
                    Ok(info) => files.push((file, info)),
                    Err(e) => problems.push(format!("{}: {e}", file.display())),
                }
            }
        }
        runs.push(run);
    }
    Ok((runs, problems))
}

/// What `runs` say: the compiled op types with their signatures, the ops filtered out with
/// why, and the notes the layout calls for.
pub fn summarise(runs: &[Run], problems: Vec<String>) -> Summary {
    let mut compiled: BTreeMap<String, BTreeMap<String, Vec<Vec<i64>>>> = BTreeMap::new();
    let mut filtered: BTreeSet<(String, String, &'static str)> = BTreeSet::new();
    let mut notes = Vec::new();
    for run in runs {
        if run.processes.len() > 1 {
            notes.push(format!(
                "{}: {} processes wrote into one run directory: on several cards each rank \
                 needs its own (set LOCAL_WORLD_SIZE), or their ops mix",
                run.dir.display(),
                run.processes.len()
            ));
        }
        for p in &run.processes {
            let set = |name: &str| p.sets.get(name).map(Vec::as_slice).unwrap_or_default();
            // What was compiled: the selected set, else the compile set, else the targets.
            let built = ["selected", "opcompile", "target"]
                .into_iter()
                .map(set)
                .find(|s| !s.is_empty())
                .unwrap_or_default();
            let key = |i: &OpInfo| (i.op_type.clone(), i.signature());
            let built_keys: BTreeSet<(String, String)> =
                built.iter().map(|(_, i)| key(i)).collect();
            let eligible: BTreeSet<(String, String)> =
                set("opcompile").iter().map(|(_, i)| key(i)).collect();
            for (_, info) in built {
                compiled.entry(info.op_type.clone()).or_default().insert(
                    info.signature(),
                    info.input_tensors().map(|t| t.shape.clone()).collect(),
                );
            }
            for (_, info) in set("debug") {
                let k = key(info);
                if built_keys.contains(&k) {
                    continue;
                }
                let reason = if BLACKLIST.contains(&info.op_type.as_str()) {
                    "on the static compile's blacklist (ReduceSum, GatherV2, FusedInferAttentionScore…)"
                } else if info.dynamic() {
                    "a dynamic shape: no static kernel for it"
                } else if eligible.contains(&k) {
                    "eligible but not selected (op_compiler skipped it, or the compile cache had it)"
                } else {
                    "not in the compile set (the outputs do not say why)"
                };
                filtered.insert((k.0, k.1, reason));
            }
        }
    }
    Summary {
        runs: runs.iter().map(|r| r.dir.display().to_string()).collect(),
        compiled: compiled
            .into_iter()
            .map(|(op_type, s)| Compiled {
                op_type,
                signatures: s.keys().cloned().collect(),
                shapes: s.into_values().collect(),
            })
            .collect(),
        filtered: filtered
            .into_iter()
            .map(|(op_type, signature, reason)| Filtered {
                op_type,
                signature,
                reason,
            })
            .collect(),
        notes,
        problems,
        graph: None,
    }
}

impl Summary {
    /// The summary as text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let binaries: usize = self.compiled.iter().map(|c| c.signatures.len()).sum();
        out.push_str(&format!(
            "static kernels: {} op type(s), {binaries} binary(ies) from {} run(s)\n",
            self.compiled.len(),
            self.runs.len()
        ));
        for c in &self.compiled {
            out.push_str(&format!(
                "  {}  {} shape(s)\n",
                c.op_type,
                c.signatures.len()
            ));
            for s in &c.signatures {
                out.push_str(&format!("    {s}\n"));
            }
        }
        if !self.filtered.is_empty() {
            out.push_str(&format!("\nfiltered out: {}\n", self.filtered.len()));
            for f in &self.filtered {
                out.push_str(&format!("  {}  {}: {}\n", f.op_type, f.signature, f.reason));
            }
        }
        for note in &self.notes {
            out.push_str(&format!("\nnote: {note}\n"));
        }
        for p in &self.problems {
            out.push_str(&format!("\nproblem: {p}\n"));
        }
        if let Some(g) = &self.graph {
            out.push_str(&format!(
                "\ngraph: {} op(s) with a static kernel, {} of a compiled type with other input \
                 shapes (joined {})\n",
                g.with_kernel.len(),
                g.other_shapes.len(),
                g.basis
            ));
            for name in &g.other_shapes {
                out.push_str(&format!("  no static kernel for this shape: {name}\n"));
            }
        }
        crate::text::sanitize_lines(&out)
    }
}
