//! The `skope` command line.

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use skope::commands::codegen::CodeOutput;
use skope::commands::diff::{DiffOutput, DiffRequest};
use skope::commands::options::System;
use skope::commands::report::ReportRequest;
use skope::commands::runs::LedgerOutput;
use skope::commands::{self, Printer};
use skope::compile::foreground;
use skope::export::Form;
use skope::fusion::plan::Gate;
use skope::ledger::{Baseline, SortKey};
use skope::load::{self, LoadOptions};
use skope::open::Request;
use skope::profile::payoff::{NeutralAction, PayoffRule};
use skope::tui::loader::PlanPath;
use skope::tui::profiles::ProfilesRequest;
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
            say(&format!("problem: {}", skope::text::sanitize(&problem)));
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
    #[arg(long, value_name = "SIZE", value_parser = skope::text::parse_size, global = true)]
    max_size: Option<u64>,
}

impl Planning {
    fn load_options(&self) -> LoadOptions {
        LoadOptions::with_limit(self.max_size)
    }

    /// What opening a dump takes, as these options say.
    fn request(&self) -> Request {
        Request {
            rules: self.rules.clone(),
            no_cann: self.no_cann,
            load: self.load_options(),
            plan: self.plan.clone(),
            force: self.force,
        }
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
        /// A short report in GitHub Markdown for a pull request (the rest in <details>); with
        /// `--profiles`, what each SuperKernel paid too.
        #[arg(long, conflicts_with_all = ["json", "summary", "verify"])]
        markdown: bool,
    },
    /// Write the scopes as code for the model: a plan file, TorchAir `super_kernel` blocks, or
    /// the `aclskScopeBegin/End` C form; or, with `--format trace --profiles …`, the profiles as
    /// a Chrome trace marked with the plan (open it in ui.perfetto.dev or chrome://tracing).
    Export {
        /// The dump file.
        file: PathBuf,
        /// What to write.
        #[arg(long, value_enum, default_value_t = Form::Torchair)]
        format: Form,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// With --format trace and several ranks, the one to write.
        #[arg(long, value_name = "N", requires = "format")]
        rank: Option<u32>,
        /// With --format trace, only this step (its Step Id).
        #[arg(long, value_name = "ID", requires = "format")]
        step: Option<String>,
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
        /// The base profile: op_statistic.csv, kernel_details.csv, op_summary_*.csv, a profiler
        /// database, or an ASCEND_PROFILER_OUTPUT, PROF_* or *_ascend_pt directory; or a
        /// directory holding no_sk_model and sk_model (then NEW is not needed). Two graph dumps
        /// (or a dump and a plan file, or two plan files with --graph) compare their fusion
        /// instead: scopes, segments and breaks added, removed and changed.
        base: PathBuf,
        /// The new profile (same forms as BASE), or graph B.
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
        /// With two graphs: print the fusion diff as GitHub Markdown.
        #[arg(long, conflicts_with_all = ["json", "csv"])]
        markdown: bool,
        /// Exit with status 1 when any SuperKernel's payoff is `regressed` (for CI).
        #[arg(long, value_name = "PAYOFF", value_parser = ["regressed"])]
        deny: Option<String>,
        #[command(flatten)]
        rule: RuleArgs,
    },
    /// Suggest scopes for a graph, ranked by the time they would save over its current plan:
    /// templates first (a region of a decoder layer, planned in every layer, with the code to
    /// paste), then per-layer candidates, each one of the graph planner's segments and none
    /// crossing a layer, only those that add something; for a scope holding the whole aclgraph
    /// model, the exclusions that keep its one-kernel pieces out, each checked by the pass's
    /// prediction; and what accepting all that fit would make of the whole model. With a
    /// profile the saving is estimated from the measured gaps; with a profile pair the saving
    /// model is fitted first, on per-step medians (and trusted for the ranking only when its
    /// error allows).
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
    /// The run ledger: every recorded run of the dump side by side — what its plan changed
    /// from the run before, its step time, what it saves a step against a baseline run (one
    /// whose plan builds no SuperKernel), its SuperKernels' payoffs, its status.
    Runs {
        /// The dump file (the bundled example when omitted).
        file: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long, conflicts_with_all = ["markdown", "csv"])]
        json: bool,
        /// Print GitHub Markdown, for a pull request.
        #[arg(long, conflicts_with = "csv")]
        markdown: bool,
        /// Print a CSV row per run.
        #[arg(long)]
        csv: bool,
        /// The order of the rows: benefit (most saved first), step-time (shortest first), run,
        /// status.
        #[arg(long, value_name = "KEY", default_value = "benefit", value_parser = sort_key)]
        sort: SortKey,
        /// The baseline: run N (as the ledger numbers them, 1 the oldest); without it, the
        /// newest run whose plan builds no SuperKernel.
        #[arg(long, value_name = "N")]
        baseline: Option<usize>,
        /// First record a profile made elsewhere (a profile directory or file) as a run, made
        /// with the plan --plan gives (else the dump's scopes).
        #[arg(long, value_name = "PATH")]
        add: Option<PathBuf>,
        #[command(flatten)]
        rule: RuleArgs,
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

