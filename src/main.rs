//! The `skope` command line.

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use skope::fusion::cann::CannInstall;
use skope::fusion::plan::Gate;
use skope::fusion::rules::RuleConfig;
use skope::fusion::verify::verify;
use skope::graph::Graph;
use skope::info::Info;
use skope::load::{self, Dump, LoadOptions};
use skope::planfile::PlanFile;
use skope::report::{Report, verification_text};
use skope::tui::loader::{Input, PlanPath};
use skope::workspace::Workspace;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "skope",
    version,
    about = "Predict and explain Ascend SuperKernel fusion on graph dumps"
)]
struct Cli {
    /// Graph dump to open in the explorer (GE ge_proto_*.txt / ge_onnx_*.pbtxt, TorchAir .txt /
    /// .pbtxt, atc JSON, MindSpore .ir, a composite .json or an akg_kernel_meta/ directory);
    /// the bundled example when omitted.
    file: Option<PathBuf>,
    #[command(flatten)]
    planning: Planning,
    /// Key bindings and theme for the explorer (default: ~/.config/skope/config.toml; see
    /// `skope config`).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Leave the mouse to the terminal (its own text selection) instead of clicks and wheel.
    #[arg(long)]
    no_mouse: bool,
    #[command(flatten)]
    meta: MetaArgs,
    /// Profiles: a directory holding no_sk_model and sk_model, or BASE (without SuperKernel)
    /// then NEW (with): `--profiles B --profiles N`. The explorer's profile view compares them;
    /// `skope suggest` takes its gaps from the base (and fits its model on a pair).
    #[arg(long, value_name = "PATH", num_args = 1, action = clap::ArgAction::Append, global = true)]
    profiles: Vec<PathBuf>,
    /// A static kernel compile's outputs for the explorer's static kernels view (K):
    /// static_kernel_compile_outputs/, one run's ts*_pid*_outputs/, or a directory holding them.
    #[arg(long = "static", value_name = "DIR")]
    statics: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

/// What a compile left that the generated code can use instead of guessing.
#[derive(clap::Args)]
struct MetaArgs {
    /// A compile's kernel_meta directory, or files from it: the sub-kernels' op-info JSONs
    /// (kernel names, symbols, kernel types, block dims, arguments, flags) and the entry
    /// sources the SuperKernel compiler wrote (te_superkernel_*_kernel.cpp), which the code
    /// is compared with (repeatable).
    #[arg(long = "kernel-meta", value_name = "PATH", global = true)]
    paths: Vec<PathBuf>,
}

impl MetaArgs {
    /// Reads the paths into `ws`; what of a directory could not be used goes to stderr.
    fn apply(&self, ws: &mut Workspace) -> Result<()> {
        for problem in skope::open::use_kernel_meta(ws, &self.paths)? {
            eprintln!("problem: {}", skope::text::sanitize(&problem));
        }
        Ok(())
    }
}

/// How a dump is read, judged and given scopes: the options of every command that plans.
#[derive(clap::Args)]
struct Planning {
    /// A plan file (saved with `w` in the explorer) whose scopes replace the dump's; the
    /// explorer saves there too (default: `<dump file name>.skope.json` in the current
    /// directory, offered when it exists).
    #[arg(long, value_name = "PLAN", global = true)]
    plan: Option<PathBuf>,
    /// Apply --plan even when none of the ops it names is in the graph.
    #[arg(long, requires = "plan", global = true)]
    force: bool,
    /// A rules file that extends or overrides the bundled rules (repeatable; later files win).
    #[arg(long = "rules", value_name = "FILE", global = true)]
    rules: Vec<PathBuf>,
    /// Do not read the installed CANN's op information (found through ASCEND_OPP_PATH or
    /// ASCEND_HOME_PATH) to judge op types; use the bundled rules and --rules only.
    #[arg(long, global = true)]
    no_cann: bool,
    /// Load dumps up to this size (bytes, or with K, M, G: `1500M`). Without it: up to 4G, and
    /// only when about 3× the file (4× for MindSpore IR) is free in memory; with it, memory is
    /// not checked.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, global = true)]
    max_size: Option<u64>,
}

impl Planning {
    fn load_options(&self) -> LoadOptions {
        LoadOptions::with_limit(self.max_size)
    }

    /// The rules: the user's files (read now, so a bad one stops before any work) and the
    /// CANN install unless --no-cann.
    fn rules(&self) -> Result<RuleConfig> {
        let cann = (!self.no_cann).then(CannInstall::from_env).flatten();
        Ok(RuleConfig::new(&self.rules, cann)?)
    }

    /// Loads `file`, judges it with the rules, and applies --plan when given (what it cannot
    /// apply, and what of the CANN install could not be read, is listed on stderr). A plan
    /// none of whose ops is in the graph is refused unless --force.
    fn workspace(&self, file: &Path) -> Result<Workspace> {
        self.workspace_with(file, &self.rules()?)
    }

