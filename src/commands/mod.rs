//! What the command line's commands do, apart from reading their arguments: each opens what it
//! needs, makes its output with the library and writes it through a [`Printer`], and says
//! whether it passed (the exit status a gate asks for).

pub mod args;
pub mod check_op;
pub mod codegen;
pub mod compile;
pub mod diff;
pub mod digest;
pub mod export;
pub mod fusion_diff;
pub mod info;
pub mod model_explorer;
pub mod options;
pub mod report;
pub mod runs;
pub mod static_kernels;
pub mod suggest;
pub mod trace;

use crate::open::{Opened, Request};
use crate::text::{JsonSafeWriter, TextWriter, sanitize};
use crate::workspace::Workspace;
use anyhow::{Context as _, Result};
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Lets a command that only prints end quietly when its reader goes away (`skope report |
/// head`), as other command-line tools do, instead of panicking on the failed write. Not for
/// the explorer and `compile`, which write to their jobs' pipes and must outlive a job.
pub fn die_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The forms a command's output can take (`--output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputForm {
    /// Text for a person (the default).
    Text,
    /// One JSON object.
    Json,
    /// GitHub Markdown, for a pull request.
    Markdown,
    /// CSV rows.
    Csv,
}

impl OutputForm {
    /// Every form, as `--output` names them.
    pub const ALL: [OutputForm; 4] = [
        OutputForm::Text,
        OutputForm::Json,
        OutputForm::Markdown,
        OutputForm::Csv,
    ];