/// How payoffs are judged, as `diff` and `runs` take it.
#[derive(clap::Args, Debug, Clone, Copy)]
struct RuleArgs {
    /// Occurrences each side needs before a payoff is judged.
    #[arg(long, value_name = "N", default_value_t = PayoffRule::default().min_occurrences)]
    min_occurrences: usize,
    /// How many robust standard deviations, 1.4826 × √(MADwithout² + MADwith²), a payoff's
    /// change must pass.
    #[arg(long, value_name = "K", default_value_t = PayoffRule::default().noise_k)]
    noise_k: f64,
    /// The least change a payoff counts, in percent of the time without SuperKernel.
    #[arg(long, value_name = "PCT", default_value_t = PayoffRule::default().floor_pct)]
    noise_floor: f64,
    /// What to do with a neutral SuperKernel: prune (no measured gain, and a SuperKernel adds
    /// risk: the SuperKernel team's mapping) or keep.
    #[arg(long, value_name = "ACTION", default_value = "prune", value_parser = neutral_action)]
    neutral: NeutralAction,
}

impl RuleArgs {
    fn rule(self) -> PayoffRule {
        PayoffRule {
            min_occurrences: self.min_occurrences,
            noise_k: self.noise_k,
            floor_pct: self.noise_floor,
            neutral: self.neutral,
        }
    }
}

fn neutral_action(word: &str) -> Result<NeutralAction, String> {
    NeutralAction::named(word).ok_or_else(|| format!("'{word}': give keep or prune"))
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
                if skope::open::is_pass_output(file) =>
            {
                ("info/report on an aclgraph model directory", Vec::new())
            }
            Some(Command::Info { .. }) => ("info", vec!["--max-size"]),
            Some(Command::Report { markdown: true, .. }) => (
                "report --markdown",
                [PLANNING.as_slice(), &["--profiles"]].concat(),
            ),
            Some(Command::Export {
                format: Form::Trace | Form::ModelExplorer,
                ..
            }) => (
                "export --format trace/model-explorer",
                [PLANNING.as_slice(), &["--profiles"]].concat(),
            ),
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
            Some(Command::Runs { .. }) => ("runs", PLANNING.to_vec()),
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
    let Some(command) = cli.command else {
        // Stopped by a signal: 128 + it, as a shell's programs exit.
        return explore(cli).map(|signal| {
            signal.map_or(ExitCode::SUCCESS, |s| {
                ExitCode::from(u8::try_from(128 + s).unwrap_or(1))
            })
        });
    };
    let request = cli.planning.request();
    let out = &mut Printer::stdout();
    let passed = match command {
        Command::Info { file, json } => {
            commands::info::run(&request, &file, json, &mut say, out)?;
            true
        }
        Command::Report {
            file,
            json,
            deny,
            verify,
            summary,
            scope,
            markdown,
        } => {
            let gate = deny.map(Deny::gate);
            let asked = ReportRequest {
                json,
                gate,
                verify,
                summary,
                scope,
                markdown: markdown.then_some(cli.profiles.as_slice()),
            };
            commands::report::run(&request, &file, &asked, &mut say, out)?
        }
        Command::Options {
            text,
            aclgraph,
            graph_kernel,
            graph,
        } => {
            let system = match (aclgraph, graph_kernel) {
                (_, true) => System::GraphKernel,
                (true, _) => System::Aclgraph,
                _ => System::Ge,
            };
            let (text, graph) = (text.as_deref(), graph.as_deref());
            commands::options::run(&request, system, text, graph, &mut say, out)?
        }
        Command::Export {
            file,
            format: Form::Trace,
            output,
            rank,
            step,
        } => {
            let asked = commands::trace::TraceRequest {
                profiles: &cli.profiles,
                rank,
                step: step.as_deref(),
                output: output.as_deref(),
            };
            commands::trace::run(
                &request,
                &file,
                &asked,
                &mut say,
                &mut std::io::stdout().lock(),
            )?;
            true
        }
        Command::Export {
            file,
            format: Form::ModelExplorer,
            output,
            ..
        } => {
            let Some(dir) = output else {
                anyhow::bail!("--format model-explorer writes a directory: give it with -o DIR");
            };
            commands::model_explorer::run(&request, &file, &cli.profiles, &dir, &mut say)?;
            true
        }
        Command::Export {
            file,
            format,
            output,
            rank,
            step,
        } => {
            if rank.is_some() || step.is_some() {
                anyhow::bail!("--rank and --step go with --format trace");
            }
            let ws = commands::open(&request, &file, &mut say)?;
            let text = skope::export::text(&ws, format).map_err(anyhow::Error::msg)?;
            match output {
                Some(path) => commands::write_output(&path, &request, &file, text.as_bytes())?,
                None => out.text(&text)?,
            }
            true
        }
        Command::Codegen {
            file,
            segment,
            all: _,
            output,
            compare,
        } => {
            let mut ws = commands::open(&request, &file, &mut say)?;
            cli.meta.apply(&mut ws)?;
            let output = match output {
                _ if compare => CodeOutput::Compare(segment.is_some()),
                Some(dir) if dir == Path::new("-") => CodeOutput::Print,
                dir => CodeOutput::Files(dir),
            };
            commands::codegen::run(&ws, &file, segment.as_deref(), output, &mut say, out)?
        }
        Command::Compile { file, recipe } => {
            let mut ws = commands::open(&request, &file, &mut say)?;
            cli.meta.apply(&mut ws)?;
            return compile(&ws, &file, &recipe);
        }
        Command::Diff {
            base,
            new,
            graph,
            rank,
            json,
            csv,
            markdown,
            deny,
            rule,
        } => {
            if commands::fusion_diff::applies(&base, new.as_deref(), graph.as_deref()) {
                let form = commands::fusion_diff::Form::of(json, markdown);
                let inputs = (base.as_path(), new.as_deref(), graph.as_deref());
                commands::fusion_diff::run(&request, inputs, form, &mut say, out)?
            } else {
                if markdown {
                    anyhow::bail!("--markdown goes with two graphs (a fusion diff), not profiles");
                }
                let asked = DiffRequest {
                    output: DiffOutput::of(json, csv),
                    rule: rule.rule(),
                    deny_regressed: deny.is_some(),
                };
                let profiles = (base.as_path(), new.as_deref(), rank);
                commands::diff::run(&request, profiles, graph.as_deref(), &asked, &mut say, out)?
            }
        }
        Command::Suggest { file, rank, json } => {
            let ws = commands::open(&request, &file, &mut say)?;
            commands::suggest::run(&ws, &file, (&cli.profiles, rank), json, out)?;
            true
        }
        Command::Runs {
            file,
            json,
            markdown,
            csv,
            sort,
            baseline,
            add,
            rule,
        } => {
            let file = match file {
                Some(file) => file,
                None => skope::example::write_out()
                    .context("cannot write the bundled example out to list its runs")?,
            };
            let asked = commands::runs::RunsRequest {
                output: match (json, markdown, csv) {
                    (true, _, _) => LedgerOutput::Json,
                    (_, true, _) => LedgerOutput::Markdown,
                    (_, _, true) => LedgerOutput::Csv,
                    _ => LedgerOutput::Text,
                },
                sort,
                baseline: baseline.map_or(Baseline::Auto, Baseline::Run),
                add: add.as_deref(),
                rule: rule.rule(),
            };
            commands::runs::run(&request, &file, &asked, &mut say, out)?;
            true
        }
        Command::Static { dir, graph, json } => {
            let (runs, problems) = skope::static_kernels::read(&dir)?;
            let mut summary = skope::static_kernels::summarise(&runs, problems);
            if let Some(graph) = graph {
                summary.join(load::load_file(&graph, request.load)?.main());
            }
            out.text_or_json(json, &summary, || summary.to_text())?;
            true
        }
        Command::Config => {
            out.raw(&skope::tui::config::default_config_text())?;
            true
        }
    };
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `skope compile`: runs the recipe, each job line to stdout and skope's own to stderr, and
/// exits with the job's status; ctrl-c or SIGTERM stops the job's whole process group.
fn compile(ws: &Workspace, file: &Path, name: &str) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("no working directory")?;
    let stop = foreground::stop_on_signals()?;
    let output = foreground::Output {
        line: &mut |line| println!("{line}"),
        say: &mut |words| eprintln!("skope: {words}"),
    };
    let status = foreground::run(ws, file, name, &cwd, &stop, output)?;
    Ok(ExitCode::from(status.exit_code()))
}