    fn workspace_with(&self, file: &Path, rules: &RuleConfig) -> Result<Workspace> {
        let input = skope::open::Input::File(file.to_path_buf());
        let (mut ws, problems) =
            skope::open::open(&input, self.load_options(), rules, &mut |_| {})?;
        for problem in problems {
            eprintln!("problem: {}", skope::text::sanitize(&problem));
        }
        if let Some(path) = &self.plan {
            for line in skope::open::apply_plan(&mut ws, path, self.force, 20)? {
                eprintln!("note: {}: {}", path.display(), skope::text::sanitize(&line));
            }
        }
        Ok(ws)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print what a dump holds: format, graphs, ops, op types, streams, scopes, and the notes of
    /// reading it.
    Info {
        /// The dump file.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Predict GE's SuperKernel segments for every scope and explain every break.
    Report {
        /// The dump file.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Exit with status 1 when any scope does not fuse whole (`breaks`) or when the plan
        /// has any finding, an error or a warning (`findings`).
        #[arg(long, value_enum)]
        deny: Option<Deny>,
        /// GE's AfterSkGraph dump (and any super_kernel_sub_graph dumps) of the same model:
        /// compare the SuperKernels GE made with the prediction (printed first); exit with
        /// status 1 on any difference.
        #[arg(long, value_name = "AFTER_SK_DUMP", num_args = 1..)]
        verify: Vec<PathBuf>,
        /// One line per scope (its status and counts) instead of every segment and break.
        #[arg(long)]
        summary: bool,
        /// Only this scope (and --deny looks at it alone; a failed build still fails).
        #[arg(long, value_name = "NAME")]
        scope: Option<String>,
    },
    /// Write the scopes as code for the model: a plan file, TorchAir `super_kernel` blocks, or
    /// the `aclskScopeBegin/End` C form.
    Export {
        /// The dump file.
        file: PathBuf,
        /// What to write.
        #[arg(long, value_enum, default_value_t = ExportFormat::Torchair)]
        format: ExportFormat,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write the entry code the SuperKernel compiler generates for each segment: one `.cpp`
    /// per segment and a `.json` beside it (compile flags, kernel type, block dim, the line ↔
    /// op map).
    Codegen {
        /// The dump file.
        file: PathBuf,
        /// Only this segment (its name as `skope report` prints it).
        #[arg(long, value_name = "NAME", conflicts_with = "all")]
        segment: Option<String>,
        /// Every segment (the default).
        #[arg(long)]
        all: bool,
        /// The directory to write into (default `<dump name>.codegen`); `-` prints the
        /// source to stdout instead.
        #[arg(short, long, value_name = "DIR", conflicts_with = "compare")]
        output: Option<PathBuf>,
        /// Compare each segment's code with the entry source the compiler wrote (found in
        /// --kernel-meta by its sub-op calls) instead of writing it: a line per segment, and
        /// with --segment the differing lines. Exits 1 when a compared segment differs.
        #[arg(long, requires = "paths")]
        compare: bool,
    },
    /// Run a recipe on the graph (a command from skope.toml, or built in: check, cann) and
    /// stream its output; exits with the job's status.
    Compile {
        /// The dump file.
        file: PathBuf,
        /// The recipe to run (`--profile` is its earlier name, still accepted).
        #[arg(long, value_name = "NAME", alias = "profile")]
        recipe: String,
    },
    /// Compare a profile without SuperKernel (BASE) with one with it (NEW): time by op type,
    /// the fused part against the rest, and, with kernel files, per segment and per break.
    Diff {
        /// The base profile: op_statistic.csv, kernel_details.csv, op_summary_*.csv, or an
        /// ASCEND_PROFILER_OUTPUT, PROF_* or *_ascend_pt directory; or a directory holding
        /// no_sk_model and sk_model (then NEW is not needed).
        base: PathBuf,
        /// The new profile (same forms as BASE).
        new: Option<PathBuf>,
        /// The graph dump the profiles were taken from: its plan gives the fused op types and
        /// the segments.
        #[arg(long, value_name = "FILE")]
        graph: Option<PathBuf>,
        /// With several ranks, the one to compare.
        #[arg(long, value_name = "N")]
        rank: Option<u32>,
        /// Print one JSON object instead of text.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print the by-type rows as CSV instead of text.
        #[arg(long)]
        csv: bool,
    },
    /// Suggest scopes for a graph, ranked by the time they would save: every candidate is one
    /// of the planner's segments; with a profile its saving is estimated from the measured
    /// gaps, and with a profile pair the saving model is fitted first.
    Suggest {
        /// The dump file.
        file: PathBuf,
        /// With several ranks, the one to use.
        #[arg(long, value_name = "N")]
        rank: Option<u32>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Which ops got a static kernel (TorchAir static kernel compile), for which input shapes,
    /// and which were filtered out and why.
    Static {
        /// static_kernel_compile_outputs/ (or aclnn_static_shape_kernel_outputs/), one run's
        /// ts*_pid*_outputs/, or a directory holding them.
        dir: PathBuf,
        /// The graph dump the ops ran in: each op of a compiled type is marked with whether its
        /// input shapes got a static kernel.
        #[arg(long, value_name = "DUMP")]
        graph: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print a config file with every key binding and theme style at its default, to copy to
    /// ~/.config/skope/config.toml and edit.
    Config,
    /// List every SuperKernel option, or check an options string (`k1=v1:k2=v2`) the way the
    /// compiler does and print its canonical form; exits with status 1 when it has an error.
    /// With --aclgraph or --graph-kernel, the aclgraph pass's options or MindSpore's graph
    /// kernel flags instead.
    Options {
        /// The options string to check (one starting with `-` is taken as it is; `--` before
        /// it works too).
        #[arg(allow_hyphen_values = true)]
        text: Option<String>,
        /// The aclgraph path's options instead: list them, or check a JSON object of them
        /// (`{"early_start": 1, "debug_sync_all": 1}`, or with `optimize_options` and
        /// `debug_options` inside) and print the `super_kernel_optimize` call.
        #[arg(long, conflicts_with = "graph_kernel")]
        aclgraph: bool,
        /// MindSpore's graph kernel flags instead: list them, or check a flags string
        /// (`--enable_cluster_ops=MatMul --opt_level=2`, after `--`).
        #[arg(long)]
        graph_kernel: bool,
        /// With --graph-kernel: a MindSpore dump (.ir or composite JSON) to say what each flag
        /// would change in.
        #[arg(long, value_name = "DUMP", requires = "graph_kernel")]
        graph: Option<PathBuf>,
    },
}

/// What `skope export` writes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ExportFormat {
    /// The plan file (JSON), as `w` saves it.
    Plan,
    /// Python: `with torchair.scope.super_kernel(...)` blocks.
    Torchair,
    /// C: `aclskScopeBegin/End` around each scope.
    Acl,
}

/// What `--deny` turns into a failing exit status.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Deny {
    /// Any scope that is split, dropped, aborted, skipped or left unfused (and a failed build).
    Breaks,
    /// Any finding in the plan, an error or a warning (and a failed build).
    Findings,
    /// The old word for `breaks`.
    #[value(hide = true)]
    Splits,
    /// The old word for `findings`.
    #[value(hide = true)]
    Warnings,
}

impl Deny {
    /// The gate, saying on stderr when an old word named it.
    fn gate(self) -> Gate {
        let (gate, old) = match self {
            Deny::Breaks => (Gate::Breaks, None),
            Deny::Findings => (Gate::Findings, None),
            Deny::Splits => (Gate::Breaks, Some(("splits", "breaks"))),
            Deny::Warnings => (Gate::Findings, Some(("warnings", "findings"))),
        };
        if let Some((old, new)) = old {
            eprintln!("note: `--deny {old}` is the old word for `--deny {new}`: write `{new}`");
        }
        gate
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, None | Some(Command::Compile { .. })) {
        die_on_closed_pipe();
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", skope::text::sanitize_lines(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

/// Lets a command that only prints end quietly when its reader goes away (`skope report |
/// head`), as other command-line tools do, instead of panicking on the failed write. Not for
/// the explorer and `compile`, which write to their jobs' pipes and must outlive a job.
fn die_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

impl Cli {
    /// The shared options given, and the explorer's own ones (which only the explorer takes).
    fn given(&self) -> Vec<&'static str> {
        let p = &self.planning;
        [
            ("--plan", p.plan.is_some()),
            ("--force", p.force),
            ("--rules", !p.rules.is_empty()),
            ("--no-cann", p.no_cann),
            ("--max-size", p.max_size.is_some()),
            ("--kernel-meta", !self.meta.paths.is_empty()),
            ("--profiles", !self.profiles.is_empty()),
            ("--static", self.statics.is_some()),
            ("--config", self.config.is_some()),
            ("--no-mouse", self.no_mouse),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| name)
        .collect()
    }

    /// Refuses an option given to a command that would not use it: options may come before
    /// or after the command's name, and none is ever ignored.
    fn refuse_unused(&self) -> Result<()> {
        const PLANNING: [&str; 5] = ["--plan", "--force", "--rules", "--no-cann", "--max-size"];
        let (command, takes): (&str, Vec<&str>) = match &self.command {
            None => return Ok(()),
            Some(Command::Info { file, .. } | Command::Report { file, .. })
                if skope::aclgraph::layout::looks_like_output(file) =>
            {
                ("info/report on an aclgraph model directory", Vec::new())
            }
            Some(Command::Info { .. }) => ("info", vec!["--max-size"]),
            Some(Command::Report { .. } | Command::Export { .. }) => {
                ("report/export", PLANNING.to_vec())
            }
            Some(Command::Codegen { .. } | Command::Compile { .. }) => (
                "codegen/compile",
                [PLANNING.as_slice(), &["--kernel-meta"]].concat(),
            ),
            Some(Command::Diff { .. }) => ("diff", PLANNING.to_vec()),
            Some(Command::Suggest { .. }) => {
                ("suggest", [PLANNING.as_slice(), &["--profiles"]].concat())
            }
            Some(Command::Static { .. }) => ("static", vec!["--max-size"]),
            Some(Command::Options { graph, .. }) => (
                "options",
                if graph.is_some() {
                    vec!["--max-size"]
                } else {
                    Vec::new()
                },
            ),
            Some(Command::Config) => ("config", Vec::new()),
        };
        let unused: Vec<&str> = self
            .given()
            .into_iter()
            .filter(|name| !takes.contains(name))
            .collect();
        if unused.is_empty() {
            return Ok(());
        }
        let explorer_only = unused
            .iter()
            .all(|n| ["--config", "--no-mouse", "--static"].contains(n));
        anyhow::bail!(
            "{} {} nothing to `skope {command}`, which does not use {}\n  hint: {}",
            unused.join(", "),
            if unused.len() == 1 { "means" } else { "mean" },
            if unused.len() == 1 { "it" } else { "them" },
            if explorer_only {
                "they are the explorer's: give them without a command (`skope FILE …`)".to_string()
            } else {
                format!(
                    "leave {} out; `skope {} --help` lists what it takes",
                    if unused.len() == 1 { "it" } else { "them" },
                    command.split(['/', ' ']).next().unwrap_or(command)
                )
            }
        );
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    cli.refuse_unused()?;
    if cli.command.is_none() {
        explore(cli)?;
        return Ok(ExitCode::SUCCESS);
    }
    let Cli {
        planning,
        meta,
        profiles,
        command,
        ..
    } = cli;
    match command {
        Some(Command::Info { file, json, .. } | Command::Report { file, json, .. })
            if skope::aclgraph::layout::looks_like_output(&file) =>
        {
            let (model, others) = skope::aclgraph::open(&file)?;
            let report = skope::aclgraph::report::AclReport::new(&model, &others);
            if json {
                print_json(&report)?;
            } else {
                print_text(&report.to_text())?;
            }
        }
        Some(Command::Info { file, json }) => {
            let dump = load::load_file(&file, planning.load_options())?;
            let info = Info::of(&dump, &file.to_string_lossy());
            if json {
                print_json(&info)?;
            } else {
                print_text(&info.to_text())?;
            }
            // The process ends here: freeing a graph of a million allocations one by one would
            // only make the user wait (a tenth of the run on a 100 MB dump).
            std::mem::forget(dump);
        }
        Some(Command::Report {
            file,
            json,
            deny,
            verify,
            summary,
            scope,
        }) => {
            let args = ReportArgs {
                planning,
                json,
                deny,
                verify,
                summary,
                scope,
            };
            return report(&file, &args);
        }
        Some(Command::Options {
            text,
            graph_kernel: true,
            graph,
            ..
        }) => {
            let (out, ok) = graph_kernel_flags_text(
                text.as_deref(),
                graph.as_deref(),
                planning.load_options(),
            )?;
            print_text(&out)?;
            if !ok {
                return Ok(ExitCode::from(1));
            }
        }
        Some(Command::Options { text, aclgraph, .. }) => {
            let (out, ok) = match (text, aclgraph) {
                (Some(text), true) => aclgraph_options_text(&text)?,
                (None, true) => (aclgraph_options_list(), true),
                (Some(text), false) => skope::report::options_check_text(&text),
                (None, false) => (skope::report::options_schema_text(), true),
            };
            print_text(&out)?;
            if !ok {
                return Ok(ExitCode::from(1));
            }
        }
        Some(Command::Export {
            file,
            format,
            output,
        }) => {
            let text = if skope::aclgraph::layout::looks_like_output(&file) {
                let (model, _) = skope::aclgraph::open(&file)?;
                if format != ExportFormat::Torchair {
                    anyhow::bail!(
                        "{}: the aclgraph pass's scopes export as Python only (the default \
                         --format torchair writes super_kernel_scope_begin/end and \
                         super_kernel_optimize)",
                        file.display()
                    );
                }
                skope::aclgraph::export::python(&model)
            } else {
                let ws = planning.workspace(&file)?;
                if let Some(why) = skope::export::refusal(&ws) {
                    anyhow::bail!("{why}");
                }
                export_text(&ws, format)
            };
            match output {
                Some(path) => skope::planfile::write_atomically(&path, text.as_bytes())
                    .with_context(|| format!("cannot write {}", path.display()))?,
                None => print_text(&text)?,
            }
        }
        Some(Command::Codegen {
            file,
            segment,
            all: _,
            output,
            compare,
        }) => {
            let mut ws = planning.workspace(&file)?;
            meta.apply(&mut ws)?;
            let codes = codegen_segments(&ws, &file, segment.as_deref())?;
            if compare {
                return compare_codes(&ws, &codes, segment.is_some());
            }
            write_codes(&ws, &file, &codes, output)?;
        }
        Some(Command::Compile { file, recipe }) => {
            let mut ws = planning.workspace(&file)?;
            meta.apply(&mut ws)?;
            return compile(&ws, &file, &recipe);
        }
        Some(Command::Diff {
            base,
            new,
            graph,
            rank,
            json,
            csv,
        }) => {
            let args = DiffArgs {
                graph,
                planning,
                rank,
                json,
                csv,
            };
            diff(&base, new.as_deref(), &args)?;
        }
        Some(Command::Suggest { file, rank, json }) => {
            let ws = planning.workspace(&file)?;
            suggest(&ws, &file, &profiles, rank, json)?;
        }
        Some(Command::Static { dir, graph, json }) => {
            let (runs, problems) = skope::static_kernels::read(&dir)?;
            let mut summary = skope::static_kernels::summarise(&runs, problems);
            if let Some(graph) = graph {
                let dump = load::load_file(&graph, planning.load_options())?;
                summary.join(dump.main());
            }
            if json {
                print_json(&summary)?;
            } else {
                print_text(&summary.to_text())?;
            }
        }
        Some(Command::Config) => print!("{}", skope::tui::config::default_config_text()),
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// `skope codegen`: the entry code of segment `segment`, or of all.
fn codegen_segments(
    ws: &Workspace,
    file: &Path,
    segment: Option<&str>,
) -> Result<Vec<skope::codegen::EntryCode>> {
    let segments: Vec<_> = ws.plan().scopes.iter().flat_map(|s| &s.segments).collect();
    let chosen: Vec<_> = match segment {
        Some(name) => match segments.iter().find(|s| s.name == name) {
            Some(s) => vec![*s],
            None => {
                let known: Vec<String> = segments
                    .iter()
                    .take(10)
                    .map(|s| skope::text::sanitize(&s.name).into_owned())
                    .collect();
                anyhow::bail!(
                    "{}: no segment named {:?}; segments: {}{} (see `skope report`)",
                    file.display(),
                    skope::text::sanitize(name),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    },
                    if segments.len() > known.len() {
                        ", …"
                    } else {
                        ""
                    }
                );
            }
        },
        None => segments,
    };
    Ok(chosen
        .iter()
        .map(|s| skope::codegen::entry(ws.context(), ws.kernel_meta(), s))
        .collect())
}

/// `skope codegen`: writes `codes` into `output` (or beside `file`), or prints them for `-`.
fn write_codes(
    ws: &Workspace,
    file: &Path,
    codes: &[skope::codegen::EntryCode],
    output: Option<PathBuf>,
) -> Result<()> {
    if output.as_deref() == Some(Path::new("-")) {
        for code in codes {
            print!("{}", code.source);
        }
        return Ok(());
    }
    let dir =
        output.unwrap_or_else(|| skope::paths::DumpFiles::of(&file.to_string_lossy()).codegen());
    let written = skope::codegen::files::write_all(&dir, codes, ws.graph())
        .with_context(|| format!("cannot write the generated code into {}", dir.display()))?;
    for path in &written {
        println!("{}", skope::text::sanitize(&path.to_string_lossy()));
    }
    if written.is_empty() {
        eprintln!("{}: no segments: nothing to generate", file.display());
    }
    Ok(())
}

/// `skope suggest`: reads the profiles when given, fits the saving model on a pair, and prints
/// the suggestions.
fn suggest(
    ws: &Workspace,
    file: &Path,
    profiles: &[PathBuf],
    rank: Option<u32>,
    json: bool,
) -> Result<()> {
    use skope::profile::discover::{Found, discover};
    let files = match profiles {
        [] => None,
        [base, new] => {
            let (b, n, _) = skope::profile::locate_pair(base, Some(new), rank)?;
            Some((b, Some(n)))
        }
        [path] => {
            let found = discover(path)
                .with_context(|| format!("cannot read the profiles at {}", path.display()))?;
            Some(match found {
                Found::Pair { .. } => {
                    let (b, n, _) = skope::profile::locate_pair(path, None, rank)?;
                    (b, Some(n))
                }
                other => (other.pick(rank, path)?, None),
            })
        }
        [_, _, _, ..] => anyhow::bail!(
            "--profiles takes one directory (a profile, or no_sk_model and sk_model) or two \
             profiles (without, then with SuperKernel)"
        ),
    };
    let (base, new) = match files {
        None => (None, None),
        Some((base, new)) => {
            if base.kernels.is_empty() {
                anyhow::bail!(
                    "{}: no kernel_details.csv or op_summary_*.csv: the gaps need the kernel \
                     file (profile with the Level1 kernel view)",
                    base.root.display()
                );
            }
            let new = match new.filter(|n| !n.kernels.is_empty()) {
                Some(n) => Some(skope::profile::kernels::KernelTable::read(&n.kernels)?),
                None => None,
            };
            let timing = skope::suggest::timing::read(&base.kernels, Some(ws.context()))?;
            (Some(timing), new)
        }
    };
    let (result, fit) = skope::suggest::rank(ws.context(), ws.plan(), base.as_ref(), new.as_ref());
    if json {
        let mut value = serde_json::to_value(&result)?;
        // Each suggestion's ops by name.
        if let Some(list) = value["list"].as_array_mut() {
            for (item, s) in list.iter_mut().zip(&result.list) {
                let names: Vec<&str> = s
                    .ops
                    .iter()
                    .map(|&id| ws.graph().op(id).name.as_str())
                    .collect();
                item["ops"] = serde_json::to_value(names)?;
            }
        }
        value["fit"] = serde_json::to_value(&fit)?;
        value["file"] = file.to_string_lossy().into();
        print_json(&value)?;
        return Ok(());
    }
    let c = result.coefficients;
    let mut out = format!(
        "{} suggestion(s) for {}\n",
        result.list.len(),
        file.display()
    );
    let coefficients_text = format!(
        "a={:.2} b={:.2} c_same={:.2} µs c_cross={:.2} µs c0={:.2} µs",
        c.a, c.b, c.c_same, c.c_cross, c.c0
    );
    match (result.measured, &fit) {
        (false, _) => out.push_str(
            "no profile: ranked by the kernel boundaries each removes (a count, not a time); \
             --profiles DIR estimates the saving from measured gaps\n",
        ),
        (true, None) => out.push_str(&format!(
            "saving per step: an estimate from the gaps the profile measured, with skope's \
             assumed coefficients ({coefficients_text}); a profile pair (no_sk_model, \
             sk_model) calibrates them\n"
        )),
        (true, Some(f)) => out.push_str(&format!(
            "saving per step: an estimate from the measured gaps, coefficients fitted ({}) on {} \
             segment(s) of the profile pair: {coefficients_text}; leaving one segment out, the \
             error is {:.2} µs on average, {:.2} µs at worst ({})\n",
            f.fitted.join(", "),
            f.segments,
            f.loo_mean_us,
            f.loo_worst_us,
            f.loo_worst_segment
        )),
    }
    if let Some(f) = fit.as_ref().filter(|f| !f.doubtful.is_empty()) {
        out.push_str(&format!(
            "note: {} fitted outside what the model means: the pair cannot tell those terms \
             apart (e.g. every gap the same length); rank by them with care\n",
            f.doubtful.join(", ")
        ));
    }
    for (n, s) in result.list.iter().enumerate() {
        let value = match s.saving_us {
            Some(us) => format!(
                "{us:.1} µs/step ({} of {} boundaries measured)",
                s.measured, s.boundaries
            ),
            None => format!("{} boundaries", s.boundaries),
        };
        let versus = match &s.versus {
            skope::suggest::Versus::New => "new".to_string(),
            skope::suggest::Versus::Same(seg) => format!("already fused as {seg}"),
            skope::suggest::Versus::Overlaps(segs) => format!("takes ops of {}", segs.join(", ")),
        };
        let streams: Vec<String> = s.streams.iter().map(i64::to_string).collect();
        out.push_str(&format!(
            "\n{:>3}. {}  {} ops  stream {}  {value}  {versus}{}\n",
            n + 1,
            s.name,
            s.ops.len(),
            streams.join("+"),
            if s.options.is_empty() {
                String::new()
            } else {
                format!("  options {}", s.options)
            }
        ));
        out.push_str(&format!(
            "     {} … {}\n     starts after {} · ends before {}\n",
            s.first_op, s.last_op, s.starts_after, s.ends_before
        ));
    }
    print_text(&skope::text::sanitize_lines(&out))?;
    Ok(())
}

/// `skope options --graph-kernel [FLAGS] [--graph DUMP]`: MindSpore's graph kernel flags, the
/// given ones checked, and with a dump what each would change in it. False when a given flag
/// has a problem.
fn graph_kernel_flags_text(
    text: Option<&str>,
    graph: Option<&Path>,
    load: LoadOptions,
) -> Result<(String, bool)> {
    use skope::mindspore::flags::{FLAGS, HOW_TO_SET, effects, parse};
    let mut out = String::new();
    let (given, problems) = text.map(parse).unwrap_or_default();
    let ok = problems.is_empty();
    if text.is_some() {
        for p in &problems {
            out.push_str(&format!("error: {p}\n"));
        }
        for g in &given {
            out.push_str(&format!("ok: --{}={}\n", g.name, g.value));
        }
        out.push('\n');
    }
    let changes = match graph {
        Some(path) => {
            let input = skope::open::Input::File(path.to_path_buf());
            let (ws, _) = skope::open::open(&input, load, &RuleConfig::default(), &mut |_| {})?;
            if ws.options_model() != skope::planner::OptionsModel::GraphFlags {
                anyhow::bail!(
                    "{}: not a MindSpore dump (.ir text or composite JSON): graph kernel flags \
                     do not apply to it",
                    path.display()
                );
            }
            effects(ws.graph(), ws.context().verdicts(), ws.plan(), &given)
        }
        None => Vec::new(),
    };
    let shown: Vec<&skope::mindspore::flags::Flag> = FLAGS
        .iter()
        .filter(|f| given.is_empty() || given.iter().any(|g| g.name == f.name))
        .collect();
    out.push_str("MindSpore graph kernel flags (graph_kernel_flags):\n");
    for f in shown {
        out.push_str(&format!(
            "  --{}  default {}\n      {}\n",
            f.name, f.default, f.meaning
        ));
        for (_, change) in changes.iter().filter(|(name, _)| *name == f.name) {
            out.push_str(&format!("      in this graph: {change}\n"));
        }
    }
    out.push_str(&format!("set them with {HOW_TO_SET}\n"));
    Ok((out, ok))
}

/// `skope options --aclgraph`: every option of the aclgraph path.
fn aclgraph_options_list() -> String {
    use skope::aclgraph::options::{Kind, OPTIONS, STRATEGIES};
    let mut out = String::from("aclgraph options (super_kernel_optimize):\n");
    for o in OPTIONS {
        let kind = match o.kind {
            Kind::Int { min, max } => format!("int {min}..{max}"),
            Kind::Patterns => "list[str] of kernel-name patterns".to_string(),
            Kind::Extend => "str k=v1,v2:k2=v".to_string(),
            Kind::Strategies => "dict".to_string(),
        };
        let dict = if o.debug {
            "debug_options"
        } else {
            "optimize_options"
        };
        out.push_str(&format!(
            "  {:<28} {dict:<16} {kind}, default {}\n      {}\n",
            o.key, o.default, o.effect
        ));
    }
    out.push_str("  aggressive_opt_strategies keys:\n");
    for (key, max, effect) in STRATEGIES {
        out.push_str(&format!("    {key} (0..{max}): {effect}\n"));
    }
    out
}

/// `skope options --aclgraph JSON`: the options checked, and the call to paste.
fn aclgraph_options_text(text: &str) -> Result<(String, bool)> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "line {}, column {}: not a JSON object of options: {e}\n  hint: write it as JSON, \
             e.g. '{{\"early_start\": 1, \"dcci_after_kernel_end\": [\".*\"]}}'",
            e.line(),
            e.column()
        )
    })?;
    let Some(map) = value.as_object() else {
        anyhow::bail!("{value} is not a JSON object of options");
    };
    let checked = skope::aclgraph::options::check(map);
    let mut out = String::new();
    for d in &checked.diagnostics {
        let level = match d.level {
            skope::aclgraph::options::Level::Error => "error",
            skope::aclgraph::options::Level::Warning => "warning",
        };
        out.push_str(&format!(
            "{level}: {}: {}\n",
            skope::text::sanitize(&d.key),
            skope::text::sanitize(&d.message)
        ));
    }
    out.push_str(&skope::text::sanitize_lines(&checked.python("graph")));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, checked.ok()))
}

/// The scopes of `ws` written as `format`.
fn export_text(ws: &Workspace, format: ExportFormat) -> String {
    match format {
        ExportFormat::Plan => PlanFile::of(ws).to_json(),
        ExportFormat::Torchair => skope::export::torchair(ws),
        ExportFormat::Acl => skope::export::acl(ws),
    }
}

/// Lines of context around each differing run in `skope codegen --compare --segment`.
const COMPARE_CONTEXT: usize = 2;

/// `skope codegen --compare`: each code held against the compiler's source for the same
/// sub-ops; with `show_lines`, the differing lines too. Fails when no code has a source, and
/// exits 1 when one differs.
fn compare_codes(
    ws: &Workspace,
    codes: &[skope::codegen::EntryCode],
    show_lines: bool,
) -> Result<ExitCode> {
    use skope::codegen::compare::{Change, calls, compare};
    let meta = ws.kernel_meta();
    let clean = |text: &str| skope::text::sanitize(text).into_owned();
    let (mut compared, mut differing) = (0, 0);
    for code in codes {
        let calls = calls(code);
        let Some(source) = meta.sources_for(&calls).first().copied() else {
            println!(
                "{}: no entry source in kernel_meta calls its {} sub-op(s)",
                clean(&code.segment),
                calls.len()
            );
            continue;
        };
        let comparison = compare(code, source);
        compared += 1;
        differing += usize::from(!comparison.equal());
        println!(
            "{}: {}: {}",
            clean(&code.segment),
            clean(&source.file.to_string_lossy()),
            comparison.summary()
        );
        if !show_lines || comparison.equal() {
            continue;
        }
        let near_change = |n: usize| {
            let from = n.saturating_sub(COMPARE_CONTEXT);
            let to = (n + COMPARE_CONTEXT + 1).min(comparison.lines.len());
            comparison.lines[from..to]
                .iter()
                .any(|l| l.change != Change::Same)
        };
        println!("  (- only in skope's prediction, + only in the compiler's source)");
        let mut skipped = false;
        for (n, line) in comparison.lines.iter().enumerate() {
            if !near_change(n) {
                skipped = true;
                continue;
            }
            if std::mem::take(&mut skipped) {
                println!("  …");
            }
            let mark = match line.change {
                Change::Same => ' ',
                Change::Predicted => '-',
                Change::Written => '+',
            };
            println!("{mark} {}", clean(&line.text));
        }
    }
    if compared == 0 {
        anyhow::bail!(
            "no segment's sub-op calls match an entry source in kernel_meta ({} read): pass the \
             te_superkernel_*_kernel.cpp files of the same compile",
            meta.sources.len()
        );
    }
    Ok(if differing > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `skope compile`: prepares the run, streams the job's output (stdout to stdout, stderr to
/// stderr) and returns its status; ctrl-c or SIGTERM cancels the job's whole process group.
fn compile(ws: &Workspace, file: &Path, name: &str) -> Result<ExitCode> {
    use skope::compile::job::{ExitStatus, Job, JobEvent};
    use skope::compile::{prepare, recipe};
    let cwd = std::env::current_dir().context("no working directory")?;
    let recipes = recipe::load(&recipe::search_paths(&cwd))?;
    for note in &recipes.notes {
        eprintln!("skope: note: {}", skope::text::sanitize(note));
    }
    let Some(chosen) = recipes.list.iter().find(|p| p.name == name) else {
        let names: Vec<&str> = recipes.list.iter().map(|p| p.name.as_str()).collect();
        anyhow::bail!(
            "no recipe named {:?}; recipes: {} (define more in {} as [[recipe]] tables)",
            skope::text::sanitize(name),
            names.join(", "),
            recipe::FILE_NAME
        );
    };
    let runs = prepare::runs_dir(&file.to_string_lossy());
    let mut run =
        prepare::prepare(ws, chosen, &runs, recipes.keep_runs).map_err(anyhow::Error::msg)?;
    eprintln!(
        "skope: running recipe {} ({}) in {} (output in {})",
        skope::text::sanitize(&chosen.name),
        skope::text::sanitize(&chosen.origin()),
        skope::text::sanitize(&run.cwd.to_string_lossy()),
        skope::text::sanitize(&run.out.to_string_lossy())
    );
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, std::sync::Arc::clone(&stop))?;
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1024);
    let job = match Job::spawn(
        &run.argv,
        &run.cwd,
        &run.env,
        run.streams,
        Some(&run.log_file()),
        tx,
        (),
    ) {
        Ok(job) => job,
        Err(e) => {
            let message = format!(
                "cannot start {}: {e}",
                skope::text::sanitize(run.argv.first().map_or("", String::as_str))
            );
            run.record.not_started(&run.out, &message);
            anyhow::bail!("{message}");
        }
    };
    let mut cancelled = false;
    let mut log = skope::compile::log::Log::new(1);
    let status = loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) && !cancelled {
            cancelled = true;
            eprintln!("skope: cancelling the job");
            job.cancel(std::time::Duration::from_secs(3));
        }
        match rx.recv_timeout(std::time::Duration::from_millis(100)) {
            Ok(((), JobEvent::Line { stream, text, cut })) => {
                let cut_note = if cut > 0 {
                    format!(" … ({cut} more bytes)")
                } else {
                    String::new()
                };
                // Every job line to stdout, in the order it arrived; skope's own lines go
                // to stderr.
                println!("{text}{cut_note}");
                log.push(skope::compile::log::LogLine { stream, text, cut });
            }
            Ok(((), JobEvent::Exited(status))) => break status,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break ExitStatus::Code(-1),
        }
    };
    run.record.finish(&run.out, status, cancelled);
    match log.first_error() {
        Some((n, line)) if !status.success() => eprintln!(
            "skope: recipe {} failed ({status}); first error, line {}: {}",
            skope::text::sanitize(&chosen.name),
            n + 1,
            line.text
        ),
        _ => eprintln!(
            "skope: recipe {} ended: {status}",
            skope::text::sanitize(&chosen.name)
        ),
    }
    Ok(match status {
        ExitStatus::Code(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        ExitStatus::Signal(signal) => ExitCode::from(u8::try_from(128 + signal).unwrap_or(1)),
    })
}

