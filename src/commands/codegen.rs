//! `skope codegen`: the entry code of the segments written beside the dump (or printed), or
//! held against the sources the SuperKernel compiler wrote.

use super::Printer;
use crate::own_files::Links;
use crate::text::sanitize;
use crate::workspace::Workspace;
use anyhow::{Context as _, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the code goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeOutput {
    /// Into this directory (`None`: `<dump name>.codegen` beside the dump), a source and its
    /// sidecar per segment; the paths written are printed.
    Files(Option<PathBuf>),
    /// The sources printed.
    Print,
    /// Held against the compiler's sources; with `true`, the differing lines shown.
    Compare(bool),
}

/// The code of the segment named `segment` (or of every one) of `ws`, read from `file`, sent
/// where `output` says; `say` hears when there is nothing to write. False when a compared
/// segment differs from the compiler's source.
pub fn run(
    ws: &Workspace,
    file: &Path,
    segment: Option<&str>,
    output: CodeOutput,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    let codes = crate::codegen::entries(ws.context(), ws.kernel_meta(), ws.plan(), segment)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    match output {
        CodeOutput::Compare(show_lines) => {
            let (text, same) = crate::codegen::compare::text(ws.kernel_meta(), &codes, show_lines)
                .map_err(anyhow::Error::msg)?;
            out.raw(&text)?;
            Ok(same)
        }
        CodeOutput::Print => {
            for code in &codes {
                out.raw(&code.source)?;
            }
            Ok(true)
        }
        CodeOutput::Files(dir) => {
            // A folder the user named may be a link they made; skope's own is never one.
            let (dir, links) = match dir {
                Some(dir) => (dir, Links::Follow),
                None => (
                    crate::paths::DumpFiles::of(&file.to_string_lossy()).codegen(),
                    Links::Refuse,
                ),
            };
            let written = crate::codegen::files::write_all(&dir, links, &codes, ws.graph())
                .with_context(|| {
                    format!("cannot write the generated code into {}", dir.display())
                })?;
            let list: String = written
                .iter()
                .map(|path| format!("{}\n", sanitize(&path.to_string_lossy())))
                .collect();
            out.raw(&list)?;
            if written.is_empty() {
                say(&format!(
                    "{}: no segments: nothing to generate",
                    file.display()
                ));
            }
            Ok(true)
        }
    }
}
