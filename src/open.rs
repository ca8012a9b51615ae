//! Opening a dump — the one way in for every front end: read it (reporting progress), judge
//! its ops with the rules (and what the CANN install says), plan it, and apply a plan file by
//! op name, refusing one made for another graph.

use crate::file_error::FileError;
use crate::fusion::rules::RuleConfig;
use crate::kernel_meta::KernelMeta;
use crate::load::{self, LoadError, LoadOptions};
use crate::planfile::{PlanFile, PlanFileError};
use crate::target::TargetChoice;
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};

/// A dump to open.
#[derive(Debug, Clone)]
pub enum Input {
    /// A dump file.
    File(PathBuf),
    /// A dump held in the binary (the bundled example), with the name to show for it.
    Bundled {
        /// The name shown and used in messages.
        name: &'static str,
        /// The dump's bytes.
        bytes: &'static [u8],
    },
}

impl Input {
    /// The name shown for the input.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.to_string_lossy().into_owned(),
            Input::Bundled { name, .. } => (*name).to_string(),
        }
    }
}

/// How far opening a dump has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the file: bytes read so far, of `total`.
    Reading {
        /// Bytes read.
        done: u64,
        /// File size.
        total: u64,
    },
    /// Parsing `bytes` bytes.
    Parsing {
        /// File size.
        bytes: u64,
    },
    /// Planning a graph of `ops` ops.
    Planning {
        /// Ops in the graph.
        ops: usize,
    },
}

/// Opens `input`: loads it with `options`, judges its ops with `rules`, plans it; `progress`
/// hears each stage. Returns the workspace and what of the CANN install could not be read.
pub fn open(
    input: &Input,
    options: LoadOptions,
    rules: &RuleConfig,
    progress: &mut dyn FnMut(Stage),
) -> Result<(Workspace, Vec<String>), LoadError> {
    if let Input::File(path) = input
        && is_pass_output(path)
    {
        return open_pass_output(path, rules.target(), progress);
    }
    let dump = match input {
        Input::File(path) => load::load_file_reporting(path, options, &mut |done, total| {
            progress(if done == total {
                Stage::Parsing { bytes: total }
            } else {
                Stage::Reading { done, total }
            })
        })?,
        Input::Bundled { name, bytes } => {
            progress(Stage::Parsing {
                bytes: bytes.len() as u64,
            });
            load::load_bytes(Path::new(name), bytes)?
        }
    };
    let (format, stamp) = (dump.format, dump.stamp.clone());
    let graph = dump.into_main();
    progress(Stage::Planning { ops: graph.len() });
    if crate::mindspore::is_mindspore(format) {
        // MindSpore chose its composites: the plan is what the dump shows, not GE's rules.
        let mut ws = crate::mindspore::workspace(graph, format, &input.name());
        ws.set_stamp(stamp);
        return Ok((ws, Vec::new()));
    }
    let (rules, problems) = rules.for_graph(&graph);
    let mut ws = Workspace::new(graph, format, &input.name(), &rules);
    ws.set_stamp(stamp);
    Ok((ws, problems))
}

/// True when `path` is what a fusion pass wrote (an aclgraph model directory, or one holding
/// them) rather than a graph dump: [`open`] reads it as the pass's plan, and its own account
/// is its report.
pub fn is_pass_output(path: &Path) -> bool {
    crate::aclgraph::layout::looks_like_output(path)
}

/// Opens what the aclgraph SuperKernel pass wrote at `path`: the plan it made, read from its
/// files; the notes say which files are missing and which other models are beside it.
fn open_pass_output(
    path: &Path,
    target: &TargetChoice,
    progress: &mut dyn FnMut(Stage),
) -> Result<(Workspace, Vec<String>), LoadError> {
    let (mut model, others) = crate::aclgraph::open(path)?;
    // What the model records wins over a choice; a choice that differs is said with the
    // model's other disagreements.
    if model.target.is_default() {
        model.target = target.clone();
    } else if !target.is_default() && model.target.target != target.target {
        let message = format!(
            "the target is {}; {} is not used: what the model records wins",
            model.target.words(),
            target.words()
        );
        let file = model.dir.join(model.graph_file);
        model
            .problems
            .push(crate::aclgraph::model::Problem { file, message });
    }
    progress(Stage::Planning {
        ops: model.tasks.len(),
    });
    let ws = crate::aclgraph::observed::workspace(&model, &others, &path.to_string_lossy());
    let mut notes: Vec<String> = model
        .missing
        .iter()
        .map(|f| format!("{} is missing: no {}", f.name, f.shows))
        .collect();
    if !others.is_empty() {
        notes.push(format!(
            "{} more model(s) beside {}: open one by its directory",
            others.len(),
            model.dir.display()
        ));
    }
    Ok((ws, notes))
}

/// Reads the compile's kernel_meta at `paths` (directories, op-info JSONs, entry sources)
/// for `ws`'s generated code; returns, a line each, the files of a directory that could not be
/// used. Nothing happens without paths; a file named explicitly that cannot be used is an
/// error.
pub fn use_kernel_meta(ws: &mut Workspace, paths: &[PathBuf]) -> Result<Vec<String>, FileError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let meta = KernelMeta::read(paths)?;
    let mut problems: Vec<String> = meta
        .problems
        .iter()
        .map(|p| p.to_string().replace('\n', " "))
        .collect();
    if meta.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        problems.push(format!(
            "{}: no op-info JSON or entry source in it: the code stays inferred (a compile \
             writes them to <op_debug_dir>/kernel_meta/; op_debug_config=dump_cce keeps the \
             te_superkernel_*_kernel.cpp)",
            shown.join(", ")
        ));
    }
    // The compiler's guards record the target it built for (`__NPU_ARCH__ == 3510`).
    let planned = ws.target();
    for source in &meta.sources {
        if let Some(built) = crate::target::Target::of_entry_code(&source.text)
            && built != planned.target
        {
            problems.push(format!(
                "{}: the compiler built this entry for {built} ({}), but the plan is for {}: \
                 give --target {built}",
                source.file.display(),
                built.hardware(),
                planned.words()
            ));
        }
    }
    ws.set_kernel_meta(std::sync::Arc::new(meta));
    Ok(problems)
}

