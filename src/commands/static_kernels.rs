//! `skope static`: which ops got a static kernel, for which input shapes, and which were
//! filtered out and why — with the graph's op types when a dump is given.

use super::Printer;
use crate::open::Request;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Reads the static kernel compile outputs under `dir` (joined with the dump `graph`, loaded
/// as `request` says) and writes the summary, as JSON when `json`.
pub fn run(
    request: &Request,
    dir: &Path,
    graph: Option<&Path>,
    json: bool,
    out: &mut Printer<impl Write>,
) -> Result<()> {
    let (runs, problems) = crate::static_kernels::read(dir)?;
    let mut summary = crate::static_kernels::summarise(&runs, problems);
    if let Some(graph) = graph {
        summary.join(crate::load::load_file(graph, request.load)?.main());
    }
    out.text_or_json(json, &summary, || summary.to_text())
}
