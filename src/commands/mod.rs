//! What the command line's commands do, apart from reading their arguments: each opens what it
//! needs, makes its output with the library and writes it through a [`Printer`], and says
//! whether it passed (the exit status a gate asks for).

pub mod codegen;
pub mod diff;
pub mod fusion_diff;
pub mod info;
pub mod model_explorer;
pub mod options;
pub mod report;
pub mod runs;
pub mod suggest;
pub mod trace;

use crate::open::{Opened, Request};
use crate::text::{JsonSafeWriter, TextWriter, sanitize};
use crate::workspace::Workspace;
use anyhow::{Context as _, Result};
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

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

/// Writes `bytes` to `output`, a file the user named with `-o`: as one step (synced), through a
/// link the user made, and never over one of the command's inputs — the dump `file`, the plan
/// file, a rules file — however it is named.
pub fn write_output(output: &Path, request: &Request, file: &Path, bytes: &[u8]) -> Result<()> {
    use crate::own_files::{self, Durability, Links};
    own_files::refuse_input_as_output(output, &request.inputs(file))?;
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

    /// Writes `text` as it is: code skope generated, whose strings from inputs are already
    /// made safe.
    pub fn raw(&mut self, text: &str) -> Result<()> {
        self.out
            .write_all(text.as_bytes())
            .context("cannot write the output")
    }
}
