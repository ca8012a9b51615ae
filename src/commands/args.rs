//! The command line's shared arguments and what they turn into: how a dump is read and
//! planned, what a compile left, how payoffs are judged, the report's gates, and the words
//! `--output`, `--sort` and `--neutral` take. The binary only parses them.

use super::OutputForm;
use crate::fusion::plan::Gate;
use crate::ledger::SortKey;
use crate::load::LoadOptions;
use crate::open::Request;
use crate::profile::payoff::{NeutralAction, PayoffRule};
use crate::workspace::Workspace;
use anyhow::Result;
use std::path::PathBuf;

/// What a compile left, and the user's own operator sources: what the generated code and the
/// fixes use instead of guessing.
#[derive(clap::Args, Debug)]
pub struct MetaArgs {
    /// A compile's kernel_meta directory, or files from it: the sub-kernels' op-info JSONs
    /// (kernel names, symbols, kernel types, block dims, arguments, flags) and the entry
    /// sources the SuperKernel compiler wrote (te_superkernel_*_kernel.cpp), which the code
    /// is compared with (repeatable).
    #[arg(long = "kernel-meta", value_name = "PATH", global = true)]
    pub paths: Vec<PathBuf>,
    /// Your own AscendC operators' kernel sources (files or directories, repeatable): a break
    /// of an op type they define says what adapting it to SuperKernel takes, as `skope
    /// check-op` finds it.
    #[arg(long = "op-sources", value_name = "PATH", global = true)]
    pub op_sources: Vec<PathBuf>,
}

impl MetaArgs {
    /// The options given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        [
            ("--kernel-meta", &self.paths),
            ("--op-sources", &self.op_sources),
        ]
        .into_iter()
        .filter(|(_, paths)| !paths.is_empty())
        .map(|(name, _)| name)
        .collect()
    }

    /// Checks the operator sources given into `ws` (nothing when none are).
    pub fn check_ops(&self, ws: &mut Workspace) -> Result<()> {
        if !self.op_sources.is_empty() {
            let check = crate::check_op::check_paths(&self.op_sources, ws.target().target)?;
            ws.set_op_check(std::sync::Arc::new(check));
        }
        Ok(())
    }

    /// Reads the paths into `ws`; `say` hears what of a directory could not be used.
    pub fn apply(&self, ws: &mut Workspace, say: &mut dyn FnMut(&str)) -> Result<()> {
        let problems = crate::open::use_kernel_meta(ws, &self.paths)?;
        super::tell("problem", &problems, say);
        Ok(())
    }
}

/// How a dump is read, judged and given scopes: the options of every command that plans.
#[derive(clap::Args)]
pub struct Planning {
    /// A plan file (saved with `w` in the explorer) whose scopes replace the dump's; the
    /// explorer saves there too (default: `<dump>.skope.json` beside the dump, offered when it
    /// exists).
    #[arg(long, value_name = "PLAN", global = true)]
    pub plan: Option<PathBuf>,
    /// Apply --plan even when none of the ops it names is in the graph.
    #[arg(long, requires = "plan", global = true)]
    pub force: bool,
    /// A rules file that extends or overrides the bundled rules (repeatable; later files win).
    #[arg(long = "rules", value_name = "FILE", global = true)]
    pub rules: Vec<PathBuf>,
    /// Do not read the installed CANN's op information (found through ASCEND_OPP_PATH or
    /// ASCEND_HOME_PATH) to judge op types; use the bundled rules and --rules only.
    #[arg(long, global = true)]
    pub no_cann: bool,
    /// Load dumps up to this size (bytes, or with K, M, G: `1500M`). Without it: up to 4G, and
    /// only when about 3× the file (4× for MindSpore IR) is free in memory; with it, memory is
    /// not checked.
    #[arg(long, value_name = "SIZE", value_parser = crate::text::parse_size, global = true)]
    pub max_size: Option<u64>,
    /// The hardware the graph is built for: dav-2201 (Atlas A2/A3, the default) or dav-3510
    /// (Ascend 950, where SuperKernel is experimental). What a dump records wins; the
    /// explorer's config key `target` gives it too.
    #[arg(long, value_name = "ARCH", value_parser = crate::target::Target::parse, global = true)]
    pub target: Option<crate::target::Target>,
}

impl Planning {
    /// The options given, by name.
    pub fn given(&self) -> Vec<&'static str> {
        [
            ("--plan", self.plan.is_some()),
            ("--force", self.force),
            ("--rules", !self.rules.is_empty()),
            ("--no-cann", self.no_cann),
            ("--max-size", self.max_size.is_some()),
            ("--target", self.target.is_some()),
        ]
        .into_iter()
        .filter(|(_, given)| *given)
        .map(|(name, _)| name)
        .collect()
    }

    pub fn load_options(&self) -> LoadOptions {
        LoadOptions::with_limit(self.max_size)
    }

    /// What opening a dump takes, as these options say.
    pub fn request(&self) -> Request {
        Request {
            rules: self.rules.clone(),
            no_cann: self.no_cann,
            load: self.load_options(),
            plan: self.plan.clone(),
            force: self.force,
            target: self.target,
        }
    }
}

/// How payoffs are judged, as `diff` and `runs` take it.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct RuleArgs {
    /// Occurrences each side needs before a payoff is judged.
    #[arg(long, value_name = "N", default_value_t = PayoffRule::default().min_occurrences)]
    pub min_occurrences: usize,
    /// How many robust standard deviations, 1.4826 × √(MADwithout² + MADwith²), a payoff's
    /// change must pass.
    #[arg(long, value_name = "K", default_value_t = PayoffRule::default().noise_k)]
    pub noise_k: f64,
    /// The least change a payoff counts, in percent of the time without SuperKernel.
    #[arg(long, value_name = "PCT", default_value_t = PayoffRule::default().floor_pct)]
    pub noise_floor: f64,
    /// What to do with a neutral SuperKernel: prune (no measured gain, and a SuperKernel adds
    /// risk: the SuperKernel team's mapping) or keep.
    #[arg(long, value_name = "ACTION", default_value = "prune", value_parser = neutral_action)]
    pub neutral: NeutralAction,
}

