//! `skope export`: the plan as model code or a plan file, the profiles as a Chrome trace, or
//! the graph for Model Explorer — each form with the arguments it takes, checked here.

use super::Printer;
use crate::export::Form;
use crate::open::Request;
use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What `skope export` is asked for besides the dump.
#[derive(Debug, Clone, Copy)]
pub struct ExportRequest<'a> {
    /// The form.
    pub format: Form,
    /// `-o`: the file (or, for Model Explorer, the directory) to write.
    pub output: Option<&'a Path>,
    /// `--profiles`, for the trace and Model Explorer.
    pub profiles: &'a [PathBuf],
    /// With several ranks, the one to trace.
    pub rank: Option<u32>,
    /// Only this step of the trace.
    pub step: Option<&'a str>,
}

/// Exports `file` opened as `request` says in the form `asked` names; `say` hears what was
/// written where.
pub fn run(
    request: &Request,
    file: &Path,
    asked: &ExportRequest,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<()> {
    match asked.format {
        Form::Trace => {
            let traced = super::trace::TraceRequest {
                profiles: asked.profiles,
                rank: asked.rank,
                step: asked.step,
                output: asked.output,
            };
            super::trace::run(request, file, &traced, say, out.inner())
        }
        Form::ModelExplorer => {
            let Some(dir) = asked.output else {
                anyhow::bail!("--format model-explorer writes a directory: give it with -o DIR");
            };
            super::model_explorer::run(request, file, asked.profiles, dir, say).map(|_| ())
        }
        format => {
            if asked.rank.is_some() || asked.step.is_some() {
                anyhow::bail!("--rank and --step go with --format trace");
            }
            let ws = super::open(request, file, say)?;
            let text = crate::export::text(&ws, format).map_err(anyhow::Error::msg)?;
            match asked.output {
                Some(path) => super::write_output(path, request, file, text.as_bytes()),
                None => out.text(&text),
            }
        }
    }
}