/// Options of `skope diff` besides the profiles.
struct DiffArgs {
    graph: Option<PathBuf>,
    planning: Planning,
    rank: Option<u32>,
    json: bool,
    csv: bool,
}

/// `skope diff`: reads both profiles, the plan when given, and prints the comparison.
fn diff(base: &Path, new: Option<&Path>, args: &DiffArgs) -> Result<()> {
    use skope::profile::{PlannedFusion, ProfileError};
    let pair = skope::profile::load_pair(base, new, args.rank).map_err(|e| {
        let what = match &e {
            ProfileError::SeveralRanks { .. } => "choose a rank",
            _ => "cannot compare the profiles",
        };
        anyhow::Error::new(e).context(what)
    })?;
    let planned = match (&args.graph, &args.planning.plan) {
        (Some(graph), plan) => {
            let ws = args.planning.workspace(graph)?;
            let mut source = graph.to_string_lossy().into_owned();
            if let Some(plan) = plan {
                source = format!("{source} with {}", plan.display());
            }
            Some(PlannedFusion::from_workspace(&ws, &source))
        }
        (None, Some(plan)) => {
            let file = PlanFile::read(plan)?;
            Some(PlannedFusion::from_plan_file(
                &file,
                &plan.to_string_lossy(),
            ))
        }
        (None, None) => None,
    };
    let result = skope::profile::diff(&pair, planned.as_ref());
    if args.json {
        print_json(&result)?;
    } else if args.csv {
        print_text(&skope::profile::output::to_csv(&result))?;
    } else {
        print_text(&skope::profile::output::to_text(&result))?;
    }
    Ok(())
}