impl RuleArgs {
    pub fn rule(self) -> PayoffRule {
        PayoffRule {
            min_occurrences: self.min_occurrences,
            noise_k: self.noise_k,
            floor_pct: self.noise_floor,
            neutral: self.neutral,
        }
    }
}

pub fn neutral_action(word: &str) -> Result<NeutralAction, String> {
    NeutralAction::named(word).ok_or_else(|| format!("'{word}': give keep or prune"))
}

/// What `--deny` turns into a failing exit status.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
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
    /// The gate; `say` hears when an old word named it.
    pub fn gate(self, say: &mut dyn FnMut(&str)) -> Gate {
        let (gate, old) = match self {
            Deny::Breaks => (Gate::Breaks, None),
            Deny::Findings => (Gate::Findings, None),
            Deny::Splits => (Gate::Breaks, Some(("splits", "breaks"))),
            Deny::Warnings => (Gate::Findings, Some(("warnings", "findings"))),
        };
        if let Some((old, new)) = old {
            say(&format!(
                "note: `--deny {old}` is the old word for `--deny {new}`: write `{new}`"
            ));
        }
        gate
    }
}

/// An `--output` form.
pub fn output_form(name: &str) -> Result<OutputForm, String> {
    OutputForm::named(name).ok_or_else(|| {
        let names: Vec<&str> = OutputForm::ALL.iter().map(|f| f.name()).collect();
        format!("no output form `{name}`: use one of {}", names.join(", "))
    })
}

/// A `--sort` key of the ledger.
pub fn sort_key(name: &str) -> Result<SortKey, String> {
    SortKey::of(name).ok_or_else(|| {
        let keys: Vec<&str> = SortKey::ALL.iter().map(|k| k.name()).collect();
        format!("no sort key `{name}`: use one of {}", keys.join(", "))
    })
}

/// The planning options, by name.
const PLANNING: [&str; 6] = [
    "--plan",
    "--force",
    "--rules",
    "--no-cann",
    "--max-size",
    "--target",
];

/// The shared options (given before or after a command's name) each command can take at all;
/// its `--help` lists these alone, and [`super::refuse_unused`] holds each use to what that
/// use takes.
pub fn shared_options(command: &str) -> Vec<&'static str> {
    let with = |extra: &[&'static str]| [PLANNING.as_slice(), extra].concat();
    match command {
        "static" => vec!["--max-size"],
        "info" | "options" => vec!["--max-size", "--target"],
        "check-op" => vec!["--target"],
        "report" => with(&["--profiles", "--kernel-meta", "--op-sources"]),
        "export" | "suggest" => with(&["--profiles"]),
        "codegen" => with(&["--kernel-meta"]),
        "compile" => with(&["--kernel-meta", "--profiles"]),
        "diff" | "runs" => with(&[]),
        _ => Vec::new(),
    }
}

/// What a shared option does for `command`, where that is narrower than its general help.
fn own_help(command: &str, option: &str) -> Option<&'static str> {
    Some(match (command, option) {
        ("report", "--profiles") => {
            "With --output markdown: the profiles whose step time and payoffs the pull request \
             report shows (a directory holding no_sk_model and sk_model, or BASE then NEW)"
        }
        ("report", "--kernel-meta") => {
            "A compile's kernel_meta directory, or files from it: its compiled SuperKernel \
             JSONs are held against the predicted segments in the text and JSON reports (exit \
             status 1 on a difference; repeatable)"
        }
        ("compile", "--profiles") => {
            "The profiles the plan's SuperKernels' savings are predicted from (the gaps of the one \
             without SuperKernel, the model fitted on a pair): the run's record holds the \
             prediction, and comparing the run's profile sets it beside what it measured"
        }
        ("export", "--profiles") => {
            "With --format trace or model-explorer: the profiles whose kernels and times the \
             export carries (a directory holding no_sk_model and sk_model, or BASE then NEW)"
        }
        _ => return None,
    })
}

/// `cli` with each subcommand's help listing only the shared options it takes
/// ([`shared_options`]): the others stay accepted where they are parsed, and are refused
/// with a reason, but are not offered.
pub fn with_shared_options_shown(mut cli: clap::Command) -> clap::Command {
    let shared: Vec<clap::Arg> = cli
        .get_arguments()
        .filter(|a| a.is_global_set())
        .cloned()
        .collect();
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let takes = shared_options(&name);
        // A subcommand that has an argument of a shared option's id is not given the shared
        // one: give it a hidden copy of each it does not take.
        let hidden: Vec<clap::Arg> = shared
            .iter()
            .filter(|a| {
                let long = a.get_long().map(|l| format!("--{l}"));
                long.is_some_and(|l| !takes.contains(&l.as_str()))
            })
            .map(|a| a.clone().hide(true))
            .collect();
        // A shared option whose use here is narrower than its general help says it here.
        let narrowed: Vec<clap::Arg> = shared
            .iter()
            .filter_map(|a| {
                let long = format!("--{}", a.get_long()?);
                let words = own_help(&name, &long)?;
                Some(a.clone().help(words).long_help(words))
            })
            .collect();
        cli = cli.mut_subcommand(&name, |sub| {
            hidden
                .into_iter()
                .chain(narrowed)
                .fold(sub, |sub, a| sub.arg(a))
        });
    }
    cli
}