    /// Its name, as `--output` takes it.
    pub fn name(self) -> &'static str {
        match self {
            OutputForm::Text => "text",
            OutputForm::Json => "json",
            OutputForm::Markdown => "markdown",
            OutputForm::Csv => "csv",
        }
    }

    /// The form named `name`.
    pub fn named(name: &str) -> Option<OutputForm> {
        OutputForm::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The form asked for: `--output FORM`, or one of the older flags (`--json`, `--markdown`,
    /// `--csv`, which keep working), else text; refused when `command` does not write it or
    /// two ask for different forms.
    pub fn chosen(
        output: Option<OutputForm>,
        (json, markdown, csv): (bool, bool, bool),
        command: &str,
        writes: &[OutputForm],
    ) -> Result<OutputForm> {
        let flags: Vec<OutputForm> = [
            (json, OutputForm::Json),
            (markdown, OutputForm::Markdown),
            (csv, OutputForm::Csv),
        ]
        .into_iter()
        .filter(|(given, _)| *given)
        .map(|(_, form)| form)
        .chain(output)
        .collect();
        let form = match flags.as_slice() {
            [] => OutputForm::Text,
            [one, rest @ ..] if rest.iter().all(|f| f == one) => *one,
            _ => anyhow::bail!(
                "{command}: give one output form (--output {})",
                names(writes)
            ),
        };
        if !writes.contains(&form) {
            anyhow::bail!(
                "`skope {command}` does not write {}: --output takes {}",
                form.name(),
                names(writes)
            );
        }
        Ok(form)
    }
}

/// `writes` as `text|json`.
fn names(writes: &[OutputForm]) -> String {
    let names: Vec<&str> = writes.iter().map(|f| f.name()).collect();
    names.join("|")
}

/// Refuses options given to `command` that it does not take (`takes`): options may come
/// before or after a command's name, and none is ever ignored. `explorer` names the options
/// only the explorer takes.
pub fn refuse_unused(
    command: &str,
    given: &[&str],
    takes: &[&str],
    explorer: &[&str],
) -> Result<()> {
    let unused: Vec<&str> = given
        .iter()
        .copied()
        .filter(|name| !takes.contains(name))
        .collect();
    if unused.is_empty() {
        return Ok(());
    }
    let one = unused.len() == 1;
    let hint = if unused.iter().all(|n| explorer.contains(n)) {
        "they are the explorer's: give them without a command (`skope FILE …`)".to_string()
    } else {
        format!(
            "leave {} out; `skope {} --help` lists what it takes",
            if one { "it" } else { "them" },
            command.split(['/', ' ']).next().unwrap_or(command)
        )
    };
    anyhow::bail!(
        "{} {} nothing to `skope {command}`, which does not use {}\n  hint: {hint}",
        unused.join(", "),
        if one { "means" } else { "mean" },
        if one { "it" } else { "them" },
    );
}

/// Opens `file` as `request` says; `say` hears, a line each, what of the plan file did not
/// apply and what of the input (or the CANN install) could not be used.
pub fn open(request: &Request, file: &Path, say: &mut dyn FnMut(&str)) -> Result<Workspace> {
    let Opened {
        ws,
        problems,
        plan_notes,
    } = request.open(file)?;
    tell("note", &plan_notes, say);
    tell("problem", &problems, say);
    Ok(ws)
}

/// Writes `bytes` to `output` for a command on a graph: [`write_apart`] from its inputs — the
/// dump `file`, the plan file, a rules file.
pub fn write_output(output: &Path, request: &Request, file: &Path, bytes: &[u8]) -> Result<()> {
    write_apart(output, &request.inputs(file), bytes)
}

/// Writes `bytes` to `output`, a file the user named with `-o`: as one step (synced), through a
/// link the user made, and never over one of the command's `inputs`, however it is named.
pub fn write_apart(output: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<()> {
    use crate::own_files::{self, Durability, Links};
    own_files::refuse_input_as_output(output, inputs)?;
    own_files::replace(output, bytes, Durability::Synced, Links::Follow)
        .with_context(|| format!("cannot write {}", output.display()))
}

/// Tells `say` each of `lines` as `kind: line`.
fn tell(kind: &str, lines: &[String], say: &mut dyn FnMut(&str)) {
    for line in lines {
        say(&format!("{kind}: {}", sanitize(line)));
    }
}

/// Where a command's output goes: text with every terminal control from an input made
/// visible, or JSON with every character a terminal could act on escaped.
pub struct Printer<W: Write> {
    out: W,
}

impl Printer<std::io::StdoutLock<'static>> {
    /// Standard output.
    pub fn stdout() -> Self {
        Printer {
            out: std::io::stdout().lock(),
        }
    }
}

impl<W: Write> Printer<W> {
    /// Output into `out`.
    pub fn new(out: W) -> Self {
        Printer { out }
    }

    /// Writes text made from inputs (a report, a table, CSV, code); line breaks stay, and the
    /// last line is ended.
    pub fn text(&mut self, text: &str) -> Result<()> {
        self.with(|out| {
            out.write_str(text)?;
            if !text.is_empty() && !text.ends_with('\n') {
                out.write_str("\n")?;
            }
            Ok(())
        })
    }

    /// Writes what `write` writes as text, as it is written (a report of millions of breaks is
    /// never held as one string).
    pub fn with(
        &mut self,
        write: impl FnOnce(&mut TextWriter<BufWriter<&mut W>>) -> std::fmt::Result,
    ) -> Result<()> {
        let mut out = TextWriter::new(BufWriter::new(&mut self.out));
        let _ = write(&mut out);
        out.finish().context("cannot write the output")
    }

    /// Writes `value` as pretty JSON, streamed.
    pub fn json(&mut self, value: &impl serde::Serialize) -> Result<()> {
        let mut out = JsonSafeWriter::new(BufWriter::new(&mut self.out));
        serde_json::to_writer_pretty(&mut out, value)?;
        out.write_all(b"\n")?;
        out.flush().context("cannot write the output")
    }

    /// Writes `value` as JSON when `json`, else the text `text` makes.
    pub fn text_or_json(
        &mut self,
        json: bool,
        value: &impl serde::Serialize,
        text: impl FnOnce() -> String,
    ) -> Result<()> {
        if json {
            self.json(value)
        } else {
            self.text(&text())
        }
    }

    /// The output itself, for a stream whose writer makes every string from an input safe as
    /// it writes it (the Chrome trace's events).
    pub fn inner(&mut self) -> &mut W {
        &mut self.out
    }

    /// Writes `text` as it is: code skope generated, whose strings from inputs are already
    /// made safe.
    pub fn raw(&mut self, text: &str) -> Result<()> {
        self.out
            .write_all(text.as_bytes())
            .context("cannot write the output")
    }
}