/// Options of `skope report` besides the file.
struct ReportArgs {
    planning: Planning,
    json: bool,
    deny: Option<Deny>,
    verify: Vec<PathBuf>,
    summary: bool,
    scope: Option<String>,
}

/// `skope report`: prints the plan (and the comparison with GE's result) and returns the exit
/// status `--deny` / `--verify` ask for.
/// Ops `skope report` plans to check fixes (each check plans the members of the scopes it
/// changes): about half a second of an optimised build, whatever the graph.
const FIX_PLANS: usize = 1_000_000;

fn report(file: &Path, args: &ReportArgs) -> Result<ExitCode> {
    let ws = args.planning.workspace(file)?;
    let options = args.planning.load_options();
    let (cx, plan) = (ws.context(), ws.plan());
    let rule_files = ws.source().rules.clone();
    // Each break's fix is checked by planning it, up to a number of plans that keeps a report
    // of millions of breaks fast (the rest say so).
    let what_if = ws.what_if().with_budget(FIX_PLANS);
    let mut report = Report::new(
        &what_if,
        &file.to_string_lossy(),
        ws.source().format.id(),
        &rule_files,
        // The full report builds each scope's segments and breaks as it writes them.
        skope::report::Detail::Summary,
    );
    let after: Vec<Dump> = args
        .verify
        .iter()
        .map(|path| load::load_file(path, options))
        .collect::<Result<_, _>>()?;
    let verification = (!after.is_empty()).then(|| {
        let graphs: Vec<&Graph> = after.iter().flat_map(|d| d.graphs.iter()).collect();
        verify(cx, plan, &graphs)
    });
    report.set_assumed(ws.assumed_range());
    if let Some(name) = &args.scope {
        report.keep_scope(name).map_err(anyhow::Error::msg)?;
    }
    if args.json && args.summary {
        print_json(&ReportJson {
            report: &report,
            verify: verification.as_ref(),
        })?;
    } else if args.json {
        print_json(&ReportJson {
            report: &report.full_json(&what_if),
            verify: verification.as_ref(),
        })?;
    } else {
        // The verdict first: a long report would bury it.
        if let Some(v) = &verification {
            print_text(&(verification_text(v) + "\n"))?;
        }
        if args.summary {
            print_text(&report.to_summary_text())?;
        } else {
            print_with(|out| report.write_full_text(out, &what_if))?;
        }
    }
    let mismatched = verification.is_some_and(|v| !v.mismatches.is_empty());
    // A graph that gets no SuperKernel (a failed build, a dynamic-shape graph) or that skope
    // cannot judge (an error finding) fails every gate.
    let denied = mismatched
        || args
            .deny
            .is_some_and(|deny| plan.fails(deny.gate(), args.scope.as_deref()));
    // The process ends with the report: the graph and plan need no freeing.
    std::mem::forget(report);
    std::mem::forget(after);
    std::mem::forget(ws);
    Ok(if denied {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `skope [FILE]`: the explorer on FILE, or on the bundled example.
fn explore(cli: Cli) -> Result<()> {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let config = skope::tui::config::load(cli.config.as_deref(), no_colour)?;
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "the explorer needs a terminal, and stdout is not one\n  hint: for text output use \
             `skope info FILE` or `skope report FILE`"
        );
    }
    let rules = cli.planning.rules()?;
    let options = cli.planning.load_options();
    let input = match cli.file {
        Some(path) => Input::File(path),
        // Written out so that recipes and profiles find real files; read from the binary
        // when no directory of the user's can be written.
        None => match skope::example::write_out() {
            Ok(path) => Input::File(path),
            Err(_) => Input::Bundled {
                name: skope::example::DUMP_NAME,
                bytes: skope::example::DUMP,
            },
        },
    };
    let plan = match cli.planning.plan {
        Some(path) => PlanPath::given(path, cli.planning.force),
        None => PlanPath::of_dump(&input.name()),
    };
    let mut profiles = cli.profiles.into_iter();
    let profiles = match (profiles.next(), profiles.next(), profiles.next()) {
        (None, _, _) => None,
        (Some(base), new, None) => Some(skope::tui::profiles::ProfilesRequest {
            base,
            new,
            rank: None,
        }),
        (Some(_), _, Some(_)) => anyhow::bail!(
            "--profiles takes one directory holding no_sk_model and sk_model, or two profiles \
             (without, then with SuperKernel)"
        ),
    };
    skope::tui::run(skope::tui::Options {
        input,
        plan,
        load: options,
        rules,
        config,
        mouse: !cli.no_mouse,
        profiles,
        statics: cli.statics,
        kernel_meta: cli.meta.paths,
    })
}

/// Prints text made from inputs (a report, a table, CSV, code) with every terminal control in
/// it made visible; line breaks stay.
fn print_text(text: &str) -> Result<()> {
    use std::fmt::Write as _;
    print_with(|out| {
        out.write_str(text)?;
        // Every output ends its last line.
        if !text.is_empty() && !text.ends_with('\n') {
            out.write_str("\n")?;
        }
        Ok(())
    })
}

/// Prints what `write` writes, every dump string made visible ([`skope::text::TextWriter`]),
/// as it is written.
fn print_with(
    write: impl FnOnce(
        &mut skope::text::TextWriter<std::io::BufWriter<std::io::StdoutLock<'static>>>,
    ) -> std::fmt::Result,
) -> Result<()> {
    let mut out = skope::text::TextWriter::new(std::io::BufWriter::new(std::io::stdout().lock()));
    let _ = write(&mut out);
    out.finish().context("cannot write to standard output")
}

/// Prints `value` as pretty JSON, with every character a terminal could act on escaped.
/// Streamed: a report of millions of breaks is never held as one string.
fn print_json(value: &impl serde::Serialize) -> Result<()> {
    use std::io::Write as _;
    let stdout = std::io::stdout();
    let mut out = skope::text::JsonSafeWriter::new(std::io::BufWriter::new(stdout.lock()));
    serde_json::to_writer_pretty(&mut out, value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// `skope report --json`: the report (in full or in short), and what `--verify` found.
#[derive(serde::Serialize)]
struct ReportJson<'a, R: serde::Serialize> {
    #[serde(flatten)]
    report: &'a R,
    #[serde(skip_serializing_if = "Option::is_none")]
    verify: Option<&'a skope::fusion::verify::Verification>,
}

/// A size as `--max-size` takes it: bytes, or a number with `K`, `M`, `G` or `T` (powers of
/// 1024; `KiB`, `MB`… read the same).
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = text[digits.len()..].to_ascii_uppercase();
    let shift = match unit.trim_end_matches('B').trim_end_matches('I') {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return Err(format!("unknown unit {unit:?}: use K, M, G or T")),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 1500000000, 1500M, 2G)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}