/// `skope [FILE]`: the explorer on FILE, or on the bundled example; the signal that stopped
/// it, if one did.
fn explore(cli: Cli) -> Result<Option<i32>> {
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let config = skope::tui::config::load(cli.config.as_deref(), no_colour)?;
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "the explorer needs a terminal, and stdout is not one\n  hint: for text output use \
             `skope info FILE` or `skope report FILE`"
        );
    }
    let input = skope::example::or_file(cli.file);
    let plan = match cli.planning.plan.clone() {
        Some(path) => PlanPath::given(path, cli.planning.force),
        None => PlanPath::of_dump(&input.name()),
    };
    skope::tui::run(skope::tui::Options {
        input,
        plan,
        load: cli.planning.load_options(),
        rules: cli.planning.request().rules()?,
        config,
        mouse: !cli.no_mouse,
        profiles: ProfilesRequest::of_paths(cli.profiles).map_err(anyhow::Error::msg)?,
        statics: cli.statics,
        kernel_meta: cli.meta.paths,
    })
}

/// A `--sort` key of the ledger.
fn sort_key(name: &str) -> Result<SortKey, String> {
    SortKey::of(name).ok_or_else(|| {
        let keys: Vec<&str> = SortKey::ALL.iter().map(|k| k.name()).collect();
        format!("no sort key `{name}`: use one of {}", keys.join(", "))
    })
}

/// skope's own lines for the user, beside the output: to stderr.
fn say(line: &str) {
    eprintln!("{line}");
}
