//! The `skope` command line.

use anyhow::{Context as _, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use skope::commands::OutputForm::{self, Csv, Json, Markdown, Text};
use skope::commands::args::{Deny, MetaArgs, Planning, RuleArgs, output_form, sort_key};
use skope::commands::codegen::CodeOutput;
use skope::commands::diff::DiffRequest;
use skope::commands::options::System;
use skope::commands::report::ReportRequest;
use skope::commands::{self, Printer};
use skope::export::Form;
use skope::ledger::{Baseline, SortKey};
use skope::tui::Ended;
use skope::tui::loader::PlanPath;
use skope::tui::profiles::ProfilesRequest;
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

#[derive(Subcommand)]
enum Command {
    /// Print what a dump holds: format, graphs, ops, op types, streams, scopes, and the notes of
    /// reading it.
    Info {
        /// The dump file.
        file: PathBuf,
        /// How to write it: text (the default) or json.
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true)]
        json: bool,
    },
    /// Predict GE's SuperKernel segments for every scope and explain every break.
    Report {
        /// The dump file.
        file: PathBuf,
        /// How to write it: text (the default), json, or markdown (a short report for a pull
        /// request, the rest in <details>; with `--profiles`, what each SuperKernel paid too).
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true)]
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
        /// The same as --output markdown.
        #[arg(long, hide = true, conflicts_with_all = ["json", "summary", "verify"])]
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
        /// How to write it: text (the default), json, csv (a profile comparison's by-type rows), or
        /// markdown (two graphs' fusion diff).
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true, conflicts_with = "csv")]
        json: bool,
        /// The same as --output csv.
        #[arg(long, hide = true)]
        csv: bool,
        /// The same as --output markdown.
        #[arg(long, hide = true, conflicts_with_all = ["json", "csv"])]
        markdown: bool,
        /// Exit with status 1 when any SuperKernel's payoff is `regressed` (for CI).
        #[arg(long, value_name = "PAYOFF", value_parser = ["regressed"])]
        deny: Option<String>,
        #[command(flatten)]
        rule: RuleArgs,
    },
    /// Reduce one rank's profile to a small digest on its node (with the cluster's launcher):
    /// `diff`, `--profiles` and `runs --add` read a folder of digests with the same figures.
    Digest {
        /// One rank's profile: a directory or file, as `diff` takes (or, with --rank, a
        /// directory of ranks).
        profile: PathBuf,
        /// The digest to write (`rank0.skd`; put a side's digests in one folder).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// The rank: which one of several, or the rank of one whose files do not say.
        #[arg(long, value_name = "N")]
        rank: Option<u32>,
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
        /// How to write it: text (the default) or json.
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true)]
        json: bool,
    },
    /// The run ledger: every recorded run of the dump side by side — what its plan changed
    /// from the run before, its step time, what it saves a step against a baseline run (one
    /// whose plan builds no SuperKernel), its SuperKernels' payoffs, its status.
    Runs {
        /// The dump file (the bundled example when omitted).
        file: Option<PathBuf>,
        /// How to write it: text (the default), json, markdown (for a pull request), or csv (a row
        /// per run).
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true, conflicts_with_all = ["markdown", "csv"])]
        json: bool,
        /// The same as --output markdown.
        #[arg(long, hide = true, conflicts_with = "csv")]
        markdown: bool,
        /// The same as --output csv.
        #[arg(long, hide = true)]
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
    /// Whether SuperKernel can fuse your own AscendC operator: its kernel sources against
    /// SK_BIND and the operator constraints, each finding at its line (exit 1 on a blocker).
    #[command(name = "check-op")]
    CheckOp {
        /// Kernel sources (.cpp, .h, .asc…) or directories holding them.
        #[arg(required = true)]
        sources: Vec<PathBuf>,
        /// How to write it: text (the default) or json.
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
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
        /// How to write it: text (the default) or json.
        #[arg(long, value_name = "FORM", value_parser = output_form)]
        output: Option<OutputForm>,
        /// The same as --output json.
        #[arg(long, hide = true)]
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

fn main() -> ExitCode {
    let matches = commands::args::with_shared_options_shown(Cli::command()).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if !matches!(cli.command, None | Some(Command::Compile { .. })) {
        commands::die_on_closed_pipe();
    }
    match run(cli, matches.subcommand_name().unwrap_or_default()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", skope::text::sanitize_lines(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

impl Cli {
    /// The shared options given, and the explorer's own ones (which only the explorer takes).
    fn given(&self) -> Vec<&'static str> {
        let mut given = self.planning.given();
        given.extend(self.meta.given());
        let explorer = [
            ("--profiles", !self.profiles.is_empty()),
            ("--static", self.statics.is_some()),
            ("--config", self.config.is_some()),
            ("--no-mouse", self.no_mouse),
        ];
        given.extend(
            explorer
                .into_iter()
                .filter(|(_, g)| *g)
                .map(|(name, _)| name),
        );
        given
    }

    /// Refuses an option given to a command that would not use it: options may come before
    /// or after the command's name, and none is ever ignored.
    fn refuse_unused(&self, name: &str) -> Result<()> {
        let shared = |name: &str| commands::args::shared_options(name);
        let planning = || shared("diff");
        let (command, takes): (&str, Vec<&str>) = match &self.command {
            None => return Ok(()),
            Some(Command::Report {
                file,
                markdown,
                output,
                ..
            }) => commands::report::takes(file, *markdown || *output == Some(Markdown)),
            Some(Command::Info { file, .. }) if skope::open::is_pass_output(file) => {
                ("info on an aclgraph model directory", vec!["--target"])
            }
            Some(Command::Export {
                format: Form::Trace | Form::ModelExplorer,
                ..
            }) => ("export --format trace/model-explorer", shared("export")),
            Some(Command::Export { .. }) => ("export", planning()),
            Some(Command::Options { graph: None, .. }) => ("options", vec!["--target"]),
            Some(_) => (name, shared(name)),
        };
        let explorer = ["--config", "--no-mouse", "--static"];
        commands::refuse_unused(command, &self.given(), &takes, &explorer)
    }
}

fn run(cli: Cli, name: &str) -> Result<ExitCode> {
    cli.refuse_unused(name)?;
    let Some(command) = cli.command else {
        // Stopped by a signal: 128 + it, as a shell's programs exit.
        return explore(cli).map(|ended| match ended {
            Ended::Quit => ExitCode::SUCCESS,
            Ended::LoadFailed(message) => {
                eprintln!("error: {}", skope::text::sanitize_lines(&message));
                ExitCode::from(2)
            }
            Ended::Stopped(s) => ExitCode::from(u8::try_from(128 + s).unwrap_or(1)),
        });
    };
    let request = cli.planning.request();
    let out = &mut Printer::stdout();
    let passed = match command {
        Command::Info { file, output, json } => {
            let form = OutputForm::chosen(output, (json, false, false), "info", &[Text, Json])?;
            commands::info::run(&request, &file, form == Json, &mut say, out)?;
            true
        }
        Command::Report {
            file,
            output,
            json,
            deny,
            verify,
            summary,
            scope,
            markdown,
        } => {
            let writes = [Text, Json, Markdown];
            let form = OutputForm::chosen(output, (json, markdown, false), "report", &writes)?;
            let asked = ReportRequest {
                json: form == Json,
                gate: deny.map(|d| d.gate(&mut say)),
                verify,
                summary,
                scope,
                markdown: (form == Markdown).then_some(cli.profiles.as_slice()),
                meta: Some(&cli.meta),
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
            format,
            output,
            rank,
            step,
        } => {
            let asked = commands::export::ExportRequest {
                format,
                output: output.as_deref(),
                profiles: &cli.profiles,
                rank,
                step: step.as_deref(),
            };
            commands::export::run(&request, &file, &asked, &mut say, out)?;
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
            cli.meta.apply(&mut ws, &mut say)?;
            let output = match output {
                _ if compare => CodeOutput::Compare(segment.is_some()),
                Some(dir) if dir == Path::new("-") => CodeOutput::Print,
                dir => CodeOutput::Files(dir),
            };
            commands::codegen::run(&ws, &file, segment.as_deref(), output, &mut say, out)?
        }
        Command::Compile { file, recipe } => {
            let mut ws = commands::open(&request, &file, &mut say)?;
            cli.meta.apply(&mut ws, &mut say)?;
            let status = commands::compile::run((&ws, &file), &recipe, (&cli.profiles, None))?;
            return Ok(ExitCode::from(status));
        }
        Command::Digest {
            profile,
            output,
            rank,
        } => {
            let asked = commands::digest::DigestRequest {
                profile: &profile,
                output: &output,
                rank,
            };
            commands::digest::run(&asked, &mut say).map(|()| true)?
        }
        Command::Diff {
            base,
            new,
            graph,
            rank,
            output,
            json,
            csv,
            markdown,
            deny,
            rule,
        } => {
            let writes = [Text, Json, Markdown, Csv];
            let asked = DiffRequest {
                output: OutputForm::chosen(output, (json, markdown, csv), "diff", &writes)?,
                rule: rule.rule(),
                deny_regressed: deny.is_some(),
            };
            let inputs = (base.as_path(), new.as_deref(), graph.as_deref(), rank);
            commands::diff::either(&request, inputs, &asked, &mut say, out)?
        }
        Command::Suggest {
            file,
            rank,
            output,
            json,
        } => {
            let form = OutputForm::chosen(output, (json, false, false), "suggest", &[Text, Json])?;
            let ws = commands::open(&request, &file, &mut say)?;
            commands::suggest::run(&ws, &file, (&cli.profiles, rank), form == Json, out)?;
            true
        }
        Command::Runs {
            file,
            output,
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
            let writes = [Text, Json, Markdown, Csv];
            let asked = commands::runs::RunsRequest {
                output: OutputForm::chosen(output, (json, markdown, csv), "runs", &writes)?,
                sort,
                baseline: baseline.map_or(Baseline::Auto, Baseline::Run),
                add: add.as_deref(),
                rule: rule.rule(),
            };
            commands::runs::run(&request, &file, &asked, &mut say, out)?;
            true
        }
        Command::Static {
            dir,
            graph,
            output,
            json,
        } => {
            let form = OutputForm::chosen(output, (json, false, false), "static", &[Text, Json])?;
            commands::static_kernels::run(&request, &dir, graph.as_deref(), form == Json, out)?;
            true
        }
        Command::CheckOp { sources, output } => {
            commands::check_op::run(&sources, request.target, output, out)?
        }
        Command::Config => out
            .raw(&skope::tui::config::default_config_text())
            .map(|()| true)?,
    };
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `skope [FILE]`: the explorer on FILE, or on the bundled example; how it ended.
fn explore(cli: Cli) -> Result<Ended> {
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
        op_sources: cli.meta.op_sources,
    })
}

/// skope's own lines for the user, beside the output: to stderr.
fn say(line: &str) {
    eprintln!("{line}");
}