/// What opening a dump for a command takes besides the dump: rules files, whether to read the
/// CANN install, the load limit, and a plan file to apply.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Rules files that extend or override the bundled rules (later files win).
    pub rules: Vec<PathBuf>,
    /// Leave the installed CANN's op information out.
    pub no_cann: bool,
    /// How big a dump may be.
    pub load: LoadOptions,
    /// A plan file to apply by op name.
    pub plan: Option<PathBuf>,
    /// Apply the plan even when none of its ops is in the graph.
    pub force: bool,
    /// The target the user chose (`--target`).
    pub target: Option<crate::target::Target>,
}

/// A dump opened for a command.
#[derive(Debug)]
pub struct Opened {
    /// The graph, planned (with the plan file's scopes when one was given).
    pub ws: Workspace,
    /// What of the input, or of the CANN install, could not be used, a line each.
    pub problems: Vec<String>,
    /// What the plan file names that the graph lacks, a line each (with the plan's path).
    pub plan_notes: Vec<String>,
}

impl Request {
    /// The files a command on `file` reads: the dump, the plan file and the rules files (an
    /// output must be none of them).
    pub fn inputs<'a>(&'a self, file: &'a Path) -> Vec<&'a Path> {
        let mut inputs = vec![file];
        inputs.extend(self.plan.as_deref());
        inputs.extend(self.rules.iter().map(PathBuf::as_path));
        inputs
    }

    /// The rules: the user's files (read now, so a bad one stops before any work) and the
    /// CANN install (found through ASCEND_OPP_PATH or ASCEND_HOME_PATH) unless left out.
    pub fn rules(&self) -> Result<RuleConfig, crate::fusion::rules::RulesError> {
        let cann = (!self.no_cann)
            .then(crate::fusion::cann::CannInstall::from_env)
            .flatten();
        Ok(RuleConfig::new(&self.rules, cann)?.with_target(self.chosen_target()))
    }

    /// The target `--target` chose, else the default.
    pub fn chosen_target(&self) -> TargetChoice {
        self.target
            .map(|t| TargetChoice::chosen(t, "--target"))
            .unwrap_or_default()
    }

    /// Opens `file` (see [`open`]) and applies the plan file; a plan none of whose ops is in
    /// the graph is refused unless `force`.
    pub fn open(&self, file: &Path) -> anyhow::Result<Opened> {
        let input = Input::File(file.to_path_buf());
        let (mut ws, problems) = open(&input, self.load, &self.rules()?, &mut |_| {})?;
        let plan_notes = match &self.plan {
            Some(path) => apply_plan(&mut ws, path, self.force, 20)?
                .into_iter()
                .map(|line| format!("{}: {line}", path.display()))
                .collect(),
            None => Vec::new(),
        };
        Ok(Opened {
            ws,
            problems,
            plan_notes,
        })
    }
}

/// Why a plan file could not be applied.
#[derive(Debug)]
pub enum PlanRefused {
    /// It could not be read.
    Unreadable(PlanFileError),
    /// None of its ops is in the graph (made for another model), and `force` was not given.
    OtherGraph(String),
}

impl std::fmt::Display for PlanRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanRefused::Unreadable(e) => write!(f, "{e}"),
            PlanRefused::OtherGraph(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for PlanRefused {}

/// Applies the plan file at `path` to `ws` by op name; returns what it names that the graph
/// lacks, a line each (at most `listed`, then a count). A plan none of whose ops is in the
/// graph is refused unless `force`.
pub fn apply_plan(
    ws: &mut Workspace,
    path: &Path,
    force: bool,
    listed: usize,
) -> Result<Vec<String>, PlanRefused> {
    let plan = PlanFile::read(path).map_err(PlanRefused::Unreadable)?;
    let (marks, mismatch) = plan.marks_for(ws.graph());
    if let Some(refusal) = mismatch.refusal(path, ws.graph(), force) {
        return Err(PlanRefused::OtherGraph(refusal));
    }
    ws.reset_marks(marks);
    Ok(mismatch.lines(listed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_reported_in_order() {
        let mut stages = Vec::new();
        let input = Input::File(PathBuf::from("assets/examples/moe_decode.pbtxt"));
        let opened = open(
            &input,
            LoadOptions::default(),
            &RuleConfig::default(),
            &mut |s| stages.push(s),
        );
        let Ok((ws, _)) = opened else {
            panic!("the bundled example opens");
        };
        assert_eq!(ws.graph().len(), 121);
        // Larger than the 64 KiB head, which is read (and checked for binary content) first.
        assert!(
            matches!(stages[0], Stage::Reading { done, total } if done > 0 && done < total),
            "{stages:?}"
        );
        assert!(
            matches!(stages[stages.len() - 2], Stage::Parsing { .. }),
            "{stages:?}"
        );
        assert_eq!(stages.last(), Some(&Stage::Planning { ops: 121 }));
    }
}
