//! `skope options`: a fusion system's options listed, or a set of them checked — GE's
//! SuperKernel options, the aclgraph pass's (`--aclgraph`), or MindSpore's graph kernel flags
//! (`--graph-kernel`, with what each would change in a graph).

use super::Printer;
use crate::open::Request;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Whose options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// GE's SuperKernel options string (`k1=v1:k2=v2`).
    Ge,
    /// The aclgraph pass's options, as a JSON object.
    Aclgraph,
    /// MindSpore's graph kernel flags.
    GraphKernel,
}

/// Lists `system`'s options, or checks `text` the way that system does; with `graph` (for
/// graph kernel flags), opened as `request` says, what each flag would change in it. False
/// when `text` has an error.
pub fn run(
    request: &Request,
    system: System,
    text: Option<&str>,
    graph: Option<&Path>,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    let (text, ok) = match (system, text) {
        (System::GraphKernel, text) => {
            let ws = match graph {
                Some(path) => Some(super::open(request, path, say)?),
                None => None,
            };
            crate::mindspore::flags::text(text, ws.as_ref()).map_err(anyhow::Error::msg)?
        }
        (System::Aclgraph, Some(text)) => {
            crate::aclgraph::options_text::check(text).map_err(anyhow::Error::msg)?
        }
        (System::Aclgraph, None) => {
            let target = request.chosen_target();
            (crate::aclgraph::options_text::list(&target), true)
        }
        (System::Ge, Some(text)) => crate::report::options_check_text(text),
        (System::Ge, None) => (crate::report::options_schema_text(), true),
    };
    out.text(&text)?;
    Ok(ok)
}
